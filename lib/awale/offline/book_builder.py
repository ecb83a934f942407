"""Building opening books: the move to play in positions of the opening, computed offline by a search.

Two ways of choosing the positions are offered.

**Full width** (:func:`build`).  The game tree is followed from the initial
position: where the book's owner is to move, the search (any agent spec)
picks one move and only that move is followed; where the opponent is to move,
every legal move is followed.  Doing this once for each side gives the move
of every position the owner can meet in the first ``plies`` plies, however
the opponent plays: about ``b ** (plies / 2)`` positions per side for a
branching factor ``b`` (at most six).

**Grown by drop-out expansion** (:func:`grow`).  Drop-out expansion is
Thomas Lincke's strategy ("Strategies for the automatic construction of
opening books", *Computers and Games 2000*, LNCS 2063): it generalises
best-first book construction so that the opponent has fewer chances to force
the program out of its book; the paper computed books for several games with
it, Awari and Othello among them.  What follows is this module's reading of
the strategy, not a transcription of the paper's formulas.  As in the book
builders of Fuego and Benzene, neither side is taken to be the book's owner,
so the book covers both sides alike:

- the book is a graph of positions from the initial one.  A *leaf* is valued
  by the search; *expanding* it searches it once, to the search's depth, and
  gives each of its moves an exact value (each move searched with the open
  window, by iterative deepening), so that its children become leaves, valued
  one ply less deep.  An expanded position is valued by negamax over its
  children, and its book move is the best child (the lowest action among
  equal ones);
- the *drop-out* of a move is what the player to move loses by it: the value
  of the position minus the value of the move (both for the player to move),
  zero for the best move;
- the *expansion priority* of a leaf is ``weight * (sum of the drop-outs along
  its line) + (length of the line)``, the smallest over the lines that reach
  it; the leaf of smallest priority is expanded next (ties: the lowest
  actions from the root).  Weight 0 grows the book breadth first; a large
  weight follows the best lines only.  The default, :data:`DEFAULT_WEIGHT`
  (in plies per point of the search's score), makes a drop-out of one seed
  (about four points of the fitted evaluation in the opening) cost as much as
  one ply, so the book follows an opponent's mistakes in proportion to how
  small they are.

Transpositions are merged: the graph has one node per :func:`position_key`,
so that a position reached by two lines is searched once and its value
backs up to both.  Its game (and so the history the repetition rule sees) is
that of the first line that reached it.  A move that would close a cycle
(only possible under rules where a position can repeat without ending the
game) leads to a leaf of its own that is never expanded.  Finished games are
leaves that are never expanded either, valued exactly.

Leaves are expanded :attr:`Growth.batch` at a time: the batch's leaves are
taken one by one, each taken leaf counting as unexpandable until the batch is
done, and their expansions (on ``workers`` processes) are applied in that
order.  The batch is part of the book's definition, the number of workers is
not: the same :class:`Growth` gives the same book on any number of cores, and
every expansion clears the search's transposition table first, so that its
values depend on the position alone.

A growing book is *resumable*: :func:`grow` saves its graph to a state file
every few minutes, when it is done and when it is interrupted (Ctrl-C), and
continues from the file when called again with the same :class:`Growth` (the
file's search, weight, batch and rules must match, or it is refused).  Its
book can be grown further by asking for more positions.

The books are written and read by :mod:`awale.knowledge.book`.  A grown book's state file is
gzip-compressed JSON too, with its own header and checksum (:data:`STATE_FORMAT`).
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import math
import os
import signal
import threading
import time
from typing import (TYPE_CHECKING, Any, Callable, Deque, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence,
                    Set, Tuple)

from ..knowledge.book import Book, position_key, read_json, write_json

if TYPE_CHECKING:  # imported where used: the command line's --help reads this module's defaults without numba
    from ..core.rules import Rules

__all__ = [
    "build", "MAX_PLIES", "Growth", "grow", "GrowthProgress", "GrowthInterrupted", "BookTree", "Child",
    "STATE_FORMAT", "DEFAULT_SEARCH", "DEFAULT_WEIGHT", "DEFAULT_BATCH", "MAX_BATCH", "MAX_POSITIONS", "SAVE_SECONDS",
]

#: The deepest book :func:`build` accepts: 6 ** 10 positions would take weeks of search.
MAX_PLIES = 20

#: The version of the state file of a growing book (:func:`grow`).
STATE_FORMAT = 1

#: The search :func:`grow` values positions with unless told otherwise: the champion's full-width search (the
#: ledger of ideas found quiescence a loss), two plies shallower than the shipped book's.
DEFAULT_SEARCH = "minimax(depth=12, evaluation=True, quiescence=0)"

#: Plies of priority a point of drop-out costs, unless told otherwise (see the module docstring).
DEFAULT_WEIGHT = 0.25

#: Leaves expanded together, unless told otherwise: enough to keep two or four workers busy.
DEFAULT_BATCH = 8

#: The largest batch.
MAX_BATCH = 256

#: The most positions a grown book may be asked for (its state would take a few GB of memory).
MAX_POSITIONS = 10_000_000

#: Seconds between two saves of a growing book's state, unless told otherwise.
SAVE_SECONDS = 300.0


def build(
    agent: str,
    plies: int,
    rules: Optional[Rules] = None,
    progress: Optional[Callable[[int], None]] = None,
) -> Book:
    """Build the full-width book of ``agent`` (a spec) for the first ``plies`` plies, for both sides.

    The agent is made afresh from its spec for every position, so each move
    is what that spec plays there from scratch; give it a ``seed`` (or use
    a deterministic agent) for a book that is the same every time.

    Args:
        agent: the spec of the search that chooses the moves.
        plies: positions after 0 to ``plies - 1`` plies get a move; 1 to :data:`MAX_PLIES`.
        rules: the rules (default: Abapa).
        progress: called with the number of positions searched so far, after each.

    Raises:
        ValueError: a bad spec or depth.
    """
    from ..agents import canonical_spec, parse
    from ..core.game import Game
    from ..core.rules import as_rules

    spec = canonical_spec(agent)  # a bad spec fails here, before any search
    if isinstance(plies, bool) or not isinstance(plies, int) or not 1 <= plies <= MAX_PLIES:
        raise ValueError(f"a book's plies must be an integer from 1 to {MAX_PLIES}, got {plies!r}")
    rules = as_rules(rules)
    moves: Dict[str, int] = {}
    for owner in (0, 1):
        frontier = [Game(rules=rules)]
        for _ in range(plies):
            following = []
            for game in frontier:
                if game.current_player == owner:
                    key = position_key(game)
                    if key not in moves:
                        moves[key] = int(parse(agent).act(game))
                        if progress is not None:
                            progress(len(moves))
                    actions = [moves[key]]
                else:
                    actions = game.legal_actions
                for action in actions:
                    child = game.step(action)[0]
                    if not child.game_finished:
                        following.append(child)
            frontier = list({position_key(game): game for game in following}.values())
    return Book(rules, spec, plies, moves)

# --------------------------------------------------------------------------- growing a book


class _Search(NamedTuple):
    """What :func:`grow` takes from its search spec: an αβ search at a fixed depth."""

    depth: int
    evaluation: Optional[str]  # the evaluation's weights ("games" or "perfect"), or None for none
    quiescence: int
    pvs: bool
    reductions: bool


def _search_of(spec: str) -> Tuple[str, _Search]:
    """The canonical spec and the search settings of ``spec``, which must be a ``minimax`` at a fixed depth.

    Raises:
        ValueError: another agent, a time or node budget, time management, an endgame database or a seed.
    """
    from ..agents import parse
    from ..agents.minimax import Minimax

    agent = parse(spec)
    example = f"give a minimax spec with a depth, such as {DEFAULT_SEARCH!r}"
    if type(agent) is not Minimax:
        raise ValueError(f"a book grows with an αβ search that values every move: {example}, not {agent.spec!r}")
    if agent.depth is None or agent.time is not None or agent.nodes is not None:
        raise ValueError(f"a book grows with searches to a fixed depth (reproducible): {example}, not {agent.spec!r}")
    for name, value, why in (("manage", agent.manage, "no time to manage"),
                             ("endgame", agent.endgame, "the book's searches probe none"),
                             ("seed", agent.seed if agent.seed != 0 else None, "the book breaks no ties at random")):
        if value:
            raise ValueError(f"a book's search takes no {name} ({why}): {example}, not {agent.spec!r}")
    search = _Search(agent.depth, agent.weights if agent.evaluation else None, agent.quiescence, agent.pvs,
                     agent.reductions)
    return agent.spec, search


@dataclasses.dataclass(frozen=True)
class Growth:
    """What defines a grown book (and must match to resume one): the search, the weight, the batch, the rules.

    Attributes:
        search: a ``minimax`` spec with a fixed depth (:data:`DEFAULT_SEARCH`), kept in canonical form.
        weight: plies of priority per point of drop-out, 0 to 1000 (:data:`DEFAULT_WEIGHT`).
        batch: leaves expanded together, 1 to :data:`MAX_BATCH` (:data:`DEFAULT_BATCH`).
        rules: the rules (None, the default, stands for Abapa's).

    Raises:
        ValueError: a bad search, weight, batch or rules.
    """

    search: str = DEFAULT_SEARCH
    weight: float = DEFAULT_WEIGHT
    batch: int = DEFAULT_BATCH
    rules: "Rules" = None  # type: ignore[assignment]  # set to Rules() by __post_init__

    def __post_init__(self) -> None:
        from ..core.rules import as_rules

        object.__setattr__(self, "rules", as_rules(self.rules))
        object.__setattr__(self, "search", _search_of(self.search)[0])
        weight = self.weight
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight <= 1000:
            raise ValueError(f"a book's weight must be a number from 0 to 1000 (plies per point), got {weight!r}")
        object.__setattr__(self, "weight", float(weight))
        if isinstance(self.batch, bool) or not isinstance(self.batch, int) or not 1 <= self.batch <= MAX_BATCH:
            raise ValueError(f"a book's batch must be an integer from 1 to {MAX_BATCH}, got {self.batch!r}")

    @property
    def method(self) -> str:
        """How the book's positions are chosen, as its header says: ``drop-out expansion (weight=W, batch=B)``."""
        return f"drop-out expansion (weight={self.weight:g}, batch={self.batch})"

    def header(self) -> Dict[str, Any]:
        return {"search": self.search, "weight": self.weight, "batch": self.batch,
                "rules": dataclasses.asdict(self.rules)}


class Child(NamedTuple):
    """A move of an expanded position, as an expansion reports it.

    Attributes:
        action: the move.
        value: the value of the position it leads to, for the player to move there (the negation of the
            move's value for the player who makes it).
        key: the :func:`position_key` of that position.
        finished: whether the game is over there (the position is then never expanded).
    """

    action: int
    value: int
    key: str
    finished: bool


class BookTree:
    """The graph of a growing book: positions, their values, and the expansion priorities of its leaves.

    Nodes are numbered in the order they were made, from the root (0).  A
    node is a *leaf* until :meth:`expand` gives it its children; a leaf is
    *closed* (never expanded) when its game is over or its move would close
    a cycle.  Values are integers for the player to move (the search's scores);
    priorities are floats (see the module docstring).  The graph knows keys and
    lines, not games: :func:`grow` replays a leaf's :meth:`line` to search it.

    Args:
        weight: plies of priority per point of drop-out.
        root: the key of the initial position.
    """

    def __init__(self, weight: float, root: str) -> None:
        self.weight = float(weight)
        self.keys: List[str] = []
        self.first_parent: List[int] = []  # the node from which it was first reached (-1 for the root)
        self.first_action: List[int] = []  # and by which move
        self.leaf_value: List[int] = []  # the value its parent's search gave it
        self.closed: List[bool] = []
        self.children: List[List[Tuple[int, int]]] = []  # (action, node), by action; empty for a leaf
        self.parents: List[List[int]] = []
        self.value: List[int] = []  # negamax over the children, or the leaf's value
        self.below: List[float] = []  # the smallest priority of a leaf below, counted from here
        self.index: Dict[str, int] = {}  # the node of each key (closed leaves have none)
        self.pending: Set[int] = set()  # leaves taken by :meth:`select` and not yet expanded
        self.expanded = 0
        self._node(root, -1, -1, 0, False)

    def __len__(self) -> int:
        return len(self.keys)

    def _node(self, key: str, parent: int, action: int, value: int, closed: bool) -> int:
        node = len(self.keys)
        self.keys.append(key)
        self.first_parent.append(parent)
        self.first_action.append(action)
        self.leaf_value.append(int(value))
        self.closed.append(closed)
        self.children.append([])
        self.parents.append([] if parent < 0 else [parent])
        self.value.append(int(value))
        self.below.append(math.inf if closed else 0.0)
        if not closed:
            self.index[key] = node
        return node

    def line(self, node: int) -> Tuple[int, ...]:
        """The moves from the root to ``node`` along the line that first reached it."""
        moves = []
        while self.first_parent[node] >= 0:
            moves.append(self.first_action[node])
            node = self.first_parent[node]
        return tuple(reversed(moves))

    def dropout(self, node: int, child: int) -> int:
        """What the player to move at ``node`` loses by the move to ``child``: 0 for a best move."""
        return self.value[node] + self.value[child]

    def _step(self, node: int, child: int) -> float:
        """The priority a move adds: one ply plus the weighted drop-out."""
        return 1.0 + self.weight * self.dropout(node, child)

    def _recompute(self, node: int) -> bool:
        """Set the value and ``below`` of ``node`` from its children; whether either changed."""
        old = (self.value[node], self.below[node])
        children = self.children[node]
        if children:
            self.value[node] = max(-self.value[c] for _, c in children)  # before _step, which reads it
            self.below[node] = min(self._step(node, c) + self.below[c] for _, c in children)
        else:
            self.value[node] = self.leaf_value[node]
            self.below[node] = math.inf if self.closed[node] or node in self.pending else 0.0
        return old != (self.value[node], self.below[node])

    def _update(self, start: int) -> None:
        """Recompute ``start`` and, as long as something changes, the nodes above it."""
        if not self._recompute(start):
            return
        queue: Deque[int] = collections.deque(self.parents[start])
        queued = set(queue)
        while queue:
            node = queue.popleft()
            queued.discard(node)
            if self._recompute(node):
                for parent in self.parents[node]:
                    if parent not in queued:
                        queued.add(parent)
                        queue.append(parent)

    def best_action(self, node: int) -> int:
        """The book's move at an expanded ``node``: the best child's action (the lowest among equals)."""
        children = self.children[node]
        if not children:
            raise ValueError(f"node {node} is a leaf: it has no book move")
        return max(children, key=lambda entry: (-self.value[entry[1]], -entry[0]))[0]

    def select(self, count: int) -> List[int]:
        """Take up to ``count`` leaves to expand, smallest priority first; fewer if the graph has fewer.

        Each leaf taken counts as unexpandable (pending) until :meth:`expand`
        or :meth:`release`, so the next one is the best of the others.
        """
        taken = []
        for _ in range(count):
            if self.below[0] == math.inf:
                break
            node = 0
            while self.children[node]:
                node = min(self.children[node], key=lambda entry: (self._step(node, entry[1]) + self.below[entry[1]],
                                                                   entry[0]))[1]
            assert self.below[node] == 0.0, "the descent ends at an expandable leaf"
            self.pending.add(node)
            self._update(node)
            taken.append(node)
        return taken

    def release(self) -> None:
        """Give back the leaves taken by :meth:`select` and not expanded (an interrupted batch)."""
        pending, self.pending = self.pending, set()
        for node in sorted(pending):
            self._update(node)

    def expand(self, leaf: int, children: Sequence[Child]) -> None:
        """Give ``leaf`` its children (every legal move, as :class:`Child` values) and back their values up.

        A child whose key is already in the graph is that node (a transposition),
        unless the move would close a cycle: it is then a closed leaf of its own.

        Raises:
            ValueError: ``leaf`` is not an open leaf, or ``children`` is empty or repeats an action.
        """
        if not 0 <= leaf < len(self) or self.children[leaf] or self.closed[leaf]:
            raise ValueError(f"node {leaf} is not a leaf that can be expanded")
        actions = [child.action for child in children]
        if not children or len(set(actions)) != len(actions):
            raise ValueError(f"an expansion gives each legal move once, got actions {actions}")
        entries = []
        for child in sorted(children):
            known = self.index.get(child.key)
            if child.finished:
                node = self._node(child.key, leaf, child.action, child.value, True)
            elif known is None:
                node = self._node(child.key, leaf, child.action, child.value, False)
            elif known == leaf or self._reaches(known, leaf):
                node = self._node(child.key, leaf, child.action, child.value, True)  # a cycle: a closed leaf
            else:
                node = known
                self.parents[node].append(leaf)
            entries.append((child.action, node))
        self.children[leaf] = entries
        self.pending.discard(leaf)
        self.expanded += 1
        self._update(leaf)

    def _reaches(self, start: int, target: int) -> bool:
        """Whether ``target`` is ``start`` or below it."""
        seen, stack = {start}, [start]
        while stack:
            node = stack.pop()
            if node == target:
                return True
            for _, child in self.children[node]:
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        return False

    def _postorder(self) -> List[int]:
        """The nodes below the root, each after all of its children.

        Raises:
            ValueError: the graph has a cycle (only a damaged state can have one).
        """
        order, state = [], [0] * len(self)  # 0 unseen, 1 on the path, 2 done
        stack: List[Tuple[int, Iterator[Tuple[int, int]]]] = [(0, iter(self.children[0]))]
        state[0] = 1
        while stack:
            node, rest = stack[-1]
            for _, child in rest:
                if state[child] == 1:
                    raise ValueError(f"the graph has a cycle through node {child}")
                if state[child] == 0:
                    state[child] = 1
                    stack.append((child, iter(self.children[child])))
                    break
            else:
                stack.pop()
                state[node] = 2
                order.append(node)
        return order

    def refresh(self) -> None:
        """Recompute every value and priority from the leaves up (after loading a graph)."""
        for node in self._postorder():
            self._recompute(node)

    def priorities(self) -> Dict[int, float]:
        """The expansion priority of every open leaf reachable from the root, from the root down.

        ``weight * (sum of drop-outs) + plies``, the smallest over the lines
        that reach it: what :meth:`select` takes the smallest of (computed
        here another way, as a check and for reports).
        """
        best = {0: 0.0}
        for node in reversed(self._postorder()):  # every node after all of its parents
            for _, child in self.children[node]:
                through = best[node] + self._step(node, child)
                if through < best.get(child, math.inf):
                    best[child] = through
        return {node: p for node, p in best.items()
                if not self.children[node] and not self.closed[node] and node not in self.pending}

    def depths(self) -> Dict[int, int]:
        """The fewest plies from the root to each node reached."""
        depth = {0: 0}
        queue: Deque[int] = collections.deque([0])
        while queue:
            node = queue.popleft()
            for _, child in self.children[node]:
                if child not in depth:
                    depth[child] = depth[node] + 1
                    queue.append(child)
        return depth

    def book(self, growth: Growth) -> Book:
        """The book of the graph: the best move of every expanded position."""
        moves = {self.keys[n]: self.best_action(n) for n in range(len(self)) if self.children[n]}
        depths = self.depths()
        plies = 1 + max((depths[n] for n in range(len(self)) if self.children[n]), default=0)
        return Book(growth.rules, growth.search, plies, moves, growth.method)

    # ----------------------------------------------------------------------- the state file

    def _body(self) -> Dict[str, Any]:
        return {
            "keys": self.keys,
            "first_parent": self.first_parent,
            "first_action": self.first_action,
            "leaf_value": self.leaf_value,
            "closed": [int(c) for c in self.closed],
            "children": [[x for entry in entries for x in entry] for entries in self.children],
        }

    def save(self, path: "str | os.PathLike", growth: Growth) -> None:
        """Write the graph and the growth it belongs to (gzip JSON with a checksum), atomically.

        Leaves taken by :meth:`select` and not expanded are saved as open leaves.
        """
        body = self._body()
        header = {"format": STATE_FORMAT, "kind": "awale grown book", "growth": growth.header(),
                  "nodes": len(self), "expanded": self.expanded, "sha256": _body_digest(body)}
        write_json(path, {"header": header, **body}, True)

    @classmethod
    def load(cls, path: "str | os.PathLike", growth: Growth) -> "BookTree":
        """Read a graph written by :meth:`save` for ``growth``, checking its header, checksum and structure.

        Raises:
            ValueError: not such a file, damaged, or grown with other settings than ``growth``.
            OSError: it cannot be read.
        """
        what = "the state of a grown book"
        data = read_json(path, what)
        try:
            header = data["header"]
            if header["kind"] != "awale grown book":
                raise ValueError(f"kind {header['kind']!r}")
            version, found, checksum = header["format"], header["growth"], header["sha256"]
            body = {name: data[name] for name in ("keys", "first_parent", "first_action", "leaf_value", "closed",
                                                  "children")}
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{path} is not {what} (bad header: {error})") from None
        if version != STATE_FORMAT:
            raise ValueError(f"{path} is a grown book's state of format {version}; this library reads format "
                             f"{STATE_FORMAT}")
        if _body_digest(body) != checksum:
            raise ValueError(f"{path}: the graph does not match the header's sha256 (the file was changed or damaged)")
        wanted = growth.header()
        if found != wanted:
            differ = ", ".join(f"{name}={found.get(name)!r} there, {value!r} here" for name, value in wanted.items()
                               if found.get(name) != value) if isinstance(found, dict) else "an unreadable growth"
            raise ValueError(f"{path} holds a book grown with other settings ({differ}): give the same ones to "
                             "resume it, or another state file")
        try:
            tree = cls._from_body(growth.weight, body, growth.rules.pits_per_side)
        except (TypeError, ValueError, IndexError) as error:
            raise ValueError(f"{path} is not {what} (bad graph: {error})") from None
        return tree

    @classmethod
    def _from_body(cls, weight: float, body: Dict[str, Any], pits: int) -> "BookTree":
        keys, parent, action = body["keys"], body["first_parent"], body["first_action"]
        value, closed, children = body["leaf_value"], body["closed"], body["children"]
        size = len(keys)
        if size < 1 or any(len(column) != size for column in (parent, action, value, closed, children)):
            raise ValueError("its columns have different lengths, or no root")
        if not all(isinstance(k, str) for k in keys) or not all(type(v) is int for v in value):
            raise ValueError("keys must be strings and values integers")
        tree = cls(weight, keys[0])
        if parent[0] != -1 or closed[0]:
            raise ValueError("the root has a parent, or is closed")
        tree.leaf_value[0] = tree.value[0] = value[0]
        for node in range(1, size):
            if type(parent[node]) is not int or not 0 <= parent[node] < node or type(action[node]) is not int:
                raise ValueError(f"node {node}'s first parent {parent[node]!r} was not made before it")
            if not closed[node] and keys[node] in tree.index:
                raise ValueError(f"key {keys[node]!r} has two nodes")
            tree._node(keys[node], parent[node], action[node], value[node], bool(closed[node]))
            tree.parents[node] = []
        for node, flat in enumerate(children):
            if len(flat) % 2 or (flat and closed[node]):
                raise ValueError(f"node {node} has malformed children")
            entries = [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]
            moves = [a for a, _ in entries]
            if moves != sorted(set(moves)) or not all(type(a) is int and 0 <= a < pits for a in moves):
                raise ValueError(f"node {node}'s moves {moves} are not distinct legal actions in order")
            for move, child in entries:
                if type(child) is not int or not 0 < child < size:
                    raise ValueError(f"node {node} has a child {child!r} out of range")
                tree.parents[child].append(node)
            tree.children[node] = entries
            tree.expanded += bool(entries)
        for node in range(1, size):
            if (action[node], node) not in tree.children[parent[node]]:
                raise ValueError(f"node {node} is not a child of its first parent")
        tree.refresh()  # also refuses a cycle
        return tree


def _body_digest(body: Mapping[str, Any]) -> str:
    text = json.dumps([body[name] for name in sorted(body)], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class _Expander:
    """Expands leaves: searches a position and values each of its moves (one per process)."""

    def __init__(self, rules: Rules, search: str) -> None:
        from ..knowledge.evaluation import WEIGHTS, load_evaluation
        from ..search.alphabeta import AlphaBeta, Enhancements

        self.rules = rules
        self.settings = _search_of(search)[1]
        evaluation = None if self.settings.evaluation is None else load_evaluation(WEIGHTS[self.settings.evaluation])
        settings = self.settings
        enhancements = Enhancements(quiescence=settings.quiescence, pvs=settings.pvs, reductions=settings.reductions)
        self.searcher = AlphaBeta(rules, evaluation=evaluation, enhancements=enhancements)

    def __call__(self, line: Sequence[int]) -> List[Child]:
        from ..core.game import Game

        game = Game(rules=self.rules)
        for action in line:
            game = game.step(action)[0]
        self.searcher.clear()  # the values of a search with quiescence can depend on what its table holds
        for depth in range(1, self.settings.depth + 1):  # iterative deepening: the table orders the moves
            values = self.searcher.action_values(game, depth)
        children = []
        for action in sorted(values):
            child = game.step(action)[0]
            children.append(Child(action, -values[action], position_key(child), child.game_finished))
        return children


_WORKER: Optional[_Expander] = None


def _start_worker(rules: Rules, search: str) -> None:
    """The initialiser of a worker process: Ctrl-C is the parent's to handle; one expander per process."""
    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER = _Expander(rules, search)


def _expand_in_worker(line: Sequence[int]) -> List[Child]:
    assert _WORKER is not None, "the pool's initialiser made the expander"
    return _WORKER(line)


class GrowthProgress(NamedTuple):
    """How far :func:`grow` is, as its ``progress`` callback is told after each batch.

    Attributes:
        expanded: positions with a book move so far.
        target: the positions asked for.
        nodes: positions in the graph (the expanded ones and the leaves).
        priority: the priority of the next leaf to expand (infinite if none is left).
    """

    expanded: int
    target: int
    nodes: int
    priority: float


class GrowthInterrupted(KeyboardInterrupt):
    """:func:`grow` was interrupted (Ctrl-C); its graph, with ``expanded`` positions, is in the state file."""

    def __init__(self, expanded: int, state: Optional[str]) -> None:
        super().__init__(f"interrupted with {expanded} positions expanded")
        self.expanded = expanded
        self.state = state


class _Deferred:
    """While the block runs (in the main thread), Ctrl-C and SIGTERM wait: they are raised at its end.

    The graph is updated inside such blocks, so that an interruption never
    leaves it half changed.  With ``again=False`` the signals are dropped
    instead (the block is what an interruption runs).
    """

    def __init__(self, again: bool = True) -> None:
        self._again = again

    def __enter__(self) -> None:
        self._received: List[int] = []
        self._previous: Dict[int, Any] = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGINT, getattr(signal, "SIGTERM", None)):
            if signum is not None:
                self._previous[signum] = signal.signal(signum, lambda number, frame: self._received.append(number))

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        if self._received and self._again and exc[0] is None:
            raise KeyboardInterrupt


def grow(
    growth: Growth,
    positions: int,
    state: "Optional[str | os.PathLike]" = None,
    workers: int = 1,
    progress: Optional[Callable[[GrowthProgress], None]] = None,
    save_seconds: float = SAVE_SECONDS,
) -> Book:
    """Grow a book by drop-out expansion to at least ``positions`` positions with a move (see the module docstring).

    Args:
        growth: the search, weight, batch and rules that define the book.
        positions: stop once this many positions are expanded (at most a batch more), or when no leaf is
            left; 1 to :data:`MAX_POSITIONS`.
        state: the state file: if it exists, the graph saved there is grown further (it must have been grown
            with ``growth``); the graph is saved there every ``save_seconds``, at the end and when interrupted.
            None: nothing is saved.
        workers: processes that expand the leaves of a batch (1: this one); the book does not depend on it.
            They are started by spawning, so a script that calls this with ``workers > 1`` must run its own
            work under ``if __name__ == "__main__":`` (each worker imports the script).
        progress: called after each batch (and once at the start) with a :class:`GrowthProgress`.
        save_seconds: seconds between saves of the state (0: after every batch).

    Returns:
        The book: the best move of every expanded position.

    Raises:
        ValueError: bad arguments, or a state file that is damaged or was grown with other settings.
        GrowthInterrupted: Ctrl-C or SIGTERM; the graph was saved (without the unfinished batch) to ``state``.
    """
    if not isinstance(growth, Growth):
        raise ValueError(f"grow needs an awale.offline.book_builder.Growth, got {growth!r}")
    if isinstance(positions, bool) or not isinstance(positions, int) or not 1 <= positions <= MAX_POSITIONS:
        raise ValueError(f"a grown book's positions must be an integer from 1 to {MAX_POSITIONS:,}, got {positions!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if isinstance(save_seconds, bool) or not isinstance(save_seconds, (int, float)) or not save_seconds >= 0:
        raise ValueError(f"save_seconds must be a number of seconds, at least 0, got {save_seconds!r}")
    from ..core.game import Game

    path = None if state is None else os.fspath(state)
    if path is not None and os.path.exists(path):
        tree = BookTree.load(path, growth)
    else:
        tree = BookTree(growth.weight, position_key(Game(rules=growth.rules)))

    def report() -> None:
        if progress is not None:
            progress(GrowthProgress(tree.expanded, positions, len(tree), tree.below[0]))

    report()
    pool: Any = None
    expander: Optional[_Expander] = None
    saved = time.monotonic()
    try:
        while tree.expanded < positions:
            with _Deferred():
                leaves = tree.select(growth.batch)
            if not leaves:
                break  # every line ends in a finished game: nothing left to expand
            lines = [tree.line(leaf) for leaf in leaves]
            if workers > 1:
                if pool is None:
                    import multiprocessing

                    context = multiprocessing.get_context("spawn")  # no fork of a process that has threads
                    pool = context.Pool(workers, _start_worker, (growth.rules, growth.search))
                results = pool.map(_expand_in_worker, lines, chunksize=1)
            else:
                if expander is None:
                    expander = _Expander(growth.rules, growth.search)
                results = [expander(line) for line in lines]
            with _Deferred():
                for leaf, children in zip(leaves, results):
                    tree.expand(leaf, children)
            report()
            if path is not None and time.monotonic() - saved >= save_seconds:
                with _Deferred():
                    tree.save(path, growth)
                saved = time.monotonic()
    except KeyboardInterrupt:
        with _Deferred(again=False):
            tree.release()
            if path is not None:
                tree.save(path, growth)
        raise GrowthInterrupted(tree.expanded, path) from None
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    if path is not None:
        with _Deferred():
            tree.save(path, growth)
    return tree.book(growth)
