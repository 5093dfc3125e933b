"""The toolkit's games, found from their declarations (no list of games is kept anywhere).

A game is a package that defines ``GAME`` (a
:class:`gamut.envs.declaration.GameDeclaration`) in its ``__init__.py``:

- every subpackage of ``gamut.envs`` that does so is one of the toolkit's games;
- ``$GAMUT_GAMES`` names more game packages, importable from ``sys.path``,
  separated by commas (``GAMUT_GAMES=mygames.count21,mygames.race``): a user's
  own game then works in every entry point (``gamut.load_game``,
  ``make_vector``, ``gamut play``, ``gamut train``, ...) without editing the
  toolkit. Worker processes (local pool, Ray) inherit the variable.

``import gamut.envs`` calls :func:`register_games`, which imports each declared
``game`` module and so registers every game with pyspiel.

    >>> from gamut.envs.registry import declarations
    >>> all(name == d.name for name, d in declarations().items())
    True
"""

from __future__ import annotations

import functools
import importlib
import os
import pkgutil

import pyspiel

from gamut.envs.declaration import GameDeclaration

GAMES_ENV = "GAMUT_GAMES"
_BUILT_IN = "gamut.envs"


def _packages(extra: str) -> list[str]:
    """Names of the packages that may declare a game: ``gamut.envs``'s subpackages, then those of ``extra``."""
    envs = importlib.import_module(_BUILT_IN)
    built_in = [f"{_BUILT_IN}.{info.name}" for info in pkgutil.iter_modules(envs.__path__) if info.ispkg]
    return sorted(built_in) + [name.strip() for name in extra.split(",") if name.strip()]


@functools.cache
def _declarations_for(extra: str) -> dict[str, GameDeclaration]:
    """The declarations of the built-in games and of ``extra`` (the value of ``$GAMUT_GAMES``)."""
    found: dict[str, GameDeclaration] = {}
    for package in _packages(extra):
        try:
            module = importlib.import_module(package)
        except ImportError as err:
            raise ImportError(f"{GAMES_ENV} names the game package {package!r}, which does not import: {err}") from err
        declaration = getattr(module, "GAME", None)
        if declaration is None:
            if package.startswith(_BUILT_IN + "."):
                continue  # a shared subpackage of envs that is not a game
            raise ValueError(f"{GAMES_ENV} names {package!r}, which defines no GAME declaration")
        if not isinstance(declaration, GameDeclaration):
            raise TypeError(f"{package}.GAME must be a GameDeclaration, got {type(declaration).__name__}")
        if declaration.name in found:
            raise ValueError(f"two packages declare the game {declaration.name!r}")
        found[declaration.name] = declaration
    return dict(sorted(found.items()))


def declarations() -> dict[str, GameDeclaration]:
    """``{short name: declaration}`` of every game of the toolkit (and of ``$GAMUT_GAMES``), sorted by name."""
    return _declarations_for(os.environ.get(GAMES_ENV, ""))


def declaration_of(game) -> GameDeclaration | None:
    """The declaration of ``game`` (a short name, a game string or a ``pyspiel.Game``), or None for another game."""
    if isinstance(game, pyspiel.Game):
        name = game.get_type().short_name
    else:
        name = str(game).split("(", 1)[0].strip()
    return declarations().get(name)


def register_games() -> None:
    """Import every declared game module, which registers each game with pyspiel (idempotent)."""
    for declaration in declarations().values():
        importlib.import_module(declaration.game)
