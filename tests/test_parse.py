"""Agent specs: parsing, the canonical form, and refusing everything that is not a literal spec."""

import os

import pytest

from awale.agents import Agent, Param, parse, registry
from awale.agents import base
from awale.agents.basic import GreedyAgent, RandomAgent


class OffsetAgent(Agent):
    """A test-only agent with parameters that may be negative (registered per test, see below)."""

    name = "offset"
    params = (Param("shift", float, 0.0), Param("count", int, 1, minimum=-5))

    def act(self, game):
        self._check_game(game)
        return game.legal_actions[0]


@pytest.fixture
def offset(monkeypatch):
    """Register :class:`OffsetAgent` for one test only, leaving the real registry as it was."""
    monkeypatch.setitem(base._REGISTRY, OffsetAgent.name, OffsetAgent)


def test_registry_lists_the_basic_agents():
    agents = registry()
    assert agents["random"] is RandomAgent and agents["greedy"] is GreedyAgent


def test_parse_a_bare_name_gives_the_defaults():
    agent = parse("greedy")
    assert isinstance(agent, GreedyAgent) and (agent.eps, agent.seed) == (0.0, 0)
    assert isinstance(parse("random"), RandomAgent)


def test_parse_keywords():
    agent = parse("greedy(eps=0.2, seed=3)")
    assert (agent.eps, agent.seed) == (0.2, 3)


@pytest.mark.parametrize("spec", ["  greedy ( eps = 0.2 ,seed= 3 ) ", "greedy(seed=3, eps=0.2)", "greedy(eps=+0.2, seed=3,)"])
def test_spaces_order_and_signs_do_not_matter(spec):
    assert parse(spec) == parse("greedy(eps=0.2, seed=3)")


def test_negative_numbers_where_the_parameter_allows_them(offset):
    agent = parse("offset(shift=-2.5, count=-5)")
    assert (agent.shift, agent.count) == (-2.5, -5)
    assert str(agent) == "offset(shift=-2.5, count=-5)"


def test_an_int_is_accepted_for_a_float_and_stored_as_a_float():
    agent = parse("greedy(eps=1)")
    assert agent.eps == 1.0 and isinstance(agent.eps, float)
    assert str(agent) == "greedy(eps=1.0)"


@pytest.mark.parametrize(
    "spec, canonical",
    [
        ("random", "random"),
        ("random(seed=0)", "random"),
        ("random(seed=7)", "random(seed=7)"),
        ("greedy(eps=0, seed=0)", "greedy"),
        ("greedy( seed = 3 )", "greedy(seed=3)"),
        ("greedy(seed=3, eps=0.25)", "greedy(eps=0.25, seed=3)"),
    ],
)
def test_str_is_canonical_and_round_trips(spec, canonical):
    agent = parse(spec)
    assert str(agent) == canonical
    again = parse(str(agent))
    assert again == agent and str(again) == canonical


def test_parse_passes_an_agent_through():
    agent = GreedyAgent(eps=0.5)
    assert parse(agent) is agent


def error(spec):
    with pytest.raises(ValueError) as excinfo:
        parse(spec)
    return str(excinfo.value)


def test_unknown_agent_lists_the_known_ones():
    message = error("alphazero")
    assert "unknown agent 'alphazero'" in message and "greedy" in message and "random" in message


def test_unknown_parameter_lists_the_declared_ones():
    message = error("greedy(epsilon=0.1)")
    assert "'epsilon'" in message and "eps" in message and "seed" in message


def test_positional_arguments_are_refused():
    assert "by name" in error("greedy(0.1)")


@pytest.mark.parametrize(
    "spec, words",
    [
        ("greedy(eps='a')", ["eps", "number", "'a'"]),
        ("greedy(eps=None)", ["eps", "None"]),
        ("random(seed=1.5)", ["seed", "integer", "1.5"]),
        ("random(seed=True)", ["seed", "integer", "True"]),
        ("random(seed='1')", ["seed", "integer"]),
    ],
)
def test_wrong_types(spec, words):
    message = error(spec)
    assert all(word in message for word in words), message


@pytest.mark.parametrize(
    "spec, words",
    [
        ("greedy(eps=2)", ["eps", "at most 1", "2"]),
        ("greedy(eps=-0.1)", ["eps", "at least 0", "-0.1"]),
        ("random(seed=-1)", ["seed", "at least 0", "-1"]),
    ],
)
def test_out_of_range(spec, words):
    message = error(spec)
    assert all(word in message for word in words), message


def test_duplicate_keys():
    assert "'eps' is given twice" in error("greedy(eps=0.1, eps=0.2)")


def test_double_star_keywords():
    assert "**" in error("greedy(**kw)")


@pytest.mark.parametrize("spec", ["greedy(", "greedy)", "1+1", "greedy(eps=0.1)(1)", "greedy[0]", "'greedy'", "greedy eps"])
def test_malformed_specs(spec):
    assert "malformed agent spec" in error(spec)


@pytest.mark.parametrize("spec", ["", "   "])
def test_empty_spec(spec):
    assert "empty" in error(spec)


@pytest.mark.parametrize("spec", [None, 3, b"greedy", ["greedy"]])
def test_a_spec_must_be_a_string(spec):
    assert "must be a string" in error(spec)


@pytest.mark.parametrize(
    "spec",
    [
        "__import__('os').system('echo hi')",
        "greedy(eps=__import__('os').getpid())",
        "greedy(eps=(lambda: 1)())",
        "greedy(seed=len('ab'))",
        "greedy(eps=1-1)",
        "greedy(eps=[0.1])",
        "os.system",
        "greedy.__class__",
    ],
)
def test_code_is_never_executed(spec, monkeypatch):
    def forbidden(*args):
        pytest.fail(f"parsing {spec!r} ran code: {args!r}")

    monkeypatch.setattr(os, "system", forbidden)
    monkeypatch.setattr(os, "getpid", forbidden)
    message = error(spec)
    assert "malformed" in message or "not a literal" in message, message


def test_a_seed_given_to_parse_replaces_the_specs(offset):
    assert parse("uct(iterations=50, seed=3)", seed=9) == parse("uct(iterations=50, seed=9)")
    assert parse("minimax(time=0.5)", seed=4).spec == "minimax(time=0.5, seed=4)"
    assert parse("offset(count=2)", seed=4).spec == "offset(count=2)"  # an agent without a seed keeps none
    greedy = parse("greedy")
    assert parse(greedy) is greedy and parse(greedy, seed=greedy.seed) is not greedy  # a copy with the seed
    with pytest.raises(ValueError, match="seed must be at least 0"):
        parse("random", seed=-1)


def test_a_match_builds_each_agent_once(monkeypatch):
    """``play`` makes one agent a side from its spec (the canonical spec is remembered), none to copy."""
    from awale.play.match import play

    built = []
    original = Agent.__init__

    def counting(self, **kwargs):
        built.append(type(self).name)
        original(self, **kwargs)

    play("greedy(eps=0.1)", "uct(iterations=20)", seed=1)  # the canonical specs are now remembered
    monkeypatch.setattr(Agent, "__init__", counting)
    play("greedy(eps=0.1)", "uct(iterations=20)", seed=2)
    assert sorted(built) == ["greedy", "uct"]
