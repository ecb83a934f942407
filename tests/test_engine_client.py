"""Another program as an agent (awale.agents.engine): ``python -m awale engine SPEC`` spoken to by the protocol plays
the games the in-process SPEC plays, its command comes only from the command line, a program that dies or keeps
silent is an error naming it, and its stored games are checked through the rules but never replayed."""

import shlex
import subprocess
import sys

import pytest

from conftest import ROOT, awale, stored_games

from awale import Game
from awale.agents import parse
from awale.agents import engine as engine_module
from awale.agents.engine import EngineError, close_engines, register_engine, registered_engines
from awale.play.match import play

PYTHON = shlex.quote(sys.executable)


def _command(spec):
    return f"{PYTHON} -m awale engine {shlex.quote(spec)}"


@pytest.fixture
def engines():
    yield register_engine
    close_engines()


@pytest.mark.parametrize("spec, budget", [
    ("uct(iterations=300)", ""),  # go alone: the program's own budget, its spec's
    ("champion(nodes=2000, book=False)", ""),
    ("champion(book=False, reductions=True)", ", nodes=2000"),  # go nodes 2000
])
def test_the_program_plays_the_games_of_the_same_agent_in_this_process(engines, spec, budget):
    engines("twin", _command(spec))
    inside = spec if not budget else "champion(nodes=2000, book=False, reductions=True)"
    through_engine = f"engine(name='twin'{budget})"
    for seed, (south, north) in enumerate([(through_engine, "greedy(eps=0.2)"), ("greedy(eps=0.2)", through_engine),
                                          (through_engine, inside), (through_engine, through_engine)]):
        through = play(south, north, seed=seed)
        alone = play(*(inside if side.startswith("engine") else side for side in (south, north)), seed=seed)
        assert through.moves == alone.moves and through.winner == alone.winner and through.plies > 10


def test_the_match_command_plays_an_engine_and_the_games_are_identical():
    spec = "uct(iterations=200)"
    through = awale("match", "engine(name='twin')", spec, "--seed", "3", "--engine", f"twin={_command(spec)}",
                    cwd=ROOT)
    alone = awale("match", spec, spec, "--seed", "3", cwd=ROOT)
    assert through.returncode == 0 and alone.returncode == 0, through.stderr + alone.stderr
    assert through.stdout.splitlines()[-1] == alone.stdout.splitlines()[-1]
    assert "South: engine(name='twin')" in through.stdout


def test_an_engine_game_is_stored_and_verify_checks_it_through_the_rules_without_replaying_it(tmp_path):
    store = str(tmp_path / "games.sqlite")
    played = awale("tournament", "engine(name='twin')", "greedy", "--games", "2", "--store", store,
                   "--engine", f"twin={_command('uct(iterations=100)')}", cwd=ROOT)
    assert played.returncode == 0, played.stderr
    assert "in this process" in played.stderr + played.stdout
    frame = stored_games(store)
    assert len(frame) == 2 and set(frame["south"]) == {"engine(name='twin')", "greedy"}
    verified = awale("experiment", "verify", "--store", store, cwd=ROOT)
    assert verified.returncode == 0, verified.stderr
    assert ("2 of 2 games checked through the rules, 0 replayed from their keys (2 not replayable: time budgets, "
            "clocks or threads, 2 of them played by another program, engine(...)): all identical") in verified.stdout


