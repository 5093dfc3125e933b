"""Where the toolkit keeps files it makes: caches, records, shipped results.

- Caches (tables that a command can always rebuild, such as the poker dice
  solutions) go to the user's cache directory (``platformdirs``), or to
  ``$GAMUT_CACHE_DIR`` when it is set; never inside the installed package.
- Records that a command appends (benchmark runs) go to the repository's
  ``results/`` when the toolkit runs from a source checkout, and otherwise to
  the user's data directory (``$GAMUT_DATA_DIR`` when set).

    >>> import os
    >>> os.environ["GAMUT_CACHE_DIR"] = "/tmp/gamut-cache"
    >>> str(cache_dir("poker_dice"))
    '/tmp/gamut-cache/poker_dice'
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

CACHE_ENV = "GAMUT_CACHE_DIR"
DATA_ENV = "GAMUT_DATA_DIR"
# The folder holding envs/, solvers/, results/ in a source checkout.
_SOURCE_ROOT = Path(__file__).resolve().parents[1]


def cache_dir(*parts: str) -> Path:
    """The toolkit's cache directory (``$GAMUT_CACHE_DIR`` or the user cache dir), joined with ``parts``."""
    base = os.environ.get(CACHE_ENV) or platformdirs.user_cache_dir("gamut")
    return Path(base, *parts)


def checkout_root() -> Path | None:
    """The source checkout the toolkit runs from (a git work tree with ``results/``), or None for an install."""
    if (_SOURCE_ROOT / ".git").exists() and (_SOURCE_ROOT / "results").is_dir():
        return _SOURCE_ROOT
    return None


def records_dir(*parts: str) -> Path:
    """Where appended records go: ``results/`` of the checkout, else ``$GAMUT_DATA_DIR`` or the user data dir."""
    root = checkout_root()
    if root is not None:
        return Path(root, "results", *parts)
    return Path(os.environ.get(DATA_ENV) or platformdirs.user_data_dir("gamut"), *parts)
