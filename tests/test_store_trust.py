"""The store trusts nothing it did not write: exact schema, damaged files, read-only places, devices, claims.

``data/store-v1.sqlite`` was written by the code before the table of claims
existed (``run(round_robin_keys(["random", "greedy", "uct(iterations=50)"],
2, seed=3), path, "tournament", workers=0)``): such stores must keep working.
"""

import os
import pathlib
import shutil
import sqlite3
import subprocess
import sys

import pytest

from awale.experiments import store as st
from awale.experiments.store import Store, StoreError, claimant, load
from awale.play.match import play

V1 = pathlib.Path(__file__).parent / "data" / "store-v1.sqlite"
PYTHON = sys.executable


@pytest.fixture
def v1(tmp_path):
    path = tmp_path / "v1.sqlite"
    shutil.copy(V1, path)
    return path


def _objects(path):
    db = sqlite3.connect(path)
    try:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    finally:
        db.close()


def test_a_store_written_before_claims_reads_and_migrates_in_place(v1):
    assert "claims" not in _objects(v1)
    before = load(v1)  # read-only: nothing changes
    assert len(before) == 6 and "claims" not in _objects(v1)
    with Store(v1) as store:  # opened for writing: the table is added, the games kept
        assert store.count() == 6
        store.add("more", [play("random", "random", seed=1)])
    assert "claims" in _objects(v1)
    after = load(v1)
    assert after[after["experiment"] == "tournament"].drop(columns="created_at").reset_index(drop=True).equals(
        before.drop(columns="created_at")
    )
    db = sqlite3.connect(v1)  # what older versions check: still their application id and schema version
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    assert db.execute("PRAGMA application_id").fetchone()[0] == st.APPLICATION_ID
    db.close()


@pytest.mark.parametrize(
    "sql, what",
    [
        ("CREATE TRIGGER rewrite AFTER INSERT ON games BEGIN UPDATE games SET winner = 1; END", "trigger 'rewrite'"),
        ("CREATE VIEW everything AS SELECT * FROM games", "view 'everything'"),
        ("CREATE INDEX by_seed ON games (seed)", "index 'by_seed'"),
        ("CREATE TABLE notes (text)", "table 'notes'"),
        ("ALTER TABLE games ADD COLUMN extra TEXT", "table 'games'"),
    ],
)
def test_a_store_with_anything_foreign_is_refused_untouched(v1, sql, what):
    db = sqlite3.connect(v1)
    db.execute(sql)
    db.commit()
    db.close()
    size, content = v1.stat().st_size, v1.read_bytes()
    for create in (True, False):
        with pytest.raises(StoreError, match=f"not an awale store as awale writes it: .*{what}"):
            Store(v1, create=create)
    assert v1.read_bytes() == content and v1.stat().st_size == size


def test_the_trigger_that_rewrote_winners_never_runs(v1):
    db = sqlite3.connect(v1)
    db.execute("CREATE TRIGGER t AFTER INSERT ON games BEGIN DELETE FROM games WHERE id < new.id; END")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="trigger 't'"):
        with Store(v1) as store:
            store.add("e", [play("random", "greedy", seed=9)])
    db = sqlite3.connect(v1)
    assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 6
    db.close()


def test_a_foreign_database_is_not_adopted(tmp_path):
    path = tmp_path / "foreign.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE VIEW v AS SELECT 1")
    db.execute("PRAGMA user_version = 7")
    db.commit()
    db.close()
    content = path.read_bytes()
    with pytest.raises(StoreError, match="not an awale store"):
        Store(path)
    assert path.read_bytes() == content
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 7
    db.close()


def test_a_damaged_store_gives_a_clear_error(v1, tmp_path):
    data = bytearray(v1.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page : page + 8] = b"\xff" * 8  # the headers of pages 2 and 3: the games table and its key's index
    data[2 * page : 2 * page + 8] = b"\xff" * 8
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(bytes(data))
    with Store(damaged, create=False) as store:  # the schema is intact: the damage shows when reading
        with pytest.raises(StoreError, match="is damaged .*malformed.*; restore it from a copy"):
            store.load()
        with pytest.raises(StoreError, match="is damaged"):
            store.keys("tournament")
    header = tmp_path / "header.sqlite"
    header.write_bytes(b"garbage!" * 512)
    with pytest.raises(StoreError, match="not an SQLite database"):
        Store(header, create=False)


def test_a_device_is_not_a_store():
    for create in (True, False):
        with pytest.raises(StoreError, match="not a regular file"):
            Store("/dev/null", create=create)


