"""The experiment store: every finished game, one row each, in one SQLite file.

The store is a single SQLite database (standard library, no server) in WAL
mode, so a notebook can read it while a run writes to it.  Its table
``games`` holds one row per finished game:

==============  ==========================================================
column          meaning
==============  ==========================================================
experiment      the experiment's name (a tournament, a catalogue entry...)
south, north    canonical agent specs, ``str(awale.agents.parse(spec))``
seed            the match seed given to :func:`awale.match.play`
rules           the rules, canonical JSON (see :func:`rules_to_text`)
winner          0 (South), 1 (North) or NULL for a draw
south_score     seeds captured by South (seeds collected at the end included)
north_score     seeds captured by North
plies           plies played
moves           the actions played, one digit each (see :func:`encode_moves`)
south_seconds   time spent in South's ``act``
north_seconds   time spent in North's ``act``
created_at      when the row was written, ISO 8601 in UTC
==============  ==========================================================

A game is identified by its *key* ``(experiment, south, north, seed, rules)``,
unique in the table.  Rows are written by :meth:`Store.add` in one
transaction per call, and a key already present is left as it is (``INSERT
... ON CONFLICT DO NOTHING``, the ``INSERT OR IGNORE`` of the key alone, so
that a row breaking a constraint is an error rather than silently dropped):
writing the same games twice changes nothing, and a crash (even
``kill -9``) loses only the games not yet handed to :meth:`Store.add`, never
leaves part of a row or part of a call.  Commits are synchronous (``PRAGMA
synchronous=FULL``), so a committed game survives a power cut as well.

Reading: :func:`load` returns a :class:`pandas.DataFrame` ready for
notebooks; :func:`experiments` and :func:`count` summarise the store.

>>> import tempfile, pathlib
>>> from awale.match import play
>>> path = pathlib.Path(tempfile.mkdtemp()) / "games.sqlite"
>>> with Store(path) as store:
...     store.add("demo", [play("random", "greedy", seed=1)])
1
>>> frame = load(path)
>>> frame.loc[0, "south"], frame.loc[0, "north"], int(frame.loc[0, "seed"]), frame["winner"].dtype
('random', 'greedy', 1, Int64Dtype())
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import json
import operator
import os
import pathlib
import sqlite3
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Set, Tuple, Union

from ..match import MatchRecord
from ..rules import Rules, as_rules

if TYPE_CHECKING:  # pandas is imported when a frame is built, not with the module
    import pandas

__all__ = [
    "Store",
    "StoreError",
    "StoredKey",
    "load",
    "experiments",
    "count",
    "rules_to_text",
    "rules_from_text",
    "encode_moves",
    "decode_moves",
    "COLUMNS",
    "SCHEMA_VERSION",
]

#: ``PRAGMA application_id`` of an awale store: the bytes ``AWAL``.
APPLICATION_ID = 0x4157414C

#: ``PRAGMA user_version`` of the schema this module writes.
SCHEMA_VERSION = 1

#: The columns of the table ``games`` (besides the ``id`` primary key), in order.
COLUMNS = (
    "experiment",
    "south",
    "north",
    "seed",
    "rules",
    "winner",
    "south_score",
    "north_score",
    "plies",
    "moves",
    "south_seconds",
    "north_seconds",
    "created_at",
)

_SCHEMA = """
CREATE TABLE games (
    id            INTEGER PRIMARY KEY,
    experiment    TEXT    NOT NULL CHECK (typeof(experiment) = 'text' AND experiment <> ''),
    south         TEXT    NOT NULL CHECK (typeof(south) = 'text' AND south <> ''),
    north         TEXT    NOT NULL CHECK (typeof(north) = 'text' AND north <> ''),
    seed          INTEGER NOT NULL CHECK (typeof(seed) = 'integer' AND seed >= 0),
    rules         TEXT    NOT NULL CHECK (typeof(rules) = 'text'),
    winner        INTEGER          CHECK (winner IS NULL OR winner IN (0, 1)),
    south_score   INTEGER NOT NULL CHECK (typeof(south_score) = 'integer' AND south_score >= 0),
    north_score   INTEGER NOT NULL CHECK (typeof(north_score) = 'integer' AND north_score >= 0),
    plies         INTEGER NOT NULL CHECK (typeof(plies) = 'integer' AND plies >= 0),
    moves         TEXT    NOT NULL CHECK (typeof(moves) = 'text' AND length(moves) = plies),
    south_seconds REAL    NOT NULL CHECK (south_seconds >= 0),
    north_seconds REAL    NOT NULL CHECK (north_seconds >= 0),
    created_at    TEXT    NOT NULL,
    UNIQUE (experiment, south, north, seed, rules)
)
"""

# Like INSERT OR IGNORE for an existing key, but a row breaking a CHECK constraint is an error, not skipped.
_INSERT = (
    f"INSERT INTO games ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))}) "
    "ON CONFLICT (experiment, south, north, seed, rules) DO NOTHING"
)

#: Seeds are SQLite integers: signed 64-bit.
_MAX_SEED = 2**63 - 1


class StoreError(Exception):
    """A path that is not a usable store, or a game that cannot be stored; the message says which."""


@dataclasses.dataclass(frozen=True)
class StoredKey:
    """The key of a stored game within its experiment (rules as canonical text)."""

    south: str
    north: str
    seed: int
    rules: str


# --------------------------------------------------------------------------- encodings


def rules_to_text(rules: Rules) -> str:
    """The canonical text of ``rules``: compact JSON of its fields, keys sorted.

    Equal rules give equal texts, and :func:`rules_from_text` reads it back.

    >>> rules_to_text(Rules(max_plies=200))
    '{"collect_remaining":true,"feed":true,"grand_slam":"no-capture","max_plies":200,"pits_per_side":6,"repetition":true,"seeds_per_pit":4}'

    Raises:
        ValueError: ``rules`` is not an :class:`awale.Rules`.
    """
    return json.dumps(dataclasses.asdict(as_rules(rules, default=False)), sort_keys=True, separators=(",", ":"))


def rules_from_text(text: str) -> Rules:
    """The :class:`awale.Rules` written by :func:`rules_to_text`.

    Raises:
        ValueError: the text is not such a JSON object, or describes invalid rules.
    """
    try:
        fields = json.loads(text)
    except (TypeError, ValueError):
        raise ValueError(f"rules text is not JSON: {text!r}") from None
    if not isinstance(fields, dict):
        raise ValueError(f"rules text must be a JSON object, got {text!r}")
    known = {field.name for field in dataclasses.fields(Rules)}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise ValueError(f"rules text has unknown field(s) {unknown}: {text!r}")
    return Rules(**fields)


def encode_moves(moves: Iterable[int]) -> str:
    """The moves of a game as a string, one digit per action (actions are 0 to 5).

    >>> encode_moves((2, 0, 5))
    '205'
    """
    digits = []
    for action in moves:
        try:
            value = operator.index(action)
        except TypeError:
            value = -1
        if isinstance(action, bool) or not 0 <= value <= 9:
            raise ValueError(f"a move must be an action from 0 to 9, got {action!r}")
        digits.append(str(value))
    return "".join(digits)


def decode_moves(text: str) -> Tuple[int, ...]:
    """The actions of a string written by :func:`encode_moves`.

    >>> decode_moves("205")
    (2, 0, 5)
    """
    if not isinstance(text, str) or not (text == "" or text.isdigit()):
        raise ValueError(f"moves must be a string of digits, got {text!r}")
    return tuple(int(c) for c in text)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _row(experiment: str, record: MatchRecord, created_at: str) -> Tuple[Any, ...]:
    """The values of one row, checked; raises ``StoreError``."""
    if not isinstance(record, MatchRecord):
        raise StoreError(f"can only store awale.match.MatchRecord values, got {record!r}")
    if not 0 <= record.seed <= _MAX_SEED:
        raise StoreError(f"cannot store game {record.south} vs {record.north}: seed {record.seed} is not from 0 to 2**63 - 1")
    try:
        return (
            experiment,
            record.south,
            record.north,
            record.seed,
            rules_to_text(record.rules),
            record.winner,
            int(record.score[0]),
            int(record.score[1]),
            int(record.plies),
            encode_moves(record.moves),
            float(record.south_seconds),
            float(record.north_seconds),
            created_at,
        )
    except (TypeError, ValueError, IndexError) as error:
        raise StoreError(f"cannot store game {record.south} vs {record.north} (seed {record.seed}): {error}") from None


def _rollback(db: sqlite3.Connection) -> None:
    """Roll back the open transaction, if any (an interruption may come before BEGIN or after COMMIT)."""
    if db.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")


def _check_experiment(experiment: str) -> str:
    if not isinstance(experiment, str) or not experiment.strip():
        raise StoreError(f"an experiment name must be a non-empty string, got {experiment!r}")
    return experiment


# --------------------------------------------------------------------------- the store


class Store:
    """An open store: one SQLite connection, used by one thread.

    Args:
        path: the store's file.
        create: create the file (and its directory) if it does not exist;
            otherwise a missing file is an error.

    Raises:
        StoreError: the path is a directory, is not an SQLite database, is
            a database that is not an awale store (or of a newer schema), or
            does not exist and ``create`` is False.

    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, path: Union[str, os.PathLike], create: bool = True) -> None:
        self.path = pathlib.Path(path)
        self._connection: Optional[sqlite3.Connection] = None
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a directory, not a store")
        exists = self.path.exists()
        if not exists and not create:
            raise StoreError(f"no store at {self.path}")
        if not exists:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StoreError(f"cannot create a store at {self.path}: {error.strerror or error}") from None
        mode = "rwc" if create else "rw"
        try:
            connection = sqlite3.connect(
                f"{self.path.absolute().as_uri()}?mode={mode}", uri=True, isolation_level=None, timeout=60.0
            )
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the store {self.path}: {error}") from None
        self._connection = connection
        try:
            self._setup(create)
        except sqlite3.DatabaseError as error:
            self.close()
            message = str(error)
            if "not a database" in message or "malformed" in message:
                raise StoreError(f"{self.path} is not an awale store (not an SQLite database)") from None
            raise StoreError(f"cannot use the store {self.path}: {message}") from None
        except StoreError:
            self.close()
            raise

    def _setup(self, create: bool) -> None:
        db = self._connection
        application_id = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if application_id == 0 and not tables and create:
            db.execute("PRAGMA journal_mode = WAL")
            try:
                db.execute("BEGIN IMMEDIATE")
                # Another process may have created the store meanwhile.
                if db.execute("PRAGMA application_id").fetchone()[0] == 0:
                    db.execute(_SCHEMA)
                    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                db.execute("COMMIT")
            except BaseException:
                _rollback(db)
                raise
        elif application_id != APPLICATION_ID or "games" not in tables:
            raise StoreError(f"{self.path} is an SQLite database but not an awale store (no awale games table)")
        elif version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer version of awale (schema {version}; this one reads {SCHEMA_VERSION})"
            )
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA foreign_keys = ON")

    # ------------------------------------------------------------------ lifecycle

    @property
    def connection(self) -> sqlite3.Connection:
        """The open SQLite connection (autocommit mode; for read-only queries)."""
        if self._connection is None:
            raise StoreError(f"the store {self.path} is closed")
        return self._connection

    def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Store {str(self.path)!r}{' closed' if self._connection is None else ''}>"

    # ------------------------------------------------------------------ writing

    def add(self, experiment: str, records: Iterable[MatchRecord]) -> int:
        """Store finished games under ``experiment``, all or none, in one transaction.

        Games whose key is already in the store are skipped, so adding the
        same games again changes nothing.

        Args:
            experiment: the experiment's name.
            records: the games, as :func:`awale.match.play` returns them
                (their ``south`` and ``north`` are canonical specs).

        Returns:
            The number of rows written (games not already there).

        Raises:
            StoreError: a value that is not a valid game, or a database error;
                nothing of this call is then written.
        """
        _check_experiment(experiment)
        db = self.connection
        created_at = _now()
        rows = (_row(experiment, record, created_at) for record in records)
        try:
            db.execute("BEGIN IMMEDIATE")
            before = db.total_changes
            db.executemany(_INSERT, rows)
            written = db.total_changes - before
            db.execute("COMMIT")
        except BaseException as error:  # KeyboardInterrupt included: never leave a transaction open
            _rollback(db)
            if isinstance(error, sqlite3.Error):
                raise StoreError(f"cannot write to the store {self.path}: {error}") from None
            raise
        return written

    # ------------------------------------------------------------------ reading

    def keys(self, experiment: str) -> Set[StoredKey]:
        """The keys of the games stored under ``experiment``."""
        rows = self.connection.execute(
            "SELECT south, north, seed, rules FROM games WHERE experiment = ?", (_check_experiment(experiment),)
        )
        return {StoredKey(*row) for row in rows}

    def winners(self, experiment: str) -> Dict[StoredKey, Optional[int]]:
        """The winner (0, 1 or None for a draw) of each game stored under ``experiment``, by key."""
        rows = self.connection.execute(
            "SELECT south, north, seed, rules, winner FROM games WHERE experiment = ?", (_check_experiment(experiment),)
        )
        return {StoredKey(south, north, seed, rules): winner for south, north, seed, rules, winner in rows}

    def count(self, experiment: Optional[str] = None) -> int:
        """The number of games stored, under ``experiment`` or in all."""
        if experiment is None:
            return self.connection.execute("SELECT count(*) FROM games").fetchone()[0]
        return self.connection.execute(
            "SELECT count(*) FROM games WHERE experiment = ?", (_check_experiment(experiment),)
        ).fetchone()[0]

    def experiments(self) -> Dict[str, int]:
        """The experiments in the store with their numbers of games, by name."""
        rows = self.connection.execute("SELECT experiment, count(*) FROM games GROUP BY experiment ORDER BY experiment")
        return dict(rows.fetchall())

    def load(self, experiment: Optional[str] = None) -> "pandas.DataFrame":
        """The stored games as a DataFrame; see :func:`load`."""
        import pandas as pd

        where, args = ("", ()) if experiment is None else (" WHERE experiment = ?", (_check_experiment(experiment),))
        cursor = self.connection.execute(
            f"SELECT {', '.join(COLUMNS)} FROM games{where} ORDER BY experiment, south, north, rules, seed", args
        )
        rows: List[Tuple[Any, ...]] = cursor.fetchall()
        columns = list(zip(*rows)) if rows else [()] * len(COLUMNS)
        data = dict(zip(COLUMNS, columns))
        frame = pd.DataFrame(
            {
                "experiment": pd.Series(data["experiment"], dtype="str"),
                "south": pd.Series(data["south"], dtype="str"),
                "north": pd.Series(data["north"], dtype="str"),
                "seed": pd.Series(data["seed"], dtype="int64"),
                "rules": pd.Series(data["rules"], dtype="str"),
                "winner": pd.Series(data["winner"], dtype="Int64"),
                "result": pd.Series(
                    [0.5 if w is None else float(w == 0) for w in data["winner"]], dtype="float64"
                ),
                "south_score": pd.Series(data["south_score"], dtype="int64"),
                "north_score": pd.Series(data["north_score"], dtype="int64"),
                "plies": pd.Series(data["plies"], dtype="int64"),
                "moves": pd.Series(data["moves"], dtype="str"),
                "south_seconds": pd.Series(data["south_seconds"], dtype="float64"),
                "north_seconds": pd.Series(data["north_seconds"], dtype="float64"),
                "created_at": pd.to_datetime(pd.Series(data["created_at"], dtype="str"), utc=True, format="ISO8601"),
            }
        )
        return frame


