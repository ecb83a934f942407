"""Fit the weights of awale.knowledge.evaluation on stored games: ``python data/evaluation/fit.py``.

The pipeline is :mod:`awale.offline.evaluation_fit`; this script chooses the games, writes the weights and
the reports.

Positions are taken from the games of the experiments in ``EXPERIMENTS`` in
``data/experiments.sqlite`` whose two agents are both searches (games with a
random or greedy player reach positions that no search would), each distinct
game once, every ply before the end.  The target of a position is the final
result for the player to move there: 1 a win, ½ a draw, 0 a loss.

A fifth of the games, drawn with a fixed seed, is held out; the weights are
fitted on the other positions by logistic regression (Newton's method with a
light L2 penalty) and judged on the held-out games, against two baselines:
the constant model and a model of the capture difference alone.  Writes

* ``lib/awale/knowledge/evaluation.json``: the weights and how they were obtained;
* ``fit.json`` beside this script: the held-out log-loss and accuracy of the
  three models, overall and by seeds left in play.

Run with ``--check`` to refit and compare with the committed weights instead of writing.

With ``--texel`` the same regression (Texel's method for a linear evaluation: the
weights that best predict the game results of the positions) is fitted on every
stored game whose two sides are searches, in every experiment, a side that
plays a fixed opening first (``opening(agent=..., moves=...)``) counted as its
search, so also on the games of the sequential tests of the champion, which the
selection above predates: two million positions instead of 0.75 million, from
the games stored by ``TEXEL_UNTIL`` (so that later games leave the fit as it is).  It writes

* ``lib/awale/knowledge/evaluation-texel.json``: the weights (``champion(weights='texel')``);
* ``texel.json`` beside this script: held-out log-loss and accuracy of those
  weights and of the committed game-fitted weights on the same held-out games
  (some of which the game-fitted weights were fitted on: the comparison favours them).

With ``--texel --timing`` the same positions are fitted with the kroos' timing
(``awale.knowledge.evaluation.TIMING_FEATURES``) after the nine features, into
``lib/awale/knowledge/evaluation-kroo.json`` (``champion(weights='kroo')``) and
``kroo.json``, which compares them with the committed Texel weights on the same
held-out games, and gives the held-out log-loss of the ten variants among which
the definition was chosen (:data:`KROO_VARIANTS`: piles of 11 seeds or 12, a
window of 1, 2, 3, 4 or 6 seeds for ``kroo_soon``), each fitted the same way;
the chosen one, 11 seeds and a window of 3, shares the lowest (with a window of
2, to four decimals) and has the best accuracy.  The choice was made on these
held-out games, so their log-loss flatters it a little.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

from awale.knowledge.evaluation import ALL_FEATURES, FEATURES, WEIGHTS, WEIGHTS_PATH, features, kroo_timing
from awale.offline.evaluation_fit import (EXPERIMENTS, HELD_OUT, KROO_VARIANTS, PENALTY, PHASES, SEED, TEXEL_SEARCHES,
                                         TEXEL_UNTIL, fit, judge, positions)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STORE = os.path.join(ROOT, "data", "experiments.sqlite")
TEXEL_PATH = WEIGHTS["texel"]
KROO_PATH = WEIGHTS["kroo"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=STORE, help="the store of games (default: %(default)s)")
    parser.add_argument("--check", action="store_true", help="refit and compare with the committed weights")
    parser.add_argument("--texel", action="store_true",
                        help="fit on every stored game between searches (evaluation-texel.json, texel.json)")
    parser.add_argument("--timing", action="store_true",
                        help="with --texel: with the kroos' timing too (evaluation-kroo.json, kroo.json)")
    args = parser.parse_args()
    if args.timing and not args.texel:
        parser.error("--timing goes with --texel")
    if args.texel:
        return texel(args)
    start = time.time()
    states, y, ids, in_play, n_games = positions(args.store)
    x = features(states)
    rng = np.random.default_rng(SEED)
    held = rng.random(n_games) < HELD_OUT
    test = held[ids]
    models = {
        "constant": [0],
        "captures": [0, FEATURES.index("captures")],
        "evaluation": list(range(len(FEATURES))),
    }
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
    if args.check:
        check(WEIGHTS_PATH, final)
    write(WEIGHTS_PATH, "fit.json", final, meta, report, start)


def check(path, final):
    """Exit with status 0 if ``final`` are the weights committed in ``path`` (to 1e-6), else 1."""
    committed = json.loads(path.read_text())["weights"]
    if len(committed) != len(final):
        print(f"{len(final)} weights fitted, {len(committed)} committed")
        sys.exit(1)
    worst = max(abs(a - b) for a, b in zip(final, committed))
    print(f"largest difference from the committed weights: {worst:.2e}")
    sys.exit(0 if worst <= 1e-6 else 1)


def write(path, summary_name, final, meta, report, start):
    """Write the weights into ``path`` and the report of the models into ``summary_name`` beside this script."""
    names = ALL_FEATURES[: len(final)]
    path.write_text(json.dumps({"features": list(names), "weights": final, "meta": meta}, indent=1) + "\n")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    summary = {"games": meta["games"], "positions": meta["positions"], "held_out_games": meta["held_out_games"],
               "commit": commit, "seconds": round(time.time() - start, 1), "models": report,
               "weights": dict(zip(names, final))}
    with open(os.path.join(HERE, summary_name), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    for name in report:
        for label, h in _held_out_lines(name, report[name]):
            print(f"{label:<20} held-out log-loss {h['log_loss']:.4f}  accuracy {h['accuracy']:.3f}")
    print("weights: " + ", ".join(f"{k} {v:+.3f}" for k, v in zip(names, final)))
    print(f"{meta['games']:,} games, {meta['positions']:,} positions, {math.ceil(time.time() - start)} s")


def _held_out_lines(name, entry):
    """(label, held-out figures) of a model of the report, or of each variant of the kroos' timing."""
    if name != "variants":
        return [(name, entry["held_out"])]
    return [(f"kroo {v['least']} seeds, {v['window']}", v["held_out"]) for v in entry]


def texel(args):
    """The fit of ``--texel``: every game between searches; compared with the committed game-fitted weights
    (with ``--timing``: with the kroos' timing, compared with the committed Texel weights)."""
    start = time.time()
    states, y, ids, in_play, n_games = positions(args.store, texel=True)
    x = features(states, timing=args.timing)
    held = np.random.default_rng(SEED).random(n_games) < HELD_OUT
    test = held[ids]
    w = fit(x[~test], y[~test], PENALTY)
    final = [round(float(v), 6) for v in w]
    path, name, baseline = (KROO_PATH, "kroo", "texel") if args.timing else (TEXEL_PATH, "texel", "games")
    if args.check:
        check(path, final)
    committed = np.array(json.loads(WEIGHTS[baseline].read_text())["weights"])
    report = {}
    for model, weights in ((name, w), (baseline, committed)):
        columns = x[:, : len(weights)]
        by_phase = {}
        for low, high in PHASES:
            phase = test & (in_play >= low) & (in_play <= high)
            by_phase[f"{low}-{high}"] = judge(columns[phase], y[phase], weights)
        report[model] = {"held_out": judge(columns[test], y[test], weights), "by_seeds_in_play": by_phase}
    if args.timing:
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
        "fitted_by": "data/evaluation/fit.py --texel" + (" --timing" if args.timing else ""),
    }
    write(path, f"{name}.json", final, meta, report, start)


if __name__ == "__main__":
    main()
