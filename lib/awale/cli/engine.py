"""``python -m awale engine``: an agent that speaks the engine protocol on standard input and output."""

from __future__ import annotations

import argparse
import io
import sys
from typing import Any

from .arguments import Failure, agent_spec

__all__ = ["add"]


def add(commands: Any) -> None:
    """The ``engine`` command (awale.play.protocol)."""
    engine = commands.add_parser(
        "engine",
        help="speak the engine protocol (UCI-style) on standard input and output",
        description="Play an agent through the engine protocol, as chess engines speak UCI: commands on standard "
        "input (uci, isready, ucinewgame, setoption, position, go, stop, quit), answers on standard output "
        "(id, option, uciok, readyok, info, bestmove). Moves are pit labels: A-F South's pits, a-f North's, each "
        "from its owner's left. A line the engine cannot read is answered by 'info string' and ignored. "
        "The protocol is described on the site's page 'The engine protocol'.",
    )
    engine.add_argument("spec", nargs="?", type=agent_spec, default=None, metavar="SPEC",
                        help="the agent, e.g. 'uct(iterations=5000)' (default: the champion that 'play' uses)")
    engine.set_defaults(handler=run_engine)


def run_engine(args: argparse.Namespace) -> int:
    from ..play.protocol import EngineServer
    from ..play.terminal import default_opponent

    spec = args.spec or default_opponent().spec
    out = sys.stdout

    def write(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    try:
        server = EngineServer(spec, write)
    except ValueError as error:
        raise Failure(str(error)) from None
    server.serve(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    return 0
