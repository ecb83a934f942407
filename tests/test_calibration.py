"""Equal time: the calibration positions, the budget fit, and replayed games timed side by side."""

import sqlite3

import pytest

from awale.experiments import Experiment, calibration, run
from awale.experiments.store import decode_moves, encode_moves, load

DATA = "data/experiments.sqlite"


def test_positions_are_whole_strong_games_from_the_store():
    games = calibration.positions(DATA, 400)
    assert sum(map(len, games)) >= 400 and len(games) >= 3
    for game in games:
        assert game[0].plies == 0 and [g.plies for g in game] == list(range(len(game)))
    assert [len(g) for g in calibration.positions(DATA, 400)] == [len(g) for g in games]  # the same every time
    with pytest.raises(ValueError, match="does not exist"):
        calibration.positions("no/such/store.sqlite")
    with pytest.raises(ValueError, match="needed"):
        calibration.positions(DATA, 10**7)


def test_fit_corrects_the_budget_towards_the_target(monkeypatch):
    # A fake machine where uct takes 3 microseconds an iteration plus 1 ms a move.
    measured = []

    def fake(spec, games):
        iterations = int(spec.split("=")[1].split(")")[0].split(",")[0])
        measured.append(iterations)
        return 0.001 + 3e-6 * iterations

    monkeypatch.setattr(calibration, "seconds_per_move", fake)
    budget, made = calibration.fit("uct", 0.010, [[None]], start=1000)
    assert budget == 3000 and abs(made[-1].ratio - 1) <= calibration.TOLERANCE
    assert measured[0] == 1000 and len(made) <= 4
    with pytest.raises(ValueError, match="unknown family"):
        calibration.fit("nothing", 0.01, [[None]], 10)
    with pytest.raises(ValueError, match="positive"):
        calibration.fit("uct", 0, [[None]], 10)


def test_replayed_games_are_timed_and_a_changed_move_is_caught(tmp_path):
    store = tmp_path / "games.sqlite"
    pair = ("minimax(nodes=300)", "uct(iterations=60)")
    tiny = Experiment("tiny", "two agents", lambda: [pair], 4, seed=3)
    run(tiny.keys(), store, "tiny", workers=0, progress=False)
    [times] = calibration.replay_times(str(store), tiny, games=3)
    assert times.games == 3 and times.agent_cpu > 0 and times.opponent_cpu > 0 and times.agent_wall > 0
    first = load(store, "tiny").iloc[0]
    moves = list(decode_moves(first["moves"]))
    with sqlite3.connect(store) as db:  # change the first move of one game: it no longer replays
        changed = encode_moves([(moves[0] + 1) % 6] + moves[1:])
        db.execute("UPDATE games SET moves = ? WHERE seed = ? AND south = ?", (changed, int(first["seed"]), first["south"]))
    with pytest.raises(ValueError, match="where the store has"):
        calibration.replay_times(str(store), tiny, games=4)
    with pytest.raises(ValueError, match="no game"):
        calibration.replay_times(str(store), Experiment("tiny", "others", lambda: [("random", "greedy")], 4))


def test_games_from_openings_are_timed_without_the_openings_moves(tmp_path):
    store = tmp_path / "games.sqlite"
    pair = ("greedy", "uct(iterations=30)")
    tiny = Experiment("tiny", "from openings", lambda: [pair], 2, openings=True)
    run(tiny.keys(), store, "tiny", workers=0, progress=False)
    plies = load(store, "tiny")["plies"].sum()
    [times] = calibration.replay_times(str(store), tiny, games=2)
    assert times.games == 2 and times.moves == plies - 2 * 4  # the openings' four plies are not timed
    assert times.agent_cpu > 0


def test_all_games_replayed_in_two_processes_are_the_games_replayed_in_one(tmp_path):
    store = tmp_path / "games.sqlite"
    tiny = Experiment("tiny", "from openings", lambda: [("greedy", "minimax(nodes=200)")], 4, openings=True)
    run(tiny.keys(), store, "tiny", workers=0, progress=False)
    [alone] = calibration.replay_times(str(store), tiny, games=None)
    [shared] = calibration.replay_times(str(store), tiny, games=None, workers=2)
    assert alone.games == shared.games == 4 and alone.moves == shared.moves == load(store, "tiny")["plies"].sum() - 4 * 4
    with pytest.raises(ValueError, match="at least 1"):
        calibration.replay_times(str(store), tiny, games=0)
    with pytest.raises(ValueError, match="workers"):
        calibration.replay_times(str(store), tiny, workers=0)


def test_agents_are_measured_in_turn_game_by_game(monkeypatch):
    # Each agent plays a whole game, then the next the same game: a change of load falls on all of them.
    calls = []

    class Recorder:
        endgame = None

        def __init__(self, spec):
            self.spec = spec

        def reset(self):
            calls.append((self.spec, "reset"))

        def act(self, game):
            calls.append((self.spec, game))
            return 0

    monkeypatch.setattr(calibration, "parse", Recorder)
    games = [["a1", "a2"], ["b1"]]
    seconds = calibration.interleaved_seconds(["x", "y", "x"], games)
    assert set(seconds) == {"x", "y"} and all(value >= 0 for value in seconds.values())
    timed = [call for call in calls[4:] if call[1] != "reset"]  # after each agent's untimed first move
    assert timed == [("x", "a1"), ("x", "a2"), ("y", "a1"), ("y", "a2"), ("x", "b1"), ("y", "b1")]


def test_a_budget_is_rescaled_within_its_family():
    assert calibration.family_of("champion(nodes=11000, endgame='15')") == ("champion", 11000)
    assert calibration.family_of("minimax(nodes=7900, evaluation=True, quiescence=4)") == ("αβ + evaluation", 7900)
    assert calibration.family_of("uct(iterations=750)") == ("uct", 750)
    assert calibration.family_of("uct(iterations=2800, reuse=True)") is None  # no family has reuse
    # the order of the parameters does not matter: the same agent once parsed
    assert calibration.family_of("minimax(nodes=44000, endgame='15', quiescence=4)") == ("αβ + quiescence + endgame", 44000)
    assert calibration.rescaled("uct(iterations=740)", 0.5) == "uct(iterations=370)"  # two significant figures
    assert calibration.rescaled("openspiel_mcts(iterations=1700)", 35.557 / 30.146) == "openspiel_mcts(iterations=2000)"
    assert calibration.rescaled("random", 2.0) is None
    with pytest.raises(ValueError, match="positive"):
        calibration.rescaled("uct(iterations=750)", 0)


def test_a_slower_side_is_offered_a_smaller_budget_and_the_faster_a_larger():
    times = calibration.PairTimes("uct(iterations=1000)", "openspiel_mcts(iterations=200)", 20,
                                  0.012, 0.010, 0.012, 0.010)
    assert times.ratio == pytest.approx(1.2)
    assert times.balanced() == ("uct(iterations=830)", "openspiel_mcts(iterations=240)")
