"""Ctrl-C stops every long computation, and the command line, with one line and exit status 130.

Each test starts a process doing something that would last minutes or hours,
sends it SIGINT, and checks how it ended.  The generous time limits only
catch a process that ignored the signal; nothing here measures speed.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PYTHON = sys.executable
# 130, or death by SIGINT (which a shell reports as 130): Python ends that way a process in which a
# KeyboardInterrupt once left code it ran from a string (building a dataclass, say), even if handled later.
_INTERRUPTED = (130, -signal.SIGINT)
LIMIT = 120  # seconds: far more than any of these needs to stop, far less than any needs to finish

_SCRIPT = """
import sys, time
from awale import Game, simulate
from awale.agents import parse
from awale.search.alphabeta import AlphaBeta
work = {work!r}
exec({warm!r})  # compile (or load) the kernels first: an interruption while compiling proves nothing
print("ready", flush=True)
started = time.perf_counter()
try:
    exec(work)
except KeyboardInterrupt:
    print(f"stopped after {{time.perf_counter() - started:.1f}} s", flush=True)
    sys.exit(0)
print("finished", flush=True)
"""


def _default_sigint():
    """In the child: Ctrl-C as in a terminal, even if the tests run where SIGINT is ignored (a background job)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cpu_seconds(pid):
    """The CPU time (user and system) that process ``pid`` has used so far, or None once it is gone (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_for_cpu(process, seconds):
    """Wait until ``process`` has used ``seconds`` of CPU time (or ended, or ``LIMIT`` passed): a moment of its own
    progress, which a loaded machine delays but does not move, where a wall-clock delay would land earlier in it."""
    deadline = time.monotonic() + LIMIT
    while process.poll() is None and time.monotonic() < deadline:
        used = _cpu_seconds(process.pid)
        if used is None or used >= seconds:
            return
        time.sleep(0.005)


def _interrupt(command, delay, ready=None, cpu=False, **kwargs):
    """Start ``command``, wait for ``ready`` on its stdout (if given) and ``delay`` seconds (of the process's CPU
    time with ``cpu``, else of the clock), send SIGINT."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_default_sigint, **kwargs)
    if ready is not None:
        assert process.stdout.readline().strip() == ready
    if cpu and Path("/proc/self/stat").exists():
        _wait_for_cpu(process, delay)
    else:
        time.sleep(delay)
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"{command} ignored SIGINT for {LIMIT} s")
    return process.returncode, out, err


@pytest.mark.parametrize(
    "work, warm",
    [
        ("parse('uct(time=3600)').act(Game())", "parse('uct(iterations=10)').act(Game())"),
        ("parse('uct(iterations=20_000_000, rave=300)').act(Game())", "parse('uct(iterations=10, rave=1)').act(Game())"),
        ("parse('mcts(iterations=20_000_000)').act(Game())", "parse('mcts(iterations=10)').act(Game())"),
        ("parse('flat(iterations=1_000_000_000)').act(Game())", "parse('flat(iterations=10)').act(Game())"),
        ("simulate(Game(), 1_000_000_000)", "simulate(Game(), 10)"),
        # Parallel searches: every thread stops, not only the main one.
        *[(f'parse("uct(iterations=20_000_000, threads=2, parallel={scheme!r})").act(Game())',
           f'parse("uct(iterations=10, threads=2, parallel={scheme!r})").act(Game())') for scheme in ("root", "tree", "leaf")],
        ('parse("uct(time=3600, threads=2, parallel=\'tree\')").act(Game())',
         'parse("uct(iterations=10, threads=2, parallel=\'tree\')").act(Game())'),
        # One αβ search each, with no return to Python between depths (iterative deepening has some).
        ("AlphaBeta(Game().rules).action_values(Game(), depth=30)", "AlphaBeta(Game().rules).search(Game(), 2)"),
        ("AlphaBeta(Game().rules).result(Game())", "AlphaBeta(Game().rules).search(Game(), 2)"),
    ],
)
def test_long_searches_stop_on_sigint(work, warm):
    status, out, err = _interrupt([PYTHON, "-c", _SCRIPT.format(work=work, warm=warm)], 1.5, ready="ready")
    assert status == 0 and out.startswith("stopped after"), (out, err)


