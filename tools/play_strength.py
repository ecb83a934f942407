"""How strong is the page's strongest opponent?  Games between it and the library's agents.

The page "Play in the browser" (docs/play-online.rst) offers opponents written in JavaScript
(docs/_static/awale-agents.js).  This script plays the strongest of them, run by node (tools/play_agent.js, the
same file the page loads), against agents of the library under the Abapa rules, and appends one row per game to
a CSV file (default data/play-online-strength.csv) that the page reads when the site is built.

Game k of a pairing opens with two random plies drawn from seed k (so that two deterministic searches do not play
the same game twice), then the page's agent plays South in even games and North in odd ones; its random choices
among equal moves are seeded by k too.  The library's agent plays as ``awale.play.match.play`` would have it (a fresh
agent per game, its seed derived from k).  Each row gives the result, the moves and both sides' mean and
longest time per move (the page's agent under node on this machine: a browser runs the same code at about the
same speed).  A run resumes: games already in the file are not played again.

Usage: python tools/play_strength.py [--games 100] [--opponent "minimax(depth=8)"] ... [--out FILE]
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from awale import Game
from awale.agents import parse
from awale.experiments.store import encode_moves
from awale.experiments.stats import compare

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "tools" / "play_agent.js"
BROWSER = "browser-minimax(nodes=500000)"
OPPONENTS = ("minimax(depth=8)", "uct(iterations=20000)")
COLUMNS = ("browser", "opponent", "game", "browser_side", "opening", "moves", "plies", "south_captures",
           "north_captures", "browser_score", "browser_seconds_mean", "browser_seconds_max",
           "opponent_seconds_mean", "opponent_seconds_max")


class BrowserAgent:
    """The page's agent ``spec``, thinking in a node process."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.process = subprocess.Popen(["node", str(AGENT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, cwd=ROOT)

    def act(self, game_id: str, seed: int, moves: list[int]) -> tuple[int, float]:
        request = {"game": game_id, "spec": self.spec, "seed": seed, "moves": moves}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if "error" in answer:
            raise RuntimeError(f"{self.spec}: {answer['error']}")
        return int(answer["action"]), float(answer["seconds"])

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=10)


def play_one(browser: BrowserAgent, opponent_spec: str, k: int) -> dict:
    """Game ``k`` between the page's agent and the library's ``opponent_spec`` (see the module docstring)."""
    rng = np.random.default_rng(k)
    game = Game()
    moves: list[int] = []
    for _ in range(2):
        action = int(game.legal_actions[rng.integers(len(game.legal_actions))])
        game, _, _ = game.step(action)
        moves.append(action)
    opening = encode_moves(moves)
    side = k % 2
    opponent = parse(opponent_spec)
    if any(p.name == "seed" for p in opponent.params):
        opponent = opponent.replace(seed=int(np.random.SeedSequence([k, 1 - side]).generate_state(1)[0]))
    opponent.reset()
    times: dict[str, list[float]] = {"browser": [], "opponent": []}
    game_id = f"{opponent_spec}/{k}"
    while not game.game_finished:
        if game.current_player == side:
            action, seconds = browser.act(game_id, k, moves)
            times["browser"].append(seconds)
        else:
            started = time.perf_counter()
            action = int(opponent.act(game))
            times["opponent"].append(time.perf_counter() - started)
        game, _, _ = game.step(action)
        moves.append(action)
    score = 0.5 if game.winner is None else float(game.winner == side)
    return {
        "browser": browser.spec, "opponent": opponent_spec, "game": k, "browser_side": "South" if side == 0 else "North",
        "opening": opening, "moves": encode_moves(moves), "plies": len(moves), "south_captures": game.captures[0],
        "north_captures": game.captures[1], "browser_score": score,
        **{f"{who}_seconds_{what}": f"{fn(times[who]) if times[who] else 0.0:.4f}"
           for who in ("browser", "opponent") for what, fn in (("mean", np.mean), ("max", np.max))},
    }


def summary(rows: list[dict]) -> str:
    points = [float(row["browser_score"]) for row in rows]
    wins, draws = points.count(1.0), points.count(0.5)
    result = compare(wins, draws, len(points) - wins - draws)
    return (f"{len(points)} games, {wins} won, {draws} drawn, {len(points) - wins - draws} lost: score "
            f"{100 * result.score:.1f} % [{100 * result.low:.1f}, {100 * result.high:.1f}]")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per opponent (default 100)")
    parser.add_argument("--opponent", action="append", help=f"a library agent spec (default: {', '.join(OPPONENTS)})")
    parser.add_argument("--browser", default=BROWSER, help=f"the page's agent (default {BROWSER})")
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "play-online-strength.csv")
    args = parser.parse_args(argv)
    opponents = args.opponent or list(OPPONENTS)
    for spec in opponents:
        parse(spec)  # a bad spec fails now, not after hours
    rows: list[dict] = []
    if args.out.exists():
        with open(args.out, newline="", encoding="utf-8") as file:
            rows = list(csv.DictReader(file))
    done = {(row["browser"], row["opponent"], int(row["game"])) for row in rows}
    new = not args.out.exists()
    browser = BrowserAgent(args.browser)
    try:
        with open(args.out, "a", newline="", encoding="utf-8") as file:
            writer = csv.DictWriter(file, fieldnames=COLUMNS)
            if new:
                writer.writeheader()
            for spec in opponents:
                for k in range(args.games):
                    if (args.browser, spec, k) in done:
                        continue
                    row = play_one(browser, spec, k)
                    writer.writerow(row)
                    file.flush()
                    rows.append(row)
                    print(f"{spec} game {k}: {row['browser_side']} {row['browser_score']} "
                          f"({row['south_captures']}-{row['north_captures']}, {row['plies']} plies, "
                          f"{row['browser_seconds_mean']} s a move)", flush=True)
    finally:
        browser.close()
    for spec in opponents:
        mine = [row for row in rows if row["browser"] == args.browser and row["opponent"] == spec]
        if mine:
            print(f"{args.browser} against {spec}: {summary(mine)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
