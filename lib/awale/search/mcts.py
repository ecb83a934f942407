"""Monte Carlo Tree Search in compiled code, with the tree kept in preallocated arrays.

One search, many variants: the tree policy, the playout policy, the playout
cut-off, the heuristic terms, AMAF/RAVE and the solver are options of the same
kernel (a :class:`SearchConfig`), not subclasses.  The tree is a structure of
arrays, as in mctx: node ``i`` has a parent, a first child and a next sibling,
the action that led to it, a bit mask of the legal actions not expanded yet, a
visit count, a sum of rewards and, for the solver, bounds on its exact result.
Positions are not stored: each iteration replays the actions from the root,
which is cheap next to a playout, and keeps the repetition history exact.

With an endgame database (:mod:`awale.endgame`), a playout stops as soon as
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
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from typing import List, Optional, Tuple

import numpy as np

from .._guard import Chunks, available_memory
from .._jit import jit
from ..endgame import UNCOVERED, EndgameDatabase, probe, probe_tables
from ..evaluation import N_FEATURES, logit, checked_weights
from ..game import Game
from ..engine import (
    R_GRAND_SLAM, DRAW, NORTH, ONGOING, SOUTH, below, capture, copy_history, grown, sow, advance, legal_actions,
)

__all__ = [
    "SearchConfig", "SearchTree", "ChildStats", "choose_action", "node_bytes", "max_nodes", "check_tree_size",
    "MAX_VISITS",
]

# Results of a game, ordered, from the point of view of the player who moved into the node.  The
# solver keeps a lower and an upper bound on the exact result of every node; it is proven when they meet.
LOST, DRAWN, WON = 1, 2, 3
_RESULT_NAMES = {LOST: "loss", DRAWN: "draw", WON: "win"}
_RESULTS = {name: result for result, name in _RESULT_NAMES.items()}

# Columns of the int32 ``links`` array and of the int8 ``flags`` array.
_PARENT, _FIRST, _NEXT, _VISITS = 0, 1, 2, 3
_ACTION, _UNTRIED, _LOWER, _UPPER = 0, 1, 2, 3

# Entries of the float64 configuration vector handed to the kernels.
_C, _TREE_POLICY, _HEAVY, _BIAS, _HISTORY, _CUTOFF, _RAVE, _SOLVER, _EVALUATE, _WEIGHTS = range(10)
_RANDOM_TREE, _UCB = 0, 1

_MAX_RECORDED = 4096  # moves of one iteration remembered for RAVE and the history heuristic

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
        evaluation: the weights of a fitted evaluation
            (:class:`awale.evaluation.Evaluation`), or empty for none.  With
            weights, a leaf is scored by the evaluation's win probability
            for the player to move, after ``cutoff`` random plies (0: at once,
            no playout at all) instead of a playout to the end.
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

    def __post_init__(self) -> None:
        if self.tree_policy not in ("ucb", "random"):
            raise ValueError(f"tree_policy must be 'ucb' or 'random', got {self.tree_policy!r}")
        if self.playout not in ("random", "greedy"):
            raise ValueError(f"playout must be 'random' or 'greedy', got {self.playout!r}")
        for name in ("c", "bias", "history", "rave", "cutoff"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be non-negative, got {getattr(self, name)!r}")
        weights = self.evaluation
        try:
            empty = not isinstance(weights, str) and len(weights) == 0  # no weights: playouts
        except TypeError:
            empty = False
        object.__setattr__(
            self, "evaluation", () if empty else tuple(checked_weights(weights, "evaluation (or empty)").tolist())
        )

    def vector(self) -> np.ndarray:
        """The configuration as the kernels read it."""
        return np.array(
            [
                self.c,
                _UCB if self.tree_policy == "ucb" else _RANDOM_TREE,
                self.playout == "greedy",
                self.bias,
                self.history,
                self.cutoff,
                self.rave,
                self.solver,
                len(self.evaluation) > 0,
                *(self.evaluation or (0.0,) * N_FEATURES),
            ],
            dtype=np.float64,
        )


def node_bytes(config: SearchConfig) -> int:
    """Bytes of tree per node under ``config`` (the arrays of :class:`SearchTree`)."""
    plain = 4 * 4 + 4 + 8 + 2  # links (4 x int32), flags (4 x int8), value (float64), gain (int16)
    return plain + (12 if config.rave > 0 else 0)  # AMAF visits (int32) and rewards (float64)


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


# --------------------------------------------------------------------------- kernels


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
def _rollout(state, params, keys, boards, length, out, count, rng, heavy, moves_left, played, n_played, scratch,
             endgame):
    """Playout moves until the game ends, the cut-off is reached, the history is full or the
    endgame database holds the position.

    Each move is recorded in ``played`` as ``player * n + action``.
    Returns ``(length, count, moves_left, n_played)``; ``moves_left`` is 0
    when the database holds the position reached (only a capture can bring
    a position into it).
    """
    n = params[0]
    size = 2 * n
    capacity = keys.shape[0]
    if probe(state, size, endgame) != UNCOVERED:
        return length, count, 0, n_played
    while count > 0 and moves_left != 0 and length + 1 < capacity:
        if heavy:
            action = _heavy_choice(state, params, out, count, rng, scratch)
        else:
            action = out[below(rng, count)]
        if n_played < played.shape[0]:
            played[n_played] = state[size + 2] * n + action
            n_played += 1
        captured, length, count = advance(state, params, action, keys, boards, length, out)
        moves_left -= 1
        if captured > 0 and probe(state, size, endgame) != UNCOVERED:
            return length, count, 0, n_played
    return length, count, moves_left, n_played


@jit
def _evaluation_space(root_state, cfg, n):
    """The work arrays of :func:`_simulate`'s evaluation, for one thread."""
    weights = cfg.shape[0] - _WEIGHTS
    return np.empty(2 * root_state.shape[0], dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(weights)


@jit
def _simulate(state, params, cfg, keys, boards, length, out, count, rng, played, n_played, scratch, endgame,
              eval_work, eval_moves, eval_row):
    """Score the new leaf ``state``: a playout to the end, or cut off, or none, then the evaluation if any.

    Returns South's reward, the moves recorded so far and the history
    arrays (grown if the playout outgrew them).  The ``eval_*`` arrays are
    the evaluation's work space (:func:`awale.evaluation.logit`).
    """
    size = 2 * params[0]
    evaluate = cfg[_EVALUATE] != 0
    cutoff = np.int64(cfg[_CUTOFF])
    moves_left = cutoff if cutoff > 0 else (0 if evaluate else -1)
    while count > 0 and moves_left != 0:
        length, count, moves_left, n_played = _rollout(
            state, params, keys, boards, length, out, count, rng, cfg[_HEAVY] != 0, moves_left, played, n_played,
            scratch, endgame,
        )
        if count > 0 and moves_left != 0:
            keys, boards = grown(keys, boards, length)
    if evaluate and state[size + 4] == ONGOING and probe(state, size, endgame) == UNCOVERED:
        win = 1.0 / (1.0 + math.exp(-logit(state, params, cfg[_WEIGHTS:], eval_work, eval_moves, eval_row)))
        return (win if state[size + 2] == 0 else 1.0 - win), n_played, keys, boards
    return _reward(state, size, params[1], endgame), n_played, keys, boards


@jit(inline=False, allocates=False)
def _descend(state, params, action, keys, boards, length, out):
    """One move of the descent through the tree (kept out of line: it is not the hot loop)."""
    return advance(state, params, action, keys, boards, length, out)


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
    child = links[node, _FIRST]
    while child >= 0:
        secured = max(secured, flags[child, _LOWER])
        child = links[child, _NEXT]
    return secured


@jit(inline=False, allocates=False)
def _select(node, player, cfg, links, flags, value, gain, amaf_n, amaf_w, history, rng):
    """The child of ``node`` to descend into (``player`` is to move at ``node``).

    With the solver, a child whose upper bound is no better than what another
    child secures cannot change the result of ``node``: it is not selected.
    """
    # Without the solver every bound is [LOST, WON] and nothing is cut.
    secured = _secured(node, links, flags) if cfg[_SOLVER] != 0 else LOST - 1
    if cfg[_TREE_POLICY] == _RANDOM_TREE:
        count = 0
        child = links[node, _FIRST]
        while child >= 0:
            count += flags[child, _UPPER] > secured
            child = links[child, _NEXT]
        pick = below(rng, max(count, 1))
        child = links[node, _FIRST]
        while child >= 0:
            if flags[child, _UPPER] > secured:
                if pick == 0:
                    return child
                pick -= 1
            child = links[child, _NEXT]
        return links[node, _FIRST]
    c = cfg[_C]
    k = cfg[_RAVE]
    log_n = math.log(max(links[node, _VISITS], 1))
    best = links[node, _FIRST]
    best_score = -1e300
    child = links[node, _FIRST]
    while child >= 0:
        if flags[child, _UPPER] <= secured:
            child = links[child, _NEXT]
            continue
        visits = links[child, _VISITS]
        mean = value[child] / visits
        if k > 0 and amaf_n[child] > 0:
            beta = math.sqrt(k / (3.0 * visits + k))
            mean = (1.0 - beta) * mean + beta * amaf_w[child] / amaf_n[child]
        score = mean + c * math.sqrt(log_n / visits)
        if cfg[_BIAS] != 0:
            score += cfg[_BIAS] * gain[child] / visits
        if cfg[_HISTORY] != 0:
            action = flags[child, _ACTION]
            if history[player, 1, action] > 0:
                score += cfg[_HISTORY] * history[player, 0, action] / history[player, 1, action] / math.sqrt(visits)
        # Ties go to the first child in the list; children are linked in the random order of
        # their expansion, so no action is favoured.
        if score > best_score:
            best_score = score
            best = child
        child = links[child, _NEXT]
    return best


@jit
def _fill_node(child, action, player, captured, state, size, out, count, solver, rave, flags, value, gain, amaf_n,
               amaf_w, endgame):
    """Set the statistics of a new node (all but its links): ``action`` led to ``state``, which has ``count`` moves."""
    untried = 0
    for j in range(count):
        untried |= 1 << out[j]
    flags[child, _ACTION] = action
    flags[child, _UNTRIED] = untried
    flags[child, _LOWER] = LOST
    flags[child, _UPPER] = WON
    value[child] = 0.0
    gain[child] = captured
    if rave:
        amaf_n[child] = 0
        amaf_w[child] = 0.0
    if solver and count == 0:  # a final position: its result is known
        outcome = state[size + 4]
        result = DRAWN if outcome == DRAW else (WON if outcome == player else LOST)
        flags[child, _LOWER] = result
        flags[child, _UPPER] = result
    elif solver:
        exact = probe(state, size, endgame)
        if exact != UNCOVERED:  # the database's result, for the player who moved here
            result = DRAWN if exact == 0 else (LOST if exact > 0 else WON)
            flags[child, _LOWER] = result
            flags[child, _UPPER] = result


@jit
def _negated(result):
    """The same result seen by the other player."""
    return LOST + WON - result


@jit(inline=False, allocates=False)
def _update_bounds(node, links, flags):
    """Recompute the bounds of ``node`` from its children's (the minimax rule on intervals).

    The player to move at ``node`` gets the best of the children: at least
    the best lower bound, at most the best upper bound (a win while some move
    is not expanded).  Returns whether the bounds changed.
    """
    best_lower = LOST
    best_upper = LOST if flags[node, _UNTRIED] == 0 else WON
    child = links[node, _FIRST]
    while child >= 0:
        best_lower = max(best_lower, flags[child, _LOWER])
        best_upper = max(best_upper, flags[child, _UPPER])
        child = links[child, _NEXT]
    lower = _negated(best_upper)
    upper = _negated(best_lower)
    if lower == flags[node, _LOWER] and upper == flags[node, _UPPER]:
        return False
    flags[node, _LOWER] = lower
    flags[node, _UPPER] = upper
    return True


@jit(inline=False)
def _iterate(iterations, root_state, root_keys, root_boards, root_length, params, cfg, rng,
             links, flags, value, gain, amaf_n, amaf_w, history, used, endgame):
    """Run up to ``iterations`` iterations on the tree; return ``(iterations done, nodes used)``.

    Stops early when the tree is full or, with the solver, when the root is proven.
    ``endgame`` is :func:`awale.endgame.probe_tables` (seeds -1: no database).
    """
    n = params[0]
    size = 2 * n
    solver = cfg[_SOLVER] != 0
    rave = cfg[_RAVE] > 0
    track_history = cfg[_HISTORY] != 0
    capacity = links.shape[0]
    root_player = root_state[size + 2]

    state = np.empty_like(root_state)
    room = 256
    while room < 2 * (root_length + 1):
        room *= 2
    keys = np.empty(room, dtype=np.int64)
    boards = np.empty((room, size + 1), dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    path = np.empty(capacity + 1, dtype=np.int64)
    played = np.empty(_MAX_RECORDED, dtype=np.int64)
    scratch = np.empty(size + n, dtype=np.int64)
    seen = np.zeros(2, dtype=np.int64)
    eval_work, eval_moves, eval_row = _evaluation_space(root_state, cfg, n)

    done = 0
    while done < iterations:
        if used >= capacity or flags[0, _LOWER] == flags[0, _UPPER]:
            break
        done += 1
        for i in range(root_state.shape[0]):
            state[i] = root_state[i]
        copy_history(root_keys, root_boards, root_length, keys, boards)
        length = root_length
        count = legal_actions(state, params, out)
        node = 0
        depth = 0
        path[0] = 0
        n_played = 0
        reward = -1.0

        # Selection, then expansion of one new node.
        while True:
            if depth > 0 and flags[node, _LOWER] == flags[node, _UPPER]:  # proven (by the solver)
                proven = flags[node, _LOWER]
                mover_reward = 1.0 if proven == WON else (0.0 if proven == LOST else 0.5)
                mover = root_player ^ ((depth - 1) & 1)
                reward = mover_reward if mover == 0 else 1.0 - mover_reward
                break
            mask = flags[node, _UNTRIED]
            if mask == 0 and links[node, _FIRST] < 0:
                break  # a finished game
            player = state[size + 2]
            if mask != 0:
                action = _nth_bit(mask, below(rng, _bit_count(mask)))
                flags[node, _UNTRIED] = mask & ~(1 << action)
                child = used
                used += 1
            else:
                child = _select(node, player, cfg, links, flags, value, gain, amaf_n, amaf_w, history, rng)
                action = flags[child, _ACTION]
            if length + 1 >= keys.shape[0]:
                keys, boards = grown(keys, boards, length)
            captured, length, count = _descend(state, params, action, keys, boards, length, out)
            if n_played < _MAX_RECORDED:
                played[n_played] = player * n + action
                n_played += 1
            depth += 1
            path[depth] = child
            if mask != 0:  # link the new node in as the first child
                links[child, _PARENT] = node
                links[child, _FIRST] = -1
                links[child, _NEXT] = links[node, _FIRST]
                links[child, _VISITS] = 0
                links[node, _FIRST] = child
                _fill_node(child, action, player, captured, state, size, out, count, solver, rave, flags, value,
                           gain, amaf_n, amaf_w, endgame)
                node = child
                break
            node = child

        # Simulation.
        if reward < 0:
            reward, n_played, keys, boards = _simulate(state, params, cfg, keys, boards, length, out, count, rng,
                                                       played, n_played, scratch, endgame, eval_work, eval_moves,
                                                       eval_row)

        # Backpropagation, with the AMAF statistics of RAVE along the way.
        seen[0] = 0
        seen[1] = 0
        ply = n_played - 1
        for d in range(depth, -1, -1):
            nd = path[d]
            links[nd, _VISITS] += 1
            mover = root_player ^ ((d + 1) & 1)
            value[nd] += reward if mover == 0 else 1.0 - reward
            if rave:
                while ply >= d:  # moves played at this depth or later
                    seen[played[ply] // n] |= 1 << (played[ply] % n)
                    ply -= 1
                to_move = root_player ^ (d & 1)
                mine = reward if to_move == 0 else 1.0 - reward
                child = links[nd, _FIRST]
                while child >= 0:
                    if (seen[to_move] >> flags[child, _ACTION]) & 1:
                        amaf_n[child] += 1
                        amaf_w[child] += mine
                    child = links[child, _NEXT]
        if track_history:
            for k in range(n_played):
                player = played[k] // n
                history[player, 0, played[k] % n] += reward if player == 0 else 1.0 - reward
                history[player, 1, played[k] % n] += 1.0
        if solver:
            # Bounds only tighten.  The parent of the new node may have lost its last untried move;
            # above it, a node whose bounds did not change leaves its ancestors' as they were.
            for d in range(depth - 1, -1, -1):
                if not _update_bounds(path[d], links, flags) and d < depth - 1:
                    break
    return done, used


@jit(inline=False)
def _compact(root, links, flags, value, gain, amaf_n, amaf_w, new_links, new_flags, new_value, new_gain,
             new_amaf_n, new_amaf_w):
    """Copy the subtree under ``root`` into the new arrays (breadth first); return its size."""
    rave = amaf_n.shape[0] == links.shape[0] and new_amaf_n.shape[0] == new_links.shape[0]
    order = np.empty(links.shape[0], dtype=np.int64)
    index = np.full(links.shape[0], -1, dtype=np.int64)
    order[0] = root
    index[root] = 0
    head = 0
    tail = 1
    while head < tail:
        old = order[head]
        head += 1
        child = links[old, _FIRST]
        while child >= 0:
            order[tail] = child
            index[child] = tail
            tail += 1
            child = links[child, _NEXT]
    for new in range(tail):
        old = order[new]
        for column in range(4):
            new_links[new, column] = links[old, column]
        for column in range(flags.shape[1]):
            new_flags[new, column] = flags[old, column]
        new_links[new, _PARENT] = index[links[old, _PARENT]] if new > 0 else -1
        new_links[new, _FIRST] = index[links[old, _FIRST]] if links[old, _FIRST] >= 0 else -1
        new_links[new, _NEXT] = index[links[old, _NEXT]] if (new > 0 and links[old, _NEXT] >= 0) else -1
        new_value[new] = value[old]
        new_gain[new] = gain[old]
        if rave:
            new_amaf_n[new] = amaf_n[old]
            new_amaf_w[new] = amaf_w[old]
    return tail


# --------------------------------------------------------------------------- the Python side


class SearchTree:
    """A search tree rooted at a game, grown by :meth:`run` and read by :meth:`children`.

    Args:
        game: the root position (not finished).
        config: the options of the search.
        rng: the kernels' random state (:func:`awale.rules.seed_rng`); it is
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
        self._cfg = config.vector()
        self._rng = rng
        n = game.rules.pits_per_side
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
        arrays = (self._links, self._flags, self._value, self._gain, self._amaf_n, self._amaf_w)
        return sum(a.nbytes for a in arrays)

    def reserve(self, nodes: int) -> None:
        """Make room for ``nodes`` more nodes, keeping the tree.

        Raises:
            ValueError: the tree would outgrow :func:`max_nodes`.
        """
        needed = self.used + nodes
        if needed <= self.capacity:
            return
        check_tree_size(needed, self.config, self.share)
        old = (self._links, self._flags, self._value, self._gain, self._amaf_n, self._amaf_w)
        self._allocate(min(max(needed, 2 * self.capacity), self.node_limit))
        new = (self._links, self._flags, self._value, self._gain, self._amaf_n, self._amaf_w)
        for a, b in zip(old, new):
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
            if done < size:  # the root is proven, or the tree is full
                break
            chunks.done(size)
        return total

    def _chunk(self, size: int) -> Tuple[int, int]:
        """Run up to ``size`` iterations in one call of the kernel; return ``(iterations done, nodes used)``."""
        game = self.game.arrays
        return _iterate(
            size, game.state, game.keys, game.boards, game.length, self.game.rules.params, self._cfg,
            self._rng, self._links, self._flags, self._value, self._gain, self._amaf_n, self._amaf_w,
            self.history, self.used, self._endgame,
        )

    def run_for(self, seconds: float, stop: Optional[threading.Event] = None) -> int:
        """Run iterations for about ``seconds`` seconds of wall-clock time; return how many ran.

        The tree grows as needed, up to :attr:`node_limit` nodes and
        :data:`MAX_VISITS` visits: the search stops early when it is full
        (or when ``stop`` is set).
        """
        deadline = time.perf_counter() + seconds
        done, chunk = 0, 64
        limit = self.node_limit
        while time.perf_counter() < deadline and not self.proven_root:
            room = min(limit - self.used, MAX_VISITS - self.root_visits)
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
            # Aim each chunk at a quarter of the time left (at most a second's worth), so the deadline
            # is not overrun by much and the tree grows no faster than it fills.
            chunk = max(16, int(chunk / max(elapsed, 1e-6) * min(remaining / 4, 1.0)))
        return done

    @property
    def root_visits(self) -> int:
        return int(self._links[0, _VISITS])

    @property
    def proven_root(self) -> str:
        """The proven result of the root for the player to move there: "win", "loss", "draw" or ""."""
        lower, upper = int(self._flags[0, _LOWER]), int(self._flags[0, _UPPER])
        return _RESULT_NAMES[_negated(lower)] if lower == upper else ""

    def children(self) -> List[ChildStats]:
        """The root's children, in ascending order of action."""
        return self._children_of(0)

    def _children_of(self, node: int) -> List[ChildStats]:
        stats = []
        child = int(self._links[node, _FIRST])
        while child >= 0:
            visits = int(self._links[child, _VISITS])
            stats.append(
                ChildStats(
                    action=int(self._flags[child, _ACTION]),
                    visits=visits,
                    mean=float(self._value[child]) / visits if visits else 0.0,
                    lower=_RESULT_NAMES[int(self._flags[child, _LOWER])],
                    upper=_RESULT_NAMES[int(self._flags[child, _UPPER])],
                )
            )
            child = int(self._links[child, _NEXT])
        return sorted(stats, key=lambda s: s.action)

    def best_action(self, by: str = "visits") -> int:
        """The action to play (see :func:`choose_action`)."""
        return choose_action(self.children(), by, self.game.legal_actions[0])

    def subtree(self, game: Game) -> Optional["SearchTree"]:
        """The tree under the node reached by ``game``, if ``game`` continues the root's game.

        Looks at most two plies down (our move, then the opponent's); the
        game must match in position and in repetition history.
        """
        frontier = [(0, self.game)]
        for _ in range(2):
            following = []
            for node, position in frontier:
                child = int(self._links[node, _FIRST])
                while child >= 0:
                    following.append((child, position.step(int(self._flags[child, _ACTION]))[0]))
                    child = int(self._links[child, _NEXT])
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
        tree.used = int(
            _compact(node, self._links, self._flags, self._value, self._gain, self._amaf_n, self._amaf_w,
                     tree._links, tree._flags, tree._value, tree._gain, tree._amaf_n, tree._amaf_w)
        )
        tree.iterations = int(tree._links[0, _VISITS])
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
    secured = max(_RESULTS[s.lower] for s in stats)
    securing = [s for s in stats if _RESULTS[s.lower] == secured]
    candidates = [s for s in stats if _RESULTS[s.upper] > secured] or securing
    key = (lambda s: (s.mean, s.visits)) if by == "mean" else (lambda s: (s.visits, s.mean))
    best = max(candidates, key=key)
    if secured == DRAWN and _RESULTS[best.lower] < DRAWN and best.mean < 0.5:
        best = max(securing, key=key)
    return best.action


def _same_game(a: Game, b: Game) -> bool:
    """Same position, same plies and the same positions since the last capture."""
    return (
        a == b
        and a.plies == b.plies
        and a.arrays.length == b.arrays.length
        and np.array_equal(a.arrays.keys[: a.arrays.length], b.arrays.keys[: b.arrays.length])
    )
