"""The engine protocol: an agent spoken to in lines of text, as chess engines are (UCI), by ``python -m awale engine``.

Another program (a tester, a graphical board, :mod:`awale.agents.engine`) sends one command a line on the
engine's standard input and reads its answers on its standard output.  The commands are those of the Universal
Chess Interface, read for Awale:

* ``uci``: the engine names itself (``id name``, ``id author``), lists its settings (one ``option`` line each)
  and ends with ``uciok``;
* ``isready``: answered ``readyok`` once the agent is loaded and its kernels compiled (it always answers, even
  during a search);
* ``ucinewgame``: the next search starts a new game (agents forget their trees and tables);
* ``setoption name NAME [value VALUE]``: a setting (the names are read without regard to case);
* ``position startpos [moves M ...]`` or ``position board P1 .. P12 S N south|north [moves M ...]``: the
  position to search, the initial one or the pits (South's ``A``-``F`` then North's ``a``-``f``), both captures
  and the side to move, then the moves played from it;
* ``go [movetime MS | nodes N | depth D | infinite | wtime MS btime MS winc MS binc MS [movestogo K]]``: search,
  print ``info`` lines as the search goes and ``bestmove M`` at its end (``bestmove (none)`` when there is no
  move); ``go`` alone searches with the agent's own budget (the spec's); under ``movetime`` an agent that can
  (``spend``) searches for the whole of the time, its last iteration cut at the deadline (a move from the book
  or the endgame database, a forced move and a search that proves the result end sooner);
* ``stop``: end the search now (its ``bestmove`` follows); ``quit``: end the engine.

A move is the label of the pit sown, as the board shows it (:func:`awale.core.render.pit_label`): ``A``-``F``
South's pits and ``a``-``f`` North's, each from its owner's left; a line of moves is written with spaces or
without (``C d A`` or ``CdA``).  South is the first player (``w`` in ``wtime``, ``winc``), North the second
(``b``).  A score is ``cp N``, the mover's lead in hundredths of a seed (αβ: the value of its search; with the
evaluation, its estimate in the worth of a captured seed), ``mean X``, the mean result of the best move over an
MCTS's simulations (a win 1, a draw ½), or ``win N``, ``loss N``, ``draw`` for a result the search proved (``N``
seeds, the final margin, when αβ found it).

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
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO, Tuple, Union

from .. import __version__
from ..agents import Agent, Param, parse
from ..agents.base import MAX_SECONDS, WrapperAgent
from ..agents.minimax import MANAGE_PARAMS
from ..agents.timing import CLOCK_MIN_MOVES, CLOCK_RESERVE, TimeManager
from ..core.control import Progress, SearchControl
from ..core.game import PLAYERS, Game, IllegalActionError
from ..core.render import label_pit, pit_label
from ..core.rules import Rules, rules_from_text, rules_to_text
from ..search.alphabeta import ENTRY_BYTES

__all__ = [
    "ENGINE_NAME", "AUTHOR", "ProtocolError", "Uci", "IsReady", "NewGame", "SetOption", "Position", "Go", "Stop",
    "Quit", "Command", "parse_command", "read_line", "line_text", "info_line", "EngineServer", "MAX_LINE",
]

#: The engine's name in ``id name``.
ENGINE_NAME = f"awale {__version__}"

#: The engine's author in ``id author``.
AUTHOR = "The awale project"

#: The longest line read, in characters; a longer one is refused.
MAX_LINE = 65_536

#: The largest number a ``go`` parameter may take (milliseconds: some 30 years).
_MAX_NUMBER = 10**12


class ProtocolError(ValueError):
    """A line that cannot be read, or a setting or position that cannot be used: answered by ``info string``."""


@dataclasses.dataclass(frozen=True)
class Uci:
    """``uci``: name the engine and list its settings."""


@dataclasses.dataclass(frozen=True)
class IsReady:
    """``isready``: answer ``readyok`` once ready."""


@dataclasses.dataclass(frozen=True)
class NewGame:
    """``ucinewgame``: the next search is of a new game."""


@dataclasses.dataclass(frozen=True)
class Stop:
    """``stop``: end the search now."""


@dataclasses.dataclass(frozen=True)
class Quit:
    """``quit``: end the engine."""


@dataclasses.dataclass(frozen=True)
class SetOption:
    """``setoption name NAME [value VALUE]``."""

    name: str
    value: str = ""


@dataclasses.dataclass(frozen=True)
class Position:
    """``position``: the initial position (``board`` None) or a board, then moves (pit labels, without spaces).

    Attributes:
        board: None for ``startpos``; else the pits, both captures and the player to move (0 South, 1 North).
        moves: the labels of the moves played from there, one letter each.
    """

    board: Optional[Tuple[Tuple[int, ...], Tuple[int, int], int]] = None
    moves: str = ""


@dataclasses.dataclass(frozen=True)
class Go:
    """``go`` and its limits (None: not given); times in milliseconds."""

    movetime: Optional[int] = None
    nodes: Optional[int] = None
    depth: Optional[int] = None
    infinite: bool = False
    wtime: Optional[int] = None
    btime: Optional[int] = None
    winc: Optional[int] = None
    binc: Optional[int] = None
    movestogo: Optional[int] = None


Command = Union[Uci, IsReady, NewGame, SetOption, Position, Go, Stop, Quit]

_SIMPLE = {"uci": Uci, "isready": IsReady, "ucinewgame": NewGame, "stop": Stop, "quit": Quit}
_GO_LEAST = {"movetime": 1, "nodes": 1, "depth": 1, "wtime": None, "btime": None, "winc": 0, "binc": 0,
             "movestogo": 1}


def parse_command(line: str) -> Command:
    """The command a line holds (see the module docstring).

    Raises:
        ProtocolError: an unknown command, or one whose words do not follow its form; the message says which.
    """
    words = line.split()
    if not words:
        raise ProtocolError("empty line")
    head, rest = words[0], words[1:]
    if head in _SIMPLE:
        if rest:
            raise ProtocolError(f"{head} takes nothing after it, got {' '.join(rest)!r}")
        return _SIMPLE[head]()
    if head == "setoption":
        return _setoption(rest)
    if head == "position":
        return _position(rest)
    if head == "go":
        return _go(rest)
    raise ProtocolError(f"unknown command {_short(head)} (commands: uci, isready, ucinewgame, setoption, position, go, "
                        "stop, quit)")


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _setoption(words: List[str]) -> SetOption:
    if not words or words[0] != "name" or len(words) < 2 or words[1] == "value":
        raise ProtocolError("setoption needs a name: setoption name NAME [value VALUE]")
    if "value" in words:
        at = words.index("value")
        return SetOption(" ".join(words[1:at]), " ".join(words[at + 1:]))
    return SetOption(" ".join(words[1:]))


def _position(words: List[str]) -> Position:
    if not words:
        raise ProtocolError("position needs startpos or board: position startpos [moves M ...]")
    moves: List[str] = []
    if "moves" in words:
        at = words.index("moves")
        words, moves = words[:at], words[at + 1:]
    text = "".join(moves)
    if not all(c.isascii() and c.isalpha() for c in text):
        raise ProtocolError(f"moves are pit letters (A-F South's, a-f North's), got {_short(' '.join(moves))}")
    if words == ["startpos"]:
        return Position(None, text)
    if words[0] != "board":
        raise ProtocolError(f"position: expected startpos or board, got {_short(' '.join(words))}")
    *numbers, side = words[1:] or [""]
    if side.lower() not in ("south", "north") or len(numbers) < 2:
        raise ProtocolError("position board needs the pits, both captures and the side to move: "
                            "position board 4 4 4 4 4 4 4 4 4 4 4 4 0 0 south")
    try:
        counts = [int(word) for word in numbers]
    except ValueError:
        given = _short(" ".join(numbers))
        raise ProtocolError(f"position board: the pits and captures are whole numbers, got {given}") from None
    return Position((tuple(counts[:-2]), (counts[-2], counts[-1]), 0 if side.lower() == "south" else 1), text)


def _go(words: List[str]) -> Go:
    values: Dict[str, Any] = {}
    index = 0
    while index < len(words):
        word = words[index]
        if word == "infinite":
            values["infinite"] = True
            index += 1
            continue
        if word not in _GO_LEAST:
            raise ProtocolError(f"go: unknown limit {_short(word)} (limits: movetime, nodes, depth, infinite, wtime, "
                                "btime, winc, binc, movestogo)")
        if index + 1 >= len(words):
            raise ProtocolError(f"go: {word} needs a number")
        try:
            number = int(words[index + 1])
        except ValueError:
            raise ProtocolError(f"go: {word} needs a whole number, got {_short(words[index + 1])}") from None
        least = _GO_LEAST[word]
        if (least is not None and number < least) or abs(number) > _MAX_NUMBER:
            raise ProtocolError(f"go: {word} must be from {least} to {_MAX_NUMBER}, got {number}")
        values[word] = number
        index += 2
    return Go(**values)


def read_line(text: str, game: Game) -> Tuple[List[int], Game]:
    """The actions of a line of pit labels played from ``game`` (spaces allowed), and the game they reach.

    Raises:
        ValueError: a letter that is not a pit, the opponent's pit, an illegal move or a move after the end of the
            game; the message names the move by its number in the line.
    """
    n = game.rules.pits_per_side
    actions = []
    letters = [c for c in text if not c.isspace()]
    for number, letter in enumerate(letters, start=1):
        where = f"move {number}, {letter!r}"
        if game.game_finished:
            raise ValueError(f"{where}: the game is already over")
        try:
            owner, action = divmod(label_pit(letter, n), n)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
        mover = game.current_player
        if owner != mover:
            own = f"{pit_label(mover * n, n)}-{pit_label(mover * n + n - 1, n)}"
            raise ValueError(f"{where}: {letter} is {PLAYERS[owner]}'s pit, but {PLAYERS[mover]} is to move "
                             f"({PLAYERS[mover]}'s pits are {own})")
        try:
            game = game.step(action)[0]
        except IllegalActionError as error:
            reason = str(error).split("is illegal: ", 1)[-1].split("; legal actions", 1)[0]
            legal = " ".join(pit_label(mover * n + a, n) for a in game.legal_actions)
            raise ValueError(f"{where}: {reason}; legal moves: {legal}") from None
        actions.append(action)
    return actions, game


def line_text(game: Game, actions: Sequence[int]) -> str:
    """The labels of a line of actions played from ``game``, separated by spaces."""
    n = game.rules.pits_per_side
    labels = []
    for action in actions:
        if game.game_finished:
            break
        labels.append(pit_label(game.current_player * n + action, n))
        game = game.step(action)[0]
    return " ".join(labels)


def info_line(progress: Progress, game: Game, seconds: float) -> str:
    """The ``info`` line of a search's progress from ``game``, ``seconds`` after its ``go``."""
    if progress.proven:
        margin = progress.margin is not None and progress.proven != "draw"
        score = progress.proven + (f" {progress.margin}" if margin else "")
    elif progress.seeds is not None:
        score = f"cp {round(100 * progress.seeds)}"
    elif progress.mean is not None:
        score = f"mean {progress.mean:.3f}"
    else:
        score = ""
    millis = max(int(seconds * 1000), 0)
    nps = int(progress.nodes / max(seconds, 1e-3))
    words = [f"info depth {progress.depth}", f"score {score}" if score else "",
             f"nodes {progress.nodes} nps {nps} time {millis}"]
    pv = line_text(game, progress.line)
    if pv:
        words.append(f"pv {pv}")
    return " ".join(word for word in words if word)


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
    _Option("Threads", "spin", "threads", "threads of an MCTS (0: every core) or αβ agent"),
    _Option("Hash", "spin", "table", "MB of the αβ transposition table (rounded down to a power of two entries)"),
    _Option("Endgame", "string", "endgame", "endgame database: a file or a number of seeds; empty for none"),
    _Option("TimeManager", "check", "manage", "under a clock, size each move by the time manager "
                                              "(awale.agents.timing) rather than an equal share"),
    _Option("Rules", "string", doc="the rules (abapa, or key=value fields, as the command line reads them)"),
)

