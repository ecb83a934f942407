"""A test that decides: the sequential probability ratio test on paired games (pentanomial model).

Engine testers keep a change only when a sequential test accepts that it
gains strength.  This module does what Stockfish's Fishtest and the fastchess
tester do, for Awale agents:

* **Paired games.**  Each opening (a fixed line of first moves, see
  :mod:`awale.agents.opening`) is played twice, A as South then B as South.
  The two results of a pair, seen from A, add up to a *pair score* 0, ½, 1,
  1½ or 2; the counts of the five pair scores are the *pentanomial* counts.
  A pair is counted only when both of its games are finished.  Pairs are
  independent of each other while the games within a pair are not (they share
  the opening's bias), which is why the pair, not the game, is the unit.
* **Elo model: logistic Elo.**  An Elo difference ``e`` means the expected
  score per game ``s(e) = 1 / (1 + 10**(-e/400))``: fastchess's
  ``model=logistic`` (``leloToScore``) and Van den Bergh's
  ``LLR_logistic``.  The hypotheses are H0: ``elo = elo0`` against
  H1: ``elo = elo1``, that is an expected score per game of ``s(elo0)``
  against ``s(elo1)``; no draw model is assumed.  (Other testers state
  their bounds otherwise: cutechess in BayesElo, which depends on the draw
  rate; Fishtest now, and fastchess's ``model=normalized``, in normalized
  Elo, which depends on the variance.  Logistic bounds mean the same score
  whatever the draw rate, which suits a game where draws are rare.)
* **The log-likelihood ratio** is the *generalized* one (GSPRT): the pair
  scores are a multinomial over the five values ``a = 0, ¼, ½, ¾, 1`` (the
  pair score per game); under each hypothesis the distribution of largest
  likelihood whose mean is ``s(elo)`` is found, and LLR is the log of the
  ratio of the two likelihoods.  That distribution is ``p̂_i / (1 + θ(a_i -
  s))``, with θ the root of ``Σ p̂_i (a_i - s) / (1 + θ(a_i - s)) = 0``
  (Van den Bergh, computeLLR, Proposition 1.1), so ``LLR = N Σ p̂_i log(p1_i / p0_i)``
  over ``N`` pairs.  Empty bins are regularized as fastchess does: a count
  of 0 counts as 0.001, so that a perfect record has a finite LLR.  The
  trinomial (win, draw, loss per game) version is the same with the three
  values 0, ½, 1 (:func:`llr` takes either).
* **Stopping:** H1 is accepted when LLR ≥ ``ln((1 - β) / α)``, H0 when
  LLR ≤ ``ln(β / (1 - α))`` (Wald 1945), checked every ``check_every``
  pairs (pairs 1 to ``check_every``, then to ``2 check_every``, ...), never
  in between; at ``max_pairs`` without a decision the test is inconclusive.
  Because the checkpoints are fixed and each game is a pure function of its
  key, the verdict does not depend on the number of workers, the order in
  which games finish, or interruptions: an interrupted test resumes from the
  store and reaches the same verdict after the same pairs.
* **The estimate** reported beside LLR is the mean score per game of the pairs
  with a normal 95 % interval from the variance of the pair scores (the
  pentanomial variance, as fastchess reports it), turned into logistic Elo.

References:
    Wald, A. (1945). Sequential tests of statistical hypotheses. Annals of
    Mathematical Statistics 16(2), 117-186.
    Li, X., Liu, J. & Ying, Z. (2014). Generalized sequential probability
    ratio test for separate families of hypotheses. Sequential Analysis
    33(4), 539-563 (the GSPRT), http://stat.columbia.edu/~jcliu/paper/GSPRT_SQA3.pdf .
    Van den Bergh, M. How to compute the LLR (computeLLR.pdf, Proposition
    1.1: the maximum likelihood distribution with a given mean),
    http://hardy.uhasselt.be/Toga/computeLLR.pdf ; Comments on Normalized
    Elo, https://www.cantate.be/Fishtest/normalized_elo_practical.pdf ; and
    his reference code, ``LLRcalc.LLR_logistic`` in
    https://github.com/vdbergh/pentanomial (the trinomial and pentanomial
    GSPRT with logistic Elo bounds, as Fishtest uses it).
    fastchess, ``app/src/matchmaking/sprt/sprt.cpp`` (the "logistic" model:
    ``leloToScore``, ``getLLR_logistic``; a count of 0 regularized to
    1e-3), https://github.com/Disservin/fastchess .
    Fishtest, the Stockfish testing framework, https://tests.stockfishchess.org .
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import math
import os
import pathlib
import time
from typing import Any, Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from ..core.game import Game
from ..core.rules import Rules, as_rules
from .runner import GameKey, canonical_spec, cluster, derive_seed, local_workers, run
from .store import Store
from .stats import ELO_PER_NATURAL_UNIT

__all__ = [
    "SPRT",
    "Estimate",
    "Verdict",
    "SPRTInterrupted",
    "logistic_score",
    "logistic_elo",
    "pentanomial",
    "trinomial",
    "llr",
    "estimate",
    "OPENINGS_FILE",
    "load_openings",
    "standard_openings",
    "openings_digest",
    "pair_keys",
    "keys_of_pairs",
    "shuffled",
    "experiment_name",
    "TestPlan",
    "sequential",
    "stored_verdict",
    "REGULARIZATION",
    "DEFAULT_CHECK_EVERY",
    "DEFAULT_MAX_PAIRS",
]

#: What an empty bin counts as in the LLR (fastchess's regularization).
REGULARIZATION = 1e-3

#: Pairs between two looks at the LLR.
DEFAULT_CHECK_EVERY = 8

#: Pairs after which a test that has not decided stops, inconclusive.
DEFAULT_MAX_PAIRS = 50_000

_BATCH_SECONDS = 2.0  # a batch of pairs shorter than this is doubled
_MAX_SPAN = 512  # pairs in a batch, at most (besides completing a checkpoint)
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


# --------------------------------------------------------------------------- openings and keys


def load_openings(path: Union[str, os.PathLike], rules: Optional[Rules] = None) -> Tuple[str, ...]:
    """The openings of a file: one per line, its actions as digits (``2514``), ``#`` starts a comment.

    Anything after the digits on a line (whitespace first) is ignored, so a
    line may carry a note such as the opening's value.  Each opening is
    played through the rules from the initial position: every action must be
    legal and the game must not be over at its end.

    Raises:
        ValueError: a malformed or illegal opening, a repeated one, or no openings.
        OSError: the file cannot be read.
    """
    rules = as_rules(rules)
    found: List[str] = []
    seen: Dict[str, int] = {}
    text = pathlib.Path(path).read_text(encoding="utf-8")
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        moves = line.split()[0]
        where = f"{path}, line {number}"
        if not moves.isdigit() or any(c not in "012345" for c in moves):
            raise ValueError(f"{where}: an opening is a string of digits 0 to 5 (one per ply), got {moves!r}")
        game = Game(rules)
        for ply, c in enumerate(moves):
            if game.game_finished or int(c) not in game.legal_actions:
                raise ValueError(f"{where}: action {c} at ply {ply} of {moves} is not legal")
            game, _, _ = game.step(int(c))
        if game.game_finished:
            raise ValueError(f"{where}: the game is over after {moves}")
        if moves in seen:
            raise ValueError(f"{where}: opening {moves} is already on line {seen[moves]}")
        seen[moves] = number
        found.append(moves)
    if not found:
        raise ValueError(f"{path}: no openings in the file")
    return tuple(found)


#: The balanced openings shipped with the library (made by ``data/strength/openings.py``): 708 lines of 4
#: plies whose positions evaluated αβ judges between about 40 % and 60 % for South.
OPENINGS_FILE = pathlib.Path(__file__).resolve().parent.parent / "knowledge" / "openings.txt"


@functools.lru_cache(maxsize=1)
def standard_openings() -> Tuple[str, ...]:
    """The openings of :data:`OPENINGS_FILE` (Abapa rules), read once per process."""
    return load_openings(OPENINGS_FILE)


def openings_digest(openings: Sequence[str]) -> str:
    """A short fingerprint of a list of openings (the first 8 hex digits of the SHA-256 of its lines)."""
    return hashlib.sha256("\n".join(openings).encode()).hexdigest()[:8]


def shuffled(openings: Sequence[str], seed: int = 0) -> Tuple[str, ...]:
    """The openings in the order a test of base seed ``seed`` plays them: a permutation drawn from the seed.

    Neighbouring lines of an openings file share their first plies; shuffling them makes the first pairs
    of a test as varied as the whole set.
    """
    order = np.random.default_rng(np.random.SeedSequence([int(seed), 0x0BE7])).permutation(len(openings))
    return tuple(openings[i] for i in order)


def opening_spec(spec: str, moves: str) -> str:
    """Agent ``spec`` playing its side's plies of the opening ``moves`` first: a side of a test's games."""
    return canonical_spec(f"opening(agent={spec!r}, moves={moves!r})")


def pair_keys(
    a: str, b: str, openings: Sequence[str], index: int, seed: int = 0, rules: Optional[Rules] = None
) -> Tuple[GameKey, GameKey]:
    """The two games of pair ``index``: A as South, then B as South, both from the same opening.

    The opening is ``openings[index % len(openings)]`` (the list is cycled;
    :func:`sequential` passes it :func:`shuffled`);
    the games' seeds are ``derive_seed(seed, 2 index)`` and ``derive_seed(seed,
    2 index + 1)``, so the two games differ even when A and B are the same
    agent.  Each side plays ``opening(agent=..., moves=...)``.

    Raises:
        ValueError: a bad spec, index, seed or rules, or no openings.
    """
    if not openings:
        raise ValueError("pairs need at least one opening")
    moves = openings[index % len(openings)]
    first, second = opening_spec(a, moves), opening_spec(b, moves)
    return (
        GameKey(first, second, derive_seed(seed, 2 * index), rules),
        GameKey(second, first, derive_seed(seed, 2 * index + 1), rules),
    )


def keys_of_pairs(
    a: str, b: str, openings: Sequence[str], seed: int = 0, rules: Optional[Rules] = None
) -> Callable[[int], Tuple[GameKey, GameKey]]:
    """The keys of a test's pairs by index: :func:`pair_keys` over the openings in the test's order
    (:func:`shuffled` by ``seed``), as :func:`sequential` plays them."""
    a, b = canonical_spec(a), canonical_spec(b)
    order = shuffled(tuple(openings), seed)
    rules = as_rules(rules)

    def keys(index: int) -> Tuple[GameKey, GameKey]:
        return pair_keys(a, b, order, index, seed, rules)

    return keys


def experiment_name(a: str, b: str, test: SPRT, openings: Sequence[str], seed: int = 0) -> str:
    """The store's name for the games of an SPRT: the agents, the bounds, the error rates, the seed, the openings."""
    return (
        f"sprt {canonical_spec(a)} vs {canonical_spec(b)} [{test.elo0:g}, {test.elo1:g}] "
        f"alpha={test.alpha:g} beta={test.beta:g} seed={seed} openings={openings_digest(openings)}"
    )


