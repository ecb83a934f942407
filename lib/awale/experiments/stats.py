"""The statistics of the method: comparing agents, power analysis, tournaments and ratings.

The reference thesis (Marchant 2021, "Comparing algorithms") compares two
agents with an exact binomial test of the hypothesis that they are equally
strong, chooses the number of games by a power analysis, and compares more
than two agents by a round-robin tournament whose significant results form a
weak tournament; when that relation is transitive it is a weak order, a
ranking with ties.  This module implements those steps, plus Bradley-Terry
ratings on the Elo scale as a complementary summary.

Definitions chosen here (each function's docstring gives the details):

* Draws: the test of "equally strong" is the exact binomial test of the wins
  against the losses, draws left out (the sign test); the score, with draws
  worth ½, is reported with its confidence interval.  See :func:`compare`.
* Power: the probability that the exact two-sided test at level ``alpha``
  rejects in favour of the truly stronger agent; the number of games needed
  is the smallest ``n`` whose power reaches the target, as ``powerBinom`` of
  the R package ``exactci`` computes it.  It gives the thesis's 49.  See
  :func:`games_needed`.
* Step-type: rows and columns in the same order, each row non-increasing from
  left to right and each column non-decreasing from top to bottom (weakest
  agent first, as in the thesis's figure).  See :func:`is_step_type`.

Two departures from the thesis, both deliberate.  Its threshold of 32 wins
out of 50 comes from a one-sided test at 5 %, while its power analysis is
two-sided; here every test is two-sided, so "significantly stronger" needs 33
wins out of 50 decisive games and "not significantly weaker" 18 (the thesis's
18).  And a step-type matrix with the same order on rows and columns
characterises semiorders (Pirlot & Vincke 1997), not weak orders: a complete
relation can be step-type and still intransitive (a ~ b, b ~ c, c ≻ a), so
:func:`weak_order` checks transitivity itself.

References:
    Marchant, N. (2021). Playing Awale with MCTS. Master's thesis,
    https://awale.ml.
    Fay, M. P. (2010). Two-sided exact tests and matching confidence intervals
    for discrete data. The R Journal 2(1), 53-58 (package ``exactci``).
    Wilson, E. B. (1927). Probable inference, the law of succession, and
    statistical inference. JASA 22(158), 209-212.
    Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial
    limits illustrated in the case of the binomial. Biometrika 26(4), 404-413.
    Bradley, R. A. & Terry, M. E. (1952). Rank analysis of incomplete block
    designs I. Biometrika 39(3/4), 324-345.
    Ford, L. R. (1957). Solution of a ranking problem from binary comparisons.
    The American Mathematical Monthly 64(8), 28-33.
    Elo, A. E. (1978). The Rating of Chessplayers, Past and Present. Arco.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6(2), 65-70.
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap.
    Chapman & Hall.
    Box, G. E. P., Hunter, J. S. & Hunter, W. G. (2005). Statistics for
    Experimenters, 2nd ed. Wiley.
    Roubens, M. & Vincke, Ph. (1985). Preference Modelling. Springer.
    Pirlot, M. & Vincke, Ph. (1997). Semiorders. Kluwer.
    Brandt, F., Brill, M. & Harrenstein, P. (2016). Tournament solutions. In
    Handbook of Computational Social Choice, Cambridge University Press.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import numbers
from typing import Hashable, List, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd
from scipy import optimize, special, stats
from scipy.sparse import csgraph

__all__ = [
    "ELO_PER_NATURAL_UNIT",
    "Comparison",
    "time_worth",
    "compare",
    "power",
    "games_needed",
    "detectable",
    "holm",
    "Tournament",
    "round_robin",
    "stronger",
    "weak_tournament",
    "is_step_type",
    "step_type",
    "NotAWeakOrder",
    "weak_order",
    "ratings",
    "bootstrap_ratings",
    "elo",
    "factorial_effects",
]

#: Elo points per unit of the Bradley-Terry log-odds: 400 / ln 10, so that a
#: difference of 400 Elo is a winning odds of 10 to 1.
ELO_PER_NATURAL_UNIT = 400 / math.log(10)

_METHODS = ("wilson", "clopper-pearson")


def _count(name: str, value: object) -> int:
    """An integer at least 0."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be an integer at least 0, got {value!r}")
    return int(value)


