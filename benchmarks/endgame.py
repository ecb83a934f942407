"""The searches with the endgame database beside the same searches without it, in positions near the end.

The database here covers 10 seeds (built in a second or two); the positions
hold 12 to 16 seeds, taken from seeded random games, so that the searches
reach it after a capture or two.  For each search: its speed with the
database relative to without it (UCT: iterations per second; αβ: time and
positions visited for the same depth).  Strength at equal budget is measured
by ``data/endgame/strength.py`` (chapter 6).
"""

from __future__ import annotations

import time
from typing import List

import numpy as np

from awale import Rules
from awale.knowledge import endgame_build as egb
from awale.core.positions import sample_positions
from awale.core.rules import seed_rng
from awale.search.alphabeta import AlphaBeta
from awale.search.mcts import SearchConfig, SearchTree

__all__ = ["run"]

SEEDS = 10
POSITIONS = 20
ITERATIONS = 5000
DEPTH = 14


def run() -> List[str]:
    rules = Rules()
    start = time.perf_counter()
    database = egb.build(rules, SEEDS)
    built = time.perf_counter() - start
    games = sample_positions(16, POSITIONS, np.random.default_rng(1), rules, least=12)
    uct = {}
    for label, db in (("without", None), ("with", database)):
        SearchTree(games[0], SearchConfig(), seed_rng(1), capacity=101, endgame=db).run(100)  # compile
        start = time.perf_counter()
        for game in games:
            SearchTree(game, SearchConfig(), seed_rng(1), capacity=ITERATIONS + 1, endgame=db).run(ITERATIONS)
        uct[label] = len(games) * ITERATIONS / (time.perf_counter() - start)
    alphabeta = {}
    for label, db in (("without", None), ("with", database)):
        searcher = AlphaBeta(rules, endgame=db)
        seconds = nodes = probes = 0
        for game in games:
            searcher.clear()
            found = searcher.search(game, DEPTH)
            seconds += found.seconds
            nodes += found.nodes
            probes += found.probes
        alphabeta[label] = (seconds, nodes, probes)
    return [
        f"Endgame database of {SEEDS} seeds ({len(database):,} positions, built in {built:.1f} s); "
        f"{POSITIONS} positions with 12 to 16 seeds",
        f"  UCT, {ITERATIONS:,} iterations, without the database {uct['without']:12,.0f} iterations/s",
        f"  UCT, {ITERATIONS:,} iterations, with it              {uct['with']:12,.0f} iterations/s",
        f"  ratio with / without                              {uct['with'] / uct['without']:12.2f} x",
        f"  αβ depth {DEPTH}, without the database {alphabeta['without'][0]:8.2f} s, "
        f"{alphabeta['without'][1]:12,} positions",
        f"  αβ depth {DEPTH}, with it              {alphabeta['with'][0]:8.2f} s, "
        f"{alphabeta['with'][1]:12,} positions ({alphabeta['with'][2]:,} probes)",
        f"  ratio of times with / without      {alphabeta['with'][0] / alphabeta['without'][0]:8.2f} x",
    ]
