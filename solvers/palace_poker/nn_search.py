"""``nn_ismcts`` for Palace Poker: the Palace ISMCTS (``gamut.solvers.palace_poker.search``) with PUCT priors.

The search is the ``ismcts`` agent's unchanged (the other seats modelled by
the heuristic, heuristic play-outs in Numba at the leaves) except for
selection at the searcher's own information sets: PUCT
(``gamut.solvers.ismcts``, prior section) with the probabilities that a
network trained by ``gamut train`` gives the searcher's legal actions. The
other seats' nodes hold a single (modelled) action, so they need no prior.

The network reads the information-state tensor written from the search
state's kernel array by ``gamut.envs.palace_poker.tensors.write_tensor``, the
kernel behind the pyspiel observer. The default network is the shipped
``ppo`` policy of the four-player limit game (``results/rl/ppo_palace_poker_4.npz``);
``weights=PATH`` takes any ``gamut train`` file of the game being played.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.envs.palace_poker.tensors import write_tensor
from gamut.solvers.ismcts import ISMCTS
from gamut.solvers.palace_poker.search import DEFAULT_ITERATIONS, PalaceISMCTSBot, PalaceRollout
from gamut.solvers.rl.shipped import shipped_path, shipped_refusal
from gamut.solvers.search.prior import NetworkPrior

# Chosen in short paired matches against ismcts (results/nn_ismcts/README.md): the shipped
# policy is nearly deterministic (logit gaps of 10 to 30), and a larger c_puct or a sharper prior
# made the search follow the policy, which plays worse than the search.
DEFAULT_C_PUCT = 0.5
DEFAULT_TEMPERATURE = 20.0
DEFAULT_MIX = 0.25


class PalaceTensor:
    """``tensor(state, player) -> float32 (D,)``: ``player``'s information-state tensor at a search state."""

    def __init__(self, game: pyspiel.Game):
        self._cfg = game.cfg
        self._size = game.information_state_tensor_size()

    def __call__(self, state, player: int) -> np.ndarray:
        out = np.empty(self._size, np.float32)
        write_tensor(state.state, self._cfg, player, True, True, out)
        return out


def palace_prior(game: pyspiel.Game, weights: str = "", temperature: float = DEFAULT_TEMPERATURE,
                 mix: float = DEFAULT_MIX) -> NetworkPrior:
    """The PUCT prior of ``nn_ismcts`` on ``game``: ``weights`` (empty: the shipped ``ppo`` file of ``game``)."""
    path = weights or shipped_path("ppo", game)
    if path is None:
        raise ValueError(f"nn_ismcts needs a prior network: {shipped_refusal('ppo', game)}")
    return NetworkPrior(path, game, PalaceTensor(game), temperature, mix)


class PalaceNNISMCTSBot(PalaceISMCTSBot):
    """Palace ISMCTS with PUCT selection under a network prior (see the module docstring).

    Parameters
    ----------
    game : pyspiel.Game
        A ``palace_poker`` game the weights were trained on.
    player, seed : int
        Seat, and seed of the search's generator (same seed and iterations, same play).
    iterations : int
        Iterations per move (>= 1), used when ``seconds`` is 0.
    seconds : float
        Wall-clock budget per move, or 0 to use ``iterations`` (a time budget is not reproducible).
    c_puct : float
        PUCT constant, in units of the observed payoff spread.
    temperature : float
        Temperature of the prior's softmax (> 0).
    mix : float
        Weight of the uniform distribution mixed into the prior, in [0, 1].
    weights : str
        Weights file from ``gamut train``; empty for the shipped ``ppo`` weights.
    rollout : {"heuristic", "random"}
        Play-out policy.
    rollouts : int
        Play-outs averaged per leaf.
    """

    def __init__(self, game: pyspiel.Game, player: int, seed: int, iterations: int = DEFAULT_ITERATIONS,
                 seconds: float = 0.0, c_puct: float = DEFAULT_C_PUCT, temperature: float = DEFAULT_TEMPERATURE,
                 mix: float = DEFAULT_MIX, weights: str = "", rollout: str = "heuristic", rollouts: int = 1):
        super().__init__(game, player, seed, iterations, seconds, c_puct, rollout, rollouts)
        self.prior = palace_prior(game, weights, temperature, mix)
        self._search = ISMCTS(game, uct_c=c_puct, evaluator=PalaceRollout(game, rollout), rollouts=rollouts,
                              prior=self.prior)
