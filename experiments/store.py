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
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

JOURNAL = "trials.jsonl"
RUN_MANIFEST = "run.json"
METADATA = "metadata.json"
REPORT_FRAGMENT = "report.md"
CSV_MAX_ROWS = 100_000


def results_dir(root: str | os.PathLike, experiment: str, profile: str) -> Path:
    """Folder of an experiment's results for a profile (quick runs are kept apart)."""
    root = Path(root)
    return root / experiment if profile == "full" else root / profile / experiment


class TrialJournal:
    """Append-only record of finished trials; the single source for resume."""

    def __init__(self, folder: Path):
        self.path = folder / JOURNAL

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
            except json.JSONDecodeError:
                raise ValueError(f"{self.path}: line {number} is corrupt; delete the file to start afresh") from None
            records[record["trial"]] = record
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
    """Write JSON atomically (temporary file, then rename)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=True, default=str) + "\n")
    os.replace(tmp, path)


def markdown_table(frame: pd.DataFrame, float_format: str = "{:.4g}") -> str:
    """A DataFrame as a GitHub Markdown table (for REPORT.md)."""
    def cell(value):
        return float_format.format(value) if isinstance(value, float) else str(value)

    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])


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
    return {"metadata": json.loads(meta_path.read_text()), "tables": tables, "folder": folder}
