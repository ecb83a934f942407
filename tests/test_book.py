"""Opening books: what they cover, that they hold the search's moves, and their file."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from awale import Game

from awale.knowledge import book
from awale.offline import book_builder
from awale.agents import parse
from awale.cli import main
from awale.experiments.sprt import standard_openings
from awale.core.record import replay
from awale.core.rules import Rules

ROOT = Path(__file__).resolve().parents[1]
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
    built = book_builder.build("minimax(depth=3)", 5, SMALL)
    for owner in (0, 1):
        met = _walk(built, owner, 5)
        assert met
        for game in met:
            assert built.action(game) == parse("minimax(depth=3)").act(game)


def test_size_of_a_book_on_the_full_board():
    built = book_builder.build("greedy", 4, Rules())
    # Exactly the positions its owner can meet: South at plies 0 and 2 (1 + 6), North at 1 and 3 (6 + 36),
    # fewer where two lines transpose.
    met = {book.position_key(game) for owner in (0, 1) for game in _walk(built, owner, 4)}
    assert set(built.moves) == met
    assert 40 <= len(built) <= 1 + 6 + 6 + 36
    assert built.action(Game()) is not None
    assert built.action(Game(rules=SMALL)) is None  # other rules


def test_round_trip_and_damage(tmp_path):
    built = book_builder.build("minimax(depth=2)", 4, SMALL)
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


@pytest.mark.parametrize("plies", [0, -1, book_builder.MAX_PLIES + 1, 2.5, True])
def test_bad_depths_are_refused(plies):
    with pytest.raises(ValueError, match="plies"):
        book_builder.build("greedy", plies)


def test_bad_spec_is_refused_before_any_search():
    with pytest.raises(ValueError):
        book_builder.build("uct(iterations=-1)", 2)


def test_cli_builds_a_book(tmp_path, capsys):
    path = tmp_path / "b.json"
    assert main(["book", "build", "--agent", "greedy", "--plies", "2", "--out", str(path)]) == 0
    assert len(book.load(path)) == 1 + 6
    assert main(["book", "build", "--agent", "greedy", "--plies", "99", "--out", str(path)]) == 2
    assert "--plies must be at most" in capsys.readouterr().err


# --------------------------------------------------------------------------- grown books

TINY = Rules(pits_per_side=3, seeds_per_pit=2)


def _growth(**changes):
    options = dict(search="minimax(depth=3)", weight=0.5, batch=4, rules=TINY)
    options.update(changes)
    return book_builder.Growth(**options)


def _grown_tree(tmp_path, growth, positions):
    """Grow a book with a state file; the book and its graph as the state file holds it."""
    state = tmp_path / f"tree-{positions}.state"
    built = book_builder.grow(growth, positions, state, save_seconds=0)
    return built, book_builder.BookTree.load(state, growth)


def _negamax(tree, node):
    """The value of ``node`` by negamax over the graph, from the leaves' values, recomputed here."""
    if not tree.children[node]:
        return tree.leaf_value[node]
    return max(-_negamax(tree, child) for _, child in tree.children[node])


def _paths(tree, node=0, cost=0.0, plies=0, found=None):
    """The smallest ``weight * drop-outs + plies`` of every open leaf over all its lines, by enumerating them."""
    found = {} if found is None else found
    if not tree.children[node]:
        if not tree.closed[node]:
            found[node] = min(found.get(node, float("inf")), cost)
        return found
    value = _negamax(tree, node)
    for _, child in tree.children[node]:
        dropout = value + _negamax(tree, child)  # the mover's value minus the move's value, for the mover
        assert dropout >= 0
        _paths(tree, child, cost + tree.weight * dropout + 1, plies + 1, found)
    return found


