"""Versions of the toolkit's games, recorded in every result file.

Each game module records its version here when it is imported (bump a game's
version whenever its rules, returns, observations or action ids change), so
``game_versions()`` after ``import envs`` lists every game of the toolkit.
"""

from __future__ import annotations

_GAME_VERSIONS: dict[str, int] = {}


def record_game_version(short_name: str, version: int) -> None:
    """Record the version of the game registered with pyspiel as ``short_name``."""
    _GAME_VERSIONS[short_name] = int(version)


def game_versions() -> dict[str, int]:
    """``{short_name: version}`` of every game imported so far, sorted by name."""
    return dict(sorted(_GAME_VERSIONS.items()))
