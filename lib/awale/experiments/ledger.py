"""The ledger of ideas: every change meant to make the champion stronger, tried by an SPRT, kept only on H1.

One row per test (``data/strength/ledger.csv`` in the thesis's repository): the idea in words, the commit
of the code that played it, the two agents (the idea, then the champion it must beat), the test (bounds,
error rates, seed, checkpoints) and what the store says of it: pairs and games, A's wins, draws and losses,
score and logistic Elo with their 95 % intervals, LLR and verdict, and both agents' mean thinking time per
move over the test's games (the four plies of each opening are not counted).

``python -m awale sprt A B ... --ledger IDEA`` writes the row of its test when the test ends, decided or
at its cap of pairs (an interrupted test writes none; a row of the same test is replaced, so a test resumed with
a larger cap updates its row).  :func:`check` recomputes every row from the
store; the thesis's tests run it, so the ledger cannot say more than the games.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import math
import os
import pathlib
import stat
import subprocess
import tempfile
from typing import TYPE_CHECKING, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

from ..agents.clocked import split_clock
from . import stats
from .keys import canonical_spec
from .sprt import (
    DEFAULT_CHECK_EVERY,
    DEFAULT_MAX_PAIRS,
    SPRT,
    TestPlan,
    Verdict,
    experiment_name,
    keys_of_pairs,
    opening_spec,
    standard_openings,
    stored_verdict,
)
from .store import Store

if TYPE_CHECKING:
    import pandas

    from ..core.game import Game

__all__ = ["COLUMNS", "EQUAL_TIME", "CountedMove", "Entry", "at_first_cap", "check", "commit_of", "counted_games",
           "counted_moves", "entry", "first_cap", "read", "record"]

#: The largest ratio of the two agents' mean times per move at which a test counts as played at equal time.
EQUAL_TIME = 1.10

#: The columns of the ledger, in order.
COLUMNS = (
    "idea", "commit", "a", "b", "elo0", "elo1", "alpha", "beta", "seed", "check_every", "max_pairs",
    "pairs", "games", "wins", "draws", "losses", "score", "elo", "elo_low", "elo_high", "llr", "verdict",
    "a_ms", "b_ms",
)

# What makes two rows the same test (its cap is fixed when it starts: the store records it, see first_cap).
_TEST_COLUMNS = ("a", "b", "elo0", "elo1", "alpha", "beta", "seed", "check_every")


@dataclasses.dataclass(frozen=True)
class Entry:
    """A row of the ledger: an idea, its test and the test's outcome (see the module docstring).

    ``verdict`` is ``H1`` (kept), ``H0`` (rejected), ``inconclusive`` (stopped at ``max_pairs``) or
    ``running`` (not decided yet).  ``a_ms`` and ``b_ms`` are NaN before a game is stored.
    """

    idea: str
    commit: str
    a: str
    b: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    seed: int
    check_every: int
    max_pairs: int
    pairs: int
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    elo: float
    elo_low: float
    elo_high: float
    llr: float
    verdict: str
    a_ms: float
    b_ms: float

    @property
    def test(self) -> SPRT:
        return SPRT(self.elo0, self.elo1, self.alpha, self.beta)

    @property
    def time_ratio(self) -> float:
        """A's mean time per move over B's."""
        return self.a_ms / self.b_ms if self.b_ms > 0 else math.nan

    @property
    def equal_time(self) -> bool:
        """Both agents' mean times per move within :data:`EQUAL_TIME` of each other."""
        ratio = self.time_ratio
        return math.isfinite(ratio) and 1 / EQUAL_TIME <= ratio <= EQUAL_TIME

    @property
    def same_clock(self) -> bool:
        """Both agents under the same clock, each sizing its moves by it (``manage``): equal time for the game,
        however each spends it."""
        (a, a_clock), (b, b_clock) = split_clock(self.a), split_clock(self.b)
        if a_clock is None or a_clock != b_clock:
            return False
        return all(getattr(agent, "manage", False) for agent in (a, b))

    @property
    def fair_time(self) -> bool:
        """Whether the time difference cannot have made the verdict: the agents at equal time or under the same
        clock, or an idea kept (H1) while A spent less time than B, or one not kept (H0, or inconclusive at the
        cap) while A spent more."""
        ratio = self.time_ratio
        kept = self.verdict == "H1"
        return (self.equal_time or self.same_clock or (kept and ratio < 1)
                or (self.verdict in ("H0", "inconclusive") and ratio > 1))

    def row(self) -> Dict[str, str]:
        """The entry as a CSV row: numbers rounded as the ledger keeps them."""
        values = dataclasses.asdict(self)
        values["score"] = f"{self.score:.4f}"
        for name in ("elo", "elo_low", "elo_high", "a_ms", "b_ms"):
            values[name] = f"{values[name]:.1f}"
        values["llr"] = f"{values['llr']:.3f}"
        for name in ("elo0", "elo1", "alpha", "beta"):
            values[name] = f"{values[name]:g}"
        return {name: str(values[name]) for name in COLUMNS}

    def same_test(self, other: "Entry") -> bool:
        """Whether two entries are rows of the same test (same agents, bounds, rates, seed and looks; the cap of
        pairs may differ: a test resumed with a larger cap replaces its row)."""
        return all(getattr(self, name) == getattr(other, name) for name in _TEST_COLUMNS)


