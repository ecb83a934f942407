"""Parallel MCTS: root, tree and leaf parallelisation against the one-thread search.

The shared tree is checked after many searches for what a race would break:
every iteration counted exactly once, every sum of rewards within what its
visits allow, every AMAF and history statistic consistent.  Nothing here is
timed (the speed-ups are in benchmarks/parallel.py).
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from awale import Game, Rules
from awale.core._jit import COMPILED, jit
from awale.agents import parse
from awale.cli import main
from awale.experiments import CATALOG, local_workers, pair_keys, runner
from awale.experiments.verify import time_based
from awale.play.match import play
from awale.core.rules import seed_rng
from awale.core import _atomic
from awale.search import mcts
from awale.search.alphabeta import action_values
from awale.search.loop import FIRST, NEXT, UNTRIED, VISITS
from awale.search.mcts import SearchConfig, SearchTree
from awale.search.parallel import RootForest, SharedTree, search_tree
from conftest import SMALL_BOARDS, random_positions, result

SHARED_CONFIGS = [
    SearchConfig(),
    SearchConfig(tree_policy="random"),
    SearchConfig(playout="greedy", bias=1.0, history=0.5),
    SearchConfig(rave=100.0, cutoff=10),
    SearchConfig(solver=True),
]


def _children(tree, node):
    child = int(tree._links[node, FIRST])
    while child >= 0:
        yield child
        child = int(tree._links[child, NEXT])


def _check_conserved(tree, iterations, threads, scheme):
    """Every count of a shared tree adds up after a search of ``iterations`` iterations on ``threads`` threads."""
    links, value = tree._links[: tree.used], tree._value[: tree.used]
    visits = links[:, VISITS].astype(np.int64)
    assert tree.root_visits == iterations
    reached = {0}
    ends = 0
    for node in range(tree.used):
        kids = list(_children(tree, node))
        reached.update(kids)
        below = sum(int(visits[c]) for c in kids)
        # Each playout ends at one node: the visits a node has beyond its children's.
        ended = int(visits[node]) - below
        ends += ended
        assert ended >= 0
        leaf = tree._flags[node, UNTRIED] == 0 and not kids
        if node > 0 and not leaf and not tree.config.solver:
            assert 1 <= ended <= (1 if scheme == "tree" else threads)  # the playouts of its own expansion
        # Rewards: a node's sum and its children's make one full reward per playout through a child.
        total = float(value[node]) + sum(float(value[c]) for c in kids)
        assert below - 1e-9 <= total <= below + ended + 1e-9, node
        assert -1e-9 <= value[node] <= visits[node] + 1e-9
    assert ends == iterations
    assert len(reached) == tree.used  # every node is linked exactly once
    if tree.config.rave > 0:
        assert np.all(tree._amaf_w[1 : tree.used] <= tree._amaf_n[1 : tree.used] + 1e-9)  # the root has none
    assert np.all(tree.history[:, 0] <= tree.history[:, 1] + 1e-9)


@pytest.mark.parametrize("scheme", ["tree", "leaf"])
@pytest.mark.parametrize("config", SHARED_CONFIGS, ids=str)
def test_a_shared_tree_conserves_its_counts(scheme, config):
    for seed in range(6):  # many searches: a race that corrupts the tree would show in one of them
        tree = SharedTree(Game(), config, seed_rng(seed), 4001, 3, scheme)
        assert tree.run(4000) == 4000
        _check_conserved(tree, 4000, 3, scheme)


@pytest.mark.parametrize("scheme", ["tree", "leaf"])
def test_a_shared_tree_keeps_its_counts_in_a_time_budget_and_on_a_small_board(scheme):
    game = Game(Rules(pits_per_side=3, seeds_per_pit=2))
    tree = SharedTree(game, SearchConfig(), seed_rng(2), 64, 2, scheme)
    done = tree.run_for(0.05)
    assert done > 0
    _check_conserved(tree, tree.root_visits, 2, scheme)


def test_one_thread_is_the_one_thread_search():
    tree = search_tree(Game(), SearchConfig(), seed_rng(1), 100, threads=1, scheme="tree")
    assert type(tree) is SearchTree
    for spec in ("uct(iterations=400, threads=1, parallel='tree')", "uct(iterations=400, threads=1, parallel='leaf')",
                 "uct(iterations=400, threads=1)"):
        assert play(spec, "greedy", seed=4).moves == play("uct(iterations=400)", "greedy", seed=4).moves


def test_root_parallelisation_replays_and_depends_on_the_seed():
    def moves(seed):
        return play("uct(iterations=600, threads=3)", "uct(iterations=300)", seed=seed).moves

    assert moves(1) == moves(1)

    def visits(seed):
        forest = search_tree(Game(), SearchConfig(), seed_rng(seed), 2001, threads=2, scheme="root")
        forest.run(2000)
        return [c.visits for c in forest.children()]

    assert visits(1) == visits(1) != visits(2)


def test_root_statistics_are_the_trees_summed():
    forest = search_tree(Game(), SearchConfig(), seed_rng(7), 3001, threads=3, scheme="root")
    assert isinstance(forest, RootForest) and forest.run(3000) == 3000
    assert [tree.root_visits for tree in forest.trees] == [1000, 1000, 1000]
    merged = {c.action: c for c in forest.children()}
    for action, child in merged.items():
        parts = [c for tree in forest.trees for c in tree.children() if c.action == action]
        assert child.visits == sum(c.visits for c in parts)
        assert child.mean == pytest.approx(sum(c.mean * c.visits for c in parts) / child.visits)
    assert forest.root_visits == sum(c.visits for c in merged.values()) == 3000
    assert forest.best_action() == max(merged.values(), key=lambda c: (c.visits, c.mean)).action


@pytest.mark.parametrize("scheme", ["root", "tree", "leaf"])
def test_every_scheme_proves_what_one_thread_proves(scheme):
    for n, s in SMALL_BOARDS:
        for game in random_positions(n, s, 2, seed=n * 10 + s):
            one = SearchTree(game, SearchConfig(solver=True), seed_rng(1))
            one.run(1_000_000)
            tree = search_tree(game, SearchConfig(solver=True), seed_rng(1), 1024, threads=2, scheme=scheme)
            tree.run(1_000_000)
            values = action_values(game)
            assert tree.proven_root == one.proven_root == result(max(values.values())), (scheme, game.pits)
            for child in tree.children():
                if child.proven:
                    assert child.proven == result(values[child.action]), (scheme, game.pits, child)


@pytest.mark.parametrize("scheme", ["root", "tree", "leaf"])
def test_every_option_works_on_threads(scheme):
    options = ["", "rave=100.0", "bias=1.0, history=1.0", "cutoff=10", "playout='greedy'", "solver=True",
               "reuse=True", "reuse=True, solver=True"]
    for i, option in enumerate(options):
        spec = f"uct(iterations=300, threads=2, parallel='{scheme}'{', ' if option else ''}{option})"
        record = play(spec, "random", seed=i, rules=Rules(pits_per_side=4, seeds_per_pit=3))
        assert record.plies > 0
    record = play(f"mcts(iterations=300, threads=0, parallel='{scheme}', reuse=True)", "greedy", seed=1)
    assert record.plies > 0


@pytest.mark.parametrize("scheme", ["root", "tree", "leaf"])
def test_a_reused_parallel_tree_keeps_its_scheme(scheme):
    agent = parse(f"uct(iterations=500, threads=2, parallel='{scheme}', reuse=True)")
    game = Game()
    game = game.step(agent.act(game))[0]
    game = game.step(game.legal_actions[0])[0]
    kept = agent.tree.subtree(game)
    assert type(kept) is type(agent.tree) and kept.root_visits > 0
    agent.act(game)
    assert agent.tree.root_visits == kept.root_visits + 500


def test_bad_parallel_options_are_refused():
    for spec, message in [
        ("uct(threads=2, parallel='forest')", "parallel must be one of 'root', 'tree', 'leaf'"),
        ("uct(threads=-1)", "threads must be at least 0"),
        ("uct(threads=True)", "threads must be an integer"),
        ("uct(threads=5000)", "threads must be at most 1024"),
    ]:
        with pytest.raises(ValueError, match=message.replace("(", r"\(")):
            parse(spec)
    with pytest.raises(ValueError, match="parallel must be one of"):
        search_tree(Game(), SearchConfig(), seed_rng(0), 10, threads=2, scheme="both")
    with pytest.raises(ValueError, match="'tree' or 'leaf'"):
        SharedTree(Game(), SearchConfig(), seed_rng(0), 10, 2, "root")


def test_root_trees_share_the_memory_of_one(monkeypatch):
    monkeypatch.setattr(mcts, "available_memory", lambda: 2 * 1000 * mcts.node_bytes(SearchConfig()))
    assert mcts.max_nodes(SearchConfig()) == 1000
    parse("uct(iterations=900, threads=2)")  # 450 iterations a tree: each holds at most 500 nodes
    with pytest.raises(ValueError, match="per tree, for 2 trees"):
        parse("uct(iterations=1200, threads=2)")
    forest = search_tree(Game(), SearchConfig(), seed_rng(0), 100, threads=2, scheme="root")
    forest.run_for(0.3)
    assert all(tree.capacity <= 500 for tree in forest.trees) and forest.used <= 1000


def test_games_of_non_deterministic_searches_are_not_replayed():
    assert parse("uct(iterations=100, threads=2)").replayable and not time_based("uct(iterations=100, threads=2)")
    for spec in ("uct(iterations=100, threads=2, parallel='tree')", "uct(iterations=100, threads=2, parallel='leaf')",
                 "uct(iterations=100, threads=0)", "uct(time=0.1, threads=2)", "uct(time=0.1)", "mcts(time=0.1)"):
        assert time_based(spec), spec
    assert not time_based("uct(iterations=100, threads=1, parallel='tree')")


def test_workers_times_threads_fit_the_cores(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(runner, "default_workers", lambda: 2)
    runner._threads_of.cache_clear()
    keys = pair_keys("uct(iterations=10, threads=2)", "random", 2)
    assert local_workers(keys) == 1 and local_workers(keys, 1) == 1 and local_workers(keys, 0) == 0
    assert local_workers(pair_keys("random", "greedy", 2)) == 2
    with pytest.raises(ValueError, match="2 worker processes would run 4 threads on 2 cores; use at most 1"):
        local_workers(keys, 2)
    runner._threads_of.cache_clear()
    status = main(["tournament", "uct(iterations=10, threads=2)", "random", "--games", "2", "--workers", "2",
                   "--store", str(tmp_path / "t.sqlite")])
    assert status == 2 and "use at most 1 worker process" in capsys.readouterr().err
    runner._threads_of.cache_clear()


def test_the_parallel_experiment_is_timed_and_meets_one_thread():
    exp = CATALOG["parallel"]
    assert exp.timed
    assert [parse(a).parallel for a, _ in exp.pairings()] == ["root", "tree", "leaf"]
    assert all(time_based(a) and time_based(b) and parse(a).time == parse(b).time for a, b in exp.pairings())


def test_atomics_in_plain_python():
    array = np.zeros(3, dtype=np.int64)
    assert _atomic.atomic_add(array, 1, 5) == 0 and array[1] == 5
    assert _atomic.atomic_cas(array, 1, 4, 9) == 5 and array[1] == 5  # not the expected value: unchanged
    assert _atomic.atomic_cas(array, 1, 5, 9) == 5 and array[1] == 9
    grid = np.zeros((2, 2))
    assert _atomic.atomic_add(grid, (1, 0), 0.5) == 0.0 and _atomic.atomic_load(grid, (1, 0)) == 0.5


_PLAIN = """
from awale import Game, Rules
from awale.core._jit import COMPILED, jit
from awale.core.rules import seed_rng
from awale.search.mcts import SearchConfig
from awale.search.parallel import SharedTree
from test_parallel import _check_conserved
assert not COMPILED
for scheme in ("tree", "leaf"):
    for config in (SearchConfig(), SearchConfig(solver=True, rave=10.0, history=1.0)):
        tree = SharedTree(Game(Rules(pits_per_side=3, seeds_per_pit=2)), config, seed_rng(1), 301, 2, scheme)
        done = tree.run(300)
        _check_conserved(tree, done, 2, scheme)
