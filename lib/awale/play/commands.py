"""The engine protocol's commands read as values, its move notation and its ``info`` lines (:mod:`awale.play.protocol`).

>>> parse_command("go movetime 100 depth 127").depth
127
>>> parse_command("go movetime 100 depth 127").limits(0)
Limits(time=0.1, depth=127)
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ..core.control import Progress
from ..core.game import PLAYERS, Game, IllegalActionError
from ..core.render import label_pit, pit_label
from ..knowledge.evaluation import FEATURES, load_evaluation
from ..search.limits import Limits

__all__ = [
    "ProtocolError", "Uci", "IsReady", "NewGame", "SetOption", "Position", "Go", "Stop", "Quit", "PonderHit",
    "Command", "mean_to_cp", "parse_command", "read_line", "line_text", "info_line", "MAX_LINE",
]

#: The longest line read, in characters; a longer one is refused.
MAX_LINE = 65_536

#: The largest number a ``go`` parameter may take (milliseconds: some 30 years).
_MAX_NUMBER = 10**12


class ProtocolError(ValueError):
    """A line that cannot be read, or a setting or position that cannot be used: answered by ``info string``."""


@dataclasses.dataclass(frozen=True)
class Uci:
    """``uci``: name the engine and list its settings."""


@dataclasses.dataclass(frozen=True)
class IsReady:
    """``isready``: answer ``readyok`` once ready."""


@dataclasses.dataclass(frozen=True)
class NewGame:
    """``ucinewgame``: the next search is of a new game."""


@dataclasses.dataclass(frozen=True)
class Stop:
    """``stop``: end the search now."""


@dataclasses.dataclass(frozen=True)
class Quit:
    """``quit``: end the engine."""


@dataclasses.dataclass(frozen=True)
class PonderHit:
    """``ponderhit``: the opponent played the move pondered on; the search goes on under its ``go``'s limits."""


@dataclasses.dataclass(frozen=True)
class SetOption:
    """``setoption name NAME [value VALUE]``."""

    name: str
    value: str = ""


@dataclasses.dataclass(frozen=True)
class Position:
    """``position``: the initial position (``board`` None) or a board, then moves (pit labels, without spaces).

    Attributes:
        board: None for ``startpos``; else the pits, both captures and the player to move (0 South, 1 North).
        moves: the labels of the moves played from there, one letter each.
    """

    board: Optional[Tuple[Tuple[int, ...], Tuple[int, int], int]] = None
    moves: str = ""


@dataclasses.dataclass(frozen=True)
class Go:
    """``go`` and its limits (None: not given); times in milliseconds."""

    movetime: Optional[int] = None
    nodes: Optional[int] = None
    depth: Optional[int] = None
    infinite: bool = False
    wtime: Optional[int] = None
    btime: Optional[int] = None
    winc: Optional[int] = None
    binc: Optional[int] = None
    movestogo: Optional[int] = None
    ponder: bool = False

    def limits(self, player: int) -> Optional[Limits]:
        """The :class:`~awale.search.limits.Limits` of this ``go`` for ``player`` to move (0 South, whose clock is
        ``wtime``), pondering left out (the engine ponders itself); None when it gives none (the agent's own
        budget)."""
        remaining = (self.wtime, self.btime)[player]
        increment = (self.winc, self.binc)[player] if remaining is not None else None
        limits = Limits(
            time=None if self.movetime is None else self.movetime / 1000, depth=self.depth, nodes=self.nodes,
            remaining=None if remaining is None else max(remaining, 0) / 1000,
            increment=max(increment or 0, 0) / 1000,
            moves_to_go=self.movestogo if remaining is not None else None,
            infinite=self.infinite and remaining is None and self.movetime is None,
        )
        return None if limits.empty else limits


Command = Union[Uci, IsReady, NewGame, SetOption, Position, Go, Stop, Quit, PonderHit]

_SIMPLE = {"uci": Uci, "isready": IsReady, "ucinewgame": NewGame, "stop": Stop, "quit": Quit, "ponderhit": PonderHit}
_GO_LEAST = {"movetime": 1, "nodes": 1, "depth": 1, "wtime": None, "btime": None, "winc": 0, "binc": 0,
             "movestogo": 1}


def parse_command(line: str) -> Command:
    """The command a line holds (see the module docstring).

    Raises:
        ProtocolError: an unknown command, or one whose words do not follow its form; the message says which.
    """
    words = line.split()
    if not words:
        raise ProtocolError("empty line")
    head, rest = words[0], words[1:]
    if head in _SIMPLE:
        if rest:
            raise ProtocolError(f"{head} takes nothing after it, got {' '.join(rest)!r}")
        return _SIMPLE[head]()
    if head == "setoption":
        return _setoption(rest)
    if head == "position":
        return _position(rest)
    if head == "go":
        return _go(rest)
    raise ProtocolError(f"unknown command {_short(head)} (commands: uci, isready, ucinewgame, setoption, position, go, "
                        "stop, ponderhit, quit)")


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _setoption(words: List[str]) -> SetOption:
    if not words or words[0] != "name" or len(words) < 2 or words[1] == "value":
        raise ProtocolError("setoption needs a name: setoption name NAME [value VALUE]")
    if "value" in words:
        at = words.index("value")
        return SetOption(" ".join(words[1:at]), " ".join(words[at + 1:]))
    return SetOption(" ".join(words[1:]))


