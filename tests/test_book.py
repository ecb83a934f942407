"""Opening books: what they cover, that they hold the search's moves, and their file."""

import json

import pytest

from awale import Game, book
from awale.agents import parse
from awale.cli import main
from awale.rules import Rules

SMALL = Rules(pits_per_side=3, seeds_per_pit=3)


def _walk(built, owner, plies):
    """Positions the owner meets in the first plies when following the book against every reply."""
    seen, frontier = [], [Game(rules=built.rules)]
    for _ in range(plies):
        following = []
        for game in frontier:
            if game.current_player == owner:
                seen.append(game)
                actions = [built.action(game)]
            else:
                actions = game.legal_actions
            following += [g for g in (game.step(a)[0] for a in actions) if not g.game_finished]
        frontier = following
    return seen


def test_the_book_answers_every_position_its_owner_can_meet_with_the_search_move():
    built = book.build("minimax(depth=3)", 5, SMALL)
    for owner in (0, 1):
        met = _walk(built, owner, 5)
        assert met
        for game in met:
            assert built.action(game) == parse("minimax(depth=3)").act(game)


def test_size_of_a_book_on_the_full_board():
    built = book.build("greedy", 4, Rules())
    # Exactly the positions its owner can meet: South at plies 0 and 2 (1 + 6), North at 1 and 3 (6 + 36),
    # fewer where two lines transpose.
    met = {book.position_key(game) for owner in (0, 1) for game in _walk(built, owner, 4)}
    assert set(built.moves) == met
    assert 40 <= len(built) <= 1 + 6 + 6 + 36
    assert built.action(Game()) is not None
    assert built.action(Game(rules=SMALL)) is None  # other rules


def test_round_trip_and_damage(tmp_path):
    built = book.build("minimax(depth=2)", 4, SMALL)
    path = tmp_path / "book.json"
    built.save(path)
    again = book.load(path)
    assert again == built
    data = json.loads(path.read_text())
    key = next(iter(data["moves"]))
    data["moves"][key] = (data["moves"][key] + 1) % 3
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="sha256"):
        book.load(path)
    data["header"]["format"] = 99
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="format 99"):
        book.load(path)
    path.write_text("not json")
    with pytest.raises(ValueError, match="not an opening book"):
        book.load(path)
    path.write_text(json.dumps({"header": {}}))
    with pytest.raises(ValueError, match="bad header"):
        book.load(path)


@pytest.mark.parametrize("plies", [0, -1, book.MAX_PLIES + 1, 2.5, True])
def test_bad_depths_are_refused(plies):
    with pytest.raises(ValueError, match="plies"):
        book.build("greedy", plies)


def test_bad_spec_is_refused_before_any_search():
    with pytest.raises(ValueError):
        book.build("uct(iterations=-1)", 2)


def test_cli_builds_a_book(tmp_path, capsys):
    path = tmp_path / "b.json"
    assert main(["book", "build", "--agent", "greedy", "--plies", "2", "--out", str(path)]) == 0
    assert len(book.load(path)) == 1 + 6
    assert main(["book", "build", "--agent", "greedy", "--plies", "99", "--out", str(path)]) == 2
    assert "--plies must be at most" in capsys.readouterr().err
