"""Budgets of equal time per move for the knowledge ladder: ``python data/knowledge/calibrate.py``.

The ladder (experiment ``knowledge`` of ``awale.experiments.catalog``) pits
every agent against every other at the same time per move, with iteration or
depth budgets so that its games stay reproducible.  This script measures how
long each candidate budget takes per move, on the same positions for every
agent, so that the budgets can be chosen to match:

* the positions: every ply of the first ``GAMES`` games of ``champions`` in
  ``data/experiments.sqlite`` between two searches (openings, middle games
  and endings as searches reach them; every ply, because OpenSpiel's bots
  follow a game move by move);
* the target: the mean time per move of ``uct(iterations=3800)``, the
  reference budget of every other experiment of the thesis;
* an iteration budget is set from the time per iteration at a probe budget
  (search time grows about linearly with iterations), then measured and
  corrected the same way until it is within 3 % of the target;
  a depth budget is measured at every depth until it takes three times the
  target, and the depth closest to the target (in ratio) is kept.

Each agent plays every move of the games in turn (one agent per game, so a
transposition table carries over as it does in play), after one move that
compiles it (``awale.experiments.calibration.seconds_per_move``, which the
equal-time experiments use too; since 2026-11-25 it also loads an agent's
endgame database before timing).  Writes ``calibration.csv`` beside this script: one row per measured
spec, with its mean seconds per move and its ratio to the target.  Run it on
otherwise idle cores: the figures are times.
"""

import argparse
import csv
import os

from awale import Game
from awale.experiments import load
from awale.experiments.calibration import seconds_per_move
from awale.experiments.store import decode_moves, rules_from_text

HERE = os.path.dirname(os.path.abspath(__file__))
STORE = os.path.join(HERE, "..", "experiments.sqlite")
GAMES = 6
REFERENCE = "uct(iterations=3800)"

#: Iteration-budget families: a spec template with {n}, and the probe budget.
BY_ITERATIONS = {
    "mcts": ("mcts(iterations={n})", 3800),
    "heavy uct": ("uct(iterations={n}, playout='greedy')", 3800),
    "uct + evaluation": ("uct(iterations={n}, evaluation=True)", 3800),
    "uct + evaluation + solver": ("uct(iterations={n}, evaluation=True, solver=True)", 3800),
    "uct + evaluation + solver + endgame": (
        "uct(iterations={n}, evaluation=True, solver=True, endgame='15')", 3800),
    "OpenSpiel MCTS": ("openspiel_mcts(iterations={n})", 500),
}

#: Depth-budget families: a spec template with {d}.
BY_DEPTH = {
    "αβ, captures": "minimax(depth={d})",
    "αβ + evaluation": "minimax(depth={d}, evaluation=True, quiescence=4)",
    "αβ + evaluation + endgame": "minimax(depth={d}, evaluation=True, quiescence=4, endgame='15')",
    "champion": "champion(depth={d}, endgame='15')",
    "OpenSpiel αβ": "openspiel_alphabeta(depth={d})",
}


def positions(store, games):
    """The positions of the first ``games`` search-vs-search champions games, game by game, every ply."""
    table = load(store)
    table = table[(table["experiment"] == "champions")
                  & table["south"].str.startswith(("uct", "mcts", "flat"))
                  & table["north"].str.startswith(("uct", "mcts", "flat"))]
    found = []
    for row in table.head(games).itertuples():
        game = Game(rules=rules_from_text(row.rules))
        found.append([])
        for action in decode_moves(row.moves):
            found[-1].append(game)
            game = game.step(action)[0]
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=STORE, help="the store of games (default data/experiments.sqlite)")
    parser.add_argument("--out", default=os.path.join(HERE, "calibration.csv"), help="the CSV written")
    args = parser.parse_args()
    games = positions(args.store, GAMES)
    rows = []

    def measure(family, spec, target):
        seconds = seconds_per_move(spec, games)
        rows.append(dict(family=family, spec=spec, seconds_per_move=f"{seconds:.5f}",
                         ratio=f"{seconds / target:.3f}" if target else "1.000"))
        print(f"{family:38} {spec:72} {1000 * seconds:8.2f} ms", flush=True)
        return seconds

    target = measure("uct (the reference)", REFERENCE, 0)
    for family, (template, probe) in BY_ITERATIONS.items():
        budget, seconds = probe, measure(family, template.format(n=probe), target)
        for _ in range(3):
            budget = int(float(f"{budget * target / seconds:.2g}"))
            seconds = measure(family, template.format(n=budget), target)
            if abs(seconds / target - 1) < 0.03:
                break
    for family, template in BY_DEPTH.items():
        depth = 1
        while True:
            seconds = measure(family, template.format(d=depth), target)
            if seconds > 3 * target or depth == 30:
                break
            depth += 1
    with open(args.out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"{sum(map(len, games))} positions; target {1000 * target:.2f} ms a move; written {args.out}")


if __name__ == "__main__":
    main()
