"""The engine protocol in this process (awale.play.protocol): commands read as values, the move notation, the
settings, the searches and their info lines, stop within moments, and words for every line it cannot use."""

import io
import re
import statistics
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from awale import DEFAULT_AGENT, Game, Rules
from awale.agents import parse
from awale.core.control import SearchControl
from awale.play.protocol import (
    EngineServer, Go, IsReady, NewGame, PonderHit, Position, ProtocolError, Quit, SetOption, Stop, Uci, line_text,
    parse_command, read_line,
)


class Lines:
    """The engine's output, with a wait for a line that starts with a word."""

    def __init__(self):
        self.lines = []
        self.times = []
        self._new = threading.Condition()

    def __call__(self, line):
        with self._new:
            self.lines.append(line)
            self.times.append(time.perf_counter())
            self._new.notify_all()

    def wait(self, word, after=0, timeout=60.0):
        """The index of the first line from ``after`` on that starts with ``word``."""
        deadline = time.monotonic() + timeout
        with self._new:
            while True:
                for index in range(after, len(self.lines)):
                    if self.lines[index].split()[:1] == [word]:
                        return index
                left = deadline - time.monotonic()
                assert left > 0, f"no {word!r} in {self.lines[after:]}"
                self._new.wait(left)


def engine(spec="uct(iterations=200)"):
    out = Lines()
    return EngineServer(spec, out), out


# --------------------------------------------------------------------------- commands as values


@pytest.mark.parametrize("line, command", [
    ("uci", Uci()), ("isready", IsReady()), ("ucinewgame", NewGame()), ("stop", Stop()), ("quit", Quit()),
    ("  uci  \n", Uci()),
    ("setoption name Hash value 64", SetOption("Hash", "64")),
    ("setoption name Endgame value", SetOption("Endgame", "")),
    ("setoption name Spec value uct(iterations=5, c=0.5)", SetOption("Spec", "uct(iterations=5, c=0.5)")),
    ("setoption name Clear Hash", SetOption("Clear Hash", "")),
    ("position startpos", Position(None, "")),
    ("position startpos moves C d A", Position(None, "CdA")),
    ("position startpos moves CdA", Position(None, "CdA")),
    ("position board 4 4 4 4 4 4 4 4 4 4 4 4 0 0 north moves a",
     Position(((4,) * 12, (0, 0), 1), "a")),
    ("go", Go()), ("go infinite", Go(infinite=True)), ("go movetime 250", Go(movetime=250)),
    ("go ponder movetime 100 depth 127", Go(movetime=100, depth=127, ponder=True)), ("ponderhit", PonderHit()),
    ("go nodes 5000 depth 6", Go(nodes=5000, depth=6)),
    ("go wtime 60000 btime 59000 winc 500 binc 500 movestogo 20",
     Go(wtime=60000, btime=59000, winc=500, binc=500, movestogo=20)),
])
def test_each_command_is_read_into_its_value(line, command):
    assert parse_command(line) == command


@pytest.mark.parametrize("line, words", [
    ("", "empty"), ("ucix", "unknown command"), ("uci now", "takes nothing"), ("go mate 3", "unknown limit"),
    ("go movetime", "needs a number"), ("go movetime soon", "whole number"), ("go movetime 0", "from 1"),
    ("go nodes -5", "from 1"), ("go depth 10000000000000", "from 1"), ("setoption Hash 5", "needs a name"),
    ("setoption name", "needs a name"), ("position", "startpos or board"), ("position fen x", "startpos or board"),
    ("position startpos moves C 3", "pit letters"), ("position board 4 4 south x", "side to move"),
    ("position board 4 4 4 nowhere", "side to move"), ("position board 4 x 4 4 south", "whole numbers"),
])
def test_a_malformed_line_is_refused_in_words(line, words):
    with pytest.raises(ProtocolError, match=words):
        parse_command(line)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_no_line_crashes_the_engine_and_each_gets_an_answer_or_is_silent(text):
    server, out = engine("random")
    line = text.replace("\n", " ").replace("\r", " ")
    words = line.split()
    assert server.handle(line) is not (words[:1] == ["quit"] and len(words) == 1)
    server.stop(wait=True)
    answered = out.lines
    if words[:1] not in (["uci"], ["isready"], ["go"], ["stop"], ["quit"], ["ucinewgame"], ["setoption"]):
        assert answered == [] or answered[0].startswith("info string"), answered


