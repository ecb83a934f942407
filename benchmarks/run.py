"""Run the benchmarks and print our figures beside our peers', as ratios (``make bench``)."""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import champion  # noqa: E402
import endgame  # noqa: E402
import evaluation  # noqa: E402
import limits  # noqa: E402
import mcts  # noqa: E402
import parallel  # noqa: E402
import playouts  # noqa: E402
import smp  # noqa: E402

BENCHMARKS = {
    "playouts": lambda args: playouts.run(budget=args.seconds),
    "mcts": lambda args: mcts.run(games_per_match=args.games),
    "parallel": lambda args: parallel.run(),
    "smp": lambda args: smp.run(),
    "endgame": lambda args: endgame.run(),
    "evaluation": lambda args: evaluation.run(),
    "champion": lambda args: champion.run(games=args.games),
    "limits": lambda args: limits.run(),
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"benchmarks to run, among: {', '.join(BENCHMARKS)} (default: all)")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time spent measuring each playout rate (default: 3)")
    parser.add_argument("--games", type=int, default=40,
                        help="games per match in the game benchmarks (default: 40)")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}; choose among {', '.join(BENCHMARKS)}")
    if args.seconds <= 0 or args.games < 1:
        parser.error("--seconds must be positive and --games at least 1")
    print(f"# {platform.machine()}, Python {platform.python_version()}")
    for name in args.names or BENCHMARKS:
        print("\n".join(BENCHMARKS[name](args)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
