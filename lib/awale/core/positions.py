"""Random positions of the late game, from seeded games of uniformly random moves.

:func:`sample_positions` stops each game at its first position with few seeds left; :func:`random_game_positions`
keeps every such position of each game.  The benchmarks, the tests and the data scripts draw their positions here,
so that "random positions with at most S seeds" means one thing.
"""

from __future__ import annotations

from typing import List, Optional

import numpy as np

from .game import Game
from .rules import Rules

__all__ = ["sample_positions", "random_game_positions"]


#: Random games :func:`sample_positions` plays a position asked for before it gives up.
MAX_DRAWS = 10_000


def sample_positions(seeds: int, count: int, rng: np.random.Generator, rules: Optional[Rules] = None,
                     least: int = 1) -> List[Game]:
    """``count`` positions, each the first of a random game (uniform legal moves drawn from ``rng``) with at most
    ``seeds`` seeds on the board; a game that ends first, or whose position has fewer than ``least`` seeds or a
    single legal move, is drawn again.

    Raises:
        ValueError: bad rules, or :data:`MAX_DRAWS` games a position drawn without one that qualifies (with two
            seeds, say, the game nearly always ends or leaves one move).
    """
    found: List[Game] = []
    draws = 0
    while len(found) < count:
        draws += 1
        if draws > MAX_DRAWS * count:
            raise ValueError(f"no position with {least} to {seeds} seeds and two legal moves or more in "
                             f"{MAX_DRAWS * count:,} random games: ask for more seeds")
        game = Game(rules=rules)
        while not game.game_finished and sum(game.pits) > seeds:
            game = game.step(int(rng.choice(game.legal_actions)))[0]
        if not game.game_finished and sum(game.pits) >= least and len(game.legal_actions) > 1:
            found.append(game)
    return found


def random_game_positions(seeds: int, games: int, rng: np.random.Generator,
                          rules: Optional[Rules] = None) -> List[Game]:
    """Every position with at most ``seeds`` seeds on the board, the game not over, of ``games`` games of uniform
    legal moves drawn from ``rng``, each played from the start to its end; in the order they were met (a position
    met twice is kept twice).

    Raises:
        ValueError: bad rules.
    """
    found: List[Game] = []
    for _ in range(games):
        game = Game(rules=rules)
        while not game.game_finished:
            if sum(game.pits) <= seeds:
                found.append(game)
            game = game.step(int(rng.choice(game.legal_actions)))[0]
    return found
