"""Time management (``manage=True``): the bank keeps the mean, the plan stops settled searches and extends unsettled
ones, and the default agents spend their time exactly as before.  No test measures time: the search's clock is
replaced by a counter, or the search itself by a model of iterative deepening whose costs are given."""

import contextlib
import numpy as np
import pytest

from awale import Game
from awale.agents import parse
from awale.agents import timing
from awale.agents.timing import (
    CHANGE_EXTENSION, DROP_EXTENSION, HARD_LIMIT, MAX_SHARE, MIN_SHARE, SETTLED_SHARE, Allowance, TimeManager,
    is_tactical, phase_weight, soft_time,
)
from awale.knowledge.evaluation import load_evaluation
from awale.play.match import play
from awale.search import alphabeta
from awale.search.alphabeta import WIN, AlphaBeta, Enhancements, Iteration, SearchResult

from conftest import position

NOMINAL = 0.1


class Ticks:
    """A stand-in for the ``time`` module: each reading of ``perf_counter`` is one millisecond after the last."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 0.001
        return self.now


def modelled_search(calls, seed=0):
    """A replacement for :meth:`AlphaBeta.search`: iterative deepening whose iteration ``d`` costs ``0.5 ms * 1.8**d``
    (no time passes), its best move changing at random; every call's time, whether it had a plan, its cost and the
    move's target (the plan's time after one iteration) are kept in ``calls``."""
    rng = np.random.default_rng(seed)

    def search(self, game, depth=None, time=None, nodes=None, plan=None, spend=False):
        assert not spend, "the model is of a search that does not spend its whole time"
        legal = game.legal_actions
        elapsed, done, soft, best, target = 0.0, [], time, legal[0], None
        for d in range(1, 60):
            cost = 0.0005 * 1.8**d
            if done and elapsed + cost > soft:
                break  # the next iteration is predicted not to end in time
            if elapsed + cost > time:
                elapsed = time  # abandoned at the hard limit
                break
            elapsed += cost
            if rng.random() < 0.25:
                best = legal[int(rng.integers(len(legal)))]
            done.append(Iteration(d, int(rng.integers(-20, 21)), (best,), elapsed, cost))
            if plan is not None:
                soft = min(plan(done), time)
                target = soft if target is None else target
        calls.append((time, plan is not None, elapsed, target))
        last = done[-1]
        return SearchResult(last.value, last.best_actions, last.depth, False, 0, elapsed)

    return search


# --------------------------------------------------------------------------- the default is unchanged


def test_the_default_champion_is_unchanged(monkeypatch):
    for spec in ("champion(time=0.1, endgame='15')", "champion(time=0.1)", "minimax(time=0.1)"):
        agent = parse(spec)
        assert agent.manage is False and str(agent) == spec
    assert str(parse("champion(time=0.1, manage=False)")) == "champion(time=0.1)"
    assert str(parse("champion(time=0.1, manage=True)")) == "champion(time=0.1, manage=True)"
    calls = []
    monkeypatch.setattr(AlphaBeta, "search", modelled_search(calls))
    record = play("champion(time=0.1, book=False)", "greedy", seed=2)
    assert record.plies > 10 and calls
    assert all(time == 0.1 and not planned for time, planned, _, _ in calls)  # every move: the same time, no plan


@pytest.mark.parametrize("spec, message", [
    ("champion(depth=4, manage=True)", "give a time"),
    ("champion(nodes=1000, manage=True)", "give a time"),
    ("minimax(manage=True)", "give a time"),
    ("minimax(time=0.1, nodes=100, manage=True)", "give a time"),
    ("champion(manage=1)", "True or False"),
])
def test_manage_needs_a_time(spec, message):
    with pytest.raises(ValueError, match=message):
        parse(spec)


# --------------------------------------------------------------------------- the bank


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_bank_keeps_the_mean_and_the_hard_limit(monkeypatch, seed):
    calls = []
    monkeypatch.setattr(AlphaBeta, "search", modelled_search(calls, seed))
    record = play(f"champion(time={NOMINAL}, manage=True)", "greedy(eps=0.2)", seed=seed)
    limits, planned, spent, targets = zip(*calls)
    assert all(planned) and len(calls) >= 10, record.plies
    assert max(limits) <= HARD_LIMIT * NOMINAL + 1e-12
    assert all(s <= t + 1e-12 for s, t in zip(spent, limits))
    assert abs(np.mean(spent) / NOMINAL - 1) < 0.15, np.mean(spent)
    assert min(targets) >= MIN_SHARE * NOMINAL - 1e-12 and max(targets) <= MAX_SHARE * NOMINAL + 1e-12
    assert max(targets) - min(targets) > NOMINAL / 10  # the moves are not all given the same time


def test_reset_empties_the_bank(monkeypatch):
    calls = []
    monkeypatch.setattr(AlphaBeta, "search", modelled_search(calls, seed=5))
    agent = parse(f"champion(time={NOMINAL}, manage=True, book=False)")

    def limits():
        game, seen = Game(), []
        calls.clear()
        for _ in range(12):
            game = game.step(agent.act(game))[0]
            if game.game_finished:
                break
            game = game.step(game.legal_actions[0])[0]
            if game.game_finished:
                break
        return [target for _, _, _, target in calls]

    first = limits()
    monkeypatch.setattr(AlphaBeta, "search", modelled_search(calls, seed=5))
    agent.reset()
    assert limits() == first and len(first) >= 6


def test_savings_are_spent_later_and_debts_repaid():
    game = position([4, 4, 4, 4, 4, 4], [4, 4, 4, 0, 4, 4], (0, 4))
    manager = TimeManager(NOMINAL)
    plain = manager.allowance(game).target
    manager.spent(0.0)
    assert manager.allowance(game).target > plain  # a move saved: more for the next
    manager.spent(10 * NOMINAL)
    assert manager.allowance(game).target < plain  # a move overspent: less for the next
    manager.reset()
    assert manager.allowance(game).target == plain


def test_the_phase_and_tactics():
    opening, middle = Game(), position([0, 5, 0, 2, 6, 1], [3, 1, 0, 4, 2, 1], (10, 13))
    ending = position([0, 0, 1, 0, 0, 1], [1, 0, 0, 0, 1, 0], (21, 23))
    assert phase_weight(middle) > phase_weight(opening) > phase_weight(ending)
    assert not is_tactical(Game())
    assert is_tactical(position([0, 0, 0, 0, 0, 2], [1, 1, 4, 4, 4, 4], (14, 14)))  # South takes 2 + 2 seeds
    assert is_tactical(position([1, 1, 4, 4, 4, 4], [0, 0, 0, 0, 0, 2], (14, 14)))  # North threatens as much


# --------------------------------------------------------------------------- the plan: stability of the best move


def iterations(*lines):
    return [Iteration(depth, value, best, 0.0, 0.0) for depth, (best, value) in enumerate(lines, start=1)]


def test_the_plan_cuts_a_settled_move_and_extends_an_unsettled_one():
    target, limit = NOMINAL, HARD_LIMIT * NOMINAL
    settled = iterations(*[((2,), 10)] * 8)
    assert soft_time(target, limit, settled) == pytest.approx(SETTLED_SHARE * target)
    assert soft_time(target, limit, settled[:3]) == target  # too shallow to call settled
    changed = iterations(*[((2,), 10)] * 7, ((4,), 10))
    assert soft_time(target, limit, changed) == pytest.approx(CHANGE_EXTENSION * target)
    fallen = iterations(*[((2,), 10)] * 7, ((2,), 2))
    assert soft_time(target, limit, fallen) == pytest.approx(DROP_EXTENSION * target)
    both = iterations(*[((2,), 10)] * 7, ((4,), -20))
    assert soft_time(target, limit, both) == pytest.approx(min(CHANGE_EXTENSION * DROP_EXTENSION * target, limit))
    assert soft_time(target, 1.2 * target, both) == 1.2 * target  # never past the hard limit
    won = iterations(((2,), 10), ((2,), WIN + 3))
    assert soft_time(target, limit, won) == 0.0
    wobbly = iterations(*[((2,), 10), ((2,), 20)] * 4)
    assert soft_time(target, limit, wobbly) == target  # the same move, but its value is not settled
    assert soft_time(target, limit, wobbly, points_per_seed=10.0) == pytest.approx(SETTLED_SHARE * target)


def test_a_settled_search_stops_before_the_fixed_one(monkeypatch):
    monkeypatch.setattr(alphabeta, "_time", Ticks())  # a reading of the clock is a millisecond: no real time
    # ... and no real deadline: the iterations' starts, which the plan decides, are what is tested.
    monkeypatch.setattr(alphabeta, "stop_at", lambda *args: contextlib.nullcontext())
    budget = 0.03  # about ten iterations of the fixed search, three readings each
    game = position([1, 0, 4, 3, 0, 4], [1, 1, 1, 0, 15, 1], (10, 7))
    searcher = AlphaBeta(game.rules, evaluation=load_evaluation(), enhancements=Enhancements(quiescence=4))
    fixed = searcher.search(game, time=budget)
    searcher.clear()
    seen = []
    allowance = Allowance(budget, budget, HARD_LIMIT * budget, False, points_per_seed=4.0)

    def plan(done):
        seen.append(done[-1])
        return allowance.plan(done)

    managed = searcher.search(game, time=allowance.limit, plan=plan)
    assert managed.best_actions == fixed.best_actions
    assert timing.SETTLED_MIN_DEPTH <= managed.depth < fixed.depth
    assert len({it.best_actions for it in seen[-timing.SETTLED_DEPTHS:]}) == 1
    searcher.clear()
    assert searcher.search(game, time=budget, plan=lambda done: 0.0).depth == 1  # stop at once: one iteration
    searcher.clear()
    longer = searcher.search(game, time=1.5 * budget, plan=lambda done: 1.5 * budget)
    assert longer.depth > fixed.depth  # an extension searches deeper


def test_a_plan_needs_a_time():
    with pytest.raises(ValueError, match="plan"):
        AlphaBeta(Game().rules).search(Game(), depth=2, plan=lambda done: 1.0)


def test_the_only_legal_move_is_played_at_once(monkeypatch):
    calls = []
    monkeypatch.setattr(AlphaBeta, "search", modelled_search(calls))
    game = position([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 3, 3], (22, 19))
    assert game.legal_actions == [5]
    agent = parse("champion(time=0.1, manage=True)")
    assert agent.act(game) == 5 and not calls


# --------------------------------------------------------------------------- the constants, changed by a spec


def test_the_constants_default_to_the_modules_and_a_spec_changes_them_canonically():
    defaults = timing.TimeConstants()
    assert defaults.settled_share == SETTLED_SHARE and defaults.hard_limit == HARD_LIMIT and defaults.text() == ""
    agent = parse("champion(time=1, manage=True, timing=' settled_share = 0.25 , hard_limit=4,')")
    assert agent.spec == "champion(time=1.0, manage=True, timing='hard_limit=4.0, settled_share=0.25')"
    assert parse(agent.spec).spec == agent.spec
    assert parse("champion(time=1, manage=True, timing='settled_share=0.4')").spec == "champion(time=1.0, manage=True)"
    assert timing.TimeConstants.parse("clock_extra_moves=0, clock_reserve=0").clock_extra_moves == 0
    assert timing.TimeConstants(hard_limit=4).text() == timing.TimeConstants.parse("hard_limit=4").text() == (
        "hard_limit=4.0")
    manager = agent.alphabeta._manager
    assert manager.constants == timing.TimeConstants(settled_share=0.25, hard_limit=4.0)


@pytest.mark.parametrize("text, message", [
    ("settled_share", "not name=value"),
    ("settled=0.3", "unknown constant 'settled'"),
    ("settled_share=0.3, settled_share=0.2", "given twice"),
    ("settled_depths=2.5", "must be an integer"),
    ("settled_share=fast", "must be a number"),
    ("settled_share=0", "above 0"),
    ("change_extension=inf", "finite"),
    ("clock_reserve=-1", "above 0 \\(or 0\\)"),
    ("clock_extra_moves=-1", "above 0 \\(or 0\\)"),
    ("min_share=3", "min_share <= max_share <= hard_limit"),
])
def test_bad_constants_are_refused_in_words(text, message):
    with pytest.raises(ValueError, match=message):
        timing.TimeConstants.parse(text)
    with pytest.raises(ValueError, match=message):
        parse(f"champion(time=1, manage=True, timing='{text}')")


def test_timing_needs_manage():
    for spec in ("champion(time=1, timing='settled_share=0.25')", "minimax(time=1, timing='bank_moves=5')"):
        with pytest.raises(ValueError, match="give manage=True"):
            parse(spec)


def test_changed_constants_change_the_plan_and_the_allowance():
    target, limit = NOMINAL, HARD_LIMIT * NOMINAL
    settled = iterations(*[((2,), 10)] * 8)
    constants = timing.TimeConstants(settled_share=0.25, settled_depths=9)
    assert soft_time(target, limit, settled) == pytest.approx(SETTLED_SHARE * target)
    assert soft_time(target, limit, settled, constants=constants) == target  # eight iterations: not nine
    assert soft_time(target, limit, settled, constants=timing.TimeConstants(settled_share=0.25)) == pytest.approx(
        0.25 * target)
    changed = iterations(*[((2,), 10)] * 7, ((4,), 10))
    assert soft_time(target, limit, changed, constants=timing.TimeConstants(change_extension=2.5)) == pytest.approx(
        2.5 * target)
    game = position([0, 5, 0, 2, 6, 1], [3, 1, 0, 4, 2, 1], (10, 13))
    plain = TimeManager(NOMINAL).allowance(game)
    wider = TimeManager(NOMINAL, constants=timing.TimeConstants(hard_limit=5.0, max_share=4.0)).allowance(game)
    assert plain.limit == pytest.approx(HARD_LIMIT * NOMINAL) and wider.limit == pytest.approx(5.0 * NOMINAL)
    assert wider.plan(changed) == pytest.approx(min(CHANGE_EXTENSION * wider.target, wider.limit))
    under_clock = TimeManager(NOMINAL, clock_moves="database", constants=timing.TimeConstants(clock_extra_moves=9))
    assert under_clock.moves_left(game, database_seeds=25) == TimeManager(NOMINAL, clock_moves="database").moves_left(
        game, database_seeds=25) + 9 - timing.CLOCK_EXTRA_MOVES
