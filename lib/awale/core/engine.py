"""The engine's public interface: what the searches, the evaluation and the endgame database use of the rules.

The rules (:mod:`awale.core.rules`) are kernels on small ``int64`` arrays; this module names the ones a search is
built from, and :func:`game_arrays`, the arrays behind a :class:`awale.Game` (a :class:`GameArrays`).  Everything here works on those
arrays, compiled by numba when it is there (:mod:`awale.core._jit`), and may be called from compiled code.

* A *state* is ``2n + 5`` integers: the pits, both captures, the player to move, the plies and the outcome
  (``ONGOING``, ``SOUTH``, ``NORTH`` or ``DRAW``); see :mod:`awale.core.rules`.
* A *history* (``keys``, ``boards``, ``length``) holds the positions since the last capture, for the repetition
  rule; :func:`copy_history` copies one and :func:`grown` doubles its room.
* ``params`` is :attr:`Rules.params`; its entries are indexed by the ``R_*`` constants.
* A random state is four words of xorshift128 (:func:`seed_rng`), drawn by :func:`next_u32` and :func:`below`.

>>> from awale import Game
>>> arrays = game_arrays(Game())
>>> int(arrays.state[12 + 2]), arrays.length
(0, 1)
"""

from __future__ import annotations

from .game import GameArrays, game_arrays
from .rules import (
    DRAW, NORTH, ONGOING, R_COLLECT, R_FEED, R_GRAND_SLAM, R_MAX_PLIES, R_PITS, R_REPETITION, R_TOTAL, SOUTH,
    advance, below, capture, chain, copy_history, grown, legal_actions, next_u32, position_key, random_playouts, seed_rng,
    sow,
)

__all__ = [
    "GameArrays", "game_arrays",
    "ONGOING", "SOUTH", "NORTH", "DRAW",
    "R_PITS", "R_TOTAL", "R_FEED", "R_GRAND_SLAM", "R_REPETITION", "R_COLLECT", "R_MAX_PLIES",
    "legal_actions", "advance", "sow", "chain", "capture", "copy_history", "grown", "position_key",
    "seed_rng", "next_u32", "below", "random_playouts",
]
