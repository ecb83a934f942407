"""``python -m awale sprt`` and ``ledger``: the sequential test on paired games, and the ledger of ideas."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from typing import TYPE_CHECKING, Any, Dict

from ..core._guard import available_cores
from .arguments import add_engines, as_given, user_store, with_engines
from .arguments import (CLOCK_HELP, DEFAULT_LEDGER, PROG, Failure, add_cluster, add_store, agent_spec, clock_value,
                        clocked, default_store, format_table, info, integer, number)

if TYPE_CHECKING:
    from ..experiments import Store
    from ..experiments.gauntlet import Gauntlet

__all__ = ["add"]


def add(commands: Any) -> None:
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
    test.add_argument("a", type=agent_spec, metavar="A", help="the agent tested, e.g. 'champion(nodes=20000)'")
    test.add_argument("b", type=agent_spec, metavar="B", help="the agent it is measured against")
    test.add_argument("--elo0", type=number("--elo0", -2000, 2000), required=True, metavar="E0",
                      help="H0: A's Elo over B is E0 (logistic Elo)")
    test.add_argument("--elo1", type=number("--elo1", -2000, 2000), required=True, metavar="E1",
                      help="H1: A's Elo over B is E1 (above E0)")
    test.add_argument("--alpha", type=number("--alpha", 0, 1, True, True), default=0.05, metavar="A",
                      help="the chance of accepting H1 when H0 holds (default 0.05)")
    test.add_argument("--beta", type=number("--beta", 0, 1, True, True), default=0.05, metavar="B",
                      help="the chance of accepting H0 when H1 holds (default 0.05)")
    test.add_argument("--openings", metavar="FILE",
                      help="the openings, one line of moves (digits) each (default: the library's 708 balanced "
                           "openings, awale/knowledge/openings.txt)")
    test.add_argument("--max-pairs", type=integer(1, "--max-pairs", 500_000), default=50_000, metavar="N",
                      help="stop there without a decision: inconclusive (default 50000). The cap is recorded in the "
                           "store when the test starts; a resume with another cap is refused (start a new test "
                           "with another --seed instead)")
    test.add_argument("--check-every", type=integer(1, "--check-every", 10_000), default=8, metavar="P",
                      help="pairs between two looks at the LLR (default 8)")
    test.add_argument("--seed", type=integer(0, "--seed"), default=0, metavar="S", help="base seed of the games (default 0)")
    test.add_argument("--clock", type=clock_value, default=None, metavar="BASE+INC",
                      help=CLOCK_HELP + "; the test's games and its name in the store then name the clock")
    test.add_argument("--ledger", metavar="IDEA",
                      help="when the test ends (a verdict, or --max-pairs reached; not when interrupted), write its "
                           "row (IDEA, the commit, the games, score, Elo, LLR, "
                           f"verdict and both sides' time per move) into the ledger of ideas ({DEFAULT_LEDGER}); "
                           "needs the library's openings")
    test.add_argument("--ledger-file", default=DEFAULT_LEDGER, metavar="CSV",
                      help=f"the ledger written by --ledger (default {DEFAULT_LEDGER})")
    add_store(test, user=True)
    add_cluster(test)
    add_engines(test)
    test.set_defaults(handler=with_engines(run_sprt, lambda args: [args.a, args.b]))
    ledger = commands.add_parser(
        "ledger",
        help="the ledger of ideas tried on the champion: show it, or check it against the store",
        description="Print the ledger of ideas (one SPRT each, written by 'sprt --ledger IDEA'): verdict, games, "
        "Elo with its 95 % interval and both sides' time per move. With --check, recompute every row from the "
        "store's games and exit with status 1 if one disagrees.",
    )
    ledger.add_argument("--file", default=DEFAULT_LEDGER, metavar="CSV", help=f"the ledger (default {DEFAULT_LEDGER})")
    ledger.add_argument("--check", action="store_true", help="recompute every row from the store")
    ledger.add_argument("--gauntlet", action="store_true",
                        help="also show the gauntlet (experiment 'gauntlet' in the store): the score of the first "
                             "champion and of the champion of each kept idea against other programs and styles, "
                             "and what each idea changed in it, falls marked")
    add_store(ledger, user=True)
    ledger.set_defaults(handler=run_ledger)


def run_sprt(args: argparse.Namespace) -> int:
    from ..experiments import Store
    from ..experiments import sprt

    source = args.openings or sprt.OPENINGS_FILE
    try:
        test = sprt.SPRT(args.elo0, args.elo1, args.alpha, args.beta)
        openings = sprt.standard_openings() if args.openings is None else sprt.load_openings(args.openings)
    except OSError as error:
        raise Failure(f"cannot read the openings {source}: {error.strerror or error}") from None
    except ValueError as error:
        raise Failure(str(error)) from None
    if args.ledger is not None and args.openings is not None:
        raise Failure("--ledger records tests on the library's openings: leave out --openings", 2)
    if args.ledger is not None and not os.path.isdir(os.path.dirname(os.path.abspath(args.ledger_file))):
        raise Failure(f"--ledger-file {args.ledger_file}: the folder "
                      f"{os.path.dirname(os.path.abspath(args.ledger_file))} does not exist", 2)
    path = args.store or user_store()
    try:
        args.a, args.b = clocked((args.a, args.b), args.clock)
    except ValueError as error:
        raise Failure(str(error)) from None
    plan = sprt.TestPlan(args.a, args.b, test, openings, seed=args.seed, max_pairs=args.max_pairs,
                         check_every=args.check_every)
    name = plan.store_name
    live = sys.stderr.isatty()
    resumed = 0  # pairs counted from the store at the start: said once, in the first line

    def show(verdict: "sprt.Verdict") -> None:  # after each batch of games (batches grow while under 2 s)
        if verdict.pairs <= resumed and not verdict.finished:
            return
        if live:
            # one line that the terminal does not wrap: the LLR first
            width = max(20, shutil.get_terminal_size((80, 24)).columns - 1)
            print(f"\r\033[K{verdict.short_line()[:width]}", end="", file=sys.stderr, flush=True)
        else:
            info(verdict.line())

    with Store(path) as store:
        stored = store.count(name)
        so_far = ""
        if stored:
            before = sprt.stored_verdict(plan, store)
            resumed = before.pairs
            so_far = f" ({before.line()})" if resumed else ""
        count = args.workers or available_cores()
        where = (f"the Dask cluster at {args.scheduler}" if args.scheduler else "this process" if args.workers == 0
                 else f"{count} local worker process{'es' if count != 1 else ''}")
        info(f"sprt: {as_given(args.a)} vs {as_given(args.b)}, H0 elo <= {test.elo0:g}, H1 elo >= {test.elo1:g}, alpha {test.alpha:g}, "
             f"beta {test.beta:g}; {len(openings)} openings from {source}; {stored} games already in {path}{so_far}; "
             f"playing on {where}")
        try:
            verdict = sprt.sequential(plan, store, workers=args.workers, scheduler=args.scheduler,
                                      batch_size=args.batch_size, live=show)
        except sprt.CapChanged as error:
            raise Failure(str(error), 2) from None
        except sprt.SPRTInterrupted as interrupted:
            if live:
                print(file=sys.stderr)
            unwritten = "; the ledger gets its row when the test ends" if args.ledger is not None else ""
            raise Failure(
                f"interrupted: {interrupted.verdict.line()}; {interrupted.stored} games of the test are in {path}; "
                f"run the same command again to resume{unwritten}",
                130,
            ) from None
        if live:
            print(file=sys.stderr)
        print(verdict.conclusion())
        _write_ledger(args, test, store)
    if verdict.beyond:
        info(f"sprt: {verdict.beyond} games played after the deciding pair are stored but not counted")
    if verdict.failed:
        key, message = verdict.failed[0]
        info(f"{PROG}: {len(verdict.failed)} game(s) failed and were not stored; the first: {key}: {message}")
        return 1
    return 0


def _write_ledger(args: argparse.Namespace, test: Any, store: "Store") -> None:
    """With ``--ledger``, the test's row written into the ledger (see awale.experiments.ledger)."""
    if args.ledger is None:
        return
    from ..experiments import ledger

    try:
        row = ledger.entry(args.ledger, args.a, args.b, test, store, commit=ledger.commit_of(), seed=args.seed,
                           check_every=args.check_every, max_pairs=args.max_pairs)
        ledger.record(args.ledger_file, row)
    except (OSError, ValueError) as error:
        raise Failure(f"cannot write the ledger {args.ledger_file}: {error}") from None
    info(f"sprt: ledger {args.ledger_file}: {row.idea}: {row.verdict} after {row.games} games, "
         f"{row.a_ms:.1f} vs {row.b_ms:.1f} ms a move")


