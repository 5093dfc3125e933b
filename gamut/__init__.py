"""Gamut: game AI research toolkit for Poke, poker dice, Palace Poker and Poker Squares.

``import gamut`` registers every game of the toolkit with pyspiel and gives the
user API in one namespace::

    >>> import gamut
    >>> game = gamut.load_game("poker_squares(scoring=english)")
    >>> bot = gamut.make_bot(game, "greedy", seed=1)
    >>> env = gamut.pettingzoo_env("poke(mode=rubber)")
    >>> batch = gamut.make_vector("poker_squares", num_envs=1024, seed=0)

The toolkit's layers are subpackages: ``gamut.envs`` (the games), ``gamut.solvers``
(the algorithms), ``gamut.experiments`` (configs, runner, CLI) and
``gamut.benchmarks``. In the source repository they are the top-level folders
``envs/``, ``solvers/``, ``experiments/`` and ``benchmarks/``; ``pyproject.toml``
maps them under ``gamut``, so nothing with a generic name is installed at the top
level of site-packages.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

import gamut.envs  # noqa: F401  (registers every game of the toolkit with pyspiel)
from gamut.envs.gym_vector import make_gym_vector
from gamut.envs.loading import load_game
from gamut.envs.pettingzoo_env import pettingzoo_env
from gamut.envs.vector import make_vector
from gamut.solvers.bots import describe_bots, make_bot

try:
    __version__ = version("gamut")
except PackageNotFoundError:  # a source tree used without installing it
    __version__ = "0.0.0+source"

__all__ = ["describe_bots", "load_game", "make_bot", "make_gym_vector", "make_vector", "pettingzoo_env", "__version__"]
