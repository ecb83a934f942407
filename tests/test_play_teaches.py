"""`play` that teaches (issue 44): hints rated in words for every opponent, letters that follow the board, a
game file checked before the game, a short name in the thinking line."""

from __future__ import annotations

import re

import pytest

from awale import Game
from awale.play.advice import in_words, rate
from awale.play.session import Session, parse_move
from awale.search.alphabeta import WIN
from conftest import awale

# What a rating may say: a forced result with its margin, or the lead in seeds the referee foresees.
WORDS = re.compile(r"(wins|loses)( by \d+)? with best play|about ([+−]\d+ seeds?|even)")
# What a hint says to the player: where the move leaves them, in plain words.
HINT = re.compile(r"with it, (you (win|lose)( by \d+)? with best play|you are about \d+ seeds? (ahead|behind)"
                  r"|the game is about even)|the only legal move")
# One spec of every agent family the command line offers, small enough for a test.
FAMILIES = [
    "random", "greedy(eps=0.1)", "minimax(depth=2)", "minimax(depth=3, evaluation=True)", "flat(iterations=200)",
    "mcts(iterations=200)", "uct(iterations=300)", "uct(iterations=300, solver=True)",
    "uct(iterations=300, evaluation=True, cutoff=4)", "champion(depth=2)", "champion(time=0.05)",
    "openspiel_mcts(iterations=200)", "openspiel_alphabeta(depth=2)",
    "clocked(agent='minimax(depth=2)', tc='60+0.5')", "opening(agent='greedy', moves='25')",
]


def _no_encoding(text: str) -> None:
    assert not re.search(r"\d{4}", text.replace(",", "")), f"an internal number reached the screen: {text!r}"
    assert "αβ value" not in text and "logit" not in text, text


def test_values_in_words():
    assert in_words(WIN + 29) == "wins by 29 with best play"
    assert in_words(-WIN - 3) == "loses by 3 with best play"
    assert in_words(3) == "about +3 seeds" and in_words(-1) == "about −1 seed" and in_words(0) == "about even"


def test_the_referee_rates_every_legal_move_the_same_way_each_time():
    first, second = rate(Game()), rate(Game())
    assert sorted(first.values) == list(range(6)) and first == second and first.depth >= 6


def test_a_won_endgame_is_a_win_in_words():
    game = Game.from_position([0, 0, 1, 0, 2, 0, 1, 0, 0, 2, 0, 0], (20, 22), 0)
    rating = rate(game)
    assert rating.exact and {rating.words(a) for a in rating.values} == {"loses by 6 with best play",
                                                                         "wins by 4 with best play"}


@pytest.mark.parametrize("spec", FAMILIES)
def test_hint_rates_in_words_for_every_agent_family(spec):
    session = Session(spec, side=0, seed=3)
    action, words = session.hint()
    assert action in session.game.legal_actions
    assert HINT.fullmatch(words), words
    session.play(action)
    ply, rating = session.reply()
    _no_encoding(rating)
    review = session.review()
    assert review.startswith(f"your last move, {'ABCDEF'[action]}"), review
    _no_encoding(review)
    _, words = session.hint()
    assert HINT.fullmatch(words), words


def test_letters_follow_the_board():
    game = Game()
    assert [parse_move(t, game) for t in ("A", "C", "3", " F ")] == [0, 2, 2, 5]
    with pytest.raises(ValueError, match="North's pit"):
        parse_move("a", game)
    north = game.step(2)[0]
    assert [parse_move(t, north) for t in ("a", "f", "1")] == [0, 5, 0]
    with pytest.raises(ValueError, match="South's pit"):
        parse_move("F", north)


def test_typing_the_opponents_pit_asks_again(tmp_path):
    done = awale("play", "random", "--color", "never", stdin="a\nC\nquit\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "North's pit" in done.stdout and "South played C" in done.stdout


def test_the_hint_and_the_thinking_line_read_as_words(tmp_path):
    done = awale("play", "minimax(depth=2)", "--color", "never", stdin="C\nhint\nquit\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    hint = next(line for line in done.stdout.splitlines() if "hint: " in line)
    assert HINT.search(hint) and "what minimax would play" in hint and "your last move, C" in done.stdout, done.stdout
    _no_encoding(done.stdout)
    assert "North (minimax) is thinking" in done.stdout


def test_save_checks_its_folder_before_the_game(tmp_path):
    done = awale("play", "random", "--save", str(tmp_path / "missing" / "g.json"), stdin="C\nquit\n", cwd=tmp_path)
    assert done.returncode == 2 and "missing" in done.stderr and "South to move" not in done.stdout
    done = awale("play", "random", "--save", str(tmp_path / "made" / "g.json"), "--mkdir", stdin="C\nquit\n",
                 cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "made" / "g.json").is_file()


def test_a_best_move_that_leaves_the_player_behind_says_the_position_was_already_worse():
    from awale.play import session as module

    class Rating:
        values = {0: -3, 1: -3, 2: -5}
        best = -3

    session = Session("random", side=0, seed=1)
    session.play(0)
    original = module.rate
    module.rate = lambda game: Rating()
    try:
        review = session.review()
    finally:
        module.rate = original
    assert review == ("your last move, A, was the best there: the position was already worse, and it kept you where "
                      "you were: you are about 3 seeds behind")


def test_the_standing_speaks_to_the_player():
    from awale.play.advice import standing

    assert standing(WIN + 29) == "you win by 29 with best play" and standing(-WIN - 4) == "you lose by 4 with best play"
    assert standing(3) == "you are about 3 seeds ahead" and standing(-1) == "you are about 1 seed behind"
    assert standing(0) == "the game is about even"
