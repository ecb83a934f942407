"""The golden move lists (tests/data/golden-moves.json, written by tests/golden.py) replay exactly.

Every search spec family plays the same moves, and its searches see the same statistics, as when the file was
made: a refactoring of the kernels must leave them byte for byte identical.
"""

import json
from pathlib import Path

import pytest

import golden

DOCUMENT = json.loads(golden.PATH.read_text())

# The 15-seed database takes about 25 s to build: use the user's cached copy when there is one.
_HOME_CACHE = Path.home() / ".cache" / "awale"


@pytest.fixture
def endgame_cache(monkeypatch):
    if any(_HOME_CACHE.glob("endgame-v1-*-15.db")):
        monkeypatch.setenv("AWALE_CACHE", str(_HOME_CACHE))


def test_the_cases_are_those_of_the_script():
    opening = DOCUMENT["games"][-1]["opening"]
    keys = ("spec", "seed", "opening")
    assert [{k: g[k] for k in keys} for g in DOCUMENT["games"]] == golden.agent_cases(opening)
    assert [{k: s[k] for k in ("scheme", "config", "seed", "iterations", "opening")} for s in DOCUMENT["shared"]] \
        == golden.shared_cases(opening)
    assert DOCUMENT["plies"] == golden.PLIES


@pytest.mark.parametrize("case", DOCUMENT["games"], ids=lambda c: f"{c['spec']}-{c['seed']}")
def test_game_replays(case, endgame_cache):
    replayed = golden.play_case({k: case[k] for k in ("spec", "seed", "opening")})
    assert replayed["moves"] == case["moves"]
    assert replayed["seen"] == case["seen"]


@pytest.mark.parametrize("case", DOCUMENT["shared"], ids=lambda c: f"{c['scheme']}-{c['config']}-{c['seed']}")
def test_shared_tree_replays(case):
    keys = ("scheme", "config", "seed", "iterations", "opening")
    assert golden.search_case({k: case[k] for k in keys}) == case
