"""Another program as an agent: ``engine(name='NAME')`` plays the moves of a process spoken to by the engine protocol.

The protocol is the one ``python -m awale engine`` speaks (:mod:`awale.play.protocol`, UCI read for Awale): the
agent sends ``position startpos moves ...`` and a ``go`` at each of its turns, and plays the pit of the
``bestmove`` that comes back.  What ``go`` says comes from the spec: ``go movetime MS`` with ``time``, ``go nodes
N`` with ``nodes``, ``go depth D`` with ``depth``, ``go`` alone (the program's own budget) with none of them, and
``go wtime ... winc ...`` (South's clock) or ``go btime ... binc ...`` (North's) under a clock
(``clocked(agent="engine(name='NAME')", tc='60+0.5')``, :mod:`awale.agents.clocked`).

**Pondering.**  An engine registered with ``ponder=True`` (``--ponder`` on the command line) that announces the
``Ponder`` option thinks on its opponent's time, as a match manager lets it: after its ``bestmove X ponder Y`` it is
sent the position after ``X`` and ``Y`` and ``go ponder`` with the limits of its next move (its clock as it reads
after ``X``).  If the opponent plays ``Y``, its next move is ``ponderhit`` and the ``bestmove`` that follows; if
not, ``stop`` (whose ``bestmove`` is dropped) and a search of the position played.  A game that ends, or a process
given back, stops the pondering first.

**Which program.**  A spec names the program only by ``NAME``.  The command that starts it is given by the user of
this process, on its command line (``--engine NAME=COMMAND`` of ``match``, ``tournament`` and ``sprt``), which
calls :func:`register_engine`; nothing read from a store, a game file or a spec ever starts a process.  A spec
whose name has no command here is refused at its first move with an error saying so: stored games of an engine
are checked through the rules (:mod:`awale.experiments.verify`) but never replayed, as :attr:`Engine.replayable`
is False.

**Processes.**  A process is started at the first move that needs it and kept for the next games of the same
name (``ucinewgame`` between games, ``setoption name Seed`` when the program offers it, so that a program of this
library seeds its agent as the match seeds the in-process one).  The command is split like a shell's words
(:func:`shlex.split`) but no shell runs it.  Every process is ended by :func:`close_engines` (which the commands
call when they end) or at the exit of this process; one that dies, or takes longer than ``timeout`` seconds
beyond its budget, is ended at once and the move fails with an error naming the engine.

>>> agent = parse("engine(name='sparring', nodes=20000)")
>>> agent.spec, agent.replayable
("engine(name='sparring', nodes=20000)", False)
"""

from __future__ import annotations

import atexit
import collections
import queue
import re
import shlex
import subprocess
import threading
import time
import weakref
from typing import Deque, Dict, List, Optional, Sequence, Tuple

from ..core.game import PLAYERS, Game
from ..core.render import label_pit, pit_label
from ..core.rules import Rules, rules_to_text
from ..search.limits import Limits
from .base import MAX_SECONDS, Agent, Param, given_limits, parse, register, seed_param

__all__ = ["Engine", "EngineError", "register_engine", "registered_engines", "close_engines", "NAME_PATTERN"]

#: What an engine's name may be: letters, digits, ``_``, ``-`` and ``.``, at most 40.
NAME_PATTERN = re.compile(r"[A-Za-z0-9_.-]{1,40}")

_COMMANDS: Dict[str, Tuple[str, ...]] = {}
_PONDERS: Dict[str, bool] = {}  # by name: whether its agents ask the program to ponder
_IDLE: Dict[str, List["_Process"]] = collections.defaultdict(list)
_ALL: "weakref.WeakSet[_Process]" = weakref.WeakSet()
_LOCK = threading.Lock()


class EngineError(ValueError):
    """An engine that cannot be started, does not answer in time, dies, or answers what the protocol does not say."""


