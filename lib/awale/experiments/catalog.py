"""The named experiments of the thesis, their keys, and how far each has got.

Each experiment is a list of *pairings* (two agent specs) played a number of
games each, half with each agent as South (:func:`awale.experiments.runner.pair_keys`),
under the official Abapa rules.  The first agent of a pairing is the one the
experiment studies, the second its opponent.  The searches use iteration
budgets, so results do not depend on the machine.

The reference thesis (Marchant 2021, "Playing Awale with MCTS") gave its
searches 5 seconds per move; here the reference budget is
:data:`REFERENCE_ITERATIONS` iterations per move, and the MCTS budget curve
uses the thesis's time grid as multiples of it.  Every pairing is played 50
games (the method's power analysis asks for 49), the champions' round robin
100 per pair; ``python -m awale experiment run NAME --games N`` asks for
more, and since the keys of the first games do not change, the extra games
are simply added.

===================  =====================================================  =====  ========
name                 pairings                                               games  total
===================  =====================================================  =====  ========
eps-vs-random        greedy(eps=e) vs random, e = 0, 0.05, ..., 1               100     2,100
eps-grid             every pair of greedy(eps=e), e = 0, 0.05, ..., 1            50    10,500
mcts-budget          mcts(iterations=N) vs mcts(iterations=3800),                50       600
                     N = 3800 x (0.1, 0.2, 0.3, 0.4, 0.6, 1, 1.4, 2, 3, 4, 6, 8)
uct-c                uct(c) vs uct (c = 0.707), c = 0.2, 0.4, ..., 2.2          50       700
                     and 0.5, 0.7, 0.9 (3800 iterations)
uct-c-1.5            the same c grid vs uct(c=1.5)                              50       700
greedy-uct-c         uct(playout='greedy', c) vs uct(playout='greedy'),         50       750
                     c grid and 0.5, 0.7, 0.9, 0.95
champions            round robin: random, greedy(eps=0.05), minimax(depth=4),  100     2,100
                     flat, mcts, uct, uct(playout='greedy') (3800 iterations)
rave                 uct(rave=k) vs uct, k = 30, 100, 300, 1000, 3000           50       250
solver               uct(solver=True) vs uct                                    50        50
bias-history         uct(bias=b), uct(history=h), b, h = 0.5, 1, 2, and both    50       350
                     at 1, vs uct
cutoff               uct(cutoff=d) vs uct, d = 10, 20, 40, 80                   50       200
uct-budget           uct(iterations=N) vs uct(iterations=3800),                 50       550
                     N = 3800 x (1/16, 1/8, ..., 1, 2, ..., 64)
alphabeta-uct        minimax(depth=d) vs uct, d = 2, 4, ..., 14; and            50       550
                     minimax(depth=12) vs uct(iterations=3800 x 2, 4, 8, 16)
ladder               the pairs of a round robin of the champions and            50     2,850
                     LADDER_VARIANTS that champions does not play
parallel             uct on 2 threads by root, tree and leaf                    50       150
                     parallelisation vs uct on one, 0.1 s a move (timed)
knowledge            round robin of KNOWLEDGE: what evaluation, solver,         50     4,650
                     endgame values and book add, at equal time a move;
                     and KNOWLEDGE_CHECKS, evaluated αβ one ply shallower
factorial            the 2^3 cells of FACTORIAL_CELLS (evaluation,             200     1,600
                     quiescence, endgame database in αβ) vs UCT with the
                     evaluation, at 10 ms a move (calibrated)
factorial-evaluated  the three other evaluated cells vs the evaluated cell     200       600
                     with quiescence (the champion's search without book
                     or database), at 10 ms a move: away from the ceiling
book                 the champion with and without its book, the same nodes   400       400
                     a searched move (10 ms a move with the book)
claims               αβ vs UCT, tree reuse vs UCT, solver in evaluated UCT,   400     1,200
                     at 10 ms a move (calibrated): the claims the
                     conclusion leans on
curves-T ms          at T = 3, 10, 30, 100 ms a move (calibrated): the         200  4 x 800
                     CURVES αβ+evaluation vs UCT+evaluation, champion vs
                     UCT, UCT vs OpenSpiel's MCTS, heavy UCT vs UCT
alphabeta-curves     rules-only αβ vs UCT at 3, 10, 30, 100 ms a move         200       800
implicit-alpha       UCT with implicit minimax backups (α = 0.2, ..., 0.8)    200       800
                     vs evaluated UCT at 3 ms a move
implicit             implicit minimax backups (α = 0.4) vs evaluated UCT      200       800
                     and vs evaluated αβ at 3 and 10 ms a move
implicit-patterns    the pattern evaluation in both searches: UCT with        200       200
                     implicit minimax backups vs evaluated αβ, 10 ms a move
time-value           UCT, evaluated αβ and the champion at twice their        200     1,000
                     budget vs the same at their budget: Elo a doubling
gauntlet             the first champion and the champion of each kept idea     50     1,350
                     of the ledger vs OpenSpiel's αβ and MCTS, evaluated
                     UCT and the first champion, about 0.1 s a move (timed)
gauntlet-clock       the two sides of row 18 of the ledger (the moves left      50       400
                     counted above the endgame database), under its clock
                     of 3+0.03, vs the opponents of gauntlet (timed)
===================  =====================================================  =====  ========

On one core of the development machine a game of random or greedy agents
takes 1 to 3 ms, and one between two 3800-iteration searches about 2 s; a
game of uct(iterations=243200), the top of the UCT budget curve, about a
minute.  ``python -m awale experiment run --all`` plays every missing game
of the catalogue (see the README for the time it takes).

Cost in the αβ experiment is made comparable through measured time: αβ's
depth and UCT's iterations are both machine-independent budgets, so the
games stay reproducible, and the store keeps every game's thinking time per
side, from which the time per move of each budget is read.  On the
development machine minimax(depth=12) takes about as long per move as
uct(iterations=3800).

The knowledge ladder (``knowledge``) compares agents that differ in what
they know at the same time per move, again with reproducible budgets: each
search's iterations or depth were chosen so that it takes about as long per
move as ``uct(iterations=3800)`` (11.5 ms on one core of the development
machine), measured on the same positions for every agent by
``data/knowledge/calibrate.py`` (its table is ``data/knowledge/calibration.csv``).
Depths come in whole plies, so an αβ agent's time is the closest its depths
allow (see :data:`KNOWLEDGE`); :data:`KNOWLEDGE_CHECKS` plays evaluated αβ one
ply shallower, faster than UCT, against the evaluated UCTs.  The agents with
``endgame='15'`` build the 15-seed endgame database on first use (about
25 s) and cache it.

The experiments marked :attr:`Experiment.equal_time` (``factorial``,
``factorial-evaluated``, ``claims`` and the four ``curves-T ms``) hold equal
time as a measured fact: every agent's budget (UCT's iterations; for αβ, the
nodes of an iterative deepening under a node budget, never a fixed depth,
whose time varies tenfold within a game) was fitted to the target time per
move (:mod:`awale.experiments.calibration`, :data:`CURVE_BUDGETS`), and each
pairing's stored games, replayed move for move on idle cores, show both sides'
mean CPU times per move within 10 % of each other
(``data/curves/replay.csv``; ``python -m awale experiment calibrate NAME
--replay all`` measures that again on any machine).  The budgets stay
machine-independent, so the games replay.

An experiment marked :attr:`Experiment.timed` gives its agents time budgets:
its games depend on the machine's speed and load, cannot be replayed move
for move, and ``experiment verify`` only checks their legality and scores.
``parallel`` is one: parallel search pays only at equal wall-clock time, so
each scheme on :data:`PARALLEL_THREADS` threads meets the one-thread search
at :data:`PARALLEL_SECONDS` seconds a move.  Its games must run on idle
cores, one game per :data:`PARALLEL_THREADS` cores (``--workers`` is capped
accordingly).

``greedy(eps)`` is the probability of a random move.  The thesis kept
"ε = 0.95" meaning, in its text, a greedy move 95 % of the time; its
champion here is ``greedy(eps=0.05)``.

What an experiment is (:class:`~awale.experiments.design.Experiment`) is
defined in :mod:`awale.experiments.design`, the calibrated budgets in
:mod:`awale.experiments.budgets`, and what the stored games show
(:func:`~awale.experiments.tally.status`, :func:`~awale.experiments.tally.results`,
:func:`~awale.experiments.tally.standings`) in :mod:`awale.experiments.tally`;
their names are importable from here too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, List, Sequence, Tuple

from ..agents import parse
from ..search.parallel import SCHEMES
from .budgets import (
    CURVE_BUDGETS,
    CURVE_MS,
    EVALUATED_BUDGETS,
    FACTORIAL_BUDGETS,
    FACTORIAL_MS,
    at_time,
    evaluated_cell,
    factorial_cell,
)
from .calibration import FAMILIES
from .design import Experiment, Pairing
from .gauntlet import GAUNTLET, GAUNTLET_CLOCKED
from .pentanomial import SPRT, estimate
from .store import Store
from .tally import PairStatus, pair_counts, results, standings, status

if TYPE_CHECKING:
    import pandas

__all__ = [
    "Experiment",
    "PairStatus",
    "CATALOG",
    "REFERENCE_ITERATIONS",
    "CHAMPIONS",
    "EPS_GRID",
    "BUDGET_RATIOS",
    "C_GRID",
    "UCT_BUDGET_RATIOS",
    "ALPHABETA_DEPTHS",
    "LADDER_VARIANTS",
    "get_experiment",
    "status",
    "pair_counts",
    "results",
    "standings",
    "eps_vs_random",
    "eps_grid",
    "mcts_budget",
    "uct_c",
    "uct_c_15",
    "greedy_uct_c",
    "champions",
    "rave",
    "solver",
    "bias_history",
    "cutoff",
    "uct_budget",
    "alphabeta_uct",
    "ladder",
    "parallel",
    "knowledge",
    "KNOWLEDGE",
    "KNOWLEDGE_CHECKS",
    "PARALLEL_SECONDS",
    "PARALLEL_THREADS",
    "CURVE_MS",
    "CURVE_BUDGETS",
    "CURVES",
    "FACTORIAL_MS",
    "FACTORIAL_CELLS",
    "FACTORIAL_REFERENCE",
    "FACTORIAL_BUDGETS",
    "factorial_cell",
    "EVALUATED_REFERENCE",
    "EVALUATED_BUDGETS",
    "evaluated_cell",
    "at_time",
    "curves",
    "factorial",
    "factorial_evaluated",
    "book",
    "BOOK_NODES",
    "CLAIMS",
    "CLAIM_GAMES",
    "alphabeta_curves",
    "TIME_VALUE",
    "time_value",
    "IMPLICIT_ALPHAS",
    "IMPLICIT_ALPHA",
    "IMPLICIT_MS",
    "implicit_alpha",
    "implicit",
    "PATTERNS_MS",
    "implicit_patterns",
    "time_values",
    "CLAIM_TEST",
    "claims",
]

#: Iterations per move of every search unless the experiment varies it.
REFERENCE_ITERATIONS = 3800

#: ε values of the greedy grids: the thesis's 21 evenly spaced values from 0 to 1.
EPS_GRID = tuple(round(i / 20, 2) for i in range(21))

#: The budget curve's budgets as multiples of the reference: the thesis's times (0.5 s to 40 s) over its 5 s.
BUDGET_RATIOS = (0.1, 0.2, 0.3, 0.4, 0.6, 1, 1.4, 2, 3, 4, 6, 8)

#: The UCT budget curve's budgets as multiples of the reference: from 1/16 to 64, doubling.
UCT_BUDGET_RATIOS = tuple(2.0**k for k in range(-4, 7))

#: Depths of αβ in its comparison with UCT.
ALPHABETA_DEPTHS = (2, 4, 6, 8, 10, 12, 14)

#: The c grid of the thesis: 11 values evenly spaced from 0.2 to 2.2.
C_GRID = tuple(round(0.2 + 0.2 * i, 2) for i in range(11))

_UCT = f"uct(iterations={REFERENCE_ITERATIONS})"
_GREEDY_UCT = f"uct(iterations={REFERENCE_ITERATIONS}, playout='greedy')"

#: The best agent of each family, as the thesis chose them (with its 0.95 read as 95 % greedy moves).
CHAMPIONS = (
    "random",
    "greedy(eps=0.05)",
    "minimax(depth=4)",
    f"flat(iterations={REFERENCE_ITERATIONS})",
    f"mcts(iterations={REFERENCE_ITERATIONS})",
    _UCT,
    _GREEDY_UCT,
)

#: The ladder's agents besides the champions: the best setting of each refinement of UCT in its own
#: experiment (rave, bias-history, cutoff), the solver, tree reuse, and OpenSpiel's C++ MCTS at the same budget.
LADDER_VARIANTS = (
    f"uct(iterations={REFERENCE_ITERATIONS}, rave=30.0)",
    f"uct(iterations={REFERENCE_ITERATIONS}, solver=True)",
    f"uct(iterations={REFERENCE_ITERATIONS}, bias=0.5)",
    f"uct(iterations={REFERENCE_ITERATIONS}, cutoff=20)",
    f"uct(iterations={REFERENCE_ITERATIONS}, reuse=True)",
    f"openspiel_mcts(iterations={REFERENCE_ITERATIONS})",
)

#: The knowledge ladder: agents that differ in what they know, each at about the time per move of
#: ``uct(iterations=3800)`` (budgets and measured times in ``data/knowledge/calibration.csv``). UCT gains, in
#: turn, the fitted evaluation at its leaves, the solver and the endgame database; αβ gains the evaluation
#: (with quiescence), the database and the book (the champion); OpenSpiel's two bots are outside references.
KNOWLEDGE = (
    "random",
    "greedy(eps=0.05)",
    f"mcts(iterations={REFERENCE_ITERATIONS})",
    _UCT,
    "uct(iterations=2800, playout='greedy')",
    "uct(iterations=9700, evaluation=True)",
    "uct(iterations=9900, evaluation=True, solver=True)",
    "uct(iterations=13000, evaluation=True, solver=True, endgame='15')",
    "minimax(depth=12)",
    "minimax(depth=11, evaluation=True, quiescence=4)",
    "minimax(depth=11, evaluation=True, quiescence=4, endgame='15')",
    "champion(depth=11, endgame='15')",
    "openspiel_mcts(iterations=580)",
    "openspiel_alphabeta(depth=8)",
)

#: Pairings outside the knowledge round robin that check its main comparison against the rounding of depths:
#: evaluated αβ one ply shallower, which takes less time per move than UCT, against the evaluated UCTs.
KNOWLEDGE_CHECKS = (
    ("minimax(depth=10, evaluation=True, quiescence=4)", "uct(iterations=9700, evaluation=True)"),
    ("minimax(depth=10, evaluation=True, quiescence=4, endgame='15')",
     "uct(iterations=13000, evaluation=True, solver=True, endgame='15')"),
)

#: Seconds a move and threads of the parallel-search experiment (the development machine has 2 cores).
PARALLEL_SECONDS = 0.1
PARALLEL_THREADS = 2


#: The headline comparisons, each at every time of :data:`CURVE_MS`: knowledge in αβ against knowledge in UCT,
#: the champion against plain UCT, our UCT against OpenSpiel's MCTS, and the best refinement of UCT
#: (heavy playouts, first in the ladder) against plain UCT.
CURVES = (
    ("αβ + evaluation", "uct + evaluation"),
    ("champion", "uct"),
    ("uct", "OpenSpiel MCTS"),
    ("heavy uct", "uct"),
)

#: The cells of the 2^3 factorial of the champion's knowledge, by (evaluation, quiescence, endgame database):
#: αβ with iterative deepening under a node budget of equal time, each against :data:`FACTORIAL_REFERENCE`.
FACTORIAL_CELLS: Dict[Tuple[bool, bool, bool], str] = {
    (False, False, False): "αβ",
    (False, True, False): "αβ + quiescence",
    (True, False, False): "αβ + evaluation, no quiescence",
    (True, True, False): "αβ + evaluation",
    (False, False, True): "αβ + endgame",
    (False, True, True): "αβ + quiescence + endgame",
    (True, False, True): "αβ + evaluation + endgame, no quiescence",
    (True, True, True): "αβ + evaluation + quiescence + endgame",
}

#: The factorial's one opponent, at the same time: UCT with the evaluation, between the weakest and the
#: strongest cell in the knowledge ladder.
FACTORIAL_REFERENCE = "uct + evaluation"

#: The second reference, for the evaluated half of the factorial, which scores 0.94 to 0.99 against
#: :data:`FACTORIAL_REFERENCE`: the evaluated cell with quiescence, so that the effects of quiescence and of
#: the database given the evaluation are measured away from the ceiling.
EVALUATED_REFERENCE = "αβ + evaluation"


# --------------------------------------------------------------------------- the experiments


def eps_vs_random() -> List[Pairing]:
    """ε-greedy against random for each ε of :data:`EPS_GRID`."""
    return [(f"greedy(eps={eps})", "random") for eps in EPS_GRID]


def eps_grid() -> List[Pairing]:
    """Every pair of distinct ε-greedy agents of :data:`EPS_GRID` (the thesis's heat map)."""
    agents = [f"greedy(eps={eps})" for eps in EPS_GRID]
    return [(a, b) for i, a in enumerate(agents) for b in agents[i + 1 :]]


def mcts_budget() -> List[Pairing]:
    """MCTS at budgets :data:`BUDGET_RATIOS` x the reference against MCTS at the reference budget."""
    reference = f"mcts(iterations={REFERENCE_ITERATIONS})"
    return [(f"mcts(iterations={round(REFERENCE_ITERATIONS * r)})", reference) for r in BUDGET_RATIOS]


def _c_values(fine: Sequence[float]) -> List[float]:
    return sorted(set(C_GRID) | set(fine))


def uct_c() -> List[Pairing]:
    """UCT with c from :data:`C_GRID` and 0.5, 0.7, 0.9 against UCT with c = sqrt(2)/2."""
    return [(f"uct(iterations={REFERENCE_ITERATIONS}, c={c})", _UCT) for c in _c_values((0.5, 0.7, 0.9))]


def uct_c_15() -> List[Pairing]:
    """The same c values against UCT with c = 1.5: does the optimum depend on the reference?"""
    reference = f"uct(iterations={REFERENCE_ITERATIONS}, c=1.5)"
    return [(f"uct(iterations={REFERENCE_ITERATIONS}, c={c})", reference) for c in _c_values((0.5, 0.7, 0.9))]


def greedy_uct_c() -> List[Pairing]:
    """UCT with heavy (greedy) playouts, c from :data:`C_GRID` and 0.5, 0.7, 0.9, 0.95, against c = sqrt(2)/2."""
    return [
        (f"uct(iterations={REFERENCE_ITERATIONS}, c={c}, playout='greedy')", _GREEDY_UCT)
        for c in _c_values((0.5, 0.7, 0.9, 0.95))
    ]


def champions() -> List[Pairing]:
    """A round robin of :data:`CHAMPIONS`, the best agent of each family."""
    return [(a, b) for i, a in enumerate(CHAMPIONS) for b in CHAMPIONS[i + 1 :]]


def _versus_uct(variants: Sequence[str]) -> List[Pairing]:
    return [(f"uct(iterations={REFERENCE_ITERATIONS}, {variant})", _UCT) for variant in variants]


def rave() -> List[Pairing]:
    """UCT with RAVE (equivalence parameter k) against plain UCT."""
    return _versus_uct([f"rave={k}.0" for k in (30, 100, 300, 1000, 3000)])


def solver() -> List[Pairing]:
    """MCTS-Solver against plain UCT."""
    return _versus_uct(["solver=True"])


def bias_history() -> List[Pairing]:
    """Progressive bias, the history heuristic, and both, against plain UCT."""
    weights = (0.5, 1.0, 2.0)
    return _versus_uct([f"bias={w}" for w in weights] + [f"history={w}" for w in weights] + ["bias=1.0, history=1.0"])


def cutoff() -> List[Pairing]:
    """Playouts cut after d plies and scored by the capture difference, against plain UCT."""
    return _versus_uct([f"cutoff={d}" for d in (10, 20, 40, 80)])


def uct_budget() -> List[Pairing]:
    """UCT at budgets :data:`UCT_BUDGET_RATIOS` x the reference against UCT at the reference budget."""
    return [(f"uct(iterations={round(REFERENCE_ITERATIONS * r)})", _UCT) for r in UCT_BUDGET_RATIOS]


def alphabeta_uct() -> List[Pairing]:
    """αβ at depths :data:`ALPHABETA_DEPTHS` against UCT; then αβ at depth 12 against UCT at larger budgets."""
    by_depth = [(f"minimax(depth={d})", _UCT) for d in ALPHABETA_DEPTHS]
    by_budget = [("minimax(depth=12)", f"uct(iterations={REFERENCE_ITERATIONS * k})") for k in (2, 4, 8, 16)]
    return by_depth + by_budget


def ladder() -> List[Pairing]:
    """The pairs of a round robin of :data:`CHAMPIONS` and :data:`LADDER_VARIANTS` that ``champions`` does not play.

    Together with the games of ``champions`` they form one round robin of all these agents, from which the
    thesis fits its ratings.
    """
    agents = CHAMPIONS + LADDER_VARIANTS
    return [(a, b) for i, a in enumerate(agents) for b in agents[i + 1 :] if b in LADDER_VARIANTS]


def knowledge() -> List[Pairing]:
    """A round robin of :data:`KNOWLEDGE` at budgets calibrated to a similar time per move (measured: from
    11.6 to 22.2 ms a move, chapter 8), then :data:`KNOWLEDGE_CHECKS`."""
    return [(a, b) for i, a in enumerate(KNOWLEDGE) for b in KNOWLEDGE[i + 1 :]] + list(KNOWLEDGE_CHECKS)


def parallel() -> List[Pairing]:
    """UCT on :data:`PARALLEL_THREADS` threads by each scheme against UCT on one, at equal time a move."""
    one = f"uct(time={PARALLEL_SECONDS})"
    return [(f"uct(time={PARALLEL_SECONDS}, threads={PARALLEL_THREADS}, parallel='{scheme}')", one)
            for scheme in SCHEMES]


def curves(milliseconds: int) -> Callable[[], List[Pairing]]:
    """The pairings of :data:`CURVES` at ``milliseconds`` a move."""

    def build() -> List[Pairing]:
        return [(at_time(a, milliseconds), at_time(b, milliseconds)) for a, b in CURVES]

    build.__doc__ = f"The headline comparisons (:data:`CURVES`) at {milliseconds} ms a move, budgets calibrated."
    return build


#: The games per pairing of ``claims``: enough for the thesis to lean on a result (issue 22: an SPRT or 400).
CLAIM_GAMES = 400

#: Comparisons the conclusion leans on that rested on 50 games, played again at equal time (10 ms a move,
#: budgets from :data:`CURVE_BUDGETS` or checked by ``python -m awale experiment calibrate claims``):
#: αβ with the capture difference alone against plain UCT (at fixed depth 12 it won 0.70 in 50 games at
#: about 1.1 times UCT's time), tree reuse against plain UCT (fewer iterations: a reused tree is deeper, so
#: each iteration costs more) and the solver in evaluated UCT.
CLAIMS = (
    (at_time("αβ", 10), at_time("uct", 10)),
    ("uct(iterations=3200, reuse=True)", at_time("uct", 10)),
    (f"uct(iterations={CURVE_BUDGETS['uct + evaluation'][10]}, evaluation=True, solver=True)",
     at_time("uct + evaluation", 10)),
)


#: The sequential test that decides each of :data:`CLAIMS` (``python -m awale sprt A B --elo0 0 --elo1 50``, the
#: default openings and seed): H0, no gain, against H1, 50 logistic Elo, with α = β = 0.05.
CLAIM_TEST = SPRT(elo0=0, elo1=50, alpha=0.05, beta=0.05)


def claims() -> List[Pairing]:
    """:data:`CLAIMS`, the comparisons the conclusion leans on, at equal time."""
    return list(CLAIMS)


def factorial() -> List[Pairing]:
    """Each cell of :data:`FACTORIAL_CELLS` against :data:`FACTORIAL_REFERENCE`, at :data:`FACTORIAL_MS` ms a move."""
    reference = at_time(FACTORIAL_REFERENCE, FACTORIAL_MS)
    return [(factorial_cell(family), reference) for family in FACTORIAL_CELLS.values()]


def factorial_evaluated() -> List[Pairing]:
    """The other evaluated cells of :data:`FACTORIAL_CELLS` against :data:`EVALUATED_REFERENCE`, equal time."""
    reference = evaluated_cell(EVALUATED_REFERENCE)
    return [(evaluated_cell(family), reference)
            for (evaluation, _, _), family in FACTORIAL_CELLS.items() if evaluation and family != EVALUATED_REFERENCE]


#: The nodes per searched move of both champions in ``book``: the champion's budget for 10 ms a move when the
#: test was played (the curves' budget has been refitted since, the book's games not).
BOOK_NODES = 41000


def book() -> List[Pairing]:
    """The champion with its opening book against the same without, with the same nodes per searched move.

    The budget is :data:`BOOK_NODES`.  A book move takes no time, so the side
    without the book can spend more time per move on average: the test asks what the book adds to the same
    search, which is how a player with a fixed time per move would use it, not an equal-time comparison.
    """
    champion = FAMILIES["champion"].format(n=BOOK_NODES)
    return [(champion, parse(champion).replace(book=False).spec)]


def alphabeta_curves() -> List[Pairing]:
    """Rules-only αβ against plain UCT at every time of :data:`CURVE_MS` (calibrated budgets).

    At 10 ms a move the budgets are those of ``claims``; the others scale
    αβ's 10 ms budget by the nodes that the calibration positions take at
    each time, so that the claim "rules-only αβ beats UCT" is tested over a
    factor of 33 in time rather than at one budget.
    """
    return [(at_time("αβ", ms), at_time("uct", ms)) for ms in CURVE_MS]


#: The searches and times per move (ms) of ``time-value``: each family at twice its budget against itself.
TIME_VALUE: Tuple[Tuple[str, int], ...] = (
    ("uct", 3), ("αβ + evaluation", 3), ("uct", 10), ("αβ + evaluation", 10),
    ("champion", 30),
)


def time_value() -> List[Pairing]:
    """Each search of :data:`TIME_VALUE` at twice its calibrated budget against itself: Elo per doubling of time.

    Budgets are iterations or nodes, whose time per move grows about in
    proportion, so doubling the budget doubles the time; the stored games'
    times say how nearly.  The score of each pairing gives the Elo that a
    doubling of time is worth to that search at that time, from which
    chapter 7 reads what a 10 % difference in time can be worth.
    """
    return [(FAMILIES[family].format(n=2 * CURVE_BUDGETS[family][ms]), at_time(family, ms))
            for family, ms in TIME_VALUE]


#: The weights α of implicit minimax backups tried at 3 ms a move, and the one then played at 10 and 30 ms.
IMPLICIT_ALPHAS = (0.2, 0.4, 0.6, 0.8)
IMPLICIT_ALPHA = 0.4

#: The times per move (ms) at which implicit minimax backups meet evaluated UCT and evaluated αβ.
IMPLICIT_MS = (3, 10)


def _implicit(alpha: float, milliseconds: int) -> str:
    """Evaluated UCT with implicit minimax backups of weight ``alpha``, with evaluated UCT's iterations.

    An expansion evaluates the new node once, as the leaf of evaluated UCT
    does, and adds the backup of a minimax value; the replays of the games
    measure what that costs (1.22 to 1.23 times evaluated UCT's time,
    ``data/curves/replay.csv``).
    """
    return f"uct(iterations={CURVE_BUDGETS['uct + evaluation'][milliseconds]}, evaluation=True, implicit={alpha})"


def implicit_alpha() -> List[Pairing]:
    """Implicit minimax backups at each weight of :data:`IMPLICIT_ALPHAS` against evaluated UCT, at 3 ms a move."""
    return [(_implicit(alpha, 3), at_time("uct + evaluation", 3)) for alpha in IMPLICIT_ALPHAS]


def implicit() -> List[Pairing]:
    """Implicit minimax backups (α = :data:`IMPLICIT_ALPHA`) against evaluated UCT and evaluated αβ, at each time
    of :data:`IMPLICIT_MS` (Lanctot, Winands, Pepels & Sturtevant 2014): the second way of putting the evaluation
    into MCTS, beside scoring the leaves with it."""
    return [(_implicit(IMPLICIT_ALPHA, ms), at_time(opponent, ms))
            for ms in IMPLICIT_MS for opponent in ("uct + evaluation", "αβ + evaluation")]


#: The time per move (ms) at which the learned pattern evaluation meets itself in the two searches.
PATTERNS_MS = 10


def implicit_patterns() -> List[Pairing]:
    """The learned pattern evaluation (``weights='patterns'``) in both searches at :data:`PATTERNS_MS` ms a move:
    evaluated UCT with implicit minimax backups (α = :data:`IMPLICIT_ALPHA`) against evaluated αβ, each at its
    calibrated budget (issue 65's question: which search makes better use of a learned evaluation)."""
    return [(at_time("uct + patterns, implicit", PATTERNS_MS), at_time("αβ + patterns", PATTERNS_MS))]


def _catalog(*entries: Tuple[str, Callable[[], List[Pairing]], int, str]) -> Dict[str, Experiment]:
    return {name: Experiment(name, description, build, games) for name, build, games, description in entries}


#: Every named experiment, by name.
CATALOG: Dict[str, Experiment] = _catalog(
    ("eps-vs-random", eps_vs_random, 100, "greedy(eps=e) vs random, e = 0, 0.05, ..., 1"),
    ("eps-grid", eps_grid, 50, "every pair of greedy(eps=e), e = 0, 0.05, ..., 1 (the thesis's heat map)"),
    ("mcts-budget", mcts_budget, 50,
     f"mcts(iterations=N) vs mcts(iterations={REFERENCE_ITERATIONS}), N = 380 to 30400 (the thesis's 0.5 s to 40 s vs 5 s)"),
    ("uct-c", uct_c, 50, "uct(c) vs uct (c = 0.707), c = 0.2, 0.4, ..., 2.2 and 0.5, 0.7, 0.9"),
    ("uct-c-1.5", uct_c_15, 50, "the same c values vs uct(c=1.5)"),
    ("greedy-uct-c", greedy_uct_c, 50,
     "uct(playout='greedy', c) vs uct(playout='greedy'), c = 0.2, ..., 2.2 and 0.5, 0.7, 0.9, 0.95"),
    ("champions", champions, 100,
     "round robin of the best of each family: random, greedy(eps=0.05), minimax(depth=4), flat, mcts, uct, "
     "uct(playout='greedy')"),
    ("rave", rave, 50, "uct(rave=k) vs uct, k = 30, 100, 300, 1000, 3000"),
    ("solver", solver, 50, "uct(solver=True) vs uct"),
    ("bias-history", bias_history, 50, "uct(bias=b), uct(history=h), b, h = 0.5, 1, 2, and both at 1, vs uct"),
    ("cutoff", cutoff, 50, "uct(cutoff=d) vs uct, d = 10, 20, 40, 80"),
    ("uct-budget", uct_budget, 50,
     f"uct(iterations=N) vs uct(iterations={REFERENCE_ITERATIONS}), N = 238 to 243200 (1/16 to 64 times as many)"),
    ("alphabeta-uct", alphabeta_uct, 50,
     "minimax(depth=d) vs uct, d = 2, 4, ..., 14; minimax(depth=12) vs uct(iterations=7600 to 60800)"),
    ("ladder", ladder, 50,
     "with champions, a round robin of the champions, the best variants of UCT, tree reuse and OpenSpiel's MCTS"),
)
CATALOG["parallel"] = Experiment(
    "parallel",
    f"uct on {PARALLEL_THREADS} threads (root, tree, leaf parallelisation) vs uct on one, {PARALLEL_SECONDS} s a move "
    "(timed: not replayable)",
    parallel,
    50,
    timed=True,
)
CATALOG["knowledge"] = Experiment(
    "knowledge",
    "round robin at similar times a move: UCT with the evaluation, solver, endgame database; αβ with the evaluation, "
    "database, book; OpenSpiel's MCTS and αβ",
    knowledge,
    50,
)

CATALOG["factorial"] = Experiment(
    "factorial",
    f"2^3 factorial of the champion's knowledge (evaluation, quiescence, endgame database) in αβ, each cell vs "
    f"UCT+evaluation at {FACTORIAL_MS} ms a move",
    factorial,
    200,
    equal_time=True,
    openings=True,
)
CATALOG["factorial-evaluated"] = Experiment(
    "factorial-evaluated",
    f"the evaluated cells of the factorial (quiescence, endgame database) vs αβ+evaluation with quiescence at "
    f"{FACTORIAL_MS} ms a move, away from the first factorial's ceiling",
    factorial_evaluated,
    200,
    equal_time=True,
    openings=True,
)
CATALOG["book"] = Experiment(
    "book",
    f"the champion with its opening book vs without, the same nodes a searched move ({FACTORIAL_MS} ms a move "
    "with the book)",
    book,
    400,
)

CATALOG["claims"] = Experiment(
    "claims",
    "the claims the conclusion leans on, at 10 ms a move: αβ (capture difference) vs UCT, tree reuse vs UCT, "
    "the solver in evaluated UCT",
    claims,
    CLAIM_GAMES,
    equal_time=True,
    openings=True,
)

# The next three aim at equal time, but their replayed games put some pairings further apart than the 10 % of
# :data:`~awale.experiments.calibration.EQUAL_TIME` (``data/curves/replay.csv``), so none is marked ``equal_time``:
# chapter 8 gives each pairing's time ratio and weighs its margin against what the ratio could be worth.
CATALOG["alphabeta-curves"] = Experiment(
    "alphabeta-curves",
    "rules-only αβ (capture difference) vs plain UCT at 3, 10, 30 and 100 ms a move (calibrated budgets)",
    alphabeta_curves,
    200,
    openings=True,
)
CATALOG["time-value"] = Experiment(
    "time-value",
    "UCT, evaluated αβ and the champion at twice their budget vs the same at their budget (3, 10, 30 ms a move): "
    "what a doubling of time is worth in Elo",
    time_value,
    200,
    openings=True,
)

CATALOG["implicit-alpha"] = Experiment(
    "implicit-alpha",
    "evaluated UCT with implicit minimax backups, α = 0.2, 0.4, 0.6, 0.8, vs evaluated UCT at 3 ms a move",
    implicit_alpha,
    200,
    openings=True,
)
CATALOG["implicit"] = Experiment(
    "implicit",
    f"evaluated UCT with implicit minimax backups (α = {IMPLICIT_ALPHA}) vs evaluated UCT and vs evaluated αβ, at "
    "3 and 10 ms a move (other openings than implicit-alpha's, which chose α)",
    implicit,
    200,
    seed=1,
    openings=True,
)

CATALOG["implicit-patterns"] = Experiment(
    "implicit-patterns",
    f"the learned pattern evaluation in both searches: evaluated UCT with implicit minimax backups (α = "
    f"{IMPLICIT_ALPHA}) vs evaluated αβ, at {PATTERNS_MS} ms a move (calibrated)",
    implicit_patterns,
    200,
    openings=True,
)

CATALOG["gauntlet"] = GAUNTLET.experiment
CATALOG["gauntlet-clock"] = GAUNTLET_CLOCKED.experiment

for _ms in CURVE_MS:
    CATALOG[f"curves-{_ms}ms"] = Experiment(
        f"curves-{_ms}ms",
        f"at {_ms} ms a move (calibrated budgets): αβ+evaluation vs UCT+evaluation, champion vs UCT, UCT vs "
        "OpenSpiel's MCTS, heavy UCT vs UCT",
        curves(_ms),
        200,
        equal_time=True,
        openings=True,
    )


def get_experiment(name: str) -> Experiment:
    """The experiment of the catalogue called ``name``.

    Raises:
        ValueError: no such experiment (the message lists them).
    """
    try:
        return CATALOG[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown experiment {name!r}; known experiments: {', '.join(CATALOG)}") from None


def time_values(store: Store) -> "pandas.DataFrame":
    """What a doubling of the budget is worth to each search of :data:`TIME_VALUE`, from ``time-value``'s games.

    Returns:
        One row per search and time with at least one complete pair of
        games: ``family``, ``ms`` (the time per move of the smaller budget),
        ``pairs`` (complete pairs from one opening), ``games``, and the
        logistic Elo of the doubled budget with its 95 % interval (``elo``,
        ``low``, ``high``) from the pentanomial counts of the pairs
        (:func:`~awale.experiments.sprt.estimate`), which keep what the two
        games of an opening share.
    """
    import pandas as pd

    exp = CATALOG["time-value"]
    rows = []
    for (family, ms), (a, b) in zip(TIME_VALUE, exp.pairings()):
        counts = pair_counts(exp, store, a, b)
        if sum(counts):
            est = estimate(counts)
            rows.append(dict(family=family, ms=ms, pairs=sum(counts), games=2 * sum(counts), elo=est.elo,
                             low=est.elo_low, high=est.elo_high))
    return pd.DataFrame(rows, columns=["family", "ms", "pairs", "games", "elo", "low", "high"])
