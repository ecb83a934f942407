"""The SPRT on paired games: the LLR against hand-computed values, pentanomial against trinomial, the
opening agent, and whole tests that decide (H0 for an agent against itself, H1 against a much weaker one),
resume to the same verdict, and refuse bad arguments with one line."""

import dataclasses
import math
import os

import numpy as np
import pytest
from scipy.optimize import minimize

from awale.agents import parse
from awale.cli import main
from awale.experiments import Store, run, verify
from awale.experiments import sprt
from awale.experiments.sprt import SPRT, estimate, llr, logistic_score, pentanomial, trinomial
from awale.play.match import play

OPENINGS = str(sprt.OPENINGS_FILE)


def s(elo):
    return 1 / (1 + 10 ** (-elo / 400))


# --------------------------------------------------------------------------- the model


def test_logistic_score_and_its_inverse():
    assert logistic_score(0) == 0.5
    assert logistic_score(400) == pytest.approx(10 / 11)
    assert sprt.logistic_elo(10 / 11) == pytest.approx(400)
    assert sprt.logistic_elo(1.0) == math.inf and sprt.logistic_elo(0.0) == -math.inf


def test_llr_of_two_point_counts_by_hand():
    """Pairs only 1 (DD or WL) and 2 (WW), 10 of each: the distribution with mean s on {½, 1} is unique.

    p(WW) = 2s - 1 and p(1) = 2 - 2s, so LLR = 10 ln((2 s1 - 1)/(2 s0 - 1)) + 10 ln((2 - 2 s1)/(2 - 2 s0)).
    With elo0 = 100, elo1 = 200: s0 = 0.640065, s1 = 0.759747, LLR = 2.1337.
    """
    s0, s1 = s(100), s(200)
    hand = 10 * math.log((2 * s1 - 1) / (2 * s0 - 1)) + 10 * math.log((2 - 2 * s1) / (2 - 2 * s0))
    assert hand == pytest.approx(2.1337, abs=1e-4)
    assert llr([0, 0, 10, 0, 10], 100, 200, regularization=0) == pytest.approx(hand, rel=1e-9)
    # fastchess's regularization (empty bins count 0.001) barely moves it
    assert llr([0, 0, 10, 0, 10], 100, 200) == pytest.approx(hand, abs=0.2)


def test_llr_of_wins_and_losses_by_hand():
    """n wins and n losses (trinomial), or n pairs scoring 0 and n scoring 2: on {0, 1} the mean is p(1).

    LLR = n ln(s1 / s0) + n ln((1 - s1) / (1 - s0)): negative, since the data say 50 %.
    """
    s0, s1 = s(0), s(10)
    hand = 7 * math.log(s1 / s0) + 7 * math.log((1 - s1) / (1 - s0))
    assert hand == pytest.approx(-0.005798, abs=1e-6)  # s1 = 0.514389: 7 (0.028372 - 0.029200)
    assert llr([7, 0, 7], 0, 10, regularization=0) == pytest.approx(hand, rel=1e-9)
    assert llr([7, 0, 0, 0, 7], 0, 10, regularization=0) == pytest.approx(hand, rel=1e-9)


def test_llr_is_zero_at_the_observed_mean_and_without_data():
    # mean ½ and H0 at ½: the distribution of H0 is the observed one; H1 = H0 gives 0.
    assert llr([1, 2, 3, 2, 1], 0, 0.0001) == pytest.approx(0, abs=1e-4)
    assert llr([0, 0, 0, 0, 0], 0, 10) == 0.0


