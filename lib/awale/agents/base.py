"""One interface for every agent, and one safe way to name an agent.

An agent has ``act(game, limits=None) -> action`` and ``reset()``; ``limits``
(:class:`awale.search.limits.Limits`) bounds one search, and without it the
agent searches with the budget of its spec.  Each kind of agent is a
subclass of :class:`Agent` that declares its parameters (:class:`Param`) and
registers itself under a name with :func:`register`.  :func:`parse` turns a
spec such as ``"uct(iterations=3800, c=0.707, seed=1)"`` into an agent, and
``str(agent)`` gives back the canonical spec.  Specs are read with Python's
parser and only literal keyword arguments are accepted: nothing in a spec is
ever executed or looked up.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import math
from typing import Any, ClassVar, Dict, FrozenSet, Optional, Tuple, Type

from ..core.clock import Clock
from ..core.game import Game
from ..search.limits import Limits

__all__ = ["Agent", "WrapperAgent", "Param", "register", "parse", "canonical_spec", "registry", "budget_params",
           "seed_param", "check_budget", "given_limits", "MAX_SPEC_LENGTH", "MAX_SECONDS"]

_REGISTRY: Dict[str, Type["Agent"]] = {}

#: The longest agent spec, given or canonical (the store keeps canonical specs and reads them back).
MAX_SPEC_LENGTH = 1000

_INT64 = 2**63

#: The longest time budget of a move, in seconds (a day); a longer one is refused at once, as a tree too
#: large for memory is.
MAX_SECONDS = 86_400.0


@dataclasses.dataclass(frozen=True)
class Param:
    """A declared parameter of an agent.

    Args:
        name: the keyword in specs and in the constructor.
        kind: ``int``, ``float``, ``bool`` or ``str``.
        default: the value when the spec does not give one.
        minimum, maximum: inclusive bounds for numbers.
        choices: the allowed values for strings.
        optional: None is allowed (and then means "not set").
        doc: one line for ``--help`` texts and error messages.
    """

    name: str
    kind: type
    default: Any = None
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    choices: Tuple[str, ...] = ()
    optional: bool = False
    doc: str = ""

    def check(self, agent: str, value: Any) -> Any:
        """Return ``value`` converted to this parameter's kind, or raise ``ValueError``."""
        where = f"{agent}: {self.name}"
        if value is None:
            if self.optional:
                return None
            raise ValueError(f"{where} cannot be None")
        if self.kind is bool:
            if not isinstance(value, bool):
                raise ValueError(f"{where} must be True or False, got {value!r}")
            return value
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{where} must be an integer, got {value!r}")
            if not -_INT64 <= value < _INT64:  # the kernels take 64-bit integers
                raise ValueError(f"{where} must be a 64-bit integer (less than 2**63 in size), got {_short(value)}")
        elif self.kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{where} must be a number, got {value!r}")
            try:
                value = float(value)
            except OverflowError:
                raise ValueError(f"{where} must be finite, got {_short(value)}") from None
            if not math.isfinite(value):
                raise ValueError(f"{where} must be finite, got {value!r}")
        elif self.kind is str:
            if not isinstance(value, str):
                raise ValueError(f"{where} must be a string, got {value!r}")
            if self.choices and value not in self.choices:
                raise ValueError(f"{where} must be one of {', '.join(map(repr, self.choices))}, got {value!r}")
            return value
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"{where} must be at least {self.minimum}, got {value!r}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"{where} must be at most {self.maximum}, got {value!r}")
        return value


