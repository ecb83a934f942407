"""Play the games of an experiment, on one core or a Dask cluster, into a store.

An experiment is a list of game keys :class:`GameKey` ``(south, north, seed,
rules)``.  A game is a pure function of its key (:func:`awale.play.match.play` is
reproducible from its agents, rules and seed), so the same keys give the same
games bit for bit, whatever the order, the batching or the machine that
plays them.  :func:`run` plays exactly the keys not yet in the store.

Execution:

* ``workers=0``: in this process, no Dask (tiny runs, tests, debugging).
* ``workers=K`` (default: one per core; at most the cores this process may
  use): a Dask ``LocalCluster`` of K worker processes with one thread each,
  started for the run and closed after it.  Its nannies restart a worker
  process that dies.  Its dashboard is off unless ``dashboard`` gives an
  address.
* ``scheduler="tcp://host:port"``: an existing Dask cluster, for instance
  ``dask scheduler`` and ``dask worker`` processes on other machines (they
  need the same version of awale installed).  A scheduler that does not
  answer like a Dask scheduler within
  :data:`~awale.experiments.clusters.CONNECT_SECONDS` is an error; one
  without workers is waited for, with a message, for
  :data:`~awale.experiments.clusters.WORKERS_SECONDS`.
* ``client=``: a ``distributed.Client`` you already have (left open).

The local cluster's worker processes are started with ``spawn``, so a
script that calls :func:`run` with workers must do it under ``if __name__ ==
"__main__":`` (notebooks and ``python -m awale`` need nothing).

Keys go to the workers in batches, each a task of
:func:`play_batch`.  Unless ``batch_size`` fixes it, a batch's size adapts:
the first batch of each pair of agents holds one game; afterwards the median
time per game measured for that pair sizes batches to last about
``batch_seconds`` (at most four times the largest batch that pair has
completed, and small enough near the end to keep every worker busy).  About
two batches per worker thread are in flight at a time.  Results come back to
this process, which alone writes the store: one transaction per finished
batch, as each arrives (``as_completed``), so an interruption or a crash
loses at most the batches in flight.

Failures: a task whose worker dies is rescheduled by the Dask scheduler on
another worker (up to ``distributed.scheduler.allowed-failures`` times, 3 by
default); a task that raises is retried ``retries`` times.  A game that
itself raises (an agent choosing an illegal move, say) is reported in
:attr:`RunSummary.failed` and not stored, and the other games of its batch
are kept.  ``KeyboardInterrupt`` (Ctrl-C) stops the run cleanly: the results
already back are written, the tasks in flight cancelled, the cluster closed,
and :class:`RunInterrupted` (a ``KeyboardInterrupt``) is raised with the
summary so far.  Running the same keys again resumes.  (The local
cluster's worker processes ignore SIGINT, which the terminal sends to the
whole process group: only this process stops them.  A Ctrl-C during the
cluster's start-up, a second or two, is held until the cluster is up, then
stops the run.)

Concurrent runs: before a batch is handed out, its games are claimed in the
store (:meth:`Store.claim`); games already stored or claimed by another live
run are skipped and counted in :attr:`RunSummary.elsewhere`.  Two runs of
the same experiment on one store thus share its games, and each plays only
games that are neither stored nor in progress.

Sizes: a run holds at most :data:`MAX_GAMES` keys, refused before any work.

The keys are made in :mod:`awale.experiments.keys` and the clusters in
:mod:`awale.experiments.clusters`; their public names are importable from here too.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import math
import os
import statistics
import time
import uuid
from typing import Any, Deque, Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

from ..agents import parse
from ..core.rules import Rules, rules_from_text
from ..play.match import MatchRecord, play
from .clusters import RunnerError, cluster, default_workers
from .keys import MAX_GAMES, GameKey, canonical_spec, check_games, derive_seed, pair_keys, round_robin_keys
from .store import CLAIM_SECONDS, Store, StoreError, claimant

__all__ = [
    "GameKey",
    "canonical_spec",
    "derive_seed",
    "check_games",
    "pair_keys",
    "round_robin_keys",
    "play_batch",
    "run",
    "RunOptions",
    "cluster",
    "RunSummary",
    "RunInterrupted",
    "RunnerError",
    "default_workers",
    "local_workers",
    "MAX_GAMES",
]

_MAX_BATCH = 1000
_GROWTH = 4


@functools.lru_cache(maxsize=256)
def _rules(text: str) -> Rules:
    return rules_from_text(text)


# --------------------------------------------------------------------------- the task


def play_batch(
    items: Sequence[Tuple[str, str, int, str]]
) -> Tuple[List[MatchRecord], List[Tuple[Tuple[str, str, int, str], str]], List[float]]:
    """Play a batch of games; the task each worker runs.

    Args:
        items: ``(south, north, seed, rules_text)`` for each game, as in
            :attr:`GameKey.stored`.

    Returns:
        ``(records, failures, seconds)``: the records of the games played,
        ``(item, "Error: message")`` for each game that raised, and the wall
        time of each game in order.
    """
    records: List[MatchRecord] = []
    failures: List[Tuple[Tuple[str, str, int, str], str]] = []
    seconds: List[float] = []
    for item in items:
        south, north, seed, rules_text = item
        start = time.perf_counter()
        try:
            records.append(play(south, north, rules=_rules(rules_text), seed=seed))
        except Exception as error:  # one bad game must not cost the batch its other games
            failures.append((tuple(item), f"{type(error).__name__}: {error}"))
        seconds.append(time.perf_counter() - start)
    return records, failures, seconds


# --------------------------------------------------------------------------- results


@dataclasses.dataclass
class RunSummary:
    """What a run did.

    Attributes:
        experiment: the experiment's name.
        total: distinct keys asked for.
        already: of those, games already in the store when the run started.
        played: games played and written by this run.
        elsewhere: games skipped because another run was playing them (or
            had stored them since this run started).
        failed: games that raised, with the error message (not stored).
        interrupted: the run was stopped by ``KeyboardInterrupt``.
        seconds: wall time of the run, cluster start-up included.
        workers: where the games were played, in words.
    """

    experiment: str
    total: int
    already: int = 0
    played: int = 0
    elsewhere: int = 0
    failed: List[Tuple[GameKey, str]] = dataclasses.field(default_factory=list)
    interrupted: bool = False
    seconds: float = 0.0
    workers: str = ""

    @property
    def done(self) -> int:
        """Games of the experiment now in the store."""
        return self.already + self.played

    @property
    def remaining(self) -> int:
        """Games still to play."""
        return self.total - self.done

    @property
    def games_per_second(self) -> float:
        """Games played by this run per second of wall time (0 when none)."""
        return self.played / self.seconds if self.seconds > 0 and self.played else 0.0


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C; :attr:`summary` says what was kept.  Run the same keys again to resume."""

    def __init__(self, summary: RunSummary) -> None:
        super().__init__(f"interrupted: {summary.done} of {summary.total} games in the store")
        self.summary = summary


