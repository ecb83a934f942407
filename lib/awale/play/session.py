"""A game between a human and an agent, one move at a time: :class:`Session`.

The terminal game (:mod:`awale.play.terminal`) and the Jupyter board
(:mod:`awale.play.widget`) both play through a session; this module holds what
they share and no input or output of its own: the session, the reading of a
typed move (:func:`parse_move`) and an agent's rating of its move in words
(:func:`estimate`).  What a hint's move and the player's last move are worth comes
from one referee whatever the opponent (:mod:`awale.play.advice`).

A move is a pit of the player to move, as its letter on the board (``A``..``F``
are South's pits, ``a``..``f`` North's) or its number from the mover's left
(``1``..``6``).  The opponent's letter is refused with a message saying whose pit it is.

>>> session = Session("greedy")
>>> ply = session.play(parse_move("C", session.game))
>>> ply.label, session.human_to_move
('C', False)
"""

from __future__ import annotations

import math
import os
from typing import List, Optional, Tuple, Union

from .. import DEFAULT_AGENT
from ..agents import Agent, parse
from ..core.game import PLAYERS, Game, IllegalActionError
from ..core.gamefile import HUMAN, save_game
from ..core.record import Ply, describe
from ..core.render import label_pit, pit_label
from ..core.rules import Rules, as_rules
from ..search.alphabeta import EVAL_SCALE, WIN
from .advice import WIN, in_words, rate, standing

__all__ = ["DEFAULT_AGENT", "Session", "estimate", "parse_move"]


def parse_move(text: str, game: Game) -> int:
    """The action a player typed: the letter of one of the mover's pits on the board, or its number from 1.

    Raises:
        ValueError: the text is not a pit of the mover, or the move is illegal; the message is one
            line saying why and, for an illegal move, which moves are legal.
    """
    n = game.rules.pits_per_side
    player = game.current_player
    first = "A" if player == 0 else "a"
    letters = f"{first}-{chr(ord(first) + n - 1)}"
    word = text.strip()
    if len(word) == 1 and word.isalpha() and word.isascii():
        try:
            owner, action = divmod(label_pit(word, n), n)  # the board's letters: South's capitals, North's small
        except ValueError:
            raise ValueError(f"{word!r} is not one of your pits: they are {letters} (or 1-{n})") from None
        if owner != player:
            raise ValueError(f"{word} is {PLAYERS[owner]}'s pit, your opponent's: yours are {letters} (or 1-{n})")
    elif word.isdigit() and word.isascii():
        action = int(word) - 1
        if not 0 <= action < n:
            raise ValueError(f"pit numbers go from 1 to {n}, got {word}")
    else:
        raise ValueError(f"{word!r} is not a move: type a pit ({letters} or 1-{n}), or help")
    if action not in game.legal_actions:
        try:
            game.step(action)
        except IllegalActionError as error:
            reason = str(error).split("is illegal: ", 1)[-1].split("; legal actions", 1)[0]
        legal = ", ".join(pit_label(player * n + a, n) for a in game.legal_actions)
        raise ValueError(f"{pit_label(player * n + action, n)} cannot be played: {reason}; legal moves: {legal}")
    return action


def estimate(agent: Agent, game: Game, action: int) -> str:
    """How ``agent`` rated ``action`` in its last search of ``game``, in words ("" if it cannot say).

    Tree searches give the mean result of the move for the mover (a win 1, a draw ½) over their
    simulations, or the result the solver proved; αβ its value in seeds at the depth reached.
    """
    if len(game.legal_actions) == 1:
        return "the only legal move"
    tree = getattr(agent, "tree", None)
    if tree is not None and tree.game == game and tree.game.plies == game.plies:
        stats = {s.action: s for s in tree.children()}
        chosen = stats.get(action)
        if chosen is None:
            return ""
        if chosen.proven:
            return f"a proven {chosen.proven}"
        total = sum(s.visits for s in stats.values())
        return f"expected score {chosen.mean:.0%} after {chosen.visits:,} of {total:,} simulations"
    search = getattr(agent, "last_search", None)
    if search is not None and action in search.best_actions:
        depth = "searched to the end of the game" if search.exact else f"searched {search.depth} plies deep"
        if abs(search.value) >= WIN or not getattr(agent, "evaluation", False):
            return f"{in_words(search.value)}, {depth}"
        chance = 1 / (1 + math.exp(-search.value / EVAL_SCALE))  # the evaluation's scaled logit
        return f"a winning chance of about {chance:.0%} by its evaluation, {depth}"
    return ""


