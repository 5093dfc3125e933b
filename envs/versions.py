"""Versions and representative variants of the toolkit's games.

Each game module records its version here when it is imported (bump a game's
version whenever its rules, returns, observations or action ids change), so
``game_versions()`` after ``import envs`` lists every game of the toolkit and
result files can record them. A game also names the game strings of its
documented variants; the cross-game tests run each of them through pyspiel's
conformance test, PettingZoo, OpenSpiel RL and the agent registry.
"""

from __future__ import annotations

from gamut.envs.registry import declarations

_GAME_VERSIONS: dict[str, int] = {}
_GAME_VARIANTS: dict[str, tuple[str, ...]] = {}


def record_game_version(short_name: str, version: int, variants: tuple[str, ...] = ()) -> None:
    """Record the version of the game registered with pyspiel as ``short_name``.

    ``variants`` are game strings of its documented variants (default parameters
    first), e.g. ``("poker_squares()", "poker_squares(variant=open)")``.
    """
    _GAME_VERSIONS[short_name] = int(version)
    _GAME_VARIANTS[short_name] = tuple(variants) or (f"{short_name}()",)


def game_versions() -> dict[str, int]:
    """``{short_name: version}`` of every declared game, sorted by name."""
    return {name: d.version for name, d in declarations().items()}


def game_variants() -> dict[str, tuple[str, ...]]:
    """``{short_name: (game string, ...)}`` of every declared game, sorted by name."""
    return {name: d.variants for name, d in declarations().items()}
