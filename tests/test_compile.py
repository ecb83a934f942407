"""`make compile` (tools/compile.py): the kernels the chapters call are compiled and cached before a chapter runs.

The chapters must never compile: a cold compile of the parallel searches alone took minutes on a busy laptop,
inside a cell's timeout, and a killed kernel leaves no cache behind.  `make html`, `make pdf` and `make test` run
``tools/compile.py`` first; these tests check that after it a fresh process running every step, and every agent
spec written in a chapter, loads all its kernels from the cache, and that the build's watch of the chapters'
cells (docs/_ext/kernel_watch.py) would name a cell that compiled.
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import compile as compile_tool  # noqa: E402
import kernel_watch  # noqa: E402


def _tool(*args: str, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "tools" / "compile.py"), *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


def test_after_make_compile_no_kernel_a_chapter_calls_compiles_again():
    # `make test` has run `make compile` before pytest; run alone, the first call compiles what is missing (a
    # cold cache: minutes), and the check, in a new process as a chapter's kernel is, must compile nothing.
    done = _tool(timeout=3600)
    assert done.returncode == 0, done.stdout + done.stderr
    check = _tool("--check", timeout=600)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "loaded from the cache" in check.stdout


def test_the_steps_cover_what_the_chapters_play():
    labels = " ".join(label for label, _ in compile_tool.STEPS)
    for scheme in ("root", "tree", "leaf"):  # chapter 5 writes these specs as an f-string, which --check skips
        assert f"parallel='{scheme}'" in labels
    specs = compile_tool.chapter_specs()
    assert any(spec.startswith("uct(") for spec in specs) and any(spec.startswith("minimax(") for spec in specs)
    assert "endgame databases" in labels


def test_a_chapter_spec_is_shrunk_to_a_small_budget_without_a_large_database():
    assert compile_tool.shrunk("uct(iterations=13000, solver=True, evaluation=True, endgame='15')") == (
        "uct(iterations=200, solver=True, evaluation=True)")
    assert compile_tool.shrunk("champion(time=1, endgame='25', quiescence=0)") == "champion(time=0.02, quiescence=0)"
    assert compile_tool.shrunk("minimax(depth=12)") == "minimax(depth=3)"


class _Events:
    def __init__(self) -> None:
        self.callbacks: dict[str, list] = {}

    def register(self, name: str, callback) -> None:
        self.callbacks.setdefault(name, []).append(callback)

    def trigger(self, name: str) -> None:
        for callback in self.callbacks.get(name, []):
            callback(None)


class _Shell:
    def __init__(self) -> None:
        self.events = _Events()


def test_the_watch_logs_each_cell_and_names_a_kernel_it_compiled(tmp_path, monkeypatch):
    numba = pytest.importorskip("numba")
    log = tmp_path / "cells.csv"
    shell = _Shell()
    kernel_watch.register(shell, log)
    monkeypatch.setenv("AWALE_CHAPTER", "notebooks/99-test")
    shell.events.trigger("post_run_cell")  # the start-up lines' own event: no row
    namespace = {"__name__": "awale.test_kernel"}
    exec("def plus_one(x):\n    return x + 1\n", namespace)
    kernel = numba.njit(namespace["plus_one"])
    shell.events.trigger("pre_run_cell")
    kernel(41)
    shell.events.trigger("post_run_cell")
    shell.events.trigger("pre_run_cell")
    kernel(1)  # compiled already: nothing to name
    shell.events.trigger("post_run_cell")
    rows = list(csv.DictReader(log.open(encoding="utf-8")))
    assert [(row["chapter"], row["cell"]) for row in rows] == [("notebooks/99-test", "1"), ("notebooks/99-test", "2")]
    assert rows[0]["compiled"] == "awale.test_kernel.plus_one" and rows[1]["compiled"] == ""
    assert compile_tool.report(log, 600) == 1  # the report names the cell that compiled


def test_the_report_of_a_build_in_which_nothing_compiled(tmp_path, capsys):
    log = tmp_path / "cells.csv"
    log.write_text("chapter,cell,seconds,compiled\nnotebooks/04-agents,3,12.50,\nnotebooks/05-x,1,0.10,\n")
    assert compile_tool.report(log, 600) == 0
    out = capsys.readouterr().out
    assert "04-agents cell 3 12.5 s" in out and "no chapter cell compiled" in out
