"""The endgame database built on a Dask cluster: byte for byte the one-machine file (every layer cut into shares
that exchange messages), a worker killed in the middle of a layer, a build stopped and resumed, the file checked
to be visible to every worker, and the memory a worker refused when a share would not fit."""

import os
import re
import signal

import numpy as np
import pytest

pytest.importorskip("distributed")

from awale import Rules
from awale.cli import main
from awale.experiments.clusters import cluster
from awale.knowledge import endgame as eg
from awale.knowledge import endgame_build as egb
from awale.offline import endgame_dask as ed

from conftest import ENDGAME_SMALL as SMALL, ENDGAME_VARIANTS as VARIANTS


@pytest.fixture(scope="module")
def cluster_client():
    with cluster(workers=2) as (dask_client, _):
        yield dask_client


@pytest.fixture
def client(cluster_client):
    """The module's cluster, whose workers no test kills."""
    cluster_client.wait_for_workers(2, timeout=600)
    return cluster_client


@pytest.fixture
def own_client():
    """A cluster of its own for a test that kills one of its workers, closed with the test.  A local cluster checks
    15 s after a worker is lost (Dask's ``lost-worker-timeout``) that a worker of that name is back, and closes its
    nanny if none is: a second kill of the same worker within 15 s, by the next test, found the nanny's restart
    unfinished and left a shared cluster one worker short for every later test."""
    with cluster(workers=2) as (dask_client, _):
        dask_client.wait_for_workers(2, timeout=600)
        yield dask_client


def _one_machine(tmp_path, rules, seeds):
    return egb.build_file(str(tmp_path / "one.db"), rules, seeds, threads=1)


def _same_file(built, reference):
    assert built.checksum == reference.checksum
    assert built._layer_sums == reference._layer_sums
    assert built.verify_checksum() and built.verify_layers() == []


@pytest.mark.parametrize("rules, seeds", VARIANTS)
def test_a_build_in_shares_is_the_one_machine_file_byte_for_byte(client, tmp_path, rules, seeds):
    stats = ed.BuildStats()
    built = ed.build_on_cluster(str(tmp_path / "d.db"), client, rules, seeds, partition=ed.Partition(least=1), stats=stats)
    _same_file(built, _one_machine(tmp_path, rules, seeds))
    assert stats.exchanged > 0 and stats.recovered == 0  # the shares did exchange parents
    assert built.recurrence_errors() == 0
    assert not os.path.exists(str(tmp_path / "d.db.part")) and not os.path.exists(str(tmp_path / "d.db.part.d"))


@pytest.mark.parametrize("shares, durable", [(1, False), (3, False), (5, False), (2, True)])
def test_any_number_of_shares_gives_the_same_file(client, tmp_path, shares, durable):
    built = ed.build_on_cluster(str(tmp_path / "d.db"), client, SMALL, 9,
                                partition=ed.Partition(shares=shares, least=1, durable=durable))
    _same_file(built, _one_machine(tmp_path, SMALL, 9))


def _killer(client, layer, round_, seed):
    """A progress callback that kills one worker process (chosen by ``seed``) with SIGKILL as round ``round_``
    of layer ``layer`` starts (its tasks submitted, running or about to)."""
    pids = sorted(client.run(os.getpid).values())
    victim = pids[np.random.default_rng(seed).integers(len(pids))]
    fired = []

    def progress(at, done, message):
        found = re.search(r"round (\d+)", message)
        if not fired and at == layer and found and int(found.group(1)) >= round_:
            os.kill(victim, signal.SIGKILL)
            fired.append(message)

    return progress, fired


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_worker_killed_in_a_layer_costs_its_round_and_the_values_stay_exact(own_client, tmp_path, seed):
    rng = np.random.default_rng(seed)
    layer, round_ = int(rng.integers(6, 10)), int(rng.integers(0, 12))
    progress, fired = _killer(own_client, layer, round_, seed)
    stats = ed.BuildStats()
    lines = []
    built = ed.build_on_cluster(str(tmp_path / "d.db"), own_client, Rules(), 9, progress=progress, partition=ed.Partition(least=1),
                                stats=stats, log=lines.append)
    assert fired, "the worker was not killed"
    _same_file(built, _one_machine(tmp_path, Rules(), 9))
    assert stats.recovered >= 1
    assert any("was lost" in line for line in lines)


def test_a_worker_killed_while_counting_moves_is_counted_again(own_client, tmp_path):
    pids = sorted(own_client.run(os.getpid).values())
    fired = []

    def progress(at, done, message):
        if not fired and at == 8 and "counting the moves" in message:
            os.kill(pids[1], signal.SIGKILL)
            fired.append(message)

    built = ed.build_on_cluster(str(tmp_path / "d.db"), own_client, Rules(), 9, progress=progress, partition=ed.Partition(least=1))
    assert fired
    _same_file(built, _one_machine(tmp_path, Rules(), 9))


