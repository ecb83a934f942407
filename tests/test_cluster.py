"""Runs bounded before any work, concurrent runs sharing a store, schedulers that fail, and a real Dask cluster.

The last test starts ``dask scheduler`` and two ``dask worker`` processes
from the command line, as a user with a cluster would, plays a tournament
through ``--scheduler``, kills a worker mid-run and checks that the stored
games are those of a run in one process.
"""

import contextlib
import os
import pathlib
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings

import pandas as pd
import pytest

from awale.experiments import clusters, get_experiment, runner, status
from awale.experiments.runner import MAX_GAMES, RunnerError, default_workers, pair_keys, round_robin_keys, run
from awale.experiments.store import StoreError, count, load
from conftest import TIMING, awale

PYTHON = sys.executable
DASK = str(pathlib.Path(sys.executable).with_name("dask"))
KEYS = pair_keys("random", "greedy(eps=0.2)", 12, seed=5)


def in_thread(function, timeout=120):
    """Call ``function`` in a thread; fail (instead of hanging) if it has not returned after ``timeout`` s."""
    outcome = {}

    def target():
        try:
            outcome["value"] = function()
        except BaseException as error:  # noqa: BLE001 - handed to the test
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"still running after {timeout} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


# --------------------------------------------------------------------------- sizes


def test_workers_are_capped_by_the_cores(tmp_path):
    with pytest.raises(ValueError, match=f"workers must be at most {default_workers()}, the cores"):
        run(KEYS, tmp_path / "s.sqlite", "e", workers=default_workers() + 1)
    result = awale("tournament", "random", "greedy", "--games", "2", "--workers", "1000", "--store", "s.sqlite",
                   cwd=tmp_path, timeout=60)
    assert result.returncode == 2 and f"--workers must be at most {default_workers()}, the cores" in result.stderr
    assert result.stderr.strip().count("\n") == 0 and not (tmp_path / "s.sqlite").exists()


def test_games_are_capped_before_any_key_is_built(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="more than a run may hold"):
        pair_keys("random", "greedy", MAX_GAMES + 1)
    with pytest.raises(ValueError, match="for each of 3 pairings"):
        round_robin_keys(["random", "greedy", "flat"], MAX_GAMES // 3 + 1)
    for args in (("tournament", "random", "greedy", "--store", "s.sqlite"), ("experiment", "run", "uct-c"),
                 ("experiment", "status", "uct-c")):
        result = awale(*args, "--games", str(10**12), cwd=tmp_path, timeout=60)
        assert result.returncode == 2 and f"({MAX_GAMES:,} games)" in result.stderr, result.stderr
        assert result.stderr.strip().count("\n") == 0
    grid = get_experiment("eps-grid")  # 210 pairings: refused before its keys are built, as its status is
    per_pairing = MAX_GAMES // len(grid.pairings()) + 1
    with pytest.raises(ValueError, match=f"for each of {len(grid.pairings())} pairings"):
        grid.keys(per_pairing)
    with runner.Store(tmp_path / "empty.sqlite") as store, pytest.raises(ValueError, match="more than a run"):
        status(grid, store, per_pairing)
    monkeypatch.setattr(runner, "MAX_GAMES", 10)
    with pytest.raises(ValueError, match="at most 10 games"):
        run(iter(KEYS), tmp_path / "s.sqlite", "e", workers=0)


# --------------------------------------------------------------------------- concurrent runs


def test_two_runs_on_one_store_share_the_games(tmp_path, monkeypatch):
    """Each run plays only games neither stored nor in progress; the counts add up; the games are right."""
    keys = pair_keys("uct(iterations=100)", "random", 24, seed=2)
    reference = tmp_path / "reference.sqlite"
    run(keys, reference, "e", workers=0)

    played = []
    real = runner.play_batch
    start = threading.Barrier(2)

    def counting(items):
        played.extend(items)
        return real(items)

    monkeypatch.setattr(runner, "play_batch", counting)
    path = tmp_path / "s.sqlite"
    run(keys[:1], path, "e", workers=0)  # create the store before the two runs race
    played.clear()

    def one_run():
        start.wait()
        return run(keys, path, "e", workers=0, batch_size=1)

    threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, one_run())) for i in range(2)]
    results = {}
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    a, b = results[0], results[1]
    assert len(played) == len(set(played)) == len(keys) - 1  # no game played twice
    assert a.played + b.played == len(keys) - 1 and a.played > 0 and b.played > 0
    for summary in (a, b):
        assert summary.already + summary.played + summary.elsewhere == summary.total == len(keys)
    pd.testing.assert_frame_equal(load(path).drop(columns=TIMING), load(reference).drop(columns=TIMING))
    with runner.Store(path) as store:
        assert store.in_progress("e") == 0  # every claim released


