"""The calibrated budgets of the equal-time experiments: each agent family's budget (UCT's iterations, αβ's
nodes) for each time per move, and the budgets of the factorial's cells.

The families are those of :data:`awale.experiments.calibration.FAMILIES`; the budgets were fitted by
``python -m awale experiment calibrate`` and refitted on the games' replays (each refit is in ``data/README.md``).
:mod:`awale.experiments.catalog` builds its equal-time experiments from them, and its names are importable from
there too.
"""

from __future__ import annotations

from typing import Dict

from .calibration import FAMILIES

__all__ = [
    "CURVE_MS",
    "CURVE_BUDGETS",
    "FACTORIAL_MS",
    "FACTORIAL_BUDGETS",
    "EVALUATED_BUDGETS",
    "at_time",
    "factorial_cell",
    "evaluated_cell",
]

#: Times per move of the equal-time curves, in milliseconds: a factor of 33 from the first to the last.
CURVE_MS = (3, 10, 30, 100)

#: The budget of each agent family of :data:`awale.experiments.calibration.FAMILIES` that takes each time of
#: :data:`CURVE_MS` per move (and :data:`FACTORIAL_MS` for the factorial's cells): UCT's iterations, αβ's nodes.
#: First fitted on calibration positions on an idle core (``python -m awale experiment calibrate --fit FAMILY
#: --targets MS``, ``data/curves/calibration.csv``, ``check.csv``), then refitted wherever a pairing's own games,
#: replayed move for move on idle cores, showed one side taking more than 10 % longer than the other
#: (``calibrate NAME --replay K``, which prints the budget that matches; ``data/curves/replay.csv``), the side
#: changed being the one that meets no other opponent at that time, and the pairing played again.  The history
#: of each refit (the faster MCTS loop of commit a8f3ef3, the games from the openings) is in ``data/README.md``.
#: Rules-only αβ's budgets at 3, 30 and 100 ms scale its 10 ms budget (fitted on its games) by the nodes that
#: the calibration positions take at each time (``data/curves/calibration.csv``); its games' replays measure the
#: times they really took.
CURVE_BUDGETS: Dict[str, Dict[int, int]] = {
    "uct": {3: 800, 10: 3400, 30: 10000, 100: 30000},
    "uct + evaluation": {3: 2800, 10: 10000, 30: 27000, 100: 69000},
    "heavy uct": {3: 600, 10: 2500, 30: 7300, 100: 23000},
    "OpenSpiel MCTS": {3: 150, 10: 630, 30: 1900, 100: 5700},
    "αβ + evaluation": {3: 6100, 10: 25000, 30: 69000, 100: 220000},
    "champion": {3: 9200, 10: 35000, 30: 120000, 100: 370000},
    "αβ": {3: 12000, 10: 37000, 30: 110000, 100: 320000},
    "αβ + quiescence": {10: 33000},
    "αβ + evaluation, no quiescence": {10: 29000},
    "αβ + endgame": {10: 62000},
    "αβ + quiescence + endgame": {10: 56000},
    "αβ + evaluation + endgame, no quiescence": {10: 48000},
    "αβ + evaluation + quiescence + endgame": {10: 57000},
    "uct + patterns, implicit": {10: 5600},
    "αβ + patterns": {10: 23000},
}

#: The time per move of the factorial and of the book's test, in milliseconds.
FACTORIAL_MS = 10

#: The budgets of the cells of ``factorial`` against its reference
#: (:data:`~awale.experiments.catalog.FACTORIAL_REFERENCE`) at :data:`FACTORIAL_MS` ms (αβ's nodes), each
#: refitted on its own games: every stored game of a cell replayed on idle cores
#: (``calibrate factorial --replay all``); where one side took more than 10 % longer, the cell's budget was
#: scaled by the ratio of the times, or chosen among candidates timed against the reference on the positions
#: of 30 of those games (``data/curves/budget_on_games.py``), and the cell played again and replayed in full:
#: a new budget plays other games, whose cost per node differs.  (Each refit is in ``data/README.md``.)
FACTORIAL_BUDGETS: Dict[str, int] = {
    "αβ": 42000,
    "αβ + quiescence": 33000,
    "αβ + evaluation, no quiescence": 28000,
    "αβ + evaluation": 25000,
    "αβ + endgame": 69000,
    "αβ + quiescence + endgame": 55000,
    "αβ + evaluation + endgame, no quiescence": 48000,
    "αβ + evaluation + quiescence + endgame": 47000,
}

#: The budgets of ``factorial-evaluated`` where they are not those of :data:`CURVE_BUDGETS` at 10 ms: the
#: reference keeps the 28,000 nodes with which its games were played (the curves' 10 ms budget has since
#: moved), and the cells with the database were refitted on their own games, replayed on idle cores: against
#: αβ the games reach the database sooner than against UCT, so those cells took 0.63 and 0.69 times the
#: reference's time with the curves' budgets (42,000 and 40,000 nodes), and a new budget plays other games
#: whose cost per node differs (the cell without quiescence took 0.84 times it at 67,000 nodes and 1.29 times
#: at 80,000); from the balanced openings 72,000 took 1.17 times it, and it was scaled to 61,000.
EVALUATED_BUDGETS: Dict[str, int] = {
    "αβ + evaluation": 28000,
    "αβ + evaluation + endgame, no quiescence": 61000,
    "αβ + evaluation + quiescence + endgame": 58000,
}


def at_time(family: str, milliseconds: int) -> str:
    """The spec of ``family`` at its calibrated budget for ``milliseconds`` a move (:data:`CURVE_BUDGETS`)."""
    return FAMILIES[family].format(n=CURVE_BUDGETS[family][milliseconds])


def factorial_cell(family: str) -> str:
    """The spec of a cell of :data:`~awale.experiments.catalog.FACTORIAL_CELLS` in ``factorial``, at equal time with
    its reference."""
    return FAMILIES[family].format(n=FACTORIAL_BUDGETS[family])


def evaluated_cell(family: str) -> str:
    """The spec of a cell of :data:`~awale.experiments.catalog.FACTORIAL_CELLS` in ``factorial-evaluated``, at equal
    time with its reference."""
    if family in EVALUATED_BUDGETS:
        return FAMILIES[family].format(n=EVALUATED_BUDGETS[family])
    return at_time(family, FACTORIAL_MS)
