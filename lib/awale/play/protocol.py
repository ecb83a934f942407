"""The engine protocol: an agent spoken to in lines of text, as chess engines are (UCI), by ``python -m awale engine``.

Another program (a tester, a graphical board, :mod:`awale.agents.engine`) sends one command a line on the
engine's standard input and reads its answers on its standard output.  The commands are those of the Universal
Chess Interface, read for Awale:

* ``uci``: the engine names itself (``id name``, ``id author``), lists its settings (one ``option`` line each)
  and ends with ``uciok``;
* ``isready``: answered ``readyok`` once the agent is built (its tables allocated) and its kernels compiled (it
  always answers, even during a search);
* ``ucinewgame``: the next search starts a new game (the agent, built once for its settings, is reset);
* ``setoption name NAME [value VALUE]``: a setting (the names are read without regard to case);
* ``position startpos [moves M ...]`` or ``position board P1 .. P12 S N south|north [moves M ...]``: the
  position to search, the initial one or the pits (South's ``A``-``F`` then North's ``a``-``f``), both captures
  and the side to move, then the moves played from it;
* ``go [ponder] [movetime MS] [nodes N] [depth D] [infinite] [wtime MS btime MS winc MS binc MS [movestogo K]]``:
  search within those limits (:class:`awale.search.limits.Limits`, the first reached stopping the search), print
  ``info`` lines as it goes and ``bestmove M [ponder R]`` at its end (``bestmove (none)`` when there is no move);
  ``go`` alone searches with the agent's own budget (the spec's); under ``movetime`` an αβ agent searches for the
  whole of the time, its last iteration cut at the deadline; with ``ponder`` it searches until ``ponderhit``,
  after which the limits apply from then on, or ``stop``;
* ``ponderhit``: the move pondered on was played; ``stop``: end the search now (its ``bestmove`` follows);
  ``quit``: end the engine.

A move is the label of the pit sown, as the board shows it (:func:`awale.core.render.pit_label`): ``A``-``F``
South's pits and ``a``-``f`` North's, each from its owner's left; a line of moves is written with spaces or
without (``C d A`` or ``CdA``).  South is the first player (``w`` in ``wtime``, ``winc``), North the second
(``b``).  A score is ``cp N``, the mover's lead in hundredths of a seed (αβ: the value of its search; with the
evaluation, its estimate in the worth of a captured seed; MCTS: its mean result as such a lead,
:func:`~awale.play.commands.mean_to_cp`), or ``win N``, ``loss N``, ``draw`` for a result the search proved
(``N`` seeds, the final margin, when αβ found it).

A line the engine cannot read, a setting it does not have and a position that cannot be reached are answered by
``info string`` and a sentence saying why, and change nothing.

>>> lines = []
>>> server = EngineServer("greedy(seed=1)", lines.append)
>>> server.handle("position startpos moves C")
True
>>> server.handle("position startpos moves C C")
True
>>> lines[-1]
"info string position refused: move 2, 'C': C is South's pit, but North is to move (North's pits are a-f)"
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from typing import Any, Callable, Dict, List, Optional, TextIO

from .. import __version__
from ..agents import Agent, Param, parse
from ..agents.base import WrapperAgent
from ..agents.minimax import MANAGE_PARAMS
from ..core.control import Progress, SearchControl
from ..core.game import PLAYERS, Game
from ..core.render import pit_label
from ..core.rules import Rules, rules_from_text, rules_to_text
from ..search.alphabeta import ENTRY_BYTES
from ..search.limits import Limits
from .commands import (
    MAX_LINE, Command, Go, IsReady, NewGame, PonderHit, Position, ProtocolError, Quit, SetOption, Stop, Uci,
    info_line, line_text, mean_to_cp, parse_command, read_line,
)

__all__ = [
    "ENGINE_NAME", "AUTHOR", "ProtocolError", "Uci", "IsReady", "NewGame", "SetOption", "Position", "Go", "Stop",
    "Quit", "PonderHit", "Command", "mean_to_cp", "parse_command", "read_line", "line_text", "info_line",
    "EngineServer", "MAX_LINE",
]

#: The engine's name in ``id name``.
ENGINE_NAME = f"awale {__version__}"

#: The engine's author in ``id author``.
AUTHOR = "The awale project"

# --------------------------------------------------------------------------- settings


@dataclasses.dataclass(frozen=True)
class _Option:
    """A setting: its name, its UCI type and the parameter of the agent it sets (if any)."""

    name: str
    kind: str
    param: str = ""
    doc: str = ""


#: The settings every agent is offered, besides one per parameter of its spec.
_STANDARD = (
    _Option("Spec", "string", doc="the agent (an agent spec); its parameters become settings"),
    _Option("Seed", "spin", "seed", "seed of the agent's random generator"),
    _Option("Threads", "spin", "threads", "threads of an MCTS or αβ agent"),
    _Option("Hash", "spin", "table", "MB of the αβ transposition table (rounded down to a power of two entries)"),
    _Option("Endgame", "string", "endgame", "endgame database: a file or a number of seeds; empty for none"),
    _Option("TimeManager", "check", "manage", "under a clock, size each move by the time manager "
                                              "(awale.agents.timing) rather than an equal share"),
    _Option("Ponder", "check", doc="whether the manager may ask for pondering (go ponder); it always may"),
    _Option("Rules", "string", doc="the rules (abapa, or key=value fields, as the command line reads them)"),
)

#: The parameters the standard settings stand for, and the budgets, which ``go`` gives.
_COVERED = {"seed", "threads", "table", "endgame", "manage", "time", "depth", "nodes", "iterations"}

_HASH_MAX = ENTRY_BYTES * 2**30 // 2**20  # 2**30 entries

_SPIN_MAX = 2**31 - 1  # a spin without a bound of its own


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _table_bits(megabytes: int) -> int:
    """The table size of ``Hash``: the most entries (:data:`~awale.search.alphabeta.ENTRY_BYTES` each) in
    ``megabytes`` MB, a power of two, 2**10 to 2**30."""
    return max(10, min(30, int(math.floor(math.log2(megabytes * 2**20 / ENTRY_BYTES)))))


def _option_name(param: str) -> str:
    """The UCI name of a parameter's setting, capitalised: ``clock_moves`` is ``ClockMoves``."""
    return "".join(word[:1].upper() + word[1:] for word in param.split("_"))


