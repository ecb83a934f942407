"""Games played into the store, as ``tournament`` and ``experiment run`` play them, and their failures."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, List

from .arguments import PROG, Failure, info

if TYPE_CHECKING:
    from ..experiments import GameKey, RunSummary, Store

__all__ = ["run_games", "report_failures"]


def run_games(keys: List[GameKey], args: argparse.Namespace, name: str, store: Store) -> RunSummary:
    from ..experiments import RunInterrupted, local_workers, run

    todo = len(keys) - len({key.stored for key in keys} & store.keys(name))
    where = (
        f"on the Dask cluster at {args.scheduler}"
        if args.scheduler
        else "in this process"
        if args.workers == 0
        else f"on {local_workers(keys, args.workers)} local worker processes"
    )
    info(f"{name}: {len(keys)} games, {len(keys) - todo} already in {store.path}" + (f"; playing {todo} {where}" if todo else ""))
    try:
        summary = run(
            keys, store, name, workers=args.workers, scheduler=args.scheduler, batch_size=args.batch_size
        )
    except RunInterrupted as interrupted:
        summary = interrupted.summary
        raise Failure(
            f"interrupted: {summary.done} of {summary.total} games are in {store.path} "
            f"({summary.played} played now); run the same command again to resume",
            130,
        ) from None
    if summary.played:
        print(
            f"played {summary.played} games in {summary.seconds:.1f} s ({summary.games_per_second:.1f} games/s) "
            f"{summary.workers}; {summary.done} of {summary.total} in {store.path}"
        )
    if summary.elsewhere:
        info(f"{name}: {summary.elsewhere} games left to another run playing them on the same store")
    return summary


def report_failures(summary: RunSummary) -> int:
    if not summary.failed:
        return 0
    key, message = summary.failed[0]
    info(
        f"{PROG}: {len(summary.failed)} game(s) failed and were not stored; the first: {key}: {message}"
    )
    return 1
