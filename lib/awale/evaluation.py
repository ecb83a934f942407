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
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
from typing import Dict, Mapping, Optional, Sequence

import numpy as np

from ._jit import jit
from .game import Game
from .engine import ONGOING, capture, game_arrays, legal_actions, sow
from .rules import Rules

__all__ = [
    "FEATURES", "N_FEATURES", "Evaluation", "checked_weights", "features", "load_evaluation", "WEIGHTS_PATH", "WEIGHTS",
    "logit", "moves_and_best_capture",
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

#: Where the fitted weights live (written by ``data/evaluation/fit.py``).
WEIGHTS_PATH = Path(__file__).with_name("evaluation.json")

#: The weights by their source: ``"games"``, fitted on the results of stored games (:data:`WEIGHTS_PATH`),
#: ``"perfect"``, fitted on the endgame database's values (``data/evaluation/fit_perfect.py``), and ``"texel"``,
#: fitted as ``"games"`` on every stored game between searches (``data/evaluation/fit.py --texel``).
WEIGHTS = {
    "games": WEIGHTS_PATH,
    "perfect": WEIGHTS_PATH.with_name("evaluation-perfect.json"),
    "texel": WEIGHTS_PATH.with_name("evaluation-texel.json"),
}


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
    """Write the features of ``state`` for the player to move into ``out`` (float64, length 9)."""
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


@jit(inline=False)
def _features_of_states(states, params):
    """The features of each row of ``states`` (one state a row), as a float64 matrix."""
    m = states.shape[1]
    result = np.empty((states.shape[0], N_FEATURES), dtype=np.float64)
    work = np.empty(2 * m, dtype=np.int64)
    moves = np.empty(params[0], dtype=np.int64)
    for k in range(states.shape[0]):
        _features(states[k], params, result[k], work, moves)
    return result


@jit
def logit(state, params, weights, work, moves, row):
    """``weights · features(state)`` for the player to move."""
    _features(state, params, row, work, moves)
    total = 0.0
    for i in range(row.shape[0]):
        total += weights[i] * row[i]
    return total


def features(states: np.ndarray, rules: Optional[Rules] = None) -> np.ndarray:
    """The :data:`FEATURES` of many positions at once.

    Args:
        states: state arrays (see :mod:`awale.rules`), one a row, shape ``(k, 2n + 5)``.
        rules: the rules they are played under (default: Abapa).

    Returns:
        A ``(k, len(FEATURES))`` float64 matrix, each row for the player to move in that state.

    Raises:
        ValueError: ``states`` is not an integer matrix of the rules' state length.
    """
    rules = rules if rules is not None else Rules()
    states = np.asarray(states)
    width = 2 * rules.pits_per_side + 5
    if states.ndim != 2 or states.shape[1] != width or not np.issubdtype(states.dtype, np.integer):
        raise ValueError(f"states must be an integer matrix with {width} columns, got shape {states.shape}")
    return _features_of_states(np.ascontiguousarray(states, dtype=np.int64), rules.params)


def checked_weights(weights: Sequence[float], what: str = "an evaluation") -> np.ndarray:
    """``weights`` as a new float64 array, one per feature of :data:`FEATURES`.

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
    if array is None or array.shape != (N_FEATURES,) or not np.all(np.isfinite(array)):
        raise ValueError(f"{what} needs {N_FEATURES} finite weights ({', '.join(FEATURES)}), got {weights!r}")
    return array


@dataclasses.dataclass(frozen=True)
class Evaluation:
    """A fitted linear evaluation: one weight per feature of :data:`FEATURES`.

    Attributes:
        weights: the weights, in the order of :data:`FEATURES`.
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
        row = np.empty(N_FEATURES, dtype=np.float64)
        return float(logit(state, game.rules.params, self.weights, work, moves, row))

    def win_probability(self, game: Game) -> float:
        """The fitted probability that the player to move wins (a draw counting half)."""
        return float(1.0 / (1.0 + np.exp(-self.logit(game))))

    def as_dict(self) -> Dict[str, float]:
        """The weights by feature name."""
        return dict(zip(FEATURES, (float(w) for w in self.weights)))


@functools.lru_cache(maxsize=None)
def _load(path: str) -> Evaluation:
    try:
        data = json.loads(Path(path).read_text())
        names, weights = data["features"], data["weights"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"cannot read evaluation weights from {path}: {error}") from None
    if tuple(names) != FEATURES:
        raise ValueError(f"{path} has weights for the features {names}, expected {list(FEATURES)}")
    return Evaluation(weights, data.get("meta", {}))


def load_evaluation(path: Optional[str] = None) -> Evaluation:
    """The fitted evaluation from ``path`` (default: :data:`WEIGHTS_PATH`), read once and cached.

    Raises:
        ValueError: the file is missing, malformed, or fitted for other features.
    """
    return _load(str(path if path is not None else WEIGHTS_PATH))
