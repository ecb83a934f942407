"""Tests of the αβ search (:mod:`awale.search.alphabeta`) and the ``minimax`` agent.

The search is checked against references written here, independently of it:

* the game-theoretic result (win, draw or loss) of small boards, from their
  initial position and from random ones, against a plain exhaustive negamax
  over OpenSpiel's ``oware``;
* exact values to the end of games capped by ``max_plies``, and depth-limited
  values on the standard board, against a plain minimax over :meth:`Game.step`.

Searches share a transposition table wherever an entry could wrongly answer
for another position (other histories, plies or depths).  Every random choice
is seeded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import List, Optional

import numpy as np
import pytest
import pyspiel

from awale import Game, Rules
from awale.agents import parse
from awale.agents.minimax import Minimax
from awale.search.alphabeta import MAX_DEPTH, WIN, AlphaBeta, action_values, result, solve


def sign(value: int) -> int:
    return (value > 0) - (value < 0)


# ------------------------------------------------------------------------------ references


def static_value(game: Game) -> int:
    """The leaf evaluation of the search, from the public API: for the player to move."""
    mover = game.current_player
    difference = game.captures[mover] - game.captures[1 - mover]
    if not game.game_finished:
        return difference
    if game.winner is None:
        return 0
    return WIN + abs(difference) if game.winner == mover else -WIN - abs(difference)


def plain_minimax(game: Game, depth: Optional[int]) -> int:
    """Negamax over :meth:`Game.step`, without pruning or table (``depth=None``: to the end)."""
    if game.game_finished or depth == 0:
        return static_value(game)
    deeper = None if depth is None else depth - 1
    return max(-plain_minimax(game.step(action)[0], deeper) for action in game.legal_actions)


def openspiel_state(n: int, s: int, actions: List[int]) -> "pyspiel.State":
    """OpenSpiel's oware (``n`` houses, ``s`` seeds each) after ``actions``."""
    state = pyspiel.load_game("oware", {"num_houses_per_player": n, "num_seeds_per_house": s}).new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


class TooBig(Exception):
    """The reference search met more positions than its budget."""


def openspiel_result(state: "pyspiel.State", player: int, budget: List[int]) -> int:
    """The result (1 win, 0 draw, -1 loss) of an OpenSpiel oware state for ``player``, to move.

    A plain negamax on ``returns()``; it stops looking at a node's moves once
    one wins, the best possible result.  ``budget[0]`` counts down the
    positions it may visit.
    """
    budget[0] -= 1
    if budget[0] < 0:
        raise TooBig
    if state.is_terminal():
        return sign(state.returns()[player])
    best = -1
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        best = max(best, -openspiel_result(child, 1 - player, budget))
        if best == 1:
            break
    return best


def random_game(rules: Rules, rng: np.random.Generator) -> List[int]:
    """The actions of a uniformly random game played to its end."""
    game, actions = Game(rules=rules), []
    while not game.game_finished:
        actions.append(int(rng.choice(game.legal_actions)))
        game = game.step(actions[-1])[0]
    return actions


def replay(rules: Rules, actions: List[int]) -> Game:
    game = Game(rules=rules)
    for action in actions:
        game = game.step(action)[0]
    return game


# ------------------------------------------------------------------------------ exact results

# Small boards ``(pits_per_side, seeds_per_pit)``.  OpenSpiel's plain search settles the initial
# position of the first two in well under a second, and of the others not in minutes.
OPENSPIEL_INITIAL = [(2, 1), (2, 2)]
RANDOM_POSITIONS = [(2, 2), (3, 2), (2, 3), (4, 1), (3, 1)]


@pytest.mark.parametrize("n, s", OPENSPIEL_INITIAL)
def test_initial_result_matches_openspiel(n, s):
    game = Game(rules=Rules(pits_per_side=n, seeds_per_pit=s))
    expected = openspiel_result(openspiel_state(n, s, []), 0, [100_000])
    assert sign(solve(game)) == result(game) == expected


# Random positions: one of the last plies of a random game, kept when OpenSpiel's plain search
# of it needs between MIN_TREE and OPENSPIEL_BUDGET positions (about 4 s in all).  On (4, 1) only
# the result is searched: measuring the margins (solve) takes minutes on some of these positions.
POSITIONS_PER_BOARD = 10
FROM_THE_END = 16
MIN_TREE, OPENSPIEL_BUDGET = 20, 3_000


