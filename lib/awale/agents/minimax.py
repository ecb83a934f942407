"""The αβ minimax agent: ``minimax(depth=4, time=None, nodes=None, seed=0, evaluation=False, quiescence=0)``.

αβ pruning is that of Knuth & Moore (1975), "An analysis of alpha-beta
pruning", *Artificial Intelligence* 6(4); the search itself is
:class:`awale.search.alphabeta.AlphaBeta`.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..knowledge.evaluation import WEIGHTS, Evaluation, load_evaluation
from ..core.control import tell
from ..core.game import Game
from ..search.limits import Limits
from ..search.alphabeta import (
    MAX_DEPTH, MAX_NODES, MAX_QUIESCENCE, MAX_TABLE_BITS, MAX_THREADS, TABLE_BITS, AlphaBeta, Enhancements,
    SearchResult, points_per_seed,
)
from .base import MAX_SECONDS, Agent, Param, given_limits, register, seed_param
from .endgame import EndgameOption, endgame_param
from .timing import CLOCK_MOVES, DEFAULT_CONSTANTS, TimeConstants, TimeManager, clock_share

__all__ = ["Minimax"]

#: The search's refinements and evaluation weights, the last parameters of both
#: ``minimax`` and ``champion`` (in this order, which their canonical specs keep).
SEARCH_PARAMS = (
    Param("pvs", bool, False, doc="principal variation search with aspiration windows (same values, fewer nodes)"),
    Param("reductions", bool, False, doc="late-move reductions (other values at a fixed depth, fewer nodes)"),
    Param("killers", bool, False, doc="killer moves: quiet moves that cut off a search tried first at their ply"),
    Param("iid", bool, False, doc="internal iterative deepening: a shallower search for the move to try first"),
    Param("mtdf", bool, False, doc="MTD(f): each iteration's value by null-window searches (not with pvs)"),
    Param("table", int, TABLE_BITS, minimum=10, maximum=MAX_TABLE_BITS,
          doc="the transposition table holds 2**table entries of 28 bytes"),
    Param("weights", str, "games", choices=tuple(WEIGHTS),
          doc="the evaluation's weights: fitted on game results ('games'), on the endgame database ('perfect'), "
              "on every game between searches ('texel'), or the Texel fit plus the kroos' timing ('kroo')"),
    Param("threads", int, 1, minimum=1, maximum=MAX_THREADS,
          doc="threads searching at once and sharing the table (lazy SMP); above 1 the games do not replay"),
)


#: Spend the whole time of a move (both ``minimax`` and ``champion``).
SPEND_PARAM = Param(
    "spend", bool, False,
    doc="with a time: search until it is spent, keeping the best move of the iteration cut at the deadline",
)

CLOCK_MOVES_PARAM = Param(
    "clock_moves", str, CLOCK_MOVES[0], choices=CLOCK_MOVES,
    doc="with manage, under a clock: the moves left, one a seed on the board or above the endgame database",
)


TIMING_PARAM = Param(
    "timing", str, "",
    doc="with manage: constants of the time manager changed, 'name=value, ...' (awale.agents.timing.TimeConstants)",
)


#: The limits an αβ search honours (:class:`awale.search.limits.Limits`): all of them.
ALPHABETA_LIMITS = frozenset({"time", "depth", "nodes", "clock", "infinite", "ponder"})

#: The parameters that only ``manage`` reads: without it, each must keep its default.
MANAGE_PARAMS = (CLOCK_MOVES_PARAM, TIMING_PARAM)


def check_manage_params(agent: Agent) -> None:
    """Raise ``ValueError`` if ``agent`` counts the moves left under a clock, or changes the time manager's
    constants, without managing its time; keep its ``timing`` canonical (:meth:`TimeConstants.text`)."""
    if agent.clock_moves != CLOCK_MOVES[0] and not agent.manage:
        raise ValueError(f"{agent.name}: clock_moves is how manage sizes moves under a clock; give manage=True")
    constants = TimeConstants.parse(agent.timing)
    if constants != DEFAULT_CONSTANTS and not agent.manage:
        raise ValueError(f"{agent.name}: timing changes the constants of manage; give manage=True")
    agent.timing = agent._values["timing"] = constants.text()  # canonical, as the store keeps specs
    agent._constants = constants


def check_search_params(agent: Agent) -> None:
    """Refuse the :data:`SEARCH_PARAMS` (and ``spend``) of ``agent`` that cannot go together."""
    if agent.spend and agent.time is None:
        raise ValueError(f"{agent.name}: spend spends a time; give a time, not depth or nodes")
    if agent.pvs and agent.mtdf:
        raise ValueError(f"{agent.name}: pvs and mtdf are two ways of narrowing the window; give one of them")


@register
class Minimax(Agent):
    """αβ negamax (Knuth & Moore, 1975) with iterative deepening and a transposition table.

    Positions at the depth limit score their capture difference; finished
    games score a win or a loss (by its margin) or a draw, so a win within
    reach is always taken.  Among equally valued best actions one is chosen
    at random with the agent's own generator: the same seed and the same
    calls give the same actions (with a time budget the depth reached, and
    so the action, may also depend on the machine's speed; a node budget
    does not).

    Args:
        depth: plies to search, at least 1, or None to search to the end of
            the game (exact, but only feasible near the end or on small
            boards).  Defaults to 4, or to None when a time is given.
        time: seconds per move: iterative deepening until the time is spent
            (or ``depth`` is reached, if given too).
        nodes: positions to visit per move: iterative deepening until they
            are spent, the time budget of reproducible games (the same
            moves on every machine; see :meth:`AlphaBeta.search`).
        seed: seed of the generator that breaks ties.
        endgame: an endgame database, a file or a number of seeds
            (:mod:`awale.agents.endgame`): its moves are played once it
            holds the position, and the search scores the positions it
            holds exactly.
        evaluation: score positions at the depth limit with the fitted
            evaluation of :mod:`awale.knowledge.evaluation` instead of the capture
            difference alone.
        quiescence: extend the search by one ply at a depth-limit position
            where the mover can capture, up to this many plies (0: never).
        manage: with ``time``, divide the time among the moves of a game
            (:mod:`awale.agents.timing`): ``time`` is then the mean a
            searched move aims at over the game, each move's time set by
            the phase, pending captures and the stability of the best move,
            and a clock, under one, sizes the moves instead.  False (the
            default): every move is searched for ``time``.
        spend: with ``time``, search until the move's time (or, with
            ``manage``, the time it is given) is spent: every iteration
            that can start does, and the one cut at the deadline decides
            once the last best move has been searched in it
            (:meth:`AlphaBeta.search`).  False (the default): no iteration
            starts that is predicted not to finish, so a searched move
            takes about half to three quarters of its time.
        clock_moves: with ``manage``, under a clock, how the moves left
            are counted (:meth:`awale.agents.timing.TimeManager.moves_left`):
            ``"seeds"`` (the default), one for each seed on the board, at
            least 20; ``"database"``, one for each seed above the endgame
            database (every seed without one), plus 5.
        timing: with ``manage``, constants of the time manager changed
            from the module's, ``'name=value, ...'``
            (:class:`awale.agents.timing.TimeConstants`, kept canonical):
            ``'settled_share=0.25'``.  Empty (the default): none.
        pvs: principal variation search with aspiration windows
            (:mod:`awale.search.alphabeta`): the same values at a fixed
            depth, usually in fewer nodes; False (the default).
        weights: with ``evaluation``, its weights: ``"games"`` (the default),
            fitted on the results of stored games, ``"perfect"``, fitted
            on the values of the endgame database, ``"texel"``, fitted on
            the results of every stored game between searches, or
            ``"kroo"``, the Texel fit plus the kroos' timing
            (:data:`awale.knowledge.evaluation.WEIGHTS`).
        reductions: late-move reductions (:mod:`awale.search.alphabeta`):
            late quiet moves searched a ply less deep unless they prove
            good, so other values at a fixed depth, in fewer nodes; False
            (the default).
        killers: the killer heuristic (:mod:`awale.search.alphabeta`):
            the quiet moves that last cut off a search at a ply are tried
            first there; the same values at a fixed depth without
            ``reductions``; False (the default).
        iid: internal iterative deepening (:mod:`awale.search.alphabeta`):
            below the root, a position searched at least four plies deep
            with a window wider than the null one and without a move from
            the table is first searched two plies less deep for the move to
            try first; False (the default).
        mtdf: MTD(f) (:mod:`awale.search.alphabeta`): each iteration's
            value by null-window searches from the last one's; not with
            ``pvs``; False (the default).
        table: the transposition table holds ``2**table`` entries of 28
            bytes (default :data:`~awale.search.alphabeta.TABLE_BITS`, 28 MB).
        threads: threads that search each move at once, sharing the table
            (lazy SMP, :class:`~awale.search.alphabeta.AlphaBeta`); above 1
            the moves depend on the threads' timing, so no game replays,
            even under a depth or a node budget.  Default 1.
    """

    name = "minimax"
    honours = ALPHABETA_LIMITS
    params = (
        Param("depth", int, 4, minimum=1, maximum=MAX_DEPTH, optional=True,
              doc="plies to search (None: to the end of the game; the default with a time)"),
        Param("time", float, None, minimum=0.001, maximum=MAX_SECONDS, optional=True,
              doc="seconds per move, by iterative deepening (depth then caps the depth)"),
        Param("nodes", int, None, minimum=1, maximum=MAX_NODES, optional=True,
              doc="positions to visit per move, by iterative deepening (reproducible; depth then caps the depth)"),
        seed_param(),
        endgame_param(),
        Param("evaluation", bool, False, doc="score the depth limit with the fitted evaluation (awale.knowledge.evaluation)"),
        Param("quiescence", int, 0, minimum=0, maximum=MAX_QUIESCENCE,
              doc="plies of capture extensions beyond the depth limit (0: none)"),
        Param("manage", bool, False,
              doc="with a time: aim at it on average, each move's time by phase and stability (awale.agents.timing)"),
        SPEND_PARAM,
        CLOCK_MOVES_PARAM,
        TIMING_PARAM,
        *SEARCH_PARAMS,
    )

    def __init__(self, **kwargs: Any) -> None:
        if (kwargs.get("time") is not None or kwargs.get("nodes") is not None) and "depth" not in kwargs:
            kwargs["depth"] = None  # a time or node budget alone deepens as far as it allows
        self._searcher: Optional[AlphaBeta] = None
        super().__init__(**kwargs)

    def validate(self) -> None:
        if self.manage and (self.time is None or self.nodes is not None):
            raise ValueError(f"{self.name}: manage divides a time among the moves; give a time (and no nodes)")
        check_manage_params(self)
        check_search_params(self)
        if self.weights != "games" and not self.evaluation:
            raise ValueError(f"{self.name}: weights are the evaluation's; give evaluation=True with them")

    def _evaluation(self) -> Optional[Evaluation]:
        """The evaluation the search scores its depth limit with, or None."""
        return load_evaluation(WEIGHTS[self.weights]) if self.evaluation else None

    @property
    def spec(self) -> str:
        """The canonical spec; a time or node budget alone leaves out the depth it sets to None: ``minimax(time=0.5)``."""
        budget = self.time is not None or self.nodes is not None
        return self._spec_without(("depth",) if self.depth is None and budget else ())

    @property
    def searcher(self) -> Optional[AlphaBeta]:
        """The αβ searcher of the moves so far (None before the first search): its table, nodes and load."""
        return self._searcher

    def reset(self) -> None:
        """Empty the transposition table, restart the tie-breaking generator and let go of the endgame database
        (found again at the next move)."""
        if self._searcher is not None:
            self._searcher.clear()
        self._rng = np.random.default_rng(self.seed)
        self.last_search: Optional[SearchResult] = None
        self._endgame = EndgameOption(self.endgame)
        self._manager = (TimeManager(self.time, points_per_seed(self._evaluation()), self.clock_moves,
                                     self._constants) if self.manage else None)

    def observe_clock(self, remaining: float, increment: float) -> None:
        """With ``manage``, size the next move by the clock (see :mod:`awale.agents.timing`); else nothing."""
        if self._manager is not None:
            self._manager.observe_clock(remaining, increment)

    def act(self, game: Game, limits: Optional[Limits] = None) -> int:
        """An action of ``game`` with the best αβ value (ties broken at random).

        Args:
            game: the position.
            limits: the bounds of this search (:class:`~awale.search.limits.Limits`), the first reached
                stopping it: a ``time`` is spent whole (as ``spend``), a clock is sized by the time manager with
                ``manage`` and shared equally among the moves to go without it, ``infinite`` and ``ponder``
                deepen until stopped.  None: the spec's budget.

        Raises:
            ValueError: ``game`` is not a game, or it is over.
        """
        self._check_game(game)
        limits = given_limits(self, limits)
        exact = self._endgame.action(game)
        if exact is not None:
            tell("endgame database move", exact)
            return exact
        database = self._endgame.database(game.rules)
        if self._searcher is None or self._searcher.rules != game.rules or self._searcher.endgame is not database:
            evaluation = self._evaluation()
            enhancements = Enhancements(quiescence=self.quiescence, pvs=self.pvs, reductions=self.reductions,
                                        killers=self.killers, iid=self.iid, mtdf=self.mtdf)
            self._searcher = AlphaBeta(game.rules, table_bits=self.table, endgame=database, evaluation=evaluation,
                                       enhancements=enhancements, threads=self.threads)
        if limits is not None:
            legal = game.legal_actions
            if len(legal) == 1 and limits.remaining is not None and self._manager is not None:
                self.last_search = None
                return legal[0]  # as under the spec's clock: nothing to decide, no time spent
            self.last_search = self._limited(game, limits, database)
        elif self._manager is None:
            self.last_search = self._searcher.search(game, self.depth, self.time, self.nodes, spend=self.spend)
        else:
            legal = game.legal_actions
            if len(legal) == 1:
                self.last_search = None
                return legal[0]  # nothing to decide: no time spent, none banked
            allowance = self._manager.allowance(game, database.seeds if database is not None else 0)
            self.last_search = self._searcher.search(game, self.depth, allowance.limit, plan=allowance.plan,
                                                     spend=self.spend)
            self._manager.spent(self.last_search.seconds)
        best = self.last_search.best_actions
        return int(best[self._rng.integers(len(best))]) if len(best) > 1 else best[0]

    def _limited(self, game: Game, limits: Limits, database: Any) -> SearchResult:
        """The search of ``game`` within ``limits`` (see :meth:`act`)."""
        assert self._searcher is not None
        depth = None if limits.depth is None else min(limits.depth, MAX_DEPTH)
        nodes = None if limits.nodes is None else min(limits.nodes, MAX_NODES)
        if limits.unbounded:  # until stopped, unless a depth or node count ends it sooner
            time = None if depth is not None or nodes is not None else MAX_SECONDS
            return self._searcher.search(game, depth, time, nodes)
        if limits.remaining is not None and self._manager is not None:
            self._manager.observe_clock(limits.remaining, limits.increment)
            allowance = self._manager.allowance(game, database.seeds if database is not None else 0)
            time = allowance.limit if limits.time is None else min(allowance.limit, limits.time)
            found = self._searcher.search(game, depth, time, nodes, plan=allowance.plan, spend=self.spend)
            self._manager.spent(found.seconds)
            return found
        if limits.remaining is None and limits.time is None:  # a depth or a node count alone
            return self._searcher.search(game, depth, None, nodes)
        share = None if limits.remaining is None else clock_share(limits.remaining, limits.increment,
                                                                   limits.moves_to_go)
        if limits.time is not None and (share is None or limits.time <= share):
            return self._searcher.search(game, depth, limits.time, nodes, spend=True)  # a move time, spent whole
        return self._searcher.search(game, depth, share, nodes, spend=self.spend)

    def expected_reply(self, game: Game, action: int) -> Optional[int]:
        """The reply to ``action`` the transposition table holds as best after the last search, if any."""
        if self._searcher is None or self._searcher.rules != game.rules or game.game_finished:
            return None
        line = self._searcher.principal_variation(game, int(action), 2)
        return line[1] if len(line) > 1 else None
