"""How deep the factorial's cells search: ``python data/curves/depths.py``.

The factorial of chapter 8 gives αβ a node budget and lets iterative deepening spend it; the move is that
of the deepest iteration completed.  Its cells were played twice, at the budgets first fitted on the
calibration positions and at those refitted on the cells' own games (``catalog.CURVE_BUDGETS``,
``catalog.EVALUATED_BUDGETS``), and some scores moved far more than the time did.  This measures the depth
each completed, move by move, on the calibration positions (``awale.experiments.calibration.positions``:
every ply of five strong games, 427 positions), for every cell at each budget it was played with.  Writes
``depths.csv`` beside this script (columns ``family``, ``nodes``, ``spec``, ``depth``, ``moves``; a depth
of 0 counts the moves decided without a search: a single legal move).
"""

import collections
import csv
import os
import time

from awale.agents import parse
from awale.experiments import calibration

HERE = os.path.dirname(os.path.abspath(__file__))
STORE = os.path.join(HERE, "..", "experiments.sqlite")

#: The budgets each cell was played with in ``factorial`` or ``factorial-evaluated`` (nodes).
PLAYED = {
    "αβ": (36000,),
    "αβ + quiescence": (33000,),
    "αβ + evaluation, no quiescence": (29000,),
    "αβ + evaluation": (28000,),
    "αβ + endgame": (50000, 62000),
    "αβ + quiescence + endgame": (44000, 56000),
    "αβ + evaluation + endgame, no quiescence": (42000, 48000, 67000, 72000, 80000),
    "αβ + evaluation + quiescence + endgame": (40000, 57000, 58000),
}


def depths(spec, games):
    """How many moves of ``spec`` completed each depth over every position of ``games``."""
    agent = parse(spec)
    counts = collections.Counter()
    for game in games:
        agent.reset()
        for position in game:
            agent.act(position)
            counts[agent.last_search.depth or 0] += 1
    return counts


def main():
    games = calibration.positions(STORE)
    began = time.time()
    rows = []
    for family, budgets in PLAYED.items():
        for nodes in budgets:
            spec = calibration.FAMILIES[family].format(n=nodes)
            for depth, moves in sorted(depths(spec, games).items()):
                rows.append(dict(family=family, nodes=nodes, spec=spec, depth=depth, moves=moves))
            print(f"{spec}: done", flush=True)
    out = os.path.join(HERE, "depths.csv")
    with open(out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {out} in {time.time() - began:.0f} s")


if __name__ == "__main__":
    main()
