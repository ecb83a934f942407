"""Play Awale against an agent in a terminal, and replay saved games.

``python -m awale play [AGENT]`` runs :func:`play_terminal`; ``python -m
awale replay FILE`` runs :func:`replay_terminal`.  The board is drawn with
Unicode box characters (ASCII where the terminal cannot show them), in colour
when the output is a terminal and ``NO_COLOR`` is not set (https://no-color.org);
the pit sown last is marked ``•`` and the pits it captured ``×``.

A move is a pit of the player to move, as its letter (``A``..``F`` for South,
``a``..``f`` for North, either case) or its number from the mover's left
(``1``..``6``).  The other inputs are ``hint``, ``undo``, ``help`` and ``quit``.

A *game file* (:func:`save_game`, :func:`load_game`) is a small JSON object:
the two players (agent specs, or ``"human"``), the rules as the experiment
store writes them (:func:`awale.experiments.store.rules_to_text`) and the
moves in the store's encoding, one digit per action
(:func:`awale.experiments.store.encode_moves`).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import sys
from typing import IO, List, Optional, Sequence, Tuple, Union

from . import DEFAULT_AGENT
from .agents import Agent, parse
from .experiments.store import decode_moves, encode_moves, rules_from_text, rules_to_text
from .game import PLAYERS, Game, IllegalActionError
from .record import Ply, describe, margin_text, replay
from .render import pit_label
from .rules import Rules, as_rules

__all__ = [
    "DEFAULT_AGENT",
    "HUMAN",
    "GameFile",
    "Session",
    "board_text",
    "estimate",
    "load_game",
    "parse_move",
    "parse_rules",
    "play_terminal",
    "replay_terminal",
    "save_game",
    "use_colour",
]

#: The opponent of ``python -m awale play`` when none is named: the champion, half a second a move.

#: The name of a human player in game files.
HUMAN = "human"

#: The value of the ``format`` key of a game file.
FORMAT = "awale-game/1"

_HELP = """\
Enter a move as a pit of yours: its letter ({letters}) or its number from your left (1 to {n}).
  hint   what {agent} would play here, and how it rates the move
  undo   take back your last move (and the reply to it)
  help   this text
  quit   stop (the game is saved first if --save was given)
