"""Time well spent: how an αβ agent with ``manage=True`` divides its time among the moves of a game.

``champion(time=0.1)`` searches every move for 0.1 s (its iterative deepening
stops before an iteration predicted not to end by then).
``champion(time=0.1, manage=True)`` aims at 0.1 s a move *on average over the
game* and decides each move's time as engine testers' programs do (Stockfish's
``TimeManagement`` and its ``bestMoveInstability`` and ``fallingEval``
factors are the model):

1. **A bank.**  Each searched move adds the nominal time (``time``) to a bank
   of the game and takes from it the time the search took; the bank is
   spread over the next :data:`BANK_MOVES` moves, so a move saved is spent
   later and a move overspent repaid.  Moves the search does not make (the
   opening book's, the endgame database's, the only legal move) neither add
   nor take.  The bank empties when the agent is reset, before every game.
2. **The phase.**  A move's target is the nominal time weighted by the
   share of the seeds still on the board (:data:`PHASE_WEIGHTS`): less in
   the opening, which the book and the shallow searches of few captures
   settle, more in the middle game where the results are decided, less
   in the ending, which a short search (or the database) solves.
3. **Tactics.**  When either side can capture at least
   :data:`TACTICAL_SEEDS` seeds at once, an exchange is pending and the
   target is extended by :data:`TACTICAL_EXTENSION`.
4. **Stability of the best move** (:func:`soft_time`, the search's
   :data:`~awale.search.alphabeta.TimePlan`).  After each iteration of
   iterative deepening the time of the move is set again: cut to
   :data:`SETTLED_SHARE` of the target once the best move has stayed the
   same for :data:`SETTLED_DEPTHS` iterations, its value within
   :data:`STABLE_SEEDS` seeds from one to the next, from depth
   :data:`SETTLED_MIN_DEPTH` on (or at once when a win or loss is
   proved); extended by :data:`CHANGE_EXTENSION` when the best move changed
   at the last depth, and by :data:`DROP_EXTENSION` when its value fell by
   :data:`DROP_SEEDS` seeds or more.
5. **Limits.**  The target is kept within :data:`MIN_SHARE` and
   :data:`MAX_SHARE` nominal times, and no move takes more than
   :data:`HARD_LIMIT` nominal times: the search abandons an iteration
   there.

Under a clock (:class:`awale.core.clock.Clock`, told to the agent by
:meth:`awale.agents.Agent.observe_clock` before each of its moves) the clock
is the bank: the nominal time of a move is the time left (less
:data:`CLOCK_RESERVE`) over the moves expected to remain, one for each seed on
the board and at least :data:`CLOCK_MIN_MOVES` (``clock_moves='seeds'``, the
first guess) or, with ``clock_moves='database'``, one for each seed above the
endgame database (every seed without one) plus :data:`CLOCK_EXTRA_MOVES` (the
database's moves take no time; a fit to the champion's games under a clock,
where the first guess counts 1.8 times too many moves at the start and more
near the database), plus the increment, and no move takes more than
:data:`CLOCK_MAX_SHARE` of the time left.  The agent's ``time`` is then not
used.  In sudden death (no increment) the second count spends the clock
faster: a game that stays far longer above the database than counted runs
down to the reserve sooner than with the first.

The values of the search are in its points (a seed each without an
evaluation; :data:`~awale.search.alphabeta.EVAL_SCALE` points per unit of the
evaluation's logit with one): the margins are given in seeds and turned into
points by the agent's ``points_per_seed``.

The constants are first guesses, chosen so that the phase weights average
about 1 over a typical game of the champion and the extensions stay within
the hard limit; they are to be kept or changed by the SPRT against the fixed
split (the thesis's method chapter).  A spec changes any of them with ``timing``
(:class:`TimeConstants`), so that the ledger tunes them one at a time.

References:
    Stockfish, ``src/timeman.cpp`` and the time checks of ``src/search.cpp``
    (``Search::Worker::iterative_deepening``), https://github.com/official-stockfish/Stockfish .
"""

from __future__ import annotations

import dataclasses
import math
from typing import Optional, Sequence, Tuple

import numpy as np