# --------------------------------------------------------------------------- schedulers


@contextlib.contextmanager
def listener(answer):
    """A TCP server on the loopback that ``answer``s each connection."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held = []

    def serve():
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            held.append(connection)
            answer(connection)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        for connection in held:
            connection.close()


def _banner(connection):
    """A server that speaks first, as SSH and SMTP servers do, but not Dask."""
    connection.sendall(b"SSH-2.0-OpenSSH_9.2\r\n")


def _http(connection):
    """An HTTP server: it waits for a request, so to a Dask client it is silent."""
    connection.recv(1024)
    connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")


def test_a_silent_listener_fails_within_the_timeout(tmp_path, monkeypatch):
    monkeypatch.setattr(clusters, "CONNECT_SECONDS", 1.0)
    with listener(lambda connection: None) as address:
        with pytest.raises(RunnerError, match=f"the server at {address} did not greet like a Dask scheduler within 1 s"):
            in_thread(lambda: run(KEYS, tmp_path / "s.sqlite", "e", scheduler=address))


@pytest.mark.parametrize("answer, message", [(_banner, "is not a Dask scheduler"), (_http, "did not greet")])
def test_a_server_that_is_not_dask_is_refused(tmp_path, monkeypatch, answer, message):
    monkeypatch.setattr(clusters, "CONNECT_SECONDS", 2.0)
    with listener(answer) as address:
        with pytest.raises(RunnerError, match=message):
            in_thread(lambda: run(KEYS, tmp_path / "s.sqlite", "e", scheduler=address))


@contextlib.contextmanager
def dask_scheduler(tmp_path):
    """``dask scheduler`` on a free port of the loopback; yields its address."""
    file = tmp_path / "scheduler.json"
    process = subprocess.Popen(
        [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(file)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 60
        while not file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        import json

        time.sleep(0.2)
        yield json.loads(file.read_text())["address"], file
    finally:
        process.terminate()
        process.wait(30)


def test_a_scheduler_without_workers_says_so_and_gives_up(tmp_path, monkeypatch, capfd):
    monkeypatch.setattr(clusters, "WORKERS_SECONDS", 2.0)
    with dask_scheduler(tmp_path) as (address, _):
        with pytest.raises(RunnerError, match=f"no worker joined the Dask scheduler at {address} within 2 s"):
            in_thread(lambda: run(KEYS, tmp_path / "s.sqlite", "e", scheduler=address))
    assert f"waiting up to 2 s for a worker to join the Dask scheduler at {address}" in capfd.readouterr().err


def test_the_local_dashboard_is_off(tmp_path):
    """No dashboard, and no HTTP server on 8787: the scheduler's routes go to a free loopback port."""
    psutil = pytest.importorskip("psutil")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Port 8787 is already in use" would be an error here
        with runner._executor(1, None, None, 0) as executor:
            client = executor._client
            assert client.scheduler_info()["services"].get("dashboard") != 8787
            listening = [c.laddr for c in psutil.Process().net_connections("tcp") if c.status == psutil.CONN_LISTEN]
    assert listening and all(address.ip == "127.0.0.1" and address.port != 8787 for address in listening)


# --------------------------------------------------------------------------- a real cluster


