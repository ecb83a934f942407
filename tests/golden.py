"""Golden move lists: the exact moves (and search statistics) of every search spec, to keep refactorings honest.

``python tests/golden.py`` plays every case below with the library on the path and writes
``tests/data/golden-moves.json``; ``tests/test_golden.py`` plays them again and compares exactly.  A case is a
self-play game between two seeds of one spec, from the initial position or from the end of a stored opening
(positions near the endgame database's reach), cut after :data:`PLIES` plies.  Besides each move it records a
digest of what the search saw: the root's children (visits, means, bounds) for the tree searches, the value,
depth, nodes and probes for αβ.  The shared-tree kernels (tree and leaf parallelisation), which are not
replayable on several threads, are recorded on one thread, where they are.

Regenerate the file only from code whose behaviour is the reference: its purpose is that it never changes.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional

__all__ = ["PATH", "PLIES", "agent_cases", "shared_cases", "play_case", "search_case", "generate", "dumps"]

#: Where the golden lists are kept.
PATH = Path(__file__).resolve().parent / "data" / "golden-moves.json"

#: Plies of each game (fewer if it ends before).
PLIES = 36

#: Seeds of each spec (South plays seed s, North seed s + 100).
SEEDS = (1, 2)

_MCTS = [
    "uct(iterations=300)",
    "mcts(iterations=300)",
    "flat(iterations=300)",
    "uct(iterations=300, playout='greedy')",
    "uct(iterations=300, cutoff=8)",
    "uct(iterations=300, rave=300.0)",
    "uct(iterations=300, solver=True)",
    "uct(iterations=300, bias=1.0, history=1.0)",
    "uct(iterations=300, evaluation=True)",
    "uct(iterations=300, cutoff=4, solver=True, evaluation=True)",
    "uct(iterations=300, reuse=True)",
    "uct(iterations=300, rave=300.0, solver=True, reuse=True)",
    "mcts(iterations=300, reuse=True)",
    "uct(iterations=400, threads=2, parallel='root')",
    "uct(iterations=400, threads=2, parallel='root', solver=True, reuse=True)",
]
_MINIMAX = [
    "minimax(depth=5)",
    "minimax(depth=5, evaluation=True, quiescence=2)",
    "minimax(nodes=4000)",
    "minimax(nodes=4000, evaluation=True, quiescence=4)",
    "champion(depth=4)",
    "champion(nodes=4000)",
]
# Specs played from the end of the opening below, where the board is within reach of the 15-seed database.
_ENDGAME = [
    "uct(iterations=300, endgame='15')",
    "uct(iterations=300, solver=True, endgame='15')",
    "uct(iterations=300, cutoff=4, solver=True, evaluation=True, endgame='15')",
    "mcts(iterations=300, endgame='15')",
    "uct(iterations=400, threads=2, parallel='root', endgame='15')",
    "minimax(depth=5, endgame='15')",
    "champion(nodes=4000, endgame='15')",
]
# Search-level cases of the shared tree on one thread: (scheme, SearchConfig keywords).
_SHARED = [
    ("tree", {}),
    ("leaf", {}),
    ("tree", {"rave": 300.0, "solver": True}),
    ("leaf", {"bias": 1.0, "history": 1.0, "playout": "greedy"}),
    ("tree", {"cutoff": 4, "solver": True, "evaluation": "fitted"}),
    ("leaf", {"tree_policy": "random", "solver": True}),
]


def _opening(seats: int = 22) -> List[int]:
    """A game of two greedy players until at most ``seats`` seeds are on the board (deterministic)."""
    from awale import Game
    from awale.agents import parse

    agents = [parse("greedy(eps=0.2, seed=11)"), parse("greedy(eps=0.2, seed=12)")]
    game, moves = Game(), []
    while sum(game.pits) > seats and not game.game_finished:
        action = agents[game.current_player].act(game)
        game = game.step(action)[0]
        moves.append(int(action))
    return moves


def agent_cases(opening: Optional[List[int]] = None) -> List[Dict]:
    """Every agent case: spec, seed and opening (moves from the initial position)."""
    opening = _opening() if opening is None else opening
    cases = [{"spec": spec, "seed": seed, "opening": []} for spec in _MCTS + _MINIMAX for seed in SEEDS]
    cases += [{"spec": spec, "seed": seed, "opening": opening} for spec in _ENDGAME for seed in SEEDS]
    return cases


def shared_cases(opening: List[int]) -> List[Dict]:
    """Every shared-tree case: scheme, options, seed, iterations and the opening to search from."""
    return [
        {"scheme": scheme, "config": config, "seed": seed, "iterations": 2000, "opening": opening[: 4 * seed]}
        for scheme, config in _SHARED for seed in SEEDS
    ]


def _digest(values) -> str:
    return hashlib.sha256(repr(values).encode()).hexdigest()[:16]


def _seen(agent) -> str:
    """A digest of what the agent's last search saw ("" if it did not search)."""
    if hasattr(agent, "statistics"):
        stats = agent.statistics()
        return _digest([(s.action, s.visits, s.mean, s.lower, s.upper) for s in stats]) if stats else ""
    inner = getattr(agent, "_search", agent)  # the champion's αβ agent
    result = getattr(inner, "last_search", None)
    if result is None:
        return ""
    return _digest((result.value, result.best_actions, result.depth, result.exact, result.nodes, result.probes))