from ..core.engine import game_arrays
from ..knowledge.evaluation import moves_and_best_capture
from ..core.game import Game
from ..search.alphabeta import WIN, Iteration
from ..search.limits import Limits

__all__ = [
    "TimeManager", "TimeConstants", "DEFAULT_CONSTANTS", "Allowance", "soft_time", "phase_weight", "is_tactical",
    "PHASE_WEIGHTS", "TACTICAL_SEEDS", "TACTICAL_EXTENSION", "BANK_MOVES", "MIN_SHARE", "MAX_SHARE", "HARD_LIMIT",
    "SETTLED_DEPTHS", "SETTLED_MIN_DEPTH", "SETTLED_SHARE", "STABLE_SEEDS", "CHANGE_EXTENSION", "DROP_EXTENSION",
    "DROP_SEEDS", "CLOCK_MOVES", "CLOCK_MIN_MOVES", "CLOCK_EXTRA_MOVES", "CLOCK_RESERVE", "CLOCK_MAX_SHARE",
    "MIN_SECONDS", "clock_share", "limits_seconds",
]

#: The weight of a move's nominal time by the share of the seeds on the board, ``(share, weight)`` points
#: interpolated linearly: 0.7 in the opening (all seeds on the board), 1.2 to 1.3 in the middle game (from 70 % down
#: to 40 % of the seeds), 0.7 at a quarter of the seeds and 0.5 with none.
PHASE_WEIGHTS: Tuple[Tuple[float, float], ...] = ((0.0, 0.5), (0.25, 0.7), (0.4, 1.2), (0.7, 1.3), (1.0, 0.7))

#: A capture of at least this many seeds, open to either side, makes the position tactical.
TACTICAL_SEEDS = 4

#: The extension of the target in a tactical position.
TACTICAL_EXTENSION = 1.25

#: The bank (savings or debt) is spread over this many moves.
BANK_MOVES = 10

#: The target of a move is at least this share of the nominal time...
MIN_SHARE = 0.25

#: ... and at most this many nominal times (before the extensions of the search).
MAX_SHARE = 2.0

#: No move takes more than this many nominal times: the search abandons an iteration there.
HARD_LIMIT = 3.0

#: The best move is settled when it has been the same for this many iterations in a row...
SETTLED_DEPTHS = 4

#: ... the last of them at least this deep...
SETTLED_MIN_DEPTH = 6

#: ... and its value moved by at most this many seeds from each iteration to the next.
STABLE_SEEDS = 1.0

#: A settled move takes this share of its target.
SETTLED_SHARE = 0.4

#: The extension when the best move changed at the last iteration.
CHANGE_EXTENSION = 1.7

#: The extension when the value fell by at least :data:`DROP_SEEDS` seeds at the last iteration.
DROP_EXTENSION = 1.5

#: A fall of the value that asks for more time, in seeds.
DROP_SEEDS = 3.0

#: The ways of counting the moves expected to remain under a clock (``clock_moves``), the first the default.
CLOCK_MOVES = ("seeds", "database")

#: Under a clock, with ``clock_moves='seeds'``: one move for each seed on the board, and at least this many.
CLOCK_MIN_MOVES = 20

#: Under a clock, with ``clock_moves='database'``: one move for each seed above the endgame database, plus these.
#: The champion's 200 games at 1+0.01 (chapter 9) leave a side on average 27 searched moves at 48 seeds, 19 at
#: 40, 9 at 30 and 4 at 26 above its 25-seed database: about one a seed above it plus 3 to 4; 5 keeps a margin.
CLOCK_EXTRA_MOVES = 5

#: Under a clock, seconds kept aside for what the search does not measure (the agent's own work, the game's).
CLOCK_RESERVE = 0.05

#: Under a clock, no move takes more than this share of the time left (above the reserve).
CLOCK_MAX_SHARE = 0.5

#: The least time given to a search (the search needs a positive time).
MIN_SECONDS = 0.001


def phase_weight(game: Game) -> float:
    """The weight of the nominal time in ``game``'s phase (:data:`PHASE_WEIGHTS`, by the seeds on the board)."""
    share = sum(game.pits) / game.rules.total_seeds
    shares, weights = zip(*PHASE_WEIGHTS)
    return float(np.interp(share, shares, weights))