class Session:
    """A game between a human and an agent, one move at a time, with hints and take-backs.

    Args:
        agent: the opponent, an agent or a spec (see :func:`awale.agents.parse`).
        side: the human's side, 0 (South, who moves first) or 1 (North).
        rules: the rules (Abapa by default).
        seed: replaces the agent's ``seed``, if it has one; its hints come from a copy with the same seed,
            so asking for one never changes the agent's moves.

    Raises:
        ValueError: a bad spec, side or rules.
    """

    def __init__(self, agent: Union[str, Agent] = DEFAULT_AGENT, side: int = 0, rules: Optional[Rules] = None,
                 seed: int = 0) -> None:
        if side not in (0, 1) or isinstance(side, bool):
            raise ValueError(f"side must be 0 (South) or 1 (North), got {side!r}")
        self.side = side
        self.rules = as_rules(rules)
        self.agent = parse(agent, seed=seed)
        self._adviser = self.agent.replace()
        self.plies: List[Ply] = []

    @property
    def game(self) -> Game:
        """The position now."""
        return self.plies[-1].game if self.plies else Game(self.rules)

    @property
    def last(self) -> Optional[Ply]:
        """The last ply played, if any."""
        return self.plies[-1] if self.plies else None

    @property
    def players(self) -> Tuple[str, str]:
        """South's and North's names: ``"human"`` or the agent's spec."""
        names = [HUMAN, HUMAN]
        names[1 - self.side] = self.agent.spec
        return names[0], names[1]

    @property
    def human_to_move(self) -> bool:
        """Whether the game goes on and it is the human's turn."""
        return not self.game.game_finished and self.game.current_player == self.side

    def play(self, action: int) -> Ply:
        """Play the human's ``action``.

        Raises:
            ValueError: it is not the human's turn, or the action is illegal (``IllegalActionError``).
        """
        if not self.human_to_move:
            raise ValueError("it is not your turn" if not self.game.game_finished else "the game is over")
        ply = describe(self.game, action)
        self.plies.append(ply)
        return ply

    def reply(self) -> Tuple[Ply, str]:
        """Let the agent move; returns the ply and the agent's rating of it (see :func:`estimate`)."""
        game = self.game
        if game.game_finished or game.current_player == self.side:
            raise ValueError("it is not the agent's turn")
        action = self.agent.act(game)
        rating = estimate(self.agent, game, action)
        ply = describe(game, action)
        self.plies.append(ply)
        return ply, rating

    def hint(self) -> Tuple[int, str]:
        """What the agent would play in the human's place, and what that move is worth in words.

        The worth comes from the referee of :mod:`awale.play.advice`, the same for every opponent: "wins by 29
        with best play", "about +3 seeds".
        """
        if not self.human_to_move:
            raise ValueError("a hint is for your turn")
        game = self.game
        action = self._adviser.act(game)
        if len(game.legal_actions) == 1:
            return action, "the only legal move"
        return action, f"with it, {standing(rate(game).values[action])}"

    def review(self) -> str:
        """The human's last move in words, beside the best move of that position ("" before their first move)."""
        mine = [index for index, ply in enumerate(self.plies) if ply.player == self.side]
        if not mine:
            return ""
        ply = self.plies[mine[-1]]
        before = self.plies[mine[-1] - 1].game if mine[-1] else Game(self.rules)
        head = f"your last move, {ply.label}"
        if len(before.legal_actions) == 1:
            return f"{head}, was the only legal move"
        rating = rate(before)
        n = self.rules.pits_per_side
        value = rating.values[ply.action]
        if value == rating.best:
            head += ", was the best there"
            if value <= -WIN:
                return f"{head}, but every move there lost: {standing(value)}"
            if -WIN < value < 0:
                return f"{head}: the position was already worse, and it kept you where you were: {standing(value)}"
            if value == 0:
                return f"{head}: it kept the game about even"
            return f"{head}: with it, {standing(value)}"
        best = min(action for action, each in rating.values.items() if each == rating.best)
        return (f"{head}: with it, {standing(value)}; {pit_label(self.side * n + best, n)} was better: with it, "
                f"{standing(rating.best)}")

    def undo(self) -> bool:
        """Take back the human's last move and the reply to it; False if the human has not moved yet."""
        mine = [i for i, ply in enumerate(self.plies) if ply.player == self.side]
        if not mine:
            return False
        del self.plies[mine[-1]:]
        return True

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Write the game so far to a game file (see :func:`awale.core.gamefile.save_game`)."""
        save_game(path, *self.players, self.rules, [ply.action for ply in self.plies])