# --------------------------------------------------------------------------- the notation


def _random_line(seed, plies=40):
    rng = np.random.default_rng(seed)
    game, actions = Game(), []
    while not game.game_finished and len(actions) < plies:
        actions.append(int(rng.choice(game.legal_actions)))
        game = game.step(actions[-1])[0]
    return actions, game


@pytest.mark.parametrize("seed", range(20))
def test_a_line_written_in_labels_reads_back_to_its_actions_spaced_or_not(seed):
    actions, end = _random_line(seed)
    text = line_text(Game(), actions)
    labels = text.split()
    assert all(label in "ABCDEF" for label in labels[0::2]) and all(label in "abcdef" for label in labels[1::2])
    for written in (text, text.replace(" ", "")):
        read, game = read_line(written, Game())
        assert read == actions and game == end and game.plies == end.plies


def test_the_mover_of_each_letter_is_checked():
    assert read_line("Cc", Game())[0] == [2, 2]  # C by South, then c by North
    with pytest.raises(ValueError, match="move 2, 'C': C is South's pit, but North is to move"):
        read_line("CC", Game())
    with pytest.raises(ValueError, match="move 1, 'a': a is North's pit, but South is to move .South's pits are A-F."):
        read_line("a", Game())


def test_an_illegal_move_and_a_move_after_the_end_are_refused_in_words():
    with pytest.raises(ValueError, match=r"move 3, 'C': South's pit C is empty; legal moves: A B D E F"):
        read_line("C a C", Game())
    with pytest.raises(ValueError, match="move 1, 'g': 'g' is not a pit of this board"):
        read_line("g", Game())
    actions, end = _random_line(3, plies=1000)
    assert end.game_finished
    with pytest.raises(ValueError, match=f"move {len(actions) + 1}, .*the game is already over"):
        read_line(line_text(Game(), actions) + " A", Game())


# --------------------------------------------------------------------------- the conversation


def test_uci_names_the_engine_and_lists_its_settings():
    server, out = engine("champion(nodes=1000)")
    server.handle("uci")
    assert out.lines[0] == "id name awale 0.1.0 champion(nodes=1000)"
    assert out.lines[1].startswith("id author ")
    options = {line.split()[2]: line for line in out.lines if line.startswith("option name ")}
    for name in ("Spec", "Seed", "Threads", "Hash", "Endgame", "TimeManager", "Ponder", "Rules", "Quiescence",
                 "Weights"):
        assert name in options
    assert options["Hash"] == "option name Hash type spin default 28 min 1 max 28672"
    assert options["TimeManager"] == "option name TimeManager type check default false"
    assert options["Ponder"] == "option name Ponder type check default false"
    assert options["Threads"] == "option name Threads type spin default 1 min 1 max 64"
    assert options["Quiescence"] == "option name Quiescence type spin default 4 min 0 max 32"
    assert options["Weights"].startswith("option name Weights type combo default games var games")
    # A flag is a check box, but the book, which also names a grown book or a file, is a string.
    assert options["Reductions"] == "option name Reductions type check default false"
    assert options["Book"] == "option name Book type string default true"
    # Every name is capitalised; the budgets are go's limits, not settings.
    assert all(name[0].isupper() for name in options)
    assert not {"Time", "Depth", "Nodes", "Iterations"} & set(options)
    assert out.lines[-1] == "uciok"
    server.handle("setoption name book value grown16")
    assert server.agent().book == "grown16"