def is_tactical(game: Game, seeds: int = TACTICAL_SEEDS) -> bool:
    """Whether either side could capture at least ``seeds`` (:data:`TACTICAL_SEEDS`) seeds at once in ``game``.

    The opponent's capture is counted as if it were to move: a threat the mover must answer.
    """
    state = game_arrays(game).state
    params = game.rules.params
    work = np.zeros(2 * len(state), dtype=np.int64)
    replies = np.zeros(game.rules.pits_per_side, dtype=np.int64)
    mover = game.current_player
    return any(
        moves_and_best_capture(state, params, player, work, replies)[1] >= seeds
        for player in (mover, 1 - mover)
    )


#: The constants that may be 0: no extra move counted, no reserve kept.
_MAY_BE_ZERO = ("clock_extra_moves", "clock_reserve")


def _kind(field: dataclasses.Field) -> Tuple[type, str]:
    """The type a constant of :class:`TimeConstants` is read as, and its name in an error message."""
    return (int, "an integer") if field.type in (int, "int") else (float, "a number")


@dataclasses.dataclass(frozen=True)
class TimeConstants:
    """The constants of the time manager, each the module's of the same name in capitals by default.

    A spec changes some of them with ``timing``, written ``'name=value, ...'`` (:meth:`parse`), so that the
    ledger can tune them one at a time: ``champion(time=1, manage=True, timing='settled_share=0.25')``.
    Counts are integers, the other values numbers (kept as floats); all positive (``clock_extra_moves`` and
    ``clock_reserve`` may be 0), and ``min_share <= max_share <= hard_limit``.
    """

    tactical_seeds: int = TACTICAL_SEEDS
    tactical_extension: float = TACTICAL_EXTENSION
    bank_moves: int = BANK_MOVES
    min_share: float = MIN_SHARE
    max_share: float = MAX_SHARE
    hard_limit: float = HARD_LIMIT
    settled_depths: int = SETTLED_DEPTHS
    settled_min_depth: int = SETTLED_MIN_DEPTH
    stable_seeds: float = STABLE_SEEDS
    settled_share: float = SETTLED_SHARE
    change_extension: float = CHANGE_EXTENSION
    drop_extension: float = DROP_EXTENSION
    drop_seeds: float = DROP_SEEDS
    clock_min_moves: int = CLOCK_MIN_MOVES
    clock_extra_moves: int = CLOCK_EXTRA_MOVES
    clock_reserve: float = CLOCK_RESERVE
    clock_max_share: float = CLOCK_MAX_SHARE

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            kind, words = _kind(field)
            if isinstance(value, bool) or not isinstance(value, int if kind is int else (int, float)):
                raise ValueError(f"timing: {field.name} must be {words}, got {value!r}")
            zero = field.name in _MAY_BE_ZERO
            if not (0 <= value if zero else 0 < value) or not math.isfinite(value):
                raise ValueError(f"timing: {field.name} must be a finite number above 0{' (or 0)' if zero else ''}, "
                                 f"got {value!r}")
            if kind is float:
                object.__setattr__(self, field.name, float(value))  # one spelling: 4 and 4.0 are the same constant
        if not self.min_share <= self.max_share <= self.hard_limit:
            raise ValueError(f"timing: min_share <= max_share <= hard_limit is needed, got {self.min_share}, "
                             f"{self.max_share} and {self.hard_limit}")

    @classmethod
    def parse(cls, text: str) -> "TimeConstants":
        """The constants ``text`` changes, ``'name=value'`` items separated by commas (``''``: none).

        Raises:
            ValueError: an unknown or repeated name, an item without ``=``, or a value that is not a number of
                the constant's kind (or out of range).
        """
        fields = {field.name: field for field in dataclasses.fields(cls)}
        values: dict = {}
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            name, equals, raw = (piece.strip() for piece in item.partition("="))
            if not equals:
                raise ValueError(f"timing: {item!r} is not name=value")
            if name not in fields:
                raise ValueError(f"timing: unknown constant {name!r}; known: {', '.join(fields)}")
            if name in values:
                raise ValueError(f"timing: {name} given twice")
            kind, words = _kind(fields[name])
            try:
                values[name] = kind(raw)
            except ValueError:
                raise ValueError(f"timing: {name} must be {words}, got {raw!r}") from None
        return cls(**values)

    def text(self) -> str:
        """The canonical ``timing`` of these constants: the changed ones in the class's order (``''``: none)."""
        return ", ".join(
            f"{field.name}={getattr(self, field.name)!r}" for field in dataclasses.fields(self)
            if getattr(self, field.name) != field.default
        )