def test_nothing_but_the_command_line_starts_a_program(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("a process was started")

    monkeypatch.setattr(subprocess, "Popen", forbidden)
    agent = parse("engine(name='stored', nodes=100)")  # as verify and the store read it back
    assert not agent.replayable and registered_engines() == {}
    with pytest.raises(EngineError, match="engine 'stored': no command for it in this process.*--engine stored="):
        agent.act(Game())
    from awale.experiments.verify import check_replay  # replaying it is refused the same way, starting nothing

    row = {"south": "engine(name='stored')", "north": "greedy", "seed": 0, "moves": "", "winner": 0,
           "south_score": 0, "north_score": 0, "rules": '{"pits_per_side":6}'}
    with pytest.raises(EngineError, match="no command for it in this process"):
        check_replay(row)


@pytest.mark.parametrize("script, words", [
    ("import sys; sys.exit(3)", r"engine 'mute' (could not be sent 'uci'|ended before its 'uciok') \(exit status 3\)"),
    ("import sys\nprint('id name mute'); print('uciok', flush=True)\nsys.stdin.readline()\n"
     "sys.stderr.write('out of memory\\n'); sys.exit(4)",
     r"engine 'mute' (ended before its 'readyok'|could not be sent '\w+') \(exit status 4\); its last words: "
     "out of memory"),
    ("import sys, time\nprint('uciok', flush=True)\ntime.sleep(30)",
     r"engine 'mute': no 'readyok' within 1 s; the engine was ended"),
    ("import sys\nprint('uciok', flush=True)\nfor line in sys.stdin:\n"
     "    print('readyok' if line.startswith('isready') else 'bestmove Q' if line.startswith('go') else '', "
     "flush=True)",
     r"engine 'mute' answered bestmove 'Q', not a pit of South"),
    ("import sys\nprint('uciok', flush=True)\nfor line in sys.stdin:\n"
     "    print('readyok' if line.startswith('isready') else 'bestmove a' if line.startswith('go') else '', "
     "flush=True)",
     r"engine 'mute' answered bestmove 'a', not a legal move of South at ply \d+ \(legal: [A-F ]+\)"),
])
def test_a_program_that_dies_keeps_silent_or_answers_nonsense_is_an_error_naming_it(engines, tmp_path, script, words):
    path = tmp_path / "mute.py"
    path.write_text(script)
    engines("mute", f"{PYTHON} {shlex.quote(str(path))}")
    with pytest.raises(EngineError, match=words):
        play("engine(name='mute', timeout=1)", "greedy")
    close_engines()
    assert not list(engine_module._ALL), "every process is ended"


def test_every_process_is_ended_when_the_engines_are_closed(engines):
    engines("twin", _command("random"))
    play("engine(name='twin')", "engine(name='twin')", seed=1)  # two processes at once, kept for the next game
    processes = list(engine_module._ALL)
    assert len(processes) == 2 and all(process.alive for process in processes)
    close_engines()
    assert all(not process.alive for process in processes) and not list(engine_module._ALL)


@pytest.mark.parametrize("args, words", [
    (["match", "engine(name='x')", "greedy"], "engine(name='x') needs its program: --engine x=COMMAND"),
    (["match", "engine(name='x')", "greedy", "--engine", "x"], "--engine takes NAME=COMMAND"),
    (["match", "greedy", "greedy", "--engine", "x/y=true"], "an engine's name is 1 to 40 letters"),
    (["match", "engine(name='x/y')", "greedy"], "engine: name is 1 to 40 letters"),
    (["match", "engine(name='x')", "greedy", "--engine", "x=/nonexistent/program"],
     "engine 'x': cannot start '/nonexistent/program'"),
    (["match", "engine(name='x', nodes=5, time=1.0)", "greedy"], "give at most one of time, nodes and depth"),
    (["tournament", "engine(name='x')", "greedy", "--games", "2", "--workers", "1", "--engine", "x=true"],
     "leave out --workers and --scheduler"),
    (["sprt", "engine(name='x')", "greedy", "--elo0", "0", "--elo1", "5", "--scheduler", "tcp://h:1",
      "--engine", "x=true"], "leave out --workers and --scheduler"),
    (["engine", "clocked(agent='greedy', tc='1+0')"], "the engine plays an agent of this library"),
    (["engine", "nobody"], "unknown agent 'nobody'"),
])
def test_the_command_line_refuses_bad_engines_in_one_line(args, words, tmp_path):
    done = awale(*args, cwd=tmp_path)
    assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_engine_command_has_its_help_and_speaks_the_protocol():
    helped = awale("engine", "--help")
    assert helped.returncode == 0 and "engine protocol" in helped.stdout and "SPEC" in helped.stdout
    for command in ("match", "tournament", "sprt"):
        assert "--engine NAME=COMMAND" in awale(command, "--help").stdout
    spoken = awale("engine", "uct(iterations=100)",
                   stdin="uci\nisready\nposition startpos moves C d\nfoo\ngo\nquit\n")
    lines = spoken.stdout.splitlines()
    assert spoken.returncode == 0 and lines[0] == "id name awale 0.1.0 uct(iterations=100)" and "uciok" in lines
    assert "readyok" in lines and lines[-1].startswith("bestmove ") and lines[-1].split()[1] in "ABCDEF"
    assert any(line.startswith("info string unknown command 'foo'") for line in lines)


def test_a_pondering_engine_thinks_on_the_opponents_time_and_every_go_ponder_ends_by_ponderhit_or_stop(
        engines, monkeypatch):
    sent = []
    send = engine_module._Process.send
    monkeypatch.setattr(engine_module._Process, "send", lambda process, line: (sent.append(line), send(process, line)))
    engines("thinker", _command("champion(depth=3, book=False)"), ponder=True)
    for seed in range(2):
        assert play("engine(name='thinker', depth=3)", "greedy(eps=0.3)", seed=seed).plies > 10
    ponders = [i for i, line in enumerate(sent) if line.startswith("go ponder")]
    assert ponders and all(sent[i] == "go ponder depth 3" for i in ponders)
    assert all(sent[i - 1].startswith("position startpos moves ") for i in ponders)
    ended = [sent[i + 1] for i in ponders if i + 1 < len(sent)]
    assert set(ended) <= {"ponderhit", "stop"} and len(ended) == len(ponders), "each ends by ponderhit or stop"
    assert ended.count("ponderhit") > 0 and ended.count("stop") > 0, "the reply foreseen, and one not"
    after_stop = [next((line for line in sent[i + 2:] if line.split()[0] not in ("setoption", "ucinewgame", "isready")),
                       "quit") for i in ponders if sent[i + 1] == "stop"]
    assert all(line.startswith("position ") or line == "quit" for line in after_stop), \
        "after a stop, the position played (or the next game's first) is searched"


def test_without_ponder_the_engine_is_never_asked_to_ponder_and_the_flag_reaches_the_command_line(engines, monkeypatch):
    sent = []
    send = engine_module._Process.send
    monkeypatch.setattr(engine_module._Process, "send", lambda process, line: (sent.append(line), send(process, line)))
    engines("still", _command("champion(depth=2, book=False)"))
    play("engine(name='still', depth=2)", "greedy", seed=0)
    assert sent and not any(line.startswith("go ponder") or line == "ponderhit" for line in sent)
    with pytest.raises(ValueError, match="both with and without pondering"):
        register_engine("still", _command("champion(depth=2, book=False)"), ponder=True)
    assert "--ponder" in awale("match", "--help").stdout and "--ponder" in awale("sprt", "--help").stdout
    done = awale("match", "engine(name='e', depth=2)", "greedy", "--engine",
                 f"e={_command('champion(depth=2, book=False)')}", "--ponder", cwd=ROOT)
    assert done.returncode == 0 and "South: engine(name='e', depth=2)" in done.stdout, done.stderr
