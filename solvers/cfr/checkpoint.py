"""Checkpoints of long CFR runs and exact resume.

A checkpoint is one ``.npz`` archive: the solver's state arrays plus a JSON
header recording the format, algorithm, game string, iteration, toolkit version,
the solver's configuration and the SHA-256 digest of every array; the header
carries the SHA-256 digest of all of that too (``header_sha256``), so a changed
iteration count or configuration is caught like a changed array. It is
written to a temporary file and renamed into place, so a crash while writing
leaves the previous checkpoint intact. Loading checks everything (readable
archive, format, game, configuration, digests, shapes) before the solver is
touched, so a corrupt or mismatched checkpoint raises ``CheckpointError`` and
changes nothing.

Works with any solver exposing ``algorithm``, ``game_string``, ``iteration``,
``config()``, ``run(n)``, ``state_arrays()`` and ``load_state(iteration, arrays)``
(``TabularCFR`` and ``MCCFR``).
"""

from __future__ import annotations

import os
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

from gamut.solvers.hashed_npz import digest_problem, read_npz_with_header, write_hashed_npz

_FORMAT = "gamut-cfr-checkpoint-2"
# Format 1 had no digest over its header (iteration, game, configuration).
_UNVERIFIABLE_FORMATS = ("gamut-cfr-checkpoint-1",)
_CHUNK_SECONDS = 0.5


class CheckpointError(ValueError):
    """A checkpoint is unreadable, corrupt, or belongs to a different run."""


def _identity(solver) -> dict:
    return {"algorithm": solver.algorithm, "game": solver.game_string, "config": solver.config()}


