"""The experiment store: schema, WAL, idempotent all-or-nothing writes, load() types, bad paths."""

import dataclasses
import sqlite3
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

from awale import Rules
from awale.experiments import store as st
from awale.experiments.store import Store, StoreError, count, experiments, load
from awale.play.match import play
from conftest import TIMING



@pytest.fixture(scope="module")
def records():
    """A few short games: decided ones and a draw (capped at 10 plies), under two rule sets."""
    games = [play("random", "greedy", seed=s) for s in range(3)]
    games.append(play("random", "random", seed=1, max_plies=10))
    games.append(play("greedy(eps=0.5)", "random", rules=Rules(pits_per_side=4, seeds_per_pit=3), seed=2))
    assert games[3].winner is None
    return games


def test_a_new_store_is_in_wal_mode_with_the_games_table(tmp_path):
    path = tmp_path / "new" / "games.sqlite"  # the directory is created
    with Store(path) as store:
        assert store.count() == 0
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA application_id").fetchone()[0] == st.APPLICATION_ID
    columns = [row[1] for row in db.execute("PRAGMA table_info(games)")]
    assert columns == ["id", *st.COLUMNS]
    db.close()


def test_writing_the_same_games_again_changes_nothing(tmp_path, records):
    with Store(tmp_path / "s.sqlite") as store:
        assert store.add("e", records) == len(records)
        before = store.load()
        assert store.add("e", records) == 0
        assert store.add("e", records[:2]) == 0
        assert store.count("e") == len(records)
        pd.testing.assert_frame_equal(store.load(), before)  # created_at included: the rows were not rewritten
        assert store.add("other", records[:1]) == 1  # the same game in another experiment is another row
        assert store.experiments() == {"e": len(records), "other": 1}


def test_the_key_is_unique_and_the_first_result_stays(tmp_path, records):
    first = records[0]
    changed = dataclasses.replace(first, moves=first.moves[:-1], plies=first.plies - 1, winner=None)
    with Store(tmp_path / "s.sqlite") as store:
        store.add("e", [first])
        assert store.add("e", [changed]) == 0
        assert st.decode_moves(store.load()["moves"][0]) == first.moves
        row = store.connection.execute(f"SELECT {', '.join(st.COLUMNS)} FROM games").fetchone()
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            store.connection.execute(f"INSERT INTO games ({', '.join(st.COLUMNS)}) VALUES ({', '.join('?' * 13)})", row)
        other_rules = dataclasses.replace(first, rules=Rules(max_plies=500))
        assert store.add("e", [other_rules]) == 1  # the rules are part of the key


def test_load_round_trip_and_types(tmp_path, records):
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        store.add("e", records)
    frame = load(path)
    assert list(frame.columns) == [
        "experiment", "south", "north", "seed", "rules", "winner", "result", "south_score", "north_score",
        "plies", "moves", "south_seconds", "north_seconds", "created_at",
    ]
    assert frame["winner"].dtype == "Int64"
    for column in ("seed", "south_score", "north_score", "plies"):
        assert frame[column].dtype == "int64"
    for column in ("result", "south_seconds", "north_seconds"):
        assert frame[column].dtype == "float64"
    assert pd.api.types.is_string_dtype(frame["moves"]) and pd.api.types.is_string_dtype(frame["south"])
    assert isinstance(frame["created_at"].dtype, pd.DatetimeTZDtype) and str(frame["created_at"].dt.tz) == "UTC"
    assert list(frame.index) == list(range(len(records)))

    by_key = {(r.south, r.north, r.seed, st.rules_to_text(r.rules)): r for r in records}
    assert len(by_key) == len(frame)
    for row in frame.itertuples():
        record = by_key[(row.south, row.north, row.seed, row.rules)]
        assert st.rules_from_text(row.rules) == record.rules
        assert st.decode_moves(row.moves) == record.moves and row.plies == len(record.moves)
        assert (row.south_score, row.north_score) == record.score
        if record.winner is None:
            assert pd.isna(row.winner) and row.result == 0.5
        else:
            assert row.winner == record.winner and row.result == record.result
        assert (row.south_seconds, row.north_seconds) == (record.south_seconds, record.north_seconds)
    # Sorted by key, so the order of writing does not matter.
    other = tmp_path / "t.sqlite"
    with Store(other) as store:
        store.add("e", reversed(records))
    pd.testing.assert_frame_equal(load(other).drop(columns=TIMING), frame.drop(columns=TIMING))