def _verdict_text(verdict: Verdict) -> str:
    if verdict.hypothesis is not None:
        return verdict.hypothesis
    return "inconclusive" if verdict.finished else "running"


def _counted(frame: "pandas.DataFrame", a: str, b: str, openings: Sequence[str], seed: int,
             pairs: int) -> Tuple["pandas.DataFrame", int]:
    """The games of the test's first ``pairs`` pairs (those its verdict counts, not the games played past it),
    their sides named ``"A"`` and ``"B"``, and the plies of the openings."""
    keys = keys_of_pairs(a, b, openings, seed)
    counted = {dataclasses.astuple(key.stored) for index in range(pairs) for key in keys(index)}
    stored = zip(frame["south"], frame["north"], frame["seed"], frame["rules"])
    frame = frame.loc[[(south, north, int(game_seed), rules) in counted for south, north, game_seed, rules in stored]]
    plies = {len(moves) for moves in openings}
    if len(plies) != 1:
        raise ValueError("the ledger needs openings of one length (their plies are not counted as moves)")
    names = {}
    for moves in set(openings):
        names[opening_spec(a, moves)], names[opening_spec(b, moves)] = "A", "B"
    return frame.assign(south=frame["south"].map(names), north=frame["north"].map(names)), plies.pop()


def _times(frame: "pandas.DataFrame", a: str, b: str, openings: Sequence[str], seed: int,
           pairs: int) -> Tuple[float, float]:
    """A's and B's mean thinking time per move (ms) over the games the test counts, the openings' plies left out."""
    counted, opening_plies = _counted(frame, a, b, openings, seed, pairs)
    return stats.ms_per_move(counted, "A", opening_plies), stats.ms_per_move(counted, "B", opening_plies)


def counted_games(row: Entry, store: Union[Store, str, os.PathLike],
                  openings: Optional[Sequence[str]] = None) -> Tuple["pandas.DataFrame", int]:
    """The stored games that the ledger's ``row`` counts, with their sides named ``"A"`` and ``"B"`` (the specs
    are ``row.a`` and ``row.b``), and the plies of the openings, which are not counted as moves."""
    openings = standard_openings() if openings is None else tuple(openings)
    with _opened(store) as db:
        frame = db.load(experiment_name(row.a, row.b, row.test, openings, row.seed))
    return _counted(frame, row.a, row.b, openings, row.seed, row.pairs)


class CountedMove(NamedTuple):
    """A move after the openings of a game that a ledger row counts (:func:`counted_moves`)."""

    game: int  # the game's place in the frame it was read from
    ply: int
    side: str  # "A" or "B", the side that moves
    position: "Game"  # the position it moves from
    kind: str  # "searched", "book", "database" or "forced" (:data:`awale.agents.champion.MOVE_KINDS`)


