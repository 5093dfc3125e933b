"""Poke's heuristic over a batch of kernel states: the rule-of-thumb seat of batched self-play.

Poke declares :func:`batched_heuristic` as its learning hook (``GAME.heuristic``);
``gamut.solvers.rl.opponents`` seats it at the tables PPO's
``heuristic_share`` gives it. One compiled call computes the heuristic's move
in every chosen row, straight from the batched environment's states, so it
moves exactly as the ``heuristic`` agent would in the same position.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.solvers.poke import heuristic


@numba.njit(cache=True)
def _actions(states, cfg, params, rows, out):
    for k in range(rows.shape[0]):
        out[k] = heuristic.heuristic_action(states[rows[k]], cfg, params)


class BatchedPokeHeuristic:
    """The default-threshold Poke heuristic (deterministic: ``seed`` is unused, nothing to checkpoint)."""

    def __init__(self, game, seed: int):
        self.cfg = game.cfg
        self.params = heuristic.make_params()

    def actions(self, states: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The heuristic's action int64 ``(len(rows),)`` for the player to move in each of ``states[rows]``."""
        rows = np.ascontiguousarray(rows, np.int64)
        out = np.empty(rows.shape[0], np.int64)
        _actions(states, self.cfg, self.params, rows, out)
        return out

    def state(self) -> dict:
        """Arrays that continue the same moves after a checkpoint: none, the heuristic draws nothing."""
        return {}

    def load_state(self, arrays: dict) -> None:
        """Nothing to restore (see :meth:`state`)."""


def batched_heuristic(game, seed: int) -> BatchedPokeHeuristic:
    """Poke's declared heuristic hook: the batched heuristic of ``game``."""
    return BatchedPokeHeuristic(game, seed)