def register_engine(name: str, command: str, ponder: bool = False) -> None:
    """Let ``engine(name=NAME)`` start ``command`` in this process (the command line's ``--engine NAME=COMMAND``);
    with ``ponder``, its agents let it think on the opponent's time (``--ponder``, see the module docstring).

    Raises:
        ValueError: a bad name, an empty command, or a name given two different commands (or pondering settings).
    """
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ValueError(f"an engine's name is 1 to 40 letters, digits, '_', '-' or '.', got {name!r}")
    try:
        argv = tuple(shlex.split(command))
    except ValueError as error:
        raise ValueError(f"engine {name!r}: cannot read its command {command!r}: {error}") from None
    if not argv:
        raise ValueError(f"engine {name!r}: its command is empty")
    if _COMMANDS.get(name, argv) != argv:
        raise ValueError(f"engine {name!r} is given two commands: {shlex.join(_COMMANDS[name])!r} and {command!r}")
    if _PONDERS.get(name, bool(ponder)) != bool(ponder):
        raise ValueError(f"engine {name!r} is registered both with and without pondering")
    _COMMANDS[name] = argv
    _PONDERS[name] = bool(ponder)


def registered_engines() -> Dict[str, str]:
    """The engines this process may start, by name: their commands."""
    return {name: shlex.join(argv) for name, argv in _COMMANDS.items()}


def close_engines() -> None:
    """End every engine process started here (idle or not) and forget the commands registered."""
    with _LOCK:
        processes = list(_ALL)
        _IDLE.clear()
        _COMMANDS.clear()
        _PONDERS.clear()
    for process in processes:
        process.close()


atexit.register(close_engines)


