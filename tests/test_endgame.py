"""The endgame database: indexing, values against an independent solver and the exact searches, files, CLI."""

import subprocess
import sys

import numpy as np
import pytest

from awale import Game, Rules
from awale.knowledge import endgame as eg
from awale.knowledge import endgame_build as egb
from awale.offline import endgame_checks as checks
from awale.cli import main
from awale.search.alphabeta import AlphaBeta

SMALL = Rules(pits_per_side=3, seeds_per_pit=2)  # 12 seeds
TINY = Rules(pits_per_side=2, seeds_per_pit=3)  # 12 seeds


@pytest.fixture(scope="module")
def small():
    return egb.build(SMALL, 7)


def _moves(database, board):
    """(seeds taken, child board seen by the opponent) for each legal move of the mover of ``board``."""
    n = database.rules.pits_per_side
    state = np.zeros(2 * n + 5, dtype=np.int64)
    state[: 2 * n] = board
    state[2 * n + 4] = -1
    out = np.empty(n, dtype=np.int64)
    from awale.core.rules import legal_actions

    count = legal_actions(state, np.array(database.rules.params), out)
    result = []
    for action in out[:count]:
        child = np.empty(2 * n, dtype=np.int64)
        taken = eg.play_turned(np.array(board, dtype=np.int64), int(action), n, database.rules.params[3], child)
        result.append((int(taken), tuple(int(c) for c in child)))
    return result


def _attractor_values(database):
    """The values by the textbook definition: for each margin t, the positions that force it in finite play."""
    n = database.rules.pits_per_side
    value = {}
    for seeds in range(database.seeds + 1):
        layer = [database.board(i) for i in range(database._offsets[seeds], database._offsets[seeds + 1])]
        moves = {b: _moves(database, b) for b in layer}
        ending = {b: sum(b[:n]) - sum(b[n:]) for b in layer}
        for b in layer:
            value[b] = 0
        for t in range(1, seeds + 1):
            wins, losses = set(), set()
            changed = True
            while changed:
                changed = False
                for b in layer:
                    options = [
                        (taken - value[c]) if taken else (t if c in losses else -t if c in wins else 0)
                        for taken, c in moves[b]
                    ]
                    if not moves[b]:
                        options = [ending[b]]
                    if b not in wins and max(options) >= t:
                        wins.add(b)
                        changed = True
                    if b not in losses and max(options) <= -t:
                        losses.add(b)
                        changed = True
            for b in wins:
                value[b] = max(value[b], t) if value[b] >= 0 else value[b]
            for b in losses:
                value[b] = -t if value[b] <= 0 else value[b]
    return value


@pytest.mark.parametrize("rules, seeds", [(TINY, 8), (SMALL, 5)])
def test_values_equal_the_textbook_attractors(rules, seeds):
    database = egb.build(rules, seeds)
    expected = _attractor_values(database)
    got = {database.board(i): int(database.values[i]) for i in range(len(database))}
    assert got == expected


def test_the_index_is_a_bijection_and_turns_the_board(small):
    assert len(small) == eg.position_count(3, 7) == 1716
    for i in range(len(small)):
        assert small.index(small.board(i)) == i
    assert small.index((1, 0, 2, 0, 0, 3), player=1) == small.index((0, 0, 3, 1, 0, 2))


def test_every_value_obeys_the_recurrence_and_a_wrong_one_is_caught(small):
    assert small.recurrence_errors() == 0
    broken = eg.EndgameDatabase(small.rules, small.seeds)
    broken._values = np.array(small.values)
    broken._values[1000] += 2
    assert broken.recurrence_errors() >= 1


def test_lookups_from_a_game(small):
    game = Game.from_position((0, 2, 1, 1, 0, 0), (4, 4), 1, SMALL)
    value = small.value(game)
    actions = small.action_values(game)
    assert set(actions) == set(game.legal_actions) and max(actions.values()) == value
    assert all(actions[a] == value for a in small.best_actions(game))
    assert small.covers(game)
    with pytest.raises(ValueError, match="stops at 7"):
        small.value(Game(rules=SMALL))
    with pytest.raises(ValueError, match="is for"):
        small.value(Game.from_position((0, 2, 1, 1, 0, 1, 0, 0), (10, 9), 1, Rules(pits_per_side=4, seeds_per_pit=3)))


