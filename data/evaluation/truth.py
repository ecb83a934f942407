"""The evaluation judged where the truth is known: ``python data/evaluation/truth.py``.

The fitted evaluation (``lib/awale/knowledge/evaluation.json``, made by ``fit.py``) predicts the result of a
position from games of this library's agents.  Here it is judged on positions it was not fitted on,
from two other sources, whose exact result is known because they have at most ``SEEDS`` seeds on the
board and the endgame database of that many seeds holds them:

* ``random play``: every position with at most ``SEEDS`` seeds on the board of ``RANDOM_GAMES``
  games of uniformly random moves from the start (seeded);
* ``knowledge games``: every such position of the games of the ``knowledge`` experiment, whose
  games the fit did not use (see ``fit.EXPERIMENTS``).

Each distinct position (board, captures, player to move) counts once.  The truth is the result for
the player to move in the database's game (captures counted to the end; a cycle splits the seeds
left equally), which has the same winner as the Abapa game wherever no cycle decides it (chapter 6):
1 for a win, ½ for a draw, 0 for a loss.  The models are judged as ``fit.py`` judges them, beside the
same two baselines refitted as ``fit.py`` fits them (the constant model and the capture difference
alone): the log-loss, the Brier score, and the accuracy of the sign of the logit on positions whose
result is not a draw.  Writes ``truth.csv`` beside this script (columns ``source``, ``seeds``,
``model``, ``positions``, ``decisive``, ``log_loss``, ``brier``, ``accuracy``).
"""

import argparse
import csv
import os
import time

import numpy as np

from awale import Rules
from awale.core.positions import random_game_positions
from awale.knowledge.endgame_cache import endgame_database
from awale.knowledge.evaluation import features, load_evaluation
from awale.offline import evaluation_fit as fit

HERE = os.path.dirname(os.path.abspath(__file__))
STORE = os.path.join(HERE, "..", "experiments.sqlite")
SEEDS = 15
RANDOM_GAMES = 4000
SEED = 7
BUCKETS = ((1, 5), (6, 10), (11, 15), (1, 15))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=STORE, help="the store of games (default: data/experiments.sqlite)")
    parser.add_argument("--out", default=os.path.join(HERE, "truth.csv"), help="the CSV written")
    args = parser.parse_args()
    start = time.time()
    states, y, ids, _, n_games = fit.positions(args.store)
    train = ~fit.held_out_games(n_games)[ids]
    weights = fit.fit_baselines(features(states), y, train)
    evaluation = np.asarray(load_evaluation().weights)
    database = endgame_database(str(SEEDS), Rules())
    sources = {
        "random play": fit.distinct(random_game_positions(SEEDS, RANDOM_GAMES, np.random.default_rng(SEED), Rules())),
        "knowledge games": fit.distinct(fit.stored_positions(args.store, "knowledge", SEEDS)),
    }
    rows = []
    for source, games in sources.items():
        xs = features(np.array([g._state for g in games]))
        ys = np.array([fit.exact_result(database, g) for g in games])
        board = np.array([sum(g.pits) for g in games])
        logits = {"evaluation": xs @ evaluation}
        logits.update({name: xs[:, cols] @ w for name, (cols, w) in weights.items()})
        for low, high in BUCKETS:
            mask = (board >= low) & (board <= high)
            for model, logit in logits.items():
                rows.append(dict(source=source, seeds=f"{low}-{high}", model=model, **fit.judge_logits(logit[mask], ys[mask])))
                print(" ".join(f"{v}" for v in rows[-1].values()), flush=True)
    with open(args.out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"written {args.out} in {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
