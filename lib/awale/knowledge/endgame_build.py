"""Building an endgame database by retrograde analysis (:mod:`awale.knowledge.endgame` reads them).

One layer per number of seeds on the board, from 0 up, since a capture only
ever leads to a layer already solved; inside a layer, each position is settled
once, largest margins first, by counting its moves that capture nothing and are
not yet known to lose (``method='counts'``), or by sweeping the layer until
nothing changes (``method='sweeps'``, the chapter's first method).
:func:`build` solves a database in memory; :func:`build_file` writes a deep one
straight to its file, layer by layer on every core, and resumes a build that
was stopped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
from typing import Callable, List, NamedTuple, Optional, Tuple

import numpy as np

from ..core._jit import jit, prange, set_threads
from ..core._atomic import atomic_add, atomic_cas
from ..core.engine import ONGOING, R_FEED, legal_actions
from ..core.rules import Rules
from .endgame import (FORMAT_VERSION, MAGIC, NO_CAPTURE, UMASK, EndgameDatabase, Progress, check_rules, check_seeds,
                      layer_digest, layer_moves, layer_size, load, memory_needed, play_turned, position_at, queue_type,
                      rank_of, stuck_value, unrank, work_memory)

__all__ = ["Deepest", "build", "build_file", "METHODS", "check_build"]


@jit(inline=False)
def _exits(seeds, params, binom, offsets, values, moves, caps, counts, exits):
    """For each position of a layer, its best capturing move (or its value if it has no move)."""
    n = params[0]
    size = 2 * n
    board = np.empty(size, dtype=np.int64)
    for p in range(counts.shape[0]):
        best = NO_CAPTURE
        if counts[p] == 0:
            unrank(p, seeds, size, binom, board)
            best = stuck_value(board, n, params[5])
        for j in range(counts[p]):
            taken = caps[p, j]
            if taken > 0:
                value = taken - values[offsets[seeds - taken] + moves[p, j]]
                if value > best:
                    best = value
        exits[p] = best


@jit(inline=False, allocates=False)
def _sweep(layer, moves, caps, counts, exits, write):
    """One pass of ``value = max(best exit, max over quiet moves of -child)`` over a layer.

    Returns how many positions the pass changed (or, with ``write`` false,
    would change: the positions that break the minimax recurrence).
    """
    changed = 0
    for p in range(counts.shape[0]):
        best = exits[p]
        for j in range(counts[p]):
            if caps[p, j] == 0:
                value = -layer[moves[p, j]]
                if value > best:
                    best = value
        if best != layer[p]:
            changed += 1
            if write:
                layer[p] = best
    return changed


@jit
def _parents(board, seeds, params, binom, parent, candidate, child, state, out, found):
    """Write into ``found`` the rank of each position of the layer with a quiet move to ``board``; return how many.

    A position with two quiet moves to ``board`` is written twice.  The moves are taken back (the "unmoves" of retrograde analysis): the
    pit the move started from is one of the previous mover's, empty now;
    removing one seed from each of the ``k`` pits after it (skipping it) and
    putting the ``k`` seeds back gives a candidate, whose move sows back to
    ``board``.  It is a parent unless the move was illegal or captured:
    when the candidate's opponent had no seeds (the feed rule) or the last
    seed fell on a pit of the opponent's now holding 2 or 3, the rules' own
    kernels play the move forward to decide.
    """
    n = params[0]
    size = 2 * n
    count = 0
    for origin in range(n, size):
        if board[origin] != 0:
            continue
        for i in range(size):
            candidate[i] = board[i]
        pit = origin
        for k in range(1, seeds + 1):
            pit = (pit + 1) % size
            if pit == origin:
                pit = (pit + 1) % size
            candidate[pit] -= 1
            if candidate[pit] < 0:
                break
            candidate[origin] = k
            for i in range(size):  # the candidate seen by its own mover
                parent[i] = candidate[(i + n) % size]
            candidate[origin] = 0
            starved = True
            for i in range(n, size):
                if parent[i] > 0:
                    starved = False
            if (starved and params[R_FEED]) or (pit < n and (board[pit] == 2 or board[pit] == 3)):
                if not _quiet_move(parent, origin - n, board, params, child, state, out):
                    continue
            found[count] = rank_of(parent, size, binom)
            count += 1
    return count


@jit
def _quiet_move(parent, action, board, params, child, state, out):
    """Whether ``action`` is legal in ``parent``, captures nothing and leads to ``board`` (by the rules' kernels)."""
    n = params[0]
    size = 2 * n
    for i in range(size):
        state[i] = parent[i]
    state[size + 2] = 0
    state[size + 4] = ONGOING
    count = legal_actions(state, params, out)
    legal = False
    for j in range(count):
        if out[j] == action:
            legal = True
    if not legal or play_turned(parent, action, n, params[3], child) != 0:
        return False
    for i in range(size):
        if child[i] != board[i]:
            return False
    return True


_SETTLED = -64  # the count byte of a settled position (decrements keep it negative)


class _Counts(NamedTuple):
    """What the kernels of the count build read and write: the rules and index tables, the values of the
    layers below (``lower``) and of the layer (``layer``), each position's best capture (``exits``, or its
    value if it has no move), its count byte (``counts``), the queue of settled positions and its length
    (``tail``, one entry, updated atomically)."""

    params: np.ndarray
    binom: np.ndarray
    offsets: np.ndarray
    lower: np.ndarray
    layer: np.ndarray
    exits: np.ndarray
    counts: np.ndarray
    queue: np.ndarray
    tail: np.ndarray


@jit(inline=False)
def _count_moves_chunk(seeds, low, high, work):
    """:func:`_count_moves` on the positions ``low..high-1``, on one thread."""
    params, binom, offsets = work.params, work.binom, work.offsets
    n = params[0]
    size = 2 * n
    board = np.empty(size, dtype=np.int64)
    child = np.empty(size, dtype=np.int64)
    state = np.zeros(size + 5, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    for p in range(low, high):
        count = position_at(p, seeds, params, binom, board, state, out)
        best = NO_CAPTURE
        if count == 0:
            best = stuck_value(board, n, params[5])
        quiet = 0
        for j in range(count):
            taken = play_turned(board, out[j], n, params[3], child)
            if taken > 0:
                value = taken - work.lower[offsets[seeds - taken] + rank_of(child, size, binom)]
                if value > best:
                    best = value
            else:
                quiet += 1
        work.exits[p] = best
        work.counts[p] = quiet


@jit(inline=False, parallel=True)
def _count_moves(seeds, low, high, work):
    """Each position's best capture (``exits``) and its number of quiet moves (``counts``), for the positions
    ``low..high-1``, on all threads."""
    chunk = 4096
    for c in prange((high - low + chunk - 1) // chunk):
        _count_moves_chunk(seeds, low + c * chunk, min(high, low + (c + 1) * chunk), work)


@jit
def _settle(p, value, work):
    """Settle position ``p`` at ``value`` and queue it, unless another thread settled it first; return whether
    this call did."""
    while True:
        found = work.counts[p]
        if found < 0:
            return False
        if atomic_cas(work.counts, p, found, _SETTLED) == found:
            work.layer[p] = value
            work.queue[atomic_add(work.tail, 0, 1)] = p
            return True


@jit(inline=False)
def _count_seed_chunk(margin, low, high, work):
    """:func:`_count_seed` on the positions ``low..high-1``, on one thread."""
    for p in range(low, high):
        count = work.counts[p]
        if count < 0:
            continue
        best = work.exits[p]
        if best == margin or (count == 0 and best == -margin):
            _settle(p, best, work)


@jit(inline=False, parallel=True)
def _count_seed(margin, work):
    """Settle the positions worth ``±margin`` by their own captures alone (or by moves already known), on all
    threads: a best capture worth ``margin``, or one worth ``-margin`` with every quiet move known to lose."""
    total = work.layer.shape[0]
    chunk = 1 << 16
    for c in prange((total + chunk - 1) // chunk):
        _count_seed_chunk(margin, c * chunk, min(total, (c + 1) * chunk), work)


@jit(inline=False)
def _count_level_chunk(seeds, margin, low, high, work):
    """:func:`_count_level` on the entries ``low..high-1`` of the queue, on one thread."""
    params, binom = work.params, work.binom
    n = params[0]
    size = 2 * n
    board = np.empty(size, dtype=np.int64)
    parent = np.empty(size, dtype=np.int64)
    candidate = np.empty(size, dtype=np.int64)
    child = np.empty(size, dtype=np.int64)
    state = np.zeros(size + 5, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    found = np.empty(n * (seeds + 1), dtype=np.int64)
    for i in range(low, high):
        q = work.queue[i]
        lost = work.layer[q] < 0
        unrank(q, seeds, size, binom, board)
        for k in range(_parents(board, seeds, params, binom, parent, candidate, child, state, out, found)):
            p = found[k]
            if lost:  # a quiet move to a lost position: the parent wins by the margin
                _settle(p, margin, work)
            else:
                before = atomic_add(work.counts, p, -1)
                if before == 1 and work.exits[p] <= -margin:  # every quiet move now known to lose
                    _settle(p, -margin, work)


@jit(inline=False, parallel=True)
def _count_level(seeds, margin, start, stop, work):
    """Update the parents of the positions ``queue[start:stop]`` (settled at ``±margin``), on all threads."""
    chunk = 256
    for c in prange((stop - start + chunk - 1) // chunk):
        _count_level_chunk(seeds, margin, start + c * chunk, min(stop, start + (c + 1) * chunk), work)


class Deepest(NamedTuple):
    """The slowest decision of a layer solved by counts.

    At each margin ``t`` the positions settled by their own capture come
    first (wave 0); wave ``w`` holds the positions settled from those of
    wave ``w - 1``: a quiet move to a lost position wins (the winner takes
    the fastest), and a position loses once its last quiet move is known to
    lose (the loser takes the slowest).  A position of wave ``w`` is thus
    decided after ``w`` plies of quiet play, both sides playing for its
    value, by a capture: the winner's, worth the margin, or the loser's, worth
    minus the margin, when every quiet move would lose more.

    Attributes:
        seeds: the layer.
        plies: the deepest wave of the layer, over all its margins.
        margin: the margin of that wave (the largest, if several tie).
        index: a position of that wave (its index in the database).
        value: that position's value (``margin`` or ``-margin``).
        positions: how many positions that wave holds.
    """

    seeds: int
    plies: int
    margin: int
    index: int
    value: int
    positions: int


#: The fewest positions whose moves are counted between two progress reports.
_MOVES_REPORTED = 1 << 20


def _count_layer(database: "EndgameDatabase", seeds: int, lower: np.ndarray, layer: np.ndarray,
                 meter: "_Meter") -> Optional[Deepest]:
    """Solve layer ``seeds`` into ``layer`` from ``lower`` (the layers below) by counts; return its slowest
    decision (None when no position of the layer is won or lost)."""
    size = layer.shape[0]
    params = np.array(database.rules.params)
    work = _Counts(params, database._binom, database._offsets, lower, layer, np.empty(size, dtype=np.int8),
                   np.empty(size, dtype=np.int8), np.empty(size, dtype=queue_type(size)),
                   np.zeros(1, dtype=np.int64))
    layer[:] = 0
    step = max(_MOVES_REPORTED, size // 50)  # the moves of a deep layer take minutes: a report every fiftieth
    for low in range(0, size, step):
        meter.show(seeds, low // 2, f"{size:,} positions with {seeds} seeds: counting moves")
        _count_moves(seeds, low, min(size, low + step), work)
    meter.show(seeds, size // 2, f"{size:,} positions with {seeds} seeds: moves counted")
    deepest = None
    for margin in range(seeds, 0, -1):
        start = int(work.tail[0])
        _count_seed(margin, work)
        head, waves = start, 0
        while head < work.tail[0]:
            stop = int(work.tail[0])
            _count_level(seeds, margin, head, stop, work)
            if deepest is None or waves > deepest.plies:
                first = int(work.queue[head])
                deepest = Deepest(seeds, waves, margin, int(database._offsets[seeds]) + first, int(layer[first]),
                                  stop - head)
            head, waves = stop, waves + 1
        meter.show(seeds, size // 2 + size // 2 * (seeds - margin + 1) // seeds,
                   f"{seeds} seeds, margin {margin}: {int(work.tail[0]):,} of {size:,} settled")
    return deepest


def check_build(
    rules: Optional[Rules], seeds: int, memory: Optional[int] = None, method: Optional[str] = None
) -> Tuple[Rules, int]:
    """The rules and seeds of a database that can be built within ``memory`` bytes (None: any).

    ``method`` None is :func:`build_file`, whose memory beyond the file is
    :func:`work_memory`; ``"counts"`` or ``"sweeps"`` is :func:`build`
    in memory (:func:`memory_needed`).

    Raises:
        ValueError: rules with a ply cap, seeds out of range, or more memory needed than ``memory``.
    """
    rules = check_rules(rules)
    seeds = check_seeds(seeds, rules)
    if method is None:
        need = work_memory(rules.pits_per_side, seeds)
    else:
        need = memory_needed(rules.pits_per_side, seeds, method)
    if memory is not None and need > memory:
        raise ValueError(
            f"a database of {seeds} seeds needs about {need / 2**20:,.0f} MiB, above the cap of {memory / 2**20:,.0f} MiB"
        )
    return rules, seeds


#: The ways :func:`build` can solve a layer (the values are the same).
METHODS = ("counts", "sweeps")




class _Meter:
    """Progress of a build: the share done, positions per second and an estimate of the time left.

    The layer is the first argument of each call of ``progress``.  A layer's
    work is counted half for its moves and half for its margins settled.
    The estimate assumes every position costs what those done so far cost
    (the larger layers cost a little more per position).
    """

    def __init__(self, pits: int, seeds: int, first: int, progress: Optional[Progress]) -> None:
        import time

        self._clock = time.perf_counter
        self.progress = progress
        self.pits = pits
        self.seeds = seeds
        self.total = sum(layer_size(pits, s) for s in range(first, seeds + 1))
        self.done = 0  # positions of the finished layers
        self.start = self._clock()

    def show(self, layer: int, in_layer: int, text: str) -> None:
        """Report ``in_layer`` positions' worth of the layer done."""
        if self.progress is None:
            return
        elapsed = self._clock() - self.start
        done = self.done + in_layer
        rate = done / elapsed if elapsed > 0 else 0.0
        left = elapsed / done * (self.total - done) if done else float("nan")
        eta = "?" if math.isnan(left) else f"{left / 60:.1f} min" if left >= 60 else f"{left:.0f} s"
        width = 20
        filled = int(width * done / self.total) if self.total else width
        bar = "#" * filled + "." * (width - filled)
        self.progress(layer, done, f"[{bar}] {100 * done / max(1, self.total):3.0f}%, "
                      f"{rate / 1e6:.2f} M pos/s, ETA {eta} ({text})")


def _sweep_layer(database: "EndgameDatabase", seeds: int, values: np.ndarray, progress: Optional[Progress]) -> int:
    """Solve layer ``seeds`` in ``values`` by whole sweeps over tables of its moves (the first builder); return the sweeps."""
    n = database.rules.pits_per_side
    params = np.array(database.rules.params)
    size = layer_size(n, seeds)
    moves = np.zeros((size, n), dtype=np.int32)
    caps = np.zeros((size, n), dtype=np.int8)
    counts = np.zeros(size, dtype=np.int8)
    layer_moves(seeds, 0, size, params, database._binom, moves, caps, counts)
    exits = np.empty(size, dtype=np.int16)
    _exits(seeds, params, database._binom, database._offsets, values, moves, caps, counts, exits)
    start = database._offsets[seeds]
    layer = values[start : start + size]
    sweeps = 0
    while True:
        sweeps += 1
        changed = _sweep(layer, moves, caps, counts, exits, True)
        if progress is not None:
            progress(seeds, size, f"sweep {sweeps}: {changed:,} values changed")
        if changed == 0:
            return sweeps


def _report(found: Optional[Deepest], deepest: Optional[Callable[[Deepest], None]]) -> None:
    """Give a layer's slowest decision to the caller who asked for it."""
    if found is not None and deepest is not None:
        deepest(found)


def build(
    rules: Optional[Rules] = None,
    seeds: int = 15,
    progress: Optional[Progress] = None,
    memory: Optional[int] = None,
    method: str = "counts",
    threads: Optional[int] = None,
    deepest: Optional[Callable[[Deepest], None]] = None,
) -> EndgameDatabase:
    """Solve every position with at most ``seeds`` seeds on the board by retrograde analysis, in memory.

    Layer by layer (van der Goot, 2001; Romein & Bal, 2003): a move that
    captures leads to a layer already solved, so the best capture of each
    position is known at once; the values of the layer then start at 0
    (play that never captures again) and the minimax recurrence over the
    quiet moves is applied until no value changes.  Values only ever move
    away from 0, the way the sets of positions from which one side can force
    a given margin grow, so the fixed point reached is the value of the game
    in which endless play is worth 0 (see the module docstring), in any
    order of evaluation.

    ``method="counts"`` (the default) settles each position once, largest
    margins first, by counting for each position its quiet moves not yet
    known to lose and taking moves back from each settled position to its
    parents, as Romein and Bal's retrograde propagation does (see the
    section *retrograde analysis with counts* of the code), on ``threads``
    threads: six bytes a position of the largest layer.  ``method="sweeps"``
    is the first builder, the recurrence itself: tables of every move of
    the layer (about 30 bytes a position) swept until no value changes.
    Both give the same values; :func:`build_file` writes a large database
    to disk layer by layer by counts and resumes a build that was stopped.

    Args:
        rules: the rules (default Abapa); ``max_plies`` must be None.
        seeds: ``S``, the most seeds on the board.
        progress: called as ``progress(layer, done, message)`` now and then.
        memory: refuse to start if the build would hold more bytes than this.
        method: ``"counts"`` or ``"sweeps"``.
        threads: threads of the count build (None: as many as numba has).
        deepest: called with each layer's slowest decision (:class:`Deepest`)
            when the count build has solved it (not for a layer with no
            position won or lost, as the empty board's).

    Raises:
        ValueError: bad rules, seeds or method, or more memory needed than ``memory``.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    rules, seeds = check_build(rules, seeds, memory, method)
    set_threads(threads)
    database = EndgameDatabase(rules, seeds)
    values = np.zeros(len(database), dtype=np.int8)
    meter = _Meter(rules.pits_per_side, seeds, 0, progress)
    for layer_seeds in range(seeds + 1):
        start, stop = int(database._offsets[layer_seeds]), int(database._offsets[layer_seeds + 1])
        if method == "sweeps":
            _sweep_layer(database, layer_seeds, values, progress)
        else:
            _report(_count_layer(database, layer_seeds, values[:start], values[start:stop], meter), deepest)
        meter.done += stop - start
    database._values = values
    database.checksum = hashlib.sha256(values.tobytes()).hexdigest()
    return database


def _copy_layers(source: EndgameDatabase, database: EndgameDatabase, part: str, offset: int,
                 layers: List[str]) -> List[int]:
    """Copy into the build file ``part`` the layers of ``source`` that follow those done (``layers``, extended
    with each copied layer's checksum), up to the seeds of both, stopping at the first whose values do not
    match the checksum of ``source``'s header; return the layers copied."""
    copied = []
    top = min(source.seeds, database.seeds)
    if len(layers) > top:
        return copied
    target = np.memmap(part, dtype=np.int8, mode="r+", offset=offset, shape=(int(database._offsets[top + 1]),))
    for s in range(len(layers), top + 1):
        low, high = int(database._offsets[s]), int(database._offsets[s + 1])
        digest = hashlib.sha256()  # as layer_digest, of the bytes copied: the layer is read once
        for piece in range(low, high, 1 << 26):
            end = min(piece + (1 << 26), high)
            values = np.ascontiguousarray(source.values[piece:end])
            target[piece:end] = values  # both files order the positions alike
            digest.update(values.tobytes())
        if digest.hexdigest() != source._layer_sums[s]:
            break
        layers.append(digest.hexdigest())
        copied.append(s)
    target.flush()
    del target
    with open(part, "rb+") as handle:
        os.fsync(handle.fileno())
    return copied


def _header_room(seeds: int) -> int:
    """Bytes kept for the JSON header of a file built by :func:`build_file` (padded with spaces)."""
    return 2048 + 72 * (seeds + 1)


def _write_json(path: str, data: dict) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file, synced, then renamed)."""
    temporary = f"{path}.tmp"
    with open(temporary, "w") as handle:
        json.dump(data, handle, sort_keys=True)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def build_file(
    path: str,
    rules: Optional[Rules] = None,
    seeds: int = 15,
    progress: Optional[Progress] = None,
    memory: Optional[int] = None,
    threads: Optional[int] = None,
    log: Optional[Callable[[str], None]] = None,
    deepest: Optional[Callable[[Deepest], None]] = None,
    source: Optional[EndgameDatabase] = None,
) -> EndgameDatabase:
    """Build the database of ``seeds`` seeds into the file ``path``, layer by layer, resuming a stopped build.

    The values go straight into ``path + ".part"``, laid out as the final
    file, each layer solved by counts (:func:`build`) with the layers below
    mapped, so that the memory it needs beyond the file is six bytes a
    position of the largest layer (:func:`work_memory`).  Each finished layer's SHA-256 is recorded in
    ``path + ".part.json"``; a build started again with the same rules and
    seeds checks the finished layers against it and goes on from the first
    one missing or damaged.  When the last layer is done the header is
    written and the file renamed to ``path``.

    Args:
        path: the database file to write.
        rules, seeds, progress, memory, threads: as :func:`build` (``memory``
            bounds the memory beyond the file).
        log: called with a line when a build resumes (what was kept).
        deepest: as :func:`build`, for the layers this call solves.
        source: a database of the same rules (of any seeds, with layer
            checksums in its header) whose layers are copied instead of
            solved: each one up to ``seeds`` that the build lacks, as long as
            its values match their checksum; the build solves the rest.  A
            deeper database thus gives a shallower one in the time of a copy,
            and a shallower one starts a deeper build.

    Raises:
        ValueError: bad rules or seeds, more memory needed than ``memory``, or a source for other rules or
            without layer checksums.
        OSError: the file cannot be written.
    """
    rules, seeds = check_build(rules, seeds, memory)
    if source is not None:
        if not isinstance(source, EndgameDatabase) or source.rules != rules:
            raise ValueError(f"the layers to copy must come from a database of the same rules ({rules}), "
                             f"got {source!r}")
        if source._layer_sums is None:
            raise ValueError(f"{source.path}: this database's header has no layer checksums to copy its layers by")
    set_threads(threads)
    build = open_part(path, rules, seeds, log)
    database, part, offset, layers = build.database, build.part, build.offset, build.layers
    if source is not None:
        copied = _copy_layers(source, database, part, offset, layers)
        if log is not None:
            log(f"copied layers {copied[0]} to {copied[-1]} from {source.path}" if copied
                else f"copied no layer from {source.path}: none the build lacks is whole there")
        record_layers(build)
    meter = _Meter(rules.pits_per_side, seeds, len(layers), progress)
    for layer_seeds in range(len(layers), seeds + 1):
        start, stop = int(database._offsets[layer_seeds]), int(database._offsets[layer_seeds + 1])
        lower = (np.memmap(part, dtype=np.int8, mode="r", offset=offset, shape=(start,)) if start
                 else np.zeros(0, dtype=np.int8))
        layer = np.memmap(part, dtype=np.int8, mode="r+", offset=offset + start, shape=(stop - start,))
        found = _count_layer(database, layer_seeds, lower, layer, meter)
        layer.flush()
        layers.append(layer_digest(layer))
        del layer, lower
        record_layers(build)
        _report(found, deepest)
        meter.done += stop - start
    return finish_part(build)


# --------------------------------------------------------------------------- a layer in shares (several machines)
#
# The distributed build (awale.offline.endgame_dask) solves a layer by the same counts, each worker holding one
# range of its ranks, a *share*: the share's values, best captures, counts and queue are the worker's, the layers
# below and the layer's values already settled are read from the file being written.  A share counts its moves
# (:func:`share_count`), seeds a margin (:func:`share_seed`), takes the messages that the other shares sent it
# (:func:`share_deliver`) and spreads what it settled (:func:`share_spread`), which settles its own parents at
# once and gives those of other shares back as messages.  Within a margin the order in which positions are
# settled does not change the values (a position is won by ``t`` once one quiet move reaches a lost position, lost
# once its last one reaches a won one), so the values are the one-machine build's, byte for byte.

__all__ += ["Share", "Mail", "new_share", "share_count", "share_seed", "share_deliver", "share_spread",
            "share_bytes", "SHARE_MAIL"]


class Share(NamedTuple):
    """One share of a layer solved by counts: the ranks ``bounds[0]..bounds[1]-1`` of the layer.

    Attributes:
        params, binom, offsets: the rules and the index tables.
        lower: the values of the layers below (mapped from the file).
        current: the layer's values as written to the file by every share (read only when a share is counted
            again after a fault; empty otherwise).
        layer, exits, counts, queue, tail: as the one-machine build's, for the share's positions (local
            offsets: rank minus ``bounds[0]``).
        bounds: the first rank of the share and the one past its last.
    """

    params: np.ndarray
    binom: np.ndarray
    offsets: np.ndarray
    lower: np.ndarray
    current: np.ndarray
    layer: np.ndarray
    exits: np.ndarray
    counts: np.ndarray
    queue: np.ndarray
    tail: np.ndarray
    bounds: np.ndarray


class Mail(NamedTuple):
    """The parents that :func:`share_spread` found in other shares: ``ranks[:cursor[1]]`` (a rank ``r`` of the
    layer: its count to be counted down; ``-1 - r``: it wins), and ``cursor[0]``, the queue's next entry to
    spread."""

    ranks: np.ndarray
    cursor: np.ndarray


#: Parents a :class:`Mail` holds before :func:`share_spread` hands it back to be sent (8 bytes each).
SHARE_MAIL = 1 << 21


def share_bytes(positions: int) -> int:
    """Bytes a worker holds for a share of ``positions``: its values, best captures and counts (a byte each), its
    queue, and its mail."""
    return positions * (3 + np.dtype(queue_type(positions)).itemsize) + SHARE_MAIL * 8


def new_share(database: EndgameDatabase, seeds: int, low: int, high: int, lower: np.ndarray,
              current: Optional[np.ndarray] = None) -> Share:
    """The work arrays of the share ``low..high-1`` of layer ``seeds`` (``current``: the layer's values in the
    file, to count the share again after a fault)."""
    size = high - low
    return Share(np.array(database.rules.params), database._binom, database._offsets, lower,
                 np.zeros(0, dtype=np.int8) if current is None else current, np.zeros(size, dtype=np.int8),
                 np.empty(size, dtype=np.int8), np.empty(size, dtype=np.int8),
                 np.empty(size, dtype=queue_type(size)), np.zeros(1, dtype=np.int64),
                 np.array([low, high], dtype=np.int64))


@jit(inline=False)
def _share_count_chunk(seeds, margin, low, high, share):
    """:func:`share_count` on the share's positions ``low..high-1``, on one thread."""
    params, binom, offsets = share.params, share.binom, share.offsets
    n = params[0]
    size = 2 * n
    base = share.bounds[0]
    look = share.current.shape[0] > 0
    board = np.empty(size, dtype=np.int64)
    child = np.empty(size, dtype=np.int64)
    state = np.zeros(size + 5, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    for p in range(low, high):
        if look and share.current[base + p] != 0:  # settled, and its parents told
            share.layer[p] = share.current[base + p]
            share.exits[p] = 0
            share.counts[p] = _SETTLED
            continue
        count = position_at(base + p, seeds, params, binom, board, state, out)
        best = NO_CAPTURE
        if count == 0:
            best = stuck_value(board, n, params[5])
        quiet = 0
        wins = False
        for j in range(count):
            taken = play_turned(board, out[j], n, params[3], child)
            if taken > 0:
                value = taken - share.lower[offsets[seeds - taken] + rank_of(child, size, binom)]
                if value > best:
                    best = value
            elif look:
                known = share.current[rank_of(child, size, binom)]
                if known < 0:
                    wins = True
                elif known == 0:
                    quiet += 1
            else:
                quiet += 1
        share.layer[p] = 0
        share.exits[p] = best
        share.counts[p] = quiet
        if look:
            if wins or best == margin:
                _settle(p, margin, share)
            elif quiet == 0 and best <= -margin:
                _settle(p, -margin, share)


@jit(inline=False, parallel=True)
def _share_count(seeds, margin, low, high, share):
    chunk = 4096
    for c in prange((high - low + chunk - 1) // chunk):
        _share_count_chunk(seeds, margin, low + c * chunk, min(high, low + (c + 1) * chunk), share)


def share_count(seeds: int, margin: int, low: int, high: int, share: Share) -> None:
    """Count the moves of the share's positions ``low..high-1`` (local offsets), on all threads.

    Without ``share.current`` (a layer's start): each position's best capture and its number of quiet moves,
    as the one-machine build counts them.  With it (a share counted again after a fault, during margin
    ``margin``, every larger margin settled): a position settled in the file is taken as settled and its
    parents as told; another counts only its quiet moves to positions not yet settled, and is settled at once
    (and queued) when what is settled already decides it.
    """
    _share_count(seeds, margin, low, high, share)


def share_seed(margin: int, share: Share) -> None:
    """Settle and queue the share's positions worth ``±margin`` by their own captures (as the one-machine
    build's first step of a margin)."""
    _count_seed(margin, share)


@jit(inline=False)
def _share_deliver(margin, share, inbox):
    for i in range(inbox.shape[0]):
        m = inbox[i]
        if m < 0:
            _settle(-1 - m, margin, share)
        else:
            before = atomic_add(share.counts, m, -1)
            if before == 1 and share.exits[m] <= -margin:
                _settle(m, -margin, share)


def share_deliver(margin: int, share: Share, inbox: np.ndarray) -> None:
    """Take the messages of other shares for this one (local offsets: ``p`` to count down, ``-1 - p`` won at
    ``margin``), settling and queueing the positions they decide."""
    _share_deliver(margin, share, inbox)


@jit(inline=False)
def _share_spread(seeds, margin, share, mail):
    params, binom = share.params, share.binom
    n = params[0]
    size = 2 * n
    low, high = share.bounds[0], share.bounds[1]
    board = np.empty(size, dtype=np.int64)
    parent = np.empty(size, dtype=np.int64)
    candidate = np.empty(size, dtype=np.int64)
    child = np.empty(size, dtype=np.int64)
    state = np.zeros(size + 5, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    found = np.empty(n * (seeds + 1), dtype=np.int64)
    room = mail.ranks.shape[0] - n * (seeds + 1)
    head = mail.cursor[0]
    sent = mail.cursor[1]
    while head < share.tail[0] and sent <= room:
        q = share.queue[head]
        head += 1
        lost = share.layer[q] < 0
        unrank(low + q, seeds, size, binom, board)
        for k in range(_parents(board, seeds, params, binom, parent, candidate, child, state, out, found)):
            p = found[k]
            if p < low or p >= high:
                mail.ranks[sent] = -1 - p if lost else p
                sent += 1
            elif lost:
                _settle(p - low, margin, share)
            else:
                before = share.counts[p - low]
                share.counts[p - low] = before - 1
                if before == 1 and share.exits[p - low] <= -margin:
                    _settle(p - low, -margin, share)
    mail.cursor[0] = head
    mail.cursor[1] = sent


def share_spread(seeds: int, margin: int, share: Share, mail: Mail) -> bool:
    """Spread the share's queue from ``mail.cursor[0]`` on, settling its own parents (and spreading them in
    turn) and writing those of other shares into ``mail``, on one thread; return whether the queue is done
    (False: the mail is full, send it and call again)."""
    _share_spread(seeds, margin, share, mail)
    return int(mail.cursor[0]) >= int(share.tail[0])


# --------------------------------------------------------------------------- the file of a build, by its steps
#
# The steps of :func:`build_file` around its layers, for a build that solves its layers elsewhere (the Dask
# build): the same ``.part`` file and ``.part.json`` record, so that either build resumes the other's.

__all__ += ["PartFile", "open_part", "record_layers", "finish_part"]


class PartFile(NamedTuple):
    """A build's file being written: ``part`` (the values at ``offset``, laid out as the final file), its record
    ``state`` (the finished layers' SHA-256, ``layers``), the final ``path``, and the empty ``database`` of its
    rules and seeds (its index tables)."""

    path: str
    part: str
    state: str
    offset: int
    database: EndgameDatabase
    expected: dict
    layers: List[str]


def open_part(path: str, rules: Rules, seeds: int, log: Optional[Callable[[str], None]] = None) -> PartFile:
    """Start or resume the build of ``path`` as :func:`build_file` does: the layers of ``path + ".part"`` whose
    SHA-256 matches ``path + ".part.json"`` are kept, from the first; without any, an empty file is made.

    Raises:
        OSError: the file cannot be written.
    """
    database = EndgameDatabase(rules, seeds)
    room = _header_room(seeds)
    offset = len(MAGIC) + 8 + room
    count = len(database)
    part, state_path = f"{path}.part", f"{path}.part.json"
    expected = {"rules": dataclasses.asdict(rules), "seeds": seeds, "offset": offset, "version": FORMAT_VERSION}
    layers: List[str] = []
    if os.path.exists(part) and os.path.exists(state_path):
        try:
            with open(state_path) as handle:
                state = json.load(handle)
        except (OSError, ValueError):
            state = {}
        if {k: state.get(k) for k in expected} == expected and os.path.getsize(part) == offset + count:
            kept = np.memmap(part, dtype=np.int8, mode="r", offset=offset, shape=(count,))
            for s, digest in enumerate(state.get("layers", [])):
                start, stop = int(database._offsets[s]), int(database._offsets[s + 1])
                if layer_digest(kept[start:stop]) != digest:
                    break
                layers.append(digest)
            del kept
            if log is not None:
                log(f"resuming the build in {part}: layers 0 to {len(layers) - 1} are done and whole"
                    if layers else f"restarting the build in {part}: no whole layer in it")
    if not layers:
        with open(part, "wb") as handle:
            handle.truncate(offset + count)
    _write_json(state_path, {**expected, "layers": layers})
    return PartFile(path, part, state_path, offset, database, expected, layers)


def record_layers(build: PartFile) -> None:
    """Record the finished layers (``build.layers``, their SHA-256 in order) in the build's ``.part.json``, after
    syncing the file."""
    with open(build.part, "rb+") as handle:
        os.fsync(handle.fileno())
    _write_json(build.state, {**build.expected, "layers": build.layers})


def finish_part(build: PartFile) -> EndgameDatabase:
    """Write the header of a build whose every layer is done and recorded, and give the file its name.

    Raises:
        ValueError: a layer is missing from the record.
    """
    database = build.database
    if len(build.layers) != database.seeds + 1:
        raise ValueError(f"{build.part}: {len(build.layers)} of {database.seeds + 1} layers are done")
    room = build.offset - len(MAGIC) - 8
    database._values = np.memmap(build.part, dtype=np.int8, mode="r", offset=build.offset, shape=(len(database),))
    database.checksum = layer_digest(database._values)
    database._layer_sums = list(build.layers)
    header = database.header()
    database._values = None
    text = json.dumps(header, sort_keys=True).encode()
    if len(text) > room:
        raise RuntimeError(f"the header needs {len(text)} bytes, {room} were kept")  # pragma: no cover
    with open(build.part, "rb+") as handle:
        handle.write(MAGIC)
        handle.write(room.to_bytes(8, "little"))
        handle.write(text + b" " * (room - len(text)))
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(build.part, 0o666 & ~UMASK)
    os.replace(build.part, build.path)
    os.unlink(build.state)
    return load(build.path)
