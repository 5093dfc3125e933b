"""A strict reader of game strings: ``name`` or ``name(key=value,...)``, nothing more and nothing less.

OpenSpiel's own parser lets malformed strings through: text after the closing
parenthesis is dropped (``poke(mode=rubber)junk``), the last of a repeated
parameter wins (``poke(mode=rubber,mode=deal)`` plays deals), an empty
parameter is skipped (``poker_squares(players=3,)``), and a number beyond
C++'s ``int`` stops the process with a failed CHECK. :func:`parse_game_string`
refuses each of these with a ``ValueError`` that names the problem, before
anything is loaded; ``gamut.load_game`` (and with it every ``--game`` flag,
config field and saved state) reads game strings through it.

A value is read as OpenSpiel reads it: ``true``/``false``, a whole number
(which must fit C++'s 32-bit ``int``), a finite decimal number, a nested game
string (parentheses balanced), or else text.

    >>> parse_game_string("goofspiel(num_cards=4,points_order=descending)")
    ('goofspiel', {'num_cards': '4', 'points_order': 'descending'})
    >>> parse_game_string("goofspiel(num_cards=4,num_cards=5)")
    Traceback (most recent call last):
    ValueError: game string 'goofspiel(num_cards=4,num_cards=5)': parameter 'num_cards' is given twice
"""

from __future__ import annotations

import math
import re

# OpenSpiel keeps whole-number parameters in a C++ int.
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WHOLE = re.compile(r"[+-]?[0-9]+")


def _split_top_level(body: str, text: str) -> list[str]:
    """``body`` split at the commas outside parentheses (a nested game string keeps its own)."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(body):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"game string {text!r}: a ')' closes nothing")
        elif char == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    if depth:
        raise ValueError(f"game string {text!r}: a '(' is never closed")
    parts.append(body[start:])
    return parts


def _check_value(key: str, value: str, text: str) -> None:
    if not value:
        raise ValueError(f"game string {text!r}: parameter {key!r} has no value")
    if value != value.strip():
        raise ValueError(f"game string {text!r}: the value of {key!r} has spaces around it")
    if "(" in value:
        parse_game_string(value)  # a nested game string obeys the same rules
        return
    if _WHOLE.fullmatch(value):
        if not INT_MIN <= int(value) <= INT_MAX:
            raise ValueError(f"game string {text!r}: {key}={value} is outside the whole numbers a game "
                             f"parameter holds ({INT_MIN}..{INT_MAX})")
        return
    try:
        number = float(value)
    except ValueError:
        return  # text
    if not math.isfinite(number):
        raise ValueError(f"game string {text!r}: {key}={value} is not a finite number")


def parse_game_string(text: str) -> tuple[str, dict[str, str]]:
    """``(name, {key: value text})`` of a well-formed game string; ValueError naming what is wrong otherwise.

    Refused: an empty string, spaces around the name, a name that is not an
    identifier, text after the closing parenthesis, an unclosed or unopened
    parenthesis, an empty parameter (a stray comma, as in ``g(a=1,)``), a parameter without ``=`` or without a value, a repeated
    parameter, a whole number outside C++'s ``int`` and a non-finite number.
    """
    if not isinstance(text, str):
        raise TypeError(f"a game string is a str, got {type(text).__name__}")
    name_match = _NAME.match(text)
    if name_match is None:
        raise ValueError(f"game string {text!r}: it must start with the game's name (letters, digits, '_')")
    name, rest = name_match.group(), text[name_match.end():]
    if not rest:
        return name, {}
    if not rest.startswith("("):
        raise ValueError(f"game string {text!r}: unexpected text {rest!r} after the name {name!r}")
    if not rest.endswith(")"):
        raise ValueError(f"game string {text!r}: text after the parameters, or a '(' never closed")
    body = rest[1:-1]
    params: dict[str, str] = {}
    if body == "":
        return name, params
    for part in _split_top_level(body, text):
        if part == "":
            raise ValueError(f"game string {text!r}: an empty parameter (a stray comma)")
        key, equals, value = part.partition("=")
        if not equals:
            raise ValueError(f"game string {text!r}: parameter {part!r} has no '=' (write key=value)")
        if not _NAME.fullmatch(key):
            raise ValueError(f"game string {text!r}: {key!r} is not a parameter name")
        if key in params:
            raise ValueError(f"game string {text!r}: parameter {key!r} is given twice")
        _check_value(key, value, text)
        params[key] = value
    return name, params
