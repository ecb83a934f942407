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
import importlib.util
import os
import time

import numpy as np

from awale import Game, Rules
from awale.agents.endgame import endgame_database
from awale.knowledge.evaluation import FEATURES, features, load_evaluation
from awale.experiments import load
from awale.experiments.store import decode_moves, rules_from_text

HERE = os.path.dirname(os.path.abspath(__file__))
STORE = os.path.join(HERE, "..", "experiments.sqlite")
SEEDS = 15
RANDOM_GAMES = 4000
SEED = 7
BUCKETS = ((1, 5), (6, 10), (11, 15), (1, 15))


def _fit_module():
    spec = importlib.util.spec_from_file_location("evaluation_fit", os.path.join(HERE, "fit.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _on_board(game):
    return sum(game.pits)


def random_positions(games, seed):
    """The positions with at most SEEDS seeds on the board of ``games`` random games from the start."""
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(games):
        game = Game(Rules())
        while not game.game_finished:
            if _on_board(game) <= SEEDS:
                found.append(game)
            game = game.step(int(rng.choice(game.legal_actions)))[0]
    return found


def game_positions(store, experiment):
    """The positions with at most SEEDS seeds on the board of the games of ``experiment``."""
    found = []
    for row in load(store, experiment).itertuples():
        game = Game(rules=rules_from_text(row.rules))
        for action in decode_moves(row.moves):
            if _on_board(game) <= SEEDS:
                found.append(game)
            game = game.step(action)[0]
    return found


def distinct(games):
    seen, kept = set(), []
    for game in games:
        key = (tuple(game.pits), game.captures, game.current_player)
        if key not in seen:
            seen.add(key)
            kept.append(game)
    return kept


def truth(database, game):
    """The result for the player to move in the database's game: 1, ½ or 0."""
    own, other = game.captures[game.current_player], game.captures[1 - game.current_player]
    board = _on_board(game)
    value = database.value(game)  # seeds still to be won, the mover's minus the opponent's
    final = own + (board + value) / 2
    half = (own + other + board) / 2
    return 1.0 if final > half else 0.5 if final == half else 0.0


def judge(logit, y):
    p = np.clip(1.0 / (1.0 + np.exp(-logit)), 1e-12, 1 - 1e-12)
    decisive = y != 0.5
    right = (logit[decisive] > 0) == (y[decisive] == 1.0)
    return dict(
        positions=len(y),
        decisive=int(decisive.sum()),
        log_loss=f"{float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))):.4f}",
        brier=f"{float(np.mean((p - y) ** 2)):.4f}",
        accuracy=f"{float(right.mean()):.4f}" if decisive.any() else "",
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=STORE, help="the store of games (default: data/experiments.sqlite)")
    parser.add_argument("--out", default=os.path.join(HERE, "truth.csv"), help="the CSV written")
    args = parser.parse_args()
    start = time.time()
    fit = _fit_module()
    states, y, ids, _, n_games = fit.positions(args.store)
    held = np.random.default_rng(fit.SEED).random(n_games) < fit.HELD_OUT
    train = ~held[ids]
    x = features(states)
    baselines = {
        "constant": [0],
        "captures": [0, FEATURES.index("captures")],
    }
    weights = {name: (cols, fit.fit(x[train][:, cols], y[train], fit.PENALTY)) for name, cols in baselines.items()}
    evaluation = np.asarray(load_evaluation().weights)
    database = endgame_database(str(SEEDS), Rules())
    sources = {
        "random play": distinct(random_positions(RANDOM_GAMES, SEED)),
        "knowledge games": distinct(game_positions(args.store, "knowledge")),
    }
    rows = []
    for source, games in sources.items():
        xs = features(np.array([g._state for g in games]))
        ys = np.array([truth(database, g) for g in games])
        board = np.array([_on_board(g) for g in games])
        logits = {"evaluation": xs @ evaluation}
        logits.update({name: xs[:, cols] @ w for name, (cols, w) in weights.items()})
        for low, high in BUCKETS:
            mask = (board >= low) & (board <= high)
            for model, logit in logits.items():
                rows.append(dict(source=source, seeds=f"{low}-{high}", model=model, **judge(logit[mask], ys[mask])))
                print(" ".join(f"{v}" for v in rows[-1].values()), flush=True)
    with open(args.out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"written {args.out} in {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
