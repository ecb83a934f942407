"""Playing in the terminal: what a ply did (awale.core.record), moves and rules typed by a player, game files, and
the real commands ``python -m awale play`` and ``replay`` driven by scripted input."""

import json
import os
import re
import signal
import subprocess
import sys

import pytest

from awale import Game, Rules
from awale.agents import parse
from awale.play.match import play as match
from awale.core.gamefile import load_game, save_game
from awale.core.render import board_text
from awale.core.rules import rules_from_text
from awale.play.session import DEFAULT_AGENT, estimate, parse_move
from awale.core.record import describe, ending, margin_text, replay
from awale.play.match import score_text
from conftest import awale

ANSI = re.compile(r"\x1b\[[0-9;]*m")


# --------------------------------------------------------------------------- what a ply did


def test_a_capture_names_its_pits():
    game = Game.from_position([1, 3, 1, 2, 1, 2], captures=(6, 8))  # B sows into C, a, b: b and a hold 2 and 3
    ply = describe(game, 1)
    assert (ply.label, ply.pit, ply.captured, ply.captured_pits, ply.grand_slam) == ("B", 1, 5, (3, 4), False)
    assert ply.game.pits == (1, 0, 2, 0, 0, 2) and ply.ending == ""


@pytest.mark.parametrize("variant, captured, grand", [("no-capture", 0, True), ("capture-all", 4, False)])
def test_a_grand_slam_is_told_apart(variant, captured, grand):
    rules = Rules(grand_slam=variant)
    game = Game.from_position([0, 0, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0], captures=(22, 22), rules=rules)
    ply = describe(game, 5)  # F sows into a and b, which then hold 2 each: every seed North has
    assert (ply.captured, ply.grand_slam) == (captured, grand)
    assert ply.captured_pits == ((6, 7) if captured else ())


def test_every_ply_of_seeded_games_agrees_with_the_rules():
    endings = set()
    for seed in range(40):
        record = match("greedy(eps=0.3)", "greedy(eps=0.3)", seed=seed)
        plies = replay(record.moves)
        game = Game()
        for ply in plies:
            after, captured, _ = game.step(ply.action)
            assert ply.game == after and ply.captured == captured and ply.player == game.current_player
            if captured and not after.game_finished:
                n = 6
                assert all(after.pits[p] == 0 for p in ply.captured_pits)
                assert all((1 - ply.player) * n <= p < (2 - ply.player) * n for p in ply.captured_pits)
            game = after
        assert plies[-1].game.captures == record.score and plies[-1].ending
        endings.add(plies[-1].ending)
        # A game ended by repetition goes on when the rules do not check repetitions, and only then.
        free = replay(record.moves, Rules(repetition=False, max_plies=10_000))[-1].game
        assert (plies[-1].ending == "repetition") == (not free.game_finished)
    assert {"repetition", "more than half the seeds"} <= endings


def test_the_ply_limit_ends_a_game():
    rules = Rules(max_plies=6)
    record = match("random", "random", rules=rules, seed=3)
    assert record.plies == 6 and replay(record.moves, rules)[-1].ending == "ply limit"
    assert ending(Game(rules), 2) == ""


def test_an_illegal_move_in_a_list_names_its_ply():
    with pytest.raises(ValueError, match="ply 2: action 9 is out of range"):
        replay([2, 9])


def test_margin_in_words():
    # South's E sows into F and a, which then holds 2: South captures 2 and has 25 of the 48 seeds.
    won = describe(Game.from_position([0, 0, 0, 0, 2, 0, 1, 3, 0, 0, 0, 0], captures=(23, 19)), 4).game
    assert margin_text(won) == "South wins by 6 seeds: South 25, North 19"
    drawn = Game(Rules(max_plies=1)).step(0)[0]
    assert drawn.game_finished and margin_text(drawn) == "a draw: South 0, North 0"


# --------------------------------------------------------------------------- what a player types


def test_moves_as_letters_or_numbers():
    game = Game()
    assert [parse_move(t, game) for t in ("A", "C", "3", " F ", "6")] == [0, 2, 2, 5, 5]
    north = game.step(2)[0]
    assert [parse_move(t, north) for t in ("a", "f", "1")] == [0, 5, 0]


