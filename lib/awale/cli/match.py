"""``python -m awale match``: one game between two agents, printed."""

from __future__ import annotations

import argparse
from typing import Any

from .arguments import CLOCK_HELP, add_engines, agent_spec, clock_value, integer, with_engines

__all__ = ["add"]


def add(commands: Any) -> None:
    """The ``match`` command."""
    match = commands.add_parser(
        "match",
        help="play one game and print it",
        description="Play one game, South first, under the Abapa rules, and print the result.",
    )
    match.add_argument("south", type=agent_spec, metavar="SPEC", help="South's agent")
    match.add_argument("north", type=agent_spec, metavar="SPEC", help="North's agent")
    match.add_argument("--seed", type=integer(0, "--seed"), default=0, metavar="S", help="the match seed (default 0)")
    match.add_argument("--clock", type=clock_value, default=None, metavar="BASE+INC", help=CLOCK_HELP)
    match.add_argument("--show", action="store_true", help="print every position as a board")
    add_engines(match)
    match.set_defaults(handler=with_engines(run_match, lambda args: [args.south, args.north]))


def run_match(args: argparse.Namespace) -> int:
    from ..core.game import Game
    from ..core.render import pit_label
    from ..play.match import play, score_text, shown_spec

    record = play(args.south, args.north, seed=args.seed, clock=args.clock)
    print(f"South: {shown_spec(record.south)}\nNorth: {shown_spec(record.north)}\nseed {record.seed}")
    if args.show:
        game = Game(record.rules)
        print(f"\n{game}")
        n = record.rules.pits_per_side
        for ply, action in enumerate(record.moves, start=1):
            player = game.current_player
            game, captured, _ = game.step(action)
            took = f", captures {captured}" if captured else ""
            print(f"\nply {ply}: {('South', 'North')[player]} plays {pit_label(player * n + action, n)}{took}\n{game}")
    outcome = score_text(record.score, record.winner)
    if record.flagged is not None:
        loser = ("South", "North")[record.flagged]
        outcome = (f"{('South', 'North')[1 - record.flagged]} wins on time ({loser} ran out of time); "
                   f"the captures then: South {record.score[0]}, North {record.score[1]}")
    print(f"\n{outcome} ({record.plies} pl{'y' if record.plies == 1 else 'ies'})")
    if args.clock is not None:
        print(f"time used: South {record.south_seconds:.2f} s, North {record.north_seconds:.2f} s "
              f"of {args.clock} each")
    return 0
