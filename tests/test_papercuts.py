"""A newcomer's first commands: each small trouble of issue 44 ("First contact"), through the command line."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import awale


def test_awale_alone_prints_the_help():
    done = awale()
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout and "play" in done.stdout and "sprt" in done.stdout
    assert "error" not in done.stderr.lower()


def test_ledger_of_a_missing_file_is_an_error_naming_it(tmp_path):
    done = awale("ledger", "--file", "missing.csv", cwd=tmp_path)
    assert done.returncode != 0
    assert "missing.csv" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_ledger_help_prints_a_plain_percent_sign():
    done = awale("ledger", "--help")
    assert done.returncode == 0
    assert "95 %" in " ".join(done.stdout.split()) and "%%" not in done.stdout


def test_a_binary_game_file_is_refused_by_name(tmp_path):
    path = tmp_path / "game.json"
    path.write_bytes(bytes(range(256)) * 4)
    done = awale("replay", str(path), cwd=tmp_path)
    assert done.returncode != 0
    assert "game.json" in done.stderr and "Traceback" not in done.stderr


def test_a_bad_spec_is_refused_without_pandas_nor_dask(tmp_path):
    """Rejecting a spec needs only the parser: the experiments' heavy imports never start."""
    code = (
        "import sys\n"
        "from awale.cli import main\n"
        "try:\n    status = main(['match', 'nonsense((', 'random'])\n"
        "except SystemExit as exit:\n    status = exit.code\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'dask', 'distributed'))\n"
        "print(status, heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    status, heavy = done.stdout.strip().splitlines()[-1].split(" ", 1)
    assert status != "0" and heavy == "[]", done.stdout + done.stderr
    assert "nonsense" in done.stderr


def test_endgame_build_refuses_more_threads_than_cores(tmp_path):
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    done = awale("endgame", "build", "--seeds", "2", "--threads", str(cores + 1), "--out", "e.db", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "--threads" in done.stderr and str(cores) in done.stderr
    assert not (tmp_path / "e.db").exists()
