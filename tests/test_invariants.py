"""Properties that hold in every game, checked with hypothesis on random rules and move sequences."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from awale import Game, IllegalActionError, InvalidPositionError, Rules
from awale.core.rules import sow, _spread

rules_strategy = st.builds(
    Rules,
    pits_per_side=st.integers(2, 6),
    seeds_per_pit=st.integers(1, 6),
    feed=st.booleans(),
    grand_slam=st.sampled_from(["no-capture", "forbidden", "capture-all"]),
    repetition=st.just(True),
    collect_remaining=st.booleans(),
    max_plies=st.none() | st.integers(1, 300),
) | st.builds(Rules.simplified, pits_per_side=st.integers(2, 6), seeds_per_pit=st.integers(1, 6))

# A game is a rule set and a list of choices, each an index into the legal actions.
choices_strategy = st.lists(st.integers(0, 5), min_size=1, max_size=120)


def play(rules, choices):
    """Yield ``(game, action, after, captured, finished)`` along a game driven by ``choices``."""
    game = Game(rules)
    for choice in choices:
        if game.game_finished:
            return
        action = game.legal_actions[choice % len(game.legal_actions)]
        after, captured, finished = game.step(action)
        yield game, action, after, captured, finished
        game = after


@settings(max_examples=150, deadline=None)
@given(rules_strategy, choices_strategy)
def test_seeds_are_conserved_and_captures_add_up(rules, choices):
    for game, _, after, captured, _ in play(rules, choices):
        assert sum(after.pits) + sum(after.captures) == rules.total_seeds
        assert all(p >= 0 for p in after.pits)
        assert after.plies == game.plies + 1
        mover = game.current_player
        if not after.game_finished:
            assert after.captures[mover] == game.captures[mover] + captured
            assert after.captures[1 - mover] == game.captures[1 - mover]
            assert after.current_player == 1 - mover


@settings(max_examples=150, deadline=None)
@given(rules_strategy, choices_strategy)
def test_no_legal_actions_exactly_when_finished(rules, choices):
    for _, _, after, _, finished in play(rules, choices):
        assert finished == after.game_finished == (after.legal_actions == [])
        assert after.legal_actions == sorted(set(after.legal_actions))
        assert all(0 <= a < rules.pits_per_side for a in after.legal_actions)
        if finished:
            south, north = after.captures
            if after.winner is not None:
                assert after.captures[after.winner] > after.captures[1 - after.winner]
            else:  # a draw: equal captures, or the ply cap whatever the captures
                assert south == north or after.plies == rules.max_plies
            if max(south, north) > rules.total_seeds // 2:
                assert after.winner == int(north > south)


@settings(max_examples=100, deadline=None)
@given(rules_strategy, choices_strategy)
def test_step_never_changes_its_input(rules, choices):
    for game, action, _, _, _ in play(rules, choices):
        before = (game.pits, game.captures, game.current_player, game.legal_actions, game.plies, hash(game))
        again, captured, _ = game.step(action)
        assert (game.pits, game.captures, game.current_player, game.legal_actions, game.plies, hash(game)) == before
        # and stepping is a function: the same move from the same game, the same result
        assert again == game.step(action)[0]


@settings(max_examples=100, deadline=None)
@given(rules_strategy, choices_strategy)
def test_from_position_accepts_live_positions_and_rejects_altered_ones(rules, choices):
    for _, _, after, _, _ in play(rules, choices):
        if after.game_finished:
            # Out of its history a board left by a repetition can look live, when its seeds
            # were not collected; every other finished position is refused.
            if rules.collect_remaining:
                with pytest.raises(InvalidPositionError):
                    Game.from_position(after.pits, after.captures, after.current_player, rules, plies=after.plies)
            with pytest.raises(IllegalActionError):
                after.step(0)
            continue
        copy = Game.from_position(after.pits, after.captures, after.current_player, rules, plies=after.plies)
        assert copy == after and copy.legal_actions == after.legal_actions
        # One seed too many or too few never adds up.
        for delta in (1, -1):
            pits = list(after.pits)
            index = max(range(len(pits)), key=pits.__getitem__)
            pits[index] += delta
            with pytest.raises(InvalidPositionError, match="do not add up"):
                Game.from_position(pits, after.captures, after.current_player, rules)


def sown_seed_by_seed(pits, origin):
    """A reference sowing: one seed at a time into the next pit, skipping the origin."""
    pits = list(pits)
    seeds, pits[origin], index = pits[origin], 0, origin
    while seeds:
        index = (index + 1) % len(pits)
        if index != origin:
            pits[index] += 1
            seeds -= 1
    return pits, index


boards_strategy = st.integers(2, 6).flatmap(
    lambda n: st.tuples(st.lists(st.integers(0, 60), min_size=2 * n, max_size=2 * n), st.integers(0, 2 * n - 1))
)


@settings(max_examples=300, deadline=None)
@given(boards_strategy)
def test_sowing_matches_the_seed_by_seed_reference_and_takes_back(board):
    pits, origin = board
    if pits[origin] == 0:
        pits[origin] = 1
    expected, expected_last = sown_seed_by_seed(pits, origin)
    array = np.array(pits, dtype=np.int64)
    last = sow(array, origin, len(pits))
    assert (list(array), last) == (expected, expected_last)
    _spread(array, origin, pits[origin], len(pits), -1)
    array[origin] = pits[origin]
    assert list(array) == pits
