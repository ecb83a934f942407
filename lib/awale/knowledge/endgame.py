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
  of the repeated position; :func:`awale.offline.endgame_checks.compare`
  measures where that matters.

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
machine share one copy.  This module reads databases (the index, the file
format, :func:`load` and :func:`probe`); :mod:`awale.knowledge.endgame_build`
builds them: :func:`~awale.knowledge.endgame_build.build` solves a database in
memory, :func:`~awale.knowledge.endgame_build.build_file` writes a deep one
straight to its file, layer by layer on every core, and resumes a build that
was stopped.

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
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple

import numpy as np

from ..core._jit import jit, prange, set_threads
from ..core.game import Game
from ..core.engine import ONGOING, capture, legal_actions, sow
from ..core.rules import Rules, as_rules

__all__ = [
    "UNCOVERED",
    "probe",
    "FORMAT_VERSION",
    "MAX_SEEDS",
    "EndgameDatabase",
    "READ_VERSIONS",
    "VALUES_VERSION",
    "work_memory",
    "load",
    "position_count",
    "memory_needed",
    "probe_tables",
]

#: Version of the file layout written by :meth:`EndgameDatabase.save`.
FORMAT_VERSION = 2

#: Version of the values (the game solved and the index): files of any format with the same values version
#: hold the same values, so the cache names its files by it.
VALUES_VERSION = 1

#: The versions :func:`load` reads.  Version 1 had no per-layer checksums; the values are the same.
READ_VERSIONS = (1, 2)

UMASK = os.umask(0o022)  # read once (setting it is the only way to read it) and put back at once
os.umask(UMASK)

#: The largest ``S`` a database may have: values must fit a signed byte.
MAX_SEEDS = 120

MAGIC = b"AWALE-ENDGAME-DB"  # 16 bytes
NO_CAPTURE = -128  # "no capturing move" in the per-position best exit
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


def layer_size(pits_per_side: int, seeds: int) -> int:
    """Boards holding exactly ``seeds`` seeds."""
    return math.comb(seeds + 2 * pits_per_side - 1, 2 * pits_per_side - 1)


def queue_type(positions: int) -> type:
    """The integers of the count build's queue for a layer of ``positions``: 4 bytes, 8 from 2**31 positions on."""
    return np.int32 if positions < 2**31 else np.int64


def _count_bytes(positions: int) -> int:
    """Bytes the count build holds for a layer of ``positions``: its best captures and counts (a byte each)
    and its queue of settled positions."""
    return positions * (2 + np.dtype(queue_type(positions)).itemsize)


def work_memory(pits_per_side: int, seeds: int) -> int:
    """Bytes :func:`~awale.knowledge.endgame_build.build_file` holds beside the values at its peak: the work of
    the count build on the largest layer, six bytes a position."""
    return _count_bytes(layer_size(pits_per_side, seeds))


def memory_needed(pits_per_side: int, seeds: int, method: str = "counts") -> int:
    """Bytes a build in memory holds at its peak: the values, and the work of the largest layer.

    ``method="sweeps"`` holds the moves of the largest layer instead (about
    ``5 * pits_per_side + 3`` bytes a position).
    """
    largest = layer_size(pits_per_side, seeds)
    if method == "sweeps":
        return position_count(pits_per_side, seeds) + largest * (5 * pits_per_side + 3)
    return position_count(pits_per_side, seeds) + _count_bytes(largest)


@jit
def rank_of(board, size, binom):
    """Rank of ``board`` among the boards with as many seeds (co-lexicographic)."""
    rank = 0
    bar = -1
    for i in range(size - 1):
        bar += board[i] + 1
        rank += binom[bar, i + 1]
    return rank


@jit
def unrank(rank, seeds, size, binom, board):
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
def play_turned(board, action, n, grand_slam, child):
    """Play ``action`` for the owner of pits ``0..n-1``; ``child`` gets the board seen by the opponent.

    Returns the seeds captured.  The sowing and capture are the rules' own kernels.
    """
    size = 2 * n
    for i in range(size):
        child[i] = board[(i + n) % size]
    last = sow(child, action + n, size)
    return capture(child, last, 1, n, grand_slam)


@jit
def stuck_value(board, n, collect):
    """The value of a board whose mover has no legal move: each side takes its own seeds."""
    if not collect:
        return 0
    value = 0
    for i in range(n):
        value += board[i] - board[n + i]
    return value


@jit
def position_at(p, seeds, params, binom, board, state, out):
    """Write position ``p`` of layer ``seeds`` into ``board`` and its legal actions into ``out``; return how many.

    ``state`` is scratch of the rules' state length, its mover 0 and its game ongoing (as :func:`stuck_value` and
    every kernel here read a board: the mover's pits first).
    """
    size = 2 * params[0]
    unrank(p, seeds, size, binom, board)
    for i in range(size):
        state[i] = board[i]
    state[size + 2] = 0
    state[size + 4] = ONGOING
    return legal_actions(state, params, out)


