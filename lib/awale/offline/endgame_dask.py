"""The endgame database built on a Dask cluster: each layer's positions in shares over the workers.

The build is :func:`awale.knowledge.endgame_build.build_file`'s, layer by layer, by counts, into the same
``.part`` file (and ``.part.json`` record, so either build resumes the other's), with each layer's ranks cut into
one range a worker, a *share*:

1. Every worker maps the file being written, from a file system all of them see (checked before the first
   layer): the layers below, to read the values of captures, and its share's range, to write its values.
2. A share counts its moves (best capture and quiet moves, as the one-machine build), then, margin by margin,
   rounds of tasks settle the layer: in each round a share takes the messages sent to it in the round before,
   settles what they decide and spreads what it settled to its own parents at once, and writes the parents
   that lie in other shares into one file for each (a rank to count down, or a rank that wins); nothing else
   crosses a share.  A margin ends when a round sends nothing.
3. A round *commits* by writing the list of what it settled (a record) before writing those values into the
   file; the record stays until the driver has seen the round end.  A worker that dies costs its round: its
   share is counted again from the file by another worker (the positions settled there taken as settled and
   told; the others counted on what is settled, and settled at once when that decides them), while the other
   shares wait, and the build goes on.  The values do not depend on the order in which a margin settles its
   positions, so they are the one-machine build's, byte for byte (the layer digests say so).
4. A stopped cluster resumes from the last finished layer, as the one-machine build.

Romein and Bal (2003) solved Awari this way on 144 processors: the database partitioned over the machines,
each position's parents in other partitions sent to their owners, combined into large messages.
"""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import math
import os
import shutil
import socket
import sys
import time
import uuid
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..core._jit import set_threads
from ..core.rules import Rules
from ..knowledge import endgame_build as egb
from ..knowledge.endgame import EndgameDatabase, Progress, layer_digest, layer_size, queue_type

__all__ = ["DaskBuild", "BuildStats", "Partition", "ClusterBuildError", "LEAST_SHARE", "share_memory", "plan_memory", "build_on_cluster",
           "parse_cluster"]


#: The fewest positions of a share: smaller layers are cut into fewer shares (their rounds cost more than their work).
LEAST_SHARE = 1 << 22


class ClusterBuildError(Exception):
    """A distributed build that cannot start or go on; the message says why."""


@dataclasses.dataclass(frozen=True)
class DaskBuild:
    """What every task of a build needs: the file, its layout, the rules and seeds, the threads a worker gives a
    share's count of moves, and the build's token (the key of the shares the workers hold)."""

    part: str
    work: str
    offset: int
    rules: Rules
    seeds: int
    threads: int
    token: str
    durable: bool = True


@dataclasses.dataclass
class BuildStats:
    """What a distributed build measured.

    Attributes:
        positions: positions solved by this call (the layers it built).
        seconds: wall time of those layers.
        exchanged: bytes of messages between shares (the files of parents).
        rounds: rounds of tasks, over the layers built.
        peak_memory: the largest anonymous memory (bytes) of a worker process, sampled at the end of each task.
        recovered: shares counted again after a worker was lost.
        layers: per layer built ``(seeds, positions, seconds, bytes exchanged, rounds)``.
    """

    positions: int = 0
    seconds: float = 0.0
    exchanged: int = 0
    rounds: int = 0
    peak_memory: int = 0
    recovered: int = 0
    layers: List[Tuple[int, int, float, int, int]] = dataclasses.field(default_factory=list)


