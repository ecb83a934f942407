"""The thesis's notebooks: they carry no outputs, run top to bottom, and their searches match the library's.

Each notebook is executed once, with the drift checks of that chapter appended as a last cell: the check runs
in the notebook's own kernel, against the functions the chapter built, and fails the cell on any difference.
The chapters' classes (Game, TreeGame, TreeStatsGame) are compared with the library's in tests/test_chain.py.
"""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

# The chapter's readable MCTS against the library's mcts: on fixed positions, the mean of every root child agrees
# within four standard errors.  (The classes themselves are compared with the library's in tests/test_chain.py.)
MCTS_DRIFT = """
import math as _math
from awale.agents import parse as _parse

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
