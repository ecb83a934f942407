"""The arithmetic of the sequential test of :mod:`awale.experiments.sprt` on paired games: logistic Elo,
pentanomial (and trinomial) counts, the generalized log-likelihood ratio, the estimate with its interval, and
the test (:class:`SPRT`) with its verdicts.

:mod:`awale.experiments.sprt` states the model and its sources (Wald 1945; Van den Bergh's computeLLR;
fastchess's logistic model and regularization); its names are importable from there too.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Iterable, List, Optional, Sequence, Tuple

from .keys import GameKey
from .ratings import ELO_PER_NATURAL_UNIT

__all__ = [
    "SPRT",
    "Estimate",
    "Verdict",
    "logistic_score",
    "logistic_elo",
    "pentanomial",
    "trinomial",
    "llr",
    "estimate",
    "REGULARIZATION",
]

#: What an empty bin counts as in the LLR (fastchess's regularization).
REGULARIZATION = 1e-3

_Z95 = 1.959963984540054  # the 97.5 % quantile of the standard normal


# --------------------------------------------------------------------------- the model


def logistic_score(elo: float) -> float:
    """The expected score per game of a logistic Elo difference: ``1 / (1 + 10**(-elo / 400))``.

    Raises:
        ValueError: ``elo`` is not a finite number.
    """
    elo = _finite("an Elo difference", elo)
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def logistic_elo(score: float) -> float:
    """The logistic Elo difference of an expected score per game (the inverse of :func:`logistic_score`).

    ±inf at 1 and 0.

    Raises:
        ValueError: ``score`` outside [0, 1].
    """
    score = float(score)
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"a score lies in [0, 1], got {score!r}")
    if score in (0.0, 1.0):
        return math.copysign(math.inf, score - 0.5)
    return ELO_PER_NATURAL_UNIT * (math.log(score) - math.log1p(-score))


def _finite(what: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    return float(value)


def _result(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value not in (0, 0.5, 1):
        raise ValueError(f"a game's result is 0, 0.5 or 1, got {value!r}")
    return float(value)


def pentanomial(pairs: Iterable[Tuple[float, float]]) -> Tuple[int, int, int, int, int]:
    """The pentanomial counts of paired results: how many pairs scored 0, ½, 1, 1½ and 2.

    Args:
        pairs: the two results of each pair (1 a win, 0.5 a draw, 0 a loss),
            from the same player's side.

    Raises:
        ValueError: a result other than 0, 0.5 or 1.
    """
    counts = [0] * 5
    for first, second in pairs:
        counts[int(round(2 * (_result(first) + _result(second))))] += 1
    return tuple(counts)  # type: ignore[return-value]


def trinomial(results: Iterable[float]) -> Tuple[int, int, int]:
    """The counts of losses, draws and wins among game results (0, 0.5, 1).

    Raises:
        ValueError: a result other than 0, 0.5 or 1.
    """
    counts = [0] * 3
    for value in results:
        counts[int(round(2 * _result(value)))] += 1
    return tuple(counts)  # type: ignore[return-value]


def _counts(counts: Sequence[float]) -> List[float]:
    values = list(counts)
    if len(values) not in (3, 5):
        raise ValueError(
            f"counts are trinomial (losses, draws, wins) or pentanomial (pairs scoring 0, ½, 1, 1½, 2), got {counts!r}"
        )
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
            raise ValueError(f"counts must be numbers at least 0, got {counts!r}")
    return [float(value) for value in values]


def _mle(values: Sequence[float], probabilities: Sequence[float], mean: float) -> Optional[List[float]]:
    """The distribution on ``values`` of largest likelihood for ``probabilities`` whose mean is ``mean``.

    It is ``p_i / (1 + θ (a_i - mean))`` with θ the root of ``Σ p_i (a_i - mean) / (1 + θ (a_i - mean))``
    (Van den Bergh, Proposition 1.1), on the interval where every weight is positive; the function is
    decreasing there, so bisection finds the root.  None when no distribution supported on the values of
    positive probability has this mean (``mean`` outside their range).
    """
    support = [(a - mean, p) for a, p in zip(values, probabilities) if p > 0]
    low_gap = min(d for d, _ in support)
    high_gap = max(d for d, _ in support)
    if not low_gap < 0 < high_gap:
        if low_gap == high_gap == 0:
            return list(probabilities)
        return None

    def f(theta: float) -> float:
        return sum(p * d / (1 + theta * d) for d, p in support)

    low, high = -1.0 / high_gap, -1.0 / low_gap  # 1 + θd > 0 for every d strictly inside
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if f(middle) > 0:
            low = middle
        else:
            high = middle
    theta = (low + high) / 2
    return [p / (1 + theta * (a - mean)) for a, p in zip(values, probabilities)]


def llr(counts: Sequence[float], elo0: float, elo1: float, regularization: float = REGULARIZATION) -> float:
    """The generalized log-likelihood ratio of H1 (``elo = elo1``) against H0 (``elo = elo0``), logistic Elo.

    Args:
        counts: pentanomial counts (pairs scoring 0, ½, 1, 1½, 2, from the
            side of the player whose Elo is tested) or trinomial counts
            (losses, draws, wins).
        elo0, elo1: the logistic Elo differences of H0 and H1.
        regularization: what an empty bin counts as (fastchess: 1e-3); 0
            for none (then the LLR may be infinite).

    Returns:
        ``N Σ p̂_i log(p1_i / p0_i)``, ``N`` the (regularized) number of
        observations, ``p̂`` their frequencies and ``p0``, ``p1`` the
        distributions of largest likelihood whose means are ``s(elo0)``,
        ``s(elo1)`` (see the module docstring); 0 when there are no
        observations.

    Raises:
        ValueError: bad counts, bounds or regularization.

    >>> round(llr([0, 0, 10, 0, 10], 100, 200, regularization=0), 4)  # 10 pairs of ½ + ½, 10 of 1 + 1
    2.1337
    >>> SPRT(0, 10).verdict([3, 10, 30, 12, 5]).hypothesis is None  # 60 pairs: not yet decided
    True
    """
    values = _counts(counts)
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    regularization = _finite("the regularization", regularization)
    if regularization < 0:
        raise ValueError(f"the regularization must be at least 0, got {regularization!r}")
    if sum(values) == 0:
        return 0.0
    values = [value if value > 0 else regularization for value in values]
    total = sum(values)
    frequencies = [value / total for value in values]
    points = [i / (len(values) - 1) for i in range(len(values))]
    p0, p1 = _mle(points, frequencies, s0), _mle(points, frequencies, s1)
    if p0 is None and p1 is None:
        return 0.0
    if p0 is None:
        return math.inf
    if p1 is None:
        return -math.inf
    return total * sum(f * (math.log(b) - math.log(a)) for f, a, b in zip(frequencies, p0, p1) if f > 0)


@dataclasses.dataclass(frozen=True)
class Estimate:
    """The score per game of paired games and its logistic Elo, with a 95 % interval.

    Attributes:
        score: mean score per game (pair scores / 2).
        low, high: its 95 % interval (normal, from the variance of the pair
            scores), clipped to [0, 1].
        elo, elo_low, elo_high: the same as logistic Elo differences.
    """

    score: float
    low: float
    high: float

    @property
    def elo(self) -> float:
        return logistic_elo(self.score)

    @property
    def elo_low(self) -> float:
        return logistic_elo(self.low)

    @property
    def elo_high(self) -> float:
        return logistic_elo(self.high)


def estimate(counts: Sequence[float]) -> Estimate:
    """The score per game of pentanomial (or trinomial) counts, with a normal 95 % interval.

    With ``N`` observations of values ``a_i`` (pair score per game: 0, ¼,
    ½, ¾, 1; or 0, ½, 1 for trinomial counts) and frequencies ``p̂_i``, the
    score is ``s = Σ p̂_i a_i`` and its standard error ``sqrt(Σ p̂_i (a_i -
    s)² / N)``.  No observations give the whole interval [0, 1] around ½.

    Raises:
        ValueError: bad counts.
    """
    values = _counts(counts)
    total = sum(values)
    if total == 0:
        return Estimate(0.5, 0.0, 1.0)
    points = [i / (len(values) - 1) for i in range(len(values))]
    score = sum(v * a for v, a in zip(values, points)) / total
    variance = sum(v * (a - score) ** 2 for v, a in zip(values, points)) / total
    half = _Z95 * math.sqrt(variance / total)
    return Estimate(score, max(0.0, score - half), min(1.0, score + half))


# --------------------------------------------------------------------------- the test


@dataclasses.dataclass(frozen=True)
class SPRT:
    """A sequential probability ratio test of H0: ``elo = elo0`` against H1: ``elo = elo1`` (logistic Elo).

    Args:
        elo0, elo1: the bounds, ``elo0 < elo1``.
        alpha: the probability of accepting H1 when H0 holds, in (0, 1).
        beta: the probability of accepting H0 when H1 holds, in (0, 1);
            ``alpha + beta < 1``.

    Raises:
        ValueError: bounds or error rates out of range, naming which.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            object.__setattr__(self, name, _finite(name, getattr(self, name)))
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be less than elo1, got elo0={self.elo0:g} and elo1={self.elo1:g}")
        for name in ("elo0", "elo1"):
            if abs(getattr(self, name)) > 2000:
                raise ValueError(f"{name} must be within ±2000 Elo, got {getattr(self, name):g}")
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 1:
                raise ValueError(f"{name} must lie strictly between 0 and 1, got {getattr(self, name):g}")
        if self.alpha + self.beta >= 1:
            raise ValueError(f"alpha + beta must be less than 1, got {self.alpha + self.beta:g}")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: ``ln(β / (1 - α))``."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: ``ln((1 - β) / α)``."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[float]) -> float:
        """The LLR of pentanomial (or trinomial) counts, see :func:`llr`."""
        return llr(counts, self.elo0, self.elo1)

    def verdict(self, counts: Sequence[int], final: bool = False) -> "Verdict":
        """The state of the test after the pairs of ``counts`` (pentanomial).

        ``final`` means no more pairs will be played: without a decision the
        test is then inconclusive.
        """
        counts = tuple(int(c) for c in _counts(counts))
        if len(counts) != 5:
            raise ValueError(f"a verdict needs pentanomial counts (five), got {counts!r}")
        value = self.llr(counts)
        hypothesis = "H1" if value >= self.upper else "H0" if value <= self.lower else None
        return Verdict(self, counts, value, hypothesis, final or hypothesis is not None)  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The state of an SPRT after some pairs: counts, LLR, and H0, H1 or nothing yet.

    Attributes:
        test: the :class:`SPRT`.
        counts: pentanomial counts (pairs scoring 0, ½, 1, 1½, 2 for A).
        llr: their log-likelihood ratio.
        hypothesis: ``"H0"`` or ``"H1"`` when accepted, else None.
        finished: the test stopped (a hypothesis accepted, or the pairs
            ran out: inconclusive).
        games: games (A's wins, draws, losses) of the counted pairs, when
            known (else None).
        beyond: games stored after the pair at which the test stopped
            (played in the same batch), not counted.
        failed: games that raised instead of finishing (their pairs are not
            counted), as ``(key, message)``.
    """

    test: SPRT
    counts: Tuple[int, int, int, int, int]
    llr: float
    hypothesis: Optional[str]
    finished: bool
    games: Optional[Tuple[int, int, int]] = None
    beyond: int = 0
    failed: Tuple[Tuple[GameKey, str], ...] = ()

    @property
    def pairs(self) -> int:
        """Pairs counted."""
        return sum(self.counts)

    @property
    def inconclusive(self) -> bool:
        """Stopped without accepting either hypothesis."""
        return self.finished and self.hypothesis is None

    @property
    def estimate(self) -> Estimate:
        """A's score per game with its 95 % interval (see :func:`estimate`)."""
        return estimate(self.counts)

    def line(self) -> str:
        """One line: pairs, games W-D-L, score, Elo ± interval, LLR and its bounds."""
        est = self.estimate
        wdl = f"W-D-L {self.games[0]}-{self.games[1]}-{self.games[2]}, " if self.games is not None else ""
        elo = _elo_text(est)
        return (
            f"{self.pairs} pairs ({2 * self.pairs} games), {wdl}pentanomial {list(self.counts)}, "
            f"score {est.score:.3f}, Elo {elo}, "
            f"LLR {self.llr:.2f} ({self.test.lower:.2f}, {self.test.upper:.2f}) "
            f"[{self.test.elo0:g}, {self.test.elo1:g}]"
        )

    def short_line(self) -> str:
        """The live line of a terminal, under 80 columns: the LLR and its bounds first, then pairs, W-D-L, Elo."""
        est = self.estimate
        wdl = f" W-D-L {self.games[0]}-{self.games[1]}-{self.games[2]}" if self.games is not None else ""
        elo = f"{est.elo:+.0f}" if math.isfinite(est.elo) else ("+inf" if est.elo > 0 else "-inf")
        if math.isfinite(est.elo_low) and math.isfinite(est.elo_high) and est.low != est.high:
            elo += f" ±{(est.elo_high - est.elo_low) / 2:.0f}"
        return (f"LLR {self.llr:.2f} ({self.test.lower:.2f}, {self.test.upper:.2f}), {self.pairs} pairs{wdl}, "
                f"Elo {elo}")

    def conclusion(self) -> str:
        """The verdict in one line: which hypothesis was accepted (or none), with the numbers."""
        bounds = f"[{self.test.elo0:g}, {self.test.elo1:g}]"
        elo0, elo1 = self.test.elo0, self.test.elo1
        if self.hypothesis == "H1":
            # What H1 says in words, for any bounds: [0, 50] finds A stronger, [-5, 0] finds A not 5 Elo weaker.
            gloss = "A is stronger" if elo0 >= 0 else f"A is not {-elo0:g} Elo weaker"
            head = f"H1 accepted (elo >= {elo1:g} rather than <= {elo0:g}; {gloss})"
        elif self.hypothesis == "H0":
            # [0, 50] finds no gain of 50 Elo; [-5, 0] finds A weaker (by 5 Elo or more, rather than not at all).
            gloss = f"no gain of {elo1:g} Elo" if elo1 > 0 else "A is weaker"
            head = f"H0 accepted (elo <= {elo0:g} rather than >= {elo1:g}; {gloss})"
        elif self.finished:
            head = f"inconclusive: neither H0 nor H1 accepted within {self.pairs} pairs"
        else:
            head = "undecided so far"
        est = self.estimate
        return (
            f"SPRT {bounds} alpha={self.test.alpha:g} beta={self.test.beta:g}: {head}: "
            f"LLR {self.llr:.2f} ({self.test.lower:.2f}, {self.test.upper:.2f}) after {self.pairs} pairs, "
            f"score {est.score:.3f}, Elo {_elo_text(est)}"
        )


def _elo_text(est: Estimate) -> str:
    def show(value: float) -> str:
        return f"{value:+.1f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")

    if est.low == est.high:
        return f"{show(est.elo)} (no interval: every pair scored the same)"
    if math.isfinite(est.elo_low) and math.isfinite(est.elo_high):
        return f"{show(est.elo)} ± {(est.elo_high - est.elo_low) / 2:.1f} [{show(est.elo_low)}, {show(est.elo_high)}]"
    return f"{show(est.elo)} [{show(est.elo_low)}, {show(est.elo_high)}]"
