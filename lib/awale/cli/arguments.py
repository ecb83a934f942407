"""What the commands share: the parser, the one-line failure, the argument types and the common options."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable, Dict, List, NoReturn, Optional, Sequence, Tuple, Union

from ..core._guard import available_cores

__all__ = ["PROG", "Parser", "Failure", "integer", "number", "clock_value", "CLOCK_HELP", "clocked", "agent_spec",
           "replayed", "milliseconds", "nonempty_name", "rules_value", "default_store", "add_store", "add_cluster",
           "info", "format_table", "DEFAULT_STORE", "DEFAULT_LEDGER", "USER_STORE", "user_store", "as_given",
           "add_engines", "with_engines"]

PROG = "python -m awale"

#: The thesis's committed store: the default of ``experiment`` (its catalogue), which says so before it plays.
DEFAULT_STORE = "data/experiments.sqlite"
#: The store of the games a user plays (``sprt``, ``tournament``, ``ledger --check``) when ``--store`` is not
#: given: ``$AWALE_STORE``, else this file in the working folder.  The committed store is written only when named.
USER_STORE = "awale-games.sqlite"



#: The ledger of ideas that ``sprt --ledger`` writes and ``ledger`` reads, unless told otherwise.
DEFAULT_LEDGER = "data/strength/ledger.csv"


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class Failure(Exception):
    """An error to report in one line, with an exit status."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def integer(minimum: int, what: str, maximum: Optional[int] = None, why: str = "") -> Callable[[str], int]:
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{what} must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{what} must be at most {maximum}{why}, got {value}")
        return value

    return convert


def clock_value(text: str) -> Any:
    from ..core.clock import Clock

    try:
        return Clock.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


CLOCK_HELP = ("play under a clock, BASE+INC in seconds as engine testers give it: '60+0.5' is 60 s a side for the "
               "game plus 0.5 s after each move; a side out of time loses (default: no clock)")


def clocked(specs: Sequence[str], clock: Any) -> List[str]:
    """The specs under ``clock`` (``clocked(agent=..., tc=...)``), or as they are without one."""
    if clock is None:
        return list(specs)
    from ..agents.clocked import with_clock

    return [with_clock(spec, clock).spec for spec in specs]


#: The texts the specs of this command line were given as, by canonical spec (for the headers of sprt).
_GIVEN: Dict[str, str] = {}


def as_given(spec: str) -> str:
    """A canonical spec, with the text given for it when that differs: ``minimax (given as minimax(depth=4))``."""
    given = _GIVEN.get(spec, "")
    return f"{spec} (given as {given})" if given and given.replace(" ", "") != spec.replace(" ", "") else spec


