"""Tournaments: games summed by pair, the significant results as a weak tournament, and weak orders.

The reference thesis compares more than two agents by a round robin whose
significant results form a weak tournament; when that relation is transitive
it is a weak order, a ranking with ties (:mod:`awale.experiments.stats` gives
the definition of step-type chosen and why :func:`weak_order` checks
transitivity itself).

References:
    Roubens, M. & Vincke, Ph. (1985). Preference Modelling. Springer.
    Pirlot, M. & Vincke, Ph. (1997). Semiorders. Kluwer.
    Brandt, F., Brill, M. & Harrenstein, P. (2016). Tournament solutions. In
    Handbook of Computational Social Choice, Cambridge University Press.
"""

from __future__ import annotations

import dataclasses
from typing import Hashable, List, Tuple

import numpy as np
import pandas as pd

from .comparison import compare

__all__ = [
    "Tournament",
    "round_robin",
    "stronger",
    "weak_tournament",
    "is_step_type",
    "step_type",
    "NotAWeakOrder",
    "weak_order",
]


def _counts(name: str, value: object, size: int) -> np.ndarray:
    """A read-only ``size`` x ``size`` integer array of counts with a zero diagonal."""
    array = np.asarray(value)
    if array.shape != (size, size):
        raise ValueError(f"{name} must be a {size} x {size} matrix (a row and a column per agent), got {array.shape}")
    if array.dtype == bool or not np.issubdtype(array.dtype, np.number) or not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must hold counts of games, got {array.dtype} values")
    if np.any(array < 0) or np.any(array != np.round(array)):
        raise ValueError(f"{name} must hold integers at least 0")
    if np.any(np.diagonal(array) != 0):
        raise ValueError(f"{name} must have a zero diagonal: games of an agent against itself are left out")
    array = array.astype(np.int64)
    array.setflags(write=False)
    return array


@dataclasses.dataclass(frozen=True, eq=False)
class Tournament:
    """The results of games between agents, summed by pair.

    Attributes:
        agents: the agents' names, one per row and column of the matrices.
        wins: ``wins[i, j]`` is the number of games agent i won against agent j.
        draws: ``draws[i, j]`` is the number of games drawn between i and j
            (a symmetric matrix).

    Raises:
        ValueError: duplicate agents, or matrices of the wrong shape, not
            counts, with a non-zero diagonal or (draws) not symmetric.
    """

    agents: Tuple[Hashable, ...]
    wins: np.ndarray
    draws: np.ndarray

    def __post_init__(self) -> None:
        agents = tuple(self.agents)
        if len(set(agents)) != len(agents):
            raise ValueError(f"agents must be distinct, got {agents!r}")
        draws = _counts("draws", self.draws, len(agents))
        if np.any(draws != draws.T):
            raise ValueError("draws must be symmetric: draws[i, j] and draws[j, i] count the same games")
        object.__setattr__(self, "agents", agents)
        object.__setattr__(self, "wins", _counts("wins", self.wins, len(agents)))
        object.__setattr__(self, "draws", draws)

    @property
    def games(self) -> np.ndarray:
        """``games[i, j]``: the number of games between i and j."""
        return self.wins + self.wins.T + self.draws

    @property
    def scores(self) -> pd.DataFrame:
        """The result matrix R: ``R.loc[i, j]`` is i's score against j, NaN where they never played."""
        games = self.games
        with np.errstate(invalid="ignore", divide="ignore"):
            scores = np.where(games > 0, (self.wins + self.draws / 2) / games, np.nan)
        return pd.DataFrame(scores, index=list(self.agents), columns=list(self.agents))