class Agent:
    """The base of every agent: declared parameters, a canonical spec, ``act`` and ``reset``.

    Subclasses set ``name`` and ``params`` and implement :meth:`act`.  Their
    constructor takes the declared parameters as keywords; the checked
    values are available as attributes of the same names.
    """

    name: ClassVar[str] = ""
    params: ClassVar[Tuple[Param, ...]] = ()
    #: The kinds of :class:`~awale.search.limits.Limits` its searches honour (``time``, ``depth``, ``nodes``,
    #: ``clock``, ``infinite``, ``ponder``); the others are ignored (an agent that does not search honours none).
    honours: ClassVar[FrozenSet[str]] = frozenset()

    def __init__(self, **kwargs: Any) -> None:
        declared = {p.name: p for p in self.params}
        for key in kwargs:
            if key not in declared:
                known = ", ".join(declared) or "none"
                raise ValueError(f"{self.name}: unknown parameter {key!r} (parameters: {known})")
        values = {}
        for param in self.params:
            values[param.name] = param.check(self.name, kwargs.get(param.name, param.default))
        self._values = values
        for key, value in values.items():
            setattr(self, key, value)
        self.validate()
        self.reset()

    def validate(self) -> None:
        """Check combinations of parameters (raise ``ValueError``); per-parameter checks are done."""

    def reset(self) -> None:
        """Forget everything learnt from earlier calls (search trees, random state)."""

    def act(self, game: Game, limits: Optional[Limits] = None) -> int:
        """Choose an action among ``game.legal_actions``.

        Args:
            game: the position, not finished.
            limits: the bounds of this search (:class:`~awale.search.limits.Limits`); the first reached stops
                it.  None (or empty limits): the budget of the agent's spec, so that a stored game replays.
        """
        raise NotImplementedError

    def expected_reply(self, game: Game, action: int) -> Optional[int]:
        """The reply to ``action`` in ``game`` that the agent's last search expects (its principal variation's
        second move), or None if it has none: the engine's ``bestmove X ponder Y``."""
        return None

    def observe(self, game: Game) -> None:
        """Be shown a position of the game where the move is not this agent's to choose (an opening's).

        Most agents need nothing from it; those that follow the game move by
        move (OpenSpiel's) bring their own state up to date.
        """

    def observe_clock(self, remaining: float, increment: float) -> None:
        """Be told, before a move of this agent in a game under a clock, the seconds it has left.

        :func:`awale.play.match.play` calls it just before :meth:`act` when the
        agent plays under a clock (:class:`awale.core.clock.Clock`): ``remaining``
        seconds are left on its clock, and ``increment`` seconds will be
        added after the move.  Most agents ignore it; those that manage
        their time (``champion(manage=True)``) size their moves by it.
        """

    @property
    def clock(self) -> Optional[Clock]:
        """The clock this agent plays under, if its spec gives one (``clocked(...)``); None for most agents."""
        return None

    @property
    def replayable(self) -> bool:
        """Whether a game of this agent replays move for move from its seed: not with a time budget, nor on
        several threads (an agent whose threads keep its moves reproducible says so itself)."""
        return getattr(self, "time", None) is None and getattr(self, "threads", 1) == 1

    def _check_game(self, game: Game) -> None:
        if not isinstance(game, Game):
            raise ValueError(f"{self.name}: act() needs an awale.Game, got {game!r}")
        if game.game_finished:
            raise ValueError(f"{self.name}: the game is over, there is no action to choose")

    def replace(self, **changes: Any) -> "Agent":
        """A new agent of the same kind with some parameters changed (checked like any other)."""
        return type(self)(**{**self._values, **changes})

    @property
    def spec(self) -> str:
        """The canonical spec: the name and every parameter that differs from its default."""
        return self._spec_without(())

    def _spec_without(self, unused: Tuple[str, ...]) -> str:
        """The canonical spec, leaving out the parameters named in ``unused`` (they do not apply)."""
        args = [
            f"{p.name}={self._values[p.name]!r}"
            for p in self.params
            if p.name not in unused and self._values[p.name] != p.default
        ]
        return f"{self.name}({', '.join(args)})" if args else self.name

    def __str__(self) -> str:
        return self.spec

    def __repr__(self) -> str:
        return f"<agent {self.spec}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Agent):
            return NotImplemented
        return type(self) is type(other) and self._values == other._values

    def __hash__(self) -> int:
        return hash(self.spec)