def counted_moves(row: Entry, games: "pandas.DataFrame", opening_plies: int,
                  classifier: Optional[Callable[[str], Callable[["Game"], str]]] = None) -> Iterator[CountedMove]:
    """Every move after the ``opening_plies`` of ``games`` (the frame of :func:`counted_games`, or part of it), in
    order, with its kind: ``classifier`` of each side's spec without its clock tells it (by default
    :func:`awale.agents.champion.move_classifier`, for the champions the ledger tests)."""
    from ..agents.champion import move_classifier
    from ..core.game import Game
    from ..core.record import decode_moves
    from ..core.rules import rules_from_text

    classify = classifier or move_classifier
    kinds = {side: classify(split_clock(spec)[0].spec) for side, spec in (("A", row.a), ("B", row.b))}
    for number, game_row in enumerate(games.itertuples()):
        sides = (game_row.south, game_row.north)
        game = Game(rules=rules_from_text(game_row.rules))
        for ply, action in enumerate(decode_moves(game_row.moves)):
            if ply >= opening_plies:
                side = sides[game.current_player]
                yield CountedMove(number, ply, side, game, kinds[side](game))
            game = game.step(action)[0]


@contextlib.contextmanager
def _opened(store: Union[Store, str, os.PathLike]) -> Iterator[Store]:
    """``store`` itself, or the store at that path, opened for the block and closed after it."""
    if isinstance(store, Store):
        yield store
        return
    db = Store(store)
    try:
        yield db
    finally:
        db.close()


def entry(
    idea: str,
    a: str,
    b: str,
    test: SPRT,
    store: Union[Store, str, os.PathLike],
    *,
    commit: str = "",
    seed: int = 0,
    check_every: int = DEFAULT_CHECK_EVERY,
    max_pairs: int = DEFAULT_MAX_PAIRS,
    openings: Optional[Sequence[str]] = None,
) -> Entry:
    """The ledger's row of a test, from the games the store holds (see :func:`awale.experiments.sprt.stored_verdict`).

    Raises:
        ValueError: an empty idea, bad agents or test options.
    """
    idea = " ".join(str(idea).split())
    if not idea:
        raise ValueError("an idea needs a few words saying what it changes")
    a, b = canonical_spec(a), canonical_spec(b)
    openings = standard_openings() if openings is None else tuple(openings)
    with _opened(store) as db:
        plan = TestPlan(a, b, test, openings, seed=seed, max_pairs=max_pairs, check_every=check_every)
        verdict = stored_verdict(plan, db)
        frame = db.load(experiment_name(a, b, test, openings, seed))
    a_ms, b_ms = _times(frame, a, b, openings, seed, verdict.pairs)
    est = verdict.estimate
    wins, draws, losses = verdict.games or (0, 0, 0)
    return Entry(
        idea=idea, commit=commit, a=a, b=b, elo0=test.elo0, elo1=test.elo1, alpha=test.alpha, beta=test.beta,
        seed=seed, check_every=check_every, max_pairs=max_pairs, pairs=verdict.pairs, games=2 * verdict.pairs,
        wins=wins, draws=draws, losses=losses, score=est.score, elo=est.elo, elo_low=est.elo_low,
        elo_high=est.elo_high, llr=verdict.llr, verdict=_verdict_text(verdict), a_ms=a_ms, b_ms=b_ms,
    )


def first_cap(row: Entry, store: Union[Store, str, os.PathLike]) -> int:
    """The cap (pairs) of the row's test when it started, as recorded in the store; the row's own cap if none is.

    A test's verdict is read at the cap fixed before its first game (:func:`awale.experiments.sprt.sequential`
    records it and refuses another on resume).  A few tests of the ledger had their cap raised before caps were
    recorded (their first caps were recorded afterwards, from data/README.md): for those the row reads the test
    where it ended, and :func:`at_first_cap` reads it where it should have.
    """
    openings = standard_openings()
    with _opened(store) as db:
        plan = TestPlan(row.a, row.b, row.test, openings, seed=row.seed, max_pairs=row.max_pairs,
                        check_every=row.check_every)
        recorded = db.cap(plan.store_name)
    return row.max_pairs if recorded is None else recorded[0]


