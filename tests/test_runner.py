"""The runner: keys, batching, resuming, in-process against Dask, and a worker killed mid-run."""

import dataclasses
import logging
import os
import random
import signal
import threading
import time

import pandas as pd
import pytest

from awale import Rules
from awale.agents import Agent, base
from awale.experiments import runner
from awale.experiments.runner import GameKey, RunInterrupted, derive_seed, pair_keys, round_robin_keys, run
from awale.experiments.store import StoreError, count, load
from conftest import stored_games

@pytest.fixture(scope="module")
def client():
    """A local Dask cluster of two single-threaded worker processes, as the runner starts by default."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR,
        scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
    ) as cluster, distributed.Client(cluster) as client:
        yield client


KEYS = pair_keys("random", "greedy(eps=0.2)", 30, seed=5) + pair_keys(
    "greedy", "random", 10, seed=5, rules=Rules(pits_per_side=4, seeds_per_pit=3)
)


# --------------------------------------------------------------------------- keys


def test_game_keys_are_canonical_and_checked():
    key = GameKey("greedy(eps=0.0)", " random(seed=0) ", 3)
    assert (key.south, key.north, key.rules) == ("greedy", "random", Rules())
    assert key == GameKey("greedy", "random", 3, Rules())
    assert key.stored.rules == '{"collect_remaining":true,"feed":true,"grand_slam":"no-capture","max_plies":null,' \
        '"pits_per_side":6,"repetition":true,"seeds_per_pit":4}'
    for bad in (-1, 2**63, 1.0, True):
        with pytest.raises(ValueError, match="seed"):
            GameKey("random", "random", bad)
    with pytest.raises(ValueError, match="unknown agent"):
        GameKey("nobody", "random", 0)
    with pytest.raises(ValueError, match="Rules"):
        GameKey("random", "random", 0, rules="abapa")


def test_pair_keys_alternate_colours_and_do_not_depend_on_order():
    keys = pair_keys("random", "greedy", 5, seed=9)
    assert [(k.south, k.north) for k in keys] == [("greedy", "random"), ("random", "greedy")] * 2 + [("greedy", "random")]
    assert [k.seed for k in keys] == [derive_seed(9, i // 2) for i in range(5)]
    assert pair_keys("greedy", "random", 5, seed=9) == keys
    assert pair_keys("random", "greedy", 8, seed=9)[:5] == keys  # more games keep the first ones
    assert {k.seed for k in pair_keys("random", "greedy", 4, seed=10)}.isdisjoint({k.seed for k in keys})
    self_play = pair_keys("random", "random(seed=0)", 4, seed=9)
    assert len(set(self_play)) == 4 and all(k.south == k.north == "random" for k in self_play)
    with pytest.raises(ValueError, match="number of games"):
        pair_keys("random", "greedy", 0)


def test_round_robin_keys():
    keys = round_robin_keys(["random", "greedy", "greedy(eps=0.5)"], 4, seed=1)
    assert len(keys) == 12 and len(set(keys)) == 12
    assert set(round_robin_keys(["greedy(eps=0.5)", "random", "greedy"], 4, seed=1)) == set(keys)
    with pytest.raises(ValueError, match="given twice"):
        round_robin_keys(["greedy", "greedy(eps=0.0)"], 2)
    with pytest.raises(ValueError, match="at least two"):
        round_robin_keys(["greedy"], 2)


def test_derive_seed():
    assert derive_seed(7, 3) == derive_seed(7, 3) and 0 <= derive_seed(7, 3) < 2**63
    assert len({derive_seed(b, i) for b in range(20) for i in range(20)}) == 400
    with pytest.raises(ValueError):
        derive_seed(-1, 0)


# --------------------------------------------------------------------------- batching


def test_the_planner_starts_small_grows_with_measured_times_and_spreads_the_tail():
    keys = pair_keys("random", "greedy", 400, seed=0)
    planner = runner._Planner(keys, None, 1.0)
    first = planner.next_batch(threads=2)
    assert len(first) == 1
    planner.observe(first, [0.001])
    sizes = []
    while True:
        batch = planner.next_batch(threads=2)
        if batch is None:
            break
        sizes.append(len(batch))
        planner.observe(batch, [0.001] * len(batch))
    assert sizes[:3] == [4, 16, 64]  # at most four times the largest batch done
    assert sizes[-1] == 1 and sum(sizes) == 399  # smaller batches near the end
    fixed = runner._Planner(keys, 7, 1.0)
    assert [len(fixed.next_batch(threads=2)) for _ in range(3)] == [7, 7, 7]
    slow = runner._Planner(keys, None, 1.0)
    slow.observe(slow.next_batch(None), [3.0])
    assert len(slow.next_batch(None)) == 1  # games of 3 s: one per task


def test_same_keys_same_games_whatever_the_batching_and_order(tmp_path):
    reference = run(KEYS, tmp_path / "a.sqlite", "e", workers=0)
    assert (reference.total, reference.already, reference.played, reference.failed) == (40, 0, 40, [])
    shuffled = list(KEYS)
    random.Random(1).shuffle(shuffled)
    run(shuffled, tmp_path / "b.sqlite", "e", workers=0, batch_size=3)
    run(KEYS + KEYS[:5], tmp_path / "c.sqlite", "e", workers=0, batch_size=1)  # duplicates are played once
    expected = stored_games(tmp_path / "a.sqlite")
    assert len(expected) == 40
    pd.testing.assert_frame_equal(stored_games(tmp_path / "b.sqlite"), expected)
    pd.testing.assert_frame_equal(stored_games(tmp_path / "c.sqlite"), expected)


def test_resume_plays_only_the_missing_keys(tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite"
    first = run(KEYS[::2], path, "e", workers=0)
    before = load(path)
    played = []
    real = runner.play_batch
    monkeypatch.setattr(runner, "play_batch", lambda items: played.extend(items) or real(items))
    second = run(KEYS, path, "e", workers=0)
    assert (first.played, second.already, second.played) == (20, 20, 20)
    assert sorted(map(tuple, played)) == sorted(dataclasses.astuple(k.stored) for k in KEYS[1::2])
    after = load(path)
    kept = after.merge(before, on=["south", "north", "seed", "rules"], suffixes=("", "_before"))
    assert len(kept) == 20 and (kept["created_at"] == kept["created_at_before"]).all()  # not rewritten
    played.clear()
    third = run(KEYS, path, "e", workers=0)
    assert (third.already, third.played, played) == (40, 0, [])
    pd.testing.assert_frame_equal(stored_games(path), games_of_fresh_run(tmp_path))


def games_of_fresh_run(tmp_path):
    path = tmp_path / "fresh.sqlite"
    if not path.exists():
        run(KEYS, path, "e", workers=0)
    return stored_games(path)


class Faulty(Agent):
    """Always plays an action that does not exist."""

    name = "test_runner_faulty"

    def act(self, game):
        return 99


def test_a_failing_game_is_reported_and_the_others_kept(tmp_path, monkeypatch):
    monkeypatch.setitem(base._REGISTRY, Faulty.name, Faulty)  # for this test only
    keys = [GameKey("test_runner_faulty", "random", 1)] + pair_keys("random", "greedy", 4, seed=2)
    summary = run(keys, tmp_path / "s.sqlite", "e", workers=0, batch_size=5)
    assert summary.played == 4 and len(summary.failed) == 1
    key, message = summary.failed[0]
    assert key == keys[0] and "illegal action 99" in message
    assert count(tmp_path / "s.sqlite") == 4


def test_an_interruption_keeps_the_finished_batches(tmp_path, monkeypatch):
    real = runner.play_batch
    calls = []

    def interrupted(items):
        calls.append(len(items))
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(items)

    monkeypatch.setattr(runner, "play_batch", interrupted)
    with pytest.raises(RunInterrupted) as info:
        run(KEYS, tmp_path / "s.sqlite", "e", workers=0, batch_size=4)
    assert isinstance(info.value, KeyboardInterrupt)
    summary = info.value.summary
    assert summary.interrupted and summary.played == 8 and count(tmp_path / "s.sqlite") == 8
    monkeypatch.setattr(runner, "play_batch", real)
    assert run(KEYS, tmp_path / "s.sqlite", "e", workers=0).played == 32


def test_bad_options_are_refused(tmp_path):
    with pytest.raises(ValueError, match="at most one"):
        run(KEYS, tmp_path / "s.sqlite", "e", workers=2, scheduler="tcp://localhost:8786")
    with pytest.raises(ValueError, match="workers"):
        run(KEYS, tmp_path / "s.sqlite", "e", workers=-1)
    with pytest.raises(ValueError, match="batch_size"):
        run(KEYS, tmp_path / "s.sqlite", "e", batch_size=0)
    with pytest.raises(ValueError, match="GameKey"):
        run([("random", "greedy", 1, Rules())], tmp_path / "s.sqlite", "e", workers=0)
    text = tmp_path / "t.txt"
    text.write_text("not a store " * 100)
    with pytest.raises(StoreError, match="not an SQLite database"):
        run(KEYS, text, "e", workers=0)


def test_nothing_to_play_starts_no_cluster(tmp_path):
    run(KEYS[:4], tmp_path / "s.sqlite", "e", workers=0)
    summary = run(KEYS[:4], tmp_path / "s.sqlite", "e", scheduler="tcp://192.0.2.1:1")  # unreachable, never contacted
    assert (summary.already, summary.played, summary.workers) == (4, 0, "nothing to play")


# --------------------------------------------------------------------------- on Dask


def test_dask_plays_the_same_games_as_this_process(tmp_path, client):
    summary = run(KEYS, tmp_path / "d.sqlite", "e", client=client)
    assert (summary.played, summary.failed) == (40, [])
    pd.testing.assert_frame_equal(stored_games(tmp_path / "d.sqlite"), games_of_fresh_run(tmp_path))
    run(KEYS, tmp_path / "d1.sqlite", "e", client=client, batch_size=1)
    pd.testing.assert_frame_equal(stored_games(tmp_path / "d1.sqlite"), games_of_fresh_run(tmp_path))


def test_a_worker_killed_mid_run_costs_only_its_games_in_flight(tmp_path, client):
    """SIGKILL one worker process while games are played: its tasks are rescheduled, its nanny restarts it."""
    keys = pair_keys("mcts(iterations=300)", "greedy(eps=0.2)", 40, seed=3)
    reference = tmp_path / "reference.sqlite"
    run(keys, reference, "e", workers=0)

    pids = client.run(os.getpid)
    assert len(pids) == 2
    victim = min(pids.values())
    path = tmp_path / "killed.sqlite"
    killed_at = []

    def kill_when_a_quarter_is_done():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                done = count(path, "e")
            except StoreError:  # not created yet
                done = 0
            if done >= 10:
                killed_at.append(done)
                os.kill(victim, signal.SIGKILL)
                return
            time.sleep(0.005)

    killer = threading.Thread(target=kill_when_a_quarter_is_done)
    killer.start()
    summary = run(keys, path, "e", client=client, batch_size=2)
    killer.join()
    assert killed_at and killed_at[0] < 40, "the worker was not killed while games were being played"
    assert (summary.played, summary.failed) == (40, [])
    pd.testing.assert_frame_equal(stored_games(path), stored_games(reference))

    deadline = time.monotonic() + 60  # the nanny starts a new worker process
    while time.monotonic() < deadline:
        now = client.run(os.getpid)
        if len(now) == 2 and victim not in now.values():
            break
        time.sleep(0.2)
    assert len(now) == 2 and victim not in now.values()
