"""The positional evaluation: features on known positions, symmetry, the fitted weights and bad input."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from awale import Game
from awale.agents import parse
from awale.evaluation import FEATURES, WEIGHTS_PATH, Evaluation, features, load_evaluation
from awale.rules import Rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def by_name(game):
    return dict(zip(FEATURES, features(game._state[None, :], game.rules)[0]))


def test_initial_position_is_level():
    f = by_name(Game())
    assert f == {name: (1.0 if name == "bias" else 0.0) for name in FEATURES}


def test_features_of_a_small_known_position():
    # South: one seed in its last pit, which it can sow into North's first pit (1 -> 2) and capture 2.
    game = Game.from_position([0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0], captures=(24, 21))
    f = by_name(game)
    assert f["captures"] == 3
    assert f["seeds"] == 1 - 2
    assert f["big_piles"] == 0
    assert f["empty"] == 5 - 4
    assert f["vulnerable"] == 1 - 2
    assert f["mobility"] == 1 - 2
    assert f["capture_now"] == 2 - 0
    assert f["captures_share"] == pytest.approx(3 / 4)


def test_big_piles_and_the_threat_against_the_mover():
    # North to move; South holds a pile of 12 that laps the board; South, were it to move, sows its
    # single seed into North's pit of 2 seeds (-> 3) and captures 3.
    pits = [0, 0, 0, 0, 12, 1, 2, 4, 4, 4, 4, 4]
    game = Game.from_position(pits, captures=(7, 6), current_player=1)
    f = by_name(game)
    assert f["captures"] == 6 - 7
    assert f["big_piles"] == 0 - 1
    assert f["vulnerable"] == 1 - 1
    assert f["capture_now"] <= -3


def _mirror(game):
    """The same position with the sides exchanged, the other player to move."""
    n = game.rules.pits_per_side
    pits = list(game.pits[n:]) + list(game.pits[:n])
    return Game.from_position(pits, captures=game.captures[::-1], current_player=1 - game.current_player)


def test_features_belong_to_the_player_to_move():
    """Exchanging the sides and the player to move leaves every feature unchanged (seeded random games)."""
    rng = np.random.default_rng(7)
    checked = 0
    for seed in range(20):
        game = Game()
        agent = parse(f"greedy(eps=0.5, seed={seed})")
        while not game.game_finished:
            if rng.random() < 0.2:
                assert by_name(_mirror(game)) == by_name(game)
                checked += 1
            game = game.step(agent.act(game))[0]
    assert checked > 100


def test_other_board_sizes():
    rules = Rules(pits_per_side=3, seeds_per_pit=2)
    game = Game(rules=rules)
    assert features(game._state[None, :], rules).shape == (1, len(FEATURES))
    with pytest.raises(ValueError, match="9 columns"):
        features(Game()._state[None, :], Rules(pits_per_side=2, seeds_per_pit=2))


def test_committed_weights_load_and_judge_a_lead():
    evaluation = load_evaluation()
    assert set(evaluation.as_dict()) == set(FEATURES)
    assert evaluation.meta["games"] > 1000
    level = evaluation.win_probability(Game())
    ahead = evaluation.win_probability(Game.from_position([4] * 8 + [0] * 4, captures=(16, 0)))
    assert 0.4 < level < 0.6
    assert ahead > 0.9


def test_bad_weights_and_positions_are_refused(tmp_path):
    with pytest.raises(ValueError, match="9 finite weights"):
        Evaluation([1.0, 2.0])
    with pytest.raises(ValueError, match="finite"):
        Evaluation([float("nan")] * len(FEATURES))
    bad = tmp_path / "weights.json"
    bad.write_text(json.dumps({"features": ["captures"], "weights": [1.0]}))
    with pytest.raises(ValueError, match="expected"):
        load_evaluation(bad)
    with pytest.raises(ValueError, match="cannot read"):
        load_evaluation(tmp_path / "missing.json")
    finished = Game.from_position([0] * 11 + [1], captures=(24, 23), current_player=1).step(5)[0]
    assert finished.game_finished
    with pytest.raises(ValueError, match="finished"):
        load_evaluation().logit(finished)
    with pytest.raises(ValueError, match="integer matrix"):
        features(np.zeros((2, 17)))


def test_the_committed_weights_are_what_the_fit_gives():
    """Refit on the committed games: the weights in the library are reproduced to 1e-6."""
    weights = json.loads(WEIGHTS_PATH.read_text())
    assert weights["features"] == list(FEATURES)
    for texel in ([], ["--texel"]):  # the game-fitted weights, and those fitted on every game between searches
        run = subprocess.run(
            [sys.executable, os.path.join(ROOT, "data", "evaluation", "fit.py"), "--check", *texel],
            capture_output=True, text=True,
        )
        assert run.returncode == 0, run.stdout + run.stderr
