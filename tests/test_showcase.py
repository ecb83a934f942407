"""The games the site's viewer shows: the rules of awale.experiments.showcase, on a store made for the test."""

import pytest

from awale.experiments import CATALOG, Store, canonical_spec, load, standings
from awale.experiments.showcase import SHOWCASE, Pick, pick_games
from awale.play.match import play
from awale.core.record import replay

SEARCHES = ("flat(iterations=30)", "mcts(iterations=30)")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("showcase") / "games.sqlite"
    with Store(path) as games:
        games.add("duel", [play("greedy", "random", seed=s) for s in (7, 3, 9)])
        games.add("duel", [play("random", "greedy", seed=s) for s in (5, 8)])
        agents = ["random", "greedy", "greedy(eps=0.5)"]
        games.add("round", [play(a, b, seed=s) for a in agents for b in agents if a != b for s in range(4)])
        games.add("searches", [play(*SEARCHES, seed=s) for s in range(30)])
    return path


def test_a_pairing_is_its_game_with_the_lowest_seed(store):
    [shown] = pick_games(store, [Pick("duel", "pairing", "duel", ("random", "greedy"))])
    assert shown.seed == 3 and (shown.south, shown.north) == ("greedy", "random")
    stored = load(store, "duel").set_index("seed").loc[3]
    assert "".join(map(str, shown.moves)) == stored["moves"]
    assert [p.game for p in shown.plies] == [p.game for p in replay(shown.moves)]


def test_the_final_is_between_the_two_best(store):
    [shown] = pick_games(store, [Pick("final", "final", "round")])
    best = set(standings(load(store, "round")).index[:2])
    assert {shown.south, shown.north} == best


def test_a_rule_that_finds_nothing_is_left_out(store):
    picks = [Pick("none", "pairing", "duel", ("random", "random")), Pick("gone", "final", "missing"),
             Pick("duel", "pairing", "duel", ("greedy", "random"))]
    assert [shown.pick.title for shown in pick_games(store, picks)] == ["duel"]


def test_the_first_repetition_between_searches(store):
    [shown] = pick_games(store, [Pick("repeated", "repetition")])
    assert shown.experiment == "searches" and shown.plies[-1].ending == "repetition"
    frame = load(store, "searches")
    earlier = frame.iloc[: list(frame["seed"]).index(shown.seed)]  # the store's order
    for moves in earlier["moves"]:
        assert replay(int(c) for c in moves)[-1].ending != "repetition"


def test_unknown_kinds_are_refused(store):
    with pytest.raises(ValueError, match="unknown kind of pick 'best'"):
        pick_games(store, [Pick("x", "best")])


def test_the_showcase_names_pairings_of_the_catalogue():
    for pick in SHOWCASE:
        if pick.kind in ("pairing", "final"):
            assert pick.experiment in CATALOG
        if pick.kind == "pairing":
            pair = tuple(canonical_spec(spec) for spec in pick.pairing)
            pairings = CATALOG[pick.experiment].pairings()
            assert pair in pairings or pair[::-1] in pairings, pick.title
