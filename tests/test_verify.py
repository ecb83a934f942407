"""Provenance: stored games checked through the rules and replayed from their keys (``experiment verify``)."""

import pathlib
import sqlite3

import pytest

from awale.cli import main
from awale.experiments import CATALOG, Store, catalog, count, experiments, load, sprt, verify
from awale.experiments.verify import check_replay, check_rules, time_based
from awale.play.match import play

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "experiments.sqlite"


@pytest.fixture
def store(tmp_path):
    """A store of six seeded games between three cheap agents."""
    path = tmp_path / "games.sqlite"
    specs = [("random", "greedy"), ("greedy(eps=0.2)", "random"), ("uct(iterations=200)", "greedy")]
    with Store(path) as opened:
        opened.add("small", [play(a, b, seed=seed) for a, b in specs for seed in (1, 2)])
    return path


def _tamper(path, sql):
    with sqlite3.connect(path) as db:
        assert db.execute(sql).rowcount == 1


def test_untouched_games_pass_both_checks(store):
    report = verify(store, sample=None)
    assert report.ok and report.games == report.checked == report.replayed == 6 and report.time_based == 0


def test_the_sample_is_seeded_and_bounded(store):
    assert verify(store, sample=2, seed=3).replayed == 2
    assert verify(store, sample=0).replayed == 0
    with pytest.raises(ValueError, match="sample must be an integer at least 0"):
        verify(store, sample=-1)


def test_an_illegal_move_fails_the_rules_check(store):
    # South's first move in a game of 'random' (South) vs 'greedy': every pit holds 4 seeds, so a move of pit 9
    # does not exist; the digit is a legal encoding but not a legal action.
    _tamper(store, "UPDATE games SET moves = '9' || substr(moves, 2) WHERE south = 'random' AND seed = 1")
    report = verify(store, sample=0)
    assert not report.ok and [m.check for m in report.mismatches] == ["rules"]
    assert "move 1 (9) is illegal" in report.mismatches[0].reason


def test_a_changed_winner_fails_the_rules_check(store):
    _tamper(store, "UPDATE games SET winner = CASE WHEN winner = 0 THEN 1 ELSE 0 END WHERE south = 'random' AND seed = 2")
    report = verify(store, sample=0)
    assert [(m.check, m.south, m.seed) for m in report.mismatches] == [("rules", "random", 2)]


def test_a_game_that_does_not_come_from_its_key_fails_the_replay(store):
    # A legal, complete game stored under another seed: the rules cannot tell, the replay can.
    _tamper(store, "UPDATE games SET seed = 77 WHERE south = 'uct(iterations=200)' AND seed = 1")
    report = verify(store, sample=None)
    assert [(m.check, m.seed) for m in report.mismatches] == [("replay", 77)]
    assert "departs at ply" in report.mismatches[0].reason


def test_games_of_time_budgets_are_checked_but_not_replayed(tmp_path):
    path = tmp_path / "timed.sqlite"
    with Store(path) as opened:
        opened.add("timed", [play("mcts(time=0.002)", "greedy", seed=4)])
    report = verify(path, sample=None)
    assert report.ok and report.checked == 1 and report.replayed == 0 and report.time_based == 1
    assert time_based("uct(time=0.5)") and not time_based("uct(iterations=10)") and not time_based("random")


def test_the_command_exits_1_and_names_the_failed_game(store, capsys):
    assert main(["experiment", "verify", "--store", str(store), "--replay-all"]) == 0
    assert "6 of 6 games checked through the rules, 6 replayed" in capsys.readouterr().out
    _tamper(store, "UPDATE games SET north_score = north_score + 1 WHERE south = 'random' AND seed = 2")
    assert main(["experiment", "verify", "small", "--store", str(store), "--sample", "0"]) == 1
    out = capsys.readouterr().out
    assert "FAILED small: random vs greedy (seed 2), rules:" in out and "1 FAILED" in out
    assert main(["experiment", "verify", "nothing", "--store", str(store)]) == 2


# --------------------------------------------------------------------------- the committed data


def test_the_committed_store_holds_the_catalogue():
    assert DATA.exists(), "data/experiments.sqlite, the thesis's games, is missing"
    stored = experiments(DATA)
    openings = sprt.standard_openings()
    tests = {sprt.experiment_name(a, b, catalog.CLAIM_TEST, openings) for a, b in catalog.CLAIMS}
    assert tests <= set(stored)  # the claims' sequential tests, at today's budgets ...
    digest = f"openings={sprt.openings_digest(openings)}"
    earlier = {name for name in stored if name.startswith("sprt ") and name.endswith(digest)}  # ... and earlier ones
    assert set(stored) <= set(CATALOG) | {"ladder"} | earlier
    assert stored.get("eps-grid") == CATALOG["eps-grid"].games * len(CATALOG["eps-grid"].pairings())


def test_every_committed_game_obeys_the_rules():
    frame = load(DATA)
    bad = [(row["experiment"], row["south"], row["north"], row["seed"], reason)
           for row in frame.to_dict("records") if (reason := check_rules(row)) is not None]
    assert not bad and len(frame) == count(DATA)


@pytest.mark.parametrize("experiment", ["solver", "rave", "champions", "knowledge"])
def test_a_sample_of_committed_games_replays_identically(experiment):
    frame = load(DATA, experiment)
    if frame.empty:
        pytest.skip(f"no game of {experiment} committed yet")
    # The cheapest games of the experiment, so the test stays quick: a seeded choice among the shortest third.
    cheap = frame.assign(cost=frame["south_seconds"] + frame["north_seconds"]).nsmallest(max(1, len(frame) // 3), "cost")
    for row in cheap.sample(n=min(3, len(cheap)), random_state=0).to_dict("records"):
        assert check_replay(row) is None, (row["south"], row["north"], row["seed"])
