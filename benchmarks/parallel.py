"""Parallel MCTS: iterations per second on K = 1, 2, ... threads, each scheme beside the one-thread search.

For every K up to the cores present, a search from the initial position by
root, tree and leaf parallelisation (``awale.search.parallel``), the best of
a few searches, printed as iterations per second and as the speed-up over
the one-thread search measured in the same run.  Then where the time goes:

* the machine's own ceiling: K copies of the one-thread search run side by
  side in K threads, sharing nothing (what the cores, the memory bus and the
  other processes of the machine allow);
* the cost of the shared tree's atomic updates and of leaf
  parallelisation's hand-offs, measured on one thread (no contention);
* for leaf parallelisation, the descents per second, one per K playouts.

``--out FILE`` also writes the speed-ups as CSV (``scheme,threads,
iterations_per_second,speedup``), the file chapter 5 reads.

    python benchmarks/parallel.py --out data/parallel-speed.csv
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Dict, List, Optional, Tuple

from awale import Game
from awale.core.rules import seed_rng
from awale.search.mcts import SearchConfig, SearchTree
from awale.search.parallel import SCHEMES, SharedTree, resolve_threads, search_tree

__all__ = ["measure", "run"]

ITERATIONS = 100_000


def _rate(make: Callable[[int], object], iterations: int, repeats: int) -> float:
    """Iterations per second of ``make(seed).run(iterations)``: the best of ``repeats`` searches."""
    best = float("inf")
    for seed in range(repeats):
        tree = make(seed)
        start = time.perf_counter()
        tree.run(iterations)
        best = min(best, time.perf_counter() - start)
    return iterations / best


def _side_by_side(threads: int, iterations: int, repeats: int) -> float:
    """Iterations per second of ``threads`` one-thread searches run at once, sharing nothing."""
    best = float("inf")
    for seed in range(repeats):
        trees = [SearchTree(Game(), SearchConfig(), seed_rng(100 * seed + i), iterations + 1) for i in range(threads)]
        with ThreadPoolExecutor(threads) as pool:  # plain threads: the library's own are what is measured
            start = time.perf_counter()
            list(pool.map(lambda tree: tree.run(iterations), trees))
            best = min(best, time.perf_counter() - start)
    return threads * iterations / best


def measure(iterations: int = ITERATIONS, repeats: int = 3, cores: Optional[int] = None) -> Dict[Tuple[str, int], float]:
    """Iterations per second by ``(scheme, threads)``, threads from 1 to ``cores``; ``("one", 1)`` is the baseline."""
    cores = cores or resolve_threads(0)  # every core this process may use
    config = SearchConfig()
    rates = {("one", 1): _rate(lambda s: SearchTree(Game(), config, seed_rng(s), iterations + 1), iterations, repeats)}
    for threads in range(2, cores + 1):
        for scheme in SCHEMES:
            rates[scheme, threads] = _rate(
                lambda s: search_tree(Game(), config, seed_rng(s), iterations + 1, threads, scheme), iterations, repeats
            )
        rates["side by side", threads] = _side_by_side(threads, iterations // threads, repeats)
    for scheme in ("tree", "leaf"):  # the shared tree's kernels alone, on one thread
        rates[f"{scheme}, 1 thread", 1] = _rate(
            lambda s: SharedTree(Game(), config, seed_rng(s), iterations + 1, 1, scheme), iterations, repeats
        )
    return rates


def _lines(rates: Dict[Tuple[str, int], float], cores: int) -> List[str]:
    one = rates["one", 1]
    lines = [
        f"Parallel UCT from the initial position, iterations/s (speed-up over one thread), {cores} cores",
        f"  one thread                      {one:12,.0f}",
    ]
    for threads in range(2, cores + 1):
        for scheme in SCHEMES:
            rate = rates[scheme, threads]
            lines.append(f"  {scheme:<5} {threads:3d} threads               {rate:12,.0f}   {rate / one:5.2f} x")
    lines.append("Where the time goes")
    for threads in range(2, cores + 1):
        rate = rates["side by side", threads]
        lines.append(f"  {threads} one-thread searches side by side (the machine's ceiling) {rate:12,.0f}   "
                     f"{rate / one:5.2f} x")
        leaf = rates["leaf", threads]
        lines.append(f"  leaf, {threads} threads: {leaf / threads:,.0f} descents/s, each waiting for "
                     f"{threads} playouts")
    for scheme in ("tree", "leaf"):
        rate = rates[f"{scheme}, 1 thread", 1]
        lines.append(f"  {scheme} kernel on one thread (atomic updates, no contention) {rate:12,.0f}   "
                     f"{rate / one:5.2f} x")
    return lines


def _write(rates: Dict[Tuple[str, int], float], path: str) -> None:
    one = rates["one", 1]
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["scheme", "threads", "iterations_per_second", "speedup"])
        for (scheme, threads), rate in rates.items():
            writer.writerow([scheme, threads, round(rate), round(rate / one, 3)])


def run(iterations: int = ITERATIONS, repeats: int = 3, out: Optional[str] = None) -> List[str]:
    """Measure, optionally write the CSV, and return the report's lines."""
    SearchTree(Game(), SearchConfig(), seed_rng(0)).run(10)  # compile (or load the cache) first
    for scheme in ("tree", "leaf"):
        SharedTree(Game(), SearchConfig(), seed_rng(0), 11, 2, scheme).run(10)
    cores = resolve_threads(0)
    rates = measure(iterations, repeats, cores)
    if out:
        _write(rates, out)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return _lines(rates, cores) + [f"  (load average when done: {load:.1f} on {cores} cores)"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=ITERATIONS, help=f"iterations per search ({ITERATIONS:,})")
    parser.add_argument("--repeats", type=int, default=3, help="searches per figure, the best kept (3)")
    parser.add_argument("--out", metavar="CSV", help="also write the rates and speed-ups to this CSV file")
    args = parser.parse_args(argv)
    if args.iterations < 100 or args.repeats < 1:
        parser.error("--iterations must be at least 100 and --repeats at least 1")
    print(f"# {platform.machine()}, Python {platform.python_version()}")
    print("\n".join(run(args.iterations, args.repeats, args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
