"""Test configuration and the helpers that several test modules share.

Hypothesis runs derandomised, so every run explores the same cases; and the endgame databases that agents
build for ``endgame='S'`` go to a cache of the test session, not the user's.

A test module takes a shared helper from here (``from conftest import random_positions``: pytest puts
``tests/`` on the path and loads this file as the module ``conftest``), never from another test module;
``tests/test_structure.py`` checks it.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

from awale import Game, Rules

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile("ci")

# Small rule variants and the seeds their endgame databases are built to, for the one-machine and the cluster
# builds' tests (each must give the same file on every variant).
ENDGAME_SMALL = Rules(pits_per_side=3, seeds_per_pit=2)
ENDGAME_VARIANTS = [
    (Rules(), 9),
    (ENDGAME_SMALL, 8),
    (Rules(pits_per_side=2, seeds_per_pit=3), 10),
    (Rules(pits_per_side=3, seeds_per_pit=4, feed=False), 8),
    (Rules(pits_per_side=3, seeds_per_pit=4, grand_slam="forbidden"), 8),
    (Rules(pits_per_side=3, seeds_per_pit=4, grand_slam="capture-all"), 8),
    (Rules(pits_per_side=4, seeds_per_pit=3, collect_remaining=False), 7),
]

#: The repository's root.
ROOT = Path(__file__).resolve().parents[1]

#: The columns of a stored game that depend on when and how fast it was played.
TIMING = ["created_at", "south_seconds", "north_seconds"]

#: Boards (pits a side, seeds a pit) small enough to solve exactly.
SMALL_BOARDS = [(2, 2), (3, 2), (2, 3), (3, 1)]


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWALE_CACHE", str(tmp_path_factory.mktemp("awale-cache")))
        yield


def awale(*args, cwd=None, stdin="", env=None, timeout=300):
    """Run ``python -m awale ARGS`` with ``stdin`` as its input; the completed process, text output.

    ``NO_COLOR`` is left out of the environment, so that colour follows the command's options; ``env`` adds to it.
    """
    environment = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "awale", *args], input=stdin, capture_output=True, text=True, timeout=timeout,
        env=environment, cwd=cwd,
    )


def stored_games(path, experiment=None):
    """The games of a store without the columns that depend on when and how fast they were played."""
    from awale.experiments import load

    return load(path, experiment).drop(columns=TIMING)


def position(south, north, captures, player=0, rules=None, plies=0):
    """The game with those rows (each from its owner's left), captures and player to move."""
    return Game.from_position(list(south) + list(north), captures, player, rules=rules, plies=plies)


def random_positions(n, s, count, seed, plies=12):
    """Live positions reached by random play on a board of ``n`` pits a side and ``s`` seeds a pit, one per game,
    after fewer than ``plies`` random plies."""
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        game = Game(Rules(pits_per_side=n, seeds_per_pit=s))
        stop = rng.integers(0, plies)
        for _ in range(stop):
            if game.game_finished:
                break
            game = game.step(int(rng.choice(game.legal_actions)))[0]
        if not game.game_finished:
            positions.append(game)
    return positions


def result(value):
    """The result a value means for the mover: ``"win"``, ``"loss"`` or ``"draw"``."""
    return "win" if value > 0 else "loss" if value < 0 else "draw"
