"""The Palace Poker heuristic as a ``pyspiel.Bot`` (one Numba call per move)."""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.envs.hands import HAND_TABLE
from gamut.envs.palace_poker import layout as L
from gamut.envs.rng import rng_state
from gamut.solvers.palace_poker.heuristic import WORK_SIZE, heuristic_action, make_params


class PalaceHeuristicBot(pyspiel.Bot):
    """Plays ``gamut.solvers.palace_poker.heuristic`` for one seat.

    Parameters
    ----------
    game : pyspiel.Game
        A ``palace_poker`` game.
    player : int
        The seat the bot plays.
    seed : int
        Seeds the palace draws of its equity estimates (same seed, same play).
    params : ndarray, float64, shape (NUM_PARAMS,)
        Thresholds from ``heuristic.make_params``.
    """

    def __init__(self, game: pyspiel.Game, player: int, seed: int, params: np.ndarray):
        pyspiel.Bot.__init__(self)
        if game.get_type().short_name != "palace_poker":
            raise ValueError(f"the palace heuristic plays palace_poker, not {game.get_type().short_name}")
        self._player = player
        self._cfg = game.cfg
        self._params = params
        self._rng = rng_state(int(seed) & (2**63 - 1))
        self._legal = np.empty(int(self._cfg[L.C_NUM_ACTIONS]), dtype=np.int64)
        self._work = np.empty(WORK_SIZE, dtype=np.int64)

    def player_id(self) -> int:
        return self._player

    def restart_at(self, state) -> None:
        """Nothing to reset: every move is decided from the state alone."""

    def step(self, state) -> int:
        if state.current_player() != self._player:
            raise ValueError(f"the heuristic plays seat {self._player}, but seat {state.current_player()} is to act")
        return int(heuristic_action(state.state, self._cfg, self._params, self._rng, HAND_TABLE,
                                    self._legal, self._work))


def make_heuristic(game, player: int, seed: int, **thresholds) -> PalaceHeuristicBot:
    """Registry factory: a :class:`PalaceHeuristicBot` with the given thresholds."""
    return PalaceHeuristicBot(game, player, seed, make_params(**thresholds))
