"""Optional compilation of the kernels with numba.

The rules and the search are written once, as plain Python loops over small
integer arrays.  When numba is importable (and ``NUMBA_DISABLE_JIT`` is not set)
:func:`jit` compiles them to machine code and caches the result on disk; when it
is not, the very same functions run as ordinary Python.
"""

from __future__ import annotations

from typing import Callable, Optional, TypeVar

__all__ = ["jit", "COMPILED", "prange", "set_threads"]

F = TypeVar("F", bound=Callable)

try:  # pragma: no cover - depends on the environment
    import numba as _numba
    from numba.core.config import DISABLE_JIT as _DISABLED
except ImportError:  # pragma: no cover
    _numba = None
    _DISABLED = True

#: True when the kernels run as compiled machine code.
COMPILED: bool = _numba is not None and not _DISABLED


def jit(function: Optional[F] = None, *, inline: bool = True, allocates: bool = True, parallel: bool = False):
    """Compile ``function`` with ``numba.njit`` (cached, GIL released) if numba is there.

    Small kernels are inlined into their callers at numba's level
    (``inline=True``): that saves a call and the reference counting of
    every array argument.  Entry points called from Python, and recursive
    kernels, pass ``inline=False``.

    ``allocates=False`` compiles the kernel without numba's runtime: it may
    not create arrays, and in exchange it does no reference counting at
    all.  Each array a compiled function binds to a name costs an atomic
    increment and decrement of its reference count, and in the hot loops of
    the playouts and the search those atomic operations took more than half
    of the time.  The hot loops are therefore out-of-line kernels with
    ``allocates=False`` (what is inlined into them is compiled in their
    context, so it does no reference counting either); the kernels that
    allocate their work arrays call them.

    ``parallel=True`` lets the loops written with :data:`prange` run on
    several threads (numba's ``parallel``); without numba they are plain loops.
    """

    def decorate(func: F) -> F:
        if _numba is None or _DISABLED:
            return func
        options = dict(nopython=True, boundscheck=None, nogil=True, error_model="numpy",
                       inline="always" if inline else "never", _nrt=allocates, parallel=parallel)
        kernel = _Kernel(py_func=func, locals={}, targetoptions=options)  # as numba.njit(cache=True, ...) builds it
        kernel.enable_caching()
        return kernel

    return decorate if function is None else decorate(function)


if _numba is not None:  # pragma: no branch - depends on the environment
    from numba.core import types as _types
    from numba.core.registry import CPUDispatcher as _CPUDispatcher

    class _Kernel(_CPUDispatcher):
        """numba's dispatcher, except that a kernel called from another compiles for the types of its arguments, not
        their values: numba types a constant argument (``_walk(..., 1, 0, ...)``) as a literal, and compiled a whole
        specialisation of the callee for each constant it was called with and again for the variable's type, which
        more than doubled the first compile of the search's largest kernels.  The machine code is the same but for
        branches a constant would have pruned."""

        def get_call_template(self, args, kws):
            return super().get_call_template(tuple(_types.unliteral(arg) for arg in args),
                                             {key: _types.unliteral(arg) for key, arg in kws.items()})


#: ``numba.prange`` when compiled (the iterations of a ``parallel`` kernel's loop shared among threads), else ``range``.
prange = _numba.prange if COMPILED else range


def set_threads(threads: Optional[int]) -> int:
    """Let the ``parallel`` kernels use ``threads`` threads (None: all that numba has); return the number set.

    Raises:
        ValueError: ``threads`` is not a positive integer.
    """
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
    if not COMPILED:
        return 1
    most = _numba.config.NUMBA_NUM_THREADS
    chosen = most if threads is None else min(threads, most)
    _numba.set_num_threads(chosen)
    return chosen