def test_a_stopped_build_resumes_from_its_last_finished_layer_with_either_builder(client, tmp_path):
    path = str(tmp_path / "d.db")

    def stop(at, done, message):
        if at == 7 and "round 2" in message:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ed.build_on_cluster(path, client, SMALL, 9, progress=stop, partition=ed.Partition(least=1))
    assert os.path.exists(path + ".part") and os.path.exists(path + ".part.json")
    lines = []
    resumed = ed.build_on_cluster(path, client, SMALL, 9, partition=ed.Partition(least=1), log=lines.append)
    assert any("layers 0 to 6 are done" in line for line in lines)
    _same_file(resumed, _one_machine(tmp_path, SMALL, 9))
    # the one-machine build resumes a distributed build's file too
    other = str(tmp_path / "e.db")
    with pytest.raises(KeyboardInterrupt):
        ed.build_on_cluster(other, client, SMALL, 9, progress=stop, partition=ed.Partition(least=1))
    said = []
    _same_file(egb.build_file(other, SMALL, 9, log=said.append), resumed)
    assert any("layers 0 to 6 are done" in line for line in said)


def test_a_damaged_finished_layer_is_built_again(client, tmp_path):
    path = str(tmp_path / "d.db")

    def stop(at, done, message):
        if at == 8:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ed.build_on_cluster(path, client, SMALL, 9, progress=stop, partition=ed.Partition(least=1))
    database = eg.EndgameDatabase(SMALL, 9)
    offset = len(eg.MAGIC) + 8 + 2048 + 72 * 10
    with open(path + ".part", "rb+") as handle:  # one byte of layer 5 changed
        handle.seek(offset + int(database._offsets[5]) + 3)
        byte = handle.read(1)
        handle.seek(offset + int(database._offsets[5]) + 3)
        handle.write(bytes([(byte[0] + 1) % 256]))
    lines = []
    resumed = ed.build_on_cluster(path, client, SMALL, 9, partition=ed.Partition(least=1), log=lines.append)
    assert any("layers 0 to 4 are done" in line for line in lines)
    _same_file(resumed, _one_machine(tmp_path, SMALL, 9))


def test_a_worker_that_does_not_see_the_file_stops_the_build_before_the_first_layer(client, tmp_path):
    def patch():  # the workers' check of the file answers as on a machine that does not mount it
        import awale.offline.endgame_dask as there

        def blind(part, mark, expected):
            return f"{part}: No such file or directory"

        there._saved_visible = there._visible
        there._visible = blind

    def unpatch():
        import awale.offline.endgame_dask as there

        there._visible = there._saved_visible

    client.run(patch)
    try:
        with pytest.raises(ed.ClusterBuildError, match=r"does not see the build's file .*d\.db\.part"):
            ed.build_on_cluster(str(tmp_path / "d.db"), client, SMALL, 6)
    finally:
        client.run(unpatch)


def test_a_share_too_large_for_a_worker_is_refused_naming_the_size():
    with pytest.raises(ed.ClusterBuildError, match=r"30-seed build in 2 shares needs about [\d,]+ MiB"):
        ed.plan_memory(6, 30, 2, {"tcp://a:1": 8 * 2**30})
    with pytest.raises(ed.ClusterBuildError, match=r"above the cap of 1 MiB"):
        ed.plan_memory(6, 20, 2, {}, cap=2**20)
    line = ed.plan_memory(6, 20, 2, {"tcp://a:1": 8 * 2**30})
    assert "42,336,158 of 84,672,315 positions with 20 seeds" in line
    # seven bytes a position of the share, and the mail
    assert ed.share_memory(6, 20, 2) == 42_336_158 * 7 + egb.SHARE_MAIL * 8


def test_the_cluster_option_is_parsed():
    assert ed.parse_cluster("local:3") == (3, None)
    assert ed.parse_cluster("tcp://host:8786") == (None, "tcp://host:8786")
    assert ed.parse_cluster("host:8786") == (None, "tcp://host:8786")
    for bad in ("local:0", "local:x", "nowhere"):
        with pytest.raises(ValueError):
            ed.parse_cluster(bad)


def test_the_command_builds_on_a_local_cluster_and_check_passes(tmp_path, capsys):
    path = str(tmp_path / "c.db")
    assert main(["endgame", "build", "--seeds", "8", "--pits", "3", "--seeds-per-pit", "2", "--cluster", "local:2",
                 "--out", path]) == 0
    out = capsys.readouterr()
    assert "bytes a position" in out.out and "memory a worker" in out.err and "dashboard" in out.err
    assert eg.load(path).checksum == egb.build(SMALL, 8).checksum
    assert main(["endgame", "check", path, "--sample", "5"]) == 0


def test_the_command_refuses_a_share_too_large_naming_the_size(tmp_path, capsys):
    status = main(["endgame", "build", "--seeds", "22", "--cluster", "local:1", "--memory", "100",
                   "--out", str(tmp_path / "c.db")])
    assert status == 2
    assert re.search(r"22-seed build in 1 shares needs about [\d,]+ MiB a worker, above the cap of 100 MiB",
                     capsys.readouterr().err)
