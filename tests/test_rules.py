"""One small hand-made position per rule, played through the public API.

Boards are written as South's row then North's row, each left to right from
its owner's seat (``pits[0:n]`` then ``pits[n:2n]``).  This file also runs with
``NUMBA_DISABLE_JIT=1`` (see ``test_nojit.py``), so it checks both the compiled
and the plain-Python kernels.
"""

import pytest

from awale import Game, IllegalActionError, InvalidPositionError, Rules
from conftest import position


# --------------------------------------------------------------------------- sowing


def test_first_move_from_the_initial_position():
    game = Game()
    assert game.pits == (4,) * 12
    assert game.current_player == 0 and game.legal_actions == [0, 1, 2, 3, 4, 5]
    after, captured, finished = game.step(2)
    assert after.pits == (4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4)
    assert (captured, finished, after.current_player, after.plies) == (0, False, 1, 1)
    assert after.captures == (0, 0)


def test_north_sows_anticlockwise_onto_south():
    after, _, _ = Game().step(5)[0].step(5)[:3]
    # South's F fed North's a..d; North's f (index 11) then sows into South's A..D.
    assert after.pits == (5, 5, 5, 5, 4, 0, 5, 5, 5, 5, 4, 0)


def test_sow_of_twelve_seeds_skips_its_origin():
    game = position([12, 1, 0, 0, 0, 1], [1, 1, 1, 1, 1, 1], (14, 14))
    after, captured, _ = game.step(0)
    # Eleven seeds go round once, the twelfth lands in B, never in A.
    assert after.pits == (0, 3, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2)
    assert captured == 0


def test_sow_of_seventeen_seeds_laps_then_captures():
    game = position([17, 0, 0, 0, 0, 0], [0, 1, 1, 1, 1, 1], (12, 14))
    after, captured, _ = game.step(0)
    # One lap (11 seeds) then six more: B..F and North's a, whose 2 seeds are taken.
    assert after.pits == (0, 2, 2, 2, 2, 2, 0, 2, 2, 2, 2, 2)
    assert captured == 2 and after.captures == (14, 14)


# --------------------------------------------------------------------------- captures


def test_capture_chain_runs_backwards():
    game = position([4, 0, 0, 0, 0, 3], [1, 2, 1, 4, 0, 0], (17, 16))
    after, captured, finished = game.step(5)
    assert captured == 2 + 3 + 2
    assert after.pits == (4, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0)
    assert after.captures == (24, 16) and not finished


def test_chain_stops_at_a_pit_that_is_not_two_or_three():
    game = position([4, 0, 0, 0, 0, 3], [1, 4, 1, 4, 0, 0], (17, 14))
    after, captured, _ = game.step(5)
    assert captured == 2
    assert after.pits == (4, 0, 0, 0, 0, 0, 2, 5, 0, 4, 0, 0)


def test_chain_does_not_cross_to_the_movers_side_south():
    game = position([0, 0, 0, 0, 2, 2], [1, 1, 4, 0, 0, 0], (20, 18))
    after, captured, _ = game.step(5)
    assert captured == 4  # a and b; South's own E (2 seeds) is not taken
    assert after.pits == (0, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0)


def test_chain_does_not_cross_to_the_movers_side_north():
    game = position([1, 2, 4, 0, 0, 0], [0, 0, 0, 0, 2, 2], (18, 19), player=1)
    after, captured, _ = game.step(5)
    assert captured == 2 + 3  # South's A and B; North's own e (2 seeds) stays
    assert after.pits == (0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 2, 0)
    assert after.captures == (18, 24)


def test_no_capture_on_the_movers_own_side():
    game = position([1, 1, 0, 0, 0, 0], [4, 4, 4, 4, 4, 4], (10, 12))
    after, captured, _ = game.step(0)
    assert captured == 0 and after.pits[:2] == (0, 2)


# --------------------------------------------------------------------------- feed rule


def test_feed_rule_forces_a_move():
    game = position([2, 0, 0, 0, 0, 1], [0] * 6, (21, 24))
    assert game.legal_actions == [5]
    with pytest.raises(IllegalActionError, match="feed rule"):
        game.step(0)
    after, _, _ = game.step(5)
    assert after.pits[6] == 1


def test_without_the_feed_rule_any_move_is_legal():
    rules = Rules(feed=False)
    game = position([2, 0, 0, 0, 0, 1], [0] * 6, (21, 24), rules=rules)
    assert game.legal_actions == [0, 5]
    after, _, finished = game.step(0)
    # North now has no seeds and so no move: the game ends, seeds to their owners.
    assert finished and after.captures == (24, 24) and after.winner is None


def test_no_feeding_move_ends_the_game_and_seeds_go_to_their_owner():
    game = position([0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1], (23, 23), player=1)
    after, captured, finished = game.step(5)
    # South cannot reach North's empty row: the game is over, South takes its 2 seeds.
    assert captured == 0 and finished
    assert after.legal_actions == []
    assert after.captures == (25, 23) and after.pits == (0,) * 12
    assert after.winner == 0