#: The module's constants.
DEFAULT_CONSTANTS = TimeConstants()


def soft_time(target: float, limit: float, iterations: Sequence[Iteration], points_per_seed: float = 1.0,
              constants: TimeConstants = DEFAULT_CONSTANTS) -> float:
    """The time a search may take, from its start, after ``iterations`` (step 4 of the module's policy).

    Args:
        target: the move's target time in seconds.
        limit: its hard limit; the result is at most this.
        iterations: the iterations completed so far, the last one last (at least one).
        points_per_seed: the search's points per seed, to read the value margins.
        constants: the manager's constants (the module's by default).

    Returns:
        Seconds from the search's start: the elapsed time or less means stop now.
    """
    last = iterations[-1]
    if abs(last.value) >= WIN:
        return 0.0  # a proved win or loss: nothing to gain from searching deeper
    factor = 1.0
    if len(iterations) >= 2:
        previous = iterations[-2]
        if set(last.best_actions) != set(previous.best_actions):
            factor *= constants.change_extension
        elif _settled(iterations, constants.stable_seeds * points_per_seed, constants):
            factor *= constants.settled_share
        if previous.value - last.value >= constants.drop_seeds * points_per_seed:
            factor *= constants.drop_extension
    return min(target * factor, limit)


def _settled(iterations: Sequence[Iteration], margin: float, c: TimeConstants) -> bool:
    """The last ``settled_depths`` iterations agree on the best move and nearly on its value, deep enough."""
    if len(iterations) < c.settled_depths or iterations[-1].depth < c.settled_min_depth:
        return False
    recent = iterations[-c.settled_depths:]
    best = set(recent[-1].best_actions)
    return all(set(it.best_actions) == best for it in recent) and all(
        abs(a.value - b.value) <= margin for a, b in zip(recent, recent[1:])
    )


@dataclasses.dataclass(frozen=True)
class Allowance:
    """The time of one move: what it aims at and what it may not pass.

    Attributes:
        nominal: the nominal time of the move (``time``, or the clock's share).
        target: the time aimed at before the search's own adjustments.
        limit: the hard limit, the search's ``time``.
        tactical: whether the target was extended for a pending capture.
        points_per_seed: the search's points per seed (for :func:`soft_time`).
        constants: the manager's constants (for :func:`soft_time`).
    """

    nominal: float
    target: float
    limit: float
    tactical: bool
    points_per_seed: float = 1.0
    constants: TimeConstants = DEFAULT_CONSTANTS

    def plan(self, iterations: Sequence[Iteration]) -> float:
        """The search's :data:`~awale.search.alphabeta.TimePlan`: :func:`soft_time` of this move."""
        return soft_time(self.target, self.limit, iterations, self.points_per_seed, self.constants)


