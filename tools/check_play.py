"""Check the page "Play in the browser" (docs/play-online.rst): its engine against the library, and the page itself.

The page plays Awale with its own JavaScript engine (docs/_static/awale-engine.js) and agents
(docs/_static/awale-agents.js).  This tool proves that the engine plays the library's rules:

- seeded random games (tools/play_trace.js: Abapa from the initial position, Abapa from random positions with few
  seeds, where repetitions and starved players are common, and other rules drawn at random) are played by the
  page's engine and replayed through ``awale.core.record.describe``: at every ply the legal actions, the seeds captured
  and the pits they came from, a grand slam that took nothing, the board, the captures, the player to move, the
  plies, the outcome and the reason the game ended must be the same; a random starting position that one refuses
  the other must refuse too;
- on the first games, the αβ value of every legal action at a random ply, 1 to 6 plies deep, must equal
  ``awale.search.alphabeta.AlphaBeta.action_values`` (the library's ``minimax``).

``python tools/check_play.py --node`` runs the engine under node (``make test`` does it on fewer games, in
tests/test_play_online.py); ``python tools/check_play.py --chromium /usr/bin/chromium _build/html`` runs it inside
the built page, opened from disk (file://) in headless Chromium with the network off (``make check-site``:
10,000 games and 1,000 positions), then plays the page as a reader would: a game against each opponent, with
every board compared with the library's, undo, new game, the other side, the thinking shown, the game file
copied out (it must be the file ``python -m awale play --save`` writes) and pasted back, and a malformed file
pasted (a message, no error).  A console error, an uncaught exception or a request to another host fails it.

Usage: python tools/check_play.py [--games N] [--positions N] (--node | --chromium PATH SITE)
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from awale import Game, Rules
from awale.core.game import InvalidPositionError
from awale.core.record import describe
from awale.search.alphabeta import AlphaBeta

ROOT = Path(__file__).resolve().parents[1]
TRACE = ROOT / "tools" / "play_trace.js"
PAGE = "docs/play-online.html"
CHUNK = 500  # games per call into the engine


@dataclass
class Report:
    """What a comparison covered, and what it found wrong."""

    games: int = 0
    plies: int = 0
    refused: int = 0
    slams: int = 0
    positions: int = 0
    endings: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def add(self, other: "Report") -> None:
        self.games += other.games
        self.plies += other.plies
        self.refused += other.refused
        self.slams += other.slams
        self.positions += other.positions
        self.endings.update(other.endings)
        self.problems += other.problems

    def summary(self) -> str:
        endings = ", ".join(f"{count:,} {name}" for name, count in self.endings.most_common())
        return (f"{self.games:,} games ({self.refused:,} of them from a position both refuse), {self.plies:,} plies "
                f"identical ({self.slams:,} grand slams that took nothing); endings: {endings}; αβ values equal on "
                f"{self.positions:,} positions")


def _outcome(game: Game) -> int:
    if not game.game_finished:
        return -1
    return 2 if game.winner is None else game.winner


def _board(game: Game) -> str:
    return ",".join(map(str, [*game.pits, *game.captures, game.current_player, game.plies, _outcome(game)]))


_SEARCHERS: dict[Rules, AlphaBeta] = {}


def _library_values(game: Game, depth: int) -> list[int]:
    searcher = _SEARCHERS.get(game.rules)
    if searcher is None:
        searcher = _SEARCHERS[game.rules] = AlphaBeta(game.rules, table_bits=16)
    values = searcher.action_values(game, depth)
    return [values[action] for action in game.legal_actions]


def compare(games: list[dict]) -> Report:
    """Replay the page engine's games (the JSON of tools/play_trace.js) through the library, ply by ply."""
    report = Report()
    for record in games:
        name = f"game {record['index']}"
        report.games += 1
        rules = Rules(**record["rules"]) if record["rules"] else Rules()
        start = record["start"]
        try:
            game = (Game.from_position(start["pits"], tuple(start["captures"]), start["player"], rules)
                    if start else Game(rules))
        except InvalidPositionError as error:
            if "refused" in record:
                report.refused += 1
            else:
                report.problems.append(f"{name}: the library refuses the start {start} ({error}), the page plays it")
            continue
        if "refused" in record:
            report.problems.append(f"{name}: the page refuses the start {start} ({record['refused']}), "
                                   "the library plays it")
            continue
        values = record.get("values")
        for number, (legal, action, captured, pits, slam, ending, board) in enumerate(record["plies"]):
            where = f"{name} ({rules}), ply {number + 1}"
            if values and values["ply"] == number:
                expected = _library_values(game, values["depth"])
                report.positions += 1
                if expected != values["values"]:
                    report.problems.append(f"{where}: αβ values at depth {values['depth']} {values['values']} on the "
                                           f"page, {expected} in the library (actions {game.legal_actions})")
            if legal != "".join(map(str, game.legal_actions)):
                report.problems.append(f"{where}: legal actions {legal} on the page, {game.legal_actions} in the library")
                break
            ply = describe(game, action)
            found = (ply.captured, ",".join(map(str, ply.captured_pits)), int(ply.grand_slam), ply.ending,
                     _board(ply.game))
            if found != (captured, pits, slam, ending, board):
                report.problems.append(f"{where}, action {action}: the page has (captured, pits, grand slam, ending, "
                                       f"board) {(captured, pits, slam, ending, board)}, the library {found}")
                break
            game = ply.game
            report.plies += 1
            report.slams += slam
        else:
            if not game.game_finished:
                report.problems.append(f"{name}: the page's game ended, the library's goes on")
            report.endings[record["plies"][-1][5] if record["plies"] else "none"] += 1
    return report


def node_traces(first: int, count: int, positions: int, node: str = "node", trace: Path = TRACE) -> list[dict]:
    """Games ``first .. first + count - 1`` of tools/play_trace.js (or ``trace``), played by the engine under node."""
    done = subprocess.run([node, str(trace), str(first), str(count), str(positions)], capture_output=True, text=True,
                          check=False, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"node {TRACE.name} failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def check_node(games: int, positions: int) -> Report:
    """The engine under node against the library, in chunks of games."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not installed: apt-get install -y nodejs")
    report = Report()
    for first in range(0, games, CHUNK):
        count = min(CHUNK, games - first)
        report.add(compare(node_traces(first, count, max(0, positions - report.positions), node)))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, nargs="?", help="the built website, e.g. _build/html (with --chromium)")
    parser.add_argument("--games", type=int, default=10_000, help="random games to compare (default 10,000)")
    parser.add_argument("--positions", type=int, default=1_000, help="positions whose αβ values to compare")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--node", action="store_true", help="run the engine under node")
    where.add_argument("--chromium", help="run the engine, and play the page, in this Chromium")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.node:
        report = check_node(args.games, args.positions)
    else:
        if args.site is None:
            parser.error("--chromium needs the built site, e.g. _build/html")
        from play_page import check_page  # tools/play_page.py: the browser half

        report = check_page(args.chromium, args.site.resolve(), args.games, args.positions)
    for problem in report.problems[:20]:
        print(f"        {problem}")
    verdict = "FAILED" if report.problems else "the page plays the library's rules"
    print(f"{report.summary()} ({time.perf_counter() - started:.0f} s): {verdict}")
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
