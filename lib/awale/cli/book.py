"""``python -m awale book build | grow``: opening books searched full width, or grown by drop-out expansion."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, List

from ..core._guard import available_cores
from .arguments import Failure, agent_spec, info, integer, number

__all__ = ["add"]


def add(commands: Any) -> None:
    """The ``book build`` and ``book grow`` commands (awale.offline.book_builder)."""
    from ..offline.book_builder import DEFAULT_BATCH, DEFAULT_SEARCH, DEFAULT_WEIGHT, MAX_BATCH, MAX_POSITIONS, SAVE_SECONDS

    book = commands.add_parser(
        "book",
        help="build or grow an opening book with a search",
        description="Opening books: the move of a search in every position of the first plies (build), or in the "
        "positions chosen by drop-out expansion (grow) (awale.offline.book_builder).",
    )
    actions = book.add_subparsers(dest="action", metavar="ACTION", required=True)
    building = actions.add_parser(
        "build",
        help="search every position the book's owner can meet in the first D plies",
        description="For each side, follow the agent's own move and every reply of the opponent for D plies, "
        "and write the agent's move in each position it meets to PATH (JSON with a header and a checksum). "
        "Abapa rules. About 6**(D/2) positions per side: D = 10 means some 3,000 searches.",
    )
    building.add_argument("--agent", type=agent_spec, required=True, metavar="SPEC", help="the search that picks the moves")
    building.add_argument("--plies", type=integer(1, "--plies"), required=True, metavar="D", help="depth of the book in plies")
    building.add_argument("--out", required=True, metavar="PATH", help="the book file to write")
    building.set_defaults(handler=run_build)
    growing = actions.add_parser(
        "grow",
        help="grow a book by drop-out expansion to N positions (resumable)",
        description="Grow a book from the initial position by drop-out expansion (Lincke 2000): the leaf whose "
        "line has the smallest W * (sum of the drop-outs of its moves, in points) + (its plies) is searched next, "
        "every move of it valued by the search; positions are valued by negamax and the book holds the best move "
        "of every searched position. The graph is saved to the state file every few minutes, at the end and on "
        "Ctrl-C: the same command resumes it, or grows it further with a larger N. Abapa rules. The default "
        "search grew the shipped 20,000 positions in 21.5 minutes on 2 cores.",
    )
    growing.add_argument("--positions", type=integer(1, "--positions", MAX_POSITIONS), required=True, metavar="N",
                         help="positions with a book move to reach (the last batch may pass it)")
    growing.add_argument("--out", required=True, metavar="PATH",
                         help="the book file to write (gzip-compressed if PATH ends in .gz)")
    growing.add_argument("--search", type=agent_spec, default=DEFAULT_SEARCH, metavar="SPEC",
                         help=f"a minimax spec with a fixed depth (default {DEFAULT_SEARCH!r})")
    growing.add_argument("--state", default=None, metavar="PATH",
                         help="the state file to resume from and save to (default: PATH.state beside the book)")
    growing.add_argument("--weight", type=number("--weight", 0, 1000), default=DEFAULT_WEIGHT, metavar="W",
                         help=f"plies of priority per point of drop-out (default {DEFAULT_WEIGHT:g}; 0 grows "
                         "breadth first)")
    growing.add_argument("--batch", type=integer(1, "--batch", MAX_BATCH), default=DEFAULT_BATCH, metavar="B",
                         help=f"leaves expanded together (default {DEFAULT_BATCH}; part of the book's definition)")
    growing.add_argument(
        "--workers", type=integer(1, "--workers", available_cores(), ", the cores this process may use"),
        default=None, metavar="K",
        help=f"processes expanding a batch's leaves (default: one per core, here {available_cores()}); the book "
        "is the same for every K",
    )
    growing.add_argument("--save-every", type=number("--save-every", 0, 86_400), default=SAVE_SECONDS,
                         metavar="SECONDS", help=f"seconds between saves of the state (default {SAVE_SECONDS:g})")
    growing.set_defaults(handler=run_grow)


def run_build(args: argparse.Namespace) -> int:
    import time

    from tqdm.auto import tqdm

    from ..offline import book_builder as book

    if args.plies > book.MAX_PLIES:
        raise ValueError(f"--plies must be at most {book.MAX_PLIES}, got {args.plies}")
    start = time.perf_counter()
    with tqdm(desc="book", unit=" positions", disable=None) as bar:
        built = book.build(args.agent, args.plies, progress=lambda done: bar.update(done - bar.n))
    built.save(args.out)
    print(f"{len(built):,} positions to {args.plies} plies searched by {built.agent} and written to {args.out} "
          f"in {time.perf_counter() - start:.1f} s")
    return 0


#: Seconds between the progress lines of ``book grow`` when stderr is not a terminal.
_GROW_LOG_SECONDS = 60.0


def _duration(seconds: float) -> str:
    """``seconds`` as ``H:MM:SS`` (``?`` when unknown)."""
    if not seconds < 1e8:
        return "?"
    minutes, second = divmod(int(seconds), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{second:02d}"


def run_grow(args: argparse.Namespace) -> int:
    import time

    from tqdm.auto import tqdm

    from ..offline import book_builder as book

    growth = book.Growth(args.search, args.weight, args.batch)
    state = args.state or f"{args.out}.state"
    workers = args.workers or min(available_cores(), args.batch)
    start = time.perf_counter()
    bars: List[Any] = []
    first: List[int] = []  # the positions grown when this run began, and the time of the last line logged
    logged = [start]

    def show(status: book.GrowthProgress) -> None:
        if not first:
            first.append(status.expanded)
        if not sys.stderr.isatty():  # in the background (a log file): a line a minute, with the time left
            now = time.perf_counter()
            if now - logged[0] >= _GROW_LOG_SECONDS:
                logged[0] = now
                rate = (status.expanded - first[0]) / (now - start)
                left = (status.target - status.expanded) / rate if rate > 0 else float("inf")
                info(f"book grow: {status.expanded:,} of {status.target:,} positions (graph {status.nodes:,}), "
                     f"{rate:.2f} positions/s, ETA {_duration(left)}")
            return
        if not bars:  # made at the first report, from the positions already grown: its rate is this run's
            bars.append(tqdm(desc="book grow", total=status.target, initial=status.expanded, unit=" positions",
                             dynamic_ncols=True))
        bars[0].set_postfix(graph=f"{status.nodes:,}", priority=f"{status.priority:.2f}", refresh=False)
        bars[0].update(status.expanded - bars[0].n)

    if os.path.exists(state):
        info(f"book grow: resuming from {state}")
    try:
        grown = book.grow(growth, args.positions, state, workers, show, args.save_every)
    except book.GrowthInterrupted as interrupted:
        raise Failure(f"interrupted: {interrupted.expanded:,} positions are saved in {state}; run the same "
                      "command again to resume", 130) from None
    finally:
        for bar in bars:
            bar.close()
    grown.save(args.out)
    print(f"{len(grown):,} positions to {grown.plies} plies, {growth.method}, searched by {grown.agent}, written to "
          f"{args.out} ({os.path.getsize(args.out) / 1e6:.2f} MB) in {time.perf_counter() - start:.1f} s; "
          f"the graph is in {state}")
    return 0
