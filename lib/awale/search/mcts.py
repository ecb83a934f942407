"""Monte Carlo Tree Search in compiled code, with the tree kept in preallocated arrays.

One search, many variants: the tree policy, the playout policy, the playout
cut-off, the heuristic terms, AMAF/RAVE and the solver are options of the same
kernel (a :class:`SearchConfig`), not subclasses.  The tree is a structure of
arrays, as in mctx: node ``i`` has a parent, a first child and a next sibling,
the action that led to it, a bit mask of the legal actions not expanded yet, a
visit count, a sum of rewards and, for the solver, bounds on its exact result.
Positions are not stored: each iteration replays the actions from the root,
which is cheap next to a playout, and keeps the repetition history exact.

With an endgame database (:mod:`awale.knowledge.endgame`), a playout stops as soon as
it reaches a position with at most the database's seeds on the board, and so
does an iteration whose new node is one: the reward is the exact result the
database gives (the sign of the captured lead plus the database's value), and
with the solver that new node is proven at once.  The database solves the game
in which a repetition splits the seeds on the board equally and ignores the
history below the position probed; the rewards and proofs are exact for that
game.

Rewards are in [0, 1] (win 1, draw ½, loss 0).  A node's sum of rewards is
counted from the point of view of the player who moved into it, so at every
node the player to move picks the child with the best statistics for
themselves: the one-sided (negamax) form of the two-sided bounds of UCT.

References:
    Kocsis & Szepesvári (2006), Bandit based Monte-Carlo planning (UCT).
    Auer, Cesa-Bianchi & Fischer (2002), Finite-time analysis of the multiarmed bandit problem (UCB1).
    Coulom (2006), Efficient selectivity and backup operators in Monte-Carlo tree search.
    Chaslot et al. (2008), Progressive strategies for Monte-Carlo tree search (progressive bias).
    Gelly & Silver (2007), Combining online and offline knowledge in UCT (RAVE).
    Winands, Björnsson & Saito (2008), Monte-Carlo tree search solver.
    Cazenave & Saffidine (2010), Score bounded Monte-Carlo tree search.
    Lanctot, Winands, Pepels & Sturtevant (2014), Monte Carlo tree search with heuristic evaluations using
    implicit minimax backups.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import threading
import time
from typing import List, Optional, Tuple

import numpy as np

from ..core._guard import Chunks, available_memory, stop_at
from ..core.control import Progress, current, watched
from ..knowledge.endgame import EndgameDatabase, probe_tables
from ..knowledge.evaluation import N_FEATURES, WEIGHTS, PatternEvaluation, checked_weights, load_evaluation
from ..core.engine import game_arrays
from ..core.game import Game
from .loop import (
    ACTION, DRAWN, FIRST, LOST, LOWER, NEXT, RANDOM_TREE, RESULT_NAMES, RESULTS, UCB, UPPER, VISITS, WON, Options, Root,
    Tree, compact, iterate, negated,
)

__all__ = [
    "SearchConfig", "SearchTree", "ChildStats", "choose_action", "node_bytes", "max_nodes", "check_tree_size",
    "MAX_VISITS",
]

#: The most visits a node may count, and so the most iterations a tree may run (every iteration visits
#: the root): visit counts and node indices are int32.
MAX_VISITS = 2**31 - 1

#: The share of the machine's available memory a tree may take.
MEMORY_SHARE = 0.5


@dataclasses.dataclass(frozen=True)
class SearchConfig:
    """The options of the search.

    Args:
        c: exploration constant of UCB1.
        tree_policy: ``"ucb"`` (UCT) or ``"random"`` (a uniformly random tree policy).
        playout: ``"random"`` or ``"greedy"`` (heavy playouts: each move drawn
            with weight 1 + the seeds it captures).
        bias: weight of the progressive-bias term ``bias * h_i / n_i``, where
            ``h_i`` is the number of seeds the move captures (0: off).
        history: weight of the history-heuristic term ``history * hh_i / sqrt(n_i)``,
            where ``hh_i`` is the mean reward of that move for that player over
            every iteration of the search so far (0: off).
        cutoff: playouts stop after this many plies and are scored by the
            capture difference (0: play to the end).
        rave: the equivalence parameter ``k`` of Gelly & Silver's schedule
            ``beta = sqrt(k / (3 n + k))`` mixing AMAF and UCT values (0: off).
        solver: MCTS-Solver with score bounds: keep a lower and an upper
            bound on the result of every node, from the final positions up;
            never select a child that cannot beat what its parent already
            secures; play proven wins and avoid proven losses.
        evaluation: the nine weights of a fitted evaluation
            (:class:`awale.knowledge.evaluation.Evaluation` of :data:`awale.knowledge.evaluation.FEATURES`; the kernels do not compute
            the kroos' timing), or empty for none.  With
            weights, a leaf is scored by the evaluation's win probability
            for the player to move, after ``cutoff`` random plies (0: at once,
            no playout at all) instead of a playout to the end.
        patterns: the name in :data:`awale.knowledge.evaluation.WEIGHTS` of a pattern evaluation
            (:class:`awale.knowledge.evaluation.PatternEvaluation`) whose tables the leaves add to the nine
            linear weights of ``evaluation`` (its own linear weights), or ``""`` for none.
        implicit: the weight α of implicit minimax backups (Lanctot, Winands,
            Pepels & Sturtevant 2014), which need ``evaluation``: every new
            node keeps the evaluation's win probability of its position (the
            exact result where the game is over or the database holds it),
            each node's value is backed up by minimax over its expanded
            children, and a child is selected on ``(1 - α) mean + α value``
            instead of its mean (0: off).
    """

    c: float = math.sqrt(2) / 2
    tree_policy: str = "ucb"
    playout: str = "random"
    bias: float = 0.0
    history: float = 0.0
    cutoff: int = 0
    rave: float = 0.0
    solver: bool = False
    evaluation: Tuple[float, ...] = ()
    implicit: float = 0.0
    patterns: str = ""

    def __post_init__(self) -> None:
        if self.tree_policy not in ("ucb", "random"):
            raise ValueError(f"tree_policy must be 'ucb' or 'random', got {self.tree_policy!r}")
        if self.playout not in ("random", "greedy"):
            raise ValueError(f"playout must be 'random' or 'greedy', got {self.playout!r}")
        for name in ("c", "bias", "history", "rave", "cutoff"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be non-negative, got {getattr(self, name)!r}")
        if not 0 <= self.implicit <= 1:
            raise ValueError(f"implicit must be a weight from 0 to 1, got {self.implicit!r}")
        weights = self.evaluation
        try:
            empty = not isinstance(weights, str) and len(weights) == 0  # no weights: playouts
        except TypeError:
            empty = False
        object.__setattr__(
            self, "evaluation",
            () if empty else tuple(checked_weights(weights, "evaluation (or empty)", timing=False).tolist()),
        )
        if self.implicit > 0 and not self.evaluation:
            raise ValueError("implicit minimax backups need an evaluation")
        if self.patterns:
            tables = pattern_tables(self.patterns)
            if tuple(tables.linear.tolist()) != self.evaluation:
                raise ValueError(f"the pattern evaluation {self.patterns!r} needs its own nine linear weights as "
                                 "evaluation")

    def vector(self) -> np.ndarray:
        """The configuration as the kernels read it (a pattern evaluation's tables after its linear weights)."""
        head = self._head()
        return np.concatenate([head, pattern_tables(self.patterns).tables]) if self.patterns else head

    def _head(self) -> np.ndarray:
        return np.array(
            [
                self.c,
                UCB if self.tree_policy == "ucb" else RANDOM_TREE,
                self.playout == "greedy",
                self.bias,
                self.history,
                self.cutoff,
                self.rave,
                self.solver,
                len(self.evaluation) > 0,
                self.implicit,
                *(self.evaluation or (0.0,) * N_FEATURES),
            ],
            dtype=np.float64,
        )


def pattern_tables(name: str) -> PatternEvaluation:
    """The pattern evaluation called ``name`` in :data:`awale.knowledge.evaluation.WEIGHTS` (read once).

    Raises:
        ValueError: no such weights, or weights without tables.
    """
    if name not in WEIGHTS:
        raise ValueError(f"unknown evaluation weights {name!r}; known: {', '.join(WEIGHTS)}")
    evaluation = load_evaluation(WEIGHTS[name])
    if not isinstance(evaluation, PatternEvaluation):
        raise ValueError(f"the evaluation weights {name!r} have no pattern tables")
    return evaluation


def node_bytes(config: SearchConfig) -> int:
    """Bytes of tree per node under ``config`` (the arrays of :class:`SearchTree`)."""
    plain = 4 * 4 + 4 + 8 + 2  # links (4 x int32), flags (4 x int8), value (float64), gain (int16)
    # AMAF visits (int32) and rewards (float64); implicit minimax values (float64)
    return plain + (12 if config.rave > 0 else 0) + (8 if config.implicit > 0 else 0)


def max_nodes(config: SearchConfig) -> int:
    """The most nodes a tree under ``config`` may hold here.

    Half of the machine's available memory (:data:`MEMORY_SHARE`) divided by
    :func:`node_bytes`, and at most :data:`MAX_VISITS` (the limit of the
    int32 indices and visit counts).
    """
    return max(2, min(MAX_VISITS, int(available_memory() * MEMORY_SHARE) // node_bytes(config)))


def check_tree_size(nodes: int, config: SearchConfig, share: int = 1) -> None:
    """Refuse a tree of ``nodes`` nodes under ``config`` that would outgrow :func:`max_nodes`.

    ``share`` trees searched side by side (root parallelisation) divide
    the limit between them: each may hold ``max_nodes(config) // share``.

    Raises:
        ValueError: the tree is too large, with the limit in the message.
    """
    limit = max(2, max_nodes(config) // share)
    if nodes > limit:
        per = f" per tree, for {share} trees" if share > 1 else ""
        raise ValueError(
            f"a search of {nodes - 1:,} iterations needs {nodes * node_bytes(config) / 2**30:.1f} GiB of tree; "
            f"the limit here is {limit - 1:,} iterations{per} (half the available memory, at most 2**31 - 2)"
        )


@dataclasses.dataclass(frozen=True)
class ChildStats:
    """One child of the root, seen by the player to move at the root."""

    action: int
    visits: int
    mean: float
    lower: str  # bounds on the exact result of the move (solver): "loss", "draw" or "win"
    upper: str

    @property
    def proven(self) -> str:
        """The exact result of the move when the solver has proven it, otherwise ""."""
        return self.lower if self.lower == self.upper else ""


# --------------------------------------------------------------------------- the Python side


class SearchTree:
    """A search tree rooted at a game, grown by :meth:`run` and read by :meth:`children`.

    Args:
        game: the root position (not finished).
        config: the options of the search.
        rng: the kernels' random state (:func:`awale.core.rules.seed_rng`); it is
            advanced in place, so one generator can serve a whole match.
        capacity: nodes to allocate; one iteration adds at most one node.
        endgame: an endgame database for the game's rules, whose positions end
            playouts with their exact result (see the module docstring), or
            None (the default).  Its values are shared, not copied.
        share: trees searched side by side that share the memory limit
            (root parallelisation): this one may hold ``max_nodes // share`` nodes.

    Raises:
        ValueError: a finished game, a capacity over :func:`max_nodes`, or a
            database for other rules.
    """

    def __init__(
        self, game: Game, config: SearchConfig, rng: np.ndarray, capacity: int = 1024,
        endgame: Optional[EndgameDatabase] = None, share: int = 1,
    ) -> None:
        if game.game_finished:
            raise ValueError("cannot search from a finished game")
        self._endgame = probe_tables(endgame, game.rules)
        self.endgame = endgame
        self.share = share
        self.game = game
        self.config = config
        n = game.rules.pits_per_side
        board = pattern_tables(config.patterns).pits_per_side if config.patterns else n
        if board != n:
            raise ValueError(f"the pattern evaluation {config.patterns!r} is for {board} pits a side, not {n}")
        self._cfg = config.vector()
        self._rng = rng
        self.history = np.zeros((2, 2, n), dtype=np.float64)
        capacity = max(int(capacity), 2)
        check_tree_size(capacity, config, self.share)
        self._allocate(capacity)
        root_mask = 0
        for action in game.legal_actions:
            root_mask |= 1 << action
        self._links[0] = (-1, -1, -1, 0)
        self._flags[0] = (0, root_mask, LOST, WON)
        self._value[0] = 0.0
        self._gain[0] = 0
        self._amaf_n[0] = 0
        self._amaf_w[0] = 0.0
        self._implicit[0] = 0.5
        self.used = 1
        self.iterations = 0

    def _allocate(self, capacity: int) -> None:
        rave = self.config.rave > 0
        self._links = np.empty((capacity, 4), dtype=np.int32)
        self._flags = np.empty((capacity, 4), dtype=np.int8)
        # Sums of rewards in float64: exact for wins and draws at any reachable visit count, and cut-off
        # rewards (fractions) accumulate without float32's rounding.
        self._value = np.empty(capacity, dtype=np.float64)
        self._gain = np.empty(capacity, dtype=np.int16)
        self._amaf_n = np.empty(capacity if rave else 1, dtype=np.int32)
        self._amaf_w = np.empty(capacity if rave else 1, dtype=np.float64)
        self._implicit = np.empty(capacity if self.config.implicit > 0 else 1, dtype=np.float64)

    @property
    def capacity(self) -> int:
        return self._links.shape[0]

    @property
    def node_limit(self) -> int:
        """The most nodes this tree may hold here (:func:`max_nodes`, divided by :attr:`share`)."""
        return max(2, max_nodes(self.config) // self.share)

    @property
    def nbytes(self) -> int:
        """Bytes held by the tree's arrays."""
        return sum(a.nbytes for a in self._arrays())

    def _arrays(self) -> Tuple[np.ndarray, ...]:
        """The arrays of one entry per node (one entry in all for an option that is off)."""
        return self._links, self._flags, self._value, self._gain, self._amaf_n, self._amaf_w, self._implicit

    def reserve(self, nodes: int) -> None:
        """Make room for ``nodes`` more nodes, keeping the tree.

        Raises:
            ValueError: the tree would outgrow :func:`max_nodes`.
        """
        needed = self.used + nodes
        if needed <= self.capacity:
            return
        check_tree_size(needed, self.config, self.share)
        old = self._arrays()
        self._allocate(min(max(needed, 2 * self.capacity), self.node_limit))
        for a, b in zip(old, self._arrays()):
            if a.shape[0] > 1:
                b[: self.used] = a[: self.used]

    def run(self, iterations: int) -> int:
        """Run ``iterations`` iterations (fewer if the root gets proven); return how many ran.

        The kernel runs in chunks of a fraction of a second, so that a
        Ctrl-C stops the search; the iterations, and so the tree, are the
        same as in one call.

        Raises:
            ValueError: the tree would outgrow :func:`max_nodes`, or the
                root would count more than :data:`MAX_VISITS` visits.
        """
        if self.root_visits + iterations > MAX_VISITS:
            raise ValueError(
                f"a tree counts at most {MAX_VISITS:,} visits; this one has {self.root_visits:,} and "
                f"{iterations:,} more iterations were asked for"
            )
        self.reserve(iterations)
        self._began = time.perf_counter()
        return self._run(iterations)

    def _run(self, iterations: int, stop: Optional[threading.Event] = None) -> int:
        """Run up to ``iterations`` iterations in chunks, within the room reserved; return how many ran.

        A set ``stop`` event ends the run between two chunks.
        """
        chunks = Chunks(iterations)
        total = 0
        while chunks.remaining > 0 and not (stop is not None and stop.is_set()):
            size = chunks.next()
            done, self.used = self._chunk(size)
            self.iterations += int(done)
            total += int(done)
            self._report()
            if done < size:  # the root is proven, the tree is full, or the search was stopped
                break
            chunks.done(size)
        return total

    def arrays(self, used: Optional[np.ndarray] = None, control: Optional[np.ndarray] = None) -> Tree:
        """The tree as the kernels take it (:class:`awale.search.loop.Tree`); its arrays are shared, not copied.

        ``used`` and ``control`` are the node counter and the stop flag (new ones by default).
        """
        return Tree(
            self._links, self._flags, self._value, self._gain, self._amaf_n, self._amaf_w, self.history,
            np.array([self.used], dtype=np.int64) if used is None else used,
            np.zeros(1, dtype=np.int64) if control is None else control,
            self._implicit,
        )

    def options(self, shared: bool = False) -> Options:
        """The options as the kernels take them; ``shared`` for a tree other threads grow at the same time."""
        return Options(self._cfg, self._endgame, int(shared))

    def root(self) -> Root:
        """The root position as the kernels take it."""
        game = game_arrays(self.game)
        return Root(game.state, game.keys, game.boards, game.length, self.game.rules.params)

    def guarded(self, control: np.ndarray) -> contextlib.ExitStack:
        """While a kernel runs, the one stop flag ``control[0]`` is raised by a stop of the thread's search control
        (:class:`awale.core.control.SearchControl`) and, in a timed search (:meth:`run_for`), by its deadline: the
        kernel ends within an iteration."""
        stack = contextlib.ExitStack()
        stack.enter_context(watched(control, 0, 1))
        deadline = getattr(self, "_deadline", None)
        if deadline is not None:
            stack.enter_context(stop_at(control, 0, 1, deadline))
        return stack

    def _chunk(self, size: int) -> Tuple[int, int]:
        """Run up to ``size`` iterations in one call of the kernel; return ``(iterations done, nodes used)``."""
        tree = self.arrays()
        with self.guarded(tree.control):  # a stop, or the deadline, ends the kernel at once
            done = iterate(size, np.zeros(1, dtype=np.int64), tree, self.options(), self.root(), self._rng)
        return int(done), int(tree.used[0])

    def _report(self) -> None:
        """Tell the thread's search control (if it listens) how the search stands; a tree of a forest does not."""
        control = current()
        if control is None or control.listener is None or self.share != 1:
            return
        line = self.principal_variation()
        best = next((s for s in self.children() if line and s.action == line[0]), None)
        control.report(Progress(
            len(line), self.root_visits, time.perf_counter() - getattr(self, "_began", time.perf_counter()), line,
            mean=None if best is None else best.mean, proven="" if best is None else best.proven,
        ))

    def run_for(self, seconds: float, stop: Optional[threading.Event] = None, iterations: Optional[int] = None) -> int:
        """Run iterations for about ``seconds`` seconds of wall-clock time; return how many ran.

        The tree grows as needed, up to :attr:`node_limit` nodes and
        :data:`MAX_VISITS` visits: the search stops early when it is full
        (or when ``stop`` is set, or after ``iterations`` iterations if given: the first limit reached).
        """
        self._began = time.perf_counter()
        deadline = self._began + seconds
        self._deadline = deadline  # the kernels stop at it (:meth:`guarded`)
        try:
            return self._run_until(deadline, stop, iterations)
        finally:
            self._deadline = None

    def _run_until(self, deadline: float, stop: Optional[threading.Event], iterations: Optional[int]) -> int:
        done, chunk = 0, 64
        limit = self.node_limit
        while time.perf_counter() < deadline and not self.proven_root:
            room = min(limit - self.used, MAX_VISITS - self.root_visits)
            if iterations is not None:
                room = min(room, iterations - done)
            size = min(chunk, room)
            if size <= 0:
                break
            start = time.perf_counter()
            self.reserve(size)
            ran = self._run(size, stop)
            done += ran
            if ran < size:
                break
            elapsed = time.perf_counter() - start
            remaining = deadline - time.perf_counter()
            # Aim each chunk at a quarter of the time left (at most a second's worth): the deadline stops the
            # kernel itself, and the tree grows no faster than it fills.
            chunk = max(16, int(chunk / max(elapsed, 1e-6) * min(remaining / 4, 1.0)))
        return done

    @property
    def root_visits(self) -> int:
        return int(self._links[0, VISITS])

    @property
    def proven_root(self) -> str:
        """The proven result of the root for the player to move there: "win", "loss", "draw" or ""."""
        lower, upper = int(self._flags[0, LOWER]), int(self._flags[0, UPPER])
        return RESULT_NAMES[negated(lower)] if lower == upper else ""

    def children(self) -> List[ChildStats]:
        """The root's children, in ascending order of action."""
        return self._children_of(0)

    def _children_of(self, node: int) -> List[ChildStats]:
        stats = []
        child = int(self._links[node, FIRST])
        while child >= 0:
            visits = int(self._links[child, VISITS])
            stats.append(
                ChildStats(
                    action=int(self._flags[child, ACTION]),
                    visits=visits,
                    mean=float(self._value[child]) / visits if visits else 0.0,
                    lower=RESULT_NAMES[int(self._flags[child, LOWER])],
                    upper=RESULT_NAMES[int(self._flags[child, UPPER])],
                )
            )
            child = int(self._links[child, NEXT])
        return sorted(stats, key=lambda s: s.action)

    def best_action(self, by: str = "visits") -> int:
        """The action to play (see :func:`choose_action`)."""
        return choose_action(self.children(), by, self.game.legal_actions[0])

    def principal_variation(self, plies: int = 32) -> Tuple[int, ...]:
        """The best action (:meth:`best_action`), then the most visited child of each node below it, as far as
        the tree goes (at most ``plies`` moves); empty before the first iteration."""
        node, line = 0, []
        while len(line) < plies:
            best, most = -1, 0
            child = int(self._links[node, FIRST])
            chosen = self.best_action() if node == 0 and child >= 0 else -1
            while child >= 0:
                visits, action = int(self._links[child, VISITS]), int(self._flags[child, ACTION])
                if action == chosen or (chosen < 0 and visits > most):
                    best, most = child, visits
                child = int(self._links[child, NEXT])
            if best < 0:
                break
            line.append(int(self._flags[best, ACTION]))
            node = best
        return tuple(line)

    def subtree(self, game: Game) -> Optional["SearchTree"]:
        """The tree under the node reached by ``game``, if ``game`` continues the root's game.

        Looks at most two plies down (our move, then the opponent's); the
        game must match in position and in repetition history.
        """
        frontier = [(0, self.game)]
        for _ in range(2):
            following = []
            for node, position in frontier:
                child = int(self._links[node, FIRST])
                while child >= 0:
                    following.append((child, position.step(int(self._flags[child, ACTION]))[0]))
                    child = int(self._links[child, NEXT])
            for node, position in following:
                if _same_game(position, game):
                    return self._rerooted(node, game)
            frontier = following
        return None

    def _kept(self) -> dict:
        """Attributes a subtree keeps besides the tree itself (subclasses add theirs)."""
        return {"share": self.share}

    def _rerooted(self, node: int, game: Game) -> Optional["SearchTree"]:
        if game.game_finished:
            return None
        tree = type(self).__new__(type(self))
        tree.__dict__.update(self._kept())
        tree.game, tree.config, tree._cfg, tree._rng = game, self.config, self._cfg, self._rng
        tree.endgame, tree._endgame = self.endgame, self._endgame
        tree.history = self.history
        tree._allocate(self.capacity)
        tree.used = int(compact(node, self.arrays(), tree.arrays(used=np.zeros(1, dtype=np.int64))))
        tree.iterations = int(tree._links[0, VISITS])
        return tree


def choose_action(stats: List[ChildStats], by: str, default: int) -> int:
    """The action to play, from the root's children (``default`` if there are none).

    A proven win if there is one.  Otherwise the most visited child
    (``by="visits"``) or the best mean (``by="mean"``) among the moves that
    could still do better than the result some move secures (a proven
    loss is thus avoided when it can be) -- unless its mean is below that
    secured result, a proven draw, which is then played instead.
    """
    if not stats:
        return default
    wins = [s for s in stats if s.lower == "win"]
    if wins:
        return wins[0].action
    secured = max(RESULTS[s.lower] for s in stats)
    securing = [s for s in stats if RESULTS[s.lower] == secured]
    candidates = [s for s in stats if RESULTS[s.upper] > secured] or securing
    key = (lambda s: (s.mean, s.visits)) if by == "mean" else (lambda s: (s.visits, s.mean))
    best = max(candidates, key=key)
    if secured == DRAWN and RESULTS[best.lower] < DRAWN and best.mean < 0.5:
        best = max(securing, key=key)
    return best.action


def _same_game(a: Game, b: Game) -> bool:
    """Same position, same plies and the same positions since the last capture."""
    return (
        a == b
        and a.plies == b.plies
        and game_arrays(a).length == game_arrays(b).length
        and np.array_equal(game_arrays(a).keys[: game_arrays(a).length], game_arrays(b).keys[: game_arrays(b).length])
    )
