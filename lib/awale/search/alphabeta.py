"""αβ negamax search over the rule kernels, with a transposition table.

The search is the αβ procedure of Knuth & Moore (1975), "An analysis of
alpha-beta pruning", *Artificial Intelligence* 6(4), in its negamax, fail-soft
form, with iterative deepening, move ordering (the transposition table's move
first, then captures by size; a history heuristic after them was measured and
left out, see the README), a transposition table (:mod:`awale.search.table`),
and bounds from the seeds still on the board (no line can score better than
the mover taking them all).  Moves are made by :func:`awale.core.rules.advance`:
no rule is written twice.

:func:`solve`, :func:`result` and :func:`action_values` answer one question
with a fresh table; an :class:`AlphaBeta` keeps its table between searches,
and its :meth:`~AlphaBeta.search` finds the best actions within a depth or a
time.

Values are from the point of view of the player to move.  A position at the
depth limit scores its capture difference (the mover's captures minus the
opponent's); a finished game scores ``WIN + |capture difference|`` for the
winner, the negation for the loser and 0 for a draw (a draw at ``max_plies``
too, whatever the captures).  The sign of a value is therefore the
game-theoretic result, and wider wins are preferred.

The repetition rule makes the value of a position depend on the positions
seen since the last capture, so the table is keyed by a Zobrist hash of the
position (board, player to move, captures, and plies when ``max_plies`` is
set) XOR an order-independent hash of the set of positions in that history:
the sum of their Zobrist hashes modulo ``2**62``.  (Not their XOR: a Zobrist
hash is itself an XOR, so the XOR of a set would only see, for each pit and
count, whether an odd number of the positions have it, and distinct sets
would share keys.)  The history empties at every capture, so transpositions
after a capture still meet.

An entry answers a probe at the depth it was searched to, or at any greater
depth when its subtree met no depth limit (it is then exact to the end of the
game).  A depth-limited search without quiescence thus returns exactly the
depth-limited minimax value, whatever the table holds, and ``depth=None``
gives the exact value of the game.  With quiescence it need not: how far the
capture extensions reach depends on the ply where a position is met, which
the key does not hold, so an entry stored by one search can answer another
(searching depths 6, 8, 10 and then 8 again on one table has given a move
-11 where a fresh table gives -9); the book grower clears the table before
each position for that reason.

With an endgame database (:mod:`awale.knowledge.endgame`), a position below the root
with at most the database's seeds on the board is not searched: it scores
the result the database gives, ``WIN + |d|`` for the mover if ``d > 0``,
the negation if ``d < 0`` and 0 for a draw, where ``d`` is the captured
lead plus the database's value (the final capture difference of the
continued game).  The sign of that score is exact for the game the database
solves, whose repetitions split the seeds on the board equally and which
ignores the history below the probed position; its margin is that of the
continued game rather than of the Abapa end at more than half of the seeds.
Such a score counts as exact (it meets no depth limit).

With an evaluation (:class:`awale.knowledge.evaluation.Evaluation`), a position at the
depth limit scores ``round(EVAL_SCALE * logit)`` instead of its capture
difference, kept below ``WIN`` in size: the fitted estimate of its result,
on a scale that leaves every finished or exactly known game above it.  With
``quiescence=q``, a position at the depth limit in which the player to move
can capture is searched one ply deeper instead of being scored, up to ``q``
plies beyond the nominal depth: a search should not stop in the middle of an
exchange of captures (the horizon effect).  Neither changes a search without
them.

Quiescence and the refinements below are the fields of one :class:`Enhancements` value given to
:class:`AlphaBeta` (``AlphaBeta(rules, enhancements=Enhancements(quiescence=4, pvs=True))``), which checks them.

With ``pvs=True`` the search is a principal variation search (Marsland & Campbell 1982; Reinefeld
1983): below the root, the first child of a position (the table's move, else the largest capture) is
searched with the window, each later one with the null window just above alpha, which costs less and
only proves it no better, and searched again with the window when it proves better.  Each iteration of
iterative deepening after the first starts with an aspiration window of :data:`ASPIRATION` points around
the previous iteration's value, and searches again with the open window when the value falls outside it.
Both return the same values as the plain search (a fail-soft null-window search bounds the value on the
side it fails), in fewer nodes when the first child is usually the best.

With ``reductions=True`` (late-move reductions), a child that captures nothing and is not among the first
two searched (the table's move and the largest captures come first) is searched one ply less deep
with the null window just above alpha, and again to its full depth only when it beats alpha: a bet that
late quiet moves are bad.  It changes values at a fixed depth (not those of a search to the end, which has
no depth to reduce) for fewer nodes, so deeper iterations in the same time.

With ``killers=True`` (the killer heuristic of chess programs), the last two quiet actions that cut off
a search at a ply are searched first among the quiet children of the other positions at that ply, after the
table's move and the captures.  Moves are only reordered: a plain search keeps its values and its best
actions and visits other positions (about 1 % fewer at depth 10, 4 % fewer with ``reductions``, whose
reduced children are the late ones of the new order; ``make bench``).  The killers are forgotten at the
start of each search.

With ``iid=True`` (internal iterative deepening), a position below the root searched at least four plies deep
with a window wider than the null window, for which the table has no move, is first searched two plies less
deep (without capture extensions); its best move there is searched first at the full depth.  Without
``reductions`` and quiescence the values are those of the plain search; only the order, and so the positions
visited, change.

With ``mtdf=True`` (MTD(f) of Plaat, Schaeffer, Pijls & de Bruin, 1995), each iteration of iterative
deepening after the first finds the root's value by null-window searches alone, starting from the previous
iteration's value: each asks whether the value is below a bound, and the fail-soft answer moves the bound,
until an upper and a lower bound meet.  The transposition table keeps the work of each pass for the next.
The root's actions of that value (the ties) are then found by one more search with the window just
around it.  Without ``reductions`` and quiescence, whose searches depend on the window, the values are those
of the plain search.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import threading
import time as _time
from time import perf_counter as _clock
from typing import Callable, ContextManager, Dict, Iterable, Iterator, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ..core._guard import stop_at, stop_on_signal
from ..core.control import Progress, current, detached
from ..core._jit import jit
from ..knowledge.endgame import UNCOVERED, EndgameDatabase, probe_tables
from ..knowledge.endgame import probe as probe_endgame
from ..knowledge.evaluation import FEATURES, N_FEATURES, Evaluation, logit, moves_and_best_capture
from ..core.game import Game
from ..core.engine import DRAW, ONGOING, advance, game_arrays
from ..core.rules import Rules, as_rules
from .table import (COMPLETE, ENTRY_BYTES, EXACT, LOWER, UPPER, Table, answers, clear, load, new_table, probe,
                    store)

__all__ = [
    "WIN", "EVAL_SCALE", "ASPIRATION", "MAX_QUIESCENCE", "MAX_DEPTH", "MAX_NODES", "ENTRY_BYTES", "TABLE_BITS",
    "MAX_TABLE_BITS", "MAX_THREADS",
    "AlphaBeta", "Enhancements", "SearchResult", "Iteration", "TimePlan", "TableLoad", "solve", "result", "action_values",
    "points_per_seed",
    "Workspace", "Line",
]

#: Half the width, in points, of the aspiration window of a search with ``pvs`` (around the value of the
#: previous iteration).
ASPIRATION = 10

#: Base score of a won game (plus the capture difference).
WIN = 1000

#: Evaluated positions score ``EVAL_SCALE`` points per unit of the evaluation's logit.
EVAL_SCALE = 20

#: The most plies a quiescence extension may add beyond the nominal depth.
MAX_QUIESCENCE = 32

#: The longest line searched.  Each ply of a line takes a few kilobytes of the
#: thread's stack; 1000 plies keep well inside the usual 8 MB.
MAX_DEPTH = 1000

#: The transposition table's default size: ``2**TABLE_BITS`` entries (28 bytes each: 28 MB).
TABLE_BITS = 20

#: The largest table: ``2**MAX_TABLE_BITS`` entries (28 GB).
MAX_TABLE_BITS = 30

#: The most threads one search may run on (:class:`AlphaBeta`'s ``threads``).
MAX_THREADS = 64

#: The largest node budget of :meth:`AlphaBeta.search` (about a day's search at 10 million nodes a second).
MAX_NODES = 10**12

_BIG = 1 << 24  # beyond every score: the open window
_INFINITE = 1 << 30  # the depth of a search to the end of the game; it is never decremented
_UNLIMITED = 1 << 62  # a node budget never reached
_UNSEARCHED = -_BIG - 1  # the value of a root action not yet searched in a cut iteration
_MASK62 = (1 << 62) - 1  # history hashes add modulo 2**62: no int64 overflow, compiled or not

# Entries of the control array shared by Python and the kernels.
(_NODES, _HORIZON, _STATUS, _BUDGET, _GENERATION, _PLIES, _TIES, _TOTAL, _PROBES, _EVALUATE, _REACH, _SCOUT,
 _REDUCE, _KILLERS, _IID, _SHARED, _STOP) = range(17)
_RUNNING, _OUT_OF_NODES, _OUT_OF_STACK = 0, 1, 2

# Children of a position searched before the first that ``reductions`` may search less deep.
_LATE = 2

# Internal iterative deepening: a position searched at least _IID_DEPTH plies deep with a window wider than the
# null window and no move from the table is first searched _IID_REDUCTION plies less deep (without quiescence),
# for the move to search first.
_IID_DEPTH, _IID_REDUCTION = 4, 2

# Columns of the per-child information.
_ACTION, _CAPTURED, _LENGTH, _COUNT = range(4)



class Workspace(NamedTuple):
    """What the αβ kernels share: the rules, the hash tables, the per-ply buffers, the transposition table,
    the control array and the evaluation's work space.  One structure, passed whole.

    Attributes:
        params: the rules (:attr:`Rules.params`).
        zpos, zhist, zply: Zobrist tables of positions, of history rows and of ply counts.
        kids: ``(plies, n, 2n + 5)``: the children of the position at each ply.
        kid_moves: ``(plies, n, n)``: their legal actions.
        kid_info: ``(plies, n, 4)``: their action, capture, history length and count of legal actions.
        order: ``(plies, n)``: the order in which they are searched.
        killers: ``(MAX_DEPTH + 1, 2)``: the last two quiet actions that cut off a search at each ply (-1: none).
        stash_keys, stash_boards: each child's history row, kept while its siblings are made.
        hkeys, hboards: the history of the line searched.
        table: the transposition table (:data:`awale.search.table.ENTRY` records); on several threads
            (``ctl[_SHARED]``) each entry is written with its check and read only where it matches.
        values: the value of each root action.
        ctl: the control array shared with Python (``_NODES``, ``_STATUS``, ...).
        endgame: the endgame database's probe tables.
        weights, work, replies, row: the evaluation's weights and work space.
    """

    params: np.ndarray
    zpos: np.ndarray
    zhist: np.ndarray
    zply: np.ndarray
    kids: np.ndarray
    kid_moves: np.ndarray
    kid_info: np.ndarray
    order: np.ndarray
    killers: np.ndarray
    stash_keys: np.ndarray
    stash_boards: np.ndarray
    hkeys: np.ndarray
    hboards: np.ndarray
    table: Table
    values: np.ndarray
    ctl: np.ndarray
    endgame: tuple
    weights: np.ndarray
    work: np.ndarray
    replies: np.ndarray
    row: np.ndarray


class Line(NamedTuple):
    """Where a position of the line searched stands: its history (rows ``base .. base + length - 1`` of the
    workspace's history arrays), the hash of that history, and its distance from the root."""

    base: int
    length: int
    history: int
    ply: int


# --------------------------------------------------------------------------- kernels


@jit
def _score(state, size):
    """The static value of ``state`` for the player to move (see the module docstring)."""
    mover = state[size + 2]
    difference = state[size + mover] - state[size + 1 - mover]
    outcome = state[size + 4]
    if outcome == ONGOING:
        return difference
    if outcome == DRAW:
        return 0
    margin = WIN + abs(difference)
    return margin if outcome == mover else -margin


@jit
def _exact_score(difference):
    """The score of a position whose final capture difference for the mover is ``difference``."""
    if difference > 0:
        return WIN + difference
    if difference < 0:
        return difference - WIN
    return 0


@jit(inline=False, allocates=False)
def _evaluated(state, ws):
    """The evaluation's scaled logit of an unfinished ``state``, kept below ``WIN`` in size.

    Out of line, like :func:`_expand`, so that the recursive kernel stays small.
    """
    scaled = logit(state, ws.params, ws.weights, ws.work, ws.replies, ws.row)
    limit = WIN - 1
    return max(-limit, min(limit, round(EVAL_SCALE * scaled)))


@jit
def _leaf_score(state, size, ws):
    """The score of a leaf: :func:`_score`, or with an evaluation its scaled logit for an unfinished game."""
    if ws.ctl[_EVALUATE] == 0 or state[size + 4] != ONGOING:
        return _score(state, size)
    return _evaluated(state, ws)


@jit(inline=False, allocates=False)
def _can_capture(state, ws):
    """Whether the player to move in ``state`` has a move that captures."""
    size = state.shape[0] - 5
    return moves_and_best_capture(state, ws.params, state[size + 2], ws.work, ws.replies)[1] > 0


@jit
def _is_leaf(count, depth, ctl):
    """Whether a position with ``count`` legal actions is a leaf; count those at the depth limit."""
    if count > 0 and depth == 0:
        ctl[_HORIZON] += 1
    return count == 0 or depth == 0


@jit
def _copy(target, source):
    """``target[:] = source`` for two distinct rows (a slice assignment would need numba's runtime)."""
    for i in range(target.shape[0]):
        target[i] = source[i]


@jit
def _board_hash(pits, player, table, size):
    """Zobrist hash of ``pits[:size]`` and the player: rows ``0..size-1`` and ``size`` of ``table``."""
    key = table[size, player]
    for i in range(size):
        key ^= table[i, pits[i]]
    return key


@jit
def _position_hash(state, size, zpos, zply, plies_matter):
    """Zobrist hash of the board, the player to move, the captures and (if they matter) the plies."""
    key = _board_hash(state, state[size + 2], zpos, size) ^ zpos[size + 1, state[size]]
    if plies_matter:
        plies = state[size + 3]
        for byte in range(zply.shape[0]):
            key ^= zply[byte, (plies >> (8 * byte)) & 255]
    return key


@jit
def _with_row(history, pits, player, zhist, size):
    """The hash of a history (a set of positions) with the position ``pits, player`` added."""
    return (history + (_board_hash(pits, player, zhist, size) & _MASK62)) & _MASK62


@jit(inline=False, allocates=False)
def _history_hash(boards, length, zhist, size):
    """The hash of the set of the first ``length`` rows (pits, then player) of a history."""
    key = 0
    for j in range(length):
        key = _with_row(key, boards[j], boards[j, size], zhist, size)
    return key


@jit
def _rank(action, captured, tt_move, ply, ws):
    """Where a child comes in the search order, higher first: the table's move, then by the seeds it captures,
    then, with killer moves, the ply's first killer and its second before the other quiet moves."""
    if action == tt_move:
        return _BIG
    rank = 4 * captured
    if ws.ctl[_KILLERS] != 0 and captured == 0:
        if action == ws.killers[ply, 0]:
            rank = 2
        elif action == ws.killers[ply, 1]:
            rank = 1
    return rank


@jit(inline=False, allocates=False)
def _expand(state, moves, count, line, tt_move, ws):
    """Make every child of ``state`` into ``kids[ply]`` and order them into ``order[ply]``.

    The history of ``state`` is rows ``base .. base+length-1`` of the shared
    history arrays.  :func:`advance` appends a child's row after them, or
    writes it over row ``base`` after a capture (the history restarts); the
    row is stashed and row ``base`` restored, and :func:`_enter` puts the row
    back, at ``base + length`` either way, when the child is searched.
    """
    base, length, ply = line.base, line.length, line.ply
    params, kids, kid_moves, kid_info, order = ws.params, ws.kids, ws.kid_moves, ws.kid_info, ws.order
    stash_keys, stash_boards, hkeys, hboards = ws.stash_keys, ws.stash_boards, ws.hkeys, ws.hboards
    spare = hkeys.shape[0] - 1  # the last row keeps row ``base`` during a capture
    hkeys[spare] = hkeys[base]
    _copy(hboards[spare], hboards[base])
    for j in range(count):
        child = kids[ply, j]
        _copy(child, state)
        captured, new_length, child_count = advance(
            child, params, moves[j], hkeys[base:], hboards[base:], length, kid_moves[ply, j]
        )
        kid_info[ply, j, _ACTION] = moves[j]
        kid_info[ply, j, _CAPTURED] = captured
        kid_info[ply, j, _LENGTH] = new_length
        kid_info[ply, j, _COUNT] = child_count
        if child_count > 0 and new_length > 0:
            row = base + new_length - 1
            stash_keys[ply, j] = hkeys[row]
            _copy(stash_boards[ply, j], hboards[row])
        if captured > 0:
            hkeys[base] = hkeys[spare]
            _copy(hboards[base], hboards[spare])
        # Insertion sort: the table's move first, then larger captures, then (with killers) the ply's killer
        # moves, then lower actions.
        rank = _rank(moves[j], captured, tt_move, ply, ws)
        k = j
        while k > 0:
            other = order[ply, k - 1]
            other_rank = _rank(moves[other], kid_info[ply, other, _CAPTURED], tt_move, ply, ws)
            if other_rank >= rank:
                break
            order[ply, k] = other
            k -= 1
        order[ply, k] = j


@jit
def _enter(line, j, ws):
    """Restore the history of child ``j`` of ``kids[line.ply]``; return its :class:`Line`."""
    base, length, history, ply = line.base, line.length, line.history, line.ply
    zhist, kids, kid_info, hkeys, hboards = ws.zhist, ws.kids, ws.kid_info, ws.hkeys, ws.hboards
    captured = kid_info[ply, j, _CAPTURED]
    new_length = kid_info[ply, j, _LENGTH]
    child_base = base if captured == 0 else base + length
    child_history = 0
    if kid_info[ply, j, _COUNT] > 0 and new_length > 0:
        row = base + length
        hkeys[row] = ws.stash_keys[ply, j]
        _copy(hboards[row], ws.stash_boards[ply, j])
        child = kids[ply, j]
        size = child.shape[0] - 5
        child_history = _with_row(history if captured == 0 else 0, child, child[size + 2], zhist, size)
    return Line(child_base, new_length, child_history, ply + 1)


@jit
def _remember_killer(ws, ply, j, root):
    """With killer moves, make child ``j`` of ``kids[ply]``, which just cut off a search below the root, that
    ply's first killer move if it captures nothing."""
    if ws.ctl[_KILLERS] == 0 or root or ws.kid_info[ply, j, _CAPTURED] != 0:
        return
    killers, action = ws.killers, ws.kid_info[ply, j, _ACTION]
    if killers[ply, 0] != action:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = action


@jit
def _entered(ply, ctl, plies):
    """Count a visit to a position at ``ply``; False (and the status set) once the search must stop: out of
    nodes, stopped (the one stop flag), or deeper than the ``plies`` of the per-ply buffers."""
    ctl[_NODES] += 1
    if ctl[_NODES] > ctl[_BUDGET] or ctl[_STOP] != 0:
        ctl[_STATUS] = _OUT_OF_NODES
        return False
    if ply >= plies:
        ctl[_STATUS] = _OUT_OF_STACK
        return False
    return True


@jit
def _seed_bound(state, size, alpha, beta, total):
    """A value outside the window that ``state`` cannot escape, or ``_UNSEARCHED``: captures only grow, so no
    line ends better than the mover taking every seed left, nor worse than the opponent doing so (at any
    depth)."""
    mover = state[size + 2]
    ceiling = WIN + total - 2 * state[size + 1 - mover]
    if ceiling <= alpha:
        return ceiling
    bottom = 2 * state[size + mover] - WIN - total
    if bottom >= beta:
        return bottom
    return _UNSEARCHED


@jit
def _first_pass(depth, alpha, beta, tt_move, root, ctl):
    """The depth of the first pass over the children: with internal iterative deepening and no move from the
    table, a shallower search first, whose best move is then searched first (not at the root, where iterative
    deepening is already)."""
    if ctl[_IID] != 0 and tt_move < 0 and not root and _IID_DEPTH <= depth < _INFINITE and beta - alpha > 1:
        return depth - _IID_REDUCTION
    return depth


@jit
def _unsearched_value(ply, j, child_depth, quiesce, ws):
    """The value of child ``j`` of ``kids[ply]`` when it needs no search (for its parent: in the endgame
    database, or a leaf), else ``_UNSEARCHED``; and whether it is searched on by quiescence.  With ``quiesce``,
    a child at the depth limit where the mover can capture is searched one ply deeper (up to the reach)."""
    ctl, child = ws.ctl, ws.kids[ply, j]
    size = child.shape[0] - 5
    child_count = ws.kid_info[ply, j, _COUNT]
    exact = probe_endgame(child, size, ws.endgame)
    if exact != UNCOVERED:  # its exact result, searched no further
        ctl[_NODES] += 1
        ctl[_PROBES] += 1
        return -_exact_score(exact), False
    extend = (quiesce and child_count > 0 and child_depth == 0 and ply + 1 < ctl[_REACH]
              and _can_capture(child, ws))
    if not extend and _is_leaf(child_count, child_depth, ctl):
        ctl[_NODES] += 1
        return -_leaf_score(child, size, ws), False
    return _UNSEARCHED, extend


@jit
def _window(k, j, ply, child_depth, alpha, beta, root, ctl, kid_info):
    """Whether the ``k``-th child searched, ``j``, of ``kids[ply]`` is first searched with the null window
    above ``alpha`` (principal variation search: a child after the first, not at the root, whose ties need
    exact values) and one ply shallower (a late-move reduction: a child that captures nothing, ordered after the
    first ``_LATE``)."""
    scout = ctl[_SCOUT] != 0 and not root and k > 0 and beta - alpha > 1
    reduce = (
        ctl[_REDUCE] != 0 and not root and k >= _LATE and 2 <= child_depth < _INFINITE
        and kid_info[ply, j, _CAPTURED] == 0
    )
    return scout, reduce


@jit
def _record(key, best, floor, beta, depth, best_move, complete, ctl, table):
    """Store the value ``best`` found with the window ``(floor, beta)`` in the table, with its bound."""
    flags = UPPER if best <= floor else LOWER if best >= beta else EXACT
    if complete:
        flags |= COMPLETE
    store(table, key, best, depth, flags, best_move, ctl[_GENERATION], ctl[_SHARED] != 0)


@jit(inline=False, allocates=False)
def _negamax(state, moves, count, line, depth, alpha, beta, ws):
    """The fail-soft αβ value of ``state``, not a leaf, searched ``depth`` plies deep.

    Leaves (finished games, and positions at the depth limit) are scored by their parent, without a call (see
    the module docstring for the scores).  The root (``ply == 0``) also writes the value of each action
    ``moves[j]`` into ``ws.values[j]``.  When ``ctl[_TIES]`` is set each action is searched with the window
    ``(best - 1, beta)``: called with the open window, the actions whose value equals the best are exact, the
    others upper bounds below it.  Otherwise every action is searched with the root's window.  The root is
    this same function (not a caller of it) because numba's cache mishandles a recursive kernel called from
    another kernel; for the same reason there is one recursive call site only.

    Args:
        state, moves, count: the position, its legal actions and how many (at least one).
        line: its :class:`Line` (history and distance from the root: the row of the per-ply buffers).
        depth: plies left to search, at least one; ``_INFINITE`` searches to the end.
        alpha, beta: the window.
        ws: the :class:`Workspace` built by :class:`AlphaBeta`.

    Returns:
        The value, or 0 once ``ctl[_STATUS]`` says the search was stopped.
    """
    ply, ctl = line.ply, ws.ctl
    kids, kid_moves, kid_info, order = ws.kids, ws.kid_moves, ws.kid_info, ws.order
    size = state.shape[0] - 5
    root = ply == 0
    if not _entered(ply, ctl, kids.shape[0]):
        return 0
    bound = _seed_bound(state, size, alpha, beta, ctl[_TOTAL])
    if bound != _UNSEARCHED:
        return bound
    key = _position_hash(state, size, ws.zpos, ws.zply, ctl[_PLIES]) ^ line.history
    entry = probe(ws.table, key, ctl[_SHARED] != 0)
    if not root and answers(entry, depth, alpha, beta):
        if entry.flags & COMPLETE == 0:
            ctl[_HORIZON] += 1  # the value came from a depth-limited search
        return entry.value
    tt_move = entry.move
    floor = alpha
    passing = _first_pass(depth, alpha, beta, tt_move, root, ctl)
    while True:
        horizon = ctl[_HORIZON]  # depth limits met below this position in this pass (not in a shallower one)
        alpha = floor
        _expand(state, moves, count, line, tt_move, ws)
        child_depth = passing - 1 if passing < _INFINITE else passing
        best = -_BIG
        best_move = -1
        for k in range(count):
            j = order[ply, k]
            if root:
                alpha = best - 1 if ctl[_TIES] and best > floor else floor
            value, extend = _unsearched_value(ply, j, child_depth, passing == depth, ws)
            if value == _UNSEARCHED:
                scout, reduce = _window(k, j, ply, child_depth, alpha, beta, root, ctl, kid_info)
                top = alpha + 1 if scout or reduce else beta
                searched = 1 if extend else child_depth - 1 if reduce else child_depth
                while True:
                    value = -_negamax(
                        kids[ply, j], kid_moves[ply, j], kid_info[ply, j, _COUNT], _enter(line, j, ws), searched,
                        -top, -alpha, ws,
                    )
                    if ctl[_STATUS] != _RUNNING:
                        return 0
                    if reduce and value > alpha:
                        reduce = False
                        searched = child_depth  # the reduced search failed high: the full depth decides
                        top = alpha + 1 if scout else beta
                        continue
                    if top == beta or value <= alpha or value >= beta:
                        break
                    top = beta  # the null window failed high inside (alpha, beta): the full window decides
            if root:
                ws.values[j] = value
            if value > best:
                best = value
                best_move = kid_info[ply, j, _ACTION]
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        _remember_killer(ws, ply, j, root)
                        break
        if passing == depth:
            break
        tt_move = best_move  # the shallower search's best move is searched first at the full depth
        passing = depth
        ctl[_HORIZON] = horizon  # the shallower pass's depth limits do not make this search depth-limited
    _record(key, best, floor, beta, depth, best_move, ctl[_HORIZON] == horizon, ctl, ws.table)
    return best


# --------------------------------------------------------------------------- the Python API


@dataclasses.dataclass(frozen=True)
class SearchResult:
    """What :meth:`AlphaBeta.search` found.

    Attributes:
        value: the value of the position for the player to move.
        best_actions: the actions of that value, ascending.
        depth: the depth of the deepest completed iteration (``None`` when
            the game was searched to its end).
        exact: whether the search reached the end of the game everywhere,
            so that ``value`` is the game-theoretic value.
        nodes: positions visited, in all iterations.
        seconds: time taken.
        probes: positions scored by the endgame database, in all iterations
            (0 without one).
    """

    value: int
    best_actions: Tuple[int, ...]
    depth: Optional[int]
    exact: bool
    nodes: int
    seconds: float
    probes: int = 0


@dataclasses.dataclass(frozen=True)
class Iteration:
    """A completed iteration of iterative deepening, as :meth:`AlphaBeta.search` shows it to a time plan.

    Attributes:
        depth: the iteration's depth.
        value: the value it found for the player to move.
        best_actions: the actions of that value, ascending.
        seconds: the time since the search began, at the end of this iteration.
        cost: the time this iteration took.
    """

    depth: int
    value: int
    best_actions: Tuple[int, ...]
    seconds: float
    cost: float


class TableLoad(NamedTuple):
    """How full the transposition table is (:meth:`AlphaBeta.table_load`).

    Attributes:
        current: slots written by the last search (an entry of an earlier search may be replaced freely).
        used: slots written by any search since the table was last cleared.
        size: slots in all.
    """

    current: int
    used: int
    size: int


#: A time plan: given the iterations completed so far, the seconds the whole search may take (from its start).
TimePlan = Callable[[Sequence[Iteration]], float]


def _deadline(seconds: float) -> float:
    """The moment ``seconds`` from now on the deadline timer's clock (:func:`awale.core._guard.stop_at`)."""
    return _clock() + seconds


def _growth(last: float, previous: float) -> float:
    """How much longer the next iteration of iterative deepening is predicted to take than the last one.

    The ratio of the last two iterations' costs (time or nodes), kept within 1 to 8 (tiny costs are noisy),
    and 4 when there is only one iteration so far.
    """
    return min(max(last / previous if previous > 0 else 4.0, 1.0), 8.0)


def _cut_iteration(actions: Sequence[int], values: np.ndarray, low: int, found: tuple) -> tuple:
    """What an iteration cut at the deadline adds to ``found``, the result of the last completed one.

    Each root action searched before the cut has its value at the new depth (exact, or an upper bound below
    the best one's).  Once one of ``found``'s best actions is among them, the best of them is at least as good
    at the new depth, so they decide; otherwise ``found`` stands, as it does when every value searched fell
    below the root's window (``low``) and so is only a bound.
    """
    searched = {action: int(v) for action, v in zip(actions, values) if v != _UNSEARCHED}
    if not any(action in searched for action in found[1]):
        return found
    value = max(searched.values())
    if value <= low:
        return found
    return (value, tuple(sorted(a for a, v in searched.items() if v == value)), found[2], False)


def _check_depth(depth) -> int:
    """The depth for the kernels: ``depth`` checked, or ``_INFINITE`` for None."""
    if depth is None:
        return _INFINITE
    if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, (int, np.integer)):
        raise ValueError(f"depth must be a positive integer or None, got {depth!r}")
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be from 1 to {MAX_DEPTH} (or None for no limit), got {depth}")
    return int(depth)