@pytest.mark.parametrize(
    "text, message",
    [
        ("g", "'g' is not one of your pits: they are A-F (or 1-6)"),
        ("0", "pit numbers go from 1 to 6, got 0"),
        ("7", "pit numbers go from 1 to 6, got 7"),
        ("c4", "'c4' is not a move"),
        ("", "'' is not a move"),
        ("é", "'é' is not a move"),
    ],
)
def test_unreadable_moves_say_why(text, message):
    with pytest.raises(ValueError) as info:
        parse_move(text, Game())
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_illegal_moves_say_why_and_what_is_legal():
    game = Game().step(2)[0].step(0)[0]  # South's C is empty
    with pytest.raises(ValueError, match=r"^C cannot be played: South's pit C is empty; legal moves: A, B, D, E, F$"):
        parse_move("C", game)
    starving = Game.from_position([0, 0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0], captures=(20, 24))
    with pytest.raises(ValueError, match=r"^E cannot be played: North has no seeds .*feed rule.*; legal moves: F$"):
        parse_move("E", starving)


def test_rules_from_the_command_line():
    assert rules_from_text("abapa") == Rules() and rules_from_text("Simplified") == Rules.simplified()
    assert rules_from_text("pits_per_side=4, seeds_per_pit=3,feed=false") == Rules(4, 3, feed=False)
    assert rules_from_text("grand_slam=capture-all,max_plies=200") == Rules(grand_slam="capture-all", max_plies=200)
    assert rules_from_text('{"pits_per_side":5}') == Rules(pits_per_side=5)
    with pytest.raises(ValueError, match=r"unknown field\(s\) \['pits'\].*the fields are collect_remaining, feed"):
        rules_from_text("pits=4")
    with pytest.raises(ValueError, match="key=value pairs"):
        rules_from_text("pits_per_side 4")
    with pytest.raises(ValueError, match="pits_per_side must be between 2 and 6"):
        rules_from_text("pits_per_side=9")
    with pytest.raises(ValueError, match="given twice"):
        rules_from_text("feed=true, feed=false")
    with pytest.raises(ValueError, match="nothing given"):
        rules_from_text(" , ")


def test_estimates_of_searches():
    game = Game()
    uct = parse("uct(iterations=400, seed=2)")
    action = uct.act(game)
    assert re.fullmatch(r"expected score \d+% after [\d,]+ of 400 simulations", estimate(uct, game, action))
    assert estimate(uct, game.step(action)[0], 0) == ""  # its tree is of another position
    minimax = parse("minimax(depth=3)")
    words = r"(about ([+−]\d+ seeds?|even)|(wins|loses)( by \d+)? with best play)"
    assert re.fullmatch(words + r", searched 3 plies deep", estimate(minimax, game, minimax.act(game)))
    assert estimate(parse("greedy"), game, 0) == ""
    solver = parse("uct(iterations=3000, solver=True)")
    near_end = Game.from_position([0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0], captures=(22, 23))
    assert "proven" in estimate(solver, near_end, solver.act(near_end))


def test_the_board_marks_the_last_move_and_its_captures():
    game = Game.from_position([1, 3, 1, 2, 1, 2], captures=(6, 8))
    ply = describe(game, 1)
    text = board_text(ply.game, ply)
    lines = text.splitlines()
    assert lines[0].split() == ["c", "b", "a"] and lines[-1].split() == ["A", "B", "C"]
    assert "2 │  0×│  0×│  captured 8" in lines[2] and "0•│" in lines[4] and "captured 11" in lines[4]
    plain = board_text(ply.game, ply, boxes=False)
    assert plain.isascii() and "0*|" in plain and "0x|" in plain
    coloured = board_text(ply.game, ply, colour=True)
    assert "\x1b[" in coloured and ANSI.sub("", coloured) == text


# --------------------------------------------------------------------------- game files


def test_game_files_round_trip(tmp_path):
    record = match("greedy", "random", seed=4)
    path = tmp_path / "game.json"
    save_game(path, "human", record.north, record.rules, record.moves)
    data = json.loads(path.read_text())
    assert data["moves"] == "".join(map(str, record.moves)) and data["south"] == "human"
    loaded = load_game(path)
    assert loaded.moves == record.moves and loaded.rules == record.rules and loaded.north == "random"