# --------------------------------------------------------------------------- batching


class _Planner:
    """Cuts the keys to play into batches, one pair of agents (and rules) per batch."""

    def __init__(self, keys: Sequence[GameKey], batch_size: Optional[int], batch_seconds: float) -> None:
        groups: Dict[Tuple[str, str, Rules], Deque[GameKey]] = collections.OrderedDict()
        for key in keys:
            groups.setdefault((*key.pair, key.rules), collections.deque()).append(key)
        self._groups = groups
        self._order: Deque[Tuple[str, str, Rules]] = collections.deque(groups)
        self._batch_size = batch_size
        self._batch_seconds = batch_seconds
        self._times: Dict[Tuple[str, str, Rules], Deque[float]] = {}
        self._largest: Dict[Tuple[str, str, Rules], int] = {}
        self.remaining = len(keys)

    def _size(self, group: Tuple[str, str, Rules], threads: Optional[int]) -> int:
        if self._batch_size is not None:
            return self._batch_size
        times = self._times.get(group)
        if not times:
            return 1
        per_game = max(statistics.median(times), 1e-6)
        size = int(self._batch_seconds / per_game)
        size = min(size, _GROWTH * self._largest[group], _MAX_BATCH)
        if threads is not None:  # near the end, smaller batches keep every worker busy
            size = min(size, math.ceil(self.remaining / (2 * threads)))
        return max(1, size)

    def next_batch(self, threads: Optional[int]) -> Optional[List[GameKey]]:
        """The next batch (pairs taken in turn), or None when every key is handed out.

        ``threads`` is the number of worker threads to keep busy, or None
        when the games are played one batch at a time in this process.
        """
        while self._order:
            group = self._order.popleft()
            pending = self._groups[group]
            if not pending:
                continue
            size = self._size(group, threads)
            batch = [pending.popleft() for _ in range(min(size, len(pending)))]
            if pending:
                self._order.append(group)
            self.remaining -= len(batch)
            return batch
        return None

    def observe(self, batch: Sequence[GameKey], seconds: Sequence[float]) -> None:
        """Record the time each game of a finished batch took."""
        if not batch:
            return
        group = (*batch[0].pair, batch[0].rules)
        times = self._times.setdefault(group, collections.deque(maxlen=256))
        times.extend(seconds)
        self._largest[group] = max(self._largest.get(group, 0), len(batch))


