"""One search limit (awale.search.limits): a checked value, passed to every searching agent's act(); without it the
spec's budget, with it the first limit reached stops the search."""

import threading

import pytest

from awale import Game
from awale.agents import parse
from awale.core.control import SearchControl
from awale.search.limits import Limits


@pytest.mark.parametrize("kwargs, words", [
    ({"time": 0}, "time must be above 0"), ({"time": -1.0}, "time must be above 0"),
    ({"time": float("nan")}, "finite number"), ({"time": True}, "finite number"), ({"time": "1"}, "finite number"),
    ({"depth": 0}, "depth must be a whole number"), ({"depth": 2.0}, "depth must be a whole number"),
    ({"nodes": -3}, "nodes must be a whole number"), ({"nodes": 2**70}, "nodes must be a whole number"),
    ({"remaining": -0.5}, "remaining must be at least 0"), ({"increment": 0.1}, "needs the clock"),
    ({"moves_to_go": 5}, "needs the clock"), ({"remaining": 5.0, "moves_to_go": 0}, "moves_to_go must be"),
    ({"infinite": 1}, "infinite must be True or False"), ({"ponder": None}, "ponder must be True or False"),
    ({"infinite": True, "time": 1.0}, "infinite searches until stopped"),
    ({"infinite": True, "remaining": 1.0}, "infinite searches until stopped"),
])
def test_a_bad_limit_is_refused_in_words(kwargs, words):
    with pytest.raises(ValueError, match=words):
        Limits(**kwargs)


def test_limits_are_a_frozen_value_that_says_what_it_gives():
    limits = Limits(time=0.1, depth=127)
    assert limits == Limits(time=0.1, depth=127) and hash(limits) == hash(Limits(time=0.1, depth=127))
    with pytest.raises(Exception):
        limits.time = 1.0
    assert limits.given() == ("time", "depth") and not limits.empty and not limits.unbounded
    assert Limits().empty and Limits(ponder=True).unbounded and Limits(infinite=True, depth=5).unbounded
    assert Limits(remaining=3, increment=0.5).clock == (3.0, 0.5) and Limits(remaining=3).given() == ("clock",)
    assert limits.replace(depth=None) == Limits(time=0.1)
    assert repr(Limits(nodes=5)) == "Limits(nodes=5)"


@pytest.mark.parametrize("spec", ["minimax(depth=3)", "champion(nodes=3000, book=False)", "uct(iterations=300)",
                                  "mcts(iterations=200, seed=2)", "flat(iterations=300)", "greedy(seed=1)"])
def test_without_limits_or_with_empty_ones_an_agent_plays_its_spec(spec):
    game = Game().step(2)[0]
    assert parse(spec).act(game) == parse(spec).act(game, None) == parse(spec).act(game, Limits())


@pytest.mark.parametrize("spec, limits, same", [
    ("champion(time=5, book=False)", Limits(nodes=3000), "champion(nodes=3000, book=False)"),
    ("champion(time=5, book=False)", Limits(depth=6), "champion(depth=6, book=False)"),
    ("champion(time=5, book=False)", Limits(nodes=3000, depth=40), "champion(nodes=3000, book=False)"),
    ("minimax(time=5)", Limits(depth=5, nodes=10**9), "minimax(depth=5)"),
    ("minimax(depth=2)", Limits(nodes=5000, time=60.0), "minimax(nodes=5000)"),
    ("uct(time=5)", Limits(nodes=700), "uct(iterations=700)"),
    ("uct(iterations=50, threads=2)", Limits(nodes=800), "uct(iterations=800, threads=2)"),
    ("flat(time=5)", Limits(nodes=400), "flat(iterations=400)"),
])
def test_limits_replace_the_spec_budget_and_the_first_reached_stops(spec, limits, same):
    """A depth or a node count reached long before a time stops the search where the same agent would stop."""
    game = Game().step(2)[0].step(3)[0]
    assert parse(spec).act(game, limits) == parse(same).act(game)


def test_a_limit_the_agent_has_not_is_left_out():
    game = Game()
    assert parse("uct(iterations=200)").act(game, Limits(depth=3)) == parse("uct(iterations=200)").act(game)
    assert "depth" not in parse("uct").honours and "depth" in parse("champion").honours
    assert not parse("greedy").honours


def test_act_refuses_what_is_not_limits():
    with pytest.raises(ValueError, match="takes its limits as an awale.search.limits.Limits"):
        parse("minimax(depth=2)").act(Game(), {"depth": 3})


@pytest.mark.parametrize("spec", ["champion(book=False)", "uct", "uct(threads=2, parallel='tree')", "flat"])
def test_an_infinite_or_pondering_search_runs_until_stopped(spec):
    agent = parse(spec)
    game = Game().step(2)[0].step(3)[0]
    for limits in (Limits(infinite=True), Limits(ponder=True)):
        control = SearchControl()
        found = []

        def search():
            with control:
                found.append(agent.act(game, limits))

        thread = threading.Thread(target=search, daemon=True)
        thread.start()
        thread.join(0.3)
        assert thread.is_alive(), (spec, limits)  # no budget of its own ends it
        control.stop()
        thread.join(10.0)
        assert not thread.is_alive() and found[0] in game.legal_actions


def test_an_agent_built_once_is_not_rebuilt_by_its_limits():
    agent = parse("champion(book=False)")
    game = Game().step(2)[0]
    agent.act(game, Limits(nodes=500))
    searcher = agent.alphabeta.searcher
    agent.act(game, Limits(depth=3))
    agent.act(game, Limits(time=0.01))
    agent.reset()
    agent.act(game, Limits(nodes=500))
    assert agent.alphabeta.searcher is searcher  # one table for the agent's life, emptied by reset
