"""The compiled Monte Carlo Tree Search and the Monte Carlo agents: counters, reuse, tactics, options."""

import pytest

from awale import Game, Rules
from awale.agents import parse
from awale.core.rules import seed_rng
from awale.search import loop
from awale.search.mcts import SearchConfig, SearchTree, node_bytes
from conftest import position

VARIANTS = [
    SearchConfig(),
    SearchConfig(tree_policy="random"),
    SearchConfig(playout="greedy"),
    SearchConfig(bias=1.0, history=0.5),
    SearchConfig(cutoff=8),
    SearchConfig(rave=300.0),
    SearchConfig(solver=True),
    SearchConfig(playout="greedy", solver=True, rave=100.0),
]


@pytest.mark.parametrize("config", VARIANTS, ids=str)
def test_counters_add_up(config):
    tree = SearchTree(Game(), config, seed_rng(5))
    done = tree.run(3000)
    children = tree.children()
    assert done == 3000 and tree.root_visits == 3000 and tree.iterations == 3000
    assert sum(c.visits for c in children) == tree.root_visits
    assert sorted(c.action for c in children) == Game().legal_actions
    assert tree.used == 3001  # one new node per iteration, none proven from the initial position
    assert all(0.0 <= c.mean <= 1.0 for c in children)


@pytest.mark.parametrize("capacity", [2, 1024])
@pytest.mark.parametrize("config", VARIANTS, ids=str)
def test_no_statistic_is_read_before_it_is_written(config, capacity, monkeypatch):
    """Arrays filled with garbage at allocation give the same tree as fresh ones, root row included.

    From a capacity of 2 the arrays are allocated again as the tree grows, and filled with garbage each time.
    """
    def grown(seed):
        tree = SearchTree(Game(), config, seed_rng(seed), capacity=capacity)
        tree.run(500)
        return tree

    clean = grown(3)
    allocate = SearchTree._allocate

    def dirty(self, capacity):
        allocate(self, capacity)
        for array in (self._links, self._flags, self._value, self._gain, self._amaf_n, self._amaf_w):
            array.fill(77)

    monkeypatch.setattr(SearchTree, "_allocate", dirty)
    messy = grown(3)
    assert messy.used == clean.used
    for name in ("_links", "_flags", "_value", "_gain"):
        assert (getattr(messy, name)[: clean.used] == getattr(clean, name)[: clean.used]).all(), name
    if config.rave:
        assert (messy._amaf_n[: clean.used] == clean._amaf_n[: clean.used]).all()


def test_same_seed_same_tree_other_seed_other_tree():
    def stats(seed):
        tree = SearchTree(Game(), SearchConfig(), seed_rng(seed))
        tree.run(2000)
        return [(c.action, c.visits, round(c.mean, 6)) for c in tree.children()]

    assert stats(1) == stats(1)
    assert stats(1) != stats(2)


def test_reused_tree_has_the_statistics_of_the_subtree():
    game = Game()
    tree = SearchTree(game, SearchConfig(rave=50.0), seed_rng(3))
    tree.run(5000)
    ours = tree.best_action()
    after_ours = game.step(ours)[0]
    theirs = after_ours.legal_actions[0]
    reached = after_ours.step(theirs)[0]
    # Find the grandchild's node and read its children before re-rooting.
    node = next(i for i in range(1, tree.used) if tree._links[i, 0] == 0 and tree._flags[i, 0] == ours)
    grandchild = next(
        i for i in range(1, tree.used) if tree._links[i, 0] == node and tree._flags[i, 0] == theirs
    )
    before = tree._children_of(grandchild)
    reused = tree.subtree(reached)
    assert reused is not None and reused.game == reached
    assert reused.children() == before
    assert reused.root_visits == int(tree._links[grandchild, 3])
    assert sum(c.visits for c in reused.children()) == reused.root_visits - 1  # its own first visit
    # Searching on keeps the counters consistent.
    reused.run(500)
    assert sum(c.visits for c in reused.children()) == reused.root_visits - 1


def test_a_game_that_does_not_continue_the_search_is_not_reused():
    tree = SearchTree(Game(), SearchConfig(), seed_rng(3))
    tree.run(500)
    other = Game.from_position([5, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4])
    assert tree.subtree(other) is None
    # The same position reached with a different repetition history is not reused either.
    a = Game().step(0)[0].step(0)[0]
    fresh = Game.from_position(a.pits, a.captures, a.current_player, plies=2)
    tree.run(2000)
    assert tree.subtree(fresh) is None


# A position where South captures 2 + 3 + 2 = 7 seeds with F, reaching 25: an immediate win.
WINNING_CAPTURE = dict(south=[1, 1, 0, 0, 0, 3], north=[1, 2, 1, 4, 4, 0], captures=(18, 13))


@pytest.mark.parametrize("spec", [
    "uct(iterations=3000)", "uct(iterations=3000, solver=True)", "uct(iterations=3000, rave=300)",
    "uct(iterations=3000, playout='greedy')", "flat(iterations=3000)", "mcts(iterations=3000)",
])
def test_an_immediate_winning_capture_is_taken(spec):
    game = position(**WINNING_CAPTURE)
    assert game.step(5)[0].winner == 0
    assert parse(spec).act(game) == 5


def test_solver_proves_the_immediate_win():
    agent = parse("uct(iterations=3000, solver=True)")
    agent.act(position(**WINNING_CAPTURE))
    assert agent.tree.proven_root == "win"
    assert [c.proven for c in agent.statistics() if c.action == 5] == ["win"]