# --------------------------------------------------------------------------- executors

_Outcome = Tuple[List[MatchRecord], List[Tuple[Tuple[str, str, int, str], str]], List[float]]


def _items(batch: Sequence[GameKey]) -> List[Tuple[str, str, int, str]]:
    return [dataclasses.astuple(key.stored) for key in batch]


class _InProcess:
    """Plays the batches here, one after the other."""

    description = "in this process"

    def __init__(self) -> None:
        self._queue: Deque[List[GameKey]] = collections.deque()

    def threads(self) -> Optional[int]:
        return None

    def slots(self) -> int:
        return 1

    @property
    def pending(self) -> int:
        return len(self._queue)

    def submit(self, batch: List[GameKey]) -> None:
        self._queue.append(batch)

    def completed(self) -> Iterator[Tuple[List[GameKey], _Outcome]]:
        while self._queue:
            batch = self._queue.popleft()
            yield batch, play_batch(_items(batch))

    def harvest(self) -> List[Tuple[List[GameKey], _Outcome]]:
        return []

    def cancel(self) -> None:
        self._queue.clear()


class _Dask:
    """Submits batches to a Dask cluster and yields them as they finish."""

    def __init__(self, client: Any, retries: int, description: str) -> None:
        from distributed import as_completed

        self._client = client
        self._retries = retries
        self._futures: Dict[Any, Tuple[Any, List[GameKey]]] = {}
        self._completed = as_completed([], with_results=False)
        self._threads = 0
        self._checked = 0.0
        self.description = description

    def threads(self) -> int:
        now = time.monotonic()
        if now - self._checked > 2.0:
            self._threads = sum(self._client.nthreads().values())
            self._checked = now
        return max(1, self._threads)

    def slots(self) -> int:
        return 2 * self.threads()

    @property
    def pending(self) -> int:
        return len(self._futures)

    def submit(self, batch: List[GameKey]) -> None:
        future = self._client.submit(
            play_batch, _items(batch), key=f"awale-games-{uuid.uuid4().hex}", retries=self._retries, pure=False
        )
        self._futures[future.key] = (future, batch)
        self._completed.add(future)

    def _outcome(self, future: Any, batch: List[GameKey]) -> _Outcome:
        try:
            return future.result()
        except Exception as error:  # a lost task (KilledWorker) or one that kept raising: its games failed
            message = f"{type(error).__name__}: {error}"
            return [], [(item, message) for item in _items(batch)], []

    def completed(self) -> Iterator[Tuple[List[GameKey], _Outcome]]:
        for future in self._completed:
            entry = self._futures.pop(future.key, None)
            if entry is not None:
                yield entry[1], self._outcome(*entry)

    def harvest(self) -> List[Tuple[List[GameKey], _Outcome]]:
        """The batches already finished but not yet yielded (after an interruption)."""
        finished = []
        for key, (future, batch) in list(self._futures.items()):
            if future.status == "finished":
                try:
                    finished.append((batch, future.result(timeout=5)))
                except Exception:  # noqa: BLE001 - anything not retrievable now is simply played next time
                    continue
                del self._futures[key]
        return finished

    def cancel(self) -> None:
        futures = [future for future, _ in self._futures.values()]
        self._futures.clear()
        if futures:
            with contextlib.suppress(Exception):
                self._client.cancel(futures)


@contextlib.contextmanager
def _executor(
    workers: Optional[int], scheduler: Optional[str], client: Any, retries: int, dashboard: Optional[str] = None
) -> Iterator[Union[_InProcess, _Dask]]:
    if client is not None:
        yield _Dask(client, retries, f"on the Dask cluster at {client.scheduler.address}")
        return
    if scheduler is None and workers == 0:
        yield _InProcess()
        return
    with cluster(workers, scheduler, dashboard) as (client, description):
        yield _Dask(client, retries, description)


# --------------------------------------------------------------------------- the run


