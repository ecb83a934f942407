"""The transposition table of the αβ search (:mod:`awale.search.alphabeta`).

A table holds ``2**bits`` entries (:data:`ENTRY` records, one array), one per slot: a position's key goes to
slot ``key & (size - 1)``.  An entry holds the key, the value found, the depth searched, the flags (the bound
in the low two bits, and whether the subtree met no depth limit), the best move, the generation (the search
that wrote it) and, when several threads share the table, a check (:func:`entry_check`).  The kernels read
and write it only through :func:`probe`, :func:`answers` and :func:`store`; :func:`new_table`, :func:`clear`
and :func:`load` are for Python.
"""

from __future__ import annotations

from typing import NamedTuple, Tuple

import numpy as np

from ..core._jit import jit

__all__ = ["ENTRY_BYTES", "ENTRY", "Table", "Entry", "new_table", "clear", "load", "entry_check", "probe", "store",
           "answers", "EXACT", "LOWER", "UPPER", "COMPLETE"]

#: Flags: a bound in the low two bits, and whether the subtree met no depth limit.
EXACT, LOWER, UPPER, COMPLETE = 0, 1, 2, 4

#: One entry, a packed record: its fields lie side by side, so a probe reads one or two cache lines.
ENTRY = np.dtype([("key", np.int64), ("check", np.int64), ("value", np.int32), ("depth", np.int32),
                  ("generation", np.int16), ("flags", np.int8), ("move", np.int8)])

#: The bytes of one entry (28).
ENTRY_BYTES = ENTRY.itemsize

#: A table: a one-dimensional array of :data:`ENTRY` records, ``2**bits`` of them, indexed by slot.
Table = np.ndarray


class Entry(NamedTuple):
    """What :func:`probe` found: the stored move (-1: none), value, depth (-1: no entry) and flags."""

    move: int
    value: int
    depth: int
    flags: int


def new_table(bits: int) -> Table:
    """An empty table of ``2**bits`` entries."""
    table = np.zeros(1 << bits, dtype=ENTRY)
    clear(table)
    return table


def clear(table: Table) -> None:
    """Empty ``table``: no slot belongs to any search."""
    table["key"] = 0
    table["generation"] = -1


def load(table: Table, generation: int) -> Tuple[int, int, int]:
    """Slots written by search ``generation``, slots written by any search, and slots in all."""
    generations = table["generation"]
    return (int(np.count_nonzero(generations == generation)), int(np.count_nonzero(generations >= 0)),
            len(generations))


@jit
def entry_check(key, value, depth, flags, move):
    """What an entry's check holds: its key with its value, depth, flags and move packed into one word
    (63 bits, so no overflow compiled or not).  A slot written by two threads at once can hold the fields of
    one entry and the check of another: the check then does not match, and the slot is not read."""
    packed = (value & 0x3FFFFFF) | ((depth & 0x7FFFFFFF) << 26) | ((flags & 7) << 57) | ((move & 7) << 60)
    return key ^ packed


@jit
def probe(table, key, shared):
    """The :class:`Entry` of ``key``; ``Entry(-1, 0, -1, 0)`` when its slot holds another key, or, with
    ``shared``, an entry whose check does not match (another thread is writing it)."""
    entry = table[key & (table.shape[0] - 1)]
    if entry["key"] != key:
        return Entry(-1, 0, -1, 0)
    move, value = np.int64(entry["move"]), np.int64(entry["value"])
    depth, flags = np.int64(entry["depth"]), np.int64(entry["flags"])
    if shared and entry["check"] != entry_check(key, value, depth, flags, move):
        return Entry(-1, 0, -1, 0)
    return Entry(move, value, depth, flags)


@jit
def store(table, key, value, depth, flags, move, generation, shared):
    """Write an entry into the slot of ``key`` unless it holds another key of this search ``generation``
    searched deeper: an entry of an earlier search, or one searched less deep, is replaced."""
    entry = table[key & (table.shape[0] - 1)]
    if entry["key"] == key or entry["generation"] != generation or depth >= entry["depth"]:
        entry["key"] = key
        entry["value"] = value
        entry["depth"] = depth
        entry["flags"] = flags
        entry["move"] = move
        entry["generation"] = generation
        if shared:  # several threads write the table: each entry with its check
            entry["check"] = entry_check(key, value, depth, flags, move)


@jit
def answers(entry, depth, alpha, beta):
    """Whether ``entry`` gives the value of a search ``depth`` plies deep with the window ``(alpha, beta)``:
    it was searched to that depth, or to less when its subtree met no depth limit, and its bound decides."""
    complete = (entry.flags & COMPLETE) != 0
    if not (entry.depth == depth or (complete and depth >= entry.depth)):
        return False
    bound = entry.flags & 3
    return bound == EXACT or (bound == LOWER and entry.value >= beta) or (bound == UPPER and entry.value <= alpha)
