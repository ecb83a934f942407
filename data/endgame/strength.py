"""Strength gained from the endgame database at equal budget: ``python data/endgame/strength.py --db endgame15.db``.

Each pair (an agent, the same agent with ``endgame=DB``) plays ``--games`` seeded
games from the initial position, half with each as South, through
:func:`awale.match.play`.  Writes ``strength.csv`` beside this script: one row per
game (agent, seed, side of the database agent, its score 1, ½ or 0, plies).
"""

import argparse
import os

from awale import endgame as eg
from awale.match import play

HERE = os.path.dirname(os.path.abspath(__file__))
AGENTS = ["uct(iterations=1000, seed=1)", "minimax(depth=4)"]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("--games", type=int, default=40)
    args = parser.parse_args()
    eg.load(args.db)  # fail early on a bad file
    with open(os.path.join(HERE, "strength.csv"), "w") as out:
        out.write("agent,seed,db_side,db_score,plies\n")
        for spec in AGENTS:
            with_db = spec[:-1] + f", endgame='{os.path.abspath(args.db)}')"
            for seed in range(args.games):
                side = seed % 2
                players = (with_db, spec) if side == 0 else (spec, with_db)
                record = play(*players, seed=seed)
                score = 0.5 if record.winner is None else float(record.winner == side)
                out.write(f'"{spec}",{seed},{side},{score},{record.plies}\n')
                out.flush()


if __name__ == "__main__":
    main()
