"""The layered build of the endgame database: the same values as the first builder, a file built layer by layer
that resumes where it stopped, per-layer checksums, and the known counts of positions."""

import json
import math

import numpy as np
import pytest

from awale import Rules
from awale.knowledge import endgame as eg
from awale.knowledge import endgame_build as egb
from awale.offline import endgame_checks as checks
from awale.cli import main

from conftest import ENDGAME_SMALL as SMALL, ENDGAME_VARIANTS as VARIANTS


@pytest.mark.parametrize("rules, seeds", VARIANTS)
def test_counts_give_the_values_of_the_sweeps_byte_for_byte(rules, seeds):
    swept = egb.build(rules, seeds, method="sweeps")
    counted = egb.build(rules, seeds)
    assert np.array_equal(np.asarray(swept.values), np.asarray(counted.values))
    assert swept.checksum == counted.checksum
    assert counted.recurrence_errors() == 0 and swept.recurrence_errors() == 0


def test_one_thread_and_two_give_the_same_values():
    one = egb.build(Rules(), 10, threads=1)
    two = egb.build(Rules(), 10, threads=2)
    assert one.checksum == two.checksum


@pytest.mark.parametrize("pits, seeds", [(6, 0), (6, 1), (6, 10), (3, 7), (4, 9)])
def test_the_layers_hold_the_known_counts_of_positions(pits, seeds):
    database = eg.EndgameDatabase(Rules(pits_per_side=pits, seeds_per_pit=4), seeds)
    sizes = np.diff(database._offsets[: seeds + 2])
    assert [int(x) for x in sizes] == [math.comb(s + 2 * pits - 1, 2 * pits - 1) for s in range(seeds + 1)]
    assert len(database) == math.comb(seeds + 2 * pits, 2 * pits) == int(sizes.sum())
    if pits == 6:  # C(s + 11, 11) per layer on the standard board
        assert [int(x) for x in sizes] == [math.comb(s + 11, 11) for s in range(seeds + 1)]


def test_a_file_build_has_the_values_of_the_build_in_memory(tmp_path):
    path = tmp_path / "e.db"
    built = egb.build_file(str(path), SMALL, 8)
    assert built.checksum == egb.build(SMALL, 8).checksum
    assert not (tmp_path / "e.db.part").exists() and not (tmp_path / "e.db.part.json").exists()
    loaded = eg.load(str(path), verify=True)
    assert loaded.verify_layers() == [] and len(loaded._layer_sums) == 9
    assert loaded.recurrence_errors() == 0 and loaded.recurrence_errors(layers=[8, 3]) == 0


class _Stop(Exception):
    pass


def _stop_at(layer):
    def progress(at, done, message):
        if at == layer:
            raise _Stop

    return progress


def test_a_stopped_build_resumes_from_its_last_finished_layer(tmp_path):
    path = tmp_path / "e.db"
    with pytest.raises(_Stop):
        egb.build_file(str(path), SMALL, 8, _stop_at(6))
    state = json.loads((tmp_path / "e.db.part.json").read_text())
    assert len(state["layers"]) == 6 and not path.exists()
    lines, seen = [], set()
    egb.build_file(str(path), SMALL, 8, lambda at, done, message: seen.add(at), log=lines.append)
    assert lines == [f"resuming the build in {path}.part: layers 0 to 5 are done and whole"]
    assert min(seen) == 6  # the finished layers are not solved again
    assert eg.load(str(path), verify=True).checksum == egb.build(SMALL, 8).checksum


