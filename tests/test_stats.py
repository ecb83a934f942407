"""The statistics of the method: tests against known answers, the thesis's numbers and simulations."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special, stats

from awale.experiments.stats import (
    ELO_PER_NATURAL_UNIT,
    NotAWeakOrder,
    Tournament,
    bootstrap_ratings,
    compare,
    detectable,
    elo,
    factorial_effects,
    games_needed,
    holm,
    is_step_type,
    power,
    ratings,
    round_robin,
    step_type,
    stronger,
    weak_order,
    weak_tournament,
)


def games(*rows):
    """A table of games from ``(south, north, winner)`` rows, with extra columns as the store has."""
    frame = pd.DataFrame(rows, columns=["south", "north", "winner"])
    frame["plies"] = 100
    frame["seed"] = range(len(frame))
    return frame


def record(a, b, wins, draws, losses):
    """Rows of ``a``'s games against ``b``, alternating sides: ``wins`` won, ``draws`` drawn, ``losses`` lost."""
    outcomes = ["win"] * wins + ["draw"] * draws + ["loss"] * losses
    rows = []
    for g, outcome in enumerate(outcomes):
        south, north = (a, b) if g % 2 == 0 else (b, a)
        a_side = 0 if south == a else 1
        winner = None if outcome == "draw" else (a_side if outcome == "win" else 1 - a_side)
        rows.append((south, north, winner))
    return rows


def relation(names, ones):
    """A binary relation as a DataFrame, from the set of pairs ``(i, j)`` with ``i ⪰ j`` (reflexive added)."""
    matrix = [[int(a == b or (a, b) in ones) for b in names] for a in names]
    return pd.DataFrame(matrix, index=names, columns=names)


# --- Two agents ------------------------------------------------------------------------------------


def test_an_even_record_is_not_significant():
    result = compare(25, 0, 25)
    assert result.pvalue == pytest.approx(1.0)
    assert result.low < 0.5 < result.high
    assert (result.games, result.points, result.score) == (50, 25.0, 0.5)
    assert not result.significant and not result.stronger and not result.weaker


def test_a_lopsided_record_rejects():
    result = compare(40, 0, 10)
    assert result.pvalue == pytest.approx(stats.binomtest(40, 50).pvalue)
    assert result.pvalue < 1e-4
    assert result.significant and result.stronger and not result.weaker
    assert 0.5 < result.low < 0.8 < result.high
    assert compare(10, 0, 40).weaker


def test_the_thesis_thresholds_out_of_50_games():
    # Two-sided at 5 %: 33 wins make A stronger and 18 keep it "not weaker", the thesis's ⪰ threshold.
    # The thesis's ≻ threshold, 32, is that of a one-sided test.
    assert [w for w in range(51) if compare(w, 0, 50 - w).stronger][0] == 33
    assert [w for w in range(51) if not compare(w, 0, 50 - w).weaker][0] == 18
    assert stats.binomtest(32, 50, alternative="greater").pvalue < 0.05 < compare(32, 0, 18).pvalue


def test_draws_are_left_out_of_the_test():
    # 10 wins, 2 losses and 38 draws: the sign test on the 12 decisive games rejects,
    # although the score (0.58 over 50 games) has an interval containing ½.
    result = compare(10, 38, 2)
    assert result.pvalue == pytest.approx(stats.binomtest(10, 12).pvalue)
    assert result.stronger
    assert result.score == pytest.approx(0.58)
    assert result.low < 0.5 < result.high
    assert compare(5, 10, 5).pvalue == compare(5, 0, 5).pvalue
    only_draws = compare(0, 50, 0)
    assert only_draws.pvalue == 1.0 and only_draws.score == 0.5 and not only_draws.significant


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (33, 50), (1, 1), (70, 200)])
@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.2])
def test_intervals_match_independent_computations(k, n, alpha):
    z = stats.norm.ppf(1 - alpha / 2)
    p = k / n  # Wilson (1927), written around the proportion
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z / (1 + z**2 / n) * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    wilson = compare(k, 0, n - k, alpha=alpha, method="wilson")
    assert (wilson.low, wilson.high) == pytest.approx((max(0, centre - half), min(1, centre + half)), abs=1e-12)
    scipy_wilson = stats.binomtest(k, n).proportion_ci(1 - alpha, method="wilson")
    assert (wilson.low, wilson.high) == pytest.approx((scipy_wilson.low, scipy_wilson.high), abs=1e-12)
    exact = compare(k, 0, n - k, alpha=alpha, method="clopper-pearson")
    scipy_exact = stats.binomtest(k, n).proportion_ci(1 - alpha, method="exact")
    assert (exact.low, exact.high) == pytest.approx((scipy_exact.low, scipy_exact.high), abs=1e-12)


