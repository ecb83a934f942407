"""The endgame database inside the searches: αβ scores the positions it holds, MCTS ends its playouts there."""

import numpy as np
import pytest

from awale import Game, Rules
from awale.knowledge import endgame as eg
from awale.knowledge import endgame_build as egb
from awale.offline import endgame_checks as checks
from awale.agents import parse
from awale.core.positions import sample_positions
from awale.core.rules import seed_rng
from awale.search.alphabeta import WIN, AlphaBeta
from awale.search.mcts import SearchConfig, SearchTree

# With the seeds left on the board counting for nobody, a repetition scores like the database's equal split:
# the history-aware search and the database then solve the same game, and must agree exactly.
NOBODY = Rules(pits_per_side=3, seeds_per_pit=4, collect_remaining=False)
ABAPA_SMALL = Rules(pits_per_side=3, seeds_per_pit=4)
S = 8


@pytest.fixture(scope="module")
def nobody():
    return egb.build(NOBODY, S)


@pytest.fixture(scope="module")
def abapa_small():
    return egb.build(ABAPA_SMALL, S)


def _positions(rules, most, count, seed, least=1):
    """Seeded random games, each stopped at its first position with at most ``most`` seeds on the board."""
    return sample_positions(most, count, np.random.default_rng(seed), rules, least)


def _result(database, game, action):
    """The database's result (1, 0, -1) of ``action`` for the player to move, given the seeds captured."""
    lead = game.captures[game.current_player] - game.captures[1 - game.current_player]
    total = lead + database.action_values(game)[action]
    return (total > 0) - (total < 0)


def test_the_probe_is_the_captured_lead_plus_the_value(nobody):
    probe_tables = eg.probe_tables(nobody, NOBODY)
    for game in _positions(NOBODY, S, 40, seed=1):
        lead = game.captures[game.current_player] - game.captures[1 - game.current_player]
        assert eg.probe(game._state, 6, probe_tables) == lead + nobody.value(game)
    game = _positions(NOBODY, S + 2, 1, seed=2, least=S + 1)[0]
    assert eg.probe(game._state, 6, probe_tables) == eg.UNCOVERED  # too many seeds
    assert eg.probe(game._state, 6, eg.probe_tables(None, NOBODY)) == eg.UNCOVERED  # no database


def test_alphabeta_with_the_database_finds_the_exact_result(nobody):
    """Positions a few seeds above the database, searched to the end with and without it."""
    plain, probed = AlphaBeta(NOBODY), AlphaBeta(NOBODY, endgame=nobody)
    probes = 0
    for game in _positions(NOBODY, S + 3, 60, seed=3, least=S + 1):
        expected = plain.result(game)
        assert probed.result(game) == expected
        probes += probed.probes
        probed.clear()  # a full search, not answered by the table of the last one
        found = probed.search(game)
        assert found.exact and (found.value > 0) - (found.value < 0) == expected
        assert found.probes == probed.probes > 0
    assert probes > 0 and plain.probes == 0


def test_a_wrong_database_changes_the_search(nobody):
    """The search does read the table: negate every value and the results change."""
    wrong = eg.EndgameDatabase(NOBODY, S)
    wrong._values = -np.array(nobody.values)
    plain, probed = AlphaBeta(NOBODY), AlphaBeta(NOBODY, endgame=wrong)
    games = _positions(NOBODY, S + 3, 30, seed=3, least=S + 1)
    assert any(plain.result(g) != probed.result(g) for g in games)


def test_alphabeta_scores_a_probed_position_as_a_finished_game(nobody):
    """At depth 1 every child is probed: its score is the win, draw or loss the database gives."""
    searcher = AlphaBeta(NOBODY, endgame=nobody)
    for game in _positions(NOBODY, S, 30, seed=4):
        values = searcher.action_values(game, depth=1)
        for action, value in values.items():
            result = _result(nobody, game, action)
            assert (value > 0) - (value < 0) == result
            assert result == 0 or abs(value) > WIN
        assert searcher.probes == len(values) - sum(game.step(a)[0].game_finished for a in values)


def test_abapa_disagreements_come_from_repetitions_only(abapa_small):
    """Under the Abapa rules the probed search may differ from the exact one only by the repetition rule.

    Whenever the two disagree, the database's own game (repetitions split
    equally), searched move by move, must give the probed search's result.
    """
    plain, probed = AlphaBeta(ABAPA_SMALL), AlphaBeta(ABAPA_SMALL, endgame=abapa_small)
    agree = 0
    for game in _positions(ABAPA_SMALL, S, 60, seed=5):
        expected, found = plain.result(game), probed.result(game)
        agree += expected == found
        lead = game.captures[game.current_player] - game.captures[1 - game.current_player]
        board = np.roll(game.pits, -3 * game.current_player)
        replayed = checks._search_value(abapa_small, board, False, 10**6)
        assert found == (lead + replayed > 0) - (lead + replayed < 0)
    assert agree >= 50


