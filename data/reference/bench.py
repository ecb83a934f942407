"""How fast the reference thesis's own engine searches: ``python bench.py [REPS]`` beside ``reference_awale.py``.

The reference (Marchant 2021) gave its searches 5 seconds a move with its pure-Python engine and reported no
iteration rate.  This harness times its players' own ``get_action()`` (a loop on ``datetime.now()`` against a
5 s ``timedelta``) and reads the iterations as the rise of ``root.n_playouts`` (which its
``TreeStatsGame.update_stats`` raises once per ``explore_tree()``), from the opening and from positions 10 to
50 plies into one seeded random game under its rules.  Writes ``results.json`` (``speed.csv`` beside it is
that file as a table).

The reference's code is not part of this repository (it is another author's work): ``reference_awale.py``
must hold the code cells of its published source (C4ptainCrunch/thesis at commit 3210c0d,
``docs/_sources/index.rst.txt``: the Game, TreeGame and TreeStatsGame classes and its players), with
``import import_ipynb`` removed and ``from lib.utils import max_rand`` replaced by that function.
"""
import gc, json, math, platform, random, sys, time
from datetime import timedelta
import numpy as np
from reference_awale import Game, TreeStatsGame, MCTSPlayer, UCTPlayer, GreedyUCTPlayer

BUDGET = timedelta(seconds=5)
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
PLIES = [0, 10, 20, 30, 40, 50]

# one random game under the reference rules (uniform random legal moves), seed chosen so it lasts > 50 plies
seed = 0
while True:
    rng = random.Random(seed); g = Game(); hist = [g]
    while not g.game_finished:
        g, _, _ = g.step(rng.choice(g.legal_actions)); hist.append(g)
    if len(hist) > 60: break
    seed += 1
positions = {k: hist[k] for k in PLIES}
for k, p in positions.items():
    print(f"pos {k:2d}: to move {p.current_player}, captures {p.captures.tolist()}, pits {p.pits.tolist()}, seeds on board {int(p.pits.sum())}", flush=True)

def make(kind, pos):
    pid = pos.current_player
    if kind == "MCTS": pl = MCTSPlayer(pid, BUDGET)
    elif kind == "UCT": pl = UCTPlayer(pid, BUDGET, c=math.sqrt(2) / 2)
    else: pl = GreedyUCTPlayer(pid, BUDGET, c=math.sqrt(2) / 2)
    pl.root = TreeStatsGame(np.copy(pos.pits), pos.current_player, np.copy(pos.captures))
    return pl

def measure(kind, k, rep):
    random.seed(1000 * rep + k)
    pl = make(kind, positions[k])
    gc.collect()
    n0 = pl.root.n_playouts
    w0, c0 = time.perf_counter(), time.process_time()
    action = pl.get_action()
    w1, c1 = time.perf_counter(), time.process_time()
    n = pl.root.n_playouts - n0
    r = dict(player=kind, plies=k, rep=rep, iters=n, wall=round(w1 - w0, 4), cpu=round(c1 - c0, 4),
             ips_wall=round(n / (w1 - w0), 1), ips_cpu=round(n / (c1 - c0), 1), action=action,
             tree_nodes=1 + len(pl.root.successors) if n < 20000 else None)
    print(json.dumps(r), flush=True)
    del pl; gc.collect()
    return r

print("python", sys.version.split()[0], platform.python_implementation(), "numpy", np.__version__, flush=True)
print("loadavg before:", open("/proc/loadavg").read().strip(), flush=True)
res = []
for rep in range(REPS):
    for k in PLIES:
        for kind in ("MCTS", "UCT"):
            res.append(measure(kind, k, rep))
for rep in range(REPS):
    res.append(measure("GreedyUCT", 0, rep))
print("loadavg after:", open("/proc/loadavg").read().strip(), flush=True)
json.dump(res, open("results.json", "w"), indent=1)