def test_load_of_an_empty_store_and_one_experiment(tmp_path, records):
    path = tmp_path / "s.sqlite"
    with Store(path):
        pass
    empty = load(path)
    assert empty.empty and empty["winner"].dtype == "Int64" and empty["seed"].dtype == "int64"
    with Store(path) as store:
        store.add("a", records[:2])
        store.add("b", records[2:])
    assert len(load(path, "a")) == 2 and set(load(path, "b")["experiment"]) == {"b"}
    assert load(path, "nothing").empty
    assert experiments(path) == {"a": 2, "b": len(records) - 2}
    assert (count(path), count(path, "a"), count(path, "nothing")) == (len(records), 2, 0)


@pytest.mark.parametrize("position", [0, 2, 4])
def test_a_failing_insert_mid_batch_leaves_no_row(tmp_path, records, position):
    bad = dataclasses.replace(records[0], seed=10**6, score=(-1, 30))  # violates a CHECK constraint in SQLite
    batch = list(records)
    batch.insert(position, bad)
    with Store(tmp_path / "s.sqlite") as store:
        store.add("e", records[:1])
        with pytest.raises(StoreError, match="CHECK"):
            store.add("e", batch)
        assert store.count() == 1
        with pytest.raises(StoreError, match="MatchRecord"):
            store.add("e", [records[1], "not a game", records[2]])
        assert store.count() == 1
        assert store.add("e", records) == len(records) - 1  # the store is still usable


def test_an_interruption_mid_batch_leaves_no_row_and_no_open_transaction(tmp_path, records):
    def interrupted():
        yield records[0]
        yield records[1]
        raise KeyboardInterrupt

    with Store(tmp_path / "s.sqlite") as store:
        with pytest.raises(KeyboardInterrupt):
            store.add("e", interrupted())
        assert store.count() == 0 and not store.connection.in_transaction
        assert store.add("e", records) == len(records)


def test_a_crash_in_the_middle_of_a_write_leaves_no_partial_batch(tmp_path, records):
    """A process killed (os._exit) while its transaction has rows in it: nothing of the batch remains."""
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        store.add("e", records[:1])
    code = textwrap.dedent(
        f"""
        import os
        from awale.experiments.store import Store
        from awale.play.match import play

        def games():
            yield play("random", "random", seed=100)
            yield play("random", "random", seed=101)
            os._exit(3)  # dies inside executemany, two rows into the transaction

        Store({str(path)!r}).add("e", games())
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert result.returncode == 3, result.stderr.decode()
    assert count(path) == 1 and set(load(path)["seed"]) == {records[0].seed}
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_rules_text_is_canonical_and_reads_back():
    for rules in (Rules(), Rules.simplified(), Rules(pits_per_side=3, seeds_per_pit=2, grand_slam="forbidden")):
        text = st.rules_to_text(rules)
        assert st.rules_from_text(text) == rules
        assert text == st.rules_to_text(dataclasses.replace(rules))
        assert list(__import__("json").loads(text)) == sorted(__import__("json").loads(text))
    with pytest.raises(ValueError, match="unknown field"):
        st.rules_from_text('{"pits": 6}')
    with pytest.raises(ValueError, match="not JSON"):
        st.rules_from_text('{"pits_per_side": 6')
    with pytest.raises(ValueError, match="expected abapa, simplified, a JSON object or key=value pairs"):
        st.rules_from_text("Rules()")
    with pytest.raises(ValueError, match="pits_per_side"):
        st.rules_from_text('{"pits_per_side": 9}')


def test_moves_encoding():
    assert st.encode_moves((0, 5, 3)) == "053" and st.decode_moves("053") == (0, 5, 3)
    assert st.decode_moves("") == ()
    with pytest.raises(ValueError):
        st.encode_moves([10])
    with pytest.raises(ValueError):
        st.decode_moves("0a")


def test_paths_that_are_not_stores_give_clear_errors(tmp_path):
    with pytest.raises(StoreError, match="no store at"):
        load(tmp_path / "missing.sqlite")
    assert not (tmp_path / "missing.sqlite").exists()  # reading never creates a file
    with pytest.raises(StoreError, match="is a directory"):
        Store(tmp_path)
    text = tmp_path / "notes.txt"
    text.write_text("hello, this is not a database at all; " * 40)
    with pytest.raises(StoreError, match="not an SQLite database"):
        load(text)
    with pytest.raises(StoreError, match="not an SQLite database"):
        Store(text)
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE games (x)")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="not an awale store"):
        Store(other)
    newer = tmp_path / "newer.sqlite"
    with Store(newer):
        pass
    db = sqlite3.connect(newer)
    db.execute(f"PRAGMA user_version = {st.SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer version"):
        load(newer)
    with pytest.raises(StoreError, match="experiment name"):
        Store(tmp_path / "s.sqlite").add("", [])