# --------------------------------------------------------------------------- one-call helpers


def load(path: Union[str, os.PathLike], experiment: Optional[str] = None) -> "pandas.DataFrame":
    """Read a store's games into a :class:`pandas.DataFrame`, one row per game.

    Columns and types: ``experiment``, ``south``, ``north``, ``rules`` and
    ``moves`` are strings (``moves``: one digit per action, see
    :func:`decode_moves`; ``rules``: see :func:`rules_from_text`); ``seed``,
    ``south_score``, ``north_score`` and ``plies`` are ``int64``; ``winner``
    is a nullable ``Int64``, 0 for South, 1 for North and ``<NA>`` for a
    draw; ``result`` is South's result as a ``float64`` (1 a win, 0.5 a draw,
    0 a loss); ``south_seconds`` and ``north_seconds`` are ``float64``;
    ``created_at`` is a UTC ``datetime64``.  Rows are sorted by experiment,
    south, north, rules and seed, so the same games give the same frame
    whatever order they were played in.  The index is a plain range.

    Args:
        path: the store's file.
        experiment: only this experiment's games; all by default.

    Raises:
        StoreError: no store at ``path``, or not a valid store.
    """
    with Store(path, create=False) as store:
        return store.load(experiment)


def experiments(path: Union[str, os.PathLike]) -> Dict[str, int]:
    """The experiments of the store at ``path`` with their numbers of games.

    Raises:
        StoreError: no store at ``path``, or not a valid store.
    """
    with Store(path, create=False) as store:
        return store.experiments()


def count(path: Union[str, os.PathLike], experiment: Optional[str] = None) -> int:
    """The number of games in the store at ``path`` (of one experiment, or all).

    Raises:
        StoreError: no store at ``path``, or not a valid store.
    """
    with Store(path, create=False) as store:
        return store.count(experiment)
