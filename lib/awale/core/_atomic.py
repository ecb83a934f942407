"""Atomic operations on array entries, for kernels that several threads run on shared arrays.

Also :func:`relax`, for a thread that waits for another by spinning: it
gives the core away (``sched_yield``), so that on a machine with more
threads than free cores the thread waited for can run.

Compiled, :func:`atomic_add` and :func:`atomic_cas` are single LLVM
``atomicrmw`` and ``cmpxchg`` instructions (sequentially consistent), so
threads that update the same entry lose no update and a compare-and-swap
succeeds for one of them only; :func:`atomic_load` is an acquire load.  Without numba the kernels run as plain
Python, where the same functions take one lock: slower, but just as atomic.

``index`` is an integer for a one-dimensional array or a tuple of integers.
"""

from __future__ import annotations

import os
import threading

from ._jit import COMPILED

__all__ = ["atomic_add", "atomic_cas", "atomic_load", "relax"]

_LOCK = threading.Lock()


def atomic_add(array, index, value):
    """Add ``value`` to ``array[index]`` atomically; return the value before the addition."""
    with _LOCK:
        old = array[index]
        array[index] = old + value
    return old


def atomic_cas(array, index, expected, new):
    """Set ``array[index]`` to ``new`` if it equals ``expected``, atomically; return the value found."""
    with _LOCK:
        old = array[index]
        if old == expected:
            array[index] = new
    return old


def atomic_load(array, index):
    """Read ``array[index]`` as another thread last wrote it (the compiler may not keep it in a register)."""
    return atomic_add(array, index, 0)


def relax() -> None:
    """Let another thread run on this core (``sched_yield``): called by a thread that waits by spinning."""
    os.sched_yield() if hasattr(os, "sched_yield") else None


if COMPILED:  # pragma: no branch - depends on the environment
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic, overload
    from llvmlite import ir

    def _pointer(context, builder, array_type, array, index_type, index):
        """The LLVM pointer to ``array[index]``."""
        view = context.make_array(array_type)(context, builder, array)
        if isinstance(index_type, types.BaseTuple):
            values, kinds = cgutils.unpack_tuple(builder, index, count=len(index_type)), list(index_type)
        else:
            values, kinds = [index], [index_type]
        indices = [context.cast(builder, v, kind, types.intp) for v, kind in zip(values, kinds)]
        return cgutils.get_item_pointer(context, builder, array_type, view, indices, wraparound=False)

    @intrinsic
    def _add(typingctx, array, index, value):
        def codegen(context, builder, signature, args):
            kind = signature.args[0].dtype
            pointer = _pointer(context, builder, signature.args[0], args[0], signature.args[1], args[1])
            addend = context.cast(builder, args[2], signature.args[2], kind)
            operation = "fadd" if isinstance(kind, types.Float) else "add"
            return builder.atomic_rmw(operation, pointer, addend, "seq_cst")

        return array.dtype(array, index, value), codegen

    @intrinsic
    def _cas(typingctx, array, index, expected, new):
        def codegen(context, builder, signature, args):
            kind = signature.args[0].dtype
            pointer = _pointer(context, builder, signature.args[0], args[0], signature.args[1], args[1])
            old = context.cast(builder, args[2], signature.args[2], kind)
            replacement = context.cast(builder, args[3], signature.args[3], kind)
            return builder.extract_value(builder.cmpxchg(pointer, old, replacement, "seq_cst", "seq_cst"), 0)

        return array.dtype(array, index, expected, new), codegen

    @overload(atomic_add, jit_options={"nogil": True})
    def _atomic_add(array, index, value):
        return lambda array, index, value: _add(array, index, value)

    @overload(atomic_cas, jit_options={"nogil": True})
    def _atomic_cas(array, index, expected, new):
        return lambda array, index, expected, new: _cas(array, index, expected, new)

    @intrinsic
    def _load(typingctx, array, index):
        def codegen(context, builder, signature, args):
            kind = context.get_value_type(signature.args[0].dtype)
            pointer = _pointer(context, builder, signature.args[0], args[0], signature.args[1], args[1])
            # An acquire load: a plain load on x86, which the compiler may neither drop nor hoist out of a loop.
            return builder.load_atomic(pointer, "acquire", context.get_abi_sizeof(kind))

        return array.dtype(array, index), codegen

    @overload(atomic_load, jit_options={"nogil": True})
    def _atomic_load(array, index):
        return lambda array, index: _load(array, index)

    @intrinsic
    def _sched_yield(typingctx):
        def codegen(context, builder, signature, args):
            function = ir.FunctionType(ir.IntType(32), [])
            builder.call(cgutils.get_or_insert_function(builder.module, function, "sched_yield"), [])
            return context.get_dummy_value()

        return types.none(), codegen

    @overload(relax, jit_options={"nogil": True})
    def _relax():
        return lambda: _sched_yield()