def _fraction(name: str, value: object) -> float:
    """A real number strictly between 0 and 1."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


# --- Two agents ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`: agent A's record against agent B and what it shows.

    Attributes:
        wins, draws, losses: A's games won, drawn and lost against B.
        pvalue: the two-sided exact p-value of "A and B are equally strong"
            (wins against losses, draws left out; see :func:`compare`).
        low, high: the confidence interval of A's score, at level ``1 - alpha``.
        alpha: the level of the test.
        method: how the interval was computed, ``"wilson"`` or ``"clopper-pearson"``.
    """

    wins: int
    draws: int
    losses: int
    pvalue: float
    low: float
    high: float
    alpha: float
    method: str

    @property
    def games(self) -> int:
        """The number of games played."""
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """A's points: a win counts 1, a draw ½."""
        return self.wins + self.draws / 2

    @property
    def score(self) -> float:
        """A's score, its points per game, in [0, 1]."""
        return self.points / self.games

    @property
    def significant(self) -> bool:
        """Whether the test rejects "equally strong" at level ``alpha`` (p-value at most ``alpha``)."""
        return self.pvalue <= self.alpha

    @property
    def stronger(self) -> bool:
        """A is significantly stronger than B (A ≻ B)."""
        return self.significant and self.wins > self.losses

    @property
    def weaker(self) -> bool:
        """A is significantly weaker than B (B ≻ A)."""
        return self.significant and self.wins < self.losses


def compare(wins: int, draws: int, losses: int, alpha: float = 0.05, method: str = "wilson") -> Comparison:
    """Compare agent A with agent B from A's wins, draws and losses against B.

    Following Marchant (2021), let p_A, p_B and p_d be the probabilities that a
    game is won by A, won by B or drawn, and π_A = p_A + p_d / 2 A's expected
    score.  The null hypothesis "A and B are equally strong", p_A = p_B, is
    the same as π_A = ½.

    Draws: the test is the exact two-sided binomial test of the wins against
    the losses, draws left out (the sign test).  Given that D games were
    decisive, A's wins follow Binomial(D, ½) exactly under the null hypothesis,
    whatever the probability of a draw, so the test has its nominal level at
    any draw rate.  Testing the score itself is not exact: a game's score takes
    the values 0, ½ and 1 with variance π_A(1 - π_A) - p_d / 4, less than a
    Bernoulli trial's, so rounding the points and testing them out of all games
    is conservative, while doubling (a draw as one win and one loss out of two
    trials) treats the two halves of a game as independent, which they are
    not, and rejects too often unless most games are drawn.  Without draws
    the three coincide.  No decisive game (all draws) gives a p-value of 1.

    The interval is that of the score π_A, at level ``1 - alpha``, treating the
    games as Bernoulli trials with ``points`` successes (a draw as half a
    success): Wilson's score interval (Wilson 1927) or the Clopper-Pearson
    interval (Clopper & Pearson 1934, through beta quantiles, which also serve
    half-integer points).  As a game's score varies less than a Bernoulli
    trial, draws only make these intervals wider than needed.  The interval
    and the test answer slightly different questions: with many draws the
    test can reject while the interval still contains ½.

    Args:
        wins, draws, losses: A's record against B, integers at least 0, not all 0.
        alpha: the level of the test, strictly between 0 and 1.
        method: the interval, ``"wilson"`` (default) or ``"clopper-pearson"``.

    Returns:
        The :class:`Comparison`.

    Raises:
        ValueError: a count that is not an integer at least 0, no games,
            ``alpha`` outside (0, 1) or an unknown method.
    """
    wins, draws, losses = _count("wins", wins), _count("draws", draws), _count("losses", losses)
    alpha = _fraction("alpha", alpha)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    games = wins + draws + losses
    if games == 0:
        raise ValueError("no games to compare: wins, draws and losses are all 0")
    decisive = wins + losses
    pvalue = stats.binomtest(wins, decisive, 0.5).pvalue if decisive else 1.0
    low, high = _interval(wins + draws / 2, games, alpha, method)
    return Comparison(wins, draws, losses, float(pvalue), low, high, alpha, method)


