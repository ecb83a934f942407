"""``python -m awale play`` and ``replay``: a game against an agent in the terminal, and a saved game shown."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable

from .. import DEFAULT_AGENT
from .arguments import Failure, agent_spec, info, integer, rules_value

__all__ = ["add", "quiet_on_closed_pipe"]


def add(commands: Any) -> None:
    """The subcommands ``play`` and ``replay`` (awale.play.terminal)."""
    game = commands.add_parser(
        "play",
        help="play a game against an agent in the terminal",
        description="Play against an agent: enter moves as pit letters or numbers; hint, undo, help and quit "
        "are also understood. The board shows the pit sown last (•) and the pits it captured (×).",
    )
    game.add_argument("agent", nargs="?", type=agent_spec, default=None, metavar="SPEC",
                      help=f"the opponent (default {DEFAULT_AGENT}, with endgame='25' or '15' when that database "
                      "is already built on this machine: it then plays perfectly from 25 or 15 seeds on the board)")
    game.add_argument("--side", choices=("south", "north"), default="south", help="your side; South moves first (default south)")
    game.add_argument("--rules", type=rules_value, default=None, metavar="RULES",
                      help="abapa (default), simplified, or key=value pairs such as 'pits_per_side=4,feed=false'")
    game.add_argument("--seed", type=integer(0, "--seed"), default=0, metavar="S", help="the agent's seed (default 0)")
    game.add_argument("--save", metavar="FILE",
                      help="save the game to FILE when it ends, when you quit or press Ctrl-C (see: replay); its "
                      "folder must exist, or be made with --mkdir")
    game.add_argument("--mkdir", action="store_true", help="make the folder of --save FILE if it does not exist")
    _add_colour(game)
    game.set_defaults(handler=run_play)
    again = commands.add_parser(
        "replay",
        help="show a saved game ply by ply",
        description="Print every position of a game saved by play --save, or one of them (--ply), or one "
        "at a time (--step: Enter shows the next, q stops).",
    )
    again.add_argument("file", metavar="FILE", help="a game file written by play --save")
    shown = again.add_mutually_exclusive_group()
    shown.add_argument("--step", action="store_true", help="wait for Enter after each position (q stops)")
    shown.add_argument("--ply", type=integer(0, "--ply"), default=None, metavar="N",
                       help="show only the position after ply N (0: the start)")
    _add_colour(again)
    again.set_defaults(handler=run_replay)


def _add_colour(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the board: auto (a terminal, unless NO_COLOR is set), always or never")


def run_play(args: argparse.Namespace) -> int:
    from ..play.terminal import default_opponent, play_terminal

    if args.save is not None:
        _check_save(args.save, args.mkdir)
    agent = args.agent
    if agent is None:
        agent = default_opponent(args.rules)
        if agent.endgame is None:
            info(f"play: no endgame database is built here; play \"{agent.replace(endgame='25')}\" to build "
                 "and use the 25-seed one (once: 16 minutes on 2 cores, 1.85 GB), or endgame='15' (8 s)")
    return play_terminal(agent, side=("south", "north").index(args.side), rules=args.rules, seed=args.seed,
                         save=args.save, colour=args.color)


def _check_save(path: str, mkdir: bool) -> None:
    """``play --save PATH``: refuse, before the game, a path the game could not be saved to."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise Failure(f"--save {path}: that is a folder; give a file in it, such as {os.path.join(path, 'game.json')}")
    if not os.path.isdir(folder):
        if not mkdir:
            raise Failure(f"--save {path}: the folder {folder} does not exist (add --mkdir to make it)")
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as error:
            raise Failure(f"--save {path}: cannot make the folder {folder}: {error.strerror or error}") from None
    if not os.access(folder, os.W_OK):
        raise Failure(f"--save {path}: the folder {folder} is not writable")


def run_replay(args: argparse.Namespace) -> int:
    from ..play.terminal import replay_terminal

    try:
        return quiet_on_closed_pipe(replay_terminal, args.file, colour=args.color, step=args.step, ply=args.ply)
    except UnicodeDecodeError:
        raise Failure(f"{args.file} is not a game file: it is not text (a game file is JSON, written by play --save)"
                      ) from None


def quiet_on_closed_pipe(function: Callable[..., int], *args: Any, **kwargs: Any) -> int:
    """Run a command that prints; when its reader stops early (``replay game.json | head``), end quietly.

    The rest of the output goes to the null device, so that Python's last flush at exit finds no closed pipe.
    """
    try:
        return function(*args, **kwargs)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
