"""OpenSpiel's C++ MCTS as an agent: reproducible, both colours, and clear refusals."""

import pytest

from awale import Game, Rules
from awale.agents import parse
from awale.play.match import play


def test_the_same_seed_plays_the_same_game_and_another_seed_another():
    first = play("openspiel_mcts(iterations=50)", "greedy(eps=0.3)", seed=3)
    again = play("openspiel_mcts(iterations=50)", "greedy(eps=0.3)", seed=3)
    other = play("openspiel_mcts(iterations=50)", "greedy(eps=0.3)", seed=4)
    assert first.moves == again.moves and first.moves != other.moves


@pytest.mark.parametrize("south, north", [
    ("random", "openspiel_mcts(iterations=30)"),
    ("openspiel_mcts(iterations=30)", "openspiel_mcts(iterations=30, seed=1)"),  # it follows its own moves too
])
def test_it_plays_whole_games_on_either_side(south, north):
    record = play(south, north, seed=5)
    assert record.plies == len(record.moves) > 0 and sum(record.score) <= 48


@pytest.mark.parametrize("inner", ["openspiel_mcts(iterations=30)", "openspiel_alphabeta(depth=2)"])
@pytest.mark.parametrize("south_is_openspiel", [True, False])
def test_it_follows_the_plies_of_an_opening(inner, south_is_openspiel):
    # The opening's five plies are more than it could find between two of its moves: it is shown them.
    sides = [f"opening(agent={inner!r}, moves='00113')", "opening(agent='greedy', moves='00113')"]
    record = play(*(sides if south_is_openspiel else sides[::-1]), seed=6)
    assert record.moves[:5] == (0, 0, 1, 1, 3) and record.plies > 5


def test_its_moves_are_legal_and_follow_the_game_it_is_shown():
    agent = parse("openspiel_mcts(iterations=20, seed=2)")
    game = Game()
    for _ in range(6):  # it plays both sides here: each call is one ply after the last
        action = agent.act(game)
        assert action in game.legal_actions
        game = game.step(action)[0]


def test_it_refuses_what_it_cannot_follow():
    agent = parse("openspiel_mcts(iterations=20)")
    with pytest.raises(ValueError, match="plays only OpenSpiel's oware rules"):
        agent.act(Game(Rules(seeds_per_pit=3)))
    far = Game()
    for action in (0, 1, 2, 3):
        far = far.step(action)[0]
    with pytest.raises(ValueError, match=r"does not continue the game it has seen"):
        agent.act(far)  # four plies from anything it has seen
    with pytest.raises(ValueError, match="does not continue"):
        agent.act(Game.from_position([4] * 12, captures=(0, 0), current_player=1))


@pytest.mark.parametrize("spec, message", [
    ("openspiel_mcts(iterations=0)", "iterations must be at least 1"),
    ("openspiel_mcts(c=-1)", "c must be at least 0"),
    ("openspiel_mcts(solve=1)", "solve must be True or False"),
])
def test_bad_parameters_are_named(spec, message):
    with pytest.raises(ValueError, match=message):
        parse(spec)


def test_openspiel_alphabeta_is_the_same_search_as_ours_on_captures():
    """Both search the capture difference to a fixed depth: each move it picks has our search's best value."""
    from awale.search.alphabeta import action_values

    agent = parse("openspiel_alphabeta(depth=3)")
    game = Game()
    for ply in range(30):
        action = agent.act(game)
        values = action_values(game, 3)
        assert values[action] == max(values.values()), (ply, game)
        game = game.step(action)[0]
        if game.game_finished:
            break
        game = game.step(game.legal_actions[ply % len(game.legal_actions)])[0]
        if game.game_finished:
            break


def test_openspiel_alphabeta_replays_and_refuses_what_it_cannot_follow():
    first = play(parse("openspiel_alphabeta(depth=2)"), parse("greedy(eps=0.5)"), seed=4)
    again = play(parse("openspiel_alphabeta(depth=2)"), parse("greedy(eps=0.5)"), seed=4)
    assert first.moves == again.moves
    with pytest.raises(ValueError, match="Abapa"):
        parse("openspiel_alphabeta").act(Game(rules=Rules(pits_per_side=4)))
    with pytest.raises(ValueError, match="at most 20"):
        parse("openspiel_alphabeta(depth=21)")
