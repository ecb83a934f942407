"""A positional evaluation of Awale: features of a position and weights fitted on stored games.

Strong Oware programs judge a position by more than the seeds captured so
far: a pile big enough to lap the board (a *kroo*) threatens a large capture
later, empty pits and pits with one or two seeds are open to capture, and a
player with few moves left may be forced into a bad one.  This module
measures such features for the player to move and combines them linearly::

    logit = weights · features(position)
    P(the player to move wins) ≈ 1 / (1 + exp(-logit))

The weights are not guessed: ``data/evaluation/fit.py`` fits them by
logistic regression of the final result (1 for a win of the player to move,
½ for a draw, 0 for a loss) on the features of positions from the games
stored in ``data/experiments.sqlite``, holding out a fifth of the games to
measure how well the fit predicts, and writes them to ``evaluation.json``
beside this module.

Every feature is computed for the player to move, as *own minus the
opponent's* where it applies to both sides (:data:`FEATURES` in order):

``bias``
    1: the value of being the one to move.
``captures``
    seeds captured so far.
``seeds``
    seeds on each side of the board.
``big_piles``
    pits holding ``2n`` seeds or more (12 with six pits), which lap the board.
``empty``
    empty pits.
``vulnerable``
    pits holding one or two seeds, which become 2 or 3 when sown into.
``mobility``
    legal moves (the opponent's counted as if it were to move now).
``capture_now``
    the most seeds one move could capture right now (the opponent's: if it
    were to move now, which is the threat against the player to move).
``captures_share``
    the capture difference divided by the seeds still in play plus one: the
    same lead weighs more when fewer seeds are left to win back.

Weights fitted with them (``"kroo"``) add two features on the timing of the
kroos, :data:`TIMING_FEATURES`, after those nine.  A pile counts here when it
holds ``2n - 1`` seeds or more, enough to sow every other pit, and its *last
seed* is where its sowing would end were it played now:

``kroo_ripe``
    such piles whose last seed lands in the opponent's row, where it can
    capture after a lap has filled the opponent's pits.
``kroo_soon``
    such piles whose last seed lands in the own row now but would land in the
    opponent's after one to :data:`KROO_WINDOW` more seeds (each sowing that
    passes the pile adds one).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
from typing import Dict, Mapping, Optional, Sequence

import numpy as np

from ..core._jit import jit
from ..core.game import Game
from ..core.engine import ONGOING, capture, game_arrays, legal_actions, sow
from ..core.rules import Rules

__all__ = [
    "FEATURES", "N_FEATURES", "TIMING_FEATURES", "ALL_FEATURES", "KROO_WINDOW", "Evaluation", "checked_weights",
    "features", "kroo_timing", "load_evaluation", "WEIGHTS_PATH", "WEIGHTS", "logit", "moves_and_best_capture",
    "PATTERN_RUNS", "PAIR_CAP", "PHASE_LIMITS", "PatternEvaluation", "pattern_count", "pattern_phase_size",
    "pattern_cells", "pattern_weights_length", "write_patterns",
]

#: The features, in the order of :func:`features` and of the weights.
FEATURES = (
    "bias",
    "captures",
    "seeds",
    "big_piles",
    "empty",
    "vulnerable",
    "mobility",
    "capture_now",
    "captures_share",
)
N_FEATURES = len(FEATURES)
#: The kroos' timing, the two features after :data:`FEATURES` of weights fitted with them.
TIMING_FEATURES = ("kroo_ripe", "kroo_soon")
#: Every feature: weights are one per feature of :data:`FEATURES` or of this, in this order.
ALL_FEATURES = FEATURES + TIMING_FEATURES
#: ``kroo_soon`` counts the piles whose last seed reaches the opponent's row within this many more seeds.
KROO_WINDOW = 3

#: Where the fitted weights live (written by ``data/evaluation/fit.py``).
WEIGHTS_PATH = Path(__file__).with_name("evaluation.json")

#: The weights by their source: ``"games"``, fitted on the results of stored games (:data:`WEIGHTS_PATH`),
#: ``"perfect"``, fitted on the endgame database's values (``data/evaluation/fit_perfect.py``), and ``"texel"``,
#: fitted as ``"games"`` on every stored game between searches (``data/evaluation/fit.py --texel``), and
#: ``"kroo"``, fitted as ``"texel"`` with the :data:`TIMING_FEATURES` too (``fit.py --texel --timing``), and
#: ``"patterns"``, a :class:`PatternEvaluation` trained by ``python -m awale evaluation train``.
WEIGHTS = {
    "games": WEIGHTS_PATH,
    "perfect": WEIGHTS_PATH.with_name("evaluation-perfect.json"),
    "texel": WEIGHTS_PATH.with_name("evaluation-texel.json"),
    "kroo": WEIGHTS_PATH.with_name("evaluation-kroo.json"),
    "patterns": WEIGHTS_PATH.with_name("evaluation-patterns.npz"),
}

#: The pattern tables of :class:`PatternEvaluation`: every run of ``length`` adjacent pits (in sowing order, around
#: the board, seen from the player to move), its seed counts capped at ``cap`` — as ``(length, cap)``.
PATTERN_RUNS = ((4, 5), (3, 7), (2, 12))
#: The cap of the seed counts of the pairs of pits facing each other (the sixth pattern family).
PAIR_CAP = 12
#: The phases of the pattern tables by seeds on the board: up to the first, up to the second, above.
PHASE_LIMITS = (28, 36)
#: A weight vector longer than this is a pattern evaluation's: the nine linear weights, then the tables.
_LINEAR_MOST = len(ALL_FEATURES)


@jit
def _side_counts(pits, low, n, big):
    """Seeds, piles of ``big`` or more, empty pits and pits with 1–2 seeds in ``pits[low:low + n]``."""
    seeds = 0
    piles = 0
    empty = 0
    weak = 0
    for i in range(low, low + n):
        p = pits[i]
        seeds += p
        piles += p >= big
        empty += p == 0
        weak += (p == 1) | (p == 2)
    return seeds, piles, empty, weak


@jit
def _kroo_timing(pits, low, n, least, window):
    """Piles of ``least`` seeds or more in ``pits[low:low + n]`` whose last seed lands in the other row: now, and
    only after one to ``window`` more seeds."""
    size = 2 * n
    other = n - low
    ripe = 0
    soon = 0
    for i in range(low, low + n):
        seeds = pits[i]
        if seeds < least:
            continue
        for extra in range(window + 1):
            sown = seeds + extra
            last = (i + sown + (sown - 1) // (size - 1)) % size  # the origin is skipped once a lap
            if other <= last < other + n:
                if extra == 0:
                    ripe += 1
                else:
                    soon += 1
                break
    return ripe, soon


@jit
def _kroo_timing_difference(state, n, least, window):
    """``kroo_ripe`` and ``kroo_soon`` of ``state``: the player to move's counts minus the opponent's."""
    mover = state[2 * n + 2]
    own_ripe, own_soon = _kroo_timing(state, mover * n, n, least, window)
    opp_ripe, opp_soon = _kroo_timing(state, (1 - mover) * n, n, least, window)
    return own_ripe - opp_ripe, own_soon - opp_soon


@jit
def moves_and_best_capture(state, params, player, work, out):
    """Legal moves of ``player`` on ``state``'s board (as if it were to move) and the most one captures.

    ``work`` holds two scratch states (``2 * len(state)`` integers); ``state`` is not changed.
    """
    m = state.shape[0]
    n = params[0]
    size = 2 * n
    for i in range(m):
        work[i] = state[i]
    work[size + 2] = player
    work[size + 4] = ONGOING
    count = legal_actions(work[:m], params, out)
    best = 0
    board = work[m:]
    for j in range(count):
        for i in range(size):
            board[i] = state[i]
        last = sow(board, player * n + out[j], size)
        taken = capture(board, last, player, n, params[3])
        if taken > best:
            best = taken
    return count, best


@jit
def _features(state, params, out, work, moves):
    """Write the features of ``state`` for the player to move into ``out``: the first ``len(out)`` of
    :data:`ALL_FEATURES` (float64, length 9 or 11)."""
    n = params[0]
    size = 2 * n
    mover = state[size + 2]
    other = 1 - mover
    own_seeds, own_piles, own_empty, own_weak = _side_counts(state, mover * n, n, size)
    opp_seeds, opp_piles, opp_empty, opp_weak = _side_counts(state, other * n, n, size)
    own_moves, own_best = moves_and_best_capture(state, params, mover, work, moves)
    opp_moves, opp_best = moves_and_best_capture(state, params, other, work, moves)
    difference = state[size + mover] - state[size + other]
    out[0] = 1.0
    out[1] = difference
    out[2] = own_seeds - opp_seeds
    out[3] = own_piles - opp_piles
    out[4] = own_empty - opp_empty
    out[5] = own_weak - opp_weak
    out[6] = own_moves - opp_moves
    out[7] = own_best - opp_best
    out[8] = difference / (own_seeds + opp_seeds + 1.0)
    if out.shape[0] > N_FEATURES:
        out[9], out[10] = _kroo_timing_difference(state, n, size - 1, KROO_WINDOW)


@jit(inline=False)
def _features_of_states(states, params, width):
    """The first ``width`` features of each row of ``states`` (one state a row), as a float64 matrix."""
    m = states.shape[1]
    result = np.empty((states.shape[0], width), dtype=np.float64)
    work = np.empty(2 * m, dtype=np.int64)
    moves = np.empty(params[0], dtype=np.int64)
    for k in range(states.shape[0]):
        _features(states[k], params, result[k], work, moves)
    return result


@jit(inline=False)
def _timing_of_states(states, n, least, window):
    """``kroo_ripe`` and ``kroo_soon`` of each row of ``states`` for piles of ``least`` seeds and ``window``."""
    result = np.empty((states.shape[0], 2), dtype=np.float64)
    for k in range(states.shape[0]):
        result[k, 0], result[k, 1] = _kroo_timing_difference(states[k], n, least, window)
    return result


@jit
def _pattern_total(state, n, weights, base, cells, record):
    """The sum of the pattern weights of ``state`` (tables from ``weights[base]``), and with ``record`` the index of
    each tuple's cell (from the start of the tables) written into ``cells``.

    The tuples, in order: each family of :data:`PATTERN_RUNS` (every run starting at each of the ``2n`` pits, seen
    from the player to move: own pits first), then the ``n`` facing pairs (own pit ``i``, the opponent's pit
    ``n - 1 - i`` of his row).  Each tuple has ``(cap + 1) ** length`` cells; the three phases
    (:data:`PHASE_LIMITS`) each have a copy of all the tables.
    """
    size = 2 * n
    mover = state[size + 2]
    start = mover * n
    board = 0
    for i in range(size):
        board += state[i]
    phase = 0 if board <= 28 else (1 if board <= 36 else 2)
    offset = phase * _phase_size(n)
    total = 0.0
    t = 0
    for family in range(3):
        length = 4 - family
        cap = 5 if family == 0 else (7 if family == 1 else 12)
        cells_per = (cap + 1) ** length
        for first in range(size):
            index = 0
            for k in range(length):
                seeds = state[(start + first + k) % size]
                index = index * (cap + 1) + (seeds if seeds < cap else cap)
            total += weights[base + offset + index]
            if record:
                cells[t] = offset + index
            t += 1
            offset += cells_per
    for i in range(n):
        own = state[(start + i) % size]
        other = state[(start + size - 1 - i) % size]
        index = (own if own < 12 else 12) * 13 + (other if other < 12 else 12)
        total += weights[base + offset + index]
        if record:
            cells[t] = offset + index
        t += 1
        offset += 169
    return total


@jit
def _phase_size(n):
    """Cells of one phase's tables for ``n`` pits a side (24,738 for six)."""
    return 2 * n * (6 ** 4 + 8 ** 3 + 13 ** 2) + n * 13 ** 2


