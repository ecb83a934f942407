"""One class chain: the chapters' Game -> TreeGame -> TreeStatsGame, run together, mirror the library's classes.

Chapter 2 builds ``Game`` cell by cell, chapter 3's ``TreeGame`` extends it, chapter 4's ``TreeStatsGame``
extends that, and chapter 5 gives it its last method.  Each chapter imports the library's class of the previous
step so that it runs fast on its own; this test executes the chapters' class cells, in reading order, in one
namespace, so that each class extends the readable one before it, and compares the final classes with
``awale.core.game.Game``, ``awale.core.game.TreeGame`` and ``awale.core.game.TreeStatsGame`` (the teaching classes are in
``awale.core.game``, not the top-level API): the same public names, the same signatures, the
same hooks, and the same behaviour on seeded random games.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import random
import re
from pathlib import Path

import nbformat
import pytest

import awale
import awale.core.game

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CLASSES = ("Game", "TreeGame", "TreeStatsGame")
_DEFINES = re.compile(r"^class (%s)\b" % "|".join(CLASSES), re.MULTILINE)


def _class_cells() -> list[tuple[str, int, str]]:
    """(notebook, cell index, source) of every code cell that defines one of the three classes, in order."""
    cells = []
    for path in NOTEBOOKS:
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type == "code" and _DEFINES.search(cell.source):
                cells.append((path.name, index, cell.source))
    return cells


@pytest.fixture(scope="module")
def chain() -> dict:
    """The namespace after running every class cell of the chapters, in reading order."""
    namespace: dict = {"__name__": "chapters"}
    for name, index, source in _class_cells():
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, f"{name}, cell {index}", "exec"), namespace)  # noqa: S102 - our own chapters
    return namespace


def _public(obj) -> set[str]:
    return {name for name in dir(obj) if not name.startswith("_")}


def _parameters(function) -> list[tuple[str, object, object]]:
    """Names, kinds and defaults of the parameters (annotations aside, which the chapters keep light)."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


def test_every_class_is_defined_by_a_chapter():
    defined = {match for _, _, source in _class_cells() for match in _DEFINES.findall(source)}
    assert defined == set(CLASSES)


def test_each_class_extends_the_chapters_previous_one(chain):
    game, tree, stats = (chain[name] for name in CLASSES)
    assert issubclass(stats, tree) and issubclass(tree, game)
    for cls in (game, tree, stats):
        assert not issubclass(cls, awale.Game), f"{cls.__name__} leans on the library instead of the chapters"


def test_the_teaching_classes_are_not_the_top_level_api():
    """The chapters import TreeGame and TreeStatsGame from awale.core.game; ``import awale`` offers the final classes."""
    for name in ("TreeGame", "TreeStatsGame"):
        assert name not in awale.__all__ and not hasattr(awale, name)
        assert name in awale.core.game.__all__


def _hooks(chain) -> dict[str, set[str]]:
    """The underscore methods that a class of a later chapter overrides, per class that introduced them."""
    levels = [[k for k in chain[name].__mro__ if k.__module__ == "chapters" and k.__name__ == name] for name in CLASSES]
    hooks: dict[str, set[str]] = {}
    for depth, name in enumerate(CLASSES):
        earlier = {attr for level in levels[:depth] for k in level for attr in vars(k)}
        for k in levels[depth]:
            for attr in vars(k):
                if attr.startswith("_") and not attr.startswith("__") and attr in earlier:
                    hooks.setdefault(name, set()).add(attr)
    return hooks


def test_hooks_are_introduced_where_the_class_is_met(chain):
    # Chapter 4 extends _init_node, which chapter 3 introduced: running the chain would fail otherwise.
    hooks = _hooks(chain)
    assert hooks.get("TreeStatsGame") == {"_init_node"}, hooks
    for name, names in hooks.items():
        library = getattr(awale.core.game, name)
        for hook in names:
            assert hasattr(library, hook), f"awale.core.game.{name} lacks the hook {hook}"
            assert _parameters(getattr(chain[name], hook)) == _parameters(getattr(library, hook)), hook


