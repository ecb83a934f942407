"""Make the endgame results the chapter plots: ``python data/endgame/make.py [--seeds 15]``.

Builds the Abapa database of ``--seeds`` seeds (in memory, or read from
``--db`` if that file exists), then writes beside this script:

* ``layers.csv``: per number of seeds on the board, positions, sweeps to the
  fixed point, and the distribution of the values;
* ``agreement.csv``: the database against the history-aware αβ search on
  random positions, for several boards (agree / explained / unexplained /
  undecided);
* ``checks.json``: the recurrence on every position, the captures question on
  every position and split, and the wall times.
"""

import argparse
import collections
import json
import os
import time

import numpy as np

from awale import Rules
from awale.knowledge import endgame as eg
from awale.knowledge import endgame_build as egb
from awale.offline import endgame_checks as checks
from awale.search.alphabeta import AlphaBeta

HERE = os.path.dirname(os.path.abspath(__file__))


def agreement(rules, seeds, sample, max_seeds, nodes, database=None):
    database = database or egb.build(rules, seeds)
    searcher = AlphaBeta(rules)
    counts = collections.Counter()
    start = time.perf_counter()
    for index in checks.sample(database, sample, seed=1, max_seeds=max_seeds):
        counts[checks.compare(database, index, searcher, nodes).status] += 1
    row = {"pits": rules.pits_per_side, "total": rules.total_seeds, "db_seeds": seeds, "max_seeds": max_seeds,
           "sample": sample, "nodes": nodes, "seconds": round(time.perf_counter() - start, 1)}
    row.update({s: counts[s] for s in ("agree", "explained", "unexplained", "undecided")})
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=15)
    parser.add_argument("--db", default=None)
    parser.add_argument("--captures", type=int, default=15)
    args = parser.parse_args()
    sweeps = collections.Counter()

    def progress(layer, done, message):
        if message.startswith("sweep"):
            sweeps[layer] += 1

    start = time.perf_counter()
    if args.db and os.path.exists(args.db):
        database = eg.load(args.db)
        build_seconds = None
    else:
        database = egb.build(Rules(), args.seeds, progress, method="sweeps")
        build_seconds = round(time.perf_counter() - start, 1)
        if args.db:
            database.save(args.db)
    values = np.asarray(database.values)
    with open(os.path.join(HERE, "layers.csv"), "w") as out:
        span = range(-args.seeds, args.seeds + 1)
        out.write("seeds,positions,sweeps," + ",".join(f"v{v}" for v in span) + "\n")
        for s in range(args.seeds + 1):
            layer = values[database._offsets[s]: database._offsets[s + 1]].astype(int)
            counts = np.bincount(layer + args.seeds, minlength=2 * args.seeds + 1)
            out.write(f"{s},{layer.size},{sweeps.get(s, '')}," + ",".join(map(str, counts)) + "\n")
    start = time.perf_counter()
    recurrence = database.recurrence_errors()
    recurrence_seconds = round(time.perf_counter() - start, 1)
    start = time.perf_counter()
    captures = checks.captures_check(database, args.captures)
    captures_seconds = round(time.perf_counter() - start, 1)
    rows = [
        agreement(Rules(pits_per_side=3, seeds_per_pit=2), 12, 1000, 12, 200_000),
        agreement(Rules(pits_per_side=3, seeds_per_pit=4), 12, 1000, 8, 200_000),
        agreement(Rules(pits_per_side=4, seeds_per_pit=4), 10, 300, 6, 200_000),
        agreement(Rules(), args.seeds, 300, 3, 200_000, database),
    ]
    with open(os.path.join(HERE, "agreement.csv"), "w") as out:
        out.write(",".join(rows[0]) + "\n")
        for row in rows:
            out.write(",".join(str(v) for v in row.values()) + "\n")
    with open(os.path.join(HERE, "checks.json"), "w") as out:
        json.dump({"seeds": args.seeds, "positions": len(database), "build_seconds": build_seconds,
                   "sha256": database.checksum, "recurrence_errors": recurrence,
                   "recurrence_seconds": recurrence_seconds, "captures_seeds": args.captures,
                   "captures": captures, "captures_seconds": captures_seconds}, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
