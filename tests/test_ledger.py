"""The ledger of ideas: time per move from stored games, rows written by ``sprt --ledger`` and recomputed from
the store, and a tampered row caught."""

import csv
import dataclasses
import math
import pathlib

import pandas as pd
import pytest

from awale.agents import parse
from awale.agents.clocked import split_clock
from awale.cli import main
from awale.experiments import ledger, sprt
from awale.experiments.sprt import SPRT
from awale.experiments.stats import ms_per_move


def test_time_per_move_counts_each_sides_moves_and_leaves_out_the_opening():
    games = pd.DataFrame({
        "south": ["a", "b"], "north": ["b", "a"], "plies": [9, 10],
        "south_seconds": [1.0, 3.0], "north_seconds": [2.0, 4.0],
    })
    # a: South in a game of 9 plies (5 moves, 1 s), North in one of 10 (5 moves, 4 s).
    assert ms_per_move(games, "a") == pytest.approx(1000 * 5 / 10)
    # b: North of 9 plies (4 moves, 2 s), South of 10 (5 moves, 3 s).
    assert ms_per_move(games, "b") == pytest.approx(1000 * 5 / 9)
    # Four opening plies are two moves of each side in each game.
    assert ms_per_move(games, "a", 4) == pytest.approx(1000 * 5 / 6)
    assert ms_per_move(games, "b", 4) == pytest.approx(1000 * 5 / 5)
    assert math.isnan(ms_per_move(games, "c"))
    with pytest.raises(ValueError, match="opening_plies"):
        ms_per_move(games, "a", -1)


@pytest.fixture(scope="module")
def decided(tmp_path_factory):
    """A short test that decides (greedy against random), written into a fresh ledger by the command."""
    where = tmp_path_factory.mktemp("ledger")
    store, book = where / "s.sqlite", where / "ledger.csv"
    args = ["sprt", "greedy", "random", "--elo0", "0", "--elo1", "100", "--store", str(store),
            "--workers", "0", "--ledger", "capture  the most", "--ledger-file", str(book)]
    assert main(args) == 0
    return store, book, args


def test_the_command_writes_the_tests_row(decided):
    store, book, _ = decided
    (row,) = ledger.read(book)
    verdict = sprt.stored_verdict(sprt.TestPlan(row.a, row.b, SPRT(0, 100), sprt.standard_openings()), store)
    assert row.idea == "capture the most" and row.verdict == "H1" == verdict.hypothesis
    assert (row.pairs, row.games) == (verdict.pairs, 2 * verdict.pairs)
    assert (row.wins, row.draws, row.losses) == verdict.games and row.wins + row.draws + row.losses == row.games
    assert row.score == pytest.approx(verdict.estimate.score, abs=1e-4)
    assert row.llr == pytest.approx(verdict.llr, abs=1e-3) and row.elo_low < row.elo < row.elo_high
    # The random agent draws a move; greedy tries them all (both may round to 0.0 ms on a fast machine).
    assert row.a_ms >= row.b_ms >= 0
    assert ledger.check(book, store) == []


def test_the_times_are_those_of_the_pairs_the_verdict_counts(decided, tmp_path):
    """Games stored past the pairs a row counts (played past the decision, or past a smaller cap) are left out of
    its times: the row is the same on a store that holds only the counted pairs."""
    import shutil
    import sqlite3

    store, book, _ = decided
    (row,) = ledger.read(book)
    test, openings = SPRT(0, 100), sprt.standard_openings()
    capped = ledger.entry("cap", row.a, row.b, test, store, check_every=2, max_pairs=2)
    assert capped.pairs == 2 < row.pairs
    order = sprt.shuffled(openings, 0)
    kept = [dataclasses.astuple(key.stored) for index in range(2) for key in sprt.pair_keys(row.a, row.b, order, index)]
    trimmed = tmp_path / "trimmed.sqlite"
    shutil.copy(store, trimmed)
    with sqlite3.connect(trimmed) as db:
        db.execute("CREATE TEMP TABLE kept (south, north, seed, rules)")
        db.executemany("INSERT INTO kept VALUES (?, ?, ?, ?)", kept)
        db.execute("DELETE FROM games WHERE (south, north, seed, rules) NOT IN (SELECT * FROM kept)")
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 4
    alone = ledger.entry("cap", row.a, row.b, test, trimmed, check_every=2, max_pairs=2)
    assert (capped.a_ms, capped.b_ms) == (alone.a_ms, alone.b_ms)


def test_the_counted_games_are_the_rows_pairs_with_their_sides_named(decided):
    store, book, _ = decided
    (row,) = ledger.read(book)
    games, opening_plies = ledger.counted_games(row, store)
    assert len(games) == row.games and opening_plies == 4
    assert set(games["south"]) == set(games["north"]) == {"A", "B"}
    assert (games["south"] != games["north"]).all()
    assert round(ms_per_move(games, "A", opening_plies), 1) == row.a_ms
    assert round(ms_per_move(games, "B", opening_plies), 1) == row.b_ms