def test_half_points_give_intervals_between_their_neighbours():
    for method in ("wilson", "clopper-pearson"):
        below, half, above = (compare(w, d, 20 - w - d, method=method) for w, d in ((10, 0), (10, 1), (11, 0)))
        assert half.points == 10.5
        assert below.low < half.low < above.low and below.high < half.high < above.high


@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 60), st.sampled_from(["wilson", "clopper-pearson"]))
def test_comparisons_are_symmetric(wins, draws, losses, method):
    if wins + draws + losses == 0:
        return
    ab, ba = compare(wins, draws, losses, method=method), compare(losses, draws, wins, method=method)
    assert ab.pvalue == pytest.approx(ba.pvalue)
    assert (ab.low, ab.high) == pytest.approx((1 - ba.high, 1 - ba.low), abs=1e-9)
    assert ab.low <= ab.score <= ab.high
    assert ab.stronger == ba.weaker and not (ab.stronger and ab.weaker)


@pytest.mark.parametrize(
    "args,message",
    [
        ((0, 0, 0), "no games"),
        ((-1, 0, 3), "wins must be an integer"),
        ((1, 2.0, 3), "draws must be an integer"),
        ((1, 0, True), "losses must be an integer"),
        ((1, 0, 3, 0.0), "alpha must be a number strictly between 0 and 1"),
        ((1, 0, 3, 0.05, "normal"), "method must be one of"),
    ],
)
def test_compare_rejects_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        compare(*args)


# --- Power -----------------------------------------------------------------------------------------


def test_the_thesis_needs_49_games():
    assert games_needed(0.75, 0.95, 0.05) == 49
    assert games_needed() == 49


def test_power_is_not_monotone_in_the_number_of_games():
    assert power(49) >= 0.95 > power(50)
    assert power(53) < 0.95 and all(power(n) >= 0.95 for n in range(54, 300))


def brute_power(n, p, alpha):
    """The power from scipy's own test, outcome by outcome (rejections in p's direction)."""
    total = 0.0
    for k in range(n + 1):
        right_way = k > n / 2 if p > 0.5 else k < n / 2 if p < 0.5 else True
        if right_way and stats.binomtest(k, n, 0.5).pvalue <= alpha:
            total += stats.binom.pmf(k, n, p)
    return total


@pytest.mark.parametrize("p", [0.75, 0.3, 0.5, 0.9])
@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.1, 0.0625])
def test_power_agrees_with_the_test_it_describes(p, alpha):
    assert power(0, p, alpha) == 0.0
    for n in list(range(1, 40)) + [49, 50, 97]:
        assert power(n, p, alpha) == pytest.approx(brute_power(n, p, alpha), abs=1e-12), n


def test_games_needed_is_the_first_number_reaching_the_power():
    for p, target, alpha in [(0.75, 0.95, 0.05), (0.6, 0.8, 0.05), (0.3, 0.9, 0.01), (0.55, 0.8, 0.05)]:
        n = games_needed(p, target, alpha)
        assert power(n, p, alpha) >= target
        assert all(power(m, p, alpha) < target for m in range(n))


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(p=0.5), "p must differ from 0.5"),
        (dict(p=1.0), "p must be a number strictly between 0 and 1"),
        (dict(power=0.0), "power must be"),
        (dict(alpha=1.5), "alpha must be"),
        (dict(p=0.5001, max_games=1000), "needs more than max_games"),
    ],
)
def test_games_needed_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        games_needed(**kwargs)


def test_power_rejects_bad_input():
    with pytest.raises(ValueError, match="n must be an integer"):
        power(-1)
    with pytest.raises(ValueError, match="p must be a number in"):
        power(10, 1.5)


# --- Tournaments -----------------------------------------------------------------------------------


