"""Opening books as the champion reads them: the move to play in positions of the opening.

A book is computed offline by a search (:mod:`awale.offline.book_builder`: full width, or grown by
drop-out expansion); this module holds what reading one needs: :class:`Book`, :func:`load` and the
file format.

A book is JSON: a header (format version, rules, the spec of the
search, plies, positions, how it was built, SHA-256 of the moves) and the
moves, one per position key; :meth:`Book.save` compresses it with gzip when
the name ends in ``.gz`` (sorted keys compress well: a grown book of 3,000
positions took 15 KB, five bytes a position).  Format 2
added the header's ``method``; :func:`load` reads formats 1 and 2,
compressed or not.  A key is the board, the captures and the player to move;
the history of the repetition rule does not take part (no position repeats
in the first plies of a game without captures making it different).  A
grown book's state file is gzip-compressed JSON too, with its own header and
checksum (:data:`STATE_FORMAT`).
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import os
import zlib
from typing import TYPE_CHECKING, Any, Mapping, Optional

if TYPE_CHECKING:  # imported where used: reading a book's module loads no numba
    from ..core.game import Game
    from ..core.rules import Rules

__all__ = ["Book", "load", "position_key", "FORMAT", "READABLE_FORMATS", "FULL_WIDTH", "write_json", "read_json"]

#: The file format's version: 2 added the header's ``method`` (and gzip compression when the name ends in .gz).
FORMAT = 2

#: The versions :func:`load` reads.
READABLE_FORMATS = (1, 2)

#: The ``method`` of a book built by :func:`awale.offline.book_builder.build` (and of every book of format 1).
FULL_WIDTH = "full width"

_GZIP_MAGIC = b"\x1f\x8b"


def position_key(game: Game) -> str:
    """The book's key of a position: pits, captures and the player to move, as text."""
    return f"{','.join(map(str, game.pits))}|{game.captures[0]},{game.captures[1]}|{game.current_player}"


def digest(moves: Mapping[str, int]) -> str:
    text = json.dumps(sorted(moves.items()), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def write_json(path: "str | os.PathLike", data: Any, compress: bool) -> None:
    """Write ``data`` as JSON, gzip-compressed (reproducibly: no name or time in the gzip header) or not,
    atomically: a partial file never replaces a good one."""
    temporary = f"{os.fspath(path)}.partial"
    text = json.dumps(data, indent=None if compress else 0, separators=(",", ":") if compress else None) + "\n"
    with open(temporary, "wb") as raw:
        if compress:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as packed:
                packed.write(text.encode())
        else:
            raw.write(text.encode())
    os.replace(temporary, path)


def read_json(path: "str | os.PathLike", what: str) -> Any:
    """The JSON in ``path``, gzip-compressed or not.

    Raises:
        ValueError: the file is not (compressed) JSON; the message says it is not ``what``.
        OSError: it cannot be read.
    """
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise ValueError(f"{path} is not {what} (damaged gzip data: {error})") from None
    try:
        return json.loads(data)
    except ValueError as error:
        raise ValueError(f"{path} is not {what} (not JSON: {error})") from None


@dataclasses.dataclass(frozen=True)
class Book:
    """Moves for positions of the opening.

    Attributes:
        rules: the rules the book was built for.
        agent: the spec of the search that chose the moves.
        plies: how deep the book goes (positions after at most ``plies - 1`` plies have a move).
        moves: the action to play, by :func:`position_key`.
        method: how the positions were chosen: :data:`FULL_WIDTH` (:func:`awale.offline.book_builder.build`) or
            ``"drop-out expansion (weight=W, batch=B)"`` (:func:`awale.offline.book_builder.grow`).
    """

    rules: Rules
    agent: str
    plies: int
    moves: Mapping[str, int]
    method: str = FULL_WIDTH

    def __len__(self) -> int:
        return len(self.moves)

    def action(self, game: Game) -> Optional[int]:
        """The book's move in ``game``, or None if the book does not cover it (or the game is over)."""
        if game.game_finished or game.rules != self.rules:
            return None
        action = self.moves.get(position_key(game))
        return action if action in game.legal_actions else None

    def save(self, path: "str | os.PathLike") -> None:
        """Write the book (format :data:`FORMAT`), gzip-compressed if the name ends in ``.gz``, atomically."""
        header = {
            "format": FORMAT,
            "rules": dataclasses.asdict(self.rules),
            "agent": self.agent,
            "plies": self.plies,
            "positions": len(self.moves),
            "method": self.method,
            "sha256": digest(self.moves),
        }
        write_json(path, {"header": header, "moves": dict(sorted(self.moves.items()))},
                    os.fspath(path).endswith(".gz"))


def load(path: "str | os.PathLike") -> Book:
    """Read a book written by :meth:`Book.save` (format 1 or 2, compressed or not), checking its header and checksum.

    Raises:
        ValueError: the file is not a book of a format this library reads, or its moves do not match its checksum.
        OSError: it cannot be read.
    """
    from ..core.rules import Rules

    data = read_json(path, "an opening book")
    try:
        header, moves = data["header"], data["moves"]
        version = header["format"]
    except (KeyError, TypeError) as error:
        raise ValueError(f"{path} is not an opening book (bad header: {error})") from None
    if version not in READABLE_FORMATS:
        raise ValueError(f"{path} is an opening book of format {version}; this library reads formats "
                         f"{', '.join(map(str, READABLE_FORMATS))}")
    try:
        rules = Rules(**header["rules"])
        agent, plies = str(header["agent"]), int(header["plies"])
        method = str(header["method"]) if version != 1 else FULL_WIDTH
        checksum = header["sha256"]
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{path} is not an opening book (bad header: {error})") from None
    if not isinstance(moves, dict) or not all(isinstance(a, int) for a in moves.values()):
        raise ValueError(f"{path} is not an opening book (its moves are not a table of actions)")
    if digest(moves) != checksum:
        raise ValueError(f"{path}: the moves do not match the header's sha256 (the file was changed or damaged)")
    return Book(rules, agent, plies, moves, method)