def test_the_counted_moves_are_every_move_after_the_openings_each_sides_kind_from_its_spec(decided):
    store, book, _ = decided
    (row,) = ledger.read(book)
    games, opening_plies = ledger.counted_games(row, store)
    named = {row.a: "the first", row.b: "the second"}
    moves = list(ledger.counted_moves(row, games, opening_plies, classifier=lambda spec: lambda game: named[spec]))
    assert len(moves) == (games["plies"] - opening_plies).sum()
    for number, game_row in enumerate(games.itertuples()):
        mine = [move for move in moves if move.game == number]
        assert [move.ply for move in mine] == list(range(opening_plies, game_row.plies))
        for move in mine:
            assert move.side == (game_row.south, game_row.north)[move.position.current_player]
            assert move.kind == ("the first" if move.side == "A" else "the second")
    # by default the kinds are a champion's: greedy and random have none
    with pytest.raises(ValueError, match="not of greedy"):
        next(ledger.counted_moves(row, games, opening_plies))


def test_a_test_resumed_with_a_larger_cap_keeps_one_row(decided, tmp_path):
    store, book, _ = decided
    (row,) = ledger.read(book)
    test, path = SPRT(0, 100), tmp_path / "ledger.csv"
    capped = ledger.entry("cap", row.a, row.b, test, store, check_every=2, max_pairs=2)
    assert capped.verdict == "inconclusive"
    ledger.record(path, capped)
    ledger.record(path, ledger.entry("cap", row.a, row.b, test, store, check_every=2, max_pairs=50))
    (kept,) = ledger.read(path)
    assert kept.max_pairs == 50 and kept.pairs > 2
    other_looks = ledger.entry("cap", row.a, row.b, test, store, check_every=4, max_pairs=50)
    assert len(ledger.record(path, other_looks)) == 2  # other looks: another sequential test


@pytest.mark.parametrize("verdict, a_ms, b_ms, equal, fair", [
    ("H1", 41.0, 40.0, True, True),
    ("H0", 37.0, 40.0, True, True),  # within 10 %: equal time, whatever the verdict
    ("H1", 26.0, 40.9, False, True),  # kept although A thought less
    ("H0", 26.0, 40.9, False, False),  # rejected while A thought less: the time may have decided it
    ("H1", 50.0, 40.0, False, False),  # kept while A thought more
    ("H0", 50.0, 40.0, False, True),
    ("inconclusive", 29.1, 26.2, False, True),  # not kept although A thought more
    ("inconclusive", 26.2, 29.1, False, False),  # undecided while A thought less: more time might have decided it
])
def test_a_time_difference_is_fair_only_against_the_verdict(decided, verdict, a_ms, b_ms, equal, fair):
    _, book, _ = decided
    (row,) = ledger.read(book)
    changed = dataclasses.replace(row, verdict=verdict, a_ms=a_ms, b_ms=b_ms)
    assert (changed.equal_time, changed.fair_time) == (equal, fair)


def test_a_resumed_test_replaces_its_row_and_another_test_is_added(decided, tmp_path):
    store, book, args = decided
    copy = tmp_path / "ledger.csv"
    copy.write_text(book.read_text())
    again = [a if a != str(book) else str(copy) for a in args]
    assert main(again) == 0
    assert len(ledger.read(copy)) == 1
    other = ledger.entry("another bound", "greedy", "random", SPRT(0, 50), store)
    entries = ledger.record(copy, other)
    assert [e.idea for e in entries] == ["capture the most", "another bound"] == [e.idea for e in ledger.read(copy)]
    assert entries[1].games == 0 and entries[1].verdict == "running" and math.isnan(entries[1].a_ms)


def test_a_row_that_says_more_than_its_games_is_caught(decided, tmp_path):
    store, book, _ = decided
    rows = list(csv.DictReader(book.open()))
    rows[0]["wins"] = str(int(rows[0]["wins"]) + 1)
    tampered = tmp_path / "ledger.csv"
    with tampered.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=ledger.COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    (problem,) = ledger.check(tampered, store)
    assert "line 2" in problem and "wins" in problem
    assert main(["ledger", "--file", str(tampered), "--check", "--store", str(store)]) == 1


@pytest.mark.parametrize("text, message", [
    ("idea,commit\nx,y\n", "the header must be"),
    (",".join(ledger.COLUMNS) + "\n" + ",".join(["x"] * len(ledger.COLUMNS)) + "\n", "line 2"),
])
def test_a_malformed_ledger_is_refused_with_its_line(tmp_path, text, message):
    path = tmp_path / "ledger.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        ledger.read(path)


def test_the_ledger_needs_the_librarys_openings_and_an_idea(tmp_path, capsys):
    args = ["sprt", "random", "random", "--elo0", "0", "--elo1", "10", "--store", str(tmp_path / "s.sqlite"),
            "--openings", str(sprt.OPENINGS_FILE), "--ledger", "nothing"]
    assert main(args) == 2
    assert "leave out --openings" in capsys.readouterr().err
    with pytest.raises(ValueError, match="a few words"):
        ledger.entry("  ", "random", "random", SPRT(0, 10), tmp_path / "t.sqlite")