@jit
def logit(state, params, weights, work, moves, row):
    """``weights · features(state)`` for the player to move (``row``, as long as ``weights``, is scratch).

    Weights longer than :data:`ALL_FEATURES` are a :class:`PatternEvaluation`'s: the nine linear weights on the
    first nine of ``row``, plus the pattern tables' cells of ``state`` looked up and summed.
    """
    if weights.shape[0] > _LINEAR_MOST:
        linear = row[:N_FEATURES]
        _features(state, params, linear, work, moves)
        total = 0.0
        for i in range(N_FEATURES):
            total += weights[i] * linear[i]
        return total + _pattern_total(state, params[0], weights, N_FEATURES, moves, False)
    _features(state, params, row, work, moves)
    total = 0.0
    for i in range(row.shape[0]):
        total += weights[i] * row[i]
    return total


@jit(inline=False)
def _cells_of_states(states, n, count):
    """The cell of each tuple of each row of ``states``, as an int64 ``(k, count)`` matrix."""
    result = np.empty((states.shape[0], count), dtype=np.int64)
    nothing = np.zeros(1, dtype=np.float64)
    for k in range(states.shape[0]):
        _pattern_total(states[k], n, nothing, 0, result[k], True)
    return result


def pattern_count(pits_per_side: int = 6) -> int:
    """Tuples of the pattern evaluation: three runs at each pit and the facing pairs (42 for six pits a side)."""
    return 3 * 2 * pits_per_side + pits_per_side


