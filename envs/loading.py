"""Loading any game string with an error that names what was wrong.

``pyspiel.load_game`` raises ``SpielError`` for an unknown game with the list
of every registered game (hundreds of lines); :func:`load_game` names the
toolkit's games instead and raises ``ValueError`` for any game string that does
not load, whatever the reason (unknown name, unknown or bad parameter,
unbalanced parentheses).

    >>> import gamut
    >>> gamut.load_game("poker_squares(scoring=english)").get_type().short_name
    'poker_squares'
"""

from __future__ import annotations

import pyspiel

from gamut.envs.game_strings import parse_game_string
from gamut.envs.versions import game_versions


def load_game(game_string: str | pyspiel.Game) -> pyspiel.Game:
    """The pyspiel game of ``game_string`` (a loaded game is returned as it is).

    The string is read strictly first (``gamut.envs.game_strings``): text
    after the parameters, a repeated or empty parameter, or a number out of
    range is refused rather than dropped or guessed.

    Raises
    ------
    TypeError
        For anything but a str or a ``pyspiel.Game``.
    ValueError
        When the string does not load: it names the string, the reason and, for
        an unknown game, the toolkit's games.
    """
    if isinstance(game_string, pyspiel.Game):
        return game_string
    if not isinstance(game_string, str):
        raise TypeError(f"expected a game string such as 'kuhn_poker' or 'name(param=value)', or a pyspiel.Game; "
                        f"got {type(game_string).__name__} {game_string!r}")
    if not game_string.strip():
        raise ValueError(f"expected a game string such as 'kuhn_poker' or 'name(param=value)', got {game_string!r}")
    name, _ = parse_game_string(game_string)
    if name not in pyspiel.registered_names():
        ours = ", ".join(game_versions())
        raise ValueError(
            f"unknown game {name!r} in {game_string!r}; the toolkit's games are {ours} "
            "(any other OpenSpiel game loads by its short name; pyspiel.registered_names() lists them)"
        )
    try:
        return pyspiel.load_game(game_string)
    except pyspiel.SpielError as err:
        raise ValueError(f"cannot load game {game_string!r}: {err}") from None
