"""Compile the engine's kernels that the chapters use, once, before any notebook runs (`make compile`).

numba compiles a kernel on its first call and keeps the machine code in ``__pycache__`` beside the library's
sources (``cache=True``); a later process loads it in a fraction of a second.  A cold compile of the whole
engine takes minutes on a busy laptop, and a chapter cell that compiled its search would spend them inside its
cell timeout: when the timeout kills the kernel, numba has not yet written its cache, and the rerun fails the
same way.  So `make html`, `make pdf` and `make test` run this first, in a process of its own with no time
limit: each agent the chapters play acts once on a small budget, through the library's public API only
(``awale.agents.parse(spec).act(game)``, the endgame build and searcher, ``simulate``), and every kernel that
compiles is written to the cache.  A second run finds them all there and takes seconds.

Usage:
    python tools/compile.py            compile what is missing; one line per step, with its time
    python tools/compile.py --check    compile nothing: fail, naming them, if any kernel had to be compiled
                                       (also plays every agent spec written in notebooks/*.ipynb, budgets
                                       shrunk, to find kernels a chapter calls that the steps below miss)
    python tools/compile.py --report _build/chapter-cells.csv
                                       what the chapters' cells cost in the last build (docs/_ext/kernel_watch.py)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent

# Each step: what a chapter does, on a small budget.  The specs are those the chapters act with (grep
# notebooks/ for `parse(` and `play(`); the kernels depend on the agent and its options, not on the budget.
AGENT_STEPS = (
    "random(seed=1)",
    "greedy(eps=0.1, seed=1)",
    "minimax(depth=3)",
    "flat(iterations=200, seed=1)",
    "mcts(iterations=200, seed=1)",
    "uct(iterations=200, seed=1)",
    "uct(iterations=200, bias=1.0, history=1.0, seed=1)",
    "uct(iterations=200, rave=300, seed=1)",
    "uct(iterations=200, solver=True, seed=1)",
    "uct(iterations=200, reuse=True, seed=1)",
    "uct(iterations=200, playout='greedy', seed=1)",
    "uct(iterations=200, cutoff=20, seed=1)",
    "uct(iterations=400, threads=2, parallel='root', seed=1)",
    "uct(iterations=400, threads=2, parallel='tree', seed=1)",
    "uct(iterations=400, threads=2, parallel='leaf', seed=1)",
    "uct(iterations=200, evaluation=True, seed=1)",
    "uct(iterations=200, solver=True, evaluation=True, seed=1)",
    "minimax(depth=3, evaluation=True, quiescence=4)",
    "champion(depth=3)",
    # The opponent of `python -m awale play` and of the board of docs/play.ipynb (awale.DEFAULT_AGENT), at 20 ms.
    "champion(time=0.02, manage=True, clock_moves='database', quiescence=0, reductions=True, weights='texel')",
)


class _Compiles:
    """numba's compile events for the library's kernels (a cache hit is no event): name and seconds of each."""

    def __init__(self) -> None:
        self.done: List[Tuple[str, float]] = []  # every kernel compiled, with its seconds (nested ones included)
        self.seconds = 0.0  # the time spent compiling, the outermost compiles only
        self._started: Dict[int, float] = {}
        self._depth = 0

    def install(self) -> "_Compiles":
        from numba.core import event

        watcher = self

        class Listener(event.Listener):
            def on_start(self, ev) -> None:
                watcher._started[id(ev.data["dispatcher"])] = time.perf_counter()
                watcher._depth += 1

            def on_end(self, ev) -> None:
                watcher._depth -= 1
                dispatcher = ev.data["dispatcher"]
                function = getattr(dispatcher, "py_func", None)
                module = getattr(function, "__module__", "") or ""
                if module.startswith("awale"):
                    took = time.perf_counter() - watcher._started.pop(id(dispatcher), time.perf_counter())
                    watcher.done.append((f"{module}.{function.__name__}", took))
                    if watcher._depth == 0:
                        watcher.seconds += took

        event.register("numba:compile", Listener())
        return self


def _positions():
    """The starting position and a middle-game one out of the opening book (40 seeded random plies)."""
    import random

    from awale import Game

    rng, game = random.Random(3), Game()
    for _ in range(40):
        if game.game_finished:
            break
        game = game.step(rng.choice(game.legal_actions))[0]
    return [Game(), game]


def _act(spec: str) -> Callable[[], None]:
    """An agent's move from each position, then what the chapters read of its search after the move."""

    def step() -> None:
        from awale.agents import parse

        for game in _positions():
            agent = parse(spec)
            agent.act(game)
            _after_the_move(agent, game)
            if hasattr(agent, "close"):
                agent.close()

    return step