@pytest.mark.parametrize("delay", [0.2, 0.6, 1.0, 3.0])
def test_the_command_line_stops_with_one_line_at_any_moment(delay, tmp_path):
    """From the imports at start-up to the search itself: exit 130 and one line, never a traceback.  The moment is
    the command's own CPU time, so that a loaded machine (which slows the imports) does not move it earlier."""
    status, out, err = _interrupt(
        [PYTHON, "-m", "awale", "match", "uct(time=3600)", "random"], delay, cpu=True, cwd=tmp_path
    )
    assert status in _INTERRUPTED, (out, err)
    assert err.strip() == "python -m awale: interrupted" and "Traceback" not in err


def test_a_ctrl_c_during_the_cluster_start_up_stops_the_run(tmp_path):
    """Held while the local cluster starts (not lost), then the run stops and closes the cluster."""
    store = tmp_path / "s.sqlite"
    command = [PYTHON, "-m", "awale", "tournament", "uct(time=3600)", "random", "--games", "2",
               "--workers", "1", "--store", str(store)]
    status, out, err = _interrupt(command, 1.5, cwd=tmp_path)
    assert status in _INTERRUPTED, (out, err)
    lines = err.strip().splitlines()
    assert "Traceback" not in err and lines[-1].startswith("python -m awale: interrupted"), err


def _command_line_raising(monkeypatch, error_factory):
    """Make ``awale.cli.main`` run a command whose handler raises what ``error_factory`` returns."""
    import argparse

    from awale import cli

    def handler(args):
        raise error_factory()

    parser = argparse.ArgumentParser()
    parser.add_argument("command")  # with no argument at all the command line prints its help instead
    parser.set_defaults(handler=handler)
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    return lambda argv: cli.main(["go", *argv])


def _made_of_a_ctrl_c(error, explicit):
    """``error`` as a library raises it while a KeyboardInterrupt is handled: ``from`` it, or in its handler."""
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as interruption:
        try:
            if explicit:
                raise error from interruption
            raise error
        except type(error) as raised:
            return raised


@pytest.mark.parametrize("explicit", [True, False])
@pytest.mark.parametrize("error", [ImportError("initialization failed"), TimeoutError("no worker started")])
def test_a_ctrl_c_that_a_library_turned_into_another_error_is_an_interruption(monkeypatch, capsys, error, explicit):
    """As an import interrupted in the cluster's start-up did (an ImportError, 'initialization failed')."""
    main = _command_line_raising(monkeypatch, lambda: _made_of_a_ctrl_c(error, explicit))
    assert main([]) == 130
    assert capsys.readouterr().err == "python -m awale: interrupted\n"


def test_an_error_raised_from_none_after_a_ctrl_c_is_not_an_interruption(monkeypatch):
    def raised_from_none():
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            try:
                raise ValueError("bad spec") from None
            except ValueError as error:
                return error

    main = _command_line_raising(monkeypatch, raised_from_none)
    assert main([]) == 2


def test_an_import_error_of_its_own_is_not_taken_for_an_interruption(monkeypatch):
    main = _command_line_raising(monkeypatch, lambda: ImportError("no module named spam"))
    with pytest.raises(ImportError, match="spam"):
        main([])


SWALLOWED = """
import ctypes, signal, sys, time
from awale.cli import _resend_swallowed_interrupt
sys.unraisablehook = _resend_swallowed_interrupt
def callback():
    signal.raise_signal(signal.SIGINT)  # a Ctrl-C arriving inside a callback from C
    time.sleep(0.01)
ctypes.CFUNCTYPE(None)(callback)()  # Python cannot raise it from here: it reports it as ignored
try:
    time.sleep(20)
except KeyboardInterrupt:
    sys.exit(0)
sys.exit(1)
"""


def test_a_ctrl_c_that_a_callback_from_c_swallowed_is_sent_again():
    """numba compiles through llvmlite's callbacks: a Ctrl-C there must not be lost (the command went on)."""
    done = subprocess.run([PYTHON, "-c", SWALLOWED], capture_output=True, text=True, timeout=LIMIT,
                          preexec_fn=_default_sigint)
    assert done.returncode == 0 and "Exception ignored" not in done.stderr, done.stderr
