"""Palace Poker's heuristic over a batch of kernel states: the rule-of-thumb seat of batched self-play.

Palace Poker declares :func:`batched_heuristic` as its learning hook
(``GAME.heuristic``); ``gamut.solvers.rl.opponents`` seats it at the tables
PPO's ``heuristic_share`` gives it. One compiled call computes the
heuristic's move in every chosen row, straight from the batched environment's
states, so it moves exactly as the ``heuristic`` agent would in the same
position. Its equity estimates draw palaces from one generator, seeded once
and saved with the learner's checkpoints.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.hands import HAND_TABLE
from gamut.envs.palace_poker import layout
from gamut.envs.rng import rng_state
from gamut.solvers.palace_poker import heuristic


@numba.njit(cache=True)
def _actions(states, cfg, params, rng, table, legal, work, rows, out):
    for k in range(rows.shape[0]):
        out[k] = heuristic.heuristic_action(states[rows[k]], cfg, params, rng, table, legal, work)


class BatchedPalaceHeuristic:
    """The default Palace Poker heuristic; ``seed`` seeds the draws of its equity estimates."""

    def __init__(self, game, seed: int):
        self.cfg = game.cfg
        self.params = heuristic.make_params()
        self.rng = rng_state(int(seed) & (2**63 - 1))
        self._legal = np.empty(int(self.cfg[layout.C_NUM_ACTIONS]), np.int64)
        self._work = np.empty(heuristic.WORK_SIZE, np.int64)

    def actions(self, states: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The heuristic's action int64 ``(len(rows),)`` for the player to move in each of ``states[rows]``."""
        rows = np.ascontiguousarray(rows, np.int64)
        out = np.empty(rows.shape[0], np.int64)
        _actions(states, self.cfg, self.params, self.rng, HAND_TABLE, self._legal, self._work, rows, out)
        return out

    def state(self) -> dict:
        """Arrays that, with :meth:`load_state`, continue the same moves after a checkpoint."""
        return {"rng": self.rng.copy()}

    def load_state(self, arrays: dict) -> None:
        saved = arrays.get("rng")
        if saved is None or saved.shape != self.rng.shape or saved.dtype != self.rng.dtype:
            raise ValueError("the saved heuristic generator does not match this run")
        self.rng[...] = saved


def batched_heuristic(game, seed: int) -> BatchedPalaceHeuristic:
    """Palace Poker's declared heuristic hook: the batched heuristic of ``game``."""
    return BatchedPalaceHeuristic(game, seed)
