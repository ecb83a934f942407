"""Games under a clock: the testers' notation, the clocked agents, losses on time, and how the store and its checks
take them.  Time is a counter here (each reading a second), never measured."""

import pytest

from awale.agents import Agent, parse
from awale.agents.clocked import ClockedAgent, with_clock
from awale.agents.timing import (
    CLOCK_EXTRA_MOVES, CLOCK_MAX_SHARE, CLOCK_MIN_MOVES, CLOCK_RESERVE, TimeManager,
)
from awale.core.clock import Clock
from awale.experiments import Store
from awale.experiments.verify import check_rules, clocked, flagged, time_based, verify
from awale.play.match import play

from conftest import position


class Seconds:
    """A stand-in for the ``time`` module of :mod:`awale.play.match`: each reading is one second after the last, so that
    every move takes exactly one second."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 1.0
        return self.now


# --------------------------------------------------------------------------- the notation


@pytest.mark.parametrize("text, base, increment, canonical", [
    ("60+0.5", 60.0, 0.5, "60+0.5"),
    ("60", 60.0, 0.0, "60+0"),
    (" 10+1 ", 10.0, 1.0, "10+1"),
    (".5+.25", 0.5, 0.25, "0.5+0.25"),
    ("0.001+0", 0.001, 0.0, "0.001+0"),
    ("300.000+2.50", 300.0, 2.5, "300+2.5"),
])
def test_good_clocks(text, base, increment, canonical):
    clock = Clock.parse(text)
    assert (clock.base, clock.increment, str(clock)) == (base, increment, canonical)
    assert Clock.parse(str(clock)) == clock


@pytest.mark.parametrize("text, message", [
    ("60+", "expected BASE\\+INCREMENT"),
    ("-1+0", "cannot be negative"),
    ("60+-1", "cannot be negative"),
    ("abc", "expected BASE\\+INCREMENT"),
    ("", "expected BASE\\+INCREMENT"),
    ("60+0.5+1", "expected BASE\\+INCREMENT"),
    ("1e3+0", "expected BASE\\+INCREMENT"),
    ("0+1", "the base must be above 0"),
    ("100000+0", "at most 86400"),
    ("60+100000", "at most 86400"),
    (60, "must be text"),
])
def test_bad_clocks(text, message):
    with pytest.raises(ValueError, match=message):
        Clock.parse(text)


def test_bad_clock_values():
    for base, increment in [(0, 0), (-1, 0), (1, -0.5), (float("nan"), 0), (1, float("inf")), (True, 0)]:
        with pytest.raises(ValueError, match="clock"):
            Clock(base, increment)


# --------------------------------------------------------------------------- clocked agents


def test_a_clocked_spec_is_canonical_and_not_replayable():
    agent = parse("clocked(agent='greedy(eps=0.0)', tc='60.0+0.50')")
    assert str(agent) == "clocked(agent='greedy', tc='60+0.5')" and agent.clock == Clock(60, 0.5)
    assert not agent.replayable and parse("greedy").clock is None
    assert time_based("clocked(agent='minimax(nodes=1000)', tc='60+0')") and not time_based("minimax(nodes=1000)")
    assert clocked("clocked(agent='random', tc='1+0')") and not clocked("random")
    opening = parse("opening(agent=\"clocked(agent='random', tc='1+0')\", moves='25')")
    assert opening.clock == Clock(1) and not opening.replayable
    assert with_clock("opening(agent='random', moves='25')", "1+0") == opening  # the opening outside
    assert with_clock("greedy", Clock(2, 1)).spec == "clocked(agent='greedy', tc='2+1')"


@pytest.mark.parametrize("spec, message", [
    ("clocked(agent='greedy', tc='60+')", "expected BASE\\+INCREMENT"),
    ("clocked(agent=\"clocked(agent='greedy', tc='1+0')\", tc='1+0')", "already has a clock"),
    ("clocked(agent=\"opening(agent='greedy', moves='2')\", tc='1+0')", "an opening wraps a clocked agent"),
    ("clocked(agent='nobody', tc='1+0')", "unknown agent"),
    ("clocked(tc='1+0')", "agent cannot be None"),
    ("champion(time=0.1, clock_moves='database')", "give manage=True"),
    ("minimax(time=0.1, clock_moves='database')", "give manage=True"),
    ("champion(time=0.1, manage=True, clock_moves='moves')", "must be one of 'seeds', 'database'"),
])
def test_bad_clocked_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        parse(spec)


def test_play_refuses_a_second_clock():
    with pytest.raises(ValueError, match="already has a clock"):
        play("clocked(agent='greedy', tc='1+0')", "random", clock="1+0")
    with pytest.raises(ValueError, match="expected BASE"):
        play("greedy", "random", clock="soon")


# --------------------------------------------------------------------------- losses on time


def test_a_side_out_of_time_loses(monkeypatch):
    monkeypatch.setattr("awale.play.match.time", Seconds())  # every move takes one second
    record = play("greedy", "random", seed=3, clock="10+0")
    assert (record.south, record.north) == ("clocked(agent='greedy', tc='10+0')", "clocked(agent='random', tc='10+0')")
    # South's eleventh move (ply 21) finds its ten seconds spent: it is not played, and North wins.
    assert (record.flagged, record.winner, record.result, record.plies) == (0, 1, 0.0, 20)
    assert len(record.moves) == 20 and record.south_seconds == 11.0 and record.north_seconds == 10.0
    first = play("greedy", "random", seed=3, clock="0.5+0")
    assert (first.flagged, first.winner, first.plies, first.score) == (0, 1, 0, (0, 0))


def test_the_increment_keeps_a_side_in_time(monkeypatch):
    monkeypatch.setattr("awale.play.match.time", Seconds())
    record = play("greedy", "random", seed=3, clock="1+1")
    assert record.flagged is None and record.winner == play("greedy", "random", seed=3).winner
    assert record.moves == play("greedy", "random", seed=3).moves  # a clock changes no move of these agents


def test_only_a_side_with_a_clock_can_lose_on_time(monkeypatch):
    monkeypatch.setattr("awale.play.match.time", Seconds())
    record = play("greedy", "clocked(agent='random', tc='5+0')", seed=1)
    assert (record.flagged, record.winner, record.plies) == (1, 0, 11)  # North's sixth move


def test_agents_are_told_their_time(monkeypatch):
    monkeypatch.setattr("awale.play.match.time", Seconds())
    told = []
    monkeypatch.setattr(Agent, "observe_clock", lambda self, remaining, increment: told.append((remaining, increment)))
    play("greedy", "random", seed=3, clock="100+0.5", max_plies=6)
    assert told == [(100.0, 0.5), (100.0, 0.5), (99.5, 0.5), (99.5, 0.5), (99.0, 0.5), (99.0, 0.5)]


def test_games_lost_on_time_are_stored_and_checked(tmp_path, monkeypatch):
    monkeypatch.setattr("awale.play.match.time", Seconds())
    path = tmp_path / "clocked.sqlite"
    records = [play("greedy", "random", seed=seed, clock="10+0") for seed in range(3)]
    assert any(r.flagged is not None for r in records)
    with Store(path) as store:
        assert store.add("clocked", records) == 3
        rows = store.load("clocked").to_dict("records")
    assert all(check_rules(row) is None for row in rows)
    report = verify(path, sample=None)
    assert report.ok and report.checked == 3 and report.replayed == 0 and report.time_based == 3
    lost = next(row for row in rows if row["plies"] == 20)
    assert "winner" in check_rules({**lost, "winner": 0})  # the side to move lost, not the other
    unclocked = {**lost, "south": "greedy", "north": "random"}
    assert "not over" in check_rules(unclocked)  # a game without a clock cannot stop early
    assert [flagged(row) for row in rows] == [r.flagged for r in records]  # read back from the moves alone
    with pytest.raises(ValueError, match="not over"):
        flagged(unclocked)


# --------------------------------------------------------------------------- a managed agent under a clock


@pytest.mark.parametrize("clock_moves", ["seeds", "database"])
@pytest.mark.parametrize("clock", ["60+0.5", "1+0", "0.2+1", "10+0"])
def test_a_managed_agent_never_plans_past_its_clock(clock, clock_moves):
    clock = Clock.parse(clock)
    manager = TimeManager(0.1, clock_moves=clock_moves)
    game = position([4, 4, 4, 4, 4, 4], [4, 4, 4, 0, 4, 4], (0, 4))
    expected = manager.moves_left(game, 25)
    left = clock.base
    for move in range(120):  # a long game (240 plies), every move taking its hard limit
        manager.observe_clock(left, clock.increment)
        allowance = manager.allowance(game, 25)
        assert allowance.target <= allowance.limit
        assert allowance.limit <= max(CLOCK_MAX_SHARE * (left - CLOCK_RESERVE), 0.001) + 1e-12
        left -= allowance.limit
        manager.spent(allowance.limit)
        # With an increment the clock never runs out, nor with the first count in 120 moves; in sudden death the
        # second count's reserve lasts at least the moves it expected at the start (past them, each move is
        # given the least time, taken from the reserve).
        assert left > 0 or (clock.increment == 0 and clock_moves == "database" and move >= expected)
        left += clock.increment
    assert manager.bank == 0.0  # the clock is the bank


def test_a_managed_agent_follows_its_clock():
    manager = TimeManager(0.1)
    game = position([4, 4, 4, 4, 4, 4], [4, 4, 4, 0, 4, 4], (0, 4))
    free = manager.allowance(game).nominal
    manager.observe_clock(600.0, 5.0)
    assert manager.allowance(game).nominal > 10 * free  # a long clock: long moves, whatever the time says
    manager.observe_clock(1.0, 0.0)
    assert manager.allowance(game).nominal < free
    manager.reset()
    assert manager.clock is None and manager.allowance(game).nominal == free


def test_the_moves_left_under_a_clock():
    start = position([4] * 6, [4] * 6, (0, 0))  # 48 seeds
    late = position([3, 0, 2, 0, 1, 0], [0, 2, 0, 1, 0, 1], (20, 18))  # 10 seeds
    seeds, database = TimeManager(0.1), TimeManager(0.1, clock_moves="database")
    assert seeds.moves_left(start, 25) == 48 and seeds.moves_left(late) == CLOCK_MIN_MOVES
    assert database.moves_left(start, 25) == 48 - 25 + CLOCK_EXTRA_MOVES
    assert database.moves_left(start) == 48 + CLOCK_EXTRA_MOVES  # no database: every seed counts
    assert database.moves_left(late, 9) == 1 + CLOCK_EXTRA_MOVES
    assert database.moves_left(late, 25) == 1 + CLOCK_EXTRA_MOVES  # never fewer than the move searched now
    for manager in (seeds, database):
        manager.observe_clock(10.0, 0.0)
    # Counting only the moves above the database gives each move a larger share of the same clock.
    assert database.allowance(start, 25).nominal > seeds.allowance(start, 25).nominal
    assert database.allowance(start, 25).nominal == pytest.approx((10.0 - CLOCK_RESERVE) / 28)


def test_a_time_manager_knows_two_counts_of_the_moves_left():
    with pytest.raises(ValueError, match="clock_moves must be one of 'seeds', 'database', got 'moves'"):
        TimeManager(0.1, clock_moves="moves")


def test_a_champion_counting_moves_above_its_database_plays_under_a_clock():
    spec = "champion(time=0.05, endgame='10', manage=True, clock_moves='database')"
    record = play(spec, "greedy", seed=1, clock="5+0.05", max_plies=30)
    assert record.plies == len(record.moves) > 10 and record.south == f"clocked(agent=\"{spec}\", tc='5+0.05')"


def test_a_clocked_managed_champion_plays():
    record = play("champion(time=0.05, manage=True)", "greedy", seed=1, clock="5+0.05", max_plies=30)
    assert record.plies == len(record.moves) > 10 and isinstance(parse(record.south), ClockedAgent)
    assert record.south == "clocked(agent='champion(time=0.05, manage=True)', tc='5+0.05')"
