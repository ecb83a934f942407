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
with atomic instructions (:mod:`awale.core._atomic`): visit counts, sums
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
import time
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from ..core._guard import available_cores
from ..core._jit import jit
from ..core.control import Progress, bound, current
from ..knowledge.endgame import EndgameDatabase
from ..core.game import Game
from ..core.engine import advance, copy_history, grown, legal_actions, next_u32, seed_rng
from ..core._atomic import atomic_add, atomic_load, relax
from .loop import (
    ACTION, LOST, RESULT_NAMES, RESULTS, SOLVER, WON, Work, backup, descend, iterate, new_work, proven_reward,
    root_open, simulate,
)
from .mcts import MAX_VISITS, ChildStats, SearchConfig, SearchTree, check_tree_size, choose_action

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

    tasks = [bound(task) for task in tasks]  # the new threads are stopped with this one (awale.core.control)
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


# --------------------------------------------------------------------------- leaf parallelisation


@jit(inline=False)
def _iterate_leaf(iterations, threads, sync, tree, opt, root, rng, path, legal):
    """The descending thread of leaf parallelisation: ``iterations`` playouts, ``threads`` per new leaf.

    After each descent it publishes the path (``path``, ``legal`` and
    ``sync``), plays its own playout, backs it up, and waits for the
    helpers' (:func:`_leaf_helper`) before descending again.  Returns the
    playouts done.
    """
    capacity = tree.links.shape[0]
    root_player = root.state[root.state.shape[0] - 3]
    work = new_work(root, opt, path, legal, rng)
    done = 0
    while done < iterations and atomic_load(tree.control, 0) == 0 and atomic_load(tree.used, 0) < capacity \
            and root_open(tree, 1):
        active = min(threads, iterations - done)
        depth, length, count, n_played, reward, work = descend(tree, opt, root, work, active)
        sync[_DONE] = 0
        sync[_ACTIVE] = active
        sync[_DEPTH] = depth
        atomic_add(sync, _GEN, 1)  # publish the leaf to the helpers
        if reward < 0:
            reward, n_played, work = simulate(work, opt, root.params, length, count, n_played)
        backup(tree, opt, work, root_player, depth, reward, n_played)
        spins = 0
        while atomic_load(sync, _DONE) < active - 1 and atomic_load(tree.control, 0) == 0:
            spins += 1  # wait for the helpers' playouts: spin a little, then give the core away
            if spins > _SPINS:
                relax()
        done += active
    atomic_add(sync, _STOP, 1)
    return done


@jit
def _follow(tree, root, work, depth):
    """Replay the published path down to ``depth`` in ``work``; return ``(length, count, n_played, work)``."""
    state, played = work.state, work.played
    for i in range(root.state.shape[0]):
        state[i] = root.state[i]
    copy_history(root.keys, root.boards, root.length, work.keys, work.boards)
    length = root.length
    count = legal_actions(state, root.params, work.out)
    n = root.params[0]
    n_played = 0
    for d in range(1, depth + 1):
        if length + 1 >= work.keys.shape[0]:
            keys, boards = grown(work.keys, work.boards, length)
            work = Work(state, keys, boards, work.out, work.path, work.legal, played, work.seen, work.scratch,
                        work.eval_work, work.eval_moves, work.eval_row, work.rng)
        action = tree.flags[work.path[d], ACTION]
        player = state[2 * n + 2]
        _, length, count = advance(state, root.params, action, work.keys, work.boards, length, work.out)
        if n_played < played.shape[0]:
            played[n_played] = player * n + action
            n_played += 1
    return length, count, n_played, work