def at_first_cap(row: Entry, store: Union[Store, str, os.PathLike]) -> Entry:
    """The row recomputed at its test's first cap (:func:`first_cap`): the same row when the cap never changed."""
    cap = first_cap(row, store)
    if cap == row.max_pairs:
        return row
    return entry(row.idea, row.a, row.b, row.test, store, commit=row.commit, seed=row.seed,
                 check_every=row.check_every, max_pairs=cap)


def _parsed(row: Dict[str, str], where: str) -> Entry:
    missing = [name for name in COLUMNS if row.get(name) is None]
    if missing:
        raise ValueError(f"{where}: missing column(s) {', '.join(missing)}")
    values: Dict[str, object] = {}
    try:
        for field in dataclasses.fields(Entry):
            text = row[field.name]
            values[field.name] = int(text) if field.type == "int" else float(text) if field.type == "float" else text
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None
    return Entry(**values)  # type: ignore[arg-type]


def read(path: Union[str, os.PathLike]) -> List[Entry]:
    """The entries of a ledger file, in order (an absent file is an empty ledger).

    Raises:
        ValueError: a malformed row, naming its line.
    """
    path = pathlib.Path(path)
    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None or tuple(reader.fieldnames) != COLUMNS:
            raise ValueError(f"{path}: the header must be {','.join(COLUMNS)}")
        return [_parsed(row, f"{path}, line {reader.line_num}") for row in reader]


def record(path: Union[str, os.PathLike], new: Entry) -> List[Entry]:
    """Write ``new`` into the ledger at ``path``: in place of the row of the same test, else at the end.

    The file is replaced atomically (written beside it, then renamed) and keeps its permissions; a new file gets
    those of any new file of the user (the umask).  Returns the ledger's entries.

    Raises:
        FileNotFoundError: the ledger's folder does not exist (it is not made: a mistyped path would hide the row).
    """
    path = pathlib.Path(path)
    if not path.parent.is_dir():
        raise FileNotFoundError(2, f"the folder {path.parent} of the ledger does not exist", str(path))
    entries = read(path)
    for i, old in enumerate(entries):
        if old.same_test(new):
            entries[i] = new
            break
    else:
        entries.append(new)
    if path.exists():
        mode = stat.S_IMODE(path.stat().st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    handle = tempfile.NamedTemporaryFile("w", newline="", encoding="utf-8", dir=path.parent, suffix=".tmp",
                                         delete=False)
    try:
        with handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(e.row() for e in entries)
        os.chmod(handle.name, mode)  # a temporary file is made 0600: the ledger keeps its own mode
        os.replace(handle.name, path)
    except BaseException:
        os.unlink(handle.name)
        raise
    return entries


def commit_of(directory: Union[str, os.PathLike, None] = None) -> str:
    """The short hash of the commit checked out in ``directory`` (``+`` when files differ from it), or ""."""
    try:
        found = subprocess.run(["git", "describe", "--always", "--dirty=+", "--abbrev=7"], cwd=directory,
                               capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return ""
    return found.stdout.strip()


def check(path: Union[str, os.PathLike], store: Union[Store, str, os.PathLike]) -> List[str]:
    """Every row of the ledger recomputed from the store: one line per row that disagrees, none if all agree.

    The idea and commit are taken as written; every other column must be what :func:`entry` computes
    (numbers to the ledger's rounding).
    """
    problems = []
    with _opened(store) as db:
        for number, old in enumerate(read(path), 2):
            new = entry(old.idea, old.a, old.b, old.test, db, commit=old.commit, seed=old.seed,
                        check_every=old.check_every, max_pairs=old.max_pairs)
            written, computed = old.row(), new.row()
            differ = [name for name in COLUMNS if written[name] != computed[name]]
            if differ:
                problems.append(f"{path}, line {number} ({old.idea}): {', '.join(differ)} disagree with the store "
                                f"({', '.join(f'{n} {written[n]} vs {computed[n]}' for n in differ)})")
    return problems
