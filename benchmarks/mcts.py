"""UCT beside OpenSpiel's C++ MCTS: speed, memory, and games at equal iterations and equal time.

OpenSpiel's bot is ``pyspiel.MCTSBot`` with one random rollout per leaf, the
same algorithm as our ``uct``: its rewards are in [-1, 1] with c = 1.414, ours
in [0, 1] with c = 0.707, the same exploration once rescaled.
"""

from __future__ import annotations

import time
import tracemalloc
from typing import List

import numpy as np

from awale import Game
from awale.agents import parse
from awale.play.match import play
from awale.core.rules import seed_rng
from awale.search.mcts import SearchConfig, SearchTree, node_bytes
from common import score_line

__all__ = ["run"]

SPEED_ITERATIONS = 20_000


def _openspiel_bot(simulations: int, seed: int):
    import pyspiel

    game = pyspiel.load_game("oware")
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return game, pyspiel.MCTSBot(game, evaluator, 1.414, simulations, 10**8, False, seed, False)


def _seconds_per_search(search, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        search()
        best = min(best, time.perf_counter() - start)
    return best


def speed() -> List[str]:
    agent = parse(f"uct(iterations={SPEED_ITERATIONS}, seed=1)")
    ours = _seconds_per_search(lambda: agent.act(Game()))  # a new game each time: no tree to reuse
    ospiel_game, bot = _openspiel_bot(SPEED_ITERATIONS, 1)
    theirs = _seconds_per_search(lambda: bot.step(ospiel_game.new_initial_state()))
    return [
        f"UCT, {SPEED_ITERATIONS:,} iterations from the initial position, one core",
        f"  awale uct(iterations={SPEED_ITERATIONS})        {SPEED_ITERATIONS / ours:12,.0f} iterations/s",
        f"  OpenSpiel MCTSBot (C++)            {SPEED_ITERATIONS / theirs:12,.0f} iterations/s",
        f"  ratio awale / OpenSpiel            {theirs / ours:12.1f} x",
    ]


def memory() -> List[str]:
    tracemalloc.start()
    tree = SearchTree(Game(), SearchConfig(), seed_rng(2), capacity=1_000_001)
    tree.run(1_000_000)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    variants = {
        "uct": SearchConfig(),
        "uct(rave=...)": SearchConfig(rave=300.0),
        "uct(solver=True, playout='greedy', bias=..., history=...)": SearchConfig(
            solver=True, playout="greedy", bias=1.0, history=1.0
        ),
    }
    lines = [
        "Memory of the search tree",
        f"  a 1,000,000-iteration uct search: {tree.used:,} nodes, {tree.nbytes / 1e6:.0f} MB of tree, "
        f"peak {peak / 1e6:.0f} MB traced",
    ]
    lines += [f"  {name:<58} {node_bytes(config):4d} bytes/node" for name, config in variants.items()]
    return lines


def _versus_openspiel(ours: str, simulations: int, games: int) -> float:
    """Points of ``ours`` against OpenSpiel's MCTSBot, half the games as South; a draw is half a point."""
    points = 0.0
    for index in range(games):
        ospiel_game, bot = _openspiel_bot(simulations, 1000 + index)
        agent = parse(ours).replace(seed=index)
        our_side = index % 2
        game, state = Game(), ospiel_game.new_initial_state()
        while not game.game_finished:
            if game.current_player == our_side:
                action = agent.act(game)
            else:
                action = bot.step(state)
            game = game.step(action)[0]
            state.apply_action(action)
        points += 1.0 if game.winner == our_side else 0.5 if game.winner is None else 0.0
    return points


def _openspiel_seconds_per_move(simulations: int) -> float:
    ospiel_game, bot = _openspiel_bot(simulations, 7)
    state, moves, start = ospiel_game.new_initial_state(), 0, time.perf_counter()
    rng = np.random.default_rng(7)
    while not state.is_terminal() and moves < 20:
        bot.step(state)
        state.apply_action(int(rng.choice(state.legal_actions())))
        moves += 1
    return (time.perf_counter() - start) / moves


def games(count: int) -> List[str]:
    def versus(south_spec: str, north_spec: str) -> float:
        points = 0.0
        for seed in range(count):
            first, second = (south_spec, north_spec) if seed % 2 == 0 else (north_spec, south_spec)
            record = play(first, second, seed=seed)
            ours_south = seed % 2 == 0
            if record.winner is None:
                points += 0.5
            elif (record.winner == 0) == ours_south:
                points += 1.0
        return points

    uct = "uct(iterations=3800)"
    simulations = 1000
    per_move = _openspiel_seconds_per_move(simulations)
    equal_time = f"uct(time={per_move:.4f})"
    return [
        "Games (score of the first agent, 95% Wilson interval; half the games as South)",
        score_line(f"{uct} vs random", versus(uct, "random"), count),
        score_line(f"{uct} vs greedy(eps=0.1)", versus(uct, "greedy(eps=0.1)"), count),
        score_line(f"uct(iterations={simulations}) vs OpenSpiel MCTS({simulations} sims)",
                   _versus_openspiel(f"uct(iterations={simulations})", simulations, count), count),
        score_line(f"{equal_time} vs OpenSpiel MCTS({simulations} sims, {per_move * 1000:.0f} ms/move)",
                   _versus_openspiel(equal_time, simulations, count), count),
    ]


def run(games_per_match: int = 40) -> List[str]:
    """Measure and return the report's lines."""
    SearchTree(Game(), SearchConfig(), seed_rng(0)).run(10)  # compile (or load the cache) first
    return speed() + memory() + games(games_per_match)


if __name__ == "__main__":
    print("\n".join(run()))
