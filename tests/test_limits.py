"""Every size bounded and every number exact at the bounds: trees, visit counts, rules, agent specs."""

import numpy as np
import pytest

from awale import Game, Rules, simulate
from awale.core import _guard
from awale.agents import parse
from awale.core.rules import MAX_PLIES, MAX_SEEDS, _random_playouts, random_playouts, seed_rng
from awale.search import loop, mcts
from awale.search.mcts import MAX_VISITS, SearchConfig, SearchTree, max_nodes, node_bytes

CONFIGS = [SearchConfig(), SearchConfig(rave=300.0, solver=True, history=0.5, bias=1.0), SearchConfig(cutoff=10)]


def _arrays(tree):
    """The tree's contents (the root's value and gain are never read, nor set)."""
    nodes = slice(1, tree.used)
    amaf = slice(1, tree.used) if tree._amaf_n.shape[0] > 1 else slice(0, 0)  # one unused entry without RAVE
    return (tree._links[: tree.used], tree._flags[: tree.used], tree._value[nodes], tree._gain[nodes],
            tree._amaf_n[amaf], tree._amaf_w[amaf], tree.history, tree._rng)


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_chunked_search_is_the_single_call(config, monkeypatch):
    """The kernel runs in chunks returning to Python; the tree is that of one call, bit for bit."""
    monkeypatch.setattr(_guard, "CHUNK_SECONDS", 1e-9)  # chunks of a single iteration after the first
    chunked = SearchTree(Game(), config, seed_rng(3), capacity=5001)
    assert chunked.run(5000) == 5000
    whole = SearchTree(Game(), config, seed_rng(3), capacity=5001)
    arrays = whole.arrays()
    done = loop.iterate(5000, np.zeros(1, dtype=np.int64), arrays, whole.options(), whole.root(), whole._rng)
    whole.used = int(arrays.used[0])
    assert done == 5000 and chunked.used == whole.used
    for a, b in zip(_arrays(chunked), _arrays(whole)):
        assert np.array_equal(a, b)


def test_chunked_playouts_are_the_single_call(monkeypatch):
    monkeypatch.setattr(_guard, "CHUNK_SECONDS", 1e-9)
    game = Game()
    args = (game._state, game.rules.params, game._keys, game._boards, game._length)
    assert np.array_equal(random_playouts(*args, 3000, seed_rng(9)), _random_playouts(*args, 3000, seed_rng(9)))
    assert simulate(game, 3000, seed=9) == simulate(game, 3000, seed=9)


def test_visits_stop_at_the_int32_limit():
    """Every iteration visits the root: its count is the largest, and it may not pass 2**31 - 1."""
    tree = SearchTree(Game(), SearchConfig(), seed_rng(1), capacity=64)
    tree._links[0, loop.VISITS] = MAX_VISITS - 5
    with pytest.raises(ValueError, match="at most 2,147,483,647 visits"):
        tree.run(6)
    assert tree.run(5) == 5 and tree.root_visits == MAX_VISITS  # no wrap to a negative count
    assert tree.run_for(0.05) == 0 and tree.root_visits == MAX_VISITS


def test_tree_memory_is_capped(monkeypatch):
    monkeypatch.setattr(_guard, "available_memory", lambda: 2 * 1000 * node_bytes(SearchConfig()))
    monkeypatch.setattr(mcts, "available_memory", _guard.available_memory)
    assert max_nodes(SearchConfig()) == 1000
    assert str(parse("uct(iterations=999)")) == "uct(iterations=999)"  # the cap itself: 999 iterations + root
    with pytest.raises(ValueError, match="uct: a search of 1,000 iterations .* the limit here is 999 iterations"):
        parse("uct(iterations=1000)")
    with pytest.raises(ValueError, match="mcts: a search of 1,000,000,000 iterations"):
        parse("mcts(iterations=10**9)".replace("10**9", str(10**9)))
    with pytest.raises(ValueError, match="limit here is 999"):
        SearchTree(Game(), SearchConfig(), seed_rng(1), capacity=10**12)
    tree = SearchTree(Game(), SearchConfig(), seed_rng(1), capacity=10)
    with pytest.raises(ValueError, match="limit here is 999"):
        tree.run(1000)
    assert tree.used == 1 and tree.capacity == 10  # refused before any work
    # A time budget, however long, grows the tree up to the cap, then stops: it never asks for more.
    tree.run_for(1e9)
    assert tree.used == tree.capacity == 1000