@dataclasses.dataclass(frozen=True)
class Enhancements:
    """The refinements of an :class:`AlphaBeta` search beyond plain αβ with its table (see the module docstring).

    Every one is off by default, which is the plain search.

    Attributes:
        quiescence: search positions at the depth limit where the mover can
            capture one ply deeper, up to this many plies beyond the depth
            (0: none; at most :data:`MAX_QUIESCENCE`).
        pvs: principal variation search with aspiration windows; False:
            every child with the full window, every iteration with the open one.
        reductions: late-move reductions; False: every child searched to the full depth.
        killers: the killer heuristic; False: quiet moves in the order of their actions.
        iid: internal iterative deepening; False: a position without a move
            from the table searches its captures first.
        mtdf: each iteration of :meth:`AlphaBeta.search` after the first finds
            its value by MTD(f); False: one search with the open window (or,
            with ``pvs``, an aspiration window).  Not with ``pvs``.

    Raises:
        ValueError: a quiescence that is not an integer from 0 to
            :data:`MAX_QUIESCENCE`, a switch that is not a bool, or both
            ``pvs`` and ``mtdf``.
    """

    quiescence: int = 0
    pvs: bool = False
    reductions: bool = False
    killers: bool = False
    iid: bool = False
    mtdf: bool = False

    def __post_init__(self) -> None:
        quiescence = self.quiescence
        if isinstance(quiescence, bool) or not isinstance(quiescence, int) or not 0 <= quiescence <= MAX_QUIESCENCE:
            raise ValueError(f"quiescence must be an integer from 0 to {MAX_QUIESCENCE}, got {quiescence!r}")
        for name in ("pvs", "reductions", "killers", "iid", "mtdf"):
            flag = getattr(self, name)
            if not isinstance(flag, bool):
                raise ValueError(f"{name} must be True or False, got {flag!r}")
        if self.pvs and self.mtdf:
            raise ValueError("pvs and mtdf are two ways of narrowing the window: give one of them")


