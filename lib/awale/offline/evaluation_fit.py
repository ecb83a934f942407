"""Fitting the evaluation's weights on stored games, and judging an evaluation where the truth is known.

The scripts of ``data/evaluation`` are thin callers of this module: ``fit.py`` fits the shipped weights
(``lib/awale/knowledge/evaluation*.json``), ``truth.py`` and ``fit_perfect.py`` judge them on positions whose
exact result the endgame database gives.

Positions are taken from the stored games whose two agents are both searches (:func:`positions`: games with a
random or greedy player reach positions that no search would), each distinct game once, every ply before the
end.  The target of a position is the final result for the player to move there: 1 a win, ½ a draw, 0 a loss.
The weights are those of a logistic regression (Newton's method with a light L2 penalty, :func:`fit`), judged
by the log-loss and the accuracy of the sign of the logit on decisive results (:func:`judge`).
"""

import numpy as np
import pandas as pd

from ..core.game import Game, game_arrays
from ..experiments import load
from ..experiments.store import decode_moves, rules_from_text

__all__ = ["EXPERIMENTS", "SEARCHES", "TEXEL_SEARCHES", "TEXEL_UNTIL", "HELD_OUT", "SEED", "PENALTY", "PHASES",
           "KROO_VARIANTS", "searcher_of", "positions", "fit", "judge", "distinct", "exact_result", "judge_logits"]

#: The experiments whose games the game-fitted weights (``evaluation.json``) are fitted on.
EXPERIMENTS = (
    "champions", "ladder", "uct-c", "uct-c-1.5", "greedy-uct-c", "mcts-budget",
    "alphabeta-uct", "rave", "solver", "bias-history", "cutoff",
)
SEARCHES = ("uct", "mcts", "flat", "minimax", "openspiel")
TEXEL_SEARCHES = SEARCHES + ("champion",)
TEXEL_UNTIL = "2026-11-26T17:00:00Z"  # the games stored by then: later games do not move the weights
HELD_OUT = 0.2
SEED = 2026
PENALTY = 1e-3  # per position: a light ridge that only keeps Newton's steps well posed
PHASES = ((0, 12), (13, 24), (25, 36), (37, 48))  # seeds in play
KROO_VARIANTS = tuple((least, window) for least in (11, 12) for window in (1, 2, 3, 4, 6))


def searcher_of(spec: str) -> str:
    """The agent that chooses the moves of a side: the one a fixed opening hands over to, else the side."""
    prefix = "opening(agent="
    return spec[len(prefix):] if spec.startswith(prefix) else spec


def positions(store, texel=False):
    """States, targets, game ids and seeds in play of every position of the selected games."""
    games = load(store)
    if texel:
        games = games[games["created_at"] <= pd.Timestamp(TEXEL_UNTIL)]
        south, north = games["south"].map(searcher_of), games["north"].map(searcher_of)
        searches = south.str.startswith(TEXEL_SEARCHES) & north.str.startswith(TEXEL_SEARCHES)
    else:
        games = games[games["experiment"].isin(EXPERIMENTS)]
        searches = games["south"].str.startswith(SEARCHES) & games["north"].str.startswith(SEARCHES)
    games = games[searches].drop_duplicates(["south", "north", "seed", "rules"])
    states, targets, ids = [], [], []
    for number, row in enumerate(games.itertuples()):
        game = Game(rules=rules_from_text(row.rules))
        result = row.result  # South's
        for action in decode_moves(row.moves):
            states.append(game_arrays(game).state.copy())
            targets.append(result if game.current_player == 0 else 1.0 - result)
            ids.append(number)
            game = game.step(action)[0]
    states = np.array(states)
    size = states.shape[1] - 5
    return states, np.array(targets), np.array(ids), states[:, :size].sum(axis=1), len(games)


def fit(x, y, penalty):
    """Weights of the logistic regression of the soft targets ``y`` on ``x`` (Newton's method)."""
    w = np.zeros(x.shape[1])
    ridge = penalty * len(y) * np.eye(x.shape[1])
    ridge[0, 0] = 0.0  # the intercept is not penalised
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (p - y) + ridge @ w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + ridge
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def judge(x, y, w):
    """Log-loss and, on positions of decisive games, the share whose winner the sign of the logit names."""
    logit = x @ w
    p = np.clip(1.0 / (1.0 + np.exp(-logit)), 1e-12, 1 - 1e-12)
    loss = float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    decisive = y != 0.5
    right = (logit[decisive] > 0) == (y[decisive] == 1.0)
    return {"log_loss": round(loss, 4), "accuracy": round(float(right.mean()), 4), "positions": int(len(y))}


def distinct(games):
    """The games of distinct positions (board, captures, player to move), each first one kept."""
    seen, kept = set(), []
    for game in games:
        key = (tuple(game.pits), game.captures, game.current_player)
        if key not in seen:
            seen.add(key)
            kept.append(game)
    return kept


def exact_result(database, game):
    """The result for the player to move in the database's game: 1, ½ or 0."""
    own, other = game.captures[game.current_player], game.captures[1 - game.current_player]
    board = sum(game.pits)
    value = database.value(game)  # seeds still to be won, the mover's minus the opponent's
    final = own + (board + value) / 2
    half = (own + other + board) / 2
    return 1.0 if final > half else 0.5 if final == half else 0.0


def judge_logits(logit, y):
    """Log-loss, Brier score and accuracy of the sign of the logit (on decisive results), as text for a CSV row."""
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
