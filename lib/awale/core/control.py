"""Stopping a search from another thread, and hearing how it goes: :class:`SearchControl`.

The searches run in compiled kernels that poll one entry of an array: the αβ kernel its node budget, the MCTS
loop its tree's stop flag.  A :class:`SearchControl` bound to a thread (``with control:``) gathers the entries of
the searches that thread runs (each search declares its entry with :class:`watched`), and
:meth:`SearchControl.stop`, called from any thread, writes the stop value into each of them at once, and into
those of the searches that start later, until :meth:`SearchControl.clear`: the kernel returns within one node or
one iteration, and the search answers with what it has found so far.  The threads a search starts for itself run
under the control of the thread that started them (:func:`bound`).

The searches also tell the control how they go (:meth:`SearchControl.report`, a :class:`Progress` after each
iteration of αβ's iterative deepening, and after each chunk of MCTS iterations), which passes it to its
listener.  ``python -m awale engine`` prints them as ``info`` lines (:mod:`awale.play.protocol`).

Without a control, nothing of this runs: a search plays the same moves as it always did.

>>> control = SearchControl()
>>> with control:
...     current() is control
True
>>> current() is None
True
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

import numpy as np

__all__ = ["Progress", "SearchControl", "current", "watched", "detached", "bound", "tell"]


class Progress(NamedTuple):
    """How a search stands, as it reports it to its :class:`SearchControl`.

    Attributes:
        depth: αβ, the depth of the iteration just completed; MCTS, the length of the principal variation.
        nodes: αβ, the positions visited by the search so far; MCTS, the iterations of the tree (its root's visits).
        seconds: the time since the search began.
        line: the principal variation, actions relative to the player to move at each ply (the best move first).
        seeds: αβ, the value of the best move for the player to move in seeds (with an evaluation, its estimate
            in the worth of a captured seed); None for MCTS or a proven result.
        mean: MCTS, the best move's mean result for the player to move (a win 1, a draw ½); None for αβ.
        proven: ``"win"``, ``"loss"`` or ``"draw"`` when the search proved the result of the best move, else ``""``.
        margin: with a proven win or loss found by αβ, the final capture difference in seeds; else None.
        note: a move not searched says where it comes from (``"book move"``, ``"endgame database move"``); else
            ``""``.
    """

    depth: int
    nodes: int
    seconds: float
    line: Tuple[int, ...]
    seeds: Optional[float] = None
    mean: Optional[float] = None
    proven: str = ""
    margin: Optional[int] = None
    note: str = ""


_LOCAL = threading.local()


def current() -> Optional["SearchControl"]:
    """The control bound to this thread (the innermost ``with control:``), or None."""
    stack = getattr(_LOCAL, "stack", None)
    return stack[-1] if stack else None


class SearchControl:
    """A stop request and a listener for the searches of one thread (see the module docstring).

    Args:
        listener: called with each :class:`Progress` the searches report (in the searching thread), or None.
    """

    def __init__(self, listener: Optional[Callable[[Progress], None]] = None) -> None:
        self.listener = listener
        self._lock = threading.Lock()
        self._stopped = False
        self._entries: Dict[int, Tuple[np.ndarray, int, int]] = {}

    @property
    def stopped(self) -> bool:
        """Whether a stop was asked for (and not cleared since)."""
        return self._stopped

    def stop(self) -> None:
        """Ask every search under this control to stop now, and those that start later to stop at once."""
        with self._lock:
            self._stopped = True
            for array, index, value in self._entries.values():
                array[index] = value

    def clear(self) -> None:
        """Forget the stop request: the next searches run to their budgets."""
        with self._lock:
            self._stopped = False

    def report(self, progress: Progress) -> None:
        """Pass ``progress`` to the listener, if there is one."""
        if self.listener is not None:
            self.listener(progress)

    def _watch(self, key: int, entry: Tuple[np.ndarray, int, int]) -> None:
        with self._lock:
            self._entries[key] = entry
            if self._stopped:
                entry[0][entry[1]] = entry[2]

    def _unwatch(self, key: int) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def __enter__(self) -> "SearchControl":
        stack: List[Optional[SearchControl]] = getattr(_LOCAL, "stack", None) or []
        stack.append(self)
        _LOCAL.stack = stack
        return self

    def __exit__(self, *exc: object) -> None:
        _LOCAL.stack.pop()


class watched:  # noqa: N801 - used like a function, as a context manager
    """While the block runs, a stop of this thread's control writes ``array[index] = value`` (no control: nothing).

    A class rather than a generator: it wraps every root search of αβ, so it should cost little.
    """

    __slots__ = ("_entry", "_control")

    def __init__(self, array: np.ndarray, index: int, value: int) -> None:
        self._entry = (array, index, value)
        self._control: Optional[SearchControl] = None

    def __enter__(self) -> None:
        control = current()
        if control is not None:
            control._watch(id(self), self._entry)
            self._control = control

    def __exit__(self, *exc: object) -> None:
        if self._control is not None:
            self._control._unwatch(id(self))
            self._control = None


class detached:  # noqa: N801 - used like a function, as a context manager
    """While the block runs, this thread is under no control: what must finish (a search's first iteration,
    without which it has no move) is not stopped."""

    def __enter__(self) -> None:
        stack: List[Optional[SearchControl]] = getattr(_LOCAL, "stack", None) or []
        stack.append(None)
        _LOCAL.stack = stack

    def __exit__(self, *exc: object) -> None:
        _LOCAL.stack.pop()


def tell(note: str, action: int) -> None:
    """Tell the thread's control (if it listens) that ``action`` is played without a search, and why (``note``)."""
    control = current()
    if control is not None and control.listener is not None:
        control.report(Progress(0, 0, 0.0, (int(action),), note=note))


def bound(function: Callable[[], Any]) -> Callable[[], Any]:
    """``function`` made to run under the control of the calling thread, wherever it runs (a search's threads)."""
    control = current()
    if control is None:
        return function

    def run() -> Any:
        with control:
            return function()

    return run
