"""Play Awale against an agent in a terminal, and replay saved games.

``python -m awale play [AGENT]`` runs :func:`play_terminal`; ``python -m
awale replay FILE`` runs :func:`replay_terminal`.  The board is drawn by
:func:`awale.core.render.board_text`, with Unicode box characters (ASCII where the
terminal cannot show them), in colour when the output is a terminal and
``NO_COLOR`` is not set (https://no-color.org); the pit sown last is marked
``•`` and the pits it captured ``×``.

A move is a pit of the player to move, as its letter (``A``..``F`` for South,
``a``..``f`` for North, either case) or its number from the mover's left
(``1``..``6``).  The other inputs are ``hint``, ``undo``, ``help`` and ``quit``.

The game itself is a :class:`awale.play.session.Session`, as on the Jupyter board;
``--save`` writes it to a game file (:mod:`awale.core.gamefile`), which ``replay``
reads.  This module holds the terminal's side alone: the streams, the words
and the loop.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Optional, Union

from .. import DEFAULT_AGENT
from ..agents import Agent
from ..core.game import PLAYERS, Game
from ..core.gamefile import load_game
from ..core.record import Ply, replay
from ..core.render import board_text, boxes_fit, pit_label
from ..core.rules import Rules, rules_to_text
from .match import score_text
from .session import Session, parse_move

__all__ = ["default_opponent", "play_terminal", "replay_terminal", "use_colour"]

#: Endgame databases the default opponent plays from when one is already built on this machine, deepest first.
DEFAULT_ENDGAMES = (25, 15)


def default_opponent(rules: Optional[Rules] = None) -> Agent:
    """The opponent of ``python -m awale play`` when none is named: :data:`awale.DEFAULT_AGENT` playing from the
    deepest endgame database of :data:`DEFAULT_ENDGAMES` already built whole for ``rules`` in this machine's
    cache (:func:`awale.knowledge.endgame_cache.whole_built_database`), else without one: building a database (16
    minutes and 1.85 GB for 25 seeds) is left to the user, whom the command tells how."""
    from ..agents import parse
    from ..knowledge.endgame_cache import whole_built_database
    from ..core.rules import as_rules

    agent = parse(DEFAULT_AGENT)
    for seeds in DEFAULT_ENDGAMES:
        if whole_built_database(seeds, as_rules(rules)) is not None:
            return agent.replace(endgame=str(seeds))
    return agent


_HELP = """\
Enter a move as a pit of yours: its letter on the board ({letters}) or its number from your left (1 to {n}).
  hint   the move {agent} would play in your place, where it leaves you ("you are about
         3 seeds behind", "you win by 4 with best play"), and what your last move did. The
         seeds are your lead in captures once both sides play their best, as a search of a
         million positions sees it: an estimate, which can move as the game goes on.
  undo   take back your last move (and the reply to it)
  help   this text
  quit   stop (the game is saved first if --save was given)
Marks on the board: • the pit sown last, × the pits it captured."""


def use_colour(stream: IO[str], mode: str = "auto") -> bool:
    """Whether to write colour to ``stream``: ``"always"``, ``"never"``, or, for ``"auto"``, when it is
    a terminal (not ``TERM=dumb``) and ``NO_COLOR`` is unset or empty."""
    if mode not in ("auto", "always", "never"):
        raise ValueError(f"colour mode must be 'auto', 'always' or 'never', got {mode!r}")
    if mode != "auto":
        return mode == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def short_name(spec: str) -> str:
    """An agent's name for a line of the game: its family, without the parameters (``champion``)."""
    name = spec.split("(", 1)[0]
    return name if name != "clocked" else "a clocked agent"


def _ply_text(ply: Ply) -> str:
    """One line: who played what, and what it took."""
    n = ply.game.rules.pits_per_side
    text = f"{PLAYERS[ply.player]} played {ply.label}"
    if ply.captured:
        pits = " ".join(pit_label(p, n) for p in ply.captured_pits)
        text += f" and captured {ply.captured} seed{'s' if ply.captured != 1 else ''} ({pits})"
    elif ply.grand_slam:
        text += " (a grand slam, which captures nothing under these rules)"
    return text + "."


def _result_text(game: Game, ending: str) -> str:
    return f"Game over ({ending}): {score_text(game.captures, game.winner)}."


def _plies(count: int) -> str:
    return f"{count} ply" if count == 1 else f"{count} plies"


def screen_lines(text: str, width: Optional[int] = None) -> str:
    """``text`` wrapped at spaces to the terminal's width (at most 100), a long spec never cut inside a word."""
    import shutil
    import textwrap

    width = width or min(shutil.get_terminal_size((100, 24)).columns, 100)
    return textwrap.fill(text, width=max(width, 40), subsequent_indent="  ", break_long_words=False,
                         break_on_hyphens=False)


# --------------------------------------------------------------------------- the terminal game


class _Terminal:
    """Board, lines and prompts on one output stream."""

    def __init__(self, out: IO[str], colour: str) -> None:
        self.out = out
        self.colour = use_colour(out, colour)
        self.boxes = boxes_fit(getattr(out, "encoding", None))

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def board(self, game: Game, last: Optional[Ply]) -> None:
        self.say()
        if last is not None:
            self.say(f"ply {last.number}: {_ply_text(last)}")
        self.say(board_text(game, last, colour=self.colour, boxes=self.boxes))


def play_terminal(
    agent: Union[str, Agent] = DEFAULT_AGENT,
    side: int = 0,
    rules: Optional[Rules] = None,
    seed: int = 0,
    save: Optional[Union[str, os.PathLike]] = None,
    stdin: Optional[IO[str]] = None,
    stdout: Optional[IO[str]] = None,
    colour: str = "auto",
) -> int:
    """Play a game in a terminal against an agent (see :class:`awale.play.session.Session` for ``agent``, ``side``,
    ``rules`` and ``seed``).

    Args:
        save: write the game there when it ends or the player quits (see :func:`awale.core.gamefile.save_game`).
        stdin, stdout: the streams (the process's by default).
        colour: ``"auto"``, ``"always"`` or ``"never"`` (see :func:`use_colour`).

    Returns:
        0: the game ended, or the player quit.

    Raises:
        KeyboardInterrupt: Ctrl-C, after the game was saved (if ``save`` is given).
    """
    stdin = sys.stdin if stdin is None else stdin
    term = _Terminal(sys.stdout if stdout is None else stdout, colour)
    session = Session(agent, side, rules, seed)
    spec = session.agent.spec
    term.say(f"You play {PLAYERS[side]} against {short_name(spec)}; South moves first. Type help for the commands.")
    if spec != short_name(spec):
        term.say(screen_lines(f"{PLAYERS[1 - side]}'s settings: {spec}"))
    term.board(session.game, None)
    try:
        _loop(session, stdin, term)
    except KeyboardInterrupt:  # Ctrl-C: stop, keep the game if asked to, then report the interruption
        term.say()
        _finish(session, term, save)
        raise
    _finish(session, term, save)
    return 0


def _loop(session: Session, stdin: IO[str], term: _Terminal) -> None:
    """Moves and commands until the game ends or the player stops."""
    side, spec, n = session.side, session.agent.spec, session.rules.pits_per_side
    name = short_name(spec)
    while not session.game.game_finished:
        if not session.human_to_move:
            term.say(f"{PLAYERS[1 - side]} ({name}) is thinking...")
            ply, rating = session.reply()
            term.board(ply.game, ply)
            if rating:
                term.say(f"{PLAYERS[ply.player]} rated {ply.label}: {rating}.")
            continue
        term.out.write(f"{PLAYERS[side]} to move> ")
        term.out.flush()
        line = stdin.readline()
        if not line:  # end of input: as quit
            term.say()
            break
        command = line.strip().lower()
        if command in ("quit", "q", "exit"):
            break
        if command in ("help", "h", "?"):
            letters = f"{pit_label(side * n, n)}-{pit_label(side * n + n - 1, n)}"
            term.say(_HELP.format(letters=letters, n=n, agent=name))
        elif command == "hint":
            action, rating = session.hint()
            term.say(f"hint: {pit_label(side * n + action, n)}, what {name} would play" + (f"; {rating}" if rating else ""))
            review = session.review()
            if review:
                term.say(review)
        elif command in ("undo", "u"):
            replied = session.plies and session.plies[-1].player != side
            if session.undo():
                term.say("took back your last move" + (" and the reply to it" if replied else ""))
                term.board(session.game, session.last)
            else:
                term.say("nothing to undo: you have not moved yet")
        else:
            try:
                ply = session.play(parse_move(line, session.game))
            except ValueError as error:
                term.say(str(error))
                continue
            term.board(ply.game, ply)


def _finish(session: Session, term: _Terminal, save: Optional[Union[str, os.PathLike]]) -> None:
    """The result (or where the game stopped), and the game file."""
    game = session.game
    if game.game_finished:
        verdict = "a draw" if game.winner is None else "you win" if game.winner == session.side else "you lose"
        term.say(f"{_result_text(game, session.last.ending)} ({verdict})")
    else:
        term.say(f"stopped after {_plies(game.plies)}")
    if save is not None:
        session.save(save)
        term.say(f"saved to {save}: replay it with python -m awale replay {save}")


def replay_terminal(
    path: Union[str, os.PathLike],
    stdout: Optional[IO[str]] = None,
    colour: str = "auto",
    step: bool = False,
    ply: Optional[int] = None,
    stdin: Optional[IO[str]] = None,
) -> int:
    """Print a saved game ply by ply (see :func:`awale.core.gamefile.load_game`); returns 0.

    Args:
        step: wait for Enter after each position (``q`` stops), reading ``stdin``.
        ply: print only the position after that ply (0: the starting position).

    Raises:
        ValueError: ``ply`` is not a ply of the game.
    """
    term = _Terminal(sys.stdout if stdout is None else stdout, colour)
    stdin = sys.stdin if stdin is None else stdin
    record = load_game(path)
    game = Game(record.rules)
    plies = replay(record.moves, record.rules)
    if ply is not None and not 0 <= ply <= len(plies):
        raise ValueError(f"--ply {ply}: the game has {_plies(len(plies))}; give 0 (the start) to {len(plies)}")
    term.say(f"South: {record.south}\nNorth: {record.north}\nrules: {rules_to_text(record.rules)}")
    if ply is not None:
        shown = plies[ply - 1] if ply else None
        term.board(shown.game if shown else game, shown)
        term.say(f"ply {ply} of {len(plies)}")
        return 0
    term.board(game, None)
    for number, each in enumerate(plies, start=1):
        if step and not _next(term, stdin, number, len(plies)):
            return 0
        term.board(each.game, each)
    if plies and plies[-1].game.game_finished:
        term.say(_result_text(plies[-1].game, plies[-1].ending))
    else:
        term.say(f"unfinished after {_plies(len(plies))}: "
                 f"{PLAYERS[(plies[-1].game if plies else game).current_player]} to move")
    return 0


def _next(term: _Terminal, stdin: IO[str], number: int, total: int) -> bool:
    """``replay --step``: wait for Enter before ply ``number``; False when the reader types q or input ends."""
    term.out.write(f"[Enter: ply {number} of {total}, q: stop] ")
    term.out.flush()
    line = stdin.readline()
    return bool(line) and line.strip().lower() not in ("q", "quit")
