"""The thesis's notebooks: they carry no outputs, run top to bottom, and their classes match the library's.

Each notebook is executed once, with the drift checks of that chapter appended as a last cell: the check runs
in the notebook's own kernel, against the classes the chapter built, and fails the cell on any difference.
"""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

# The chapter's final Game against awale.Game, move for move on seeded random games of several board sizes.
GAME_DRIFT = """
import random as _random
import awale as _awale


def _drift(n, s, games, seed):
    rng = _random.Random(seed)
    plies = 0
    for _ in range(games):
        ours, library = Game(n, s), _awale.Game(_awale.Rules(pits_per_side=n, seeds_per_pit=s))
        while True:
            assert ours.pits == library.pits, (ours.pits, library.pits)
            assert ours.captures == library.captures, (ours.captures, library.captures)
            assert ours.current_player == library.current_player
            assert ours.legal_actions == library.legal_actions, (ours.legal_actions, library.legal_actions)
            assert ours.game_finished == library.game_finished and ours.winner == library.winner
            if library.game_finished:
                break
            action = rng.choice(library.legal_actions)
            (ours, taken, finished), (library, expected, done) = ours.step(action), library.step(action)
            assert (taken, finished) == (expected, done)
            plies += 1
    return plies


_plies = sum(_drift(n, s, 40, seed=n * 100 + s) for n, s in [(6, 4), (5, 3), (4, 3), (3, 2), (2, 2), (6, 2)])
assert _plies > 10_000, _plies
"""

# The chapter's TreeGame against awale.TreeGame: same positions, same tree structure.
TREE_DRIFT = """
import random as _random
import awale as _awale


def _tree_drift(n, s, games, seed):
    rng = _random.Random(seed)
    plies = 0
    for _ in range(games):
        rules = _awale.Rules(pits_per_side=n, seeds_per_pit=s)
        ours, library = TreeGame(rules), _awale.TreeGame(rules)
        while not library.game_finished:
            assert ours == library and ours.legal_actions == library.legal_actions
            action = rng.choice(library.legal_actions)
            child, taken, finished = ours.step(action)
            expected, expected_taken, expected_finished = library.step(action)
            assert (child, taken, finished) == (expected, expected_taken, expected_finished)
            assert ours.step(action)[0] is child and library.step(action)[0] is expected
            assert child.parent is ours and child.action == action and ours.children == {action: child}
            assert child.depth == expected.depth == ours.depth + 1
            ours, library = child, expected
            plies += 1
        assert ours.game_finished and ours.winner == library.winner
    return plies


_plies = sum(_tree_drift(n, s, 30, seed=n * 10 + s) for n, s in [(6, 4), (4, 3), (3, 2)])
assert _plies > 3_000, _plies
"""

# The chapter's TreeStatsGame against the library's, then its readable MCTS against the library's mcts: on
# fixed positions, the mean of every root child agrees within four standard errors.
MCTS_DRIFT = """
import math as _math
import random as _random
import awale as _awale
from awale.agents import parse as _parse

_rng = _random.Random(11)
for _ in range(30):
    ours, library = TreeStatsGame(), _awale.TreeStatsGame()
    while not library.game_finished:
        action = _rng.choice(library.legal_actions)
        ours, library = ours.step(action)[0], library.step(action)[0]
        assert type(ours).__mro__[1] is _awale.TreeGame and ours == library
    for node, twin in ((ours, library), (ours.parent, library.parent)):
        for winner in (0, 1, None, 0):
            node.record(winner)
            twin.record(winner)
        assert (node.visits, node.wins, node.mean) == (twin.visits, twin.wins, twin.mean)

_positions = [
    Game(),
    Game.from_position([1, 1, 0, 0, 0, 3, 1, 2, 1, 4, 4, 0], captures=(18, 13)),
    Game.from_position([1, 0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1], captures=(20, 23)),
]
for _position in _positions:
    _root = mcts(_position, 1500, seed=5)
    _agent = _parse("mcts(iterations=1500, seed=5)")
    _agent.act(_position)
    _theirs = {child.action: child for child in _agent.statistics()}
    assert set(_root.children) == set(_theirs) == set(_position.legal_actions)
    for _action, _child in _root.children.items():
        _other = _theirs[_action]
        _error = _math.sqrt(0.25 / _child.visits + 0.25 / _other.visits)
        assert abs(_child.mean - _other.mean) <= 4 * _error, (_action, _child.mean, _other.mean)
"""

# The chapter's readable UCT and the library's uct choose the known best move of positions that have one.
UCT_DRIFT = """
from awale.agents import parse as _parse

_cases = [
    (Game.from_position([1, 1, 0, 0, 0, 3, 1, 2, 1, 4, 4, 0], captures=(18, 13)), 5),
    (Game.from_position([1, 0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1], captures=(20, 23)), 0),
    (Game.from_position([1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1], captures=(22, 22)), 0),
]
for _position, _best in _cases:
    assert most_visited(uct(_position, 2000, seed=3)) == _best
    assert _parse("uct(iterations=2000, seed=3)").act(_position) == _best
"""

CHECKS = {
    "02-awale.ipynb": GAME_DRIFT,
    "03-game-theory.ipynb": TREE_DRIFT,
    "04-agents.ipynb": MCTS_DRIFT,
    "05-mcts-variants.ipynb": UCT_DRIFT,
}


def test_the_thesis_has_chapters():
    assert NOTEBOOKS, "no notebook found in notebooks/"
    assert all(path.name[:2].isdigit() for path in NOTEBOOKS), "chapters are named NN-title.ipynb"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_committed_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: cell {index} has outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_code_lines_fit_the_page(path):
    """docs/authoring.rst: code lines of at most 88 characters, which the PDF's code font fits on a line."""
    notebook = nbformat.read(path, as_version=4)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            for line in cell.source.splitlines():
                assert len(line) <= 88, f"{path.name}: cell {index} has a line of {len(line)} characters"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_and_matches_the_library(path):
    notebook = nbformat.read(path, as_version=4)
    if path.name in CHECKS:
        notebook.cells.append(nbformat.v4.new_code_cell(CHECKS[path.name]))
    client = NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError, naming the cell, on any error or failed check