def test_seeds_left_uncounted_when_the_rules_say_so():
    rules = Rules(collect_remaining=False)
    game = position([0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1], (23, 23), player=1, rules=rules)
    after, _, finished = game.step(5)
    assert finished and after.captures == (23, 23) and after.winner is None
    assert after.pits == (1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)


# --------------------------------------------------------------------------- grand slam

GRAND_SLAM = dict(south=[1, 0, 0, 0, 0, 2], north=[1, 1, 0, 0, 0, 0], captures=(21, 22))


def test_grand_slam_captures_nothing_under_abapa():
    game = position(**GRAND_SLAM)
    assert game.legal_actions == [0, 5]
    after, captured, finished = game.step(5)
    assert captured == 0 and not finished
    assert after.pits == (1, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0)


def test_grand_slam_forbidden_unless_forced():
    rules = Rules(grand_slam="forbidden")
    game = position(**GRAND_SLAM, rules=rules)
    assert game.legal_actions == [0]
    with pytest.raises(IllegalActionError, match="grand slam"):
        game.step(5)
    forced = position([0, 0, 0, 0, 0, 2], [1, 1, 0, 0, 0, 0], (22, 22), rules=rules)
    assert forced.legal_actions == [5]
    after, captured, finished = forced.step(5)
    # Nothing is captured; North's 2 + 2 seeds cannot reach South, so they end the game as North's.
    assert captured == 0 and finished and after.captures == (22, 26)


def test_grand_slam_captures_everything_when_allowed():
    rules = Rules(grand_slam="capture-all")
    after, captured, finished = position(**GRAND_SLAM, rules=rules).step(5)
    assert captured == 4 and finished
    assert after.captures == (25, 22) and after.winner == 0


# --------------------------------------------------------------------------- ends


def test_more_than_half_wins():
    game = position([4, 0, 0, 0, 0, 3], [1, 2, 1, 4, 0, 0], (18, 15))
    after, captured, finished = game.step(5)
    assert captured == 7 and finished
    assert after.captures == (25, 15) and after.winner == 0
    assert after.legal_actions == []
    with pytest.raises(IllegalActionError, match="game is over"):
        after.step(0)


def test_exact_half_half_split_is_a_draw():
    rules = Rules(grand_slam="capture-all")
    game = position([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0], (22, 24), rules=rules)
    after, captured, finished = game.step(5)
    assert captured == 2 and finished
    assert after.captures == (24, 24) and after.winner is None


def test_repetition_ends_the_game():
    rules = Rules(pits_per_side=2, seeds_per_pit=2)
    game = position([0, 1], [0, 1], (2, 4), rules=rules)
    seen = [game]
    for action in (1, 1, 0, 0):  # each move is forced
        assert game.legal_actions == [action]
        game, captured, finished = game.step(action)
        assert captured == 0
        seen.append(game)
    # Four plies later the first position is back, with South to move: the game ends.
    assert finished and game.plies == 4
    assert game.captures == (3, 5) and game.winner == 1
    assert seen[1].pits == (0, 0, 1, 1) and seen[3].pits == (0, 1, 1, 0)


def test_without_repetition_rule_the_cycle_goes_on():
    rules = Rules(pits_per_side=2, seeds_per_pit=2, repetition=False, max_plies=10)
    game = position([0, 1], [0, 1], (2, 4), rules=rules)
    for action in (1, 1, 0, 0):
        game, _, finished = game.step(action)
    assert not finished and game.pits == (0, 1, 0, 1) and game.legal_actions == [1]


def test_ply_cap_is_a_draw_whatever_the_captures():
    rules = Rules(max_plies=41)
    game = position([4, 4, 4, 4, 4, 4], [4, 4, 4, 4, 0, 0], (8, 0), plies=40, rules=rules)
    after, _, finished = game.step(0)
    assert finished and after.winner is None and after.captures == (8, 0)
    assert after.plies == 41 and after.legal_actions == []


def test_a_win_on_the_last_ply_still_counts():
    rules = Rules(max_plies=10)
    game = position([4, 0, 0, 0, 0, 3], [1, 2, 1, 4, 0, 0], (18, 15), plies=9, rules=rules)
    after, _, finished = game.step(5)
    assert finished and after.winner == 0


def test_simplified_rules():
    rules = Rules.simplified()
    assert (rules.feed, rules.grand_slam, rules.repetition, rules.collect_remaining, rules.max_plies) == (
        False,
        "capture-all",
        False,
        False,
        500,
    )
    assert Rules.abapa() == Rules()


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "action, message",
    [(6, "out of range"), (-1, "out of range"), (1, "empty"), ("2", "integer"), (2.0, "integer"), (True, "integer")],
)
def test_illegal_actions_are_explained(action, message):
    game = position([4, 0, 4, 4, 4, 4], [4, 4, 4, 4, 4, 4], (2, 2))
    with pytest.raises(IllegalActionError, match=message):
        game.step(action)


