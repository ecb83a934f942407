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

The arithmetic (counts, LLR, estimate, :class:`SPRT` and its :class:`Verdict`) is in
:mod:`awale.experiments.pentanomial`, the openings and the keys of a pair in
:mod:`awale.experiments.openings`; this module plays a test (:class:`TestPlan`,
:func:`sequential`, :func:`stored_verdict`), and the public names of all three are
importable from here.

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
import os
import time
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

from ..core.rules import Rules
from .keys import GameKey, canonical_spec
from .openings import (
    OPENINGS_FILE,
    keys_of_pairs,
    load_openings,
    opening_spec,
    openings_digest,
    pair_keys,
    pair_result,
    shuffled,
    standard_openings,
)
from .pentanomial import (
    REGULARIZATION,
    SPRT,
    Estimate,
    Verdict,
    estimate,
    llr,
    logistic_elo,
    logistic_score,
    pentanomial,
    trinomial,
)
from .runner import cluster, local_workers, run
from .store import Store

__all__ = [
    "SPRT",
    "Estimate",
    "Verdict",
    "SPRTInterrupted",
    "CapChanged",
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
    "opening_spec",
    "shuffled",
    "experiment_name",
    "TestPlan",
    "sequential",
    "stored_verdict",
    "REGULARIZATION",
    "DEFAULT_CHECK_EVERY",
    "DEFAULT_MAX_PAIRS",
]

#: Pairs between two looks at the LLR.
DEFAULT_CHECK_EVERY = 8

#: Pairs after which a test that has not decided stops, inconclusive.
DEFAULT_MAX_PAIRS = 50_000

_BATCH_SECONDS = 2.0  # a batch of pairs shorter than this is doubled
_MAX_SPAN = 512  # pairs in a batch, at most (besides completing a checkpoint)


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
        CapChanged: the test was started with another ``max_pairs`` or ``check_every`` (recorded in the store).
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
        _hold_to_cap(plan, db)
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


class CapChanged(ValueError):
    """A test resumed with another cap (or another ``check_every``) than the one recorded when it started."""


def _hold_to_cap(plan: TestPlan, db: Store) -> None:
    """Record the plan's cap with the test when it starts; refuse a resume with another cap.

    A sequential test's error rates hold for the cap and checkpoints fixed before its first game.  Raising the
    cap of a test that is near a bound, or lowering it to stop where the estimate looks good, would make its
    verdict depend on the games already seen; a test with another cap is another test, with another name
    (another seed). Tests stored before caps were recorded get the cap of their first resume.
    """
    recorded = db.record_cap(plan.store_name, plan.max_pairs, plan.check_every)
    if recorded != (plan.max_pairs, plan.check_every):
        raise CapChanged(
            f"this test was started with max_pairs {recorded[0]} and check_every {recorded[1]} (recorded in "
            f"{db.path}), not {plan.max_pairs} and {plan.check_every}: its verdict is read at the cap fixed when "
            "it started. Resume it with that cap, or start a new test (another seed gives it another name)"
        )


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
        return pair_result(winners, self.keys(index))

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
