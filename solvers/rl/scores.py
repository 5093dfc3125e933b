"""Running scores of batched one-player games: the potential behind PPO's ``score_rewards``.

A one-player game whose return is a score built up during play can pay that
score as it accrues: each decision earns the change of a running score
``phi`` it causes, and the last decision of a game earns ``return -
phi(before)``. Under ``gamma = 1`` the rewards of a game then sum to its
return whenever ``phi`` is 0 at the first decision, so the objective is
unchanged; what changes is that the value network learns the points still to
come rather than the whole score.

- ``poker_dice`` with one player (every such variant is a scorecard game):
  ``phi`` is the scorecard's running total (box points and bonuses so far),
  read from the kernel state. Example: after Threes scored 9 and Sixes 24,
  ``phi = 33``.
- ``poker_squares`` with one player (standard or open deal, any point
  system): ``phi`` is the grid's score as it stands (``kernels.grid_score``:
  each line valued as the hand its cards make so far, a pair counting before
  its line is full) minus the score of the empty grid, which is 0 in the
  American and English systems. Example, American scoring: a grid whose only
  cards are two Kings in the top row has ``phi = 2``.

Any other game (two or more players, Poke, Palace Poker) has no such score and
is refused with ``ValueError``.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.hands import HAND_TABLE
from gamut.envs.poker_dice import kernels as dice_kernels
from gamut.envs.poker_squares import kernels as squares_kernels


@numba.njit(cache=True)
def _grid_scores(states, cfg, table, offset, out):
    for i in range(states.shape[0]):
        out[i] = squares_kernels.grid_score(states[i], 0, cfg, table) - offset


def running_score_reader(game):
    """A function ``env -> float64 (N,)``: ``phi`` of every row of a batched environment of ``game``.

    Raises ``ValueError`` for a game without a running score that ends at its return.
    """
    name = game.get_type().short_name
    if game.num_players() == 1 and name == "poker_dice":
        column = dice_kernels.S_PLAYERS + dice_kernels.F_SCORE
        return lambda env: env.states[:, column].astype(np.float64)
    if game.num_players() == 1 and name == "poker_squares":
        empty = np.empty(squares_kernels.STATE_SIZE, np.int64)
        squares_kernels.init_state(empty)
        offset = int(squares_kernels.grid_score(empty, 0, game.cfg, HAND_TABLE))

        def read(env):
            out = np.empty(env.num_envs, np.float64)
            _grid_scores(env.states, game.cfg, HAND_TABLE, offset, out)
            return out

        return read
    raise ValueError(f"PPO score_rewards needs a one-player game with a running score: poker_dice or "
                     f"poker_squares with players=1, not {game}")
