"""Run the benchmarks and print our figures beside our peers', as ratios (``make bench``)."""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import playouts  # noqa: E402

BENCHMARKS = {"playouts": playouts.run}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", choices=[[], *BENCHMARKS], default=[],
                        help=f"benchmarks to run (default: all of {', '.join(BENCHMARKS)})")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time spent measuring each figure (default: 3)")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    for name in args.names or BENCHMARKS:
        print("\n".join(BENCHMARKS[name](args.seconds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