def _interval(points: float, games: int, alpha: float, method: str) -> Tuple[float, float]:
    """The ``1 - alpha`` confidence interval of a proportion, ``points`` successes out of ``games``."""
    if method == "wilson":
        z = stats.norm.isf(alpha / 2)
        centre = (points + z * z / 2) / (games + z * z)
        half = z * math.sqrt(points * (games - points) / games + z * z / 4) / (games + z * z)
        low, high = centre - half, centre + half
    else:
        low = stats.beta.ppf(alpha / 2, points, games - points + 1) if points > 0 else 0.0
        high = stats.beta.ppf(1 - alpha / 2, points + 1, games - points) if points < games else 1.0
    # Both intervals end exactly at 0 (no points) and 1 (all points); rounding must not move them.
    return (float(low) if points > 0 else 0.0), (float(high) if points < games else 1.0)


# --- Power -----------------------------------------------------------------------------------------


def _critical(n: np.ndarray, alpha: float) -> np.ndarray:
    """The fewest wins out of ``n`` games (each) that the two-sided exact test at level ``alpha`` rejects.

    Under p = ½ the distribution is symmetric, so the two-sided p-value of
    ``k > n / 2`` wins is ``2 P(X >= k)`` (the "central" and "minimum
    likelihood" p-values agree), and ``n - k`` wins are rejected as well.
    ``n + 1`` means that no result is rejected.
    """
    def pvalue(k: np.ndarray) -> np.ndarray:
        return 2 * stats.binom.sf(k - 1, n, 0.5)

    k = stats.binom.isf(alpha / 2, n, 0.5) + 1
    # isf works in floating point: settle the boundary on the p-value itself.
    k = np.where(pvalue(k - 1) <= alpha, k - 1, k)
    return np.where(pvalue(k) > alpha, k + 1, k)


def _powers(n: np.ndarray, p: float, alpha: float) -> np.ndarray:
    k = _critical(n, alpha)
    upper = stats.binom.sf(k - 1, n, p)  # P(X >= k)
    lower = stats.binom.cdf(n - k, n, p)  # P(X <= n - k)
    if p > 0.5:
        return upper
    if p < 0.5:
        return lower
    return upper + lower


def power(n: int, p: float = 0.75, alpha: float = 0.05) -> float:
    """The power of the exact two-sided binomial test of p = ½ after ``n`` games.

    The probability that ``n`` decisive games, each won by A with probability
    ``p``, make the test of :func:`compare` (p-value at most ``alpha``) declare
    the truly stronger agent stronger.  As in ``exactci::powerBinom`` with its
    default ``strict=FALSE`` (Fay 2010), a rejection in the wrong direction
    does not count; at ``p = ½`` both directions count, and the power is the
    test's size.  Without draws, ``p`` is A's expected score.

    Args:
        n: the number of games, an integer at least 0.
        p: the probability that A wins a game, in [0, 1].
        alpha: the level of the test, strictly between 0 and 1.

    Returns:
        The power, in [0, 1].

    Raises:
        ValueError: ``n`` not an integer at least 0, ``p`` outside [0, 1] or
            ``alpha`` outside (0, 1).
    """
    n = _count("n", n)
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real) or not 0 <= p <= 1:
        raise ValueError(f"p must be a number in [0, 1], got {p!r}")
    return float(_powers(np.array([n]), float(p), _fraction("alpha", alpha))[0])


