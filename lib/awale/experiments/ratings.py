"""Ratings on the Elo scale: Bradley-Terry ratings of a tournament, the Elo of a score, what time is worth,
and the effects of a factorial design in Elo.

References:
    Bradley, R. A. & Terry, M. E. (1952). Rank analysis of incomplete block
    designs I. Biometrika 39(3/4), 324-345.
    Ford, L. R. (1957). Solution of a ranking problem from binary comparisons.
    The American Mathematical Monthly 64(8), 28-33.
    Elo, A. E. (1978). The Rating of Chessplayers, Past and Present. Arco.
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap.
    Chapman & Hall.
    Box, G. E. P., Hunter, J. S. & Hunter, W. G. (2005). Statistics for
    Experimenters, 2nd ed. Wiley.
"""

from __future__ import annotations

import itertools
import math
import numbers
from typing import Hashable, Optional, Sequence, Union

import numpy as np
import pandas as pd
from scipy import optimize, special, stats
from scipy.sparse import csgraph

from ._checks import check_count, check_fraction
from .tournament import Tournament, round_robin

__all__ = [
    "ELO_PER_NATURAL_UNIT",
    "ratings",
    "bootstrap_ratings",
    "ms_per_move",
    "time_worth",
    "elo",
    "factorial_effects",
]

#: Elo points per unit of the Bradley-Terry log-odds: 400 / ln 10, so that a
#: difference of 400 Elo is a winning odds of 10 to 1.
ELO_PER_NATURAL_UNIT = 400 / math.log(10)


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
    alpha = check_fraction("alpha", alpha)
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
    replicates = check_count("replicates", replicates)
    if replicates < 10:
        raise ValueError(f"replicates must be at least 10, got {replicates}")
    alpha = check_fraction("alpha", alpha)
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
    alpha = check_fraction("alpha", alpha)
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