def test_errors_are_value_errors():
    assert issubclass(IllegalActionError, ValueError) and issubclass(InvalidPositionError, ValueError)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(pits=[4] * 11), "even number"),
        (dict(pits=[4] * 10, rules=Rules()), "12 counts"),
        (dict(pits=[-1, 5] + [4] * 10), "negative"),
        (dict(pits=[4.5] + [4] * 11), "integer"),
        (dict(pits="444444444444"), "sequence"),
        (dict(pits=[4] * 12, captures=(1, 0), rules=Rules()), "do not add up"),
        (dict(pits=[4] * 12, captures=(0,)), "pair"),
        (dict(pits=[4] * 12, captures=(-2, 2)), "negative"),
        (dict(pits=[4] * 12, current_player=2), "current_player"),
        (dict(pits=[0] * 11 + [1], captures=(25, 22)), "end the game"),
        (dict(pits=[0] * 12, captures=(24, 24)), "end the game"),
        (dict(pits=[1] * 12, captures=(1, 0)), "not a positive multiple"),
        (dict(pits=[1, 1, 0, 0, 0, 0] + [0] * 6, captures=(22, 24)), "no legal move"),
        (dict(pits=[4] * 12, plies=5, rules=Rules(max_plies=5)), "max_plies"),
    ],
)
def test_from_position_rejects_impossible_positions(kwargs, message):
    with pytest.raises(InvalidPositionError, match=message):
        Game.from_position(**kwargs)


def test_rules_must_be_rules():
    with pytest.raises(ValueError, match="awale.Rules"):
        Game.from_position([4] * 12, rules="abapa")
    with pytest.raises(ValueError, match="awale.Rules"):
        Game("abapa")


def test_from_position_infers_board_size():
    game = Game.from_position([3, 3, 3, 3, 3, 3, 3, 3])
    assert game.rules == Rules(pits_per_side=4, seeds_per_pit=3)
    assert game == Game(Rules(pits_per_side=4, seeds_per_pit=3))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(pits_per_side=1), "between 2 and 6"),
        (dict(pits_per_side=7), "between 2 and 6"),
        (dict(pits_per_side=True), "integer"),
        (dict(seeds_per_pit=0), "at least 1"),
        (dict(grand_slam="sometimes"), "grand_slam"),
        (dict(feed="yes"), "True or False"),
        (dict(repetition=False), "needs max_plies"),
        (dict(max_plies=0), "at least 1"),
        (dict(max_plies=2.5), "integer"),
    ],
)
def test_rules_reject_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Rules(**kwargs)


# --------------------------------------------------------------------------- the value


def test_step_leaves_the_game_unchanged_and_games_compare_by_position():
    game = Game()
    before = (game.pits, game.captures, game.current_player, game.legal_actions, hash(game))
    game.step(3)
    assert before == (game.pits, game.captures, game.current_player, game.legal_actions, hash(game))
    # Two move orders reaching the same position give equal games (a transposition).
    def play(*actions):
        game = Game()
        for action in actions:
            game = game.step(action)[0]
        return game

    a, b = play(0, 0, 1, 0, 2, 2), play(0, 0, 2, 0, 1, 2)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Game() and Game() != Game(Rules(feed=False))


def test_text_and_svg_boards():
    import xml.etree.ElementTree as ET

    game = position([4, 0, 0, 0, 0, 3], [1, 2, 1, 4, 0, 0], (17, 16))
    text = str(game)
    assert "North  captured 16" in text and "South  captured 17" in text and "South to move" in text
    from awale.core.render import text_board

    assert text_board(game, highlight=[6]).count("*") == 2  # the label and the count of a
    svg = game.svg(highlight=[6, 7, 8])
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    pits = [c for c in root.iter(ns + "circle") if c.get("class", "").startswith("pit")]
    assert len(pits) == 12
    assert sum(1 for c in pits if c.get("class") == "pit hl") == 3
    assert game._repr_svg_().startswith("<svg")
    with pytest.raises(ValueError, match="pit must be between 0 and 11"):
        game.svg(highlight=[12])


def test_svg_stores_are_labelled_by_their_owner():
    """Each capture store holds its owner's count and has its owner's name beside it, in the store's column."""
    import xml.etree.ElementTree as ET

    ns = "{http://www.w3.org/2000/svg}"
    for pits_per_side, captures in ((6, (17, 16)), (3, (5, 2))):
        rules = Rules(pits_per_side=pits_per_side, seeds_per_pit=4)
        board = [4 * 2 * pits_per_side - sum(captures)] + [0] * (2 * pits_per_side - 1)
        board[pits_per_side] = 1
        board[0] -= 1
        game = Game.from_position(board, captures=captures, rules=rules)
        root = ET.fromstring(game.svg())
        stores = [(float(e.get("cx")), float(e.get("rx"))) for e in root.iter(ns + "ellipse")]
        texts = [(float(t.get("x")), t.get("class"), t.text) for t in root.iter(ns + "text")]
        assert len(stores) == 2
        for player, name in enumerate(("South", "North")):
            count = [x for x, css, text in texts if css == "cap" and text == str(captures[player])]
            label = [x for x, css, text in texts if css == "who" and text == name]
            assert len(count) == 1 and len(label) == 1, (name, texts)
            (cx, rx), = [(cx, rx) for cx, rx in stores if abs(cx - count[0]) < 1]
            assert abs(label[0] - cx) <= rx, f"the label {name!r} is not by {name}'s store"