class WrapperAgent(Agent):
    """An agent that plays through another, named by the spec in its parameter ``agent``: a game's condition.

    The openings (:mod:`awale.agents.opening`) and the clocks (:mod:`awale.agents.clocked`) are such
    conditions: written into a side's spec, they make part of a stored game's key.  The wrapper's ``seed`` is
    passed to the inner agent, if it has one, so that :func:`awale.play.match.play`, which replaces the seed of
    each side, seeds the inner agent exactly as it would seed it alone.  Everything not overridden is the
    inner agent's: its moves, threads, replayability, clock, resets and what it is shown.
    """

    def _wrap(self, inner: Agent) -> None:
        """Keep ``inner`` (seeded with this agent's seed) and its canonical spec as the ``agent`` parameter."""
        self.agent = self._values["agent"] = inner.spec  # canonical, as the store keeps specs
        if any(p.name == "seed" for p in inner.params):
            inner = inner.replace(seed=self.seed)
        self._inner = inner

    @property
    def inner(self) -> Agent:
        """The agent that plays (seeded with this agent's ``seed``)."""
        return self._inner

    @property
    def threads(self) -> int:
        """The threads the inner agent searches on (1 for agents without threads)."""
        return getattr(self._inner, "threads", 1)

    @property
    def replayable(self) -> bool:
        """Whether the inner agent replays move for move."""
        return self._inner.replayable

    @property
    def clock(self) -> Optional[Clock]:
        """The inner agent's clock, if it plays under one."""
        return self._inner.clock

    def reset(self) -> None:
        """Reset the inner agent."""
        inner: Optional[Agent] = getattr(self, "_inner", None)
        if inner is not None:
            inner.reset()

    def observe(self, game: Game) -> None:
        """Show the inner agent a position it does not choose."""
        self._inner.observe(game)

    def observe_clock(self, remaining: float, increment: float) -> None:
        """Tell the inner agent its time."""
        self._inner.observe_clock(remaining, increment)

    @property
    def honours(self) -> FrozenSet[str]:  # type: ignore[override]
        """The limits the inner agent honours."""
        return self._inner.honours

    def act(self, game: Game, limits: Optional[Limits] = None) -> int:
        """The inner agent's action."""
        return self._inner.act(game, limits)

    def expected_reply(self, game: Game, action: int) -> Optional[int]:
        """The inner agent's expected reply."""
        return self._inner.expected_reply(game, action)


def register(cls: Type[Agent]) -> Type[Agent]:
    """Class decorator: make ``cls`` available to :func:`parse` under ``cls.name``."""
    if not cls.name or not cls.name.isidentifier():
        raise ValueError(f"agent class {cls.__name__} needs a name that is an identifier")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"an agent named {cls.name!r} is already registered")
    _REGISTRY[cls.name] = cls
    return cls


def registry() -> Dict[str, Type[Agent]]:
    """The registered agents by name (a copy)."""
    return dict(_REGISTRY)