def _start(opening: List[int]):
    from awale import Game

    game = Game()
    for action in opening:
        game = game.step(action)[0]
    return game


def play_case(case: Dict) -> Dict:
    """Play one agent case; return its moves and the digest of each search."""
    from awale.agents import parse

    base = parse(case["spec"])
    agents = [base.replace(seed=case["seed"]), base.replace(seed=case["seed"] + 100)]
    for agent in agents:
        agent.reset()
    game = _start(case["opening"])
    moves, seen = [], []
    while not game.game_finished and len(moves) < PLIES:
        agent = agents[game.current_player]
        if hasattr(agent, "last_search"):
            agent.last_search = None
        action = int(agent.act(game))
        moves.append(action)
        seen.append(_seen(agent))
        game = game.step(action)[0]
    return {**case, "moves": "".join(map(str, moves)), "seen": " ".join(seen)}


def search_case(case: Dict) -> Dict:
    """Search one shared-tree case on one thread; return the digest of the root's children."""
    from awale.knowledge.evaluation import load_evaluation
    from awale.core.rules import seed_rng
    from awale.search.mcts import SearchConfig
    from awale.search.parallel import SharedTree

    options = dict(case["config"])
    if options.get("evaluation") == "fitted":
        options["evaluation"] = tuple(load_evaluation().weights)
    game = _start(case["opening"])
    tree = SharedTree(game, SearchConfig(**options), seed_rng(case["seed"]), case["iterations"] + 1, 1,
                      case["scheme"])
    done = tree.run(case["iterations"])
    stats = [(s.action, s.visits, s.mean, s.lower, s.upper) for s in tree.children()]
    return {**case, "done": done, "used": tree.used, "children": _digest(stats)}


def dumps(document: Dict) -> str:
    """The golden document as text: one line per case."""
    lines = ",\n".join(json.dumps(case) for case in document["games"])
    searches = ",\n".join(json.dumps(case) for case in document["shared"])
    return f'{{"plies": {document["plies"]},\n"games": [\n{lines}\n],\n"shared": [\n{searches}\n]}}\n'


def generate() -> Dict:
    """Play every case with the library imported; return the golden document."""
    opening = _opening()
    return {
        "plies": PLIES,
        "games": [play_case(case) for case in agent_cases(opening)],
        "shared": [search_case(case) for case in shared_cases(opening)],
    }


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit("usage: python tests/golden.py   (writes tests/data/golden-moves.json)")
    document = generate()
    PATH.write_text(dumps(document))
    print(f"{PATH}: {len(document['games'])} games, {len(document['shared'])} searches")
