"""An endgame database: the exact value of every position with few seeds left.

The database holds, for every board with at most ``S`` seeds in play and
either player to move, the *value* of the position: the largest difference
between the seeds the player to move will take from here on and those the
opponent will take, that the player to move can force (captures plus, at the
end, the seeds each side collects).  It is computed by retrograde analysis in
the manner of van der Goot (2001), "Awari retrograde analysis", and Romein &
Bal (2003), "Solving Awari with parallel retrograde analysis", *Computer*
36(10): one layer per number of seeds on the board, from 0 up, since a
capture only ever leads to a layer already solved, and, inside a layer, each
position settled once, largest margins first, by counting its moves that
capture nothing and are not yet known to lose.

**Which game.**  The value is that of the *continued* game under the
database's rules, with a stationary rule for repetitions:

* the game does not stop when a player passes half of the seeds: captures
  are tallied to the end (the "captures question" of the thesis shows this
  changes no win, draw or loss, whatever the seeds already captured);
* it ends when the player to move has no legal move (under the feed rule,
  when the opponent cannot be fed), each side collecting the seeds on its
  side (or nobody, with ``collect_remaining=False``);
* play that would go on forever without a capture leaves the seeds on the
  board split equally: it is worth 0 to both.  Equivalently, a position
  repeated since the last capture ends the game with the seeds split
  equally.  The Abapa rules instead give each side the seeds on its own side
  of the repeated position; :func:`compare` measures where that matters.

Positions are indexed by a perfect hash: the board is turned so that the
player to move owns pits ``0..n-1`` (one entry serves both players), and the
board of ``s`` seeds in ``2n`` pits is ranked in the combinatorial number
system (a weak composition read as the positions of its ``2n - 1``
separators, ranked in co-lexicographic order) after the
``C(s + 2n - 1, 2n)`` boards with fewer seeds.  One signed byte per position.

The file is a 16-byte magic line, a JSON header (rules, seeds, format
version, count, SHA-256 of the values and, from format 2, of each layer)
and the values; :func:`load` reads the header and maps the values
read-only when a position is first looked up, so the processes of a
machine share one copy.  :func:`build` solves a database in memory;
:func:`build_file` writes a deep one straight to its file, layer by layer
on every core, and resumes a build that was stopped.

The searches (:mod:`awale.search.alphabeta`, :mod:`awale.search.mcts`)
probe the database from their compiled kernels: :func:`probe_tables` hands
them the mapped values (shared, not copied) and the ranking tables, and a
probe looks a position up by the same perfect hash.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import os
import tempfile
from typing import Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Tuple

import numpy as np

from ..core._jit import jit, prange, set_threads
from ..core._atomic import atomic_add, atomic_cas
from ..core.game import Game
from ..core.engine import ONGOING, R_FEED, capture, legal_actions, sow
from ..core.rules import Rules, as_rules

__all__ = [
    "UNCOVERED",
    "probe",
    "FORMAT_VERSION",
    "MAX_SEEDS",
    "EndgameDatabase",
    "Deepest",
    "build",
    "build_file",
    "METHODS",
    "READ_VERSIONS",
    "VALUES_VERSION",
    "work_memory",
    "check_build",
    "load",
    "position_count",
    "memory_needed",
    "Comparison",
    "compare",
    "sample",
    "search_check",
    "captures_check",
    "probe_tables",
]

#: Version of the file layout written by :meth:`EndgameDatabase.save`.
FORMAT_VERSION = 2

#: Version of the values (the game solved and the index): files of any format with the same values version
#: hold the same values, so the cache names its files by it.
VALUES_VERSION = 1

#: The versions :func:`load` reads.  Version 1 had no per-layer checksums; the values are the same.
READ_VERSIONS = (1, 2)

_UMASK = os.umask(0o022)  # read once (setting it is the only way to read it) and put back at once
os.umask(_UMASK)

#: The largest ``S`` a database may have: values must fit a signed byte.
MAX_SEEDS = 120

_MAGIC = b"AWALE-ENDGAME-DB"  # 16 bytes
_NONE = -128  # "no capturing move" in the per-position best exit
_RULE_FIELDS = ("pits_per_side", "feed", "grand_slam", "collect_remaining")
UNCOVERED = -(1 << 30)  # what :func:`probe` returns for a position the database does not hold

Progress = Callable[[int, int, str], None]


# --------------------------------------------------------------------------- indexing


def _binomials(top: int, width: int) -> np.ndarray:
    """``C(a, b)`` for ``0 <= a <= top`` and ``0 <= b <= width`` as int64."""
    table = np.zeros((top + 1, width + 1), dtype=np.int64)
    for a in range(top + 1):
        for b in range(min(a, width) + 1):
            table[a, b] = math.comb(a, b)
    return table


def position_count(pits_per_side: int, seeds: int) -> int:
    """Boards of ``2 * pits_per_side`` pits holding at most ``seeds`` seeds in all."""
    return math.comb(seeds + 2 * pits_per_side, 2 * pits_per_side)


def _layer_size(pits_per_side: int, seeds: int) -> int:
    """Boards holding exactly ``seeds`` seeds."""
    return math.comb(seeds + 2 * pits_per_side - 1, 2 * pits_per_side - 1)


def _queue_type(positions: int) -> type:
    """The integers of the count build's queue for a layer of ``positions``: 4 bytes, 8 from 2**31 positions on."""
    return np.int32 if positions < 2**31 else np.int64


def _count_bytes(positions: int) -> int:
    """Bytes the count build holds for a layer of ``positions``: its best captures and counts (a byte each)
    and its queue of settled positions."""
    return positions * (2 + np.dtype(_queue_type(positions)).itemsize)


def work_memory(pits_per_side: int, seeds: int) -> int:
    """Bytes :func:`build_file` holds beside the values at its peak: the work of the count build on the
    largest layer, six bytes a position."""
    return _count_bytes(_layer_size(pits_per_side, seeds))


