"""The experiment store: every finished game, one row each, in one SQLite file.

The store is a single SQLite database (standard library, no server) in WAL
mode, so a notebook can read it while a run writes to it.  Its table
``games`` holds one row per finished game:

==============  ==========================================================
column          meaning
==============  ==========================================================
experiment      the experiment's name (a tournament, a catalogue entry...)
south, north    canonical agent specs, ``str(awale.agents.parse(spec))``
seed            the match seed given to :func:`awale.play.match.play`
rules           the rules, canonical JSON (see :func:`awale.core.rules.rules_to_text`)
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

Games in progress: a second table, ``claims``, holds the keys of the games
that a run is playing (:meth:`Store.claim`), so that two runs of the same
experiment on one store share the work instead of playing the same games.
A claim names its run and lapses after :data:`CLAIM_SECONDS` unless renewed,
or at once when the run's process is found dead on this machine.  Stores
written before the table existed gain it, in place, the first time they are
opened for writing; versions of awale that do not know it ignore it.

Trust: a store is opened only if its schema is exactly the one this module
writes (tables, columns, constraints and indexes; no trigger, view or other
object), so that a file that merely looks like a store cannot rewrite or
hide games.  Anything else is refused with a :class:`StoreError`, before
anything is written to it.  A damaged file gives a :class:`StoreError` too,
on opening or on reading.

>>> import tempfile, pathlib
>>> from awale.play.match import play
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
import os
import pathlib
import socket
import sqlite3
import time
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Union

from ..play.match import MatchRecord
from ..core.record import decode_moves, encode_moves
from ..core.rules import rules_from_text, rules_to_text

if TYPE_CHECKING:  # pandas is imported when a frame is built, not with the module
    import pandas

__all__ = [
    "Store",
    "StoreError",
    "StoredKey",
    "load",
    "experiments",
    "count",
    "rules_to_text",  # the rules' text, from awale.core.rules: here too, as the store writes and reads it
    "rules_from_text",
    "encode_moves",  # the moves' text, from awale.core.record: here too, as the store writes and reads it
    "decode_moves",
    "COLUMNS",
    "SCHEMA_VERSION",
    "CLAIM_SECONDS",
    "claimant",
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

# The games in progress (added to schema 1 in place: older versions ignore the table).
_CLAIMS = """
CREATE TABLE claims (
    experiment TEXT NOT NULL,
    south      TEXT NOT NULL,
    north      TEXT NOT NULL,
    seed       INTEGER NOT NULL,
    rules      TEXT NOT NULL,
    owner      TEXT NOT NULL,
    expires    REAL NOT NULL,
    UNIQUE (experiment, south, north, seed, rules)
)
"""

# The caps of sequential tests (added to schema 1 in place, as the claims): a test's cap and how often it looks
# at its likelihood ratio are fixed when it starts, so that its verdict is read where it was planned.
_CAPS = """
CREATE TABLE caps (
    experiment  TEXT    NOT NULL PRIMARY KEY CHECK (typeof(experiment) = 'text' AND experiment <> ''),
    max_pairs   INTEGER NOT NULL CHECK (typeof(max_pairs) = 'integer' AND max_pairs >= 1),
    check_every INTEGER NOT NULL CHECK (typeof(check_every) = 'integer' AND check_every >= 1),
    recorded_at TEXT    NOT NULL
)
"""

#: Seconds a claim on a game in progress lasts unless its run renews it.
CLAIM_SECONDS = 600.0


def _objects(*schemas: str) -> Set[Tuple[str, str, str, Optional[str]]]:
    """The rows of ``sqlite_master`` that ``schemas`` create."""
    db = sqlite3.connect(":memory:")
    try:
        for schema in schemas:
            db.execute(schema)
        return set(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    finally:
        db.close()


# The exact schemas a store may have: as first written, with the table of claims, and with the tests' caps.
_EXPECTED = (_objects(_SCHEMA), _objects(_SCHEMA, _CLAIMS), _objects(_SCHEMA, _CLAIMS, _CAPS))

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


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _row(experiment: str, record: MatchRecord, created_at: str) -> Tuple[Any, ...]:
    """The values of one row, checked; raises ``StoreError``."""
    if not isinstance(record, MatchRecord):
        raise StoreError(f"can only store awale.play.match.MatchRecord values, got {record!r}")
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


def claimant() -> str:
    """A name for a run that claims games: this machine, this process and a random tag."""
    return f"{socket.gethostname()}:{os.getpid()}:{os.urandom(4).hex()}"


def _alive(owner: str) -> bool:
    """Whether the run named ``owner`` may still be playing (it is, unless its process here is gone)."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return True  # another machine's run: trust its claim until it lapses
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def _check_experiment(experiment: str) -> str:
    if not isinstance(experiment, str) or not experiment.strip():
        raise StoreError(f"an experiment name must be a non-empty string, got {experiment!r}")
    return experiment