def _llr_by_optimizer(counts, elo0, elo1):
    """The same GLLR by a general constrained optimizer (SLSQP): an independent computation."""
    counts = np.asarray(counts, float)
    a = np.linspace(0, 1, len(counts))
    f = counts / counts.sum()

    def best(mean):
        constraints = [{"type": "eq", "fun": lambda p: p.sum() - 1}, {"type": "eq", "fun": lambda p: p @ a - mean}]
        found = minimize(lambda p: -(f @ np.log(p)), f, constraints=constraints, bounds=[(1e-12, 1)] * len(f),
                         method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
        return found.x

    return counts.sum() * (f @ (np.log(best(s(elo1))) - np.log(best(s(elo0)))))


@pytest.mark.parametrize("counts, elo0, elo1", [
    ([3, 10, 30, 12, 5], 0, 10), ([1, 4, 20, 9, 6], -5, 5), ([12, 30, 25], 0, 20), ([2, 7, 40, 14, 3], 0, 50),
])
def test_llr_agrees_with_a_general_optimizer(counts, elo0, elo1):
    assert llr(counts, elo0, elo1) == pytest.approx(_llr_by_optimizer(counts, elo0, elo1), abs=1e-5)


def test_pentanomial_and_trinomial_agree_on_independent_games():
    """Two independent games per pair: the pair adds no information, and both models give about the same LLR."""
    rng = np.random.default_rng(1)
    results = rng.choice([0.0, 0.5, 1.0], p=[0.3, 0.3, 0.4], size=(4000, 2))
    penta = llr(pentanomial(map(tuple, results)), 0, 20)
    tri = llr(trinomial(results.ravel()), 0, 20)
    assert penta > 2.94 and tri > 2.94
    assert penta == pytest.approx(tri, rel=0.1)


def test_pentanomial_sees_what_an_opening_bias_hides():
    """Each opening wins for the side that starts it, so pairs are mostly one win and one loss.

    Game by game the results look like coin flips (high variance); pair by pair nearly all score 1 (low
    variance): at the same score the pentanomial LLR rejects a gain far sooner.
    """
    pairs = [(1.0, 0.0)] * 45 + [(0.0, 1.0)] * 45 + [(1.0, 1.0)] * 5 + [(0.0, 0.0)] * 5
    penta = llr(pentanomial(pairs), 0, 20)
    tri = llr(trinomial([r for pair in pairs for r in pair]), 0, 20)
    assert estimate(pentanomial(pairs)).score == pytest.approx(0.5)
    assert penta < tri < 0
    assert penta < 3 * tri


def test_counting_pairs_and_games():
    pairs = [(1, 1), (1, 0.5), (0.5, 0.5), (1, 0), (0, 0.5), (0, 0)]
    assert pentanomial(pairs) == (1, 1, 2, 1, 1)
    assert trinomial([1, 0.5, 0, 0, 1]) == (2, 1, 2)
    with pytest.raises(ValueError, match="0, 0.5 or 1"):
        pentanomial([(1, 0.25)])


def test_estimate_of_pairs():
    est = estimate([0, 0, 4, 0, 4])  # pair scores per game ½ and 1: mean ¾, variance 1/16 per pair
    assert est.score == pytest.approx(0.75)
    half = 1.959963984540054 * math.sqrt(1 / 16 / 8)
    assert (est.low, est.high) == pytest.approx((0.75 - half, 0.75 + half))
    assert est.elo == pytest.approx(400 * math.log10(3))


def test_the_bounds_and_the_verdicts():
    test = SPRT(0, 10, 0.05, 0.05)
    assert (test.lower, test.upper) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    assert test.verdict([0, 0, 0, 0, 300]).hypothesis == "H1"
    assert test.verdict([300, 0, 0, 0, 0]).hypothesis == "H0"
    undecided = test.verdict([1, 1, 1, 1, 1])
    assert undecided.hypothesis is None and not undecided.finished
    final = test.verdict([1, 1, 1, 1, 1], final=True)
    assert final.inconclusive and "inconclusive" in final.conclusion()


@pytest.mark.parametrize("args, message", [
    ((10, 0), "elo0 must be less than elo1"), ((0, 10, 0.0), "alpha must lie strictly"),
    ((0, 10, 0.5, 0.5), "alpha \\+ beta"), ((0, math.inf), "elo1 must be a finite number"),
    ((0, 5000), "within"),
])
def test_bad_tests_are_refused(args, message):
    with pytest.raises(ValueError, match=message):
        SPRT(*args)


# --------------------------------------------------------------------------- openings


def test_the_committed_openings_are_legal_distinct_and_balanced_by_their_note():
    openings = sprt.load_openings(OPENINGS)
    assert len(openings) == 708 and len(set(openings)) == 708
    assert all(len(line) == 4 for line in openings)


@pytest.mark.parametrize("text, message", [
    ("12a4\n", "string of digits"), ("0\n0\n", "already on line 1"), ("# nothing\n", "no openings"),
    ("000\n", "not legal"),
])
def test_bad_openings_files(tmp_path, text, message):
    path = tmp_path / "o.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        sprt.load_openings(path)


def test_the_opening_agent_plays_its_line_then_its_agent():
    record = play("opening(agent='greedy', moves='2514')", "opening(agent='minimax(depth=2)', moves='2514')", seed=3)
    assert record.moves[:4] == (2, 5, 1, 4)
    agent = parse("opening( moves='25', agent='greedy(eps=0.0)')")
    assert str(agent) == "opening(agent='greedy', moves='25')" and str(parse(str(agent))) == str(agent)
    assert parse("opening(agent='random', moves='25', seed=9)").inner.seed == 9
    for bad, message in [("opening(agent='greedy', moves='9')", "digits 0 to 5"), ("opening(moves='1')", "cannot be None"),
                         ("opening(agent=\"opening(agent='greedy')\")", "cannot itself")]:
        with pytest.raises(ValueError, match=message):
            parse(bad)
    with pytest.raises(ValueError, match="not legal"):
        play("opening(agent='greedy', moves='000')", "opening(agent='greedy', moves='000')")


def test_the_two_games_of_a_pair():
    first, second = sprt.pair_keys("greedy", "random", ["0123", "5432"], 1, seed=4)
    assert first.south == second.north == "opening(agent='greedy', moves='5432')"
    assert first.north == second.south == "opening(agent='random', moves='5432')"
    assert first.seed != second.seed
    same = sprt.pair_keys("random", "random", ["0123"], 0)
    assert same[0] != same[1]


# --------------------------------------------------------------------------- whole tests


def test_an_agent_against_itself_accepts_h0(tmp_path):
    lines = []
    plan = sprt.TestPlan("random", "random", SPRT(0, 100), sprt.load_openings(OPENINGS))
    verdict = sprt.sequential(plan, tmp_path / "s.sqlite", workers=0, live=lambda v: lines.append(v.line()))
    assert verdict.hypothesis == "H0" and verdict.finished and verdict.pairs <= 200
    assert lines and verdict.line() == lines[-1]  # after each batch, the last checkpoint: the deciding one last
    assert "LLR" in lines[-1] and "(-2.94, 2.94)" in lines[-1] and "W-D-L" in lines[-1]
    with Store(tmp_path / "s.sqlite") as store:
        assert store.count() == 2 * verdict.pairs + verdict.beyond


def test_a_much_stronger_agent_accepts_h1_quickly_and_its_games_replay(tmp_path):
    path = tmp_path / "s.sqlite"
    plan = sprt.TestPlan("minimax(depth=4)", "random", SPRT(0, 100), sprt.load_openings(OPENINGS))
    verdict = sprt.sequential(plan, path, workers=0)
    assert verdict.hypothesis == "H1" and verdict.pairs <= 24 and verdict.estimate.score > 0.95
    assert verdict.games[0] > 0.95 * 2 * verdict.pairs
    assert verify(path, sample=None, progress=False).ok


def test_an_interrupted_test_resumes_to_the_same_verdict_without_playing_a_game_twice(tmp_path):
    openings = sprt.load_openings(OPENINGS)
    test = SPRT(0, 60)
    plan = sprt.TestPlan("greedy(eps=0.8)", "random", test, openings)
    reference = sprt.sequential(plan, tmp_path / "ref.sqlite", workers=0)
    assert reference.hypothesis == "H1" and reference.pairs > 16  # decided after the interruption below

    path = tmp_path / "s.sqlite"
    looks = []

    def stop_after_two(verdict):
        looks.append(verdict)
        if len(looks) == 2:
            raise KeyboardInterrupt

    with pytest.raises(sprt.SPRTInterrupted) as info:
        sprt.sequential(plan, path, workers=0, live=stop_after_two)
    kept = info.value.verdict.pairs  # every complete pair, counted in order
    assert 16 <= kept < reference.pairs and info.value.stored == 2 * kept
    # a half-played pair as a crash would leave it: one game of the next pair
    name = sprt.experiment_name("greedy(eps=0.8)", "random", test, openings)
    pair = sprt.pair_keys("greedy(eps=0.8)", "random", sprt.shuffled(openings), kept)
    run([pair[0]], path, name, workers=0, progress=False)

    resumed = sprt.sequential(plan, path, workers=0)
    assert (resumed.hypothesis, resumed.counts, resumed.llr) == (reference.hypothesis, reference.counts, reference.llr)
    order = sprt.shuffled(openings)
    counted = {key.stored for i in range(reference.pairs) for key in sprt.pair_keys("greedy(eps=0.8)", "random", order, i)}
    with Store(path) as store:
        stored = store.keys(name)
        assert counted <= stored and store.count(name) == len(stored) == 2 * resumed.pairs + resumed.beyond
        before = store.count(name)

    again = sprt.sequential(plan, path, workers=0)  # decided: nothing to play
    assert again.counts == reference.counts
    with Store(path) as store:
        assert store.count(name) == before
    # The chapters read a verdict from the store alone, the same as the run's, and play nothing.
    read = sprt.stored_verdict(plan, path)
    assert (read.hypothesis, read.counts, read.llr, read.finished) == (
        reference.hypothesis, reference.counts, reference.llr, True)
    with Store(path) as store:
        assert store.count(name) == before
    assert not sprt.stored_verdict(plan, tmp_path / "empty.sqlite").finished


def test_max_pairs_ends_inconclusive(tmp_path):
    plan = sprt.TestPlan("random", "random", SPRT(-5, 5), ["0123", "2514"], max_pairs=5, check_every=2)
    verdict = sprt.sequential(plan, tmp_path / "s.sqlite", workers=0)
    assert verdict.inconclusive and verdict.pairs == 5


# --------------------------------------------------------------------------- the command


def test_the_command_decides_and_prints_the_verdict(tmp_path, capsys):
    args = ["sprt", "minimax(depth=4)", "random", "--elo0", "0", "--elo1", "100", "--store", str(tmp_path / "s.sqlite"),
            "--workers", "0", "--openings", OPENINGS]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert out.startswith("SPRT [0, 100] alpha=0.05 beta=0.05: H1 accepted") and "LLR" in out
    assert "pairs" in err and "W-D-L" in err and "LLR" in err
    assert main(args) == 0  # again: counted from the store
    out, err = capsys.readouterr()
    with Store(tmp_path / "s.sqlite") as store:
        stored = store.count()
    assert stored >= 32 and "H1 accepted" in out and f"; {stored} games already in" in err
    assert "LLR 3.95" in out and "after 16 pairs" in out
    assert f"already in {tmp_path / 's.sqlite'} (16 pairs (32 games), W-D-L" in err


def test_a_resumed_command_says_the_stored_pairs_once_and_keeps_its_cap(tmp_path, capsys):
    args = ["sprt", "random", "random", "--elo0", "-5", "--elo1", "5", "--store", str(tmp_path / "s.sqlite"),
            "--workers", "0", "--openings", OPENINGS, "--check-every", "4"]
    assert main([*args, "--max-pairs", "8"]) == 0
    out, err = capsys.readouterr()
    assert "inconclusive" in out and "; 0 games already in" in err
    assert main([*args, "--max-pairs", "12"]) == 2  # a larger cap is another test: refused, nothing played
    out, err = capsys.readouterr()
    assert "started with max_pairs 8 and check_every 4" in err and "another seed" in err
    assert len(err.strip().splitlines()) == 2 and not out  # the opening line, then the refusal
    with Store(tmp_path / "s.sqlite") as store:
        assert store.count() == 16 and store.cap(next(iter(store.experiments()))) == (8, 4)
    assert main([*args, "--max-pairs", "8"]) == 0  # the same cap: read from the store, nothing replayed
    out, err = capsys.readouterr()
    first, *rest = err.splitlines()
    assert "; 16 games already in" in first and "(8 pairs (16 games), W-D-L" in first
    assert not any(line.startswith("4 pairs") for line in rest)  # the checkpoints are not replayed
    assert "after 8 pairs" in out
    assert main([*args, "--max-pairs", "12", "--seed", "1"]) == 0  # another seed: a new test with its own cap
    out, _ = capsys.readouterr()
    assert "after 12 pairs" in out


def test_the_library_refuses_a_changed_cap_or_checkpoints(tmp_path):
    plan = sprt.TestPlan("random", "random", SPRT(-5, 5), ["0123", "2514"], max_pairs=3, check_every=1)
    path = tmp_path / "s.sqlite"
    assert sprt.sequential(plan, path, workers=0).pairs == 3
    for changed in ({"max_pairs": 2}, {"max_pairs": 4}, {"check_every": 3}):
        with pytest.raises(sprt.CapChanged, match="started with max_pairs 3 and check_every 1"):
            sprt.sequential(dataclasses.replace(plan, **changed), path, workers=0)
    with Store(path) as store:
        assert store.count(plan.store_name) == 6 and store.cap(plan.store_name) == (3, 1)
    # reading a stored test at another cap is allowed: it plays nothing and changes no record
    assert sprt.stored_verdict(dataclasses.replace(plan, max_pairs=2), path).pairs == 2


def test_the_command_under_a_clock_keeps_its_games_apart(tmp_path, capsys):
    store = tmp_path / "s.sqlite"
    args = ["sprt", "minimax(depth=2)", "random", "--elo0", "0", "--elo1", "100", "--store", str(store),
            "--workers", "0", "--openings", OPENINGS, "--max-pairs", "8"]
    assert main([*args, "--clock", "60+0.5"]) == 0
    out, err = capsys.readouterr()
    assert "clocked(agent='minimax(depth=2)', tc='60+0.5') vs clocked(agent='random', tc='60+0.5')" in err
    with Store(store) as opened:
        (name,) = opened.experiments()
        frame = opened.load(name)
    assert "tc='60+0.5'" in name and len(frame) == 16
    assert all(spec.startswith("opening(agent=\"clocked(") for spec in frame["south"])
    assert main(args) == 0  # the same test without a clock: counted apart, from none of the clocked games
    out, err = capsys.readouterr()
    assert "; 0 games already in" in err
    report = verify(store, sample=None)
    assert report.ok and report.time_based == 16 and report.replayed == 16


@pytest.mark.parametrize("extra, message", [
    (["--elo0", "10", "--elo1", "0"], "elo0 must be less than elo1"),
    (["--elo0", "0", "--elo1", "10", "--alpha", "1.5"], "--alpha must be above 0 and below 1"),
    (["--elo0", "0"], "required: --elo1"),
    (["--elo0", "0", "--elo1", "10", "--openings", "missing.txt"], "cannot read the openings"),
    (["--elo0", "0", "--elo1", "10", "--max-pairs", "0"], "--max-pairs must be at least 1"),
    (["--elo0", "0", "--elo1", "10", "--clock", "60+"], "bad clock '60+'"),
    (["--elo0", "0", "--elo1", "10", "--clock", "abc"], "expected BASE+INCREMENT"),
])
def test_bad_arguments_give_one_line_and_status_2(tmp_path, capsys, extra, message):
    with pytest.raises(SystemExit) as info:
        code = main(["sprt", "greedy", "random", "--store", str(tmp_path / "s.sqlite"), *extra])
        raise SystemExit(code)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_an_interrupted_command_exits_130_keeping_the_games(tmp_path, capsys, monkeypatch):
    calls = []
    real = sprt.sequential

    def interrupting(*args, live=None, **kwargs):
        def stop(verdict):
            calls.append(verdict)
            raise KeyboardInterrupt
        return real(*args, live=stop, **kwargs)

    monkeypatch.setattr(sprt, "sequential", interrupting)
    code = main(["sprt", "greedy", "random", "--elo0", "0", "--elo1", "100", "--store", str(tmp_path / "s.sqlite"),
                 "--workers", "0", "--openings", OPENINGS])
    assert code == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("python -m awale: interrupted: 8 pairs") and "run the same command again" in err[-1]


def test_an_interrupted_test_leaves_the_ledger_alone(tmp_path, capsys, monkeypatch):
    """A ledger row is a finished test's: an interrupted one writes none (its resumption will)."""
    real = sprt.sequential

    def interrupting(*args, live=None, **kwargs):
        def stop(verdict):
            raise KeyboardInterrupt
        return real(*args, live=stop, **kwargs)

    monkeypatch.setattr(sprt, "sequential", interrupting)
    ledger = tmp_path / "ledger.csv"
    code = main(["sprt", "greedy", "random", "--elo0", "0", "--elo1", "100", "--store", str(tmp_path / "s.sqlite"),
                 "--workers", "0", "--ledger", "greed", "--ledger-file", str(ledger)])
    assert code == 130 and not ledger.exists()
    assert capsys.readouterr().err.strip().endswith("the ledger gets its row when the test ends")


def test_the_verdict_is_the_same_on_a_dask_cluster(tmp_path):
    """One local worker process through Dask, kept for every batch: the same pairs, counts and LLR as in this process."""
    openings = sprt.load_openings(OPENINGS)
    plan = sprt.TestPlan("greedy(eps=0.8)", "random", SPRT(0, 60), openings)
    here = sprt.sequential(plan, tmp_path / "a.sqlite", workers=0)
    there = sprt.sequential(plan, tmp_path / "b.sqlite", workers=1)
    assert (there.hypothesis, there.counts, there.llr) == (here.hypothesis, here.counts, here.llr)


@pytest.mark.parametrize("bounds, counts, expected", [
    ((0, 50), [0, 0, 0, 0, 40], "H1 accepted (elo >= 50 rather than <= 0; A is stronger)"),
    ((0, 50), [40, 0, 0, 0, 0], "H0 accepted (elo <= 0 rather than >= 50; no gain of 50 Elo)"),
    ((-5, 0), [200, 100, 600, 100, 0], "H0 accepted (elo <= -5 rather than >= 0; A is weaker)"),
    ((-5, 0), [0, 100, 600, 100, 200], "H1 accepted (elo >= 0 rather than <= -5; A is not 5 Elo weaker)"),
])
def test_verdicts_read_correctly_for_any_bounds(bounds, counts, expected):
    verdict = SPRT(*bounds).verdict(counts)
    assert expected in verdict.conclusion()
    assert "gain of 0 Elo" not in verdict.conclusion()


def test_the_live_line_fits_80_columns_with_the_llr():
    verdict = SPRT(-5, 0).verdict([12345, 23456, 34567, 23456, 12345])
    verdict = type(verdict)(verdict.test, verdict.counts, verdict.llr, verdict.hypothesis, verdict.finished,
                            games=(123456, 23456, 123456))
    line = verdict.short_line()
    assert len(line) < 80 and line.startswith("LLR ") and f"{verdict.llr:.2f}" in line, line
