"""The pattern evaluation: its compiled sum, the default path left alone, the training pipeline end to end."""

import json

import numpy as np
import pytest

from awale.agents import parse
from awale.core.game import Game, game_arrays
from awale.knowledge.evaluation import (
    N_FEATURES, PATTERN_RUNS, PAIR_CAP, WEIGHTS, Evaluation, PatternEvaluation, load_evaluation, pattern_cells,
    pattern_count, pattern_weights_length, write_patterns,
)
from awale.offline.evaluation_train import TrainConfig, chunk_path, train


def _random_games(rng, count):
    games = []
    for _ in range(count):
        game = Game()
        for _ in range(int(rng.integers(0, 120))):
            if game.game_finished:
                break
            actions = game.legal_actions
            game = game.step(actions[int(rng.integers(len(actions)))])[0]
        if not game.game_finished:
            games.append(game)
    return games


def _reference_cells(game):
    """The cells of the tuples, by plain Python from the docstring's definition."""
    n = 6
    size = 2 * n
    own = [game.pits[(game.current_player * n + r) % size] for r in range(size)]
    board = sum(game.pits)
    phase = 0 if board <= 28 else 1 if board <= 36 else 2
    offset = phase * (size * sum((c + 1) ** k for k, c in PATTERN_RUNS) + n * (PAIR_CAP + 1) ** 2)
    cells = []
    for length, cap in PATTERN_RUNS:
        for first in range(size):
            index = 0
            for k in range(length):
                index = index * (cap + 1) + min(own[(first + k) % size], cap)
            cells.append(offset + index)
            offset += (cap + 1) ** length
    for i in range(n):
        cells.append(offset + min(own[i], PAIR_CAP) * (PAIR_CAP + 1) + min(own[size - 1 - i], PAIR_CAP))
        offset += (PAIR_CAP + 1) ** 2
    return cells


def test_compiled_sum_equals_a_plain_reference():
    rng = np.random.default_rng(65)
    weights = rng.normal(size=pattern_weights_length())
    patterns = PatternEvaluation(weights)
    linear = Evaluation(weights[:N_FEATURES])
    games = _random_games(rng, 60)
    states = np.array([game_arrays(g).state for g in games])
    cells = pattern_cells(states)
    assert cells.shape == (len(games), pattern_count()) == (len(games), 42)
    for game, row in zip(games, cells):
        reference = _reference_cells(game)
        assert list(row) == reference
        expected = linear.logit(game) + sum(weights[N_FEATURES + c] for c in reference)
        assert patterns.logit(game) == pytest.approx(expected, abs=1e-9)


def test_weights_round_trip_and_bad_input(tmp_path):
    rng = np.random.default_rng(1)
    weights = rng.normal(size=pattern_weights_length()).astype(np.float32).astype(np.float64)
    path = tmp_path / "w.npz"
    write_patterns(path, PatternEvaluation(weights, {"seed": 1}))
    loaded = load_evaluation(str(path))
    assert isinstance(loaded, PatternEvaluation) and loaded.meta == {"seed": 1}
    assert np.array_equal(loaded.weights, weights)
    with pytest.raises(ValueError, match="pattern evaluation"):
        PatternEvaluation(weights[:-1])
    with pytest.raises(ValueError, match="pattern evaluation"):
        PatternEvaluation(np.full(len(weights), np.nan))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not an npz")
    with pytest.raises(ValueError, match="cannot read pattern weights"):
        load_evaluation(str(bad))
    with pytest.raises(ValueError, match="pits a side"):
        loaded.logit(Game(rules=__import__("awale").Rules(pits_per_side=5)))


def test_shipped_patterns_load_and_the_default_path_is_unchanged():
    patterns = load_evaluation(WEIGHTS["patterns"])
    assert isinstance(patterns, PatternEvaluation) and len(patterns.weights) == pattern_weights_length()
    texel = load_evaluation(WEIGHTS["texel"])
    assert not isinstance(texel, PatternEvaluation) and len(texel.weights) == N_FEATURES
    game = Game()
    for _ in range(10):
        game = game.step(game.legal_actions[0])[0]
    a = parse("champion(depth=4, weights='patterns')")
    b = parse("champion(depth=4, weights='texel')")
    assert a.spec != b.spec and "patterns" in a.spec and "patterns" not in b.spec
    assert a.act(game) in game.legal_actions and b.act(game) in game.legal_actions