def test_isready_answers_readyok():
    server, out = engine("minimax(depth=2)")
    server.handle("isready")
    assert out.lines == ["readyok"]


def test_settings_change_the_agent_and_bad_ones_change_nothing():
    server, out = engine("champion(nodes=1000)")
    server.handle("setoption name Hash value 64")
    server.handle("setoption name seed value 7")
    server.handle("setoption name QUIESCENCE value 2")
    server.handle("setoption name Endgame value")
    assert server.agent() == parse("champion(nodes=1000, table=21, quiescence=2, seed=7)")
    assert out.lines == []
    for line, words in [
        ("setoption name Threads value 0", "Threads must be at least 1"),
        ("setoption name Warp value 9", "no setting 'Warp'"),
        ("setoption name quiescence value many", "Quiescence is a number"),
        ("setoption name quiescence value 99", "at most 32"),
        ("setoption name Hash value 0", "Hash is a number of megabytes"),
        ("setoption name Spec value clocked(agent='greedy', tc='1+0')", "not clocked"),
        ("setoption name Spec value nobody", "unknown agent"),
        ("setoption name Rules value pits_per_side=99", "pits_per_side"),
        ("setoption name TimeManager value maybe", "true or false"),
    ]:
        server.handle(line)
        assert out.lines[-1].startswith("info string") and words in out.lines[-1], (line, out.lines[-1])
    assert server.agent() == parse("champion(nodes=1000, table=21, quiescence=2, seed=7)")
    server.handle("setoption name Spec value uct(iterations=50)")
    server.handle("setoption name Threads value 2")
    assert server.agent() == parse("uct(iterations=50, threads=2, seed=7)")  # the seed is kept
    server.handle("setoption name Spec value greedy")
    server.handle("setoption name Threads value 2")
    assert "Threads: greedy has no threads" in out.lines[-1]


def test_a_bad_position_is_refused_in_words_and_the_position_kept():
    server, out = engine("greedy")
    server.handle("position startpos moves C d")
    kept = server.game
    for line, words in [
        ("position startpos moves C d C", "move 3, 'C': South's pit C is empty"),
        ("position board 4 4 4 4 4 4 4 4 4 4 4 0 0 0 south", "the seeds do not add up"),
        ("position board 4 4 4 4 4 4 4 4 4 4 4 4 0 0 north moves A", "A is South's pit, but North is to move"),
        ("position board 0 0 0 0 0 0 4 4 4 4 4 4 12 12 south", "South has no legal move"),
        ("position board 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 0 0 south", "pits must hold 12 counts"),
    ]:
        server.handle(line)
        assert out.lines[-1].startswith("info string position refused: ") and words in out.lines[-1], out.lines[-1]
        assert server.game is kept


def test_go_with_nodes_plays_the_move_of_the_agent_with_that_budget_and_reports_the_search():
    server, out = engine("champion(time=1.0, book=False)")
    server.handle("position startpos moves C d")
    server.handle("go nodes 3000")
    done = out.wait("bestmove")
    game = read_line("C d", Game())[1]
    expected = parse("champion(nodes=3000, book=False)").act(game)
    assert out.lines[done].split()[:2] == ["bestmove", line_text(game, [expected])]
    infos = [line.split() for line in out.lines[:done]]
    assert [int(words[2]) for words in infos] == list(range(1, len(infos) + 1))  # one line per iteration
    for words in infos:
        assert words[:2] == ["info", "depth"] and words[3:5] == ["score", "cp"] and words[6] == "nodes"
        assert words[8] == "nps" and words[10] == "time" and words[12] == "pv"
        read_line(" ".join(words[13:]), game)  # the principal variation is a line of legal moves