def games_needed(p: float = 0.75, power: float = 0.95, alpha: float = 0.05, max_games: int = 1_000_000) -> int:
    """The smallest number of games whose :func:`power` reaches ``power``.

    This is the sample size of ``exactci::powerBinom`` (Fay 2010), which the
    thesis used: for ``p = 0.75``, ``power = 0.95`` and ``alpha = 0.05`` it is 49
    (Marchant 2021).  The power of an exact test is not monotone in ``n``,
    because the critical number of wins moves in whole steps: a few more games
    can have less power.  Here 49 games have a power of 0.954 but 50 games only
    0.945, and every number of games from 54 on reaches 0.95.

    Without draws ``p`` is A's expected score.  With draws the test uses the
    decisive games only (see :func:`compare`): the result is then a number of
    decisive games and ``p`` the probability of winning a decisive game.

    Args:
        p: the probability that A wins a game, in (0, 1), not ½.
        power: the target power, in (0, 1).
        alpha: the level of the test, in (0, 1).
        max_games: the largest number of games tried.

    Returns:
        The smallest ``n`` with ``power(n, p, alpha) >= power``.

    Raises:
        ValueError: an argument out of its range, ``p = ½`` (the test then
            rejects with probability at most ``alpha``, whatever ``n``), or a
            target not reached within ``max_games`` games.
    """
    p, target, alpha = _fraction("p", p), _fraction("power", power), _fraction("alpha", alpha)
    max_games = _count("max_games", max_games)
    if p == 0.5:
        raise ValueError("p must differ from 0.5: equally strong agents are told apart with probability alpha at most")
    start, size = 1, 64
    while start <= max_games:
        n = np.arange(start, min(start + size, max_games + 1))
        reached = np.flatnonzero(_powers(n, p, alpha) >= target)
        if reached.size:
            return int(n[reached[0]])
        start, size = start + size, 2 * size
    raise ValueError(f"a power of {target} at p = {p} needs more than max_games = {max_games} games")


