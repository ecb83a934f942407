"""What a move is worth, in words a player reads: the rating of ``hint``, whatever the opponent.

A hint names the move the opponent would play in the player's place; what that move, and the player's last
move, are worth comes from one referee, the same for every opponent: αβ on the capture difference
(:mod:`awale.search.alphabeta`), deepened one ply at a time within a budget of positions, so that the
rating is the same on every machine.  Its values become words: a forced result ("wins by 29 with best
play", "loses by 4 with best play") or the lead in captured seeds the search foresees ("about +3 seeds").

>>> from awale import Game
>>> rating = rate(Game())
>>> sorted(rating.values) == list(range(6)), in_words(rating.values[0]).startswith(("about", "wins", "loses"))
(True, True)
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Optional

from ..core.game import Game
from ..search.alphabeta import WIN, AlphaBeta

__all__ = ["RATING_NODES", "Rating", "rate", "in_words", "standing", "seeds"]

#: Positions the referee may visit for one rating: a tenth of a second or so, and the same rating everywhere.
RATING_NODES = 1_000_000
_DEEPEST = 40
_TABLE_BITS = 18


@dataclasses.dataclass(frozen=True)
class Rating:
    """The referee's values of every legal move of a position, for the player to move.

    Attributes:
        values: each legal action's αβ value (see :mod:`awale.search.alphabeta`: a forced result is
            ``WIN`` plus the margin, otherwise the capture difference the search foresees).
        depth: the plies searched, the move included.
        exact: whether every move's result is forced within that depth.
    """

    values: Dict[int, int]
    depth: int
    exact: bool

    @property
    def best(self) -> int:
        """The value of the best move."""
        return max(self.values.values())

    def words(self, action: int) -> str:
        """The move's value in words (see :func:`in_words`)."""
        return in_words(self.values[action])


def seeds(count: int) -> str:
    """``1 seed``, ``3 seeds``."""
    return f"{count} seed" if abs(count) == 1 else f"{count} seeds"


def in_words(value: int) -> str:
    """An αβ value in words: a forced result with its margin, else the lead in captured seeds foreseen.

    >>> in_words(WIN + 29), in_words(-WIN - 4), in_words(3), in_words(-1), in_words(0)
    ('wins by 29 with best play', 'loses by 4 with best play', 'about +3 seeds', 'about −1 seed', 'about even')
    """
    if value >= WIN:
        return f"wins by {value - WIN} with best play" if value > WIN else "wins with best play"
    if value <= -WIN:
        return f"loses by {-value - WIN} with best play" if value < -WIN else "loses with best play"
    if value == 0:
        return "about even"
    sign = "+" if value > 0 else "−"
    return f"about {sign}{seeds(abs(value))}"


def standing(value: int) -> str:
    """Where a move leaves its player, in a clause addressed to them: a forced result, or the lead in captured
    seeds that best play on both sides leads to, as far as the referee sees.

    >>> standing(WIN + 29), standing(-WIN - 4), standing(3), standing(-1), standing(0)
    ('you win by 29 with best play', 'you lose by 4 with best play', 'you are about 3 seeds ahead', 'you are about 1 seed behind', 'the game is about even')
    """
    if value >= WIN:
        return f"you win by {value - WIN} with best play" if value > WIN else "you win with best play"
    if value <= -WIN:
        return f"you lose by {-value - WIN} with best play" if value < -WIN else "you lose with best play"
    if value == 0:
        return "the game is about even"
    return f"you are about {seeds(abs(value))} {'ahead' if value > 0 else 'behind'}"


def rate(game: Game, nodes: int = RATING_NODES) -> Rating:
    """The referee's values of ``game``'s legal moves, one ply deeper at a time while ``nodes`` allow.

    Raises:
        ValueError: the game is over.
    """
    if game.game_finished:
        raise ValueError("the game is over: there is no move to rate")
    searcher = AlphaBeta(game.rules, table_bits=_TABLE_BITS)
    values: Optional[Dict[int, int]] = None
    depth, spent, last, before = 0, 0, 0, 0
    for depth in range(1, _DEEPEST + 1):
        values = searcher.action_values(game, depth)
        before, last = last, searcher.nodes
        spent += last
        if all(abs(value) >= WIN for value in values.values()):
            return Rating(values, depth, True)
        growth = last / before if before else 4.0
        if spent + last * max(growth, 1.5) > nodes:
            break
    assert values is not None
    return Rating(values, depth, False)