def _after_the_move(agent, game) -> None:
    """Chapters 4 and 5 read the root's statistics, whether the solver proved the root, and the subtree that
    tree reuse keeps after a move each; each has kernels of its own."""
    if callable(getattr(agent, "statistics", None)):
        agent.statistics()
    tree = getattr(agent, "tree", None)
    if tree is None:
        return
    getattr(tree, "proven_root", None)
    if callable(getattr(tree, "subtree", None)) and not game.game_finished:
        after = game.step(agent.act(game))[0]
        if not after.game_finished:
            after = after.step(after.legal_actions[0])[0]
            tree.subtree(after)
            agent.act(after)


def _solver_proves() -> None:
    """Chapter 5: the solver proves the root of the worked position of chapter 3, and says so."""
    from awale import Game
    from awale.agents import parse

    agent = parse("uct(iterations=2000, solver=True)")
    agent.act(Game.from_position([1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1], captures=(22, 22)))
    getattr(getattr(agent, "tree", None), "proven_root", None)


def _evaluation() -> None:
    """Chapter 5: the fitted evaluation's probability of a win, as a chapter asks for it."""
    from awale import Game
    from awale.knowledge.evaluation import load_evaluation

    evaluation, game = load_evaluation(), Game()
    for action in (2, 3, 1):
        game = game.step(action)[0]
    evaluation.win_probability(game)


def _rules_and_playouts() -> None:
    from awale import Game, Rules, simulate
    from awale.core.record import describe

    simulate(Game(), 100, seed=1)
    describe(Game(), 2)  # the board of the Jupyter page marks the pits a move sowed and captured (docs/play)
    simulate(Game(rules=Rules.simplified()), 100, seed=1)
    small = Game.from_position([0, 1, 0, 1], captures=(2, 4), rules=Rules(pits_per_side=2, seeds_per_pit=2))
    small.step(1)


def _endgame() -> None:
    """Chapter 6: small databases built, checked against the exact search, probed by it."""
    import numpy as np

    from awale import Game, Rules
    from awale.knowledge import endgame_build
    from awale.offline import endgame_checks
    from awale.search.alphabeta import AlphaBeta

    rules = Rules(pits_per_side=3, seeds_per_pit=4)
    database = endgame_build.build(rules, 6)
    searcher = AlphaBeta(rules)
    for index in endgame_checks.sample(database, 5, seed=4):
        endgame_checks.compare(database, index, searcher)
    endgame_checks.captures_check(database)
    quiet = Rules(pits_per_side=3, seeds_per_pit=4, collect_remaining=False)
    quiet_db = endgame_build.build(quiet, 6)
    plain, probed = AlphaBeta(quiet), AlphaBeta(quiet, endgame=quiet_db)
    rng, game = np.random.default_rng(3), Game(rules=quiet)
    while not game.game_finished and sum(game.pits) > 8:
        game = game.step(int(rng.choice(game.legal_actions)))[0]
    if not game.game_finished:
        plain.search(game)
        probed.search(game)


STEPS: List[Tuple[str, Callable[[], None]]] = [
    ("the rules and random playouts", _rules_and_playouts),
    ("the fitted evaluation", _evaluation),
    ("uct(solver=True) proving a root", _solver_proves),
    *((spec, _act(spec)) for spec in AGENT_STEPS),
    ("the endgame databases of chapter 6 (built, checked, probed)", _endgame),
]

# The budgets of a spec written in a chapter, shrunk for --check: the kernels do not depend on them.
_SHRINK = [
    (re.compile(r"\biterations=\d[\d_]*"), "iterations=200"),
    (re.compile(r"\bdepth=\d+"), "depth=3"),
    (re.compile(r"\bnodes=\d[\d_]*"), "nodes=2000"),
    (re.compile(r"\btime=[\d.]+"), "time=0.02"),
    (re.compile(r",?\s*endgame='\d+'"), ""),  # a large database is built on first use: no kernel of its own
]


def chapter_specs() -> List[str]:
    """Every agent spec written as a string literal in a chapter's code (f-strings with fields left out)."""
    from awale.agents import parse, registry

    names = "|".join(sorted(registry(), key=len, reverse=True))
    literal = re.compile(rf"""["']((?:{names})\([^"'{{}}]*(?:'[^'{{}}]*'[^"'{{}}]*)*\))["']""")
    found = []
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            for spec in literal.findall("".join(cell["source"])):
                try:
                    parse(spec)
                except (ValueError, TypeError):
                    continue
                if spec not in found and not spec.startswith("openspiel_"):  # OpenSpiel's agents: no kernel of ours
                    found.append(spec)
    return found


