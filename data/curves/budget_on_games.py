"""Time candidate budgets of a pairing's first agent against its opponent on the positions of its stored games.

Used to refit a budget that a full replay found more than 10 % off (``data/README.md``): the agent at its
current budget and at each candidate, and its opponent, each play the positions of a seeded sample of the
pairing's stored games in turn (:func:`awale.experiments.calibration.interleaved_seconds`; the moves of an
opening left out), and the ratio of each to the opponent's CPU time per move is printed::

    python data/curves/budget_on_games.py factorial "minimax(nodes=36000)" 40000 42000 --games 30

Run it on an otherwise idle core.
"""

import argparse

import numpy as np

from awale.agents.opening import split_opening
from awale.experiments import CATALOG, canonical_spec, load
from awale.experiments import calibration as cal
from awale.experiments.store import decode_moves, rules_from_text
from awale.core.game import Game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", choices=sorted(CATALOG), metavar="NAME", help="an equal-time experiment")
    parser.add_argument("agent", help="the first agent of the pairing, as the catalogue has it")
    parser.add_argument("budgets", nargs="+", type=int, help="candidate budgets (nodes or iterations)")
    parser.add_argument("--games", type=int, default=30, help="stored games whose positions are played (default 30)")
    parser.add_argument("--store", default="data/experiments.sqlite", help="the store (default: the thesis's)")
    args = parser.parse_args()
    exp = CATALOG[args.experiment]
    agent = canonical_spec(args.agent)
    opponents = [b for a, b in exp.pairings() if a == agent]
    if not opponents:
        parser.error(f"{agent} is not a first agent of {exp.name}")
    family = cal.family_of(agent)
    if family is None:
        parser.error(f"{agent} is not of a calibrated family")
    rows = exp.pairing_games(load(args.store, exp.name), agent, opponents[0])
    rows = rows.iloc[np.sort(np.random.default_rng(1).choice(len(rows), min(args.games, len(rows)), replace=False))]
    games = []
    for row in rows.itertuples():
        opening = split_opening(row.south)[1]
        game, positions = Game(rules=rules_from_text(row.rules)), []
        for ply, action in enumerate(decode_moves(row.moves)):
            if ply >= len(opening):
                positions.append(game)
            game = game.step(action)[0]
        games.append(positions)
    specs = [cal.FAMILIES[family[0]].format(n=budget) for budget in [family[1], *args.budgets]]
    measured = cal.interleaved_seconds([*specs, opponents[0]], games)
    for spec in specs:
        print(f"{spec:70} {1000 * measured[spec]:7.2f} ms  ratio {measured[spec] / measured[opponents[0]]:.3f}")
    print(f"{opponents[0]:70} {1000 * measured[opponents[0]]:7.2f} ms")


if __name__ == "__main__":
    main()
