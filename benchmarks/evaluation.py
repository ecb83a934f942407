"""The cost of knowledge: αβ and UCT with the fitted evaluation beside the same searches without it.

Positions come from seeded random games (0 to 40 plies in).  αβ searches each
to depth 10 with a fresh table: positions visited per second, and positions
visited in all (quiescence visits more; principal variation search and
late-move reductions fewer; killer moves reorder the quiet moves; internal iterative deepening and MTD(f)
change the order and the windows; the weights with the kroos' timing compute two features more; the pattern
weights look up 42 table cells more, and their node cost is measured against the Texel weights in one run).  UCT runs 5,000 iterations from each:
iterations per second with evaluated leaves (no playout, and a 4-ply playout
then the evaluation) against random playouts to the end.  Strength at equal
time is measured by ``benchmarks/champion.py`` and the experiments.
"""

from __future__ import annotations

import time
from typing import List, Optional, Tuple

import numpy as np

from awale import Game
from awale.knowledge.evaluation import WEIGHTS, Evaluation, load_evaluation
from awale.core.rules import seed_rng
from awale.search.alphabeta import AlphaBeta, Enhancements
from awale.search.mcts import SearchConfig, SearchTree

__all__ = ["run"]

POSITIONS = 12
DEPTH = 10
ITERATIONS = 5000


def _positions() -> List[Game]:
    rng = np.random.default_rng(1)
    found = []
    while len(found) < POSITIONS:
        game = Game()
        for _ in range(int(rng.integers(0, 40))):
            if game.game_finished:
                break
            game = game.step(int(rng.choice(game.legal_actions)))[0]
        if not game.game_finished:
            found.append(game)
    return found


def _alphabeta(games: List[Game], evaluation: Optional[Evaluation] = None, **options) -> Tuple[float, int]:
    """Positions per second and positions in all over the searches of ``games`` (``options``: the enhancements)."""
    enhancements = Enhancements(**options)
    AlphaBeta(games[0].rules, evaluation=evaluation, enhancements=enhancements)  # compile, or load, first
    nodes, seconds = 0, 0.0
    for game in games:
        searcher = AlphaBeta(game.rules, evaluation=evaluation, enhancements=enhancements)
        start = time.perf_counter()
        nodes += searcher.search(game, DEPTH).nodes
        seconds += time.perf_counter() - start
    return nodes / seconds, nodes


def _uct(games: List[Game], config: SearchConfig) -> float:
    """Iterations per second over the searches of ``games``."""
    SearchTree(games[0], config, seed_rng(0)).run(10)
    seconds = 0.0
    for k, game in enumerate(games):
        tree = SearchTree(game, config, seed_rng(k), capacity=ITERATIONS + 1)
        start = time.perf_counter()
        tree.run(ITERATIONS)
        seconds += time.perf_counter() - start
    return len(games) * ITERATIONS / seconds


def node_cost(games: List[Game], texel: Evaluation, patterns: Evaluation, rounds: int = 3) -> str:
    """The cost of a node with the pattern weights against the Texel weights (issue 65's limit: 1.5x): positions
    per second of the champion's αβ (reductions) to depth :data:`DEPTH`, the two alternated ``rounds`` times in
    one run, the best round of each."""
    best = {"texel": 0.0, "patterns": 0.0}
    for _ in range(rounds):
        for name, evaluation in (("texel", texel), ("patterns", patterns)):
            best[name] = max(best[name], _alphabeta(games, evaluation=evaluation, reductions=True)[0])
    return (f"  node cost, patterns / texel          {best['texel'] / best['patterns']:.2f}x the time a node "
            f"({best['texel']:,.0f} and {best['patterns']:,.0f} positions/s)")


def run() -> List[str]:
    games = _positions()
    evaluation = load_evaluation()
    texel, kroo = load_evaluation(WEIGHTS["texel"]), load_evaluation(WEIGHTS["kroo"])
    patterns = load_evaluation(WEIGHTS["patterns"])
    weights = tuple(evaluation.weights)
    lines = [f"# αβ to depth {DEPTH} and UCT ({ITERATIONS:,} iterations) on {POSITIONS} positions"]
    plain_rate, plain_nodes = _alphabeta(games)
    lines.append(f"  αβ, capture difference            {plain_rate:>12,.0f} positions/s  {plain_nodes:>10,} positions")
    for label, options in (("αβ, evaluation", dict(evaluation=evaluation)),
                           ("αβ, evaluation + quiescence 4", dict(evaluation=evaluation, quiescence=4)),
                           ("αβ, evaluation + PVS", dict(evaluation=evaluation, pvs=True)),
                           ("αβ, evaluation + reductions", dict(evaluation=evaluation, reductions=True)),
                           ("αβ, evaluation + PVS + reductions",
                            dict(evaluation=evaluation, pvs=True, reductions=True)),
                           ("αβ, evaluation + killers", dict(evaluation=evaluation, killers=True)),
                           ("αβ, evaluation + IID", dict(evaluation=evaluation, iid=True)),
                           ("αβ, evaluation + MTD(f)", dict(evaluation=evaluation, mtdf=True)),
                           ("αβ, evaluation + reductions + killers",
                            dict(evaluation=evaluation, reductions=True, killers=True)),
                           ("αβ, evaluation + reductions + IID",
                            dict(evaluation=evaluation, reductions=True, iid=True)),
                           ("αβ, evaluation + reductions + MTD(f)",
                            dict(evaluation=evaluation, reductions=True, mtdf=True)),
                           ("αβ, Texel weights + reductions", dict(evaluation=texel, reductions=True)),
                           ("αβ, kroo weights + reductions", dict(evaluation=kroo, reductions=True)),
                           ("αβ, pattern weights + reductions", dict(evaluation=patterns, reductions=True))):
        rate, nodes = _alphabeta(games, **options)
        lines.append(f"  {label:<33} {rate:>12,.0f} positions/s  {nodes:>10,} positions"
                     f"  ({rate / plain_rate:.2f}x the rate, {nodes / plain_nodes:.2f}x the positions)")
    lines.append(node_cost(games, texel, patterns))
    playouts = _uct(games, SearchConfig())
    lines.append(f"  UCT, random playouts              {playouts:>12,.0f} iterations/s")
    for label, config in (("UCT, evaluated leaves", SearchConfig(evaluation=weights)),
                          ("UCT, 4 plies then evaluation", SearchConfig(evaluation=weights, cutoff=4))):
        rate = _uct(games, config)
        lines.append(f"  {label:<33} {rate:>12,.0f} iterations/s  ({rate / playouts:.2f}x)")
    return lines