# --------------------------------------------------------------------------- the sequential run


class SPRTInterrupted(KeyboardInterrupt):
    """An SPRT stopped by Ctrl-C; :attr:`verdict` is its state on the pairs finished.  Run it again to resume."""

    def __init__(self, verdict: Verdict, stored: int) -> None:
        super().__init__(f"interrupted after {verdict.pairs} pairs")
        self.verdict = verdict
        self.stored = stored


@dataclasses.dataclass(frozen=True)
class TestPlan:
    """What a sequential test is: the agents, the :class:`SPRT`, the openings, the seed, the rules, its cap and
    how often it looks at the LLR, and its name in the store.  :func:`sequential` plays it, :func:`stored_verdict`
    reads its stored games.

    Attributes:
        a, b: the agents (specs); the test is about A's Elo relative to B.
        test: the :class:`SPRT` (bounds and error rates).
        openings: the openings (see :func:`load_openings`), played in the order :func:`shuffled` draws from
            ``seed``, cycled; kept as a tuple.
        seed: the base seed of the games.
        rules: the rules (None: Abapa).
        max_pairs: stop there, inconclusive, without a decision (at most 500,000: a run holds at most
            1,000,000 games).
        check_every: pairs between two looks at the LLR.
        name: the experiment's name in the store (None: :func:`experiment_name`; :attr:`store_name` is the
            name used).

    Raises:
        ValueError: a test that is not an :class:`SPRT`, or a bad ``max_pairs`` or ``check_every``.
    """

    __test__ = False  # a plan, not a test class for pytest to collect

    a: str
    b: str
    test: SPRT
    openings: Tuple[str, ...]
    seed: int = 0
    rules: Optional[Rules] = None
    max_pairs: int = DEFAULT_MAX_PAIRS
    check_every: int = DEFAULT_CHECK_EVERY
    name: Optional[str] = None

    def __post_init__(self) -> None:
        if not isinstance(self.test, SPRT):
            raise ValueError(f"test must be an awale.experiments.sprt.SPRT, got {self.test!r}")
        for what, value in (("max_pairs", self.max_pairs), ("check_every", self.check_every)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{what} must be an integer at least 1, got {value!r}")
        if 2 * self.max_pairs > 1_000_000:
            raise ValueError(f"max_pairs must be at most 500000 (a run holds at most 1,000,000 games), "
                             f"got {self.max_pairs}")
        object.__setattr__(self, "openings", tuple(self.openings))

    @property
    def store_name(self) -> str:
        """The name of the test's games in the store: :attr:`name`, else :func:`experiment_name`."""
        return self.name or experiment_name(self.a, self.b, self.test, self.openings, self.seed)

    def keys(self) -> Callable[[int], Tuple[GameKey, GameKey]]:
        """The keys of the test's pairs by index (:func:`keys_of_pairs`)."""
        return keys_of_pairs(self.a, self.b, self.openings, self.seed, self.rules)

    def checkpoints(self) -> List[int]:
        """The numbers of pairs at which the LLR is looked at: every ``check_every``, and ``max_pairs``."""
        return list(range(self.check_every, self.max_pairs, self.check_every)) + [self.max_pairs]


def sequential(
    plan: TestPlan,
    store: Union[Store, str, os.PathLike],
    *,
    workers: Optional[int] = None,
    scheduler: Optional[str] = None,
    client: Any = None,
    batch_size: Optional[int] = None,
    live: Optional[Callable[[Verdict], None]] = None,
) -> Verdict:
    """Play pairs of games between A and B until the SPRT decides, storing every game; resume from the store.

    The games of the test are stored under the plan's :attr:`~TestPlan.store_name`.
    The pairs already stored are counted first: the LLR is
    looked at every ``check_every`` pairs, in order, exactly as a run
    without interruption would have looked at it, so a stored decision is
    found again without playing.  Then the pairs are played in batches of
    whole checkpoints (at least one pair per worker thread, longer for fast
    games) through
    :func:`awale.experiments.runner.run`, on one cluster kept for the whole
    test, and after each batch the checkpoints it completed are looked at
    in order.  A pair counts only when both its games are in the store.

    Args:
        plan: the test (:class:`TestPlan`): agents, SPRT, openings, seed, rules, cap, checkpoints, name.
        store: a :class:`Store` or its path.
        workers, scheduler, client: where to play, as for :func:`run`.
        batch_size: games per task (default 2: a task plays one pair, both
            its games, so that an interruption leaves few pairs half played;
            the runner would otherwise start with one game of every pair).
        live: called after each batch of games with the :class:`Verdict` at the last checkpoint looked at.

    Returns:
        The final :class:`Verdict` (H0, H1 or inconclusive), or an
        undecided one if some games failed (listed in ``failed``).

    Raises:
        ValueError: bad agents or openings.
        StoreError, RunnerError: as :func:`run`.
        SPRTInterrupted: Ctrl-C; the games finished are in the store.
    """
    name, keys = plan.store_name, plan.keys()
    batch_size = 2 if batch_size is None else batch_size
    if scheduler is None and client is None:
        workers = local_workers(keys(0), workers)
    owned = not isinstance(store, Store)
    db = Store(store) if owned else store
    state = _Tally(keys)
    try:
        verdict = state.advance(db, name, plan.test, plan.checkpoints(), live, final_at=plan.max_pairs)
        if verdict is None:
            with _cluster_for(workers, scheduler, client) as (dask, threads):
                verdict = _play(plan, _Batches(db, dask, threads, batch_size, live), state)
        return dataclasses.replace(verdict, beyond=state.beyond(db, name))
    except KeyboardInterrupt:  # RunInterrupted too: the games finished are stored
        state.count(db, name, plan.max_pairs)
        raise SPRTInterrupted(state.current(plan.test), db.count(name)) from None
    finally:
        if owned:
            db.close()


def stored_verdict(plan: TestPlan, store: Union[Store, str, os.PathLike]) -> Verdict:
    """The verdict of a test as its stored games give it, without playing a game (for reports and chapters).

    The stored pairs are counted at the checkpoints exactly as :func:`sequential` counts them, so a
    decided test gives the verdict :func:`sequential` reached; an undecided one gives the verdict after
    the pairs stored so far (``finished`` is then false).
    """
    name = plan.store_name
    owned = not isinstance(store, Store)
    db = Store(store) if owned else store
    try:
        state = _Tally(plan.keys())
        verdict = state.advance(db, name, plan.test, plan.checkpoints(), None, final_at=plan.max_pairs)
        if verdict is None:
            verdict = state.current(plan.test)
        return dataclasses.replace(verdict, beyond=state.beyond(db, name))
    finally:
        if owned:
            db.close()


class _Batches(NamedTuple):
    """Where and how :func:`_play` plays its batches: the store, the cluster (None: this process) and its
    threads, the games per task, and the callback told of each batch's verdict."""

    db: Store
    dask: Any
    threads: int
    batch_size: Optional[int]
    live: Optional[Callable[[Verdict], None]]


def _play(plan: TestPlan, where: _Batches, state: "_Tally") -> Verdict:
    """Play batches of whole checkpoints until one decides (or games fail).

    A batch holds at least one pair per worker thread; fast games get longer batches (doubled while a batch
    takes under :data:`_BATCH_SECONDS`), so that the overhead of a run stays small.  The length of a batch
    changes how many games are played past the decision, never the decision.
    """
    name, checkpoints, max_pairs = plan.store_name, plan.checkpoints(), plan.max_pairs
    smallest = max(plan.check_every, where.threads)
    span = smallest
    while True:
        target = min(state.counted + span, max_pairs)
        end = next(point for point in checkpoints if point >= target)
        batch = [key for index in range(state.counted, end) for key in state.keys(index)]
        started = time.monotonic()
        summary = run(batch, where.db, name, workers=0 if where.dask is None else None, client=where.dask,
                      progress=False, batch_size=where.batch_size)
        verdict = state.advance(where.db, name, plan.test, checkpoints, where.live, final_at=max_pairs)
        if verdict is not None:
            return verdict
        if summary.failed:
            return dataclasses.replace(state.current(plan.test), failed=tuple(summary.failed))
        if summary.elsewhere and not summary.played:
            time.sleep(1.0)  # another run on this store is playing these games: wait for them
        elapsed = time.monotonic() - started
        if elapsed < _BATCH_SECONDS and span < _MAX_SPAN:
            span *= 2
        elif elapsed > 4 * _BATCH_SECONDS:
            span = max(smallest, span // 2)


class _Tally:
    """The pairs counted so far, in order: how many, their pentanomial and game counts."""

    def __init__(self, keys: Callable[[int], Tuple[GameKey, GameKey]]) -> None:
        self.keys = keys
        self.counted = 0
        self.counts = [0] * 5
        self.games = [0, 0, 0]  # A's wins, draws, losses
        self._checked = 0  # checkpoints looked at

    def _pair(self, winners: Dict[Any, Optional[int]], index: int) -> Optional[Tuple[float, float]]:
        first, second = self.keys(index)
        try:
            w1, w2 = winners[first.stored], winners[second.stored]
        except KeyError:
            return None
        # A is South in the first game, North in the second.
        r1 = 0.5 if w1 is None else float(w1 == 0)
        r2 = 0.5 if w2 is None else float(w2 == 1)
        return r1, r2

    def _add(self, result: Tuple[float, float]) -> None:
        self.counts[int(round(2 * sum(result)))] += 1
        for r in result:
            self.games[0 if r == 1 else 1 if r == 0.5 else 2] += 1
        self.counted += 1

    def count(self, db: Store, name: str, upto: int) -> None:
        """Count the pairs after the counted ones that are complete, in order, up to ``upto`` (stops at a gap)."""
        winners = db.winners(name)
        while self.counted < upto:
            result = self._pair(winners, self.counted)
            if result is None:
                return
            self._add(result)

    def current(self, test: SPRT, final: bool = False) -> Verdict:
        games = (self.games[0], self.games[1], self.games[2])
        return dataclasses.replace(test.verdict(self.counts, final), games=games)

    def advance(
        self, db: Store, name: str, test: SPRT, checkpoints: Sequence[int],
        live: Optional[Callable[[Verdict], None]], final_at: int,
    ) -> Optional[Verdict]:
        """Look at every checkpoint now complete, in order; the verdict at the first that decides, else None.

        ``live`` is called once, with the verdict at the last checkpoint looked at (the deciding one if any).
        """
        winners = db.winners(name)
        last = None
        while self._checked < len(checkpoints):
            point = checkpoints[self._checked]
            while self.counted < point:
                result = self._pair(winners, self.counted)
                if result is None:
                    break
                self._add(result)
            if self.counted < point:
                break
            self._checked += 1
            last = self.current(test, final=point >= final_at)
            if last.finished:
                break
        if live is not None and last is not None:
            live(last)
        return last if last is not None and last.finished else None

    def beyond(self, db: Store, name: str) -> int:
        """Games of the test stored after the pairs counted."""
        return db.count(name) - 2 * self.counted


@contextlib.contextmanager
def _cluster_for(workers: Optional[int], scheduler: Optional[str], client: Any) -> Iterator[Tuple[Any, int]]:
    """The cluster of a test, kept for all its batches: ``(client or None, worker threads)``."""
    if client is not None:
        yield client, max(1, sum(client.nthreads().values()))
        return
    with cluster(workers, scheduler) as (dask, _):
        yield dask, 1 if dask is None else max(1, sum(dask.nthreads().values()))