def pattern_phase_size(pits_per_side: int = 6) -> int:
    """Cells of one phase's pattern tables (24,738 for six pits a side)."""
    runs = sum((cap + 1) ** length for length, cap in PATTERN_RUNS)
    return 2 * pits_per_side * runs + pits_per_side * (PAIR_CAP + 1) ** 2


def pattern_weights_length(pits_per_side: int = 6) -> int:
    """Weights of a :class:`PatternEvaluation`: the nine linear ones and three phases of tables (74,223 for six)."""
    return N_FEATURES + (len(PHASE_LIMITS) + 1) * pattern_phase_size(pits_per_side)


def pattern_cells(states: np.ndarray, rules: Optional[Rules] = None) -> np.ndarray:
    """The table cell of each tuple of the pattern evaluation for many positions (counted from the tables' start).

    Returns:
        A ``(k, pattern_count())`` int64 matrix: ``logit = linear part + sum(tables[cells[j]])`` for row ``j``.

    Raises:
        ValueError: ``states`` as for :func:`features`.
    """
    rules = rules if rules is not None else Rules()
    n = rules.pits_per_side
    return _cells_of_states(_checked_states(states, rules), n, pattern_count(n))


def features(states: np.ndarray, rules: Optional[Rules] = None, timing: bool = False) -> np.ndarray:
    """The :data:`FEATURES` of many positions at once, with ``timing`` the :data:`TIMING_FEATURES` after them.

    Args:
        states: state arrays (see :mod:`awale.core.rules`), one a row, shape ``(k, 2n + 5)``.
        rules: the rules they are played under (default: Abapa).
        timing: also the kroos' timing (the columns of :data:`ALL_FEATURES`).

    Returns:
        A ``(k, 9)`` float64 matrix (``(k, 11)`` with ``timing``), each row for the player to move in that state.

    Raises:
        ValueError: ``states`` is not an integer matrix of the rules' state length.
    """
    rules = rules if rules is not None else Rules()
    width = len(ALL_FEATURES) if timing else N_FEATURES
    return _features_of_states(_checked_states(states, rules), rules.params, width)