def shrunk(spec: str) -> str:
    for pattern, replacement in _SHRINK:
        spec = pattern.sub(replacement, spec)
    return spec


def _run(steps, compiles: _Compiles, quiet: bool = False) -> float:
    started = time.perf_counter()
    for number, (label, step) in enumerate(steps, start=1):
        before, t0 = len(compiles.done), time.perf_counter()
        step()
        new = len(compiles.done) - before
        if not quiet:
            names = sorted({name.rsplit(".", 1)[-1] for name, _ in compiles.done[before:]})
            what = (f"{new} kernel{'s' if new != 1 else ''} compiled: {', '.join(names[:4])}"
                    f"{', ...' if len(names) > 4 else ''}" if new else "from the cache")
            print(f"  [{number:2d}/{len(steps)}] {label:<62} {time.perf_counter() - t0:6.1f} s  ({what})", flush=True)
    return time.perf_counter() - started


def report(log: Path, timeout: float) -> int:
    """What the chapters' cells cost during the last build, from the log docs/_ext/kernel_watch.py writes."""
    import csv

    rows = list(csv.DictReader(log.open(encoding="utf-8"))) if log.is_file() else []
    if not rows:
        print(f"compile: {log} is empty: no chapter ran in this build (Sphinx had nothing new to read)")
        return 0
    compiled = [row for row in rows if row["compiled"]]
    slowest = sorted(rows, key=lambda row: float(row["seconds"]), reverse=True)[:3]
    chapters = len({row["chapter"] for row in rows})
    print(f"compile: {len(rows)} cells of {chapters} notebooks ran; the slowest: "
          + ", ".join(f"{row['chapter'].split('/')[-1]} cell {row['cell']} {float(row['seconds']):.1f} s"
                      for row in slowest)
          + f" (timeout {timeout:g} s a cell)")
    if not compiled:
        print("compile: no chapter cell compiled a kernel: all came from the cache that `make compile` wrote")
        return 0
    print(f"compile: {len(compiled)} chapter cells compiled kernels that `make compile` had not "
          "(tools/compile.py misses a step; the build went on):")
    for row in compiled[:20]:
        print(f"  {row['chapter']} cell {row['cell']} ({float(row['seconds']):.1f} s): {row['compiled']}")
    return 1


def _first_time() -> str:
    """How long the first compile took, as data/first-run.csv (tools/first_run.py) measured it."""
    import csv

    try:
        with (ROOT / "data" / "first-run.csv").open(newline="", encoding="utf-8") as table:
            rows = [row for row in csv.DictReader(table)
                    if row["command"] == "make compile" and not row["what"].startswith("FAILED")]
    except OSError:
        rows = []
    if not rows:
        return "the first time takes minutes, later ones seconds."
    seconds = float(rows[-1]["seconds"])
    return (f"the first time took {seconds / 60:.0f} minutes on a busy {rows[-1]['cores']}-core machine "
            "(data/first-run.csv), later ones take seconds.")


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if any kernel the chapters use is not cached")
    parser.add_argument("--report", type=Path, metavar="LOG", help="report what the chapters' cells cost")
    parser.add_argument("--timeout", type=float, default=0, help="the cell timeout, for --report")
    args = parser.parse_args(argv)
    if args.report:
        return report(args.report, args.timeout)
    sys.path.insert(0, str(ROOT / "lib"))
    compiles = _Compiles().install()
    if args.check:
        extra = [(f"{spec} (a chapter's, shrunk)", _act(shrunk(spec))) for spec in chapter_specs()]
        seconds = _run(STEPS + extra, compiles, quiet=True)
        if compiles.done:
            print(f"compile --check: {len(compiles.done)} kernels were not in the cache:")
            for name, took in compiles.done:
                print(f"  {name} ({took:.1f} s)")
            return 1
        print(f"compile --check: every kernel of {len(STEPS) + len(extra)} steps loaded from the cache in {seconds:.1f} s")
        return 0
    print(f"Compiling the engine's kernels the chapters use ({len(STEPS)} steps). numba caches them beside the "
          f"library's sources: {_first_time()}", flush=True)
    seconds = _run(STEPS, compiles)
    total = compiles.seconds
    print(f"compile: {len(compiles.done)} kernels compiled ({total:.0f} s of it compiling), "
          f"the rest loaded from the cache; {seconds:.1f} s in all", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
