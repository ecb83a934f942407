"""The thesis's strongest player: ``champion(time=0.5)``.

What makes it strong is knowledge, not a new search (see the experiments
chapter for the measurements that chose it):

1. an opening book (:mod:`awale.knowledge.book`), built offline by the same search at a
   greater depth, answers the first plies at once: by default the shipped
   full-width book (every position the champion can meet in the first 6
   plies); ``book='grown'`` the book grown by drop-out expansion
   (:func:`awale.offline.book_builder.grow`) with αβ at depth 12, ``book='grown16'`` the one grown
   by the champion's own search at depth 16, its median depth at 1 s a move (:data:`GROWN_BOOKS`);
   ``book='PATH'`` a book file; ``book=False`` none;
2. an endgame database (``endgame=PATH`` or ``endgame='15'``, see
   :mod:`awale.agents.endgame`), if given,
   plays perfectly once it holds the position and scores the positions it
   holds inside the search;
3. otherwise αβ (:class:`awale.agents.minimax.Minimax`) searches with the
   fitted evaluation of :mod:`awale.knowledge.evaluation` at its depth limit and a
   quiescence extension on captures, by iterative deepening within the time.

``champion(time=t, manage=True)`` aims at ``t`` seconds a searched move on
average over a game instead of spending ``t`` on each: it divides its time by
the phase of the game, pending captures and the stability of the best move,
and under a clock by the clock (:mod:`awale.agents.timing`).

``champion(nodes=n)`` searches ``n`` positions a move and ``champion(depth=d)``
to a fixed depth instead of for a time: their games are then reproducible,
like every iteration-budget game.  The node budget is the one to compare at
equal time (a fixed depth's time varies tenfold within a game).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any, Callable, Optional, Union

from ..knowledge import book as _book
from ..core.control import tell
from ..core.game import Game
from ..search.limits import Limits
from ..search.alphabeta import MAX_DEPTH, MAX_NODES, MAX_QUIESCENCE
from .base import MAX_SECONDS, Agent, Param, given_limits, parse, register, seed_param
from .endgame import endgame_param
from .minimax import (
    ALPHABETA_LIMITS, CLOCK_MOVES_PARAM, SEARCH_PARAMS, SPEND_PARAM, TIMING_PARAM, Minimax, check_manage_params,
    check_search_params,
)

__all__ = ["Champion", "BOOK_PATH", "GROWN_BOOKS", "GROWN_BOOK_PATH", "GROW_COMMAND", "QUIESCENCE", "opening_book",
           "MOVE_KINDS", "move_classifier"]

#: The opening book shipped with the library (see :mod:`awale.offline.book_builder` for how it was built).
BOOK_PATH = Path(__file__).resolve().parent.parent / "knowledge" / "opening-book.json"

#: Where ``book='grown'`` finds the book grown by drop-out expansion (absent until it is built and shipped).
GROWN_BOOK_PATH = BOOK_PATH.with_name("opening-book-grown.json.gz")

#: The command that builds the grown book (see the README for its cost).
GROW_COMMAND = "python -m awale book grow --positions 20000 --out lib/awale/knowledge/opening-book-grown.json.gz"

#: The grown books a champion's ``book`` parameter names: the file each is read from (beside the shipped book)
#: and the command that grows it. ``'grown16'`` is grown by the champion's own search (the Texel weights,
#: reductions, no quiescence) at depth 16, the median depth its search reaches at 1 s a move in the first plies.
GROWN_BOOKS = {
    "grown": (GROWN_BOOK_PATH, GROW_COMMAND),
    "grown16": (BOOK_PATH.with_name("opening-book-grown-16.json.gz"),
                "python -m awale book grow --positions 10000 --out lib/awale/knowledge/opening-book-grown-16.json.gz "
                "--search \"minimax(depth=16, evaluation=True, quiescence=0, reductions=True, weights='texel')\""),
}

#: Plies of capture extensions of the champion's search, unless its spec says otherwise.
QUIESCENCE = 4


@functools.lru_cache(maxsize=1)
def _shipped_book() -> _book.Book:
    return _book.load(BOOK_PATH)


@functools.lru_cache(maxsize=8)
def _book_file(path: str, modified: float) -> _book.Book:
    """The book in ``path``, read once per modification time."""
    return _book.load(path)


def opening_book(choice: Union[bool, str]) -> Optional[_book.Book]:
    """The book a champion's ``book`` parameter names: True the shipped one, False none, ``'grown'`` or
    ``'grown16'`` a grown one (:data:`GROWN_BOOKS`), any other string a book file (``'./grown'`` for a file
    named grown).

    Raises:
        ValueError: a grown book is not built yet (the message gives the command that grows it), or the
            file cannot be read or is not a book.
    """
    if choice is False:
        return None
    if choice is True:
        return _shipped_book()
    if choice in GROWN_BOOKS:
        grown, command = GROWN_BOOKS[choice]
        if not grown.exists():
            raise ValueError(f"champion: book={choice!r}: this grown opening book is not built yet ({grown} "
                             f"is missing); build it with: {command} (or give book='PATH' for a book file)")
        path = str(grown)
    else:
        path = str(choice)
    try:
        modified = os.stat(path).st_mtime
        return _book_file(path, modified)
    except OSError as error:
        raise ValueError(f"champion: book={choice!r}: cannot read the book: {error.strerror or error}") from None
    except ValueError as error:
        raise ValueError(f"champion: book={choice!r}: {error}") from None


class _BookParam(Param):
    """The ``book`` parameter: True or False as it always was, or the name of another book."""

    def check(self, agent: str, value: Any) -> Any:
        if isinstance(value, bool) or (isinstance(value, str) and value):
            return value
        names = ", ".join(repr(name) for name in GROWN_BOOKS)
        raise ValueError(f"{agent}: book must be True or False, {names} or a book file, got {value!r}")


@register
class Champion(Agent):
    """Opening book, endgame database and evaluated αβ with quiescence, in that order.

    Args:
        time: seconds per move (default 0.5), unless ``depth`` or ``nodes`` is given.
        depth: search to this depth instead of for a time (reproducible games).
        nodes: search this many positions a move instead of for a time (reproducible games).
        seed: seed of the generator that breaks ties between equal moves.
        book: the opening book: True (the default) the shipped full-width book, False none, ``'grown'`` the
            book grown by drop-out expansion with αβ at depth 12, ``'grown16'`` the one grown by the
            champion's own search at depth 16 (:data:`GROWN_BOOKS`; until one is built, an error that names
            the command that grows it), or the path of a book file (:func:`awale.knowledge.book.load`; a game then replays
            only with the same file).  The values True and False mean what they always meant.
        endgame: an endgame database: a file, or a number of seeds (built and cached); default none.
        manage: with a time, aim at it on average over the game, each move's time set by the game's phase,
            pending captures, the stability of the best move and the clock (:mod:`awale.agents.timing`);
            default False, every searched move takes ``time``.
        spend: with a time, search until it is spent, the iteration cut at the deadline deciding once the last
            best move has been searched in it (:meth:`awale.search.alphabeta.AlphaBeta.search`); default False.
        clock_moves: with ``manage``, under a clock, how the moves left are counted: ``"seeds"`` (the default)
            or ``"database"``, the seeds above the endgame database
            (:meth:`awale.agents.timing.TimeManager.moves_left`).
        timing: with ``manage``, constants of the time manager changed, ``'name=value, ...'``
            (:class:`awale.agents.timing.TimeConstants`, kept canonical); default none.
        quiescence: plies of capture extensions at the search's depth limit (default :data:`QUIESCENCE`;
            0 searches full width only, which the factorial of chapter 8 found stronger at equal time).
        pvs: principal variation search with aspiration windows (:mod:`awale.search.alphabeta`); default False.
        reductions: late-move reductions (:mod:`awale.search.alphabeta`); default False.
        killers: killer moves (:mod:`awale.search.alphabeta`); default False.
        iid: internal iterative deepening (:mod:`awale.search.alphabeta`); default False.
        mtdf: MTD(f) instead of one open-window search per iteration (:mod:`awale.search.alphabeta`); not with
            ``pvs``; default False.
        table: the transposition table holds ``2**table`` entries of 28 bytes (default
            :data:`~awale.search.alphabeta.TABLE_BITS`: 28 MB).
        weights: the evaluation's weights, ``"games"`` (the default), ``"perfect"`` (fitted on the endgame
            database), ``"texel"`` (fitted on every stored game between searches), ``"kroo"`` (the Texel fit
            plus the kroos' timing) or ``"patterns"`` (the Texel features plus pattern tables trained where the
            champion searches, :class:`awale.knowledge.evaluation.PatternEvaluation`;
            :data:`awale.knowledge.evaluation.WEIGHTS`).
        threads: threads that search each move at once, sharing the table (lazy SMP); above 1 no game
            replays. Default 1.
    """

    name = "champion"
    honours = ALPHABETA_LIMITS
    params = (
        Param("time", float, 0.5, minimum=0.001, maximum=MAX_SECONDS, optional=True,
              doc="seconds per move (unless depth or nodes is given)"),
        Param("depth", int, None, minimum=1, maximum=MAX_DEPTH, optional=True,
              doc="search to this depth instead of for a time (reproducible games)"),
        Param("nodes", int, None, minimum=1, maximum=MAX_NODES, optional=True,
              doc="positions to search a move instead of a time (reproducible games)"),
        seed_param(),
        _BookParam("book", bool, True,
                   doc="opening book: True the shipped one, False none, 'grown' or 'grown16' a grown one, or a book file"),
        endgame_param(),
        Param("manage", bool, False,
              doc="with a time: aim at it on average, each move's time by phase and stability (awale.agents.timing)"),
        SPEND_PARAM,
        CLOCK_MOVES_PARAM,
        TIMING_PARAM,
        Param("quiescence", int, QUIESCENCE, minimum=0, maximum=MAX_QUIESCENCE,
              doc="plies of capture extensions at the depth limit"),
        *SEARCH_PARAMS,
    )

    def __init__(self, **kwargs: Any) -> None:
        if (kwargs.get("depth") is not None or kwargs.get("nodes") is not None) and "time" not in kwargs:
            kwargs["time"] = None  # a depth or node budget alone replaces the default time
        super().__init__(**kwargs)

    def validate(self) -> None:
        given = [name for name in ("time", "depth", "nodes") if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(f"champion: give one of time, depth or nodes, got {' and '.join(given) or 'none'}")
        if self.manage and self.time is None:
            raise ValueError("champion: manage divides a time among the moves; give a time, not depth or nodes")
        check_manage_params(self)
        check_search_params(self)

    @property
    def spec(self) -> str:
        """The canonical spec; with a depth or nodes, the time (then None) is left out: ``champion(depth=11)``."""
        return self._spec_without(("time",) if self.time is None else ())

    def reset(self) -> None:
        """A new game: the book read again, the search's table emptied (kept, not allocated again)."""
        self._book = opening_book(self.book)
        search: Optional[Minimax] = getattr(self, "_search", None)
        if search is not None:
            search.reset()
            return
        self._search = Minimax(
            depth=self.depth, time=self.time, nodes=self.nodes, seed=self.seed, endgame=self.endgame,
            evaluation=True, quiescence=self.quiescence, manage=self.manage, spend=self.spend,
            clock_moves=self.clock_moves, timing=self.timing, pvs=self.pvs,
            reductions=self.reductions, killers=self.killers, iid=self.iid, mtdf=self.mtdf, table=self.table,
            weights=self.weights, threads=self.threads,
        )

    @property
    def alphabeta(self) -> Minimax:
        """The αβ agent that plays the moves neither the book nor the database gives (its ``last_search`` and
        ``searcher`` say how it searched)."""
        return self._search

    def observe_clock(self, remaining: float, increment: float) -> None:
        """With ``manage``, size the next searched move by the clock; else nothing."""
        self._search.observe_clock(remaining, increment)

    def act(self, game: Game, limits: Optional[Limits] = None) -> int:
        """The book's move if it has one, else the search's (which consults the endgame database) within
        ``limits`` (:meth:`Minimax.act`; None: the spec's budget)."""
        self._check_game(game)
        limits = given_limits(self, limits)
        if self._book is not None:
            action: Optional[int] = self._book.action(game)
            if action is not None:
                tell("book move", action)
                return action
        return self._search.act(game, limits)

    def expected_reply(self, game: Game, action: int) -> Optional[int]:
        """The book's move after ``action`` if it has one, else the search's expected reply."""
        after = game.step(int(action))[0]
        if after.game_finished:
            return None
        if self._book is not None:
            reply = self._book.action(after)
            if reply is not None:
                return int(reply)
        return self._search.expected_reply(game, action)


#: The kinds of move a champion makes (:func:`move_classifier`).
MOVE_KINDS = ("searched", "book", "database", "forced")


def move_classifier(spec: str) -> Callable[[Game], str]:
    """A function telling which kind of move (:data:`MOVE_KINDS`) the champion ``spec`` makes in a game: from its
    book, from its endgame database (a number of seeds: a cached database), forced (time management plays a
    single legal move at once) or searched.

    Raises:
        ValueError: a bad spec, a spec of another agent than the champion, or a book that cannot be read.
    """
    agent = parse(spec)
    if not isinstance(agent, Champion):
        raise ValueError(f"move kinds are those of a champion's moves, not of {spec}")
    book = opening_book(agent.book)
    seeds = int(agent.endgame) if agent.endgame else -1  # the ledger's champions name a cached database

    def kind(game: Game) -> str:
        if book is not None and book.action(game) is not None:
            return "book"
        if sum(game.pits) <= seeds:
            return "database"
        return "forced" if agent.manage and len(game.legal_actions) == 1 else "searched"

    return kind