@pytest.mark.parametrize(
    "content, message",
    [
        ("not json", "not a game file (not JSON)"),
        ('{"moves": "2"}', "not a game file"),
        ('{"format": "awale-game/1", "south": "a", "north": "b", "rules": {}, "moves": 25}', "'moves' must be a string"),
        ('{"format": "awale-game/1", "south": "a", "north": "b", "rules": {}, "moves": "2x"}', "string of digits"),
        ('{"format": "awale-game/1", "south": "a", "north": "b", "rules": {}, "moves": "222"}', "ply 3: action 2 is illegal"),
        ('{"format": "awale-game/1", "south": "a", "north": "b", "rules": {"pits": 3}, "moves": ""}', "unknown field"),
    ],
)
def test_bad_game_files_say_why(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=re.escape(message)):
        load_game(path)


# --------------------------------------------------------------------------- the real commands


def _boards(output):
    """The boards printed, each as its seven lines."""
    lines = output.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("      ┌")]
    return ["\n".join(lines[i - 1 : i + 6]) for i in starts]


def test_a_whole_game_through_the_command(tmp_path):
    """The player tries every pit in turn (the illegal ones are refused and asked again) against greedy."""
    script = "help\nhint\nundo\nbanana\n0\n" + "A\nB\nC\nD\nE\nF\n" * 300
    path = tmp_path / "game.json"
    result = awale("play", "greedy", "--save", str(path), stdin=script)
    assert result.returncode == 0 and result.stderr == ""
    out = result.stdout
    assert "\x1b[" not in out  # not a terminal: no colour
    assert "hint: " in out and "nothing to undo" in out and "'banana' is not a move" in out
    assert "Enter a move as a pit of yours" in out
    saved = load_game(path)
    assert saved.south == "human" and saved.north == "greedy"
    plies = replay(saved.moves, saved.rules)
    final = plies[-1].game
    assert final.game_finished
    # The human's moves are the first legal pit in the order tried; North's are greedy's own choices.
    greedy = parse("greedy")
    for ply in plies:
        before = Game() if ply.number == 1 else plies[ply.number - 2].game
        if ply.player == 1:
            assert ply.action == greedy.act(before)
    # Every position of the game is printed, in order, marked with the ply that made it.
    expected = [board_text(Game())] + [board_text(ply.game, ply) for ply in plies]
    assert _boards(out) == expected
    assert f"Game over ({plies[-1].ending}): {score_text(final.captures, final.winner)}." in out
    verdict = "a draw" if final.winner is None else "you win" if final.winner == 0 else "you lose"
    assert f"({verdict})" in out and f"saved to {path}" in out

    again = awale("replay", str(path))
    assert again.returncode == 0 and _boards(again.stdout) == expected
    assert f"Game over ({plies[-1].ending}): {score_text(final.captures, final.winner)}." in again.stdout


def test_north_undo_and_quit(tmp_path):
    path = tmp_path / "game.json"
    result = awale("play", "uct(iterations=300)", "--side", "north", "--seed", "5", "--save", str(path),
                   stdin="a\nundo\nb\nquit\n")
    assert result.returncode == 0
    out = result.stdout
    first = parse("uct(iterations=300, seed=5)").act(Game())
    assert f"ply 1: South played {'ABCDEF'[first]}." in out
    assert out.count("is thinking") == 3  # the first move, the reply to a, the reply to b
    assert "took back your last move and the reply to it" in out
    saved = load_game(path)
    assert saved.south == "uct(iterations=300, seed=5)" and saved.north == "human"
    assert saved.moves[1] == 1 and len(saved.moves) == 3  # b, then the agent's reply; a was taken back
    assert "stopped after 3 plies" in out


def test_end_of_input_stops_the_game(tmp_path):
    result = awale("play", "random", "--rules", "pits_per_side=3,seeds_per_pit=2", stdin="a\n")
    assert result.returncode == 0 and "stopped after" in result.stdout
    assert "         c    b    a" in result.stdout  # a board of three pits a side