def local_workers(keys: Iterable[GameKey], workers: Optional[int] = None) -> int:
    """The local worker processes to play ``keys`` with, so that the games' threads fit the cores.

    An agent searching on T threads (``uct(threads=T)``) needs T cores for
    its game: K processes then need K x T cores.  By default (``workers``
    None) that is ``cores // T`` processes, at least one; 0 plays in this
    process.

    Raises:
        ValueError: ``workers`` x T is more than the cores this process may
            use, naming both.
    """
    threads = max((_threads_of(spec) for key in keys for spec in (key.south, key.north)), default=1)
    cores = default_workers()
    if workers is None:
        return max(1, cores // threads)
    if max(workers, 1) * threads > cores:
        asked = "playing in this process" if workers == 0 else f"{workers} worker processes"
        raise ValueError(
            f"these games' agents search on {threads} threads each: {asked} would run {max(workers, 1) * threads} "
            f"threads on {cores} cores; use at most {max(1, cores // threads)} worker "
            f"process{'es' if cores // threads > 1 else ''} (or fewer threads)"
        )
    return workers


@functools.lru_cache(maxsize=1024)
def _threads_of(spec: str) -> int:
    """The threads the agent of ``spec`` searches on (0 in a spec means every core)."""
    threads = getattr(parse(spec), "threads", 1)
    return default_workers() if threads == 0 else threads


def _check_options(workers: Optional[int], scheduler: Optional[str], client: Any, batch_size: Optional[int],
                   batch_seconds: float, retries: int) -> None:
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 0):
        raise ValueError(f"workers must be an integer at least 0, got {workers!r}")
    if workers is not None and workers > default_workers():
        raise ValueError(
            f"workers must be at most {default_workers()}, the cores this process may use, got {workers}; "
            "for more, start a Dask cluster and give its scheduler"
        )
    if sum(option is not None for option in (workers, scheduler, client)) > 1:
        raise ValueError("give at most one of workers, scheduler and client")
    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise ValueError(f"scheduler must be an address such as 'tcp://host:8786', got {scheduler!r}")
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1):
        raise ValueError(f"batch_size must be an integer at least 1, got {batch_size!r}")
    if isinstance(batch_seconds, bool) or not isinstance(batch_seconds, (int, float)) or not 0 < batch_seconds < math.inf:
        raise ValueError(f"batch_seconds must be a positive number, got {batch_seconds!r}")
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries must be an integer at least 0, got {retries!r}")


class RunOptions(NamedTuple):
    """How :func:`run` sizes and retries its tasks, and where its local cluster shows its dashboard.

    Attributes:
        batch_seconds: the target duration of a task when sizing batches.
        retries: how many times Dask retries a task that raised.
        dashboard: the address of the local cluster's Dask dashboard, such as ``":8787"`` (None: none).
    """

    batch_seconds: float = 1.0
    retries: int = 2
    dashboard: Optional[str] = None


