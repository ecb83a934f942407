"""The endgame databases of the ``endgame`` option, built on first use and cached: the cache's policy.

A number of seeds for the option, ``endgame='15'``, names the database of
every position with at most that many seeds for the game's rules, built on
first use (about 25 s for 15 seeds, a file of 17 MB; a line on stderr says
how long it should take and how much disk it needs) and kept in the cache
directory (``$AWALE_CACHE``, else ``~/.cache/awale``), one file per machine
that every process maps and shares.  A deep database is built layer by layer
into the cache (:func:`awale.knowledge.endgame_build.build_file`): a build that was
stopped resumes where it was, and one that the disk or the memory cannot hold
is refused at once.  The database is a pure function of the rules and the
seeds, so games played with such a spec replay on any machine, as the
experiments need.  (A file named by digits alone is given as ``'./15'``.)

This module holds that policy: the value's check (:func:`check_value`), the
cache's files, the lock that lets one process build while the others wait,
the disk and memory checks (:func:`build_plan`) and the processes' table of
open databases (:func:`endgame_database`).  The agents' option
(:mod:`awale.agents.endgame`) asks it for a database and knows nothing else.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Optional, Set, Tuple

try:
    import fcntl
except ImportError:  # not POSIX: concurrent first uses may each build the database (the last save wins)
    fcntl = None  # type: ignore[assignment]

from ..core.rules import Rules, rules_to_text

if TYPE_CHECKING:
    from .endgame import EndgameDatabase

__all__ = [
    "check_value", "endgame_database", "cache_directory", "built_database_path", "whole_built_database",
    "BUILD_MEMORY", "BUILD_RATE", "build_plan",
]

#: The most memory beyond the file that building a database for the ``endgame`` option may take (bytes): on the
#: standard board of 6 pits a side, six bytes a position of the largest layer, so 28 seeds (10.1 GB) fit.
BUILD_MEMORY = 12 * 2**30

#: Positions a second the build was measured to solve on the development machine (2 idle cores, the build to
#: 25 seeds of ``data/endgame/build-cost.csv``); the time announced before a build is the positions divided by it.
BUILD_RATE = 1_900_000

_OPEN: Dict[Tuple[str, float], object] = {}  # path and modification time -> the database, opened once
_READY: Set[str] = set()  # cached databases found whole (or built) by this process: not locked and checked again


def _names_seeds(value: str) -> bool:
    """Whether an ``endgame`` value is a number of seeds (ASCII digits) rather than a file."""
    return re.fullmatch(r"[0-9]+", value) is not None


def check_value(value: Optional[str]) -> Optional[str]:
    """``value`` if it can be an ``endgame`` option: None, a file name, or a number of seeds a database may hold.

    Raises:
        ValueError: an empty value, a number of seeds with leading zeros or above
            :data:`~awale.knowledge.endgame.MAX_SEEDS`.
    """
    if value is None:
        return None
    if value == "":
        raise ValueError("endgame must be a database file or a number of seeds, got ''")
    if _names_seeds(value):
        from .endgame import MAX_SEEDS  # a database's own limit (values fit a byte)

        if len(value) > 1 and value.startswith("0"):
            raise ValueError(f"endgame={value!r}: write the number of seeds without leading zeros")
        if len(value) > 3 or int(value) > MAX_SEEDS:
            raise ValueError(f"endgame={value!r}: a database holds at most {MAX_SEEDS} seeds")
    return value


def cache_directory() -> Path:
    """Where built databases are kept: ``$AWALE_CACHE`` if set, else ``~/.cache/awale``."""
    return Path(os.environ.get("AWALE_CACHE") or Path.home() / ".cache" / "awale")


def built_database_path(seeds: int, rules: Rules) -> Path:
    """The file of the cached database of ``seeds`` seeds for ``rules`` (named by the format and the rules)."""
    from .endgame import VALUES_VERSION

    return cache_directory() / f"endgame-v{VALUES_VERSION}-{_digest(rules)}-{seeds}.db"


def whole_built_database(seeds: int, rules: Rules) -> Optional[Path]:
    """The cached database of ``seeds`` seeds for ``rules`` if it is built whole (its header reads and names
    them; a build stopped halfway does not count), else None.  Nothing is built, and the values are not read."""
    from . import endgame

    path = built_database_path(seeds, rules)
    try:
        database = endgame.load(str(path))
    except (OSError, ValueError):
        return None
    return path if database.seeds == seeds and database.rules == rules else None


@functools.lru_cache(maxsize=None)
def _digest(rules: Rules) -> str:
    """A short digest of ``rules`` (their canonical text, spaced as JSON's default) that names their databases."""
    text = json.dumps(json.loads(rules_to_text(rules)), sort_keys=True)  # the spacing of the names made so far
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _available_memory() -> Optional[int]:
    """Bytes of memory the system can give now (``MemAvailable``; None where it cannot be read)."""
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def build_plan(seeds: int, rules: Rules) -> str:
    """What building the database of ``seeds`` seeds for ``rules`` takes: a line for the user, or a refusal.

    Raises:
        ValueError: bad seeds or rules, or (in one line) not enough free disk
            in the cache or memory for the build.
    """
    from . import endgame, endgame_build

    endgame_build.check_build(rules, seeds, BUILD_MEMORY)
    n = rules.pits_per_side
    size = endgame.position_count(n, seeds)
    work = endgame.work_memory(n, seeds)
    folder = cache_directory()
    folder.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(folder).free
    if free < size + 2**20:
        raise ValueError(f"a database of {seeds} seeds needs {size / 1e9:,.2f} GB of disk, "
                         f"{folder} has {free / 1e9:,.2f} GB free")
    memory = _available_memory()
    if memory is not None and memory < work + 2**27:
        raise ValueError(f"a database of {seeds} seeds needs {work / 1e9:,.2f} GB of memory to build, "
                         f"{memory / 1e9:,.2f} GB are available")
    seconds = size / BUILD_RATE
    time = f"{seconds / 60:,.0f} min" if seconds >= 60 else f"{max(1.0, seconds):.0f} s"
    return (f"{size:,} positions, {size / 1e9:,.3f} GB of disk and {work / 1e9:,.2f} GB of memory, "
            f"about {time} on 2 cores")


def _built(seeds: int, rules: Rules) -> str:
    """The path of the database of ``seeds`` seeds for ``rules``, built and saved first if it is not cached.

    One process builds it while the others wait (a lock file beside it); a
    cached file that does not load (damaged, or of another format) is built again,
    and a build that was stopped resumes from its last finished layer.
    Once a process has found the file whole it only checks that it is still there:
    agents ask for their database again after every reset, at the start of each game.
    """
    from . import endgame, endgame_build

    endgame_build.check_build(rules, seeds, BUILD_MEMORY)
    path = built_database_path(seeds, rules)
    if str(path) in _READY and path.is_file():
        return str(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{path}.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        whole = False
        if path.exists():
            try:
                endgame.load(str(path))
                whole = True
            except ValueError as error:
                print(f"awale: rebuilding the cached endgame database ({error})", file=sys.stderr)
        if not whole:
            plan = build_plan(seeds, rules)
            print(f"awale: building the endgame database of {seeds} seeds for these rules, once ({plan}), "
                  f"into {path}", file=sys.stderr)
            endgame_build.build_file(str(path), rules, seeds, memory=BUILD_MEMORY,
                               log=lambda line: print(f"awale: {line}", file=sys.stderr))
    _READY.add(str(path))
    return str(path)


def endgame_database(path: Optional[str], rules: Rules) -> Optional["EndgameDatabase"]:
    """The database ``path`` names (opened once per process), or None if none is given or it is for other rules.

    A ``path`` of digits names the cached database of that many seeds for
    ``rules``, built if missing (a file named by digits alone is ``./15``).
    No database holds exact values under a ply cap: with such rules it is None.

    Raises:
        ValueError: no such file, the file is not an endgame database, or
            there are too many seeds for the rules or the memory cap
            (OSError: the file or the cache cannot be read or written).
    """
    if path is None:
        return None
    from . import endgame  # imported when used: the agents without the option never load it

    if _names_seeds(path):
        if rules.max_plies is not None:
            return None
        try:
            path = _built(int(path), rules)
        except ValueError as error:
            raise ValueError(f"endgame={path!r}: {error}") from None
    elif not os.path.isfile(path):
        raise ValueError(f"endgame={path!r}: no such database file (nor a number of seeds)")
    key = (path, os.path.getmtime(path))
    if key not in _OPEN:
        _OPEN[key] = endgame.load(path)
    database = _OPEN[key]
    return database if database.compatible(rules) else None
