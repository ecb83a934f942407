"""The MCTS loop, once: selection, expansion, simulation, the solver's bounds and backpropagation.

One kernel family serves the one-thread search (:class:`awale.search.mcts.SearchTree`) and the threads of
:mod:`awale.search.parallel`.  What differs is one flag of the :class:`Options`, ``shared``:

* plain (``shared=0``, one thread): entries are updated by ordinary stores, and a node's visit is counted when
  its reward is backed up;
* shared (``shared=1``, a tree other threads grow at the same time): entries are updated by atomic instructions
  (:mod:`awale.core._atomic`), a move is taken and a node published by compare-and-swap, and a visit is
  counted on the way down (the *virtual loss* of tree parallelisation), the backup then adding only the reward.

The kernels take four named structures, never long argument lists: the :class:`Tree` (its arrays, the node
counter and the stop flag), the :class:`Root` (the position searched), the :class:`Options` and a thread's
:class:`Work` arrays (including its random state).  The tree layout is described in :mod:`awale.search.mcts`.

The hot kernels (the descent, the selection, the playouts, the backup, and the loop of whole iterations,
:func:`_iterations`) are compiled with ``allocates=False`` (:func:`awale.core._jit.jit`): they create no arrays
and count no references.  Only the rare iteration whose repetition history outgrows the work arrays is
finished by :func:`iterate`, which grows them.  The selection is inlined into the descent: passing the
tree's arrays to an out-of-line kernel at every level of every descent cost about 10 % of the iterations
with evaluated leaves.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..core._jit import jit
from ..knowledge.endgame import UNCOVERED, probe
from ..core.engine import (
    DRAW, NORTH, ONGOING, R_GRAND_SLAM, SOUTH, advance, below, capture, copy_history, grown, legal_actions, sow,
)
from ..knowledge.evaluation import logit
from ..core._atomic import atomic_add, atomic_cas, atomic_load, relax

__all__ = [
    "Tree", "Root", "Options", "Work",
    "LOST", "DRAWN", "WON", "RESULT_NAMES", "RESULTS", "PARENT", "FIRST", "NEXT", "VISITS", "ACTION", "UNTRIED", "LOWER", "UPPER",
    "C", "TREE_POLICY", "HEAVY", "BIAS", "HISTORY", "CUTOFF", "RAVE", "SOLVER", "EVALUATE", "IMPLICIT", "WEIGHTS",
    "RANDOM_TREE", "UCB", "MAX_RECORDED",
    "new_work", "descend", "simulate", "backup", "iterate", "proven_reward", "root_open", "negated", "compact",
    "update_bounds", "select",
]

# Results of a game, ordered, from the point of view of the player who moved into the node.  The solver keeps a
# lower and an upper bound on the exact result of every node; it is proven when they meet.
LOST, DRAWN, WON = 1, 2, 3
RESULT_NAMES = {LOST: "loss", DRAWN: "draw", WON: "win"}
RESULTS = {name: result for result, name in RESULT_NAMES.items()}

# Columns of the int32 ``links`` array and of the int8 ``flags`` array.
PARENT, FIRST, NEXT, VISITS = 0, 1, 2, 3
ACTION, UNTRIED, LOWER, UPPER = 0, 1, 2, 3

# Entries of the float64 configuration vector (:meth:`awale.search.mcts.SearchConfig.vector`).
C, TREE_POLICY, HEAVY, BIAS, HISTORY, CUTOFF, RAVE, SOLVER, EVALUATE, IMPLICIT, WEIGHTS = range(11)
RANDOM_TREE, UCB = 0, 1

#: Moves of one iteration remembered for RAVE and the history heuristic.
MAX_RECORDED = 4096


class Tree(NamedTuple):
    """A search tree in arrays, and what the threads that grow it share.

    Attributes:
        links: int32 ``(capacity, 4)``: parent, first child, next sibling, visits.
        flags: int8 ``(capacity, 4)``: action, untried moves (a bit mask), lower and upper bound.
        value: float64 sums of rewards, for the player who moved into the node.
        gain: int16 seeds captured by the move into the node (progressive bias).
        amaf_n, amaf_w: AMAF visits and rewards (RAVE), or one entry each without RAVE.
        implicit: float64 implicit minimax values (Lanctot et al. 2014), for the player who moved into the node,
            or one entry without them.
        history: float64 ``(2, 2, n)``: per player and action, the sum of rewards and the count (history heuristic).
        used: int64 ``(1,)``: the nodes in use.
        control: int64 ``(1,)``: set to non-zero to stop every thread.
    """

    links: np.ndarray
    flags: np.ndarray
    value: np.ndarray
    gain: np.ndarray
    amaf_n: np.ndarray
    amaf_w: np.ndarray
    history: np.ndarray
    used: np.ndarray
    control: np.ndarray
    implicit: np.ndarray


class Root(NamedTuple):
    """The position searched: its state, repetition history and rules (:mod:`awale.core.engine`)."""

    state: np.ndarray
    keys: np.ndarray
    boards: np.ndarray
    length: int
    params: np.ndarray


class Options(NamedTuple):
    """The options of a search as the kernels read them.

    Attributes:
        cfg: the configuration vector, indexed by ``C``, ``TREE_POLICY``, ... (``WEIGHTS`` onwards: the
            evaluation's weights).
        endgame: the endgame database's probe tables (:func:`awale.knowledge.endgame.probe_tables`).
        shared: 1 when other threads grow the tree at the same time (atomic updates, virtual loss), else 0.
    """

    cfg: np.ndarray
    endgame: tuple
    shared: int


class Work(NamedTuple):
    """One thread's work arrays: the position of the iteration, its path and its records.

    Attributes:
        state, keys, boards: the position reached and its repetition history (grown as needed).
        out: the legal actions of ``state``.
        path: the nodes of the descent; ``legal``: the legal moves at each (shared trees only).
        played: the moves of the iteration, ``player * n + action``; ``seen``: their bit masks (RAVE).
        scratch: room for the heavy playouts' weights.
        eval_work, eval_moves, eval_row: the evaluation's work space (:func:`awale.knowledge.evaluation.logit`).
        rng: the thread's random state.
    """

    state: np.ndarray
    keys: np.ndarray
    boards: np.ndarray
    out: np.ndarray
    path: np.ndarray
    legal: np.ndarray
    played: np.ndarray
    seen: np.ndarray
    scratch: np.ndarray
    eval_work: np.ndarray
    eval_moves: np.ndarray
    eval_row: np.ndarray
    rng: np.ndarray


# --------------------------------------------------------------------------- plain or atomic updates


@jit
def _add(array, index, value, shared):
    """Add ``value`` to ``array[index]`` (atomically if ``shared``); return the value before."""
    if shared:
        return atomic_add(array, index, value)
    old = array[index]
    array[index] = old + value
    return old


@jit
def _load(array, index, shared):
    return atomic_load(array, index) if shared else array[index]


# --------------------------------------------------------------------------- work arrays


@jit(inline=False)
def new_work(root, opt, path, legal, rng):
    """A thread's :class:`Work` for ``root``, with the given ``path`` and ``legal`` arrays."""
    size = root.state.shape[0] - 5
    room = 256
    while room < 2 * (root.length + 1):
        room *= 2
    return Work(
        np.empty_like(root.state), np.empty(room, dtype=np.int64), np.empty((room, size + 1), dtype=np.int64),
        np.empty(size // 2, dtype=np.int64), path, legal, np.empty(MAX_RECORDED, dtype=np.int64),
        np.zeros(2, dtype=np.int64), np.empty(size + size // 2, dtype=np.int64),
        np.empty(2 * root.state.shape[0], dtype=np.int64), np.empty(size // 2, dtype=np.int64),
        np.empty(opt.cfg.shape[0] - WEIGHTS), rng,
    )


@jit
def _regrown(work, length):
    """``work`` with twice the room for the repetition history."""
    keys, boards = grown(work.keys, work.boards, length)
    return Work(work.state, keys, boards, work.out, work.path, work.legal, work.played, work.seen, work.scratch,
                work.eval_work, work.eval_moves, work.eval_row, work.rng)


# --------------------------------------------------------------------------- simulation


@jit
def _reward(state, size, total, endgame):
    """South's reward: a finished game's outcome, the database's result, or a cut-off's capture difference."""
    outcome = state[size + 4]
    if outcome == SOUTH:
        return 1.0
    if outcome == NORTH:
        return 0.0
    if outcome == DRAW:
        return 0.5
    exact = probe(state, size, endgame)
    if exact != UNCOVERED:
        mover = 1.0 if exact > 0 else (0.0 if exact < 0 else 0.5)
        return mover if state[size + 2] == 0 else 1.0 - mover
    value = 0.5 + (state[size] - state[size + 1]) / total
    return min(1.0, max(0.0, value))


@jit
def _heavy_choice(state, params, out, count, rng, scratch):
    """A legal action drawn with weight 1 + the seeds it would capture."""
    n = params[0]
    size = 2 * n
    player = state[size + 2]
    total_weight = 0
    for j in range(count):
        for i in range(size):
            scratch[i] = state[i]
        last = sow(scratch, player * n + out[j], size)
        weight = 1 + capture(scratch, last, player, n, params[R_GRAND_SLAM])
        scratch[size + j] = weight
        total_weight += weight
    pick = below(rng, total_weight)
    for j in range(count):
        pick -= scratch[size + j]
        if pick < 0:
            return out[j]
    return out[count - 1]


@jit(inline=False, allocates=False)
def _rollout(work, params, length, count, heavy, moves_left, n_played, endgame):
    """Playout moves until the game ends, the cut-off is reached, the history is full or the
    endgame database holds the position.

    Each move is recorded in ``work.played`` as ``player * n + action``.
    Returns ``(length, count, moves_left, n_played)``; ``moves_left`` is 0
    when the database holds the position reached (only a capture can bring
    a position into it).
    """
    state, out, rng, played = work.state, work.out, work.rng, work.played
    n = params[0]
    size = 2 * n
    capacity = work.keys.shape[0]
    if probe(state, size, endgame) != UNCOVERED:
        return length, count, 0, n_played
    while count > 0 and moves_left != 0 and length + 1 < capacity:
        if heavy:
            action = _heavy_choice(state, params, out, count, rng, work.scratch)
        else:
            action = out[below(rng, count)]
        if n_played < played.shape[0]:
            played[n_played] = state[size + 2] * n + action
            n_played += 1
        captured, length, count = advance(state, params, action, work.keys, work.boards, length, out)
        moves_left -= 1
        if captured > 0 and probe(state, size, endgame) != UNCOVERED:
            return length, count, 0, n_played
    return length, count, moves_left, n_played


@jit
def _leaf_reward(work, opt, params):
    """South's reward at the end of a playout: the evaluation if any (unless the game is over or the database
    holds the position), else :func:`_reward`."""
    cfg = opt.cfg
    state = work.state
    size = 2 * params[0]
    if cfg[EVALUATE] != 0 and state[size + 4] == ONGOING and probe(state, size, opt.endgame) == UNCOVERED:
        x = logit(state, params, cfg[WEIGHTS:], work.eval_work, work.eval_moves, work.eval_row)
        win = 1.0 / (1.0 + math.exp(-x))
        return win if state[size + 2] == 0 else 1.0 - win
    return _reward(state, size, params[1], opt.endgame)


@jit
def _simulate_from(work, opt, params, length, count, n_played, moves_left):
    """:func:`simulate` with ``moves_left`` playout moves still to play (-2: as many as the options say)."""
    cfg = opt.cfg
    if moves_left == -2:
        cutoff = np.int64(cfg[CUTOFF])
        moves_left = cutoff if cutoff > 0 else (0 if cfg[EVALUATE] != 0 else -1)
    while count > 0 and moves_left != 0:
        length, count, moves_left, n_played = _rollout(
            work, params, length, count, cfg[HEAVY] != 0, moves_left, n_played, opt.endgame
        )
        if count > 0 and moves_left != 0:
            work = _regrown(work, length)
    return _leaf_reward(work, opt, params), n_played, work


@jit
def simulate(work, opt, params, length, count, n_played):
    """Score the new leaf ``work.state``: a playout to the end, or cut off, or none, then the evaluation if any.

    Returns South's reward, the moves recorded so far and the work arrays
    (their history grown if the playout outgrew it).
    """
    return _simulate_from(work, opt, params, length, count, n_played, -2)


# --------------------------------------------------------------------------- selection and expansion


@jit
def _nth_bit(mask, k):
    """The index of the ``k``-th set bit of ``mask`` (from 0)."""
    index = 0
    while True:
        if mask & 1:
            if k == 0:
                return index
            k -= 1
        mask >>= 1
        index += 1


@jit
def _bit_count(mask):
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@jit
def _secured(node, links, flags):
    """The best lower bound among the children of ``node``: what its player to move can already secure."""
    secured = LOST
    child = links[node, FIRST]
    while child >= 0:
        secured = max(secured, flags[child, LOWER])
        child = links[child, NEXT]
    return secured


@jit(allocates=False)
def select(tree, cfg, node, player, rng):
    """The child of ``node`` to descend into (``player`` is to move at ``node``).

    With the solver, a child whose upper bound is no better than what another
    child secures cannot change the result of ``node``: it is not selected.
    """
    links, flags, value = tree.links, tree.flags, tree.value
    # Without the solver every bound is [LOST, WON] and nothing is cut.
    secured = _secured(node, links, flags) if cfg[SOLVER] != 0 else LOST - 1
    if cfg[TREE_POLICY] == RANDOM_TREE:
        count = 0
        child = links[node, FIRST]
        while child >= 0:
            count += flags[child, UPPER] > secured
            child = links[child, NEXT]
        pick = below(rng, max(count, 1))
        child = links[node, FIRST]
        while child >= 0:
            if flags[child, UPPER] > secured:
                if pick == 0:
                    return child
                pick -= 1
            child = links[child, NEXT]
        return links[node, FIRST]
    c = cfg[C]
    k = cfg[RAVE]
    alpha = cfg[IMPLICIT]
    bias = cfg[BIAS]
    history_weight = cfg[HISTORY]
    history = tree.history
    log_n = math.log(max(links[node, VISITS], 1))
    best = links[node, FIRST]
    best_score = -1e300
    child = links[node, FIRST]
    while child >= 0:
        if flags[child, UPPER] <= secured:
            child = links[child, NEXT]
            continue
        visits = links[child, VISITS]
        mean = value[child] / visits
        if k > 0 and tree.amaf_n[child] > 0:
            beta = math.sqrt(k / (3.0 * visits + k))
            mean = (1.0 - beta) * mean + beta * tree.amaf_w[child] / tree.amaf_n[child]
        if alpha > 0:
            mean = (1.0 - alpha) * mean + alpha * tree.implicit[child]
        score = mean + c * math.sqrt(log_n / visits)
        if bias != 0:
            score += bias * tree.gain[child] / visits
        if history_weight != 0:
            action = flags[child, ACTION]
            if history[player, 1, action] > 0:
                score += history_weight * history[player, 0, action] / history[player, 1, action] / math.sqrt(visits)
        # Ties go to the first child in the list; children are linked in the random order of
        # their expansion, so no action is favoured.
        if score > best_score:
            best_score = score
            best = child
        child = links[child, NEXT]
    return best


@jit
def _heuristic(work, opt, params, player, count):
    """The value of the new node ``work.state`` for ``player``, who moved into it, in [0, 1]: the result of a
    finished game, the database's exact result, else the evaluation's win probability (implicit minimax)."""
    state = work.state
    size = state.shape[0] - 5
    if count == 0:
        outcome = state[size + 4]
        return 0.5 if outcome == DRAW else (1.0 if outcome == player else 0.0)
    exact = probe(state, size, opt.endgame)
    if exact != UNCOVERED:  # for the player to move, who is not ``player``
        return 0.5 if exact == 0 else (0.0 if exact > 0 else 1.0)
    x = logit(state, params, opt.cfg[WEIGHTS:], work.eval_work, work.eval_moves, work.eval_row)
    return 1.0 - 1.0 / (1.0 + math.exp(-x))


@jit
def _fill_node(tree, opt, params, child, action, player, captured, work, count):
    """Set the statistics of a new node (all but its links): ``action`` led to ``work.state``, with ``count`` moves."""
    flags = tree.flags
    state = work.state
    size = state.shape[0] - 5
    solver = opt.cfg[SOLVER] != 0
    if opt.cfg[IMPLICIT] > 0:
        tree.implicit[child] = _heuristic(work, opt, params, player, count)
    untried = 0
    for j in range(count):
        untried |= 1 << work.out[j]
    flags[child, ACTION] = action
    flags[child, UNTRIED] = untried
    flags[child, LOWER] = LOST
    flags[child, UPPER] = WON
    tree.value[child] = 0.0
    tree.gain[child] = captured
    if tree.amaf_n.shape[0] == tree.links.shape[0]:  # RAVE
        tree.amaf_n[child] = 0
        tree.amaf_w[child] = 0.0
    if solver and count == 0:  # a final position: its result is known
        outcome = state[size + 4]
        result = DRAWN if outcome == DRAW else (WON if outcome == player else LOST)
        flags[child, LOWER] = result
        flags[child, UPPER] = result
    elif solver:
        exact = probe(state, size, opt.endgame)
        if exact != UNCOVERED:  # the database's result, for the player who moved here
            result = DRAWN if exact == 0 else (LOST if exact > 0 else WON)
            flags[child, LOWER] = result
            flags[child, UPPER] = result


@jit
def _give_back(flags, node, action, shared):
    """Put ``action`` back into the untried moves of ``node`` (the tree was full)."""
    mask = _load(flags, (node, UNTRIED), shared)
    while True:
        if not shared:
            flags[node, UNTRIED] = mask | (1 << action)
            return
        found = atomic_cas(flags, (node, UNTRIED), mask, mask | (1 << action))
        if found == mask:
            return
        mask = found


@jit
def _link(tree, node, child, weight, shared):
    """Link the filled-in ``child`` at the head of ``node``'s children (by compare-and-swap if ``shared``)."""
    links = tree.links
    links[child, PARENT] = node
    links[child, FIRST] = -1
    links[child, VISITS] = weight
    if not shared:
        links[child, NEXT] = links[node, FIRST]
        links[node, FIRST] = child
        return
    first = atomic_load(links, (node, FIRST))
    while True:
        links[child, NEXT] = first
        found = atomic_cas(links, (node, FIRST), first, child)
        if found == first:
            return
        first = found


@jit
def proven_reward(flags, node, depth, root_player):
    """South's reward at ``node`` (``depth`` plies below the root) if the solver has proven it, else -1."""
    if flags[node, LOWER] != flags[node, UPPER]:
        return -1.0
    proven = flags[node, LOWER]
    mover_reward = 1.0 if proven == WON else (0.0 if proven == LOST else 0.5)
    return mover_reward if root_player ^ ((depth - 1) & 1) == 0 else 1.0 - mover_reward


@jit(inline=False, allocates=False)
def _walk(tree, opt, params, work, weight, depth, length, count, n_played):
    """The descent of :func:`descend` from ``work.path[depth]``, until a new node, a final or proven position.

    Returns ``(history full, depth, length, count, n_played, reward)``.
    """
    links, flags, path, played, state = tree.links, tree.flags, work.path, work.played, work.state
    shared = opt.shared
    n = params[0]
    size = 2 * n
    capacity = links.shape[0]
    solver = opt.cfg[SOLVER] != 0
    root_player = state[size + 2] ^ (depth & 1)
    node = path[depth]
    reward = -1.0
    while count > 0:
        if solver and depth > 0:
            reward = proven_reward(flags, node, depth, root_player)
            if reward >= 0:
                break
        if length + 1 >= work.keys.shape[0]:
            return True, depth, length, count, n_played, reward
        player = state[size + 2]
        mask = _load(flags, (node, UNTRIED), shared)
        expand = False
        if mask != 0:
            action = _nth_bit(mask, below(work.rng, _bit_count(mask)))
            if shared:
                if atomic_cas(flags, (node, UNTRIED), mask, mask & ~(1 << action)) != mask:
                    continue  # another thread took a move of this node meanwhile: look again
            else:
                flags[node, UNTRIED] = mask & ~(1 << action)
            child = _add(tree.used, 0, 1, shared)
            if child >= capacity:  # the tree is full (other threads filled it): play out from this node
                _give_back(flags, node, action, shared)
                break
            expand = True
        elif _load(links, (node, FIRST), shared) < 0:
            if atomic_load(tree.control, 0) != 0:
                break
            relax()
            continue  # another thread is linking this node's first child
        else:
            child = select(tree, opt.cfg, node, player, work.rng)
            action = flags[child, ACTION]
        captured, length, count = advance(state, params, action, work.keys, work.boards, length, work.out)
        if n_played < played.shape[0]:
            played[n_played] = player * n + action
            n_played += 1
        depth += 1
        path[depth] = child
        if shared:
            work.legal[depth] = count
        if expand:
            # Fill the node in, then publish it at the head of its parent's children.
            _fill_node(tree, opt, params, child, action, player, captured, work, count)
            _link(tree, node, child, weight if shared else 0, shared)
            break
        if shared:
            atomic_add(links, (child, VISITS), weight)
        node = child
    return False, depth, length, count, n_played, reward


@jit
def descend(tree, opt, root, work, weight):
    """Select and expand: from the root to a new node, or a final or proven position.

    On a shared tree each node of the path counts ``weight`` visits on the
    way down (virtual loss).  Fills ``work.path[0..depth]`` (and
    ``work.legal``, the legal moves at each, on a shared tree) and
    ``work.played``; returns ``(depth, length, count, n_played, reward,
    work)``: ``count`` is the legal actions of the position reached (0 if
    the game is over there), ``reward`` South's reward if the solver has
    proven that position, otherwise -1.  The walk itself allocates nothing;
    it stops when the history is full, to be grown here and resumed.
    """
    state = work.state
    for i in range(root.state.shape[0]):
        state[i] = root.state[i]
    copy_history(root.keys, root.boards, root.length, work.keys, work.boards)
    length = root.length
    count = legal_actions(state, root.params, work.out)
    work.path[0] = 0
    if opt.shared:
        work.legal[0] = count
        atomic_add(tree.links, (0, VISITS), weight)
    return _descend_from(tree, opt, root, work, weight, 0, length, count, 0)


@jit
def _descend_from(tree, opt, root, work, weight, depth, length, count, n_played):
    """The rest of :func:`descend` from ``work.path[depth]``, growing the history as needed."""
    while True:
        full, depth, length, count, n_played, reward = _walk(
            tree, opt, root.params, work, weight, depth, length, count, n_played
        )
        if not full:
            return depth, length, count, n_played, reward, work
        work = _regrown(work, length)


# --------------------------------------------------------------------------- backpropagation


@jit
def negated(result):
    """The same result seen by the other player."""
    return LOST + WON - result


@jit
def _tighten(flags, node, column, bound, better):
    """Move ``flags[node, column]`` to ``bound`` if that is tighter (``better``: 1 raises, -1 lowers it).

    Returns whether it moved.  Bounds only tighten, whatever the order of the threads' updates.
    """
    current = atomic_load(flags, (node, column))
    while (bound - current) * better > 0:
        found = atomic_cas(flags, (node, column), current, bound)
        if found == current:
            return True
        current = found
    return False


@jit(inline=False, allocates=False)
def update_bounds(tree, node, legal, shared):
    """Recompute the bounds of ``node`` from its children's (the minimax rule on intervals).

    The player to move at ``node`` gets the best of the children: at least
    the best lower bound, at most the best upper bound (a win while some move
    is not expanded).  On a shared tree a move counts as expanded only once
    its child is linked (``legal`` moves in all), so that a child another
    thread is linking is not missed, and each bound only tightens.  Returns
    whether the bounds changed.
    """
    links, flags = tree.links, tree.flags
    best_lower = LOST
    best_upper = LOST
    linked = 0
    child = links[node, FIRST]
    while child >= 0:
        best_lower = max(best_lower, flags[child, LOWER])
        best_upper = max(best_upper, flags[child, UPPER])
        linked += 1
        child = links[child, NEXT]
    if (linked < legal) if shared else (flags[node, UNTRIED] != 0):
        best_upper = WON
    lower = negated(best_upper)
    upper = negated(best_lower)
    if shared:
        raised = _tighten(flags, node, LOWER, lower, 1)
        lowered = _tighten(flags, node, UPPER, upper, -1)
        return raised or lowered
    if lower == flags[node, LOWER] and upper == flags[node, UPPER]:
        return False
    flags[node, LOWER] = lower
    flags[node, UPPER] = upper
    return True


@jit
def _back_implicit(tree, path, depth):
    """Implicit minimax backups (Lanctot, Winands, Pepels & Sturtevant 2014): from the parent of the new node up,
    each node's value is the best of its expanded children's for the player to move there, seen by the player
    who moved into it.  A node whose value does not change leaves its ancestors' as they were."""
    links, implicit = tree.links, tree.implicit
    for d in range(depth - 1, 0, -1):
        node = path[d]
        best = -1.0
        child = links[node, FIRST]
        while child >= 0:
            best = max(best, implicit[child])
            child = links[child, NEXT]
        value = 1.0 - best
        if value == implicit[node]:
            return
        implicit[node] = value


@jit(inline=False, allocates=False)
def backup(tree, opt, work, root_player, depth, reward, n_played):
    """Back ``reward`` (South's) up ``work.path[0..depth]``, with the AMAF statistics, the history and the bounds.

    A plain tree counts the visits here; a shared tree counted them on the way down.
    """
    cfg, shared = opt.cfg, opt.shared
    links, flags, path, played, seen = tree.links, tree.flags, work.path, work.played, work.seen
    n = work.out.shape[0]
    rave = cfg[RAVE] > 0
    seen[0] = 0
    seen[1] = 0
    ply = n_played - 1
    for d in range(depth, -1, -1):
        nd = path[d]
        if not shared:
            links[nd, VISITS] += 1
        mover = root_player ^ ((d + 1) & 1)
        _add(tree.value, nd, reward if mover == 0 else 1.0 - reward, shared)
        if rave:
            while ply >= d:  # moves played at this depth or later
                seen[played[ply] // n] |= 1 << (played[ply] % n)
                ply -= 1
            to_move = root_player ^ (d & 1)
            mine = reward if to_move == 0 else 1.0 - reward
            child = links[nd, FIRST]
            while child >= 0:
                if (seen[to_move] >> flags[child, ACTION]) & 1:
                    _add(tree.amaf_n, child, 1, shared)
                    _add(tree.amaf_w, child, mine, shared)
                child = links[child, NEXT]
    if cfg[HISTORY] != 0:
        for k in range(n_played):
            player = played[k] // n
            _add(tree.history, (player, 0, played[k] % n), reward if player == 0 else 1.0 - reward, shared)
            _add(tree.history, (player, 1, played[k] % n), 1.0, shared)
    if cfg[IMPLICIT] > 0:
        _back_implicit(tree, work.path, depth)
    if cfg[SOLVER] != 0:
        # Bounds only tighten.  The parent of the new node may have lost its last untried move;
        # above it, a node whose bounds did not change leaves its ancestors' as they were.
        for d in range(depth - 1, -1, -1):
            if not update_bounds(tree, path[d], work.legal[d] if shared else 0, shared) and d < depth - 1:
                break


# --------------------------------------------------------------------------- the loop


@jit
def root_open(tree, shared):
    """Whether the root is not proven yet (the search stops once it is)."""
    return _load(tree.flags, (0, LOWER), shared) != _load(tree.flags, (0, UPPER), shared)


# Slots of the ``resume`` array through which :func:`_iterations` hands an unfinished iteration to :func:`iterate`.
_PHASE, _DEPTH, _LENGTH, _COUNT, _PLAYED, _MOVES_LEFT, _DONE = range(7)
_FINISHED, _WALKING, _PLAYING = 0, 1, 2


@jit(inline=False, allocates=False)
def _iterations(iterations, counter, tree, opt, root, work, resume):
    """Whole iterations, allocating nothing, until the search ends or the repetition history must grow.

    Returns with ``resume[_PHASE]`` set to ``_FINISHED`` when the search is over, or to ``_WALKING`` or
    ``_PLAYING`` when the descent or the playout of the current iteration needs more history than ``work``
    holds; :func:`iterate` then grows it, finishes that iteration and calls this again.  ``resume[_DONE]``
    counts the iterations run.  Without numba's runtime, the loop does no reference counting.
    """
    shared = opt.shared
    cfg = opt.cfg
    params = root.params
    capacity = tree.links.shape[0]
    state = work.state
    size = 2 * params[0]
    root_player = root.state[root.state.shape[0] - 3]
    evaluate = cfg[EVALUATE] != 0
    cutoff = np.int64(cfg[CUTOFF])
    moves_left_default = cutoff if cutoff > 0 else (0 if evaluate else -1)
    implicit = cfg[IMPLICIT] > 0
    while atomic_load(tree.control, 0) == 0 and _load(tree.used, 0, shared) < capacity and root_open(tree, shared):
        if _add(counter, 0, 1, shared) >= iterations:
            break
        # descend (as :func:`descend`)
        for i in range(root.state.shape[0]):
            state[i] = root.state[i]
        copy_history(root.keys, root.boards, root.length, work.keys, work.boards)
        length = root.length
        count = legal_actions(state, params, work.out)
        work.path[0] = 0
        if shared:
            work.legal[0] = count
            atomic_add(tree.links, (0, VISITS), 1)
        full, depth, length, count, n_played, reward = _walk(tree, opt, params, work, 1, 0, length, count, 0)
        if full:
            resume[_PHASE], resume[_DEPTH], resume[_LENGTH] = _WALKING, depth, length
            resume[_COUNT], resume[_PLAYED] = count, n_played
            return
        if reward < 0 and implicit and moves_left_default == 0 and tree.links[work.path[depth], FIRST] < 0:
            # A leaf scored by the evaluation without a playout: its implicit value is that score, already computed.
            value = tree.implicit[work.path[depth]]
            reward = value if root_player ^ ((depth + 1) & 1) == 0 else 1.0 - value
        if reward < 0:
            # simulate (as :func:`simulate`)
            moves_left = moves_left_default
            if count > 0 and moves_left != 0:
                length, count, moves_left, n_played = _rollout(
                    work, params, length, count, cfg[HEAVY] != 0, moves_left, n_played, opt.endgame
                )
                if count > 0 and moves_left != 0:
                    resume[_PHASE], resume[_DEPTH], resume[_LENGTH] = _PLAYING, depth, length
                    resume[_COUNT], resume[_PLAYED], resume[_MOVES_LEFT] = count, n_played, moves_left
                    return
            reward = _leaf_reward(work, opt, params)
        backup(tree, opt, work, root_player, depth, reward, n_played)
        resume[_DONE] += 1
    resume[_PHASE] = _FINISHED


@jit(inline=False)
def iterate(iterations, counter, tree, opt, root, rng):
    """Iterations until ``counter`` reaches ``iterations``; return how many this thread ran.

    The one loop of MCTS: descend (select and expand), simulate, back up.
    Every thread of tree parallelisation runs it on the same tree and
    ``counter``; the one-thread search runs it alone.  Stops early when the
    tree is full, the root proven or ``tree.control[0]`` set.  The
    iterations run in :func:`_iterations`, which allocates nothing; the rare
    one whose repetition history outgrows the work arrays is finished here,
    by :func:`descend` and :func:`simulate`, which grow them.
    """
    shared = opt.shared
    capacity = tree.links.shape[0]
    root_player = root.state[root.state.shape[0] - 3]
    work = new_work(root, opt, np.empty(capacity + 1, dtype=np.int64),
                    np.empty(capacity + 1 if shared else 1, dtype=np.int64), rng)
    resume = np.zeros(7, dtype=np.int64)
    while True:
        _iterations(iterations, counter, tree, opt, root, work, resume)
        phase = resume[_PHASE]
        if phase == _FINISHED:
            return resume[_DONE]
        depth, length, count, n_played = resume[_DEPTH], resume[_LENGTH], resume[_COUNT], resume[_PLAYED]
        work = _regrown(work, length)
        reward = -1.0
        if phase == _WALKING:
            depth, length, count, n_played, reward, work = _descend_from(tree, opt, root, work, 1, depth, length,
                                                                         count, n_played)
        if reward < 0:
            reward, n_played, work = _simulate_from(work, opt, root.params, length, count, n_played,
                                                    resume[_MOVES_LEFT] if phase == _PLAYING else -2)
        backup(tree, opt, work, root_player, depth, reward, n_played)
        resume[_DONE] += 1


@jit(inline=False)
def compact(node, tree, new):
    """Copy the subtree under ``node`` into the arrays of ``new`` (breadth first); return its size."""
    links, flags = tree.links, tree.flags
    new_links, new_flags = new.links, new.flags
    rave = tree.amaf_n.shape[0] == links.shape[0] and new.amaf_n.shape[0] == new_links.shape[0]
    implicit = tree.implicit.shape[0] == links.shape[0] and new.implicit.shape[0] == new_links.shape[0]
    order = np.empty(links.shape[0], dtype=np.int64)
    index = np.full(links.shape[0], -1, dtype=np.int64)
    order[0] = node
    index[node] = 0
    head = 0
    tail = 1
    while head < tail:
        old = order[head]
        head += 1
        child = links[old, FIRST]
        while child >= 0:
            order[tail] = child
            index[child] = tail
            tail += 1
            child = links[child, NEXT]
    for position in range(tail):
        old = order[position]
        for column in range(4):
            new_links[position, column] = links[old, column]
        for column in range(flags.shape[1]):
            new_flags[position, column] = flags[old, column]
        new_links[position, PARENT] = index[links[old, PARENT]] if position > 0 else -1
        new_links[position, FIRST] = index[links[old, FIRST]] if links[old, FIRST] >= 0 else -1
        new_links[position, NEXT] = index[links[old, NEXT]] if (position > 0 and links[old, NEXT] >= 0) else -1
        new.value[position] = tree.value[old]
        new.gain[position] = tree.gain[old]
        if rave:
            new.amaf_n[position] = tree.amaf_n[old]
            new.amaf_w[position] = tree.amaf_w[old]
        if implicit:
            new.implicit[position] = tree.implicit[old]
    return tail
