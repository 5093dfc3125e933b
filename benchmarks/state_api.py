"""The baseline of the game-speed benchmarks: uniformly random play through the pyspiel State API."""

from __future__ import annotations

import numpy as np
import pyspiel


def random_games_through_state_api(game: pyspiel.Game, num_games: int, rng: np.random.Generator) -> int:
    """Play ``num_games`` uniformly random games (chance uniform over its outcomes); return the moves made."""
    moves = 0
    for _ in range(num_games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
            moves += 1
    return moves
