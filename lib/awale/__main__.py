"""``python -m awale``: the command line of :mod:`awale.cli` (``python -m awale --help``)."""

from .cli import main

__all__ = ["main"]

if __name__ == "__main__":  # Dask's worker processes import this module too, and must not run the command
    raise SystemExit(main())
