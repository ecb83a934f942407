"""The champion: book first, then evaluated αβ; options and their errors."""

import pytest

from awale import Game
from awale.agents import parse
from awale.agents.champion import QUIESCENCE, _shipped_book, move_classifier
from awale.play.match import play
from conftest import ROOT


def test_the_shipped_book_answers_the_opening():
    book = _shipped_book()
    assert book.plies >= 4 and len(book) > 100
    assert "evaluation=True" in book.agent
    game = Game()
    assert parse("champion(depth=2)").act(game) == book.action(game)


def test_without_the_book_it_plays_the_evaluated_search():
    game = Game().step(2)[0].step(3)[0]
    for depth in (3, 6):
        for quiescence in (QUIESCENCE, 0, 2):
            given = "" if quiescence == QUIESCENCE else f", quiescence={quiescence}"
            ours = parse(f"champion(depth={depth}, book=False, seed=4{given})")
            search = parse(f"minimax(depth={depth}, evaluation=True, quiescence={quiescence}, seed=4)")
            assert ours.act(game) == search.act(game)
            assert ours._search.last_search.nodes == search.last_search.nodes  # the same search, node for node


def test_depth_games_are_reproducible():
    first = play(parse("champion(depth=4)"), parse("greedy(eps=0.3)"), seed=3)
    again = play(parse("champion(depth=4)"), parse("greedy(eps=0.3)"), seed=3)
    assert first.moves == again.moves and first.plies > 10


@pytest.mark.parametrize("spec, message", [
    ("champion(time=None)", "one of time, depth or nodes, got none"),
    ("champion(time=0.1, depth=3)", "got time and depth"),
    ("champion(depth=3, nodes=1000)", "got depth and nodes"),
    ("champion(nodes=0)", "at least 1"),
    ("champion(depth=0)", "at least 1"),
    ("champion(time=-1)", "at least"),
    ("champion(book=1)", "True or False"),
    ("champion(quiescence=-1)", "at least 0"),
])
def test_bad_options(spec, message):
    with pytest.raises(ValueError, match=message):
        parse(spec)


def test_specs():
    assert str(parse("champion")) == "champion"
    assert str(parse("champion(time=0.5)")) == "champion"
    # With a depth the time does not apply, and the canonical spec leaves it out; it parses back the same.
    for spec in ("champion(depth=8)", "champion(time=None, depth=8)"):
        assert str(parse(spec)) == "champion(depth=8)" and parse(str(parse(spec))) == parse(spec)
    assert str(parse("champion(depth=11, endgame='15', book=False)")) == "champion(depth=11, book=False, endgame='15')"
    # The default quiescence is left out, so every stored champion's spec means what it meant.
    assert str(parse(f"champion(nodes=35000, quiescence={QUIESCENCE})")) == "champion(nodes=35000)"
    assert str(parse("champion(nodes=35000, quiescence=0)")) == "champion(nodes=35000, quiescence=0)"


def test_the_book_parameter_keeps_its_old_meanings():
    from awale.agents.champion import opening_book

    assert str(parse("champion(book=True)")) == "champion"
    assert str(parse("champion(book=False)")) == "champion(book=False)"
    assert opening_book(True) is _shipped_book() and opening_book(False) is None
    game = Game().step(0)[0]
    assert parse("champion(depth=3, book=True)").act(game) == _shipped_book().action(game)
    unbooked = parse("champion(depth=3, book=False, seed=1)")
    assert unbooked.act(game) == parse("minimax(depth=3, evaluation=True, quiescence=4, seed=1)").act(game)


def test_a_grown_book_is_played_from_its_file_or_by_its_name(tmp_path, monkeypatch):
    from awale.offline import book_builder
    from awale.agents import champion

    grown = book_builder.grow(book_builder.Growth("minimax(depth=2)", batch=2), 9)
    path = tmp_path / "grown.json.gz"
    grown.save(path)
    spec = f"champion(depth=2, book={str(path)!r})"
    assert str(parse(spec)) == spec and parse(str(parse(spec))) == parse(spec)
    # In the positions the grown book holds, its move is played, where the shipped book has other moves.
    games = [Game()] + [Game().step(a)[0] for a in range(6)]
    covered = [g for g in games if grown.action(g) is not None]
    assert len(covered) >= 3 and any(grown.action(g) != _shipped_book().action(g) for g in covered)
    for game in covered:
        assert parse(spec).act(game) == grown.action(game)
    # A named grown book not built yet is refused with the command that grows it.
    missing = tmp_path / "not-built.json.gz"
    commands = {"grown": "book grow --positions 20000 --out lib/awale/knowledge/opening-book-grown.json.gz",
                "grown16": "--out lib/awale/knowledge/opening-book-grown-16.json.gz --search \"minimax(depth=16, "}
    for name, command in commands.items():
        monkeypatch.setitem(champion.GROWN_BOOKS, name, (missing, champion.GROWN_BOOKS[name][1]))
        with pytest.raises(ValueError, match=f"book='{name}': this grown opening book is not built yet") as refused:
            parse(f"champion(depth=2, book='{name}')")
        assert command in str(refused.value) and str(missing) in str(refused.value)
    path.rename(missing)  # once built, each plays its book
    for name in commands:
        assert parse(f"champion(depth=2, book='{name}')").act(covered[0]) == grown.action(covered[0])


@pytest.mark.parametrize("value, message", [("''", "True or False, 'grown', 'grown16' or a book file"),
                                            ("'no/such/book.json'", "cannot read the book"),
                                            ("README", "not an opening book")])
def test_bad_books_are_refused_when_the_champion_is_made(value, message):
    if value == "README":
        value = repr(str(ROOT / "README.md"))
    with pytest.raises(ValueError, match=message):
        parse(f"champion(depth=2, book={value})")


def test_the_move_classifier_tells_book_database_forced_and_searched_moves():
    start = Game()
    assert move_classifier("champion(depth=2)")(start) == "book"
    assert move_classifier("champion(depth=2, book=False)")(start) == "searched"
    ten_seeds = Game.from_position([1, 2, 0, 0, 0, 3, 0, 0, 4, 0, 0, 0], captures=(20, 18))
    assert move_classifier("champion(depth=2, book=False, endgame='15')")(ten_seeds) == "database"
    assert move_classifier("champion(depth=2, book=False)")(ten_seeds) == "searched"
    one_move = Game.from_position([0, 0, 0, 0, 0, 5, 5, 5, 5, 5, 5, 5], captures=(7, 6))
    assert len(one_move.legal_actions) == 1
    assert move_classifier("champion(time=0.1, book=False, manage=True)")(one_move) == "forced"
    assert move_classifier("champion(time=0.1, book=False)")(one_move) == "searched"  # searched without management
