"""The engine as match managers drive it: two ``python -m awale engine`` processes play whole games against each
other through the protocol, pondering on the opponent's time, with combined limits (``go movetime N depth 127``,
a clock with a depth), ``stop`` at seeded random moments, ``isready`` during a search and ``ucinewgame`` between
games; no hang (every wait has a timeout), no lost or extra ``bestmove``, no illegal move."""

import collections
import os
import queue
import random
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT

from awale import Game
from awale.core.render import label_pit, pit_label

#: Seconds any answer may take before the engine counts as hung (the moves themselves take a few milliseconds).
PATIENCE = 30.0

SPECS = (
    "champion(nodes=3000, quiescence=0, reductions=True, weights='texel')",  # with its opening book
    "uct(iterations=400, seed=5)",
)


class Engine:
    """One engine process, its answers read by a thread into a queue; every wait has a timeout."""

    def __init__(self, spec):
        environment = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.spec = spec
        self.process = subprocess.Popen(
            [sys.executable, "-m", "awale", "engine", spec], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, bufsize=1, cwd=ROOT, env=environment,
        )
        self.lines = queue.Queue()
        self.said = []  # every line, for the messages
        self.owed_ready = 0  # isready sent, readyok not read yet
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line):
        if line == "isready":
            self.owed_ready += 1
        self.said.append(f"> {line}")
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, word, timeout=PATIENCE):
        """The lines up to the first that starts with ``word``, which is last; fails on a silence or the end."""
        deadline = time.monotonic() + timeout
        got = []
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.001))
            except queue.Empty:
                pytest.fail(f"{self.spec}: no {word!r} within {timeout} s; the last lines: {self.said[-12:]}")
            if line is None:
                pytest.fail(f"{self.spec}: the engine ended while {word!r} was awaited: {self.said[-12:]}")
            self.said.append(line)
            got.append(line)
            if line == "readyok":
                assert self.owed_ready > 0, (self.spec, "readyok unasked", self.said[-12:])
                self.owed_ready -= 1
            if line.split()[:1] == [word] and (word != "readyok" or self.owed_ready == 0):
                return got

    def bestmove(self, game, timeout=PATIENCE):
        """The one ``bestmove`` owed: its move (legal in ``game``), its ponder move (or None) and the lines."""
        lines = self.until("bestmove", timeout)
        assert not [line for line in lines[:-1] if line.startswith("bestmove")]
        words = lines[-1].split()
        n = game.rules.pits_per_side
        owner, action = divmod(label_pit(words[1], n), n)
        assert owner == game.current_player and action in game.legal_actions, (self.spec, lines[-1], game)
        ponder = None
        if len(words) == 4:
            assert words[2] == "ponder"
            after = game.step(action)[0]
            reply_owner, reply = divmod(label_pit(words[3], n), n)
            assert not after.game_finished and reply_owner == after.current_player and reply in after.legal_actions
            ponder = reply
        else:
            assert len(words) == 2, lines[-1]
        return action, ponder, lines

    def ready(self):
        """``isready`` answered, with no ``bestmove`` left over before it."""
        self.send("isready")
        lines = self.until("readyok")
        assert not [line for line in lines if line.startswith("bestmove")], (self.spec, lines)

    def close(self):
        try:
            self.send("quit")
            self.process.wait(timeout=PATIENCE)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
        finally:
            self.process.stdin.close() if not self.process.stdin.closed else None


def _position(moves):
    labels, game = [], Game()
    n = game.rules.pits_per_side
    for action in moves:
        labels.append(pit_label(game.current_player * n + action, n))
        game = game.step(action)[0]
    return "position startpos" + (f" moves {' '.join(labels)}" if labels else "")


