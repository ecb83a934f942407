"""One deadline, one stop: how closely a search keeps its time, and how soon a stop from another thread ends it.

Every search stops one way, by its stop flag, which the compiled kernel polls where it counts its nodes or
iterations: a deadline timer raises it (:func:`awale.core._guard.stop_at`), as do a
:class:`awale.core.control.SearchControl` stopped from another thread and Ctrl-C.  Two measurements, each against
the target that issue 64 sets (not a timed test: the figures depend on the machine and its load):

* a time limit (:class:`awale.search.limits.Limits`, ``time=t``) is honoured within 5 % or 5 ms, whichever is
  larger: the overrun of the move over ``t``, for αβ (the champion spends a move time whole) and UCT;
* a search stopped from another thread returns its move within 10 ms of the stop;
* the engine's first ``go movetime 100`` of a game, after ``isready`` and ``ucinewgame``, answers within 110 ms
  (its agent and table are made at ``isready``, not in the move).
"""

from __future__ import annotations

import statistics
import threading
import time
from typing import List

from awale import Game
from awale.agents import parse
from awale.core.control import SearchControl
from awale.search.limits import Limits

__all__ = ["run"]

SPECS = ("champion(book=False, quiescence=0, reductions=True, weights='texel')", "uct", "uct(threads=2)")

#: Positions a few plies into a game (the book's plies are played, the searches are real).
LINES = ((2, 3), (2, 3, 1, 4), (0, 5, 2), (4, 1, 3, 2, 5))


def _positions() -> List[Game]:
    positions = []
    for line in LINES:
        game = Game()
        for action in line:
            game = game.step(action)[0]
        positions.append(game)
    return positions


def _overruns(spec: str, seconds: float, repeats: int) -> List[float]:
    """Seconds past ``seconds`` of each timed move (negative: sooner)."""
    agent = parse(spec)
    agent.act(Game(), Limits(nodes=100))  # compiled and allocated before the clock starts
    out = []
    for _ in range(repeats):
        for game in _positions():
            start = time.perf_counter()
            agent.act(game, Limits(time=seconds))
            out.append(time.perf_counter() - start - seconds)
    return out


def _stop_delays(spec: str, repeats: int) -> List[float]:
    """Seconds from a stop, called from another thread 50 ms into an infinite search, to its move."""
    agent = parse(spec)
    agent.act(Game(), Limits(nodes=100))
    out = []
    for _ in range(repeats):
        for game in _positions():
            control = SearchControl()
            returned = []

            def search() -> None:
                with control:
                    agent.act(game, Limits(infinite=True))
                returned.append(time.perf_counter())

            thread = threading.Thread(target=search)
            thread.start()
            time.sleep(0.05)
            stopped = time.perf_counter()
            control.stop()
            thread.join()
            out.append(returned[0] - stopped)
    return out


def _first_moves(repeats: int) -> List[float]:
    """Seconds from each game's first ``go movetime 100`` to its ``bestmove``, the engine in this process."""
    from awale import DEFAULT_AGENT
    from awale.play.protocol import EngineServer

    answered = threading.Event()
    server = EngineServer(DEFAULT_AGENT, lambda line: answered.set() if line.startswith("bestmove") else None)
    out = []
    for game in range(repeats * 2):
        server.handle("isready" if game == 0 else "ucinewgame")
        server.handle("isready")
        server.handle("position startpos moves C d A b E f B a")  # out of the book: a search
        answered.clear()
        start = time.perf_counter()
        server.handle("go movetime 100")
        answered.wait(10.0)
        out.append(time.perf_counter() - start)
    return out


def run(repeats: int = 3) -> List[str]:
    lines = ["time limits: the overrun of a move past its time (target: within 5 % or 5 ms, whichever is larger)"]
    for spec in SPECS:
        for seconds in (0.05, 0.2):
            overruns = _overruns(spec, seconds, repeats)
            allowed = max(0.05 * seconds, 0.005)
            kept = sum(over <= allowed for over in overruns)
            lines.append(f"  {spec[:40]:<40} time {1000 * seconds:4.0f} ms: overrun median "
                         f"{1000 * statistics.median(overruns):6.2f} ms, max {1000 * max(overruns):6.2f} ms; "
                         f"{kept}/{len(overruns)} within {1000 * allowed:.1f} ms")
    lines.append("stop from another thread: from the stop to the move (target: within 10 ms)")
    for spec in SPECS:
        delays = _stop_delays(spec, repeats)
        kept = sum(delay <= 0.010 for delay in delays)
        lines.append(f"  {spec[:40]:<40} median {1000 * statistics.median(delays):6.2f} ms, max "
                     f"{1000 * max(delays):6.2f} ms; {kept}/{len(delays)} within 10 ms")
    firsts = _first_moves(repeats)
    lines.append(f"the engine's first go movetime 100 of a game: median {1000 * statistics.median(firsts):.1f} ms, "
                 f"max {1000 * max(firsts):.1f} ms (target: within 110 ms)")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
