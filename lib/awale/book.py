"""An opening book: the move to play in each position of the first plies, computed offline by a search.

A book for one agent is built by following the game tree from the initial
position: where the book's owner is to move, the search (any agent spec)
picks one move and only that move is followed; where the opponent is to move,
every legal move is followed.  Doing this once for each side gives the move
of every position the owner can meet in the first ``plies`` plies, however
the opponent plays: about ``b ** (plies / 2)`` positions per side for a
branching factor ``b`` (at most six).  In play, :meth:`Book.action` answers
in a dictionary lookup what the search would have taken seconds to find.

The file is JSON: a header (format version, rules, the spec of the search,
plies, positions, SHA-256 of the moves) and the moves, one per position key.
A key is the board, the captures and the player to move; the history of
the repetition rule does not take part (no position repeats in the first
plies of a game without captures making it different).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from typing import Callable, Dict, Mapping, Optional

from .game import Game
from .rules import Rules, as_rules

__all__ = ["Book", "build", "load", "position_key", "FORMAT", "MAX_PLIES"]

#: The file format's version.
FORMAT = 1

#: The deepest book :func:`build` accepts: 6 ** 10 positions would take weeks of search.
MAX_PLIES = 20


def position_key(game: Game) -> str:
    """The book's key of a position: pits, captures and the player to move, as text."""
    return f"{','.join(map(str, game.pits))}|{game.captures[0]},{game.captures[1]}|{game.current_player}"


def _digest(moves: Mapping[str, int]) -> str:
    text = json.dumps(sorted(moves.items()), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclasses.dataclass(frozen=True)
class Book:
    """Moves for the positions of the first plies.

    Attributes:
        rules: the rules the book was built for.
        agent: the spec of the search that chose the moves.
        plies: how deep the book goes (positions after at most ``plies - 1`` plies have a move).
        moves: the action to play, by :func:`position_key`.
    """

    rules: Rules
    agent: str
    plies: int
    moves: Mapping[str, int]

    def __len__(self) -> int:
        return len(self.moves)

    def action(self, game: Game) -> Optional[int]:
        """The book's move in ``game``, or None if the book does not cover it (or the game is over)."""
        if game.game_finished or game.rules != self.rules:
            return None
        action = self.moves.get(position_key(game))
        return action if action in game.legal_actions else None

    def save(self, path: "str | os.PathLike") -> None:
        """Write the book as JSON (atomically: a partial file never replaces a good one)."""
        header = {
            "format": FORMAT,
            "rules": dataclasses.asdict(self.rules),
            "agent": self.agent,
            "plies": self.plies,
            "positions": len(self.moves),
            "sha256": _digest(self.moves),
        }
        temporary = f"{os.fspath(path)}.partial"
        with open(temporary, "w") as f:
            json.dump({"header": header, "moves": dict(sorted(self.moves.items()))}, f, indent=0)
            f.write("\n")
        os.replace(temporary, path)


def build(
    agent: str,
    plies: int,
    rules: Optional[Rules] = None,
    progress: Optional[Callable[[int], None]] = None,
) -> Book:
    """Build the book of ``agent`` (a spec) for the first ``plies`` plies, for both sides.

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
    from .agents import canonical_spec, parse

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


def load(path: "str | os.PathLike") -> Book:
    """Read a book written by :meth:`Book.save`, checking its header and checksum.

    Raises:
        ValueError: the file is not a book of this format, or its moves do not match its checksum.
        OSError: it cannot be read.
    """
    with open(path) as f:
        try:
            data = json.load(f)
        except ValueError as error:
            raise ValueError(f"{path} is not an opening book (not JSON: {error})") from None
    try:
        header, moves = data["header"], data["moves"]
        version = header["format"]
        rules = Rules(**header["rules"])
        agent, plies = str(header["agent"]), int(header["plies"])
        checksum = header["sha256"]
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{path} is not an opening book (bad header: {error})") from None
    if version != FORMAT:
        raise ValueError(f"{path} is an opening book of format {version}; this library reads format {FORMAT}")
    if not isinstance(moves, dict) or not all(isinstance(a, int) for a in moves.values()):
        raise ValueError(f"{path} is not an opening book (its moves are not a table of actions)")
    if _digest(moves) != checksum:
        raise ValueError(f"{path}: the moves do not match the header's sha256 (the file was changed or damaged)")
    return Book(rules, agent, plies, moves)
