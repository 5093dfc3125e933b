"""Backends that run trials: local processes (default) or a Ray cluster.

A backend takes a list of trial tasks and yields each finished trial's record
as soon as it is done, in completion order. The record depends only on the
task (module, params, spec, seed), never on the backend or the worker, so the
same seeds give the same tables everywhere.

The runner calls ``open()`` before it touches any results (a Ray cluster that
cannot be reached fails there, within :data:`CONNECT_TIMEOUT` seconds) and
``close()`` when done. Local worker processes die with the process that
started them, however it ends (``kill -9`` included).
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import multiprocessing
import os
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass

BACKENDS = ("local", "ray")
CONNECT_TIMEOUT = 10.0  # seconds to reach a Ray cluster's head before giving up
_PR_SET_PDEATHSIG = 1
# Ray retries a head that answers but never completes the handshake for about ten minutes;
# with these, one attempt to join a cluster fails in about a minute.
_RAY_JOIN_LIMITS = {
    "RAY_gcs_server_port_wait_time_s": "1",
    "RAY_gcs_rpc_server_connect_timeout_s": "5",
}
# A local instance's GCS server can take over Ray's default 30 s to start on a small, busy machine.
_RAY_LOCAL_START_LIMITS = {"RAY_gcs_server_port_wait_time_s": "180"}


@contextlib.contextmanager
def _environment_defaults(values: dict[str, str]):
    """Set the variables in ``values`` the user has not set, for the duration of the block only.

    Only for the block: a join's one-second wait for the GCS port, left in the
    environment, made a later local start in the same process give up after one second.
    """
    added = [name for name in values if name not in os.environ]
    os.environ.update({name: values[name] for name in added})
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


@dataclass(frozen=True)
class TrialTask:
    """Everything a worker needs to run one trial."""

    module: str
    params: dict
    spec: dict
    seed: int


def execute_trial(task: TrialTask) -> dict:
    """Run one trial in this process and return its journal record."""
    import gamut.envs  # noqa: F401  (a worker must register the toolkit's games itself)

    module = importlib.import_module(task.module)
    start = time.perf_counter()
    rows = module.run_trial(task.params, task.spec, task.seed)
    if isinstance(rows, dict):
        rows = [rows]
    return {
        "trial": task.spec["trial"],
        "spec": task.spec,
        "seed": task.seed,
        "rows": [dict(row) for row in rows],
        "seconds": time.perf_counter() - start,
    }


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def die_with_parent(parent: int) -> None:
    """Worker initializer: end this worker as soon as ``parent`` (the run) is gone.

    On Linux the kernel sends SIGKILL when the parent dies (``PR_SET_PDEATHSIG``),
    even inside a long compiled kernel that holds the GIL; elsewhere a daemon
    thread notices the worker was re-parented.
    """
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    # Covers a parent that died before prctl took effect, and systems without prctl.
    threading.Thread(target=watch, daemon=True, name="watch-parent").start()


class LocalBackend:
    """Worker processes on this machine (``workers=1`` runs trials in this process)."""

    name = "local"

    def __init__(self, workers: int | None = None):
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers must be a whole number >= 1, got {workers!r}")
        self.workers = workers or default_workers()

    def describe(self) -> dict:
        return {"name": self.name, "workers": self.workers}

    def open(self) -> None:
        """Nothing to connect to."""

    def close(self) -> None:
        """Workers are shut down by ``run``."""

    def run(self, tasks: list[TrialTask]) -> Iterator[dict]:
        if self.workers == 1 or len(tasks) <= 1:
            for task in tasks:
                yield execute_trial(task)
            return
        # Spawned workers start clean (no inherited threads or Numba state) and import what they need.
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(max_workers=min(self.workers, len(tasks)), mp_context=context,
                                   initializer=die_with_parent, initargs=(os.getpid(),))
        try:
            pending = {pool.submit(execute_trial, task) for task in tasks}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def parse_ray_address(address: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``ray://HOST:PORT`` -> ``(host, port)``; anything else is a ValueError.

    Examples
    --------
    >>> parse_ray_address("10.0.0.5:6379")
    ('10.0.0.5', 6379)
    >>> parse_ray_address("ray://head:10001")
    ('head', 10001)
    """
    match = re.fullmatch(r"(?:ray://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})", str(address))
    port = int(match.group(2)) if match else 0
    if not match or not 1 <= port <= 65535:
        raise ValueError(f"--address {address!r} is not a Ray address; expected HOST:PORT or ray://HOST:PORT "
                         "with a port in 1..65535 (e.g. 127.0.0.1:6379)")
    return match.group(1).strip("[]"), port


class RayBackend:
    """Ray tasks, one per trial, on a cluster at ``address`` or on a local instance started here."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None):
        if address is not None:
            parse_ray_address(address)
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers must be a whole number >= 1, got {workers!r}")
        self.address = address
        self.workers = workers
        self._started_here = False

    def describe(self) -> dict:
        return {"name": self.name, "address": self.address, "workers": self.workers}

    def open(self) -> None:
        """Join the cluster (or start a local instance); an unreachable address fails within seconds."""
        # Set before Ray is first imported as well as around ray.init: Ray reads some when it loads.
        with _environment_defaults(_RAY_LOCAL_START_LIMITS if self.address is None else _RAY_JOIN_LIMITS):
            self._open()

    def _open(self) -> None:
        try:
            import ray
        except ImportError:
            raise ValueError("the ray backend needs Ray: pip install 'gamut[ray]'") from None
        if ray.is_initialized():
            return
        if self.address is not None:
            host, port = parse_ray_address(self.address)
            # Ray itself retries an unreachable head for minutes: check the port answers first.
            try:
                socket.create_connection((host, port), timeout=CONNECT_TIMEOUT).close()
            except OSError as err:
                raise ValueError(
                    f"cannot reach a Ray cluster at --address {self.address} within {CONNECT_TIMEOUT:g} s "
                    f"({err.strerror or err}); start one with `ray start --head --port={port}` or fix the address"
                ) from None
        # Workers see this interpreter's import path, so experiment modules outside the
        # installed packages (e.g. a user's own) import there too.
        python_path = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
        try:
            ray.init(
                address=self.address,
                num_cpus=self.workers if self.address is None else None,
                include_dashboard=False,
                log_to_driver=False,
                runtime_env={"env_vars": {"PYTHONPATH": python_path}},
            )
        except (ConnectionError, RuntimeError, TimeoutError) as err:
            where = "start a local Ray instance" if self.address is None else f"join a Ray cluster at --address {self.address}"
            raise ValueError(f"cannot {where}: {err}") from None
        self._started_here = True

    def close(self) -> None:
        if self._started_here:
            import ray

            ray.shutdown()
            self._started_here = False

    def run(self, tasks: list[TrialTask]) -> Iterator[dict]:
        import ray

        remote_trial = ray.remote(num_cpus=1)(execute_trial)
        refs = [remote_trial.remote(task) for task in tasks]
        try:
            while refs:
                done, refs = ray.wait(refs, num_returns=1)
                yield ray.get(done[0])
        finally:
            for ref in refs:
                ray.cancel(ref, force=True)


def make_backend(name: str, address: str | None = None, workers: int | None = None):
    """A backend by name: ``local`` or ``ray`` (``address`` joins an existing Ray cluster)."""
    if name == "local":
        if address is not None:
            raise ValueError("--address is for the ray backend; the local backend takes --workers")
        return LocalBackend(workers)
    if name == "ray":
        return RayBackend(address, workers)
    raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