def test_go_on_an_mcts_agent_reports_its_mean_and_its_line():
    server, out = engine("uct(iterations=3000, solver=True)")
    server.handle("go")
    done = out.wait("bestmove")
    words = out.lines[done - 1].split()
    assert words[:2] == ["info", "depth"] and words[3:5] == ["score", "cp"] and int(words[5]) == int(words[5])
    assert words[6:8] == ["nodes", "3000"] and words[12] == "pv" and words[13] == out.lines[done].split()[1]


def test_go_depth_and_movetime_and_a_clock_each_bound_the_search():
    server, out = engine("minimax(depth=3)")
    server.handle("go depth 5")
    done = out.wait("bestmove")
    assert out.lines[done - 1].startswith("info depth 5 ")
    server.handle("setoption name Spec value champion(book=False, manage=True)")
    for line in ("go movetime 100", "go wtime 2000 btime 2000 winc 0 binc 0", "go btime 100 wtime 3000"):
        start = time.perf_counter()
        server.handle(line)
        done = out.wait("bestmove", done + 1)
        assert time.perf_counter() - start < 2.0, line  # generous: a tenth of a second, or a share of 2 s
    server.handle("setoption name Spec value greedy")
    server.handle("go nodes 10")
    done = out.wait("bestmove", done + 1)
    assert out.lines[done - 1] == "info string go: greedy has no nodes limit; it searches with its own budget"


def test_a_spending_agent_warms_up_and_searches_nodes_and_a_depth_without_its_spend():
    """``spend`` needs a time: the warm-up, ``go nodes`` and ``go depth`` search without it, ``go movetime`` with it."""
    server, out = engine("champion(time=0.05, book=False, spend=True)")
    server.handle("isready")
    ready = out.wait("readyok")
    server.handle("position startpos moves C d")
    for line in ("go nodes 2000", "go depth 4", "go movetime 50"):
        server.handle(line)
        ready = out.wait("bestmove", ready + 1)
    assert not [line for line in out.lines if line.startswith("info string")], out.lines
    game = read_line("C d", Game())[1]
    first = [line for line in out.lines if line.startswith("bestmove")][0]
    assert first.split()[:2] == ["bestmove", line_text(game, [parse('champion(nodes=2000, book=False)').act(game)])]


@pytest.mark.parametrize("spec", [
    DEFAULT_AGENT.replace("champion(", "champion(book=False, "),  # the engine's default, with a managed clock count
    "minimax(time=0.05, manage=True, clock_moves='database')",
    "champion(time=0.05, book=False, manage=True, timing='settled_share=0.25')",
])
def test_an_agent_with_time_manager_settings_plays_every_budget(spec):
    """``clock_moves`` and ``timing`` need a managed time: the warm-up, ``go nodes``, ``go depth``, ``go movetime``,
    a clock without the time manager and ``go infinite`` all search without them; a clock with it uses them."""
    server, out = engine(spec)
    server.handle("isready")
    ready = out.wait("readyok")
    server.handle("position startpos moves C d")
    lines = ["go nodes 2000", "go depth 4", "go movetime 50", "go wtime 2000 btime 2000 winc 20 binc 20",
             "setoption name TimeManager value false", "go wtime 2000 btime 2000 winc 20 binc 20"]
    for line in lines:
        server.handle(line)
        if line.startswith("go"):
            ready = out.wait("bestmove", ready + 1)
    server.handle("go infinite")
    time.sleep(0.05)
    server.handle("stop")
    out.wait("bestmove", ready + 1)
    assert not [line for line in out.lines if line.startswith("info string")], out.lines


def test_go_movetime_spends_the_whole_time():
    """A move time is spent as given (``spend``): the answer comes no sooner than 90 % of it, however loaded the
    machine (the deadline is on the wall clock); without spending, the champion stops well before it."""
    server, out = engine("champion(time=1, book=False)")
    server.handle("isready")
    done = out.wait("readyok")
    server.handle("position startpos moves C d")
    for _ in range(2):
        start = time.perf_counter()
        server.handle("go movetime 300")
        done = out.wait("bestmove", done + 1)
        assert time.perf_counter() - start >= 0.27