#: The parameters the standard settings stand for, and the budgets that ``go`` sets.
_COVERED = {"seed", "threads", "table", "endgame", "manage"}

_HASH_MAX = ENTRY_BYTES * 2**30 // 2**20  # 2**30 entries


def _table_bits(megabytes: int) -> int:
    """The table size of ``Hash``: the most entries (:data:`~awale.search.alphabeta.ENTRY_BYTES` each) in
    ``megabytes`` MB, a power of two, 2**10 to 2**30."""
    return max(10, min(30, int(math.floor(math.log2(megabytes * 2**20 / ENTRY_BYTES)))))


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
            raise ValueError(f"{param.name} is a number, got {_short(word)}") from None
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
    """A search under way: its thread, its control, and whether ``go infinite`` holds its answer until ``stop``."""

    control: SearchControl
    started: float
    infinite: bool
    released: threading.Event
    thread: Optional[threading.Thread] = None


class EngineServer:
    """One engine: an agent, a position, settings, and at most one search at a time in a thread of its own.

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
        self._manage: Optional[bool] = None
        self.rules = Rules()
        self.game = Game(self.rules)
        self._agents: Dict[Tuple[Any, ...], Agent] = {}
        self._search: Optional[_Search] = None
        self._warmed: Optional[str] = None
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

        ``stop``, ``quit`` and ``isready`` are answered at once, even during a search; the other commands that come
        during a search wait for its ``bestmove``, in their order.
        """
        if not line.strip():
            return True
        try:
            command = parse_command(line)
        except ProtocolError as error:
            self.say(f"info string {error}; line ignored")
            return True
        if isinstance(command, Quit):
            with self._state:
                self._queue.clear()
            self.stop(wait=True)
            return False
        if isinstance(command, Stop):
            self.stop()
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

        At the end of the input the engine finishes what it was asked (the search under way, unless it is infinite,
        and the commands waiting for it), then ends.  A line longer than :data:`MAX_LINE` is refused, not read
        into memory whole.
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
            if search.infinite:
                self.stop()  # nothing can stop it any more
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
            self._warm_up()
            self.say("readyok")
        elif isinstance(command, Uci):
            self._identify()
        elif isinstance(command, NewGame):
            self._agents.clear()
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
        """The agent as the settings make it (its seed and parameters), before ``go`` sets its budget."""
        agent = parse(self._spec, seed=self._seed)
        return agent.replace(**self._changes) if self._changes else agent

    def _params(self) -> Dict[str, Param]:
        return {param.name: param for param in type(parse(self._spec)).params}

    def _identify(self) -> None:
        agent = self.agent()
        params = self._params()
        self.say(f"id name {ENGINE_NAME} {agent.spec}")
        self.say(f"id author {AUTHOR}")
        for option in _STANDARD:
            self.say(self._option_line(option, agent, params))
        for param in params.values():
            if param.name not in _COVERED:
                self.say(self._param_line(param, getattr(agent, param.name)))
        self.say("uciok")

    def _option_line(self, option: _Option, agent: Agent, params: Dict[str, Param]) -> str:
        head = f"option name {option.name} type {option.kind}"
        if option.name == "Spec":
            return f"{head} default {self._spec}"
        if option.name == "Rules":
            return f"{head} default {rules_to_text(self.rules)}"
        if option.name == "Seed":
            return f"{head} default {getattr(agent, 'seed', 0)} min 0 max {2**63 - 1}"
        if option.name == "Threads":
            return f"{head} default {getattr(agent, 'threads', 1)} min 0 max 1024"
        if option.name == "Hash":
            megabytes = max(1, 2 ** getattr(agent, "table", 20) * ENTRY_BYTES // 2**20)
            return f"{head} default {megabytes} min 1 max {_HASH_MAX}"
        if option.name == "Endgame":
            return f"{head} default {_uci_value(getattr(agent, 'endgame', None))}"
        return f"{head} default {_uci_value(self._time_manager(agent))}"  # TimeManager

    @staticmethod
    def _param_line(param: Param, value: Any) -> str:
        head = f"option name {param.name}"
        if param.kind is bool and type(param).check is Param.check:  # a check box only if nothing else is taken
            return f"{head} type check default {_uci_value(value)}"
        if param.choices:
            return f"{head} type combo default {value} " + " ".join(f"var {choice}" for choice in param.choices)
        if param.kind is int and not param.optional and param.minimum is not None and param.maximum is not None:
            return f"{head} type spin default {value} min {int(param.minimum)} max {int(param.maximum)}"
        return f"{head} type string default {_uci_value(value)}"

    def _time_manager(self, agent: Agent) -> bool:
        if self._manage is not None:
            return self._manage
        return bool(getattr(agent, "manage", True))

    def _set(self, name: str, value: str) -> None:
        """``setoption``: change a setting, or say in words why not (and change nothing)."""
        key = name.strip().lower()
        option = next((o for o in _STANDARD if o.name.lower() == key), None)
        params = self._params()
        if option is not None and option.name == "Spec":
            spec = self._checked_spec(value)  # a bad spec raises: said, and nothing changes
            self._spec, self._changes, self._agents = spec, {}, {}
            return
        if option is not None and option.name == "Rules":
            rules = rules_from_text(value)
            if rules.pits_per_side > 26:
                raise ValueError("Rules: the pits are named by letters, so at most 26 a side")
            self.rules, self.game, self._agents = rules, Game(rules), {}
            return
        if option is not None and option.name == "TimeManager":
            if value.strip().lower() not in ("true", "false"):
                raise ValueError(f"TimeManager is true or false, got {_short(value)}")
            self._manage = value.strip().lower() == "true"
            self._agents = {}
            return
        if option is not None and option.name == "Seed":
            seed = _from_text(Param("seed", int), value)
            parse(self._spec, seed=seed)  # checked as the agent checks it
            self._seed, self._agents = seed, {}
            return
        param = option.param if option is not None else next((p for p in params if p.lower() == key), "")
        if not param or param == "seed":
            known = ", ".join([o.name for o in _STANDARD] + [p for p in params if p not in _COVERED])
            raise ValueError(f"no setting {_short(name.strip())} (settings: {known}); nothing changed")
        if param not in params:
            raise ValueError(f"{option.name}: {parse(self._spec).name} has no {param}, so {option.name} does not "
                             "apply to it; nothing changed")
        given = _from_text(Param(param, int), value) if param == "table" else _from_text(params[param], value)
        if param == "table":
            if not isinstance(given, int) or given < 1:
                raise ValueError(f"Hash is a number of megabytes, at least 1, got {_short(value)}")
            given = _table_bits(given)
        changes = {**self._changes, param: given}
        try:
            parse(self._spec, seed=self._seed).replace(**changes)
        except ValueError as error:
            raise ValueError(f"{name.strip()}: {error}; nothing changed") from None
        self._changes, self._agents = changes, {}

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
        search.control.stop()
        search.released.set()
        if wait and search.thread is not None:
            search.thread.join()

    def _budget(
        self, go: Go, agent: Agent, game: Game
    ) -> Tuple[Dict[str, Any], Optional[Tuple[float, float]], List[str]]:
        """The parameters ``go`` sets on ``agent``, the clock to tell it (seconds left, increment) and notes."""
        names = {param.name for param in agent.params}
        given = [word for word in ("infinite", "nodes", "depth", "movetime") if getattr(go, word) not in (None, False)]
        mover_time = go.wtime if game.current_player == 0 else go.btime
        if mover_time is not None:
            given.append("clock")
        notes = [f"go: {', '.join(given[1:])} ignored: {given[0]} decides"] if len(given) > 1 else []
        if (go.wtime, go.btime)[1 - game.current_player] is not None and mover_time is None:
            notes.append(f"go: no time for {PLAYERS[game.current_player]}, who is to move; the agent's own budget")
        budgets = ("time", "nodes", "depth", "iterations")

        def only(**values: Any) -> Dict[str, Any]:  # one budget, the others cleared
            changes = {name: None for name in budgets if name in names}
            changes.update(values)
            if "manage" in names:
                changes.setdefault("manage", False)
            if not changes.get("manage"):  # what only the time manager reads goes with it
                changes.update((p.name, p.default) for p in MANAGE_PARAMS if p.name in names)
            if "spend" in names and changes.get("time") is None:
                changes["spend"] = False  # spend spends a time: not with nodes or a depth
            return changes

        kind = given[0] if given else ""
        if kind in ("infinite", "movetime") and "time" in names:
            seconds = MAX_SECONDS if kind == "infinite" else go.movetime / 1000
            spend = {"spend": True} if kind == "movetime" and "spend" in names else {}  # a move time is spent whole
            return only(time=max(seconds, 0.001), **spend), None, notes
        if kind == "nodes" and ("nodes" in names or "iterations" in names):
            return only(**{"nodes" if "nodes" in names else "iterations": go.nodes}), None, notes
        if kind == "depth" and "depth" in names:
            return only(depth=go.depth), None, notes
        if kind == "clock" and "time" in names:
            remaining = max(mover_time, 0) / 1000
            increment = max((go.winc if game.current_player == 0 else go.binc) or 0, 0) / 1000
            managed = self._time_manager(agent)
            if managed and "manage" in names:
                return only(time=1.0, manage=True), (remaining, increment), notes  # the clock sizes each move
            if managed:
                manager = TimeManager(1.0)
                manager.observe_clock(remaining, increment)
                return only(time=manager.allowance(game).target), None, notes
            usable = max(remaining - CLOCK_RESERVE, 0.0)
            share = usable / (go.movestogo or CLOCK_MIN_MOVES) + increment
            return only(time=max(min(share, usable / 2), 0.001)), None, notes
        if kind:
            notes.append(f"go: {agent.name} has no {'time' if kind in ('movetime', 'clock', 'infinite') else kind} "
                         "budget; it searches with its own")
        return {}, None, notes

    def _agent_for(self, changes: Dict[str, Any]) -> Agent:
        """The agent of this game with the budget ``changes``: the same one at every move with the same budget."""
        key = tuple(sorted(changes.items()))
        if key not in self._agents:
            agent = self.agent()
            self._agents[key] = agent.replace(**changes) if changes else agent
        return self._agents[key]

    def _go(self, go: Go) -> None:
        game = self.game
        if game.game_finished:
            self.say("info string the game is over: there is no move to search")
            self.say("bestmove (none)")
            return
        agent = self.agent()
        changes, clock, notes = self._budget(go, agent, game)
        for note in notes:
            self.say(f"info string {note}")
        agent = self._agent_for(changes)
        search = _Search(SearchControl(), time.perf_counter(), go.infinite, threading.Event())
        search.thread = threading.Thread(target=self._run, args=(search, agent, game, clock),
                                         name="awale-engine-search", daemon=True)
        self._search = search
        search.thread.start()

    def _run(self, search: _Search, agent: Agent, game: Game, clock: Optional[Tuple[float, float]]) -> None:
        """The search's thread: the agent's move, the ``info`` lines on the way, then ``bestmove``."""
        pending: List[Progress] = []
        shown = [0.0]

        def listen(progress: Progress) -> None:  # every αβ iteration; MCTS at most every 0.2 s
            now = time.perf_counter()
            if progress.mean is None or now - shown[0] >= 0.2:
                self.say(info_line(progress, game, now - search.started))
                shown[0] = now
                pending.clear()
            else:
                pending[:] = [progress]

        search.control.listener = listen
        n = game.rules.pits_per_side
        try:
            with search.control:
                if clock is not None:
                    agent.observe_clock(*clock)
                action = agent.act(game)
            move = pit_label(game.current_player * n + int(action), n)
        except Exception as error:  # noqa: BLE001 - said on the protocol, never a crash
            self.say(f"info string the search failed: {error}")
            move = "(none)"
        if pending:
            self.say(info_line(pending[-1], game, time.perf_counter() - search.started))
        if search.infinite:
            search.released.wait()  # under go infinite, the answer waits for stop
        with self._state:
            self.say(f"bestmove {move}")
            self._search = None
            while self._queue and self._search is None:  # what came during the search, in order
                self._act(self._queue.pop(0))

    def _warm_up(self) -> None:
        """Load the agent and compile its kernels once, by a small search (``isready``)."""
        if self._warmed == self.agent().spec:
            return
        agent = self.agent()
        names = {param.name for param in agent.params}
        small = {"nodes": 200} if "nodes" in names else {"iterations": 64} if "iterations" in names else {}
        game = Game(self.rules)
        for _ in range(8):  # past the opening book, as awale.play.match.warm_up
            following = game.step(game.legal_actions[0])[0]
            if following.game_finished:
                break
            game = following
        try:
            budget = {name: None for name in ("time", "depth") if name in names}
            for switch in ("manage", "spend"):  # they need a time; the warm-up searches nodes
                if switch in names:
                    budget[switch] = False
            budget.update((p.name, p.default) for p in MANAGE_PARAMS if p.name in names)  # they need manage
            agent.replace(**budget, **small).act(game) if small else agent.act(game)
        except ValueError as error:
            self.say(f"info string the agent could not make a move: {error}")
        self._warmed = self.agent().spec