@pytest.mark.parametrize("n, s", RANDOM_POSITIONS)
def test_random_positions_match_openspiel(n, s):
    rules = Rules(pits_per_side=n, seeds_per_pit=s)
    searcher = AlphaBeta(rules)  # one table for every position: their histories must keep them apart
    rng = np.random.default_rng(100 * n + s)
    seen = set()
    results = []
    for _ in range(300):
        line = random_game(rules, rng)
        actions = tuple(line[: len(line) - 1 - int(rng.integers(0, min(len(line), FROM_THE_END)))])
        if actions in seen:
            continue
        seen.add(actions)
        state = openspiel_state(n, s, list(actions))
        budget = [OPENSPIEL_BUDGET]
        try:
            expected = openspiel_result(state, state.current_player(), budget)
        except TooBig:
            continue
        if OPENSPIEL_BUDGET - budget[0] < MIN_TREE:
            continue
        game = replay(rules, list(actions))
        assert searcher.result(game) == expected, f"n={n} s={s} after {actions}"
        if (n, s) != (4, 1):
            assert sign(searcher.solve(game)) == expected, f"n={n} s={s} after {actions}"
        results.append(expected)
        if len(results) == POSITIONS_PER_BOARD:
            break
    assert len(results) == POSITIONS_PER_BOARD
    assert len(set(results)) > 1  # not all wins, say


# Positions whose result depends on how the search keeps the history (found by breaking that
# bookkeeping on purpose: rows lost across captures, or the set of positions hashed by XOR):
# the actions from the initial position.
HISTORY_SENSITIVE = [
    (3, 2, [1, 1, 2, 2, 1, 0, 0, 1, 0, 2]),
    (2, 4, [0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1]),
    (2, 4, [1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0]),
    (2, 4, [0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0]),
    (2, 4, [0, 0, 1, 1, 0, 0, 1, 0, 0, 0]),
    (2, 5, [1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0]),
    (2, 5, [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0]),
]


@pytest.mark.parametrize("n, s, actions", HISTORY_SENSITIVE)
def test_history_sensitive_positions_match_openspiel(n, s, actions):
    state = openspiel_state(n, s, actions)
    expected = openspiel_result(state, state.current_player(), [10_000])
    game = replay(Rules(pits_per_side=n, seeds_per_pit=s), actions)
    assert result(game) == sign(solve(game)) == expected


def test_transpositions_after_a_capture_share_entries():
    """Two move orders reach one position with different histories; after a capture they meet."""
    first, second = replay(Rules(), [0, 3, 1, 4, 3]), replay(Rules(), [0, 4, 1, 3, 3])
    assert first == second and first.step(0)[1] > 0
    shared, fresh = AlphaBeta(Rules()), AlphaBeta(Rules())
    shared.action_values(first, 5)
    assert shared.action_values(second, 5) == fresh.action_values(second, 5)
    assert shared.nodes < fresh.nodes / 2


def test_table_load_counts_the_slots_each_search_writes():
    searcher = AlphaBeta(Rules(), table_bits=12)
    assert searcher.table_load() == (0, 0, 4096)
    first = searcher.search(Game(), 5)
    load = searcher.table_load()
    assert 0 < load.current == load.used <= min(first.nodes, 4096)
    game = Game().step(2)[0].step(3)[0]
    second = searcher.search(game, 5)
    later = searcher.table_load()
    assert 0 < later.current <= min(second.nodes, 4096) and later.current < later.used <= 4096
    assert later.used <= load.used + later.current  # a slot is written again or newly
    searcher.clear()
    assert searcher.table_load() == (0, 0, 4096)
    agent = parse("champion(depth=3, book=False)")
    agent.reset()
    agent.act(Game())
    assert agent.alphabeta.searcher.table_load().current > 0 and agent.alphabeta.last_search.depth == 3


def test_the_table_size_is_a_parameter_whose_default_leaves_the_spec_alone():
    assert str(parse("champion(time=0.1, table=20)")) == "champion(time=0.1)"
    assert str(parse("minimax(depth=3, table=20)")) == "minimax(depth=3)"
    for spec in ("champion(depth=2, book=False, table=12)", "minimax(depth=2, table=12)"):
        agent = parse(spec)
        assert str(agent) == spec
        agent.reset()
        agent.act(Game())
        searcher = agent.alphabeta.searcher if hasattr(agent, "alphabeta") else agent.searcher
        assert searcher.table_load().size == 4096
    for spec in ("champion(table=9)", "minimax(table=31)", "champion(table=2.5)"):
        with pytest.raises(ValueError, match="table"):
            parse(spec)


