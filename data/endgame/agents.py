"""Score agents against perfect play: ``python data/endgame/agents.py --db endgame15.db``.

Positions come from games between ``greedy(eps=0.2)`` players (seeded), taken at the first ply with
at most the database's seeds on the board and the player to move with two moves or more
(``awale.offline.endgame_checks.greedy_positions``).  For each agent and position, the move it picks
is compared with the database: an *error* is a move whose value is below the best, and the *seeds
lost* are the difference; a *result error* is a move whose result (win, draw or loss, given the
seeds already captured: the sign of the captured lead plus the move's value, by the captures
question of chapter 6) is below the best.
Writes ``agents.csv`` beside this script (or ``--out``), with the sum of the squared seeds lost
(for their variance) and the seconds each agent took over all the positions.
"""

import argparse
import os
import time

from awale.agents import parse
from awale.knowledge import endgame as eg
from awale.offline.endgame_checks import greedy_positions

HERE = os.path.dirname(os.path.abspath(__file__))
AGENTS = [
    ("greedy", "greedy", 0),
    *[("minimax", "minimax(depth={})", d) for d in range(2, 11)],
    *[("flat", "flat(iterations={}, seed=1)", b) for b in (100, 1000, 10000)],
    *[("mcts", "mcts(iterations={}, seed=1)", b) for b in (100, 1000, 10000)],
    *[("uct", "uct(iterations={}, seed=1)", b) for b in (100, 300, 1000, 3000, 10000, 30000)],
    *[("uct solver", "uct(iterations={}, solver=True, seed=1)", b) for b in (1000, 10000, 30000)],
    *[("uct greedy playouts", "uct(iterations={}, playout='greedy', seed=1)", b) for b in (1000, 10000)],
    *[("champion", "champion(depth={}, quiescence=0, reductions=True)", d) for d in (6, 10)],
]


def _sign(x):
    return (x > 0) - (x < 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--out", default=os.path.join(HERE, "agents.csv"))
    args = parser.parse_args()
    database = eg.load(args.db)
    games = greedy_positions(database.rules, database.seeds, args.positions)
    rows = []
    for family, spec, budget in AGENTS:
        errors = lost = squares = wrong = 0
        start = time.perf_counter()
        for game in games:
            values = database.action_values(game)
            agent = parse(spec.format(budget))
            move = agent.act(game)
            best = max(values.values())
            errors += values[move] < best
            lost += best - values[move]
            squares += (best - values[move]) ** 2
            mover, other = game.captures[game.current_player], game.captures[1 - game.current_player]
            lead = mover - other
            wrong += _sign(lead + values[move]) < _sign(lead + best)
        seconds = round(time.perf_counter() - start, 1)
        rows.append((family, spec.format(budget), budget, len(games), errors, lost, squares, wrong, seconds))
        print(rows[-1], flush=True)
    with open(args.out, "w") as out:
        out.write("family,spec,budget,positions,errors,seeds_lost,seeds_lost_squares,result_errors,seconds\n")
        for row in rows:
            out.write(",".join(f'"{v}"' if isinstance(v, str) and "," in v else str(v) for v in row) + "\n")


if __name__ == "__main__":
    main()
