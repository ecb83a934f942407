"""Two agents compared: the exact test of equal strength, the interval of a score, power, and multiplicity.

The statistics of :mod:`awale.experiments.stats` for one pair of agents (its
docstring gives the definitions chosen: draws, power).

References:
    Fay, M. P. (2010). Two-sided exact tests and matching confidence intervals
    for discrete data. The R Journal 2(1), 53-58 (package ``exactci``).
    Wilson, E. B. (1927). Probable inference, the law of succession, and
    statistical inference. JASA 22(158), 209-212.
    Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial
    limits illustrated in the case of the binomial. Biometrika 26(4), 404-413.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6(2), 65-70.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from typing import Sequence, Tuple

import numpy as np
from scipy import stats

from ._checks import check_count, check_fraction

__all__ = ["Comparison", "compare", "power", "games_needed", "detectable", "holm"]

_METHODS = ("wilson", "clopper-pearson")


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
    wins, draws, losses = check_count("wins", wins), check_count("draws", draws), check_count("losses", losses)
    alpha = check_fraction("alpha", alpha)
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
    n = check_count("n", n)
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real) or not 0 <= p <= 1:
        raise ValueError(f"p must be a number in [0, 1], got {p!r}")
    return float(_powers(np.array([n]), float(p), check_fraction("alpha", alpha))[0])


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
    p, target, alpha = check_fraction("p", p), check_fraction("power", power), check_fraction("alpha", alpha)
    max_games = check_count("max_games", max_games)
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
    n = check_count("n", n)
    if n < 1:
        raise ValueError("n must be at least 1")
    target, alpha = check_fraction("power", power), check_fraction("alpha", alpha)
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