def share_memory(pits_per_side: int, seeds: int, shares: int) -> int:
    """Bytes a worker holds for its share of the largest layer of a ``seeds``-seed build cut into ``shares``: seven
    bytes a position of the share (its values, best captures, counts and queue) and its mail."""
    return egb.share_bytes(-(-layer_size(pits_per_side, seeds) // shares))


def plan_memory(pits_per_side: int, seeds: int, shares: int, limits: Dict[str, int], cap: Optional[int] = None) -> str:
    """The line saying what a worker will hold; raise if one cannot.

    ``limits`` maps each worker to the memory Dask lets it use (0: no limit).

    Raises:
        ClusterBuildError: a worker would need more than its limit or ``cap``, naming the size.
    """
    need = share_memory(pits_per_side, seeds, shares)
    largest = layer_size(pits_per_side, seeds)
    line = (f"memory a worker: about {need / 2**20:,.0f} MiB for its share of the largest layer "
            f"({-(-largest // shares):,} of {largest:,} positions with {seeds} seeds, {shares} shares), beside the "
            f"mapped file")
    if cap is not None and need > cap:
        raise ClusterBuildError(f"a {seeds}-seed build in {shares} shares needs about {need / 2**20:,.0f} MiB a "
                                f"worker, above the cap of {cap / 2**20:,.0f} MiB: use more workers or raise --memory")
    for worker, limit in sorted(limits.items()):
        if limit and need > 0.8 * limit:  # Dask pauses a worker at 80 % of its limit
            raise ClusterBuildError(
                f"a {seeds}-seed build in {shares} shares needs about {need / 2**20:,.0f} MiB a worker; worker "
                f"{worker} may use {limit / 2**20:,.0f} MiB (Dask pauses it at 80 %): use more workers or "
                f"workers with more memory")
    return line


def parse_cluster(text: str) -> Tuple[Optional[int], Optional[str]]:
    """``local:N`` as ``(N, None)``, a scheduler address as ``(None, address)``.

    Raises:
        ValueError: neither.
    """
    if text.startswith("local:"):
        count = text[len("local:"):]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--cluster local:N takes a positive number of workers, got {text!r}")
        return int(count), None
    if "://" not in text and ":" not in text:
        raise ValueError(f"--cluster takes local:N or a scheduler address such as tcp://host:8786, got {text!r}")
    return None, text if "://" in text else f"tcp://{text}"


# --------------------------------------------------------------------------- on the workers

_HELD: Dict[Tuple[str, int], "_Held"] = {}
_TABLES: Dict[str, EndgameDatabase] = {}


class _Lost(Exception):
    """A round's share is not held by the worker that runs it (the worker was restarted)."""


@dataclasses.dataclass
class _Held:
    layer: int
    share: egb.Share
    region: np.memmap
    mail: egb.Mail
    committed: int = 0  # queue entries whose values are in the file


def _anonymous_memory() -> int:
    """This process's anonymous resident memory in bytes (0 where /proc is missing)."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover
        pass
    return 0


def _tables(build: DaskBuild) -> EndgameDatabase:
    if build.token not in _TABLES:
        _TABLES.clear()
        _TABLES[build.token] = EndgameDatabase(build.rules, build.seeds)
    return _TABLES[build.token]


def _maps(build: DaskBuild, seeds: int, low: int, high: int) -> Tuple[np.ndarray, np.memmap]:
    database = _tables(build)
    start = int(database._offsets[seeds])
    lower = (np.memmap(build.part, dtype=np.int8, mode="r", offset=build.offset, shape=(start,)) if start
             else np.zeros(0, dtype=np.int8))
    region = (np.memmap(build.part, dtype=np.int8, mode="r+", offset=build.offset + start + low, shape=(high - low,))
              if high > low else np.zeros(0, dtype=np.int8))
    return lower, region


def _flush(region: np.ndarray) -> None:
    """Write a share's mapped range back to the file (an empty share has nothing mapped)."""
    if isinstance(region, np.memmap):
        region.flush()


def _message_type(positions: int) -> type:
    return np.int32 if positions < 2**31 - 1 else np.int64


def _outbox(build: DaskBuild, seeds: int, rnd: int, source: int, target: int) -> str:
    return os.path.join(build.work, f"L{seeds}-r{rnd}-{source}-{target}")


def _record(build: DaskBuild, seeds: int, rnd: int, share: int) -> str:
    return os.path.join(build.work, f"L{seeds}-r{rnd}-{share}.record.npy")


def _task_open(build: DaskBuild, seeds: int, k: int, low: int, high: int) -> int:
    """Start share ``k`` of layer ``seeds``: its range of the file zeroed, its moves counted."""
    set_threads(build.threads)
    _HELD.pop((build.token, k), None)
    lower, region = _maps(build, seeds, low, high)
    region[:] = 0
    _flush(region)
    share = egb.new_share(_tables(build), seeds, low, high, lower)
    egb.share_count(seeds, seeds + 1, 0, high - low, share)
    _HELD[(build.token, k)] = _Held(seeds, share, region, egb.Mail(np.empty(egb.SHARE_MAIL, dtype=np.int64),
                                                                   np.zeros(2, dtype=np.int64)))
    return _anonymous_memory()


def _task_recover(build: DaskBuild, seeds: int, k: int, low: int, high: int, margin: int) -> int:
    """Count share ``k`` again from the file, during margin ``margin`` (a worker was lost); return what it settles."""
    set_threads(build.threads)
    _HELD.pop((build.token, k), None)
    lower, region = _maps(build, seeds, low, high)
    database = _tables(build)
    start, stop = int(database._offsets[seeds]), int(database._offsets[seeds + 1])
    current = np.memmap(build.part, dtype=np.int8, mode="r", offset=build.offset + start, shape=(stop - start,))
    share = egb.new_share(database, seeds, low, high, lower, current)
    egb.share_count(seeds, margin, 0, high - low, share)
    share = share._replace(current=np.zeros(0, dtype=np.int8))
    del current
    _HELD[(build.token, k)] = _Held(seeds, share, region, egb.Mail(np.empty(egb.SHARE_MAIL, dtype=np.int64),
                                                                   np.zeros(2, dtype=np.int64)))
    return int(share.tail[0])


def _send(build: DaskBuild, seeds: int, rnd: int, k: int, mail: egb.Mail, bounds: np.ndarray,
          sent: Dict[int, int]) -> None:
    """Append the mail's parents to the files of their shares (as local offsets, a win as ``-1 - offset``)."""
    count = int(mail.cursor[1])
    if not count:
        return
    ranks = mail.ranks[:count]
    wins = ranks < 0
    plain = np.where(wins, -1 - ranks, ranks)
    targets = np.searchsorted(bounds, plain, side="right") - 1
    local = plain - bounds[targets]
    local = np.where(wins, -1 - local, local).astype(_message_type(int(np.max(np.diff(bounds)))))
    order = np.argsort(targets, kind="stable")
    targets, local = targets[order], local[order]
    cuts = np.searchsorted(targets, np.arange(len(bounds)))
    for target in range(len(bounds) - 1):
        piece = local[cuts[target]:cuts[target + 1]]
        if piece.shape[0]:
            with open(_outbox(build, seeds, rnd, k, target), "ab") as handle:
                piece.tofile(handle)
            sent[target] = sent.get(target, 0) + piece.nbytes
    mail.cursor[1] = 0


def _task_round(build: DaskBuild, seeds: int, k: int, margin: int, rnd: int, first: bool,
                inbox: Sequence[str], bounds: np.ndarray) -> Dict[str, Any]:
    """One round of share ``k``: seed the margin (``first``), take the messages of ``inbox``, spread, commit."""
    held = _HELD.get((build.token, k))
    if held is None or held.layer != seeds:
        raise _Lost(f"share {k} of layer {seeds} is not held here")
    share, mail = held.share, held.mail
    if first:
        egb.share_seed(margin, share)
    kind = _message_type(int(np.max(np.diff(bounds))))
    piece = 1 << 22
    for name in inbox:
        with open(name, "rb") as handle:
            while True:
                messages = np.fromfile(handle, dtype=kind, count=piece)
                if not messages.shape[0]:
                    break
                egb.share_deliver(margin, share, messages)
    sent: Dict[int, int] = {}
    while not egb.share_spread(seeds, margin, share, mail):
        _send(build, seeds, rnd, k, mail, bounds, sent)
    _send(build, seeds, rnd, k, mail, bounds, sent)
    settled = np.array(share.queue[held.committed:int(share.tail[0])])
    if settled.shape[0]:  # a round that settled nothing has nothing to commit (and sent nothing)
        values = share.layer[settled]
        record = _record(build, seeds, rnd, k)
        with open(record + ".tmp", "wb") as handle:  # the commit: what the round settled, on disk before the file
            np.save(handle, np.stack([settled.astype(np.int64), values.astype(np.int64)]))
            if build.durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(record + ".tmp", record)
        held.region[settled] = values
        if build.durable:
            _flush(held.region)
        held.committed = int(share.tail[0])
    return {"settled": int(settled.shape[0]), "sent": sent, "memory": _anonymous_memory()}


def _task_replay(build: DaskBuild, seeds: int, k: int, rnd: int, low: int, high: int) -> bool:
    """Write into the file the values of round ``rnd`` of share ``k`` if that round committed; return whether."""
    record = _record(build, seeds, rnd, k)
    if not os.path.exists(record):
        return False
    settled, values = np.load(record)
    _, region = _maps(build, seeds, low, high)
    region[settled] = values.astype(np.int8)
    _flush(region)
    return True


def _task_finish(build: DaskBuild, seeds: int, k: int) -> Tuple[str, int]:
    """The SHA-256 of share ``k``'s values as the worker holds them (then forgets them), and its memory."""
    held = _HELD.pop((build.token, k), None)
    if held is None or held.layer != seeds:
        raise _Lost(f"share {k} of layer {seeds} is not held here")
    _flush(held.region)
    memory = _anonymous_memory()
    return hashlib.sha256(held.share.layer.tobytes()).hexdigest(), memory


def _task_forget(token: str) -> None:
    for key in [key for key in _HELD if key[0] == token]:
        del _HELD[key]


def _visible(part: str, mark: str, expected: str) -> str:
    """What a worker sees of the build's file: '' if all is well, else what is wrong."""
    try:
        with open(mark) as handle:
            if handle.read() != expected:
                return f"{mark} holds another build's mark"
        with open(part, "rb+"):
            pass
    except OSError as error:
        return f"{getattr(error, 'filename', None) or part}: {error.strerror or error}"
    return ""


# --------------------------------------------------------------------------- the driver


class _Pool:
    """The cluster's live workers, the owner of each share, and the waiting for a batch of tasks."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.owners: Dict[int, str] = {}
        self.running: List[Any] = []

    def workers(self) -> List[str]:
        return sorted(self.client.scheduler_info()["workers"])

    def assign(self, shares: int) -> None:
        live = self.workers()
        if not live:
            raise ClusterBuildError("the Dask cluster has no worker left")
        for k in range(shares):
            self.owners[k] = live[k % len(live)]

    def reassign(self, k: int, wait: float = 30.0) -> str:
        """A new owner for share ``k``: a worker that holds no share (a restarted one) if one joins within
        ``wait`` seconds, else the live worker holding the fewest."""
        deadline = time.monotonic() + wait
        while True:
            live = self.workers()
            held = {w: sum(1 for o in self.owners.values() if o == w) for w in live}
            free = [w for w in live if held[w] == 0]
            if free or (live and time.monotonic() > deadline):
                break
            time.sleep(0.2)
        if not live:
            raise ClusterBuildError("the Dask cluster has no worker left")
        self.owners[k] = free[0] if free else min(live, key=lambda w: held[w])
        return self.owners[k]

    def submit(self, k: int, function: Callable, *args: Any) -> Any:
        self.running = [future for future in self.running if future.status == "pending"]
        self.running.append(self.client.submit(function, *args, workers=[self.owners[k]], allow_other_workers=False, pure=False,
                                  key=f"endgame-{function.__name__[6:]}-{k}-{uuid.uuid4().hex[:12]}"))
        return self.running[-1]

    def cancel(self) -> None:
        """Cancel the tasks still running (a build interrupted)."""
        if self.running:
            self.client.cancel(self.running)
        self.running = []

    def wait(self, futures: Dict[int, Any]) -> Tuple[Dict[int, Any], List[int]]:
        """The results of the shares whose task ended, and the shares whose worker was lost."""
        from distributed import wait as dask_wait

        results: Dict[int, Any] = {}
        failed: List[int] = []
        pending = dict(futures)
        while pending:
            try:
                dask_wait(list(pending.values()), timeout=0.5, return_when="FIRST_COMPLETED")
            except TimeoutError:
                pass
            live = set(self.workers())
            for k, future in list(pending.items()):
                if future.status == "finished":
                    results[k] = future.result()
                    del pending[k]
                elif future.status == "error":
                    error = future.exception()
                    if not _is_loss(error):
                        raise error
                    failed.append(k)
                    del pending[k]
                elif future.status == "cancelled" or self.owners[k] not in live:
                    future.cancel()
                    failed.append(k)
                    del pending[k]
        return results, sorted(failed)


def _is_loss(error: BaseException) -> bool:
    """Whether a task's error says its worker was lost (not a bug to report)."""
    from distributed.comm import CommClosedError
    from distributed.scheduler import KilledWorker

    return isinstance(error, (_Lost, KilledWorker, CommClosedError, ConnectionError)) or \
        type(error).__name__ in ("_Lost", "KilledWorker", "CommClosedError", "FutureCancelledError")


def _clear(work: str, pattern: str = "*") -> None:
    for name in glob.glob(os.path.join(work, pattern)):
        os.unlink(name)


@dataclasses.dataclass(frozen=True)
class Partition:
    """How :func:`build_on_cluster` cuts a layer: ``shares`` (None: one a worker), the fewest positions of a
    share (``least``) and whether each round is synced to disk (``durable``; None: when a worker runs on another
    machine)."""

    shares: Optional[int] = None
    least: int = LEAST_SHARE
    durable: Optional[bool] = None


def build_on_cluster(
    path: str,
    client: Any,
    rules: Optional[Rules] = None,
    seeds: int = 15,
    progress: Optional[Progress] = None,
    memory: Optional[int] = None,
    threads: int = 1,
    log: Optional[Callable[[str], None]] = None,
    stats: Optional[BuildStats] = None,
    partition: Optional["Partition"] = None,
) -> EndgameDatabase:
    """Build the database of ``seeds`` seeds into ``path`` on the Dask cluster of ``client``, layer by layer.

    The values are those of :func:`~awale.knowledge.endgame_build.build_file`, byte for byte, in the same file
    (see the module docstring); a build stopped with its cluster resumes from its last finished layer, with
    this function or the one-machine one.

    Args:
        path: the database file; ``path + ".part"`` and the messages' folder ``path + ".part.d"`` must be on a file
            system every worker sees.
        client: a ``distributed.Client``.
        rules, seeds: as :func:`~awale.knowledge.endgame_build.build_file`.
        progress: called as ``progress(layer, done, message)`` as each round starts (``done``: positions of the
            build done, a layer's count of moves as half of it).
        memory: refuse a build whose share would need more bytes than this on a worker.
        threads: threads a worker gives the count of its share's moves (its rounds use one).
        log: called with a line for what is said once: the memory a worker, a resumed build, a lost worker.
        shares: ranges a layer is cut into (default: one a worker).
        partition: a :class:`Partition`: shares, least and durable below.
        durable: sync each round's record and values to disk before the round ends, so that a *machine* lost
            (its unsynced writes with it) costs its round too; a lost worker process loses nothing unsynced.
            None (the default): True unless every worker runs on this machine (whose loss stops the whole
            build, which then resumes from its last finished layer, synced).
        least: the fewest positions of a share: a smaller layer is cut into fewer shares (one below twice
            ``least``), as its rounds would cost more than its positions.
        stats: filled with what the build measured (:class:`BuildStats`).

    Raises:
        ClusterBuildError: no worker, a worker that does not see the file, or a share too large for a worker.
        ValueError: bad rules or seeds.
    """
    partition = Partition() if partition is None else partition
    shares, least, durable = partition.shares, partition.least, partition.durable
    rules, seeds = egb.check_build(rules, seeds)
    stats = BuildStats() if stats is None else stats
    say = log or (lambda line: None)
    pool = _Pool(client)
    live = pool.workers()
    if not live:
        raise ClusterBuildError("the Dask cluster has no worker")
    most = len(live) if shares is None else shares
    if most < 1:
        raise ValueError(f"shares must be at least 1, got {shares!r}")
    info = client.scheduler_info()["workers"]
    say(plan_memory(rules.pits_per_side, seeds, max(1, min(most, layer_size(rules.pits_per_side, seeds) // max(1, least))), {w: int(info[w].get("memory_limit") or 0) for w in live},
                    memory))
    build = egb.open_part(path, rules, seeds, say)
    work = f"{path}.part.d"
    os.makedirs(work, exist_ok=True)
    _clear(work)
    token = uuid.uuid4().hex
    mark = os.path.join(work, "visible")
    with open(mark, "w") as handle:
        handle.write(token)
    seen = client.run(_visible, os.path.abspath(build.part), os.path.abspath(mark), token, on_error="return")
    for worker, problem in sorted(seen.items()):
        if isinstance(problem, BaseException) or problem:
            raise ClusterBuildError(
                f"worker {worker} does not see the build's file {os.path.abspath(build.part)} "
                f"({problem}): put the database on a file system every worker shares, at the same path")
    os.unlink(mark)
    if durable is None:
        here = client.run(socket.gethostname)
        durable = any(name != socket.gethostname() for name in here.values())
    spec = DaskBuild(os.path.abspath(build.part), os.path.abspath(work), build.offset, rules, seeds, threads, token,
                     durable)
    say(f"each round {'synced to disk (workers on other machines)' if durable else 'left to the page cache (every worker on this machine)'}")
    database = build.database
    n = rules.pits_per_side
    first = len(build.layers)
    total = sum(layer_size(n, s) for s in range(first, seeds + 1))
    done = 0
    began = time.perf_counter()

    def show(layer: int, within: float, text: str) -> None:
        if progress is None:
            return
        elapsed = time.perf_counter() - began
        now = done + within
        rate = now / elapsed if elapsed > 0 else 0.0
        left = elapsed / now * (total - now) if now else float("nan")
        eta = "?" if math.isnan(left) else f"{left / 60:.1f} min" if left >= 60 else f"{left:.0f} s"
        progress(layer, int(now), f"{100 * now / max(1, total):3.0f}%, {rate / 1e6:.2f} M pos/s, ETA {eta} ({text})")

    try:
        for layer in range(first, seeds + 1):
            size = layer_size(n, layer)
            started = time.perf_counter()
            count = max(1, min(most, size // max(1, least)))
            bounds = np.array([size * k // count for k in range(count + 1)], dtype=np.int64)
            exchanged, rounds = 0, 0
            pool.assign(count)
            show(layer, 0, f"layer {layer}: counting the moves of {size:,} positions in {count} shares")
            pending = set(range(count))
            while pending:
                results, failed = pool.wait({k: pool.submit(k, _task_open, spec, layer, k, int(bounds[k]),
                                                             int(bounds[k + 1])) for k in sorted(pending)})
                for k, used in results.items():
                    stats.peak_memory = max(stats.peak_memory, used)
                for k in failed:
                    say(f"layer {layer}: the worker of share {k} was lost while counting; counting it again on "
                        f"{pool.reassign(k)}")
                pending = set(failed)
            rnd = 0
            inboxes: Dict[int, List[str]] = {k: [] for k in range(count)}
            for margin in range(layer, 0, -1):
                seeding = True
                recovered: set = set()
                while True:
                    futures = {k: pool.submit(k, _task_round, spec, layer, k, margin, rnd, seeding and k not in recovered,
                                              [] if k in recovered else inboxes[k], bounds) for k in range(count)}
                    settled_share = (layer - margin + 1) / layer if layer else 1.0
                    show(layer, size * (0.5 + 0.5 * settled_share),
                         f"layer {layer}, margin {margin}, round {rnd}: {exchanged / 2**20:,.1f} MiB exchanged")
                    results, failed = pool.wait(futures)
                    rounds += 1
                    recovered = set()
                    committed = set(results)
                    for k in failed:
                        replayed = pool.client.submit(_task_replay, spec, layer, k, rnd, int(bounds[k]),
                                                      int(bounds[k + 1]), pure=False).result()
                        if replayed:
                            committed.add(k)
                    for k in failed:
                        owner = pool.reassign(k)
                        say(f"layer {layer}, margin {margin}, round {rnd}: the worker of share {k} was lost; "
                            f"share {k} counted again on {owner}")
                        while True:
                            found, lost = pool.wait({k: pool.submit(k, _task_recover, spec, layer, k, int(bounds[k]),
                                                                    int(bounds[k + 1]), margin)})
                            if not lost:
                                break
                            pool.reassign(k)
                        recovered.add(k)
                        stats.recovered += 1
                    for k, result in results.items():
                        stats.peak_memory = max(stats.peak_memory, result["memory"])
                    sent = {k: results[k]["sent"] if k in results else {} for k in range(count)}
                    for k in committed - set(results):  # a round that committed before its worker was lost
                        sent[k] = {t: os.path.getsize(_outbox(spec, layer, rnd, k, t)) for t in range(count)
                                   if os.path.exists(_outbox(spec, layer, rnd, k, t))}
                    inboxes = {t: [_outbox(spec, layer, rnd, k, t) for k in sorted(committed) if t in sent[k]]
                               for t in range(count)}
                    moved = sum(sum(s.values()) for s in sent.values())
                    exchanged += moved
                    _clear(work, f"L{layer}-r{rnd}-*.record.npy")
                    if rnd:
                        _clear(work, f"L{layer}-r{rnd - 1}-*")
                    rnd += 1
                    seeding = False
                    if not moved and not recovered:
                        break
            _clear(work)
            layer_sums = {}
            pending = set(range(count))
            for k, (digest, used) in pool.wait({k: pool.submit(k, _task_finish, spec, layer, k)
                                                for k in range(count)})[0].items():
                layer_sums[k] = digest
                stats.peak_memory = max(stats.peak_memory, used)
            start = int(database._offsets[layer])
            values = np.memmap(build.part, dtype=np.int8, mode="r", offset=build.offset + start, shape=(size,))
            for k, digest in layer_sums.items():
                if layer_digest(values[bounds[k]:bounds[k + 1]]) != digest:
                    raise ClusterBuildError(f"layer {layer}, share {k}: the values in {build.part} are not those "
                                            f"its worker settled (a write was lost); run the build again")
            build.layers.append(layer_digest(values))
            del values
            egb.record_layers(build)
            seconds = time.perf_counter() - started
            stats.layers.append((layer, size, seconds, exchanged, rounds))
            stats.positions += size
            stats.seconds += seconds
            stats.exchanged += exchanged
            stats.rounds += rounds
            done += size
    finally:
        try:
            pool.cancel()
            client.run(_task_forget, token, on_error="ignore")
        except Exception:  # pragma: no cover - the cluster may be gone
            pass
    shutil.rmtree(work, ignore_errors=True)
    show(seeds, 0, "writing the header")
    return egb.finish_part(build)
