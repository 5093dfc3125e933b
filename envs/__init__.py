"""The games: rules as Numba kernels, OpenSpiel wrappers, shared card and dice encodings.

Importing ``envs`` registers every game of the toolkit with ``pyspiel``. Worker
processes (local pool, Ray) must import it before loading a game by name.
"""

import gamut.envs.poke.game  # noqa: E402,F401  (registers "poke")
import gamut.envs.poker_squares.game  # noqa: E402,F401  (registers "poker_squares")
import gamut.envs.palace_poker.game  # noqa: E402,F401  (registers "palace_poker")
import gamut.envs.poker_dice.game  # noqa: E402,F401  (registers "poker_dice")
