"""Replay the stored games of some pairings of an equal-time experiment and append their times to a CSV.

``python -m awale experiment calibrate NAME --replay all`` does this for every pairing of ``NAME``; this
script does it for the pairings whose first agent is named, so that only the pairings whose budgets changed
are replayed again (all their games, or a seeded sample of ``--sample K`` a pairing)::

    python data/curves/replay_some.py factorial data/curves/replay.csv "minimax(nodes=42000)" ...

The rows have the columns of ``data/curves/replay.csv`` and are stamped with the time the replay began.
Run it on otherwise idle cores (two processes, one per core).
"""

import argparse
import csv
import time

from awale.experiments import CATALOG, Experiment, canonical_spec
from awale.experiments import calibration as cal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", choices=sorted(CATALOG), metavar="NAME", help="an equal-time experiment")
    parser.add_argument("out", help="the CSV file to append to")
    parser.add_argument("agents", nargs="+", metavar="SPEC", help="the first agents of the pairings to replay")
    parser.add_argument("--store", default="data/experiments.sqlite", help="the store (default: the thesis's)")
    parser.add_argument("--workers", type=int, default=2, help="processes, one per core (default 2)")
    parser.add_argument("--sample", type=int, default=None, metavar="K",
                        help="replay a seeded sample of K games a pairing (default: all of them)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the sample (default 0)")
    args = parser.parse_args()
    exp = CATALOG[args.experiment]
    wanted = {canonical_spec(spec) for spec in args.agents}
    pairs = [pair for pair in exp.pairings() if pair[0] in wanted]
    if len(pairs) != len(wanted):
        parser.error(f"not first agents of {exp.name}: {', '.join(sorted(wanted - {a for a, _ in pairs}))}")
    chosen = Experiment(exp.name, exp.description, lambda: pairs, exp.games, exp.seed, openings=exp.openings)
    stamp = time.strftime("%Y-%m-%d %H:%M")
    found = cal.replay_times(args.store, chosen, args.sample, seed=args.seed, workers=args.workers, progress=True,
                             report=lambda line: print(line, flush=True))
    with open(args.out, "a", newline="") as handle:
        rows = [t.row(exp.name, stamp) for t in found]
        csv.DictWriter(handle, fieldnames=list(rows[0])).writerows(rows)

if __name__ == "__main__":
    main()
