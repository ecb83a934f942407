"""Game files: one game in a small JSON file, written by :func:`save_game` and read by :func:`load_game`.

A game file is a JSON object with five keys: ``format`` (``"awale-game/1"``),
``south`` and ``north`` (agent specs, or ``"human"``), ``rules`` (the fields of
the :class:`awale.Rules`, as :func:`awale.core.rules.rules_to_text` writes them) and
``moves`` (one digit per action, as the experiment store also keeps them:
:func:`awale.core.record.encode_moves`).  The terminal game
(``python -m awale play --save FILE``), the Jupyter board and the page "Play in
the browser" write the same files, byte for byte; ``python -m awale replay
FILE`` shows one.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "game.json")
>>> save_game(path, "human", "greedy", Rules(), [2, 3])
>>> load_game(path).moves
(2, 3)
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Sequence, Tuple, Union

from .record import decode_moves, encode_moves, replay
from .rules import Rules, as_rules, rules_from_text, rules_to_text

__all__ = ["FORMAT", "HUMAN", "GameFile", "save_game", "load_game"]

#: The name of a human player in game files.
HUMAN = "human"

#: The value of the ``format`` key of a game file.
FORMAT = "awale-game/1"


@dataclasses.dataclass(frozen=True)
class GameFile:
    """A game read by :func:`load_game`: who played, under which rules, and the moves."""

    south: str
    north: str
    rules: Rules
    moves: Tuple[int, ...]


def save_game(path: Union[str, os.PathLike], south: str, north: str, rules: Rules, moves: Sequence[int]) -> None:
    """Write a game file (see the module's docstring); the moves are checked through the rules first.

    Raises:
        ValueError: the moves are not a legal game under ``rules``.
    """
    rules = as_rules(rules)
    replay(moves, rules)
    data = {"format": FORMAT, "south": south, "north": north, "rules": json.loads(rules_to_text(rules)),
            "moves": encode_moves(moves)}
    with open(path, "w", encoding="utf-8") as file:
        file.write(json.dumps(data, indent=1) + "\n")


def load_game(path: Union[str, os.PathLike]) -> GameFile:
    """Read a game file written by :func:`save_game`; its moves are checked through its rules.

    Raises:
        ValueError: not a game file, or moves that are not a legal game; the message says which.
        OSError: the file cannot be read.
    """
    with open(path, encoding="utf-8") as file:
        text = file.read()
    try:
        data = json.loads(text)
    except ValueError:
        raise ValueError(f"{path}: not a game file (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a game file (it needs \"format\": \"{FORMAT}\")")
    for key in ("south", "north", "moves"):
        if not isinstance(data.get(key), str):
            raise ValueError(f"{path}: {key!r} must be a string")
    if not isinstance(data.get("rules"), dict):
        raise ValueError(f"{path}: 'rules' must be an object of Rules fields")
    try:
        rules = rules_from_text(json.dumps(data["rules"]))
        moves = decode_moves(data["moves"])
        replay(moves, rules)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    return GameFile(data["south"], data["north"], rules, moves)
