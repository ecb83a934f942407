"""What probing a deeper database costs the searches: ``python data/endgame/probe_cost.py --db 15=A.db --db 20=B.db``.

Positions with 21 to 26 seeds (``--seeds``) from seeded random games, so that
the searches reach the databases after a capture or two.  For each database (and none),
UCT's iterations and αβ's positions visited per CPU second of the process
(``time.process_time``: on a loaded machine the wall clock measures the load),
and how many probes answered.  Writes ``probe-cost.csv`` beside this script.
"""

import argparse
import csv
import os
import time

import numpy as np

from awale import Rules
from awale.knowledge import endgame
from awale.core.positions import sample_positions
from awale.core.rules import seed_rng
from awale.search.alphabeta import AlphaBeta
from awale.search.mcts import SearchConfig, SearchTree

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", action="append", default=[], metavar="SEEDS=PATH")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--seeds", default="21-26", metavar="LOW-HIGH",
                        help="the seeds on the board of the positions searched (default 21-26)")
    parser.add_argument("--out", default=os.path.join(HERE, "probe-cost.csv"))
    args = parser.parse_args()
    low, high = (int(part) for part in args.seeds.split("-"))
    rules = Rules()
    games = sample_positions(high, args.positions, np.random.default_rng(3), rules, least=low)
    databases = [("none", None)] + [(label, endgame.load(path)) for label, path in
                                    (item.split("=", 1) for item in args.db)]
    rows = []
    for repeat in range(2):  # twice, interleaved: the first round also compiles and reads the files
        for label, db in databases:
            SearchTree(games[0], SearchConfig(), seed_rng(1), capacity=101, endgame=db).run(100)
            start = time.process_time()
            for game in games:
                SearchTree(game, SearchConfig(), seed_rng(1), capacity=args.iterations + 1, endgame=db).run(args.iterations)
            uct = len(games) * args.iterations / (time.process_time() - start)
            searcher = AlphaBeta(rules, endgame=db)
            nodes = probes = 0
            start = time.process_time()
            for game in games:
                searcher.clear()
                found = searcher.search(game, args.depth)
                nodes += found.nodes
                probes += found.probes
            seconds = time.process_time() - start
            if repeat:
                rows.append({"database": label, "uct_iterations_per_cpu_s": round(uct),
                             "alphabeta_depth": args.depth, "alphabeta_nodes": nodes,
                             "alphabeta_nodes_per_cpu_s": round(nodes / seconds), "alphabeta_probes": probes,
                             "seeds": args.seeds,
                             "load": round(os.getloadavg()[0], 2)})
                print(rows[-1], flush=True)
    with open(args.out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