def test_the_progress_moves_on_while_a_layer_counts_its_moves(tmp_path, monkeypatch):
    monkeypatch.setattr(egb, "_MOVES_REPORTED", 64)  # small layers report as the deep ones do
    reports = []
    built = egb.build_file(str(tmp_path / "e.db"), SMALL, 8, lambda *report: reports.append(report))
    counting = [done for at, done, message in reports if at == 8 and "counting moves" in message]
    size = int(built._offsets[9] - built._offsets[8])
    step = max(64, size // 50)
    assert len(counting) == -(-size // step) > 1 and all(a < b for a, b in zip(counting, counting[1:]))
    assert counting[-1] - counting[0] == (len(counting) - 1) * step // 2  # half a layer's work is its moves
    assert built.checksum == egb.build(SMALL, 8).checksum  # counted in pieces, the same values


def test_a_damaged_layer_is_solved_again_on_resume(tmp_path):
    path = tmp_path / "e.db"
    with pytest.raises(_Stop):
        egb.build_file(str(path), SMALL, 8, _stop_at(7))
    database = eg.EndgameDatabase(SMALL, 8)
    offset = len(eg.MAGIC) + 8 + egb._header_room(8)
    with open(f"{path}.part", "r+b") as handle:  # one byte of layer 4 flipped
        handle.seek(offset + int(database._offsets[4]) + 3)
        byte = handle.read(1)
        handle.seek(-1, 1)
        handle.write(bytes([byte[0] ^ 1]))
    lines = []
    egb.build_file(str(path), SMALL, 8, log=lines.append)
    assert lines == [f"resuming the build in {path}.part: layers 0 to 3 are done and whole"]
    assert eg.load(str(path), verify=True).checksum == egb.build(SMALL, 8).checksum


def test_a_build_for_other_seeds_starts_afresh(tmp_path):
    path = tmp_path / "e.db"
    with pytest.raises(_Stop):
        egb.build_file(str(path), SMALL, 8, _stop_at(5))
    lines = []
    assert egb.build_file(str(path), SMALL, 7, log=lines.append).checksum == egb.build(SMALL, 7).checksum
    assert lines == []


def test_layers_copied_from_another_database_give_the_values_of_a_build(tmp_path):
    deep, shallow = tmp_path / "deep.db", tmp_path / "shallow.db"
    egb.build_file(str(deep), SMALL, 8)
    lines, seen = [], set()
    derived = egb.build_file(str(shallow), SMALL, 6, lambda at, done, message: seen.add(at), log=lines.append,
                            source=eg.load(str(deep)))
    assert lines == [f"copied layers 0 to 6 from {deep}"] and seen == set()  # nothing solved
    assert eg.load(str(shallow), verify=True).checksum == derived.checksum == egb.build(SMALL, 6).checksum
    # A shallower database starts a deeper build, whose first layer not copied is solved.
    lines, seen = [], set()
    deeper = tmp_path / "deeper.db"
    egb.build_file(str(deeper), SMALL, 9, lambda at, done, message: seen.add(at), log=lines.append,
                  source=eg.load(str(shallow)))
    assert lines == [f"copied layers 0 to 6 from {shallow}"] and min(seen) == 7
    assert eg.load(str(deeper), verify=True).checksum == egb.build(SMALL, 9).checksum


def test_a_damaged_layer_is_not_copied_and_other_rules_are_refused(tmp_path):
    deep = tmp_path / "deep.db"
    egb.build_file(str(deep), SMALL, 8)
    database = eg.load(str(deep))
    with open(deep, "r+b") as handle:  # one byte of layer 5 flipped
        handle.seek(database._offset + int(database._offsets[5]) + 2)
        byte = handle.read(1)
        handle.seek(-1, 1)
        handle.write(bytes([byte[0] ^ 1]))
    lines = []
    copy = tmp_path / "copy.db"
    egb.build_file(str(copy), SMALL, 8, log=lines.append, source=eg.load(str(deep)))
    assert lines == [f"copied layers 0 to 4 from {deep}"]
    assert eg.load(str(copy), verify=True).checksum == egb.build(SMALL, 8).checksum
    with pytest.raises(ValueError, match="same rules"):
        egb.build_file(str(tmp_path / "other.db"), Rules(pits_per_side=2, seeds_per_pit=3), 5, source=database)
    old = eg.load(str(copy))
    old._layer_sums = None  # as a database of the first format reads
    with pytest.raises(ValueError, match="no layer checksums"):
        egb.build_file(str(tmp_path / "other.db"), SMALL, 5, source=old)


def test_loading_checks_each_layer_and_reads_the_first_format(tmp_path, monkeypatch):
    small = egb.build(SMALL, 7)
    path = tmp_path / "e.db"
    small.save(str(path))
    header = eg.load(str(path)).header()
    assert header["version"] == eg.FORMAT_VERSION == 2 and len(header["layers"]) == 8
    database = eg.load(str(path))
    data = bytearray(path.read_bytes())
    data[database._offset + int(database._offsets[5])] ^= 1
    (tmp_path / "bad.db").write_bytes(bytes(data))
    assert eg.load(str(tmp_path / "bad.db")).verify_layers() == [5]
    assert eg.load(str(tmp_path / "bad.db")).verify_layers([7, 4, 5, 5]) == [5]
    read = []
    digest = eg.layer_digest
    monkeypatch.setattr(eg, "layer_digest", lambda values: read.append(len(values)) or digest(values))
    assert eg.load(str(tmp_path / "bad.db")).verify_layers([0, 6]) == [] and len(read) == 2  # those two only
    for wrong in ([8], [-1], [2.0]):
        with pytest.raises(ValueError, match="layers run from 0 to 7"):
            eg.load(str(tmp_path / "bad.db")).verify_layers(wrong)
    with pytest.raises(ValueError, match=r"layers \[5\] do not match"):
        eg.load(str(tmp_path / "bad.db"), verify=True)
    # A file of format 1: no layer checksums, the same values.
    text = {**header, "version": 1}
    del text["layers"]
    raw = json.dumps(text, sort_keys=True).encode()
    (tmp_path / "v1.db").write_bytes(eg.MAGIC + len(raw).to_bytes(8, "little") + raw + np.asarray(small.values).tobytes())
    old = eg.load(str(tmp_path / "v1.db"), verify=True)
    assert old.verify_layers() == [] and np.array_equal(old.values, small.values)


def test_each_layer_agrees_with_the_exact_search_of_the_database_game():
    database = egb.build(SMALL, 8)
    agreed = 0
    for seeds in range(1, 9):
        found = checks.search_check(database, seeds, 40, nodes=50_000, seed=seeds)
        assert found["disagree"] == 0 and found["agree"] > 0, (seeds, found)
        agreed += found["agree"]
    assert agreed >= 200
    broken = eg.EndgameDatabase(SMALL, 8)
    broken._values = np.array(database.values)
    broken._values[int(database._offsets[6]) : int(database._offsets[7])] += 1
    assert checks.search_check(broken, 6, 40, nodes=50_000)["disagree"] > 0


def test_the_memory_a_build_needs():
    # Six bytes a position of the largest layer: its best captures, its counts and its queue.
    assert eg.work_memory(6, 25) == 6 * math.comb(36, 11) < 4e9  # the bounds beyond the file
    assert eg.work_memory(6, 28) == 6 * math.comb(39, 11) < 12e9
    assert eg.memory_needed(6, 25) == math.comb(37, 12) + 6 * math.comb(36, 11)
    assert eg.memory_needed(6, 15, "sweeps") > eg.memory_needed(6, 15)
    with pytest.raises(ValueError, match="above the cap"):
        egb.build_file("unused.db", Rules(), 25, memory=2**30)
    with pytest.raises(ValueError, match="method must be one of"):
        egb.build(SMALL, 3, method="fast")


def test_the_command_line_builds_layer_by_layer_and_checks_each_layer(tmp_path, capsys, monkeypatch):
    path = str(tmp_path / "e.db")
    assert main(["endgame", "build", "--seeds", "6", "--out", path, "--pits", "3", "--seeds-per-pit", "2",
                 "--threads", "1"]) == 0
    assert main(["endgame", "check", path, "--sample", "0", "--per-layer", "20", "--nodes", "50000"]) == 0
    out = capsys.readouterr().out
    assert "recurrence: 0 of 924 positions" in out and "disagree" in out
    monkeypatch.setenv("AWALE_CACHE", str(tmp_path / "cache"))
    assert main(["endgame", "build", "--seeds", "5", "--pits", "3", "--seeds-per-pit", "2"]) == 0
    from awale.knowledge.endgame_cache import built_database_path

    assert eg.load(str(built_database_path(5, SMALL)), verify=True).seeds == 5
    assert main(["endgame", "build", "--seeds", "4", "--pits", "3", "--seeds-per-pit", "2", "--from", path]) == 0
    assert f"copied layers 0 to 4 from {path}" in capsys.readouterr().err
    assert eg.load(str(built_database_path(4, SMALL)), verify=True).checksum == egb.build(SMALL, 4).checksum
    assert main(["endgame", "build", "--seeds", "4", "--from", str(tmp_path / "missing.db")]) == 2
    assert "--from" in capsys.readouterr().err


def _waves(database, seeds):
    """The wave of every won or lost position of a layer, from its values alone: a position worth ``+t`` is of
    wave 0 when a capture gives it ``t``, else one more than its quiet child worth ``-t`` of the lowest wave;
    one worth ``-t`` is of wave 0 when a capture gives ``-t`` and no quiet child is worth ``t``, else one more
    than the highest wave of its quiet children worth ``t``."""
    params, binom, offsets = np.array(database.rules.params), database._binom, database._offsets
    n = database.rules.pits_per_side
    board, child = np.empty(2 * n, dtype=np.int64), np.empty(2 * n, dtype=np.int64)
    state, out = np.zeros(2 * n + 5, dtype=np.int64), np.empty(n, dtype=np.int64)
    values = database.values
    low = int(offsets[seeds])
    moves = {}
    for rank in range(int(offsets[seeds + 1]) - low):
        count = eg.position_at(rank, seeds, params, binom, board, state, out)
        best, quiet = (eg.stuck_value(board, n, params[5]) if count == 0 else None), []
        for j in range(count):
            taken = eg.play_turned(board, out[j], n, params[3], child)
            if taken:
                value = taken - int(values[int(offsets[seeds - taken]) + eg.rank_of(child, 2 * n, binom)])
                best = value if best is None else max(best, value)
            else:
                quiet.append(low + eg.rank_of(child, 2 * n, binom))
        if values[low + rank]:
            moves[low + rank] = (best, quiet)
    wave = {}
    for w in range(len(moves) + 1):
        found = {}
        for p, (best, quiet) in moves.items():
            if p in wave:
                continue
            t = int(values[p])
            if t > 0:
                settled = best == t if w == 0 else any(wave.get(c) == w - 1 for c in quiet if values[c] == -t)
            else:
                known = [wave.get(c) for c in quiet if values[c] == -t]
                settled = (best == t and not known) if w == 0 else (
                    bool(known) and None not in known and max(known) == w - 1)
            if settled:
                found[p] = w
        if not found:
            break
        wave.update(found)
    assert len(wave) == len(moves)  # every won or lost position has a wave
    return wave


def test_the_deepest_wave_of_each_layer_is_the_slowest_decision_of_its_values():
    found = []
    database = egb.build(SMALL, 8, deepest=found.append)
    assert [d.seeds for d in found] == list(range(1, 9))
    for deepest in found:
        wave = _waves(database, deepest.seeds)
        assert deepest.plies == max(wave.values())
        slowest = [p for p, w in wave.items() if w == deepest.plies]
        margin = max(abs(int(database.values[p])) for p in slowest)
        assert (deepest.margin, deepest.index in slowest) == (margin, True)
        assert int(database.values[deepest.index]) == deepest.value and abs(deepest.value) == margin
        assert deepest.positions == sum(abs(int(database.values[p])) == margin for p in slowest)
    assert max(d.plies for d in found) >= 10  # quiet play does decide some positions, late
