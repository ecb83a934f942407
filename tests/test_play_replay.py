"""The small ones of issue 63: `replay` one ply at a time or at one ply, quiet when its reader stops early, "1 ply",
scores written with their sides, and `match` naming both sides alike."""

from __future__ import annotations

import subprocess
import sys

from awale.core.gamefile import save_game
from awale.core.rules import Rules
from awale.play.match import score_text, shown_spec
from conftest import awale


def _game(tmp_path, moves=(2, 3, 1, 0)):
    path = tmp_path / "game.json"
    save_game(path, "human", "minimax(depth=2)", Rules(), list(moves))
    return path


def test_replay_steps_one_ply_at_a_time_and_q_stops(tmp_path):
    path = _game(tmp_path)
    done = awale("replay", str(path), "--step", "--color", "never", stdin="\n\nq\n")
    assert done.returncode == 0, done.stderr
    assert "[Enter: ply 1 of 4, q: stop]" in done.stdout and "[Enter: ply 3 of 4, q: stop]" in done.stdout
    assert "ply 2: North played" in done.stdout and "ply 3: " not in done.stdout


def test_replay_shows_one_ply(tmp_path):
    path = _game(tmp_path)
    done = awale("replay", str(path), "--ply", "1", "--color", "never")
    assert done.returncode == 0, done.stderr
    assert "ply 1: South played C." in done.stdout and done.stdout.rstrip().endswith("ply 1 of 4")
    assert "ply 2:" not in done.stdout
    wrong = awale("replay", str(path), "--ply", "9")
    assert wrong.returncode == 2 and "the game has 4 plies" in wrong.stderr


def test_replay_into_head_ends_quietly(tmp_path):
    from awale.play.match import play

    path = _game(tmp_path, moves=play("random", "random", seed=1).moves)
    command = f"{sys.executable} -m awale replay {path} --color never | head -n 3"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, timeout=120)
    assert done.stdout.count("\n") == 3 and done.stderr == "", done.stderr
    assert done.returncode == 0


def test_one_ply_is_singular(tmp_path):
    path = _game(tmp_path, moves=(2,))
    done = awale("replay", str(path), "--color", "never")
    assert "unfinished after 1 ply:" in done.stdout
    played = awale("play", "random", "--color", "never", stdin="C\nquit\n")
    assert "stopped after 2 plies" in played.stdout


def test_scores_carry_their_sides_winner_first():
    assert score_text((4, 29), 1) == "North wins by 25 seeds: North 29, South 4"
    assert score_text((26, 22), 0) == "South wins by 4 seeds: South 26, North 22"
    assert score_text((24, 24), None) == "a draw: South 24, North 24"
    assert score_text((25, 24), 0) == "South wins by 1 seed: South 25, North 24"


def test_match_names_both_sides_with_their_budgets():
    assert shown_spec("minimax") == "minimax(depth=4)" and shown_spec("uct(iterations=2000)") == "uct(iterations=2000)"
    done = awale("match", "minimax(depth=2)", "uct(iterations=100)", "--seed", "1")
    assert done.returncode == 0, done.stderr
    assert "South: minimax(depth=2)\nNorth: uct(iterations=100)" in done.stdout
    done = awale("match", "greedy", "minimax", "--seed", "1")
    assert "North: minimax(depth=4)" in done.stdout and " wins by " in done.stdout or "a draw: " in done.stdout


def test_play_shows_a_long_spec_on_a_line_of_its_own_cut_at_spaces():
    from awale.play.terminal import screen_lines

    spec = "champion(manage=True, clock_moves='database', quiescence=0, reductions=True, weights='texel')"
    lines = screen_lines(f"North's settings: {spec}", width=60).splitlines()
    assert all(len(line) <= 60 for line in lines) and " ".join(" ".join(lines).split()) == f"North's settings: {spec}"
    done = awale("play", spec, "--color", "never", stdin="help\nquit\n")
    first = done.stdout.splitlines()[0]
    assert first == "You play South against champion; South moves first. Type help for the commands."
    assert "what champion would play" in done.stdout.replace("\n", " ") or "the move champion would play" in done.stdout