def test_priorities_follow_the_definition_on_a_hand_checked_graph():
    tree = book_builder.BookTree(0.5, "R")
    [root] = tree.select(3)  # the root is the only leaf
    # Values are for the player to move in the child: the root's mover sees A at 5, B at 2, C at -3.
    tree.expand(root, [book_builder.Child(2, 3, "C", False), book_builder.Child(0, -5, "A", False), book_builder.Child(1, -2, "B", False)])
    a, b, c = (tree.index[key] for key in "ABC")
    assert tree.value[root] == 5 and tree.priorities() == {a: 1.0, b: 1 + 0.5 * 3, c: 1 + 0.5 * 8}
    assert tree.select(1) == [a]
    tree.expand(a, [book_builder.Child(0, 1, "A1", False), book_builder.Child(1, 4, "A2", False)])
    # A is now worth -1 to its mover, 1 to the root's: B (2) is the root's best move and A's drop-out is 1.
    a1, a2 = tree.index["A1"], tree.index["A2"]
    assert tree.value[a] == -1 and tree.value[root] == 2
    assert tree.priorities() == {a1: 1.5 + 1, a2: 1.5 + 1 + 0.5 * 3, b: 1.0, c: 1 + 0.5 * 5}
    assert tree.select(1) == [b]
    # B transposes into A2 (which keeps its own value, 4) and has a new move B1 worth 3 to B's mover.
    tree.expand(b, [book_builder.Child(0, 7, "A2", False), book_builder.Child(1, -3, "B1", False), book_builder.Child(2, 0, "end", True)])
    b1 = tree.index["B1"]
    assert "end" not in tree.index and len(tree) == 8 and sorted(tree.parents[a2]) == [a, b]
    assert tree.value[b] == 3 and tree.value[root] == 1  # A (1) is best again; B's drop-out is 4
    expected = {a1: 2.0, a2: min(1 + 2.5, 3 + 1 + 0.5 * 7), b1: 3 + 1.0, c: 1 + 0.5 * 4}
    assert tree.priorities() == expected == _paths(tree)
    assert tree.select(4) == sorted(expected, key=expected.get)  # smallest priority first: A1, C, A2, B1
    assert book_builder.Growth  # the graph is game-agnostic: no search took part
    assert tree.book(_growth(rules=TINY)).moves == {"R": 0, "A": 0, "B": 1}


def test_the_grown_graph_is_negamax_and_selects_the_smallest_priority(tmp_path):
    growth = _growth()
    built, tree = _grown_tree(tmp_path, growth, 60)
    assert len(built) == tree.expanded >= 60 and len(tree) > len(built)
    for node in range(len(tree)):
        assert tree.value[node] == _negamax(tree, node)
    priorities = tree.priorities()
    assert priorities == pytest.approx(_paths(tree))
    [leaf] = tree.select(1)
    assert priorities[leaf] == min(priorities.values())


def test_the_book_move_is_the_negamax_best_child_and_leaves_hold_the_search_values(tmp_path):
    from awale.search.alphabeta import action_values

    growth = _growth(search="minimax(depth=2)")
    built, tree = _grown_tree(tmp_path, growth, 40)
    checked = 0
    for node in range(len(tree)):
        if not tree.children[node]:
            continue
        values = {action: -tree.value[child] for action, child in tree.children[node]}
        best = max(values.values())
        assert built.moves[tree.keys[node]] == min(a for a, v in values.items() if v == best)
        game = Game(rules=TINY)
        for action in tree.line(node):
            game = game.step(action)[0]
        assert book.position_key(game) == tree.keys[node]
        assert built.action(game) == built.moves[tree.keys[node]]
        # Each move is valued by a fresh search to the spec's depth, counting the move (no quiescence: exact).
        searched = action_values(game, 2)
        for action, child in tree.children[node]:
            if not tree.children[child] and tree.first_parent[child] == node:
                assert tree.leaf_value[child] == -searched[action]
                checked += 1
    assert checked > 20


def test_resuming_gives_the_book_of_an_uninterrupted_build(tmp_path):
    growth = _growth()
    straight = book_builder.grow(growth, 48)
    state = tmp_path / "grow.state"
    book_builder.grow(growth, 17, state)
    assert book_builder.grow(growth, 48, state) == straight  # grown further from the saved graph

    reports = []

    def interrupt(status):
        reports.append(status)
        if len(reports) == 4:
            raise KeyboardInterrupt

    other = tmp_path / "other.state"
    with pytest.raises(book_builder.GrowthInterrupted) as stopped:
        book_builder.grow(growth, 48, other, progress=interrupt, save_seconds=1e9)
    assert stopped.value.expanded == reports[-1].expanded < 48 and stopped.value.state == str(other)
    assert book_builder.BookTree.load(other, growth).expanded == stopped.value.expanded  # saved when interrupted
    assert book_builder.grow(growth, 48, other) == straight


def test_two_workers_give_the_same_book():
    growth = _growth(batch=6)
    assert book_builder.grow(growth, 30, workers=2) == book_builder.grow(growth, 30, workers=1)


def test_the_weight_shapes_the_book():
    breadth = book_builder.grow(_growth(weight=0), 40)
    lines = book_builder.grow(_growth(weight=100), 40)
    assert breadth.plies < lines.plies  # breadth first stays shallow; a large weight follows the best lines
    assert breadth.method == "drop-out expansion (weight=0, batch=4)"


