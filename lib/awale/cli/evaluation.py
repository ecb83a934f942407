"""``python -m awale evaluation train``: the pattern evaluation trained where the champion searches."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .arguments import Failure, integer, number

__all__ = ["add"]


def add(commands: Any) -> None:
    """The ``evaluation train`` command (awale.offline.evaluation_train)."""
    evaluation = commands.add_parser(
        "evaluation",
        help="train the pattern evaluation",
        description="Learned evaluations (awale.knowledge.evaluation.PatternEvaluation, "
        "awale.offline.evaluation_train).",
    )
    actions = evaluation.add_subparsers(dest="action", metavar="ACTION", required=True)
    training = actions.add_parser(
        "train",
        help="sample, label and fit the pattern weights (resumable)",
        description="Sample positions from the champion's stored games and 1-8-ply random walks from them, label "
        "them by the endgame database (at most --endgame-seeds seeds on the board) or by a depth-D alpha-beta "
        "value mixed with the game's result, and fit the 9 linear weights and the pattern tables by L-BFGS from "
        "the Texel weights; a fifth of the games held out. Chunks of games are labelled one file each under "
        "OUT/chunks: the same command resumes a stopped run. Writes OUT/evaluation-patterns.npz and "
        "OUT/report.json (held-out log-loss of patterns, texel and a linear refit, by seeds on the board).",
    )
    training.add_argument("--store", default="data/experiments.sqlite", metavar="PATH",
                          help="the store whose champion games are sampled (default data/experiments.sqlite)")
    training.add_argument("--out", default="data/evaluation/patterns", metavar="DIR",
                          help="the run's folder (default data/evaluation/patterns)")
    training.add_argument("--games", type=integer(1, "--games"), default=400, metavar="G",
                          help="champion games sampled (default 400)")
    training.add_argument("--chunk-games", type=integer(1, "--chunk-games"), default=20, metavar="C",
                          help="games a chunk, the unit of resuming (default 20; part of the run's definition)")
    training.add_argument("--keep", type=number("--keep", 0.001, 1), default=0.3, metavar="P",
                          help="share of each game's positions kept (default 0.3)")
    training.add_argument("--depth", type=integer(1, "--depth", 30), default=8, metavar="D",
                          help="depth of the labelling search (default 8)")
    training.add_argument("--mix", type=number("--mix", 0, 1), default=0.25, metavar="L",
                          help="weight of the game's result beside the search's value (default 0.25)")
    training.add_argument("--endgame-seeds", type=integer(0, "--endgame-seeds", 48), default=20, metavar="S",
                          help="label positions of at most S seeds by the built endgame database (default 20; "
                          "0: none)")
    training.add_argument("--probe", action="store_true",
                          help="the labelling search probes that endgame database at its leaves too")
    training.add_argument("--penalty", type=number("--penalty", 0, 1), default=1e-4, metavar="R",
                          help="L2 penalty of the tables (default 1e-4)")
    training.add_argument("--iterations", type=integer(1, "--iterations"), default=300, metavar="N",
                          help="most L-BFGS iterations (default 300)")
    training.add_argument("--curve", type=_shares, default=(), metavar="P,P,...",
                          help="also fit on these shares of the training games and report each one's held-out "
                          "log-loss (a learning curve, e.g. 0.25,0.5; default none)")
    training.add_argument("--seed", type=integer(0, "--seed"), default=2026, metavar="N", help="the seed (default 2026)")
    training.add_argument(
        "--cluster", default=None, metavar="ADDRESS|local:N",
        help="label the chunks on a Dask cluster: local:N starts N local worker processes, an address such as "
        "tcp://host:8786 joins a running scheduler (the same files as without)")
    training.set_defaults(handler=run_train)


def _shares(text: str) -> tuple:
    """``--curve``'s value: shares between 0 and 1, comma-separated."""
    try:
        shares = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--curve takes shares such as 0.25,0.5, not {text!r}") from None
    if not all(0 < share < 1 for share in shares):
        raise argparse.ArgumentTypeError(f"--curve's shares must lie between 0 and 1, got {text!r}")
    return shares


def run_train(args: argparse.Namespace) -> int:
    """``evaluation train``: the pipeline of :func:`awale.offline.evaluation_train.train`."""
    from ..offline.evaluation_train import TrainConfig, train

    try:
        config = TrainConfig(store=args.store, out=args.out, games=args.games, chunk_games=args.chunk_games,
                             keep=args.keep, depth=args.depth, mix=args.mix, endgame_seeds=args.endgame_seeds,
                             probe=args.probe, penalty=args.penalty, iterations=args.iterations, curve=args.curve,
                             seed=args.seed)
    except ValueError as error:
        raise Failure(str(error)) from None
    try:
        if args.cluster is None:
            report = train(config)
        else:
            from ..experiments.clusters import RunnerError, cluster
            from ..offline.endgame_dask import parse_cluster

            workers, scheduler = parse_cluster(args.cluster)
            try:
                with cluster(workers, scheduler) as (client, where):
                    print(f"labelling {where}")
                    report = train(config, client)
            except RunnerError as error:
                raise Failure(str(error)) from None
    except ValueError as error:
        raise Failure(str(error)) from None
    for name, entry in report["models"].items():
        bands = ", ".join(f"{band} {v['log_loss']:.4f}" for band, v in entry["by_seeds"].items())
        print(f"{name:<13} held-out log-loss {entry['log_loss']:.4f} ({bands}); database agreement "
              f"{entry['database_agreement']}")
    for name, entry in report["families"].items():
        print(f"without the {name:<13} held-out log-loss {entry['log_loss_without']:.4f} ({entry['rise']:+.4f})")
    meta = report["meta"]
    print(f"{meta['positions']:,} positions of {meta['games']} games ({meta['held_out_games']} held out); weights "
          f"and report in {args.out}")
    return 0
