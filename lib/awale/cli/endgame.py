"""``python -m awale endgame build | check``: endgame databases built, and checked against exact searches."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable

from ..core._guard import available_cores
from .arguments import Failure, format_table, integer

__all__ = ["add"]


def add(commands: Any) -> None:
    """The ``endgame build | check`` commands (awale.knowledge.endgame)."""
    endgame = commands.add_parser(
        "endgame",
        help="build or check an endgame database (retrograde analysis)",
        description="Exact values of every position with few seeds on the board (awale.knowledge.endgame).",
    )
    actions = endgame.add_subparsers(dest="action", metavar="ACTION", required=True)
    building = actions.add_parser(
        "build",
        help="solve every position with at most S seeds on the board",
        description="Solve every position with at most S seeds on the board by retrograde analysis and write "
        "the values to PATH (one byte per position, with a header), layer by layer, on both cores. A stopped "
        "build resumes from its last finished layer. Abapa rules; 15 seeds take about 8 s, 20 seeds about 2 min, "
        "226 MB of disk and 0.5 GB of memory beyond it, 25 seeds about 16 min, 1.85 GB of disk and 3.6 GB of "
        "memory (each position settled once by counts, six bytes a position of the largest layer).",
    )
    building.add_argument("--seeds", type=integer(0, "--seeds"), required=True, metavar="S", help="most seeds on the board")
    building.add_argument(
        "--out", default=None, metavar="PATH",
        help="the database file to write (default: the cache file that endgame='S' uses)",
    )
    building.add_argument("--pits", type=integer(2, "--pits"), default=6, metavar="N", help="pits per side (default 6)")
    building.add_argument(
        "--seeds-per-pit", type=integer(1, "--seeds-per-pit"), default=4, metavar="K", help="seeds per pit at the start (default 4)"
    )
    building.add_argument(
        "--memory", type=integer(1, "--memory"), default=4096, metavar="MIB",
        help="refuse a build needing more memory beyond the file (default 4096)",
    )
    building.add_argument(
        "--threads", type=integer(1, "--threads", available_cores(), ", the cores this process may use"), default=None,
        metavar="T", help=f"threads (default: one per core, here {available_cores()})"
    )
    building.add_argument(
        "--from", dest="source", default=None, metavar="DB",
        help="copy the layers that a database of the same rules already holds (any seeds, each checked against "
        "its checksum) instead of solving them: a 25-seed database from a 28-seed one in seconds",
    )
    building.add_argument(
        "--cluster", default=None, metavar="ADDRESS|local:N",
        help="build on a Dask cluster: local:N starts N local worker processes (one thread each), an address "
        "such as tcp://host:8786 joins the cluster of a dask-scheduler started by hand. Each layer is cut into one "
        "range of positions a worker; PATH must be on a file system every worker sees, at the same path; "
        "--memory and --threads are then a worker's (default one thread)",
    )
    building.set_defaults(handler=run_build)
    checking = actions.add_parser(
        "check",
        help="check a database: checksum, recurrence, exact searches",
        description="Check a database: its checksum, the minimax recurrence on every position, and N random "
        "positions against the history-aware αβ search. Exit status 1 if anything fails or a disagreement "
        "is not explained by the database's repetition rule.",
    )
    checking.add_argument("path", metavar="PATH", help="the database file")
    checking.add_argument("--sample", type=integer(0, "--sample"), default=100, metavar="N", help="positions compared (default 100)")
    checking.add_argument(
        "--max-seeds", type=integer(1, "--max-seeds"), default=4, metavar="M",
        help="sample positions with at most M seeds (default 4: αβ must finish)",
    )
    checking.add_argument(
        "--nodes", type=integer(1, "--nodes"), default=200_000, metavar="B", help="node budget of each search (default 200000)"
    )
    checking.add_argument("--seed", type=integer(0, "--seed"), default=0, metavar="X", help="seed of the sample (default 0)")
    checking.add_argument(
        "--captures", type=integer(0, "--captures"), default=None, metavar="C",
        help="also check the captures question on every position with at most C seeds",
    )
    checking.add_argument(
        "--per-layer", type=integer(0, "--per-layer"), default=0, metavar="L",
        help="also compare L random positions of every layer with an exact search of the database's own game",
    )
    checking.add_argument(
        "--threads", type=integer(1, "--threads", available_cores(), ", the cores this process may use"), default=None,
        metavar="T", help=f"threads (default: one per core, here {available_cores()})"
    )
    checking.set_defaults(handler=run_check)


def _progress(label: str) -> Callable[[int, int, str], None]:
    """A one-line progress display on stderr (one line per layer when stderr is not a terminal)."""
    live = sys.stderr.isatty()
    last = [-1]

    def show(layer: int, done: int, message: str) -> None:
        if live:
            print(f"\r{label}: layer {layer}: {message}"[:100].ljust(100), end="", file=sys.stderr, flush=True)
        elif layer != last[0]:
            print(f"{label}: layer {layer}: {message}", file=sys.stderr, flush=True)
        last[0] = layer

    return show


def run_build(args: argparse.Namespace) -> int:
    import time

    from ..knowledge import endgame, endgame_build
    from ..knowledge.endgame_cache import built_database_path
    from ..core.rules import Rules

    rules = Rules(pits_per_side=args.pits, seeds_per_pit=args.seeds_per_pit)
    if args.cluster is not None:
        return _run_cluster_build(args, rules)
    endgame_build.check_build(rules, args.seeds, args.memory * 2**20)
    out = args.out or str(built_database_path(args.seeds, rules))
    if args.out is None:
        os.makedirs(os.path.dirname(out), exist_ok=True)
    start = time.perf_counter()
    source = None
    if args.source is not None:
        try:
            source = endgame.load(args.source)
        except (OSError, ValueError) as error:
            raise Failure(f"--from {args.source}: {getattr(error, 'strerror', None) or error}") from None
    database = endgame_build.build_file(out, rules, args.seeds, _progress("build"), args.memory * 2**20, args.threads,
                                  log=lambda line: print(line, file=sys.stderr), source=source)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"{len(database):,} positions with at most {args.seeds} seeds written to {out} "
          f"in {time.perf_counter() - start:.1f} s (the values' sha256, kept in the header for 'endgame check': "
          f"{database.checksum[:16]}...)")
    return 0


def _run_cluster_build(args: argparse.Namespace, rules: Any) -> int:
    """``endgame build --cluster``: the build of :func:`awale.offline.endgame_dask.build_on_cluster`."""
    import importlib.util
    import time

    from ..experiments.clusters import RunnerError, cluster
    from ..knowledge import endgame_build
    from ..knowledge.endgame_cache import built_database_path
    from ..offline import endgame_dask

    try:
        workers, scheduler = endgame_dask.parse_cluster(args.cluster)
        endgame_build.check_build(rules, args.seeds)
    except ValueError as error:
        raise Failure(str(error)) from None
    if args.source is not None:
        raise Failure("--from copies layers on this machine: build without --cluster to copy them")
    out = args.out or str(built_database_path(args.seeds, rules))
    if args.out is None:
        os.makedirs(os.path.dirname(out), exist_ok=True)
    dashboard = "127.0.0.1:0" if importlib.util.find_spec("bokeh") else None
    start = time.perf_counter()
    stats = endgame_dask.BuildStats()
    try:
        with cluster(workers=workers, scheduler=scheduler, dashboard=dashboard) as (client, where):
            link = getattr(client, "dashboard_link", None) if (scheduler or dashboard) else None
            print(f"build: {args.seeds} seeds {where}; Dask's dashboard: "
                  f"{link or 'none (install bokeh to have one)'}", file=sys.stderr, flush=True)
            try:
                database = endgame_dask.build_on_cluster(
                    out, client, rules, args.seeds, _progress("build"), args.memory * 2**20, args.threads or 1,
                    log=lambda line: print(line, file=sys.stderr, flush=True), stats=stats)
            except KeyboardInterrupt:
                if sys.stderr.isatty():
                    print(file=sys.stderr)
                raise Failure(f"interrupted: the finished layers are kept in {out}.part; run the same command "
                              f"again to resume from the first layer not finished", 130) from None
    except (RunnerError, endgame_dask.ClusterBuildError) as error:
        raise Failure(str(error)) from None
    if sys.stderr.isatty():
        print(file=sys.stderr)
    seconds = time.perf_counter() - start
    print(f"{len(database):,} positions with at most {args.seeds} seeds written to {out} in {seconds:.1f} s "
          f"({stats.rounds:,} rounds, {stats.exchanged / 2**20:,.1f} MiB exchanged between shares, "
          f"{stats.exchanged / max(1, stats.positions):.2f} bytes a position; the values' sha256, kept in the "
          f"header for 'endgame check': {database.checksum[:16]}...)")
    return 0


def run_check(args: argparse.Namespace) -> int:
    import collections

    from ..knowledge import endgame
    from ..offline import endgame_checks
    from ..search.alphabeta import AlphaBeta

    database = endgame.load(args.path)
    failed = False
    if not database.verify_checksum():
        print(f"checksum: the values do not match the header's sha256", file=sys.stderr)
        failed = True
    damaged = database.verify_layers()
    if damaged:
        print(f"checksum: the values of layers {damaged} do not match their checksums", file=sys.stderr)
        failed = True
    errors = database.recurrence_errors(_progress("recurrence"), args.threads)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"recurrence: {errors:,} of {len(database):,} positions break it")
    failed |= errors > 0
    if args.captures is not None:
        found = endgame_checks.captures_check(database, args.captures, _progress("captures"))
        print(f"captures question: {found['cases']:,} position-splits, {found['value']} wrong results, "
              f"{found['best']} best moves not among the best results")
        failed |= found["value"] + found["best"] > 0
    if args.per_layer:
        rows = []
        for seeds in range(1, database.seeds + 1):
            found = endgame_checks.search_check(database, seeds, args.per_layer, args.nodes, args.seed)
            rows.append((seeds, found["agree"], found["disagree"], found["undecided"]))
            failed |= found["disagree"] > 0
        print(format_table(("layer", "agree", "disagree", "undecided"), rows))
    counts: "collections.Counter[str]" = collections.Counter()
    searcher = AlphaBeta(database.rules)
    indices = endgame_checks.sample(database, args.sample, args.seed, args.max_seeds) if args.sample else []
    for done, index in enumerate(indices, 1):
        comparison = endgame_checks.compare(database, index, searcher, args.nodes)
        counts[comparison.status] += 1
        if comparison.status == "unexplained":
            print(f"unexplained: {comparison}")
        if sys.stderr.isatty():
            print(f"\rcompared {done}/{len(indices)}", end="", file=sys.stderr, flush=True)
    if indices:
        if sys.stderr.isatty():
            print(file=sys.stderr)
        rows = [(status, counts[status]) for status in ("agree", "explained", "unexplained", "undecided")]
        print(format_table(("positions", "count"), rows))
    failed |= counts["unexplained"] > 0
    return 1 if failed else 0