def kroo_timing(states: np.ndarray, rules: Optional[Rules] = None, least: Optional[int] = None,
                window: int = KROO_WINDOW) -> np.ndarray:
    """The :data:`TIMING_FEATURES` of many positions for other definitions of a kroo: piles of ``least`` seeds or
    more (default ``2n - 1``, as :func:`features` counts them) and ``kroo_soon``'s window of ``window`` seeds.

    Returns:
        A ``(k, 2)`` float64 matrix: ``kroo_ripe`` and ``kroo_soon`` for the player to move in each state.

    Raises:
        ValueError: ``states`` as for :func:`features`, or ``least`` or ``window`` below 1.
    """
    rules = rules if rules is not None else Rules()
    n = rules.pits_per_side
    least = 2 * n - 1 if least is None else least
    if isinstance(least, bool) or not isinstance(least, int) or least < 1:
        raise ValueError(f"least must be a positive number of seeds, got {least!r}")
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a positive number of seeds, got {window!r}")
    return _timing_of_states(_checked_states(states, rules), n, least, window)


def _checked_states(states: np.ndarray, rules: Rules) -> np.ndarray:
    """``states`` as a contiguous int64 matrix of the rules' state length."""
    states = np.asarray(states)
    width = 2 * rules.pits_per_side + 5
    if states.ndim != 2 or states.shape[1] != width or not np.issubdtype(states.dtype, np.integer):
        raise ValueError(f"states must be an integer matrix with {width} columns, got shape {states.shape}")
    return np.ascontiguousarray(states, dtype=np.int64)