def test_the_command_line_refuses_dev_null(tmp_path):
    result = subprocess.run(
        [PYTHON, "-m", "awale", "tournament", "random", "greedy", "--games", "2", "--workers", "0",
         "--store", "/dev/null"], capture_output=True, text=True, cwd=tmp_path,
    )
    assert result.returncode == 2 and result.stderr.strip().count("\n") == 0
    assert "/dev/null is not a regular file" in result.stderr


def test_claims_share_games_between_runs(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        record = play("random", "greedy", seed=1)
        keys = [st.StoredKey("random", "greedy", seed, st.rules_to_text(record.rules)) for seed in range(4)]
        store.add("e", [record])  # seed 1 is stored
        a, b = claimant(), claimant()
        assert store.claim("e", keys[:3], a) == [keys[0], keys[2]]  # seed 1 is stored already
        assert store.claim("e", keys, b) == [keys[3]]  # 0 and 2 are in progress in a
        assert store.claim("e", keys, a) == [keys[0], keys[2]]  # renews its own, not b's
        assert store.in_progress("e") == 3
        store.release(a)
        store.release(b)
        assert store.in_progress("e") == 0
        # Claims lapse: after their time, or at once when their process here is gone.
        assert store.claim("e", keys[:1], a, seconds=-1.0) == [keys[0]]
        assert store.claim("e", keys[:1], b) == [keys[0]]
        dead = subprocess.run([PYTHON, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        ghost = f"{claimant().split(':')[0]}:{dead.stdout.strip()}:00"
        store.release(b)
        assert store.claim("e", keys[:1], ghost) == [keys[0]]
        assert store.claim("e", keys[:1], a) == [keys[0]]


def test_a_read_only_store_can_be_read_but_not_claimed(v1):
    with Store(v1, create=False) as store:
        assert store.count() == 6
        with pytest.raises(StoreError, match="opened read-only"):
            store.add("e", [play("random", "greedy", seed=9)])
        with pytest.raises(StoreError, match="opened read-only"):
            store.claim("e", [], claimant())


# --------------------------------------------------------------------------- read-only places


def _read_only(directory, *command):
    """Run ``command`` with ``directory`` mounted read-only (a private mount namespace), or skip."""
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("needs unshare -m (root) to make a read-only mount")
    script = 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" "$0" && exec "$@"'
    return subprocess.run(["unshare", "-m", "sh", "-c", script, str(directory), *command],
                          capture_output=True, text=True, cwd=directory.parent)


@pytest.fixture
def read_only_dir(tmp_path, v1):
    directory = tmp_path / "ro"
    directory.mkdir()
    shutil.move(v1, directory / "s.sqlite")
    for suffix in ("-wal", "-shm"):
        assert not (directory / f"s.sqlite{suffix}").exists()
    return directory


def test_experiment_list_and_load_work_in_a_read_only_directory(read_only_dir):
    store = read_only_dir / "s.sqlite"
    result = _read_only(read_only_dir, PYTHON, "-m", "awale", "experiment", "list", "--store", str(store))
    assert result.returncode == 0, result.stderr
    assert f"store: {store}" in result.stdout
    result = _read_only(read_only_dir, PYTHON, "-c", f"from awale.experiments import load; print(len(load({str(store)!r})))")
    assert result.returncode == 0 and result.stdout.strip() == "6", result.stderr


def test_a_read_only_store_fails_before_any_game(read_only_dir):
    store = read_only_dir / "s.sqlite"
    result = _read_only(
        read_only_dir, PYTHON, "-m", "awale", "tournament", "uct(iterations=50)", "greedy", "--games", "4",
        "--workers", "0", "--store", str(store),
    )
    assert result.returncode == 2 and result.stdout == "", (result.stdout, result.stderr)
    assert result.stderr.strip().count("\n") == 0 and "read-only" in result.stderr, result.stderr
    assert len(load(store)) == 6


@pytest.mark.parametrize(
    "text, message",
    [
        ("[" * 100_000 + "]" * 100_000, "longer than 1000"),
        ('{"pits_per_side": ' + "[" * 400 + "6" + "]" * 400 + "}", "not JSON|must be an integer"),
        ("[" * 499 + "]" * 499, "not JSON|must be a JSON object"),
        ('{"seeds_per_pit": 1' + "0" * 300 + "}", "at most 32,767 seeds"),
        ('{"max_plies": 1' + "0" * 400 + "}", "at most 2\\*\\*62"),
    ],
)
def test_a_stored_rules_field_is_read_with_care(text, message):
    """Deep nesting and huge numbers in a rules field are ValueErrors, not RecursionError or OverflowError."""
    with pytest.raises(ValueError, match=message):
        st.rules_from_text(text)