class TimeManager:
    """The time of each move of one agent over a game (the module's policy); one per agent, reset every game.

    Args:
        time: the nominal (mean) seconds a searched move.
        points_per_seed: the search's points per seed (1 without an evaluation).
        clock_moves: how the moves left are counted under a clock, one of :data:`CLOCK_MOVES`.
        constants: the manager's constants (:class:`TimeConstants`; the module's by default).

    Raises:
        ValueError: a time or ``points_per_seed`` that is not a positive finite number, or another
            ``clock_moves``.
    """

    def __init__(self, time: float, points_per_seed: float = 1.0, clock_moves: str = CLOCK_MOVES[0],
                 constants: TimeConstants = DEFAULT_CONSTANTS) -> None:
        for name, value in (("time", time), ("points_per_seed", points_per_seed)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise ValueError(f"time management: {name} must be a positive number, got {value!r}")
        if clock_moves not in CLOCK_MOVES:
            raise ValueError(f"time management: clock_moves must be one of {', '.join(map(repr, CLOCK_MOVES))}, "
                             f"got {clock_moves!r}")
        self.time = float(time)
        self.points_per_seed = float(points_per_seed)
        self.clock_moves = clock_moves
        self.constants = constants
        self.reset()

    def reset(self) -> None:
        """Empty the bank and forget the clock: a new game."""
        self.bank = 0.0
        self.clock: Optional[Tuple[float, float]] = None
        self._pending: Optional[Allowance] = None

    def observe_clock(self, remaining: float, increment: float) -> None:
        """Size the next move by a clock: ``remaining`` seconds left, ``increment`` added after the move."""
        self.clock = (float(remaining), float(increment))

    def moves_left(self, game: Game, database_seeds: int = 0) -> int:
        """Under a clock, the searched moves the mover is expected to play from ``game`` on, this one included.

        Args:
            game: the position about to be searched.
            database_seeds: the most seeds of the endgame database that plays the game's end (0: none).
        """
        seeds = sum(game.pits)
        if self.clock_moves == "seeds":
            return max(self.constants.clock_min_moves, seeds)
        return max(seeds - database_seeds, 1) + self.constants.clock_extra_moves

    def allowance(self, game: Game, database_seeds: int = 0) -> Allowance:
        """The time of the move about to be searched in ``game`` (call :meth:`spent` after the search).

        ``database_seeds`` is the most seeds of the agent's endgame database (0: none), for :meth:`moves_left`.
        """
        c = self.constants
        tactical = is_tactical(game, c.tactical_seeds)
        weight = phase_weight(game) * (c.tactical_extension if tactical else 1.0)
        if self.clock is None:
            nominal = self.time
            target = min(max(nominal * weight + self.bank / c.bank_moves, c.min_share * nominal),
                         c.max_share * nominal)
            limit = c.hard_limit * nominal
        else:
            remaining, increment = self.clock
            usable = max(remaining - c.clock_reserve, 0.0)
            moves = self.moves_left(game, database_seeds)
            nominal = usable / moves + increment
            cap = c.clock_max_share * usable
            target = min(max(nominal * weight, c.min_share * nominal), c.max_share * nominal, cap)
            limit = min(c.hard_limit * nominal, cap)
        limit = max(limit, MIN_SECONDS)
        allowance = Allowance(nominal, max(min(target, limit), MIN_SECONDS), limit, tactical, self.points_per_seed,
                              c)
        self._pending = allowance
        return allowance

    def spent(self, seconds: float) -> None:
        """Settle the move of the last :meth:`allowance` that took ``seconds`` (the bank, without a clock)."""
        if self._pending is not None and self.clock is None:
            self.bank += self._pending.nominal - float(seconds)
        self._pending = None


def clock_share(remaining: float, increment: float = 0.0, moves_to_go: Optional[int] = None) -> float:
    """The seconds of a move under a clock without the time manager: an equal share of the time left.

    The time left above :data:`CLOCK_RESERVE`, divided by the moves to go (:data:`CLOCK_MIN_MOVES` when not
    given), plus the increment, and at most half of the time left; at least :data:`MIN_SECONDS`.

    >>> round(clock_share(10.0, 0.1), 4)
    0.5975
    """
    usable = max(float(remaining) - CLOCK_RESERVE, 0.0)
    share = usable / (moves_to_go or CLOCK_MIN_MOVES) + float(increment)
    return max(min(share, usable / 2), MIN_SECONDS)


def limits_seconds(limits: Limits) -> Optional[float]:
    """The seconds a search may take under ``limits`` without a time manager: its time, the clock's equal share
    (:func:`clock_share`), the smaller of the two when both are given, or None when neither is."""
    times = [limits.time] if limits.time is not None else []
    if limits.remaining is not None:
        times.append(clock_share(limits.remaining, limits.increment, limits.moves_to_go))
    return min(times) if times else None
