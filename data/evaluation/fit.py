"""Fit the weights of awale.knowledge.evaluation on stored games: ``python data/evaluation/fit.py``.

The fits are :func:`awale.offline.evaluation_fit.fit_games` and :func:`~awale.offline.evaluation_fit.fit_texel`;
this script chooses which, where the weights and the reports go, and says what it wrote.

Positions are taken from the games of the experiments in ``EXPERIMENTS`` (of
:mod:`awale.offline.evaluation_fit`) in ``data/experiments.sqlite`` whose two agents are both searches (games with a
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
the definition was chosen (``awale.offline.evaluation_fit.KROO_VARIANTS``: piles of 11 seeds or 12, a
window of 1, 2, 3, 4 or 6 seeds for ``kroo_soon``), each fitted the same way;
the chosen one, 11 seeds and a window of 3, shares the lowest (with a window of
2, to four decimals) and has the best accuracy.  The choice was made on these
held-out games, so their log-loss flatters it a little.
"""

import argparse
import os
import subprocess
import sys
import time

from awale.knowledge.evaluation import WEIGHTS
from awale.offline.evaluation_fit import check_weights, fit_games, fit_texel, write_fit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STORE = os.path.join(ROOT, "data", "experiments.sqlite")


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
    start = time.time()
    if args.texel:
        name = "kroo" if args.timing else "texel"
        fitted, path, summary = fit_texel(args.store, timing=args.timing), WEIGHTS[name], f"{name}.json"
    else:
        fitted, path, summary = fit_games(args.store), WEIGHTS["games"], "fit.json"
    if args.check:
        agrees, line = check_weights(path, fitted.weights)
        print(line)
        sys.exit(0 if agrees else 1)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    for line in write_fit(path, os.path.join(HERE, summary), fitted, commit, start):
        print(line)


if __name__ == "__main__":
    main()
