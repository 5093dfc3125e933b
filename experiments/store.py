"""The results store: a crash-safe trial journal, tidy tables, figures and metadata.

Layout of ``results/<experiment>/`` (quick runs: ``results/quick/<experiment>/``)::

    run.json          fingerprint and config of the run the journal belongs to
    trials.jsonl      one line per finished trial, appended as it finishes
    trials.parquet    the tidy table: one row per trial row, sorted by trial
    trials.csv        the same, when small
    <table>.parquet/.csv, <figure>.png/.svg   written by the experiment's summarize
    report.md         the experiment's section of results/REPORT.md
    metadata.json     versions, commit, config, seeds, backend, timings, machine

A trial is finished once its journal line is on disk (one ``write`` of a whole
line, flushed and fsynced); a line cut short by a kill is dropped on resume and
that trial runs again.

A run never writes into the published folder: it holds the folder's lock
(``.<experiment>.lock`` beside it, see :class:`FolderLock`), works in the
staging folder ``.<experiment>.partial`` and, once every trial is in and the
summary is written, swaps the staging folder in for the published one in one
atomic step (:func:`publish`). A run that fails or is killed leaves the published results
as they were; its staging folder is what ``--resume`` continues.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import shutil
import socket
import sys
import time
from pathlib import Path

import pandas as pd

from gamut.solvers.atomic_file import write_atomically

JOURNAL = "trials.jsonl"
RUN_MANIFEST = "run.json"
METADATA = "metadata.json"
REPORT_FRAGMENT = "report.md"
CSV_MAX_ROWS = 100_000
# Files of a results folder that belong to the runner itself (the experiment's own are listed in metadata).
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2
RUNNER_FILES = frozenset({JOURNAL, RUN_MANIFEST, METADATA, REPORT_FRAGMENT, "trials.parquet", "trials.csv"})


def results_dir(root: str | os.PathLike, experiment: str, profile: str) -> Path:
    """Folder of an experiment's results for a profile (quick runs are kept apart)."""
    root = Path(root)
    return root / experiment if profile == "full" else root / profile / experiment


class TrialJournal:
    """Append-only record of finished trials; the single source for resume."""

    def __init__(self, folder: Path, origin: Path | None = None):
        self.path = folder / JOURNAL
        # The file a copied journal came from, named in messages about its contents.
        self.origin = origin or self.path

    def load(self) -> dict[int, dict]:
        """Finished trial records by trial id; drops a last line cut short by a kill."""
        if not self.path.exists():
            return {}
        records: dict[int, dict] = {}
        data = self.path.read_bytes()
        complete = data[: data.rfind(b"\n") + 1]
        if len(complete) != len(data):
            # The process died while writing this line: that trial never finished.
            with self.path.open("r+b") as handle:
                handle.truncate(len(complete))
        for number, line in enumerate(complete.decode().splitlines(), start=1):
            try:
                record = json.loads(line)
                records[int(record["trial"])] = record
            except (json.JSONDecodeError, TypeError, KeyError, ValueError):
                raise ValueError(
                    f"{self.origin}: line {number} is not a trial record; run without --resume to start afresh"
                ) from None
        return records

    def append(self, record: dict) -> None:
        line = (json.dumps(record) + "\n").encode()
        with self.path.open("ab") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


def trials_table(records: dict[int, dict]) -> pd.DataFrame:
    """Tidy table of all rows of all trials, sorted by trial then row order."""
    rows = []
    for trial in sorted(records):
        record = records[trial]
        spec = {k: v for k, v in record["spec"].items() if k not in ("trial", "stream")}
        for row in record["rows"]:
            rows.append({"trial": trial, "stream": record["spec"]["stream"], "seed": record["seed"], **spec, **row})
    return pd.DataFrame(rows)