@pytest.mark.parametrize("n, s, expected", [(2, 1, 1002), (2, 2, 1005), (3, 1, 0), (3, 2, 1008), (2, 3, 0)])
def test_initial_values_of_small_boards(n, s, expected):
    """The exact values found by the search (the signs of (2, 1) and (2, 2) are OpenSpiel's too)."""
    game = Game(rules=Rules(pits_per_side=n, seeds_per_pit=s))
    found = AlphaBeta(game.rules).search(game)
    assert found.value == expected
    assert found.exact and found.depth is None
    deepened = AlphaBeta(game.rules).search(game, time=60.0)  # iterative deepening, until exact
    assert deepened.exact and (deepened.value, deepened.best_actions) == (expected, found.best_actions)
    values = action_values(game)
    assert max(values.values()) == expected
    assert result(game) == sign(expected)
    assert found.best_actions == tuple(a for a, v in values.items() if v == expected)


#: Rules whose games end within ``max_plies``, so that the plain search reaches every end.
CAPPED = [
    Rules(pits_per_side=2, seeds_per_pit=2, max_plies=12),
    Rules(pits_per_side=3, seeds_per_pit=1, max_plies=9),
    Rules(pits_per_side=3, seeds_per_pit=2, max_plies=8),
    Rules(pits_per_side=2, seeds_per_pit=3, feed=False, grand_slam="capture-all",
          repetition=False, collect_remaining=False, max_plies=12),
    Rules(pits_per_side=3, seeds_per_pit=2, grand_slam="forbidden", max_plies=8),
]


@pytest.mark.parametrize("rules", CAPPED, ids=lambda r: f"n{r.pits_per_side}-s{r.seeds_per_pit}-{r.grand_slam}")
def test_exact_values_with_a_ply_cap(rules):
    """Values to the end (a draw at the cap scores 0 whatever the captures) equal the plain search's.

    Positions near the end of random games (without the cap) are searched
    as if reached at several ply counts, all with one table: the plies left
    change the values, so they must keep the entries apart.
    """
    uncapped = Rules(pits_per_side=rules.pits_per_side, seeds_per_pit=rules.seeds_per_pit)
    searcher = AlphaBeta(rules)
    rng = np.random.default_rng(rules.max_plies)
    changing = 0
    for _ in range(6):
        line = random_game(uncapped, rng)
        position = replay(uncapped, line[: len(line) - 1 - int(rng.integers(0, min(len(line), 6)))])
        found = set()
        for plies in range(0, rules.max_plies, 2):
            game = Game.from_position(position.pits, position.captures, position.current_player, rules, plies)
            values = searcher.action_values(game)
            assert values == {a: -plain_minimax(game.step(a)[0], None) for a in game.legal_actions}
            assert searcher.solve(game) == max(values.values())
            found.add(tuple(values.values()))
        changing += len(found) > 1
    assert changing >= 2  # positions whose values change with the plies left


# ------------------------------------------------------------------------------ depth-limited values


def standard_positions(count: int, seed: int) -> List[Game]:
    """Positions of random standard games, anywhere but at their end."""
    rng = np.random.default_rng(seed)
    lines = [random_game(Rules(), rng) for _ in range(count)]
    return [replay(Rules(), line[: int(rng.integers(0, len(line)))]) for line in lines]


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_depth_limited_values_equal_plain_minimax(depth):
    searcher = AlphaBeta(Rules())  # shared: the table must not change depth-limited values
    for game in standard_positions(12, seed=depth):
        searcher.search(game, depth + 2)  # deeper entries for the same positions must not answer
        expected = {a: -plain_minimax(game.step(a)[0], depth - 1) for a in game.legal_actions}
        assert searcher.action_values(game, depth) == expected, repr(game)
        found = searcher.search(game, depth)
        assert found.value == max(expected.values()) == solve(game, depth)
        assert found.best_actions == tuple(a for a, v in expected.items() if v == found.value)
        assert found.depth == depth or found.exact


# ------------------------------------------------------------------------------ hand-made positions

# South (22 captured) wins at once with pit 5: one seed into North's pit holding 2, taking 3 (25 > 24).
WINNING_CAPTURE = Game.from_position([1, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2], captures=(22, 20))