def test_comparisons_with_the_exact_search(small):
    searcher = AlphaBeta(SMALL)
    statuses = [checks.compare(small, i, searcher).status for i in checks.sample(small, 40, seed=3)]
    assert "unexplained" not in statuses and statuses.count("agree") > 10
    # A wrong value is caught: αβ does not confirm it and the replayed search does not either.
    index = next(i for i in checks.sample(small, 40, seed=3) if checks.compare(small, i, searcher).status == "agree")
    broken = eg.EndgameDatabase(small.rules, small.seeds)
    broken._values = np.array(small.values)
    broken._values[index] += 2
    assert checks.compare(broken, index, searcher).status == "unexplained"


def test_the_positions_drawn_for_the_analyses():
    """Greedy games stop at their first position of few seeds and two moves; random games give every such one."""
    from awale.core.positions import random_game_positions

    drawn = checks.greedy_positions(Rules(), 15, 6)
    assert len(drawn) == 6 and [g.pits for g in drawn] == [g.pits for g in checks.greedy_positions(Rules(), 15, 6)]
    assert all(sum(g.pits) <= 15 and len(g.legal_actions) > 1 and not g.game_finished for g in drawn)
    every = random_game_positions(15, 5, np.random.default_rng(7))
    assert every and all(sum(g.pits) <= 15 and not g.game_finished for g in every)
    assert [g.pits for g in every] == [g.pits for g in random_game_positions(15, 5, np.random.default_rng(7))]
    first = random_game_positions(15, 1, np.random.default_rng(7))
    assert [g.pits for g in first] == [g.pits for g in every[: len(first)]]  # one game's positions, then the next's
    assert all(b.plies > a.plies for a, b in zip(first, first[1:]))  # every ply of the game, in order


def test_a_repetition_explains_a_disagreement():
    database = egb.build(SMALL, 6)
    searcher = AlphaBeta(SMALL)
    statuses = {checks.compare(database, i, searcher).status for i in checks.sample(database, 60, seed=1, max_seeds=4)}
    assert "explained" in statuses and "unexplained" not in statuses


def test_the_captures_question_on_every_position_and_split(small):
    found = checks.captures_check(small)
    assert found["value"] == found["best"] == 0 and found["cases"] > 5000
    broken = eg.EndgameDatabase(small.rules, small.seeds)
    broken._values = np.array(small.values)
    broken._values[checks.sample(small, 1, seed=2)[0]] -= 3
    wrong = checks.captures_check(broken)
    assert wrong["value"] + wrong["best"] > 0


def test_a_file_round_trip_and_damaged_files(small, tmp_path):
    path = tmp_path / "small.db"
    small.save(str(path))
    loaded = eg.load(str(path))
    assert loaded._values is None  # lazy: nothing read yet
    assert loaded.rules == SMALL and loaded.seeds == 7 and loaded.verify_checksum()
    assert np.array_equal(loaded.values, small.values)
    (tmp_path / "short.db").write_bytes(path.read_bytes()[:-5])
    with pytest.raises(ValueError, match="truncated"):
        eg.load(str(tmp_path / "short.db"))
    (tmp_path / "text.db").write_text("hello")
    with pytest.raises(ValueError, match="not an awale endgame database"):
        eg.load(str(tmp_path / "text.db"))
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    (tmp_path / "flipped.db").write_bytes(bytes(data))
    assert not eg.load(str(tmp_path / "flipped.db")).verify_checksum()


