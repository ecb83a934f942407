"""Parallel MCTS on threads: leaf, root and tree parallelisation (the last with virtual loss).

The three schemes of Chaslot, Winands & van den Herik (2008), on the tree
layout of :mod:`awale.search.mcts` and its compiled kernels, which release
Python's lock, so that K Python threads run K kernels at once:

* **root** (:class:`RootForest`): K independent trees from the same root,
  each with its own random stream derived from the agent's, searched side by
  side; the root statistics are summed to choose the move.  Nothing is
  shared, so the search is as reproducible as the one-thread search: an
  iteration budget gives the same move on any machine.  The K trees share
  the memory limit of one (:attr:`SearchTree.share`).
* **tree** (:class:`SharedTree`, ``scheme="tree"``): K threads descend one
  shared tree.  A thread counts its visit to a node on the way *down*, with
  no reward yet: until its result is backed up, the node looks as though it
  had lost that playout (a *virtual loss*), which steers the other threads
  to other paths.  Backing up then adds only the reward, so every visit is
  counted once and the statistics after the search are those of the
  iterations done.
* **leaf** (:class:`SharedTree`, ``scheme="leaf"``): one thread descends and
  expands; K threads (it and K - 1 helpers) play one playout each from the
  new leaf, and each backs its result up before the next descent begins.

Consistency of the shared tree (tree and leaf).  The statistics are updated
with atomic instructions (:mod:`awale.search._atomic`): visit counts, sums
of rewards, AMAF counts and the history table never lose an update, so the
tree's counts add up exactly after a search (the tests check it), unlike
the lock-free scheme of Enzenberger & Müller (2009), which accepts rare lost
updates as benign races.  A move is taken from a node's set of untried
moves by compare-and-swap, so that two threads never expand the same move;
the new node gets its slot by an atomic increment of the node count, is
filled in, and only then published at the head of its parent's list of
children by compare-and-swap (Enzenberger & Müller's rule: a node becomes
visible only when complete).  Readers take no lock: they see the list
before or after an insertion, both consistent.  What remains racy is
benign: a thread may read a mean whose reward has not yet been added.  The
solver's bounds are moved by compare-and-swap and only ever tighten, and a
node counts a move as expanded only once its child is linked, so a bound
computed while another thread expands the node is still sound.  The
helpers of leaf parallelisation wait for their work by spinning on a
generation counter, giving their core away after a few microseconds.

Neither tree nor leaf parallelisation with several threads is reproducible
move for move: the order in which threads reach the tree varies.

References:
    Chaslot, Winands & van den Herik (2008), Parallel Monte-Carlo tree search.
    Enzenberger & Müller (2009), A lock-free multithreaded Monte-Carlo tree search algorithm.
"""

from __future__ import annotations

import threading
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from .._guard import available_cores
from .._jit import jit
from ..endgame import EndgameDatabase
from ..game import Game
from ..engine import below, copy_history, grown, legal_actions, next_u32, seed_rng
from ._atomic import atomic_add, atomic_cas, atomic_load, relax
from .mcts import (
    _ACTION, _FIRST, _HISTORY, _LOWER, _MAX_RECORDED, _NEXT, _PARENT, _RAVE, _RESULT_NAMES,
    _RESULTS, _SOLVER, _UNTRIED, _UPPER, _VISITS, LOST, MAX_VISITS, WON, ChildStats, SearchConfig, SearchTree,
    _bit_count, _descend, _evaluation_space, _fill_node, _nth_bit, _select, _simulate, check_tree_size,
    choose_action,
)

__all__ = ["SCHEMES", "resolve_threads", "check_parallel", "search_tree", "SharedTree", "RootForest"]

#: The ways to search on several threads.
SCHEMES = ("root", "tree", "leaf")

# Entries of the int64 ``sync`` array of leaf parallelisation.
_GEN, _DONE, _ACTIVE, _DEPTH, _STOP = range(5)

# Polls of a waiting thread before it yields its core (a few microseconds: about a playout).
_SPINS = 2000


def resolve_threads(threads: int) -> int:
    """The number of threads to use: ``threads``, or every core this process may use if it is 0."""
    return available_cores() if threads == 0 else int(threads)


