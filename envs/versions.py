"""Versions and representative variants of the toolkit's games, read from their declarations.

Each game declares its version (bump it whenever its rules, returns,
observations or action ids change) and the game strings of its documented
variants in its package (``GAME`` in ``gamut.envs.<game>``), so result files
can record the versions, and the cross-game tests run each variant through
pyspiel's conformance test, PettingZoo, OpenSpiel RL and the agent registry.
"""

from __future__ import annotations

from gamut.envs.registry import declarations


def game_versions() -> dict[str, int]:
    """``{short_name: version}`` of every declared game, sorted by name."""
    return {name: d.version for name, d in declarations().items()}


def game_variants() -> dict[str, tuple[str, ...]]:
    """``{short_name: (game string, ...)}`` of every declared game, sorted by name."""
    return {name: d.variants for name, d in declarations().items()}
