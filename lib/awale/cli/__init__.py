"""The command line: ``python -m awale tournament | experiment | match | play | replay | endgame | book``,
``sprt``, ``ledger``, ``engine`` and ``evaluation``.

::

    python -m awale tournament SPEC SPEC [SPEC ...] --games N [--seed S] [--clock BASE+INC] --store PATH
                               [--workers K | --scheduler ADDR] [--name NAME] [--batch-size B]
    python -m awale experiment list [--store PATH]
    python -m awale experiment run (NAME | --all) [--games N] [--store PATH] [--workers K | --scheduler ADDR]
    python -m awale experiment status NAME [--games N] [--store PATH]
    python -m awale experiment verify [NAME] [--sample N | --replay-all] [--seed S] [--store PATH]
    python -m awale experiment calibrate [NAME ...] [--fit [FAMILY ...] --targets MS ... | --replay K|all [--workers K]]
                                         [--out CSV]
    python -m awale match SPEC SPEC [--seed S] [--clock BASE+INC] [--show]
    python -m awale play [SPEC] [--side south|north] [--rules RULES] [--seed S] [--save FILE] [--color WHEN]
    python -m awale replay FILE [--color WHEN]
    python -m awale endgame build --seeds S --out PATH [--pits N] [--seeds-per-pit K] [--memory MIB]
    python -m awale endgame check PATH [--sample N] [--max-seeds M] [--nodes B] [--seed X] [--captures C]
    python -m awale book build --agent SPEC --plies D --out PATH
    python -m awale book grow --positions N --out PATH [--search SPEC] [--state PATH] [--weight W] [--batch B]
                              [--workers K] [--save-every SECONDS]
    python -m awale sprt A B --elo0 E0 --elo1 E1 [--alpha A --beta B] [--openings FILE] [--max-pairs N]
                    [--seed S] [--clock BASE+INC] [--store PATH] [--workers K | --scheduler ADDR]
                    [--ledger IDEA [--ledger-file CSV]]
    python -m awale ledger [--file CSV] [--check] [--store PATH]
    python -m awale engine [SPEC]
    python -m awale evaluation train [--games G] [--out DIR] [--store PATH] [--depth D] [--mix L]
                                     [--endgame-seeds S] [--seed N] [--cluster local:N|ADDRESS]

``tournament``, ``match`` and ``sprt`` also take ``--engine NAME=COMMAND`` (repeatable): a side
``engine(name='NAME')`` is then the program COMMAND, spoken to through the protocol of ``engine``
(:mod:`awale.play.protocol`); nothing read from a store or a file ever starts a program.

Exit status: 0 on success, 1 when some games failed (or failed verification), 2 for bad arguments or an
unusable store or cluster (one line on stderr), 130 when interrupted (Ctrl-C
or SIGTERM, at any moment from the imports on; the finished games are kept
and the same command resumes).  ``--workers`` is at most the number of cores,
``--games`` at most :data:`awale.experiments.runner.MAX_GAMES` in all.

``--clock 60+0.5`` plays every game under a clock, as engine testers do: 60 s a
side for the game plus 0.5 s after each move; a side whose time runs out loses
on time.  Each agent is then stored as ``clocked(agent=SPEC, tc='60+0.5')``
(:mod:`awale.agents.clocked`), so games under different clocks never share a
key, and such games are not replayed by ``experiment verify``.

Each command is a module of this package (:mod:`~awale.cli.tournament`, :mod:`~awale.cli.experiment`,
:mod:`~awale.cli.match`, :mod:`~awale.cli.play`, :mod:`~awale.cli.endgame`, :mod:`~awale.cli.book`,
:mod:`~awale.cli.sprt`, :mod:`~awale.cli.engine`, :mod:`~awale.cli.evaluation`) with an ``add(commands)`` that declares its arguments and its
handler; a handler imports what it needs when it runs, so that ``--help`` and the light commands load no
experiment, nor Dask.
"""

from __future__ import annotations

import argparse
import signal
import sqlite3
import sys
import threading
from typing import Any, Callable, Optional, Sequence

from . import book, endgame, engine, evaluation, experiment, match, play, sprt, tournament
from .arguments import PROG, Failure, Parser

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """The parser of the command line."""
    parser = Parser(
        prog=PROG,
        description="Awale agents: tournaments and experiments into an SQLite store, single games.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in (tournament, experiment, match, play, endgame, book, sprt, engine, evaluation):
        command.add(commands)
    return parser


def _expected(error: Exception) -> bool:
    """Whether ``error`` is reported in one line: a bad value, or an unusable store or cluster (the experiments'
    errors are known only once a command has loaded them)."""
    experiments = sys.modules.get("awale.experiments")
    known = (ValueError, sqlite3.Error) + ((experiments.StoreError, experiments.RunnerError) if experiments else ())
    return isinstance(error, known)


def _terminate(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


#: Seconds before a Ctrl-C that a callback from C swallowed is sent again.
RESEND_SECONDS = 0.05


def _resend_swallowed_interrupt(unraisable: Any) -> None:
    """``sys.unraisablehook`` while a command runs: Python cannot raise a Ctrl-C that arrives inside a callback
    from C (numba compiling through llvmlite, say) and reports it as ignored; send the signal again a moment later,
    once Python code runs again, instead of printing a traceback and going on as if nothing had been asked."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        # to the main thread itself, so that a call it waits in (a sleep, a read) is interrupted at once (where
        # threads can be signalled: not on Windows, which has only raise_signal)
        if hasattr(signal, "pthread_kill"):
            send, arguments = signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT)
        else:
            send, arguments = signal.raise_signal, (signal.SIGINT,)
        timer = threading.Timer(RESEND_SECONDS, send, arguments)
        timer.daemon = True
        timer.start()
        return
    sys.__unraisablehook__(unraisable)


def _from_ctrl_c(error: BaseException) -> bool:
    """Whether ``error`` is what a library made of a Ctrl-C: an import interrupted ends as an ImportError, say.

    Follows the chain Python keeps (``raise ... from``, or an exception raised while handling another) to a
    KeyboardInterrupt; a library that drops that chain cannot be told apart from a genuine failure.
    """
    seen = set()
    cause: Optional[BaseException] = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or (None if cause.__suppress_context__ else cause.__context__)
    return False


def _handled(handler: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``handler(args)``, with an error that a Ctrl-C caused raised as the KeyboardInterrupt it was."""
    try:
        return handler(args)
    except Failure:
        raise  # its message says what the interruption left (an interrupted test's games, say)
    except Exception as error:
        if _from_ctrl_c(error):
            raise KeyboardInterrupt from error
        raise


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line with ``argv`` (by default ``sys.argv[1:]``) and return the exit status."""
    if not (sys.argv[1:] if argv is None else list(argv)):  # no command: what there is to do
        build_parser().print_help()
        return 0
    try:
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    previous = None
    if hasattr(signal, "SIGTERM"):
        previous = signal.signal(signal.SIGTERM, _terminate)  # a polite kill stops like Ctrl-C
    hook, sys.unraisablehook = sys.unraisablehook, _resend_swallowed_interrupt
    try:
        return _handled(args.handler, args)
    except Failure as failure:
        print(f"{PROG}: {'error: ' if failure.status == 2 else ''}{failure}", file=sys.stderr)
        return failure.status
    except OSError as error:
        print(f"{PROG}: error: {error.strerror or error}{f': {error.filename}' if error.filename else ''}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:
        if not _expected(error):
            raise
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    finally:
        sys.unraisablehook = hook
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
