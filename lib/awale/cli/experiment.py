"""``python -m awale experiment list | run | status | verify | calibrate``: the thesis's named experiments."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ..core._guard import available_cores
from .arguments import (Failure, add_cluster, add_store, default_store, format_table, integer, milliseconds,
                        replayed)
from .arguments import info
from .running import report_failures, run_games

if TYPE_CHECKING:
    from ..experiments import Experiment, Store

__all__ = ["add"]


def add(commands: Any) -> None:
    """The ``experiment`` command and its actions."""
    experiment = commands.add_parser(
        "experiment",
        help="list, run or follow the thesis's named experiments",
        description="The catalogue of named experiments (awale.experiments.catalog).",
    )
    actions = experiment.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the experiments, their sizes and progress", description="List the experiments.")
    add_store(listing)
    listing.set_defaults(handler=list_experiments)
    running = actions.add_parser(
        "run",
        help="play the missing games of an experiment, or of all",
        description="Play the games of an experiment (or, with --all, of every experiment) not yet in the store. "
        "Interrupt it at any time: the same command resumes.",
    )
    _add_name(running, every=True)
    add_store(running)
    add_cluster(running)
    running.set_defaults(handler=run_experiments)
    following = actions.add_parser(
        "status", help="games done per pairing", description="Games done and scores for each pairing of an experiment."
    )
    _add_name(following)
    add_store(following)
    following.set_defaults(handler=experiment_status)
    checking = actions.add_parser(
        "verify",
        help="check stored games: moves through the rules, and a sample replayed from their keys",
        description="Play every stored move list through the rules (legal moves, the stored winner, scores and "
        "plies), and replay a random sample of the games from their keys (agent specs, seed, rules): the moves "
        "and results must come out identical. Games whose agents have a time budget or a clock, or are another "
        "program (engine(name=...)), are not replayed; nothing read from the store starts a program. "
        "Exit status 1 if any game fails.",
    )
    checking.add_argument("name", nargs="?", metavar="NAME", help="only this experiment's games (default: all)")
    replays = checking.add_mutually_exclusive_group()
    replays.add_argument(
        "--sample", type=integer(0, "--sample"), default=100, metavar="N",
        help="games to replay, drawn at random (default 100; 0 checks the rules only)",
    )
    replays.add_argument("--replay-all", action="store_true", help="replay every replayable game (as long as playing them)")
    checking.add_argument("--seed", type=integer(0, "--seed"), default=0, metavar="S", help="seed of the sample (default 0)")
    add_store(checking)
    checking.set_defaults(handler=verify_store)
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
    calibrating.add_argument("--targets", nargs="+", type=milliseconds, default=[10.0], metavar="MS",
                             help="with --fit, the times per move to reach, in ms (default 10)")
    calibrating.add_argument("--positions", type=integer(1, "--positions"), default=None, metavar="N",
                             help="positions measured (default 400)")
    calibrating.add_argument("--replay", type=replayed, metavar="K",
                             help="instead, replay K stored games of each pairing (a seeded sample; 'all': every "
                             "one) and time both sides on the positions the games reached, in wall-clock and CPU time")
    calibrating.add_argument(
        "--workers",
        type=integer(1, "--workers", available_cores(), ", the cores this process may use"),
        default=None,
        metavar="K",
        help="with --replay, processes sharing the games, one game each at a time (default: one per core, here "
        f"{available_cores()}); the machine should be otherwise idle",
    )
    calibrating.add_argument("--out", metavar="CSV", help="also write the measurements to this CSV file "
                             "(appended to one with the same columns; one with other columns is refused)")
    add_store(calibrating)
    calibrating.set_defaults(handler=calibrate)


def _add_name(parser: argparse.ArgumentParser, every: bool = False) -> None:
    if every:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("name", nargs="?", metavar="NAME", help="the experiment (see: experiment list)")
        which.add_argument("--all", action="store_true", help="every experiment of the catalogue, in its order")
    else:
        parser.add_argument("name", metavar="NAME", help="the experiment (see: experiment list)")
    parser.add_argument("--games", type=integer(1, "--games"), metavar="N", help="games per pairing (default: the experiment's)")


def list_experiments(args: argparse.Namespace) -> int:
    from ..experiments import CATALOG, Store, status
    from ..experiments.catalog import REFERENCE_ITERATIONS

    path = args.store or default_store()
    store = Store(path, create=False) if os.path.exists(path) else None
    header = ["name", "pairings", "games", "total"] + (["done"] if store else []) + ["description"]
    rows = []
    try:
        for exp in CATALOG.values():
            pairs = exp.pairings()
            done = [] if store is None else [sum(s.done for s in status(exp, store))]
            rows.append([exp.name, len(pairs), exp.games, len(pairs) * exp.games, *done, exp.description])
    finally:
        if store is not None:
            store.close()
    print(format_table(header, rows))
    print(
        f"\ngames: per pairing, half with each agent as South; searches: {REFERENCE_ITERATIONS} iterations "
        f"per move unless varied; rules: Abapa\nstore: {path}" + ("" if store else " (not created yet)")
    )
    return 0


def _experiment(args: argparse.Namespace) -> Experiment:
    from ..experiments import get_experiment

    try:
        return get_experiment(args.name)
    except ValueError as error:
        raise Failure(str(error)) from None


def _print_status(exp: Experiment, store: Store, games: Optional[int]) -> None:
    from ..experiments import status

    rows = status(exp, store, games)
    print(format_table(
        ["agent", "opponent", "done", "score"],
        [[r.agent, r.opponent, f"{r.done}/{r.total}", "" if r.done == 0 else f"{r.score:.3f}"] for r in rows],
    ))
    print(f"\n{exp.name}: {sum(r.done for r in rows)} of {sum(r.total for r in rows)} games in {store.path}")


def run_experiments(args: argparse.Namespace) -> int:
    from ..experiments import CATALOG, Store

    chosen = list(CATALOG.values()) if args.all else [_experiment(args)]
    status = 0
    path = args.store or default_store()
    keys = {exp.name: exp.keys(args.games) for exp in chosen}  # a bad request is refused before anything is said
    info(f"experiment: the games go to {path}" + ("" if args.store or os.environ.get("AWALE_STORE") else
         " (the thesis's store; --store PATH or $AWALE_STORE for another)"))
    with Store(path) as store:
        for exp in chosen:
            summary = run_games(keys[exp.name], args, exp.name, store)
            print()
            _print_status(exp, store, args.games)
            status = max(status, report_failures(summary))
    return status


def experiment_status(args: argparse.Namespace) -> int:
    from ..experiments import Store

    exp = _experiment(args)
    exp.games_per_pairing(args.games)  # a bad request is refused before the store is opened
    with Store(args.store or default_store(), create=False) as store:
        _print_status(exp, store, args.games)
    return 0


def verify_store(args: argparse.Namespace) -> int:
    from ..experiments import experiments as stored_experiments, verify

    path = args.store or default_store()
    if args.name is not None and args.name not in stored_experiments(path):
        raise Failure(f"the store {path} holds no game of experiment {args.name!r}")
    report = verify(path, args.name, sample=None if args.replay_all else args.sample, seed=args.seed)
    for mismatch in report.mismatches:
        print(f"FAILED {mismatch}")
    print(
        f"{report.checked} of {report.games} games checked through the rules, {report.replayed} replayed from their "
        f"keys ({report.time_based} not replayable: time budgets, clocks or threads"
        + (f", {report.external} of them played by another program, engine(...)" if report.external else "") + "): "
        + ("all identical" if report.ok else f"{len(report.mismatches)} FAILED")
    )
    return 0 if report.ok else 1


def calibrate(args: argparse.Namespace) -> int:
    from ..experiments import CATALOG
    from ..experiments import calibration as cal

    path = args.store or default_store()
    if args.fit is not None and args.names:
        raise Failure("give experiments to check or --fit, not both")
    families = (args.fit or list(cal.FAMILIES)) if args.fit is not None else []
    unknown = [family for family in families if family not in cal.FAMILIES]
    if unknown:
        raise Failure(f"unknown family {unknown[0]!r}; known: {', '.join(map(repr, cal.FAMILIES))}")
    chosen = [_experiment(argparse.Namespace(name=name)) for name in args.names] or [
        exp for exp in CATALOG.values() if exp.equal_time]
    if args.workers is not None and args.replay is None:
        raise Failure("--workers is for --replay")
    if args.replay is not None:
        if args.fit is not None:
            raise Failure("give --replay or --fit, not both")
        games = None if args.replay == "all" else args.replay
        return _replay_times(chosen, path, games, args.out, args.workers or available_cores())
    try:
        games = cal.positions(path, args.positions or cal.POSITIONS)
    except ValueError as error:
        raise Failure(str(error)) from None
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
            raise Failure("no experiment to check")
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
        print(format_table(["experiment", "agent", "opponent", "agent ms", "opponent ms", "ratio", "equal time"], table))
    _write_csv(args.out, rows)
    return 0


def _replay_times(chosen: List[Experiment], path: str, games: Optional[int], out: Optional[str], workers: int) -> int:
    from ..experiments import calibration as cal

    import time

    rows: List[Dict[str, object]] = []
    uneven: List["cal.PairTimes"] = []
    stamp = time.strftime("%Y-%m-%d %H:%M")  # when replayed: rows of several replays can share a file
    for exp in chosen:
        try:
            measured = cal.replay_times(path, exp, games, report=lambda line: print(line, flush=True),
                                        workers=workers, progress=None)
        except ValueError as error:
            raise Failure(str(error), status=1) from None
        for t in measured:
            rows.append(t.row(exp.name, stamp))
            if not rows[-1]["equal_time"]:
                uneven.append(t)
    print()
    print(format_table(["experiment", "agent", "opponent", "games", "agent ms", "opponent ms", "ratio", "equal time"],
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
    """Write ``rows`` (dicts with the same keys) to the CSV file ``path``, if a path and rows are given: a new file,
    or appended to one whose header names the same columns, so that a file of earlier measurements keeps them.

    Raises:
        Failure: the file exists with other columns (it is left as it was).
    """
    import csv

    if not (path and rows):
        return
    columns = list(rows[0])
    try:
        with open(path, newline="") as handle:
            header = next(csv.reader(handle), None)
    except FileNotFoundError:
        header = None
    except OSError as error:
        raise Failure(f"cannot read {path}: {error}", status=1) from None
    if header is not None and header != columns:
        raise Failure(f"{path} has other columns ({', '.join(header)}) than these measurements "
                      f"({', '.join(columns)}): give another --out; the file is left as it was", status=1)
    with open(path, "a" if header is not None else "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        if header is None:
            writer.writeheader()
        writer.writerows(rows)
    print(f"{'appended to' if header is not None else 'written'} {path}")
