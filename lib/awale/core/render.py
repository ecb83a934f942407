"""Boards as text and as SVG.

The functions take any object with the attributes of :class:`awale.Game`
(``pits``, ``captures``, ``current_player``, ``game_finished`` and ``winner``),
so this module depends on nothing else in the package and the thesis's own
``Game`` classes can use it too.

:func:`text_board` and :func:`svg_board` draw a position (``str(game)`` and
``game.svg()``); :func:`board_text` draws the board of the terminal game
(:mod:`awale.play.terminal`), in box characters and colours, with the last ply marked.

Seen from South's seat, South's row runs left to right at the bottom and
North's row right to left at the top: seeds travel anticlockwise.  Pits are
labelled ``A``..``F`` for South and ``a``..``f`` for North, as in OpenSpiel.
"""

from __future__ import annotations

import math
from typing import Iterable, Optional, Protocol, Sequence, Tuple
from xml.sax.saxutils import escape

__all__ = ["BoardLike", "PlyLike", "SVG", "pit_label", "label_pit", "text_board", "svg_board", "board_text", "boxes_fit"]

PLAYER_NAMES = ("South", "North")


class BoardLike(Protocol):
    """What the renderers read from a position."""

    pits: Sequence[int]
    captures: Tuple[int, int]
    current_player: int
    game_finished: bool
    winner: "int | None"


class PlyLike(Protocol):
    """What :func:`board_text` reads from the ply that led to a position (an :class:`awale.core.record.Ply`)."""

    pit: int
    captured_pits: Tuple[int, ...]


class SVG(str):
    """An SVG document; Jupyter displays it as a picture."""

    def _repr_svg_(self) -> str:
        return str(self)


def pit_label(pit: int, pits_per_side: int) -> str:
    """The label of an absolute pit index: ``A``.. for South, ``a``.. for North."""
    if not 0 <= pit < 2 * pits_per_side:
        raise ValueError(f"pit must be between 0 and {2 * pits_per_side - 1}, got {pit}")
    player, action = divmod(pit, pits_per_side)
    return chr((ord("A") if player == 0 else ord("a")) + action)


def label_pit(label: str, pits_per_side: int) -> int:
    """The absolute pit index of a label, the inverse of :func:`pit_label`: ``"C"`` is South's third pit, 2.

    Raises:
        ValueError: not a letter, or a letter beyond the board's pits.
    """
    if len(label) != 1 or not label.isascii() or not label.isalpha():
        raise ValueError(f"{label!r} is not a pit: pits are letters, A-{pit_label(pits_per_side - 1, pits_per_side)} "
                         f"(South's) and a-{pit_label(2 * pits_per_side - 1, pits_per_side)} (North's)")
    action = ord(label.lower()) - ord("a")
    if action >= pits_per_side:
        raise ValueError(f"{label!r} is not a pit of this board: each side has {pits_per_side} pits")
    return (0 if label.isupper() else pits_per_side) + action


def _status(game: BoardLike) -> str:
    if not game.game_finished:
        return f"{PLAYER_NAMES[game.current_player]} to move"
    if game.winner is None:
        return "finished: draw"
    return f"finished: {PLAYER_NAMES[game.winner]} wins"


def _checked_highlight(highlight: Iterable[int], pits_per_side: int) -> frozenset:
    pits = frozenset(int(p) for p in highlight)
    for pit in pits:
        pit_label(pit, pits_per_side)  # raises a clear error when out of range
    return pits


def text_board(game: BoardLike, highlight: Iterable[int] = ()) -> str:
    """The board as text, North on top; highlighted pits are marked with ``*``."""
    n = len(game.pits) // 2
    marked = _checked_highlight(highlight, n)
    north = range(2 * n - 1, n - 1, -1)
    south = range(n)

    def row(pits: Iterable[int], show) -> str:
        return "".join(f"{show(p):>4}" + ("*" if p in marked else " ") for p in pits).rstrip()

    lines = [
        f"North  captured {game.captures[1]}",
        row(north, lambda p: pit_label(p, n)),
        row(north, lambda p: game.pits[p]),
        row(south, lambda p: game.pits[p]),
        row(south, lambda p: pit_label(p, n)),
        f"South  captured {game.captures[0]}",
        _status(game),
    ]
    return "\n".join(lines)


# Geometry of the SVG board, in pixels.
_CELL = 64
_MARGIN = 24
_RADIUS = 27
_SEED = 3.6


def _seed_dots(cx: float, cy: float, count: int) -> str:
    """Up to 24 seeds drawn as dots on a sunflower spiral; more are only counted."""
    dots = []
    shown = min(count, 24)
    for k in range(shown):
        r = 5.0 * math.sqrt(k + 0.5) if shown > 1 else 0.0
        angle = k * 2.399963  # the golden angle, in radians
        x, y = cx + r * math.cos(angle), cy + r * math.sin(angle)
        dots.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{_SEED}" class="seed"/>')
    return "".join(dots)