def detectable(n: int, power: float = 0.8, alpha: float = 0.05) -> float:
    """The smallest winning probability that ``n`` decisive games detect with the given power.

    The least ``p > ½`` for which the exact two-sided test of :func:`compare`
    declares the stronger agent stronger with probability at least ``power``
    (:func:`power`): what "not separated" after ``n`` decisive games can rule
    out.  For instance 50 games detect p = 0.70 with 80 % power, 200 games
    p = 0.60, 800 games p = 0.55.

    Args:
        n: decisive games, an integer at least 1.
        power: the power required, in (0, 1).
        alpha: the level of the test, in (0, 1).

    Returns:
        The probability, to 1e-4 (1.0 when even p = 1 falls short: too few games).

    Raises:
        ValueError: an argument out of its range.
    """
    n = _count("n", n)
    if n < 1:
        raise ValueError("n must be at least 1")
    target, alpha = _fraction("power", power), _fraction("alpha", alpha)
    def reaches(p: float) -> bool:
        return bool(_powers(np.array([n]), p, alpha)[0] >= target)

    if not reaches(1.0):
        return 1.0
    low, high = 5000, 10_000  # in units of 1e-4; for p > ½ the power grows with p (the critical k is fixed)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if reaches(middle / 10_000) else (middle, high)
    return high / 10_000


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values of a family of tests.

    Sorted ascending, the i-th smallest of m p-values (i from 0) becomes
    ``min(1, max over j <= i of (m - j) p_(j))``; rejecting where the adjusted
    p-value is at most ``alpha`` controls the family-wise error rate at
    ``alpha`` under any dependence between the tests.  NaN p-values (tests
    not made) are left NaN and not counted in m.

    Args:
        pvalues: the raw p-values, each in [0, 1] or NaN.

    Returns:
        The adjusted p-values, in the given order.

    Raises:
        ValueError: a p-value outside [0, 1].
    """
    raw = np.asarray(pvalues, dtype=float)
    if raw.ndim != 1:
        raise ValueError(f"pvalues must be one-dimensional, got shape {raw.shape}")
    made = ~np.isnan(raw)
    if np.any((raw[made] < 0) | (raw[made] > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    adjusted = np.full(raw.shape, np.nan)
    index = np.flatnonzero(made)
    order = index[np.argsort(raw[index], kind="stable")]
    m = len(order)
    steps = (m - np.arange(m)) * raw[order]
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(steps))
    return adjusted


# --- Tournaments -----------------------------------------------------------------------------------


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


# --- Ratings ---------------------------------------------------------------------------------------


def _check_finite(agents: Sequence[Hashable], games: np.ndarray, points: np.ndarray) -> None:
    """Raise unless the Bradley-Terry maximum-likelihood estimate exists (Ford 1957).

    It exists if and only if, however the agents are split in two groups,
    each group took points (a win or a draw) from the other.
    """
    if len(agents) < 2:
        raise ValueError(f"ratings need at least two agents, got {list(agents)}")
    count, labels = csgraph.connected_components(games > 0, directed=False)
    if count > 1:
        groups = [[agents[i] for i in np.flatnonzero(labels == g)] for g in range(count)]
        raise ValueError(f"the agents form groups that never met, directly or through others: {groups}")
    count, labels = csgraph.connected_components(points > 0, directed=True, connection="strong")
    if count == 1:
        return
    separated = []  # (size, names, what they did against the rest)
    for g in range(count):
        inside = labels == g
        names = [agents[i] for i in np.flatnonzero(inside)]
        if not points[np.ix_(~inside, inside)].any():
            separated.append((len(names), names, "won every game"))
        if not points[np.ix_(inside, ~inside)].any():
            separated.append((len(names), names, "lost every game"))
    _, names, what = min(separated, key=lambda item: item[0])
    who = f"{names[0]!r} {what} it" if len(names) == 1 else f"{', '.join(map(repr, names))} {what} they"
    raise ValueError(
        f"{who} played against the other agents: perfect separation, the maximum-likelihood ratings are "
        "infinitely far apart; pass prior_draws > 0 for finite ratings shrunk towards each other"
    )


def _fit(points: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Bradley-Terry log-strengths by maximum likelihood, the first agent's fixed at 0.

    The log-likelihood is concave, so its maximum is the one solution of the
    score equations (each agent's points equal its expected points), which
    scipy's hybrid Powell method solves with the exact Jacobian.
    """

    def strengths(free: np.ndarray) -> np.ndarray:
        return np.concatenate(([0.0], free))

    def excess(free: np.ndarray) -> np.ndarray:
        theta = strengths(free)
        return (games * special.expit(theta[:, None] - theta[None, :]) - points).sum(axis=1)[1:]

    def jacobian(free: np.ndarray) -> np.ndarray:
        return _information(strengths(free), games)[1:, 1:]

    result = optimize.root(excess, np.zeros(len(points) - 1), jac=jacobian, method="hybr")
    if np.max(np.abs(excess(result.x))) > 1e-9 * max(1.0, float(games.sum())):
        raise RuntimeError(f"the Bradley-Terry fit did not converge: {result.message}")
    return strengths(result.x)