# South's pit 4 captures 2, but then North's pit 5 takes 4 seeds and wins (25 > 24).
POISONED_CAPTURE = Game.from_position([1, 1, 0, 0, 2, 0, 1, 0, 0, 0, 0, 2], captures=(20, 21))


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_immediate_winning_capture_is_taken(depth):
    game = WINNING_CAPTURE
    after, captured, finished = game.step(5)
    assert finished and after.winner == 0 and captured == 3
    assert Minimax(depth=depth).act(game) == 5
    assert action_values(game, depth)[5] == WIN + after.captures[0] - after.captures[1]


def test_a_capture_that_hands_over_a_winning_capture_is_avoided():
    game = POISONED_CAPTURE
    after, captured, _ = game.step(4)
    assert captured == 2
    assert any(after.step(a)[0].winner == 1 for a in after.legal_actions)  # North then wins at once
    assert max(action_values(game, 1), key=action_values(game, 1).get) == 4  # a 1-ply search falls for it
    for seed in range(5):
        assert Minimax(depth=2, seed=seed).act(game) != 4
    assert action_values(game, 2)[4] <= -WIN


# ------------------------------------------------------------------------------ the agent


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_agent_plays_legal_moves(n):
    rules = Rules(pits_per_side=n, seeds_per_pit=4)
    agents = [Minimax(depth=3, seed=n), Minimax(depth=2, seed=n + 1)]
    rng = np.random.default_rng(n)
    for _ in range(2):
        game = Game(rules=rules)
        while not game.game_finished and game.plies < 200:
            if rng.random() < 0.3:  # some random moves, for variety
                action = int(rng.choice(game.legal_actions))
            else:
                action = agents[game.current_player].act(game)
            assert action in game.legal_actions
            game = game.step(action)[0]


def test_agent_is_deterministic_for_a_seed():
    def play(agent: Minimax) -> List[int]:
        game, actions = Game(), []
        for _ in range(12):
            actions.append(agent.act(game))
            game = game.step(actions[-1])[0]
        return actions

    agent = Minimax(depth=3, seed=7)
    first = play(agent)
    assert play(Minimax(depth=3, seed=7)) == first
    agent.reset()
    assert play(agent) == first
    assert any(play(Minimax(depth=3, seed=seed)) != first for seed in range(8))


def test_agent_with_a_time_budget():
    agent = parse("minimax(time=0.2)")
    assert agent.depth is None and agent.time == 0.2
    game = Game()
    for _ in range(3):
        begun = time.perf_counter()
        action = agent.act(game)
        elapsed = time.perf_counter() - begun
        assert action in game.legal_actions
        assert elapsed < 0.2 + 0.5, elapsed  # generous: the machine may be busy
        assert agent.last_search.depth >= 4
        game = game.step(action)[0]
    capped = Minimax(depth=3, time=5.0)
    capped.act(Game())
    assert capped.last_search.depth == 3


def test_node_budget_deepens_while_the_nodes_last():
    game = Game().step(2)[0].step(3)[0]
    searcher = AlphaBeta(Rules())

    def to_depth(depth):
        searcher.clear()
        found = searcher.search(game, depth)
        return found.value, found.best_actions, found.nodes

    first = to_depth(1)
    reached = []
    for budget in (1, 50, 1_000, 20_000, 200_000):
        searcher.clear()
        found = searcher.search(game, nodes=budget)
        reached.append(found.depth)
        assert found.nodes <= max(budget, first[2])  # only the first iteration may overrun
        # the result is that of a completed iteration: the same as a search to that depth from an empty table
        assert (found.value, found.best_actions) == to_depth(found.depth)[:2]
    assert reached[0] == 1 and reached == sorted(reached) and reached[-1] > reached[2] > 1
    searcher.clear()
    assert searcher.search(game, nodes=10**7, depth=5).depth == 5  # depth caps a node budget


