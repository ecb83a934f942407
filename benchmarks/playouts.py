"""Random playouts per second: awale's compiled engine beside OpenSpiel's oware, in one run.

Both play uniformly random games from the initial position under the full
Abapa rules (feed rule, grand slam, repetition).  OpenSpiel is driven the way a
Python user drives it: ``pyspiel.load_game("oware")`` and a loop of
``apply_action`` over random legal moves.  The compile-time figures come from
fresh processes, with an empty numba cache and then with the cache filled.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
from typing import Dict, List

from awale import Game, simulate
from common import best_rate

__all__ = ["run"]


def awale_playouts(count: int, _seed=[0]) -> int:
    _seed[0] += 1
    return simulate(Game(), count, seed=_seed[0]).playouts


def awale_python_api(count: int, rng=random.Random(1)) -> int:
    """Random games through the Python API (``Game.step``): what a notebook sees."""
    for _ in range(count):
        game = Game()
        while not game.game_finished:
            game = game.step(rng.choice(game.legal_actions))[0]
    return count


def openspiel_playouts(count: int, rng=random.Random(1)) -> int:
    import pyspiel

    game = pyspiel.load_game("oware")
    for _ in range(count):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
    return count


_COLD_START = "import time; t = time.perf_counter(); import awale; awale.simulate(awale.Game(), 1); " \
    "print(time.perf_counter() - t)"


def compile_seconds() -> Dict[str, float]:
    """Seconds to import awale and run one playout: cold (empty numba cache), then warm."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        times = {}
        for label in ("cold", "warm"):
            out = subprocess.run([sys.executable, "-c", _COLD_START], env=env, capture_output=True, text=True, check=True)
            times[label] = float(out.stdout)
    return times


def run(budget: float = 3.0) -> List[str]:
    """Measure for ``budget`` seconds per figure and return the report's lines."""
    awale_playouts(10)  # compile (or load the cache) before timing
    ours = best_rate(awale_playouts, budget, 2000)
    api = best_rate(awale_python_api, budget, 20)
    try:
        theirs = best_rate(openspiel_playouts, budget, 20)
    except ImportError:
        theirs = float("nan")
    compiled = compile_seconds()
    return [
        "Random playouts from the initial position, Abapa rules, one core",
        f"  awale.simulate (compiled)          {ours:12,.0f} playouts/s",
        f"  awale Game.step (Python API)       {api:12,.0f} playouts/s",
        f"  OpenSpiel oware (pyspiel, Python)  {theirs:12,.0f} playouts/s",
        f"  ratio simulate / OpenSpiel         {ours / theirs:12.1f} x",
        f"  ratio Game.step / OpenSpiel        {api / theirs:12.2f} x",
        f"Compilation: first run {compiled['cold']:.1f} s with an empty numba cache, "
        f"{compiled['warm']:.1f} s once cached (import and one playout)",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
