"""A board to play on in Jupyter: :class:`PlayBoard`, built with ipywidgets.

The board is a grid of buttons, one per pit, North's row on top as a player
sitting at South sees it; each shows its seeds, and the pits of the human
that can be played are the buttons that can be clicked.  A click plays the
pit, then the agent replies.  The pit sown last is drawn in yellow and the
pits it captured in red; the buttons below the board ask for a hint, take a
move back or start a new game.  The game itself is an
:class:`awale.play.session.Session`, as in the terminal game.

>>> board = PlayBoard("greedy")
>>> board.click("C")
>>> board.session.game.plies
2
"""

from __future__ import annotations

from typing import List, Optional, Union

import ipywidgets as widgets

from ..agents import Agent
from ..core.game import PLAYERS
from .match import score_text
from .session import DEFAULT_AGENT, Session, parse_move
from ..core.render import SVG, pit_label
from ..core.rules import Rules

__all__ = ["PlayBoard"]

_PIT = widgets.Layout(width="3.6em", height="3.6em")
_STORE = widgets.Layout(width="4.5em", height="7.5em")


class PlayBoard(widgets.VBox):
    """A game against ``agent`` on a board of buttons (see :class:`awale.play.session.Session` for the arguments).

    Display it as the last expression of a cell.  :meth:`click` plays a pit
    as a click on it does, and :meth:`picture` draws the position as SVG
    (for pages where no kernel runs the widget).
    """

    def __init__(self, agent: Union[str, Agent] = DEFAULT_AGENT, side: int = 0, rules: Optional[Rules] = None,
                 seed: int = 0) -> None:
        self.session = Session(agent, side, rules, seed)
        n = self.session.rules.pits_per_side
        self._pits: List[widgets.Button] = []
        for pit in range(2 * n):
            button = widgets.Button(layout=_PIT, tooltip=pit_label(pit, n))
            button.on_click(lambda _, pit=pit: self._clicked(pit))
            self._pits.append(button)
        self._stores = [widgets.Button(layout=_STORE, disabled=True) for _ in range(2)]
        north = widgets.HBox([self._pits[p] for p in range(2 * n - 1, n - 1, -1)])
        south = widgets.HBox([self._pits[p] for p in range(n)])
        rows = widgets.VBox([north, south])
        self._status = widgets.HTML()
        controls = []
        for text, handler in (("hint", self._hint), ("undo", self._undo), ("new game", self._new)):
            button = widgets.Button(description=text)
            button.on_click(lambda _, handler=handler: handler())
            controls.append(button)
        super().__init__([widgets.HBox([self._stores[1], rows, self._stores[0]]), widgets.HBox(controls),
                          self._status])
        self._message = f"You play {PLAYERS[side]} against {self.session.agent.spec}."
        self._advance()

    # ------------------------------------------------------------------ actions

    def click(self, pit: str) -> None:
        """Play the human's pit named ``pit`` (a letter or a number, as in the terminal), as a click would.

        Raises:
            ValueError: not a legal move of the human now.
        """
        if not self.session.human_to_move:
            raise ValueError("it is not your turn")
        action = parse_move(pit, self.session.game)
        self._clicked(self.session.side * self.session.rules.pits_per_side + action)

    def picture(self) -> SVG:
        """The position as an SVG picture, the last move's pit and captures in colour."""
        last = self.session.last
        marked = (last.pit, *last.captured_pits) if last else ()
        return self.session.game.svg(highlight=marked)

    # ------------------------------------------------------------------ event handlers

    def _clicked(self, pit: int) -> None:
        n = self.session.rules.pits_per_side
        ply = self.session.play(pit - self.session.side * n)
        self._message = f"You played {ply.label}" + (f" and captured {ply.captured}." if ply.captured else ".")
        self._advance()

    def _advance(self) -> None:
        """Let the agent reply if it is its turn, then redraw."""
        if not self.session.game.game_finished and not self.session.human_to_move:
            self._draw(thinking=True)
            ply, rating = self.session.reply()
            took = f", capturing {ply.captured}" if ply.captured else ""
            self._message += f" {PLAYERS[ply.player]} played {ply.label}{took}" + (f" ({rating})." if rating else ".")
        self._draw()

    def _hint(self) -> None:
        if self.session.human_to_move:
            action, rating = self.session.hint()
            n = self.session.rules.pits_per_side
            self._message = f"Hint: {pit_label(self.session.side * n + action, n)}" + (f" ({rating})." if rating else ".")
            self._draw()

    def _undo(self) -> None:
        self._message = "Took back your last move." if self.session.undo() else "You have not moved yet."
        self._draw()

    def _new(self) -> None:
        self.session.plies.clear()
        self._message = "A new game."
        self._advance()

    def _draw(self, thinking: bool = False) -> None:
        session = self.session
        game, last = session.game, session.last
        captured = set(last.captured_pits) if last else set()
        for pit, button in enumerate(self._pits):
            button.description = str(game.pits[pit])
            own = pit // session.rules.pits_per_side == session.side
            action = pit % session.rules.pits_per_side
            button.disabled = thinking or not (session.human_to_move and own and action in game.legal_actions)
            button.button_style = "warning" if last and pit == last.pit else "danger" if pit in captured else ""
        for player, store in enumerate(self._stores):
            store.description = str(game.captures[player])
            store.tooltip = f"seeds captured by {PLAYERS[player]}"
        if thinking:
            status = f"{PLAYERS[1 - session.side]} is thinking..."
        elif game.game_finished:
            status = f"Game over ({last.ending}): {score_text(game.captures, game.winner)}."
        else:
            status = f"{PLAYERS[game.current_player]} to move."
        self._status.value = f"{self._message} <b>{status}</b>"
