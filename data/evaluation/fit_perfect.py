"""Fit the evaluation to the endgame database: ``python data/evaluation/fit_perfect.py --db endgame25.db``.

Targets from perfect play: the evaluation of ``awale.knowledge.evaluation`` has the
same features and form as ``fit.py``'s, but its targets are exact.  Positions are drawn uniformly from each
layer of ``LOW`` to ``--seeds`` seeds of the database (the board, the player to move first), ``--per-layer``
a layer.  A board does not say who leads, so each is given the captures of a game: the mover's lead in
captured seeds is drawn from the leads of the positions with as many seeds on the board in the games
``fit.py`` reads.  The target is the result for the player to move in the database's game (captures counted
to the end; a cycle splits the seeds left equally), as ``truth.py`` defines it: 1 a win, ½ a draw, 0 a loss.

A fifth of the drawn positions (seeded) is held out.  The weights are fitted by ``fit.py``'s logistic
regression and judged, beside the game-fitted evaluation (``lib/awale/knowledge/evaluation.json``) and ``fit.py``'s two
baselines, on the held-out positions and on every distinct position with ``LOW`` to ``--seeds`` seeds of the
``knowledge`` experiment's games (which neither fit reads), each judged by the database.  Writes

* ``lib/awale/knowledge/evaluation-perfect.json``: the weights and how they were obtained (read with
  ``awale.knowledge.evaluation.load_evaluation(path)``);
* ``perfect.csv`` beside this script: ``source``, ``seeds``, ``model``, ``positions``, ``decisive``,
  ``log_loss``, ``brier``, ``accuracy`` (as ``truth.py`` writes them).
"""

import argparse
import csv
import json
import os
import subprocess
import time

import numpy as np

from awale.knowledge import endgame as eg
from awale.knowledge.evaluation import FEATURES, WEIGHTS_PATH, features, load_evaluation
from awale.offline import evaluation_fit as fit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STORE = os.path.join(ROOT, "data", "experiments.sqlite")
PERFECT_PATH = WEIGHTS_PATH.with_name("evaluation-perfect.json")
LOW = 16
SEED = 25
HELD_OUT = 0.2


def leads_by_seeds(states):
    """For each number of seeds on the board, the mover's leads in captured seeds at the games' positions."""
    size = states.shape[1] - 5
    on_board = states[:, :size].sum(axis=1)
    mover = states[:, size + 2]
    own = np.where(mover == 0, states[:, size], states[:, size + 1])
    other = np.where(mover == 0, states[:, size + 1], states[:, size])
    lead = own - other
    return {int(s): lead[on_board == s] for s in np.unique(on_board)}


def drawn_positions(database, per_layer, leads, rng, high):
    """States (South to move) and targets of ``per_layer`` positions drawn from each layer ``LOW..high``."""
    total = database.rules.total_seeds
    size = 2 * database.rules.pits_per_side
    states, targets, layers = [], [], []
    for seeds in range(LOW, high + 1):
        start, stop = int(database._offsets[seeds]), int(database._offsets[seeds + 1])
        indices = np.sort(rng.integers(start, stop, size=per_layer))
        values = np.asarray(database.values[indices], dtype=np.int64)
        lead = rng.choice(leads[seeds], size=per_layer)
        for index, value, d in zip(indices, values, lead):
            state = np.zeros(size + 5, dtype=np.int64)
            state[:size] = database.board(int(index))
            captured = total - seeds
            state[size], state[size + 1] = (captured + d) // 2, (captured - d) // 2
            states.append(state)
            final = d + value  # the mover's lead at the end of the database's game
            targets.append(1.0 if final > 0 else 0.5 if final == 0 else 0.0)
            layers.append(seeds)
    return np.array(states), np.array(targets), np.array(layers)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="an endgame database of at least --seeds seeds")
    parser.add_argument("--seeds", type=int, default=25, help="the deepest layer drawn (default 25)")
    parser.add_argument("--per-layer", type=int, default=100_000, help="positions drawn a layer (default 100,000)")
    parser.add_argument("--store", default=STORE, help="the store of games (default: data/experiments.sqlite)")
    parser.add_argument("--out", default=os.path.join(HERE, "perfect.csv"), help="the CSV written")
    args = parser.parse_args()
    start = time.time()
    database = eg.load(args.db)
    if database.seeds < args.seeds or not LOW <= args.seeds:
        parser.error(f"--seeds must be from {LOW} to the database's {database.seeds}")
    states, y, ids, _, n_games = fit.positions(args.store)
    leads = leads_by_seeds(states)
    rng = np.random.default_rng(SEED)
    drawn, targets, layers = drawn_positions(database, args.per_layer, leads, rng, args.seeds)
    x = features(drawn)
    held = rng.random(len(targets)) < HELD_OUT
    perfect = fit.fit(x[~held], targets[~held], fit.PENALTY)

    train = ~fit.held_out_games(n_games)[ids]
    baselines = fit.fit_baselines(features(states), y, train)
    models = {"perfect": (list(range(len(FEATURES))), perfect),
              "evaluation": (list(range(len(FEATURES))), np.asarray(load_evaluation().weights)), **baselines}

    knowledge = fit.distinct(fit.stored_positions(args.store, "knowledge", args.seeds, LOW))
    known_x = features(np.array([g._state for g in knowledge]))
    known_y = np.array([fit.exact_result(database, g) for g in knowledge])
    known_seeds = np.array([sum(g.pits) for g in knowledge])
    middle = (LOW + args.seeds) // 2
    buckets = ((LOW, middle), (middle + 1, args.seeds), (LOW, args.seeds))
    sources = {"database, held out": (x[held], targets[held], layers[held]),
               "knowledge games": (known_x, known_y, known_seeds)}
    rows = []
    for source, (xs, ys, seeds) in sources.items():
        for low, high in buckets:
            mask = (seeds >= low) & (seeds <= high)
            for model, (cols, w) in models.items():
                rows.append(dict(source=source, seeds=f"{low}-{high}", model=model,
                                 **fit.judge_logits(xs[mask][:, cols] @ w, ys[mask])))
                print(" ".join(f"{v}" for v in rows[-1].values()), flush=True)
    with open(args.out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    meta = {"database": f"{database.seeds} seeds, SHA-256 {database.checksum}", "layers": [LOW, args.seeds],
            "per_layer": args.per_layer, "positions": int((~held).sum()), "held_out": int(held.sum()),
            "commit": commit, "fitted_by": "data/evaluation/fit_perfect.py"}
    weights = [round(float(v), 6) for v in perfect]
    PERFECT_PATH.write_text(json.dumps({"features": list(FEATURES), "weights": weights, "meta": meta}, indent=1) + "\n")
    print("weights: " + ", ".join(f"{k} {v:+.3f}" for k, v in zip(FEATURES, weights)))
    print(f"written {PERFECT_PATH} and {args.out} in {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