def round_robin(results: pd.DataFrame) -> Tournament:
    """Sum a table of games into a :class:`Tournament`.

    Each game counts for both agents, whichever side they played.  Games of
    an agent against itself say nothing about relative strength and are left
    out.  The agents are sorted by name.

    Args:
        results: one row per game with columns ``south`` and ``north`` (the
            agents' names) and ``winner`` (0 for South, 1 for North, None or
            NaN for a draw), as the experiment store produces; other columns
            are ignored.

    Returns:
        The tournament.

    Raises:
        ValueError: not a DataFrame, a missing column, a missing agent name,
            a winner other than 0, 1 or missing, or no games.
    """
    if not isinstance(results, pd.DataFrame):
        raise ValueError(f"results must be a pandas DataFrame, got {type(results).__name__}")
    missing = [column for column in ("south", "north", "winner") if column not in results.columns]
    if missing:
        raise ValueError(f"results lacks the column(s) {missing}; it has {list(results.columns)}")
    if results.empty:
        raise ValueError("results holds no games")
    if results["south"].isna().any() or results["north"].isna().any():
        raise ValueError("every game needs the names of both agents (south and north)")
    winner = results["winner"]
    draw = winner.isna().to_numpy()
    bad = ~draw & ~winner.isin([0, 1]).to_numpy()
    if bad.any():
        raise ValueError(f"winner must be 0 (South), 1 (North) or missing (a draw), got {winner[bad].iloc[0]!r}")

    agents = tuple(sorted(set(results["south"]) | set(results["north"]), key=str))
    index = {agent: i for i, agent in enumerate(agents)}
    south = results["south"].map(index).to_numpy(dtype=np.int64)
    north = results["north"].map(index).to_numpy(dtype=np.int64)
    counted = south != north
    north_won = winner.isin([1]).to_numpy()
    decided = counted & ~draw
    winners = np.where(north_won, north, south)[decided]
    losers = np.where(north_won, south, north)[decided]
    wins = np.zeros((len(agents), len(agents)), dtype=np.int64)
    np.add.at(wins, (winners, losers), 1)
    draws = np.zeros_like(wins)
    np.add.at(draws, (south[counted & draw], north[counted & draw]), 1)
    return Tournament(agents, wins, draws + draws.T)


def stronger(tournament: Tournament, alpha: float = 0.05) -> pd.DataFrame:
    """The relation "is significantly stronger than", ≻, of a round robin.

    ``i ≻ j`` when the test of :func:`compare` on i's record against j rejects
    "equally strong" at level ``alpha`` in i's favour (Marchant 2021).

    Args:
        tournament: a round robin: every pair of agents played at least one game.
        alpha: the level of each test, in (0, 1).

    Returns:
        A boolean DataFrame indexed by the agents on both axes, True at
        ``[i, j]`` when ``i ≻ j``.

    Raises:
        ValueError: a pair of agents that never played, or a bad ``alpha``.
    """
    agents, games = tournament.agents, tournament.games
    relation = np.zeros(games.shape, dtype=bool)
    for i in range(len(agents)):
        for j in range(i + 1, len(agents)):
            if games[i, j] == 0:
                raise ValueError(f"{agents[i]!r} and {agents[j]!r} never played: a round robin needs every pair")
            result = compare(tournament.wins[i, j], tournament.draws[i, j], tournament.wins[j, i], alpha)
            relation[i, j], relation[j, i] = result.stronger, result.weaker
    return pd.DataFrame(relation, index=list(agents), columns=list(agents))


def weak_tournament(tournament: Tournament, alpha: float = 0.05) -> pd.DataFrame:
    """The weak tournament of a round robin: the relation "is not significantly weaker than", ⪰.

    ``i ⪰ j`` unless ``j ≻ i`` (see :func:`stronger`), so ≻ is the asymmetric
    part of ⪰, and ⪰ is reflexive and complete: a weak tournament (Brandt et
    al. 2016).  With 50 games, no draws and ``alpha = 0.05``, ``i ≻ j`` needs
    33 wins and ``i ⪰ j`` 18.

    Args:
        tournament: a round robin, as for :func:`stronger`.
        alpha: the level of each test, in (0, 1).

    Returns:
        The binary matrix T as an integer DataFrame indexed by the agents on
        both axes: ``T.loc[i, j] = 1`` when ``i ⪰ j``.

    Raises:
        ValueError: as :func:`stronger`.
    """
    return (~stronger(tournament, alpha).T).astype(int)


def _binary(matrix: object) -> np.ndarray:
    """A square matrix of 0s and 1s as a boolean array."""
    array = np.asarray(matrix)
    if array.ndim != 2 or array.shape[0] != array.shape[1]:
        raise ValueError(f"the matrix must be square, got shape {array.shape}")
    if not np.isin(array, (0, 1)).all():
        raise ValueError("the matrix must hold only 0s and 1s")
    return array.astype(bool)


def _relation(relation: pd.DataFrame) -> np.ndarray:
    """A binary relation given as a DataFrame with the same labels on both axes, as a boolean array."""
    if not isinstance(relation, pd.DataFrame):
        raise ValueError(f"the relation must be a DataFrame indexed by the agents, got {type(relation).__name__}")
    if not relation.index.equals(relation.columns):
        raise ValueError("the relation must have the same agents, in the same order, on rows and columns")
    return _binary(relation)


