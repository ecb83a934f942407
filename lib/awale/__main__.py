"""``python -m awale``: the command line of :mod:`awale.cli` (``python -m awale --help``).

A Ctrl-C while the libraries load (numba, numpy, pandas: a second or more)
ends the command like one during its work: one line, exit status 130.  (When
the interruption came through code that Python ran from a string, such as a
dataclass being built, Python ends the process by SIGINT instead, which a
shell reports as the same status 130.)
"""

import logging
import signal
import sys

__all__ = ["main"]


def _note(signum: int, frame: object) -> None:
    """SIGINT during the imports: remember it (a library may swallow the exception), then raise it."""
    _SIGNALLED.append(signum)
    raise KeyboardInterrupt


def _silent(unraisable: object) -> None:
    """``sys.unraisablehook`` once the command is interrupted: what a finalizer of the work cut short (llvmlite's
    half-built objects, say) raises while the interpreter shuts down is not the user's concern."""


def _quiet_dask() -> None:
    """Once the command is interrupted: a local Dask cluster that the signal caught starting may finish closing
    only as the interpreter exits, and its INFO messages would follow the one line the command printed."""
    for handler in logging.getLogger("distributed").handlers:
        handler.setLevel(logging.CRITICAL)


_SIGNALLED: list = []
if __name__ == "__main__":
    signal.signal(signal.SIGINT, _note)
try:
    from .cli import main
except BaseException as error:  # pragma: no cover - depends on when the signal comes
    # A KeyboardInterrupt, or what a library's import made of it (an ImportError, say): _note saw the signal.
    if __name__ != "__main__" or not (_SIGNALLED or isinstance(error, KeyboardInterrupt)):
        raise
    _SIGNALLED.append(signal.SIGINT)
if __name__ == "__main__":  # Dask's worker processes import this module too, and must not run the command
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if _SIGNALLED:
        print("python -m awale: interrupted", file=sys.stderr)
        _status = 130
    else:
        _status = main()
    if _status == 130:
        sys.unraisablehook = _silent
        _quiet_dask()
    raise SystemExit(_status)
