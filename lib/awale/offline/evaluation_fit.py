"""Fitting the evaluation's weights on stored games, and judging an evaluation where the truth is known.

The scripts of ``data/evaluation`` are thin callers of this module: ``fit.py`` fits the shipped weights
(``lib/awale/knowledge/evaluation*.json``) by :func:`fit_games` and :func:`fit_texel` and writes them by
:func:`write_fit`; ``truth.py`` and ``fit_perfect.py`` judge them on positions whose exact result the endgame
database gives.

Positions are taken from the stored games whose two agents are both searches (:func:`positions`: games with a
random or greedy player reach positions that no search would), each distinct game once, every ply before the
end.  The target of a position is the final result for the player to move there: 1 a win, ½ a draw, 0 a loss.
The weights are those of a logistic regression (Newton's method with a light L2 penalty, :func:`fit`), judged
on the held-out games (:func:`held_out_games`) by the log-loss and the accuracy of the sign of the logit on
decisive results (:func:`judge`), beside two baselines (:data:`BASELINES`).
"""

import json
import math
import os
import time
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Tuple, Union

import numpy as np
import pandas as pd

from ..core.game import Game, game_arrays
from ..experiments import load
from ..experiments.store import decode_moves, rules_from_text
from ..knowledge.evaluation import ALL_FEATURES, FEATURES, WEIGHTS, features, kroo_timing

__all__ = ["EXPERIMENTS", "SEARCHES", "TEXEL_SEARCHES", "TEXEL_UNTIL", "HELD_OUT", "SEED", "PENALTY", "PHASES",
           "KROO_VARIANTS", "BASELINES", "searcher_of", "positions", "stored_positions", "held_out_games", "fit",
           "fit_baselines", "judge", "distinct", "exact_result", "judge_logits", "Fitted", "fit_games", "fit_texel",
           "check_weights", "write_fit"]

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

#: The models every fit is judged beside, by the columns of the features they use: the constant model and the
#: capture difference alone.
BASELINES = {"constant": [0], "captures": [0, FEATURES.index("captures")]}


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


def stored_positions(store, experiment: str, most: int, least: int = 0) -> List[Game]:
    """The positions with ``least`` to ``most`` seeds on the board of the stored games of ``experiment``, every ply
    before the end, in the order of the games and their plies."""
    found = []
    for row in load(store, experiment).itertuples():
        game = Game(rules=rules_from_text(row.rules))
        for action in decode_moves(row.moves):
            if least <= sum(game.pits) <= most:
                found.append(game)
            game = game.step(action)[0]
    return found


def held_out_games(n_games: int) -> np.ndarray:
    """Which of ``n_games`` games are held out from a fit: a fifth (:data:`HELD_OUT`), drawn from :data:`SEED`."""
    return np.random.default_rng(SEED).random(n_games) < HELD_OUT


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


def fit_baselines(x, y, train) -> Dict[str, Tuple[List[int], np.ndarray]]:
    """The :data:`BASELINES` fitted on the positions ``train`` of ``x``, ``y``: name -> (columns, weights)."""
    return {name: (columns, fit(x[train][:, columns], y[train], PENALTY)) for name, columns in BASELINES.items()}


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


# --------------------------------------------------------------------------- the shipped fits


class Fitted(NamedTuple):
    """A fit of the evaluation's weights: the weights (to six decimals), how they were obtained (``meta``, written
    beside them), and the report of the models judged on the held-out games."""

    weights: List[float]
    meta: Dict[str, Any]
    report: Dict[str, Any]


def _judged(x, y, test, in_play, w) -> Dict[str, Any]:
    """The held-out figures of weights ``w`` on the columns ``x``: overall and by seeds in play (:data:`PHASES`)."""
    by_phase = {}
    for low, high in PHASES:
        phase = test & (in_play >= low) & (in_play <= high)
        by_phase[f"{low}-{high}"] = judge(x[phase], y[phase], w)
    return {"held_out": judge(x[test], y[test], w), "by_seeds_in_play": by_phase}


def fit_games(store) -> Fitted:
    """The game-fitted weights (``evaluation.json``): the games of :data:`EXPERIMENTS` between searches, a fifth
    of them held out, judged beside :data:`BASELINES`."""
    states, y, ids, in_play, n_games = positions(store)
    x = features(states)
    held = held_out_games(n_games)
    test = held[ids]
    models = {**BASELINES, "evaluation": list(range(len(FEATURES)))}
    report, weights = {}, {}
    for name, columns in models.items():
        w = fit(x[~test][:, columns], y[~test], PENALTY)
        weights[name] = w
        by_phase = {}
        for low, high in PHASES:
            phase = test & (in_play >= low) & (in_play <= high)
            by_phase[f"{low}-{high}"] = judge(x[phase][:, columns], y[phase], w)
        report[name] = {"held_out": judge(x[test][:, columns], y[test], w), "by_seeds_in_play": by_phase}
    final = [round(float(v), 6) for v in weights["evaluation"]]
    meta = {
        "store": "data/experiments.sqlite",
        "experiments": list(EXPERIMENTS),
        "games": n_games,
        "held_out_games": int(held.sum()),
        "positions": int(len(y)),
        "held_out": report["evaluation"]["held_out"],
        "fitted_by": "data/evaluation/fit.py",
    }
    return Fitted(final, meta, report)