def svg_board(game: BoardLike, highlight: Iterable[int] = (), title: str = "") -> str:
    """The board as a standalone SVG document.

    Args:
        game: the position to draw.
        highlight: absolute pit indices (``0..2n-1``) to draw in colour.
        title: an accessible title (shown as a tooltip by browsers).
    """
    n = len(game.pits) // 2
    marked = _checked_highlight(highlight, n)
    width = (n + 2) * _CELL + 2 * _MARGIN
    height = 2 * _CELL + 2 * _MARGIN + 44
    top = _MARGIN + 22
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" class="awale-board">',
        f"<title>{escape(title or text_board(game))}</title>",
        "<style>"
        ".wood{fill:#c8955a;stroke:#7a4f24;stroke-width:2}"
        ".pit{fill:#8a5a2b;stroke:#5c3a19;stroke-width:1.5}"
        ".pit.hl{fill:#d9534f;stroke:#8b1e1b;stroke-width:3}"
        ".seed{fill:#f3ead2;stroke:#6b5a3a;stroke-width:0.6}"
        ".num{font:bold 19px sans-serif;fill:#fff}"
        ".lbl{font:15px sans-serif;fill:#333}"
        ".cap{font:bold 20px sans-serif;fill:#fff}"
        ".who{font:15px sans-serif;fill:#333}"
        ".move{font:bold 15px sans-serif;fill:#1a5e1a}"
        "</style>",
        f'<rect x="{_MARGIN}" y="{top}" width="{(n + 2) * _CELL}" height="{2 * _CELL}" '
        'rx="28" class="wood"/>',
    ]
    # The stores: North's captures on the left, under the name "North" above the board, and South's on the
    # right, above the name "South" under the board; each name sits by its owner's store and row.
    for player, column, label_y in ((1, 0, top - 6), (0, n + 1, top + 2 * _CELL + 16)):
        x = _MARGIN + column * _CELL + _CELL / 2
        parts.append(
            f'<ellipse cx="{x}" cy="{top + _CELL}" rx="{_CELL / 2 - 6}" ry="{_CELL - 10}" class="pit"/>'
            f'<text x="{x}" y="{top + _CELL + 6}" text-anchor="middle" class="cap">'
            f"{game.captures[player]}</text>"
            f'<text x="{x}" y="{label_y}" text-anchor="middle" class="who">{PLAYER_NAMES[player]}</text>'
        )
    for pit in range(2 * n):
        player, action = divmod(pit, n)
        column = 1 + (action if player == 0 else n - 1 - action)
        cx = _MARGIN + column * _CELL + _CELL / 2
        cy = top + (_CELL * 1.5 if player == 0 else _CELL * 0.5)
        seeds = game.pits[pit]
        css = "pit hl" if pit in marked else "pit"
        label_y = top + 2 * _CELL + 16 if player == 0 else top - 6
        parts.append(
            f'<circle cx="{cx}" cy="{cy}" r="{_RADIUS}" class="{css}"/>'
            + _seed_dots(cx, cy - 2, seeds)
            + f'<text x="{cx + _RADIUS - 4}" y="{cy + _RADIUS - 2}" text-anchor="middle" class="num">'
            f"{seeds}</text>"
            f'<text x="{cx}" y="{label_y}" text-anchor="middle" class="lbl">{pit_label(pit, n)}</text>'
        )
    status = _status(game)
    css = "move" if not game.game_finished else "who"
    parts.append(
        f'<text x="{width - _MARGIN}" y="{height - 8}" text-anchor="end" class="{css}">{escape(status)}</text>'
        "</svg>"
    )
    return "".join(parts)


# --------------------------------------------------------------------------- the terminal's board

# ANSI styles: bold, the pit sown last, captured pits.
_BOLD, _SOWN, _TAKEN, _RESET = "\033[1m", "\033[1;33m", "\033[1;31m", "\033[0m"
_BOX = "┌┬┐├┼┤└┴┘─│•×"
_ASCII = "+" * 9 + "-|*x"


def boxes_fit(encoding: Optional[str]) -> bool:
    """Whether the box characters of :func:`board_text` can be written in ``encoding`` (None: ASCII)."""
    try:
        _BOX.encode(encoding or "ascii")
    except (LookupError, UnicodeEncodeError):
        return False
    return True


def board_text(game: BoardLike, last: Optional[PlyLike] = None, colour: bool = False, boxes: bool = True) -> str:
    """The board seen from South's seat, North's row on top, with the last ply marked.

    Args:
        game: the position.
        last: the ply that led to it: its pit is marked ``•`` and the pits it captured ``×``.
        colour: add ANSI colours (the pit sown in yellow, the captured pits in red).
        boxes: draw with Unicode box characters; ASCII otherwise.
    """
    tl, tm, tr, ml, mm, mr, bl, bm, br, h, v, sown, taken = _BOX if boxes else _ASCII
    n = len(game.pits) // 2
    captured = set(last.captured_pits) if last else set()

    def cell(pit: int) -> str:
        mark, style = (sown, _SOWN) if last and pit == last.pit else (taken, _TAKEN) if pit in captured else (" ", "")
        text = f"{game.pits[pit]:>3}{mark}"
        return f"{style}{text}{_RESET}" if colour and style else text

    def row(pits: Sequence[int], player: int) -> str:
        name = PLAYER_NAMES[player].ljust(6)
        if colour and not game.game_finished and game.current_player == player:
            name = f"{_BOLD}{name}{_RESET}"
        return f"{name}{v}" + v.join(cell(p) for p in pits) + f"{v}  captured {game.captures[player]}"

    def rule(left: str, middle: str, right: str) -> str:
        return " " * 6 + left + middle.join(h * 4 for _ in range(n)) + right

    def labels(pits: Sequence[int]) -> str:
        return " " * 6 + " " + " ".join(f"{pit_label(p, n):>3} " for p in pits).rstrip()

    north = range(2 * n - 1, n - 1, -1)
    south = range(n)
    return "\n".join(
        [labels(north), rule(tl, tm, tr), row(north, 1), rule(ml, mm, mr), row(south, 0), rule(bl, bm, br),
         labels(south)]
    )