def _go(rng, clocks, player):
    """A ``go`` as managers send them, its limits drawn at random."""
    kind = rng.choice(["movetime", "movetime_depth", "clock_depth", "clock", "nodes_movetime"])
    if kind == "movetime":
        return f"movetime {rng.randint(5, 30)}"
    if kind == "movetime_depth":
        return f"movetime {rng.randint(5, 30)} depth 127"
    if kind == "nodes_movetime":
        return f"nodes {rng.randint(200, 3000)} movetime {rng.randint(20, 40)}"
    white, black = (max(int(1000 * clock), 1) for clock in clocks)
    words = f"wtime {white} btime {black} winc 10 binc 10"
    return words + (f" depth {rng.randint(3, 12)}" if kind == "clock_depth" else "")


def _play(engines, rng, game_number, seen):
    """One whole game between the two engines, pondering on each other's time; returns its plies."""
    for engine in engines:
        engine.send("ucinewgame")
        engine.ready()
    game, moves = Game(), []
    clocks = [3.0, 3.0]  # seconds on each side's clock, as a manager keeps it
    pondering = [None, None]  # for each engine: the reply it ponders on, while it does
    first = game_number % 2  # engines[first] plays South
    while not game.game_finished and len(moves) < 400:
        mover = game.current_player
        engine = engines[(mover + first) % 2]
        index = (mover + first) % 2
        go = _go(rng, clocks, mover)
        started = time.monotonic()
        if pondering[index] is not None:
            expected, pondered = pondering[index]
            pondering[index] = None
            seen["ponderhit" if expected == moves[-1] else "ponder stopped"] += 1
            if expected == moves[-1]:
                engine.send("ponderhit")  # the pondering's go becomes the search of this move
            else:
                engine.send("stop")  # the answer of the pondering is owed, and ignored
                engine.bestmove(pondered)
                engine.send(_position(moves))
                engine.send(f"go {go}")
        else:
            engine.send(_position(moves))
            engine.send(f"go {go}")
        seen[go.split()[0] + (" depth" if "depth" in go else "")] += 1
        if rng.random() < 0.2:
            seen["isready"] += 1
            time.sleep(rng.random() * 0.01)
            engine.send("isready")  # during the search: readyok at once, the bestmove still owed
        if rng.random() < 0.15:
            seen["stop"] += 1
            time.sleep(rng.random() * 0.02)
            engine.send("stop")  # at a random moment: before, during or after the search
        action, ponder, lines = engine.bestmove(game)
        clocks[mover] = max(clocks[mover] - (time.monotonic() - started), 0.05) + 0.01
        moves.append(action)
        game = game.step(action)[0]
        if ponder is not None and not game.game_finished and rng.random() < 0.8:
            after = game.step(ponder)[0]
            if not after.game_finished:
                engine.send(_position(moves + [ponder]))
                engine.send(f"go ponder {_go(rng, clocks, 1 - mover)}")
                pondering[index] = (ponder, after)
    for index, engine in enumerate(engines):
        if pondering[index] is not None:  # the game ended while it pondered
            engine.send("stop")
            engine.until("bestmove")
        engine.ready()  # nothing owed any more: no bestmove before readyok
    return len(moves)


@pytest.mark.parametrize("games", [
    3,
    pytest.param(20, marks=pytest.mark.slow),  # some 80 s on two loaded cores
])
def test_two_engines_play_whole_games_as_managers_drive_them(games):
    rng = random.Random(64 + games)
    engines = [Engine(spec) for spec in SPECS]
    seen = collections.Counter()
    try:
        for engine in engines:
            engine.send("uci")
            options = engine.until("uciok")
            assert "option name Ponder type check default false" in options
            engine.send("setoption name Ponder value true")
        plies = [_play(engines, rng, number, seen) for number in range(games)]
        assert all(count > 10 for count in plies), plies
        for engine in engines:
            assert not [line for line in engine.said if "search failed" in line], engine.said
    finally:
        for engine in engines:
            engine.close()
    # Every way a manager drives an engine was met.
    for kind in ("ponderhit", "ponder stopped", "isready", "stop", "movetime depth", "wtime depth", "wtime",
                 "nodes"):
        assert seen[kind] > 0, (kind, seen)