def run(
    keys: Iterable[GameKey],
    store: Union[Store, str, os.PathLike],
    experiment: str,
    *,
    workers: Optional[int] = None,
    scheduler: Optional[str] = None,
    client: Any = None,
    batch_size: Optional[int] = None,
    progress: Optional[bool] = None,
    options: Optional[RunOptions] = None,
) -> RunSummary:
    """Play the games of ``keys`` that are not yet in the store, and store them under ``experiment``.

    Args:
        keys: the experiment's game keys (duplicates are played once).
        store: a :class:`Store` or the path of one (created if missing).
        experiment: the name the games are stored under.
        workers: 0 to play in this process without Dask; K for a local
            cluster of K processes; by default one process per core.
        scheduler: the address of an existing Dask scheduler instead.
        client: an existing ``distributed.Client`` instead (not closed).
        batch_size: games per task; by default sized from measured times
            so that a task lasts about ``options.batch_seconds``.
        progress: show a tqdm progress bar on stderr (by default only when
            stderr is a terminal).
        options: the tasks' target duration, their retries and the local
            cluster's dashboard (:class:`RunOptions`; default ``RunOptions()``).

    Returns:
        The :class:`RunSummary`.

    Raises:
        ValueError: bad keys or options, or more than :data:`MAX_GAMES` keys.
        StoreError: the store cannot be opened or written (checked before
            any game is played).
        RunnerError: the cluster cannot be reached or its workers lack awale.
        RunInterrupted: Ctrl-C; the summary of what was kept is attached.
    """
    options = RunOptions() if options is None else options
    batch_seconds, retries, dashboard = options
    _check_options(workers, scheduler, client, batch_size, batch_seconds, retries)
    unique: Dict[GameKey, None] = {}
    for key in keys:
        if not isinstance(key, GameKey):
            raise ValueError(f"keys must be awale.experiments.GameKey values, got {key!r}")
        unique[key] = None
        if len(unique) > MAX_GAMES:
            raise ValueError(f"a run may hold at most {MAX_GAMES:,} games; split the experiment")
    keys = list(unique)
    if scheduler is None and client is None:
        workers = local_workers(keys, workers)
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if not isinstance(store, Store):
            store = stack.enter_context(Store(store))
        done = store.keys(experiment)
        todo = [key for key in keys if key.stored not in done]
        summary = RunSummary(experiment, total=len(keys), already=len(keys) - len(todo))
        if not todo:
            summary.workers = "nothing to play"
            return summary
        owner = claimant()
        store.release(owner)  # a write: a read-only store fails here, before any game is played
        stack.callback(_release, store, owner)
        executor = stack.enter_context(_executor(workers, scheduler, client, retries, dashboard))
        summary.workers = executor.description
        bar = _progress_bar(summary, progress)  # after the cluster's start-up, which would distort the rates
        stack.callback(bar.close)
        writing: List[Tuple[List[GameKey], _Outcome]] = []
        mine: List[GameKey] = []
        try:
            _drive(executor, _Planner(todo, batch_size, batch_seconds), store, summary, bar, writing, owner, mine)
        except KeyboardInterrupt:
            summary.interrupted = True
            with contextlib.suppress(KeyboardInterrupt):
                # The batch being written when the interruption came was rolled back: write it again.
                for batch, outcome in writing + executor.harvest():
                    _keep(store, summary, batch, outcome, bar, count_failures=False)
            executor.cancel()
            stored = store.keys(experiment)  # exact, even if the interruption came between a commit and its count
            summary.played = sum(key.stored in stored for key in mine)
        finally:
            summary.seconds = time.perf_counter() - started
    if summary.interrupted:
        raise RunInterrupted(summary)
    return summary


def _progress_bar(summary: RunSummary, progress: Optional[bool]) -> Any:
    from tqdm.auto import tqdm

    return tqdm(
        total=summary.total,
        initial=summary.already,
        desc=summary.experiment,
        unit="game",
        smoothing=0.1,
        dynamic_ncols=True,
        disable=None if progress is None else not progress,
    )


def _keep(
    store: Store, summary: RunSummary, batch: List[GameKey], outcome: _Outcome, bar: Any, count_failures: bool = True
) -> None:
    """Write a finished batch and count it."""
    records, failures, _ = outcome
    written = store.add(summary.experiment, records)
    summary.played += written
    bar.update(written)
    if not count_failures:
        return
    for item, message in failures:
        south, north, seed, rules_text = item
        summary.failed.append((GameKey(south, north, seed, _rules(rules_text)), message))
    if failures:
        bar.set_postfix_str(f"{len(summary.failed)} failed", refresh=False)


def _release(store: Store, owner: str) -> None:
    """Drop a run's claims as it ends (a store that cannot be written has none)."""
    with contextlib.suppress(StoreError):
        store.release(owner)


def _drive(
    executor: Union[_InProcess, _Dask],
    planner: _Planner,
    store: Store,
    summary: RunSummary,
    bar: Any,
    writing: List[Tuple[List[GameKey], _Outcome]],
    owner: str,
    mine: List[GameKey],
) -> None:
    """Keep the executor fed and write each batch as it finishes (``writing`` holds the one being written).

    Each batch is claimed in the store as ``owner`` before it is handed out,
    and only its games nobody else stored or claimed are played (``mine``
    collects them).  The claims are renewed as batches come back.
    """
    renewed = time.monotonic()

    def refill() -> None:
        while executor.pending < executor.slots():
            batch = planner.next_batch(executor.threads())
            if batch is None:
                return
            claimed = set(store.claim(summary.experiment, [key.stored for key in batch], owner))
            playing = [key for key in batch if key.stored in claimed]
            summary.elsewhere += len(batch) - len(playing)
            if playing:
                mine.extend(playing)
                executor.submit(playing)

    refill()
    for batch, outcome in executor.completed():
        writing.append((batch, outcome))
        _keep(store, summary, batch, outcome, bar)
        writing.clear()
        planner.observe(batch, outcome[2])
        if time.monotonic() - renewed > CLAIM_SECONDS / 4:
            store.renew(owner)
            renewed = time.monotonic()
        refill()
