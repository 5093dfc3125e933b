"""Any toolkit game as a PettingZoo AEC environment (through Shimmy).

Shimmy's ``OpenSpielCompatibilityV0`` reloads its game by short name at every
``reset()``. Given an already-loaded game (``env=``) it therefore drops that
game's parameters silently after the first reset, e.g. a three-player Kuhn
poker becomes two-player. :func:`pettingzoo_env` always passes the game's name
and its full parameter dict instead, so the parameters survive every reset.
"""

from __future__ import annotations

import pyspiel


def pettingzoo_env(game: str | pyspiel.Game, render_mode: str | None = None):
    """A PettingZoo AEC environment for ``game`` (a game string or a loaded game).

    Examples
    --------
    >>> env = pettingzoo_env("kuhn_poker(players=3)")   # doctest: +SKIP
    >>> env.reset(seed=0); len(env.agents)              # doctest: +SKIP
    3
    """
    try:
        from shimmy import OpenSpielCompatibilityV0
    except ImportError:
        raise ValueError("PettingZoo environments need Shimmy: pip install 'gamut[pettingzoo]'") from None
    import gamut.envs  # noqa: F401  (registers the toolkit's games)

    loaded = pyspiel.load_game(game) if isinstance(game, str) else game
    return OpenSpielCompatibilityV0(
        game_name=loaded.get_type().short_name, config=loaded.get_parameters(), render_mode=render_mode
    )