def test_a_cluster_started_from_the_command_line_with_a_worker_killed(tmp_path):
    command = ["tournament", "mcts(iterations=300)", "greedy(eps=0.2)", "--games", "40", "--seed", "3",
               "--batch-size", "2"]
    local = awale(*command, "--store", "local.sqlite", "--workers", "0", cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    with dask_scheduler(tmp_path) as (address, file):
        workers = [
            subprocess.Popen(
                [DASK, "worker", "--scheduler-file", str(file), "--nthreads", "1", "--no-nanny",
                 "--no-dashboard", "--name", f"w{i}"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path,
            )
            for i in range(2)
        ]
        try:
            path = tmp_path / "cluster.sqlite"
            killed_at = []

            def kill_when_a_quarter_is_done():
                deadline = time.monotonic() + 240
                while time.monotonic() < deadline:
                    with contextlib.suppress(StoreError):
                        if count(path, "tournament") >= 10:
                            killed_at.append(count(path, "tournament"))
                            os.kill(workers[0].pid, signal.SIGKILL)
                            return
                    time.sleep(0.01)

            killer = threading.Thread(target=kill_when_a_quarter_is_done)
            killer.start()
            remote = awale(*command, "--store", str(path), "--scheduler", address, cwd=tmp_path)
            killer.join()
            assert remote.returncode == 0, remote.stderr
            assert killed_at and killed_at[0] < 40, "the worker was not killed while games were being played"
            assert workers[0].wait(10) == -signal.SIGKILL and workers[1].poll() is None
        finally:
            for worker in workers:
                if worker.poll() is None:
                    worker.terminate()
                    worker.wait(30)
    pd.testing.assert_frame_equal(
        load(path).drop(columns=TIMING), load(tmp_path / "local.sqlite").drop(columns=TIMING)
    )


def test_the_log_of_an_interrupted_wait_on_the_cluster_is_dropped_and_no_other():
    """The record ``distributed`` leaves when a Ctrl-C or SIGTERM cuts a wait (tornado's 'Exception in callback'
    of sync's cancel) says nothing a user can act on; any other error of the loop still reaches the log."""
    import functools
    import logging

    from awale.experiments.clusters import _InterruptedWaits

    def sync():
        def cancel():
            pass
        return cancel

    def record(callback):
        return logging.LogRecord("tornado.application", logging.ERROR, __file__, 1, "Exception in callback %r",
                                 (callback,), None)

    quiet = _InterruptedWaits()
    assert not quiet.filter(record(functools.partial(sync())))
    assert quiet.filter(record(functools.partial(print, "other")))


def test_a_local_workers_failed_heartbeat_at_the_close_is_not_logged_and_its_other_errors_are():
    """A SIGTERM that ends a run closes the local scheduler, and a worker's heartbeat then in flight fails; the
    workers of a local cluster drop that record (an ERROR with a traceback on the terminal) and only that one."""
    import logging

    from awale.experiments.clusters import _HeartbeatsAtClose, cluster

    def record(message):
        return logging.LogRecord("distributed.worker", logging.ERROR, __file__, 1, message, (), None)

    quiet = _HeartbeatsAtClose()
    assert not quiet.filter(record("Failed to communicate with scheduler during heartbeat."))
    assert quiet.filter(record("Compute Failed"))
    assert quiet.filter(record("Unexpected exception during heartbeat. Closing worker."))

    def filtered():
        return [type(each).__name__ for each in logging.getLogger("distributed.worker").filters]

    with cluster(workers=1) as (client, _):
        assert list(client.run(filtered).values()) == [["_HeartbeatsAtClose"]]


def test_distributed_stays_quiet_on_the_console_until_the_local_cluster_is_gone():
    """A closing comm's INFO record (``distributed.batched``'s "Batched Comm Closed", with its traceback, when a
    SIGTERM cut a send) may come after the LocalCluster has restored its loggers: it must not reach the terminal,
    an error still does, and the handlers get their level back once the cluster is gone.  In a process of its own,
    as on the command line: under pytest ``distributed`` installs no console handler."""
    code = """
import logging
from awale.experiments import clusters
last = clusters._wait_for_exits
def log_at_the_very_end(children):
    logging.getLogger("distributed.batched").info("Batched Comm Closed at the end")
    logging.getLogger("distributed.batched").error("an error at the end")
    last(children)
clusters._wait_for_exits = log_at_the_very_end
import distributed
handlers = [h for h in logging.getLogger("distributed").handlers if isinstance(h, logging.StreamHandler)]
before = [h.level for h in handlers]
with clusters.cluster(workers=1) as (client, description):
    assert description == "on 1 local worker process", description
assert handlers and [h.level for h in handlers] == before, (handlers, before)
logging.getLogger("distributed.batched").info("after the cluster")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "an error at the end" in done.stderr and "Batched Comm Closed" not in done.stderr, done.stderr
    assert "after the cluster" in done.stderr
