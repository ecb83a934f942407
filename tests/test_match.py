"""Matches between agents: reproducibility, the record's invariants, the ply cap and bad agents."""

import dataclasses

import pytest

from awale import Game, Rules
from awale.agents import Agent, parse
from awale.play.match import MatchRecord, play

RULES = [Rules(), Rules(pits_per_side=3, seeds_per_pit=2), Rules.simplified(), Rules(grand_slam="capture-all")]


class Stubborn(Agent):
    """Plays one pit past its last one, never legal (not registered)."""

    name = "stubborn"

    def act(self, game):
        return game.rules.pits_per_side


def replay(record):
    """The game reached by playing ``record.moves`` under ``record.rules``."""
    game = Game(record.rules)
    for action in record.moves:
        game, _, _ = game.step(action)
    return game


def same_game(a: MatchRecord, b: MatchRecord) -> bool:
    """Equal records apart from the time the agents took."""
    untimed = dict(south_seconds=0.0, north_seconds=0.0)
    return dataclasses.replace(a, **untimed) == dataclasses.replace(b, **untimed)


def test_a_match_is_reproducible_from_its_seed():
    first = play("random", "greedy", seed=5)
    assert same_game(first, play("random", "greedy", seed=5))
    assert first.moves != play("random", "greedy", seed=6).moves


def test_the_record_describes_the_match():
    record = play("greedy(eps=0.1)", "random(seed=4)", seed=3)
    assert (record.south, record.north, record.seed, record.rules) == ("greedy(eps=0.1)", "random(seed=4)", 3, Rules())
    assert isinstance(record.moves, tuple) and all(type(a) is int for a in record.moves)
    assert record.south_seconds > 0 and record.north_seconds > 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.winner = 0


@pytest.mark.parametrize("rules", RULES, ids=repr)
def test_record_invariants(rules):
    for seed in range(6):
        record = play("random", "greedy(eps=0.5)", rules=rules, seed=seed)
        assert record.plies == len(record.moves) > 0
        assert record.result == {0: 1.0, 1: 0.0, None: 0.5}[record.winner]
        game = replay(record)
        assert game.game_finished and game.plies == record.plies
        assert (game.captures, game.winner) == (record.score, record.winner)
        if rules.max_plies is None or record.plies < rules.max_plies:
            south, north = record.score
            assert record.winner == (0 if south > north else 1 if north > south else None)


def test_agents_and_their_specs_play_alike():
    by_spec = play("greedy(eps=0.5)", "random", seed=2)
    assert same_game(by_spec, play(parse("greedy(eps=0.5)"), parse("random"), seed=2))


def test_the_match_seed_replaces_the_agents_seeds():
    # The record keeps the specs as given, but the moves depend only on the match seed.
    one = play("random(seed=1)", "random(seed=1)", seed=9)
    two = play("random(seed=2)", "random", seed=9)
    assert one.moves == two.moves and (two.south, two.north) == ("random(seed=2)", "random")


def test_both_sides_may_share_one_agent_which_play_leaves_untouched():
    agent = parse("greedy(eps=0.5, seed=1)")
    before = [agent.act(Game()) for _ in range(5)]
    agent.reset()
    record = play(agent, agent, seed=4)
    assert record.south == record.north == "greedy(eps=0.5, seed=1)"
    assert [agent.act(Game()) for _ in range(5)] == before


def test_max_plies_caps_the_game_with_a_draw():
    record = play("random", "random", seed=1, max_plies=10)
    assert record.rules == Rules(max_plies=10)
    assert (record.plies, record.winner, record.result) == (10, None, 0.5)
    assert replay(record).game_finished


def test_max_plies_lets_games_end_earlier():
    rules = Rules(pits_per_side=2, seeds_per_pit=1)
    records = [play("greedy", "random", rules=rules, seed=seed, max_plies=10) for seed in range(10)]
    assert all(r.plies <= 10 and r.rules.max_plies == 10 for r in records)
    early = [r for r in records if r.plies < 10]
    assert early and all(r.winner is not None or r.score[0] == r.score[1] for r in early)


def test_max_plies_replaces_the_rules_cap():
    record = play("random", "random", rules=Rules.simplified(), seed=0, max_plies=7)
    assert record.rules == dataclasses.replace(Rules.simplified(), max_plies=7) and record.plies <= 7


def test_an_illegal_action_names_the_agent():
    with pytest.raises(ValueError) as excinfo:
        play("random", Stubborn(), rules=Rules(pits_per_side=2, seeds_per_pit=1), seed=0)
    message = str(excinfo.value)
    assert "'stubborn' (North)" in message and "illegal action 2 at ply 1" in message and "legal actions: [" in message
    assert excinfo.value.__suppress_context__  # no traceback from inside the game


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(south="alphazero"), "unknown agent"),
        (dict(north=3), "must be a string"),
        (dict(seed=-1), "seed"),
        (dict(seed=1.5), "seed"),
        (dict(seed=True), "seed"),
        (dict(rules="abapa"), "rules"),
        (dict(max_plies=0), "max_plies"),
        (dict(rules=Rules(), max_plies=2.5), "max_plies"),
    ],
)
def test_bad_arguments(kwargs, words):
    arguments = dict(south="random", north="random") | kwargs
    with pytest.raises(ValueError, match=words):
        play(**arguments)


def test_greedy_beats_random():
    # A behavioural check: 40 seeded games, greedy playing South in half of them.
    results = [play("greedy", "random", seed=seed).result for seed in range(20)]
    results += [1.0 - play("random", "greedy", seed=seed).result for seed in range(20)]
    assert sum(results) / len(results) >= 0.7


def test_a_side_whose_moves_depend_on_time_makes_an_untimed_move_first(monkeypatch):
    """Compiling a time-budgeted agent's kernels must not eat its first move's time; a replayable side is not warmed."""
    warmed = []
    monkeypatch.setattr("awale.play.match.warm_up", lambda spec, rules: warmed.append(spec))
    play("uct(time=0.01)", "minimax(depth=2)", seed=1, max_plies=4)
    play("random", "uct(time=0.01, threads=2, parallel='tree')", seed=1, max_plies=4)
    assert warmed == ["uct(time=0.01)", "uct(time=0.01, threads=2, parallel='tree')"]
