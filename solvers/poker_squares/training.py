"""Training runs of the learned partial-line values: checkpoints, resume, one table per point system.

A run plays ``games`` self-play games in chunks of ``CHUNK`` games
(``learned.train_games``); after every chunk the table, the visit counts and
the run's settings are written atomically to one ``.npz`` file, so an
interrupted run resumes from its last chunk and ends with exactly the table an
uninterrupted run would have (chunk ``i`` is seeded by ``seed`` and ``i``).

Tables live under ``results/poker_squares/`` and are named by point system:
``values_american.npz``, ``values_english.npz``, or
``values_<ten points joined by '_'>.npz`` (a minus sign is written ``m``).
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import numpy as np

from gamut.solvers.atomic_file import write_atomically
from gamut.solvers.poker_squares.learned import NUM_KEYS, TABLE_VERSION, train_games

CHUNK = 100_000
RESULTS_DIR = Path(__file__).resolve().parents[2] / "results" / "poker_squares"
NAMED_SYSTEMS = {
    "american": (0, 2, 5, 10, 15, 20, 25, 50, 75, 100),
    "english": (0, 1, 3, 6, 12, 5, 10, 16, 30, 30),
}


def system_name(points) -> str:
    """File-name stem of a point system: ``american``, ``english`` or its ten points."""
    points = tuple(int(p) for p in points)
    for name, pts in NAMED_SYSTEMS.items():
        if pts == points:
            return name
    return "_".join(str(p).replace("-", "m") for p in points)


def table_path(points, directory: Path | None = None) -> Path:
    """Where the learned table of a point system is stored."""
    return Path(directory or RESULTS_DIR) / f"values_{system_name(points)}.npz"


def stream_seed(seed: int, index: int) -> int:
    """The kernel seed of part ``index`` (a chunk, a round) of a run seeded by ``seed``."""
    return int(np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(1, dtype=np.uint32)[0])


def save_npz(path: Path, **arrays) -> None:
    """Write ``arrays`` to ``path`` atomically (a checkpoint is never left half written)."""
    write_atomically(path, lambda handle: np.savez_compressed(handle, **arrays))


def load_npz(path: Path, required: tuple[str, ...] = (), what: str = ".npz file") -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` file ``path``, read into memory and never unpickled.

    A truncated, foreign or damaged file, or one lacking any of ``required``, is a
    ``ValueError`` naming the file (as ``what``, e.g. ``"correction file"``).
    """
    try:
        with np.load(path, allow_pickle=False) as saved:
            arrays = {name: saved[name] for name in saved.files}
    except Exception as exc:  # zipfile, zlib and numpy each raise their own types on damage
        raise ValueError(f"{path} is not a readable {what} ({type(exc).__name__}: {exc}); "
                         "remove it and rerun the command that wrote it") from None
    missing = [name for name in required if name not in arrays]
    if missing:
        raise ValueError(f"{path} lacks the arrays {missing}: it was not written by this toolkit's command; "
                         "remove it and rerun the command that wrote it")
    return arrays


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes (ties a derived artefact to the exact table it was made from)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _check_version(saved, path: Path) -> None:
    version = int(saved["version"]) if "version" in saved else 1
    if version != TABLE_VERSION:
        raise ValueError(f"{path} holds a version {version} table; this code reads version {TABLE_VERSION} "
                         "(other abstract keys): retrain it with `gamut squares train --scoring ...`")


def train(points, games: int, seed: int = 0, eps_start: float = 0.5, eps_end: float = 0.0,
          path: Path | None = None, progress=None) -> dict:
    """Train (or resume training) the table of ``points`` up to ``games`` games; return a summary.

    Resuming requires the same ``seed`` and exploration schedule as the saved
    run (checked); a larger ``games`` than the saved total is refused because
    the exploration schedule depends on the total.
    """
    from gamut.envs.poker_squares.kernels import make_config

    if games < CHUNK or games % CHUNK:
        raise ValueError(f"--games must be a positive multiple of {CHUNK}, got {games}")
    points = tuple(int(p) for p in points)
    path = Path(path) if path else table_path(points)
    path.parent.mkdir(parents=True, exist_ok=True)
    settings = np.array([seed, games], dtype=np.int64)
    schedule = np.array([eps_start, eps_end], dtype=np.float64)
    values = np.zeros(NUM_KEYS, dtype=np.float64)
    visits = np.zeros(NUM_KEYS, dtype=np.int64)
    chunk_means: list[float] = []
    done = 0
    if path.exists():
        saved = load_npz(path, ("points", "settings", "schedule", "values", "visits", "done", "chunk_means"))
        _check_version(saved, path)
        if tuple(saved["points"]) != points or not np.array_equal(saved["settings"], settings) \
                or not np.allclose(saved["schedule"], schedule):
            raise ValueError(f"{path} holds a run with other settings (points, seed, games or exploration); "
                             "remove it or pass the same settings to resume")
        values, visits = saved["values"].copy(), saved["visits"].copy()
        done = int(saved["done"])
        chunk_means = list(saved["chunk_means"])
    cfg = make_config(1, False, False, points)
    started = time.perf_counter()
    while done < games:
        scores = train_games(values, visits, cfg, CHUNK, stream_seed(seed, done // CHUNK), eps_start,
                             eps_end, done, games)
        done += CHUNK
        chunk_means.append(float(scores.mean()))
        save_npz(path, version=np.int64(TABLE_VERSION), values=values, visits=visits, done=np.int64(done), points=np.array(points),
              settings=settings, schedule=schedule, chunk_means=np.array(chunk_means))
        if progress:
            progress(done, games, chunk_means[-1], time.perf_counter() - started)
    return {"path": str(path), "games": done, "last_chunk_mean": chunk_means[-1],
            "keys_visited": int((visits > 0).sum())}


def load_values(points, path: Path | None = None) -> np.ndarray:
    """The learned table of ``points`` (float64 (NUM_KEYS,)); a clear error if it was never trained."""
    path = Path(path) if path else table_path(points)
    if not path.exists():
        raise ValueError(f"no learned values for points {tuple(int(p) for p in points)} at {path}: "
                         f"run `gamut squares train --scoring ...` first")
    saved = load_npz(path, ("points", "values"))
    _check_version(saved, path)
    if tuple(saved["points"]) != tuple(int(p) for p in points):
        raise ValueError(f"{path} was trained for points {tuple(saved['points'])}, not {tuple(points)}")
    return saved["values"].copy()
