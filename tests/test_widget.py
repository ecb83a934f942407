"""The board to play on in Jupyter (awale.play.widget.PlayBoard) and the appendix notebook that shows it."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from awale import Game
from awale.agents import parse
from awale.play.widget import PlayBoard

ROOT = Path(__file__).resolve().parents[1]


def _shown(board):
    return [int(button.description) for button in board._pits], [int(s.description) for s in board._stores]


def test_a_click_plays_and_the_agent_replies():
    board = PlayBoard("greedy")
    board._pits[2].click()  # South's C, as a reader's click
    first = Game().step(2)[0]
    reply = parse("greedy").act(first)
    expected = first.step(reply)[0]
    assert _shown(board) == (list(expected.pits), list(expected.captures))
    assert board._pits[6 + reply].button_style == "warning"  # the pit North sowed
    # Only South's non-empty pits can be clicked.
    assert [not b.disabled for b in board._pits] == [p > 0 for p in expected.pits[:6]] + [False] * 6
    assert "You played C." in board._status.value and "South to move" in board._status.value


def test_hint_undo_and_new_game():
    board = PlayBoard("uct(iterations=200)", seed=3)
    board._pits[3].click()
    board.children[1].children[0].click()  # hint
    hint = board._status.value
    assert "Hint: " in hint and any(word in hint for word in ("seeds", "wins", "loses", "draw"))
    board.children[1].children[1].click()  # undo
    assert board.session.plies == [] and _shown(board) == ([4] * 12, [0, 0])
    board.children[1].children[1].click()
    assert "You have not moved yet" in board._status.value
    board.click("2")
    board.children[1].children[2].click()  # new game
    assert board.session.plies == [] and "A new game" in board._status.value


def test_playing_north_and_to_the_end():
    board = PlayBoard("greedy", side=1)
    assert board.session.game.plies == 1  # South, the agent, has moved
    while not board.session.game.game_finished:
        board.click(str(board.session.game.legal_actions[0] + 1))
    assert "Game over (" in board._status.value and all(b.disabled for b in board._pits)
    with pytest.raises(ValueError, match="not your turn"):
        board.click("a")


def test_the_appendix_runs_top_to_bottom():
    notebook = nbformat.read(ROOT / "docs" / "play.ipynb", as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert all(len(line) <= 88 for line in cell.source.splitlines())
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [cell.outputs for cell in notebook.cells if cell.cell_type == "code"]
    assert any("image/svg+xml" in output.get("data", {}) for cells in outputs for output in cells)
