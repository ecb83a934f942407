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

Instead of a path the option takes a number of seeds, ``endgame='15'``: the
database of every position with at most that many seeds for the game's
rules, built on first use (about 25 s for 15 seeds, 17 MB) and kept in the
cache directory (``$AWALE_CACHE``, else ``~/.cache/awale``).  The database
is a pure function of the rules and the seeds, so games played with such a
spec replay on any machine, as the experiments need.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Optional, Tuple

from ..game import Game
from ..rules import Rules
from .base import Param

if TYPE_CHECKING:
    from ..endgame import EndgameDatabase

__all__ = ["endgame_param", "endgame_database", "endgame_action", "cache_directory", "built_database_path"]

#: The most memory building a database for the ``endgame`` option may take (bytes): 19 seeds fit, 20 do not.
BUILD_MEMORY = 2 * 2**30

_OPEN: Dict[Tuple[str, float], object] = {}  # path and modification time -> the database, opened once


def endgame_param() -> Param:
    """The ``endgame`` parameter: the path of a database file, or None (the default: no database)."""
    return Param("endgame", str, None, optional=True,
                 doc="endgame database to play from: a path, or seeds ('15') to build and cache one (default none)")


def cache_directory() -> Path:
    """Where built databases are kept: ``$AWALE_CACHE`` if set, else ``~/.cache/awale``."""
    return Path(os.environ.get("AWALE_CACHE") or Path.home() / ".cache" / "awale")


def built_database_path(seeds: int, rules: Rules) -> Path:
    """The file of the cached database of ``seeds`` seeds for ``rules`` (named by a digest of the rules)."""
    text = json.dumps(dataclasses.asdict(rules), sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    return cache_directory() / f"endgame-{digest}-{seeds}.db"


def _built(seeds: str, rules: Rules) -> str:
    """The path of the database of ``seeds`` seeds for ``rules``, built and saved first if it is not cached."""
    from .. import endgame

    path = built_database_path(int(seeds), rules)
    if not path.exists():
        try:
            database = endgame.build(rules, int(seeds), memory=BUILD_MEMORY)
        except ValueError as error:
            raise ValueError(f"endgame={seeds!r}: {error}") from None
        path.parent.mkdir(parents=True, exist_ok=True)
        database.save(str(path))
    return str(path)


def endgame_database(path: Optional[str], rules: Rules) -> Optional["EndgameDatabase"]:
    """The database at ``path`` (opened once per process), or None if no path is given or it is for other rules.

    A ``path`` of digits names the cached database of that many seeds for ``rules``, built if missing.

    Raises:
        ValueError: the file is not an endgame database, or there are too
            many seeds for the rules (OSError: it cannot be read or written).
    """
    if path is None:
        return None
    from .. import endgame  # imported when used: the agents without the option never load it

    if path.isdigit():
        if rules.max_plies is not None:
            return None  # no database holds exact values under a ply cap
        path = _built(path, rules)
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