def test_the_memory_cap_is_real(monkeypatch):
    """The default cap leaves half the machine's available memory (and fits int32 indices)."""
    available = _guard.available_memory()  # read once: other processes change it
    assert 0 < available <= _physical_memory()
    monkeypatch.setattr(mcts, "available_memory", lambda: available)
    config = SearchConfig()
    assert max_nodes(config) * node_bytes(config) <= available // 2 + node_bytes(config)
    assert max_nodes(config) <= 2**31 - 1
    with pytest.raises(ValueError, match="iterations needs .* GiB of tree"):
        parse(f"uct(iterations={max_nodes(config)})")


def _physical_memory():
    import os

    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def test_time_budget_grows_the_tree_gradually():
    """A huge time no longer sizes a chunk from the time left (which asked for terabytes)."""
    tree = SearchTree(Game(), SearchConfig(), seed_rng(1))
    tree.run_for(0.3)
    assert tree.capacity <= 4 * max(tree.used, 1024)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("uct(c=1" + "0" * 400 + ")", "c must be finite"),
        ("random(seed=" + "-" * 400 + "1)", "is not a literal"),
        ("random(seed=" + "(" * 200 + "1" + ")" * 200 + ")", "malformed agent spec"),
        ("uct(cutoff=1" + "0" * 300 + ")", "cutoff must be a 64-bit integer"),
        ("random(seed=0x" + "f" * 900 + ")", "seed must be a 64-bit integer"),
        ("random(seed=9223372036854775808)", "seed must be"),
        ("minimax(depth=" + "9" * 500 + ")", "depth must be"),
        ("greedy(eps=1e400)", "eps must be finite"),
    ],
)
def test_huge_or_nested_literals_are_value_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        parse(spec)


def test_canonical_specs_stay_readable():
    """The longest seed allowed keeps a canonical spec that parses back (the store reads them again)."""
    agent = parse(f"uct(iterations=1, c=1e-300, playout='greedy', bias=1e300, history=1e-300, cutoff={2**63 - 1}, "
                  f"rave=1e300, solver=True, reuse=True, seed={2**63 - 1})")
    assert parse(str(agent)) == agent and len(str(agent)) <= 1000


@pytest.mark.parametrize(
    "fields, message",
    [
        (dict(seeds_per_pit=10**30), "at most 32,767 seeds"),
        (dict(pits_per_side=6, seeds_per_pit=MAX_SEEDS // 12 + 1), "at most 32,767 seeds"),
        (dict(max_plies=2**63), "at most 2\\*\\*62"),
        (dict(max_plies=10**400), "at most 2\\*\\*62"),
    ],
)
def test_rules_refuse_sizes_past_their_limits(fields, message):
    with pytest.raises(ValueError, match=message):
        Rules(**fields)


def test_rules_at_their_limits_work():
    """The largest board and ply cap allowed play and search exactly (captures fit the int16 gains)."""
    rules = Rules(pits_per_side=2, seeds_per_pit=MAX_SEEDS // 4, max_plies=MAX_PLIES)
    game = Game(rules)
    assert game.pits == (MAX_SEEDS // 4,) * 4 and rules.total_seeds <= MAX_SEEDS
    tree = SearchTree(game, SearchConfig(bias=1.0), seed_rng(2))
    assert tree.run(20) == 20
    child = game.step(1)[0]
    assert all(0 <= int(g) <= MAX_SEEDS for g in tree._gain[: tree.used])
    assert child.plies == 1


@pytest.mark.parametrize("spec", ["uct(time=1e9)", "mcts(time=1e9)", "flat(time=86401.0)", "minimax(time=1e9)",
                                  "champion(time=86401.0)"])
def test_time_budgets_beyond_a_day_are_refused_at_once(spec):
    """A time budget over MAX_SECONDS is refused by the parser, in one line, before any search."""
    with pytest.raises(ValueError, match=r"time must be at most 86400\.0") as error:
        parse(spec)
    assert "\n" not in str(error.value)
    assert parse("uct(time=86400.0)").time == 86400.0