def test_colour_on_a_terminal_unless_no_color(tmp_path):
    pty = pytest.importorskip("pty")

    def run(env):
        leader, follower = pty.openpty()
        environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        environment.update(env, TERM="xterm")
        process = subprocess.Popen([sys.executable, "-m", "awale", "play", "greedy"], stdin=subprocess.PIPE,
                                   stdout=follower, stderr=follower, env=environment)
        os.close(follower)
        process.stdin.write(b"C\nquit\n")
        process.stdin.close()
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=120)
        os.close(leader)
        return b"".join(chunks).decode("utf-8", errors="replace")

    coloured, plain = run({}), run({"NO_COLOR": "1"})
    assert "\x1b[1;33m" in coloured and "┌" in coloured
    assert "\x1b[" not in plain and "•" in plain


def test_colour_and_ascii_on_request():
    result = awale("play", "greedy", "--color", "always", stdin="C\nq\n")
    assert "\x1b[1;33m" in result.stdout
    ascii_only = awale("play", "greedy", stdin="C\nq\n", env={"PYTHONIOENCODING": "ascii"})
    assert ascii_only.returncode == 0 and ascii_only.stdout.isascii() and "+----+" in ascii_only.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["play", "nobody"], "unknown agent 'nobody'"),
        (["play", "--side", "east"], "invalid choice: 'east'"),
        (["play", "--rules", "pits=4"], "unknown field(s) ['pits']"),
        (["play", "--rules", "four pits"], "key=value pairs"),
        (["replay", "missing.json"], "No such file or directory: missing.json"),
    ],
)
def test_bad_arguments_are_one_line(tmp_path, args, message):
    result = awale(*args, cwd=tmp_path)
    assert result.returncode == 2 and message in result.stderr and len(result.stderr.splitlines()) == 1


def test_a_bad_game_file_is_one_line(tmp_path):
    (tmp_path / "bad.json").write_text('{"format": "awale-game/1", "south": "a", "north": "b", "rules": {}, "moves": "222"}')
    result = awale("replay", "bad.json", cwd=tmp_path)
    assert result.returncode == 2 and "ply 3: action 2 is illegal" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_the_default_opponent_is_the_timed_champion():
    agent = parse(DEFAULT_AGENT)
    assert agent.name == "champion" and agent.time is not None and agent.time <= 2


def test_the_default_opponent_plays_from_the_deepest_database_built_here(tmp_path, monkeypatch):
    from awale.knowledge import endgame_build as egb
    from awale.knowledge.endgame_cache import built_database_path
    from awale.play.terminal import default_opponent

    monkeypatch.setenv("AWALE_CACHE", str(tmp_path))
    small = Rules(pits_per_side=3, seeds_per_pit=2)
    assert default_opponent() == parse(DEFAULT_AGENT) and default_opponent(small) == parse(DEFAULT_AGENT)
    result = awale("play", stdin="quit\n", env={"AWALE_CACHE": str(tmp_path)})
    assert result.returncode == 0 and "against champion;" in result.stdout and f"settings: {DEFAULT_AGENT}" in " ".join(
        result.stdout.split())
    assert "no endgame database is built here" in result.stderr and "endgame='25'" in result.stderr
    # A whole database counts, the deeper first; a file left by a stopped build does not.
    rules = Rules(pits_per_side=2, seeds_per_pit=7)  # 28 seeds: databases of 15 and 25 build at once
    built_database_path(25, rules).write_bytes(b"not yet built")
    assert default_opponent(rules) == parse(DEFAULT_AGENT)
    egb.build(rules, 15).save(str(built_database_path(15, rules)))
    assert default_opponent(rules) == parse(DEFAULT_AGENT).replace(endgame="15")
    egb.build(rules, 25).save(str(built_database_path(25, rules)))
    assert default_opponent(rules) == parse(DEFAULT_AGENT).replace(endgame="25")
    assert default_opponent() == parse(DEFAULT_AGENT)  # the databases of other rules are other files


@pytest.mark.parametrize("command", ["play", "replay"])
def test_help(command):
    result = awale(command, "--help")
    assert result.returncode == 0 and result.stdout.startswith(f"usage: python -m awale {command}")
    assert "--color" in result.stdout


def test_ctrl_c_keeps_the_game(tmp_path):
    path = tmp_path / "game.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "awale", "play", "uct(time=30.0)", "--side", "north", "--save", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    for line in process.stdout:  # wait until the agent thinks
        if "is thinking" in line:
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130 and err.strip() == "python -m awale: interrupted"
    assert "stopped after 0 plies" in out and load_game(path).moves == ()
