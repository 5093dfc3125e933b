"""Checkpoints of training runs and weights files of trained agents, both hashed.

Both are one ``.npz`` archive (read with ``allow_pickle=False``): named arrays
plus a JSON header that records the SHA-256 digest of every array and, in
``header_sha256``, of the header itself (the digests included), written and
checked by :mod:`gamut.solvers.hashed_npz` as the CFR checkpoints are. A file is written to a
temporary name and renamed into place, so a kill while writing leaves the
previous file intact.

- A **checkpoint** (format ``gamut-rl-checkpoint-1``) holds a whole run:
  network and optimizer parameters, the environment's games in progress,
  buffers, the generator state and the counters. Loading it into a trainer
  built with the same algorithm, game, seed and configuration continues the
  run exactly as if it had never stopped.
- A **weights file** (format ``gamut-rl-weights-1``) holds a policy network and
  the metadata of its training (algorithm, game, budget, evaluation): what
  the ``ppo`` and ``nfsp`` agents load.

A damaged file, a file of another format, or one of another run raises
:class:`RLFileError` (a ``ValueError``) naming the file and what is wrong,
before anything is changed.
"""

from __future__ import annotations

import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

from gamut.solvers.hashed_npz import digest_problem, read_npz_with_header, write_hashed_npz

CHECKPOINT_FORMAT = "gamut-rl-checkpoint-1"
WEIGHTS_FORMAT = "gamut-rl-weights-1"


def saved_group(arrays: dict, prefix: str) -> dict:
    """The arrays of a checkpoint saved under ``prefix/``, keyed without it.

    >>> saved_group({"params/w": 1, "opt/0": 2}, "params")
    {'w': 1}
    """
    start = prefix + "/"
    return {key[len(start):]: value for key, value in arrays.items() if key.startswith(start)}


def check_same_shapes(what: str, expected: dict, found: dict) -> None:
    """ValueError unless ``found`` has the keys of ``expected`` and every entry its shape (``what`` names them)."""
    if set(expected) != set(found):
        raise ValueError(f"the {what} hold {sorted(found)}, this configuration needs {sorted(expected)}")
    for key, value in expected.items():
        if np.shape(found[key]) != np.shape(value):
            raise ValueError(f"the {what} entry {key!r} has shape {np.shape(found[key])}, "
                             f"this configuration needs {np.shape(value)}")


def saved_params(arrays: dict, like: dict) -> dict:
    """The network parameters saved under ``params/``, checked against the shapes of ``like``."""
    params = saved_group(arrays, "params")
    check_same_shapes("parameters", like, params)
    return params


def saved_optimizer(arrays: dict, like, prefix: str = "opt", what: str = "the optimizer state"):
    """The optimizer state saved as the leaves ``prefix/0``, ``prefix/1``, ... of the pytree ``like``.

    Checked leaf by leaf before anything is built, so a mismatch raises
    ValueError (naming ``what``) and the caller's state is left untouched.
    """
    import jax

    leaves, treedef = jax.tree_util.tree_flatten(like)
    saved = [arrays.get(f"{prefix}/{i}") for i in range(len(leaves))]
    if any(s is None or np.shape(s) != np.shape(leaf) for s, leaf in zip(saved, leaves)):
        raise ValueError(f"{what} does not match this configuration")
    return jax.tree_util.tree_unflatten(treedef, [jax.numpy.asarray(s) for s in saved])


class RLFileError(ValueError):
    """A checkpoint or weights file is unreadable, corrupt, or belongs to another run or game."""


def read_verified(path, expected_format: str) -> tuple[dict, dict]:
    """Header and arrays of a file of ``expected_format``, every digest checked."""
    header, arrays = read_npz_with_header(path, f"{expected_format} file", error=RLFileError)
    if header.get("format") != expected_format:
        raise RLFileError(f"{path} has format {header.get('format')!r}, expected {expected_format!r}")
    problem = digest_problem(header, arrays)
    if problem is not None:
        raise RLFileError(f"{path} is corrupt: {problem}")
    return header, arrays


def _identity(trainer) -> dict:
    return {"algorithm": trainer.algorithm, "game": trainer.game_string, "seed": trainer.seed,
            "config": trainer.config_dict()}


def save_checkpoint(path, trainer, extra: dict | None = None) -> Path:
    """Write the whole state of ``trainer`` (a PPO or NFSP trainer) to ``path``, atomically.

    ``extra`` (JSON-able, e.g. the learning curve so far) is stored in the header, under the digest.
    """
    info, arrays = trainer.state()
    header = {**(extra or {}), "format": CHECKPOINT_FORMAT, **_identity(trainer), "state": info,
              "toolkit_version": version("gamut"), "saved_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    return write_hashed_npz(path, header, arrays)


def checkpoint_identity(path) -> dict:
    """Algorithm, game, seed, configuration and steps of a verified checkpoint."""
    header, _ = read_verified(path, CHECKPOINT_FORMAT)
    return {**{k: header[k] for k in ("algorithm", "game", "seed", "config")}, "steps": header["state"]["steps"]}


def load_checkpoint(path, trainer) -> dict:
    """Restore ``trainer`` from ``path``; returns the header.

    Raises :class:`RLFileError` when the file is damaged or was written by a run
    of another algorithm, game, seed or configuration (naming each difference);
    the trainer is then unchanged.
    """
    header, arrays = read_verified(path, CHECKPOINT_FORMAT)
    mine = _identity(trainer)
    diffs = [f"{key} {header.get(key)!r} (this run: {mine[key]!r})" for key in mine if header.get(key) != mine[key]]
    if diffs:
        raise RLFileError(f"checkpoint {path} belongs to another run: " + "; ".join(diffs))
    try:
        trainer.load_state(header["state"], arrays)
    except (KeyError, TypeError, ValueError) as err:
        raise RLFileError(f"checkpoint {path} does not fit this run: {err}") from None
    return header


def save_weights(path, params: dict, metadata: dict) -> Path:
    """Write a policy network ``params`` with its ``metadata`` (algorithm, game, input, budget, ...)."""
    for key in ("algorithm", "game", "input"):
        if key not in metadata:
            raise ValueError(f"weights metadata needs {key!r}")
    header = {"format": WEIGHTS_FORMAT, **metadata, "toolkit_version": version("gamut")}
    return write_hashed_npz(path, header, {k: np.asarray(v, np.float32) for k, v in params.items()})


def load_weights(path, game=None, algorithm: str | None = None) -> tuple[dict, dict]:
    """Parameters and metadata of a weights file, checked against ``game`` and ``algorithm`` when given."""
    header, arrays = read_verified(path, WEIGHTS_FORMAT)
    if game is not None:
        from gamut.envs.loading import load_game

        game = load_game(game)
    if algorithm is not None and header.get("algorithm") != algorithm:
        raise RLFileError(f"weights {path} were trained by {header.get('algorithm')!r}, not {algorithm!r}")
    if game is not None and header.get("game") != str(game):
        raise RLFileError(f"weights {path} were trained on {header.get('game')!r}, not on {str(game)!r}")
    return arrays, header


def file_sha256(path) -> str:
    """SHA-256 of a whole file (what a shipped weights file's manifest records)."""
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def holds_value_network(path) -> bool:
    """Whether a weights file has a value network (``v/*``); reads the archive's names only."""
    with np.load(path, allow_pickle=False) as archive:
        return "v/w0" in archive.files
