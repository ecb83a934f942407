"""The Dask clusters of the runner: a local cluster started for a run, or an existing one joined and checked.

* ``workers=K``: a Dask ``LocalCluster`` of K worker processes with one
  thread each, whose processes ignore Ctrl-C and SIGTERM (only this process
  stops them), closed and waited for on leaving.
* ``scheduler="tcp://host:port"``: an existing Dask cluster; a scheduler that
  does not answer like a Dask scheduler within :data:`CONNECT_SECONDS` is an
  error, one without workers is waited for, with a message, for
  :data:`WORKERS_SECONDS`, and its workers must run this version of awale.

:func:`awale.experiments.runner.run` plays its games on one; :func:`cluster`
gives one for several runs.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import sys
import threading
import time
from typing import Any, Iterator, Optional, Set, Tuple

from ..core._guard import available_cores

__all__ = ["RunnerError", "cluster", "default_workers", "dask_setup", "CONNECT_SECONDS", "WORKERS_SECONDS"]

#: Seconds a scheduler has to accept a connection and greet like a Dask scheduler.
CONNECT_SECONDS = 10.0

#: Seconds to wait for a first worker to join a scheduler that has none.
WORKERS_SECONDS = 120.0


class RunnerError(Exception):
    """A run that cannot start or cannot reach its cluster; the message says why."""


def default_workers() -> int:
    """The number of cores this process may use (at least 1)."""
    return available_cores()


#: The signals that stop a run: Ctrl-C, and a polite kill (SIGTERM) of the whole process group.
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _stop_signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back (block them) in this thread while the local cluster starts its worker processes.

    The terminal sends Ctrl-C to every process of its foreground group, the
    workers included, and a polite kill of the group sends SIGTERM to all;
    only this process should stop the workers, by closing the cluster: a
    worker that died first would leave the scheduler logging the results it
    lost.  Processes and threads started meanwhile inherit the blocked
    signals (the workers keep them blocked, and :func:`dask_setup` ignores
    them in those the nannies start later).  A signal during the start-up is
    delivered when the block ends: the run then stops like any interrupted
    run, the cluster closed.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class _HeartbeatsAtClose(logging.Filter):
    """Drops a local worker's "Failed to communicate with scheduler during heartbeat" (logged at ERROR with its
    traceback).  A local cluster's scheduler lives in the process that started it and closes with it: a heartbeat
    then in flight fails, most often when a Ctrl-C or SIGTERM ends a run, and a worker whose scheduler is gone has
    nothing else to tell."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Failed to communicate with scheduler during heartbeat")


def dask_setup(worker: Any) -> None:
    """Dask preload hook run in each local worker process: ignore Ctrl-C and SIGTERM (see :func:`_stop_signals_held`);
    the cluster's closing stops the worker (the nanny kills one that does not stop), whose heartbeat failing at
    that moment is not logged (:class:`_HeartbeatsAtClose`)."""
    logging.getLogger("distributed.worker").addFilter(_HeartbeatsAtClose())
    if threading.current_thread() is threading.main_thread():
        for number in _STOP_SIGNALS:
            signal.signal(number, signal.SIG_IGN)


def _probe(address: str, timeout: float) -> None:
    """Fail fast, with a clear message, unless a Dask scheduler answers at a TCP address.

    A Dask peer greets every new connection with a handshake naming its
    compression and pickle protocol; a silent listener, or a server of
    another protocol, does not.
    """
    from distributed.comm import parse_address, parse_host_port

    try:
        protocol, location = parse_address(address)
        if protocol not in ("tcp", "tls"):
            return
        host, port = parse_host_port(location)
    except (ValueError, TypeError) as error:
        raise RunnerError(f"bad Dask scheduler address {address!r} ({error}); expected tcp://host:port") from None
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((host, port), timeout=timeout) as connection:
            if protocol == "tls":  # the greeting comes after the TLS handshake: Dask's client checks it
                return
            # The greeting is a message of Dask's TCP protocol: its length in 8 bytes, then the message.
            greeting = b""
            while True:
                if len(greeting) >= 8:
                    size = int.from_bytes(greeting[:8], "little")
                    if not 0 < size <= 65536 or len(greeting) >= 8 + size:
                        break  # not a length Dask would send, or the whole greeting
                connection.settimeout(max(deadline - time.monotonic(), 0.001))
                data = connection.recv(4096)
                if not data:
                    break
                greeting += data
    except socket.timeout:
        raise RunnerError(
            f"the server at {address} did not greet like a Dask scheduler within {timeout:g} s"
        ) from None
    except OSError as error:
        raise RunnerError(f"cannot connect to the Dask scheduler at {address}: {error.strerror or error}") from None
    if b"pickle-protocol" not in greeting:
        raise RunnerError(f"the server at {address} is not a Dask scheduler (it did not greet like one)")


def _wait_for_workers(client: Any, address: str, timeout: float) -> None:
    """Wait, saying so on stderr, until the cluster has a worker; fail after ``timeout`` seconds."""
    if client.nthreads():
        return
    print(f"waiting up to {timeout:g} s for a worker to join the Dask scheduler at {address} ...",
          file=sys.stderr, flush=True)
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (TimeoutError, OSError):
        raise RunnerError(f"no worker joined the Dask scheduler at {address} within {timeout:g} s") from None


def _children() -> Set[int]:
    """The pids of this process's descendants."""
    import psutil

    return {child.pid for child in psutil.Process().children(recursive=True)}


