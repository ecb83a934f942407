"""Games under a clock: ``clocked(agent=SPEC, tc='60+0.5')`` plays ``agent`` with 60 s a game plus 0.5 s a move.

A clock belongs to a game's conditions, like its opening, so it is written
into the agents' specs, as :mod:`awale.agents.opening` writes an opening: the
spec of each side names its clock, and the store's keys (agent specs, seed,
rules) then tell games of different clocks apart without a new column, so
that a resumed test never mixes clocks.  :func:`awale.play.match.play` reads the
clock of each side from its agent (:attr:`awale.agents.Agent.clock`), takes
the time of each move from it, adds the increment after the move, and tells
the agent its time before each move (:meth:`awale.agents.Agent.observe_clock`);
a side whose time runs out loses on time.  Such a game depends on the
machine's speed, so it is not replayed (:attr:`ClockedAgent.replayable` is
False).

``play(south, north, clock="60+0.5")`` gives both sides the clock.

>>> from awale.agents import parse
>>> str(parse("clocked(agent='greedy', tc='60+0.50')"))
"clocked(agent='greedy', tc='60+0.5')"
"""

from __future__ import annotations

from typing import Optional, Tuple, Union

from ..core.clock import Clock
from .base import Agent, Param, WrapperAgent, parse, register, seed_param
from .opening import OpeningAgent

__all__ = ["ClockedAgent", "split_clock", "with_clock"]


@register
class ClockedAgent(WrapperAgent):
    """Plays as the agent ``agent``, under the clock ``tc`` (``BASE+INCREMENT`` in seconds, testers' notation).

    Spec: ``clocked(agent='champion(time=0.1, manage=True)', tc='60+0.5')``.

    The agent's ``seed`` is passed to the inner agent (if it has one), as
    every :class:`~awale.agents.base.WrapperAgent` does.  The inner agent may not
    have a clock of its own, nor be an opening: an opening wraps a clocked
    agent (``opening(agent="clocked(...)", moves=...)``), not the reverse, so
    that each game has one spelling.

    Args:
        agent: the spec of the agent that plays.
        tc: the time control, such as ``'60+0.5'`` (:meth:`awale.core.clock.Clock.parse`); kept canonical.
        seed: passed to the inner agent as its ``seed``.
    """

    name = "clocked"
    params = (
        Param("agent", str, None, doc="the agent that plays under the clock"),
        Param("tc", str, None, doc="the time control, BASE+INCREMENT in seconds, such as '60+0.5'"),
        seed_param(),
    )

    def validate(self) -> None:
        inner = parse(self.agent)
        if inner.clock is not None:
            raise ValueError(f"clocked: the agent {inner.spec!r} already has a clock")
        if isinstance(inner, OpeningAgent):
            raise ValueError("clocked: an opening wraps a clocked agent, not the reverse: "
                             "opening(agent=\"clocked(...)\", moves=...)")
        self._clock = Clock.parse(self.tc)
        self.tc = self._values["tc"] = str(self._clock)  # canonical, as the store keeps specs
        self._wrap(inner)

    @property
    def clock(self) -> Clock:
        """The clock of this agent's games."""
        return self._clock

    @property
    def replayable(self) -> bool:
        """False: a game under a clock depends on the machine's speed (a move's time, a loss on time)."""
        return False


def with_clock(agent: Union[Agent, str], clock: Union[Clock, str]) -> Agent:
    """``agent`` under ``clock``: ``clocked(agent=..., tc=...)``, inside the opening of an opening's agent.

    Raises:
        ValueError: a bad spec or clock, or an agent that already has a clock.
    """
    clock = Clock.parse(clock)
    made = parse(agent)
    if isinstance(made, OpeningAgent):
        inner = ClockedAgent(agent=made.agent, tc=str(clock), seed=made.seed)
        return OpeningAgent(agent=inner.spec, moves=made.moves, seed=made.seed)
    return ClockedAgent(agent=made.spec, tc=str(clock), seed=getattr(made, "seed", 0))


def split_clock(spec: str) -> Tuple[Agent, Optional[Clock]]:
    """``(agent, clock)`` of a ``clocked(...)`` spec, the agent that plays under the clock; ``(agent, None)`` for
    any other.

    >>> agent, clock = split_clock("clocked(agent='greedy', tc='3+0.03')")
    >>> agent.spec, str(clock)
    ('greedy', '3+0.03')
    >>> split_clock("greedy")[1] is None
    True

    Raises:
        ValueError: a spec that does not parse.
    """
    agent = parse(spec)
    return (parse(agent.agent), agent.clock) if isinstance(agent, ClockedAgent) else (agent, None)
