"""The game of Awale as an immutable value: :class:`Game`.

A :class:`Game` is a position together with what the rules need to know of
the past (the positions seen since the last capture, for the repetition rule).
Playing a move never changes a game; :meth:`Game.step` returns a new one.  All
the rules are applied by the kernels of :mod:`awale.core.rules`.

:class:`TreeGame` and :class:`TreeStatsGame` are the final forms of the nodes
the chapters build (Chapters 3 to 5), a step at a time: a chapter imports the
library's class of the step before its own (``from awale.core.game import Game,
TreeGame``) so that it runs on its own.  They teach; the searches of the
library keep their trees in arrays (:mod:`awale.search`), so the two are not
part of the top-level API (``import awale``).
"""

from __future__ import annotations

import dataclasses
import math
import operator
from typing import Iterable, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import rules as _k
from .render import SVG, pit_label, svg_board, text_board
from .rules import Rules

__all__ = [
    "Game",
    "TreeGame",
    "TreeStatsGame",
    "IllegalActionError",
    "InvalidPositionError",
    "PlayoutStats",
    "simulate",
]

PLAYERS = ("South", "North")


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this position."""


class InvalidPositionError(ValueError):
    """A position that cannot occur in a live game of these rules."""


def _as_int(value, what: str, error: type) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise error(f"{what} must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise error(f"{what} must be an integer, got {value!r}") from None


class Game:
    """An Awale position and the player to move, under a set of :class:`Rules`.

    ``Game()`` is the initial position of the official (Abapa) rules with
    South (player 0) to move; ``Game(rules=...)`` the initial position of
    other rules; :meth:`from_position` any live position, checked.

    Games are immutable, hashable and compare equal when they have the same
    rules, board, captures, player to move and outcome (the history kept for
    the repetition rule does not take part, so a transposition table sees
    one position however it was reached).
    """

    __slots__ = ("_rules", "_state", "_keys", "_boards", "_length", "_legal", "_pits", "_captures")

    def __init__(self, rules: Optional[Rules] = None) -> None:
        rules = _k.as_rules(rules)
        self._setup(rules, rules.initial_state(), None)

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_position(
        cls,
        pits: Sequence[int],
        captures: Tuple[int, int] = (0, 0),
        current_player: int = 0,
        rules: Optional[Rules] = None,
        plies: int = 0,
    ) -> "Game":
        """A live position set by hand, validated.

        Args:
            pits: ``2 * pits_per_side`` seed counts, South's pits then North's,
                each left to right from its owner's seat.
            captures: seeds captured so far by South and by North.
            current_player: 0 (South) or 1 (North).
            rules: the rules; by default the Abapa rules with as many pits
                per side as ``pits`` implies and the seeds per pit the total
                implies.
            plies: plies already played (matters only with ``max_plies``).

        Raises:
            InvalidPositionError: the position cannot occur in a live game
                (wrong length, negative or non-integer counts, seeds that do
                not add up to the rules' total, a finished game).
        """
        E = InvalidPositionError
        if isinstance(pits, (str, bytes)) or not isinstance(pits, Iterable):
            raise E(f"pits must be a sequence of integers, got {pits!r}")
        board = [_as_int(p, "every pit", E) for p in pits]
        if isinstance(captures, (str, bytes)) or not isinstance(captures, Iterable):
            raise E(f"captures must be a pair of integers, got {captures!r}")
        taken = [_as_int(c, "captures", E) for c in captures]
        if len(taken) != 2:
            raise E(f"captures must be a pair (South, North), got {len(taken)} values")
        player = _as_int(current_player, "current_player", E)
        if player not in (0, 1):
            raise E(f"current_player must be 0 (South) or 1 (North), got {player}")
        plies = _as_int(plies, "plies", E)
        if plies < 0:
            raise E(f"plies must be non-negative, got {plies}")
        if any(p < 0 for p in board):
            raise E(f"pits cannot hold a negative number of seeds: {tuple(board)}")
        if any(c < 0 for c in taken):
            raise E(f"captures cannot be negative: {tuple(taken)}")
        total = sum(board) + sum(taken)
        if rules is None:
            if len(board) % 2 or not 4 <= len(board) <= 12:
                raise E(f"pits must hold an even number of counts from 4 to 12, got {len(board)}")
            n = len(board) // 2
            if total == 0 or total % (2 * n):
                raise E(
                    f"the seeds ({sum(board)} on the board + {sum(taken)} captured = {total}) "
                    f"are not a positive multiple of the {2 * n} pits"
                )
            rules = Rules(pits_per_side=n, seeds_per_pit=total // (2 * n))
        rules = _k.as_rules(rules)
        n = rules.pits_per_side
        if len(board) != 2 * n:
            raise E(f"pits must hold {2 * n} counts for {n} pits per side, got {len(board)}")
        if total != rules.total_seeds:
            raise E(
                f"the seeds do not add up: {sum(board)} on the board + {sum(taken)} captured = "
                f"{total}, but these rules play with {rules.total_seeds}"
            )
        half = rules.total_seeds // 2
        if max(taken) > half or taken[0] == taken[1] == half:
            raise E(f"captures {tuple(taken)} end the game: a live position needs neither above {half} nor both {half}")
        if rules.max_plies is not None and plies >= rules.max_plies:
            raise E(f"plies={plies} reaches max_plies={rules.max_plies}: the game would be over")
        state = rules.initial_state()
        state[: 2 * n] = board
        state[2 * n : 2 * n + 4] = (taken[0], taken[1], player, plies)
        game = cls.__new__(cls)
        game._setup(rules, state, None)
        if not game._legal:
            raise E(f"{PLAYERS[player]} has no legal move in this position: the game would be over")
        return game

    def _setup(self, rules: Rules, state: np.ndarray, history) -> None:
        """Fill in the slots; ``history`` is ``(keys, boards, length)`` or None for a fresh one."""
        n = rules.pits_per_side
        size = 2 * n
        if history is None:
            keys = np.zeros(1, dtype=np.int64)
            boards = np.zeros((1, size + 1), dtype=np.int64)
            length = 0
            if rules.repetition:
                keys[0] = _k.position_key(state, size)
                boards[0, :size] = state[:size]
                boards[0, size] = state[size + 2]
                length = 1
            out = np.empty(n, dtype=np.int64)
            count = _k.legal_actions(state, rules.params, out)
        else:
            keys, boards, length, out, count = history
        self._rules = rules
        self._state = state
        self._keys, self._boards, self._length = keys, boards, int(length)
        self._legal = tuple(int(a) for a in out[:count])
        self._pits = tuple(int(p) for p in state[:size])
        self._captures = (int(state[size]), int(state[size + 1]))

    # ------------------------------------------------------------------ the API

    @property
    def rules(self) -> Rules:
        """The rules this game is played under."""
        return self._rules

    @property
    def pits(self) -> Tuple[int, ...]:
        """Seeds in each pit: South's, then North's, each left to right from its owner."""
        return self._pits

    @property
    def captures(self) -> Tuple[int, int]:
        """Seeds captured by South and by North."""
        return self._captures

    @property
    def current_player(self) -> int:
        """The player to move: 0 for South, 1 for North."""
        return int(self._state[2 * self._rules.pits_per_side + 2])

    @property
    def plies(self) -> int:
        """Plies played since the initial position (or since the given one)."""
        return int(self._state[2 * self._rules.pits_per_side + 3])

    @property
    def legal_actions(self) -> List[int]:
        """The legal actions, ascending, relative to the player to move (empty once finished)."""
        return list(self._legal)

    @property
    def game_finished(self) -> bool:
        """Whether the game is over."""
        return self._outcome != _k.ONGOING

    @property
    def winner(self) -> Optional[int]:
        """0 or 1 for the winner; None for a draw or a game not finished."""
        outcome = self._outcome
        return outcome if outcome in (_k.SOUTH, _k.NORTH) else None

    @property
    def _outcome(self) -> int:
        return int(self._state[2 * self._rules.pits_per_side + 4])

    def step(self, action: int) -> Tuple["Game", int, bool]:
        """Play ``action`` (``0..pits_per_side-1``, relative to the player to move).

        Returns:
            ``(game, captured, finished)``: the new game, the seeds this move
            captured and whether the game is now over.  ``self`` is unchanged.

        Raises:
            IllegalActionError: the action is not legal here; the message says why.
        """
        action = self._check_action(action)
        rules = self._rules
        size = 2 * rules.pits_per_side
        state = self._state.copy()
        keys = np.empty(self._length + 1, dtype=np.int64)
        boards = np.empty((self._length + 1, size + 1), dtype=np.int64)
        keys[: self._length] = self._keys[: self._length]
        boards[: self._length] = self._boards[: self._length]
        out = np.empty(rules.pits_per_side, dtype=np.int64)
        captured, length, count = _k.advance(state, rules.params, action, keys, boards, self._length, out)
        child = type(self).__new__(type(self))
        child._setup(rules, state, (keys, boards, length, out, count))
        return child, int(captured), child.game_finished

    def _check_action(self, action) -> int:
        n = self._rules.pits_per_side
        if self.game_finished:
            raise IllegalActionError(f"the game is over ({self._status()}): no action can be played")
        action = _as_int(action, "action", IllegalActionError)
        if action in self._legal:
            return action
        if not 0 <= action < n:
            raise IllegalActionError(f"action {action} is out of range: actions are 0 to {n - 1}")
        player = self.current_player
        pit = player * n + action
        label = pit_label(pit, n)
        if self._pits[pit] == 0:
            raise IllegalActionError(f"action {action} is illegal: {PLAYERS[player]}'s pit {label} is empty")
        opponent = PLAYERS[1 - player]
        if self._rules.feed and not any(self._pits[(1 - player) * n : (2 - player) * n]):
            raise IllegalActionError(
                f"action {action} is illegal: {opponent} has no seeds and pit {label} does not reach "
                f"their side (feed rule); legal actions: {list(self._legal)}"
            )
        raise IllegalActionError(
            f"action {action} is illegal: it would capture every seed of {opponent} (grand slam), "
            f"which these rules forbid while another move exists; legal actions: {list(self._legal)}"
        )

    # ------------------------------------------------------------------ identity and display

    def _key(self):
        return (self._rules, self._pits, self._captures, self.current_player, self._outcome)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _status(self) -> str:
        if not self.game_finished:
            return f"{PLAYERS[self.current_player]} to move"
        return "draw" if self.winner is None else f"{PLAYERS[self.winner]} wins"

    def __str__(self) -> str:
        return text_board(self)

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} pits={self._pits} captures={self._captures} "
            f"plies={self.plies} {self._status()}>"
        )

    def svg(self, highlight: Iterable[int] = (), title: str = "") -> SVG:
        """The board as SVG (displayed as a picture in Jupyter), with ``highlight`` pits in colour.

        ``highlight`` holds absolute pit indices: ``0..n-1`` South's, ``n..2n-1`` North's.
        """
        return SVG(svg_board(self, highlight=highlight, title=title))

    def _repr_svg_(self) -> str:
        return svg_board(self)


class GameArrays(NamedTuple):
    """The arrays behind a game, as the kernels take them (:mod:`awale.core.engine`).  Read them; never write to them.

    Attributes:
        state: the state array (pits, captures, player, plies, outcome).
        keys: the keys of the positions since the last capture (the first ``length`` are used).
        boards: those positions, pits then player, one a row.
        length: how many positions the history holds.
    """

    state: np.ndarray
    keys: np.ndarray
    boards: np.ndarray
    length: int


def game_arrays(game: Game) -> GameArrays:
    """The arrays of ``game``: its state and its history, shared, not copied (games are immutable)."""
    return GameArrays(game._state, game._keys, game._boards, game._length)


@dataclasses.dataclass(frozen=True)
class PlayoutStats:
    """What :func:`simulate` returns: outcomes of the playouts and the plies they took."""

    south_wins: int
    north_wins: int
    draws: int
    plies: int

    @property
    def playouts(self) -> int:
        return self.south_wins + self.north_wins + self.draws


def simulate(game: Game, n_playouts: int, seed: "int | np.random.Generator" = 0) -> PlayoutStats:
    """Play ``n_playouts`` uniformly random games from ``game``, in compiled code.

    The playouts follow ``game.rules`` exactly (feed, grand slam, repetition
    since the last capture, ply cap).  The same seed gives the same result.

    Returns:
        The wins of South and of North, the draws and the plies played in all.
    """
    if not isinstance(game, Game):
        raise ValueError(f"simulate needs an awale.Game, got {game!r}")
    n_playouts = _as_int(n_playouts, "n_playouts", ValueError)
    if n_playouts < 0:
        raise ValueError(f"n_playouts must be non-negative, got {n_playouts}")
    rng = _k.seed_rng(seed)
    result = _k.random_playouts(
        game._state, game.rules.params, game._keys, game._boards, game._length, n_playouts, rng
    )
    return PlayoutStats(*(int(x) for x in result))


class TreeGame(Game):
    """A :class:`Game` that is also a node of the game tree: it knows its parent and its children.

    ``step`` on a tree game returns the child for that action, creating it the
    first time and reusing it afterwards, so a tree grows as it is explored.

    >>> root = TreeGame()
    >>> child = root.step(2)[0]
    >>> child.parent is root and root.children[2] is child and child.action == 2
    True
    """

    __slots__ = ("parent", "action", "captured", "children")

    def __init__(self, rules: Optional[Rules] = None) -> None:
        super().__init__(rules)
        self._init_node()

    @classmethod
    def from_position(cls, *args, **kwargs) -> "TreeGame":
        game = super().from_position(*args, **kwargs)
        game._init_node()
        return game

    def _init_node(self) -> None:
        """Set the fields of a node, as a root; a subclass extends it (TreeStatsGame adds its counters)."""
        self.parent: Optional[TreeGame] = None
        self.action: Optional[int] = None  # the action that led here from the parent
        self.captured = 0  # the seeds that action captured
        self.children: dict = {}  # action -> TreeGame

    def step(self, action: int) -> Tuple["TreeGame", int, bool]:
        """The child reached by ``action`` (created on first use), the seeds captured, and whether it is final."""
        action = self._check_action(action)
        child = self.children.get(action)
        if child is None:
            child, captured, _ = super().step(action)
            child._init_node()
            child.parent, child.action, child.captured = self, action, captured
            self.children[action] = child
        return child, child.captured, child.game_finished

    def expand(self) -> List["TreeGame"]:
        """Create every child (one per legal action) and return them in action order."""
        return [self.step(action)[0] for action in self.legal_actions]

    @property
    def depth(self) -> int:
        """Plies from the root of the tree."""
        return 0 if self.parent is None else self.parent.depth + 1

    @property
    def is_fully_expanded(self) -> bool:
        """Every legal action has its child."""
        return len(self.children) == len(self._legal)


class TreeStatsGame(TreeGame):
    """A :class:`TreeGame` that counts the playouts through it: the node of Monte Carlo Tree Search.

    ``wins`` is counted for the player who moved *into* this node (a win 1, a
    draw ½), so a parent compares its children from its own point of view.
    """

    __slots__ = ("visits", "wins")

    def _init_node(self) -> None:
        super()._init_node()
        self.visits = 0
        self.wins = 0.0

    def record(self, winner: Optional[int]) -> None:
        """Count one playout through this node that ended with ``winner`` (None: a draw)."""
        self.visits += 1
        mover = None if self.parent is None else self.parent.current_player
        if winner is None:
            self.wins += 0.5
        elif winner == mover:
            self.wins += 1.0

    @property
    def mean(self) -> float:
        """The mean reward of the playouts through this node for the player who moved into it."""
        return self.wins / self.visits if self.visits else 0.0

    def ucb(self, c: float = 2 ** 0.5 / 2) -> float:
        """UCB1 of this node seen from its parent: ``mean + c * sqrt(ln N / n)`` (infinite if unvisited)."""
        if self.visits == 0:
            return float("inf")
        return self.mean + c * math.sqrt(math.log(self.parent.visits) / self.visits)