@pytest.mark.parametrize("name", CLASSES)
def test_same_public_names_and_signatures(chain, name):
    ours, library = chain[name](), getattr(awale.core.game, name)()
    assert _public(ours) == _public(library), _public(ours) ^ _public(library)
    assert _parameters(chain[name]) == _parameters(getattr(awale.core.game, name))  # the constructor
    for attribute in sorted(_public(library)):
        theirs = getattr(type(library), attribute, None)
        mine = getattr(type(ours), attribute, None)
        if callable(theirs) or callable(mine):
            assert callable(theirs) and callable(mine), attribute
            assert _parameters(mine) == _parameters(theirs), attribute


def _same(ours, library) -> None:
    assert ours.pits == library.pits, (ours.pits, library.pits)
    assert ours.captures == library.captures and ours.current_player == library.current_player
    assert ours.plies == library.plies and ours.rules == library.rules
    assert ours.legal_actions == library.legal_actions, (ours.legal_actions, library.legal_actions)
    assert ours.game_finished == library.game_finished and ours.winner == library.winner
    assert str(ours) == str(library) and ours.svg(highlight=[0]) == library.svg(highlight=[0])


BOARDS = [(6, 4), (5, 3), (4, 3), (3, 2), (2, 2)]


def test_games_play_alike(chain):
    """Random games from the start and from positions set up mid-game, move for move."""
    Game = chain["Game"]
    rng = random.Random(2)
    plies = games = 0
    for n, s in BOARDS:
        rules = awale.Rules(pits_per_side=n, seeds_per_pit=s)
        for game_index in range(45):
            ours, library = Game(rules), awale.Game(rules)
            if game_index % 3 == 2:  # restart from the position reached after a few moves
                for _ in range(rng.randrange(1, 12)):
                    if library.game_finished:
                        break
                    library = library.step(rng.choice(library.legal_actions))[0]
                if library.game_finished:
                    continue
                arguments = (list(library.pits), library.captures, library.current_player, rules, library.plies)
                ours, library = Game.from_position(*arguments), awale.Game.from_position(*arguments)
            games += 1
            while True:
                _same(ours, library)
                if library.game_finished:
                    break
                action = rng.choice(library.legal_actions)
                (ours, taken, finished), (library, expected, done) = ours.step(action), library.step(action)
                assert (taken, finished) == (expected, done)
                plies += 1
    assert games >= 200 and plies > 10_000, (games, plies)


def test_illegal_moves_are_refused_alike(chain):
    ours = chain["Game"].from_position([2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0], captures=(21, 24))
    library = awale.Game.from_position([2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0], captures=(21, 24))
    for action in (0, 1, 6):
        with pytest.raises(ValueError):
            ours.step(action)
        with pytest.raises(ValueError):
            library.step(action)


def test_trees_and_statistics_grow_alike(chain):
    """Tree nodes: same children, parents, depths and counters, on random descents with playouts recorded."""
    Stats = chain["TreeStatsGame"]
    rng = random.Random(5)
    plies = 0
    for n, s in BOARDS[:4]:
        rules = awale.Rules(pits_per_side=n, seeds_per_pit=s)
        ours, library = Stats(rules), awale.core.game.TreeStatsGame(rules)
        for _ in range(25):  # descents from the same root, as a search makes them
            node, twin = ours, library
            while not twin.game_finished:
                assert node.is_fully_expanded == twin.is_fully_expanded
                if rng.random() < 0.3:
                    assert [c.action for c in node.expand()] == [c.action for c in twin.expand()]
                action = rng.choice(twin.legal_actions)
                (node, taken, finished), (twin, expected, done) = node.step(action), twin.step(action)
                assert (taken, finished) == (expected, done) and node.captured == twin.captured
                assert node.depth == twin.depth and node.action == twin.action == action
                assert sorted(node.parent.children) == sorted(twin.parent.children)
                _same(node, twin)
                plies += 1
            winner = rng.choice([0, 1, None])
            path = []
            while twin is not None:
                node.record(winner)
                twin.record(winner)
                assert (node.visits, node.wins, node.mean) == (twin.visits, twin.wins, twin.mean)
                path.append((node, twin))
                node, twin = node.parent, twin.parent
            for node, twin in path[:-1]:  # every node but the root, once its parent has counted the playout
                assert node.ucb(0.5) == twin.ucb(0.5) and node.ucb() == twin.ucb()
                unvisited = [a for a in twin.parent.children if twin.parent.children[a].visits == 0]
                for a in unvisited:
                    assert node.parent.children[a].ucb() == twin.parent.children[a].ucb() == float("inf")
        assert ours.visits == library.visits == 25
    assert plies > 1_000, plies
