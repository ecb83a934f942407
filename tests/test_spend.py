"""``spend``: a timed αβ search that spends its whole time, the iteration cut at the deadline counting.

The lower bounds on time are safe under load: the search is cut at a moment of the wall clock, so a slower machine
reaches fewer iterations, never an earlier end.  No upper bound is asserted here (the benchmarks measure them).
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from awale import Game
from awale.agents import parse
from awale.core._guard import stop_at
from awale.core.positions import sample_positions
from awale.search import alphabeta
from awale.search.alphabeta import AlphaBeta, Enhancements


def middle_games(count, seed=5):
    return sample_positions(36, count, np.random.default_rng(seed))


@pytest.mark.parametrize("options", [{}, {"pvs": True}, {"reductions": True, "quiescence": 1}])
def test_a_spending_search_takes_at_least_nine_tenths_of_its_time(options):
    searcher = AlphaBeta(Game().rules, enhancements=Enhancements(**options))
    for game in middle_games(4):
        found = searcher.search(game, time=0.04, spend=True)
        assert found.seconds >= 0.9 * 0.04, (game, found)
        assert not found.exact and set(found.best_actions) <= set(game.legal_actions)


def test_spend_needs_a_time():
    searcher = AlphaBeta(Game().rules)
    with pytest.raises(ValueError, match="spend needs a time"):
        searcher.search(Game(), depth=3, spend=True)
    for spec in ("minimax(depth=3, spend=True)", "champion(nodes=1000, spend=True)", "champion(depth=5, spend=True)"):
        with pytest.raises(ValueError, match="spend"):
            parse(spec)


def test_spend_is_a_parameter_whose_default_leaves_the_spec_alone():
    assert str(parse("champion(time=0.1, spend=False)")) == "champion(time=0.1)"
    assert str(parse("champion(time=0.1, spend=True)")) == "champion(time=0.1, spend=True)"
    assert str(parse("minimax(time=0.1, spend=True)")) == "minimax(time=0.1, spend=True)"


def test_a_solved_position_ends_the_spending_search_early():
    """Near the end the search reaches the end of the game everywhere: nothing left to spend the time on."""
    game = sample_positions(3, 1, np.random.default_rng(0))[0]
    found = AlphaBeta(game.rules).search(game, time=5.0, spend=True)
    assert found.exact and found.seconds < 5.0


U = alphabeta._UNSEARCHED


@pytest.mark.parametrize("values, low, expected", [
    ([U, U, U], -alphabeta._BIG, (5, (1,), 4, False)),  # nothing searched: the last iteration stands
    ([7, U, U], -alphabeta._BIG, (5, (1,), 4, False)),  # another searched, not the old best: it stands
    ([3, 2, U], -alphabeta._BIG, (3, (0,), 4, False)),  # the old best searched, another better: the better one
    ([1, 2, 2], -alphabeta._BIG, (2, (1, 2), 4, False)),  # ties among the searched are kept
    ([-9, -9, U], -8, (5, (1,), 4, False)),  # every value below the aspiration window: only bounds, it stands
])
def test_a_cut_iteration_decides_once_the_last_best_move_is_searched(values, low, expected):
    found = (5, (1,), 4, False)
    assert alphabeta._cut_iteration([0, 1, 2], np.array(values, dtype=np.int64), low, found) == expected


def test_stop_at_raises_the_flag_once_at_the_deadline_and_not_after_the_block():
    """The flag is a search's stop flag, lowered only when a search starts: written once, at the deadline."""
    array = np.zeros(2, dtype=np.int64)
    with stop_at(array, 1, 1, time.perf_counter() + 0.05):
        assert array[1] == 0  # not before the deadline
        deadline = time.monotonic() + 10
        while array[1] != 1 and time.monotonic() < deadline:
            time.sleep(0.001)
        assert array[1] == 1
        array[1] = 0  # once raised, not raised again
        time.sleep(0.02)
        assert array[1] == 0
    with stop_at(array, 1, 1, time.perf_counter() + 0.01):
        pass  # left before its deadline: nothing is written
    time.sleep(0.03)
    assert array[1] == 0 and array[0] == 0


def test_deadlines_of_several_threads_do_not_mix():
    arrays = [np.zeros(1, dtype=np.int64) for _ in range(3)]
    early = time.perf_counter() + 0.02

    def guard(k):
        with stop_at(arrays[k], 0, -(k + 1), early if k == 0 else early + 60):
            time.sleep(0.2)

    threads = [threading.Thread(target=guard, args=(k,)) for k in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [int(a[0]) for a in arrays] == [-1, 0, 0]