def _position(words: List[str]) -> Position:
    if not words:
        raise ProtocolError("position needs startpos or board: position startpos [moves M ...]")
    moves: List[str] = []
    if "moves" in words:
        at = words.index("moves")
        words, moves = words[:at], words[at + 1:]
    text = "".join(moves)
    if not all(c.isascii() and c.isalpha() for c in text):
        raise ProtocolError(f"moves are pit letters (A-F South's, a-f North's), got {_short(' '.join(moves))}")
    if words == ["startpos"]:
        return Position(None, text)
    if words[0] != "board":
        raise ProtocolError(f"position: expected startpos or board, got {_short(' '.join(words))}")
    *numbers, side = words[1:] or [""]
    if side.lower() not in ("south", "north") or len(numbers) < 2:
        raise ProtocolError("position board needs the pits, both captures and the side to move: "
                            "position board 4 4 4 4 4 4 4 4 4 4 4 4 0 0 south")
    try:
        counts = [int(word) for word in numbers]
    except ValueError:
        given = _short(" ".join(numbers))
        raise ProtocolError(f"position board: the pits and captures are whole numbers, got {given}") from None
    return Position((tuple(counts[:-2]), (counts[-2], counts[-1]), 0 if side.lower() == "south" else 1), text)


def _go(words: List[str]) -> Go:
    values: Dict[str, Any] = {}
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("infinite", "ponder"):
            values[word] = True
            index += 1
            continue
        if word not in _GO_LEAST:
            raise ProtocolError(f"go: unknown limit {_short(word)} (limits: movetime, nodes, depth, infinite, ponder, "
                                "wtime, btime, winc, binc, movestogo)")
        if index + 1 >= len(words):
            raise ProtocolError(f"go: {word} needs a number")
        try:
            number = int(words[index + 1])
        except ValueError:
            raise ProtocolError(f"go: {word} needs a whole number, got {_short(words[index + 1])}") from None
        least = _GO_LEAST[word]
        if (least is not None and number < least) or abs(number) > _MAX_NUMBER:
            raise ProtocolError(f"go: {word} must be from {least} to {_MAX_NUMBER}, got {number}")
        values[word] = number
        index += 2
    return Go(**values)


def read_line(text: str, game: Game) -> Tuple[List[int], Game]:
    """The actions of a line of pit labels played from ``game`` (spaces allowed), and the game they reach.

    Raises:
        ValueError: a letter that is not a pit, the opponent's pit, an illegal move or a move after the end of the
            game; the message names the move by its number in the line.
    """
    n = game.rules.pits_per_side
    actions = []
    letters = [c for c in text if not c.isspace()]
    for number, letter in enumerate(letters, start=1):
        where = f"move {number}, {letter!r}"
        if game.game_finished:
            raise ValueError(f"{where}: the game is already over")
        try:
            owner, action = divmod(label_pit(letter, n), n)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
        mover = game.current_player
        if owner != mover:
            own = f"{pit_label(mover * n, n)}-{pit_label(mover * n + n - 1, n)}"
            raise ValueError(f"{where}: {letter} is {PLAYERS[owner]}'s pit, but {PLAYERS[mover]} is to move "
                             f"({PLAYERS[mover]}'s pits are {own})")
        try:
            game = game.step(action)[0]
        except IllegalActionError as error:
            reason = str(error).split("is illegal: ", 1)[-1].split("; legal actions", 1)[0]
            legal = " ".join(pit_label(mover * n + a, n) for a in game.legal_actions)
            raise ValueError(f"{where}: {reason}; legal moves: {legal}") from None
        actions.append(action)
    return actions, game


def line_text(game: Game, actions: Sequence[int]) -> str:
    """The labels of a line of actions played from ``game``, separated by spaces."""
    n = game.rules.pits_per_side
    labels = []
    for action in actions:
        if game.game_finished:
            break
        labels.append(pit_label(game.current_player * n + action, n))
        game = game.step(action)[0]
    return " ".join(labels)


def mean_to_cp(mean: float) -> int:
    """An MCTS's mean result (a win 1, a draw ½) as a UCI score, hundredths of a seed: its logit divided by the
    fitted evaluation's weight of a captured seed (:mod:`awale.knowledge.evaluation`), the lead in seeds that the
    evaluation would give the same chance.

    >>> mean_to_cp(0.5), mean_to_cp(0.6) > 0 > mean_to_cp(0.4)
    (0, True)
    """
    p = min(max(float(mean), 0.001), 0.999)
    return round(100 * math.log(p / (1 - p)) / _SEED_LOGIT)


_SEED_LOGIT = float(load_evaluation().weights[FEATURES.index("captures")])


def info_line(progress: Progress, game: Game, seconds: float) -> str:
    """The ``info`` line of a search's progress from ``game``, ``seconds`` after its ``go``."""
    if progress.proven:
        margin = progress.margin is not None and progress.proven != "draw"
        score = progress.proven + (f" {progress.margin}" if margin else "")
    elif progress.seeds is not None:
        score = f"cp {round(100 * progress.seeds)}"
    elif progress.mean is not None:
        score = f"cp {mean_to_cp(progress.mean)}"
    else:
        score = ""
    millis = max(int(seconds * 1000), 0)
    nps = int(progress.nodes / max(seconds, 1e-3))
    words = [f"info depth {progress.depth}", f"score {score}" if score else "",
             f"nodes {progress.nodes} nps {nps} time {millis}"]
    pv = line_text(game, progress.line)
    if pv:
        words.append(f"pv {pv}")
    return " ".join(word for word in words if word)
