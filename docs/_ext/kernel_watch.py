"""What each chapter cell costs while the build runs it: its time, and the engine's kernels it had to compile.

conf.py loads this into every notebook's kernel (nbsphinx's ``exec_lines``).  After each cell it appends a line to
``_build/chapter-cells.csv``: the chapter (conf.py names it in ``AWALE_CHAPTER`` before the kernel starts), the
cell's number, its wall time, and the kernels of the library that numba compiled during it instead of loading
them from its cache.  `make compile` (tools/compile.py) compiles them all before the chapters run, so that column
stays empty; `make html` ends with ``tools/compile.py --report``, which names any cell that compiled and the
slowest cells, against the cell timeout.  The build itself never fails for it: the log is for the reader.
"""

from __future__ import annotations

import csv
import os
import time
from pathlib import Path

__all__ = ["LOG", "register"]

LOG = Path(__file__).resolve().parents[2] / "_build" / "chapter-cells.csv"
FIELDS = ["chapter", "cell", "seconds", "compiled"]


class _Watch:
    def __init__(self, log: Path) -> None:
        self.log, self.cell, self.started, self.compiled = log, 0, 0.0, []

    def on_compiled(self, name: str) -> None:
        self.compiled.append(name)

    def pre_run_cell(self, info=None) -> None:
        self.cell += 1
        self.started, self.compiled = time.perf_counter(), []

    def post_run_cell(self, result=None) -> None:
        if not self.started:  # the kernel's start-up lines, which registered this watch
            return
        row = {
            "chapter": os.environ.get("AWALE_CHAPTER", os.getcwd()),
            "cell": self.cell,
            "seconds": f"{time.perf_counter() - self.started:.2f}",
            "compiled": " ".join(sorted(set(self.compiled))),
        }
        try:
            self.log.parent.mkdir(parents=True, exist_ok=True)
            new = not self.log.exists()
            with self.log.open("a", newline="", encoding="utf-8") as out:
                writer = csv.DictWriter(out, FIELDS)
                if new:
                    writer.writeheader()
                writer.writerow(row)
        except OSError:  # a read-only checkout: no log, the chapter runs all the same
            pass


def _listen(watch: _Watch) -> None:
    try:
        from numba.core import event
    except ImportError:  # no numba: the kernels run as plain Python, nothing compiles
        return

    class Listener(event.Listener):
        def on_start(self, ev) -> None:
            pass

        def on_end(self, ev) -> None:
            function = getattr(ev.data.get("dispatcher"), "py_func", None)
            module = getattr(function, "__module__", "") or ""
            if module == "awale" or module.startswith("awale."):
                watch.on_compiled(f"{module}.{function.__name__}")

    event.register("numba:compile", Listener())


def register(shell, log: Path = LOG) -> _Watch:
    """Watch the cells ``shell`` (an IPython shell) runs; return the watch."""
    watch = _Watch(log)
    _listen(watch)
    shell.events.register("pre_run_cell", watch.pre_run_cell)
    shell.events.register("post_run_cell", watch.post_run_cell)
    return watch