def test_pipeline_runs_end_to_end_and_resumes(tmp_path):
    config = TrainConfig(out=str(tmp_path / "run"), games=10, chunk_games=5, keep=0.2, depth=2, endgame_seeds=0,
                         held_out=0.5, iterations=20, seed=7)
    report = train(config, progress=False, say=lambda line: None)
    assert set(report["models"]) == {"patterns", "texel", "linear_refit"}
    weights = load_evaluation(str(tmp_path / "run" / "evaluation-patterns.npz"))
    with np.load(chunk_path(config, 1)) as data:
        first = {key: data[key] for key in data.files}
    chunk_path(config, 1).unlink()
    again = train(config, progress=False, say=lambda line: None)
    with np.load(chunk_path(config, 1)) as data:  # the chunk is made again the same, from its seed
        assert all(np.array_equal(data[key], first[key]) for key in first) and set(data.files) == set(first)
    assert again["meta"]["chunks_labelled_this_run"] == 1
    assert again["models"] == report["models"]
    assert json.loads((tmp_path / "run" / "report.json").read_text())["models"] == report["models"]
    assert isinstance(weights, PatternEvaluation)


def test_bad_training_input_gives_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="games must be a positive integer"):
        TrainConfig(games=0)
    with pytest.raises(ValueError, match="mix must be a number from 0 to 1"):
        TrainConfig(mix=2.0)
    with pytest.raises(ValueError, match="no experiment store"):
        train(TrainConfig(store=str(tmp_path / "none.sqlite"), out=str(tmp_path / "o")), progress=False)


def test_a_folder_of_other_settings_is_refused(tmp_path):
    config = TrainConfig(out=str(tmp_path / "run"), games=4, chunk_games=2, keep=0.1, depth=1, endgame_seeds=0,
                         held_out=0.5, iterations=5, seed=3)
    from awale.offline.evaluation_train import run_chunks

    run_chunks(config, progress=False)
    with pytest.raises(ValueError, match="other settings \\(seed\\)"):
        run_chunks(TrainConfig(**{**config.__dict__, "seed": 4}), progress=False)


def test_the_probing_labeller_needs_a_database_and_older_folders_still_resume(tmp_path):
    with pytest.raises(ValueError, match="probe needs an endgame database"):
        TrainConfig(probe=True, endgame_seeds=0)
    with pytest.raises(ValueError, match="probe must be True or False"):
        TrainConfig(probe=1)
    from awale.offline.evaluation_train import run_chunks

    config = TrainConfig(out=str(tmp_path / "run"), games=2, chunk_games=2, keep=0.1, depth=1, endgame_seeds=0,
                         held_out=0.5, iterations=5, seed=3)
    run_chunks(config, progress=False)
    record = tmp_path / "run" / "sampling.json"
    settings = json.loads(record.read_text())
    assert settings.pop("probe") is False
    record.write_text(json.dumps(settings))  # as a folder written before the setting existed
    assert run_chunks(config, progress=False) == 0  # read as probe=False: resumed, nothing labelled again


def test_the_report_says_what_each_tuple_family_brings_and_how_the_error_falls(tmp_path):
    from awale.offline.evaluation_train import FAMILIES, family_ablation

    linear = np.zeros(4)
    cells = np.zeros((4, 42))
    cells[:, 36:] = np.array([[1.0], [1.0], [-1.0], [-1.0]]) / 6  # only the facing pairs carry the targets
    y = np.array([1.0, 1.0, 0.0, 0.0])
    report = family_ablation(linear, cells, y)
    assert list(report) == list(FAMILIES) and FAMILIES[-1] == "facing pairs"
    assert report["facing pairs"]["rise"] > 0 and report["facing pairs"]["spread"] == 1.0
    assert all(report[name]["rise"] == 0 and report[name]["spread"] == 0 for name in FAMILIES[:-1])
    config = TrainConfig(out=str(tmp_path / "run"), games=10, chunk_games=5, keep=0.2, depth=2, endgame_seeds=0,
                         held_out=0.5, iterations=20, curve=(0.5,), seed=7)
    full = train(config, progress=False, say=lambda line: None)
    assert set(full["families"]) == set(FAMILIES)
    (point,) = full["curve"]
    assert point["share"] == 0.5 and 0 < point["positions"] < full["meta"]["positions"]
    with pytest.raises(ValueError, match="curve must be a tuple of shares"):
        TrainConfig(curve=(1.5,))


def test_a_store_that_draws_other_games_is_refused(tmp_path):
    """The same settings draw other games from a store that has grown: its chunks are not mixed in."""
    from awale.offline.evaluation_train import run_chunks

    config = TrainConfig(out=str(tmp_path / "run"), games=2, chunk_games=2, keep=0.1, depth=1, endgame_seeds=0,
                         held_out=0.5, iterations=5, seed=3)
    run_chunks(config, progress=False)
    record = tmp_path / "run" / "sampling.json"
    settings = json.loads(record.read_text())
    assert len(settings["games_digest"]) == 16
    record.write_text(json.dumps({**settings, "games_digest": "0" * 16}))
    with pytest.raises(ValueError, match="the games drawn \\(the store holds other champion games now\\)"):
        run_chunks(config, progress=False)
