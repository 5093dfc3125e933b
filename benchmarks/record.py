"""Where benchmark results go: one JSON line per run under ``results/benchmarks/``."""

from __future__ import annotations

import json
import os
import platform
import time
from importlib.metadata import version
from pathlib import Path


def machine_info() -> dict:
    """Processor, core count and Python of this machine, for every speed record."""
    return {
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def append_record(folder: str | os.PathLike, name: str, result: dict) -> Path:
    """Append ``result`` with a timestamp, toolkit version and machine to ``folder/name.jsonl``."""
    path = Path(folder) / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "benchmark": name,
        "time_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "toolkit_version": version("gamut"),
        "machine": machine_info(),
        **result,
    }
    with path.open("a") as handle:
        handle.write(json.dumps(record) + "\n")
    return path