def agent_spec(text: str) -> str:
    import ast

    try:  # the shape first, which needs no agent: a malformed spec is refused at once
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        node = None
    if not isinstance(node, (ast.Name, ast.Call)) or isinstance(node, ast.Call) and not isinstance(node.func, ast.Name):
        raise argparse.ArgumentTypeError(f"malformed agent spec {text!r}: expected name or name(key=value, ...)")
    from ..agents import canonical_spec  # the agents alone: no experiment, no pandas

    try:
        spec = canonical_spec(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    _GIVEN[spec] = text.strip()
    return spec


def number(what: str, low: float, high: float, open_low: bool = False, open_high: bool = False) -> Callable[[str], float]:
    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a number, got {text!r}") from None
        if not (low < value if open_low else low <= value) or not (value < high if open_high else value <= high):
            raise argparse.ArgumentTypeError(
                f"{what} must be {'above' if open_low else 'at least'} {low:g} and "
                f"{'below' if open_high else 'at most'} {high:g}, got {text}"
            )
        return value

    return convert


def replayed(text: str) -> Union[int, str]:
    """``calibrate --replay``: a number of games per pairing, or ``all``."""
    if text.strip().lower() == "all":
        return "all"
    try:
        return integer(1, "--replay")(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"--replay must be a number of games (at least 1) or 'all', got {text!r}") from None


#: A time per move in milliseconds (``calibrate --targets``).
milliseconds = number("a time per move in ms", 0.1, 60_000)


def nonempty_name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("the experiment name cannot be empty")
    return text


def rules_value(text: str) -> Any:
    from ..core.rules import rules_from_text

    try:
        return rules_from_text(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def default_store() -> str:
    """The store of ``experiment`` when none is given: ``$AWALE_STORE``, else the thesis's."""
    return os.environ.get("AWALE_STORE") or DEFAULT_STORE


def user_store() -> str:
    """The store of ``sprt``, ``tournament`` and ``ledger`` when none is given: ``$AWALE_STORE``, else
    ``awale-games.sqlite`` in the working folder."""
    return os.environ.get("AWALE_STORE") or USER_STORE


def add_store(parser: argparse.ArgumentParser, required: bool = False, user: bool = False) -> None:
    if required:
        parser.add_argument("--store", required=True, metavar="PATH", help="the SQLite store of the games")
    else:
        default = f"{USER_STORE} in the working folder" if user else DEFAULT_STORE
        parser.add_argument(
            "--store",
            default=None,
            metavar="PATH",
            help=f"the SQLite store of the games (default: $AWALE_STORE, else {default})",
        )


def add_cluster(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=integer(0, "--workers", available_cores(), ", the cores this process may use (for more, use --scheduler)"),
        metavar="K",
        help=f"local worker processes (default: one per core, here {available_cores()}); "
        "0 plays in this process without Dask",
    )
    where.add_argument(
        "--scheduler", metavar="ADDR", help="use the Dask cluster of this scheduler, e.g. tcp://host:8786"
    )
    parser.add_argument(
        "--batch-size",
        type=integer(1, "--batch-size"),
        metavar="B",
        help="games per task (default: sized so a task lasts about a second)",
    )


def engine_value(text: str) -> Tuple[str, str]:
    """``--engine NAME=COMMAND``: the name and the command (checked when the engine is registered)."""
    name, equals, command = text.partition("=")
    if not equals or not name.strip() or not command.strip():
        raise argparse.ArgumentTypeError(f"--engine takes NAME=COMMAND, such as "
                                         f"sparring='python -m awale engine uct', got {text!r}")
    return name.strip(), command


def add_engines(parser: argparse.ArgumentParser) -> None:
    """``--engine NAME=COMMAND``, repeatable: the programs that ``engine(name='NAME')`` sides play through."""
    parser.add_argument(
        "--engine", action="append", type=engine_value, default=[], metavar="NAME=COMMAND",
        help="let the agent engine(name='NAME') be the program COMMAND, spoken to by the engine protocol "
             "(python -m awale engine speaks it); repeatable. Its games are stored under engine(name='NAME') and "
             "never replayed; they are played in this process (--workers 0)",
    )
    parser.add_argument(
        "--ponder", action="store_true",
        help="let the engines of --engine think on their opponent's time, as match managers do (go ponder, then "
             "ponderhit or stop); for engines that offer the Ponder option, on a machine with a core for each side",
    )


def _engines_of(spec: str) -> List[str]:
    """The engines an agent spec plays through, inside its clock and opening."""
    from ..agents import parse

    agent = parse(spec)
    while hasattr(agent, "inner"):
        agent = agent.inner
    return [agent.engine] if agent.name == "engine" else []


def with_engines(handler: Callable[[argparse.Namespace], int],
                 sides: Callable[[argparse.Namespace], Sequence[str]]) -> Callable[[argparse.Namespace], int]:
    """``handler`` with the engines of ``--engine`` registered first (awale.agents.engine) and ended after.

    Every ``engine(name=...)`` of the sides must have a command; games with an engine are played in this process.
    """

    def run(args: argparse.Namespace) -> int:
        from ..agents.engine import close_engines, register_engine

        used = {name for spec in sides(args) for name in _engines_of(spec)}
        given = dict(args.engine)
        missing = sorted(used - set(given))
        if missing:
            raise Failure(f"engine(name={missing[0]!r}) needs its program: --engine {missing[0]}=COMMAND")
        if used and (getattr(args, "scheduler", None) or getattr(args, "workers", 0)):
            raise Failure("an engine is a process of this machine, started by this command: its games are played "
                          "in this process; leave out --workers and --scheduler (or give --workers 0)")
        if used and hasattr(args, "workers"):
            args.workers = 0
        try:
            if getattr(args, "ponder", False) and not args.engine:
                info(f"{PROG}: --ponder: no --engine to ponder")
            for name, command in args.engine:
                register_engine(name, command, ponder=getattr(args, "ponder", False))
            for name in sorted(set(given) - used):
                info(f"{PROG}: --engine {name}: no side is engine(name={name!r})")
            return handler(args)
        finally:
            close_engines()

    return run


def info(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def format_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Rows aligned in columns: numbers to the right, text to the left."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    numeric = [all(_is_number(row[i]) for row in cells[1:]) and len(cells) > 1 for i in range(len(header))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if num else c.ljust(w) for c, w, num in zip(row, widths, numeric)).rstrip()

    return "\n".join(line(row) for row in cells)


def _is_number(text: str) -> bool:
    return text.replace(".", "", 1).replace("/", "", 1).isdigit() or text == ""
