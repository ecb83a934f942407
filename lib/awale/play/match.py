"""Play one game between two agents and keep a record of it: :func:`play` and :class:`MatchRecord`.

>>> record = play("greedy", "random", seed=1)
>>> record.plies == len(record.moves), record.result in (0.0, 0.5, 1.0)
(True, True)
"""

from __future__ import annotations

import dataclasses
import operator
import time
from typing import Optional, Set, Tuple, Union

import numpy as np

from ..agents import Agent, canonical_spec, parse
from ..agents.clocked import with_clock
from ..agents.opening import split_opening
from ..core.clock import Clock
from ..core.game import PLAYERS, Game, IllegalActionError
from ..core.record import score_text
from ..core.rules import Rules, as_rules

__all__ = ["MatchRecord", "play", "fresh_agents", "warm_up", "Clock", "score_text", "shown_spec"]

#: The parameters that bound a search, in the order a spec shown with its budget names them.
_BUDGETS = ("iterations", "depth", "nodes", "time")


def shown_spec(spec: Union[str, Agent]) -> str:
    """An agent's spec as a line of a match shows it: with its budget, the default one written out if the spec
    gives none, so that both sides read alike ("minimax(depth=4)" beside "uct(iterations=2000)").

    >>> shown_spec("minimax"), shown_spec("uct(iterations=2000)"), shown_spec("greedy")
    ('minimax(depth=4)', 'uct(iterations=2000)', 'greedy')
    """
    try:
        agent = parse(spec)
    except (ValueError, TypeError):
        return str(spec)
    text = agent.spec
    names = {param.name for param in getattr(type(agent), "params", ())}
    if any(f"{name}=" in text for name in _BUDGETS if name in names):
        return text
    for name in _BUDGETS:
        value = getattr(agent, "budget_iterations", None) if name == "iterations" else None
        if name in names and value is None:
            value = getattr(agent, name, None)
        if name in names and value is not None and not isinstance(value, bool):
            inner = text[text.index("(") + 1:-1] if text.endswith(")") else ""
            return f"{agent.name}({name}={value!r}{', ' + inner if inner else ''})"
    return text


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
        flagged: the side whose clock ran out (0 South, 1 North), which lost
            the game on time, or None for a game that ended by the rules.
            The moves then stop before the end of the game, and ``score``
            holds the captures when the time ran out.  (The store keeps no
            column for it: a stored game whose moves leave it unfinished
            was lost on time by the side to move, see
            :func:`awale.experiments.verify.check_rules`.)
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
    flagged: Optional[int] = None

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
    clock: Union[Clock, str, None] = None,
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
        clock: if given (a :class:`~awale.core.clock.Clock` or its text, such as
            ``"60+0.5"``), both sides play under it: each is given as
            ``clocked(agent=..., tc=...)`` (:mod:`awale.agents.clocked`), and
            the record's specs say so.  An agent may also bring its own
            clock in its spec.  A side with a clock starts with its base
            time; the wall time of each of its moves is taken from it (and
            the increment added after the move), it is told its time before
            each move (:meth:`~awale.agents.Agent.observe_clock`), and it
            loses the game when its time runs out during a move (the
            record's ``flagged``).  A side whose moves depend on time (a
            clock, a time budget, threads) first makes one untimed move in
            each process (:func:`warm_up`): compiling its kernels is not
            charged to its first move, nor taken from that move's search.

    Raises:
        ValueError: a bad spec, rules, seed, ``max_plies`` or clock, an agent
            with a clock of its own given a clock, or an agent that chose an
            illegal action.
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer at least 0, got {seed!r}")
    seed = int(seed)
    rules = as_rules(rules)
    if max_plies is not None:
        rules = dataclasses.replace(rules, max_plies=max_plies)
    if clock is not None:
        south, north = with_clock(south, clock), with_clock(north, clock)
    given = (_canonical(south), _canonical(north))
    agents = fresh_agents((south, north), seed)
    clocks = [agent.clock for agent in agents]
    left = [None if c is None else c.base for c in clocks]
    for spec, agent in zip(given, agents):
        if agent.clock is not None or not agent.replayable:  # moves that depend on time (or threads' timing)
            warm_up(spec, rules)

    game = Game(rules)
    moves = []
    seconds = [0.0, 0.0]
    flagged = None
    while not game.game_finished:
        player = game.current_player
        timed = clocks[player]
        if timed is not None:
            agents[player].observe_clock(left[player], timed.increment)
        start = time.perf_counter()
        action = agents[player].act(game)
        took = time.perf_counter() - start
        seconds[player] += took
        if timed is not None:
            left[player] -= took
            if left[player] < 0:
                flagged = player  # out of time: the move is not played
                break
            left[player] += timed.increment
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
        winner=game.winner if flagged is None else 1 - flagged,
        score=game.captures,
        plies=game.plies,
        moves=tuple(moves),
        south_seconds=seconds[0],
        north_seconds=seconds[1],
        flagged=flagged,
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


#: The agents (spec, rules) that have made an untimed move in this process (:func:`warm_up`).
_WARM: Set[Tuple[str, Rules]] = set()

#: The plies played (each side's first legal action) to reach the position of :func:`warm_up`: past the opening book.
_WARM_PLIES = 8


def warm_up(spec: str, rules: Rules) -> None:
    """Make one untimed move with a copy of ``spec``, once per process, before its first timed game.

    The first move of an agent in a process compiles its kernels (or loads them from numba's cache) and loads
    its evaluation or database: work of the process, not of the game, which a clock must not charge (engine
    testers start the engines before their clocks).  The position is one past the opening book, so that a
    search is made.
    """
    spec = split_opening(spec)[0]  # the agent that searches, not its opening's fixed moves
    if (spec, rules) in _WARM:
        return
    warmed = parse(spec)
    game = Game(rules)
    for _ in range(_WARM_PLIES):
        following, _, _ = game.step(game.legal_actions[0])
        if following.game_finished:
            break
        warmed.observe(game)  # an agent that follows the game move by move sees the line
        game = following
    warmed.act(game)
    _WARM.add((spec, rules))


def _canonical(agent: Union[Agent, str]) -> str:
    """The canonical spec of an agent or a spec (remembered for a spec: a run plays many games of each)."""
    return canonical_spec(agent) if isinstance(agent, str) else parse(agent).spec
