"""Where benchmark results go: one JSON line per run under ``results/benchmarks/``."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from gamut.experiments.provenance import git_commit, machine, toolkit_version


def append_record(folder: str | os.PathLike, name: str, result: dict) -> Path:
    """Append ``result`` with time, toolkit version, commit and machine to ``folder/name.jsonl``."""
    path = Path(folder) / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "benchmark": name,
        "time_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "toolkit_version": toolkit_version(),
        "git_commit": git_commit(),
        "machine": machine(),
        **result,
    }
    with path.open("a") as handle:
        handle.write(json.dumps(record) + "\n")
    return path
