"""The catalogue of experiments: its sizes, the experiments beyond the reference thesis, results and run --all."""

import math

import pytest

from awale.agents import parse
from awale.cli import main
from awale.experiments import CATALOG, Store, canonical_spec, catalog, experiments, results, run


def test_every_pairing_is_played_enough_to_decide():
    # The power analysis asks for 49 games; the champions' round robin for 100 per pair.
    for exp in CATALOG.values():
        assert exp.games >= (100 if exp.name in ("champions", "eps-vs-random") else 50), exp.name
        assert all(parse(a).spec == a and parse(b).spec == b for a, b in exp.pairings())
        # Only the parallel search and the gauntlets (champions at 0.1 s a move or under a clock) are timed; every
        # other game replays from its key.
        assert exp.timed == (exp.name in ("parallel", "gauntlet", "gauntlet-clock")) == any(not parse(a).replayable for a, _ in exp.pairings())


def test_the_uct_budget_curve_spans_a_sixteenth_to_sixty_four_times_the_reference():
    budgets = [parse(agent).iterations for agent, _ in CATALOG["uct-budget"].pairings()]
    assert budgets[0] == round(catalog.REFERENCE_ITERATIONS / 16) and budgets[-1] == catalog.REFERENCE_ITERATIONS * 64
    assert all(b == 2 * a for a, b in zip(budgets[2:], budgets[3:]))  # doubling (the first two are rounded)
    assert {opponent for _, opponent in CATALOG["uct-budget"].pairings()} == {"uct(iterations=3800)"}


def test_alphabeta_meets_uct_by_depth_and_by_budget():
    pairs = CATALOG["alphabeta-uct"].pairings()
    depths = [parse(a).depth for a, b in pairs if b == "uct(iterations=3800)"]
    assert depths == list(catalog.ALPHABETA_DEPTHS)
    assert [parse(b).iterations for a, b in pairs if a == "minimax(depth=12)" and b != "uct(iterations=3800)"] == [
        7600, 15200, 30400, 60800]


def test_results_give_each_pairing_its_test_and_interval(tmp_path):
    exp = CATALOG["eps-vs-random"]
    path = tmp_path / "r.sqlite"
    run(exp.keys(4)[:8], path, exp.name, workers=0, progress=False)  # the first two pairings, 4 games each
    with Store(path) as store:
        table = results(exp, store, games=4)
    assert list(table["games"]) == [4, 4] + [0] * 19
    first = table.iloc[0]
    assert first["wins"] + first["draws"] + first["losses"] == 4 and first["low"] <= first["score"] <= first["high"]
    assert 0 < first["pvalue"] <= 1 and math.isnan(table.iloc[2]["score"])


def test_an_experiment_from_openings_plays_each_opening_twice_sides_swapped(tmp_path):
    from awale.agents.opening import split_opening
    from awale.experiments import decode_moves, load, sprt

    exp = catalog.Experiment("tiny", "greedy vs random from openings",
                             lambda: [("greedy", "random"), ("greedy(eps=0.5)", "random")], 6, seed=3,
                             openings=True)
    keys = exp.keys()
    assert len(keys) == 12 and len({key.stored for key in keys}) == 12
    order = sprt.shuffled(sprt.standard_openings(), 3)
    for index, (first, second) in enumerate(zip(keys[:6:2], keys[1:6:2])):
        assert split_opening(first.south) == ("greedy", order[index]) == split_opening(second.north)
        assert split_opening(first.north) == ("random", order[index]) == split_opening(second.south)
    assert [key.stored for key in exp.keys(4)] == [key.stored for key in exp.pair_keys("greedy", "random", 4)
                                                   + exp.pair_keys("greedy(eps=0.5)", "random", 4)]
    with pytest.raises(ValueError, match="come in pairs"):
        exp.keys(5)
    path = tmp_path / "o.sqlite"
    run(keys, path, exp.name, workers=0, progress=False)
    games = load(path, exp.name)
    with Store(path) as store:
        table = results(exp, store)
    assert list(table["games"]) == [6, 6]
    for row in table.itertuples():  # the wins counted by the agent behind the opening
        mine = exp.pairing_games(games, row.agent, row.opponent)
        assert list(exp.pairing_games(games.iloc[:0], row.agent, row.opponent).columns) == list(games.columns)
        south_is_agent = mine["south"].map(lambda spec: split_opening(spec)[0] == row.agent)
        won = ((mine["winner"] == 0) == south_is_agent) & mine["winner"].notna()
        assert len(mine) == 6 and row.wins == won.sum() and row.draws == mine["winner"].isna().sum()
        for south, moves in zip(mine["south"], mine["moves"]):  # each game began with its opening
            assert "".join(map(str, decode_moves(moves)[:4])) == split_opening(south)[1]
        with Store(path) as store:
            counts = catalog.pair_counts(exp, store, row.agent, row.opponent)
        assert sum(counts) == 3 and sum(i * n for i, n in enumerate(counts)) == 2 * row.wins + row.draws
    assert {split_opening(south)[1] for south in games["south"]} == set(order[:3])
    with Store(path) as store, pytest.raises(ValueError, match="in pairs from openings"):
        catalog.pair_counts(CATALOG["solver"], store, "greedy", "random")


