"""αβ with the fitted evaluation and the quiescence extension, against a plain reference written here."""

from typing import Optional

import numpy as np
import pytest

from awale import Game, Rules
from awale.agents import parse
from awale.knowledge.evaluation import load_evaluation
from awale.play.match import play
from awale.search.alphabeta import EVAL_SCALE, MAX_QUIESCENCE, WIN, AlphaBeta, Enhancements
from conftest import random_positions

EVALUATION = load_evaluation()


def leaf_value(game: Game) -> int:
    """The evaluated score of a leaf, from the public API (what the search must compute)."""
    if not game.game_finished:
        return int(np.clip(round(EVAL_SCALE * EVALUATION.logit(game)), 1 - WIN, WIN - 1))
    mover = game.current_player
    difference = game.captures[mover] - game.captures[1 - mover]
    if game.winner is None:
        return 0
    return WIN + abs(difference) if game.winner == mover else -WIN - abs(difference)


def plain_minimax(game: Game, depth: int, reach: int = 0, ply: int = 0) -> int:
    """Negamax over Game.step with evaluated leaves, extending captures while ``ply + 1 < reach``."""
    if game.game_finished:
        return leaf_value(game)
    best = None
    for action in game.legal_actions:
        child = game.step(action)[0]
        if child.game_finished:
            value = -leaf_value(child)
        elif depth - 1 == 0 and ply + 1 < reach and _can_capture(child):
            value = -plain_minimax(child, 1, reach, ply + 1)
        elif depth - 1 == 0:
            value = -leaf_value(child)
        else:
            value = -plain_minimax(child, depth - 1, reach, ply + 1)
        best = value if best is None else max(best, value)
    return best


def _can_capture(game: Game) -> bool:
    return any(game.step(a)[1] > 0 for a in game.legal_actions)


def assert_plain_search(found, game: Game, depth: int) -> None:
    """``found`` has the value and the best actions of the plain search of ``game`` to ``depth`` plies."""
    values = {a: -plain_minimax(game.step(a)[0], depth - 1) for a in game.legal_actions}
    assert found.value == max(values.values()), repr(game)
    assert set(found.best_actions) == {a for a, v in values.items() if v == found.value}, repr(game)


def positions(count: int, seed: int):
    """Live standard positions after fewer than 60 random plies."""
    return random_positions(6, 4, count, seed, plies=60)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_evaluated_values_equal_plain_minimax(depth):
    searcher = AlphaBeta(Rules(), evaluation=EVALUATION)
    for game in positions(8, seed=depth):
        children = {a: game.step(a)[0] for a in game.legal_actions}
        expected = {a: -(plain_minimax(child, depth - 1) if depth > 1 else leaf_value(child))
                    for a, child in children.items()}
        assert searcher.action_values(game, depth) == expected, repr(game)


@pytest.mark.parametrize("depth, quiescence", [(1, 2), (2, 3)])
def test_quiescence_values_equal_plain_minimax(depth, quiescence):
    for game in positions(6, seed=10 + depth):
        # a fresh table each time
        searcher = AlphaBeta(Rules(), evaluation=EVALUATION, enhancements=Enhancements(quiescence=quiescence))
        found = searcher.search(game, depth)
        assert found.value == plain_minimax(game, depth, depth + quiescence), repr(game)


@pytest.mark.parametrize("depth, quiescence", [(3, 0), (3, 2)])
def test_principal_variation_search_gives_plain_minimax_values_and_best_actions(depth, quiescence):
    enhancements = Enhancements(quiescence=quiescence, pvs=True)
    searcher = AlphaBeta(Rules(), evaluation=EVALUATION, enhancements=enhancements)  # one table throughout
    for game in positions(6, seed=20 + depth + quiescence):
        found = searcher.search(game, depth)  # iterative deepening: aspiration windows from depth 2 on
        values = {a: -plain_minimax(game.step(a)[0], depth - 1, depth + quiescence, 1) for a in game.legal_actions}
        assert found.value == max(values.values()), repr(game)
        assert set(found.best_actions) == {a for a, v in values.items() if v == found.value}, repr(game)


def test_principal_variation_search_solves_as_the_plain_search():
    for game in random_positions(3, 2, 12, seed=7):
        plain, scout = AlphaBeta(game.rules), AlphaBeta(game.rules, enhancements=Enhancements(pvs=True))
        assert scout.solve(game) == plain.solve(game), repr(game)
        assert set(scout.search(game).best_actions) == set(plain.search(game).best_actions), repr(game)


def test_late_move_reductions_solve_as_the_plain_search():
    """A search to the end has no depth to reduce: the same exact values and best actions."""
    for game in random_positions(3, 2, 12, seed=8):
        plain = AlphaBeta(game.rules)
        reduced = AlphaBeta(game.rules, enhancements=Enhancements(reductions=True, pvs=True))
        assert reduced.solve(game) == plain.solve(game), repr(game)
        assert set(reduced.search(game).best_actions) == set(plain.search(game).best_actions), repr(game)