def _from_text(param: Param, text: str) -> Any:
    """The value of a parameter given as a setting's text (checked later by the agent)."""
    word = text.strip()
    if param.optional and word.lower() in ("", "none", "<empty>"):
        return None
    if param.kind is bool:  # true or false; another word goes to the agent, which may take it (a book's file)
        return word.lower() == "true" if word.lower() in ("true", "false") else word
    if param.kind in (int, float):
        try:
            return param.kind(word)
        except ValueError:
            raise ValueError(f"{_option_name(param.name)} is a number, got {_short(word)}") from None
    return word


def _uci_value(value: Any) -> str:
    if value is None or value == "":
        return "<empty>"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# --------------------------------------------------------------------------- the engine


@dataclasses.dataclass
class _Search:
    """A search under way: its thread, its control, its limits and, for ``go ponder``, where the pondering stands.

    ``state`` is ``"searching"``, ``"pondering"`` (until ``ponderhit`` or ``stop``), ``"hit"`` (``ponderhit``
    came: the search under the ``go``'s limits follows) or ``"stopped"``; it changes under ``lock``.
    """

    control: SearchControl
    started: float
    go: Go
    limits: Optional[Limits]
    state: str
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    woken: threading.Event = dataclasses.field(default_factory=threading.Event)  # ponderhit or stop came
    thread: Optional[threading.Thread] = None

    def stop(self) -> None:
        """``stop``: end the search, pondering or not (its ``bestmove`` follows)."""
        with self.lock:
            self.state = "stopped"
            self.control.stop()
            self.woken.set()

    def ponderhit(self) -> bool:
        """``ponderhit``: end the pondering, so that the search under the ``go``'s limits begins; False if the
        search was not pondering."""
        with self.lock:
            if self.state != "pondering":
                return False
            self.state = "hit"
            self.control.stop()
            self.woken.set()
            return True