def memory_needed(pits_per_side: int, seeds: int, method: str = "counts") -> int:
    """Bytes a build in memory holds at its peak: the values, and the work of the largest layer.

    ``method="sweeps"`` holds the moves of the largest layer instead (about
    ``5 * pits_per_side + 3`` bytes a position).
    """
    largest = _layer_size(pits_per_side, seeds)
    if method == "sweeps":
        return position_count(pits_per_side, seeds) + largest * (5 * pits_per_side + 3)
    return position_count(pits_per_side, seeds) + _count_bytes(largest)


@jit
def _rank(board, size, binom):
    """Rank of ``board`` among the boards with as many seeds (co-lexicographic)."""
    rank = 0
    bar = -1
    for i in range(size - 1):
        bar += board[i] + 1
        rank += binom[bar, i + 1]
    return rank


@jit
def _unrank(rank, seeds, size, binom, board):
    """Write into ``board`` the board of ``seeds`` seeds whose rank is ``rank``."""
    upper = seeds + size - 1  # the bars lie in [0, seeds + size - 2]
    for i in range(size - 2, -1, -1):
        bar = upper - 1
        while binom[bar, i + 1] > rank:
            bar -= 1
        rank -= binom[bar, i + 1]
        board[i + 1] = upper - bar - 1
        upper = bar
    board[0] = upper


@jit
def _turned(board, action, n, grand_slam, child):
    """Play ``action`` for the owner of pits ``0..n-1``; ``child`` gets the board seen by the opponent.

    Returns the seeds captured.  The sowing and capture are the rules' own kernels.
    """
    size = 2 * n
    for i in range(size):
        child[i] = board[(i + n) % size]
    last = sow(child, action + n, size)
    return capture(child, last, 1, n, grand_slam)


@jit
def _ending(board, n, collect):
    """The value of a board whose mover has no legal move: each side takes its own seeds."""
    if not collect:
        return 0
    value = 0
    for i in range(n):
        value += board[i] - board[n + i]
    return value


@jit
def _position(p, seeds, params, binom, board, state, out):
    """Write position ``p`` of layer ``seeds`` into ``board`` and its legal actions into ``out``; return how many.

    ``state`` is scratch of the rules' state length, its mover 0 and its game ongoing (as :func:`_ending` and
    every kernel here read a board: the mover's pits first).
    """
    size = 2 * params[0]
    _unrank(p, seeds, size, binom, board)
    for i in range(size):
        state[i] = board[i]
    state[size + 2] = 0
    state[size + 4] = ONGOING
    return legal_actions(state, params, out)


