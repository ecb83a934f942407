"""Monte Carlo searches against exact values on small boards (computed by αβ to the end of the game)."""

import numpy as np

from awale.agents import parse
from awale.core.rules import seed_rng
from awale.search.alphabeta import action_values
from awale.search.mcts import SearchConfig, SearchTree
from conftest import SMALL_BOARDS, random_positions, result


def test_solver_proves_the_exact_values():
    """The solver proves the exact result of every small-board position, and of every move it proves.

    Draws need the score bounds: a proven draw is only a lower bound for its parent until every other
    move is shown to do no better.  Most positions are proven in a few thousand iterations; the
    budget is for the longest, draws by repetition.
    """
    total = 0
    for n, s in SMALL_BOARDS:
        for game in random_positions(n, s, 6, seed=n * 10 + s):
            tree = SearchTree(game, SearchConfig(solver=True), seed_rng(1))
            tree.run(1_000_000)
            values = action_values(game)
            total += 1
            assert tree.proven_root == result(max(values.values())), (game.pits, game.captures)
            for child in tree.children():
                if child.proven:
                    assert child.proven == result(values[child.action]), (game.pits, child)
                rank = ["loss", "draw", "win"]
                assert rank.index(child.lower) <= rank.index(result(values[child.action])) <= rank.index(
                    child.upper
                ), (game.pits, child)
    assert total == 24


def test_uct_finds_value_optimal_moves():
    """A large budget picks a move of the best result in at least 95% of non-trivial positions."""
    optimal = total = 0
    for n, s in [(3, 2), (2, 3), (2, 2), (3, 1)]:
        for game in random_positions(n, s, 40, seed=n + 7 * s):
            values = action_values(game)
            signs = {a: np.sign(v) for a, v in values.items()}
            best = max(signs.values())
            if len(set(signs.values())) == 1:
                continue  # every move has the same result: nothing to find
            total += 1
            action = parse("uct(iterations=20000, seed=3)").act(game)
            optimal += signs[action] == best
    assert total >= 30
    assert optimal / total >= 0.95, f"{optimal} of {total}"