def _wait_for_exits(before: Set[int], timeout: float = 10.0) -> None:
    """Wait until the processes started since ``before`` (the cluster's workers) have ended.

    The cluster's close returns while its worker processes may still be
    exiting; waiting makes a finished run leave no process behind.
    Multiprocessing's resource tracker, which lives as long as this process,
    is not waited for.  Exited processes are left for their owners to reap.
    """
    import psutil
    from multiprocessing import resource_tracker

    tracker = getattr(resource_tracker._resource_tracker, "_pid", None)
    started = _children() - before - {tracker}
    deadline = time.monotonic() + timeout
    while started and time.monotonic() < deadline:
        for pid in list(started):
            try:
                if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                    started.discard(pid)
            except psutil.NoSuchProcess:
                started.discard(pid)
        if started:
            time.sleep(0.05)


def _awale_version() -> str:
    import awale

    return awale.__version__


def _check_workers(client: Any) -> None:
    """Make sure the cluster's workers can import this version of awale."""
    from .. import __version__

    versions = client.run(_awale_version, on_error="return")
    for worker, version in versions.items():
        if isinstance(version, BaseException):
            raise RunnerError(f"worker {worker} cannot run awale ({type(version).__name__}: {version}); install it there")
        if version != __version__:
            raise RunnerError(f"worker {worker} has awale {version}, this process {__version__}; install the same version")


class _InterruptedWaits(logging.Filter):
    """Drops the log record of a wait on the cluster that a Ctrl-C or SIGTERM interrupted.

    ``distributed`` answers a KeyboardInterrupt inside its ``sync`` by scheduling a ``cancel`` callback that
    itself fails (a NameError inside ``distributed.utils``) when the interruption came before the wait's future
    existed; tornado logs that failure with its traceback.  The run is already ending cleanly, with one line.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return "sync.<locals>.cancel" not in record.getMessage()


@contextlib.contextmanager
def _console_quiet(level: int) -> Iterator[None]:
    """Hold the console handlers of ``distributed``'s loggers at ``level`` or above until the end, teardown included.

    A ``LocalCluster`` made with ``silence_logs`` lowers them only until it closes, and the client's comms may
    still log as they close after it: ``distributed.batched`` writes "Batched Comm Closed" with a traceback
    at INFO when a Ctrl-C or SIGTERM cut a send.
    """
    handlers = [
        handler
        for handler in logging.getLogger("distributed").handlers
        if isinstance(handler, logging.StreamHandler) and handler.level < level
    ]
    before = [handler.level for handler in handlers]
    for handler in handlers:
        handler.setLevel(level)
    try:
        yield
    finally:
        for handler, old in zip(handlers, before):
            handler.setLevel(old)


@contextlib.contextmanager
def cluster(
    workers: Optional[int] = None, scheduler: Optional[str] = None, dashboard: Optional[str] = None
) -> Iterator[Tuple[Any, str]]:
    """A Dask client for several :func:`~awale.experiments.runner.run` calls (``run(..., client=client)``), and
    where it plays, in words.

    The cluster is the one :func:`~awale.experiments.runner.run` would start or join: with ``scheduler``
    the existing cluster at that address (its workers checked for this
    version of awale), else a local cluster of ``workers`` processes (default:
    one per core) whose processes ignore Ctrl-C and SIGTERM, closed, and
    waited for, on leaving.  ``workers=0`` gives ``(None, "in this process")``: pass
    ``workers=0`` to :func:`~awale.experiments.runner.run` then.

    Raises:
        RunnerError: the scheduler cannot be reached or its workers lack awale.
    """
    if scheduler is None and workers == 0:
        yield None, "in this process"
        return
    from distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        # A local cluster's messages below ERROR are its own start and stop (LocalCluster(silence_logs=...));
        # a remote cluster's warnings may matter to the user.
        stack.enter_context(_console_quiet(logging.ERROR if scheduler is None else logging.WARNING))
        quiet = _InterruptedWaits()
        logging.getLogger("tornado.application").addFilter(quiet)
        stack.callback(logging.getLogger("tornado.application").removeFilter, quiet)  # last, after the closing
        if scheduler is not None:
            _probe(scheduler, CONNECT_SECONDS)
            try:
                client = stack.enter_context(Client(scheduler, timeout=f"{CONNECT_SECONDS}s"))
            except (OSError, ValueError, TypeError) as error:
                raise RunnerError(f"cannot connect to the Dask scheduler at {scheduler}: {error}") from None
            _wait_for_workers(client, scheduler, WORKERS_SECONDS)
            _check_workers(client)
            description = f"on the Dask cluster at {scheduler}"
        else:
            count = default_workers() if workers is None else workers
            stack.callback(_wait_for_exits, _children())  # runs last, once the cluster is closed
            with _stop_signals_held():
                local = stack.enter_context(
                    LocalCluster(
                        n_workers=count,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=dashboard,
                        # Without a dashboard the scheduler still serves its HTTP routes: on a free port
                        # of the loopback, not on 8787.
                        scheduler_kwargs=None if dashboard else {"dashboard": False, "dashboard_address": "127.0.0.1:0"},
                        silence_logs=logging.ERROR,
                        preload=[__name__],
                    )
                )
                client = stack.enter_context(Client(local))
            description = f"on {count} local worker process{'es' if count != 1 else ''}"
        yield client, description
