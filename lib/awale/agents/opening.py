"""Games from a given opening: ``opening(agent=SPEC, moves=DIGITS)`` plays a fixed line, then the agent.

Engine testers start the games of a match from a set of openings, each played
twice with the sides swapped, so that the pairs of games do not all repeat the
same few lines and the bias of an opening cancels within its pair (Fishtest,
fastchess and cutechess do this with opening books).  Here an opening is the
list of the first actions of the game, and the agent that plays it is an
ordinary agent spec, so a game from an opening is still a pure function of
its key (agent specs, seed, rules): it is stored, verified and replayed like
every other game.  Both sides of such a game carry the same ``moves``.

>>> from awale.play.match import play
>>> record = play("opening(agent='greedy', moves='25')", "opening(agent='random', moves='25')", seed=1)
>>> record.moves[:2]
(2, 5)
"""

from __future__ import annotations

from typing import Optional, Tuple

from ..core.game import Game
from ..search.limits import Limits
from .base import Param, WrapperAgent, parse, register, seed_param

__all__ = ["OpeningAgent", "MAX_OPENING_PLIES", "split_opening"]

#: The longest opening line, in plies.
MAX_OPENING_PLIES = 40


@register
class OpeningAgent(WrapperAgent):
    """Plays the actions of ``moves`` while the game is within them, then the agent ``agent``.

    Spec: ``opening(agent='uct(iterations=1000)', moves='2514')``.

    At ply ``k < len(moves)`` (counted from the initial position) the action
    played is ``int(moves[k])`` (0 to 5, relative to the player to move, as
    the store writes moves); from ply ``len(moves)`` on, ``agent`` chooses.
    The same line is given to both sides, so each plays its own plies of it.
    A line action that is illegal where it comes is an error.

    The agent's ``seed`` is passed to the inner agent (if it has one), so
    that :func:`awale.play.match.play`, which replaces the seed of each side,
    seeds the inner agent exactly as it would seed it alone.

    Args:
        agent: the spec of the agent that plays after the opening.
        moves: the opening line, one digit per ply, at most
            :data:`MAX_OPENING_PLIES` (may be empty).
        seed: passed to the inner agent as its ``seed``.
    """

    name = "opening"
    params = (
        Param("agent", str, None, doc="the agent that plays after the opening"),
        Param("moves", str, "", doc="the opening's actions, one digit (0-5) per ply"),
        seed_param(),
    )

    def validate(self) -> None:
        inner = parse(self.agent)
        if isinstance(inner, OpeningAgent):
            raise ValueError("opening: the agent after an opening cannot itself be an opening")
        if len(self.moves) > MAX_OPENING_PLIES:
            raise ValueError(f"opening: moves holds at most {MAX_OPENING_PLIES} plies, got {len(self.moves)}")
        if any(c not in "012345" for c in self.moves):
            raise ValueError(f"opening: moves must be digits 0 to 5, one per ply, got {self.moves!r}")
        self._wrap(inner)

    def act(self, game: Game, limits: Optional[Limits] = None) -> int:
        """The opening's action at this ply, or the inner agent's after the opening.

        Raises:
            ValueError: ``game`` is not an :class:`awale.Game`, is finished, or
                the opening's action at this ply is not legal.
        """
        self._check_game(game)
        if game.plies < len(self.moves):
            self._inner.observe(game)  # an agent that follows the game move by move sees the opening too
            action = int(self.moves[game.plies])
            if action not in game.legal_actions:
                raise ValueError(
                    f"opening: action {action} at ply {game.plies} of {self.moves!r} is not legal "
                    f"(legal: {game.legal_actions})"
                )
            return action
        return self._inner.act(game, limits)


def split_opening(spec: str) -> Tuple[str, str]:
    """``(agent, moves)`` of an ``opening(...)`` spec; ``(spec, "")`` for any other agent; specs canonical.

    Games from openings are stored under the wrapped specs; this gives the
    agent a result belongs to.

    >>> split_opening("opening(agent='uct(iterations=100)', moves='2514')")
    ('uct(iterations=100)', '2514')
    >>> split_opening("greedy")
    ('greedy', '')

    Raises:
        ValueError: a spec that does not parse.
    """
    agent = parse(spec)
    if isinstance(agent, OpeningAgent):
        return agent.agent, agent.moves
    return agent.spec, ""