def run_ledger(args: argparse.Namespace) -> int:
    from ..experiments import Store, StoreError
    from ..experiments import ledger

    if not os.path.isfile(args.file):
        raise Failure(f"no ledger at {args.file} (the default is {DEFAULT_LEDGER}, written by sprt --ledger)")
    try:
        entries = ledger.read(args.file)
    except (OSError, ValueError) as error:
        raise Failure(f"cannot read the ledger {args.file}: {error}") from None
    rows = [(e.verdict, e.games, f"{e.score:.3f}", f"{e.elo:+.0f} [{e.elo_low:+.0f}, {e.elo_high:+.0f}]",
             f"{e.llr:.2f}", f"{e.a_ms:.1f}/{e.b_ms:.1f}", e.commit, e.idea) for e in entries]
    print(format_table(("verdict", "games", "score", "Elo [95 %]", "LLR", "ms/move A/B", "commit", "idea"), rows))
    if not (args.check or args.gauntlet):
        return 0
    problems = []
    try:
        with Store(args.store or user_store(), create=False) as store:
            if args.gauntlet:
                from ..experiments.gauntlet import GAUNTLET, GAUNTLET_CLOCK, GAUNTLET_CLOCKED, ledger_rows

                try:
                    rows = ledger_rows(entries)
                except ValueError as error:
                    raise Failure(f"{args.file}: {error}") from None
                ideas = {player: entries[row - 1].idea for player, row in rows.items()}
                ideas[GAUNTLET.players[0]] = "the first champion"
                ideas[GAUNTLET_CLOCKED.players[0]] = (
                    f"the champion of row {rows[GAUNTLET_CLOCKED.players[0]]} above, under {GAUNTLET_CLOCK}")
                for title, gauntlet in (("at a time a move", GAUNTLET), (f"under a clock of {GAUNTLET_CLOCK}",
                                                                         GAUNTLET_CLOCKED)):
                    print(f"\ngauntlet {title} ({gauntlet.name}):")
                    print(_gauntlet_table(gauntlet, ideas, store))
            if args.check:
                problems = ledger.check(args.file, store)
    except StoreError as error:
        raise Failure(str(error)) from None
    if not args.check:
        return 0
    for line in problems:
        info(line)
    info(f"ledger: {len(entries) - len(problems)} of {len(entries)} rows agree with the store")
    return 1 if problems else 0