def is_step_type(matrix: object) -> bool:
    """Whether a binary matrix is step-type.

    A binary matrix is step-type when each row is non-increasing from left to
    right and each column non-decreasing from top to bottom (Pirlot & Vincke
    1997): each row's ones form a prefix, and each row's prefix contains the
    previous row's, a staircase.  With agents in the same order on both axes
    (weakest first, as :func:`step_type` orders them), the matrix of a weak
    order is step-type.  The thesis (Marchant 2021) states the definition
    with rows non-decreasing too, which, with the same order on both axes,
    only a relation tying every agent satisfies; its figure is a staircase
    as above.

    Args:
        matrix: a square matrix of 0s and 1s (array or DataFrame).

    Returns:
        True if the matrix is step-type.

    Raises:
        ValueError: a matrix that is not square or not binary.
    """
    array = _binary(matrix)
    return bool(np.all(array[:, :-1] >= array[:, 1:]) and np.all(array[:-1, :] <= array[1:, :]))


def step_type(relation: pd.DataFrame) -> pd.DataFrame:
    """Reorder a relation's matrix by increasing row sums, the same order on rows and columns.

    This is the reordering of Roubens & Vincke (1985) used by the thesis
    (Marchant 2021): the weakest agents (fewest ones in their row) first,
    agents with equal row sums in their given order.  The result is
    step-type (:func:`is_step_type`) when the relation is a weak order, and
    may be otherwise.

    Args:
        relation: a binary DataFrame with the same agents on rows and columns,
            such as :func:`weak_tournament` gives.

    Returns:
        The reordered DataFrame.

    Raises:
        ValueError: a relation that is not such a DataFrame.
    """
    order = np.argsort(_relation(relation).sum(axis=1), kind="stable")
    return relation.iloc[order, order]


class NotAWeakOrder(ValueError):
    """A complete relation that is not transitive, hence not a weak order.

    Attributes:
        cycle: three agents ``(a, b, c)`` with ``a ⪰ b``, ``b ⪰ c`` and ``c ≻ a``.
    """

    def __init__(self, message: str, cycle: Tuple[Hashable, Hashable, Hashable]) -> None:
        super().__init__(message)
        self.cycle = cycle


def weak_order(relation: pd.DataFrame) -> List[List[Hashable]]:
    """The ranking, with ties, that a weak tournament expresses, if it is a weak order.

    A complete relation ⪰ is a weak order when it is also transitive
    (Roubens & Vincke 1985); its indifference classes are then the tiers of
    the ranking.  Transitivity is checked directly on every triple, because a
    step-type matrix does not imply it (see :func:`is_step_type`).

    Args:
        relation: a binary DataFrame with the same agents on rows and columns,
            ``relation.loc[i, j] = 1`` when ``i ⪰ j``, such as
            :func:`weak_tournament` gives.

    Returns:
        The tiers, best first, each a list of agents in the relation's order.

    Raises:
        NotAWeakOrder: the relation is not transitive; the exception names
            three agents ``a ⪰ b ⪰ c`` with ``c ≻ a``.
        ValueError: a relation that is not such a DataFrame, or not complete
            (some pair with neither ``i ⪰ j`` nor ``j ⪰ i``, the diagonal included).
    """
    matrix = _relation(relation)
    agents = list(relation.index)
    incomparable = np.argwhere(~(matrix | matrix.T))
    if incomparable.size:
        i, j = incomparable[0]
        raise ValueError(f"the relation is not complete: neither {agents[i]!r} ⪰ {agents[j]!r} nor the converse")
    for b in range(len(agents)):
        # a ⪰ b and b ⪰ c but not a ⪰ c
        broken = np.argwhere(matrix[:, b, None] & matrix[None, b, :] & ~matrix)
        if broken.size:
            a, c = broken[0]

            def arc(x: int, y: int) -> str:
                return f"{agents[x]!r} {'~' if matrix[y, x] else '≻'} {agents[y]!r}"

            raise NotAWeakOrder(
                f"the relation is not transitive, hence not a weak order: {arc(a, b)} and {arc(b, c)}, "
                f"but {agents[c]!r} ≻ {agents[a]!r}",
                (agents[a], agents[b], agents[c]),
            )
    sums = matrix.sum(axis=1)
    return [[agent for agent, s in zip(agents, sums) if s == level] for level in sorted(set(sums), reverse=True)]