class EngineServer:
    """One engine: an agent, a position, settings, and at most one search at a time in a thread of its own.

    The agent is built once for its settings (at ``isready``, ``ucinewgame`` or the first ``go``), with its tables,
    and plays every move of a game; ``ucinewgame`` resets it.  Each ``go`` gives it the limits of that search
    (:class:`~awale.search.limits.Limits`): nothing is rebuilt to change a budget.

    Args:
        spec: the agent; it plays the moves the same agent would play in a match (same spec, same seed, same
            positions, same budget).
        write: where each answer line goes (the engine's standard output, flushed); called from two threads
            (the reader's and the search's), never at once.

    Raises:
        ValueError: a bad spec, or a spec that wraps another agent (a clock comes from ``go``, and an engine
            cannot be another program).
    """

    def __init__(self, spec: str, write: Callable[[str], None]) -> None:
        self._write_line = write
        self._lock = threading.Lock()
        self._spec = self._checked_spec(spec)
        self._changes: Dict[str, Any] = {}
        self._seed: Optional[int] = None
        self._ponder = False
        self.rules = Rules()
        self.game = Game(self.rules)
        self._player: Optional[Agent] = None  # the agent that plays, built once for the settings
        self._warmed = False
        self._search: Optional[_Search] = None
        self._closed = False
        self._state = threading.RLock()  # held while a command is carried out, by the reader or a search's end
        self._queue: List[Command] = []

    # ------------------------------------------------------------------ lines in, lines out

    def say(self, line: str) -> None:
        """Write one answer line (nothing once the output is closed: the reader has gone)."""
        with self._lock:
            if self._closed:
                return
            try:
                self._write_line(line)
            except (BrokenPipeError, ValueError):  # a closed pipe, or a closed file
                self._closed = True

    def handle(self, line: str) -> bool:
        """Act on one line; False once the engine is to end (``quit``).

        ``stop``, ``ponderhit``, ``quit`` and ``isready`` are answered at once, even during a search; the other
        commands that come during a search wait for its ``bestmove``, in their order.  A ``go`` that cannot be
        read is said so and searched with the agent's own budget: every ``go`` is answered by a ``bestmove``.
        """
        if not line.strip():
            return True
        try:
            command = parse_command(line)
        except ProtocolError as error:
            if line.split()[0] != "go":
                self.say(f"info string {error}; line ignored")
                return True
            self.say(f"info string {error}; searching with the agent's own budget")
            command = Go()
        if isinstance(command, Quit):
            with self._state:
                self._queue.clear()
            self.stop(wait=True)
            return False
        if isinstance(command, Stop):
            self.stop()
            return True
        if isinstance(command, PonderHit):
            search = self._search
            if search is None or not search.ponderhit():
                self.say("info string ponderhit: no search is pondering; line ignored")
            return True
        with self._state:
            if self._search is not None:
                if isinstance(command, IsReady):
                    self.say("readyok")
                else:
                    self._queue.append(command)
                return True
            self._act(command)
        return True

    def serve(self, stream: TextIO) -> None:
        """Read commands from ``stream`` until ``quit`` or the end of the input.

        At the end of the input the engine finishes what it was asked (the search under way, unless it is infinite
        or pondering, and the commands waiting for it), then ends.  A line longer than :data:`MAX_LINE` is
        refused, not read into memory whole.
        """
        while True:
            line = stream.readline(MAX_LINE + 1)
            if not line:
                break
            if len(line) > MAX_LINE and not line.endswith("\n"):
                while line and not line.endswith("\n"):  # the rest of the line, dropped
                    line = stream.readline(MAX_LINE)
                self.say(f"info string a line of more than {MAX_LINE} characters; line ignored")
                continue
            if not self.handle(line):
                return
        while True:
            search = self._search
            if search is None:
                return
            if search.go.infinite or search.go.ponder:
                search.stop()  # nothing can stop it any more
            if search.thread is not None:
                search.thread.join()

    def _act(self, command: Command) -> None:
        """Carry out a command (not stop nor quit), its errors said on an ``info string`` line."""
        try:
            self._carry_out(command)
        except ValueError as error:
            self.say(f"info string {error}")

    def _carry_out(self, command: Command) -> None:
        if isinstance(command, IsReady):
            self._prepare()
            self.say("readyok")
        elif isinstance(command, Uci):
            self._identify()
        elif isinstance(command, NewGame):
            self._prepare()
            assert self._player is not None
            self._player.reset()
        elif isinstance(command, SetOption):
            self._set(command.name, command.value)
        elif isinstance(command, Position):
            try:
                self.game = self._position(command)
            except ValueError as error:
                raise ValueError(f"position refused: {error}") from None
        elif isinstance(command, Go):
            self._go(command)

    # ------------------------------------------------------------------ settings

    @staticmethod
    def _checked_spec(spec: str) -> str:
        agent = parse(spec)
        if isinstance(agent, WrapperAgent) or agent.name == "engine":
            raise ValueError(f"the engine plays an agent of this library, not {agent.name}(...): "
                             "its clock comes from go, and its opening from position")
        return agent.spec

    def agent(self) -> Agent:
        """The agent as the settings make it (its seed and parameters), new (not the one that plays)."""
        agent = parse(self._spec, seed=self._seed)
        return agent.replace(**self._changes) if self._changes else agent

    def player(self) -> Agent:
        """The agent that plays: built once for the settings, kept from move to move (reset by ``ucinewgame``)."""
        if self._player is None:
            self._player = self.agent()
            self._warmed = False
        return self._player

    def _changed(self) -> None:
        """The settings changed: the next ``isready``, ``ucinewgame`` or ``go`` builds the agent again."""
        self._player = None
        self._warmed = False

    def _params(self) -> Dict[str, Param]:
        return {param.name: param for param in type(parse(self._spec)).params}

    def _identify(self) -> None:
        agent = self.agent()
        params = self._params()
        self.say(f"id name {ENGINE_NAME} {agent.spec}")
        self.say(f"id author {AUTHOR}")
        for option in _STANDARD:
            line = self._option_line(option, agent, params)
            if line:
                self.say(line)
        for param in params.values():
            if param.name not in _COVERED:
                self.say(self._param_line(param, getattr(agent, param.name)))
        self.say("uciok")

    def _option_line(self, option: _Option, agent: Agent, params: Dict[str, Param]) -> str:
        """The ``option`` line of a standard setting ("" for one the agent does not have)."""
        head = f"option name {option.name} type {option.kind}"
        if option.name == "Spec":
            return f"{head} default {self._spec}"
        if option.name == "Rules":
            return f"{head} default {rules_to_text(self.rules)}"
        if option.name == "Ponder":
            return f"{head} default {_uci_value(self._ponder)}"
        if option.name == "Seed":
            return f"{head} default {getattr(agent, 'seed', 0)} min 0 max {2**63 - 1}"
        if option.name == "Threads":
            if "threads" not in params:
                return f"{head} default 1 min 1 max 1"
            top = int(params["threads"].maximum or _SPIN_MAX)
            return f"{head} default {max(1, getattr(agent, 'threads', 1))} min 1 max {top}"
        if option.name == "Hash":
            megabytes = max(1, 2 ** getattr(agent, "table", 20) * ENTRY_BYTES // 2**20)
            return f"{head} default {megabytes} min 1 max {_HASH_MAX}"
        if option.name == "Endgame":
            return f"{head} default {_uci_value(getattr(agent, 'endgame', None))}"
        if "manage" not in params:  # TimeManager: only for the agents that manage their time
            return ""
        return f"{head} default {_uci_value(bool(agent.manage))}"

    @staticmethod
    def _param_line(param: Param, value: Any) -> str:
        head = f"option name {_option_name(param.name)}"
        if param.kind is bool and type(param).check is Param.check:  # a check box only if nothing else is taken
            return f"{head} type check default {_uci_value(value)}"
        if param.choices:
            return f"{head} type combo default {value} " + " ".join(f"var {choice}" for choice in param.choices)
        if param.kind is int and not param.optional:
            low = int(param.minimum) if param.minimum is not None else -_SPIN_MAX
            high = int(param.maximum) if param.maximum is not None else _SPIN_MAX
            return f"{head} type spin default {value} min {low} max {high}"
        return f"{head} type string default {_uci_value(value)}"  # a real number: UCI has no type for it

    def _set(self, name: str, value: str) -> None:
        """``setoption``: change a setting, or say in words why not (and change nothing)."""
        key = name.strip().lower()
        option = next((o for o in _STANDARD if o.name.lower() == key), None)
        params = self._params()
        if option is not None and option.name == "Spec":
            spec = self._checked_spec(value)  # a bad spec raises: said, and nothing changes
            self._spec, self._changes = spec, {}
            self._changed()
            return
        if option is not None and option.name == "Rules":
            rules = rules_from_text(value)
            if rules.pits_per_side > 26:
                raise ValueError("Rules: the pits are named by letters, so at most 26 a side")
            self.rules, self.game = rules, Game(rules)
            return
        if option is not None and option.name == "Ponder":
            if value.strip().lower() not in ("true", "false"):
                raise ValueError(f"Ponder is true or false, got {_short(value)}")
            self._ponder = value.strip().lower() == "true"
            return
        if option is not None and option.name == "Seed":
            seed = _from_text(Param("seed", int), value)
            parse(self._spec, seed=seed)  # checked as the agent checks it
            self._seed = seed
            self._changed()
            return
        param = option.param if option is not None else next(
            (p for p in params if p not in _COVERED and key in (p.lower(), _option_name(p).lower())), "")
        if not param or param == "seed":
            known = [o.name for o in _STANDARD if o.name != "TimeManager" or "manage" in params]
            known += [_option_name(p) for p in params if p not in _COVERED]
            raise ValueError(f"no setting {_short(name.strip())} (settings: {', '.join(known)}); nothing changed")
        if param not in params:
            raise ValueError(f"{option.name}: {parse(self._spec).name} has no {param}, so {option.name} does not "
                             "apply to it; nothing changed")
        if param == "table":
            given = _from_text(Param(param, int), value)
            if not isinstance(given, int) or given < 1:
                raise ValueError(f"Hash is a number of megabytes, at least 1, got {_short(value)}")
            given = _table_bits(given)
        elif param == "manage":
            if value.strip().lower() not in ("true", "false"):
                raise ValueError(f"TimeManager is true or false, got {_short(value)}")
            given = value.strip().lower() == "true"
        else:
            given = _from_text(params[param], value)
        if param == "threads" and isinstance(given, int) and given < 1:
            raise ValueError(f"Threads must be at least 1, got {given}; nothing changed")
        changes = {**self._changes, param: given}
        if param == "manage" and not given:  # what only the time manager reads goes with it
            changes.update((p.name, p.default) for p in MANAGE_PARAMS if p.name in params)
        try:
            parse(self._spec, seed=self._seed).replace(**changes)
        except ValueError as error:
            raise ValueError(f"{name.strip()}: {error}; nothing changed") from None
        self._changes = changes
        self._changed()

    # ------------------------------------------------------------------ positions

    def _position(self, command: Position) -> Game:
        if command.board is None:
            game = Game(self.rules)
        else:
            pits, captures, player = command.board
            game = Game.from_position(pits, captures, player, rules=self.rules)
        return read_line(command.moves, game)[1]

    # ------------------------------------------------------------------ searches

    @property
    def searching(self) -> bool:
        """Whether a search is under way (its ``bestmove`` not written yet)."""
        return self._search is not None

    def stop(self, wait: bool = False) -> None:
        """End the search under way, if any (its ``bestmove`` follows); with ``wait``, until it is written."""
        search = self._search
        if search is None:
            return
        search.stop()
        if wait and search.thread is not None:
            search.thread.join()

    def _notes(self, go: Go, agent: Agent, game: Game, limits: Optional[Limits]) -> List[str]:
        """What ``go`` asks that the agent does not do, in words."""
        notes = []
        mover = game.current_player
        if (go.wtime, go.btime)[1 - mover] is not None and (go.wtime, go.btime)[mover] is None:
            notes.append(f"go: no time for {PLAYERS[mover]}, who is to move; the agent's own budget")
        if go.infinite and limits is not None and not limits.infinite:
            notes.append("go: infinite ignored: a time or a clock is given")
        if limits is not None:
            kinds = [kind for kind in limits.given() if kind not in agent.honours]
            if kinds and len(kinds) == len(limits.given()):
                notes.append(f"go: {agent.name} has no {' or '.join(kinds)} limit; it searches with its own budget")
            elif kinds:
                notes.append(f"go: {' and '.join(kinds)} ignored: {agent.name} has no such limit")
        return notes

    def _go(self, go: Go) -> None:
        game = self.game
        if game.game_finished:
            self.say("info string the game is over: there is no move to search")
            self.say("bestmove (none)")
            return
        agent = self.player()
        limits = go.limits(game.current_player)
        for note in self._notes(go, agent, game, limits):
            self.say(f"info string {note}")
        search = _Search(SearchControl(), time.perf_counter(), go, limits, "pondering" if go.ponder else "searching")
        search.thread = threading.Thread(target=self._run, args=(search, agent, game),
                                         name="awale-engine-search", daemon=True)
        self._search = search
        search.thread.start()

    def _run(self, search: _Search, agent: Agent, game: Game) -> None:
        """The search's thread: the agent's move, the ``info`` lines on the way, then ``bestmove``."""
        pending: List[Progress] = []
        shown = [0.0]

        def listen(progress: Progress) -> None:  # every αβ iteration; MCTS at most every 0.2 s
            now = time.perf_counter()
            if progress.note:
                self.say(f"info string {progress.note}")
            if progress.note or progress.mean is None or now - shown[0] >= 0.2:
                self.say(info_line(progress, game, now - search.started))
                shown[0] = now
                pending.clear()
            else:
                pending[:] = [progress]

        search.control.listener = listen
        n = game.rules.pits_per_side
        action: Optional[int] = None
        try:
            with search.control:
                if search.go.ponder:
                    action = agent.act(game, Limits(ponder=True))  # until ponderhit or stop
                    search.woken.wait()  # a pondering that ends by itself waits for them too
                    with search.lock:
                        hit = search.state == "hit"
                        if hit:  # the go's limits, from the ponderhit on
                            search.woken.clear()  # a go ponder infinite still waits for its stop
                            search.control.clear()
                            search.started = time.perf_counter()
                            search.state = "searching"
                            pending.clear()
                    if hit:
                        action = agent.act(game, search.limits)
                else:
                    action = agent.act(game, search.limits)
        except Exception as error:  # noqa: BLE001 - said on the protocol, never a crash
            self.say(f"info string the search failed: {error}")
        if action is None or action not in game.legal_actions:
            action = game.legal_actions[0]  # a legal move all the same: every go has its bestmove
        if pending:
            self.say(info_line(pending[-1], game, time.perf_counter() - search.started))
        if search.go.infinite:
            search.woken.wait()  # under go infinite, the answer waits for stop
        move = pit_label(game.current_player * n + int(action), n)
        reply = None
        try:
            reply = agent.expected_reply(game, int(action))
        except Exception:  # noqa: BLE001 - a reply is a courtesy, never a failure
            reply = None
        after = game.step(int(action))[0]
        if reply is not None and not after.game_finished and reply in after.legal_actions:
            move += f" ponder {pit_label(after.current_player * n + int(reply), n)}"
        with self._state:
            self.say(f"bestmove {move}")
            self._search = None
            while self._queue and self._search is None:  # what came during the search, in order
                self._act(self._queue.pop(0))

    def _prepare(self) -> None:
        """Build the agent for the settings (its tables allocated) and compile its kernels by a small search, once
        for the settings (``isready``, ``ucinewgame``); the agent is reset after it."""
        agent = self.player()
        if self._warmed:
            return
        game = Game(self.rules)
        for _ in range(8):  # past the opening book, as awale.play.match.warm_up
            following = game.step(game.legal_actions[0])[0]
            if following.game_finished:
                break
            game = following
        small = Limits(nodes=200 if "depth" in agent.honours else 64) if "nodes" in agent.honours else None
        try:
            agent.act(game, small)
        except ValueError as error:
            self.say(f"info string the agent could not make a move: {error}")
        agent.reset()
        self._warmed = True