def test_uct_plays_a_winning_move_where_the_database_says_the_mover_wins(nobody):
    """Below the database every expansion is rewarded exactly: UCT's most visited move wins."""
    won = 0
    for game in _positions(NOBODY, S, 80, seed=6):
        results = {a: _result(nobody, game, a) for a in game.legal_actions}
        if max(results.values()) <= 0 or min(results.values()) > 0:
            continue
        won += 1
        tree = SearchTree(game, SearchConfig(), seed_rng(7), capacity=2001, endgame=nobody)
        tree.run(2000)
        assert results[tree.best_action()] == 1
        solved = SearchTree(game, SearchConfig(solver=True), seed_rng(7), capacity=2001, endgame=nobody)
        solved.run(2000)
        assert solved.proven_root == "win" and results[solved.best_action()] == 1
        assert solved.iterations <= len(game.legal_actions)  # every child proven on expansion
    assert won >= 10


def test_the_solver_with_the_database_proves_the_exact_result(nobody):
    """Above the database, a root the solver proves has αβ's exact result."""
    exact = AlphaBeta(NOBODY)
    proven = 0
    for game in _positions(NOBODY, S + 3, 40, seed=8, least=S + 1):
        tree = SearchTree(game, SearchConfig(solver=True), seed_rng(9), capacity=20001, endgame=nobody)
        tree.run(20000)
        if tree.proven_root:
            proven += 1
            assert {"win": 1, "draw": 0, "loss": -1}[tree.proven_root] == exact.result(game)
    assert proven >= 20


def test_the_playouts_stop_at_the_database(nobody):
    """A new node the database holds is rewarded with its exact result, not by a random playout."""
    checked = 0
    for game in _positions(NOBODY, S, 20, seed=10):
        moves = len(game.legal_actions)
        tree = SearchTree(game, SearchConfig(), seed_rng(11), capacity=moves + 1, endgame=nobody)
        tree.run(moves)  # one iteration per root move: each expands one child and scores it
        for child in tree.children():
            assert child.visits == 1
            assert child.mean == {1: 1.0, 0: 0.5, -1: 0.0}[_result(nobody, game, child.action)]
            checked += 1
    assert checked >= 40


def test_the_table_is_shared_and_loaded_lazily(nobody, tmp_path):
    path = str(tmp_path / "small.db")
    nobody.save(path)
    database = eg.load(path)
    assert database._values is None  # the header only
    searcher = AlphaBeta(NOBODY, endgame=database)
    tree = SearchTree(Game(rules=NOBODY), SearchConfig(), seed_rng(1), endgame=database)
    assert np.shares_memory(searcher._endgame[1], database.values)
    assert np.shares_memory(tree._endgame[1], database.values)
    assert not searcher._endgame[1].flags.writeable


def test_bad_databases_are_value_errors(nobody):
    with pytest.raises(ValueError, match="the endgame database is for"):
        AlphaBeta(ABAPA_SMALL, endgame=nobody)
    with pytest.raises(ValueError, match="the endgame database is for"):
        SearchTree(Game(rules=ABAPA_SMALL), SearchConfig(), seed_rng(1), endgame=nobody)
    with pytest.raises(ValueError, match="endgame must be an awale.knowledge.endgame.EndgameDatabase"):
        AlphaBeta(NOBODY, endgame="endgame15.db")


def test_agents_search_with_the_database(nobody, tmp_path):
    """An agent given the file probes it below the root, and plays as before without it."""
    path = str(tmp_path / "small.db")
    nobody.save(path)
    game = _positions(NOBODY, S + 3, 1, seed=12, least=S + 2)[0]
    agent = parse(f"minimax(depth=6, endgame='{path}')")
    agent.act(game)
    assert agent.last_search.probes > 0
    plain = parse("minimax(depth=6)")
    plain.act(game)
    assert plain.last_search.probes == 0
    uct = parse(f"uct(iterations=500, solver=True, endgame='{path}', seed=1)")
    uct.act(game)
    assert uct.tree.endgame is not None and uct.tree.endgame.path == path


def test_a_number_of_seeds_builds_the_database_once_and_caches_it(nobody, tmp_path, monkeypatch):
    """``endgame='8'`` plays as the file of the same database does, built on first use and then reused."""
    from awale.knowledge.endgame_cache import built_database_path

    monkeypatch.setenv("AWALE_CACHE", str(tmp_path / "cache"))
    path = built_database_path(S, NOBODY)
    assert not path.exists() and path.parent == tmp_path / "cache"
    game = _positions(NOBODY, S + 3, 1, seed=12, least=S + 2)[0]
    built = parse(f"minimax(depth=6, endgame='{S}')")
    action = built.act(game)
    assert path.exists() and eg.load(str(path)).checksum == nobody.checksum
    stamp = path.stat().st_mtime_ns
    nobody.save(str(tmp_path / "small.db"))
    by_file = parse(f"minimax(depth=6, endgame='{tmp_path / 'small.db'}')")
    assert by_file.act(game) == action and by_file.last_search.probes == built.last_search.probes > 0
    parse(f"uct(iterations=200, solver=True, endgame='{S}')").act(game)
    assert path.stat().st_mtime_ns == stamp  # found in the cache, not built again
    assert built_database_path(S, ABAPA_SMALL) != path  # other rules, another file


