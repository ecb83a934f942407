"""Monte Carlo agents: flat Monte Carlo, MCTS with a random tree policy, and UCT with its variants.

All three search with compiled kernels; the tree-based ones share one search
(:class:`awale.search.mcts.SearchTree`) whose variants are options.
"""

from __future__ import annotations

import math
import time
from typing import List, Optional, Tuple, Union

import numpy as np

from ..core.control import current, tell
from ..core.engine import game_arrays
from ..knowledge.evaluation import WEIGHTS, PatternEvaluation, load_evaluation
from ..core.game import Game
from ..core.rules import random_playouts, seed_rng
from ..search.mcts import MAX_VISITS, ChildStats, SearchConfig, SearchTree, check_tree_size, max_nodes
from ..search.limits import Limits
from ..search.parallel import SCHEMES, RootForest, check_parallel, resolve_threads, search_tree
from .base import MAX_SECONDS, Agent, Param, budget_params, check_budget, given_limits, register, seed_param
from .endgame import EndgameOption, endgame_param
from .timing import limits_seconds

__all__ = ["FlatMonteCarlo", "MCTS", "UCT", "MONTE_CARLO_LIMITS"]

DEFAULT_ITERATIONS = 1000

#: The limits the Monte Carlo searches honour (:class:`awale.search.limits.Limits`): all but a depth.
MONTE_CARLO_LIMITS = frozenset({"time", "nodes", "clock", "infinite", "ponder"})


class _Searcher(Agent):
    """What the Monte Carlo agents share: a budget, a seed and the kernels' random state."""

    def validate(self) -> None:
        check_budget(self, DEFAULT_ITERATIONS)

    honours = MONTE_CARLO_LIMITS

    def reset(self) -> None:
        self._rng = seed_rng(self.seed)

    def _budget(self, limits: Optional[Limits]) -> Tuple[Optional[int], Optional[float]]:
        """The iterations and the seconds of a search within ``limits`` (None: the spec's budget); either may be
        None (not bounded by it), not both."""
        limits = given_limits(self, limits)
        if limits is None:
            return self.budget_iterations, self.time
        iterations = None if limits.nodes is None else min(limits.nodes, MAX_VISITS)
        seconds = (None if iterations is not None else MAX_SECONDS) if limits.unbounded else limits_seconds(limits)
        if iterations is None and seconds is None:  # a depth alone, which these searches do not have
            return self.budget_iterations, self.time
        return iterations, seconds