def _short(value: Any) -> str:
    """``repr(value)``, cut to a readable length (a huge integer is described by its size)."""
    if isinstance(value, int) and abs(value).bit_length() > 128:
        return f"an integer of {abs(value).bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _literal(node: ast.AST, spec: str) -> Any:
    """The value of a literal node: a number, a string, True, False or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool, type(None))):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) in (int, float)
    ):
        return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
    try:
        shown = repr(ast.unparse(node))
    except (RecursionError, MemoryError, ValueError):
        shown = "a nested expression"
    raise ValueError(f"agent spec {_short(spec)}: {_short(shown)} is not a literal (numbers, strings, True, False, None)")


def parse(spec: "str | Agent", seed: Optional[int] = None) -> Agent:
    """Build an agent from a spec such as ``"uct(iterations=3800, c=0.707, seed=1)"``.

    A spec is a registered name, optionally followed by keyword arguments
    with literal values.  Nothing in it is executed.  The agent is built
    once, with ``seed`` already in place when one is given: a match or a
    play session makes its agent by one parse, not by building one agent to
    copy it with another seed.

    Args:
        spec: the spec; an agent is returned as it is (or copied with ``seed``).
        seed: if given, replaces the spec's ``seed`` in an agent that has one (checked like any value).

    Raises:
        ValueError: a malformed spec, an unknown agent or parameter, a value
            of the wrong type or out of range.
    """
    if isinstance(spec, Agent):
        if seed is not None and _has_seed(type(spec)):
            return spec.replace(seed=seed)
        return spec
    cls, kwargs = _read(spec)
    text = spec.strip()
    if seed is not None and _has_seed(cls):
        kwargs["seed"] = seed
    agent = cls(**kwargs)
    if len(agent.spec) > MAX_SPEC_LENGTH:  # the canonical form must read back, as the store does
        raise ValueError(f"agent spec {_short(text)}: its canonical form is longer than {MAX_SPEC_LENGTH} characters")
    return agent


@functools.lru_cache(maxsize=4096)
def canonical_spec(spec: str) -> str:
    """The canonical form of an agent spec, ``parse(spec).spec`` (remembered: the store keys games by it).

    Raises:
        ValueError: a malformed spec or an unknown agent or parameter.
    """
    return parse(spec).spec


def _has_seed(cls: Type[Agent]) -> bool:
    return any(p.name == "seed" for p in cls.params)


def _read(spec: str) -> Tuple[Type[Agent], Dict[str, Any]]:
    """The agent class a spec names and its keyword arguments, read without building the agent."""
    if not isinstance(spec, str):
        raise ValueError(f"an agent spec must be a string, got {spec!r}")
    text = spec.strip()
    if not text:
        raise ValueError("empty agent spec")
    if len(text) > MAX_SPEC_LENGTH:
        raise ValueError(f"agent spec is too long ({len(text)} characters; at most {MAX_SPEC_LENGTH})")
    try:
        tree = ast.parse(text, mode="eval").body
    except (SyntaxError, RecursionError, MemoryError, ValueError):  # deep nesting too
        raise ValueError(f"malformed agent spec {_short(text)}: expected name or name(key=value, ...)") from None
    if isinstance(tree, ast.Name):
        name, keywords = tree.id, []
    elif isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name):
        if tree.args:
            raise ValueError(f"agent spec {spec!r}: give parameters by name (key=value), not by position")
        name, keywords = tree.func.id, tree.keywords
    else:
        raise ValueError(f"malformed agent spec {spec!r}: expected name or name(key=value, ...)")
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(sorted(_REGISTRY))}")
    kwargs: Dict[str, Any] = {}
    for keyword in keywords:
        if keyword.arg is None:
            raise ValueError(f"agent spec {spec!r}: ** is not allowed")
        if keyword.arg in kwargs:
            raise ValueError(f"agent spec {spec!r}: {keyword.arg!r} is given twice")
        kwargs[keyword.arg] = _literal(keyword.value, spec)
    return _REGISTRY[name], kwargs


def given_limits(agent: Agent, limits: Optional[Limits]) -> Optional[Limits]:
    """``limits`` if it bounds anything, None if it is None or empty (the spec's budget applies).

    Raises:
        ValueError: ``limits`` is not a :class:`~awale.search.limits.Limits` (nor None).
    """
    if limits is None:
        return None
    if not isinstance(limits, Limits):
        raise ValueError(f"{agent.name}: act() takes its limits as an awale.search.limits.Limits, got {limits!r}")
    return None if limits.empty else limits


def budget_params(default_iterations: int) -> Tuple[Param, ...]:
    """The two ways to limit a search: a number of iterations or a time in seconds."""
    return (
        Param("iterations", int, None, minimum=1, optional=True,
              doc=f"iterations per move (default {default_iterations} when no time is given)"),
        Param("time", float, None, minimum=0.001, maximum=MAX_SECONDS, optional=True,
              doc="seconds per move instead of iterations"),
    )


def seed_param() -> Param:
    return Param("seed", int, 0, minimum=0, maximum=_INT64 - 1, doc="seed of the agent's random generator")


def check_budget(agent: Agent, default_iterations: int) -> None:
    """Fill in the default iteration budget; refuse iterations and time together."""
    if agent.iterations is not None and agent.time is not None:
        raise ValueError(f"{agent.name}: give iterations or time, not both")
    if agent.iterations is None and agent.time is None:
        agent.budget_iterations = default_iterations
    else:
        agent.budget_iterations = agent.iterations
