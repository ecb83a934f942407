"""Where each side of the ledger's tests spent its time: ``python data/strength/searched_moves.py``.

The ledger (``ledger.csv``) gives each side's mean time over all its moves after the opening.  A champion
searches only some of them: the others come from its opening book, from the endgame database (a board of
at most as many seeds as the database holds) or, with ``manage=True``, are forced (one legal move; without
time management the champion searches those too), and take no time.  This
replays the games each row counts and sorts every move after the opening into those four kinds, so that a
difference of mean times can be told apart as a difference in the share of moves searched or in the time a
searched move took.  Writes one row per test and side to ``searched-moves.csv`` beside this script:
``idea`` (the ledger's row number), ``side`` (A or B), ``games``, ``moves``, the moves of each kind
(``searched``, ``book``, ``database``, ``forced``), ``ms_per_move`` (the ledger's) and
``ms_per_searched_move``.
"""

import argparse
import os

import pandas as pd

from awale.agents.champion import MOVE_KINDS as KINDS
from awale.experiments import ledger

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
def study(row: ledger.Entry, store: str) -> list:
    """The two rows (A's and B's) of ``searched-moves.csv`` for the ledger's ``row``."""
    games, opening_plies = ledger.counted_games(row, store)
    counts = {side: dict.fromkeys(KINDS, 0) for side in "AB"}
    seconds = dict.fromkeys("AB", 0.0)
    for game_row in games.itertuples():
        seconds[game_row.south] += game_row.south_seconds
        seconds[game_row.north] += game_row.north_seconds
    for move in ledger.counted_moves(row, games, opening_plies):
        counts[move.side][move.kind] += 1
    result = []
    for side, ledger_ms in (("A", row.a_ms), ("B", row.b_ms)):
        moves = sum(counts[side].values())
        ms_per_move = round(1000 * seconds[side] / moves, 1)
        if ms_per_move != ledger_ms:
            raise SystemExit(f"{row.idea}: {side}'s {ms_per_move} ms a move, the ledger says {ledger_ms}")
        result.append({
            "side": side, "games": len(games), "moves": moves, **counts[side], "ms_per_move": ms_per_move,
            "ms_per_searched_move": round(1000 * seconds[side] / max(counts[side]["searched"], 1), 1),
        })
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=os.path.join(ROOT, "data", "experiments.sqlite"))
    parser.add_argument("--ledger", default=os.path.join(HERE, "ledger.csv"))
    parser.add_argument("--out", default=os.path.join(HERE, "searched-moves.csv"))
    args = parser.parse_args()
    rows = []
    for number, entry in enumerate(ledger.read(args.ledger), 1):
        for found in study(entry, args.store):
            rows.append({"idea": number, **found})
            print(", ".join(f"{k} {v}" for k, v in rows[-1].items()), flush=True)
    pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
