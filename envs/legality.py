"""The one check every game's ``apply_action`` makes before it changes anything."""

from __future__ import annotations

import pyspiel


def require_legal(state: pyspiel.State, action: int) -> None:
    """Raise ValueError naming ``action`` and the legal ones unless it is legal in ``state``.

    Works at chance nodes (the legal actions are the chance outcomes) and at
    decision nodes of a Python pyspiel State (``_legal_actions``,
    ``_action_to_string``); the state is left unchanged.
    """
    player = state.current_player()
    if player == pyspiel.PlayerId.TERMINAL:
        # Checked first: a kernel's legal moves of the pseudo-player TERMINAL (-4)
        # would index its arrays out of bounds.
        raise ValueError(f"action {action} is not legal here: the game is over")
    if player == pyspiel.PlayerId.CHANCE:
        allowed = [outcome for outcome, _ in state.chance_outcomes()]
    else:
        allowed = state._legal_actions(player)
    if action in allowed:
        return
    game = state.get_game()
    limit = game.max_chance_outcomes() if player == pyspiel.PlayerId.CHANCE else game.num_distinct_actions()
    # An id outside the action range has no name to give.
    named = f"{action} ({state._action_to_string(player, action)})" if 0 <= action < limit else f"{action}"
    names = ", ".join(f"{a} ({state._action_to_string(player, a)})" for a in allowed)
    raise ValueError(f"action {named} is not legal here; legal actions: {names}")