@pytest.mark.parametrize("spec", ["champion(book=False, quiescence=0)", "uct(iterations=300)", "greedy"])
def test_go_ponder_searches_until_ponderhit_or_stop_and_answers_once(spec):
    server, out = engine(spec)
    server.handle("isready")
    done = out.wait("readyok")
    server.handle("position startpos moves C d A")
    server.handle("go ponder nodes 500")
    time.sleep(0.2)
    assert not [line for line in out.lines[done:] if line.startswith("bestmove")]  # pondering: no answer yet
    server.handle("ponderhit")
    hit = out.wait("bestmove", done + 1)
    server.handle("go ponder movetime 50")
    time.sleep(0.1)
    stopped = time.perf_counter()
    server.handle("stop")
    answered = out.wait("bestmove", hit + 1)
    assert out.times[answered] - stopped < 0.2  # 50 ms asked; the stop reaches the kernels in microseconds
    server.handle("go ponder infinite")
    time.sleep(0.05)
    server.handle("ponderhit")
    time.sleep(0.1)
    assert not [line for line in out.lines[answered + 1:] if line.startswith("bestmove")]  # infinite: until stop
    server.handle("stop")
    last = out.wait("bestmove", answered + 1)
    server.handle("ponderhit")  # nothing pondered: said, and ignored
    server.handle("isready")
    out.wait("readyok", last + 1)
    assert [line for line in out.lines if line.startswith("bestmove")] == [out.lines[i] for i in (hit, answered, last)]
    assert "info string ponderhit: no search is pondering; line ignored" in out.lines


def test_every_go_is_answered_even_a_go_that_cannot_be_read():
    server, out = engine("greedy")
    server.handle("go movetime soon")
    done = out.wait("bestmove")
    assert out.lines[0].startswith("info string go: movetime needs a whole number")
    assert out.lines[done].split()[1] in "ABCDEF"


def test_a_book_move_is_said_with_its_line():
    server, out = engine("champion(nodes=1000)")
    server.handle("go")
    done = out.wait("bestmove")
    assert out.lines[:done] == ["info string book move", f"info depth 0 nodes 0 nps 0 time {out.lines[1].split()[-3]} "
                                f"pv {out.lines[done].split()[1]}"]


def test_go_in_a_finished_game_answers_none():
    server, out = engine("greedy")
    actions, end = _random_line(3, plies=1000)
    server.handle("position startpos moves " + line_text(Game(), actions))
    server.handle("go")
    assert out.lines[-1] == "bestmove (none)"


def test_commands_during_a_search_wait_for_its_answer_but_stop_isready_and_quit_do_not():
    server, out = engine("uct(iterations=100)")
    server.handle("go infinite")
    server.handle("position startpos moves C")
    server.handle("go nodes 50")
    server.handle("isready")
    assert out.lines[-1] == "readyok" and not any(line.startswith("bestmove") for line in out.lines)
    server.handle("stop")
    first = out.wait("bestmove")
    second = out.wait("bestmove", first + 1)
    assert out.lines[second].split()[1] in "abcdef"  # the second search was North's, after C
    assert server.handle("quit") is False


def test_the_end_of_the_input_finishes_the_search_asked_for():
    server, out = engine("uct(iterations=2000)")
    server.serve(io.StringIO("position startpos moves C\ngo\n"))
    assert out.lines[-1].startswith("bestmove ") and "nodes 2000" in out.lines[-2]


def test_a_line_too_long_is_refused_without_being_read_whole():
    server, out = engine("greedy")
    server.serve(io.StringIO("x" * 200_000 + "\nisready\n"))
    assert out.lines == ["info string a line of more than 65536 characters; line ignored", "readyok"]


