"""Saved game states as plain text, checked by replaying them through the rules.

OpenSpiel saves the state of a game written in Python as its history plus a
base64 pickle of the State's attributes (``__dict__=...``) and unpickles that
part when it loads the string, so a crafted string runs code. The toolkit's
games take over the two Python entry points, ``state.serialize()`` and
``game.deserialize_state(text)``, with the format of this module, which holds
no pickle and no arrays: the game string and the action history.

Format, version 1 (two lines, no trailing newline)::

    gamut-state v1 <game string>
    <action ids of the history, chance outcomes included, separated by single spaces>

Worked example: Poker Squares after chance dealt the As (card id 51) and the
player put it in the centre (cell 12)::

    >>> import pyspiel, gamut.envs
    >>> state = pyspiel.load_game("poker_squares").new_initial_state()
    >>> state.apply_action(51); state.apply_action(12)
    >>> print(state.serialize())
    gamut-state v1 poker_squares(players=1,scoring=american,two_player_return=win,variant=standard)
    51 12

Loading rebuilds the state by replaying the history from the initial state of
the game: every chance outcome must be an outcome of positive probability at
its chance node and every move a legal action of the player to move, and
nothing may follow the end of the game. Anything else (an unknown tag or
version, a game that is not one of the toolkit's, another game than the one
asked for, a malformed id, extra lines or trailing bytes) raises a
``ValueError`` naming the first inconsistency; nothing is unpickled.

OpenSpiel's own C++ entry points cannot be taken over from Python and still
use the pickle format: ``pyspiel.serialize_game_and_state``,
``pyspiel.deserialize_game_and_state``, ``pickle`` of a state and
``pyspiel.random_sim_test(..., serialize=True)``. Use them only on strings
this process wrote itself.
"""

from __future__ import annotations

import re

import pyspiel

from gamut.envs.loading import load_game
from gamut.envs.versions import game_versions

FORMAT_TAG = "gamut-state"
FORMAT_VERSION = 1
INT64_MAX = 2**63 - 1

_HEADER = re.compile(r"gamut-state v([0-9]+) (\S+)")
# Canonical decimal ids only: no sign, no leading zeros, at most 19 digits (int64).
_ACTION_ID = re.compile(r"0|[1-9][0-9]{0,18}")
_SHOWN = 12  # legal actions named in an error message


def serialize_state(state: pyspiel.State) -> str:
    """The version-1 text of ``state``: its game string and its action history.

    >>> import pyspiel, gamut.envs
    >>> serialize_state(pyspiel.load_game("poker_dice(variant=yacht12,players=1)").new_initial_state())
    'gamut-state v1 poker_dice(joker=free,players=1,variant=yacht12,zero_sum=False)\\n'
    """
    game = state.get_game()
    if type(state) is not type(game.new_initial_state()):
        # A subclass (a search's modelled state) may hold a position its history does not reach.
        raise ValueError(f"only states of {game.get_type().short_name}'s own State class can be saved, "
                         f"not a {type(state).__name__}: its history need not reproduce it")
    history = " ".join(str(int(a)) for a in state.history())
    return f"{FORMAT_TAG} v{FORMAT_VERSION} {game}\n{history}"


def deserialize_state(text: str | bytes, game: pyspiel.Game | None = None) -> pyspiel.State:
    """The state saved as ``text`` by :func:`serialize_state`, rebuilt by replay.

    Parameters
    ----------
    text : str or bytes
        The saved state (bytes must be ASCII).
    game : pyspiel.Game, optional
        When given, the saved game must be this game (same parameters);
        otherwise the game is loaded from the saved game string, which must
        name one of the toolkit's games.

    Raises
    ------
    ValueError
        Naming the first inconsistency: the format, the game, or the first
        action that is not legal (not a chance outcome) where it is replayed.
    """
    header, actions = _split(text)
    state = _saved_game(header, game).new_initial_state()
    for move, action in enumerate(_action_ids(actions)):
        _require_replayable(state, move, action)
        state.apply_action(action)
    return state


def _split(text) -> tuple[str, str]:
    if isinstance(text, bytes):
        try:
            text = text.decode("ascii")
        except UnicodeDecodeError as err:
            raise ValueError(f"saved state: byte {err.start} is not ASCII; expected '{FORMAT_TAG} v1 ...'") from None
    if not isinstance(text, str):
        raise ValueError(f"saved state must be str or bytes, got {type(text).__name__}")
    lines = text.split("\n")
    if len(lines) != 2:
        raise ValueError(
            f"saved state has {len(lines)} line(s); expected exactly 2 (header, action ids) "
            "with no trailing newline")
    return lines[0], lines[1]


def _saved_game(header: str, game: pyspiel.Game | None) -> pyspiel.Game:
    if not header.startswith(FORMAT_TAG + " "):
        raise ValueError(f"saved state does not start with '{FORMAT_TAG} v{FORMAT_VERSION} ': {header[:60]!r}")
    match = _HEADER.fullmatch(header)
    if match is None:
        raise ValueError(f"malformed saved-state header {header[:100]!r}; expected '{FORMAT_TAG} v1 <game string>'")
    version = int(match.group(1))
    if version != FORMAT_VERSION:
        raise ValueError(f"saved-state format version {version} is not supported; this toolkit reads v{FORMAT_VERSION}")
    game_string = match.group(2)
    if game is not None and game_string == str(game):
        return game
    name = game_string.split("(", 1)[0]
    if name not in game_versions():
        raise ValueError(f"saved state is of game {name!r}; this format holds the toolkit's games "
                         f"({', '.join(game_versions())})")
    try:
        saved = load_game(game_string)
    except ValueError as err:
        raise ValueError(f"saved state's game {game_string[:100]!r} does not load: {err}") from None
    if game is not None and str(saved) != str(game):
        raise ValueError(f"saved state is of {saved}, not of the game asked for, {game}")
    return saved


def _action_ids(line: str):
    # A generator: replay stops at the first bad id or at the end of the game,
    # whatever follows.
    if line == "":
        return
    for move, token in enumerate(line.split(" ")):
        if _ACTION_ID.fullmatch(token) is None or int(token) > INT64_MAX:
            raise ValueError(f"saved state: move {move} is {token[:30]!r}, not an action id "
                             "(a non-negative decimal integer within int64, ids separated by single spaces)")
        yield int(token)


def _require_replayable(state: pyspiel.State, move: int, action: int) -> None:
    if state.is_terminal():
        raise ValueError(f"saved state: move {move} (action {action}) follows the end of the game")
    player = state.current_player()
    if player == pyspiel.PlayerId.CHANCE:
        allowed = [outcome for outcome, prob in state.chance_outcomes() if prob > 0]
        who = "chance"
    elif player >= 0:
        allowed = state.legal_actions(player)
        who = f"player {player}"
    else:
        raise ValueError(f"saved state: move {move} reached a node of player {player}, which replay does not support")
    if action not in allowed:
        shown = ", ".join(map(str, allowed[:_SHOWN])) + (", ..." if len(allowed) > _SHOWN else "")
        raise ValueError(f"saved state: move {move}, action {action} is not legal for {who} "
                         f"after history {state.history()[-6:]} (last 6); legal: {shown}")