def test_late_move_reductions_need_depth_to_reduce_and_then_save_nodes():
    plain = AlphaBeta(Rules(), evaluation=EVALUATION)
    reduced = AlphaBeta(Rules(), evaluation=EVALUATION, enhancements=Enhancements(reductions=True))
    for game in positions(8, seed=30):
        for depth in (1, 2):  # a child needs two plies left to be searched one less deep
            assert reduced.action_values(game, depth) == plain.action_values(game, depth), repr(game)
        plain.clear()
        reduced.clear()
        assert reduced.search(game, 8).nodes < plain.search(game, 8).nodes, repr(game)


@pytest.mark.parametrize("depth", [3, 4])
def test_killer_moves_only_reorder_the_plain_search(depth):
    """Killers change the order of quiet moves, not the values or the best actions of a fixed-depth search.

    (Without quiescence, whose values a table shared by iterations can change, killers or not.)"""
    killers = AlphaBeta(Rules(), evaluation=EVALUATION, enhancements=Enhancements(killers=True))  # one table, kept
    for game in positions(6, seed=40 + depth):
        found = killers.search(game, depth)
        assert_plain_search(found, game, depth)


def test_killer_moves_change_the_nodes_searched_and_are_forgotten_between_searches():
    plain = AlphaBeta(Rules(), evaluation=EVALUATION)
    killers = AlphaBeta(Rules(), evaluation=EVALUATION, enhancements=Enhancements(killers=True))
    differ = 0
    for game in positions(8, seed=50):
        plain.clear()
        killers.clear()
        first = killers.search(game, 8)
        assert first.value == plain.search(game, 8).value, repr(game)
        differ += first.nodes != plain.nodes
        killers.clear()
        again = killers.search(game, 8)  # an empty table and no killers: the same search again
        assert (again.nodes, again.value, again.best_actions) == (first.nodes, first.value, first.best_actions)
    assert differ >= 4  # the order, and so the nodes, changed in most positions


@pytest.mark.parametrize("options", [dict(iid=True), dict(mtdf=True), dict(iid=True, mtdf=True)])
@pytest.mark.parametrize("depth", [5])
def test_iid_and_mtdf_keep_the_values_and_best_actions_of_the_plain_search(options, depth):
    """Internal iterative deepening only reorders moves; MTD(f) finds the same value by null windows and then
    the same ties.  One table throughout, iterative deepening from depth 1 (IID acts below the root from four
    plies left: here at the root's children)."""
    searcher = AlphaBeta(Rules(), evaluation=EVALUATION, enhancements=Enhancements(**options))
    for game in positions(5, seed=60 + depth):
        found = searcher.search(game, depth)
        assert_plain_search(found, game, depth)


def test_iid_and_mtdf_solve_as_the_plain_search_and_change_the_nodes():
    """Deepening on small boards to the end of the game: the same value, best actions, depth and exactness."""
    solved = 0
    for game in random_positions(3, 2, 8, seed=9):
        plain = AlphaBeta(game.rules).search(game, 40)
        solved += plain.exact
        for options in (dict(iid=True), dict(mtdf=True)):
            found = AlphaBeta(game.rules, enhancements=Enhancements(**options)).search(game, 40)
            assert (found.value, found.best_actions, found.depth, found.exact) == (
                plain.value, plain.best_actions, plain.depth, plain.exact), repr(game)
    assert solved >= 4
    plain = AlphaBeta(Rules(), evaluation=EVALUATION)
    iid = AlphaBeta(Rules(), evaluation=EVALUATION, enhancements=Enhancements(iid=True))
    mtdf = AlphaBeta(Rules(), evaluation=EVALUATION, enhancements=Enhancements(mtdf=True))
    differ = {"iid": 0, "mtdf": 0}
    for game in positions(6, seed=70):
        for searcher in (plain, iid, mtdf):
            searcher.clear()
        expected = plain.search(game, 8)
        for name, searcher in (("iid", iid), ("mtdf", mtdf)):
            found = searcher.search(game, 8)
            assert (found.value, found.best_actions) == (expected.value, expected.best_actions), repr(game)
            differ[name] += found.nodes != expected.nodes
    assert min(differ.values()) >= 3  # another order or other windows: other positions visited


def test_mtdf_stopped_by_its_node_budget_keeps_the_last_iteration():
    mtdf = AlphaBeta(Rules(), evaluation=EVALUATION, enhancements=Enhancements(mtdf=True))
    for game in positions(4, seed=80):
        found = mtdf.search(game, nodes=3000)  # the budget runs out inside some iteration's passes
        # (the kernel checks the budget as it enters a position, then counts its leaf children: a few over)
        assert 1 <= found.depth and found.nodes <= 3000 + 6 and set(found.best_actions) <= set(game.legal_actions)
        mtdf.clear()
        assert found.value == mtdf.search(game, found.depth).value, repr(game)


