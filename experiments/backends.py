"""Backends that run trials: local processes (default) or a Ray cluster.

A backend takes a list of trial tasks and yields each finished trial's record
as soon as it is done, in completion order. The record depends only on the
task (module, params, spec, seed), never on the backend or the worker, so the
same seeds give the same tables everywhere.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass

BACKENDS = ("local", "ray")


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


class LocalBackend:
    """Worker processes on this machine (``workers=1`` runs trials in this process)."""

    name = "local"

    def __init__(self, workers: int | None = None):
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.workers = workers or default_workers()

    def describe(self) -> dict:
        return {"name": self.name, "workers": self.workers}

    def run(self, tasks: list[TrialTask]) -> Iterator[dict]:
        if self.workers == 1 or len(tasks) <= 1:
            for task in tasks:
                yield execute_trial(task)
            return
        # Spawned workers start clean (no inherited threads or Numba state) and import what they need.
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(max_workers=min(self.workers, len(tasks)), mp_context=context)
        try:
            pending = {pool.submit(execute_trial, task) for task in tasks}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


class RayBackend:
    """Ray tasks, one per trial, on a cluster at ``address`` or on a local instance started here."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None):
        self.address = address
        self.workers = workers

    def describe(self) -> dict:
        return {"name": self.name, "address": self.address, "workers": self.workers}

    def run(self, tasks: list[TrialTask]) -> Iterator[dict]:
        try:
            import ray
        except ImportError:
            raise ValueError("the ray backend needs Ray: pip install 'gamut[ray]'") from None
        started_here = not ray.is_initialized()
        if started_here:
            # Workers see this interpreter's import path, so experiment modules outside the
            # installed packages (e.g. a user's own) import there too.
            python_path = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
            ray.init(
                address=self.address,
                num_cpus=self.workers if self.address is None else None,
                include_dashboard=False,
                log_to_driver=False,
                runtime_env={"env_vars": {"PYTHONPATH": python_path}},
            )
        remote_trial = ray.remote(num_cpus=1)(execute_trial)
        refs = [remote_trial.remote(task) for task in tasks]
        try:
            while refs:
                done, refs = ray.wait(refs, num_returns=1)
                yield ray.get(done[0])
        finally:
            for ref in refs:
                ray.cancel(ref, force=True)
            if started_here:
                ray.shutdown()


def make_backend(name: str, address: str | None = None, workers: int | None = None):
    """A backend by name: ``local`` or ``ray`` (``address`` joins an existing Ray cluster)."""
    if name == "local":
        if address is not None:
            raise ValueError("--address is for the ray backend; the local backend takes --workers")
        return LocalBackend(workers)
    if name == "ray":
        return RayBackend(address, workers)
    raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