def check_parallel(threads: int, scheme: str) -> None:
    """Refuse a scheme that does not exist, or a number of threads that is not one.

    Every option of :class:`SearchConfig` works with every scheme.

    Raises:
        ValueError: naming what was wrong.
    """
    if scheme not in SCHEMES:
        raise ValueError(f"parallel must be one of {', '.join(map(repr, SCHEMES))}, got {scheme!r}")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise ValueError(f"threads must be a non-negative integer (0: every core), got {threads!r}")


def search_tree(game: Game, config: SearchConfig, rng: np.ndarray, capacity: int, threads: int = 1,
                scheme: str = "root", endgame: Optional[EndgameDatabase] = None):
    """A search of ``game`` on ``threads`` threads (0: every core) by ``scheme``, ready to :meth:`run`.

    One thread is exactly :class:`SearchTree`.  Otherwise a
    :class:`RootForest` (``"root"``) or a :class:`SharedTree` (``"tree"``,
    ``"leaf"``), with the same interface (``run``, ``run_for``,
    ``children``, ``best_action``, ``subtree``, ``root_visits``, ``used``).
    ``capacity`` is the nodes to allocate in all; ``endgame`` a database
    every tree probes (see :class:`SearchTree`).

    Raises:
        ValueError: see :func:`check_parallel`, and the tree size limits.
    """
    check_parallel(threads, scheme)
    threads = resolve_threads(threads)
    if threads == 1:
        return SearchTree(game, config, rng, capacity=capacity, endgame=endgame)
    if scheme == "root":
        return RootForest(game, config, rng, capacity, threads, endgame=endgame)
    return SharedTree(game, config, rng, capacity, threads, scheme, endgame=endgame)


def _derived_rngs(rng: np.ndarray, count: int) -> List[np.ndarray]:
    """``rng`` itself, then ``count - 1`` generators seeded from its next draws (reproducible)."""
    rngs = [rng]
    for _ in range(count - 1):
        seed = (int(next_u32(rng)) << 32 | int(next_u32(rng))) & (2**63 - 1)
        rngs.append(seed_rng(seed))
    return rngs


def _in_threads(tasks: Sequence[Callable[[], object]], stop: Callable[[], None]) -> list:
    """Run ``tasks[0]`` in this thread and the others in new threads; return their results in order.

    If this thread is interrupted (Ctrl-C) or a task raises, ``stop()`` asks
    the others to finish, they are joined, and the exception is raised.
    """
    results: list = [None] * len(tasks)
    errors: List[BaseException] = []

    def worker(index: int) -> None:
        try:
            results[index] = tasks[index]()
        except BaseException as error:  # noqa: BLE001 - handed to the calling thread
            errors.append(error)
            stop()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(1, len(tasks))]
    for thread in threads:
        thread.start()
    try:
        results[0] = tasks[0]()
    except BaseException:
        stop()
        raise
    finally:
        for thread in threads:
            thread.join()
    if errors:
        raise errors[0]
    return results


# --------------------------------------------------------------------------- kernels of the shared tree