@pytest.mark.parametrize("seeds, message, memory, disk", [
    ("49", r"endgame='49': seeds must be from 0 to 48", None, None),
    ("40", r"endgame='40': a database of 40 seeds needs about .* MiB, above the cap", None, None),
    ("25", r"endgame='25': a database of 25 seeds needs 3.60 GB of memory to build, 0.50 GB are available$",
     5 * 10**8, None),
    ("28", r"endgame='28': a database of 28 seeds needs 5.59 GB of disk, .* has 1.00 GB free$", None, 10**9),
])
def test_too_many_seeds_to_build_are_refused_in_one_line(seeds, message, memory, disk, tmp_path, monkeypatch):
    import collections

    from awale.knowledge import endgame_cache as cache

    monkeypatch.setenv("AWALE_CACHE", str(tmp_path))
    if memory is not None:
        monkeypatch.setattr(cache, "_available_memory", lambda: memory)
    if disk is not None:
        usage = collections.namedtuple("usage", "total used free")
        monkeypatch.setattr(cache.shutil, "disk_usage", lambda path: usage(10 * disk, 9 * disk, disk))
    with pytest.raises(ValueError, match=message):
        parse(f"minimax(depth=2, endgame='{seeds}')").act(Game())
    assert [p for p in tmp_path.iterdir() if not p.name.endswith(".lock")] == []


def test_the_plan_of_a_build_says_its_time_and_disk(tmp_path, monkeypatch):
    from awale.knowledge.endgame_cache import build_plan

    monkeypatch.setenv("AWALE_CACHE", str(tmp_path))
    plan = build_plan(20, Rules())
    assert plan.startswith("225,792,840 positions, 0.226 GB of disk and 0.51 GB of memory, about ") and "min" in plan


@pytest.mark.parametrize("value, message", [
    ("", "endgame must be a database file or a number of seeds"),
    ("015", "without leading zeros"),
    ("121", "a database holds at most 120 seeds"),
    ("9" * 500, "a database holds at most 120 seeds"),
])
def test_bad_endgame_values_are_refused_when_the_agent_is_made(value, message):
    for name in ("minimax", "uct", "mcts", "champion"):
        with pytest.raises(ValueError, match=message):
            parse(f"{name}(endgame='{value}')")


@pytest.mark.parametrize("value", ["abc", "-1", " 15", "\u00b2", "./15"])
def test_a_value_that_is_not_seeds_is_a_file_that_must_exist(value, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    agent = parse(f"minimax(depth=2, endgame={value!r})")
    with pytest.raises(ValueError, match="no such database file \\(nor a number of seeds\\)"):
        agent.act(Game())


def test_a_damaged_cached_database_is_built_again(nobody, tmp_path, monkeypatch, capsys):
    from awale.knowledge.endgame_cache import built_database_path, endgame_database

    monkeypatch.setenv("AWALE_CACHE", str(tmp_path))
    path = built_database_path(S, NOBODY)
    path.write_bytes(b"half a database")
    database = endgame_database(str(S), NOBODY)
    assert database.checksum == nobody.checksum and database.verify_checksum()
    assert "rebuilding the cached endgame database" in capsys.readouterr().err


def test_no_database_is_built_under_a_ply_cap(tmp_path, monkeypatch):
    monkeypatch.setenv("AWALE_CACHE", str(tmp_path))
    capped = Rules(pits_per_side=3, seeds_per_pit=4, max_plies=100)
    agent = parse("minimax(depth=4, endgame='6')")
    agent.act(Game(rules=capped))
    assert agent.last_search.probes == 0 and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("spec", ["minimax(depth=3, endgame='{path}')", "uct(iterations=200, endgame='{path}')",
                                  "champion(depth=3, book=False, endgame='{path}')"])
def test_an_agent_finds_its_database_once_per_reset(nobody, tmp_path, monkeypatch, spec):
    """The ``endgame`` option is resolved at the first move after a reset, not looked up at every move."""
    from awale.agents import endgame as option
    from awale.play.match import play

    path = tmp_path / "small.db"
    nobody.save(str(path))
    found = []
    original = option.endgame_database
    monkeypatch.setattr(option, "endgame_database", lambda *args: found.append(args) or original(*args))
    agent = parse(spec.format(path=path))
    game = Game(rules=NOBODY)
    for _ in range(6):
        game = game.step(agent.act(game))[0]
        if game.game_finished:
            break
    assert len(found) == 1
    agent.reset()
    agent.act(Game(rules=NOBODY))
    assert len(found) == 2
    found.clear()
    record = play(spec.format(path=path), "random", rules=NOBODY, seed=3)
    assert record.plies > 10 and len(found) == 1  # one agent, one look-up, for the whole game
