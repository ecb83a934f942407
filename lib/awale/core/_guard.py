"""Limits that protect the process: memory for search trees, and Ctrl-C inside compiled code.

Compiled kernels run without returning to Python, and Python runs its signal
handlers only between bytecodes, so a Ctrl-C would wait for the kernel to end.
Two remedies are used: kernels that can be cut into chunks are called in
chunks of a fraction of a second (:class:`Chunks`), and a kernel that cannot
(the recursive αβ search) polls its stop flag, an entry of a control array
that a watcher thread raises when a signal arrives (:func:`stop_on_signal`),
as a deadline (:func:`stop_at`) and a search control
(:class:`awale.core.control.SearchControl`) raise it.  The watcher
learns of the signal through :func:`signal.set_wakeup_fd`, to which Python's
own C-level handler writes at once, whatever the main thread is doing.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from typing import Dict, List, Optional, Tuple

import numpy as np

from .control import watched

__all__ = ["available_memory", "available_cores", "Chunks", "stop_on_signal", "stop_at"]

#: Seconds a chunk of compiled work aims to last: a Ctrl-C is honoured within about this long.
CHUNK_SECONDS = 0.2


def available_memory() -> int:
    """Bytes of memory this machine can give without swapping (``MemAvailable`` on Linux)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not a POSIX system
        return 1 << 32


def available_cores() -> int:
    """The number of cores this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class Chunks:
    """Sizes of successive chunks of work, each aimed at :data:`CHUNK_SECONDS`.

    Splitting a loop of compiled work into chunks that return to Python lets
    a Ctrl-C through between them; the work done, and so its result, is the
    same whatever the sizes.

    >>> chunks = Chunks(10)
    >>> size = chunks.next()
    >>> chunks.done(size, 1e-6); chunks.remaining
    0
    """

    def __init__(self, total: int, first: int = 1024) -> None:
        self.remaining = total
        self._size = first
        self._started = 0.0

    def next(self) -> int:
        """The size of the next chunk (at most what remains); starts its clock."""
        self._started = time.perf_counter()
        return min(self._size, self.remaining)

    def done(self, size: int, elapsed: Optional[float] = None) -> None:
        """Record a finished chunk of ``size`` units and size the next one from its speed."""
        self.remaining -= size
        if elapsed is None:
            elapsed = time.perf_counter() - self._started
        rate = size / max(elapsed, 1e-6)
        self._size = max(1, min(int(rate * CHUNK_SECONDS), 8 * self._size))


# --------------------------------------------------------------------------- signals inside kernels

_LOCK = threading.Lock()
_ACTIVE: Dict[int, Tuple[np.ndarray, int, int, List[bool]]] = {}  # the guarded arrays, by block
_WAKEUP: Optional[socket.socket] = None  # the end Python's signal handler writes to


def _watch(reader: socket.socket) -> None:
    """The watcher thread: on SIGINT or SIGTERM, write the stop value into every guarded array."""
    stopping = {int(signal.SIGINT), int(getattr(signal, "SIGTERM", signal.SIGINT))}
    while True:
        try:
            data = reader.recv(64)
        except OSError:  # pragma: no cover - the socket is never closed
            return
        if any(byte in stopping for byte in data):
            with _LOCK:
                for array, index, value, stopped in _ACTIVE.values():
                    array[index] = value
                    stopped[0] = True


def _wakeup() -> socket.socket:
    global _WAKEUP
    if _WAKEUP is None:
        reader, writer = socket.socketpair()
        writer.setblocking(False)
        threading.Thread(target=_watch, args=(reader,), name="awale-signal-watcher", daemon=True).start()
        _WAKEUP = writer
    return _WAKEUP


class stop_on_signal:  # noqa: N801 - used like a function, as a context manager
    """While the block runs, a SIGINT or SIGTERM sets ``array[index] = value`` at once.

    A compiled kernel that polls ``array[index]`` can then stop within
    moments of a Ctrl-C; after the block, ``KeyboardInterrupt`` is raised
    (by Python's handler, or here if the handler did not raise).  Outside
    the main thread the block runs unguarded (Python handles signals in the
    main thread only).  A stop of the thread's search control
    (:class:`awale.core.control.SearchControl`) writes the same value, in any
    thread, and raises nothing.  A class rather than a
    generator: it guards every αβ search, so it should cost little.
    """

    __slots__ = ("_entry", "_previous", "_control")

    def __init__(self, array: np.ndarray, index: int, value: int) -> None:
        self._entry = (array, index, value, [False])
        self._previous: Optional[int] = None
        self._control = watched(array, index, value)

    def __enter__(self) -> None:
        self._control.__enter__()
        writer = _wakeup()
        try:
            self._previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        except ValueError:  # not the main thread: no signal handler runs here
            return
        _ACTIVE[id(self)] = self._entry  # a single store: atomic under the GIL

    def __exit__(self, *exc: object) -> None:
        self._control.__exit__()
        if self._previous is None:
            return
        try:
            signal.set_wakeup_fd(self._previous)
        finally:
            with _LOCK:  # not while the watcher writes into the arrays
                _ACTIVE.pop(id(self), None)
        if self._entry[3][0] and exc[0] is None:
            raise KeyboardInterrupt


# --------------------------------------------------------------------------- deadlines inside kernels

_ALARMS: Dict[int, Tuple[float, np.ndarray, int, int]] = {}  # the armed deadlines, by block
_ALARM_CHANGED = threading.Condition()
_ALARM_THREAD: Optional[threading.Thread] = None


def _ring() -> None:
    """The alarm thread: at each armed deadline, write its stop value once (the flag stays raised until the
    search that owns it lowers it at its next start)."""
    with _ALARM_CHANGED:
        while True:
            now = time.perf_counter()
            for key, (at, array, index, value) in list(_ALARMS.items()):
                if at <= now:
                    array[index] = value
                    del _ALARMS[key]
            pending = [alarm[0] - now for alarm in _ALARMS.values()]
            _ALARM_CHANGED.wait(min(pending, default=None))


class stop_at:  # noqa: N801 - used like a function, as a context manager
    """While the block runs, ``array[index] = value`` is written at the moment ``at`` (``time.perf_counter``).

    The entry is a search's stop flag, which the compiled kernel polls where it counts its nodes (and which the
    search lowers only when it starts): the kernel then stops within about a millisecond of the deadline.  One
    thread serves every block; a block left before its deadline writes nothing.
    """

    __slots__ = ("_alarm",)

    def __init__(self, array: np.ndarray, index: int, value: int, at: float) -> None:
        self._alarm = (float(at), array, index, value)

    def __enter__(self) -> None:
        global _ALARM_THREAD
        with _ALARM_CHANGED:
            if _ALARM_THREAD is None:
                _ALARM_THREAD = threading.Thread(target=_ring, name="awale-deadline", daemon=True)
                _ALARM_THREAD.start()
            _ALARMS[id(self)] = self._alarm
            _ALARM_CHANGED.notify()

    def __exit__(self, *exc: object) -> None:
        with _ALARM_CHANGED:
            _ALARMS.pop(id(self), None)
            _ALARM_CHANGED.notify()