class AlphaBeta:
    """An αβ searcher for one set of rules, with its transposition table and buffers.

    The table survives between searches (so later searches reuse earlier
    work) until :meth:`clear`; it never changes a result, only the time to
    reach it.

    Args:
        rules: the rules of the games to search.
        table_bits: the table holds ``2**table_bits`` entries (28 bytes each).
        endgame: an endgame database for these rules (:func:`awale.knowledge.endgame.load`),
            whose positions the search scores without searching them (see
            the module docstring); None (the default) for none.  Its values
            are shared, not copied.
        evaluation: score positions at the depth limit with this fitted
            evaluation (:func:`awale.knowledge.evaluation.load_evaluation`) instead of
            their capture difference; None (the default) for none.
        enhancements: the refinements of the search (:class:`Enhancements`);
            None (the default): none, the plain search.
        threads: threads that search at once (lazy SMP): besides the thread
            that calls :meth:`search`, ``threads - 1`` helpers each deepen
            on their own from the same position, all sharing the table, so
            that the caller's iterations find more of their positions
            there.  The caller's iterations alone decide the move.  With
            more than one, a search's nodes, and with ``reductions`` or
            ties between actions its result, depend on the threads' timing;
            the values of a plain search at a fixed depth do not.  Default 1.

    Raises:
        ValueError: bad arguments, rules with 1000 seeds or more (the
            scores of unfinished games would reach those of won ones), a
            database for other rules, or a bad evaluation or enhancements.
    """

    _INITIAL_PLIES = 64

    def __init__(
        self,
        rules: Rules,
        table_bits: int = TABLE_BITS,
        endgame: Optional[EndgameDatabase] = None,
        evaluation: Optional[Evaluation] = None,
        enhancements: Optional[Enhancements] = None,
        threads: int = 1,
    ) -> None:
        rules = as_rules(rules, default=False)
        if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be an integer from 1 to {MAX_THREADS}, got {threads!r}")
        if isinstance(table_bits, bool) or not isinstance(table_bits, int) or not 1 <= table_bits <= MAX_TABLE_BITS:
            raise ValueError(f"table_bits must be an integer from 1 to {MAX_TABLE_BITS}, got {table_bits!r}")
        n, total = rules.pits_per_side, rules.total_seeds
        if total >= WIN:
            raise ValueError(f"the search scores games of fewer than {WIN} seeds; these rules have {total}")
        if evaluation is not None and not isinstance(evaluation, Evaluation):
            raise ValueError(f"evaluation must be an awale.knowledge.evaluation.Evaluation or None, got {evaluation!r}")
        enhancements = Enhancements() if enhancements is None else enhancements
        if not isinstance(enhancements, Enhancements):
            raise ValueError(f"enhancements must be an awale.search.alphabeta.Enhancements or None, "
                             f"got {enhancements!r}")
        self._endgame = probe_tables(endgame, rules)
        self.rules = rules
        self.endgame = endgame
        self.evaluation = evaluation
        self.enhancements = enhancements
        size = 2 * n
        self._evaluator = (
            np.array(evaluation.weights if evaluation is not None else np.zeros(N_FEATURES), dtype=np.float64),
            np.zeros(2 * (size + 5), dtype=np.int64),  # two scratch states
            np.zeros(n, dtype=np.int64),  # legal actions
            np.zeros(len(evaluation.weights) if evaluation is not None else N_FEATURES, dtype=np.float64),  # features
        )
        rows = 2 * size + 3
        words = np.random.default_rng(0x5EED_AB).integers(
            np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=rows * (total + 1) + 8 * 256,
            dtype=np.int64, endpoint=True,
        )
        tables = words[: rows * (total + 1)].reshape(rows, total + 1)
        self._zpos = np.ascontiguousarray(tables[: size + 2])  # pits, player, South's captures
        self._zhist = np.ascontiguousarray(tables[size + 2 : 2 * size + 3])  # pits, player
        self._zply = words[-8 * 256 :].reshape(8, 256).copy()
        self._table = new_table(table_bits)
        self._killers = np.full((MAX_DEPTH + 1, 2), -1, dtype=np.int64)  # every ply a line can reach
        self._ctl = np.zeros(17, dtype=np.int64)
        self._ctl[_SCOUT] = enhancements.pvs
        self._ctl[_REDUCE] = enhancements.reductions
        self._ctl[_KILLERS] = enhancements.killers
        self._ctl[_IID] = enhancements.iid
        self._ctl[_PLIES] = rules.max_plies is not None
        self._ctl[_EVALUATE] = evaluation is not None
        self._ctl[_TOTAL] = total
        self._plies = 0
        self._history_rows = 0
        self._run(Game(rules=rules), 1, True, _UNLIMITED)  # compile, or load, the kernels now: not in a timed search
        self.clear()
        self.threads = threads
        self._ctl[_SHARED] = threads > 1
        self._helpers = tuple(self._helper() for _ in range(threads - 1))

    def _helper(self) -> "AlphaBeta":
        """A searcher of the same rules, knowledge and refinements whose table is this one's: a helper thread's."""
        helper = AlphaBeta(self.rules, 10, self.endgame, self.evaluation, self.enhancements)
        helper._table = self._table
        helper._ctl[_SHARED] = 1
        return helper

    def _deepen(self, game: Game, generation: int, ahead: int, last: int, leader: Callable[[], int],
                stop: threading.Event) -> None:
        """A helper's search, writing into the shared table until ``stop`` is set (and its budget taken away):
        one exact search if ``last`` is ``_INFINITE``, else iterations each at least ``ahead`` plies deeper than
        the one the caller is searching (``leader()``), and deeper than the helper's last, up to ``last``."""
        self._ctl[_NODES] = 0
        self._ctl[_PROBES] = 0
        self._ctl[_GENERATION] = generation
        self._ctl[_STOP] = 0  # the caller sets it at the end of its search (after setting ``stop``)
        self._killers[:] = -1
        depth = 0
        while not stop.is_set():
            depth = _INFINITE if last == _INFINITE else max(depth + 1, leader() + ahead)
            if depth > last:
                return
            try:
                _, _, status, exact = self._run(game, depth, False, _UNLIMITED)
            except ValueError:  # lines too long for an exact search: the caller's own search says so
                return
            if status != _RUNNING or exact or depth == _INFINITE:
                return

    @contextlib.contextmanager
    def _helping(self, game: Game, last: int, leader: Callable[[], int]) -> Iterator[None]:
        """While the block runs, the helpers search ``game`` on their threads, the ``k``-th ``k`` plies ahead of
        the caller's iteration ``leader()`` (up to ``last``; ``_INFINITE``: exact searches), so that the
        caller's next iterations find their positions in the table; after it, they are stopped and joined."""
        if not self._helpers:
            yield
            return
        stop = threading.Event()
        workers = [
            threading.Thread(target=helper._deepen, name=f"awale-alphabeta-helper-{k}", daemon=True,
                             args=(game, int(self._ctl[_GENERATION]), k, last, leader, stop))
            for k, helper in enumerate(self._helpers, 1)
        ]
        for worker in workers:
            worker.start()
        try:
            yield
        finally:
            stop.set()
            for helper in self._helpers:  # the helper's stop flag: its search, and any it starts, end at once
                helper._ctl[_STOP] = 1
            for worker in workers:
                worker.join()

    @property
    def helper_nodes(self) -> int:
        """Positions the helper threads visited during the last search (0 on one thread)."""
        return sum(int(helper._ctl[_NODES]) for helper in self._helpers)

    @property
    def nodes(self) -> int:
        """Positions visited by the last search (all its iterations)."""
        return int(self._ctl[_NODES])

    @property
    def probes(self) -> int:
        """Positions the last search scored by the endgame database (all its iterations)."""
        return int(self._ctl[_PROBES])

    def table_load(self) -> TableLoad:
        """How many of the table's slots the last search wrote, how many are in use, and how many there are."""
        return TableLoad(*load(self._table, self._ctl[_GENERATION]))

    def clear(self) -> None:
        """Empty the transposition table."""
        clear(self._table)
        self._ctl[_GENERATION] = 0

    def _workspace(self, game: Game, plies: int, values: np.ndarray):
        """The :class:`Workspace` for ``plies`` plies below ``game``, its history copied in."""
        n = self.rules.pits_per_side
        size, width = 2 * n, 2 * n + 5
        history = game_arrays(game)
        rows = history.length + plies + 2
        if plies != self._plies or rows > self._history_rows:
            self._plies, self._history_rows = plies, rows
            self._buffers = (
                np.zeros((plies, n, width), dtype=np.int64),  # kids
                np.zeros((plies, n, n), dtype=np.int64),  # their legal actions
                np.zeros((plies, n, 4), dtype=np.int64),  # action, captured, history length, count
                np.zeros((plies, n), dtype=np.int64),  # order
                np.zeros((plies, n), dtype=np.int64),  # stashed history keys
                np.zeros((plies, n, size + 1), dtype=np.int64),  # stashed history boards
                np.zeros(rows, dtype=np.int64),  # history keys
                np.zeros((rows, size + 1), dtype=np.int64),  # history boards
            )
        hkeys, hboards = self._buffers[6:8]
        hkeys[: history.length] = history.keys[: history.length]
        hboards[: history.length] = history.boards[: history.length]
        return Workspace(
            self.rules.params, self._zpos, self._zhist, self._zply, *self._buffers[:4], self._killers,
            *self._buffers[4:], self._table, values, self._ctl,
            self._endgame, *self._evaluator,
        )

    def _run(
        self, game: Game, depth: int, ties: bool, budget: int, window: Tuple[int, int] = (-_BIG, _BIG)
    ) -> Tuple[int, np.ndarray, int, bool]:
        """One root search; returns ``(value, values per legal action, status, exact)``.

        A search to the end (``depth=_INFINITE``) starts with short per-ply
        buffers and searches again with longer ones when a line outgrows them.
        """
        ctl = self._ctl
        moves = np.array(game.legal_actions, dtype=np.int64)
        values = np.full(len(moves), _UNSEARCHED, dtype=np.int64)
        quiescence = self.enhancements.quiescence
        plies = max(self._plies, self._INITIAL_PLIES if depth == _INFINITE else depth + 1 + quiescence)
        ctl[_TIES] = ties
        ctl[_REACH] = 0 if depth == _INFINITE else depth + quiescence
        arrays = game_arrays(game)
        history = _history_hash(arrays.boards, arrays.length, self._zhist, 2 * self.rules.pits_per_side)
        while True:
            ws = self._workspace(game, plies, values)
            ctl[_STATUS] = _RUNNING
            ctl[_BUDGET] = ctl[_NODES] + budget
            ctl[_HORIZON] = 0
            with stop_on_signal(ctl, _STOP, 1):  # Ctrl-C or the thread's SearchControl: the stop flag
                value = _negamax(
                    arrays.state.copy(), moves, len(moves), Line(0, arrays.length, history, 0), depth, *window, ws
                )
            if ctl[_STATUS] != _OUT_OF_STACK:
                return int(value), values, int(ctl[_STATUS]), bool(ctl[_HORIZON] == 0)
            if plies > MAX_DEPTH:
                raise ValueError(
                    f"the search met lines longer than {MAX_DEPTH} plies: give a depth limit for boards this large"
                )
            plies = min(2 * plies, MAX_DEPTH + 1)

    def _mtdf(self, game: Game, depth: int, guess: int, budget: int) -> Tuple[int, np.ndarray, int, bool]:
        """One iteration by MTD(f) from ``guess``: :meth:`_run`'s answer, within ``budget`` positions."""
        start = int(self._ctl[_NODES])
        lower, upper, value = -_BIG, _BIG, guess
        while lower < upper:  # null-window searches close in on the value from both sides
            beta = max(value, lower + 1)
            value, _, status, _ = self._run(game, depth, False, self._left(budget, start), (beta - 1, beta))
            if status != _RUNNING:
                return value, np.zeros(0, dtype=np.int64), status, False
            if value < beta:
                upper = value
            else:
                lower = value
        # The actions of that value: each searched with the window just around it (the table answers the rest).
        found = self._run(game, depth, True, self._left(budget, start), (value - 1, value + 1))
        if found[2] == _RUNNING and found[0] != value:  # the table's bounds disagreed: the open window decides
            found = self._run(game, depth, True, self._left(budget, start))
        return found

    def _left(self, budget: int, since: int) -> int:
        """What is left of ``budget`` positions (at least one) once the node count has passed ``since``."""
        return max(1, budget - (int(self._ctl[_NODES]) - since))

    def _check(self, game: Game) -> None:
        if not isinstance(game, Game):
            raise ValueError(f"the search needs an awale.Game, got {game!r}")
        if game.rules != self.rules:
            raise ValueError(f"this searcher is for {self.rules}, the game is played under {game.rules}")
        if game.game_finished:
            raise ValueError("the game is over: there is nothing to search")

    @property
    def points_per_seed(self) -> float:
        """The search's points per captured seed: 1, or with an evaluation its weight of a capture in points."""
        return points_per_seed(self.evaluation)

    def principal_variation(self, game: Game, first: int, plies: int = 32) -> Tuple[int, ...]:
        """``first``, then the moves the transposition table holds as best from each position it leads to.

        Stops at a position the table does not hold (or holds without a legal move), at the end of the game or
        after ``plies`` moves.
        """
        n = self.rules.pits_per_side
        line = [first]
        game = game.step(first)[0]
        while len(line) < plies and not game.game_finished:
            arrays = game_arrays(game)
            key = _position_hash(arrays.state, 2 * n, self._zpos, self._zply, self._ctl[_PLIES]) ^ _history_hash(
                arrays.boards, arrays.length, self._zhist, 2 * n)
            move = probe(self._table, key, False).move  # -1 where the table does not hold the position
            if move not in game.legal_actions:
                break
            line.append(int(move))
            game = game.step(line[-1])[0]
        return tuple(line)

    def _report(self, game: Game, found: tuple, depth: int, seconds: float) -> None:
        """Tell the thread's search control (if it listens) the iteration just completed."""
        control = current()
        if control is None or control.listener is None:
            return
        value, best, _, exact = found
        proven = ""
        if abs(value) >= WIN or (exact and value == 0):
            proven = "win" if value > 0 else "loss" if value < 0 else "draw"
        control.report(Progress(
            depth, self.nodes, seconds, self.principal_variation(game, best[0]),
            seeds=None if proven else value / self.points_per_seed, proven=proven,
            margin=abs(value) - WIN if proven in ("win", "loss") else None,
        ))

    def _start(self) -> None:
        """Begin a search: count nodes from zero, lower the stop flag and age the table's entries."""
        self._ctl[_STOP] = 0
        self._ctl[_NODES] = 0
        self._ctl[_PROBES] = 0
        self._ctl[_GENERATION] = (self._ctl[_GENERATION] + 1) % (1 << 15)
        self._killers[:] = -1  # no killer moves yet

    def solve(self, game: Game, depth: Optional[int] = None) -> int:
        """The negamax value of ``game`` for the player to move, ``depth`` plies deep (None: to the end)."""
        return self.search(game, depth).value

    def result(self, game: Game, nodes: Optional[int] = None) -> Optional[int]:
        """The game-theoretic result for the player to move: 1 (win), 0 (draw) or -1 (loss).

        The sign of :meth:`solve` with ``depth=None``, found by a search with
        the window ``(-1, 1)``: it need not measure the margin of a win, and
        can be far faster.  With ``nodes``, the search gives up (and returns
        None) after visiting that many positions.
        """
        self._check(game)
        if nodes is not None and (isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1):
            raise ValueError(f"nodes must be a positive integer or None, got {nodes!r}")
        self._start()
        value, _, status, _ = self._run(game, _INFINITE, False, _UNLIMITED if nodes is None else nodes, (-1, 1))
        if status != _RUNNING:
            return None
        return (value > 0) - (value < 0)

    def action_values(self, game: Game, depth: Optional[int] = None) -> Dict[int, int]:
        """The exact value of each legal action for the player to move (the negated value of its child).

        Each action is searched with the open window, ``depth`` plies deep
        counting the action itself (None: to the end of the game).
        """
        self._check(game)
        depth = _check_depth(depth)
        self._start()
        _, values, _, _ = self._run(game, depth, False, _UNLIMITED)
        return {action: int(v) for action, v in zip(game.legal_actions, values)}

    def search(
        self, game: Game, depth: Optional[int] = None, time: Optional[float] = None, nodes: Optional[int] = None,
        plan: Optional[TimePlan] = None, spend: bool = False,
    ) -> SearchResult:
        """The best actions of ``game`` by iterative deepening.

        Args:
            game: a game not finished, under this searcher's rules.
            depth: the deepest iteration (None: no limit, to the end of the game;
                with a time or nodes, iterations stop at :data:`MAX_DEPTH`).
            time: if given, seconds to spend: no iteration starts that is
                predicted not to finish in the time left, and one that
                overruns is abandoned at the deadline (a timer raises the
                search's stop flag, :func:`awale.core._guard.stop_at`).  The result is that of the last completed
                iteration; the first (one ply) always completes.
            nodes: if given, positions to visit, spent as ``time`` is but
                counted in nodes: no iteration starts that is predicted (from
                the growth of the last two) to overrun the nodes left, and
                one that overruns is abandoned when they are spent.  Unlike
                a time, a node budget gives the same result on every machine.
            plan: with ``time``, a :data:`TimePlan` that sets the time of
                this search as it goes (:mod:`awale.agents.timing`): after
                each completed iteration it is given the iterations so far
                and returns the seconds the search may take from its start.
                No iteration starts that is predicted to end after that
                (none at all if it is already past), while ``time`` stays
                the hard limit at which an iteration is abandoned.
            spend: with ``time``, spend all of it (or all the plan sets):
                every iteration that can start before the deadline starts,
                and the one cut at the deadline still counts once the best
                action of the last completed iteration has been searched in
                it: its best action among those searched is played (the
                result's ``depth`` stays that of the last completed
                iteration).  False (the default): as described under
                ``time``, a searched move usually takes well under its time.

        Raises:
            ValueError: a bad game, depth, time, node budget or plan.
        """
        self._check(game)
        limit = _check_depth(depth)
        if time is not None:
            if isinstance(time, bool) or not isinstance(time, (int, float)) or not math.isfinite(time) or time <= 0:
                raise ValueError(f"time must be a positive number of seconds, got {time!r}")
        if nodes is not None:
            if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or not 1 <= nodes <= MAX_NODES:
                raise ValueError(f"nodes must be an integer from 1 to {MAX_NODES}, got {nodes!r}")
            nodes = int(nodes)
        if plan is not None and (time is None or not callable(plan)):
            raise ValueError(f"a time plan must be a callable given with a time, got {plan!r} with time={time!r}")
        if spend and time is None:
            raise ValueError("spend needs a time: it spends the whole of it")
        start = _time.perf_counter()
        self._start()
        if time is None and nodes is None and depth is None:
            schedule: Iterable[int] = [_INFINITE]  # one exact search: the table does the rest
        else:
            schedule = range(1, min(limit, MAX_DEPTH) + 1)
        found = None
        last = previous = 0.0  # the times of the last two iterations
        spent = spent_before = 0  # the nodes of the last two iterations
        soft = time  # the time the search may take, as the plan sets it
        done = []  # the iterations completed, for the plan
        iteration = 1
        with self._helping(game, _INFINITE if schedule == [_INFINITE] else min(limit, MAX_DEPTH), lambda: iteration):
            for iteration in schedule:
                budget = _UNLIMITED
                cut: ContextManager[None] = contextlib.nullcontext()
                low = -_BIG  # the lower end of the root's window in the last search of this iteration
                if found is not None and time is not None:
                    now = _time.perf_counter()
                    if spend:
                        if now >= start + soft:
                            break
                        cut = stop_at(self._ctl, _STOP, 1, _deadline(start + soft - now))  # cut at the deadline
                    else:
                        if soft is not None and start + soft - now <= last * _growth(last, previous):
                            break  # the next iteration would not finish in time
                        cut = stop_at(self._ctl, _STOP, 1, _deadline(start + time - now))  # abandoned at it
                if found is not None and nodes is not None:
                    left_nodes = nodes - int(self._ctl[_NODES])
                    if left_nodes <= spent * _growth(spent, spent_before):
                        break  # the next iteration would not fit in the nodes left
                    budget = min(budget, left_nodes)
                begun, before = _time.perf_counter(), int(self._ctl[_NODES])
                with cut:
                    if self.enhancements.pvs and found is not None:  # aspiration: around the last iteration's value
                        window = (found[0] - ASPIRATION, found[0] + ASPIRATION)
                        low = window[0]
                        value, values, status, exact = self._run(game, iteration, True, budget, window)
                        if status == _RUNNING and not window[0] < value < window[1]:  # outside it: the open window
                            budget, low = self._left(budget, before), -_BIG
                            value, values, status, exact = self._run(game, iteration, True, budget)
                    elif self.enhancements.mtdf and found is not None:
                        value, values, status, exact = self._mtdf(game, iteration, found[0], budget)
                    else:
                        value, values, status, exact = self._run(game, iteration, True, budget)
                if status != _RUNNING:
                    if spend and status == _OUT_OF_NODES and found is not None:
                        found = _cut_iteration(game.legal_actions, values, low, found)
                    break
                previous, last = last, _time.perf_counter() - begun
                spent_before, spent = spent, int(self._ctl[_NODES]) - before
                best = tuple(a for a, v in zip(game.legal_actions, values) if v == value)
                found = (value, best, None if exact else iteration, exact)
                self._report(game, found, iteration, _time.perf_counter() - start)
                if exact:
                    break
                if plan is not None:
                    done.append(Iteration(iteration, int(value), best, _time.perf_counter() - start, last))
                    soft = min(float(plan(done)), time)
        if found is None:  # stopped (awale.core.control) before the first iteration ended: that one, unstopped
            self._ctl[_STOP] = 0
            with detached():
                value, values, _, exact = self._run(game, 1, True, _UNLIMITED)
            found = (value, tuple(a for a, v in zip(game.legal_actions, values) if v == value), None if exact else 1,
                     exact)
        value, best, reached, exact = found
        return SearchResult(value, best, reached, exact, self.nodes, _time.perf_counter() - start, self.probes)


