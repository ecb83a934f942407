"""What bounds one search: a :class:`Limits` value, given to an agent's ``act(game, limits)`` with each move.

An agent's spec holds its own budget (``champion(time=0.5)``, ``uct(iterations=3800)``), which is also the key
of its stored games.  A :class:`Limits` bounds one search instead, without changing the agent: the engine
protocol's ``go movetime 100 depth 127`` is ``Limits(time=0.1, depth=127)``, as python-chess passes an
``engine.Limit`` with every ``play`` and Stockfish carries one ``LimitsType`` into its search.  Several limits
combine: the first one reached stops the search.

>>> Limits(time=0.1, depth=127)
Limits(time=0.1, depth=127)
>>> Limits(nodes=0)
Traceback (most recent call last):
...
ValueError: limits: nodes must be a whole number of at least 1, got 0
>>> Limits(time=0.1, infinite=True)
Traceback (most recent call last):
...
ValueError: limits: infinite searches until stopped; give no time or clock with it
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Optional, Tuple

__all__ = ["Limits", "MAX_LIMIT_SECONDS", "MAX_LIMIT_COUNT"]

#: The longest time a limit may give, in seconds (a day, as an agent's ``time``).
MAX_LIMIT_SECONDS = 86_400.0

#: The largest depth or node count a limit may give (the kernels count in 64-bit integers).
MAX_LIMIT_COUNT = 2**62


@dataclasses.dataclass(frozen=True)
class Limits:
    """The bounds of one search, checked once; None (or False) leaves a bound out.

    Attributes:
        time: seconds for this move (``go movetime``); searched whole by an agent that can (αβ spends it).
        depth: plies, for the agents that search by depth (αβ); at least 1.
        nodes: positions (αβ) or iterations (the Monte Carlo agents); at least 1.
        remaining: seconds left on the mover's clock (``wtime``/``btime``): the agent sizes this move from it
            (its time manager, or an equal share of the moves expected).
        increment: seconds added to the clock after the move (``winc``/``binc``); only with ``remaining``.
        moves_to_go: moves until the clock is next refilled (``movestogo``); only with ``remaining``.
        infinite: search until stopped (:meth:`awale.core.control.SearchControl.stop`); depth and nodes may
            still end it sooner, a time or a clock may not be given with it.
        ponder: the search ponders on the opponent's time: it runs until stopped, as ``infinite``, whatever the
            other limits (the engine applies them from ``ponderhit`` on, to a search of its own).

    Raises:
        ValueError: a value of the wrong type or out of range, an increment or moves to go without a clock, or a
            time or clock with ``infinite``; the message names the limit.
    """

    time: Optional[float] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None
    remaining: Optional[float] = None
    increment: float = 0.0
    moves_to_go: Optional[int] = None
    infinite: bool = False
    ponder: bool = False

    def __post_init__(self) -> None:
        for name in ("time", "remaining", "increment"):
            value = getattr(self, name)
            if value is None:
                continue
            least = 0.0
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"limits: {name} must be a finite number of seconds, got {value!r}")
            if (value <= least if name == "time" else value < least) or value > MAX_LIMIT_SECONDS:
                above = "above 0" if name == "time" else "at least 0"
                raise ValueError(f"limits: {name} must be {above} and at most {MAX_LIMIT_SECONDS:g} s, got {value!r}")
            object.__setattr__(self, name, float(value))
        if self.increment is None:
            raise ValueError("limits: increment must be a finite number of seconds, got None")
        for name in ("depth", "nodes", "moves_to_go"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LIMIT_COUNT:
                raise ValueError(f"limits: {name} must be a whole number of at least 1, got {_short(value)}")
        for name in ("infinite", "ponder"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"limits: {name} must be True or False, got {getattr(self, name)!r}")
        if self.remaining is None and (self.increment or self.moves_to_go is not None):
            raise ValueError("limits: an increment or moves to go needs the clock's remaining time")
        if self.infinite and (self.time is not None or self.remaining is not None):
            raise ValueError("limits: infinite searches until stopped; give no time or clock with it")

    def __repr__(self) -> str:
        given = [f"{field.name}={getattr(self, field.name)!r}" for field in dataclasses.fields(self)
                 if getattr(self, field.name) != field.default]
        return f"Limits({', '.join(given)})"

    @property
    def empty(self) -> bool:
        """Whether nothing is given: an agent then searches with the budget of its spec."""
        return self == _EMPTY

    @property
    def unbounded(self) -> bool:
        """Whether no time bounds the search: it runs until stopped (``infinite`` or ``ponder``), unless a depth
        or node count ends it."""
        return self.infinite or self.ponder

    @property
    def clock(self) -> Optional[Tuple[float, float]]:
        """``(remaining, increment)`` under a clock, else None."""
        return None if self.remaining is None else (self.remaining, self.increment)

    def given(self) -> Tuple[str, ...]:
        """The kinds of bound given, among ``time``, ``depth``, ``nodes``, ``clock``, ``infinite``, ``ponder``."""
        kinds = [name for name in ("time", "depth", "nodes") if getattr(self, name) is not None]
        if self.remaining is not None:
            kinds.append("clock")
        kinds += [name for name in ("infinite", "ponder") if getattr(self, name)]
        return tuple(kinds)

    def replace(self, **changes: Any) -> "Limits":
        """These limits with some changed (checked again)."""
        return dataclasses.replace(self, **changes)


_EMPTY = Limits()


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
