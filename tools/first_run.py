"""Time a newcomer's first build on fresh clones, as the README tells it, and keep the times in data/first-run.csv.

Each run clones the repository into a new folder, then runs there, one after the other and each timed by the
wall clock: ``make .venv/.installed`` (the pinned requirements, pip's cache as the machine has it), ``make
compile`` (numba compiles the kernels the chapters use, from a cold cache) and ``make html`` (every chapter run).
``--busy N`` keeps N processes spinning (``yes > /dev/null``) during the runs, as a laptop busy with other work
would be.  A failed step stops the run and is recorded as failed, with its time.  The README, the Makefile and
the command line's help state these times; tests/test_readme.py reads them back from data/first-run.csv.

Usage:
    python tools/first_run.py --clones 3 --busy 2          three fresh clones in a row, two cores kept busy
    python tools/first_run.py --clones 1 --keep            keep the clone (in /tmp/fresh-1) to look at
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "data" / "first-run.csv"
FIELDS = ["command", "what", "seconds", "cores", "date", "commit", "how"]
STEPS = [
    ("make .venv/.installed", "the pinned requirements installed by pip (its cache warm), then the package"),
    ("make compile", "numba compiling the kernels the chapters use, from a cold cache"),
    ("make html", "the website, every notebook run, the kernels already compiled"),
]

__all__ = ["main", "record"]


def record(rows: list[dict], path: Path = CSV) -> None:
    """Append rows to the table of first-run times."""
    new = not path.exists()
    with path.open("a", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, FIELDS)
        if new:
            writer.writeheader()
        writer.writerows(rows)


def _run(command: str, where: Path, log: Path) -> tuple[bool, float]:
    started = time.monotonic()
    with log.open("a", encoding="utf-8") as out:
        out.write(f"\n$ {command}\n")
        out.flush()
        done = subprocess.run(command, shell=True, cwd=where, stdout=out, stderr=subprocess.STDOUT)
    return done.returncode == 0, time.monotonic() - started


def _cells(log: Path) -> str:
    """What `make html`'s last lines said of the chapters' cells (tools/compile.py --report), for the table."""
    said = [line.strip() for line in log.read_text(encoding="utf-8", errors="replace").splitlines()
            if line.startswith("compile: ") and ("slowest" in line or "compiled" in line)]
    return "; " + "; ".join(line.removeprefix("compile: ") for line in said[-2:]) if said else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clones", type=int, default=3, help="fresh clones built in a row (default 3)")
    parser.add_argument("--busy", type=int, default=0, help="processes kept spinning meanwhile (default 0)")
    parser.add_argument("--source", default=str(ROOT), help="the repository to clone (default: this one)")
    parser.add_argument("--into", type=Path, default=Path("/tmp"), help="where the clones go: fresh-1, fresh-2, ...")
    parser.add_argument("--keep", action="store_true", help="keep each clone after its run")
    parser.add_argument("--dry-run", action="store_true", help="print the rows, do not add them to the table")
    args = parser.parse_args(argv)
    cores = os.cpu_count() or 1
    busy = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(args.busy)]
    try:
        for number in range(1, args.clones + 1):
            clone = args.into / f"fresh-{number}"
            shutil.rmtree(clone, ignore_errors=True)
            subprocess.run(["git", "clone", "--quiet", args.source, str(clone)], check=True)
            commit = subprocess.run(["git", "-C", str(clone), "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True, check=True).stdout.strip()
            log = args.into / f"fresh-{number}.log"
            log.write_text(f"fresh clone {number} of {args.source} at {commit}\n", encoding="utf-8")
            how = (f"fresh clone {number} of {args.clones} built in a row (tools/first_run.py), "
                   + (f"{args.busy} processes spinning (yes > /dev/null) on the {cores} cores, " if args.busy else "")
                   + "on the development machine shared with other work")
            for command, what in STEPS:  # each step's row as soon as it ends: a run stopped midway keeps its rows
                ok, seconds = _run(command, clone, log)
                row = {"command": command, "what": what if ok else f"FAILED: {what}", "seconds": round(seconds),
                       "cores": cores, "date": datetime.date.today().isoformat(), "commit": commit,
                       "how": how + _cells(log) if command == "make html" else how}
                print(f"clone {number}: {command}: {'ok' if ok else 'FAILED'} in {seconds:.0f} s (log {log})",
                      flush=True)
                if args.dry_run:
                    print(row)
                else:
                    record([row])
                if not ok:
                    break
            if not args.keep:
                shutil.rmtree(clone, ignore_errors=True)
    finally:
        for process in busy:
            process.terminate()
            process.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
