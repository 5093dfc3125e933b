"""Where a result came from: toolkit and game versions, git commit, machine."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib.metadata import version
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def toolkit_version() -> str:
    return version("gamut")


def game_versions() -> dict[str, int]:
    """Versions of every game of the toolkit (importing ``envs`` registers them all)."""
    import gamut.envs  # noqa: F401  (registers the games and records their versions)
    from gamut.envs.versions import game_versions as recorded

    return recorded()


def git_commit() -> str | None:
    """``HEAD`` of the checkout the toolkit runs from, with ``-dirty`` if files changed; None outside git."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO_ROOT, capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("-dirty" if dirty else "")


def machine() -> dict:
    """Processor, cores, memory and Python of this machine."""
    try:
        memory_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        memory_bytes = None
    return {
        "hostname": platform.node(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "memory_gib": round(memory_bytes / 2**30, 1) if memory_bytes else None,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
