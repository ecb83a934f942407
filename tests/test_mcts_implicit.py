"""Implicit minimax backups (Lanctot et al. 2014): every node's value is the minimax of the evaluations below it."""

import numpy as np
import pytest

from awale import Game
from awale.agents import parse
from awale.core.rules import seed_rng
from awale.knowledge.evaluation import load_evaluation
from awale.search.loop import ACTION, FIRST, NEXT, PARENT
from awale.search.mcts import SearchConfig, SearchTree

EVALUATION = load_evaluation()
WEIGHTS = tuple(EVALUATION.weights)


def _children(links, node):
    child = links[node, FIRST]
    while child >= 0:
        yield child
        child = links[child, NEXT]


def _position(game, links, flags, node):
    """The game at ``node``, replayed from the root."""
    actions = []
    while node != 0:
        actions.append(int(flags[node, ACTION]))
        node = links[node, PARENT]
    for action in reversed(actions):
        game = game.step(action)[0]
    return game


def _check_minimax(tree: SearchTree, game: Game) -> int:
    """Assert the invariant at every node but the root; return the nodes checked."""
    arrays = tree.arrays()
    links, flags, value = arrays.links, arrays.flags, arrays.implicit
    for node in range(1, tree.used):
        children = list(_children(links, node))
        if children:  # the best child's value for the player to move, seen by the player who moved here
            assert value[node] == pytest.approx(1.0 - max(value[c] for c in children), abs=1e-12)
        else:  # a leaf keeps its own evaluation, or the result of a finished game
            position = _position(game, links, flags, node)
            if position.game_finished:
                mover = 1 - position.current_player
                expected = 0.5 if position.winner is None else float(position.winner == mover)
            else:
                expected = 1.0 - EVALUATION.win_probability(position)
            assert value[node] == pytest.approx(expected, abs=1e-9)
    return tree.used - 1


@pytest.mark.parametrize("moves", [(), (2, 3), (0, 5, 1, 4, 2)])
def test_every_value_is_the_minimax_of_the_evaluations_below(moves):
    game = Game()
    for action in moves:
        game = game.step(action)[0]
    tree = SearchTree(game, SearchConfig(evaluation=WEIGHTS, implicit=0.4), seed_rng(3))
    tree.run(600)
    assert _check_minimax(tree, game) == 600


def test_a_won_ending_is_valued_exactly_and_chosen():
    # South (22 captured) wins at once with its pit 5: one seed into North's 2, taking 3 (25 > 24).
    game = Game.from_position([1, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2], captures=(22, 20))
    tree = SearchTree(game, SearchConfig(evaluation=WEIGHTS, implicit=0.5), seed_rng(4))
    tree.run(200)
    _check_minimax(tree, game)
    assert tree.best_action() == 5


def test_a_kept_subtree_keeps_its_values():
    game = Game()
    tree = SearchTree(game, SearchConfig(evaluation=WEIGHTS, implicit=0.4), seed_rng(5))
    tree.run(400)
    after = game.step(tree.best_action())[0]
    reply = after.legal_actions[0]
    reached = after.step(reply)[0]
    kept = tree.subtree(reached)
    assert kept is not None and kept.used > 1
    _check_minimax(kept, reached)
    kept.run(200)
    _check_minimax(kept, reached)


def test_the_weight_changes_the_search_and_zero_is_plain_evaluated_uct():
    game = Game()
    moves = {}
    for alpha in (0.0, 0.9):
        tree = SearchTree(game, SearchConfig(evaluation=WEIGHTS, implicit=alpha), seed_rng(6))
        tree.run(2000)
        moves[alpha] = [c.visits for c in tree.children()]
    plain = SearchTree(game, SearchConfig(evaluation=WEIGHTS), seed_rng(6))
    plain.run(2000)
    assert moves[0.0] == [c.visits for c in plain.children()]
    assert moves[0.9] != moves[0.0]


def test_agents_replay_and_bad_values_are_refused():
    agent = "uct(iterations=300, evaluation=True, implicit=0.4, seed=1)"
    assert str(parse(agent)) == agent
    first, again = parse(agent), parse(agent)
    game = Game()
    for _ in range(6):
        action = first.act(game)
        assert again.act(game) == action
        game = game.step(action)[0]
    with pytest.raises(ValueError, match="evaluation=True"):
        parse("uct(implicit=0.4)")
    with pytest.raises(ValueError, match="at most 1"):
        parse("uct(evaluation=True, implicit=1.5)")
    with pytest.raises(ValueError, match="need an evaluation"):
        SearchConfig(implicit=0.3)
    with pytest.raises(ValueError, match="from 0 to 1"):
        SearchConfig(evaluation=WEIGHTS, implicit=-0.1)
    assert np.isfinite(SearchConfig(evaluation=WEIGHTS, implicit=0.4).vector()).all()
