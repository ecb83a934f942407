"""Another program's agents as reference points: OpenSpiel's C++ MCTS and its αβ search.

OpenSpiel (Lanctot et al. 2019) implements Oware with the same board layout
and the same rules as :class:`awale.Rules` (Abapa), checked ply by ply by
the test suite.  Its ``MCTSBot`` is a plain UCT with one random rollout per
leaf, written in C++; with a seed and a number of simulations it plays the
same moves every time, so games against it can be stored and replayed like
any other.  Its ``alpha_beta_search`` (Python) is the other classical
reference, ``openspiel_alphabeta``: deterministic, so its games replay too.

The bot keeps its own OpenSpiel state, which it advances with the moves it
sees: it plays games that start from the initial position and that it is
shown at each of its turns (as :func:`awale.play.match.play` does).  OpenSpiel is
imported when the agent is first reset, so the rest of the library does not
need it (``pip install open-spiel``).
"""

from __future__ import annotations

from typing import Any, Optional

from ..core.game import Game
from ..search.limits import Limits
from ..core.rules import Rules
from .base import Agent, Param, register, seed_param

__all__ = ["OpenSpielMCTS", "OpenSpielAlphaBeta"]


def _load_oware() -> Any:
    try:
        import pyspiel
    except ImportError:
        raise ValueError("OpenSpiel's agents need OpenSpiel: pip install open-spiel") from None
    return pyspiel.load_game("oware")


class _Following(Agent):
    """An agent that keeps an OpenSpiel state in step with the games it is shown."""

    def _start_following(self) -> None:
        self._spiel_game = _load_oware()
        self._game: Optional[Game] = None
        self._state: Any = None

    def observe(self, game: Game) -> None:
        """Follow ``game`` without choosing a move (the plies of an opening)."""
        self._follow(game)

    def _follow(self, game: Game) -> None:
        """Bring the OpenSpiel state to ``game``: up to two plies after the last position seen (or the start).

        Raises:
            ValueError: ``game`` is not a game or is over, its rules are not
                OpenSpiel's (``awale.Rules()``), or it does not continue the
                game followed so far (nor start from the initial position).
        """
        self._check_game(game)
        if game.rules != Rules():
            raise ValueError(f"{self.name} plays only OpenSpiel's oware rules, awale.Rules() (Abapa)")
        if game.plies == 0 or self._game is None:
            self._game, self._state = Game(game.rules), self._spiel_game.new_initial_state()
        frontier = [(self._game, ())]
        for _ in range(3):
            for position, path in frontier:
                if position == game and position.plies == game.plies:
                    for action in path:
                        self._state.apply_action(action)
                    self._game = game
                    return
            frontier = [
                (position.step(action)[0], path + (action,))
                for position, path in frontier
                if not position.game_finished
                for action in position.legal_actions
            ]
        raise ValueError(
            f"{self.name} follows a game move by move from the initial position; "
            f"this position (ply {game.plies}) does not continue the game it has seen"
        )


@register
class OpenSpielMCTS(_Following):
    """OpenSpiel's ``MCTSBot`` (C++) with a random-rollout evaluator.

    Spec: ``openspiel_mcts(iterations=1000, c=1.414, seed=0)``.

    OpenSpiel scores a game -1, 0 or 1 where :mod:`awale.search.mcts` scores it
    0, ½ or 1, so its exploration constant is twice ours for the same search:
    the default 1.414 matches ``uct``'s default 0.707.

    Args:
        iterations: simulations per move (one rollout each).
        c: OpenSpiel's ``uct_c``.
        solve: OpenSpiel's MCTS-Solver option.
        seed: seeds the bot and its rollouts (OpenSpiel takes a 31-bit
            seed: ``seed`` modulo 2**31 - 1 is given).
    """

    name = "openspiel_mcts"
    params = (
        Param("iterations", int, 1000, minimum=1, maximum=10**7, doc="simulations per move"),
        Param("c", float, 1.414, minimum=0.0, doc="OpenSpiel's uct_c (rewards in [-1, 1])"),
        Param("solve", bool, False, doc="OpenSpiel's MCTS-Solver"),
        seed_param(),
    )

    def reset(self) -> None:
        """A new bot, seeded again, and no game followed yet."""
        self._start_following()  # first: without OpenSpiel it raises the clear ValueError
        import pyspiel

        seed = self.seed % (2**31 - 1)
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        self._bot = pyspiel.MCTSBot(self._spiel_game, evaluator, self.c, self.iterations, 10**4, self.solve, seed, False)

    def act(self, game: Game, limits: Optional[Limits] = None) -> int:
        """OpenSpiel's choice in ``game`` (see :meth:`_Following._follow` for what it refuses)."""
        self._follow(game)
        return int(self._bot.step(self._state))


@register
class OpenSpielAlphaBeta(_Following):
    """OpenSpiel's ``alpha_beta_search`` (Python) to a fixed depth, leaves scored by the capture difference.

    Spec: ``openspiel_alphabeta(depth=4)``.  A finished game is worth ±1 to
    OpenSpiel, so the capture difference at the depth limit is divided by
    49 to stay below a win.  It plays the first best move it finds: the
    same moves every time.

    Args:
        depth: plies searched.
    """

    name = "openspiel_alphabeta"
    params = (Param("depth", int, 4, minimum=1, maximum=20, doc="plies searched"),)

    def reset(self) -> None:
        """Forget the game followed so far."""
        self._start_following()

    def act(self, game: Game, limits: Optional[Limits] = None) -> int:
        """OpenSpiel's αβ choice in ``game`` (see :meth:`_Following._follow` for what it refuses)."""
        from open_spiel.python.algorithms.minimax import alpha_beta_search

        self._follow(game)
        me = self._state.current_player()

        def captures(state: Any) -> float:
            tensor = state.observation_tensor(me)
            return (tensor[12 + me] - tensor[13 - me]) * 48 / 49

        _, action = alpha_beta_search(
            self._spiel_game, self._state.clone(), captures, self.depth, maximizing_player_id=me
        )
        return int(action)