def test_round_robin_counts_each_game_for_both_agents_on_either_side():
    frame = games(("a", "b", 0), ("b", "a", 0), ("a", "b", None), ("c", "a", 1), ("c", "a", np.nan), ("a", "a", 0))
    tournament = round_robin(frame)
    assert tournament.agents == ("a", "b", "c")
    np.testing.assert_array_equal(tournament.wins, [[0, 1, 1], [1, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(tournament.draws, [[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    np.testing.assert_array_equal(tournament.games, [[0, 3, 2], [3, 0, 0], [2, 0, 0]])
    scores = tournament.scores
    assert scores.loc["a", "b"] == pytest.approx(0.5) and scores.loc["a", "c"] == pytest.approx(0.75)
    assert scores.loc["c", "a"] == pytest.approx(0.25) and np.isnan(scores.loc["b", "c"])


def test_round_robin_reads_every_kind_of_missing_winner():
    rows = [("a", "b", 0), ("b", "a", 1), ("a", "b", None)]
    expected = round_robin(games(*rows))
    for column in (pd.array([0, 1, None], dtype="Int64"), [0.0, 1.0, np.nan], pd.Series([0, 1, None], dtype=object)):
        frame = games(*rows)
        frame["winner"] = column
        tournament = round_robin(frame)
        np.testing.assert_array_equal(tournament.wins, expected.wins)
        np.testing.assert_array_equal(tournament.draws, expected.draws)


@pytest.mark.parametrize(
    "frame,message",
    [
        ([("a", "b", 0)], "must be a pandas DataFrame"),
        (pd.DataFrame({"south": ["a"], "north": ["b"]}), "lacks the column"),
        (games(("a", "b", 2)), "winner must be 0"),
        (games(("a", None, 0)), "names of both agents"),
        (games(), "no games"),
    ],
)
def test_round_robin_rejects_bad_tables(frame, message):
    with pytest.raises(ValueError, match=message):
        round_robin(frame)


def test_tournament_checks_its_matrices():
    with pytest.raises(ValueError, match="symmetric"):
        Tournament(("a", "b"), np.zeros((2, 2), int), [[0, 1], [0, 0]])
    with pytest.raises(ValueError, match="2 x 2"):
        Tournament(("a", "b"), np.zeros((3, 3), int), np.zeros((2, 2), int))
    with pytest.raises(ValueError, match="integers at least 0"):
        Tournament(("a", "b"), [[0, -1], [0, 0]], np.zeros((2, 2), int))
    with pytest.raises(ValueError, match="zero diagonal"):
        Tournament(("a", "b"), [[1, 0], [0, 0]], np.zeros((2, 2), int))
    with pytest.raises(ValueError, match="distinct"):
        Tournament(("a", "a"), np.zeros((2, 2), int), np.zeros((2, 2), int))


# The thesis's mind experiment (Marchant 2021, Fig. "mind-exp"): the first player picks node 2, 3 or 4,
# the second player a leaf below it; leaves 5, 7 and 9 are won by the first player, 6, 8 and 10 by the second.
FIRST_PLAYER_WINS = {5: True, 6: False, 7: True, 8: False, 9: True, 10: False}
STRATEGIES = {  # the thesis's table: the node each agent moves to from nodes 1 to 4
    "A": {1: 2, 2: 5, 3: 8, 4: 9},
    "B": {1: 3, 2: 5, 3: 7, 4: 10},
    "C": {1: 4, 2: 6, 3: 7, 4: 9},
}


def mind_experiment(games_per_side=25):
    rows = []
    for south in STRATEGIES:
        for north in STRATEGIES:
            if south != north:
                leaf = STRATEGIES[north][STRATEGIES[south][1]]
                rows += [(south, north, 0 if FIRST_PLAYER_WINS[leaf] else 1)] * games_per_side
    return games(*rows)


def test_the_thesis_mind_experiment_is_cyclic():
    tournament = round_robin(mind_experiment())
    np.testing.assert_array_equal(tournament.wins, [[0, 50, 0], [0, 0, 50], [50, 0, 0]])
    relation = weak_tournament(tournament)
    assert stronger(tournament).loc["A", "B"] and stronger(tournament).loc["B", "C"]
    assert stronger(tournament).loc["C", "A"]
    assert not is_step_type(step_type(relation))
    with pytest.raises(NotAWeakOrder, match="not transitive") as caught:
        weak_order(relation)
    assert isinstance(caught.value, ValueError)
    assert set(caught.value.cycle) == {"A", "B", "C"}


def test_a_transitive_tournament_gives_its_order_with_ties():
    rows = (
        record("strong", "middle", 40, 0, 10)
        + record("strong", "weak", 45, 0, 5)
        + record("middle", "weak", 40, 4, 6)
        + record("strong", "twin", 25, 0, 25)
        + record("twin", "middle", 38, 2, 10)
        + record("twin", "weak", 44, 0, 6)
    )
    relation = weak_tournament(round_robin(games(*rows)))
    assert weak_order(relation) == [["strong", "twin"], ["middle"], ["weak"]]
    ordered = step_type(relation)
    assert list(ordered.index) == ["weak", "middle", "strong", "twin"] == list(ordered.columns)
    assert is_step_type(ordered)


def test_the_thesis_tournament_is_step_type_once_reordered():
    # The thesis's result: random ~ greedy, both beaten by MCTS, which UCT and greedy UCT beat, UCT ~ greedy UCT.
    names = ["Greedy", "GreedyUCT", "MCTS", "Random", "UCT"]
    level = {"Random": 0, "Greedy": 0, "MCTS": 1, "UCT": 2, "GreedyUCT": 2}
    thesis = relation(names, {(a, b) for a in names for b in names if level[a] >= level[b]})
    assert not is_step_type(thesis)  # alphabetical order, as in the thesis's first figure
    assert is_step_type(step_type(thesis))
    assert weak_order(thesis) == [["GreedyUCT", "UCT"], ["MCTS"], ["Greedy", "Random"]]


@pytest.mark.parametrize(
    "matrix,expected",
    [
        ([[1]], True),
        ([[1, 0], [1, 1]], True),
        ([[1, 1], [1, 1]], True),
        ([[1, 1, 0], [1, 1, 1], [1, 1, 1]], True),
        ([[1, 0, 0], [1, 1, 0], [1, 1, 1]], True),
        ([[1, 1], [0, 1]], False),  # best first: the staircase the other way
        ([[1, 0, 1], [1, 1, 1], [1, 1, 1]], False),  # a row that is not a prefix of ones
        ([[1, 1, 0], [1, 0, 0], [1, 1, 1]], False),  # a row shorter than the one above
        ([[0, 0], [0, 0]], True),
    ],
)
def test_step_type_on_hand_made_matrices(matrix, expected):
    assert is_step_type(np.array(matrix)) is expected
    assert is_step_type(pd.DataFrame(matrix)) is expected


def test_step_type_rejects_bad_matrices():
    with pytest.raises(ValueError, match="square"):
        is_step_type([[1, 0, 0], [1, 1, 0]])
    with pytest.raises(ValueError, match="0s and 1s"):
        is_step_type([[1, 2], [0, 1]])


def test_a_step_type_semiorder_is_not_a_weak_order():
    # a ~ b and b ~ c, but c ≻ a: the matrix is step-type, the relation intransitive.
    semiorder = relation(["a", "b", "c"], {("a", "b"), ("b", "a"), ("b", "c"), ("c", "b"), ("c", "a")})
    assert is_step_type(semiorder)
    with pytest.raises(NotAWeakOrder) as caught:
        weak_order(semiorder)
    assert caught.value.cycle == ("a", "b", "c")
    assert "'a' ~ 'b' and 'b' ~ 'c', but 'c' ≻ 'a'" in str(caught.value)


def test_weak_order_rejects_relations_that_are_not_weak_tournaments():
    with pytest.raises(ValueError, match="not complete"):
        weak_order(pd.DataFrame([[1, 0], [0, 1]], index=["a", "b"], columns=["a", "b"]))
    with pytest.raises(ValueError, match="same agents"):
        weak_order(pd.DataFrame([[1, 0], [1, 1]], index=["a", "b"], columns=["b", "a"]))
    with pytest.raises(ValueError, match="DataFrame"):
        weak_order(np.ones((2, 2)))


def test_stronger_needs_every_pair():
    tournament = round_robin(games(*record("a", "b", 3, 0, 1), *record("b", "c", 2, 0, 2)))
    with pytest.raises(ValueError, match="'a' and 'c' never played"):
        stronger(tournament)


@given(st.lists(st.integers(0, 3), min_size=1, max_size=7), st.randoms(use_true_random=False))
def test_weak_orders_round_trip(levels, rng):
    names = [f"agent{i}" for i in range(len(levels))]
    rng.shuffle(names)
    level = dict(zip(names, levels))
    order = relation(names, {(a, b) for a in names for b in names if level[a] >= level[b]})
    expected = [[a for a in names if level[a] == v] for v in sorted(set(levels), reverse=True)]
    assert weak_order(order) == expected
    assert is_step_type(step_type(order))


# --- Ratings ---------------------------------------------------------------------------------------


def simulate(elo, games_per_pair, draw, rng):
    """Games under Bradley-Terry with the given Elo ratings: a draw with probability ``draw``,
    the rest split so that each agent's expected score is the model's."""
    names = list(elo)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            sides = [(a, b) if g % 2 == 0 else (b, a) for g in range(games_per_pair)]
            south_score = special.expit(np.array([elo[s] - elo[n] for s, n in sides]) / ELO_PER_NATURAL_UNIT)
            u = rng.random(games_per_pair)
            for (s, n), e, x in zip(sides, south_score, u):
                rows.append((s, n, 0 if x < e - draw / 2 else None if x < e + draw / 2 else 1))
    return games(*rows)


def test_two_agents_have_the_closed_form_rating():
    frame = games(*record("a", "b", 60, 0, 40))
    difference = 400 * math.log10(60 / 40)
    # The log-odds of the score, log(s / (1 - s)), have variance 1 / (n s (1 - s)).
    spread = stats.norm.isf(0.025) * ELO_PER_NATURAL_UNIT / math.sqrt(100 * 0.6 * 0.4)
    anchored = ratings(frame, anchor="b").set_index("agent")
    assert anchored.loc["a", "elo"] == pytest.approx(difference, rel=1e-6)
    assert (anchored.loc["a", "low"], anchored.loc["a", "high"]) == pytest.approx(
        (difference - spread, difference + spread), rel=1e-4
    )
    assert (anchored.loc["b", "elo"], anchored.loc["b", "low"], anchored.loc["b", "high"]) == (0, 0, 0)
    centred = ratings(frame).set_index("agent")
    assert centred["elo"].tolist() == pytest.approx([difference / 2, -difference / 2], rel=1e-6)
    assert centred.loc["a", "high"] - centred.loc["a", "elo"] == pytest.approx(spread / 2, rel=1e-4)
    assert centred.loc["a", "games"] == 100 and centred.loc["a", "score"] == pytest.approx(0.6)


def test_ratings_recover_known_strengths():
    truth = {"d": 400.0, "c": 200.0, "b": 100.0, "a": 0.0}
    table = ratings(simulate(truth, 400, 0.1, np.random.default_rng(2024)), anchor="a")
    assert list(table.columns) == ["agent", "elo", "low", "high", "games", "score"]
    assert table["agent"].tolist() == ["d", "c", "b", "a"]
    for row in table.itertuples():
        assert row.low <= truth[row.agent] <= row.high
        assert row.elo == pytest.approx(truth[row.agent], abs=40)
        assert row.games == 1200


def test_rating_intervals_cover_the_truth_at_their_level():
    rng = np.random.default_rng(7)
    truth = {"a": -150.0, "b": -50.0, "c": 50.0, "d": 150.0}  # mean 0, as the default anchoring
    covered = total = 0
    for _ in range(200):
        table = ratings(simulate(truth, 40, 0.0, rng))
        covered += sum(row.low <= truth[row.agent] <= row.high for row in table.itertuples())
        total += len(table)
    assert 0.92 <= covered / total <= 0.98


def test_the_cyclic_mind_experiment_rates_everyone_equal():
    table = ratings(mind_experiment())
    assert table["elo"].tolist() == pytest.approx([0, 0, 0], abs=1e-6)
    assert table["score"].tolist() == pytest.approx([0.5, 0.5, 0.5])


def test_an_agent_that_never_lost_is_an_error_unless_a_prior_is_given():
    frame = games(*record("champion", "b", 30, 0, 0), *record("champion", "c", 20, 0, 0), *record("b", "c", 10, 5, 10))
    with pytest.raises(ValueError, match="'champion' won every game it played.*prior_draws"):
        ratings(frame)
    table = ratings(frame, prior_draws=1.0)
    assert table["agent"].iloc[0] == "champion"
    assert np.isfinite(table[["elo", "low", "high"]].to_numpy()).all()
    assert table.set_index("agent").loc["champion", "games"] == 50


def test_an_agent_that_never_won_is_named():
    frame = games(*record("a", "b", 10, 2, 10), *record("a", "loser", 5, 0, 0), *record("b", "loser", 5, 0, 0))
    with pytest.raises(ValueError, match="'loser' lost every game it played"):
        ratings(frame)


def test_ratings_reject_bad_input():
    frame = games(*record("a", "b", 3, 1, 2))
    with pytest.raises(ValueError, match="anchor 'z' is not one of the agents"):
        ratings(frame, anchor="z")
    with pytest.raises(ValueError, match="prior_draws must be"):
        ratings(frame, prior_draws=-1)
    with pytest.raises(ValueError, match="never met"):
        ratings(games(*record("a", "b", 3, 1, 2), *record("c", "d", 2, 0, 2)))
    with pytest.raises(ValueError, match="at least two agents"):
        ratings(Tournament(("a",), [[0]], [[0]]))


# --- Multiplicity, detectable differences, bootstrap, factorial -----------------------------------


def test_holm_matches_its_definition_and_keeps_nan():
    raw = [0.01, 0.04, 0.03, math.nan, 0.005]
    # sorted: 0.005 x 4, 0.01 x 3, 0.03 x 2, 0.04 x 1, each at least the one before
    assert np.allclose(holm(raw), [0.03, 0.06, 0.06, math.nan, 0.02], equal_nan=True)
    assert holm([0.5]).tolist() == [0.5]
    assert holm([0.6, 0.7]).tolist() == [1.0, 1.0]  # capped at 1
    with pytest.raises(ValueError):
        holm([1.5])


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_holm_is_between_the_raw_and_bonferroni(raw):
    adjusted = holm(raw)
    assert np.all(adjusted >= np.asarray(raw) - 1e-12)
    assert np.all(adjusted <= np.minimum(1, len(raw) * np.asarray(raw)) + 1e-12)


def test_detectable_is_where_the_power_reaches_the_target():
    for n in (20, 50, 200, 800):
        p = detectable(n)
        assert power(n, p) >= 0.8 > power(n, p - 1e-4)
    assert detectable(50) == pytest.approx(0.70, abs=0.01)
    assert detectable(200) < detectable(50)
    assert detectable(3) == 1.0  # three games never reject at 5 %
    with pytest.raises(ValueError):
        detectable(0)


def test_bootstrap_intervals_contain_the_estimate_and_shrink_with_games():
    small = games(*record("a", "b", 30, 5, 15), *record("b", "c", 25, 10, 15), *record("a", "c", 35, 5, 10))
    large = games(*record("a", "b", 300, 50, 150), *record("b", "c", 250, 100, 150), *record("a", "c", 350, 50, 100))
    few = bootstrap_ratings(small, anchor="c", replicates=200, seed=1).set_index("agent")
    many = bootstrap_ratings(large, anchor="c", replicates=200, seed=1).set_index("agent")
    assert np.all(few["low"] <= few["elo"]) and np.all(few["elo"] <= few["high"])
    assert (many["high"] - many["low"])["a"] < (few["high"] - few["low"])["a"] / 2
    assert few.loc["c", "low"] == few.loc["c", "high"] == 0
    again = bootstrap_ratings(small, anchor="c", replicates=200, seed=1).set_index("agent")
    assert again.equals(few)


def test_factorial_effects_recover_additive_effects():
    # strengths in Elo: 0, +200 for the first factor, +100 for the second, no interaction; huge samples
    rows = []
    for first in (False, True):
        for second in (False, True):
            strength = 200 * first + 100 * second
            score = 1 / (1 + 10 ** (-strength / 400))
            games_ = 100_000
            wins = round(score * games_)
            rows.append(dict(first=first, second=second, wins=wins, draws=0, losses=games_ - wins))
    effects = factorial_effects(pd.DataFrame(rows), ["first", "second"], replicates=200).set_index("effect")
    assert effects.loc["first", "elo"] == pytest.approx(200, abs=2)
    assert effects.loc["second", "elo"] == pytest.approx(100, abs=2)
    assert effects.loc["first × second", "elo"] == pytest.approx(0, abs=2)
    assert effects.loc["first", "low"] < 200 < effects.loc["first", "high"]
    with pytest.raises(ValueError, match="every combination"):
        factorial_effects(pd.DataFrame(rows[:3]), ["first", "second"])
    # The cell that is the reference itself needs no games: strength 0 exactly, no sampling error.
    rows[0].update(wins=0, draws=0, losses=0)
    reference = factorial_effects(pd.DataFrame(rows), ["first", "second"], replicates=200).set_index("effect")
    assert reference.loc["first", "elo"] == pytest.approx(200, abs=2)
    assert reference.loc["first × second", "elo"] == pytest.approx(0, abs=2)
    assert reference.loc["first", "high"] - reference.loc["first", "low"] < 10
    assert elo(0.5) == 0 and elo(10 / 11) == pytest.approx(400)
