"""Measure the layered build: ``python data/endgame/build_cost.py --seeds 20 --db PATH``.

Builds the Abapa database of ``--seeds`` seeds into ``--db`` with
:func:`awale.knowledge.endgame_build.build_file` (resuming it if a build was stopped) and
writes ``build-cost.csv`` beside this script: one row per layer ``S``, which
is also the cost of a database of ``S`` seeds, since a build to ``S`` seeds
is exactly layers 0 to ``S``.  Columns:

* ``seeds``, ``positions`` (all positions with at most ``seeds`` seeds),
  ``layer_positions``;
* ``layer_seconds`` and ``build_seconds`` (wall time, the layer and from the
  start), ``cpu_seconds`` (user + system time of the process from the start,
  all threads);
* ``peak_rss_mib`` (the process's peak resident memory, which counts the
  pages of the mapped file it touched), ``peak_anon_mib`` (the peak of its
  anonymous memory, sampled at every progress report: the memory beyond the
  file), ``file_mib``;
* ``load`` (the machine's 1-minute load average, mean over the layer's
  reports), ``cores`` and ``threads``: the cores are shared with whatever else
  runs, so on a loaded machine the wall times are pessimistic;
* ``run``: ``first``, or ``resumed`` for the layers of a build that resumed:
  with ``--previous CSV`` the rows of the layers it kept are taken from that
  file and the new rows' times (and peaks) continue from its last one;
* ``deepest_plies``, ``deepest_margin``, ``deepest_index``,
  ``deepest_value``, ``deepest_positions``: the layer's slowest decision
  (:class:`awale.knowledge.endgame_build.Deepest`: the most plies of quiet play before a
  capture decides a position's value, the margin, a position with its value,
  and how many positions share that depth; empty for the empty board).

The rows are written again as each layer finishes.  Once the build is done,
``values.csv`` (beside ``--out``) gets the count of each value in each
layer: ``seeds``, ``value`` (for the player to move), ``positions``.
"""

import argparse
import csv
import os
import resource
import sys
import time

import numpy as np

from awale import Rules
from awale.knowledge import endgame as eg
from awale.knowledge import endgame_build as egb

HERE = os.path.dirname(os.path.abspath(__file__))


def anonymous_mib() -> float:
    """The process's anonymous resident memory now (Linux), in MiB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def merge(previous: list, new: list) -> list:
    """The rows of a resumed build after those of the run it resumed (times and peaks continued)."""
    kept = [row for row in previous if int(row["seeds"]) < int(new[0]["seeds"])]
    last = kept[-1]
    merged = []
    wall = float(last["build_seconds"])
    for row in new:
        row = dict(row)
        wall += float(row["layer_seconds"])  # the resumed run's start-up and checks are left out of the wall time
        row["build_seconds"] = round(wall, 2)
        row["cpu_seconds"] = round(float(row["cpu_seconds"]) + float(last["cpu_seconds"]), 2)  # they are in this
        for key in ("peak_rss_mib", "peak_anon_mib"):
            row[key] = max(float(row[key]), max(float(r[key]) for r in kept))
        row["run"] = "resumed"
        merged.append(row)
    return kept + merged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--db", required=True)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", default=os.path.join(HERE, "build-cost.csv"))
    parser.add_argument("--previous", default=None, help="the CSV of the run this build resumes")
    args = parser.parse_args()
    rules = Rules()
    threads = eg.set_threads(args.threads) if hasattr(eg, "set_threads") else args.threads
    rows = []
    start = time.perf_counter()
    current = {"layer": None, "begin": start, "loads": [], "anon": 0.0}
    deepest = {}

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    def close(now: float) -> None:
        layer = current["layer"]
        if layer is None:
            return
        rows.append({
            "seeds": layer,
            "positions": eg.position_count(rules.pits_per_side, layer),
            "layer_positions": eg.position_count(rules.pits_per_side, layer) - (
                eg.position_count(rules.pits_per_side, layer - 1) if layer else 0),
            "layer_seconds": round(now - current["begin"], 2),
            "build_seconds": round(now - start, 2),
            "cpu_seconds": round(cpu(), 2),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "peak_anon_mib": round(max(current["anon"], anonymous_mib()), 1),
            "file_mib": round(eg.position_count(rules.pits_per_side, layer) / 2**20, 1),
            "load": round(sum(current["loads"]) / max(1, len(current["loads"])), 2),
            "cores": os.cpu_count(),
            "threads": threads,
            "run": "first",
        })
        print(rows[-1], file=sys.stderr, flush=True)
        write(args.out, rows, deepest)

    def progress(layer: int, done: int, message: str) -> None:
        now = time.perf_counter()
        if layer != current["layer"]:
            close(now)
            current.update(layer=layer, begin=now, loads=[])
        current["loads"].append(os.getloadavg()[0])
        current["anon"] = max(current["anon"], anonymous_mib())

    database = egb.build_file(args.db, rules, args.seeds, progress, log=lambda line: print(line, file=sys.stderr),
                             deepest=lambda found: deepest.update({found.seeds: found}))
    close(time.perf_counter())
    if args.previous:
        with open(args.previous, newline="") as handle:
            rows = merge(list(csv.DictReader(handle)), rows)
    write(args.out, rows, deepest)
    write_values(os.path.join(os.path.dirname(os.path.abspath(args.out)), "values.csv"), database)


def write(path: str, rows: list, deepest: dict) -> None:
    """The rows so far, each with its layer's slowest decision (kept from ``--previous`` for kept layers)."""
    fields = [f"deepest_{name}" for name in egb.Deepest._fields if name != "seeds"]
    completed = []
    for row in rows:
        found = deepest.get(int(row["seeds"]))
        slowest = ({f"deepest_{name}": value for name, value in found._asdict().items() if name != "seeds"}
                   if found is not None else {field: row.get(field, "") for field in fields})
        completed.append({**row, **slowest})
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(completed[0]))
        writer.writeheader()
        writer.writerows(completed)


def write_values(path: str, database) -> None:
    """How many positions of each layer hold each value."""
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["seeds", "value", "positions"])
        for seeds in range(database.seeds + 1):
            start, stop = int(database._offsets[seeds]), int(database._offsets[seeds + 1])
            counts = np.zeros(256, dtype=np.int64)
            for low in range(start, stop, 1 << 26):  # in slices: the layer is mapped, not read whole
                counts += np.bincount(database.values[low:min(stop, low + (1 << 26))].view(np.uint8), minlength=256)
            for byte in np.flatnonzero(counts):
                writer.writerow([seeds, int(np.int8(np.uint8(byte))), int(counts[byte])])


if __name__ == "__main__":
    main()
