"""``python -m awale tournament``: a round robin between agents, into the store."""

from __future__ import annotations

import argparse
from typing import Any

from .arguments import add_engines, user_store, with_engines
from .arguments import (CLOCK_HELP, Failure, add_cluster, add_store, agent_spec, clock_value, clocked, format_table,
                        integer, nonempty_name)
from .running import report_failures, run_games

__all__ = ["add"]


def add(commands: Any) -> None:
    """The ``tournament`` command."""
    tournament = commands.add_parser(
        "tournament",
        help="play a round robin between agents",
        description="Every pair of distinct agents plays N games, half with each as South. The games are "
        "stored as they finish; run the same command again to resume an interrupted tournament "
        "(only the missing games are played), or with more agents or games to extend it.",
    )
    tournament.add_argument("specs", nargs="+", type=agent_spec, metavar="SPEC", help="agent specs, e.g. 'uct(iterations=1000)'")
    tournament.add_argument("--games", type=integer(1, "--games"), required=True, metavar="N", help="games per pair of agents")
    tournament.add_argument("--seed", type=integer(0, "--seed"), default=0, metavar="S", help="base seed of the games (default 0)")
    tournament.add_argument("--clock", type=clock_value, default=None, metavar="BASE+INC", help=CLOCK_HELP)
    add_store(tournament, user=True)
    tournament.add_argument("--name", type=nonempty_name, default="tournament", help="experiment name in the store (default: tournament)")
    add_cluster(tournament)
    add_engines(tournament)
    tournament.set_defaults(handler=with_engines(run_tournament, lambda args: args.specs))


def run_tournament(args: argparse.Namespace) -> int:
    from ..experiments import Store, round_robin_keys, rules_to_text, standings

    try:
        keys = round_robin_keys(clocked(args.specs, args.clock), args.games, args.seed)
    except ValueError as error:
        raise Failure(str(error)) from None
    with Store(args.store or user_store()) as store:
        summary = run_games(keys, args, args.name, store)
        frame = store.load(args.name)
    wanted = {(key.south, key.north, key.seed) for key in keys}
    rules = rules_to_text(keys[0].rules)
    mask = [
        (south, north, seed) in wanted and text == rules
        for south, north, seed, text in zip(frame["south"], frame["north"], frame["seed"], frame["rules"])
    ]
    table = standings(frame[mask])
    print()
    print(format_table(
        ["agent", "games", "wins", "draws", "losses", "score"],
        [[row.Index, row.games, row.wins, row.draws, row.losses, f"{row.score:.3f}"] for row in table.itertuples()],
    ))
    return report_failures(summary)