print("ok")
"""


@pytest.mark.skipif(not COMPILED, reason="numba is not available: the suite already runs as plain Python")
def test_the_shared_tree_without_compilation():
    """Without numba the atomic operations take a lock: the same counts add up, in plain Python threads."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    run = subprocess.run([sys.executable, "-c", _PLAIN], cwd=Path(__file__).parent, env=env, capture_output=True,
                         text=True)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-3000:]



@jit(inline=False)
def _scaled(x, k):
    return x * k


@jit(inline=False)
def _scaled_twice(x):
    return _scaled(x, 2) + _scaled(x, 3)


@pytest.mark.skipif(not COMPILED, reason="numba compiles nothing here")
def test_a_kernel_called_with_constants_is_compiled_once_for_their_type():
    # numba types a constant argument as its value: the search's descent, called as _walk(..., 1, 0, ...), was
    # compiled once per constant and again for the variable, which tripled its first compile (core/_jit.py).
    for kernel in (_scaled, _scaled_twice):
        kernel._cache.flush()  # compiled here, not loaded from the cache: its signatures are the compiler's
    assert _scaled_twice(1.5) == 7.5 and _scaled(1.5, 4) == 6.0
    assert len(_scaled.signatures) == 1 and "Literal" not in str(_scaled.signatures[0]), _scaled.signatures