def _with_root_children(results, visits, means):
    """A searched tree whose root children are given these bounds, visits and means (by action)."""
    tree = SearchTree(Game(), SearchConfig(solver=True), seed_rng(0))
    tree.run(200)
    child = int(tree._links[0, loop.FIRST])
    while child >= 0:
        action = int(tree._flags[child, loop.ACTION])
        lower, upper = results.get(action, ("loss", "win"))
        tree._flags[child, loop.LOWER], tree._flags[child, loop.UPPER] = loop.RESULTS[lower], loop.RESULTS[upper]
        tree._links[child, loop.VISITS] = visits[action]
        tree._value[child] = means[action] * visits[action]
        child = int(tree._links[child, loop.NEXT])
    return tree


def test_a_secured_draw_beats_moves_that_look_worse():
    visits = {0: 10, 1: 500, 2: 60, 3: 20, 4: 30, 5: 40}
    means = {0: 0.5, 1: 0.4, 2: 0.45, 3: 0.3, 4: 0.2, 5: 0.1}
    tree = _with_root_children({0: ("draw", "draw"), 3: ("loss", "loss")}, visits, means)
    assert tree.best_action() == 0  # the most visited move, 1, is estimated below the secured draw
    assert [c.proven for c in tree.children()] == ["draw", "", "", "loss", "", ""]
    means[1] = 0.6
    tree = _with_root_children({0: ("draw", "draw"), 3: ("loss", "loss")}, visits, means)
    assert tree.best_action() == 1  # it may still be better than a draw, and looks it
    tree = _with_root_children({a: ("loss", "draw") for a in range(1, 6)} | {0: ("draw", "draw")}, visits, means)
    assert tree.best_action() == 0  # nothing can beat the draw any more
    tree = _with_root_children({a: ("loss", "loss") for a in range(6) if a != 4}, visits, means)
    assert tree.best_action() == 4  # the only move not proven lost
    tree = _with_root_children({5: ("win", "win")}, visits, means)
    assert tree.best_action() == 5


def test_a_move_handing_the_opponent_a_winning_capture_is_avoided():
    # South can play A or E; after E, North's f drops its seed on South's A, making 2, and takes them: 25.
    game = position([1, 0, 0, 0, 1, 0], [0, 2, 0, 0, 0, 1], (20, 23), player=0)
    assert game.legal_actions == [0, 4]
    after_e = game.step(4)[0]
    assert any(after_e.step(a)[0].winner == 1 for a in after_e.legal_actions)
    after_a = game.step(0)[0]
    assert not any(after_a.step(a)[0].winner == 1 for a in after_a.legal_actions)
    for spec in ("uct(iterations=4000)", "uct(iterations=4000, solver=True)", "mcts(iterations=4000)",
                 "flat(iterations=4000)"):
        assert parse(spec).act(game) == 0, spec


@pytest.mark.parametrize("spec", [
    "flat(iterations=200)", "mcts(iterations=200)", "uct(iterations=200)",
    "uct(iterations=200, playout='greedy', solver=True)", "uct(iterations=200, bias=2.0, history=1.0)",
    "uct(iterations=200, cutoff=5, rave=100)", "uct(iterations=200, reuse=True)",
])
def test_agents_play_legal_moves_on_every_board(spec):
    for n in range(2, 7):
        agent = parse(spec)
        game = Game(Rules(pits_per_side=n, seeds_per_pit=3))
        while not game.game_finished:
            action = agent.act(game)
            assert action in game.legal_actions
            game = game.step(action)[0]


def test_agents_are_reproducible_and_reset():
    def moves(agent):
        game, played = Game(), []
        for _ in range(12):
            action = agent.act(game)
            played.append(action)
            game = game.step(action)[0]
        return played

    agent = parse("uct(iterations=300, seed=4, reuse=True)")
    first = moves(agent)
    agent.reset()
    assert moves(agent) == first == moves(parse("uct(iterations=300, seed=4, reuse=True)"))


def test_time_budgets_return_legal_moves():
    for spec in ("uct(time=0.05)", "mcts(time=0.05)", "flat(time=0.05)"):
        game = Game()
        assert parse(spec).act(game) in game.legal_actions


@pytest.mark.parametrize("spec, message", [
    ("uct(iterations=0)", "at least 1"),
    ("uct(iterations=-5)", "at least 1"),
    ("uct(iterations=10, time=1.0)", "not both"),
    ("uct(c=-1)", "at least 0"),
    ("uct(playout='smart')", "playout"),
    ("uct(cutoff=2.5)", "integer"),
    ("uct(solver=1)", "True or False"),
    ("flat(c=1.0)", "unknown parameter"),
    ("mcts(time=0)", "at least"),
])
def test_bad_parameters_are_refused(spec, message):
    with pytest.raises(ValueError, match=message):
        parse(spec)


def test_specs_round_trip():
    for spec in ("uct", "uct(iterations=3800, c=0.5, seed=1)", "uct(time=0.5, playout='greedy', solver=True)",
                 "mcts(iterations=100, reuse=True)", "flat(iterations=50)"):
        agent = parse(spec)
        assert parse(str(agent)) == agent
    assert str(parse("uct(c=0.7071067811865476)")) == "uct"


def test_plain_uct_stays_under_100_bytes_per_node():
    assert node_bytes(SearchConfig()) <= 100
    tree = SearchTree(Game(), SearchConfig(), seed_rng(1), capacity=10_001)
    tree.run(10_000)
    assert tree.nbytes <= node_bytes(SearchConfig()) * tree.capacity + 24  # + the unused RAVE and implicit arrays


def test_search_refuses_a_finished_game():
    finished = position([0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1], (23, 23), player=1).step(5)[0]
    with pytest.raises(ValueError, match="finished"):
        SearchTree(finished, SearchConfig(), seed_rng(0))
    with pytest.raises(ValueError, match="game is over"):
        parse("uct(iterations=10)").act(finished)
