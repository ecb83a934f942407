"""Balanced openings for paired games (``python -m awale sprt``): ``python data/strength/openings.py``.

Every line of ``PLIES`` plies from the initial position (Abapa rules) is played; lines that reach the
same position (board, captures, player to move) count once, the first in numeric order kept.  Each
position is judged by a reference search: αβ to ``DEPTH`` plies with the library's fitted evaluation
(:mod:`awale.knowledge.evaluation`) and a quiescence extension of ``QUIESCENCE`` plies on captures, the champion's
search.  Its value is in the evaluation's units, ``EVAL_SCALE`` (20) per unit of the logit of the
probability that the player to move (South, after an even number of plies) wins.  A position is kept
when ``|value| <= LIMIT``: the search judges South's chance of winning between about 40 % and 60 %.

Writes the library's ``lib/awale/knowledge/openings.txt`` (:data:`awale.experiments.sprt.OPENINGS_FILE`): a header of ``#`` comments, then one opening per line, its
actions as digits (each 0-5, relative to the player to move, as the store writes moves) and the value.
``awale.experiments.sprt.load_openings`` reads it; each opening is played twice, sides swapped.
"""

import itertools
import math
import os
import time

from awale import Game
from awale.knowledge.evaluation import load_evaluation
from awale.search.alphabeta import EVAL_SCALE, AlphaBeta, Enhancements

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "lib", "awale", "knowledge", "openings.txt")
PLIES = 4
DEPTH = 8
QUIESCENCE = 4
LIMIT = round(EVAL_SCALE * math.log(0.6 / 0.4))  # South's chance judged within 40-60 %: 8


def lines(plies):
    """Every legal line of ``plies`` plies from the start, in numeric order, with its final game."""
    for moves in itertools.product(range(6), repeat=plies):
        game = Game()
        for action in moves:
            if game.game_finished or action not in game.legal_actions:
                break
            game, _, _ = game.step(action)
        else:
            if not game.game_finished:
                yield "".join(map(str, moves)), game


def main():
    start = time.perf_counter()
    searcher = AlphaBeta(Game().rules, evaluation=load_evaluation(), enhancements=Enhancements(quiescence=QUIESCENCE))
    seen = set()
    judged = []
    for moves, game in lines(PLIES):
        position = (tuple(game.pits), tuple(game.captures), game.current_player)
        if position in seen:
            continue
        seen.add(position)
        value = searcher.search(game, depth=DEPTH).value
        judged.append((moves, value if game.current_player == 0 else -value))
    kept = [(moves, value) for moves, value in judged if abs(value) <= LIMIT]
    with open(OUT, "w", encoding="utf-8") as out:
        out.write(
            f"# Balanced openings for paired games (python -m awale sprt), made by data/strength/openings.py.\n"
            f"# Every distinct position after {PLIES} plies of the Abapa rules ({len(judged)}), judged by alpha-beta to\n"
            f"# depth {DEPTH} with the fitted evaluation and quiescence {QUIESCENCE}; kept when |value| <= {LIMIT}\n"
            f"# ({len(kept)} positions): South's chance of winning judged between about 40 % and 60 %.\n"
            f"# moves (one digit per ply, relative to the player to move)  value for South ({EVAL_SCALE} per logit unit)\n"
        )
        for moves, value in kept:
            out.write(f"{moves} {value:+d}\n")
    print(f"{len(kept)} of {len(judged)} positions after {PLIES} plies kept (|value| <= {LIMIT}) and written to {OUT} "
          f"in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