def test_evaluated_leaves_stay_below_won_games():
    """Even a wildly scaled evaluation cannot score an unfinished position like a won game."""
    from awale.knowledge.evaluation import FEATURES, Evaluation

    steep = Evaluation([0.0, 1000.0] + [0.0] * (len(FEATURES) - 2))
    searcher = AlphaBeta(Rules(), evaluation=steep)
    game = Game.from_position([4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0], captures=(16, 0))
    for action, value in searcher.action_values(game, 1).items():
        assert not game.step(action)[0].game_finished
        assert value == WIN - 1


def test_exact_values_do_not_depend_on_the_evaluation():
    from awale.knowledge.evaluation import WEIGHTS

    rules = Rules(pits_per_side=3, seeds_per_pit=2)
    plain = AlphaBeta(rules)
    for evaluation in (EVALUATION, load_evaluation(WEIGHTS["kroo"])):  # nine features, and eleven
        for quiescence in (0, 3):
            evaluated = AlphaBeta(rules, evaluation=evaluation, enhancements=Enhancements(quiescence=quiescence))
            game = Game(rules=rules)
            assert evaluated.solve(game) == plain.solve(game)


def test_agent_options_and_bad_values():
    agent = parse("minimax(depth=3, evaluation=True, quiescence=2)")
    assert str(agent) == "minimax(depth=3, evaluation=True, quiescence=2)"
    record = play(agent, parse("greedy"), seed=1)
    assert record.plies > 0
    assert str(parse("minimax(time=0.1, pvs=True)")) == "minimax(time=0.1, pvs=True)"
    assert str(parse("minimax(time=0.1, pvs=False)")) == "minimax(time=0.1)"  # stored specs keep their meaning
    assert str(parse("champion(time=0.1, reductions=True)")) == "champion(time=0.1, reductions=True)"
    assert str(parse("minimax(time=0.1, reductions=False)")) == "minimax(time=0.1)"
    assert str(parse("champion(time=0.1, weights='perfect')")) == "champion(time=0.1, weights='perfect')"
    kroo = parse("minimax(depth=3, evaluation=True, weights='kroo', seed=2)")
    assert str(kroo) == "minimax(depth=3, seed=2, evaluation=True, weights='kroo')"
    assert play(kroo, parse("greedy"), seed=1).plies > 0
    assert str(parse("minimax(depth=3, evaluation=True, weights='games')")) == "minimax(depth=3, evaluation=True)"
    with pytest.raises(ValueError, match="give evaluation=True"):
        parse("minimax(depth=3, weights='perfect')")
    with pytest.raises(ValueError, match="must be one of 'games', 'perfect'"):
        parse("champion(weights='random')")
    for spec in ("minimax(quiescence=-1)", f"minimax(quiescence={MAX_QUIESCENCE + 1})", "minimax(evaluation=1)",
                 "minimax(pvs=1)", "champion(reductions=1)"):
        with pytest.raises(ValueError):
            parse(spec)
    with pytest.raises(ValueError, match="quiescence"):
        Enhancements(quiescence=2.5)
    with pytest.raises(ValueError, match="quiescence"):
        Enhancements(quiescence=MAX_QUIESCENCE + 1)
    with pytest.raises(ValueError, match="enhancements must be"):
        AlphaBeta(Rules(), enhancements=dict(pvs=True))
    with pytest.raises(ValueError, match="evaluation"):
        AlphaBeta(Rules(), evaluation=[1.0] * 9)
    with pytest.raises(ValueError, match="pvs"):
        Enhancements(pvs=1)
    with pytest.raises(ValueError, match="reductions"):
        Enhancements(reductions="yes")
    with pytest.raises(ValueError, match="killers"):
        Enhancements(killers=1)
    assert str(parse("champion(time=0.1, killers=False)")) == "champion(time=0.1)"
    with pytest.raises(ValueError, match="killers"):
        parse("champion(killers=2)")
    for name in ("iid", "mtdf"):
        with pytest.raises(ValueError, match=name):
            Enhancements(**{name: 1})
        assert str(parse(f"champion(time=0.1, {name}=False)")) == "champion(time=0.1)"
        assert str(parse(f"champion(time=0.1, {name}=True)")) == f"champion(time=0.1, {name}=True)"
    for make in (lambda: Enhancements(pvs=True, mtdf=True), lambda: parse("champion(pvs=True, mtdf=True)"),
                 lambda: parse("minimax(time=0.1, pvs=True, mtdf=True)")):
        with pytest.raises(ValueError, match="pvs and mtdf"):
            make()