def save_checkpoint(path: str | os.PathLike, solver) -> Path:
    """Write ``solver``'s full state to ``path`` atomically."""
    header = {
        "format": _FORMAT,
        **_identity(solver),
        "iteration": int(solver.iteration),
        "toolkit_version": version("gamut"),
        "saved_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    return write_hashed_npz(path, header, {name: np.asarray(a) for name, a in solver.state_arrays().items()})


def read_checkpoint(path: str | os.PathLike) -> tuple[dict, dict]:
    """Header and arrays of a checkpoint, with every digest verified."""
    header, arrays = read_npz_with_header(path, "checkpoint", error=CheckpointError)
    if header.get("format") in _UNVERIFIABLE_FORMATS:
        raise CheckpointError(f"checkpoint {path} has format {header['format']!r}, whose header (iteration, game, "
                              f"configuration) no digest covers; start a new run (it writes format {_FORMAT!r})")
    if header.get("format") != _FORMAT:
        raise CheckpointError(f"checkpoint {path} has unknown format {header.get('format')!r}, expected {_FORMAT!r}")
    problem = digest_problem(header, arrays)
    if problem is not None:
        raise CheckpointError(f"checkpoint {path} is corrupt: {problem}")
    if not isinstance(header.get("iteration"), int) or header["iteration"] < 0:
        raise CheckpointError(f"checkpoint {path} is corrupt: its header lacks the iteration")
    return header, arrays


def require_reachable_total(path: str | os.PathLike, iterations: int) -> int:
    """The iteration count of checkpoint ``path`` (verified), if ``iterations`` does not fall below it.

    ``iterations`` is the total a resumed run reaches, never a number of further
    iterations: a total below what the checkpoint already holds is a
    ``ValueError`` naming both numbers rather than a run that reports the
    checkpoint's count as if it were the one asked for.
    """
    return _require_reachable(path, read_checkpoint(path)[0], iterations)


def _require_reachable(path, header: dict, iterations: int) -> int:
    done = int(header["iteration"])
    if iterations < done:
        raise ValueError(f"iterations {iterations} (--iterations) is below the {done} iterations checkpoint {path} "
                         f"already holds: it is the total to reach, so pass at least {done} "
                         f"(e.g. {done + iterations} for {iterations} more)")
    return done


def load_checkpoint(path: str | os.PathLike, solver) -> dict:
    """Restore ``solver`` from ``path``; returns the header. Nothing changes on error."""
    header, arrays = read_checkpoint(path)
    _restore(path, header, arrays, solver)
    return header


def _restore(path, header: dict, arrays: dict, solver) -> None:
    expected = _identity(solver)
    for field in ("algorithm", "game", "config"):
        if header.get(field) != expected[field]:
            raise CheckpointError(
                f"checkpoint {path} belongs to a different run: {field} is {header.get(field)!r}, "
                f"this run has {expected[field]!r}"
            )
    try:
        solver.load_state(int(header["iteration"]), arrays)
    except (KeyError, ValueError, TypeError) as err:
        raise CheckpointError(f"checkpoint {path} does not fit this solver: {err}") from None


def train(solver, iterations: int, checkpoint: str | os.PathLike | None = None, resume: bool = False,
          every_iterations: int | None = None, every_seconds: float | None = None, progress: bool = False) -> dict:
    """Run ``solver`` until it has done ``iterations`` in total, checkpointing on the way.

    Parameters
    ----------
    solver : TabularCFR or MCCFR
    iterations : int
        Total iteration count to reach (a resumed run continues from its
        checkpoint); below the checkpoint's own count it is a ValueError.
    checkpoint : path, optional
        Where to write checkpoints (also written once at the end).
    resume : bool
        Load ``checkpoint`` first; it must exist and match the solver. Without
        it an existing ``checkpoint`` file is an error (never overwritten).
    every_iterations, every_seconds : optional
        Write a checkpoint whenever this many iterations or seconds have passed
        since the last one. Without either, only the final checkpoint is written.
    progress : bool
        Show a tqdm progress bar.

    Returns
    -------
    dict
        ``iterations`` (total), ``iterations_run`` (by this call), ``seconds``
        (solver time of this call, excluding checkpoint writes), ``resumed_from``.
    """
    if iterations < 0:
        raise ValueError(f"iterations must be >= 0, got {iterations}")
    if resume and checkpoint is None:
        raise ValueError("--resume needs a --checkpoint path")
    for name, value in (("every_iterations", every_iterations), ("every_seconds", every_seconds)):
        if value is not None and value <= 0:
            raise ValueError(f"{name} must be positive, got {value}")
    if checkpoint is not None and not resume and Path(checkpoint).exists():
        raise ValueError(f"checkpoint {checkpoint} already exists; resume from it (--resume) or remove it first")
    resumed_from = 0
    if resume:
        header, arrays = read_checkpoint(checkpoint)
        resumed_from = _require_reachable(checkpoint, header, iterations)
        _restore(checkpoint, header, arrays, solver)
    remaining = max(0, iterations - solver.iteration)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=iterations, initial=solver.iteration, unit="it", desc=solver.algorithm)
    # A zero-iteration run loads or compiles the kernels, so `seconds` measures iterations only.
    solver.run(0)
    seconds = 0.0
    last_save = time.monotonic()
    since_save = 0
    done = 0
    # Run in chunks of about half a second: long enough for the compiled loops,
    # short enough for timely checkpoints and progress updates. Chunking does
    # not change the result: iterations are the same whatever the chunk size.
    step = 1
    while done < remaining:
        step = min(step, remaining - done)
        if every_iterations is not None:
            step = min(step, every_iterations - since_save)
        start = time.perf_counter()
        solver.run(step)
        elapsed = time.perf_counter() - start
        seconds += elapsed
        done += step
        since_save += step
        if bar is not None:
            bar.update(step)
        due = (every_iterations is not None and since_save >= every_iterations) or (
            every_seconds is not None and time.monotonic() - last_save >= every_seconds)
        if due:
            if checkpoint is not None and done < remaining:
                save_checkpoint(checkpoint, solver)
            last_save = time.monotonic()
            since_save = 0
        step = max(1, min(100_000, int(step * _CHUNK_SECONDS / max(elapsed, 1e-9))))
    if bar is not None:
        bar.close()
    if checkpoint is not None:
        save_checkpoint(checkpoint, solver)
    return {"iterations": solver.iteration, "iterations_run": remaining, "seconds": seconds,
            "resumed_from": resumed_from}
