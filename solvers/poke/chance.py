"""Drawing Poke's chance moves in Python-level walks of a deal (pyspiel states or the search's ``DealState``)."""

from __future__ import annotations

import numpy as np


def draw_chance(state, rng: np.random.Generator) -> None:
    """Apply chance outcomes drawn by ``rng`` until a player is to move or the deal is over.

    A Poke chance node deals the next card, each card left in the stock
    equally likely, so a uniform draw over ``chance_outcomes()`` is exact.
    Works on any state with ``is_terminal``, ``current_player`` (negative at
    chance), ``chance_outcomes`` and ``apply_action``.
    """
    while not state.is_terminal() and state.current_player() < 0:
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