class ResultsWriter:
    """Writes an experiment's tables and figures into its results folder."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.written: list[str] = []

    def table(self, name: str, frame: pd.DataFrame) -> Path:
        """Write ``frame`` as ``name.parquet`` (and ``name.csv`` when small)."""
        path = self.folder / f"{name}.parquet"
        frame.to_parquet(path, index=False)
        self.written.append(path.name)
        if len(frame) <= CSV_MAX_ROWS:
            frame.to_csv(self.folder / f"{name}.csv", index=False)
            self.written.append(f"{name}.csv")
        return path

    def figure(self, name: str, figure, formats: tuple[str, ...] = ("png", "svg")) -> Path:
        """Save a matplotlib figure as ``name.png`` and ``name.svg``, then close it."""
        import matplotlib.pyplot as plt

        for fmt in formats:
            figure.savefig(self.folder / f"{name}.{fmt}", dpi=120, bbox_inches="tight")
            self.written.append(f"{name}.{fmt}")
        plt.close(figure)
        return self.folder / f"{name}.{formats[0]}"


def write_json(path: Path, payload: dict) -> None:
    """Write JSON atomically (temporary file, then rename; none left behind when the write fails)."""
    write_atomically(path, (json.dumps(payload, indent=2, sort_keys=True, default=str) + "\n").encode())


def read_json(path: Path) -> dict:
    """Read a JSON object the runner wrote; a damaged file is a ValueError naming it."""
    try:
        payload = json.loads(Path(path).read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{path}: not valid JSON ({err}); delete it or run without --resume") from None
    if not isinstance(payload, dict):
        raise ValueError(f"{path}: expected a JSON object, found {type(payload).__name__}")
    return payload


def staging_dir(folder: Path) -> Path:
    """Where a run of ``folder`` writes until it completes (a hidden sibling)."""
    return folder.with_name(f".{folder.name}.partial")


def _retired_dir(folder: Path) -> Path:
    return folder.with_name(f".{folder.name}.old")


class FolderLock:
    """One writer per results folder: an exclusive ``flock`` on ``.<name>.lock`` beside it.

    The lock file records its owner (pid, host, start time, command). The
    kernel releases a ``flock`` when its process dies however it dies, so a
    lock file whose lock is free was left by a dead run: it is taken over and
    its former owner is named in :attr:`stale_owner`. A lock held by a live
    run refuses with a ValueError naming that run.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp()) / "toy"
    >>> with FolderLock(folder) as lock:
    ...     FolderLock(folder).acquire()
    Traceback (most recent call last):
    ...
    ValueError: ... is being written by another run (pid ...
    """

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.path = self.folder.with_name(f".{self.folder.name}.lock")
        self.stale_owner: dict | None = None
        self._fd: int | None = None

    def acquire(self) -> FolderLock:
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                owner = _read_owner(fd)
                os.close(fd)
                raise ValueError(
                    f"{self.folder} is being written by another run ({describe_owner(owner)}); "
                    f"wait for it to finish or stop it (lock file {self.path})"
                ) from None
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                # The previous owner removed the file between our open and our lock: lock the new one.
                os.close(fd)
                continue
            self.stale_owner = _read_owner(fd) or None
            owner = {"pid": os.getpid(), "host": socket.gethostname(),
                     "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                     "command": " ".join(sys.argv)}
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(owner) + "\n").encode(), 0)
            os.fsync(fd)
            self._fd = fd
            return self

    def release(self) -> None:
        if self._fd is None:
            return
        self.path.unlink(missing_ok=True)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> FolderLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _read_owner(fd: int) -> dict:
    try:
        owner = json.loads(os.pread(fd, 4096, 0).decode() or "{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {"unreadable": True}
    return owner if isinstance(owner, dict) else {"unreadable": True}


def describe_owner(owner: dict) -> str:
    """``pid 123 on host vm since 2026-12-01T15:00:00Z: gamut run ...`` for lock messages."""
    if not owner or owner.get("unreadable"):
        return "owner not recorded"
    text = f"pid {owner.get('pid')} on host {owner.get('host')} since {owner.get('started_utc')}"
    return text + (f": {owner['command']}" if owner.get("command") else "")


def recover_interrupted_publish(folder: Path) -> None:
    """Finish what a :func:`publish` killed between its two renames left (call it holding the lock)."""
    retired = _retired_dir(folder)
    if retired.exists():
        if folder.exists():
            shutil.rmtree(retired)
        else:
            os.rename(retired, folder)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one atomic step (Linux ``renameat2(RENAME_EXCHANGE)``); False where unsupported."""
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    if ctypes.get_errno() in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(ctypes.get_errno(), f"cannot swap {a} and {b}: {os.strerror(ctypes.get_errno())}")


def publish(staging: Path, folder: Path) -> None:
    """Replace the published ``folder`` by the completed ``staging`` folder.

    Files of the old folder that no run wrote (a hand-written README, data
    the experiment reads) move into the new one. The swap is one atomic
    exchange of the two folders where the file system offers it (Linux), so
    readers see the old folder or the new one, never a mix or nothing;
    elsewhere it is two renames, and a kill between them is repaired by
    :func:`recover_interrupted_publish`.
    """
    retired = _retired_dir(folder)
    if not folder.exists():
        os.rename(staging, folder)
        return
    produced = set(RUNNER_FILES)
    if (folder / METADATA).exists():
        produced |= set(read_json(folder / METADATA).get("files", []))
    for entry in folder.iterdir():
        if entry.name not in produced and not (staging / entry.name).exists():
            if entry.is_dir():
                shutil.copytree(entry, staging / entry.name)
            else:
                shutil.copy2(entry, staging / entry.name)
    if _exchange(staging, folder):
        shutil.rmtree(staging)  # now holds the old results
        return
    os.rename(folder, retired)
    os.rename(staging, folder)
    shutil.rmtree(retired, ignore_errors=True)


def markdown_table(frame: pd.DataFrame, float_format: str = "{:.4g}") -> str:
    """A DataFrame as a GitHub Markdown table (for REPORT.md)."""
    def cell(value):
        return float_format.format(value) if isinstance(value, float) else str(value)

    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])


def table_summary(intro: str, table: pd.DataFrame, figure: str, caption: str, float_format: str = "{:.4g}") -> str:
    """A trial's REPORT.md text: ``intro``, ``table`` in Markdown, then figure ``figure``.png captioned ``caption``."""
    return "\n".join([intro, "", markdown_table(table, float_format), "", f"![{caption}]({figure}.png)"])


def load_results(experiment: str, profile: str = "full", root: str | os.PathLike = "results") -> dict:
    """Load an experiment's tables and metadata in one call (for notebooks).

    Returns ``{"metadata": dict, "tables": {name: DataFrame}, "folder": Path}``
    with every Parquet table of the results folder.

    Examples
    --------
    >>> res = load_results("hand_frequencies", profile="quick")  # doctest: +SKIP
    >>> res["tables"]["category_frequencies"].head()              # doctest: +SKIP
    """
    folder = results_dir(root, experiment, profile)
    meta_path = folder / METADATA
    if not meta_path.exists():
        raise FileNotFoundError(
            f"no finished results for {experiment!r} ({profile}) under {folder}; "
            f"run `gamut run {experiment}{' --quick' if profile == 'quick' else ''}` first"
        )
    tables = {path.stem: pd.read_parquet(path) for path in sorted(folder.glob("*.parquet"))}
    return {"metadata": read_json(meta_path), "tables": tables, "folder": folder}
