"""Play one game between two agents and keep a record of it: :func:`play` and :class:`MatchRecord`.

>>> record = play("greedy", "random", seed=1)
>>> record.plies == len(record.moves), record.result in (0.0, 0.5, 1.0)
(True, True)
"""

from __future__ import annotations

import dataclasses
import operator
import time
from typing import Optional, Tuple, Union

import numpy as np

from .agents import Agent, canonical_spec, parse
from .game import PLAYERS, Game, IllegalActionError
from .rules import Rules, as_rules

__all__ = ["MatchRecord", "play", "fresh_agents"]


@dataclasses.dataclass(frozen=True)
class MatchRecord:
    """The record of one game played by :func:`play`.

    Attributes:
        south, north: canonical specs of the agents as given to :func:`play`
            (their own ``seed`` is replaced during the game, see :func:`play`).
        seed: the match seed.
        rules: the rules played, ``max_plies`` included.
        winner: 0 (South), 1 (North) or None for a draw.
        score: final captures of South and North (seeds collected at the end included).
        plies: plies played.
        moves: the actions played, in order, each relative to the player to move.
        south_seconds, north_seconds: time spent in each agent's ``act``.
    """

    south: str
    north: str
    seed: int
    rules: Rules
    winner: Optional[int]
    score: Tuple[int, int]
    plies: int
    moves: Tuple[int, ...]
    south_seconds: float
    north_seconds: float

    @property
    def result(self) -> float:
        """South's result: 1.0 for a win, 0.5 for a draw, 0.0 for a loss."""
        return 0.5 if self.winner is None else float(self.winner == 0)


def play(
    south: Union[Agent, str],
    north: Union[Agent, str],
    rules: Optional[Rules] = None,
    seed: int = 0,
    max_plies: Optional[int] = None,
) -> MatchRecord:
    """Play a game from the initial position, South first, and return its record.

    A match is reproducible from its agents, rules and seed: each side plays
    a fresh copy of its agent whose ``seed`` parameter, if it has one, is
    replaced by one derived from ``(seed, side)``.  The agents given are left
    untouched, and the seed in their specs does not matter here.

    Args:
        south, north: agents or agent specs such as ``"greedy(eps=0.1)"``.
        rules: the rules; by default ``Rules()`` (Abapa).
        seed: the match seed, an integer at least 0.
        max_plies: if given, replaces the rules' ``max_plies`` (the game is
            then a draw after that many plies unless it ended before).

    Raises:
        ValueError: a bad spec, rules, seed or ``max_plies``, or an agent
            that chose an illegal action.
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer at least 0, got {seed!r}")
    seed = int(seed)
    rules = as_rules(rules)
    if max_plies is not None:
        rules = dataclasses.replace(rules, max_plies=max_plies)
    given = (_canonical(south), _canonical(north))
    agents = fresh_agents((south, north), seed)

    game = Game(rules)
    moves = []
    seconds = [0.0, 0.0]
    while not game.game_finished:
        player = game.current_player
        start = time.perf_counter()
        action = agents[player].act(game)
        seconds[player] += time.perf_counter() - start
        try:
            game, _, _ = game.step(action)
        except IllegalActionError:
            raise ValueError(
                f"agent {given[player]!r} ({PLAYERS[player]}) chose the illegal action {action!r} "
                f"at ply {game.plies}; legal actions: {game.legal_actions}"
            ) from None
        moves.append(operator.index(action))
    return MatchRecord(
        south=given[0],
        north=given[1],
        seed=seed,
        rules=rules,
        winner=game.winner,
        score=game.captures,
        plies=game.plies,
        moves=tuple(moves),
        south_seconds=seconds[0],
        north_seconds=seconds[1],
    )


def fresh_agents(agents: Tuple[Union[Agent, str], Union[Agent, str]], seed: int) -> Tuple[Agent, Agent]:
    """New, reset agents for South and North as :func:`play` gives them a game of ``seed``.

    Each is made once: a spec is parsed with its ``seed`` (if it has one) derived from the match seed
    and its side, an agent is copied with that seed; so replaying a stored game with these agents gives
    the same moves.

    Raises:
        ValueError: a bad spec.
    """
    fresh = []
    for side, agent in enumerate(agents):
        derived = int(np.random.SeedSequence([seed, side]).generate_state(1)[0])
        made = parse(agent, seed=derived)
        fresh.append(agent.replace() if made is agent else made)  # an agent without a seed: a fresh copy
    return fresh[0], fresh[1]


def _canonical(agent: Union[Agent, str]) -> str:
    """The canonical spec of an agent or a spec (remembered for a spec: a run plays many games of each)."""
    return canonical_spec(agent) if isinstance(agent, str) else parse(agent).spec
