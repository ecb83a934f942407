"""UCT with evaluated leaves: the reward is the evaluation's, options combine, bad values are refused."""

import math

import pytest

from awale import Game
from awale.agents import parse
from awale.knowledge.evaluation import FEATURES, WEIGHTS as WEIGHTS_PATHS, load_evaluation
from awale.play.match import play
from awale.core.rules import Rules, seed_rng
from awale.search.mcts import SearchConfig, SearchTree

EVALUATION = load_evaluation()
WEIGHTS = tuple(EVALUATION.weights)


@pytest.mark.parametrize("moves", [(), (2, 3), (0, 5, 1, 4, 2)])
def test_each_leaf_is_scored_by_the_evaluation_without_a_playout(moves):
    game = Game()
    for action in moves:
        game = game.step(action)[0]
    tree = SearchTree(game, SearchConfig(evaluation=WEIGHTS), seed_rng(1))
    tree.run(len(game.legal_actions))  # one iteration expands each root child once
    children = tree.children()
    assert sorted(c.action for c in children) == list(game.legal_actions)
    for child in children:
        after = game.step(child.action)[0]
        expected = 1.0 - EVALUATION.win_probability(after)  # for the player who moved there
        assert child.visits == 1
        assert child.mean == pytest.approx(expected, abs=1e-12)


def test_a_cut_playout_then_evaluation_is_reproducible_and_solver_proves_wins():
    # South (22 captured) wins at once with its pit 5: one seed into North's 2, taking 3 (25 > 24).
    game = Game.from_position([1, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2], captures=(22, 20))
    agent = parse("uct(iterations=500, evaluation=True, cutoff=4, solver=True, seed=2)")
    assert agent.act(game) == 5
    assert next(c for c in agent.statistics() if c.action == 5).proven == "win"
    first = play(parse("uct(iterations=300, evaluation=True, cutoff=4)"), parse("greedy(eps=0.3)"), seed=6)
    again = play(parse("uct(iterations=300, evaluation=True, cutoff=4)"), parse("greedy(eps=0.3)"), seed=6)
    assert first.moves == again.moves


def test_spec_and_bad_weights():
    assert str(parse("uct(iterations=100, evaluation=True)")) == "uct(iterations=100, evaluation=True)"
    with pytest.raises(ValueError, match="True or False"):
        parse("uct(evaluation='yes')")
    with pytest.raises(ValueError, match="finite weights"):
        SearchConfig(evaluation=(1.0, 2.0))
    with pytest.raises(ValueError, match="finite weights"):
        SearchConfig(evaluation=(math.nan,) * len(FEATURES))


@pytest.mark.parametrize("scheme", ["root", "tree", "leaf"])
def test_every_parallel_scheme_scores_leaves_by_the_evaluation(scheme):
    """On two threads, each new leaf's reward is the evaluation's, as on one (no playout: cutoff 0).

    As many iterations as root moves: every iteration expands a root child (leaf parallelisation scores
    each leaf twice, once per thread), so every child of the root is a leaf.
    """
    game = Game()
    for action in (2, 3, 1):
        game = game.step(action)[0]
    agent = parse(f"uct(iterations={len(game.legal_actions)}, evaluation=True, threads=2, parallel='{scheme}')")
    assert agent.act(game) in game.legal_actions
    trees = agent.tree.trees if scheme == "root" else [agent.tree]
    leaves = [child for tree in trees for child in tree.children()]
    assert len(leaves) >= len(game.legal_actions) // 2
    for child in leaves:
        after = game.step(child.action)[0]
        assert child.mean == pytest.approx(1.0 - EVALUATION.win_probability(after), abs=1e-9)


PATTERNS = load_evaluation(str(WEIGHTS_PATHS["patterns"]))


@pytest.mark.parametrize("moves", [(), (2, 3)])
def test_pattern_weights_score_each_leaf_by_the_pattern_evaluation(moves):
    """weights='patterns': a new leaf's reward is the pattern evaluation's win probability, tables included."""
    game = Game()
    for action in moves:
        game = game.step(action)[0]
    agent = parse("uct(iterations=10, evaluation=True, weights='patterns')")
    config = agent.config()
    assert config.patterns == "patterns" and config.evaluation == tuple(PATTERNS.linear.tolist())
    tree = SearchTree(game, config, seed_rng(1))
    tree.run(len(game.legal_actions))
    for child in tree.children():
        after = game.step(child.action)[0]
        assert child.mean == pytest.approx(1.0 - PATTERNS.win_probability(after), abs=1e-12)
        assert child.mean != pytest.approx(1.0 - EVALUATION.win_probability(after), abs=1e-6)


def test_pattern_weights_are_refused_where_they_do_not_fit():
    assert str(parse("uct(iterations=100, evaluation=True, weights='games')")) == "uct(iterations=100, evaluation=True)"
    with pytest.raises(ValueError, match="give evaluation=True"):
        parse("uct(weights='patterns')")
    with pytest.raises(ValueError, match="weights"):
        parse("uct(evaluation=True, weights='kroo')")
    with pytest.raises(ValueError, match="own nine linear weights"):
        SearchConfig(evaluation=WEIGHTS, patterns="patterns")
    with pytest.raises(ValueError, match="no pattern tables"):
        SearchConfig(evaluation=WEIGHTS, patterns="games")
    small = Game(Rules(pits_per_side=4))
    with pytest.raises(ValueError, match="for 6 pits a side, not 4"):
        SearchTree(small, parse("uct(evaluation=True, weights='patterns')").config(), seed_rng(1))
