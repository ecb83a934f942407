"""The positional evaluation: features on known positions, symmetry, the fitted weights and bad input."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from awale import Game
from awale.agents import parse
from awale.knowledge.evaluation import (
    ALL_FEATURES, FEATURES, KROO_WINDOW, TIMING_FEATURES, WEIGHTS, WEIGHTS_PATH, Evaluation, features, kroo_timing,
    load_evaluation,
)
from awale.core.rules import Rules, sow
from awale.search.mcts import SearchConfig

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


def timing(game):
    return dict(zip(ALL_FEATURES, features(game._state[None, :], game.rules, timing=True)[0]))


def test_the_kroos_timing_on_known_piles():
    # South to move. Pit 0 holds 11: its last seed lands in North's last pit (ripe). Pit 5 holds 11: the last
    # lands in South's pit 4, one more seed and the 12 lap into North's first pit (soon). North's pit 6 holds
    # 12: it laps back into pit 7, North's own row; 5 more seeds end in South's row, beyond the window of 3.
    game = Game.from_position([11, 0, 0, 0, 0, 11, 12, 1, 0, 0, 0, 0], captures=(1, 0))
    f = timing(game)
    assert KROO_WINDOW == 3
    assert (f["kroo_ripe"], f["kroo_soon"]) == (1 - 0, 1 - 0)
    assert {name: f[name] for name in FEATURES} == by_name(game)  # the nine are the same with or without
    # The same board, North to move: the features are North's own minus South's.
    g = timing(Game.from_position([11, 0, 0, 0, 0, 11, 12, 1, 0, 0, 0, 0], captures=(1, 0), current_player=1))
    assert (g["kroo_ripe"], g["kroo_soon"]) == (-1, -1)


def test_other_definitions_of_a_kroo():
    """kroo_timing with the default pile and window is what features counts; other ones count other piles."""
    game = Game.from_position([11, 0, 0, 0, 0, 11, 12, 1, 0, 0, 0, 0], captures=(1, 0))
    states = game._state[None, :]
    assert kroo_timing(states).tolist() == [[1.0, 1.0]] == features(states, timing=True)[:, 9:].tolist()
    assert kroo_timing(states, least=12).tolist() == [[0.0, 0.0]]  # only North's 12, landing in its own row
    assert kroo_timing(states, window=6).tolist() == [[1.0, 0.0]]  # North's 12 reaches South's row 5 seeds on
    for bad in (dict(least=0), dict(window=0), dict(least=True), dict(window=2.5)):
        with pytest.raises(ValueError, match="must be a positive number"):
            kroo_timing(states, **bad)


def _last_pit(pits, origin, seeds):
    board = np.array(pits, dtype=np.int64)
    board[origin] = seeds
    return sow(board, origin, len(board))


@pytest.mark.parametrize("n", [3, 4, 6])
def test_the_kroos_timing_agrees_with_sowing(n):
    """Counted again by sowing each pile of 2n - 1 seeds or more with 0 to KROO_WINDOW seeds more (seeded random
    boards of n pits a side)."""
    rules = Rules(pits_per_side=n, seeds_per_pit=4)
    size, total = 2 * n, rules.total_seeds
    rng = np.random.default_rng(11 + n)
    checked = 0
    for _ in range(300):
        pits = rng.integers(0, 4, size=size)
        pits[rng.integers(0, size, size=2)] = rng.integers(size - 3, 2 * size + 6, size=2)
        if not 0 < pits.sum() <= total - 2:
            continue
        taken = total - int(pits.sum())
        game = Game.from_position(pits.tolist(), captures=(taken // 2, taken - taken // 2),
                                  current_player=int(rng.integers(2)), rules=rules)
        expected = {"kroo_ripe": 0, "kroo_soon": 0}
        for side in (0, 1):
            sign = 1 if side == game.current_player else -1
            for origin in range(n * side, n * side + n):
                if pits[origin] < size - 1:
                    continue
                lands = [n * (1 - side) <= _last_pit(pits, origin, pits[origin] + extra) < n * (2 - side)
                         for extra in range(KROO_WINDOW + 1)]
                if lands[0]:
                    expected["kroo_ripe"] += sign
                elif any(lands):
                    expected["kroo_soon"] += sign
        assert {name: timing(game)[name] for name in TIMING_FEATURES} == expected
        checked += expected != {"kroo_ripe": 0, "kroo_soon": 0}
    assert checked > 30


def test_weights_with_the_kroos_timing():
    kroo = load_evaluation(WEIGHTS["kroo"])
    assert kroo.feature_names == ALL_FEATURES and set(kroo.as_dict()) == set(ALL_FEATURES)
    nine = Evaluation(kroo.weights[: len(FEATURES)])
    assert nine.feature_names == FEATURES
    # The known piles above: one ripe kroo and one due soon, both South's, South to move.
    game = Game.from_position([11, 0, 0, 0, 0, 11, 12, 1, 0, 0, 0, 0], captures=(1, 0))
    ripe, soon = kroo.as_dict()["kroo_ripe"], kroo.as_dict()["kroo_soon"]
    assert kroo.logit(game) - nine.logit(game) == pytest.approx(ripe + soon)
    # Without kroos the two features are 0: the eleven weights score the position as their first nine do.
    level = Game.from_position([4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0], captures=(4, 4))
    assert kroo.logit(level) == nine.logit(level)
    with pytest.raises(ValueError, match="needs 9 finite weights"):
        SearchConfig(evaluation=tuple(kroo.weights))  # the kernels of MCTS read the nine only
    with pytest.raises(ValueError, match="needs 9 or 11 finite weights"):
        Evaluation(list(kroo.weights) + [0.0])


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
    with pytest.raises(ValueError, match="9 or 11 finite weights"):
        Evaluation([1.0, 2.0])
    with pytest.raises(ValueError, match="finite"):
        Evaluation([float("nan")] * len(FEATURES))
    bad = tmp_path / "weights.json"
    bad.write_text(json.dumps({"features": ["captures"], "weights": [1.0]}))
    with pytest.raises(ValueError, match="expected"):
        load_evaluation(bad)
    bad.write_text(json.dumps({"features": list(ALL_FEATURES), "weights": [1.0] * len(FEATURES)}))
    with pytest.raises(ValueError, match="9 weights for 11 features"):
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
    # the game-fitted weights, those fitted on every game between searches, and so with the kroos' timing
    for texel in ([], ["--texel"], ["--texel", "--timing"]):
        run = subprocess.run(
            [sys.executable, os.path.join(ROOT, "data", "evaluation", "fit.py"), "--check", *texel],
            capture_output=True, text=True,
        )
        assert run.returncode == 0, run.stdout + run.stderr


def test_the_fit_helpers(tmp_path):
    """The held-out games are drawn from the seed, the stored positions keep their bounds, and a check of weights
    says how far they are from a file's."""
    from awale.offline import evaluation_fit as fit

    held = fit.held_out_games(1000)
    assert held.dtype == bool and (held == fit.held_out_games(1000)).all() and 150 < held.sum() < 250
    store = os.path.join(ROOT, "data", "experiments.sqlite")
    positions = fit.stored_positions(store, "solver", 20, least=10)
    assert positions and all(10 <= sum(g.pits) <= 20 and not g.game_finished for g in positions)
    path = tmp_path / "weights.json"
    path.write_text(json.dumps({"weights": [0.5, -1.0]}))
    agrees, line = fit.check_weights(path, [0.5, -1.0000001])
    assert agrees and line == "largest difference from the committed weights: 1.00e-07"
    assert fit.check_weights(path, [0.5, -1.1])[0] is False
    assert fit.check_weights(path, [0.5]) == (False, "1 weights fitted, 2 committed")
