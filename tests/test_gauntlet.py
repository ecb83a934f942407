"""The gauntlet: its players are the ledger's kept champions, and scores and changes come pair by pair from the
store."""

import dataclasses
import math
import pathlib

import pytest

from awale.agents import parse
from awale.agents.opening import split_opening
from awale.cli.sprt import _gauntlet_table
from awale.experiments import CATALOG, Store, ledger, run
from awale.experiments.gauntlet import (GAUNTLET, GAUNTLET_CLOCKED, Change, Gauntlet, clustered_mean, gauntlet_player,
                                        ledger_rows)

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_players_are_the_first_champion_and_each_champion_a_kept_idea_made():
    entries = ledger.read(ROOT / "data" / "strength" / "ledger.csv")
    # Kept at a time a move, each played at 100 ms; an idea kept under a clock (row 18) changes nothing there.
    kept = [e for e in entries if e.verdict == "H1" and parse(e.a).clock is None]
    assert any("time=1.0," in e.a for e in kept)  # row 22, kept at 1 s
    assert GAUNTLET.players[0] == entries[0].b
    assert list(GAUNTLET.players[1:]) == [gauntlet_player(e.a) for e in kept]
    for e in kept:  # each kept idea against the champion just before it in the gauntlet
        player = gauntlet_player(e.a)
        assert GAUNTLET.players[GAUNTLET.players.index(player) - 1] == gauntlet_player(e.b)
    assert all(parse(p).time == 0.1 for p in GAUNTLET.players)


def test_the_clocked_players_are_the_two_sides_of_the_idea_kept_under_a_clock():
    entries = ledger.read(ROOT / "data" / "strength" / "ledger.csv")
    clocked = [e for e in entries if e.verdict == "H1" and parse(e.a).clock is not None]
    assert [(e.b, e.a) for e in clocked] == [GAUNTLET_CLOCKED.players]
    assert parse(GAUNTLET_CLOCKED.players[0]).agent in GAUNTLET.players  # a champion of the first gauntlet
    assert GAUNTLET_CLOCKED.opponents == GAUNTLET.opponents and CATALOG["gauntlet-clock"].timed


def test_each_player_is_named_by_the_ledger_row_that_made_it():
    entries = ledger.read(ROOT / "data" / "strength" / "ledger.csv")
    rows = ledger_rows(entries)
    assert set(rows) == set(GAUNTLET.players[1:] + GAUNTLET_CLOCKED.players)
    for player in GAUNTLET.players[1:]:
        assert gauntlet_player(entries[rows[player] - 1].a) == player
    before, after = GAUNTLET_CLOCKED.players
    assert entries[rows[after] - 1].a == after
    assert gauntlet_player(entries[rows[before] - 1].a) == parse(before).agent
    assert entries[rows[after] - 1].b == before  # row 18 was tested against that champion, under the clock


def test_a_player_no_kept_idea_made_is_a_clear_error():
    entries = ledger.read(ROOT / "data" / "strength" / "ledger.csv")
    last_kept = max(n for n, e in enumerate(entries) if e.verdict == "H1" and parse(e.a).clock is None)
    entries[last_kept] = dataclasses.replace(entries[last_kept], verdict="inconclusive")
    with pytest.raises(ValueError, match="no kept idea of the ledger made the gauntlet's player champion"):
        ledger_rows(entries)


