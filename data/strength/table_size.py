"""What a larger transposition table saves the champion at a fixed depth: ``python data/strength/table_size.py``.

Walks the first ``--games`` games of a ledger row (by default row 14, the champion at 1 s a move against
itself with and without the grown book) and, at every position where side B (the champion of the day)
searched, searches that position again to a fixed ``--depth`` (default 19, the median depth that champion
reaches at 1 s a move, over 259 searched moves in ``table-load-1.csv``) with a table of ``2^bits`` entries for each
of ``--bits`` (default 20, the default table, and 24).  Each table is kept from move to move, as in play, and
the searches are reproducible: counting the positions visited, no clock involved, tells how much work the
larger table saves, and whether it changes the moves; each search's wall time, the tables searched side by side
(one process each), tells whether the saving survives the cost of a larger table.  Writes one row per searched
position and table to ``--out`` (default ``table-size.csv`` beside this script) and prints a summary.
"""

import argparse
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

import pandas as pd

from awale.agents import parse
from awale.experiments import ledger
from awale.play.match import warm_up

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
AGENT = "champion(depth={depth}, endgame='25', quiescence=0, reductions=True, table={bits}, weights='texel')"


def positions(row: ledger.Entry, store: str, games: int) -> list:
    """For each of the first ``games`` games of ``row``: the positions (as games) where B searched, in order."""
    played, opening_plies = ledger.counted_games(row, store)
    found = [[] for _ in range(min(games, len(played)))]
    for move in ledger.counted_moves(row, played.head(games), opening_plies):
        if move.side == "B" and move.kind == "searched":
            found[move.game].append((move.ply, move.position))
    return found


def replay(bits: int, depth: int, games: list) -> list:
    """Search every position of ``games`` to ``depth`` with a table of ``2^bits`` entries, kept within a game.

    ``seconds`` is the wall time of the move (almost all of it the search); it depends on the machine and on
    what else runs, so only ratios between the tables, measured side by side, mean anything.
    """
    rows = []
    agent = parse(AGENT.format(depth=depth, bits=bits))
    warm_up(AGENT.format(depth=4, bits=bits), games[0][0][1].rules)  # compiles the search outside the timed moves
    for number, searched in enumerate(games):
        agent.reset()  # a new table for each game
        for ply, game in searched:
            started = time.perf_counter()
            action = agent.act(game)
            seconds = time.perf_counter() - started
            search = agent.alphabeta
            result = search.last_search
            if result is None:
                raise SystemExit(f"game {number}, ply {ply}: the champion did not search this position")
            search.last_search = None  # so that a move made without a search cannot pass for the one before
            rows.append({"game": number, "ply": ply, "bits": bits, "depth": result.depth,
                         "nodes": result.nodes, "written": search.searcher.table_load().current,
                         "action": action, "value": result.value, "seconds": round(seconds, 4)})
        print(f"table 2^{bits}: game {number + 1}/{len(games)}, {len(searched)} positions", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--row", type=int, default=14, help="the ledger's row whose games are walked (default 14)")
    parser.add_argument("--games", type=int, default=6, help="games walked (default 6)")
    parser.add_argument("--depth", type=int, default=19, help="the fixed depth of every search (default 19)")
    parser.add_argument("--bits", type=int, nargs="+", default=[20, 24], help="table sizes, 2^bits (default 20 24)")
    parser.add_argument("--store", default=os.path.join(ROOT, "data", "experiments.sqlite"))
    parser.add_argument("--ledger", default=os.path.join(HERE, "ledger.csv"))
    parser.add_argument("--out", default=os.path.join(HERE, "table-size.csv"))
    args = parser.parse_args()
    entries = ledger.read(args.ledger)
    if not 1 <= args.row <= len(entries):
        parser.error(f"--row must be between 1 and {len(entries)}")
    games = positions(entries[args.row - 1], args.store, args.games)
    with ProcessPoolExecutor(max_workers=min(len(args.bits), os.cpu_count() or 1)) as pool:
        results = list(pool.map(replay, args.bits, [args.depth] * len(args.bits), [games] * len(args.bits)))
    table = pd.DataFrame([row for rows in results for row in rows])
    table.to_csv(args.out, index=False)
    base, *others = args.bits
    first = table[table.bits == base].reset_index(drop=True)
    for bits in others:
        other = table[table.bits == bits].reset_index(drop=True)
        ratios = other.nodes / first.nodes
        print(f"2^{bits} against 2^{base} at depth {args.depth}, {len(first)} positions of {len(games)} games: "
              f"positions visited {other.nodes.sum():,} against {first.nodes.sum():,} "
              f"({other.nodes.sum() / first.nodes.sum():.3f} times; per search median "
              f"{statistics.median(ratios):.3f}, from {ratios.min():.3f} to {ratios.max():.3f}); "
              f"another move in {(other.action != first.action).sum()}, another value in "
              f"{(other.value != first.value).sum()}; slots written by a search: most "
              f"{first.written.max():,} of {2 ** base:,}; time {other.seconds.sum():.1f} against "
              f"{first.seconds.sum():.1f} s ({other.seconds.sum() / first.seconds.sum():.3f} times), per position "
              f"visited {other.seconds.sum() / other.nodes.sum() / (first.seconds.sum() / first.nodes.sum()):.3f} "
              f"times -> {args.out}")


if __name__ == "__main__":
    main()