def test_a_game_small_enough_is_grown_to_its_end():
    growth = book_builder.Growth("minimax(depth=2)", 1, 8, Rules(pits_per_side=2, seeds_per_pit=2))
    whole = book_builder.grow(growth, 100_000)
    assert 10 < len(whole) < 100_000  # every line ended in a finished game before the target


def test_a_damaged_or_mismatched_state_is_refused(tmp_path):
    import gzip

    growth = _growth()
    state = tmp_path / "grow.state"
    book_builder.grow(growth, 10, state)
    for changed, named in ((_growth(weight=0.25), "weight=0.5 there, 0.25 here"),
                           (_growth(batch=2), "batch=4 there, 2 here"),
                           (_growth(search="minimax(depth=4)"), "search='minimax(depth=3)' there"),
                           (_growth(rules=Rules(pits_per_side=3, seeds_per_pit=3)), "rules=")):
        with pytest.raises(ValueError, match="grown with other settings") as refused:
            book_builder.grow(changed, 20, state)
        assert named in str(refused.value)
    data = json.loads(gzip.decompress(state.read_bytes()))

    def write(content):
        state.write_bytes(gzip.compress(json.dumps(content).encode()))

    leaf = data["leaf_value"].index(max(data["leaf_value"]))
    write({**data, "leaf_value": data["leaf_value"][:leaf] + [-999] + data["leaf_value"][leaf + 1:]})
    with pytest.raises(ValueError, match="sha256"):
        book_builder.grow(growth, 20, state)
    # A graph changed with its checksum recomputed: its structure is checked.
    body = {**data, "first_parent": [-1] + [len(data["keys"])] * (len(data["keys"]) - 1)}
    body["header"] = {**data["header"], "sha256": book_builder._body_digest({k: body[k] for k in body if k != "header"})}
    write(body)
    with pytest.raises(ValueError, match="bad graph"):
        book_builder.grow(growth, 20, state)
    state.write_bytes(gzip.compress(json.dumps(data).encode())[:-9])  # cut short
    with pytest.raises(ValueError, match="damaged gzip data"):
        book_builder.grow(growth, 20, state)
    book_builder.grow(growth, 10).save(state)  # a book is not a state
    with pytest.raises(ValueError, match="not the state of a grown book"):
        book_builder.grow(growth, 20, state)


@pytest.mark.parametrize("changes, message", [
    (dict(search="uct(iterations=10)"), "values every move"),
    (dict(search="minimax(time=1.0)"), "fixed depth"),
    (dict(search="minimax(depth=3, nodes=100)"), "fixed depth"),
    (dict(search="minimax(depth=3, endgame='10')"), "no endgame"),
    (dict(search="minimax(depth=3, seed=2)"), "no seed"),
    (dict(search="minimax(depth=0)"), "at least 1"),
    (dict(weight=-1), "weight"),
    (dict(weight=True), "weight"),
    (dict(batch=0), "batch"),
    (dict(rules="abapa"), "rules"),
])
def test_bad_growths_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        _growth(**changes)


@pytest.mark.parametrize("positions", [0, -3, 2.0, True, book_builder.MAX_POSITIONS + 1])
def test_bad_positions_are_refused(positions):
    with pytest.raises(ValueError, match="positions"):
        book_builder.grow(_growth(), positions)


def test_a_compressed_book_round_trips_and_its_checksum_catches_a_changed_move(tmp_path):
    import gzip

    built = book_builder.grow(_growth(), 30)
    path = tmp_path / "grown.json.gz"
    built.save(path)
    assert path.read_bytes()[:2] == b"\x1f\x8b" and path.stat().st_size < 2000
    again = book.load(path)
    assert again == built and again.method == built.method
    data = json.loads(gzip.decompress(path.read_bytes()))
    assert data["header"]["format"] == book.FORMAT == 2 and data["header"]["positions"] == len(built)
    key = next(iter(data["moves"]))
    data["moves"][key] = (data["moves"][key] + 1) % 3
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(ValueError, match="sha256"):
        book.load(path)
    built.save(tmp_path / "same.json.gz")
    built.save(path)
    assert path.read_bytes() == (tmp_path / "same.json.gz").read_bytes()  # no time or name in the file


def test_the_shipped_format_1_book_still_loads():
    from awale.agents.champion import BOOK_PATH

    assert json.loads(BOOK_PATH.read_text())["header"]["format"] == 1
    shipped = book.load(BOOK_PATH)
    assert shipped.method == book.FULL_WIDTH and len(shipped) == 231