Marks on the board: • the pit sown last, × the pits it captured."""

# ANSI styles: bold, the pit sown last, captured pits.
_BOLD, _SOWN, _TAKEN, _RESET = "\033[1m", "\033[1;33m", "\033[1;31m", "\033[0m"
_BOX = "┌┬┐├┼┤└┴┘─│•×"
_ASCII = "+" * 9 + "-|*x"


# --------------------------------------------------------------------------- the board


def use_colour(stream: IO[str], mode: str = "auto") -> bool:
    """Whether to write colour to ``stream``: ``"always"``, ``"never"``, or, for ``"auto"``, when it is
    a terminal (not ``TERM=dumb``) and ``NO_COLOR`` is unset or empty."""
    if mode not in ("auto", "always", "never"):
        raise ValueError(f"colour mode must be 'auto', 'always' or 'never', got {mode!r}")
    if mode != "auto":
        return mode == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _can_draw_boxes(stream: IO[str]) -> bool:
    try:
        _BOX.encode(getattr(stream, "encoding", None) or "ascii")
    except (LookupError, UnicodeEncodeError):
        return False
    return True


def board_text(game: Game, last: Optional[Ply] = None, colour: bool = False, boxes: bool = True) -> str:
    """The board seen from South's seat, North's row on top, with the last ply marked.

    Args:
        game: the position.
        last: the ply that led to it: its pit is marked ``•`` and the pits it captured ``×``.
        colour: add ANSI colours (the pit sown in yellow, the captured pits in red).
        boxes: draw with Unicode box characters; ASCII otherwise.
    """
    tl, tm, tr, ml, mm, mr, bl, bm, br, h, v, sown, taken = _BOX if boxes else _ASCII
    n = game.rules.pits_per_side
    captured = set(last.captured_pits) if last else set()

    def cell(pit: int) -> str:
        mark, style = (sown, _SOWN) if last and pit == last.pit else (taken, _TAKEN) if pit in captured else (" ", "")
        text = f"{game.pits[pit]:>3}{mark}"
        return f"{style}{text}{_RESET}" if colour and style else text

    def row(pits: Sequence[int], player: int) -> str:
        name = PLAYERS[player].ljust(6)
        if colour and not game.game_finished and game.current_player == player:
            name = f"{_BOLD}{name}{_RESET}"
        return f"{name}{v}" + v.join(cell(p) for p in pits) + f"{v}  captured {game.captures[player]}"

    def rule(left: str, middle: str, right: str) -> str:
        return " " * 6 + left + middle.join(h * 4 for _ in range(n)) + right

    def labels(pits: Sequence[int]) -> str:
        return " " * 6 + " " + " ".join(f"{pit_label(p, n):>3} " for p in pits).rstrip()

    north = range(2 * n - 1, n - 1, -1)
    south = range(n)
    return "\n".join(
        [labels(north), rule(tl, tm, tr), row(north, 1), rule(ml, mm, mr), row(south, 0), rule(bl, bm, br),
         labels(south)]
    )


def _ply_text(ply: Ply) -> str:
    """One line: who played what, and what it took."""
    n = ply.game.rules.pits_per_side
    text = f"{PLAYERS[ply.player]} played {ply.label}"
    if ply.captured:
        pits = " ".join(pit_label(p, n) for p in ply.captured_pits)
        text += f" and captured {ply.captured} seed{'s' if ply.captured != 1 else ''} ({pits})"
    elif ply.grand_slam:
        text += " (a grand slam, which captures nothing under these rules)"
    return text + "."


def _result_text(game: Game, ending: str) -> str:
    return f"Game over ({ending}): {margin_text(game)}."


# --------------------------------------------------------------------------- input


def parse_move(text: str, game: Game) -> int:
    """The action a player typed: a pit letter of the mover (either case) or its number from 1.

    Raises:
        ValueError: the text is not a pit of the mover, or the move is illegal; the message is one
            line saying why and, for an illegal move, which moves are legal.
    """
    n = game.rules.pits_per_side
    player = game.current_player
    first = "A" if player == 0 else "a"
    letters = f"{first}-{chr(ord(first) + n - 1)}"
    word = text.strip()
    if len(word) == 1 and word.isalpha() and word.isascii():
        action = ord(word.lower()) - ord("a")
        if not 0 <= action < n:
            raise ValueError(f"{word!r} is not one of your pits: they are {letters} (or 1-{n})")
    elif word.isdigit() and word.isascii():
        action = int(word) - 1
        if not 0 <= action < n:
            raise ValueError(f"pit numbers go from 1 to {n}, got {word}")
    else:
        raise ValueError(f"{word!r} is not a move: type a pit ({letters} or 1-{n}), or help")
    if action not in game.legal_actions:
        try:
            game.step(action)
        except IllegalActionError as error:
            reason = str(error).split("is illegal: ", 1)[-1].split("; legal actions", 1)[0]
        legal = ", ".join(pit_label(player * n + a, n) for a in game.legal_actions)
        raise ValueError(f"{pit_label(player * n + action, n)} cannot be played: {reason}; legal moves: {legal}")
    return action


def parse_rules(text: str) -> Rules:
    """Rules named on the command line: ``abapa``, ``simplified``, the store's JSON text, or
    ``key=value`` pairs of :class:`awale.Rules` fields separated by commas (``pits_per_side=4,feed=False``).

    Raises:
        ValueError: anything else; the message says what.
    """
    word = text.strip()
    if word.lower() in ("abapa", "simplified"):
        return getattr(Rules, word.lower())()
    if word.startswith("{"):
        return rules_from_text(word)
    fields = {field.name for field in dataclasses.fields(Rules)}
    values = {}
    for item in filter(None, (part.strip() for part in word.split(","))):
        key, equals, value = item.partition("=")
        key = key.strip()
        if not equals or key not in fields:
            raise ValueError(
                f"rules {text!r}: expected abapa, simplified, JSON or key=value pairs of {', '.join(sorted(fields))}"
            )
        value = value.strip()
        literal = {"true": True, "false": False, "none": None}.get(value.lower(), value)
        if literal is value:
            try:
                literal = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                literal = value  # a bare word, such as capture-all
        values[key] = literal
    if not values:
        raise ValueError(f"rules {text!r}: nothing given")
    return Rules(**values)


# --------------------------------------------------------------------------- estimates


def estimate(agent: Agent, game: Game, action: int) -> str:
    """How ``agent`` rated ``action`` in its last search of ``game``, in words ("" if it cannot say).

    Tree searches give the mean result of the move for the mover (a win 1, a draw ½) over their
    simulations, or the result the solver proved; αβ its value in seeds at the depth reached.
    """
    if len(game.legal_actions) == 1:
        return "the only legal move"
    tree = getattr(agent, "tree", None)
    if tree is not None and tree.game == game and tree.game.plies == game.plies:
        stats = {s.action: s for s in tree.children()}
        chosen = stats.get(action)
        if chosen is None:
            return ""
        if chosen.proven:
            return f"a proven {chosen.proven}"
        total = sum(s.visits for s in stats.values())
        return f"expected score {chosen.mean:.0%} after {chosen.visits:,} of {total:,} simulations"
    search = getattr(agent, "last_search", None)
    if search is not None and action in search.best_actions:
        depth = "to the end of the game" if search.exact else f"at depth {search.depth}"
        return f"αβ value {search.value:+d} seeds {depth}"
    return ""


# --------------------------------------------------------------------------- game files


@dataclasses.dataclass(frozen=True)
class GameFile:
    """A game read by :func:`load_game`: who played, under which rules, and the moves."""

    south: str
    north: str
    rules: Rules
    moves: Tuple[int, ...]


def save_game(path: Union[str, os.PathLike], south: str, north: str, rules: Rules, moves: Sequence[int]) -> None:
    """Write a game file (see the module's docstring); the moves are checked through the rules first.

    Raises:
        ValueError: the moves are not a legal game under ``rules``.
    """
    rules = as_rules(rules)
    replay(moves, rules)
    data = {"format": FORMAT, "south": south, "north": north, "rules": json.loads(rules_to_text(rules)),
            "moves": encode_moves(moves)}
    with open(path, "w", encoding="utf-8") as file:
        file.write(json.dumps(data, indent=1) + "\n")


def load_game(path: Union[str, os.PathLike]) -> GameFile:
    """Read a game file written by :func:`save_game`; its moves are checked through its rules.

    Raises:
        ValueError: not a game file, or moves that are not a legal game; the message says which.
        OSError: the file cannot be read.
    """
    with open(path, encoding="utf-8") as file:
        text = file.read()
    try:
        data = json.loads(text)
    except ValueError:
        raise ValueError(f"{path}: not a game file (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a game file (it needs \"format\": \"{FORMAT}\")")
    for key in ("south", "north", "moves"):
        if not isinstance(data.get(key), str):
            raise ValueError(f"{path}: {key!r} must be a string")
    if not isinstance(data.get("rules"), dict):
        raise ValueError(f"{path}: 'rules' must be an object of Rules fields")
    try:
        rules = rules_from_text(json.dumps(data["rules"]))
        moves = decode_moves(data["moves"])
        replay(moves, rules)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    return GameFile(data["south"], data["north"], rules, moves)


# --------------------------------------------------------------------------- the terminal game


class _Terminal:
    """Board, lines and prompts on one output stream."""

    def __init__(self, out: IO[str], colour: str) -> None:
        self.out = out
        self.colour = use_colour(out, colour)
        self.boxes = _can_draw_boxes(out)

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def board(self, game: Game, last: Optional[Ply]) -> None:
        self.say()
        if last is not None:
            self.say(f"ply {last.number}: {_ply_text(last)}")
        self.say(board_text(game, last, colour=self.colour, boxes=self.boxes))


class Session:
    """A game between a human and an agent, one move at a time, with hints and take-backs.

    The terminal game and the Jupyter board (:mod:`awale.widget`) both play through a session.

    Args:
        agent: the opponent, an agent or a spec (see :func:`awale.agents.parse`).
        side: the human's side, 0 (South, who moves first) or 1 (North).
        rules: the rules (Abapa by default).
        seed: replaces the agent's ``seed``, if it has one; its hints come from a copy with the same seed,
            so asking for one never changes the agent's moves.

    Raises:
        ValueError: a bad spec, side or rules.
    """

    def __init__(self, agent: Union[str, Agent] = DEFAULT_AGENT, side: int = 0, rules: Optional[Rules] = None,
                 seed: int = 0) -> None:
        if side not in (0, 1) or isinstance(side, bool):
            raise ValueError(f"side must be 0 (South) or 1 (North), got {side!r}")
        self.side = side
        self.rules = as_rules(rules)
        opponent = parse(agent)
        if any(p.name == "seed" for p in opponent.params):
            opponent = opponent.replace(seed=seed)
        self.agent = opponent
        self._adviser = opponent.replace()
        self.plies: List[Ply] = []

    @property
    def game(self) -> Game:
        """The position now."""
        return self.plies[-1].game if self.plies else Game(self.rules)

    @property
    def last(self) -> Optional[Ply]:
        """The last ply played, if any."""
        return self.plies[-1] if self.plies else None

    @property
    def players(self) -> Tuple[str, str]:
        """South's and North's names: ``"human"`` or the agent's spec."""
        names = [HUMAN, HUMAN]
        names[1 - self.side] = self.agent.spec
        return names[0], names[1]

    @property
    def human_to_move(self) -> bool:
        """Whether the game goes on and it is the human's turn."""
        return not self.game.game_finished and self.game.current_player == self.side

    def play(self, action: int) -> Ply:
        """Play the human's ``action``.

        Raises:
            ValueError: it is not the human's turn, or the action is illegal (``IllegalActionError``).
        """
        if not self.human_to_move:
            raise ValueError("it is not your turn" if not self.game.game_finished else "the game is over")
        ply = describe(self.game, action)
        self.plies.append(ply)
        return ply

    def reply(self) -> Tuple[Ply, str]:
        """Let the agent move; returns the ply and the agent's rating of it (see :func:`estimate`)."""
        game = self.game
        if game.game_finished or game.current_player == self.side:
            raise ValueError("it is not the agent's turn")
        action = self.agent.act(game)
        rating = estimate(self.agent, game, action)
        ply = describe(game, action)
        self.plies.append(ply)
        return ply, rating

    def hint(self) -> Tuple[int, str]:
        """What the agent would play in the human's place, and its rating of that move."""
        if not self.human_to_move:
            raise ValueError("a hint is for your turn")
        game = self.game
        action = self._adviser.act(game)
        return action, estimate(self._adviser, game, action)

    def undo(self) -> bool:
        """Take back the human's last move and the reply to it; False if the human has not moved yet."""
        mine = [i for i, ply in enumerate(self.plies) if ply.player == self.side]
        if not mine:
            return False
        del self.plies[mine[-1]:]
        return True

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Write the game so far to a game file (see :func:`save_game`)."""
        save_game(path, *self.players, self.rules, [ply.action for ply in self.plies])


def play_terminal(
    agent: Union[str, Agent] = DEFAULT_AGENT,
    side: int = 0,
    rules: Optional[Rules] = None,
    seed: int = 0,
    save: Optional[Union[str, os.PathLike]] = None,
    stdin: Optional[IO[str]] = None,
    stdout: Optional[IO[str]] = None,
    colour: str = "auto",
) -> int:
    """Play a game in a terminal against an agent (see :class:`Session` for ``agent``, ``side``, ``rules``
    and ``seed``).

    Args:
        save: write the game there when it ends or the player quits (see :func:`save_game`).
        stdin, stdout: the streams (the process's by default).
        colour: ``"auto"``, ``"always"`` or ``"never"`` (see :func:`use_colour`).

    Returns:
        0: the game ended, or the player quit.

    Raises:
        KeyboardInterrupt: Ctrl-C, after the game was saved (if ``save`` is given).
    """
    stdin = sys.stdin if stdin is None else stdin
    term = _Terminal(sys.stdout if stdout is None else stdout, colour)
    session = Session(agent, side, rules, seed)
    term.say(f"You play {PLAYERS[side]} against {session.agent.spec}; South moves first. Type help for the commands.")
    term.board(session.game, None)
    try:
        _loop(session, stdin, term)
    except KeyboardInterrupt:  # Ctrl-C: stop, keep the game if asked to, then report the interruption
        term.say()
        _finish(session, term, save)
        raise
    _finish(session, term, save)
    return 0


def _loop(session: Session, stdin: IO[str], term: _Terminal) -> None:
    """Moves and commands until the game ends or the player stops."""
    side, spec, n = session.side, session.agent.spec, session.rules.pits_per_side
    while not session.game.game_finished:
        if not session.human_to_move:
            term.say(f"{PLAYERS[1 - side]} ({spec}) is thinking...")
            ply, rating = session.reply()
            term.board(ply.game, ply)
            if rating:
                term.say(f"{PLAYERS[ply.player]} rated {ply.label}: {rating}.")
            continue
        term.out.write(f"{PLAYERS[side]} to move> ")
        term.out.flush()
        line = stdin.readline()
        if not line:  # end of input: as quit
            term.say()
            break
        command = line.strip().lower()
        if command in ("quit", "q", "exit"):
            break
        if command in ("help", "h", "?"):
            letters = f"{pit_label(side * n, n)}-{pit_label(side * n + n - 1, n)}"
            term.say(_HELP.format(letters=letters, n=n, agent=spec))
        elif command == "hint":
            action, rating = session.hint()
            term.say(f"hint: {pit_label(side * n + action, n)}" + (f", {rating}" if rating else ""))
        elif command in ("undo", "u"):
            replied = session.plies and session.plies[-1].player != side
            if session.undo():
                term.say("took back your last move" + (" and the reply to it" if replied else ""))
                term.board(session.game, session.last)
            else:
                term.say("nothing to undo: you have not moved yet")
        else:
            try:
                ply = session.play(parse_move(line, session.game))
            except ValueError as error:
                term.say(str(error))
                continue
            term.board(ply.game, ply)


def _finish(session: Session, term: _Terminal, save: Optional[Union[str, os.PathLike]]) -> None:
    """The result (or where the game stopped), and the game file."""
    game = session.game
    if game.game_finished:
        verdict = "a draw" if game.winner is None else "you win" if game.winner == session.side else "you lose"
        term.say(f"{_result_text(game, session.last.ending)} ({verdict})")
    else:
        term.say(f"stopped after {game.plies} plies")
    if save is not None:
        session.save(save)
        term.say(f"saved to {save}: replay it with python -m awale replay {save}")


def replay_terminal(path: Union[str, os.PathLike], stdout: Optional[IO[str]] = None, colour: str = "auto") -> int:
    """Print a saved game ply by ply (see :func:`load_game`); returns 0."""
    term = _Terminal(sys.stdout if stdout is None else stdout, colour)
    record = load_game(path)
    term.say(f"South: {record.south}\nNorth: {record.north}\nrules: {rules_to_text(record.rules)}")
    game = Game(record.rules)
    term.board(game, None)
    plies = replay(record.moves, record.rules)
    for ply in plies:
        term.board(ply.game, ply)
    if plies and plies[-1].game.game_finished:
        term.say(_result_text(plies[-1].game, plies[-1].ending))
    else:
        term.say(f"unfinished after {len(plies)} plies: {PLAYERS[(plies[-1].game if plies else game).current_player]} to move")
    return 0