def _gauntlet_table(gauntlet: "Gauntlet", ideas: Dict[str, str], store: "Store") -> str:
    """The gauntlet's scores and what each player changed in them from the one before it, with 95 % intervals and
    falls marked (awale.experiments.gauntlet); ``ideas`` names players by spec."""
    import pandas as pd

    records = gauntlet.scores(store).to_dict("records")
    ms = gauntlet.ms_per_move(store)
    names = [name for name, _ in gauntlet.opponents]
    rows = []
    for number, record in enumerate(records):
        change = ""
        if number and record["games"] and records[number - 1]["games"]:
            try:
                change = gauntlet.change(store, record["player"], records[number - 1]["player"]).text()
            except ValueError:  # no pair in common yet
                change = "no common pair"
        rows.append((
            record["games"],
            f"{record['score']:.3f} [{record['low']:.3f}, {record['high']:.3f}]" if record["games"] else "-",
            *(f"{record[name]:.2f}" if pd.notna(record[name]) else "-" for name in names),
            f"{ms[record['player']]:.1f}" if pd.notna(ms[record["player"]]) else "-",
            change,
            ideas.get(record["player"], record["player"]),
        ))
    opponents_ms = ", ".join(f"{name} {ms[spec]:.1f}" for name, spec in gauntlet.opponents if pd.notna(ms[spec]))
    table = format_table(("games", "score [95 %]", *names, "ms/move", "change [95 %], pairs", "champion of"), rows)
    return table + (f"\nms a move of the opponents: {opponents_ms}" if opponents_ms else "")
