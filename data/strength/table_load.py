"""How full the champion's transposition table gets: ``python data/strength/table_load.py --time 0.1``.

Plays ``--games`` games of the champion (``--agent``) against itself from the first balanced openings in the
order the sequential tests play them, and after each move its side searched records the positions the search
visited and its table's load (:meth:`awale.search.alphabeta.AlphaBeta.table_load`): the slots that search
wrote, those in use, and the table's size.  An entry of an earlier search is replaced by any later one, so
the slots one search writes are what a table's size must hold; while they stay a small share of it, a larger
table cannot change a move.  Writes one row per searched move to ``--out`` and prints a summary.
"""

import argparse
import csv
import os
import statistics

from awale import Game
from awale.agents import parse
from awale.experiments import sprt

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT = "champion(time={time}, endgame='25', manage=True, quiescence=0, reductions=True, weights='texel')"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--time", type=float, default=0.1, help="seconds a move (default 0.1)")
    parser.add_argument("--agent", default=AGENT, help="the agent, {time} replaced (default: the champion)")
    parser.add_argument("--games", type=int, default=10, help="games, one per opening (default 10)")
    parser.add_argument("--out", default=None, help="the CSV (default table-load-<time>.csv beside this script)")
    args = parser.parse_args()
    spec = args.agent.format(time=args.time)
    out = args.out or os.path.join(HERE, f"table-load-{args.time:g}.csv")
    openings = sprt.shuffled(sprt.standard_openings(), 0)[: args.games]
    rows = []
    for number, moves in enumerate(openings):
        sides = [parse(spec, seed=2 * number + side) for side in (0, 1)]
        for agent in sides:
            agent.reset()
        game = Game()
        for digit in moves:
            game = game.step(int(digit))[0]
        while not game.game_finished:
            agent = sides[game.current_player]
            action = agent.act(game)
            search = agent.alphabeta
            if search.last_search is not None:
                load = search.searcher.table_load()
                rows.append({"game": number, "ply": game.plies, "side": game.current_player,
                             "depth": search.last_search.depth,
                             "nodes": search.last_search.nodes, "written": load.current, "used": load.used,
                             "size": load.size})
                search.last_search = None  # a move from the book or the database leaves none
            game = game.step(action)[0]
        print(f"game {number + 1}/{len(openings)}: {sum(r['game'] == number for r in rows)} searched moves",
              flush=True)
    with open(out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    written = [r["written"] for r in rows]
    size = rows[0]["size"]
    print(f"{spec}: {len(rows)} searched moves of {len(openings)} games; slots written by a search: "
          f"median {statistics.median(written):,.1f}, most {max(written):,} of {size:,} "
          f"({max(written) / size:.1%}); positions visited: most {max(r['nodes'] for r in rows):,}; -> {out}")


if __name__ == "__main__":
    main()
