"""The engine of the page "Play in the browser" (docs/_static/awale-engine.js, awale-agents.js) under node.

The page plays Awale with its own JavaScript; these tests hold it to the library's rules without a browser
(``make check-site`` does the same on 10,000 games inside the built page in Chromium, and plays the page):
seeded random games compared ply by ply with ``awale.core.record.describe``, αβ values compared with the library's
``minimax``, the game file compared byte for byte with ``awale.core.gamefile.save_game``, and malformed game files
refused with a message.  A deliberately broken copy of the engine must fail the same comparison.  They need
node (``apt-get install -y nodejs``; .ci/run installs it when it is missing).
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from awale import Game, Rules
from awale.experiments.stats import compare as compare_agents
from awale.core.gamefile import load_game, save_game

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import check_play  # noqa: E402 - tools/ is not a package
import play_online  # noqa: E402 - docs/_ext is not a package

NODE = shutil.which("node")


@pytest.fixture(scope="module")
def node() -> str:
    if NODE is None:
        pytest.fail("the page's engine is tested under node: apt-get install -y nodejs")
    return NODE


def _run(node: str, script: str, stdin: str = "") -> str:
    done = subprocess.run([node, "-e", script], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_random_games_and_alphabeta_values_are_the_librarys(node):
    report = check_play.check_node(games=2_000, positions=300)
    assert report.problems == []
    assert report.games == 2_000 and report.positions == 300
    assert report.plies > 100_000
    # Every way a game can end came up, grand slams and refused starting positions too.
    assert set(report.endings) == {"more than half the seeds", "half the seeds each", "repetition", "no legal move",
                                   "ply limit"}
    assert report.refused > 0 and report.slams > 0


def test_a_broken_engine_fails_the_comparison(node, tmp_path):
    """A grand slam that captures under Abapa rules: the comparison must see it."""
    (tmp_path / "docs" / "_static").mkdir(parents=True)
    (tmp_path / "tools").mkdir()
    engine = (ROOT / "docs" / "_static" / "awale-engine.js").read_text(encoding="utf-8")
    broken = engine.replace("if (taken === 0 || (grand && slam !== 2)) return 0;", "if (taken === 0) return 0;")
    assert broken != engine
    (tmp_path / "docs" / "_static" / "awale-engine.js").write_text(broken, encoding="utf-8")
    shutil.copy(ROOT / "docs" / "_static" / "awale-agents.js", tmp_path / "docs" / "_static")
    shutil.copy(check_play.TRACE, tmp_path / "tools")
    games = check_play.node_traces(0, 300, 0, node, trace=tmp_path / "tools" / check_play.TRACE.name)
    report = check_play.compare(games)
    assert report.problems and "ply" in report.problems[0]


def test_the_game_file_is_save_games_byte_for_byte(node, tmp_path):
    rng = np.random.default_rng(3)
    for rules in (Rules(), Rules.simplified(pits_per_side=4, seeds_per_pit=3), Rules(max_plies=30)):
        game, moves = Game(rules), []
        while not game.game_finished and len(moves) < 300:
            action = int(game.legal_actions[rng.integers(len(game.legal_actions))])
            game, _, _ = game.step(action)
            moves.append(action)
        path = tmp_path / "game.json"
        save_game(path, "human", "browser-greedy", rules, moves)
        fields = json.loads(path.read_text(encoding="utf-8"))["rules"]
        script = (
            "const E = require('./docs/_static/awale-engine.js');"
            f"const rules = E.makeRules({json.dumps(fields)});"
            f"process.stdout.write(E.gameFile('human', 'browser-greedy', rules, {json.dumps(moves)}));"
        )
        text = _run(node, script)
        assert text == path.read_text(encoding="utf-8")
        # And the page reads the library's file back: the same moves, the same final position.
        read = json.loads(_run(node, (
            "const E = require('./docs/_static/awale-engine.js');"
            "const r = E.readGameFile(require('fs').readFileSync(0, 'utf8'));"
            "const last = r.plies[r.plies.length - 1].game;"
            "process.stdout.write(JSON.stringify({moves: r.moves, pits: last.pits, captures: last.captures}));"
        ), stdin=text))
        assert read == {"moves": moves, "pits": list(game.pits), "captures": list(game.captures)}
        assert load_game(path).moves == tuple(moves)


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("this is not a game", "not JSON"),
    ("[1, 2]", "not a game file"),
    ('{"format": "awale-game/1", "south": "a", "north": 3, "rules": {}, "moves": ""}', "'north' must be a string"),
    ('{"format": "awale-game/1", "south": "a", "north": "b", "rules": [], "moves": ""}', "'rules' must be an object"),
    ('{"format": "awale-game/1", "south": "a", "north": "b", "rules": {"pits": 6}, "moves": ""}', "unknown field"),
    ('{"format": "awale-game/1", "south": "a", "north": "b", "rules": {"pits_per_side": 1}, "moves": ""}',
     "between 2 and 6"),
    ('{"format": "awale-game/1", "south": "a", "north": "b", "rules": {"repetition": false}, "moves": ""}',
     "max_plies"),
    ('{"format": "awale-game/1", "south": "a", "north": "b", "rules": {}, "moves": "0x"}', "digits"),
    ('{"format": "awale-game/1", "south": "a", "north": "b", "rules": {}, "moves": "000"}',
     "ply 3: action 0 is illegal: South's pit A is empty"),
    ('{"format": "awale-game/1", "south": "a", "north": "b", "rules": {}, "moves": "9"}', "ply 1: action 9 is out"),
])
def test_a_malformed_game_file_is_refused_with_a_message(node, text, message):
    script = (
        "const E = require('./docs/_static/awale-engine.js');"
        "try { E.readGameFile(require('fs').readFileSync(0, 'utf8')); process.stdout.write('read'); }"
        "catch (error) { process.stdout.write('refused: ' + error.message); }"
    )
    out = _run(node, script, stdin=text)
    assert out.startswith("refused: ") and message in out, out


def test_every_opponent_plays_a_legal_move_and_says_what_it_thought(node):
    script = """
    const E = require('./docs/_static/awale-engine.js'), A = require('./docs/_static/awale-agents.js');
    let game = E.replay([2, 3, 1, 4], E.ABAPA).pop().game;
    const out = [];
    for (const o of A.OPPONENTS) {
      const t = o.make(1).think(game);
      out.push({spec: o.spec, action: t.action, legal: game.legal,
                values: t.values ? Object.fromEntries(t.values) : null,
                visits: t.stats ? [...t.stats.values()].reduce((a, s) => a + s.visits, 0) : null});
    }
    process.stdout.write(JSON.stringify(out));
    """
    thoughts = json.loads(_run(node, script))
    assert [t["spec"] for t in thoughts][-1] == "browser-minimax(nodes=500000)"
    game = Game()
    for action in (2, 3, 1, 4):
        game, _, _ = game.step(action)
    for thought in thoughts:
        assert thought["action"] in game.legal_actions, thought
        if thought["values"] is not None:  # αβ: a value for every legal move, the move played among the best
            values = {int(a): v for a, v in thought["values"].items()}
            assert sorted(values) == game.legal_actions
            assert values[thought["action"]] == max(values.values())
        if thought["visits"] is not None:  # UCT: every playout went through one of the root's children
            budget = int(thought["spec"].split("=")[1].rstrip(")"))
            assert thought["visits"] == budget


def test_the_strength_table_counts_the_games_and_their_interval(tmp_path):
    path = tmp_path / "strength.csv"
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["browser", "opponent", "game", "browser_side", "opening", "moves", "plies", "south_captures",
                         "north_captures", "browser_score", "browser_seconds_mean", "browser_seconds_max",
                         "opponent_seconds_mean", "opponent_seconds_max"])
        # Three games: a win as South (6 plies: 2 opening, then 2 moves each), a draw as North, a loss as South.
        writer.writerow(["b", "o", 0, "South", "00", "001122", 6, 30, 10, 1.0, 0.5, 0.9, 0.1, 0.2])
        writer.writerow(["b", "o", 1, "North", "00", "0011223", 7, 24, 24, 0.5, 0.3, 0.4, 0.1, 0.3])
        writer.writerow(["b", "o", 2, "South", "00", "00112", 5, 10, 30, 0.0, 0.2, 0.2, 0.1, 0.1])
    [row] = play_online.strength_rows(path)
    expected = compare_agents(1, 1, 1)
    assert (row["games"], row["wins"], row["draws"], row["losses"]) == (3, 1, 1, 1)
    assert (row["low"], row["high"]) == (pytest.approx(expected.low), pytest.approx(expected.high))
    # Means weighted by the moves each side chose: the page's agent 2 + 2 + 2 moves, the opponent 2 + 3 + 1.
    assert row["browser_mean"] == pytest.approx((0.5 * 2 + 0.3 * 2 + 0.2 * 2) / 6)
    assert row["opponent_mean"] == pytest.approx((0.1 * 2 + 0.1 * 3 + 0.1 * 1) / 6)
    assert (row["browser_max"], row["opponent_max"]) == (0.9, 0.3)


def test_the_committed_measurement_is_read_by_the_page():
    rows = play_online.strength_rows(ROOT / play_online.DEFAULT_DATA)
    opponents = {row["opponent"] for row in rows}
    assert {"minimax(depth=8)"} <= opponents
    assert all(row["games"] >= 20 for row in rows)


def test_every_measured_game_is_a_legal_finished_game_with_its_result():
    from awale.experiments.store import decode_moves
    from awale.core.record import replay

    with open(ROOT / play_online.DEFAULT_DATA, newline="", encoding="utf-8") as file:
        games = list(csv.DictReader(file))
    for game in games:
        moves = decode_moves(game["moves"])
        assert game["moves"].startswith(game["opening"]) and len(moves) == int(game["plies"])
        final = replay(moves)[-1].game
        assert final.game_finished
        assert final.captures == (int(game["south_captures"]), int(game["north_captures"]))
        side = 0 if game["browser_side"] == "South" else 1
        assert float(game["browser_score"]) == (0.5 if final.winner is None else float(final.winner == side))


def test_the_measurements_are_of_the_opponents_the_page_offers(node):
    """The timing covers every opponent of the menu and the strength its strongest: a change of the list (or of a
    budget) needs them measured again (node tools/play_speed.js, python tools/play_strength.py)."""
    specs = json.loads(_run(node, "process.stdout.write(JSON.stringify("
                                  "require('./docs/_static/awale-agents.js').OPPONENTS.map(o => o.spec)))"))
    with open(ROOT / play_online.SPEED_DATA, newline="", encoding="utf-8") as file:
        timed = list(csv.DictReader(file))
    assert [row["opponent"] for row in timed] == specs
    # Every opponent costs well under a second of processor time a move on the machine that measured it.
    assert all(float(row["cpu_seconds_max"]) < 1.0 for row in timed)
    rows = play_online.strength_rows(ROOT / play_online.DEFAULT_DATA)
    assert {row["browser"] for row in rows} == {specs[-1]}
