"""αβ on several threads sharing one table (lazy SMP): the values of a plain search do not change, a torn table
entry is never read, helpers stop with the search, and agents that use threads do not claim to replay."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from awale import Game
from awale.agents import parse
from awale.core.control import SearchControl
from awale.core.positions import sample_positions
from awale.core.rules import Rules
from awale.experiments.verify import time_based
from awale.search.alphabeta import MAX_THREADS, AlphaBeta, Enhancements
from awale.search.table import entry_check

RULES = Game().rules


def helpers_alive() -> list:
    return [t for t in threading.enumerate() if t.name.startswith("awale-alphabeta-helper")]


def test_two_threads_find_the_values_and_best_actions_of_one_at_a_fixed_depth():
    one, two = AlphaBeta(RULES, table_bits=16), AlphaBeta(RULES, table_bits=16, threads=2)
    for depth, seeds in ((6, 40), (9, 30), (11, 20)):
        for game in sample_positions(seeds, 12, np.random.default_rng(depth)):
            one.clear()
            two.clear()
            alone, together = one.search(game, depth), two.search(game, depth)
            assert (together.value, set(together.best_actions)) == (alone.value, set(alone.best_actions)), game
    assert not helpers_alive()


@pytest.mark.parametrize("n, s", [(3, 2), (2, 3)])
def test_three_threads_solve_small_boards_exactly(n, s):
    rules = Rules(pits_per_side=n, seeds_per_pit=s)
    one, three = AlphaBeta(rules), AlphaBeta(rules, threads=3)
    for game in [Game(rules=rules), *sample_positions(n * s * 2, 10, np.random.default_rng(4), rules)]:
        assert three.solve(game) == one.solve(game), game
    assert not helpers_alive()


def test_the_helpers_search_and_share_the_table():
    searcher = AlphaBeta(RULES, threads=2, enhancements=Enhancements(reductions=True))
    found = searcher.search(Game(), depth=14)
    assert searcher.helper_nodes > 0 and found.nodes > 0
    assert set(found.best_actions) <= set(Game().legal_actions)


def test_an_entry_whose_check_does_not_match_is_not_read():
    """Entries whose fields no longer match their check (as when two threads write a slot at once) are ignored;
    the same entries with matching checks are read, and here change the values."""
    games = sample_positions(36, 8, np.random.default_rng(11))
    truth = [AlphaBeta(RULES, table_bits=16).search(game, 7).value for game in games]
    searcher = AlphaBeta(RULES, table_bits=16, threads=2)  # on several threads, entries carry checks
    read = 0
    for game, value in zip(games, truth):
        for recheck in (False, True):
            searcher.clear()
            searcher.search(game, 7)
            table = searcher._table  # the searcher's own table
            used = np.nonzero(table["key"])[0]
            table["value"][used] += 5  # every entry's value wrong
            if recheck:  # ... and its check made to match it again
                for slot in used:
                    entry = table[slot]  # a view of the slot: writing its check writes the table
                    entry["check"] = entry_check(*(int(entry[f]) for f in ("key", "value", "depth", "flags", "move")))
                read += searcher.search(game, 7).value != value
            else:
                assert searcher.search(game, 7).value == value, game
    assert read > 0  # the control: the wrong values, once their checks match, are used


def test_a_stopped_search_stops_its_helpers():
    searcher = AlphaBeta(RULES, threads=2)
    control = SearchControl()
    timer = threading.Timer(0.05, control.stop)
    timer.start()
    with control:
        found = searcher.search(Game(), depth=60)  # far beyond what 0.05 s reaches: only the stop ends it
    timer.join()
    assert set(found.best_actions) <= set(Game().legal_actions)
    assert not helpers_alive()


@pytest.mark.parametrize("threads", [0, MAX_THREADS + 1, 1.5, True])
def test_a_bad_number_of_threads_is_refused(threads):
    with pytest.raises(ValueError, match="threads must be an integer"):
        AlphaBeta(RULES, threads=threads)


def test_agents_on_several_threads_do_not_replay():
    for spec in ("champion(nodes=20000, threads=2)", "minimax(depth=6, threads=2)"):
        agent = parse(spec)
        assert not agent.replayable and time_based(spec)
        agent.reset()
        assert agent.act(Game()) in Game().legal_actions
    assert parse("champion(nodes=20000)").replayable and parse("minimax(depth=6)").replayable
    assert parse("champion(nodes=20000, threads=1)").spec == "champion(nodes=20000)"
