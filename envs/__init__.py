"""The games: rules as Numba kernels, OpenSpiel wrappers, shared card and dice encodings.

Importing ``envs`` registers every game of the toolkit with ``pyspiel`` (each
game package declares itself, see ``gamut.envs.registry``). Worker processes
(local pool, Ray) must import it before loading a game by name.
"""

from gamut.envs.registry import register_games

register_games()