@pytest.mark.parametrize("spec", [
    "champion(book=False, manage=True, reductions=True, weights='texel', quiescence=0)",
    "uct(iterations=1000)",
    "uct(threads=2, parallel='tree')",
    "flat",
])
def test_stop_ends_an_infinite_search_within_moments(spec, capsys):
    server, out = engine(spec)
    server.handle("isready")  # kernels compiled: the delay measured is the stop's
    delays = []
    for index, line in enumerate(["C", "C d", "C d A", "C d A b", "B", "E f"]):
        server.handle(f"position startpos moves {line}")
        server.handle("go infinite")
        time.sleep(0.15)
        before = len(out.lines)
        stopped = time.perf_counter()
        server.handle("stop")
        done = out.wait("bestmove", before)
        delays.append(out.times[done] - stopped)
        assert out.lines[done].split()[1] in "ABCDEFabcdef"
    with capsys.disabled():
        print(f"\n{spec}: stop to bestmove, median {1000 * statistics.median(delays):.1f} ms, "
              f"max {1000 * max(delays):.1f} ms")
    # The stop reaches the kernels in microseconds; 0.2 s leaves room for a loaded machine (the median is reported).
    assert max(delays) < 0.2


def test_a_search_control_stops_an_alphabeta_search_before_its_first_iteration():
    from awale.search.alphabeta import AlphaBeta

    searcher = AlphaBeta(Rules())
    control = SearchControl()
    control.stop()
    with control:
        result = searcher.search(Game(), time=60.0)
    assert result.depth == 1 and result.best_actions  # the first iteration, unstopped: a move all the same


def test_without_a_control_the_searches_play_as_before():
    for spec in ("champion(nodes=3000, book=False)", "uct(iterations=300, seed=4)"):
        plain = parse(spec)
        game = Game()
        with SearchControl(listener=lambda progress: None):
            listened = parse(spec).act(game)
        assert plain.act(game) == listened


def test_the_engine_refuses_an_agent_it_cannot_be():
    for spec in ("clocked(agent='greedy', tc='1+0')", "opening(agent='greedy', moves='2')", "engine(name='x')"):
        with pytest.raises(ValueError, match="the engine plays an agent of this library"):
            EngineServer(spec, print)


def test_the_conversation_on_the_site_is_what_the_engine_says():
    """docs/engine-protocol.rst shows a real transcript: the same commands give the same lines (times aside; in the
    pondering, whose length depends on the machine, the info lines and the moves aside)."""
    from conftest import ROOT

    page = (ROOT / "docs" / "engine-protocol.rst").read_text(encoding="utf-8")
    block = page.split("A conversation\n", 1)[1].split(".. code-block:: text\n", 1)[1].split("\nPlaying another")[0]
    shown = [line[3:] for line in block.splitlines() if line.startswith("   ") and not line.startswith("   :")]
    spec = "champion(nodes=20000, book=False, quiescence=0, reductions=True, weights='texel')"
    assert f'python -m awale engine "{spec[:46]}' in page.replace("\n", " ")
    assert any(line.startswith("> go ponder") for line in shown) and "> ponderhit" in shown
    server, out = engine(spec)
    said = []
    for line in shown:
        if not line.startswith("> "):
            continue
        command = line[2:]
        if command in ("ponderhit", "stop"):
            time.sleep(0.05)  # some pondering first
        said.append(line)
        before = len(out.lines)
        server.handle(command)
        if (command.split()[0] == "go" and "ponder" not in command.split()) or command in ("ponderhit", "stop"):
            out.wait("bestmove", before)
        if command == "isready":
            out.wait("readyok", before)
        said += out.lines[before:]

    def comparable(lines):
        kept, pondering = [], False
        for line in lines:
            if line.startswith("> go ponder"):
                pondering = True
            elif pondering and line.startswith("bestmove"):
                pondering = False
                kept.append("bestmove")
                continue
            if pondering and (line.startswith("info depth") or line == "..."):
                continue
            kept.append(re.sub(r"nps \d+ time \d+", "nps N time T", line))
        return kept

    assert comparable(said) == comparable(shown)
