"""αβ on several threads sharing its table (lazy SMP): the time to reach a fixed depth on K = 1, 2, ... threads.

The champion's search (the Texel weights, late-move reductions, no quiescence, the default table) searches
each of a fixed set of middle-game positions to each depth, its table emptied before every search, on K
threads (``AlphaBeta(threads=K)``: the caller's thread and K - 1 helpers searching one ply deeper, all sharing
the table).  Printed per depth and K: the total time over the positions (the best of a few runs), the speed-up
over one thread measured in the same run, and the positions visited by the caller's thread and by the helpers.
The machine's ceiling is given beside it: K one-thread searches run side by side in K threads, sharing nothing.

``--out FILE`` also writes the rows as CSV (``depth,threads,kind,seconds,speedup,nodes,helper_nodes``; ``kind``
is ``shared table``, or ``side by side`` for the ceiling, whose nodes are the K searches' together).

    python benchmarks/smp.py --out data/strength/smp-speed.csv
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from awale import Game
from awale.core.positions import sample_positions
from awale.knowledge.evaluation import WEIGHTS, load_evaluation
from awale.search.alphabeta import AlphaBeta, Enhancements
from awale.search.parallel import resolve_threads

__all__ = ["measure", "run"]

DEPTHS = (12, 15, 18)
POSITIONS = 12


def _positions(count: int = POSITIONS) -> List[Game]:
    """Middle-game positions: the first with at most 40 seeds of seeded random games."""
    return sample_positions(40, count, np.random.default_rng(7))


def _searcher(threads: int) -> AlphaBeta:
    return AlphaBeta(Game().rules, evaluation=load_evaluation(WEIGHTS["texel"]), threads=threads,
                     enhancements=Enhancements(quiescence=0, reductions=True))


def _time_to_depth(searcher: AlphaBeta, games: Sequence[Game], depth: int) -> Tuple[float, int, int]:
    """Seconds, caller's nodes and helpers' nodes of searching every game to ``depth``, each from an empty table."""
    seconds = 0.0
    nodes = helpers = 0
    for game in games:
        searcher.clear()
        start = time.perf_counter()
        found = searcher.search(game, depth)
        seconds += time.perf_counter() - start
        nodes += found.nodes
        helpers += searcher.helper_nodes
    return seconds, nodes, helpers


def _side_by_side(threads: int, games: Sequence[Game], depth: int) -> float:
    """Seconds for ``threads`` one-thread searchers to search every game to ``depth`` at once, sharing nothing."""
    searchers = [_searcher(1) for _ in range(threads)]
    with ThreadPoolExecutor(threads) as pool:  # plain threads: the searchers' own helpers are what is measured
        start = time.perf_counter()
        list(pool.map(lambda searcher: _time_to_depth(searcher, games, depth), searchers))
        return time.perf_counter() - start


def measure(depths: Sequence[int] = DEPTHS, repeats: int = 3, cores: Optional[int] = None) -> List[Dict[str, float]]:
    """One row per depth and number of threads (1 to ``cores``): the best of ``repeats`` runs."""
    cores = cores or resolve_threads(0)
    games = _positions()
    searchers = {threads: _searcher(threads) for threads in range(1, cores + 1)}
    rows = []
    for depth in depths:
        best: Dict[int, Tuple[float, int, int]] = {}
        for _ in range(repeats):  # the numbers of threads take turns, so a change in the machine's load falls on all
            for threads, searcher in searchers.items():
                measured = _time_to_depth(searcher, games, depth)
                if threads not in best or measured[0] < best[threads][0]:
                    best[threads] = measured
        for threads, (seconds, nodes, helpers) in best.items():
            rows.append(dict(depth=depth, threads=threads, kind="shared table", seconds=round(seconds, 4),
                             speedup=round(best[1][0] / seconds, 3), nodes=nodes, helper_nodes=helpers))
        for threads in range(2, cores + 1):
            alone = best[1][0]
            together = min(_side_by_side(threads, games, depth) for _ in range(repeats))
            rows.append(dict(depth=depth, threads=threads, kind="side by side", seconds=round(together, 4),
                             speedup=round(threads * alone / together, 3), nodes=threads * best[1][1],
                             helper_nodes=0))  # the ceiling: K searches' work in this time
    return rows


def run(depths: Sequence[int] = DEPTHS, out: Optional[str] = None) -> List[str]:
    rows = measure(depths)
    lines = [f"# αβ on several threads sharing its table: time to a fixed depth ({POSITIONS} positions, "
             "the champion's search, best of 3)"]
    for row in rows:
        if row["kind"] == "side by side":
            lines.append(f"depth {row['depth']:2}, {row['threads']} one-thread searches side by side: "
                         f"{row['speedup']:.2f}x the work of one in its time (the machine's ceiling)")
        else:
            lines.append(f"depth {row['depth']:2}, {row['threads']} thread(s): {row['seconds']:.3f} s, "
                         f"speed-up {row['speedup']:.2f}x, {row['nodes']:,} positions "
                         f"(+{row['helper_nodes']:,} by the helpers)")
    if out:
        with open(out, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depths", type=int, nargs="+", default=list(DEPTHS), help="depths to reach")
    parser.add_argument("--out", help="also write the rows as CSV")
    args = parser.parse_args(argv)
    print(f"# {platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} cores")
    print("\n".join(run(args.depths, args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
