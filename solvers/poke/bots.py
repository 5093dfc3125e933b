"""pyspiel bots over the Poke kernels: the threshold heuristic and a base for policy-table bots."""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.solvers.poke.heuristic import heuristic_action, make_params


def require_poke(game: pyspiel.Game) -> None:
    """Raise ValueError unless ``game`` is the toolkit's ``poke``."""
    if game.get_type().short_name != "poke":
        raise ValueError(f"this agent plays poke only, not {game.get_type().short_name}")


class HeuristicBot(pyspiel.Bot):
    """The threshold heuristic of ``gamut.solvers.poke.heuristic`` (deterministic; the seed is unused)."""

    def __init__(self, game: pyspiel.Game, player: int, params: np.ndarray):
        pyspiel.Bot.__init__(self)
        require_poke(game)
        self._player = player
        self._cfg = game.cfg
        self.params = np.asarray(params, dtype=np.int64)

    def player_id(self) -> int:
        return self._player

    def restart_at(self, state) -> None:
        """Nothing to reset: the heuristic keeps no memory."""

    def inform_action(self, state, player, action) -> None:
        """Nothing to remember."""

    def provides_policy(self) -> bool:
        return True

    def step_with_policy(self, state):
        action = self.step(state)
        return [(action, 1.0)], action

    def step(self, state) -> int:
        return int(heuristic_action(state.state, self._cfg, self.params))


def make_heuristic(game, player: int, seed: int, **thresholds) -> HeuristicBot:
    """Registry factory: ``thresholds`` are the named draw thresholds of ``make_params``."""
    return HeuristicBot(game, player, make_params(**thresholds))