def _information(theta: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The Fisher information of the log-strengths (observed and expected coincide for this model)."""
    p = special.expit(theta[:, None] - theta[None, :])
    weights = games * p * (1 - p)
    return np.diag(weights.sum(axis=1)) - weights


def ratings(
    results: Union[pd.DataFrame, Tournament],
    anchor: Optional[Hashable] = None,
    alpha: float = 0.05,
    prior_draws: float = 0.0,
) -> pd.DataFrame:
    """Bradley-Terry ratings on the Elo scale, with confidence intervals.

    The model (Bradley & Terry 1952) gives agent i a strength θ_i and i an
    expected score of ``1 / (1 + exp(θ_j - θ_i))`` against j.  A draw counts
    as half a win for each agent, so the likelihood is
    ``Π σ(θ_i - θ_j) ** points[i, j]`` over ordered pairs, ``points`` being
    wins plus half the draws.  The strengths are fitted by maximum likelihood
    and reported in Elo points, ``400 log10`` of the odds (Elo 1978), so 400
    points mean winning odds of 10 to 1.  Only differences are determined:
    the ratings are anchored so that their mean is 0, or the ``anchor``
    agent's rating is 0.

    The intervals are Wald intervals, ``rating ± z · se`` at level
    ``1 - alpha``, the standard errors coming from the inverse of the
    observed Fisher information (the Hessian of the negative
    log-likelihood), restricted to the anchoring: its pseudo-inverse for a
    zero mean, the inverse without the anchor's row and column otherwise (the
    anchor's own interval is then [0, 0]).

    Perfect separation: when some agents won every game against all the
    others (or lost every one), the likelihood grows without bound as their
    ratings move apart, and no estimate exists (Ford 1957).  That is an
    error by default.  ``prior_draws > 0`` adds that many virtual drawn
    games between every pair of agents, a prior that shrinks the ratings
    towards each other and always gives finite ones; the intervals then
    describe that penalised estimate.  The ``games`` and ``score`` columns
    count real games only.

    Args:
        results: a table of games as for :func:`round_robin`, or a :class:`Tournament`.
        anchor: the agent rated 0, or None for a mean of 0.
        alpha: one minus the confidence level of the intervals, in (0, 1).
        prior_draws: virtual draws added between every pair, a number at least 0.

    Returns:
        A DataFrame with one row per agent, best first, and columns ``agent``,
        ``elo``, ``low``, ``high`` (the interval), ``games`` (games played) and
        ``score`` (points per game).

    Raises:
        ValueError: bad results, an unknown anchor, a bad ``alpha`` or
            ``prior_draws``, fewer than two agents, agents in groups that
            never met, or perfect separation with ``prior_draws = 0``.
    """
    tournament = results if isinstance(results, Tournament) else round_robin(results)
    alpha = _fraction("alpha", alpha)
    if (
        isinstance(prior_draws, (bool, np.bool_))
        or not isinstance(prior_draws, numbers.Real)
        or not 0 <= prior_draws < math.inf
    ):
        raise ValueError(f"prior_draws must be a number at least 0, got {prior_draws!r}")
    agents = tournament.agents
    if anchor is not None and anchor not in agents:
        raise ValueError(f"anchor {anchor!r} is not one of the agents {list(agents)}")

    real_games = tournament.games
    real_points = tournament.wins + tournament.draws / 2
    virtual = prior_draws * (1 - np.eye(len(agents)))
    games, points = real_games + virtual, real_points + virtual / 2
    _check_finite(agents, games, points)

    theta = _fit(points, games)
    information = _information(theta, games)
    if anchor is None:
        theta = theta - theta.mean()
        covariance = np.linalg.pinv(information)
    else:
        a = agents.index(anchor)
        theta = theta - theta[a]
        rest = np.arange(len(agents)) != a
        covariance = np.zeros_like(information)
        covariance[np.ix_(rest, rest)] = np.linalg.inv(information[np.ix_(rest, rest)])
    margin = stats.norm.isf(alpha / 2) * np.sqrt(np.clip(np.diagonal(covariance), 0, None))
    played = real_games.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = real_points.sum(axis=1) / played
    table = pd.DataFrame(
        {
            "agent": list(agents),
            "elo": ELO_PER_NATURAL_UNIT * theta,
            "low": ELO_PER_NATURAL_UNIT * (theta - margin),
            "high": ELO_PER_NATURAL_UNIT * (theta + margin),
            "games": played,
            "score": score,
        }
    )
    return table.sort_values("elo", ascending=False, kind="stable").reset_index(drop=True)


def bootstrap_ratings(
    results: Union[pd.DataFrame, Tournament],
    anchor: Optional[Hashable] = None,
    alpha: float = 0.05,
    prior_draws: float = 0.0,
    replicates: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """:func:`ratings` with percentile bootstrap intervals instead of Wald intervals.

    Each replicate redraws every pair's games from its own record (wins,
    draws and losses, multinomially with the observed frequencies, as many
    games as were played) and refits the ratings with the same anchor and
    prior; the interval of each rating is the ``alpha / 2`` and ``1 - alpha / 2``
    quantiles of its replicates (Efron & Tibshirani 1993).  Unlike the Wald
    interval it needs no normal approximation, and it is lopsided where the
    likelihood is.  A replicate whose fit separates perfectly (possible when
    ``prior_draws`` is 0) is an error, as for :func:`ratings`.

    Args:
        results, anchor, alpha, prior_draws: as for :func:`ratings`.
        replicates: resampled tournaments, an integer at least 10.
        seed: the seed of the resampling.

    Returns:
        The table of :func:`ratings` (point estimates from the data), its
        ``low`` and ``high`` replaced by the bootstrap's.
    """
    tournament = results if isinstance(results, Tournament) else round_robin(results)
    replicates = _count("replicates", replicates)
    if replicates < 10:
        raise ValueError(f"replicates must be at least 10, got {replicates}")
    alpha = _fraction("alpha", alpha)
    table = ratings(tournament, anchor=anchor, alpha=alpha, prior_draws=prior_draws)
    agents = list(tournament.agents)
    rng = np.random.default_rng(seed)
    wins, draws, games = tournament.wins, tournament.draws, tournament.games
    draws_upper = np.triu(draws, 1)
    samples = np.empty((replicates, len(agents)))
    rows, cols = np.triu_indices(len(agents), 1)
    for r in range(replicates):
        w = np.zeros_like(wins)
        d = np.zeros_like(draws)
        for i, j in zip(rows, cols):
            n = games[i, j]
            if n == 0:
                continue
            counts = rng.multinomial(n, np.array([wins[i, j], draws_upper[i, j], wins[j, i]]) / n)
            w[i, j], d[i, j], w[j, i] = counts
            d[j, i] = counts[1]
        fitted = ratings(Tournament(agents, w, d), anchor=anchor, alpha=alpha, prior_draws=prior_draws)
        samples[r] = fitted.set_index("agent").loc[agents, "elo"].to_numpy()
    low = dict(zip(agents, np.quantile(samples, alpha / 2, axis=0)))
    high = dict(zip(agents, np.quantile(samples, 1 - alpha / 2, axis=0)))
    table["low"] = table["agent"].map(low).astype(float)
    table["high"] = table["agent"].map(high).astype(float)
    return table


def ms_per_move(games: pd.DataFrame, agent: str, opening_plies: int = 0) -> float:
    """The mean thinking time of ``agent`` per move over its games in ``games`` (a store's frame), in ms.

    ``agent`` is matched against the ``south`` and ``north`` specs.  South moves at the even plies
    (``(plies + 1) // 2`` moves), North at the odd ones; the first ``opening_plies`` plies of every game
    (an opening imposed by the experiment, played at once) are not counted as moves.  NaN without moves.
    """
    if isinstance(opening_plies, bool) or not isinstance(opening_plies, numbers.Integral) or opening_plies < 0:
        raise ValueError(f"opening_plies must be a non-negative integer, got {opening_plies!r}")
    seconds = moves = 0.0
    for side, first in (("south", 0), ("north", 1)):
        mine = games[games[side] == agent]
        plies = mine["plies"].to_numpy()
        # Moves of this side among plies first, first + 2, ... below ``plies``, minus those of the opening.
        played = np.maximum(0, (plies - first + 1) // 2 - (opening_plies - first + 1) // 2)
        seconds += float(mine[f"{side}_seconds"].sum())
        moves += float(played.sum())
    return 1000 * seconds / moves if moves else math.nan


def time_worth(per_doubling: float, ratio: float) -> float:
    """The Elo a time ratio ``ratio`` can be worth to a search whose doubling of time is worth ``per_doubling``.

    ``per_doubling * |log2(ratio)|``: the same search given ``ratio`` times
    the time of another gains about that much if each doubling is worth the
    same over the range (chapter 7 of the thesis).

    Raises:
        ValueError: a ratio that is not a positive number.
    """
    if not (isinstance(ratio, numbers.Real) and ratio > 0):
        raise ValueError(f"a time ratio must be a positive number, got {ratio!r}")
    return float(per_doubling) * abs(math.log2(ratio))


def elo(score: float) -> float:
    """The Elo difference of an expected score: ``400 log10(score / (1 - score))`` (±inf at 1 and 0)."""
    score = float(score)
    if not 0 <= score <= 1:
        raise ValueError(f"a score lies in [0, 1], got {score!r}")
    with np.errstate(divide="ignore"):
        return float(ELO_PER_NATURAL_UNIT * (np.log(score) - np.log1p(-score)))


def factorial_effects(
    cells: pd.DataFrame, factors: Sequence[str], alpha: float = 0.05, replicates: int = 2000, seed: int = 0,
    prior_draws: float = 1.0,
) -> pd.DataFrame:
    """Main effects and interactions of a two-level factorial design, in Elo, with bootstrap intervals.

    Each cell (one combination of the factors) played a fixed reference; its
    strength is the Elo of its score against it, ``elo((points + prior/2) /
    (games + prior))`` (``prior_draws`` virtual draws keep a perfect score
    finite).  With the factors coded -1/+1, the effect of a set of factors is
    the usual contrast (Box, Hunter & Hunter 2005): the mean strength of the
    cells where the product of their codes is +1 minus the mean where it is
    -1.  A main effect is the average gain of switching one factor on; an
    interaction, how much one factor's gain depends on another.  The
    intervals are percentiles of the same contrasts over ``replicates``
    bootstrap redraws of every cell's games (multinomial on its wins, draws
    and losses).  A cell with no games is the reference itself: strength 0,
    without sampling error.

    Args:
        cells: one row per cell, with a boolean column per factor and the
            columns ``wins``, ``draws``, ``losses`` (against the reference).
        factors: the factor columns, two to five.
        alpha: one minus the level of the intervals.
        replicates: bootstrap redraws.
        seed: the seed of the redraws.
        prior_draws: virtual draws added to every cell.

    Returns:
        One row per effect (every non-empty set of factors, main effects
        first), with columns ``effect`` (the factor names joined by ' × '),
        ``elo``, ``low``, ``high``.

    Raises:
        ValueError: not every combination of the factors appears exactly once.
    """
    factors = list(factors)
    if not 2 <= len(factors) <= 5:
        raise ValueError(f"factors: two to five, got {factors!r}")
    combos = {tuple(bool(v) for v in row) for row in cells[factors].itertuples(index=False)}
    if len(cells) != 2 ** len(factors) or len(combos) != 2 ** len(factors):
        raise ValueError(f"every combination of {factors} must appear exactly once; got {len(cells)} rows")
    alpha = _fraction("alpha", alpha)
    codes = np.where(cells[factors].to_numpy(dtype=bool), 1.0, -1.0)
    counts = cells[["wins", "draws", "losses"]].to_numpy(dtype=np.int64)
    games = counts.sum(axis=1)

    def strengths(c: np.ndarray) -> np.ndarray:
        score = (c[..., 0] + c[..., 1] / 2 + prior_draws / 2) / (c.sum(axis=-1) + prior_draws)
        return ELO_PER_NATURAL_UNIT * np.log(score / (1 - score))

    subsets = [s for k in range(1, len(factors) + 1) for s in itertools.combinations(range(len(factors)), k)]
    contrasts = np.array([np.prod(codes[:, list(s)], axis=1) for s in subsets]) / (len(cells) / 2)
    estimate = contrasts @ strengths(counts)
    rng = np.random.default_rng(seed)
    redrawn = np.stack([rng.multinomial(n, c / max(n, 1), size=replicates) for n, c in zip(games, counts)], axis=1)
    boot = strengths(redrawn) @ contrasts.T
    return pd.DataFrame({
        "effect": [" × ".join(factors[i] for i in s) for s in subsets],
        "elo": estimate,
        "low": np.quantile(boot, alpha / 2, axis=0),
        "high": np.quantile(boot, 1 - alpha / 2, axis=0),
    })