class _Process:
    """One running engine: its pipes, a thread reading its answers, and the last lines of its standard error."""

    def __init__(self, name: str, argv: Sequence[str], timeout: float) -> None:
        self.name = name
        self.options: List[str] = []
        self.pondering = False  # a go ponder is under way: it ends only by ponderhit or stop
        self.ident = ""
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._errors: Deque[str] = collections.deque(maxlen=5)
        try:
            self._popen = subprocess.Popen(
                list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                encoding="utf-8", errors="replace", bufsize=1,
            )
        except OSError as error:
            why = error.strerror or error
            raise EngineError(f"engine {name!r}: cannot start {shlex.join(argv)!r}: {why}") from None
        threading.Thread(target=self._read, daemon=True, name=f"engine-{name}-out").start()
        self._stderr = threading.Thread(target=self._read_errors, daemon=True, name=f"engine-{name}-err")
        self._stderr.start()
        _ALL.add(self)
        try:
            self.send("uci")
            for line in self.until("uciok", timeout):
                if line.startswith("option name "):
                    self.options.append(line[len("option name "):].split(" type ", 1)[0].strip().lower())
                elif line.startswith("id name "):
                    self.ident = line[len("id name "):]
        except EngineError:
            self.close()
            raise

    def _read(self) -> None:
        try:
            for line in self._popen.stdout:  # type: ignore[union-attr]
                self._lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):  # closed by close()
            pass
        self._lines.put(None)  # the end of its output: it has ended

    def _read_errors(self) -> None:
        try:
            for line in self._popen.stderr:  # type: ignore[union-attr]
                if line.strip():
                    self._errors.append(line.strip())
        except (OSError, ValueError):  # closed by close()
            pass

    def send(self, line: str) -> None:
        """Write one command line."""
        try:
            assert self._popen.stdin is not None
            self._popen.stdin.write(line + "\n")
            self._popen.stdin.flush()
        except (OSError, ValueError):
            raise self._died(f"could not be sent {line.split()[0]!r}") from None

    def until(self, word: str, timeout: float) -> List[str]:
        """The lines read up to the first that starts with ``word`` (included), within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        lines = []
        while True:
            try:
                line = self._lines.get(timeout=max(deadline - time.monotonic(), 0.0))
            except queue.Empty:
                self.close()
                raise EngineError(
                    f"engine {self.name!r}: no {word!r} within {timeout:g} s; the engine was ended") from None
            if line is None:
                raise self._died(f"ended before its {word!r}")
            lines.append(line)
            if line.split()[:1] == [word]:
                return lines

    def _died(self, what: str) -> EngineError:
        """The error of an engine that has gone (it is ended for good)."""
        try:
            status = self._popen.wait(timeout=1.0)  # it is ending: its last words come first
            self._stderr.join(timeout=1.0)
        except subprocess.TimeoutExpired:
            status = None
        self.close()
        if status is None:
            status = self._popen.poll()
        said = f"; its last words: {self._errors[-1]}" if self._errors else ""
        return EngineError(f"engine {self.name!r} {what} (exit status {status}){said}")

    @property
    def alive(self) -> bool:
        return self._popen.poll() is None

    def stop_pondering(self, timeout: float) -> None:
        """End a pondering search that is no longer wanted: ``stop``, and its ``bestmove`` read and dropped."""
        if self.pondering:
            self.pondering = False
            self.send("stop")
            self.until("bestmove", timeout)

    def close(self) -> None:
        """End the process: ``quit``, then a terminate, then a kill, a second apart."""
        popen = self._popen
        if popen.poll() is None:
            try:
                assert popen.stdin is not None
                popen.stdin.write("quit\n")
                popen.stdin.flush()
            except (OSError, ValueError):
                pass
            for end in (None, popen.terminate, popen.kill):
                if end is not None:
                    end()
                try:
                    popen.wait(timeout=1.0)
                    break
                except subprocess.TimeoutExpired:
                    continue
        for stream in (popen.stdin, popen.stdout, popen.stderr):
            try:
                if stream is not None:
                    stream.close()
            except (OSError, ValueError):
                pass
        _ALL.discard(self)


def _acquire(name: str, timeout: float) -> _Process:
    """An idle process of the engine ``name``, or a new one."""
    with _LOCK:
        if name not in _COMMANDS:
            raise EngineError(
                f"engine {name!r}: no command for it in this process. An engine's program is named only on the "
                f"command line (--engine {name}=COMMAND of match, tournament and sprt); a stored game or a spec "
                "never starts one, so its games are checked through the rules but never replayed")
        idle = _IDLE[name]
        while idle:
            process = idle.pop()
            if process.alive:
                return process
        argv = _COMMANDS[name]
    return _Process(name, argv, timeout)


def _release(process: _Process) -> None:
    """Give a process back for the next game of its engine (an ended one is dropped)."""
    try:
        process.stop_pondering(_STOP_WAIT)
    except EngineError:  # it is ended: dropped below
        pass
    with _LOCK:
        if process.alive and process.name in _COMMANDS:
            _IDLE[process.name].append(process)
            return
    process.close()


#: Seconds that a program is given to answer ``stop`` with its ``bestmove`` when a pondering it was asked for ends.
_STOP_WAIT = 10.0


@register
class Engine(Agent):
    """The moves of another program, spoken to by the engine protocol (see the module docstring).

    Spec: ``engine(name='NAME')``, with at most one of ``time``, ``nodes`` and ``depth``.

    Args:
        name: the engine, whose command ``--engine NAME=COMMAND`` gave on this process's command line.
        time: seconds a move (``go movetime``).
        nodes: positions (αβ) or iterations (MCTS) a move (``go nodes``).
        depth: plies a move (``go depth``).
        seed: given to the program as its ``Seed`` setting before each game, when it has one.
        timeout: seconds to wait for an answer beyond the move's time (the clock's time under a clock) before
            the engine is ended and the move fails (also the wait for the program to start).
    """

    name = "engine"
    params = (
        Param("name", str, None, doc="the engine: its command is given by --engine NAME=COMMAND"),
        Param("time", float, None, minimum=0.001, maximum=MAX_SECONDS, optional=True,
              doc="seconds a move (go movetime)"),
        Param("nodes", int, None, minimum=1, optional=True, doc="positions or iterations a move (go nodes)"),
        Param("depth", int, None, minimum=1, optional=True, doc="plies a move (go depth)"),
        seed_param(),
        Param("timeout", float, 120.0, minimum=0.1, maximum=MAX_SECONDS,
              doc="seconds to wait beyond a move's time before the engine is given up"),
    )

    def validate(self) -> None:
        # The parameter ``name`` would hide the agent's own name, ``engine``, which specs and messages use: the
        # engine's name is read from the values (:attr:`engine`).
        self.__dict__.pop("name", None)
        if not NAME_PATTERN.fullmatch(self.engine):
            raise ValueError(f"engine: name is 1 to 40 letters, digits, '_', '-' or '.', got {self.engine!r}")
        given = [word for word in ("time", "nodes", "depth") if self._values[word] is not None]
        if len(given) > 1:
            raise ValueError(f"engine: give at most one of time, nodes and depth, got {' and '.join(given)}")

    @property
    def engine(self) -> str:
        """The engine's name (the spec's ``name``)."""
        return self._values["name"]

    @property
    def replayable(self) -> bool:
        """False: another program's moves are not this library's to replay."""
        return False

    def reset(self) -> None:
        """A new game: the process kept (if any) is given back, and the line followed forgotten."""
        process: Optional[_Process] = getattr(self, "_process", None)
        finalizer = getattr(self, "_finalizer", None)
        if finalizer is not None:
            finalizer.detach()
        if process is not None:
            _release(process)
        self._process: Optional[_Process] = None
        self._finalizer: Optional[weakref.finalize] = None
        self._game: Optional[Game] = None
        self._moves: List[int] = []
        self._clock: Optional[Tuple[float, float]] = None
        self._pondered: Optional[Tuple[List[int], float]] = None  # the line pondered on, and its go's seconds

    def observe(self, game: Game) -> None:
        """Follow a position whose move is not this agent's (an opening's)."""
        self._follow(game)

    def observe_clock(self, remaining: float, increment: float) -> None:
        """Keep the clock, sent with the next ``go``."""
        self._clock = (float(remaining), float(increment))

    honours = frozenset({"time", "depth", "nodes", "clock"})

    def act(self, game: Game, limits: Optional[Limits] = None) -> int:
        """The engine's move in ``game``, searched within ``limits`` (sent as ``go``'s; None: the spec's).

        Raises:
            EngineError: no command for this engine here, a program that cannot start, does not answer in time,
                dies, or answers a move that is not legal here.
            ValueError: ``game`` does not continue the game followed so far from the initial position.
        """
        self._check_game(game)
        self._follow(game)
        limits = given_limits(self, limits)
        try:
            process = self._started(game.rules)
            started = time.perf_counter()
            pondered, self._pondered = self._pondered, None
            if pondered is not None and pondered[0] == self._moves:  # the opponent played the move pondered on
                process.pondering = False
                process.send("ponderhit")
                answer = process.until("bestmove", pondered[1] + self.timeout)[-1].split()
            else:
                if pondered is not None:
                    process.stop_pondering(self.timeout)
                process.send(self._position(self._moves))
                go, wait = self._go(game.current_player, limits)
                process.send(go)
                answer = process.until("bestmove", wait + self.timeout)[-1].split()
            action = self._action(answer[1] if len(answer) > 1 else "", game)
            if len(answer) > 3 and answer[2] == "ponder" and _PONDERS.get(self.engine) and "ponder" in process.options:
                self._ponder(process, game, action, answer[3], limits, time.perf_counter() - started)
            return action
        except EngineError:
            self._drop()  # a program that failed once is not trusted with another game
            raise

    def _position(self, moves: List[int]) -> str:
        """The ``position`` command of the line ``moves`` from the initial position."""
        game, labels = Game(self._game.rules if self._game is not None else None), []
        n = game.rules.pits_per_side
        for action in moves:
            labels.append(pit_label(game.current_player * n + action, n))
            game = game.step(action)[0]
        return "position startpos moves " + " ".join(labels) if labels else "position startpos"

    def _ponder(self, process: _Process, game: Game, action: int, reply: str, limits: Optional[Limits],
                spent: float) -> None:
        """Start the pondering after ``action``, on the opponent's ``reply`` that the engine expects."""
        after = game.step(action)[0]
        if after.game_finished:
            return
        n = game.rules.pits_per_side
        try:
            owner, answer = divmod(label_pit(reply, n), n)
        except ValueError:
            owner, answer = -1, -1
        if owner != after.current_player or answer not in after.legal_actions:
            raise EngineError(f"engine {self.engine!r} answered ponder {reply!r}, not a legal reply of "
                              f"{PLAYERS[after.current_player]} to its move")
        line = self._moves + [action, answer]
        go, wait = self._go(game.current_player, limits, spent)
        process.send(self._position(line))
        process.send("go ponder" + go[len("go"):])
        process.pondering = True
        self._pondered = (line, wait)

    def _drop(self) -> None:
        """End the process of this game, if any."""
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if self._process is not None:
            self._process.close()
            self._process = None
        self._pondered = None

    def _go(self, player: int, limits: Optional[Limits] = None, spent: Optional[float] = None) -> Tuple[str, float]:
        """The ``go`` of this move, and the seconds it may take; with ``spent``, the seconds this move took, the
        ``go`` of the next (pondered on): a clock then reads what it will after this move and its increment."""

        def after(remaining: float, increment: float) -> float:
            return remaining if spent is None else remaining - spent + increment

        if limits is not None and not limits.unbounded:
            side = "wb"[player]
            words, wait = [], 0.0
            if limits.time is not None:
                words.append(f"movetime {max(int(round(limits.time * 1000)), 1)}")
                wait = limits.time
            if limits.remaining is not None:
                remaining = max(after(limits.remaining, limits.increment), 0.0)
                words.append(f"{side}time {int(remaining * 1000)} {side}inc {int(limits.increment * 1000)}")
                if limits.moves_to_go is not None:
                    words.append(f"movestogo {limits.moves_to_go}")
                wait = max(wait, remaining)
            words += [f"{kind} {getattr(limits, kind)}" for kind in ("depth", "nodes") if getattr(limits, kind)]
            return "go " + " ".join(words), wait
        if self._clock is not None:
            remaining = max(after(*self._clock), 0.0)
            side = "wb"[player]
            return f"go {side}time {int(remaining * 1000)} {side}inc {int(self._clock[1] * 1000)}", remaining
        if self.time is not None:
            return f"go movetime {max(int(round(self.time * 1000)), 1)}", self.time
        if self.nodes is not None:
            return f"go nodes {self.nodes}", 0.0
        if self.depth is not None:
            return f"go depth {self.depth}", 0.0
        return "go", 0.0

    def _action(self, word: str, game: Game) -> int:
        n = game.rules.pits_per_side
        mover = game.current_player
        try:
            owner, action = divmod(label_pit(word, n), n)
        except ValueError:
            raise EngineError(f"engine {self.engine!r} answered bestmove {word or '(nothing)'!r}, "
                              f"not a pit of {PLAYERS[mover]}") from None
        if owner != mover or action not in game.legal_actions:
            legal = " ".join(pit_label(mover * n + a, n) for a in game.legal_actions)
            raise EngineError(f"engine {self.engine!r} answered bestmove {word!r}, not a legal move of "
                              f"{PLAYERS[mover]} at ply {game.plies} (legal: {legal})")
        return action

    def _started(self, rules: Rules) -> _Process:
        """The process of this game, started (or taken from the idle ones) and told a new game at the first move."""
        if self._process is not None:
            if not self._process.alive:
                raise self._process._died("has ended during the game")
            return self._process
        process = _acquire(self.engine, self.timeout)
        self._process = process
        self._finalizer = weakref.finalize(self, _release, process)  # a dropped agent gives its process back
        if "rules" in process.options:
            process.send(f"setoption name Rules value {rules_to_text(rules)}")
        elif rules != Rules():
            raise EngineError(f"engine {self.engine!r} has no Rules setting: it plays only the Abapa rules")
        if "seed" in process.options:
            process.send(f"setoption name Seed value {self.seed}")
        process.send("ucinewgame")
        process.send("isready")
        process.until("readyok", self.timeout)
        return process

    def _follow(self, game: Game) -> None:
        """Bring the line followed to ``game``: up to two plies after the last position seen (or from the start).

        Raises:
            ValueError: ``game`` does not continue the game followed (nor start from the initial position).
        """
        self._check_game(game)
        if self._game is None or game.plies == 0:
            self._game, self._moves = Game(game.rules), []
        frontier: List[Tuple[Game, Tuple[int, ...]]] = [(self._game, ())]
        for _ in range(3):
            for position, path in frontier:
                if position == game and position.plies == game.plies:
                    self._game, self._moves = game, self._moves + list(path)
                    return
            frontier = [(position.step(action)[0], path + (action,)) for position, path in frontier
                        if not position.game_finished for action in position.legal_actions]
        raise ValueError(f"engine: this position (ply {game.plies}) does not continue the game followed; an engine "
                         "is shown a game move by move from the initial position")