def checked_weights(weights: Sequence[float], what: str = "an evaluation", timing: bool = True) -> np.ndarray:
    """``weights`` as a new float64 array, one per feature of :data:`FEATURES` or, if ``timing`` allows them, of
    :data:`ALL_FEATURES`.

    Raises:
        ValueError: not one finite real number (not a bool, not a string) per
            feature; the message begins with ``what``.
    """
    array = None
    try:
        numbers = list(weights)
        if all(isinstance(w, (int, float, np.integer, np.floating)) and not isinstance(w, (bool, np.bool_))
               for w in numbers):
            array = np.array(numbers, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        pass
    sizes = (N_FEATURES, len(ALL_FEATURES)) if timing else (N_FEATURES,)
    if array is None or array.ndim != 1 or len(array) not in sizes or not np.all(np.isfinite(array)):
        names = ", ".join(FEATURES) + (f"[, {', '.join(TIMING_FEATURES)}]" if timing else "")
        raise ValueError(f"{what} needs {' or '.join(map(str, sizes))} finite weights ({names}), got {weights!r}")
    return array


@dataclasses.dataclass(frozen=True)
class Evaluation:
    """A fitted linear evaluation: one weight per feature of :data:`FEATURES` or of :data:`ALL_FEATURES`.

    Attributes:
        weights: the weights, in the order of :data:`ALL_FEATURES` (the first 9 or all 11).
        meta: how they were fitted (data, sizes, held-out accuracy), as written by the fit.
    """

    weights: Sequence[float]
    meta: Mapping[str, object] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        weights = checked_weights(self.weights)
        weights.flags.writeable = False
        object.__setattr__(self, "weights", weights)

    def logit(self, game: Game) -> float:
        """The evaluation of ``game`` for the player to move, on the logit scale.

        Raises:
            ValueError: the game is over (its value is its result, not an estimate).
        """
        if game.game_finished:
            raise ValueError("a finished game has a result, not an evaluation")
        state = game_arrays(game).state
        work = np.empty(2 * state.shape[0], dtype=np.int64)
        moves = np.empty(game.rules.pits_per_side, dtype=np.int64)
        row = np.empty(len(self.weights), dtype=np.float64)
        return float(logit(state, game.rules.params, self.weights, work, moves, row))

    @property
    def feature_names(self) -> tuple:
        """The names of the features the weights are for."""
        return ALL_FEATURES[: len(self.weights)]

    def win_probability(self, game: Game) -> float:
        """The fitted probability that the player to move wins (a draw counting half)."""
        return float(1.0 / (1.0 + np.exp(-self.logit(game))))

    def as_dict(self) -> Dict[str, float]:
        """The weights by feature name."""
        return dict(zip(self.feature_names, (float(w) for w in self.weights)))


@dataclasses.dataclass(frozen=True)
class PatternEvaluation(Evaluation):
    """A learned evaluation: the nine linear weights of :data:`FEATURES` plus pattern tables over tuples of pits.

    The logit of a position is the linear evaluation plus, for each of the :func:`pattern_count` tuples (every
    run of 4, 3 and 2 adjacent pits and the pairs facing each other, seen from the player to move, seed counts
    capped by :data:`PATTERN_RUNS` and :data:`PAIR_CAP`), the weight of the cell its seeds name in the table of
    the position's phase (:data:`PHASE_LIMITS`) — the n-tuple evaluation of Buro's Logistello (1997) and Lucas
    (2008), trained by :mod:`awale.offline.evaluation_train`.  The compiled :func:`logit` sums them whenever its
    weights are longer than :data:`ALL_FEATURES`, so a search takes a pattern evaluation as it takes a linear one.

    Attributes:
        weights: the nine linear weights, then the tables (:func:`pattern_weights_length` in all).
        meta: how they were trained.
        pits_per_side: the board they are for (default 6).
    """

    pits_per_side: int = 6

    def __post_init__(self) -> None:
        expected = pattern_weights_length(self.pits_per_side)
        try:
            weights = np.array(self.weights, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"a pattern evaluation needs {expected} finite weights: {error}") from None
        if weights.ndim != 1 or len(weights) != expected or not np.all(np.isfinite(weights)):
            raise ValueError(f"a pattern evaluation for {self.pits_per_side} pits a side needs {expected} finite "
                             f"weights (9 linear, then the tables), got shape {weights.shape}")
        weights.flags.writeable = False
        object.__setattr__(self, "weights", weights)

    @property
    def linear(self) -> np.ndarray:
        """The nine linear weights."""
        return self.weights[:N_FEATURES]

    @property
    def tables(self) -> np.ndarray:
        """The pattern tables, three phases one after the other (indexed by :func:`pattern_cells`)."""
        return self.weights[N_FEATURES:]

    @property
    def feature_names(self) -> tuple:
        """The names of the linear features (the tables have cells, not names)."""
        return FEATURES

    def logit(self, game: Game) -> float:
        """As :meth:`Evaluation.logit`; also raises ValueError for a board of another size than the tables'."""
        if game.rules.pits_per_side != self.pits_per_side:
            raise ValueError(f"these pattern weights are for {self.pits_per_side} pits a side, "
                             f"not {game.rules.pits_per_side}")
        return super().logit(game)

    def as_dict(self) -> Dict[str, float]:
        """The linear weights by feature name."""
        return dict(zip(FEATURES, (float(w) for w in self.linear)))


def write_patterns(path, evaluation: PatternEvaluation) -> None:
    """Write ``evaluation`` compactly (float32 tables, compressed ``.npz``, its ``meta`` as JSON inside)."""
    with open(path, "wb") as f:
        np.savez_compressed(f, linear=np.asarray(evaluation.linear, dtype=np.float64),
                            tables=np.asarray(evaluation.tables, dtype=np.float32),
                            pits_per_side=np.array(evaluation.pits_per_side),
                            meta=np.array(json.dumps(dict(evaluation.meta), sort_keys=True)))


def _load_patterns(path: str) -> PatternEvaluation:
    try:
        with np.load(path, allow_pickle=False) as data:
            linear, tables = data["linear"], data["tables"].astype(np.float64)
            pits, meta = int(data["pits_per_side"]), json.loads(str(data["meta"]))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"cannot read pattern weights from {path}: {error}") from None
    return PatternEvaluation(np.concatenate([linear, tables]), meta, pits)


@functools.lru_cache(maxsize=None)
def _load(path: str) -> Evaluation:
    if path.endswith(".npz"):
        return _load_patterns(path)
    try:
        data = json.loads(Path(path).read_text())
        names, weights = list(data["features"]), list(data["weights"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"cannot read evaluation weights from {path}: {error}") from None
    if tuple(names) not in (FEATURES, ALL_FEATURES):
        raise ValueError(f"{path} has weights for the features {names}, expected {list(FEATURES)} "
                         f"or those and {list(TIMING_FEATURES)}")
    if len(weights) != len(names):
        raise ValueError(f"{path} has {len(weights)} weights for {len(names)} features")
    return Evaluation(weights, data.get("meta", {}))


def load_evaluation(path: Optional[str] = None) -> Evaluation:
    """The fitted evaluation from ``path`` (default: :data:`WEIGHTS_PATH`), read once and cached: a
    :class:`PatternEvaluation` for a ``.npz`` file (:func:`write_patterns`), else a linear :class:`Evaluation`.

    Raises:
        ValueError: the file is missing, malformed, or fitted for other features.
    """
    return _load(str(path if path is not None else WEIGHTS_PATH))
