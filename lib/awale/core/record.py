"""What each move of a game did: :func:`replay` and :class:`Ply`.

:func:`replay` plays a list of actions through the rules and describes every
ply: the pit sown, the pits captured, a grand slam that captured nothing
(Abapa), and how the game ended.  The terminal game (:mod:`awale.play.terminal`), the
Jupyter board (:mod:`awale.play.widget`) and the site's game viewer draw their
boards from these descriptions.  :func:`encode_moves` and :func:`decode_moves`
write a game's actions as text, one digit each, as the experiment store and
game files (:mod:`awale.core.gamefile`) keep them.

>>> plies = replay([2, 3, 1])
>>> plies[0].label, plies[-1].game.pits
('C', (5, 0, 1, 6, 6, 6, 6, 4, 4, 0, 5, 5))
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Iterable, List, Optional, Tuple

import numpy as np

from . import engine
from .game import PLAYERS, Game, IllegalActionError
from .render import pit_label
from .rules import Rules, as_rules

__all__ = ["Ply", "replay", "describe", "ending", "score_text", "margin_text", "encode_moves", "decode_moves"]


@dataclasses.dataclass(frozen=True)
class Ply:
    """One move and what it did.

    Attributes:
        number: the ply's number, from 1.
        player: who moved: 0 (South) or 1 (North).
        action: the action, ``0..n-1`` relative to the mover.
        pit: the absolute index of the pit sown.
        label: that pit's label (``A``..``F`` South's, ``a``..``f`` North's).
        captured: seeds captured.
        captured_pits: absolute indices of the pits emptied by the capture.
        grand_slam: the move would have taken every seed of the opponent
            and, by the rules (Abapa's ``"no-capture"``, or a forced one
            under ``"forbidden"``), took nothing.
        game: the game after the move.
        ending: how the game ended on this ply ("" while it goes on), see :func:`ending`.
    """

    number: int
    player: int
    action: int
    pit: int
    label: str
    captured: int
    captured_pits: Tuple[int, ...]
    grand_slam: bool
    game: Game
    ending: str


def describe(game: Game, action: int) -> Ply:
    """Play ``action`` in ``game`` and describe the ply.

    Raises:
        IllegalActionError: the action is not legal in ``game``.
    """
    after, captured, _ = game.step(action)
    rules = game.rules
    n = rules.pits_per_side
    size = 2 * n
    player = game.current_player
    pit = player * n + int(action)
    # Sow on a copy with the rules' own kernels, then find the capture chain the sowing made.
    state = engine.game_arrays(game).state.copy()
    last = engine.sow(state, pit, size)
    taken, first, grand = engine.chain(state, last, player, n)
    pits = tuple(range(int(first), int(last) + 1)) if captured else ()
    return Ply(
        number=game.plies + 1,
        player=player,
        action=int(action),
        pit=pit,
        label=pit_label(pit, n),
        captured=captured,
        captured_pits=pits,
        grand_slam=bool(taken) and bool(grand) and not captured,
        game=after,
        ending=ending(game, int(action)) if after.game_finished else "",
    )


def ending(game: Game, action: int) -> str:
    """How the game ends when ``action`` is played in ``game``, or "" if it goes on.

    One of ``"more than half the seeds"`` (a player captured more than half),
    ``"half the seeds each"``, ``"repetition"`` (the position, board and
    player to move, occurred before since the last capture), ``"no legal
    move"`` (the player to move cannot play, or cannot feed an empty
    opponent) and ``"ply limit"`` (the rules' ``max_plies``).  The order of
    the tests is that of :func:`awale.core.rules.advance`.
    """
    after, captured, finished = game.step(action)
    if not finished:
        return ""
    rules = game.rules
    half = rules.total_seeds // 2
    if captured and (max(after.captures) > half or after.captures == (half, half)):
        return "more than half the seeds" if max(after.captures) > half else "half the seeds each"
    n = rules.pits_per_side
    size = 2 * n
    player = game.current_player
    arrays = engine.game_arrays(game)
    state = arrays.state.copy()
    last = engine.sow(state, player * n + action, size)
    state[size + player] += engine.capture(state, last, player, n, rules.params[engine.R_GRAND_SLAM])
    state[size + 2] = 1 - player
    if rules.repetition and not captured:
        board = np.append(state[:size], 1 - player)
        seen = arrays.boards[: arrays.length]
        if any(np.array_equal(row, board) for row in seen):
            return "repetition"
    if engine.legal_actions(state, rules.params, np.empty(n, dtype=np.int64)) == 0:
        return "no legal move"
    return "ply limit"


def replay(moves: Iterable[int], rules: Optional[Rules] = None) -> List[Ply]:
    """Every ply of the game that plays ``moves`` from the initial position of ``rules``.

    Raises:
        ValueError: a move that is not a legal action, or a move after the end of the game;
            the message gives the ply.
    """
    game = Game(as_rules(rules))
    plies = []
    for number, action in enumerate(moves, start=1):
        try:
            ply = describe(game, action)
        except IllegalActionError as error:
            raise ValueError(f"ply {number}: {error}") from None
        plies.append(ply)
        game = ply.game
    return plies


def score_text(score: Tuple[int, int], winner: Optional[int]) -> str:
    """A finished game's result with each number beside its side, the winner's first.

    >>> score_text((4, 29), 1), score_text((24, 24), None)
    ('North wins by 25 seeds: North 29, South 4', 'a draw: South 24, North 24')
    """
    south, north = (int(value) for value in score)
    if winner is None:
        return f"a draw: South {south}, North {north}"
    mine, theirs = (south, north) if winner == 0 else (north, south)
    margin = abs(mine - theirs)
    return (f"{PLAYERS[winner]} wins by {margin} seed{'s' if margin != 1 else ''}: "
            f"{PLAYERS[winner]} {mine}, {PLAYERS[1 - winner]} {theirs}")


def margin_text(game: Game) -> str:
    """The result of a finished game in words, each number beside its side (see :func:`score_text`)."""
    return score_text(game.captures, game.winner)


def encode_moves(moves: Iterable[int]) -> str:
    """The moves of a game as a string, one digit per action (actions are 0 to 5).

    >>> encode_moves((2, 0, 5))
    '205'
    """
    digits = []
    for action in moves:
        try:
            value = operator.index(action)
        except TypeError:
            value = -1
        if isinstance(action, bool) or not 0 <= value <= 9:
            raise ValueError(f"a move must be an action from 0 to 9, got {action!r}")
        digits.append(str(value))
    return "".join(digits)


def decode_moves(text: str) -> Tuple[int, ...]:
    """The actions of a string written by :func:`encode_moves`.

    >>> decode_moves("205")
    (2, 0, 5)
    """
    if not isinstance(text, str) or not (text == "" or text.isdigit()):
        raise ValueError(f"moves must be a string of digits, got {text!r}")
    return tuple(int(c) for c in text)