@jit(inline=False)
def _leaf_helper(index, sync, tree, opt, root, rng, path, legal):
    """A helper thread of leaf parallelisation: one playout from each leaf published, until told to stop."""
    root_player = root.state[root.state.shape[0] - 3]
    solver = opt.cfg[SOLVER] != 0
    work = new_work(root, opt, path, legal, rng)
    generation = 0
    spins = 0
    while True:
        published = atomic_load(sync, _GEN)
        if published != generation:
            generation = published
            if index < sync[_ACTIVE]:
                depth = sync[_DEPTH]
                length, count, n_played, work = _follow(tree, root, work, depth)
                reward = proven_reward(tree.flags, path[depth], depth, root_player) if solver and depth > 0 else -1.0
                if reward < 0:
                    reward, n_played, work = simulate(work, opt, root.params, length, count, n_played)
                backup(tree, opt, work, root_player, depth, reward, n_played)
                atomic_add(sync, _DONE, 1)
            spins = 0
            continue
        if atomic_load(sync, _STOP) != 0 or atomic_load(tree.control, 0) != 0:
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
        tree = self.arrays()
        root, opt = self.root(), self.options(shared=True)

        def stop() -> None:
            tree.control[0] = 1

        if self.scheme == "tree":
            counter = np.zeros(1, dtype=np.int64)
            tasks = [(lambda rng=rng: iterate(size, counter, tree, opt, root, rng)) for rng in self._rngs]
            with self.guarded(tree.control):
                done = sum(_in_threads(tasks, stop))
        else:
            sync = np.zeros(5, dtype=np.int64)
            path = np.empty(self.capacity + 1, dtype=np.int64)
            legal = np.empty(self.capacity + 1, dtype=np.int64)
            master = [lambda: _iterate_leaf(size, self.threads, sync, tree, opt, root, self._rngs[0], path, legal)]
            helpers = [
                (lambda i=i: _leaf_helper(i, sync, tree, opt, root, self._rngs[i], path, legal))
                for i in range(1, self.threads)
            ]
            with self.guarded(tree.control):
                done = _in_threads(master + helpers, stop)[0]
        return int(done), min(int(tree.used[0]), self.capacity)


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
        began = time.perf_counter()
        tasks = [(lambda t=tree, k=share: t._run(k, stop)) for tree, share in zip(self.trees, shares)]
        done = sum(_in_threads(tasks, stop.set))
        self._report(began)
        return done

    def run_for(self, seconds: float, iterations: Optional[int] = None) -> int:
        """Search every tree for about ``seconds`` seconds, side by side (and, if given, for at most
        ``iterations`` iterations in all, shared out as :meth:`run` shares them); return the iterations run."""
        stop = threading.Event()
        began = time.perf_counter()
        shares = [None] * self.threads if iterations is None else self._split(iterations)
        done = sum(_in_threads([(lambda t=tree, k=share: t.run_for(seconds, stop, k))
                                for tree, share in zip(self.trees, shares)], stop.set))
        self._report(began)
        return done

    def _report(self, began: float) -> None:
        """Tell the thread's search control (if it listens) what the trees found together (their own reports are
        not made: each holds a share of the search)."""
        control = current()
        if control is None or control.listener is None:
            return
        line = self.principal_variation()
        best = next((s for s in self.children() if line and s.action == line[0]), None)
        control.report(Progress(
            len(line), self.root_visits, time.perf_counter() - began, line,
            mean=None if best is None else best.mean, proven="" if best is None else best.proven,
        ))

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
                    max(lower, RESULTS[child.lower]),
                    min(upper, RESULTS[child.upper]),
                )
        return [
            ChildStats(action, visits, total / visits if visits else 0.0, RESULT_NAMES[lower], RESULT_NAMES[upper])
            for action, (visits, total, lower, upper) in sorted(merged.items())
        ]

    def best_action(self, by: str = "visits") -> int:
        """The action to play, from the summed statistics (see :func:`~awale.search.mcts.choose_action`)."""
        return choose_action(self.children(), by, self.game.legal_actions[0])

    def principal_variation(self, plies: int = 32) -> Tuple[int, ...]:
        """The best action, then the line of the first tree whose own line starts with it (or that action alone)."""
        if not self.children():
            return ()
        first = self.best_action()
        return next((line for line in (t.principal_variation(plies) for t in self.trees) if line[:1] == (first,)),
                    (first,))

    def subtree(self, game: Game) -> Optional["RootForest"]:
        """The forest of each tree's subtree at ``game`` (see :meth:`SearchTree.subtree`), if all have one."""
        trees = [tree.subtree(game) for tree in self.trees]
        if any(tree is None for tree in trees):
            return None
        return RootForest(game, self.config, trees[0]._rng, 0, self.threads, trees=trees)