def test_every_player_meets_every_opponent_but_itself_from_openings():
    experiment = CATALOG["gauntlet"]
    assert experiment.openings and experiment.timed and experiment.games % 2 == 0
    pairings = experiment.pairings()
    opponents = [spec for _, spec in GAUNTLET.opponents]
    assert len(pairings) == len(GAUNTLET.players) * len(opponents) - 1  # the first champion does not meet itself
    assert all(player != opponent for player, opponent in pairings)
    # The same openings for every player against each opponent: pair i of two players starts from one opening.
    opponent = GAUNTLET.opponents[0][1]
    first, second = (experiment.pair_keys(player, opponent) for player in GAUNTLET.players[:2])
    assert [split_opening(k.south)[1] for k in first] == [split_opening(k.south)[1] for k in second]
    assert [key.seed for key in first] == [key.seed for key in second]
    assert len({split_opening(k.south)[1] for k in first}) == experiment.games // 2  # 25 openings, each twice


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A gauntlet of cheap agents, played: greedy, then greedy with noise, against random and a short UCT."""
    gauntlet = Gauntlet("tiny-gauntlet", ("greedy", "greedy(eps=0.5)"),
                        (("random", "random"), ("uct", "uct(iterations=30)"), ("greedy", "greedy")), 8, seed=5,
                        timed=False)
    path = tmp_path_factory.mktemp("gauntlet") / "g.sqlite"
    run(gauntlet.experiment.keys(), path, gauntlet.name, workers=0, progress=False)
    return gauntlet, path


def test_scores_count_each_complete_pair_against_each_opponent(small):
    gauntlet, path = small
    with Store(path) as store:
        table = gauntlet.scores(store)
        pairs = {player: gauntlet.pairs(store, player) for player in gauntlet.players}
    assert list(table["player"]) == list(gauntlet.players)
    assert list(table["games"]) == [16, 24]  # greedy does not meet itself
    assert math.isnan(table.loc[0, "greedy"]) and not math.isnan(table.loc[1, "greedy"])
    for row, player in zip(table.itertuples(), gauntlet.players):
        points = [sum(pair) for pair in pairs[player].values()]
        assert row.score == pytest.approx(sum(points) / (2 * len(points)))
        assert row.low <= row.score <= row.high
    # Against random, greedy wins a pair's both games more often than not.
    assert table.loc[0, "random"] > 0.5


def test_a_change_compares_the_pairs_both_players_completed(small):
    gauntlet, path = small
    with Store(path) as store:
        change = gauntlet.change(store, "greedy(eps=0.5)", "greedy")
        mine = gauntlet.pairs(store, "greedy(eps=0.5)")
        theirs = gauntlet.pairs(store, "greedy")
        assert gauntlet.changes(store) == [change]
    common = set(mine) & set(theirs)
    assert change.pairs == len(common) == 8  # four pairs against random and against uct, none against greedy
    assert change.opponents == ("random", "uct")
    assert change.difference == pytest.approx(change.score - change.before_score)
    assert change.low <= change.difference <= change.high
    assert change.score == pytest.approx(sum(sum(mine[k]) for k in common) / (2 * len(common)))


def test_times_per_move_count_each_sides_moves_after_the_openings(small, tmp_path):
    gauntlet, path = small
    with Store(path) as store:
        times = gauntlet.ms_per_move(store)
        frame = store.load(gauntlet.name)
    assert list(times) == ["greedy", "greedy(eps=0.5)", "random", "uct(iterations=30)"]
    for spec in ("random", "greedy"):  # an opponent only, and a player that is also an opponent
        seconds = moves = 0
        for row in frame.itertuples():
            for side, first in (("south", 0), ("north", 1)):
                agent, opening = split_opening(getattr(row, side))
                if agent == spec:
                    seconds += getattr(row, f"{side}_seconds")
                    moves += sum(1 for ply in range(len(opening), row.plies) if ply % 2 == first)
        assert times[spec] == pytest.approx(1000 * seconds / moves)
    with Store(tmp_path / "none.sqlite") as store:
        assert all(math.isnan(ms) for ms in gauntlet.ms_per_move(store).values())


def test_a_change_without_common_pairs_is_refused(small, tmp_path):
    gauntlet, _ = small
    with Store(tmp_path / "empty.sqlite") as store, pytest.raises(ValueError, match="no complete gauntlet pair"):
        gauntlet.change(store, "greedy(eps=0.5)", "greedy")


def test_a_fall_is_a_negative_change_and_a_significant_one_lies_wholly_below_zero():
    fell = Change("a", "b", 10, ("x",), 0.4, 0.5, -0.1, -0.2, -0.01)
    assert fell.falls and fell.falls_significantly and fell.text().endswith("falls significantly")
    unsure = Change("a", "b", 10, ("x",), 0.45, 0.5, -0.05, -0.2, 0.1)
    assert unsure.falls and not unsure.falls_significantly and unsure.text().endswith(", falls")
    rose = Change("a", "b", 10, ("x",), 0.6, 0.5, 0.1, 0.0, 0.2)
    assert not rose.falls and rose.text() == "+0.100 [+0.000, +0.200], 10 pairs"


def test_the_interval_is_clustered_by_opening():
    # Two openings, each won against both opponents or lost against both: the pairs of an opening move together.
    mean, low, high = clustered_mean({("a", 0): 1.0, ("b", 0): 1.0, ("a", 1): 0.0, ("b", 1): 0.0})
    half = 1.959964 * (2 / 1 * (1.0 ** 2 + 1.0 ** 2)) ** 0.5 / 4
    assert mean == 0.5 and low == pytest.approx(0.5 - half) and high == pytest.approx(0.5 + half)
    # The same values as four independent openings give a narrower interval.
    _, low4, _ = clustered_mean({("a", 0): 1.0, ("a", 1): 1.0, ("a", 2): 0.0, ("a", 3): 0.0})
    assert low4 > low
    assert clustered_mean({("a", 0): 0.5, ("b", 0): 1.0})[1:] == (-math.inf, math.inf)  # one opening
    with pytest.raises(ValueError, match="at least one value"):
        clustered_mean({})


def test_the_ledgers_table_shows_scores_and_changes_with_falls(small):
    gauntlet, path = small
    with Store(path) as store:
        table = _gauntlet_table(gauntlet, {"greedy": "plain greedy"}, store).splitlines()
        change = gauntlet.change(store, "greedy(eps=0.5)", "greedy")
    assert table[0].split()[:3] == ["games", "score", "[95"]
    assert table[1].rstrip().endswith("plain greedy") and table[2].rstrip().endswith("greedy(eps=0.5)")
    assert change.text() in table[2] and ("falls" in table[2]) == change.falls


def test_the_ledger_command_shows_the_gauntlet_of_the_thesiss_store(capsys):
    from awale.cli import main

    store = ROOT / "data" / "experiments.sqlite"
    assert main(["ledger", "--gauntlet", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    first = out.index("gauntlet at a time a move (gauntlet):")
    second = out.index("gauntlet under a clock of 3+0.03 (gauntlet-clock):")
    for gauntlet, text in ((GAUNTLET, out[first:second]), (GAUNTLET_CLOCKED, out[second:])):
        table = text[text.index("games  score [95 %]"):].strip().splitlines()
        assert len(table) == 2 + len(gauntlet.players)
        assert table[-1].startswith("ms a move of the opponents: OpenSpiel αβ")
        for line, player in zip(table[1:-1], gauntlet.players):  # every game played
            assert line.split()[0] == str(gauntlet.games * sum(spec != player for _, spec in gauntlet.opponents))
        assert table[1].rstrip().endswith("the first champion" if gauntlet is GAUNTLET else "under 3+0.03")
    assert all(name in out for name, _ in GAUNTLET.opponents)
