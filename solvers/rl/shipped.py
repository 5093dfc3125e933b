"""The shipped weights of the learned agents (``ppo``, ``nfsp``, ``dmc``, ``imitation``), and which variants they serve.

The weights live in ``results/rl/`` and are listed in
``results/rl/manifest.json`` (algorithm -> game string -> file and its
SHA-256); an agent is offered for exactly the variants that have shipped
weights (:func:`shipped_refusal`). Reading the manifest needs no network code,
so the agent tables list these agents without importing
:mod:`gamut.solvers.rl.neural_bot`.
"""

from __future__ import annotations

import json
from pathlib import Path

from gamut.solvers.rl.checkpoint import RLFileError, file_sha256

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "results" / "rl"
MANIFEST = SHIPPED_DIR / "manifest.json"


def shipped_weights() -> dict:
    """``{algorithm: {game string: {"file": name, "sha256": digest}}}`` of the shipped weights."""
    if not MANIFEST.is_file():
        return {}
    return json.loads(MANIFEST.read_text())


def shipped_path(algorithm: str, game) -> Path | None:
    """The verified shipped weights file of ``algorithm`` for ``game``, or None when none ships."""
    entry = shipped_weights().get(algorithm, {}).get(str(game))
    if entry is None:
        return None
    path = SHIPPED_DIR / entry["file"]
    if not path.is_file() or file_sha256(path) != entry["sha256"]:
        raise RLFileError(f"shipped weights {path} are missing or fail the SHA-256 recorded in {MANIFEST}")
    return path


def ship_weights(path, name: str) -> Path:
    """Copy a verified weights file to ``results/rl/<name>.npz`` and record it in the manifest.

    Also writes ``results/rl/<name>.json``: the file's metadata (game, budget,
    evaluation, learning curve) in readable form. Returns the shipped path.
    """
    import shutil

    from gamut.solvers.rl.checkpoint import WEIGHTS_FORMAT, read_verified

    header, _ = read_verified(path, WEIGHTS_FORMAT)
    target = SHIPPED_DIR / f"{name}.npz"
    SHIPPED_DIR.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, target)
    manifest = shipped_weights()
    manifest.setdefault(header["algorithm"], {})[header["game"]] = {"file": target.name,
                                                                    "sha256": file_sha256(target)}
    MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    readable = {k: v for k, v in header.items() if k not in ("digests", "header_sha256")}
    (SHIPPED_DIR / f"{name}.json").write_text(json.dumps(readable, indent=1) + "\n")
    return target


def shipped_refusal(algorithm: str, game) -> str | None:
    """Why no shipped ``algorithm`` weights play ``game`` (None when some ship for its game string)."""
    shipped = shipped_weights().get(algorithm, {})
    if str(game) in shipped:
        return None
    return (f"no {algorithm} weights ship for this variant (they ship for {', '.join(shipped) or 'none'}); "
            "train them with gamut train and pass the file as weights=PATH")