@jit(inline=False)
def _layer_moves(seeds, start, stop, params, binom, moves, caps, counts):
    """The moves of the positions ``start..stop-1`` of layer ``seeds``.

    ``moves[p, j]`` is the rank of the ``j``-th child in its own layer and
    ``caps[p, j]`` the seeds the move captures (the child's layer is
    ``seeds - caps[p, j]``); ``counts[p]`` is the number of legal moves.
    """
    n = params[0]
    size = 2 * n
    state = np.zeros(size + 5, dtype=np.int64)
    board = np.empty(size, dtype=np.int64)
    child = np.empty(size, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    for p in range(start, stop):
        count = _position(p, seeds, params, binom, board, state, out)
        counts[p] = count
        for j in range(count):
            caps[p, j] = _turned(board, out[j], n, params[3], child)
            moves[p, j] = _rank(child, size, binom)


@jit(inline=False)
def _exits(seeds, params, binom, offsets, values, moves, caps, counts, exits):
    """For each position of a layer, its best capturing move (or its value if it has no move)."""
    n = params[0]
    size = 2 * n
    board = np.empty(size, dtype=np.int64)
    for p in range(counts.shape[0]):
        best = _NONE
        if counts[p] == 0:
            _unrank(p, seeds, size, binom, board)
            best = _ending(board, n, params[5])
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


# --------------------------------------------------------------------------- the layered build


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
            found[count] = _rank(parent, size, binom)
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
    if not legal or _turned(parent, action, n, params[3], child) != 0:
        return False
    for i in range(size):
        if child[i] != board[i]:
            return False
    return True


@jit(inline=False)
def _recurrence_chunk(seeds, low, high, params, binom, offsets, lower, layer):
    """:func:`_recurrence` on the positions ``low..high-1``, on one thread."""
    n = params[0]
    size = 2 * n
    board = np.empty(size, dtype=np.int64)
    child = np.empty(size, dtype=np.int64)
    state = np.zeros(size + 5, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    errors = 0
    for p in range(low, high):
        count = _position(p, seeds, params, binom, board, state, out)
        best = _ending(board, n, params[5]) if count == 0 else -(1 << 30)
        for j in range(count):
            taken = _turned(board, out[j], n, params[3], child)
            rank = _rank(child, size, binom)
            value = taken - lower[offsets[seeds - taken] + rank] if taken > 0 else -layer[rank]
            if value > best:
                best = value
        if best != layer[p]:
            errors += 1
    return errors


@jit(inline=False, parallel=True)
def _recurrence(seeds, start, stop, params, binom, offsets, lower, layer):
    """How many positions ``start..stop-1`` of layer ``seeds`` break the minimax recurrence: their value is not
    the best over their moves of the seeds captured minus the child's value (each side's own seeds when there
    is no move), the moves played afresh by the rules' kernels, on all threads."""
    chunk = 4096
    errors = 0
    for c in prange((stop - start + chunk - 1) // chunk):
        low = start + c * chunk
        errors += _recurrence_chunk(seeds, low, min(stop, low + chunk), params, binom, offsets, lower, layer)
    return errors


# --------------------------------------------------------------------------- retrograde analysis with counts
#
# Each position's value is settled once, largest margins first: for t = S, S-1, ..., 1, a position is worth
# +t when its best capture is worth t, or when a quiet move leads to a position worth -t to its mover; it is
# worth -t when its best capture (if any) is worth -t or less and every quiet move leads to a position already
# known to be worth t or more to its mover.  A byte per position counts the quiet moves not yet known to lead
# there (negative once the value is settled); a queue holds the positions settled, each once, whose parents
# (found by taking moves back) are then updated.  Positions never settled are worth 0: neither side can force
# a margin from them.  Each parallel loop only calls an out-of-line kernel per chunk, as ``_recurrence`` does:
# with the work written in the loop's body, numba's parallel loops gave wrong values (threads sharing arrays).


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
        count = _position(p, seeds, params, binom, board, state, out)
        best = _NONE
        if count == 0:
            best = _ending(board, n, params[5])
        quiet = 0
        for j in range(count):
            taken = _turned(board, out[j], n, params[3], child)
            if taken > 0:
                value = taken - work.lower[offsets[seeds - taken] + _rank(child, size, binom)]
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
        _unrank(q, seeds, size, binom, board)
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
                   np.empty(size, dtype=np.int8), np.empty(size, dtype=_queue_type(size)),
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


@jit
def probe(state, size, tables):
    """The final capture difference the player to move in ``state`` can force, by the database.

    ``state`` is a game state of the rules' kernels (pits, captures, player,
    plies, outcome).  The result is the mover's captures so far minus the
    opponent's, plus the database's value of the board: what the continued
    game ends with under perfect play (its sign is the Abapa result, by the
    captures question of chapter 6).  :data:`UNCOVERED` when the game is
    over or the board holds more than the database's seeds.  ``tables`` is
    :func:`probe_tables` (its seeds are -1 without a database: nothing is
    probed).  The history of the position is ignored: the database solves
    the stationary game of the module docstring.
    """
    limit, values, binom, offsets = tables
    if limit < 0 or state[size + 4] != ONGOING:
        return UNCOVERED
    seeds = 0
    for i in range(size):
        seeds += state[i]
    if seeds > limit:
        return UNCOVERED
    n = size // 2
    mover = state[size + 2]
    rank = 0  # _rank of the board turned so that the mover's pits come first
    bar = -1
    for i in range(size - 1):
        bar += state[(i + n * mover) % size] + 1
        rank += binom[bar, i + 1]
    return state[size + mover] - state[size + 1 - mover] + values[offsets[seeds] + rank]


# --------------------------------------------------------------------------- the database


def _check_rules(rules: Optional[Rules]) -> Rules:
    rules = as_rules(rules)
    if rules.max_plies is not None:
        raise ValueError(
            f"an endgame database needs rules without max_plies (got {rules.max_plies}): "
            "a ply cap makes a position's value depend on the plies played"
        )
    return rules


def _check_seeds(seeds: object, rules: Rules) -> int:
    if isinstance(seeds, bool) or not isinstance(seeds, (int, np.integer)):
        raise ValueError(f"seeds must be an integer, got {seeds!r}")
    seeds = int(seeds)
    if not 0 <= seeds <= min(MAX_SEEDS, rules.total_seeds):
        raise ValueError(f"seeds must be from 0 to {min(MAX_SEEDS, rules.total_seeds)} for these rules, got {seeds}")
    return seeds


@dataclasses.dataclass
class EndgameDatabase:
    """The exact values of every position with at most :attr:`seeds` seeds on the board.

    Build one with :func:`build`, read one with :func:`load`.  Values are for
    the player to move: the best difference of the seeds still to be won
    that it can force, under the game stated in the module docstring.
    """

    rules: Rules
    seeds: int
    path: Optional[str] = None
    _values: Optional[np.ndarray] = dataclasses.field(default=None, repr=False)
    _offset: int = dataclasses.field(default=0, repr=False)
    checksum: str = ""
    _layer_sums: Optional[List[str]] = dataclasses.field(default=None, repr=False)

    def __post_init__(self) -> None:
        n = self.rules.pits_per_side
        self._binom = _binomials(self.seeds + 2 * n, 2 * n)
        self._offsets = np.array([position_count(n, s - 1) if s else 0 for s in range(self.seeds + 2)], dtype=np.int64)

    # ----------------------------------------------------------------- access

    @property
    def values(self) -> np.ndarray:
        """The int8 values, indexed like :meth:`index` (read from the file on first use)."""
        if self._values is None:
            self._values = np.memmap(self.path, dtype=np.int8, mode="r", offset=self._offset, shape=(len(self),))
        return self._values

    def __len__(self) -> int:
        return position_count(self.rules.pits_per_side, self.seeds)

    def covers(self, game: Game) -> bool:
        """Whether ``game`` is played under compatible rules and has at most :attr:`seeds` seeds on the board."""
        return self.compatible(game.rules) and sum(game.pits) <= self.seeds

    def compatible(self, rules: Rules) -> bool:
        return rules.max_plies is None and all(getattr(rules, f) == getattr(self.rules, f) for f in _RULE_FIELDS)

    def index(self, pits, player: int = 0) -> int:
        """The index of a board (South's pits, then North's) with ``player`` to move."""
        n = self.rules.pits_per_side
        board = np.asarray(pits, dtype=np.int64)
        if board.shape != (2 * n,) or (board < 0).any():
            raise ValueError(f"a board is {2 * n} non-negative counts, got {tuple(pits)}")
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        seeds = int(board.sum())
        if seeds > self.seeds:
            raise ValueError(f"the board holds {seeds} seeds; this database stops at {self.seeds}")
        turned = np.roll(board, -n * player)
        return int(self._offsets[seeds] + _rank(turned, 2 * n, self._binom))

    def board(self, index: int) -> Tuple[int, ...]:
        """The board (the mover's pits first) of an index."""
        if not 0 <= index < len(self):
            raise ValueError(f"index must be from 0 to {len(self) - 1}, got {index}")
        seeds = int(np.searchsorted(self._offsets, index, side="right") - 1)
        board = np.empty(2 * self.rules.pits_per_side, dtype=np.int64)
        _unrank(index - int(self._offsets[seeds]), seeds, board.shape[0], self._binom, board)
        return tuple(int(b) for b in board)

    def _game(self, game: Game) -> Game:
        if not isinstance(game, Game):
            raise ValueError(f"expected an awale.Game, got {game!r}")
        if not self.compatible(game.rules):
            raise ValueError(f"this database is for {self.rules}, the game is played under {game.rules}")
        if game.game_finished:
            raise ValueError("the game is over: it has no value to look up")
        if sum(game.pits) > self.seeds:
            raise ValueError(f"the game has {sum(game.pits)} seeds on the board; this database stops at {self.seeds}")
        return game

    def value(self, game: Game) -> int:
        """The value of ``game`` for the player to move (its captures so far do not count)."""
        game = self._game(game)
        return int(self.values[self.index(game.pits, game.current_player)])

    def action_values(self, game: Game) -> Dict[int, int]:
        """The value of each legal action: seeds it captures minus the value of the position it leads to."""
        game = self._game(game)
        n = self.rules.pits_per_side
        board = np.roll(np.asarray(game.pits, dtype=np.int64), -n * game.current_player)
        child = np.empty_like(board)
        result = {}
        for action in game.legal_actions:
            taken = _turned(board, action, n, self.rules.params[3], child)
            index = self._offsets[int(child.sum())] + _rank(child, 2 * n, self._binom)
            result[action] = int(taken - self.values[index])
        return result

    def best_actions(self, game: Game) -> Tuple[int, ...]:
        """The legal actions of ``game`` with the best value."""
        values = self.action_values(game)
        best = max(values.values())
        return tuple(a for a, v in values.items() if v == best)

    # ----------------------------------------------------------------- checks

    def _layers(self, progress: Optional[Progress], what: str) -> Iterator[Tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """Each layer's moves, computed from the rules, from 0 seeds up."""
        n = self.rules.pits_per_side
        params = np.array(self.rules.params)
        for seeds in range(self.seeds + 1):
            size = _layer_size(n, seeds)
            moves = np.zeros((size, n), dtype=np.int32)
            caps = np.zeros((size, n), dtype=np.int8)
            counts = np.zeros(size, dtype=np.int8)
            chunk = max(1, size // 20)
            for start in range(0, size, chunk):
                _layer_moves(seeds, start, min(size, start + chunk), params, self._binom, moves, caps, counts)
                if progress is not None:
                    progress(seeds, min(size, start + chunk), f"{what}, {size:,} positions with {seeds} seeds")
            yield seeds, moves, caps, counts

    def recurrence_errors(
        self, progress: Optional[Progress] = None, threads: Optional[int] = None, layers: Optional[List[int]] = None
    ) -> int:
        """Positions whose value is not the best over their moves of captures minus the child's value.

        Every position of the database (or of the ``layers`` given) is
        checked, its moves generated afresh by the rules' kernels (on
        ``threads`` threads, a layer at a time, the values read from the
        mapped file); 0 means the table obeys the minimax recurrence.
        """
        set_threads(threads)
        params = np.array(self.rules.params)
        values = self.values
        if not values.flags.writeable:  # the kernel is compiled for writable arrays; a private mapping writes nothing
            values = np.memmap(self.path, dtype=np.int8, mode="c", offset=self._offset, shape=(len(self),))
        errors = 0
        for seeds in range(self.seeds + 1) if layers is None else layers:
            if not 0 <= seeds <= self.seeds:
                raise ValueError(f"layers must be from 0 to {self.seeds}, got {seeds}")
            start, stop = int(self._offsets[seeds]), int(self._offsets[seeds + 1])
            for low in range(0, stop - start, _BLOCK):
                high = min(stop - start, low + _BLOCK)
                errors += _recurrence(seeds, low, high, params, self._binom, self._offsets, values[:start],
                                      values[start:stop])
                if progress is not None:
                    progress(seeds, high, f"checking the recurrence, {stop - start:,} positions with {seeds} seeds")
        return errors

    def verify_checksum(self) -> bool:
        """Whether the values match the SHA-256 recorded in the header."""
        return _layer_digest(self.values) == self.checksum

    # ----------------------------------------------------------------- file

    def header(self) -> dict:
        """The file header: format version, rules, seeds, count and checksum."""
        return {
            "format": "awale endgame database",
            "version": FORMAT_VERSION,
            "rules": dataclasses.asdict(self.rules),
            "seeds": self.seeds,
            "positions": len(self),
            "index": "mover's pits first; boards with fewer seeds first; co-lexicographic rank of the separators",
            "value": "int8: best forced difference of the seeds still to be won, for the player to move",
            "sha256": self.checksum,
            "layers": self._layer_sums or self.layer_checksums(),
        }

    def _layer_checksum(self, seeds: int) -> str:
        """The SHA-256 of the values of the layer of ``seeds`` seeds."""
        return _layer_digest(self.values[int(self._offsets[seeds]) : int(self._offsets[seeds + 1])])

    def layer_checksums(self) -> List[str]:
        """The SHA-256 of each layer's values, from 0 seeds up (read from the values)."""
        return [self._layer_checksum(s) for s in range(self.seeds + 1)]

    def verify_layers(self, layers: Optional[Iterable[int]] = None) -> List[int]:
        """The layers (of ``layers``, default all) whose values do not match the checksums of the file's header
        (none for a version 1 file); only the layers asked for are read.

        Raises:
            ValueError: a layer outside 0 to :attr:`seeds`.
        """
        recorded = self._layer_sums or []
        wanted = range(self.seeds + 1) if layers is None else sorted(set(layers))
        outside = [s for s in wanted if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= self.seeds]
        if outside:
            raise ValueError(f"layers run from 0 to {self.seeds} seeds, got {outside}")
        return [s for s in wanted if s < len(recorded) and recorded[s] != self._layer_checksum(s)]

    def save(self, path: str) -> None:
        """Write the database to ``path`` (atomically: a temporary file of its own, then a rename).

        Processes saving the same database to the same path at once (workers
        building a cached one) each write their own file, and the last rename wins.
        """
        values = np.ascontiguousarray(self.values)
        text = json.dumps(self.header(), sort_keys=True).encode()
        folder, name = os.path.split(os.path.abspath(path))
        descriptor, temporary = tempfile.mkstemp(prefix=f"{name}.", suffix=".part", dir=folder)
        try:
            with open(descriptor, "wb") as handle:
                handle.write(_MAGIC)
                handle.write(len(text).to_bytes(8, "little"))
                handle.write(text)
                handle.write(values.tobytes())
                handle.flush()
                os.fsync(handle.fileno())  # whole on disk before it takes the name
            os.chmod(temporary, 0o666 & ~_UMASK)  # mkstemp's file is private; give it the usual mode
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def load(path: str, verify: bool = False) -> EndgameDatabase:
    """Open a database written by :meth:`EndgameDatabase.save` or :func:`build_file`; the values are mapped on first use.

    The values are mapped read-only, so every process probing the same file
    shares one copy of them in memory.  With ``verify`` each layer is checked
    against its SHA-256 in the header (and the whole against its own).

    Raises:
        ValueError: the file is not such a database, is truncated, or (with
            ``verify``) does not match its checksums.
        OSError: the file cannot be read.
    """
    with open(path, "rb") as handle:
        magic = handle.read(len(_MAGIC))
        if magic != _MAGIC:
            raise ValueError(f"{path} is not an awale endgame database (bad magic bytes)")
        length = int.from_bytes(handle.read(8), "little")
        try:
            header = json.loads(handle.read(length).decode())
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ValueError(f"{path}: the header of the endgame database is damaged") from None
    if header.get("version") not in READ_VERSIONS:
        raise ValueError(f"{path}: format version {header.get('version')!r}, this library reads {READ_VERSIONS}")
    try:
        rules = Rules(**header["rules"])
        database = EndgameDatabase(rules, int(header["seeds"]), path, None, len(_MAGIC) + 8 + length, header["sha256"])
    except (KeyError, TypeError) as error:
        raise ValueError(f"{path}: the header of the endgame database lacks {error}") from None
    layers = header.get("layers")
    if layers is not None and (not isinstance(layers, list) or len(layers) != database.seeds + 1):
        raise ValueError(f"{path}: the header of the endgame database has a damaged list of layer checksums")
    database._layer_sums = layers
    expected = database._offset + len(database)
    if os.path.getsize(path) != expected:
        raise ValueError(f"{path} holds {os.path.getsize(path)} bytes, the header announces {expected}: truncated?")
    if verify:
        damaged = database.verify_layers()
        if damaged:
            raise ValueError(f"{path}: the values of layers {damaged} do not match their checksums")
        if not database.verify_checksum():
            raise ValueError(f"{path}: the values do not match the header's sha256")
    return database


def probe_tables(database: Optional[EndgameDatabase], rules: Rules) -> Tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """What the search kernels need to probe ``database``: ``(seeds, values, binomials, offsets)``.

    The values are the database's own array (read from the file now if it
    was not yet, mapped, never copied), as a read-only view.  Without a
    database (None) the seeds are -1 and the arrays are stand-ins of the same
    types, so that the kernels compile once and probe nothing.

    Raises:
        ValueError: ``database`` is not a database, or is for other rules
            than ``rules`` (or ``rules`` cap the plies).
    """
    if database is None:
        values = np.zeros(1, dtype=np.int8)
        values.flags.writeable = False
        return -1, values, np.zeros((1, 1), dtype=np.int64), np.zeros(1, dtype=np.int64)
    if not isinstance(database, EndgameDatabase):
        raise ValueError(f"endgame must be an awale.knowledge.endgame.EndgameDatabase or None, got {database!r}")
    if not database.compatible(rules):
        raise ValueError(f"the endgame database is for {database.rules}, the search for {rules}")
    values = np.asarray(database.values).view()
    values.flags.writeable = False
    return database.seeds, values, database._binom, database._offsets


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
    rules = _check_rules(rules)
    seeds = _check_seeds(seeds, rules)
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

_BLOCK = 1 << 20  # positions per call of the recurrence check, between progress reports


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
        self.total = sum(_layer_size(pits, s) for s in range(first, seeds + 1))
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
    size = _layer_size(n, seeds)
    moves = np.zeros((size, n), dtype=np.int32)
    caps = np.zeros((size, n), dtype=np.int8)
    counts = np.zeros(size, dtype=np.int8)
    _layer_moves(seeds, 0, size, params, database._binom, moves, caps, counts)
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
        digest = hashlib.sha256()  # as _layer_digest, of the bytes copied: the layer is read once
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


def _layer_digest(values: np.ndarray) -> str:
    """SHA-256 of a layer's values, read in pieces (a mapped layer is not read into memory at once)."""
    digest = hashlib.sha256()
    for start in range(0, values.shape[0], 1 << 26):
        digest.update(np.ascontiguousarray(values[start : start + (1 << 26)]).tobytes())
    return digest.hexdigest()


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
    database = EndgameDatabase(rules, seeds)
    room = _header_room(seeds)
    offset = len(_MAGIC) + 8 + room
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
                if _layer_digest(kept[start:stop]) != digest:
                    break
                layers.append(digest)
            del kept
            if log is not None:
                log(f"resuming the build in {part}: layers 0 to {len(layers) - 1} are done and whole"
                    if layers else f"restarting the build in {part}: no whole layer in it")
    if not layers:
        with open(part, "wb") as handle:
            handle.truncate(offset + count)
    if source is not None:
        copied = _copy_layers(source, database, part, offset, layers)
        if log is not None:
            log(f"copied layers {copied[0]} to {copied[-1]} from {source.path}" if copied
                else f"copied no layer from {source.path}: none the build lacks is whole there")
    _write_json(state_path, {**expected, "layers": layers})
    meter = _Meter(rules.pits_per_side, seeds, len(layers), progress)
    for layer_seeds in range(len(layers), seeds + 1):
        start, stop = int(database._offsets[layer_seeds]), int(database._offsets[layer_seeds + 1])
        lower = (np.memmap(part, dtype=np.int8, mode="r", offset=offset, shape=(start,)) if start
                 else np.zeros(0, dtype=np.int8))
        layer = np.memmap(part, dtype=np.int8, mode="r+", offset=offset + start, shape=(stop - start,))
        found = _count_layer(database, layer_seeds, lower, layer, meter)
        layer.flush()
        layers.append(_layer_digest(layer))
        del layer, lower
        with open(part, "rb+") as handle:
            os.fsync(handle.fileno())
        _write_json(state_path, {**expected, "layers": layers})
        _report(found, deepest)
        meter.done += stop - start
    database._values = np.memmap(part, dtype=np.int8, mode="r", offset=offset, shape=(count,))
    database.checksum = _layer_digest(database._values)
    database._layer_sums = layers
    header = database.header()
    database._values = None
    text = json.dumps(header, sort_keys=True).encode()
    if len(text) > room:
        raise RuntimeError(f"the header needs {len(text)} bytes, {room} were kept")  # pragma: no cover
    with open(part, "rb+") as handle:
        handle.write(_MAGIC)
        handle.write(room.to_bytes(8, "little"))
        handle.write(text + b" " * (room - len(text)))
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(part, 0o666 & ~_UMASK)
    os.replace(part, path)
    os.unlink(state_path)
    return load(path)


# --------------------------------------------------------------------------- comparison with the exact search


class _Replay(NamedTuple):
    """What the history-aware search of :func:`_path_value` reads and writes besides the position."""

    params: np.ndarray  # the rules
    binom: np.ndarray  # the database's binomials, offsets and values
    offsets: np.ndarray
    values: np.ndarray
    path: np.ndarray  # the ranks of the positions of the line
    budget: np.ndarray  # positions left, and whether they ran out
    own_side: bool  # a repetition gives each side its own seeds (else it splits them equally)


@jit(inline=False)
def _path_value(board, seeds, replay, base, ply, alpha, beta):
    """The value of ``board`` by a search that remembers the positions since the last capture.

    The position is ``path[ply]``; ``path[base..ply]`` are the positions of
    the line since the last capture (ranks in the layer; the player to move
    alternates, so a repetition is the same rank an even number of plies
    back).  A repetition ends the game: the seeds on the board are split
    equally (``own_side`` false: the database's game) or each side takes
    those on its side (the Abapa rules).  With ``own_side`` false a capture
    leads to the database's value of the position reached; with it true the
    search goes on there, so the whole continued game is searched under the
    Abapa rules.  ``budget[0]`` counts down the positions allowed;
    ``budget[1]`` is set when they ran out (the value is then meaningless).
    The other arrays and the flag are those of ``replay``.
    """
    params, binom, offsets, values = replay.params, replay.binom, replay.offsets, replay.values
    path, budget, own_side = replay.path, replay.budget, replay.own_side
    n = params[0]
    size = 2 * n
    budget[0] -= 1
    if budget[0] < 0 or ply + 1 >= path.shape[0]:
        budget[1] = 1
        return 0
    state = np.zeros(size + 5, dtype=np.int64)
    state[size + 4] = ONGOING
    for i in range(size):
        state[i] = board[i]
    out = np.empty(n, dtype=np.int64)
    count = legal_actions(state, params, out)
    if count == 0:
        return _ending(board, n, params[5])
    child = np.empty(size, dtype=np.int64)
    best = -(1 << 20)
    for step in range(2 * count):  # the captures first: they cost nothing and cut the search
        taken = _turned(board, out[step % count], n, params[3], child)
        if (taken > 0) != (step < count):
            continue
        rank = _rank(child, size, binom)
        if taken > 0:
            if own_side:
                path[ply + 1] = rank
                value = taken - _path_value(child, seeds - taken, replay, ply + 1, ply + 1, taken - beta, taken - alpha)
            else:
                value = taken - values[offsets[seeds - taken] + rank]
        else:
            repeated = False
            k = ply - 1
            while k >= base:
                if path[k] == rank:
                    repeated = True
                    break
                k -= 2
            if repeated:
                value = -_ending(child, n, params[5]) if own_side else 0
            else:
                path[ply + 1] = rank
                value = -_path_value(child, seeds, replay, base, ply + 1, -beta, -alpha)
        if budget[1]:
            return 0
        if value > best:
            best = value
            if best > alpha:
                alpha = best
                if alpha >= beta:
                    break
    return best


@dataclasses.dataclass(frozen=True)
class Comparison:
    """One position of the database compared with the exact history-aware searches.

    Attributes:
        index: the position's index; ``board`` its board, the mover's pits first.
        value: the database's value.
        results: ``(lead, predicted, found)`` triples: with the mover ahead
            by ``lead`` seeds already captured, the database predicts the
            result ``sign(lead + value)`` (1, 0, -1 for the player to move)
            and :meth:`awale.search.alphabeta.AlphaBeta.result` finds
            ``found`` under the Abapa rules (None beyond its budget).  The
            leads are ``-value`` (a predicted draw) when the value has the
            parity of the seeds on the board, else ``-value - 1`` and
            ``-value + 1`` (a value of the other parity comes from seeds
            split equally at a repetition): these pin the exact value down.
        replayed: for a disagreement, the value found again by a search
            that remembers the line since the last capture and ends a
            repetition with the seeds split equally (the database's game,
            searched move by move instead of by the fixed point); None
            beyond the budget.
    """

    index: int
    board: Tuple[int, ...]
    value: int
    results: Tuple[Tuple[int, int, Optional[int]], ...]
    replayed: Optional[int] = None

    @property
    def status(self) -> str:
        """``"agree"``, ``"explained"`` (by the repetition rule), ``"unexplained"`` or ``"undecided"``.

        A disagreement is explained when the search of the database's game
        that remembers the line finds the database's value: the database
        then holds the value of the game it states, and that game differs
        from the Abapa rules' only in how a repetition is scored (the end at
        more than half of the seeds changes no result: see
        :func:`captures_check`).  Undecided: a search ran out of its budget.
        """
        if all(found == predicted for _, predicted, found in self.results):
            return "agree"
        if any(found is None for *_, found in self.results) or self.replayed is None:
            return "undecided"
        return "explained" if self.replayed == self.value else "unexplained"


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _search_value(database: EndgameDatabase, board, own_side: bool, budget: int, alpha: int = -(1 << 20),
                  beta: int = 1 << 20) -> Optional[int]:
    n = database.rules.pits_per_side
    board = np.asarray(board, dtype=np.int64)
    seeds = int(board.sum())
    path = np.zeros(4096, dtype=np.int64)
    path[0] = _rank(board, 2 * n, database._binom)
    left = np.array([budget, 0], dtype=np.int64)
    values = np.asarray(database.values)
    replay = _Replay(np.array(database.rules.params), database._binom, database._offsets, values, path, left,
                     bool(own_side))
    value = _path_value(board, seeds, replay, 0, 0, alpha, beta)
    return None if left[1] else int(value)


def compare(database: EndgameDatabase, index: int, searcher, nodes: int = 1_000_000) -> Comparison:
    """Compare the value of the position ``index`` with the exact history-aware searches.

    Args:
        database: the database.
        index: a position with seeds on the board and a legal move.
        searcher: an :class:`awale.search.alphabeta.AlphaBeta` for the
            database's rules (the search sits above this module, which
            therefore takes it as an argument rather than importing it).
        nodes: positions each search may visit before giving up.

    Raises:
        ValueError: the position has no legal move, or a bad index.
    """
    board = database.board(index)
    rules = database.rules
    value = int(database.values[index])
    rest = rules.total_seeds - sum(board)
    results = []
    for lead in (-value,) if (value - rest) % 2 == 0 else (-value - 1, -value + 1):
        if abs(lead) > rest:
            continue  # no such split of the captured seeds
        game = Game.from_position(board, ((rest + lead) // 2, (rest - lead) // 2), 0, rules)
        searcher.clear()
        results.append((lead, _sign(lead + value), searcher.result(game, nodes)))
    comparison = Comparison(index, board, value, tuple(results))
    if comparison.status != "agree":
        comparison = dataclasses.replace(comparison, replayed=_search_value(database, board, False, 5 * nodes))
    return comparison


def search_check(database: EndgameDatabase, seeds: int, count: int, nodes: int = 100_000, seed: int = 0) -> Dict[str, int]:
    """Compare ``count`` random live positions of layer ``seeds`` with an exact search of the database's own game.

    The search (the one :func:`compare` replays disagreements with) plays
    the quiet moves out, remembering the line since the last capture and
    ending a repetition with the seeds on the board split equally; a capture
    leads to the database's value of the layer below.  It checks the layer's
    fixed point move by move, independently of how it was reached.  The
    search asks only whether the value is the database's ``v``, with the
    window ``(v - 1, v + 1)`` (αβ: a result strictly inside it is exact, one
    on its edge says the value is at most ``v - 1`` or at least ``v + 1``),
    which cuts most of the tree.

    Returns:
        ``{"agree": n, "disagree": n, "undecided": n}`` (undecided: the
        search ran out of its ``nodes``).

    Raises:
        ValueError: ``seeds`` is not a layer of the database with live positions.
    """
    seeds = _check_seeds(seeds, database.rules)
    if not 1 <= seeds <= database.seeds:
        raise ValueError(f"seeds must be from 1 to {database.seeds} for this database, got {seeds}")
    rng = np.random.default_rng(seed)
    low, high = int(database._offsets[seeds]), int(database._offsets[seeds + 1])
    params = np.array(database.rules.params)
    n = database.rules.pits_per_side
    state = np.zeros(2 * n + 5, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    chosen: Dict[int, None] = {}
    tries = 0
    while len(chosen) < min(count, high - low) and tries < 100 * count:
        tries += 1
        index = int(rng.integers(low, high))
        state[: 2 * n] = database.board(index)
        state[2 * n + 4] = ONGOING
        if index not in chosen and legal_actions(state, params, out) > 0:
            chosen[index] = None
    counts = {"agree": 0, "disagree": 0, "undecided": 0}
    for index in chosen:
        value = int(database.values[index])
        found = _search_value(database, database.board(index), False, nodes, value - 1, value + 1)
        if found is None:
            counts["undecided"] += 1
        else:
            counts["agree" if found == value else "disagree"] += 1
    return counts


def sample(database: EndgameDatabase, count: int, seed: int = 0, max_seeds: Optional[int] = None) -> List[int]:
    """``count`` distinct random indices of live positions (seeds on the board and a legal move).

    ``max_seeds`` (default: the database's) bounds the seeds on the board.
    """
    top = database.seeds if max_seeds is None else min(max_seeds, database.seeds)
    if top < 1:
        raise ValueError("the database has no position with seeds on the board to sample")
    rng = np.random.default_rng(seed)
    low, high = int(database._offsets[1]), int(database._offsets[top + 1])
    count = min(count, high - low)
    chosen: Dict[int, None] = {}
    params = np.array(database.rules.params)
    n = database.rules.pits_per_side
    state = np.zeros(2 * n + 5, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    while len(chosen) < count:
        index = int(rng.integers(low, high))
        state[: 2 * n] = database.board(index)
        state[2 * n + 4] = ONGOING
        if index not in chosen and legal_actions(state, params, out) > 0:
            chosen[index] = None
    return list(chosen)


# --------------------------------------------------------------------------- the captures question


class _Layer(NamedTuple):
    """The moves of a layer's positions: the rank reached by each (``moves``), its capture, and their count."""

    moves: np.ndarray
    caps: np.ndarray
    counts: np.ndarray


class _Splits(NamedTuple):
    """The win/draw/loss table by split of the captured seeds: ``flat``, each layer's offset into it (``base``),
    its first column's captures for the mover (``lower``) and its number of columns (``width``)."""

    flat: np.ndarray
    base: np.ndarray
    lower: np.ndarray
    width: np.ndarray


@jit
def _move_result(p, j, seeds, mine, theirs, half, layer, splits):
    """Win, draw or loss (1, 0, -1) for the mover of the move ``j`` of position ``p``, under the Abapa end.

    The mover has captured ``mine`` seeds and the opponent ``theirs``; a
    capture that takes the mover past half of the seeds wins at once.
    """
    taken = layer.caps[p, j]
    after = mine + taken
    if after > half:
        return 1
    if after == half and theirs == half:
        return 0
    to = seeds - taken
    return -splits.flat[splits.base[to] + layer.moves[p, j] * splits.width[to] + theirs - splits.lower[to]]


@jit(inline=False)
def _outcome_sweep(seeds, total, binom, layer, splits, collect):
    """One pass of the win/draw/loss recurrence over a layer, for every split of the captured seeds."""
    moves, counts = layer.moves, layer.counts
    flat, base, lower, width = splits.flat, splits.base, splits.lower, splits.width
    half = total // 2
    size = 2 * moves.shape[1]
    board = np.empty(size, dtype=np.int64)
    changed = 0
    for p in range(counts.shape[0]):
        ending = 0
        if counts[p] == 0:
            _unrank(p, seeds, size, binom, board)
            ending = _ending(board, size // 2, collect)
        for column in range(width[seeds]):
            mine = lower[seeds] + column
            theirs = total - seeds - mine
            if counts[p] == 0:
                lead = mine - theirs + ending
                best = (lead > 0) - (lead < 0)
            else:
                best = -2
                for j in range(counts[p]):
                    result = _move_result(p, j, seeds, mine, theirs, half, layer, splits)
                    if result > best:
                        best = result
            at = base[seeds] + p * width[seeds] + column
            if flat[at] != best:
                flat[at] = best
                changed += 1
    return changed


@jit(inline=False)
def _captures_errors(seeds, total, offsets, values, layer, splits, errors):
    """Count, over a layer and every split, results that break the two claims of :func:`captures_check`."""
    moves, caps, counts = layer.moves, layer.caps, layer.counts
    flat, base, lower, width = splits.flat, splits.base, splits.lower, splits.width
    half = total // 2
    for p in range(counts.shape[0]):
        value = values[offsets[seeds] + p]
        best = -(1 << 20)
        for j in range(counts[p]):
            taken = caps[p, j]
            move = taken - values[offsets[seeds - taken] + moves[p, j]]
            if move > best:
                best = move
        for column in range(width[seeds]):
            mine = lower[seeds] + column
            theirs = total - seeds - mine
            result = flat[base[seeds] + p * width[seeds] + column]
            lead = mine - theirs + value
            errors[0] += result != (lead > 0) - (lead < 0)
            for j in range(counts[p]):
                taken = caps[p, j]
                if taken - values[offsets[seeds - taken] + moves[p, j]] == best:
                    move_result = _move_result(p, j, seeds, mine, theirs, half, layer, splits)
                    errors[1] += move_result != result
            errors[2] += 1


def captures_check(database: EndgameDatabase, seeds: Optional[int] = None, progress: Optional[Progress] = None) -> Dict[str, int]:
    """Check, on every position and every split of the captured seeds, that captures already made change no best move.

    A second retrograde analysis solves the win/draw/loss game of the Abapa
    rules, where the game stops as soon as a player has more than half of the
    seeds, for every position with at most ``seeds`` seeds on the board
    (default: all of the database) and every split of the seeds already
    captured that leaves the game live; play that never captures again is
    scored as in the database (the seeds on the board split equally).  Two
    claims are then counted false where they fail:

    * ``value``: the result is the sign of the captured lead plus the
      database's value;
    * ``best``: every move with the best database value has the best result.

    Returns:
        ``{"value": errors, "best": errors, "cases": positions x splits checked}``.
    """
    top = database.seeds if seeds is None else _check_seeds(seeds, database.rules)
    top = min(top, database.seeds)
    rules = database.rules
    total, half, n = rules.total_seeds, rules.total_seeds // 2, rules.pits_per_side
    lower = np.array([max(0, half - s) for s in range(top + 1)], dtype=np.int64)
    width = np.array([min(half, total - s) - lower[s] + 1 if s else 0 for s in range(top + 1)], dtype=np.int64)
    sizes = [_layer_size(n, s) * int(width[s]) for s in range(top + 1)]
    base = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    flat = np.zeros(int(base[-1]), dtype=np.int8)
    values = np.array(database.values)
    errors = np.zeros(3, dtype=np.int64)
    small = dataclasses.replace(database)  # the same rules, cut at ``top`` seeds
    small.seeds = top
    for layer, moves, caps, counts in small._layers(progress, "checking the captures question"):
        if layer == 0:
            continue  # no live position: a capture that empties the board ends the game
        columns = flat[base[layer] : base[layer + 1]].reshape(-1, int(width[layer]))
        mine = lower[layer] + np.arange(width[layer])
        lead = 2 * mine - (total - layer)
        columns[:] = np.sign(lead)  # endless play: the seeds on the board split equally
        arrays, splits = _Layer(moves, caps, counts), _Splits(flat, base, lower, width)
        while _outcome_sweep(layer, total, database._binom, arrays, splits, rules.collect_remaining):
            pass
        _captures_errors(layer, total, database._offsets, values, arrays, splits, errors)
    return {"value": int(errors[0]), "best": int(errors[1]), "cases": int(errors[2])}