def points_per_seed(evaluation: Optional[Evaluation]) -> float:
    """The points of a search per captured seed: 1 without an evaluation, else the evaluation's weight of a
    capture in points (at least 1)."""
    if evaluation is None:
        return 1.0
    return max(EVAL_SCALE * float(evaluation.weights[FEATURES.index("captures")]), 1.0)


def solve(game: Game, depth: Optional[int] = None) -> int:
    """The negamax value of ``game`` for the player to move (see the module docstring).

    ``depth=None`` searches to the end of the game: the sign of the value is
    then the game-theoretic result (win, draw or loss) with perfect play.
    Uses a fresh :class:`AlphaBeta`; keep one to reuse its table.
    """
    if not isinstance(game, Game):
        raise ValueError(f"solve needs an awale.Game, got {game!r}")
    return AlphaBeta(game.rules).solve(game, depth)


def result(game: Game) -> int:
    """The game-theoretic result of ``game`` for the player to move: 1, 0 or -1 (win, draw, loss).

    Uses a fresh :class:`AlphaBeta`; keep one to reuse its table.
    """
    if not isinstance(game, Game):
        raise ValueError(f"result needs an awale.Game, got {game!r}")
    return AlphaBeta(game.rules).result(game)


def action_values(game: Game, depth: Optional[int] = None) -> Dict[int, int]:
    """The exact negamax value of each legal action of ``game`` for the player to move.

    Uses a fresh :class:`AlphaBeta`; keep one to reuse its table.
    """
    if not isinstance(game, Game):
        raise ValueError(f"action_values needs an awale.Game, got {game!r}")
    return AlphaBeta(game.rules).action_values(game, depth)
