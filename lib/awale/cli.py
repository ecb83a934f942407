"""The command line: ``python -m awale tournament | experiment | match | play | replay | endgame | book``,
``sprt`` and ``ledger``.

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
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import sys
from typing import Any, Callable, Dict, List, NoReturn, Optional, Sequence, Union

import importlib
from types import ModuleType

from . import DEFAULT_AGENT
from .core._guard import available_cores

__all__ = ["main", "build_parser"]

PROG = "python -m awale"


class _OnFirstUse(ModuleType):
    """A module imported when first used, so that ``--help`` and the light commands load no experiment, nor Dask."""

    def __init__(self, name: str) -> None:
        super().__init__(name)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(importlib.import_module(self.__name__), attribute)


ex: Any = _OnFirstUse("awale.experiments")


def play(*args: Any, **kwargs: Any) -> Any:
    """:func:`awale.play.match.play`, imported when first called."""
    from .play.match import play as match_play

    return match_play(*args, **kwargs)

#: The store used when ``--store`` is not given: ``$AWALE_STORE``, else this path.
DEFAULT_STORE = "data/experiments.sqlite"
DEFAULT_LEDGER = "data/strength/ledger.csv"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _Failure(Exception):
    """An error to report in one line, with an exit status."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


# --------------------------------------------------------------------------- argument types


def _integer(minimum: int, what: str, maximum: Optional[int] = None, why: str = "") -> Callable[[str], int]:
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


def _clock(text: str) -> Any:
    from .core.clock import Clock

    try:
        return Clock.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


_CLOCK_HELP = ("play under a clock, BASE+INC in seconds as engine testers give it: '60+0.5' is 60 s a side for the "
               "game plus 0.5 s after each move; a side out of time loses (default: no clock)")


def _clocked(specs: Sequence[str], clock: Any) -> List[str]:
    """The specs under ``clock`` (``clocked(agent=..., tc=...)``), or as they are without one."""
    if clock is None:
        return list(specs)
    from .agents.clocked import with_clock

    return [with_clock(spec, clock).spec for spec in specs]


