"""``python -m awale``: the command line of :mod:`awale.cli` (``python -m awale --help``).

A Ctrl-C while the libraries load (numba, numpy, pandas: a second or more)
ends the command like one during its work: one line, exit status 130.
"""

import os
import signal
import sys

__all__ = ["main"]


def _interrupted() -> None:
    """End an interrupted command with status 130 (its line already printed).

    A KeyboardInterrupt met inside some C code during start-up leaves the
    interpreter set to end itself by SIGINT (status -2 instead of 130)
    even though the command handled it; leaving at once, streams flushed,
    keeps the status right.  Nothing is left to clean up by then.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


def _note(signum: int, frame: object) -> None:
    """SIGINT during the imports: remember it (a library may swallow the exception), then raise it."""
    _SIGNALLED.append(signum)
    raise KeyboardInterrupt


_SIGNALLED: list = []
if __name__ == "__main__":
    signal.signal(signal.SIGINT, _note)
try:
    from .cli import main
except KeyboardInterrupt:  # pragma: no cover - depends on when the signal comes
    if __name__ != "__main__":
        raise
    _SIGNALLED.append(signal.SIGINT)
if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if _SIGNALLED:
        print("python -m awale: interrupted", file=sys.stderr)
        _interrupted()

if __name__ == "__main__":  # Dask's worker processes import this module too, and must not run the command
    status = main()
    if status == 130:
        _interrupted()
    raise SystemExit(status)