def test_cli_grows_a_book_and_resumes_it(tmp_path, capsys):
    out = tmp_path / "grown.json.gz"
    args = ["book", "grow", "--search", "minimax(depth=2)", "--positions", "9", "--out", str(out), "--workers", "1"]
    assert main(args) == 0
    first = book.load(out)
    assert len(first) >= 9 and first.agent == "minimax(depth=2)" and (tmp_path / "grown.json.gz.state").exists()
    assert f"{len(first)} positions" in capsys.readouterr().out
    assert main(args[:5] + ["20"] + args[6:]) == 0
    grown = book.load(out)
    assert len(grown) >= 20 and {k: grown.moves[k] for k in first.moves if k in grown.moves}
    assert "resuming from" in capsys.readouterr().err
    assert main(args + ["--weight", "1"]) == 2
    assert "grown with other settings (weight=0.25 there, 1.0 here)" in capsys.readouterr().err


@pytest.mark.parametrize("argument, message", [
    (["--positions", "0"], "--positions must be at least 1"),
    (["--positions", "many"], "--positions must be an integer"),
    (["--weight", "-1"], "--weight must be at least 0"),
    (["--batch", "1000"], f"--batch must be at most {book_builder.MAX_BATCH}"),
    (["--search", "minimax(depht=3)"], "unknown parameter 'depht'"),
])
def test_cli_grow_refuses_bad_arguments_in_one_line(tmp_path, capsys, argument, message):
    args = ["book", "grow", "--positions", "5", "--out", str(tmp_path / "b.json.gz")]
    options = dict(zip(args[2::2], args[3::2]))
    options[argument[0]] = argument[1]
    with pytest.raises(SystemExit) as exit:
        main(["book", "grow", *[x for pair in options.items() for x in pair]])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_cli_grow_refuses_a_search_that_cannot_value_moves(tmp_path, capsys):
    assert main(["book", "grow", "--search", "greedy", "--positions", "5", "--out", str(tmp_path / "b")]) == 2
    assert "a book grows with an αβ search that values every move" in capsys.readouterr().err


def test_cli_grow_help(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["book", "grow", "--help"])
    assert exit.value.code == 0
    text = capsys.readouterr().out
    for word in ("drop-out expansion", "--positions N", "--state PATH", "resumes", book_builder.DEFAULT_SEARCH):
        assert word in " ".join(text.split())


def test_an_expansion_does_not_depend_on_the_expansions_before_it():
    # With quiescence, an αβ value at a fixed depth can depend on what the transposition table holds; every
    # expansion starts from an empty table, so that a book is the same whichever worker expands which leaf.
    spec = "minimax(depth=6, evaluation=True, quiescence=4)"
    rng = np.random.default_rng(5)
    lines = []
    for _ in range(12):
        game, line = Game(), []
        for _ in range(int(rng.integers(0, 7))):
            line.append(int(rng.choice(game.legal_actions)))
            game = game.step(line[-1])[0]
        lines.append(tuple(line))
    lines += [line[:k] for line in lines[:4] for k in range(len(line))]  # positions and their children
    one = book_builder._Expander(Rules(), spec)
    assert [one(line) for line in lines] == [book_builder._Expander(Rules(), spec)(line) for line in lines]


@pytest.mark.parametrize("name, positions, search, covered", [
    ("grown", 20_000, book_builder.DEFAULT_SEARCH, 450),
    ("grown16", 10_000, "minimax(depth=16, evaluation=True, quiescence=0, reductions=True, weights='texel')", 350)])
def test_the_shipped_grown_books_are_their_committed_graphs(tmp_path, name, positions, search, covered):
    # Each of the champion's grown books (book='grown', book='grown16') holds what its committed growth state
    # says, so that its command grows the same book further; and it covers many of the test openings.
    from awale.agents.champion import GROWN_BOOKS

    path, command = GROWN_BOOKS[name]
    growth = book_builder.Growth(search)
    shipped = book.load(path)
    assert len(shipped) >= positions and shipped.plies >= 12 and path.stat().st_size < 3_000_000
    assert shipped.method == growth.method and shipped.agent == growth.search
    assert f"--positions {positions} --out lib/awale/knowledge/{path.name}" in command
    state = tmp_path / "grown.state"
    shutil.copyfile(ROOT / "data" / "book" / path.name.replace(".json.gz", ".state"), state)
    assert book_builder.grow(growth, len(shipped), state).moves == shipped.moves  # nothing left to expand
    after = [replay(map(int, line))[-1].game for line in standard_openings()]
    assert sum(shipped.action(game) is not None for game in after) >= covered
