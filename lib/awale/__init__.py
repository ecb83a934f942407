"""Awale (Oware): exact rules, a compiled engine, and Monte Carlo Tree Search.

>>> from awale import Game
>>> game, captured, finished = Game().step(2)
>>> game.pits
(4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4)
"""

from .game import Game, IllegalActionError, InvalidPositionError, PlayoutStats, TreeGame, TreeStatsGame, simulate
from .rules import Rules

__all__ = ["Game", "TreeGame", "TreeStatsGame", "Rules", "IllegalActionError", "InvalidPositionError", "PlayoutStats", "simulate"]
__version__ = "0.1.0"