def fit_texel(store, timing: bool = False) -> Fitted:
    """Texel's fit: every game stored by :data:`TEXEL_UNTIL` between searches (:data:`TEXEL_SEARCHES`), compared
    with the committed game-fitted weights; with ``timing``, with the kroos' timing after the nine features, compared
    with the committed Texel weights, and the report gives the held-out figures of every variant of
    :data:`KROO_VARIANTS` fitted the same way.  The report's models are ``texel`` (or ``kroo``) and the baseline."""
    states, y, ids, in_play, n_games = positions(store, texel=True)
    x = features(states, timing=timing)
    held = held_out_games(n_games)
    test = held[ids]
    w = fit(x[~test], y[~test], PENALTY)
    final = [round(float(v), 6) for v in w]
    name, baseline = ("kroo", "texel") if timing else ("texel", "games")
    committed = np.array(json.loads(WEIGHTS[baseline].read_text())["weights"])
    report: Dict[str, Any] = {}
    for model, weights in ((name, w), (baseline, committed)):
        report[model] = _judged(x[:, : len(weights)], y, test, in_play, weights)
    if timing:
        report["variants"] = []
        for least, window in KROO_VARIANTS:
            x_variant = np.hstack([x[:, : len(FEATURES)], kroo_timing(states, least=least, window=window)])
            w_variant = fit(x_variant[~test], y[~test], PENALTY)
            report["variants"].append({"least": least, "window": window,
                                       "held_out": judge(x_variant[test], y[test], w_variant)})
    meta = {
        "store": "data/experiments.sqlite",
        "experiments": f"every game stored by {TEXEL_UNTIL} whose two sides are searches ("
                       + ", ".join(TEXEL_SEARCHES) + ")",
        "games": n_games,
        "held_out_games": int(held.sum()),
        "positions": int(len(y)),
        "held_out": report[name]["held_out"],
        "fitted_by": "data/evaluation/fit.py --texel" + (" --timing" if timing else ""),
    }
    return Fitted(final, meta, report)


def check_weights(path: Union[str, os.PathLike], weights: List[float]) -> Tuple[bool, str]:
    """Whether ``weights`` are those committed in ``path`` (to 1e-6), and a line that says how far they are."""
    committed = json.loads(Path(path).read_text())["weights"]
    if len(committed) != len(weights):
        return False, f"{len(weights)} weights fitted, {len(committed)} committed"
    worst = max(abs(a - b) for a, b in zip(weights, committed))
    return worst <= 1e-6, f"largest difference from the committed weights: {worst:.2e}"


def write_fit(path: Union[str, os.PathLike], summary_path: Union[str, os.PathLike], fitted: Fitted, commit: str,
              start: float) -> List[str]:
    """Write the weights and their ``meta`` into ``path`` and the report into ``summary_path`` (with the
    ``commit`` and the seconds since ``start``, a ``time.time()``); the lines that say what was fitted."""
    final, meta, report = fitted
    names = ALL_FEATURES[: len(final)]
    Path(path).write_text(json.dumps({"features": list(names), "weights": final, "meta": meta}, indent=1) + "\n")
    summary = {"games": meta["games"], "positions": meta["positions"], "held_out_games": meta["held_out_games"],
               "commit": commit, "seconds": round(time.time() - start, 1), "models": report,
               "weights": dict(zip(names, final))}
    with open(summary_path, "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    lines = []
    for name in report:
        for label, h in _held_out_lines(name, report[name]):
            lines.append(f"{label:<20} held-out log-loss {h['log_loss']:.4f}  accuracy {h['accuracy']:.3f}")
    lines.append("weights: " + ", ".join(f"{k} {v:+.3f}" for k, v in zip(names, final)))
    lines.append(f"{meta['games']:,} games, {meta['positions']:,} positions, {math.ceil(time.time() - start)} s")
    return lines


def _held_out_lines(name, entry):
    """(label, held-out figures) of a model of the report, or of each variant of the kroos' timing."""
    if name != "variants":
        return [(name, entry["held_out"])]
    return [(f"kroo {v['least']} seeds, {v['window']}", v["held_out"]) for v in entry]
