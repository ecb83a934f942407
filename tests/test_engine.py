"""The compiled random playouts (`awale.simulate`) and the agreement of compiled and plain-Python kernels."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from awale import Game, Rules, simulate
from awale.core._jit import COMPILED

ROOT = Path(__file__).resolve().parents[1]


def test_simulate_is_reproducible_and_counts_add_up():
    game = Game()
    first = simulate(game, 500, seed=3)
    assert first == simulate(game, 500, seed=3)
    assert first != simulate(game, 500, seed=4)
    assert first.playouts == 500
    assert first.south_wins > 0 and first.north_wins > 0
    # A random game of Awale lasts tens of plies, never fewer than the 7 a win needs.
    assert 7 * 500 <= first.plies <= 1000 * 500


def test_simulate_accepts_a_numpy_generator():
    a = simulate(Game(), 50, seed=np.random.default_rng(9))
    b = simulate(Game(), 50, seed=np.random.default_rng(9))
    assert a == b


def test_simulate_from_a_forced_ending():
    # North's only move leaves South unable to feed: South takes its seeds and wins, every time.
    game = Game.from_position([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], (23, 23), current_player=1)
    stats = simulate(game, 40, seed=1)
    assert (stats.south_wins, stats.north_wins, stats.draws, stats.plies) == (40, 0, 0, 40)


def test_simulate_from_a_finished_game():
    game = Game.from_position([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], (23, 23), current_player=1).step(5)[0]
    assert simulate(game, 7) == simulate(game, 7, seed=99)
    assert simulate(game, 7).south_wins == 7


def test_simulate_respects_the_ply_cap():
    stats = simulate(Game(Rules(max_plies=10)), 200, seed=2)
    assert stats.plies <= 10 * 200 and stats.draws > 0


def test_simulate_under_simplified_rules_differs():
    assert simulate(Game(Rules.simplified()), 300, seed=5) != simulate(Game(), 300, seed=5)


@pytest.mark.parametrize("bad", [-1, 2.5, "10", None])
def test_simulate_rejects_bad_counts(bad):
    with pytest.raises(ValueError, match="n_playouts"):
        simulate(Game(), bad)


@pytest.mark.parametrize("bad", [-3, 1.5, "seed"])
def test_simulate_rejects_bad_seeds(bad):
    with pytest.raises(ValueError, match="seed"):
        simulate(Game(), 1, seed=bad)


def test_simulate_needs_a_game():
    with pytest.raises(ValueError, match="awale.Game"):
        simulate("start", 1)


# The same computations, for comparison between compiled and plain-Python kernels.
PROBE = """
import json
from awale import Game, Rules, simulate
from awale.core.rules import perft
from awale.core._jit import COMPILED
results = {"compiled": COMPILED}
for n, s in [(6, 4), (4, 3), (2, 2)]:
    for rules in (Rules(pits_per_side=n, seeds_per_pit=s), Rules.simplified(n, s),
                  Rules(pits_per_side=n, seeds_per_pit=s, grand_slam="forbidden")):
        g = Game(rules)
        key = repr(rules)
        results[key] = [list(vars(simulate(g, 60, seed=17)).values()),
                        perft(g._state, rules.params, g._keys, g._boards, g._length, 4)]
print(json.dumps(results))
"""


def _probe(disable_jit: bool) -> dict:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1" if disable_jit else "0")
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.skipif(not COMPILED, reason="numba is not available: there is only one kind of kernel")
def test_compiled_and_plain_python_kernels_agree():
    compiled, plain = _probe(False), _probe(True)
    assert compiled.pop("compiled") is True and plain.pop("compiled") is False
    assert compiled == plain


@pytest.mark.skipif(not COMPILED, reason="numba is not available: the suite already runs as plain Python")
def test_rule_tests_pass_without_compilation():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    tests = ["tests/test_rules.py", "tests/test_invariants.py"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