# --------------------------------------------------------------------------- the store


class Store:
    """An open store: one SQLite connection, used by one thread.

    Args:
        path: the store's file.
        create: open for writing, creating the file (and its directory) if
            it does not exist; otherwise the store is opened read-only (it
            may then be on a read-only disk or directory) and a missing file
            is an error.

    Raises:
        StoreError: the path is a directory or not a regular file, is not an
            SQLite database, is a database that is not an awale store (or of
            a newer schema, or with any object this module did not create),
            is damaged, does not exist and ``create`` is False, or cannot be
            written and ``create`` is True.

    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, path: Union[str, os.PathLike], create: bool = True) -> None:
        self.path = pathlib.Path(path)
        self.writable = create
        self._connection: Optional[sqlite3.Connection] = None
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a directory, not a store")
        exists = self.path.exists()
        if exists and not self.path.is_file():
            raise StoreError(f"{self.path} is not a regular file (a device, a pipe...), so not a store")
        if not exists and not create:
            raise StoreError(f"no store at {self.path}")
        if not exists:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StoreError(f"cannot create a store at {self.path}: {error.strerror or error}") from None
        try:
            self._connection = self._connect(create)
            self._setup(create)
        except sqlite3.DatabaseError as error:
            self.close()
            raise StoreError(self._explain(error, "open")) from None
        except BaseException:
            self.close()
            raise

    def _connect(self, create: bool) -> sqlite3.Connection:
        """A connection: read-write, or read-only (immutable when not even the WAL's files can be made)."""
        uri = self.path.absolute().as_uri()
        if create:
            return sqlite3.connect(f"{uri}?mode=rwc", uri=True, isolation_level=None, timeout=60.0)
        connection = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None, timeout=60.0)
        try:
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return connection
        except sqlite3.OperationalError as error:
            connection.close()
            if "unable to open" not in str(error):
                raise
        # A store in WAL mode whose directory is read-only, with no -shm file to share: nothing can be
        # writing it, so read it as immutable.
        return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None, timeout=60.0)

    def _explain(self, error: sqlite3.DatabaseError, doing: str) -> str:
        """A one-line message for an SQLite error met while ``doing`` something with the store."""
        message = str(error)
        if "file is not a database" in message:
            return f"{self.path} is not an awale store (not an SQLite database)"
        if "malformed" in message or "corrupt" in message:
            return f"the store {self.path} is damaged ({message}); restore it from a copy"
        if "readonly" in message or "read-only" in message or (doing == "open" and "unable to open" in message):
            return f"cannot write to the store {self.path}: it, or its directory, is read-only ({message})"
        return f"cannot {doing} the store {self.path}: {message}"

    def _setup(self, create: bool) -> None:
        db = self._connection
        application_id = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        objects = set(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
        if application_id == 0 and version == 0 and not objects:
            if not create:
                raise StoreError(f"{self.path} is an empty database, not an awale store")
            db.execute("PRAGMA journal_mode = WAL")
            try:
                db.execute("BEGIN IMMEDIATE")
                # Another process may have created the store meanwhile.
                if db.execute("PRAGMA application_id").fetchone()[0] == 0:
                    db.execute(_SCHEMA)
                    db.execute(_CLAIMS)
                    db.execute(_CAPS)
                    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                db.execute("COMMIT")
            except BaseException:
                _rollback(db)
                raise
            objects = set(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
            version = db.execute("PRAGMA user_version").fetchone()[0]
        elif application_id != APPLICATION_ID or not any(row[:2] == ("table", "games") for row in objects):
            raise StoreError(f"{self.path} is an SQLite database but not an awale store (no awale games table)")
        elif version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer version of awale (schema {version}; this one reads {SCHEMA_VERSION})"
            )
        self._check_schema(objects, version)
        if create:
            if objects != _EXPECTED[-1]:  # a store written before the claims or the caps: add them, in place
                try:
                    db.execute("BEGIN IMMEDIATE")
                    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
                    for table, schema in (("claims", _CLAIMS), ("caps", _CAPS)):
                        if table not in tables:
                            db.execute(schema)
                    db.execute("COMMIT")
                except BaseException:
                    _rollback(db)
                    raise
            self._probe_writing()
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")
        else:
            db.execute("PRAGMA query_only = ON")

    def _check_schema(self, objects: Set[Tuple[str, str, str, Optional[str]]], version: int) -> None:
        """Refuse a store whose schema is not exactly one this module writes."""
        if version == SCHEMA_VERSION and objects in _EXPECTED:
            return
        extra = sorted(objects - _EXPECTED[-1], key=str)
        missing = sorted(_EXPECTED[0] - objects, key=str)
        if extra:
            kind, name = extra[0][:2]
            what = f"has a {kind} {name!r} that awale did not create"
        elif missing:
            kind, name = missing[0][:2]
            what = f"lacks the {kind} {name!r}, or has it changed"
        else:
            what = f"has schema version {version}, not {SCHEMA_VERSION}"
        raise StoreError(f"{self.path} is not an awale store as awale writes it: it {what}; refusing to use it")

    def _probe_writing(self) -> None:
        """Fail now, before any game is played, if the store cannot be written (a write rolled back)."""
        db = self._connection
        try:
            db.execute("BEGIN IMMEDIATE")
            db.execute(
                "INSERT INTO claims VALUES ('', '', '', 0, '', '', 0.0) "
                "ON CONFLICT (experiment, south, north, seed, rules) DO NOTHING"
            )
        finally:
            _rollback(db)

    @contextlib.contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """The connection, with SQLite's errors (a damaged page...) turned into a one-line StoreError."""
        try:
            yield self.connection
        except sqlite3.DatabaseError as error:
            raise StoreError(self._explain(error, "read")) from None

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
            records: the games, as :func:`awale.play.match.play` returns them
                (their ``south`` and ``north`` are canonical specs).

        Returns:
            The number of rows written (games not already there).

        Raises:
            StoreError: a value that is not a valid game, or a database error;
                nothing of this call is then written.
        """
        _check_experiment(experiment)
        db = self._writing()
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
                raise StoreError(self._explain(error, "write to")) from None
            raise
        return written

    # ------------------------------------------------------------------ games in progress

    def claim(
        self, experiment: str, keys: Sequence[StoredKey], owner: str, seconds: float = CLAIM_SECONDS
    ) -> List[StoredKey]:
        """Claim the games of ``keys`` that are neither stored nor claimed by another live run.

        A claim lasts ``seconds`` unless renewed (:meth:`renew`); claims of
        a process of this machine that no longer exists lapse at once.

        Args:
            experiment: the experiment's name.
            keys: the games a run is about to play.
            owner: the run, as :func:`claimant` names it.
            seconds: how long the claims last.

        Returns:
            The keys claimed (in order); the others are stored or in progress elsewhere.

        Raises:
            StoreError: the store is read-only, or a database error.
        """
        _check_experiment(experiment)
        db = self._writing()
        now = time.time()
        claimed = []
        try:
            db.execute("BEGIN IMMEDIATE")
            db.execute("DELETE FROM claims WHERE expires < ?", (now,))
            for key in keys:
                where = (experiment, key.south, key.north, key.seed, key.rules)
                if db.execute(
                    "SELECT 1 FROM games WHERE experiment = ? AND south = ? AND north = ? AND seed = ? AND rules = ?",
                    where,
                ).fetchone():
                    continue
                row = db.execute(
                    "SELECT owner FROM claims WHERE experiment = ? AND south = ? AND north = ? AND seed = ? "
                    "AND rules = ?",
                    where,
                ).fetchone()
                if row is not None and row[0] != owner and _alive(row[0]):
                    continue
                db.execute(
                    "INSERT INTO claims VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (experiment, south, north, seed, "
                    "rules) DO UPDATE SET owner = excluded.owner, expires = excluded.expires",
                    (*where, owner, now + seconds),
                )
                claimed.append(key)
            db.execute("COMMIT")
        except BaseException as error:
            _rollback(db)
            if isinstance(error, sqlite3.Error):
                raise StoreError(self._explain(error, "write to")) from None
            raise
        return claimed

    def renew(self, owner: str, seconds: float = CLAIM_SECONDS) -> None:
        """Extend every claim of ``owner`` to ``seconds`` from now."""
        self._claims_change("UPDATE claims SET expires = ? WHERE owner = ?", (time.time() + seconds, owner))

    def release(self, owner: str) -> None:
        """Drop every claim of ``owner`` (its games are stored, or it stops)."""
        self._claims_change("DELETE FROM claims WHERE owner = ?", (owner,))

    def in_progress(self, experiment: str) -> int:
        """The number of games of ``experiment`` claimed by live runs (0 on a store without claims)."""
        with self._reading() as db:
            if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'claims'").fetchone():
                return 0
            owners = db.execute(
                "SELECT owner, count(*) FROM claims WHERE experiment = ? AND expires >= ? GROUP BY owner",
                (_check_experiment(experiment), time.time()),
            ).fetchall()
        return sum(count for owner, count in owners if _alive(owner))

    def _claims_change(self, sql: str, args: Tuple[Any, ...]) -> None:
        db = self._writing()
        try:
            db.execute(sql, args)
        except sqlite3.Error as error:
            raise StoreError(self._explain(error, "write to")) from None

    def cap(self, experiment: str) -> Optional[Tuple[int, int]]:
        """The ``(max_pairs, check_every)`` recorded for the sequential test ``experiment``, or None."""
        with self._reading() as db:
            if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'caps'").fetchone():
                return None
            row = db.execute("SELECT max_pairs, check_every FROM caps WHERE experiment = ?",
                             (_check_experiment(experiment),)).fetchone()
        return None if row is None else (int(row[0]), int(row[1]))

    def record_cap(self, experiment: str, max_pairs: int, check_every: int) -> Tuple[int, int]:
        """Record the cap of the sequential test ``experiment`` unless one is recorded; return the one that is.

        The first cap recorded stays: a test's verdict is read at the cap fixed before it started.
        """
        for what, value in (("max_pairs", max_pairs), ("check_every", check_every)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise StoreError(f"{what} must be an integer at least 1, got {value!r}")
        db = self._writing()
        try:
            db.execute("INSERT INTO caps VALUES (?, ?, ?, ?) ON CONFLICT (experiment) DO NOTHING",
                       (_check_experiment(experiment), max_pairs, check_every, _now()))
        except sqlite3.Error as error:
            raise StoreError(self._explain(error, "write to")) from None
        recorded = self.cap(experiment)
        assert recorded is not None
        return recorded

    def _writing(self) -> sqlite3.Connection:
        if not self.writable:
            raise StoreError(f"the store {self.path} was opened read-only")
        return self.connection

    # ------------------------------------------------------------------ reading

    def keys(self, experiment: str) -> Set[StoredKey]:
        """The keys of the games stored under ``experiment``."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT south, north, seed, rules FROM games WHERE experiment = ?", (_check_experiment(experiment),)
            )
            return {StoredKey(*row) for row in rows}

    def winners(self, experiment: str) -> Dict[StoredKey, Optional[int]]:
        """The winner (0, 1 or None for a draw) of each game stored under ``experiment``, by key."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT south, north, seed, rules, winner FROM games WHERE experiment = ?",
                (_check_experiment(experiment),),
            )
            return {StoredKey(south, north, seed, rules): winner for south, north, seed, rules, winner in rows}

    def count(self, experiment: Optional[str] = None) -> int:
        """The number of games stored, under ``experiment`` or in all."""
        with self._reading() as db:
            if experiment is None:
                return db.execute("SELECT count(*) FROM games").fetchone()[0]
            return db.execute(
                "SELECT count(*) FROM games WHERE experiment = ?", (_check_experiment(experiment),)
            ).fetchone()[0]

    def experiments(self) -> Dict[str, int]:
        """The experiments in the store with their numbers of games, by name."""
        with self._reading() as db:
            rows = db.execute("SELECT experiment, count(*) FROM games GROUP BY experiment ORDER BY experiment")
            return dict(rows.fetchall())

    def load(self, experiment: Optional[str] = None) -> "pandas.DataFrame":
        """The stored games as a DataFrame; see :func:`load`."""
        import pandas as pd

        where, args = ("", ()) if experiment is None else (" WHERE experiment = ?", (_check_experiment(experiment),))
        with self._reading() as db:
            rows: List[Tuple[Any, ...]] = db.execute(
                f"SELECT {', '.join(COLUMNS)} FROM games{where} ORDER BY experiment, south, north, rules, seed", args
            ).fetchall()
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
    :func:`decode_moves`; ``rules``: see :func:`awale.core.rules.rules_from_text`); ``seed``,
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
