"""The baseline agents ``random`` and ``greedy`` on small hand-made positions and seeded games."""

import pytest

from awale import Game, Rules
from awale.agents import parse
from awale.agents.basic import GreedyAgent, RandomAgent

SIZES = [2, 3, 4, 5, 6]

# South to move; pit 0 captures nothing, pit 1 captures 5 (North's 2 and 1 become 3 and 2), pit 2 captures 3.
BIGGEST_CAPTURE = Game.from_position([1, 3, 1, 2, 1, 2], captures=(6, 8))

# Without the feed rule, South may leave North (who has no seeds) without a move: pit 0 then ends the game and
# South collects its 8 seeds, winning 13-5; pit 1 sows round the board and captures 2, and the game goes on.
NO_FEED = Rules(pits_per_side=3, seeds_per_pit=3, feed=False)
WIN_OR_CAPTURE = Game.from_position([1, 7, 0, 0, 0, 0], captures=(5, 5), rules=NO_FEED)


def self_play(agent, rules):
    """Let ``agent`` play both sides of a game; check every action is legal and return them."""
    game, moves = Game(rules), []
    while not game.game_finished:
        action = agent.act(game)
        assert action in game.legal_actions
        moves.append(action)
        game, _, _ = game.step(action)
    return moves


def test_the_positions_are_what_the_comments_say():
    outcomes = [BIGGEST_CAPTURE.step(a)[1:] for a in BIGGEST_CAPTURE.legal_actions]
    assert outcomes == [(0, False), (5, False), (3, False)]
    win, _, finished = WIN_OR_CAPTURE.step(0)
    assert finished and win.winner == 0 and win.captures == (13, 5)
    assert WIN_OR_CAPTURE.step(1)[1:] == (2, False)


# --------------------------------------------------------------------------- random


@pytest.mark.parametrize("n", SIZES)
def test_random_plays_legal_moves_on_every_board_size(n):
    for seed in range(3):
        assert self_play(RandomAgent(seed=seed), Rules(pits_per_side=n))


@pytest.mark.parametrize("n", SIZES)
def test_random_is_reproducible_per_seed(n):
    rules = Rules(pits_per_side=n)
    games = [self_play(RandomAgent(seed=seed), rules) for seed in range(4)]
    assert games == [self_play(RandomAgent(seed=seed), rules) for seed in range(4)]
    assert len({tuple(moves) for moves in games}) > 1


def test_reset_replays_the_same_choices():
    for agent in (RandomAgent(seed=5), GreedyAgent(eps=0.5, seed=5)):
        first = self_play(agent, Rules())
        assert self_play(agent, Rules()) != first  # the generator moved on...
        agent.reset()
        assert self_play(agent, Rules()) == first  # ...and reset() restarts it


def test_random_covers_every_legal_move():
    assert {RandomAgent(seed=seed).act(BIGGEST_CAPTURE) for seed in range(40)} == {0, 1, 2}


# --------------------------------------------------------------------------- greedy


def test_greedy_takes_the_biggest_capture():
    assert {GreedyAgent(seed=seed).act(BIGGEST_CAPTURE) for seed in range(20)} == {1}


def test_greedy_prefers_an_outright_win_to_a_bigger_capture():
    assert {GreedyAgent(seed=seed).act(WIN_OR_CAPTURE) for seed in range(20)} == {0}


def test_greedy_breaks_ties_at_random():
    # Nothing can be captured from the initial position: every move ties.
    assert {GreedyAgent(seed=seed).act(Game()) for seed in range(60)} == set(range(6))


def test_greedy_with_eps_1_plays_at_random():
    assert {GreedyAgent(eps=1.0, seed=seed).act(BIGGEST_CAPTURE) for seed in range(40)} == {0, 1, 2}


def test_greedy_with_small_eps_is_mostly_greedy():
    choices = [GreedyAgent(eps=0.2, seed=seed).act(BIGGEST_CAPTURE) for seed in range(200)]
    # The greedy move, plus a third of the random moves: about 87% of the time.
    assert 0.75 < choices.count(1) / len(choices) < 0.97
    assert set(choices) == {0, 1, 2}


@pytest.mark.parametrize("n", SIZES)
def test_greedy_plays_legal_moves_on_every_board_size(n):
    for spec in ("greedy(seed=1)", "greedy(eps=0.3, seed=2)"):
        assert self_play(parse(spec), Rules(pits_per_side=n, seeds_per_pit=3))


@pytest.mark.parametrize("rules", [Rules.simplified(), Rules(grand_slam="forbidden"), NO_FEED])
def test_greedy_follows_the_rules_it_is_given(rules):
    assert self_play(GreedyAgent(eps=0.1, seed=3), rules)


# --------------------------------------------------------------------------- both


@pytest.mark.parametrize("agent", [RandomAgent(), GreedyAgent()], ids=str)
def test_act_on_a_finished_game_raises(agent):
    finished, _, _ = WIN_OR_CAPTURE.step(0)
    with pytest.raises(ValueError, match="the game is over"):
        agent.act(finished)


@pytest.mark.parametrize("agent", [RandomAgent(), GreedyAgent()], ids=str)
def test_act_needs_a_game(agent):
    with pytest.raises(ValueError, match="needs an awale.Game"):
        agent.act([4] * 12)