@jit(inline=False)
def layer_moves(seeds, start, stop, params, binom, moves, caps, counts):
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
        count = position_at(p, seeds, params, binom, board, state, out)
        counts[p] = count
        for j in range(count):
            caps[p, j] = play_turned(board, out[j], n, params[3], child)
            moves[p, j] = rank_of(child, size, binom)


# --------------------------------------------------------------------------- the recurrence, checked


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
        count = position_at(p, seeds, params, binom, board, state, out)
        best = stuck_value(board, n, params[5]) if count == 0 else -(1 << 30)
        for j in range(count):
            taken = play_turned(board, out[j], n, params[3], child)
            rank = rank_of(child, size, binom)
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
    rank = 0  # rank_of of the board turned so that the mover's pits come first
    bar = -1
    for i in range(size - 1):
        bar += state[(i + n * mover) % size] + 1
        rank += binom[bar, i + 1]
    return state[size + mover] - state[size + 1 - mover] + values[offsets[seeds] + rank]


# --------------------------------------------------------------------------- the database


_BLOCK = 1 << 20  # positions per call of the recurrence check, between progress reports


def check_rules(rules: Optional[Rules]) -> Rules:
    rules = as_rules(rules)
    if rules.max_plies is not None:
        raise ValueError(
            f"an endgame database needs rules without max_plies (got {rules.max_plies}): "
            "a ply cap makes a position's value depend on the plies played"
        )
    return rules


def check_seeds(seeds: object, rules: Rules) -> int:
    if isinstance(seeds, bool) or not isinstance(seeds, (int, np.integer)):
        raise ValueError(f"seeds must be an integer, got {seeds!r}")
    seeds = int(seeds)
    if not 0 <= seeds <= min(MAX_SEEDS, rules.total_seeds):
        raise ValueError(f"seeds must be from 0 to {min(MAX_SEEDS, rules.total_seeds)} for these rules, got {seeds}")
    return seeds


@dataclasses.dataclass
class EndgameDatabase:
    """The exact values of every position with at most :attr:`seeds` seeds on the board.

    Build one with :func:`awale.knowledge.endgame_build.build`, read one with :func:`load`.  Values are for
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
        return int(self._offsets[seeds] + rank_of(turned, 2 * n, self._binom))

    def board(self, index: int) -> Tuple[int, ...]:
        """The board (the mover's pits first) of an index."""
        if not 0 <= index < len(self):
            raise ValueError(f"index must be from 0 to {len(self) - 1}, got {index}")
        seeds = int(np.searchsorted(self._offsets, index, side="right") - 1)
        board = np.empty(2 * self.rules.pits_per_side, dtype=np.int64)
        unrank(index - int(self._offsets[seeds]), seeds, board.shape[0], self._binom, board)
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
            taken = play_turned(board, action, n, self.rules.params[3], child)
            index = self._offsets[int(child.sum())] + rank_of(child, 2 * n, self._binom)
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
            size = layer_size(n, seeds)
            moves = np.zeros((size, n), dtype=np.int32)
            caps = np.zeros((size, n), dtype=np.int8)
            counts = np.zeros(size, dtype=np.int8)
            chunk = max(1, size // 20)
            for start in range(0, size, chunk):
                layer_moves(seeds, start, min(size, start + chunk), params, self._binom, moves, caps, counts)
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
        return layer_digest(self.values) == self.checksum

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
        return layer_digest(self.values[int(self._offsets[seeds]) : int(self._offsets[seeds + 1])])

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
                handle.write(MAGIC)
                handle.write(len(text).to_bytes(8, "little"))
                handle.write(text)
                handle.write(values.tobytes())
                handle.flush()
                os.fsync(handle.fileno())  # whole on disk before it takes the name
            os.chmod(temporary, 0o666 & ~UMASK)  # mkstemp's file is private; give it the usual mode
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def load(path: str, verify: bool = False) -> EndgameDatabase:
    """Open a database written by :meth:`EndgameDatabase.save` or :func:`~awale.knowledge.endgame_build.build_file`;
    the values are mapped on first use.

    The values are mapped read-only, so every process probing the same file
    shares one copy of them in memory.  With ``verify`` each layer is checked
    against its SHA-256 in the header (and the whole against its own).

    Raises:
        ValueError: the file is not such a database, is truncated, or (with
            ``verify``) does not match its checksums.
        OSError: the file cannot be read.
    """
    with open(path, "rb") as handle:
        magic = handle.read(len(MAGIC))
        if magic != MAGIC:
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
        database = EndgameDatabase(rules, int(header["seeds"]), path, None, len(MAGIC) + 8 + length, header["sha256"])
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


def layer_digest(values: np.ndarray) -> str:
    """SHA-256 of a layer's values, read in pieces (a mapped layer is not read into memory at once)."""
    digest = hashlib.sha256()
    for start in range(0, values.shape[0], 1 << 26):
        digest.update(np.ascontiguousarray(values[start : start + (1 << 26)]).tobytes())
    return digest.hexdigest()