def _spec(text: str) -> str:
    try:
        return ex.canonical_spec(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _number(what: str, low: float, high: float, open_low: bool = False, open_high: bool = False) -> Callable[[str], float]:
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


def _replayed(text: str) -> Union[int, str]:
    """``calibrate --replay``: a number of games per pairing, or ``all``."""
    if text.strip().lower() == "all":
        return "all"
    try:
        return _integer(1, "--replay")(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"--replay must be a number of games (at least 1) or 'all', got {text!r}") from None


#: A time per move in milliseconds (``calibrate --targets``).
_milliseconds = _number("a time per move in ms", 0.1, 60_000)


def _name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("the experiment name cannot be empty")
    return text


def _default_store() -> str:
    return os.environ.get("AWALE_STORE") or DEFAULT_STORE


# --------------------------------------------------------------------------- the parser


def _add_experiment(parser: argparse.ArgumentParser, every: bool = False) -> None:
    if every:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("name", nargs="?", metavar="NAME", help="the experiment (see: experiment list)")
        which.add_argument("--all", action="store_true", help="every experiment of the catalogue, in its order")
    else:
        parser.add_argument("name", metavar="NAME", help="the experiment (see: experiment list)")
    parser.add_argument("--games", type=_integer(1, "--games"), metavar="N", help="games per pairing (default: the experiment's)")


def _add_store(parser: argparse.ArgumentParser, required: bool = False) -> None:
    if required:
        parser.add_argument("--store", required=True, metavar="PATH", help="the SQLite store of the games")
    else:
        parser.add_argument(
            "--store",
            default=None,
            metavar="PATH",
            help=f"the SQLite store of the games (default: $AWALE_STORE, else {DEFAULT_STORE})",
        )


def _add_cluster(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=_integer(0, "--workers", available_cores(), ", the cores this process may use (for more, use --scheduler)"),
        metavar="K",
        help=f"local worker processes (default: one per core, here {available_cores()}); "
        "0 plays in this process without Dask",
    )
    where.add_argument(
        "--scheduler", metavar="ADDR", help="use the Dask cluster of this scheduler, e.g. tcp://host:8786"
    )
    parser.add_argument(
        "--batch-size",
        type=_integer(1, "--batch-size"),
        metavar="B",
        help="games per task (default: sized so a task lasts about a second)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The parser of the command line."""
    parser = _Parser(
        prog=PROG,
        description="Awale agents: tournaments and experiments into an SQLite store, single games.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    tournament = commands.add_parser(
        "tournament",
        help="play a round robin between agents",
        description="Every pair of distinct agents plays N games, half with each as South. The games are "
        "stored as they finish; run the same command again to resume an interrupted tournament "
        "(only the missing games are played), or with more agents or games to extend it.",
    )
    tournament.add_argument("specs", nargs="+", type=_spec, metavar="SPEC", help="agent specs, e.g. 'uct(iterations=1000)'")
    tournament.add_argument("--games", type=_integer(1, "--games"), required=True, metavar="N", help="games per pair of agents")
    tournament.add_argument("--seed", type=_integer(0, "--seed"), default=0, metavar="S", help="base seed of the games (default 0)")
    tournament.add_argument("--clock", type=_clock, default=None, metavar="BASE+INC", help=_CLOCK_HELP)
    _add_store(tournament, required=True)
    tournament.add_argument("--name", type=_name, default="tournament", help="experiment name in the store (default: tournament)")
    _add_cluster(tournament)
    tournament.set_defaults(handler=_tournament)

    experiment = commands.add_parser(
        "experiment",
        help="list, run or follow the thesis's named experiments",
        description="The catalogue of named experiments (awale.experiments.catalog).",
    )
    actions = experiment.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the experiments, their sizes and progress", description="List the experiments.")
    _add_store(listing)
    listing.set_defaults(handler=_experiment_list)
    running = actions.add_parser(
        "run",
        help="play the missing games of an experiment, or of all",
        description="Play the games of an experiment (or, with --all, of every experiment) not yet in the store. "
        "Interrupt it at any time: the same command resumes.",
    )
    _add_experiment(running, every=True)
    _add_store(running)
    _add_cluster(running)
    running.set_defaults(handler=_experiment_run)
    following = actions.add_parser(
        "status", help="games done per pairing", description="Games done and scores for each pairing of an experiment."
    )
    _add_experiment(following)
    _add_store(following)
    following.set_defaults(handler=_experiment_status)
    checking = actions.add_parser(
        "verify",
        help="check stored games: moves through the rules, and a sample replayed from their keys",
        description="Play every stored move list through the rules (legal moves, the stored winner, scores and "
        "plies), and replay a random sample of the games from their keys (agent specs, seed, rules): the moves "
        "and results must come out identical. Games whose agents have a time budget or a clock are not replayed. "
        "Exit status 1 if any game fails.",
    )
    checking.add_argument("name", nargs="?", metavar="NAME", help="only this experiment's games (default: all)")
    replays = checking.add_mutually_exclusive_group()
    replays.add_argument(
        "--sample", type=_integer(0, "--sample"), default=100, metavar="N",
        help="games to replay, drawn at random (default 100; 0 checks the rules only)",
    )
    replays.add_argument("--replay-all", action="store_true", help="replay every replayable game (as long as playing them)")
    checking.add_argument("--seed", type=_integer(0, "--seed"), default=0, metavar="S", help="seed of the sample (default 0)")
    _add_store(checking)
    checking.set_defaults(handler=_experiment_verify)
    calibrating = actions.add_parser(
        "calibrate",
        help="measure on this machine that equal-time pairings take equal time, or fit budgets anew",
        description="Measure every agent of the equal-time experiments on the same positions (every ply of "
        "stored strong games) and print both sides' milliseconds per move for each pairing: equal time holds "
        "where they are within 10 percent. With --fit, find for each family the budget (UCT's iterations, αβ's nodes) "
        "of each target time instead. The figures are CPU times, best measured on idle cores.",
    )
    calibrating.add_argument("names", nargs="*", metavar="NAME",
                             help="experiments to check (default: every equal-time experiment)")
    calibrating.add_argument("--fit", nargs="*", metavar="FAMILY",
                             help="fit budgets for these families instead (none named: all); see "
                             "awale.experiments.calibration.FAMILIES")
    calibrating.add_argument("--targets", nargs="+", type=_milliseconds, default=[10.0], metavar="MS",
                             help="with --fit, the times per move to reach, in ms (default 10)")
    calibrating.add_argument("--positions", type=_integer(1, "--positions"), default=None, metavar="N",
                             help="positions measured (default 400)")
    calibrating.add_argument("--replay", type=_replayed, metavar="K",
                             help="instead, replay K stored games of each pairing (a seeded sample; 'all': every "
                             "one) and time both sides on the positions the games reached, in wall-clock and CPU time")
    calibrating.add_argument(
        "--workers",
        type=_integer(1, "--workers", available_cores(), ", the cores this process may use"),
        default=None,
        metavar="K",
        help="with --replay, processes sharing the games, one game each at a time (default: one per core, here "
        f"{available_cores()}); the machine should be otherwise idle",
    )
    calibrating.add_argument("--out", metavar="CSV", help="also write the measurements to this CSV file")
    _add_store(calibrating)
    calibrating.set_defaults(handler=_experiment_calibrate)

    match = commands.add_parser(
        "match",
        help="play one game and print it",
        description="Play one game, South first, under the Abapa rules, and print the result.",
    )
    match.add_argument("south", type=_spec, metavar="SPEC", help="South's agent")
    match.add_argument("north", type=_spec, metavar="SPEC", help="North's agent")
    match.add_argument("--seed", type=_integer(0, "--seed"), default=0, metavar="S", help="the match seed (default 0)")
    match.add_argument("--clock", type=_clock, default=None, metavar="BASE+INC", help=_CLOCK_HELP)
    match.add_argument("--show", action="store_true", help="print every position as a board")
    match.set_defaults(handler=_match)
    _add_play(commands)
    _add_endgame(commands)
    _add_book(commands)
    _add_sprt(commands)
    return parser


def _add_play(commands: Any) -> None:
    """The subcommands ``play`` and ``replay`` (awale.play.terminal)."""
    game = commands.add_parser(
        "play",
        help="play a game against an agent in the terminal",
        description="Play against an agent: enter moves as pit letters or numbers; hint, undo, help and quit "
        "are also understood. The board shows the pit sown last (•) and the pits it captured (×).",
    )
    game.add_argument("agent", nargs="?", type=_spec, default=None, metavar="SPEC",
                      help=f"the opponent (default {DEFAULT_AGENT}, with endgame='25' or '15' when that database "
                      "is already built on this machine: it then plays perfectly from 25 or 15 seeds on the board)")
    game.add_argument("--side", choices=("south", "north"), default="south", help="your side; South moves first (default south)")
    game.add_argument("--rules", type=_rules, default=None, metavar="RULES",
                      help="abapa (default), simplified, or key=value pairs such as 'pits_per_side=4,feed=false'")
    game.add_argument("--seed", type=_integer(0, "--seed"), default=0, metavar="S", help="the agent's seed (default 0)")
    game.add_argument("--save", metavar="FILE", help="save the game to FILE when it ends or you quit (see: replay)")
    _add_colour(game)
    game.set_defaults(handler=_play)
    again = commands.add_parser(
        "replay",
        help="show a saved game ply by ply",
        description="Print every position of a game saved by play --save.",
    )
    again.add_argument("file", metavar="FILE", help="a game file written by play --save")
    _add_colour(again)
    again.set_defaults(handler=_replay)


def _add_colour(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the board: auto (a terminal, unless NO_COLOR is set), always or never")


def _rules(text: str) -> Any:
    from .core.rules import rules_from_text

    try:
        return rules_from_text(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


# --------------------------------------------------------------------------- commands


def _run(keys: List[ex.GameKey], args: argparse.Namespace, name: str, store: ex.Store) -> ex.RunSummary:
    todo = len(keys) - len({key.stored for key in keys} & store.keys(name))
    where = (
        f"on the Dask cluster at {args.scheduler}"
        if args.scheduler
        else "in this process"
        if args.workers == 0
        else f"on {ex.local_workers(keys, args.workers)} local worker processes"
    )
    _info(f"{name}: {len(keys)} games, {len(keys) - todo} already in {store.path}" + (f"; playing {todo} {where}" if todo else ""))
    try:
        summary = ex.run(
            keys, store, name, workers=args.workers, scheduler=args.scheduler, batch_size=args.batch_size
        )
    except ex.RunInterrupted as interrupted:
        summary = interrupted.summary
        raise _Failure(
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
        _info(f"{name}: {summary.elsewhere} games left to another run playing them on the same store")
    return summary


def _report_failures(summary: ex.RunSummary) -> int:
    if not summary.failed:
        return 0
    key, message = summary.failed[0]
    _info(
        f"{PROG}: {len(summary.failed)} game(s) failed and were not stored; the first: {key}: {message}"
    )
    return 1


def _tournament(args: argparse.Namespace) -> int:
    try:
        keys = ex.round_robin_keys(_clocked(args.specs, args.clock), args.games, args.seed)
    except ValueError as error:
        raise _Failure(str(error)) from None
    with ex.Store(args.store) as store:
        summary = _run(keys, args, args.name, store)
        frame = store.load(args.name)
    wanted = {(key.south, key.north, key.seed) for key in keys}
    rules = ex.rules_to_text(keys[0].rules)
    mask = [
        (south, north, seed) in wanted and text == rules
        for south, north, seed, text in zip(frame["south"], frame["north"], frame["seed"], frame["rules"])
    ]
    table = ex.standings(frame[mask])
    print()
    print(_table(
        ["agent", "games", "wins", "draws", "losses", "score"],
        [[row.Index, row.games, row.wins, row.draws, row.losses, f"{row.score:.3f}"] for row in table.itertuples()],
    ))
    return _report_failures(summary)


def _experiment_list(args: argparse.Namespace) -> int:
    path = args.store or _default_store()
    store = ex.Store(path, create=False) if os.path.exists(path) else None
    header = ["name", "pairings", "games", "total"] + (["done"] if store else []) + ["description"]
    rows = []
    try:
        for exp in ex.CATALOG.values():
            pairs = exp.pairings()
            done = [] if store is None else [sum(s.done for s in ex.status(exp, store))]
            rows.append([exp.name, len(pairs), exp.games, len(pairs) * exp.games, *done, exp.description])
    finally:
        if store is not None:
            store.close()
    print(_table(header, rows))
    print(
        f"\ngames: per pairing, half with each agent as South; searches: {ex.catalog.REFERENCE_ITERATIONS} iterations "
        f"per move unless varied; rules: Abapa\nstore: {path}" + ("" if store else " (not created yet)")
    )
    return 0


def _experiment(args: argparse.Namespace) -> ex.Experiment:
    try:
        return ex.get_experiment(args.name)
    except ValueError as error:
        raise _Failure(str(error)) from None


def _print_status(exp: ex.Experiment, store: ex.Store, games: Optional[int]) -> None:
    rows = ex.status(exp, store, games)
    print(_table(
        ["agent", "opponent", "done", "score"],
        [[r.agent, r.opponent, f"{r.done}/{r.total}", "" if r.done == 0 else f"{r.score:.3f}"] for r in rows],
    ))
    print(f"\n{exp.name}: {sum(r.done for r in rows)} of {sum(r.total for r in rows)} games in {store.path}")


def _experiment_run(args: argparse.Namespace) -> int:
    chosen = list(ex.CATALOG.values()) if args.all else [_experiment(args)]
    status = 0
    with ex.Store(args.store or _default_store()) as store:
        for exp in chosen:
            summary = _run(exp.keys(args.games), args, exp.name, store)
            print()
            _print_status(exp, store, args.games)
            status = max(status, _report_failures(summary))
    return status


def _experiment_status(args: argparse.Namespace) -> int:
    exp = _experiment(args)
    with ex.Store(args.store or _default_store(), create=False) as store:
        _print_status(exp, store, args.games)
    return 0


def _experiment_verify(args: argparse.Namespace) -> int:
    path = args.store or _default_store()
    if args.name is not None and args.name not in ex.experiments(path):
        raise _Failure(f"the store {path} holds no game of experiment {args.name!r}")
    report = ex.verify(path, args.name, sample=None if args.replay_all else args.sample, seed=args.seed)
    for mismatch in report.mismatches:
        print(f"FAILED {mismatch}")
    print(
        f"{report.checked} of {report.games} games checked through the rules, {report.replayed} replayed from their "
        f"keys ({report.time_based} not replayable: time budgets, clocks or threads): "
        + ("all identical" if report.ok else f"{len(report.mismatches)} FAILED")
    )
    return 0 if report.ok else 1


def _experiment_calibrate(args: argparse.Namespace) -> int:
    from .experiments import calibration as cal

    path = args.store or _default_store()
    if args.fit is not None and args.names:
        raise _Failure("give experiments to check or --fit, not both")
    families = (args.fit or list(cal.FAMILIES)) if args.fit is not None else []
    unknown = [family for family in families if family not in cal.FAMILIES]
    if unknown:
        raise _Failure(f"unknown family {unknown[0]!r}; known: {', '.join(map(repr, cal.FAMILIES))}")
    chosen = [_experiment(argparse.Namespace(name=name)) for name in args.names] or [
        exp for exp in ex.CATALOG.values() if exp.equal_time]
    if args.workers is not None and args.replay is None:
        raise _Failure("--workers is for --replay")
    if args.replay is not None:
        if args.fit is not None:
            raise _Failure("give --replay or --fit, not both")
        games = None if args.replay == "all" else args.replay
        return _replay_times(chosen, path, games, args.out, args.workers or available_cores())
    try:
        games = cal.positions(path, args.positions or cal.POSITIONS)
    except ValueError as error:
        raise _Failure(str(error)) from None
    print(f"{sum(map(len, games))} positions from {len(games)} games of {path}; CPU times on this machine", flush=True)
    rows: List[Dict[str, object]] = []
    if args.fit is not None:

        def report(m: "cal.Measurement") -> None:
            print(f"{m.family:42} {m.spec:66} {1000 * m.seconds:8.2f} ms  ({m.ratio:.3f} of the target)", flush=True)
            rows.append(dict(family=m.family, spec=m.spec, target_ms=f"{1000 * m.target:g}",
                             ms_per_move=f"{1000 * m.seconds:.3f}", ratio=f"{m.ratio:.3f}", clock="cpu"))

        for family in families:
            start, previous = cal.probe(family), None
            for target in sorted(args.targets):
                if previous is not None:  # scale the last fit: time grows about linearly with the budget
                    start = round(previous[0] * (target / previous[1]) / previous[2])
                budget, made = cal.fit(family, target / 1000, games, start, report=report)
                chosen_one = next(m for m in made if m.spec == cal.FAMILIES[family].format(n=budget))
                previous = (budget, target, chosen_one.ratio)
                print(f"  {family} at {target:g} ms: {chosen_one.spec}", flush=True)
    else:
        pairings = [(exp.name, a, b) for exp in chosen for a, b in exp.pairings()]
        if not pairings:
            raise _Failure("no experiment to check")
        measured = cal.check([(a, b) for _, a, b in pairings], games,
                             report=lambda m: print(f"  {m.spec:70} {1000 * m.seconds:8.2f} ms", flush=True))
        table = []
        for (name, _, _), (a, b, sa, sb) in zip(pairings, measured):
            equal = cal.equal_time(sa, sb)
            table.append([name, a, b, f"{1000 * sa:.2f}", f"{1000 * sb:.2f}", f"{sa / sb:.3f}", "yes" if equal else "NO"])
            rows.append(dict(experiment=name, agent=a, opponent=b, agent_ms=f"{1000 * sa:.3f}",
                             opponent_ms=f"{1000 * sb:.3f}", ratio=f"{sa / sb:.3f}", equal_time=equal,
                             clock="cpu"))
        print()
        print(_table(["experiment", "agent", "opponent", "agent ms", "opponent ms", "ratio", "equal time"], table))
    _write_csv(args.out, rows)
    return 0


def _replay_times(chosen: List[ex.Experiment], path: str, games: Optional[int], out: Optional[str], workers: int) -> int:
    from .experiments import calibration as cal

    import time

    rows: List[Dict[str, object]] = []
    uneven: List["cal.PairTimes"] = []
    stamp = time.strftime("%Y-%m-%d %H:%M")  # when replayed: rows of several replays can share a file
    for exp in chosen:
        try:
            measured = cal.replay_times(path, exp, games, report=lambda line: print(line, flush=True),
                                        workers=workers, progress=None)
        except ValueError as error:
            raise _Failure(str(error), status=1) from None
        for t in measured:
            rows.append(t.row(exp.name, stamp))
            if not rows[-1]["equal_time"]:
                uneven.append(t)
    print()
    print(_table(["experiment", "agent", "opponent", "games", "agent ms", "opponent ms", "ratio", "equal time"],
                 [[r["experiment"], r["agent"], r["opponent"], r["games"], r["agent_ms"], r["opponent_ms"], r["ratio"],
                   "yes" if r["equal_time"] else "NO"] for r in rows]))
    print("(CPU milliseconds per move of the replayed games)")
    if uneven:
        print("\nBudgets that would have matched the other side's time on these games:")
    for t in uneven:
        either = " or ".join(filter(None, t.balanced())) or "(neither side is of a calibrated family)"
        print(f"  {t.agent} vs {t.opponent}: {either}")
    _write_csv(out, rows)
    return 0


def _write_csv(path: Optional[str], rows: List[Dict[str, object]]) -> None:
    """Write ``rows`` (dicts with the same keys) to the CSV file ``path``, if a path and rows are given."""
    import csv

    if path and rows:
        with open(path, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        print(f"written {path}")


def _match(args: argparse.Namespace) -> int:
    from .core.game import Game
    from .core.render import pit_label

    record = play(args.south, args.north, seed=args.seed, clock=args.clock)
    print(f"South: {record.south}\nNorth: {record.north}\nseed {record.seed}")
    if args.show:
        game = Game(record.rules)
        print(f"\n{game}")
        n = record.rules.pits_per_side
        for ply, action in enumerate(record.moves, start=1):
            player = game.current_player
            game, captured, _ = game.step(action)
            took = f", captures {captured}" if captured else ""
            print(f"\nply {ply}: {('South', 'North')[player]} plays {pit_label(player * n + action, n)}{took}\n{game}")
    outcome = "draw" if record.winner is None else f"{('South', 'North')[record.winner]} wins"
    if record.flagged is not None:
        outcome += f" on time ({('South', 'North')[record.flagged]} ran out of time)"
    print(f"\n{outcome} {record.score[0]}-{record.score[1]} after {record.plies} plies")
    if args.clock is not None:
        print(f"time used: South {record.south_seconds:.2f} s, North {record.north_seconds:.2f} s "
              f"of {args.clock} each")
    return 0


def _play(args: argparse.Namespace) -> int:
    from .play.terminal import default_opponent, play_terminal

    agent = args.agent
    if agent is None:
        agent = default_opponent(args.rules)
        if agent.endgame is None:
            _info(f"play: no endgame database is built here; play \"{agent.replace(endgame='25')}\" to build "
                  "and use the 25-seed one (once: 16 minutes on 2 cores, 1.85 GB), or endgame='15' (10 s)")
    return play_terminal(agent, side=("south", "north").index(args.side), rules=args.rules, seed=args.seed,
                         save=args.save, colour=args.color)


def _replay(args: argparse.Namespace) -> int:
    from .play.terminal import replay_terminal

    return replay_terminal(args.file, colour=args.color)


# --------------------------------------------------------------------------- output


def _info(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Rows aligned in columns: numbers to the right, text to the left."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    numeric = [all(_is_number(row[i]) for row in cells[1:]) and len(cells) > 1 for i in range(len(header))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if num else c.ljust(w) for c, w, num in zip(row, widths, numeric)).rstrip()

    return "\n".join(line(row) for row in cells)


def _is_number(text: str) -> bool:
    return text.replace(".", "", 1).replace("/", "", 1).isdigit() or text == ""


# --------------------------------------------------------------------------- endgame databases


def _add_endgame(commands: Any) -> None:
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
        "build resumes from its last finished layer. Abapa rules; 15 seeds take about 10 s, 20 seeds about 2 min, "
        "226 MB of disk and 0.5 GB of memory beyond it, 25 seeds about 16 min, 1.85 GB of disk and 3.6 GB of "
        "memory (each position settled once by counts, six bytes a position of the largest layer).",
    )
    building.add_argument("--seeds", type=_integer(0, "--seeds"), required=True, metavar="S", help="most seeds on the board")
    building.add_argument(
        "--out", default=None, metavar="PATH",
        help="the database file to write (default: the cache file that endgame='S' uses)",
    )
    building.add_argument("--pits", type=_integer(2, "--pits"), default=6, metavar="N", help="pits per side (default 6)")
    building.add_argument(
        "--seeds-per-pit", type=_integer(1, "--seeds-per-pit"), default=4, metavar="K", help="seeds per pit at the start (default 4)"
    )
    building.add_argument(
        "--memory", type=_integer(1, "--memory"), default=4096, metavar="MIB",
        help="refuse a build needing more memory beyond the file (default 4096)",
    )
    building.add_argument(
        "--threads", type=_integer(1, "--threads"), default=None, metavar="T", help="threads (default: one per core)"
    )
    building.add_argument(
        "--from", dest="source", default=None, metavar="DB",
        help="copy the layers that a database of the same rules already holds (any seeds, each checked against "
        "its checksum) instead of solving them: a 25-seed database from a 28-seed one in seconds",
    )
    building.set_defaults(handler=_endgame_build)
    checking = actions.add_parser(
        "check",
        help="check a database: checksum, recurrence, exact searches",
        description="Check a database: its checksum, the minimax recurrence on every position, and N random "
        "positions against the history-aware αβ search. Exit status 1 if anything fails or a disagreement "
        "is not explained by the database's repetition rule.",
    )
    checking.add_argument("path", metavar="PATH", help="the database file")
    checking.add_argument("--sample", type=_integer(0, "--sample"), default=100, metavar="N", help="positions compared (default 100)")
    checking.add_argument(
        "--max-seeds", type=_integer(1, "--max-seeds"), default=4, metavar="M",
        help="sample positions with at most M seeds (default 4: αβ must finish)",
    )
    checking.add_argument(
        "--nodes", type=_integer(1, "--nodes"), default=200_000, metavar="B", help="node budget of each search (default 200000)"
    )
    checking.add_argument("--seed", type=_integer(0, "--seed"), default=0, metavar="X", help="seed of the sample (default 0)")
    checking.add_argument(
        "--captures", type=_integer(0, "--captures"), default=None, metavar="C",
        help="also check the captures question on every position with at most C seeds",
    )
    checking.add_argument(
        "--per-layer", type=_integer(0, "--per-layer"), default=0, metavar="L",
        help="also compare L random positions of every layer with an exact search of the database's own game",
    )
    checking.add_argument(
        "--threads", type=_integer(1, "--threads"), default=None, metavar="T", help="threads (default: one per core)"
    )
    checking.set_defaults(handler=_endgame_check)


# --------------------------------------------------------------------------- opening books


def _add_book(commands: Any) -> None:
    """The ``book build`` and ``book grow`` commands (awale.knowledge.book)."""
    from .knowledge.book import DEFAULT_BATCH, DEFAULT_SEARCH, DEFAULT_WEIGHT, MAX_BATCH, MAX_POSITIONS, SAVE_SECONDS

    book = commands.add_parser(
        "book",
        help="build or grow an opening book with a search",
        description="Opening books: the move of a search in every position of the first plies (build), or in the "
        "positions chosen by drop-out expansion (grow) (awale.knowledge.book).",
    )
    actions = book.add_subparsers(dest="action", metavar="ACTION", required=True)
    building = actions.add_parser(
        "build",
        help="search every position the book's owner can meet in the first D plies",
        description="For each side, follow the agent's own move and every reply of the opponent for D plies, "
        "and write the agent's move in each position it meets to PATH (JSON with a header and a checksum). "
        "Abapa rules. About 6**(D/2) positions per side: D = 10 means some 3,000 searches.",
    )
    building.add_argument("--agent", type=_spec, required=True, metavar="SPEC", help="the search that picks the moves")
    building.add_argument("--plies", type=_integer(1, "--plies"), required=True, metavar="D", help="depth of the book in plies")
    building.add_argument("--out", required=True, metavar="PATH", help="the book file to write")
    building.set_defaults(handler=_book_build)
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
    growing.add_argument("--positions", type=_integer(1, "--positions", MAX_POSITIONS), required=True, metavar="N",
                         help="positions with a book move to reach (the last batch may pass it)")
    growing.add_argument("--out", required=True, metavar="PATH",
                         help="the book file to write (gzip-compressed if PATH ends in .gz)")
    growing.add_argument("--search", type=_spec, default=DEFAULT_SEARCH, metavar="SPEC",
                         help=f"a minimax spec with a fixed depth (default {DEFAULT_SEARCH!r})")
    growing.add_argument("--state", default=None, metavar="PATH",
                         help="the state file to resume from and save to (default: PATH.state beside the book)")
    growing.add_argument("--weight", type=_number("--weight", 0, 1000), default=DEFAULT_WEIGHT, metavar="W",
                         help=f"plies of priority per point of drop-out (default {DEFAULT_WEIGHT:g}; 0 grows "
                         "breadth first)")
    growing.add_argument("--batch", type=_integer(1, "--batch", MAX_BATCH), default=DEFAULT_BATCH, metavar="B",
                         help=f"leaves expanded together (default {DEFAULT_BATCH}; part of the book's definition)")
    growing.add_argument(
        "--workers", type=_integer(1, "--workers", available_cores(), ", the cores this process may use"),
        default=None, metavar="K",
        help=f"processes expanding a batch's leaves (default: one per core, here {available_cores()}); the book "
        "is the same for every K",
    )
    growing.add_argument("--save-every", type=_number("--save-every", 0, 86_400), default=SAVE_SECONDS,
                         metavar="SECONDS", help=f"seconds between saves of the state (default {SAVE_SECONDS:g})")
    growing.set_defaults(handler=_book_grow)


def _book_build(args: argparse.Namespace) -> int:
    import time

    from tqdm.auto import tqdm

    from .knowledge import book

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


def _book_grow(args: argparse.Namespace) -> int:
    import time

    from tqdm.auto import tqdm

    from .knowledge import book

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
                _info(f"book grow: {status.expanded:,} of {status.target:,} positions (graph {status.nodes:,}), "
                      f"{rate:.2f} positions/s, ETA {_duration(left)}")
            return
        if not bars:  # made at the first report, from the positions already grown: its rate is this run's
            bars.append(tqdm(desc="book grow", total=status.target, initial=status.expanded, unit=" positions",
                             dynamic_ncols=True))
        bars[0].set_postfix(graph=f"{status.nodes:,}", priority=f"{status.priority:.2f}", refresh=False)
        bars[0].update(status.expanded - bars[0].n)

    if os.path.exists(state):
        _info(f"book grow: resuming from {state}")
    try:
        grown = book.grow(growth, args.positions, state, workers, show, args.save_every)
    except book.GrowthInterrupted as interrupted:
        raise _Failure(f"interrupted: {interrupted.expanded:,} positions are saved in {state}; run the same "
                       "command again to resume", 130) from None
    finally:
        for bar in bars:
            bar.close()
    grown.save(args.out)
    print(f"{len(grown):,} positions to {grown.plies} plies, {growth.method}, searched by {grown.agent}, written to "
          f"{args.out} ({os.path.getsize(args.out) / 1e6:.2f} MB) in {time.perf_counter() - start:.1f} s; "
          f"the graph is in {state}")
    return 0


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


def _endgame_build(args: argparse.Namespace) -> int:
    import time

    from .knowledge import endgame
    from .agents.endgame import built_database_path
    from .core.rules import Rules

    rules = Rules(pits_per_side=args.pits, seeds_per_pit=args.seeds_per_pit)
    endgame.check_build(rules, args.seeds, args.memory * 2**20)
    out = args.out or str(built_database_path(args.seeds, rules))
    if args.out is None:
        os.makedirs(os.path.dirname(out), exist_ok=True)
    start = time.perf_counter()
    source = None
    if args.source is not None:
        try:
            source = endgame.load(args.source)
        except (OSError, ValueError) as error:
            raise _Failure(f"--from {args.source}: {getattr(error, 'strerror', None) or error}") from None
    database = endgame.build_file(out, rules, args.seeds, _progress("build"), args.memory * 2**20, args.threads,
                                  log=lambda line: print(line, file=sys.stderr), source=source)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"{len(database):,} positions with at most {args.seeds} seeds written to {out} "
          f"in {time.perf_counter() - start:.1f} s (sha256 {database.checksum[:16]}...)")
    return 0


def _endgame_check(args: argparse.Namespace) -> int:
    import collections

    from .knowledge import endgame
    from .search.alphabeta import AlphaBeta

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
        found = endgame.captures_check(database, args.captures, _progress("captures"))
        print(f"captures question: {found['cases']:,} position-splits, {found['value']} wrong results, "
              f"{found['best']} best moves not among the best results")
        failed |= found["value"] + found["best"] > 0
    if args.per_layer:
        rows = []
        for seeds in range(1, database.seeds + 1):
            found = endgame.search_check(database, seeds, args.per_layer, args.nodes, args.seed)
            rows.append((seeds, found["agree"], found["disagree"], found["undecided"]))
            failed |= found["disagree"] > 0
        print(_table(("layer", "agree", "disagree", "undecided"), rows))
    counts: "collections.Counter[str]" = collections.Counter()
    searcher = AlphaBeta(database.rules)
    indices = endgame.sample(database, args.sample, args.seed, args.max_seeds) if args.sample else []
    for done, index in enumerate(indices, 1):
        comparison = endgame.compare(database, index, searcher, args.nodes)
        counts[comparison.status] += 1
        if comparison.status == "unexplained":
            print(f"unexplained: {comparison}")
        if sys.stderr.isatty():
            print(f"\rcompared {done}/{len(indices)}", end="", file=sys.stderr, flush=True)
    if indices:
        if sys.stderr.isatty():
            print(file=sys.stderr)
        rows = [(status, counts[status]) for status in ("agree", "explained", "unexplained", "undecided")]
        print(_table(("positions", "count"), rows))
    failed |= counts["unexplained"] > 0
    return 1 if failed else 0


# --------------------------------------------------------------------------- sprt

def _add_sprt(commands: Any) -> None:
    """The ``sprt`` command (awale.experiments.sprt)."""
    test = commands.add_parser(
        "sprt",
        help="decide whether A is stronger than B: a sequential test on paired games",
        description="Play pairs of games between A and B (each opening twice, sides swapped) until the sequential "
        "probability ratio test accepts H0 (elo <= ELO0) or H1 (elo >= ELO1), Elo being A's logistic Elo "
        "relative to B, in the pentanomial model (as Fishtest and fastchess). A live line on stderr shows "
        "pairs, games, score, Elo with its 95 % interval and LLR with its bounds; the verdict is printed on "
        "stdout. Every game is stored; run the same command again to resume (stored pairs are counted first). "
        "A task plays one pair (both its games) unless --batch-size says otherwise. "
        "Exit status 0 with a verdict (H0, H1 or inconclusive at --max-pairs), 1 if games failed, 2 for bad "
        "arguments, 130 when interrupted.",
    )
    test.add_argument("a", type=_spec, metavar="A", help="the agent tested, e.g. 'champion(nodes=20000)'")
    test.add_argument("b", type=_spec, metavar="B", help="the agent it is measured against")
    test.add_argument("--elo0", type=_number("--elo0", -2000, 2000), required=True, metavar="E0",
                      help="H0: A's Elo over B is E0 (logistic Elo)")
    test.add_argument("--elo1", type=_number("--elo1", -2000, 2000), required=True, metavar="E1",
                      help="H1: A's Elo over B is E1 (above E0)")
    test.add_argument("--alpha", type=_number("--alpha", 0, 1, True, True), default=0.05, metavar="A",
                      help="the chance of accepting H1 when H0 holds (default 0.05)")
    test.add_argument("--beta", type=_number("--beta", 0, 1, True, True), default=0.05, metavar="B",
                      help="the chance of accepting H0 when H1 holds (default 0.05)")
    test.add_argument("--openings", metavar="FILE",
                      help="the openings, one line of moves (digits) each (default: the library's 708 balanced "
                           "openings, awale/knowledge/openings.txt)")
    test.add_argument("--max-pairs", type=_integer(1, "--max-pairs", 500_000), default=50_000, metavar="N",
                      help="stop there without a decision: inconclusive (default 50000)")
    test.add_argument("--check-every", type=_integer(1, "--check-every", 10_000), default=8, metavar="P",
                      help="pairs between two looks at the LLR (default 8)")
    test.add_argument("--seed", type=_integer(0, "--seed"), default=0, metavar="S", help="base seed of the games (default 0)")
    test.add_argument("--clock", type=_clock, default=None, metavar="BASE+INC",
                      help=_CLOCK_HELP + "; the test's games and its name in the store then name the clock")
    test.add_argument("--ledger", metavar="IDEA",
                      help="when the test ends (a verdict, or --max-pairs reached; not when interrupted), write its "
                           "row (IDEA, the commit, the games, score, Elo, LLR, "
                           f"verdict and both sides' time per move) into the ledger of ideas ({DEFAULT_LEDGER}); "
                           "needs the library's openings")
    test.add_argument("--ledger-file", default=DEFAULT_LEDGER, metavar="CSV",
                      help=f"the ledger written by --ledger (default {DEFAULT_LEDGER})")
    _add_store(test)
    _add_cluster(test)
    test.set_defaults(handler=_sprt)
    ledger = commands.add_parser(
        "ledger",
        help="the ledger of ideas tried on the champion: show it, or check it against the store",
        description="Print the ledger of ideas (one SPRT each, written by 'sprt --ledger IDEA'): verdict, games, "
        "Elo with its 95 %% interval and both sides' time per move. With --check, recompute every row from the "
        "store's games and exit with status 1 if one disagrees.",
    )
    ledger.add_argument("--file", default=DEFAULT_LEDGER, metavar="CSV", help=f"the ledger (default {DEFAULT_LEDGER})")
    ledger.add_argument("--check", action="store_true", help="recompute every row from the store")
    _add_store(ledger)
    ledger.set_defaults(handler=_ledger)


def _sprt(args: argparse.Namespace) -> int:
    from .experiments import sprt

    source = args.openings or sprt.OPENINGS_FILE
    try:
        test = sprt.SPRT(args.elo0, args.elo1, args.alpha, args.beta)
        openings = sprt.standard_openings() if args.openings is None else sprt.load_openings(args.openings)
    except OSError as error:
        raise _Failure(f"cannot read the openings {source}: {error.strerror or error}") from None
    except ValueError as error:
        raise _Failure(str(error)) from None
    if args.ledger is not None and args.openings is not None:
        raise _Failure("--ledger records tests on the library's openings: leave out --openings", 2)
    path = args.store or _default_store()
    try:
        args.a, args.b = _clocked((args.a, args.b), args.clock)
    except ValueError as error:
        raise _Failure(str(error)) from None
    name = sprt.experiment_name(args.a, args.b, test, openings, args.seed)
    live = sys.stderr.isatty()
    resumed = 0  # pairs counted from the store at the start: said once, in the first line

    def show(verdict: "sprt.Verdict") -> None:  # after each batch of games (batches grow while under 2 s)
        if verdict.pairs <= resumed and not verdict.finished:
            return
        if live:
            print(f"\r\033[K{verdict.line()}", end="", file=sys.stderr, flush=True)
        else:
            _info(verdict.line())

    with ex.Store(path) as store:
        stored = store.count(name)
        so_far = ""
        if stored:
            before = sprt.stored_verdict(args.a, args.b, test, store, openings, seed=args.seed,
                                         max_pairs=args.max_pairs, check_every=args.check_every, name=name)
            resumed = before.pairs
            so_far = f" ({before.line()})" if resumed else ""
        count = args.workers or available_cores()
        where = (f"the Dask cluster at {args.scheduler}" if args.scheduler else "this process" if args.workers == 0
                 else f"{count} local worker process{'es' if count != 1 else ''}")
        _info(f"sprt: {args.a} vs {args.b}, H0 elo <= {test.elo0:g}, H1 elo >= {test.elo1:g}, alpha {test.alpha:g}, "
              f"beta {test.beta:g}; {len(openings)} openings from {source}; {stored} games already in {path}{so_far}; "
              f"playing on {where}")
        try:
            verdict = sprt.sequential(
                args.a, args.b, test, store, openings, seed=args.seed, max_pairs=args.max_pairs,
                check_every=args.check_every, workers=args.workers, scheduler=args.scheduler,
                batch_size=args.batch_size, live=show, name=name,
            )
        except sprt.SPRTInterrupted as interrupted:
            if live:
                print(file=sys.stderr)
            unwritten = "; the ledger gets its row when the test ends" if args.ledger is not None else ""
            raise _Failure(
                f"interrupted: {interrupted.verdict.line()}; {interrupted.stored} games of the test are in {path}; "
                f"run the same command again to resume{unwritten}",
                130,
            ) from None
        if live:
            print(file=sys.stderr)
        print(verdict.conclusion())
        _write_ledger(args, test, store)
    if verdict.beyond:
        _info(f"sprt: {verdict.beyond} games played after the deciding pair are stored but not counted")
    if verdict.failed:
        key, message = verdict.failed[0]
        _info(f"{PROG}: {len(verdict.failed)} game(s) failed and were not stored; the first: {key}: {message}")
        return 1
    return 0


def _write_ledger(args: argparse.Namespace, test: Any, store: "ex.Store") -> None:
    """With ``--ledger``, the test's row written into the ledger (see awale.experiments.ledger)."""
    if args.ledger is None:
        return
    from .experiments import ledger

    try:
        row = ledger.entry(args.ledger, args.a, args.b, test, store, commit=ledger.commit_of(), seed=args.seed,
                           check_every=args.check_every, max_pairs=args.max_pairs)
        ledger.record(args.ledger_file, row)
    except (OSError, ValueError) as error:
        raise _Failure(f"cannot write the ledger {args.ledger_file}: {error}") from None
    _info(f"sprt: ledger {args.ledger_file}: {row.idea}: {row.verdict} after {row.games} games, "
          f"{row.a_ms:.1f} vs {row.b_ms:.1f} ms a move")


def _ledger(args: argparse.Namespace) -> int:
    from .experiments import ledger

    try:
        entries = ledger.read(args.file)
    except (OSError, ValueError) as error:
        raise _Failure(f"cannot read the ledger {args.file}: {error}") from None
    rows = [(e.verdict, e.games, f"{e.score:.3f}", f"{e.elo:+.0f} [{e.elo_low:+.0f}, {e.elo_high:+.0f}]",
             f"{e.llr:.2f}", f"{e.a_ms:.1f}/{e.b_ms:.1f}", e.commit, e.idea) for e in entries]
    print(_table(("verdict", "games", "score", "Elo [95 %]", "LLR", "ms/move A/B", "commit", "idea"), rows))
    if not args.check:
        return 0
    try:
        with ex.Store(args.store or _default_store(), create=False) as store:
            problems = ledger.check(args.file, store)
    except ex.StoreError as error:
        raise _Failure(str(error)) from None
    for line in problems:
        _info(line)
    _info(f"ledger: {len(entries) - len(problems)} of {len(entries)} rows agree with the store")
    return 1 if problems else 0


# --------------------------------------------------------------------------- entry point


def _terminate(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


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
    except _Failure:
        raise  # its message says what the interruption left (an interrupted test's games, say)
    except Exception as error:
        if _from_ctrl_c(error):
            raise KeyboardInterrupt from error
        raise


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line with ``argv`` (by default ``sys.argv[1:]``) and return the exit status."""
    try:
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    previous = None
    if hasattr(signal, "SIGTERM"):
        previous = signal.signal(signal.SIGTERM, _terminate)  # a polite kill stops like Ctrl-C
    try:
        return _handled(args.handler, args)
    except _Failure as failure:
        print(f"{PROG}: {'error: ' if failure.status == 2 else ''}{failure}", file=sys.stderr)
        return failure.status
    except (ex.StoreError, ex.RunnerError, ValueError, sqlite3.Error) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"{PROG}: error: {error.strerror or error}{f': {error.filename}' if error.filename else ''}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
