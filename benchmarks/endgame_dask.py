"""The endgame database built on local Dask clusters of 1, 2 and 4 workers (one thread each), at 20 and 22 seeds.

``python benchmarks/endgame_dask.py [--seeds 20 22] [--workers 1 2 4] [--csv data/endgame/dask-cost.csv]``

Each run builds the Abapa database with :func:`awale.offline.endgame_dask.build_on_cluster` into a temporary
folder and compares the values' sha256 (and every layer's) with the one-machine build's
(:func:`awale.knowledge.endgame_build.build_file`, built once per size into the same folder, or read with
``--reference S=PATH``).  One row per layer built goes to the CSV (runs already there are skipped, so the grid
can be run in pieces):

* ``seeds`` (of the build), ``workers``, ``layer``, ``layer_positions``, ``shares`` (ranges the layer was cut
  into), ``layer_seconds``, ``positions_per_second`` (the layer's positions over its wall time),
  ``exchanged_bytes`` (messages between shares), ``bytes_per_position``, ``rounds``;
* per run, repeated on its rows: ``build_seconds``, ``build_positions_per_second``, ``peak_anon_mib_worker`` (the
  largest anonymous memory of a worker process, sampled at the end of each task: the interpreter, numba and
  Dask, about 180 MiB, and the share), ``predicted_mib_worker`` (:func:`~awale.offline.endgame_dask.share_memory`
  of the largest layer), ``same_sha256`` (the values and every layer as the one-machine build's), ``load`` (the
  machine's 1-minute load average at the end: the cores are shared), ``cores``, ``date``.

The workers of a local cluster share this machine's cores: with more workers than cores the rates measure the
exchange's cost, not a speed-up.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import sys
import tempfile
import time
from typing import Dict, List

FIELDS = ["seeds", "workers", "layer", "layer_positions", "shares", "layer_seconds", "positions_per_second",
          "exchanged_bytes", "bytes_per_position", "rounds", "build_seconds", "build_positions_per_second",
          "peak_anon_mib_worker", "predicted_mib_worker", "same_sha256", "load", "cores", "date"]


def _done(path: str) -> set:
    if not os.path.exists(path):
        return set()
    with open(path) as handle:
        return {(int(row["seeds"]), int(row["workers"])) for row in csv.DictReader(handle)}


def _append(path: str, rows: List[Dict[str, object]]) -> None:
    fresh = not os.path.exists(path)
    with open(path, "a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        if fresh:
            writer.writeheader()
        writer.writerows(rows)


def main(argv: List[str] = None) -> int:
    from awale import Rules
    from awale.experiments.clusters import cluster
    from awale.knowledge import endgame as eg
    from awale.knowledge import endgame_build as egb
    from awale.offline import endgame_dask as ed

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[20, 22])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--csv", default=os.path.join(os.path.dirname(__file__), "..", "data", "endgame",
                                                      "dask-cost.csv"))
    parser.add_argument("--folder", default=None, help="where the databases are written (default: a temporary one)")
    parser.add_argument("--reference", action="append", default=[], metavar="S=PATH",
                        help="the one-machine database of S seeds, instead of building it")
    args = parser.parse_args(argv)
    folder = args.folder or tempfile.mkdtemp(prefix="endgame-dask-")
    references = dict((int(s), p) for s, p in (item.split("=", 1) for item in args.reference))
    done = _done(args.csv)
    rules = Rules()
    for seeds in args.seeds:
        if all((seeds, w) in done for w in args.workers):
            continue
        reference_path = references.get(seeds) or os.path.join(folder, f"one-{seeds}.db")
        if not os.path.exists(reference_path):
            started = time.perf_counter()
            egb.build_file(reference_path, rules, seeds)
            print(f"one machine, {seeds} seeds: {time.perf_counter() - started:.1f} s", flush=True)
        reference = eg.load(reference_path)
        for workers in args.workers:
            if (seeds, workers) in done:
                continue
            path = os.path.join(folder, f"dask-{seeds}-{workers}.db")
            stats = ed.BuildStats()
            with cluster(workers=workers) as (client, _):
                started = time.perf_counter()
                built = ed.build_on_cluster(path, client, rules, seeds, stats=stats,
                                            log=lambda line: print(line, file=sys.stderr, flush=True))
                seconds = time.perf_counter() - started
            same = built.checksum == reference.checksum and built._layer_sums == reference._layer_sums
            common = {
                "seeds": seeds, "workers": workers, "build_seconds": round(seconds, 2),
                "build_positions_per_second": round(len(built) / seconds),
                "peak_anon_mib_worker": round(stats.peak_memory / 2**20, 1),
                "predicted_mib_worker": round(ed.share_memory(6, seeds, min(workers, max(
                    1, eg.layer_size(6, seeds) // ed.LEAST_SHARE))) / 2**20, 1),
                "same_sha256": same, "load": round(os.getloadavg()[0], 2), "cores": len(os.sched_getaffinity(0)),
                "date": datetime.date.today().isoformat(),
            }
            rows = []
            for layer, positions, layer_seconds, exchanged, rounds in stats.layers:
                shares = max(1, min(workers, positions // ed.LEAST_SHARE))
                rows.append({**common, "layer": layer, "layer_positions": positions, "shares": shares,
                             "layer_seconds": round(layer_seconds, 3),
                             "positions_per_second": round(positions / max(layer_seconds, 1e-9)),
                             "exchanged_bytes": exchanged, "bytes_per_position": round(exchanged / positions, 3),
                             "rounds": rounds})
            _append(args.csv, rows)
            print(f"{seeds} seeds on {workers} worker(s): {seconds:.1f} s, {len(built) / seconds / 1e6:.2f} M pos/s, "
                  f"{stats.exchanged / max(1, stats.positions):.2f} bytes a position exchanged, peak "
                  f"{stats.peak_memory / 2**20:.0f} MiB a worker, same sha256 as one machine: {same}", flush=True)
            os.unlink(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