@register
class FlatMonteCarlo(_Searcher):
    """Flat Monte Carlo: random playouts after each root move, then the best mean.

    The budget is shared out evenly among the legal moves, a batch of
    playouts to each in turn until it is spent (Brügmann 1993; Browne et al. 2012, §2.3).
    """

    name = "flat"
    params = (*budget_params(DEFAULT_ITERATIONS), seed_param())

    def act(self, game: Game, limits: Optional[Limits] = None) -> int:
        self._check_game(game)
        actions = game.legal_actions
        if len(actions) == 1:
            return actions[0]
        budget, seconds = self._budget(limits)
        children = [game.step(a)[0] for a in actions]
        wins = np.zeros(len(actions))
        counts = np.zeros(len(actions))
        mover = game.current_player
        deadline = None if seconds is None else time.perf_counter() + seconds
        if budget is None:
            budget = MAX_VISITS
        batch = 16 if deadline is not None else max(1, budget // len(actions))
        spent = 0
        control = current()  # a stop of it (awale.core.control) ends the playouts after this batch
        while True:
            for i, child in enumerate(children):
                size = min(batch, budget - spent)
                if size <= 0:
                    break
                arrays = game_arrays(child)
                south, north, draws, _ = random_playouts(
                    arrays.state, child.rules.params, arrays.keys, arrays.boards, arrays.length, size, self._rng
                )
                wins[i] += (south if mover == 0 else north) + 0.5 * draws
                counts[i] += size
                spent += size
            if control is not None and control.stopped:
                break
            if spent >= budget:
                break
            if deadline is None:
                batch = 1  # the remainder, one playout per move
            elif time.perf_counter() >= deadline:
                break
        means = wins / np.maximum(counts, 1)
        best = np.flatnonzero(means == means.max())
        return actions[int(best[0])]


class _TreeSearcher(_Searcher):
    """An agent built on :class:`SearchTree`, with optional tree reuse between moves."""

    final = "visits"

    def validate(self) -> None:
        super().validate()
        try:
            check_parallel(self.threads, self.parallel)
            threads = resolve_threads(self.threads)
            if self.budget_iterations is not None:  # refuse a tree this machine cannot hold, before any search
                if threads > 1 and self.parallel == "root":  # one tree per thread, each its share of memory
                    check_tree_size(-(-self.budget_iterations // threads) + 1, self.config(), threads)
                else:
                    check_tree_size(self.budget_iterations + 1, self.config())
        except ValueError as error:
            raise ValueError(f"{self.name}: {error}") from None

    @property
    def replayable(self) -> bool:
        """Whether a game of this agent replays move for move from its seed on any machine.

        Not with a time budget, nor on several threads by tree or leaf
        parallelisation (the threads' order varies), nor with ``threads=0``
        (the number of threads depends on the machine).
        """
        return self.time is None and (self.threads == 1 or (self.threads > 1 and self.parallel == "root"))

    def config(self) -> SearchConfig:
        raise NotImplementedError

    def reset(self) -> None:
        super().reset()
        self.tree: Optional[Union[SearchTree, RootForest]] = None
        self._endgame = EndgameOption(self.endgame)  # the database is found at the first move, once

    def search(self, game: Game, limits: Optional[Limits] = None) -> Union[SearchTree, RootForest]:
        """Grow a tree from ``game`` within the budget (reusing the last one if allowed) and return it.

        ``limits`` bounds this search instead of the spec's budget (:class:`~awale.search.limits.Limits`: its
        nodes are iterations, the first limit reached stops the search).  On several threads by root
        parallelisation, a :class:`RootForest` of trees.
        """
        self._check_game(game)
        iterations, seconds = self._budget(limits)
        tree = None
        if self.reuse and self.tree is not None:
            tree = self.tree.subtree(game)
            if tree is not None and iterations is not None and (
                tree.used + iterations > max_nodes(tree.config)
                or tree.root_visits + iterations > MAX_VISITS
            ):
                tree = None  # the kept subtree and this search would not fit in memory: start afresh
        if tree is None:
            database = self._endgame.database(game.rules)
            capacity = iterations or 4096
            if given_limits(self, limits) is not None:
                capacity = min(capacity, 1 << 20)  # a large limit grows the tree as it needs
            tree = search_tree(game, self.config(), self._rng, capacity + 1, self.threads, self.parallel,
                               endgame=database)
        if seconds is not None:
            tree.run_for(seconds, iterations=iterations)
        else:
            tree.run(iterations)
        self.tree = tree
        return tree

    def act(self, game: Game, limits: Optional[Limits] = None) -> int:
        self._check_game(game)
        given_limits(self, limits)
        if len(game.legal_actions) == 1:  # a forced move needs no search
            return game.legal_actions[0]
        exact = self._endgame.action(game)
        if exact is not None:
            tell("endgame database move", exact)
            return exact
        return self.search(game, limits).best_action(by=self.final)

    def expected_reply(self, game: Game, action: int) -> Optional[int]:
        """The most visited reply to ``action`` in the last search's tree, if it grew one from ``game``."""
        tree = self.tree
        if tree is None or tree.game != game or tree.game.plies != game.plies:
            return None
        line = tree.principal_variation(2)
        return line[1] if len(line) > 1 and line[0] == action else None

    def statistics(self) -> List[ChildStats]:
        """The root children of the last search, from the point of view of the player who searched."""
        return [] if self.tree is None else self.tree.children()


_REUSE = Param("reuse", bool, False, doc="keep the subtree of the position reached between moves")
_THREADS = (
    Param("threads", int, 1, minimum=0, maximum=1024, doc="threads to search with (0: every core)"),
    Param("parallel", str, "root", choices=SCHEMES,
          doc="with several threads: independent trees (root), one shared tree (tree), playouts per leaf (leaf)"),
)


@register
class MCTS(_TreeSearcher):
    """Monte Carlo Tree Search with a uniformly random tree policy (the reference thesis's MCTS).

    Every iteration descends the tree choosing children uniformly at random,
    expands one new node, plays a random game and backs the result up; the
    move played is the child with the best mean (Chaslot et al. 2008; Coulom 2006).
    """

    name = "mcts"
    params = (*budget_params(DEFAULT_ITERATIONS), _REUSE, *_THREADS, seed_param(), endgame_param())
    final = "mean"

    def config(self) -> SearchConfig:
        return SearchConfig(tree_policy="random")


#: The weights an evaluated UCT can score its leaves with: those of :data:`awale.knowledge.evaluation.WEIGHTS`
#: but the kroos' timing, which its kernels do not compute.
UCT_WEIGHTS = tuple(name for name in WEIGHTS if name != "kroo")


@register
class UCT(_TreeSearcher):
    """UCT and its variants: heavy playouts, progressive bias and history, cut-off, RAVE, solver.

    Children are chosen by UCB1, ``mean + c * sqrt(ln n / n_i)`` on the win
    rate (draws worth ½) (Kocsis & Szepesvári 2006; Auer et al. 2002), plus the
    optional terms of progressive bias and the history heuristic,
    ``bias * h_i / n_i + history * hh_i / sqrt(n_i)`` (Chaslot et al. 2008),
    and the AMAF mixing of RAVE (Gelly & Silver 2007).  With ``evaluation=True`` and
    ``implicit=α`` every node also keeps the minimax value of the evaluations
    below it, and children are chosen on ``(1 - α) mean + α minimax`` (implicit
    minimax backups, Lanctot, Winands, Pepels & Sturtevant 2014).  ``weights`` chooses the evaluation's
    weights as minimax's does; ``weights='patterns'`` adds the learned pattern tables.  With ``solver=True``
    every node keeps bounds on its exact result, proven wins, losses and draws
    propagate up the tree, and proven moves are played (Winands et al. 2008;
    score bounds: Cazenave & Saffidine 2010).  The move played is the most
    visited child.

    ``threads=K`` searches on K threads (0: every core) by root, tree or
    leaf parallelisation (``parallel``; Chaslot, Winands & van den Herik
    2008; :mod:`awale.search.parallel`).  Root parallelisation with an
    iteration budget replays move for move; the other two do not.
    """

    name = "uct"
    params = (
        *budget_params(DEFAULT_ITERATIONS),
        Param("c", float, math.sqrt(2) / 2, minimum=0.0, doc="exploration constant of UCB1"),
        Param("playout", str, "random", choices=("random", "greedy"),
              doc="playout policy: uniform, or greedy (weight 1 + seeds captured)"),
        Param("bias", float, 0.0, minimum=0.0, doc="weight of the progressive-bias term (seeds captured / n_i)"),
        Param("history", float, 0.0, minimum=0.0, doc="weight of the history-heuristic term"),
        Param("cutoff", int, 0, minimum=0, doc="plies after which a playout is scored by captures (0: none)"),
        Param("rave", float, 0.0, minimum=0.0, doc="RAVE equivalence parameter k (0: no RAVE)"),
        Param("solver", bool, False, doc="MCTS-Solver with score bounds: prove wins, losses and draws"),
        Param("evaluation", bool, False,
              doc="score leaves by the fitted evaluation after cutoff random plies (0: no playout)"),
        Param("implicit", float, 0.0, minimum=0.0, maximum=1.0,
              doc="weight of implicit minimax backups of the evaluation in the selection (0: none; needs evaluation)"),
        Param("weights", str, "games", choices=UCT_WEIGHTS,
              doc="the evaluation's weights, as minimax's: 'games' (the default), 'texel', 'perfect', or "
                  "'patterns' (the learned pattern tables)"),
        _REUSE,
        *_THREADS,
        seed_param(),
        endgame_param(),
    )

    def validate(self) -> None:
        if self.implicit > 0 and not self.evaluation:
            raise ValueError("uct: implicit minimax backups back up the evaluation: give evaluation=True with implicit")
        if self.weights != "games" and not self.evaluation:
            raise ValueError("uct: weights are the evaluation's; give evaluation=True with them")
        super().validate()

    def config(self) -> SearchConfig:
        evaluation = load_evaluation(WEIGHTS[self.weights]) if self.evaluation else None
        patterns = isinstance(evaluation, PatternEvaluation)
        return SearchConfig(
            c=self.c,
            playout=self.playout,
            bias=self.bias,
            history=self.history,
            cutoff=self.cutoff,
            rave=self.rave,
            solver=self.solver,
            evaluation=() if evaluation is None else tuple((evaluation.linear if patterns else evaluation.weights)
                                                           .tolist()),
            implicit=self.implicit,
            patterns=self.weights if patterns else "",
        )