@jit(inline=False)
def _work_arrays(root_state, root_length, size, capacity):
    """The per-thread arrays of an iteration: state, history, actions, path, legal moves along it, playout records."""
    room = 256
    while room < 2 * (root_length + 1):
        room *= 2
    state = np.empty_like(root_state)
    keys = np.empty(room, dtype=np.int64)
    boards = np.empty((room, size + 1), dtype=np.int64)
    out = np.empty(size // 2, dtype=np.int64)
    path = np.empty(capacity + 1, dtype=np.int64)
    legal = np.empty(capacity + 1, dtype=np.int64)
    played = np.empty(_MAX_RECORDED, dtype=np.int64)
    scratch = np.empty(size + size // 2, dtype=np.int64)
    seen = np.zeros(2, dtype=np.int64)
    return state, keys, boards, out, path, legal, played, scratch, seen


@jit
def _start(root_state, root_keys, root_boards, root_length, params, state, keys, boards, out):
    """Set ``state`` and its history to the root's; return ``(length, legal action count)``."""
    for i in range(root_state.shape[0]):
        state[i] = root_state[i]
    copy_history(root_keys, root_boards, root_length, keys, boards)
    return root_length, legal_actions(state, params, out)


@jit
def _step(state, params, action, keys, boards, length, out, played, n_played):
    """Play ``action`` and record it; return ``(captured, length, count, n_played)``.

    The history must have room for one more position (the caller grows it).
    """
    n = params[0]
    player = state[2 * n + 2]
    captured, length, count = _descend(state, params, action, keys, boards, length, out)
    if n_played < played.shape[0]:
        played[n_played] = player * n + action
        n_played += 1
    return captured, length, count, n_played


@jit
def _give_back(flags, node, action):
    """Put ``action`` back into the untried moves of ``node`` (the tree was full)."""
    mask = atomic_load(flags, (node, _UNTRIED))
    while True:
        found = atomic_cas(flags, (node, _UNTRIED), mask, mask | (1 << action))
        if found == mask:
            return
        mask = found


@jit
def _descend_shared(weight, control, root_state, root_keys, root_boards, root_length, params, cfg, rng,
                    links, flags, value, gain, amaf_n, amaf_w, history, used, state, keys, boards, out, path,
                    legal, played, endgame):
    """Select and expand in the shared tree, counting ``weight`` visits on the way down (virtual loss).

    Fills ``path[0..depth]``, the number of legal moves at each node of it
    (``legal``) and ``played``; returns ``(depth, length, count, n_played,
    reward, keys, boards)``: ``count`` is the legal actions of the position
    reached (0 if the game is over there), ``reward`` South's reward if the
    solver has proven that position, otherwise -1.  The descent itself
    (:func:`_walk`) allocates nothing; it stops when the history is full,
    to be grown here and the walk resumed.
    """
    length, count = _start(root_state, root_keys, root_boards, root_length, params, state, keys, boards, out)
    path[0] = 0
    legal[0] = count
    atomic_add(links, (0, _VISITS), weight)
    depth = 0
    n_played = 0
    while True:
        full, depth, length, count, n_played, reward = _walk(
            depth, length, count, n_played, weight, control, root_state[2 * params[0] + 2], params, cfg, rng,
            links, flags, value, gain, amaf_n, amaf_w, history, used, state, keys, boards, out, path, legal, played,
            endgame,
        )
        if not full:
            return depth, length, count, n_played, reward, keys, boards
        keys, boards = grown(keys, boards, length)


@jit(inline=False, allocates=False)
def _walk(depth, length, count, n_played, weight, control, root_player, params, cfg, rng, links, flags, value, gain,
          amaf_n, amaf_w, history, used, state, keys, boards, out, path, legal, played, endgame):
    """The descent of :func:`_descend_shared` from ``path[depth]``, until a new node, a final or proven position.

    Returns ``(history full, depth, length, count, n_played, reward)``.
    """
    n = params[0]
    size = 2 * n
    capacity = links.shape[0]
    solver = cfg[_SOLVER] != 0
    node = path[depth]
    reward = -1.0
    while count > 0:
        if solver and depth > 0:
            reward = _proven_reward(node, depth, root_player, flags)
            if reward >= 0:
                break
        if length + 1 >= keys.shape[0]:
            return True, depth, length, count, n_played, reward
        player = state[size + 2]
        mask = atomic_load(flags, (node, _UNTRIED))
        expand = False
        if mask != 0:
            action = _nth_bit(mask, below(rng, _bit_count(mask)))
            if atomic_cas(flags, (node, _UNTRIED), mask, mask & ~(1 << action)) != mask:
                continue  # another thread took a move of this node meanwhile: look again
            child = atomic_add(used, 0, 1)
            if child >= capacity:  # the tree is full: play out from this node
                _give_back(flags, node, action)
                break
            expand = True
        elif atomic_load(links, (node, _FIRST)) < 0:
            if atomic_load(control, 0) != 0:
                break
            relax()
            continue  # another thread is linking this node's first child
        else:
            child = _select(node, player, cfg, links, flags, value, gain, amaf_n, amaf_w, history, rng)
            action = flags[child, _ACTION]
        captured, length, count, n_played = _step(state, params, action, keys, boards, length, out, played, n_played)
        depth += 1
        path[depth] = child
        legal[depth] = count
        if expand:
            # Fill the node in, then publish it at the head of its parent's children.
            links[child, _PARENT] = node
            links[child, _FIRST] = -1
            links[child, _VISITS] = weight
            _fill_node(child, action, player, captured, state, size, out, count, solver, amaf_n.shape[0] == capacity,
                       flags, value, gain, amaf_n, amaf_w, endgame)
            first = atomic_load(links, (node, _FIRST))
            while True:
                links[child, _NEXT] = first
                found = atomic_cas(links, (node, _FIRST), first, child)
                if found == first:
                    break
                first = found
            break
        atomic_add(links, (child, _VISITS), weight)
        node = child
    return False, depth, length, count, n_played, reward


@jit
def _proven_reward(node, depth, root_player, flags):
    """South's reward at ``node`` (``depth`` plies below the root) if the solver has proven it, else -1."""
    if flags[node, _LOWER] != flags[node, _UPPER]:
        return -1.0
    proven = flags[node, _LOWER]
    mover_reward = 1.0 if proven == WON else (0.0 if proven == LOST else 0.5)
    return mover_reward if root_player ^ ((depth - 1) & 1) == 0 else 1.0 - mover_reward


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
def _update_bounds_shared(node, legal, links, flags):
    """The solver's bounds of ``node`` from its children's, in a tree other threads grow meanwhile.

    As :func:`awale.search.mcts._update_bounds`, but a move counts as
    expanded only once its child is linked (``legal`` moves in all), so a
    child being linked by another thread cannot be missed; and each bound
    only tightens.  Returns whether a bound changed.
    """
    best_lower = LOST
    best_upper = LOST
    linked = 0
    child = links[node, _FIRST]
    while child >= 0:
        best_lower = max(best_lower, flags[child, _LOWER])
        best_upper = max(best_upper, flags[child, _UPPER])
        linked += 1
        child = links[child, _NEXT]
    if linked < legal:
        best_upper = WON
    raised = _tighten(flags, node, _LOWER, LOST + WON - best_upper, 1)
    lowered = _tighten(flags, node, _UPPER, LOST + WON - best_lower, -1)
    return raised or lowered


@jit(inline=False, allocates=False)
def _backup_shared(path, legal, depth, reward, played, n_played, root_player, n, cfg, links, flags, value, amaf_n,
                   amaf_w, history, seen):
    """Add ``reward`` along ``path`` (the visits were counted on the way down), with AMAF, history and bounds."""
    rave = cfg[_RAVE] > 0
    seen[0] = 0
    seen[1] = 0
    ply = n_played - 1
    for d in range(depth, -1, -1):
        nd = path[d]
        mover = root_player ^ ((d + 1) & 1)
        atomic_add(value, nd, reward if mover == 0 else 1.0 - reward)
        if rave:
            while ply >= d:  # moves played at this depth or later
                seen[played[ply] // n] |= 1 << (played[ply] % n)
                ply -= 1
            to_move = root_player ^ (d & 1)
            mine = reward if to_move == 0 else 1.0 - reward
            child = links[nd, _FIRST]
            while child >= 0:
                if (seen[to_move] >> flags[child, _ACTION]) & 1:
                    atomic_add(amaf_n, child, 1)
                    atomic_add(amaf_w, child, mine)
                child = links[child, _NEXT]
    if cfg[_HISTORY] != 0:
        for k in range(n_played):
            player = played[k] // n
            atomic_add(history, (player, 0, played[k] % n), reward if player == 0 else 1.0 - reward)
            atomic_add(history, (player, 1, played[k] % n), 1.0)
    if cfg[_SOLVER] != 0:
        for d in range(depth - 1, -1, -1):
            if not _update_bounds_shared(path[d], legal[d], links, flags) and d < depth - 1:
                break


@jit
def _root_open(flags):
    """Whether the root is not proven yet (the search stops once it is)."""
    return atomic_load(flags, (0, _LOWER)) != atomic_load(flags, (0, _UPPER))


@jit(inline=False)
def _iterate_tree(iterations, counter, control, root_state, root_keys, root_boards, root_length, params, cfg,
                  rng, links, flags, value, gain, amaf_n, amaf_w, history, used, endgame):
    """One thread of tree parallelisation: iterations until ``counter`` reaches ``iterations``; return how many.

    Stops early when the tree is full, the root proven or ``control[0]`` set.
    """
    n = params[0]
    capacity = links.shape[0]
    root_player = root_state[2 * n + 2]
    state, keys, boards, out, path, legal, played, scratch, seen = _work_arrays(root_state, root_length, 2 * n,
                                                                                capacity)
    eval_work, eval_moves, eval_row = _evaluation_space(root_state, cfg, n)
    done = 0
    while atomic_load(control, 0) == 0 and atomic_load(used, 0) < capacity and _root_open(flags):
        if atomic_add(counter, 0, 1) >= iterations:
            break
        depth, length, count, n_played, reward, keys, boards = _descend_shared(
            1, control, root_state, root_keys, root_boards, root_length, params, cfg, rng, links, flags, value,
            gain, amaf_n, amaf_w, history, used, state, keys, boards, out, path, legal, played, endgame,
        )
        if reward < 0:
            reward, n_played, keys, boards = _simulate(
                state, params, cfg, keys, boards, length, out, count, rng, played, n_played, scratch, endgame,
                eval_work, eval_moves, eval_row,
            )
        _backup_shared(path, legal, depth, reward, played, n_played, root_player, n, cfg, links, flags, value,
                       amaf_n, amaf_w, history, seen)
        done += 1
    return done


@jit(inline=False)
def _iterate_leaf(iterations, threads, sync, control, path, legal, root_state, root_keys, root_boards,
                  root_length, params, cfg, rng, links, flags, value, gain, amaf_n, amaf_w, history, used, endgame):
    """The descending thread of leaf parallelisation: ``iterations`` playouts, ``threads`` per new leaf.

    After each descent it publishes the path (``path``, ``legal`` and
    ``sync``), plays its own playout, backs it up, and waits for the
    helpers' (:func:`_leaf_helper`) before descending again.  Returns the
    playouts done.
    """
    n = params[0]
    capacity = links.shape[0]
    root_player = root_state[2 * n + 2]
    state, keys, boards, out, _, _, played, scratch, seen = _work_arrays(root_state, root_length, 2 * n, 0)
    eval_work, eval_moves, eval_row = _evaluation_space(root_state, cfg, n)
    done = 0
    while done < iterations and atomic_load(control, 0) == 0 and atomic_load(used, 0) < capacity \
            and _root_open(flags):
        active = min(threads, iterations - done)
        depth, length, count, n_played, reward, keys, boards = _descend_shared(
            active, control, root_state, root_keys, root_boards, root_length, params, cfg, rng, links, flags,
            value, gain, amaf_n, amaf_w, history, used, state, keys, boards, out, path, legal, played, endgame,
        )
        sync[_DONE] = 0
        sync[_ACTIVE] = active
        sync[_DEPTH] = depth
        atomic_add(sync, _GEN, 1)  # publish the leaf to the helpers
        if reward < 0:
            reward, n_played, keys, boards = _simulate(
                state, params, cfg, keys, boards, length, out, count, rng, played, n_played, scratch, endgame,
                eval_work, eval_moves, eval_row,
            )
        _backup_shared(path, legal, depth, reward, played, n_played, root_player, n, cfg, links, flags, value,
                       amaf_n, amaf_w, history, seen)
        spins = 0
        while atomic_load(sync, _DONE) < active - 1 and atomic_load(control, 0) == 0:
            spins += 1  # wait for the helpers' playouts: spin a little, then give the core away
            if spins > _SPINS:
                relax()
        done += active
    atomic_add(sync, _STOP, 1)
    return done


@jit(inline=False)
def _leaf_helper(index, sync, control, path, legal, root_state, root_keys, root_boards, root_length, params, cfg,
                 rng, links, flags, value, amaf_n, amaf_w, history, endgame):
    """A helper thread of leaf parallelisation: one playout from each leaf published, until told to stop."""
    n = params[0]
    root_player = root_state[2 * n + 2]
    solver = cfg[_SOLVER] != 0
    state, keys, boards, out, _, _, played, scratch, seen = _work_arrays(root_state, root_length, 2 * n, 0)
    eval_work, eval_moves, eval_row = _evaluation_space(root_state, cfg, n)
    generation = 0
    spins = 0
    while True:
        published = atomic_load(sync, _GEN)
        if published != generation:
            generation = published
            if index < sync[_ACTIVE]:
                depth = sync[_DEPTH]
                length, count = _start(root_state, root_keys, root_boards, root_length, params, state, keys,
                                       boards, out)
                n_played = 0
                for d in range(1, depth + 1):
                    if length + 1 >= keys.shape[0]:
                        keys, boards = grown(keys, boards, length)
                    _, length, count, n_played = _step(
                        state, params, flags[path[d], _ACTION], keys, boards, length, out, played, n_played
                    )
                reward = _proven_reward(path[depth], depth, root_player, flags) if solver and depth > 0 else -1.0
                if reward < 0:
                    reward, n_played, keys, boards = _simulate(
                        state, params, cfg, keys, boards, length, out, count, rng, played, n_played, scratch, endgame,
                        eval_work, eval_moves, eval_row,
                    )
                _backup_shared(path, legal, depth, reward, played, n_played, root_player, n, cfg, links, flags,
                               value, amaf_n, amaf_w, history, seen)
                atomic_add(sync, _DONE, 1)
            spins = 0
            continue
        if atomic_load(sync, _STOP) != 0 or atomic_load(control, 0) != 0:
            return generation
        spins += 1
        if spins > _SPINS:
            relax()


# --------------------------------------------------------------------------- the Python side


class SharedTree(SearchTree):
    """One tree searched by ``threads`` threads: tree parallelisation (virtual loss) or leaf parallelisation.

    The same tree, statistics and interface as :class:`SearchTree`; only
    the kernel that grows it differs.  An iteration is one playout in both
    schemes, so the root counts one visit per iteration, as with one thread.

    Args:
        game, config, rng, capacity: as for :class:`SearchTree`; thread 0
            uses ``rng``, the others generators seeded from it.
        threads: threads to search with (at least 2).
        scheme: ``"tree"`` or ``"leaf"``.

    Raises:
        ValueError: an unknown scheme, or as :class:`SearchTree`.
    """

    def __init__(self, game: Game, config: SearchConfig, rng: np.ndarray, capacity: int, threads: int,
                 scheme: str, endgame: Optional[EndgameDatabase] = None) -> None:
        if scheme not in ("tree", "leaf"):
            raise ValueError(f"a shared tree is searched by the 'tree' or 'leaf' scheme, got {scheme!r}")
        check_parallel(threads, scheme)
        super().__init__(game, config, rng, capacity, endgame=endgame)
        self.threads = resolve_threads(threads)
        self.scheme = scheme
        self._rngs = _derived_rngs(rng, self.threads)

    def _kept(self) -> dict:
        return {**super()._kept(), "threads": self.threads, "scheme": self.scheme, "_rngs": self._rngs}

    def _chunk(self, size: int) -> Tuple[int, int]:
        game = self.game.arrays
        root = (game.state, game.keys, game.boards, game.length, self.game.rules.params, self._cfg)
        tree = (self._links, self._flags, self._value, self._gain, self._amaf_n, self._amaf_w, self.history)
        used = np.array([self.used], dtype=np.int64)
        control = np.zeros(1, dtype=np.int64)

        def stop() -> None:
            control[0] = 1

        if self.scheme == "tree":
            counter = np.zeros(1, dtype=np.int64)
            tasks = [
                (lambda rng=rng: _iterate_tree(size, counter, control, *root, rng, *tree, used, self._endgame))
                for rng in self._rngs
            ]
            done = sum(_in_threads(tasks, stop))
        else:
            sync = np.zeros(5, dtype=np.int64)
            path = np.empty(self.capacity + 1, dtype=np.int64)
            legal = np.empty(self.capacity + 1, dtype=np.int64)
            links, flags, value, _, amaf_n, amaf_w, history = tree
            master = [
                lambda: _iterate_leaf(size, self.threads, sync, control, path, legal, *root, self._rngs[0], *tree, used,
                                      self._endgame)
            ]
            helpers = [
                (lambda i=i: _leaf_helper(i, sync, control, path, legal, *root, self._rngs[i], links, flags, value,
                                          amaf_n, amaf_w, history, self._endgame))
                for i in range(1, self.threads)
            ]
            done = _in_threads(master + helpers, stop)[0]
        return int(done), min(int(used[0]), self.capacity)


class RootForest:
    """Root parallelisation: ``threads`` independent trees from one root, their root statistics summed.

    Tree ``i`` is a :class:`SearchTree` with its own random stream (tree 0
    uses ``rng``, the others generators seeded from it), so a search with an
    iteration budget is reproducible.  The budget is shared out evenly; the
    trees share the memory limit of one tree (each holds at most
    ``max_nodes / threads`` nodes).

    Args:
        game, config, rng: as for :class:`SearchTree`.
        capacity: nodes to allocate in all (divided among the trees).
        threads: the number of trees, one per thread (at least 2).
        trees: the trees themselves, already grown (a forest's subtrees), instead.
    """

    def __init__(self, game: Game, config: SearchConfig, rng: np.ndarray, capacity: int, threads: int,
                 trees: Optional[List[SearchTree]] = None, endgame: Optional[EndgameDatabase] = None) -> None:
        self.game = game
        self.config = config
        self.threads = threads
        if trees is None:
            per_tree = -(-max(int(capacity), 2) // threads) + 1
            check_tree_size(per_tree, config, threads)
            trees = [SearchTree(game, config, r, per_tree, endgame=endgame, share=threads)
                     for r in _derived_rngs(rng, threads)]
        self.trees = trees

    @property
    def used(self) -> int:
        return sum(tree.used for tree in self.trees)

    @property
    def iterations(self) -> int:
        return sum(tree.iterations for tree in self.trees)

    @property
    def root_visits(self) -> int:
        return sum(tree.root_visits for tree in self.trees)

    @property
    def nbytes(self) -> int:
        return sum(tree.nbytes for tree in self.trees)

    @property
    def proven_root(self) -> str:
        """A result proven by any of the trees (proofs are exact), otherwise ""."""
        return next((tree.proven_root for tree in self.trees if tree.proven_root), "")

    def _split(self, iterations: int) -> List[int]:
        base, extra = divmod(iterations, self.threads)
        return [base + (i < extra) for i in range(self.threads)]

    def run(self, iterations: int) -> int:
        """Run ``iterations`` iterations in all, shared out evenly among the trees; return how many ran.

        Raises:
            ValueError: a tree would outgrow its share of memory or count
                more than :data:`MAX_VISITS` visits.
        """
        if self.root_visits + iterations > MAX_VISITS:
            raise ValueError(
                f"a tree counts at most {MAX_VISITS:,} visits; this one has {self.root_visits:,} and "
                f"{iterations:,} more iterations were asked for"
            )
        shares = self._split(iterations)
        for tree, share in zip(self.trees, shares):
            tree.reserve(share)
        stop = threading.Event()
        tasks = [(lambda t=tree, k=share: t._run(k, stop)) for tree, share in zip(self.trees, shares)]
        return sum(_in_threads(tasks, stop.set))

    def run_for(self, seconds: float) -> int:
        """Search every tree for about ``seconds`` seconds, side by side; return the iterations run."""
        stop = threading.Event()
        return sum(_in_threads([(lambda t=tree: t.run_for(seconds, stop)) for tree in self.trees], stop.set))

    def children(self) -> List[ChildStats]:
        """The root's children with the trees' statistics summed, in ascending order of action.

        A bound proven by one tree holds for all (the trees search the same
        game): the lower bounds are the best of the trees', the upper bounds
        the tightest.
        """
        merged = {}
        for tree in self.trees:
            for child in tree.children():
                visits, total, lower, upper = merged.get(child.action, (0, 0.0, LOST, WON))
                merged[child.action] = (
                    visits + child.visits,
                    total + child.mean * child.visits,
                    max(lower, _RESULTS[child.lower]),
                    min(upper, _RESULTS[child.upper]),
                )
        return [
            ChildStats(action, visits, total / visits if visits else 0.0, _RESULT_NAMES[lower], _RESULT_NAMES[upper])
            for action, (visits, total, lower, upper) in sorted(merged.items())
        ]

    def best_action(self, by: str = "visits") -> int:
        """The action to play, from the summed statistics (see :func:`~awale.search.mcts.choose_action`)."""
        return choose_action(self.children(), by, self.game.legal_actions[0])

    def subtree(self, game: Game) -> Optional["RootForest"]:
        """The forest of each tree's subtree at ``game`` (see :meth:`SearchTree.subtree`), if all have one."""
        trees = [tree.subtree(game) for tree in self.trees]
        if any(tree is None for tree in trees):
            return None
        return RootForest(game, self.config, trees[0]._rng, 0, self.threads, trees=trees)

