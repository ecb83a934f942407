"""Strength gained from the endgame database at equal budget: ``python data/endgame/strength.py --db endgame15.db``.

Each pair (an agent, the same agent with ``endgame=DB``) plays ``--games`` seeded
games from the initial position, half with each as South, through
:func:`awale.play.match.play`.  The agent with the database uses it inside its search
(αβ scores the positions it holds, MCTS ends its playouts there) and plays its
moves once the board holds at most its seeds.  Writes ``strength.csv`` beside this
script (or ``--out``): one row per game (agent, seed, side of the database agent,
its score 1, ½ or 0, plies, the ply at which the board first held at most the
database's seeds, empty if it never did, and the seconds each side spent choosing
its moves).
"""

import argparse
import os

from awale import Game
from awale.knowledge import endgame as eg
from awale.play.match import play

HERE = os.path.dirname(os.path.abspath(__file__))
AGENTS = [
    "uct(iterations=1000, seed=1)",
    "uct(iterations=1000, solver=True, seed=1)",
    "mcts(iterations=1000, seed=1)",
    "minimax(depth=4)",
]


def _reached(record, database):
    """The first ply at which the board held at most the database's seeds, or None."""
    game = Game(rules=database.rules)
    for ply, action in enumerate(record.moves):
        if sum(game.pits) <= database.seeds:
            return ply
        game = game.step(action)[0]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--out", default=os.path.join(HERE, "strength.csv"))
    args = parser.parse_args()
    database = eg.load(args.db)  # fail early on a bad file
    with open(args.out, "w") as out:
        out.write("agent,seed,db_side,db_score,plies,reached,db_seconds,plain_seconds\n")
        for spec in AGENTS:
            with_db = spec[:-1] + f", endgame='{os.path.abspath(args.db)}')"
            for seed in range(args.games):
                side = seed % 2
                players = (with_db, spec) if side == 0 else (spec, with_db)
                record = play(*players, seed=seed)
                score = 0.5 if record.winner is None else float(record.winner == side)
                reached = _reached(record, database)
                reached = "" if reached is None else reached
                seconds = (record.south_seconds, record.north_seconds)
                out.write(
                    f'"{spec}",{seed},{side},{score},{record.plies},{reached},'
                    f"{seconds[side]:.3f},{seconds[1 - side]:.3f}\n"
                )
                out.flush()


if __name__ == "__main__":
    main()
