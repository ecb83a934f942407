"""Agents that play Awale, all behind one interface: ``act(game) -> action`` and ``reset()``.

>>> from awale.agents import parse
>>> agent = parse("greedy(eps=0.1, seed=3)")
>>> str(parse(str(agent))) == str(agent)
True
"""

from .base import Agent, Param, canonical_spec, parse, register, registry
from . import basic, champion, clocked, engine, external, minimax, mcts, opening  # noqa: F401  (importing them registers their agents)

__all__ = ["Agent", "Param", "canonical_spec", "parse", "register", "registry"]