def test_run_all_plays_every_experiment_in_order(tmp_path, capsys, monkeypatch):
    small = {name: CATALOG[name] for name in ("eps-vs-random", "eps-grid")}
    monkeypatch.setattr(catalog, "CATALOG", small)
    monkeypatch.setattr("awale.experiments.CATALOG", small)
    store = str(tmp_path / "all.sqlite")
    assert main(["experiment", "run", "--all", "--games", "1", "--store", store, "--workers", "0"]) == 0
    out = capsys.readouterr().out
    assert out.index("eps-vs-random: 21 of 21 games") < out.index("eps-grid: 210 of 210 games")
    assert experiments(store) == {"eps-vs-random": 21, "eps-grid": 210}


@pytest.mark.parametrize("argv, message", [
    (["experiment", "run"], "one of the arguments NAME --all is required"),
    (["experiment", "run", "uct-c", "--all"], "not allowed with argument NAME"),
])
def test_run_needs_a_name_or_all_but_not_both(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2 and message in capsys.readouterr().err


def test_the_ladder_completes_the_champions_round_robin():
    champions = set(CATALOG["champions"].pairings())
    ladder = CATALOG["ladder"].pairings()
    agents = {canonical_spec(spec) for spec in catalog.CHAMPIONS + catalog.LADDER_VARIANTS}
    every_pair = {(a, b) for a in agents for b in agents if a < b}
    played = {tuple(sorted(pair)) for pair in ladder} | {tuple(sorted(pair)) for pair in champions}
    assert played == every_pair and not champions & set(ladder)
    assert len(ladder) == len(every_pair) - len(champions) == 57
    assert all(b in map(canonical_spec, catalog.LADDER_VARIANTS) for _, b in ladder)


def test_the_knowledge_ladder_is_a_round_robin_plus_its_checks():
    pairs = CATALOG["knowledge"].pairings()
    agents = [canonical_spec(spec) for spec in catalog.KNOWLEDGE]
    robin = pairs[: len(pairs) - len(catalog.KNOWLEDGE_CHECKS)]
    assert {frozenset(pair) for pair in robin} == {frozenset((a, b)) for a in agents for b in agents if a != b}
    assert len(robin) == len(agents) * (len(agents) - 1) // 2 == 91
    # The checks: evaluated αβ one ply shallower than in the round robin, against evaluated UCTs of the round robin.
    for shallow, uct in pairs[len(robin):]:
        deep = canonical_spec(shallow.replace("depth=10", "depth=11"))
        assert shallow not in agents and deep in agents and uct in agents and parse(uct).evaluation


def test_equal_time_experiments_use_calibrated_budgets_and_no_fixed_depth():
    from awale.experiments.calibration import FAMILIES

    assert set(catalog.CURVE_BUDGETS) == set(FAMILIES)
    for ms in catalog.CURVE_MS:
        assert all(ms in catalog.CURVE_BUDGETS[family] for pair in catalog.CURVES for family in pair)
    assert max(catalog.CURVE_MS) / min(catalog.CURVE_MS) >= 30
    equal = [exp for exp in CATALOG.values() if exp.equal_time]
    assert {exp.name for exp in equal} == {"factorial", "factorial-evaluated", "claims"} | {
        f"curves-{ms}ms" for ms in catalog.CURVE_MS
    }
    for exp in equal:
        assert exp.games >= 200 and not exp.timed
        for pair in exp.pairings():
            for spec in pair:
                agent = parse(spec)
                assert getattr(agent, "time", None) is None  # replayable budgets only
                assert getattr(agent, "depth", None) is None  # fixed depths do not take equal time
    # Budgets grow with the time: a longer move never gets a smaller budget.
    for family, budgets in catalog.CURVE_BUDGETS.items():
        ordered = [budgets[ms] for ms in sorted(budgets)]
        assert ordered == sorted(ordered), family


def test_every_equal_time_pairing_took_equal_time_in_its_replayed_games():
    # The committed replays (data/curves/replay.csv) cover every pairing of every equal-time experiment whose
    # games are all played (the chapter shows no other), as the catalogue now defines it, with both sides'
    # mean CPU times per move within 10 % of each other.  The sequential tests' games are the first of `claims`.
    from awale.experiments.calibration import EQUAL_TIME, replayed_times

    replayed = replayed_times("data/curves/replay.csv")
    store = Store("data/experiments.sqlite", create=False)
    uneven, missing = [], []
    for exp in CATALOG.values():
        pairs = catalog.status(exp, store) if exp.equal_time else []
        if exp.name != "claims" and any(pair.done < pair.total for pair in pairs):
            continue  # still being played
        for pair in pairs:
            key = (exp.name, pair.agent, pair.opponent)
            if key not in replayed.index:
                missing.append(f"{exp.name}: {pair.agent} vs {pair.opponent}")
            elif abs(replayed.loc[key, "ratio"] - 1) > EQUAL_TIME:
                uneven.append(f"{exp.name}: {pair.agent} vs {pair.opponent} {replayed.loc[key, 'ratio']:.3f}")
    assert not missing, missing
    assert not uneven, uneven


def test_the_factorial_has_every_cell_once_and_the_book_test_differs_only_in_the_book():
    cells = CATALOG["factorial"].pairings()
    assert len(cells) == 8 and len({agent for agent, _ in cells}) == 8
    assert len({opponent for _, opponent in cells}) == 1
    for (evaluation, quiescence, endgame), family in catalog.FACTORIAL_CELLS.items():
        agent = parse(catalog.factorial_cell(family))
        assert (agent.evaluation, agent.quiescence > 0, agent.endgame is not None) == (evaluation, quiescence, endgame)
        assert agent.replace(nodes=1) == parse(catalog.at_time(family, 10)).replace(nodes=1)  # only the budget
    assert {parse(agent).spec for agent, _ in cells} == {parse(catalog.factorial_cell(f)).spec
                                                         for f in catalog.FACTORIAL_CELLS.values()}
    # The second factorial: every other evaluated cell against the evaluated cell with quiescence.
    evaluated = CATALOG["factorial-evaluated"].pairings()
    reference = parse(catalog.evaluated_cell(catalog.EVALUATED_REFERENCE)).spec
    assert {opponent for _, opponent in evaluated} == {reference}
    assert {agent for agent, _ in evaluated} == {
        parse(catalog.evaluated_cell(family)).spec
        for (evaluation, _, _), family in catalog.FACTORIAL_CELLS.items() if evaluation
    } - {reference}
    for family, nodes in catalog.EVALUATED_BUDGETS.items():  # its own budgets: the same cell, other nodes
        cell = parse(catalog.evaluated_cell(family))
        assert cell.nodes == nodes and cell.replace(nodes=1) == parse(catalog.at_time(family, 10)).replace(nodes=1)
    [(with_book, without)] = CATALOG["book"].pairings()
    assert parse(with_book).book and parse(without).replace(book=True) == parse(with_book)
    assert CATALOG["book"].games >= 400