def test_node_budget_is_reproducible_and_in_the_spec():
    agent = parse("minimax(nodes=5000, evaluation=True, quiescence=4)")
    assert agent.depth is None and agent.nodes == 5000 and str(agent) == "minimax(nodes=5000, evaluation=True, quiescence=4)"
    assert str(parse("minimax(depth=6, nodes=5000)")) == "minimax(depth=6, nodes=5000)"

    def moves(spec: str) -> List[int]:
        player, game, actions = parse(spec), Game(), []
        player.reset()
        for _ in range(16):
            actions.append(player.act(game))
            game = game.step(actions[-1])[0]
        return actions

    first = moves("minimax(nodes=5000, seed=3)")
    assert moves("minimax(nodes=5000, seed=3)") == first
    champion = parse("champion(nodes=5000)")
    assert champion.time is None and str(champion) == "champion(nodes=5000)"
    assert moves("champion(nodes=5000, book=False)") == moves("champion(nodes=5000, book=False)")
    for bad in ("minimax(nodes=0)", "minimax(nodes=1.5)", "minimax(nodes=True)", "champion(nodes=10, time=1.0)",
                "champion(nodes=10, depth=3)", "champion(time=None)", f"minimax(nodes={10**12 + 1})"):
        with pytest.raises(ValueError):
            parse(bad)
    with pytest.raises(ValueError, match="nodes"):
        AlphaBeta(Rules()).search(Game(), nodes=0)


def test_agent_solves_small_boards_exactly():
    game = Game(rules=Rules(pits_per_side=3, seeds_per_pit=2))
    agent = parse("minimax(depth=None)")
    assert agent.act(game) == 2  # the only winning move (value 1008)
    assert agent.last_search.exact


def test_agent_specs():
    agent = parse("minimax(depth=6)")
    assert isinstance(agent, Minimax) and agent.depth == 6 and agent.time is None and agent.seed == 0
    assert parse("minimax").depth == 4
    for spec in ["minimax", "minimax(depth=6)", "minimax(time=0.5)", "minimax(depth=None)",
                 "minimax(depth=3, time=0.5, seed=2)", "minimax(depth=None, time=1.0, seed=1)"]:
        agent = parse(spec)
        assert parse(str(agent)) == agent
        assert str(parse(str(agent))) == str(agent)
    assert str(parse("minimax(time=0.5)")) == str(parse("minimax(depth=None, time=0.5)")) == "minimax(time=0.5)"
    assert str(parse("minimax(depth=None)")) == "minimax(depth=None)"  # to the end of the game: not the default


@pytest.mark.parametrize(
    "spec",
    ["minimax(depth=0)", "minimax(depth=-1)", "minimax(depth=1.5)", "minimax(depth=True)",
     f"minimax(depth={MAX_DEPTH + 1})", "minimax(time=-1)", "minimax(time=0)", "minimax(seed=-1)",
     "minimax(width=3)", "minimax(depth='4')"],
)
def test_agent_rejects_bad_parameters(spec):
    with pytest.raises(ValueError):
        parse(spec)


def test_bad_search_arguments():
    game = Game()
    finished = Game.from_position([0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0], captures=(22, 23)).step(5)[0]
    assert finished.game_finished
    for call in [
        lambda: solve(game, 0),
        lambda: solve(game, 1.5),
        lambda: solve(game, -2),
        lambda: solve("game"),
        lambda: solve(finished),
        lambda: action_values(game, MAX_DEPTH + 1),
        lambda: AlphaBeta(Rules()).search(game, 2, time=-1.0),
        lambda: AlphaBeta(Rules(pits_per_side=3)).solve(game, 2),
        lambda: AlphaBeta(Rules(seeds_per_pit=84)),  # 1008 seeds: scores would reach WIN
        lambda: Minimax().act(finished),
    ]:
        with pytest.raises(ValueError):
            call()


# ------------------------------------------------------------------------------ without numba

_SCRIPT = """
import json
from awale import Game, Rules
from awale.core._jit import COMPILED
from awale.search.alphabeta import action_values, result, solve
small = Game(rules=Rules(pits_per_side=2, seeds_per_pit=2))
middle = Game()
for action in [2, 5, 1, 0]:
    middle = middle.step(action)[0]
print(json.dumps([COMPILED, solve(small), action_values(small), result(small),
                  solve(Game(rules=Rules(pits_per_side=2, seeds_per_pit=1))),
                  solve(middle, 3), action_values(middle, 2)]))
"""


def _run(disable_jit: str) -> list:
    env = dict(os.environ, NUMBA_DISABLE_JIT=disable_jit)
    done = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_plain_python_kernels_agree_with_compiled_ones():
    compiled, *compiled_results = _run("0")
    plain, *plain_results = _run("1")
    assert (compiled, plain) == (True, False)
    assert plain_results == compiled_results
