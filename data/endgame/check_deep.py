"""Check a deep database layer by layer: ``python data/endgame/check_deep.py --db endgame20.db``.

Writes ``check-deep.csv`` beside this script, one row per layer: positions,
whether the layer's values match their SHA-256 in the header, positions that
break the minimax recurrence (every position, its moves generated afresh),
and random live positions of the layer compared with the exact search of the
database's own game (:func:`awale.offline.endgame_checks.search_check`): agreeing,
disagreeing, and undecided within the node budget.  The search budget is
spent in rounds of 100 positions until ``--sample`` positions were drawn or
``--seconds`` passed for the layer (deep layers leave most searches
undecided: quiet play goes on long before it repeats or captures).
"""

import argparse
import csv
import os
import time

from awale.knowledge import endgame as eg
from awale.offline import endgame_checks as checks

HERE = os.path.dirname(os.path.abspath(__file__))


def layer_list(text: str, top: int) -> list:
    """The layers named by ``text``: numbers and ranges ``a-b`` separated by commas, each at most ``top``."""
    layers = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        layers.extend(range(int(low), int(high or low) + 1))
    if not layers or not all(0 <= s <= top for s in layers):
        raise SystemExit(f"--layers: layers from 0 to {top}, got {text!r}")
    return layers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("--sample", type=int, default=1000)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--layers", default=None, metavar="LIST",
                        help="the layers to check, e.g. '25,21,0-20' (default all): two runs on disjoint layers "
                             "with NUMBA_NUM_THREADS=1 keep both cores busy through the searches too")
    parser.add_argument("--out", default=os.path.join(HERE, "check-deep.csv"))
    args = parser.parse_args()
    database = eg.load(args.db)
    layers = range(database.seeds + 1) if args.layers is None else layer_list(args.layers, database.seeds)
    damaged = set(database.verify_layers(layers))  # the layers checked only: split runs read each layer once
    whole = database.verify_checksum() if args.layers is None else None
    rows = []
    for seeds in layers:
        start = time.perf_counter()
        errors = database.recurrence_errors(layers=[seeds])
        recurrence_seconds = time.perf_counter() - start
        found = {"agree": 0, "disagree": 0, "undecided": 0}
        start = time.perf_counter()
        drawn = 0
        while seeds and drawn < args.sample and time.perf_counter() - start < args.seconds:
            batch = checks.search_check(database, seeds, 100, args.nodes, seed=1000 * seeds + drawn)
            drawn += 100
            for key in found:
                found[key] += batch[key]
            if sum(batch.values()) < 100:
                break  # the layer has fewer live positions
        rows.append({
            "seeds": seeds,
            "positions": int(database._offsets[seeds + 1] - database._offsets[seeds]),
            "checksum_ok": seeds not in damaged,
            "recurrence_errors": errors,
            "recurrence_seconds": round(recurrence_seconds, 1),
            **found,
            "nodes": args.nodes,
            "search_seconds": round(time.perf_counter() - start, 1),
            "load": round(os.getloadavg()[0], 2),
        })
        print(rows[-1], flush=True)
    with open(args.out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    if whole is not None:
        print("whole-file checksum ok:", whole)


if __name__ == "__main__":
    main()