MANAGED = "champion(time=0.1, manage=True)"


@pytest.mark.parametrize("a, b, same", [
    (f'clocked(agent="{MANAGED}", tc="3+0.03")', f'clocked(agent="{MANAGED}", tc="3+0.03")', True),
    (f'clocked(agent="{MANAGED[:-1]}, clock_moves=\'database\')", tc="3+0.03")',
     f'clocked(agent="{MANAGED}", tc="3+0.03")', True),  # how each spends the same clock is the idea
    (f'clocked(agent="{MANAGED}", tc="3+0.03")', f'clocked(agent="{MANAGED}", tc="6+0.03")', False),
    (f'clocked(agent="{MANAGED}", tc="3+0.03")', MANAGED, False),  # one side without a clock
    (MANAGED, MANAGED, False),
    # under the same clock, unmanaged agents search their own time a move, which the clock does not equalise
    ('clocked(agent="champion(time=0.3)", tc="60+1")', 'clocked(agent="champion(time=0.1)", tc="60+1")', False),
])
def test_the_same_clock_is_equal_time_only_for_agents_it_sizes(decided, a, b, same):
    _, book, _ = decided
    (row,) = ledger.read(book)
    changed = dataclasses.replace(row, a=a, b=b, verdict="H1", a_ms=45.0, b_ms=30.0)
    assert changed.same_clock == same
    assert changed.fair_time == same  # kept while A thought 1.5 times as long: fair only under the same clock


ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_committed_ledger_is_what_its_stored_games_say():
    """Every row of data/strength/ledger.csv recomputed from the thesis's store, each test decided at equal time
    or under the same clock (or with the time difference against its verdict), or left undecided at the cap of
    pairs it was given, and each against the champion of its day at the test's time a move or clock: the first
    row's B, or the A of the last row kept (H1) at the first row's time, which every budget then takes; an idea
    kept at another time (the 28-seed database at 1 s) is the champion of the tests at that time only."""
    path, store = ROOT / "data" / "strength" / "ledger.csv", ROOT / "data" / "experiments.sqlite"
    entries = ledger.read(path)
    assert entries, f"{path} holds no test"
    assert ledger.check(path, store) == []
    champion, base_time = entries[0].b, parse(entries[0].b).time
    kept_at = {}  # a time a move -> the champion kept at that time only
    for e in entries:
        decided = e.verdict in ("H0", "H1")
        assert decided or (e.verdict == "inconclusive" and e.pairs == e.max_pairs), f"{e.idea}: {e.verdict}"
        assert e.fair_time, f"{e.idea}: {e.a_ms} against {e.b_ms} ms a move"
        b, clock = split_clock(e.b)
        day = parse(kept_at.get(b.time, champion)).replace(time=b.time)  # at the test's budget: 100 ms, or 1 s
        if clock is None:  # clock_moves acts only under a clock: without one, the champion with or without it
            day, b = day.replace(clock_moves="seeds"), b.replace(clock_moves="seeds")
        assert b.spec == day.spec, f"{e.idea} was tested against {e.b}, not the champion of its day, {day.spec}"
        assert parse(e.a).clock == clock, f"{e.idea}: the two sides under different clocks"
        if e.verdict == "H1" and b.time == base_time:
            champion, kept_at = split_clock(e.a)[0].spec, {}
        elif e.verdict == "H1":
            kept_at[b.time] = split_clock(e.a)[0].spec


def test_the_committed_regression_tests_are_what_their_stored_games_say():
    """Every row of data/strength/regressions.csv (a change that should cost no strength, the new code against the
    old as two engines) recomputed from the store, a non-regression test at equal time: H1 is "no loss"."""
    path, store = ROOT / "data" / "strength" / "regressions.csv", ROOT / "data" / "experiments.sqlite"
    entries = ledger.read(path)
    assert entries, f"{path} holds no test"
    assert ledger.check(path, store) == []
    for e in entries:
        assert (e.test.elo0, e.test.elo1) == (-10, 0), f"{e.idea}: not a non-regression test"
        assert e.verdict == "H1" or e.pairs == e.max_pairs, f"{e.idea}: {e.verdict}"
        assert e.equal_time, f"{e.idea}: {e.a_ms} against {e.b_ms} ms a move"


def test_the_ledger_keeps_its_mode_and_refuses_a_missing_folder(decided, tmp_path):
    import os
    import stat

    _, book, _ = decided
    (row,) = ledger.read(book)
    path = tmp_path / "ledger.csv"
    path.write_bytes(book.read_bytes() if hasattr(book, "read_bytes") else open(book, "rb").read())
    os.chmod(path, 0o644)
    ledger.record(path, row)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ledger.record(tmp_path / "missing" / "ledger.csv", row)
    assert not (tmp_path / "missing").exists()
