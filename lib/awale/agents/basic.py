"""The baseline agents: ``random`` (uniform over the legal moves) and ``greedy`` (captures first).

>>> from awale import Game
>>> from awale.agents import parse
>>> game = Game.from_position([1, 3, 1, 2, 1, 2], captures=(6, 8))  # pit 1 captures 5, pit 2 only 3
>>> parse("greedy").act(game)
1
"""

from __future__ import annotations

from typing import List, Optional

import numpy as np

from ..core.game import Game
from ..search.limits import Limits
from .base import Agent, Param, register, seed_param

__all__ = ["RandomAgent", "GreedyAgent"]


class _Seeded(Agent):
    """An agent with a ``seed`` parameter and a numpy generator that :meth:`reset` restarts."""

    def reset(self) -> None:
        """Restart the random generator from ``seed``: the same seed replays the same choices."""
        self._rng = np.random.default_rng(self.seed)

    def _choice(self, actions: List[int]) -> int:
        """One of ``actions``, uniformly at random."""
        return actions[int(self._rng.integers(len(actions)))]


@register
class RandomAgent(_Seeded):
    """Plays a legal action chosen uniformly at random.

    Spec: ``random(seed=0)``.

    Args:
        seed: seed of the random generator (an integer, at least 0).
    """

    name = "random"
    params = (seed_param(),)

    def act(self, game: Game, limits: Optional[Limits] = None) -> int:
        """A legal action of ``game``, uniformly at random.

        Raises:
            ValueError: ``game`` is not an :class:`awale.Game` or is finished.
        """
        self._check_game(game)
        return self._choice(game.legal_actions)


@register
class GreedyAgent(_Seeded):
    """Plays the move that captures the most seeds now, with random exploration.

    Spec: ``greedy(eps=0.0, seed=0)``.

    With probability ``eps`` the agent plays a legal move chosen uniformly at
    random.  Otherwise it plays a move that wins the game outright if there
    is one, else a move that captures the most seeds this ply; ties are broken
    uniformly at random.  So ``eps=0`` is purely greedy and ``eps=1`` plays
    like the random agent.  (The reference thesis's text called ``eps`` the
    probability of the greedy move while its code used it as the probability
    of a random move; here it is the probability of a random move.)

    Each move is evaluated with :meth:`awale.Game.step`, so the agent follows
    whatever rules the game is played under.

    Args:
        eps: probability of a random move, from 0 to 1.
        seed: seed of the random generator (an integer, at least 0).
    """

    name = "greedy"
    params = (
        Param("eps", float, 0.0, minimum=0.0, maximum=1.0, doc="probability of a random move instead of the greedy one"),
        seed_param(),
    )

    def act(self, game: Game, limits: Optional[Limits] = None) -> int:
        """The greedy action in ``game``, or with probability ``eps`` a random one.

        Raises:
            ValueError: ``game`` is not an :class:`awale.Game` or is finished.
        """
        self._check_game(game)
        actions = game.legal_actions
        # One draw per call whatever eps is, so the random stream does not depend on it.
        if self._rng.random() < self.eps:
            return self._choice(actions)
        me = game.current_player
        values = []
        for action in actions:
            child, captured, finished = game.step(action)
            values.append((finished and child.winner == me, captured))
        best = max(values)
        return self._choice([a for a, v in zip(actions, values) if v == best])
