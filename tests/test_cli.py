"""The command line: help, one-line errors, match, tournaments and experiments, and killing a run."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pandas as pd
import psutil
import pytest

from awale.cli import main
from awale.experiments import count, load, round_robin_keys, run
from conftest import awale, stored_games

# --------------------------------------------------------------------------- help and errors


@pytest.mark.parametrize(
    "command",
    [[], ["tournament"], ["experiment"], ["experiment", "list"], ["experiment", "run"], ["experiment", "status"], ["match"]],
)
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as info:
        main([*command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m awale") and "--help" in out


def test_help_as_a_program(tmp_path):
    result = awale("tournament", "--help", cwd=tmp_path)
    assert result.returncode == 0 and "--games N" in result.stdout and "--scheduler ADDR" in result.stdout


BAD = [
    (["tournament", "random", "nobody", "--games", "2", "--store", "s.sqlite"], "unknown agent 'nobody'"),
    (["tournament", "random", "greedy(eps=2)", "--games", "2", "--store", "s.sqlite"], "eps must be at most 1"),
    (["tournament", "random", "greedy(", "--games", "2", "--store", "s.sqlite"], "malformed agent spec"),
    (["tournament", "random", "greedy", "--games", "0", "--store", "s.sqlite"], "--games must be at least 1"),
    (["tournament", "random", "greedy", "--games", "two", "--store", "s.sqlite"], "--games must be an integer"),
    (["tournament", "random", "greedy", "--store", "s.sqlite"], "required: --games"),
    (["tournament", "random", "--games", "2", "--store", "s.sqlite"], "at least two agents"),
    (["tournament", "greedy", "greedy(eps=0.0)", "--games", "2", "--store", "s.sqlite"], "given twice"),
    (["tournament", "random", "greedy", "--games", "2", "--store", "s.sqlite", "--workers", "-1"], "--workers must be at least 0"),
    (["tournament", "random", "greedy", "--games", "2", "--store", "s.sqlite", "--workers", "1", "--scheduler", "tcp://h:1"],
     "not allowed with"),
    (["tournament", "random", "greedy", "--games", "2", "--store", "notes.txt"], "not an awale store"),
    (["tournament", "random", "greedy", "--games", "2", "--seed", "-3", "--store", "s.sqlite"], "--seed must be at least 0"),
    (["experiment", "run", "nothing", "--store", "s.sqlite"], "unknown experiment 'nothing'"),
    (["experiment", "status", "nothing", "--store", "s.sqlite"], "unknown experiment 'nothing'"),
    (["experiment", "status", "solver", "--store", "missing.sqlite"], "no store at missing.sqlite"),
    (["experiment", "status", "solver", "--store", "notes.txt"], "not an awale store"),
    (["experiment", "list", "--store", "notes.txt"], "not an awale store"),
    (["experiment", "fly"], "invalid choice: 'fly'"),
    (["experiment", "calibrate", "--replay", "some"], "a number of games (at least 1) or 'all'"),
    (["experiment", "calibrate", "--replay", "0"], "a number of games (at least 1) or 'all'"),
    (["experiment", "calibrate", "--workers", "1"], "--workers is for --replay"),
    (["experiment", "calibrate", "--replay", "all", "--workers", "0"], "--workers must be at least 1"),
    (["experiment"], "required: ACTION"),
    (["match", "random"], "required: SPEC"),
    (["match", "random", "uct(iterations=0)"], "iterations must be at least 1"),
    (["match", "random", "greedy", "--clock", "60+"], "bad clock '60+'"),
    (["match", "random", "greedy", "--clock=-1+0"], "bad clock '-1+0'"),
    (["match", "random", "greedy", "--clock", "0+1"], "the base must be above 0"),
    (["match", "clocked(agent='random', tc='1+0')", "greedy", "--clock", "60+0.5"], "already has a clock"),
    (["tournament", "random", "greedy", "--games", "2", "--store", "s.sqlite", "--clock", "abc"], "bad clock 'abc'"),
    (["sprt", "random", "greedy", "--elo0", "0", "--elo1", "10", "--store", "s.sqlite", "--clock", "60+"],
     "bad clock '60+'"),
    (["dance"], "invalid choice: 'dance'"),
]


@pytest.mark.parametrize("args, message", BAD, ids=[" ".join(a) or "nothing" for a, _ in BAD])
def test_bad_arguments_give_one_line_and_no_traceback(args, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("these are notes, not games\n" * 50)
    try:
        status = main(args)
    except SystemExit as exit:  # argparse's errors
        status = exit.code
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err.count("\n") == 1 and message in captured.err, captured.err
    assert captured.err.startswith("python -m awale")
    assert "Traceback" not in captured.err
    assert not (tmp_path / "s.sqlite").exists()  # nothing created by a refused command


def test_bad_arguments_as_a_program(tmp_path):
    result = awale("tournament", "random", "nobody()", "--games", "2", "--store", "s.sqlite", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    result = awale("experiment", "status", "uct-c", "--store", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 2 and "is a directory" in result.stderr and "Traceback" not in result.stderr


def test_an_unreachable_scheduler_is_one_line(tmp_path):
    result = awale(
        "tournament", "random", "greedy", "--games", "2", "--store", "s.sqlite", "--scheduler", "tcp://127.0.0.1:1",
        cwd=tmp_path, timeout=120,
    )
    assert result.returncode == 2 and "cannot connect to the Dask scheduler" in result.stderr
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") <= 1


# --------------------------------------------------------------------------- match


def test_match_prints_the_result(capsys):
    assert main(["match", "random", "greedy", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "South: random\nNorth: greedy" in out and out.rstrip().endswith("plies)")
    assert "captured" not in out


def test_match_under_a_clock(capsys):
    assert main(["match", "random", "greedy", "--seed", "3", "--clock", "60+0.5"]) == 0
    out = capsys.readouterr().out
    assert "South: clocked(agent='random', tc='60+0.5')\nNorth: clocked(agent='greedy', tc='60+0.5')" in out
    assert "time used: South" in out and "of 60+0.5 each" in out


def test_match_show_prints_every_position(capsys):
    from awale.play.match import play

    record = play("random", "greedy(eps=0.5)", seed=4)
    assert main(["match", "random", "greedy(eps=0.5)", "--seed", "4", "--show"]) == 0
    out = capsys.readouterr().out
    assert out.count("South  captured") == record.plies + 1 and out.count("North  captured") == record.plies + 1
    assert f"ply {record.plies}: " in out
    south, north = record.score
    winner = {None: "a draw:", 0: "South wins by", 1: "North wins by"}[record.winner]
    sides = f"South {south}, North {north}" if record.winner != 1 else f"North {north}, South {south}"
    assert winner in out and out.rstrip().endswith(f"{sides} ({record.plies} plies)")


# --------------------------------------------------------------------------- tournaments and experiments


def test_a_tournament_under_a_clock_names_the_clock(tmp_path, capsys):
    store = tmp_path / "t.sqlite"
    args = ["tournament", "random", "greedy", "--games", "2", "--clock", "60+0", "--store", str(store), "--workers", "0"]
    assert main(args) == 0
    frame = load(store, "tournament")
    assert sorted(set(frame["south"])) == ["clocked(agent='greedy', tc='60+0')", "clocked(agent='random', tc='60+0')"]
    assert main([*args[:5], "--store", str(store), "--workers", "0"]) == 0  # no clock: other games, not these
    assert count(store, "tournament") == 4
    assert main(["experiment", "verify", "--store", str(store)]) == 0
    assert "4 games checked through the rules, 2 replayed from their keys (2 not replayable" in capsys.readouterr().out


def test_a_tournament_prints_a_table_and_resumes(tmp_path, capsys):
    args = ["tournament", "random", "greedy", "greedy(eps=0.5)", "--games", "6", "--seed", "2", "--store",
            str(tmp_path / "t.sqlite"), "--workers", "0"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "played 18 games" in captured.out and "18 games, 0 already" in captured.err
    lines = captured.out.splitlines()
    header = lines.index(next(line for line in lines if line.startswith("agent")))
    table = [line.split() for line in lines[header + 1 : header + 4]]
    assert sorted(row[0] for row in table) == ["greedy", "greedy(eps=0.5)", "random"]
    assert all(row[1] == "12" for row in table)  # each agent plays 6 games against each of the two others
    assert count(tmp_path / "t.sqlite", "tournament") == 18

    assert main(args) == 0  # the same command again: nothing to play, the same table
    again = capsys.readouterr()
    assert "18 already" in again.err and "played" not in again.out
    assert again.out.strip().splitlines()[-4:] == captured.out.strip().splitlines()[-4:]

    assert main([*args[:-2], "--name", "other", "--workers", "0"]) == 0
    assert set(load(tmp_path / "t.sqlite")["experiment"]) == {"tournament", "other"}


def test_experiment_list_run_and_status(tmp_path, capsys):
    store = str(tmp_path / "e.sqlite")
    assert main(["experiment", "list", "--store", store]) == 0
    out = capsys.readouterr().out
    for name in ("eps-grid", "mcts-budget", "uct-c", "greedy-uct-c", "champions", "rave", "solver", "bias-history", "cutoff"):
        assert f"\n{name} " in out
    assert "not created yet" in out

    assert main(["experiment", "run", "eps-vs-random", "--games", "2", "--store", store, "--workers", "0"]) == 0
    out = capsys.readouterr().out
    assert "played 42 games" in out and "eps-vs-random: 42 of 42 games" in out
    assert main(["experiment", "status", "eps-vs-random", "--store", store]) == 0
    out = capsys.readouterr().out
    assert ["greedy(eps=0.05)", "random", "2/100", "1.000"] in [line.split() for line in out.splitlines()]
    assert "eps-vs-random: 42 of 2100 games" in out
    assert main(["experiment", "list", "--store", store]) == 0
    assert ["eps-vs-random", "21", "100", "2100", "42"] in [line.split()[:5] for line in capsys.readouterr().out.splitlines()]


# --------------------------------------------------------------------------- killing a run


def group_left(pgid):
    """Live processes (zombies aside) still in process group ``pgid``."""
    left = []
    for process in psutil.process_iter(["pid", "status"]):
        try:
            if os.getpgid(process.pid) == pgid and process.info["status"] != psutil.STATUS_ZOMBIE:
                left.append(process.pid)
        except (ProcessLookupError, psutil.Error):
            continue
    return left


def wait_for_group(pgid, timeout=30.0):
    """The processes of group ``pgid`` still alive after up to ``timeout`` seconds.

    Multiprocessing's resource tracker exits just after its parent, so a
    group needs a moment to empty even after a clean exit.
    """
    deadline = time.monotonic() + timeout
    while group_left(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return group_left(pgid)


def stored(path):
    """Games in the store at ``path`` (0 before it exists).

    Read-write, never creating the file: after a kill, the first connection
    may have to recover the write-ahead log, which a read-only one cannot do.
    """
    try:
        db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5)
    except sqlite3.Error:  # not created yet
        return 0
    try:
        return db.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.Error:  # created, schema not yet written
        return 0
    finally:
        db.close()


TOURNAMENT = ["tournament", "random", "greedy(eps=0.2)", "--games", "200", "--seed", "7", "--store", "x.sqlite",
              "--workers", "2"]


def kill_midway(cwd, sig, low, high, args=TOURNAMENT, attempts=3):
    """Start ``args`` in a new session, send ``sig`` to its group once the store holds ``low`` to ``high`` games."""
    path = cwd / "x.sqlite"
    for _ in range(attempts):
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(f"{path}{suffix}"):
                os.remove(f"{path}{suffix}")
        process = subprocess.Popen(
            [sys.executable, "-m", "awale", *args], cwd=cwd, start_new_session=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        at = None
        deadline = time.monotonic() + 240
        while process.poll() is None and time.monotonic() < deadline:
            done = stored(path)
            if low <= done <= high:
                os.killpg(process.pid, sig)
                at = done
                break
            time.sleep(0.001)
        out, err = process.communicate(timeout=120)
        if at is not None:
            return process, at, out, err
    pytest.fail(f"the run never stopped with {low} to {high} games stored in {attempts} attempts")


def test_a_tournament_killed_halfway_resumes_to_the_same_games(tmp_path):
    """The issue's done-when test: SIGKILL the whole process group about halfway, then run the same command."""
    process, at, _, _ = kill_midway(tmp_path, signal.SIGKILL, 60, 150)
    assert process.returncode == -signal.SIGKILL
    assert wait_for_group(process.pid) == [], "the Dask worker processes outlived the kill"
    kept = stored(tmp_path / "x.sqlite")
    assert at <= kept < 200

    again = awale(*TOURNAMENT, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"{kept} already in x.sqlite; playing {200 - kept}" in again.stderr
    assert f"played {200 - kept} games" in again.stdout

    undisturbed = tmp_path / "undisturbed.sqlite"
    run(round_robin_keys(["random", "greedy(eps=0.2)"], 200, seed=7), undisturbed, "tournament", workers=0)
    resumed = stored_games(tmp_path / "x.sqlite")
    assert len(resumed) == 200
    pd.testing.assert_frame_equal(resumed, stored_games(undisturbed))


def test_ctrl_c_stops_cleanly_keeping_the_finished_games(tmp_path):
    args = ["tournament", "random", "mcts(iterations=500)", "--games", "40", "--store", "x.sqlite", "--workers", "2"]
    process, at, out, err = kill_midway(tmp_path, signal.SIGINT, 3, 30, args=args)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err and "run the same command again to resume" in err
    kept = stored(tmp_path / "x.sqlite")
    assert at <= kept < 40 and f"{kept} of 40 games are in x.sqlite" in err
    assert wait_for_group(process.pid) == []


def test_sigterm_stops_a_sequential_test_with_one_line(tmp_path):
    """A polite kill of the whole group ends ``sprt`` as Ctrl-C does: one line, no scheduler's log, no orphan."""
    args = ["sprt", "uct(iterations=300)", "uct(iterations=300, c=1.5)", "--elo0", "0", "--elo1", "3",
            "--store", "x.sqlite", "--workers", "2"]
    process, at, out, err = kill_midway(tmp_path, signal.SIGTERM, 4, 60, args=args)
    assert process.returncode == 130, err
    lines = [line for line in err.splitlines() if line.startswith("python -m awale")]
    assert len(lines) == 1 and "interrupted" in lines[0] and "run the same command again to resume" in lines[0]
    assert "ERROR" not in err and "distributed" not in err and "Traceback" not in err, err
    assert stored(tmp_path / "x.sqlite") >= at
    assert wait_for_group(process.pid) == []


def test_help_imports_no_experiment_nor_dask():
    """``python -m awale --help`` builds every subcommand's parser without loading the experiments or numba."""
    code = (
        "import sys, awale.cli as c\n"
        "try:\n    c.main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('awale.experiments', 'dask', 'distributed', 'numba'))))"
    )
    import subprocess
    import sys as _sys

    out = subprocess.run([_sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_a_spec_for_play_is_checked_without_the_experiments_nor_pandas():
    """``play SPEC`` checks its spec with the agents alone: the experiments (and pandas, Dask) stay unloaded."""
    import subprocess
    import sys as _sys

    code = (
        "import sys\nfrom awale.cli import build_parser\n"
        "args = build_parser().parse_args(['play', 'minimax(depth=2)'])\n"
        "assert args.agent == 'minimax(depth=2)', args.agent\n"
        "print(sorted(m for m in sys.modules if m.startswith(('awale.experiments', 'pandas', 'dask', 'distributed'))))"
    )
    out = subprocess.run([_sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_book_grow_stops_on_ctrl_c_with_its_state_saved_and_resumes(tmp_path):
    from awale.knowledge import book
    from awale.offline import book_builder

    args = [sys.executable, "-m", "awale", "book", "grow", "--search", "minimax(depth=6)", "--positions", "100000",
            "--out", "b.json.gz", "--workers", "2", "--save-every", "0"]
    process = subprocess.Popen(args, cwd=tmp_path, start_new_session=True, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    state = tmp_path / "b.json.gz.state"
    deadline = time.monotonic() + 120
    while not state.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "run the same command again to resume" in err
    assert wait_for_group(process.pid) == [], "the worker processes outlived the interruption"
    saved = book_builder.BookTree.load(state, book_builder.Growth("minimax(depth=6)"))
    assert f"interrupted: {saved.expanded:,} positions are saved in b.json.gz.state" in err
    assert not (tmp_path / "b.json.gz").exists()
    args[args.index("100000")] = str(saved.expanded + 1)
    again = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "resuming from b.json.gz.state" in again.stderr
    assert len(book.load(tmp_path / "b.json.gz")) > saved.expanded


def test_calibrate_out_appends_to_a_file_of_earlier_measurements_and_refuses_other_columns(tmp_path):
    from awale.cli.arguments import Failure
    from awale.cli.experiment import _write_csv

    path = tmp_path / "replay.csv"
    _write_csv(str(path), [{"experiment": "a", "ratio": 1.0}])
    _write_csv(str(path), [{"experiment": "b", "ratio": 0.9}])
    assert list(pd.read_csv(path)["experiment"]) == ["a", "b"]
    before = path.read_text()
    with pytest.raises(Failure, match="other columns"):
        _write_csv(str(path), [{"experiment": "c", "seconds": 2.0}])
    assert path.read_text() == before
