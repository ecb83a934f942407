"""The ``endgame`` option of the search agents: perfect play from the positions the database holds.

``minimax(depth=4, endgame='endgame15.db')`` or ``uct(iterations=1000,
endgame='endgame15.db')``: in a position with no more seeds on the board than
the database (:mod:`awale.knowledge.endgame`) holds, the agent plays a move with the
best exact value instead of searching (the first such move, by action).  By
the captures question of the thesis's chapter 6, such a move also has the best
win/draw/loss result, whatever the seeds already captured (up to the
database's scoring of repetitions).  Before that, the search itself uses the
database wherever it reaches such a position: αβ scores it exactly without
searching further, and MCTS ends the playout there with the exact result.
The file is opened once per process and its values mapped, not copied, on
first use.  Without the option an agent is unchanged.

Instead of a path the option takes a number of seeds, ``endgame='15'``: the
database of every position with at most that many seeds for the game's
rules, built on first use and cached (:mod:`awale.knowledge.endgame_cache`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional

from ..core.game import Game
from ..core.rules import Rules
from ..knowledge.endgame_cache import check_value, endgame_database
from .base import Param

if TYPE_CHECKING:
    from ..knowledge.endgame import EndgameDatabase

__all__ = ["EndgameOption", "endgame_param", "endgame_action"]


class _EndgameParam(Param):
    """The ``endgame`` parameter, whose value is checked when the agent is made, not at its first move."""

    def check(self, agent: str, value: Any) -> Any:
        value = super().check(agent, value)
        try:
            return check_value(value)
        except ValueError as error:
            raise ValueError(f"{agent}: {error}") from None


def endgame_param() -> Param:
    """The ``endgame`` parameter: a database file, or a number of seeds (a database built and cached), or None."""
    return _EndgameParam(
        "endgame", str, None, optional=True,
        doc="endgame database to play from: a file, or a number of seeds ('15') to build and cache (default none)",
    )


def endgame_action(path: Optional[str], game: Game) -> Optional[int]:
    """The database's best action in ``game``, or None if there is no database or it does not cover the game.

    An agent asks its :class:`EndgameOption` instead, which finds the database once.

    Raises:
        ValueError: as :func:`endgame_database`.
    """
    return EndgameOption(path).action(game)


class EndgameOption:
    """An agent's ``endgame`` option, resolved to its database once for each rules it plays.

    An agent makes one in :meth:`~awale.agents.Agent.reset`, so the database is
    looked up (opened, or built) at its first use after a reset, not at every move.

    Args:
        value: the option's value: a database file, a number of seeds, or None.
    """

    def __init__(self, value: Optional[str]) -> None:
        self.value = value
        self._databases: Dict[Rules, Optional["EndgameDatabase"]] = {}

    def database(self, rules: Rules) -> Optional["EndgameDatabase"]:
        """The database for ``rules`` (see :func:`endgame_database`), found on the first call for them.

        Raises:
            ValueError: as :func:`endgame_database`.
        """
        if self.value is None:
            return None
        if rules not in self._databases:
            self._databases[rules] = endgame_database(self.value, rules)
        return self._databases[rules]

    def action(self, game: Game) -> Optional[int]:
        """The database's best action in ``game`` (the first by action), or None if it does not hold the game.

        Raises:
            ValueError: as :func:`endgame_database`.
        """
        database = self.database(game.rules)
        if database is None or game.game_finished or not database.covers(game):
            return None
        return min(database.best_actions(game))