def test_saves_to_one_path_at_once_leave_one_whole_file(small, tmp_path):
    """Workers that build the same cached database save it side by side: each writes its own temporary file."""
    import threading

    path, errors = tmp_path / "shared.db", []

    def save():
        try:
            small.save(str(path))
        except OSError as error:
            errors.append(error)

    savers = [threading.Thread(target=save) for _ in range(8)]
    for saver in savers:
        saver.start()
    for saver in savers:
        saver.join()
    assert errors == [] and [p.name for p in tmp_path.iterdir()] == ["shared.db"]
    assert eg.load(str(path)).verify_checksum() and path.stat().st_mode & 0o777 == 0o666 & ~eg.UMASK


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"rules": Rules(max_plies=100), "seeds": 3}, "max_plies"),
        ({"seeds": -1}, "seeds must be from 0"),
        ({"seeds": "5"}, "seeds must be an integer"),
        ({"seeds": 40, "memory": 10**6}, "above the cap"),
    ],
)
def test_bad_builds_are_value_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        egb.build(**kwargs)


def test_alphabeta_result_gives_up_within_its_node_budget():
    game = Game.from_position((0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1), (22, 22), 0, Rules())
    searcher = AlphaBeta(Rules())
    assert searcher.result(game, nodes=100) is None
    with pytest.raises(ValueError, match="nodes"):
        searcher.result(game, nodes=0)


def test_the_command_line(tmp_path, capsys):
    path = str(tmp_path / "e.db")
    assert main(["endgame", "build", "--seeds", "5", "--out", path, "--pits", "3", "--seeds-per-pit", "2"]) == 0
    assert main(["endgame", "check", path, "--sample", "20", "--max-seeds", "5", "--captures", "5"]) == 0
    out = capsys.readouterr().out
    assert "recurrence: 0 of 462 positions" in out and "0 wrong results" in out and "unexplained      0" in out
    database = eg.load(path)
    values = np.array(database.values)
    values[100] += 2
    with open(path, "r+b") as handle:
        handle.seek(database._offset)
        handle.write(values.tobytes())
    assert main(["endgame", "check", path, "--sample", "0"]) == 1
    assert main(["endgame", "build", "--seeds", "60", "--out", path]) == 2
    assert "seeds must be from 0 to 48" in capsys.readouterr().err
    for command in (["endgame"], ["endgame", "build"], ["endgame", "check"]):
        with pytest.raises(SystemExit) as info:
            main([*command, "--help"])
        assert info.value.code == 0


def test_the_command_line_as_a_program(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "awale", "endgame", "build", "--seeds", "x", "--out", str(tmp_path / "e.db")],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr and "--seeds must be an integer" in done.stderr


def test_agents_play_the_database_move_where_it_covers_the_game(small, tmp_path):
    from awale.agents import parse

    path = str(tmp_path / "small.db")
    small.save(path)
    game = Game.from_position((0, 2, 1, 1, 0, 0), (4, 4), 1, SMALL)
    for spec in (f"minimax(depth=1, endgame='{path}')", f"uct(iterations=10, seed=1, endgame='{path}')",
                 f"mcts(iterations=10, endgame='{path}')"):
        agent = parse(spec)
        assert str(parse(str(agent))) == str(agent) and "endgame" in str(agent)
        assert agent.act(game) == min(small.best_actions(game))
    assert "endgame" not in str(parse("uct(iterations=10)"))
    opening = Game(rules=SMALL)  # 12 seeds: beyond the database, the search plays
    assert parse(f"minimax(depth=2, endgame='{path}')").act(opening) == parse("minimax(depth=2)").act(opening)
    with pytest.raises(ValueError, match="not an awale endgame database"):
        (tmp_path / "bad.db").write_text("x")
        parse(f"minimax(depth=1, endgame='{tmp_path / 'bad.db'}')").act(game)


def test_an_interrupted_build_exits_130_and_writes_nothing(tmp_path):
    import signal
    import time

    out = tmp_path / "big.db"
    process = subprocess.Popen(
        [sys.executable, "-m", "awale", "endgame", "build", "--seeds", "18", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # A shell that runs the tests in the background ignores SIGINT, and its children inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 120
    while "layer 3" not in (line := process.stderr.readline()) and time.time() < deadline:
        assert line, "the build ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130 and "interrupted" in err and "Traceback" not in err
    assert not out.exists()
