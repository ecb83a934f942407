"""Awale (Oware): exact rules, a compiled engine, and Monte Carlo Tree Search.

>>> from awale import Game
>>> game, captured, finished = Game().step(2)
>>> game.pits
(4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4)

The names below are loaded on first use, so that ``import awale`` is quick
and ``python -m awale`` can answer a Ctrl-C that comes while numba and numpy
load.
"""

import importlib
from typing import Any, List

__all__ = ["Game", "Rules", "IllegalActionError", "InvalidPositionError", "PlayoutStats", "simulate"]
__version__ = "0.1.0"

#: The opponent of ``python -m awale play`` and of the play board (:mod:`awale.play.session`), by its spec: the
#: champion with every idea the ledger of ideas kept (``data/strength/ledger.csv``, chapter 9), half a second
#: a searched move on average (under a clock, the moves left counted above its endgame database).
DEFAULT_AGENT = "champion(manage=True, clock_moves='database', quiescence=0, reductions=True, weights='texel')"

_HOMES = {name: "core.game" for name in __all__ if name != "Rules"}
_HOMES["Rules"] = "core.rules"


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'awale' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(__all__))
