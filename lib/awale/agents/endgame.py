"""The ``endgame`` option of the search agents: perfect play from the positions the database holds.

``minimax(depth=4, endgame='endgame15.db')`` or ``uct(iterations=1000,
endgame='endgame15.db')``: in a position with no more seeds on the board than
the database (:mod:`awale.endgame`) holds, the agent plays a move with the
best exact value instead of searching (the first such move, by action).  By
the captures question of the thesis's chapter 6, such a move also has the best
win/draw/loss result, whatever the seeds already captured (up to the
database's scoring of repetitions).  Before that, the search itself uses the
database wherever it reaches such a position: αβ scores it exactly without
searching further, and MCTS ends the playout there with the exact result.
The file is opened once per process and its values mapped, not copied, on
first use.  Without the option an agent is unchanged.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, Optional, Tuple

from ..game import Game
from ..rules import Rules
from .base import Param

if TYPE_CHECKING:
    from ..endgame import EndgameDatabase

__all__ = ["endgame_param", "endgame_database", "endgame_action"]

_OPEN: Dict[Tuple[str, float], object] = {}  # path and modification time -> the database, opened once


def endgame_param() -> Param:
    """The ``endgame`` parameter: the path of a database file, or None (the default: no database)."""
    return Param("endgame", str, None, optional=True, doc="path of an endgame database to play from (default none)")


def endgame_database(path: Optional[str], rules: Rules) -> Optional["EndgameDatabase"]:
    """The database at ``path`` (opened once per process), or None if no path is given or it is for other rules.

    Raises:
        ValueError: the file is not an endgame database (OSError: it cannot be read).
    """
    if path is None:
        return None
    from .. import endgame  # imported when used: the agents without the option never load it

    key = (path, os.path.getmtime(path))
    if key not in _OPEN:
        _OPEN[key] = endgame.load(path)
    database = _OPEN[key]
    return database if database._compatible(rules) else None


def endgame_action(path: Optional[str], game: Game) -> Optional[int]:
    """The database's best action in ``game``, or None if there is no database or it does not cover the game.

    Raises:
        ValueError: the file is not an endgame database (OSError: it cannot be read).
    """
    database = endgame_database(path, game.rules)
    if database is None or game.game_finished or not database.covers(game):
        return None
    return min(database.best_actions(game))
