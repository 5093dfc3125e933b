"""``nn_ismcts`` for Palace Poker: the Palace ISMCTS (``gamut.solvers.palace_poker.search``) with PUCT priors.

The search is the ``ismcts`` agent's (the other seats modelled by the
heuristic, heuristic play-outs in Numba at the leaves) with two changes:

- selection at the searcher's own information sets is PUCT
  (``gamut.solvers.ismcts``, prior section) with the probabilities that a
  network trained by ``gamut train`` gives the searcher's legal actions (the
  other seats' nodes hold a single, modelled, action and need no prior);
- its determinizations are drawn from a belief pool dealt once per move
  (``beliefs``), whose deals a second network judges at the other seats'
  turns (``gamut.solvers.palace_poker.beliefs``).

The networks read the information-state tensor written from the search
state's kernel array by ``gamut.envs.palace_poker.tensors.write_tensor``, the
kernel behind the pyspiel observer. The defaults are those of the match in
``results/nn_ismcts/README.md`` (section "Belief pools (Palace Poker)") that
beat ``ismcts`` at the same time per move and at the same iterations: the
prior is the shipped ``dmc`` network of the four-player limit game
(``results/rl/dmc_palace_poker_4.npz``; its Q-values in units of 20 chips,
so ``temperature=0.2`` is 4 chips), the pool holds 128 deals judged by the
shipped ``ppo`` policy (``results/rl/ppo_palace_poker_4.npz``).
``weights=PATH`` and ``belief_weights=PATH`` take any ``gamut train`` file
of the game being played.

With a Deep Monte-Carlo network (``gamut train --algo dmc``), ``value_weight``
mixes the network's value into the leaves (:class:`NetworkLeaf`): the value of
the searcher's information state, the same for every determinization that
reaches it, where a play-out's value varies with the hidden palaces it
deals.
"""

from __future__ import annotations

import numba
import numpy as np
import pyspiel

from gamut.envs.hands import HAND_TABLE
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker.rollout import random_chance_card
from gamut.envs.palace_poker.tensors import write_tensor
from gamut.envs.rng import rng_state
from gamut.solvers.ismcts import ISMCTS
from gamut.solvers.palace_poker.beliefs import network_pool
from gamut.solvers.palace_poker.heuristic import WORK_SIZE, heuristic_action
from gamut.solvers.palace_poker.search import BELIEF_TRIES, DEFAULT_ITERATIONS, PalaceISMCTSBot, PalaceRollout
from gamut.solvers.rl.shipped import shipped_path, shipped_refusal
from gamut.solvers.search.prior import NetworkPrior, check_belief_options, check_value_weight, leaf_value_network

# The configuration of the matches that beat ismcts (results/nn_ismcts/README.md): the dmc
# prior flattened (a larger c_puct or a sharper prior made the search follow the network, which
# plays worse than the search) and a pool of 128 deals (a pool of 32 lost in tuning).
DEFAULT_PRIOR = "dmc"
DEFAULT_C_PUCT = 0.25
DEFAULT_TEMPERATURE = 0.2
DEFAULT_MIX = 0.25
DEFAULT_BELIEFS = 128
BELIEF_NETWORK = "ppo"
BELIEF_MODELS = ("network", "heuristic")


class PalaceTensor:
    """``tensor(state, player) -> float32 (D,)``: ``player``'s information-state tensor at a search state."""

    def __init__(self, game: pyspiel.Game):
        self._cfg = game.cfg
        self._size = game.information_state_tensor_size()

    def __call__(self, state, player: int) -> np.ndarray:
        out = np.empty(self._size, np.float32)
        write_tensor(state.state, self._cfg, player, True, True, out)
        return out


@numba.njit(cache=True)
def advance_to_decision(state, cfg, params, rng, searcher, legal, work, table):
    """Play ``state`` in place up to ``searcher``'s next decision that the search branches on, or to the end.

    Every other seat, and ``searcher`` in a discard phase, plays the heuristic
    ``params`` (the search's model of them, ``search.ModelledState``); chance
    outcomes are uniform over the pile (``rollout.random_chance_card``), drawn
    from the xorshift state ``rng``. Returns the number of moves made.
    """
    moves = 0
    while state[L.S_PHASE] != L.PH_OVER:
        p = K.current_player(state)
        if p == L.CHANCE_PLAYER:
            K.apply_action(state, cfg, random_chance_card(state, rng), table)
        elif p == searcher and state[L.S_PHASE] != L.PH_DISCARD:
            break
        else:
            K.apply_action(state, cfg, heuristic_action(state, cfg, params, rng, table, legal, work), table)
        moves += 1
    return moves


class _Position:
    """A kernel array seen as a search state (what ``PalaceTensor`` reads)."""

    def __init__(self, state: np.ndarray):
        self.state = state


class NetworkLeaf:
    """Leaf evaluator ``evaluate(state, seed) -> returns`` mixing a Q-network's value into the play-outs.

    From the leaf, the model plays on (:func:`advance_to_decision`, seeded by
    ``seed``) to the searcher's next decision; there the Deep Monte-Carlo
    network's largest Q-value over the searcher's legal actions, times its
    ``value_scale``, is the searcher's value ``V`` in chips (at the end of the
    hand, its exact chips). The searcher's return is ``(1 - w) * P + w * V``,
    ``P`` the play-outs' (``w`` the ``value_weight``); the other seats keep the
    play-outs' returns, which the search never compares (their nodes hold the
    model's one move). At ``w = 1`` no play-out runs and the other seats' returns
    are 0.

    Parameters
    ----------
    network : NetworkPrior
        A ``dmc`` network of the game played, read through its ``scores``.
    value_weight : float
        Weight ``w`` of the network's value, in [0, 1].
    playouts : PalaceRollout
        The play-outs the value is mixed with; their heuristic is the model that plays on.
    searcher : int
        The seat that searches.
    """

    def __init__(self, network: NetworkPrior, value_weight: float, playouts: PalaceRollout, searcher: int):
        self.network = network
        self.value_weight, self.scale = leaf_value_network(network, value_weight)
        self.playouts = playouts
        self.searcher = searcher
        self._legal = np.empty(int(playouts.cfg[L.C_NUM_ACTIONS]), dtype=np.int64)
        self._work = np.empty(WORK_SIZE, dtype=np.int64)

    def __call__(self, state, seed: int) -> np.ndarray:
        w = self.value_weight
        out = self.playouts(state, seed) if w < 1.0 else np.zeros(self.network.num_players)
        if w == 0.0:
            return out
        position = state.state.copy()
        cfg = self.playouts.cfg
        advance_to_decision(position, cfg, self.playouts.params, rng_state(seed & (2**63 - 1)), self.searcher,
                            self._legal, self._work, HAND_TABLE)
        if position[L.S_PHASE] == L.PH_OVER:
            value = float(position[L.S_PAYOUT + self.searcher] - position[L.S_CONTRIB + self.searcher])
        else:
            n = K.legal_actions(position, cfg, self._legal)
            legal = [int(a) for a in self._legal[:n]]
            value = float(self.network.scores(_Position(position), self.searcher, legal).max()) * self.scale
        out[self.searcher] = (1.0 - w) * out[self.searcher] + w * value
        return out


def palace_prior(game: pyspiel.Game, weights: str = "", temperature: float = DEFAULT_TEMPERATURE,
                 mix: float = DEFAULT_MIX, algorithm: str = DEFAULT_PRIOR, option: str = "weights") -> NetworkPrior:
    """A network of ``nn_ismcts`` on ``game``: ``weights``, or if empty the shipped ``algorithm`` file of ``game``.

    ``option`` names the agent option the file comes from, for the error when none ships.
    """
    path = weights or shipped_path(algorithm, game)
    if path is None:
        raise ValueError(f"nn_ismcts option '{option}': {shipped_refusal(algorithm, game)}")
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
        Prior network, a weights file from ``gamut train``; empty for the shipped ``dmc`` weights.
    rollout : {"heuristic", "random"}
        Play-out policy.
    rollouts : int
        Play-outs averaged per leaf.
    value_weight : float
        Weight in [0, 1] of the network's value in the searcher's leaf values (``dmc`` weights only,
        :class:`NetworkLeaf`); 0: play-outs only.
    beliefs : int
        Size of a belief pool dealt once per move from which every iteration draws its
        determinization; 0: a fresh modelled deal per iteration, as ``ismcts``.
    belief_model : {"network", "heuristic"}
        What picks each place of the pool among ``BELIEF_TRIES`` deals: a network at the other
        seats' turns and the heuristic at their battles and discards
        (``gamut.solvers.palace_poker.beliefs.network_pool``), or the heuristic at every
        decision (``search.ModelledState.modelled_deal``).
    belief_weights : str
        The network of ``belief_model="network"``: a ``gamut train`` file of the game played; empty
        for the shipped ``ppo`` policy. A network that scores actions from Palace's action features
        (``dmc``) computes battle equities for every candidate's every turn, over a hundred times
        the heuristic's cost a position, so the flat policy, which reads the tensor alone, is the
        default.
    """

    def __init__(self, game: pyspiel.Game, player: int, seed: int, iterations: int = DEFAULT_ITERATIONS,
                 seconds: float = 0.0, c_puct: float = DEFAULT_C_PUCT, temperature: float = DEFAULT_TEMPERATURE,
                 mix: float = DEFAULT_MIX, weights: str = "", rollout: str = "heuristic", rollouts: int = 1,
                 value_weight: float = 0.0, beliefs: int = DEFAULT_BELIEFS, belief_model: str = "network",
                 belief_weights: str = ""):
        check_belief_options(beliefs, belief_model, BELIEF_MODELS)
        super().__init__(game, player, seed, iterations, seconds, c_puct, rollout, rollouts)
        self._beliefs = beliefs
        self._belief_network = None
        if belief_model == "network" and beliefs:
            self._belief_network = palace_prior(game, belief_weights, algorithm=BELIEF_NETWORK,
                                                option="belief_weights")
        self.prior = palace_prior(game, weights, temperature, mix)
        leaf = PalaceRollout(game, rollout)
        if check_value_weight(value_weight) > 0:
            leaf = NetworkLeaf(self.prior, value_weight, leaf, player)
        self._search = ISMCTS(game, uct_c=c_puct, evaluator=leaf, rollouts=rollouts, prior=self.prior)

    def _search_root(self, state: pyspiel.State) -> pyspiel.State:
        root = super()._search_root(state)
        if self._beliefs == 0:
            return root
        seeds = self._rng.integers(2**62, size=self._beliefs)
        if self._belief_network is not None:
            pool = network_pool(root, self._player, seeds, BELIEF_TRIES, self._belief_network)
        else:
            pool = [root.modelled_deal(self._player, int(seed)) for seed in seeds]
        return root.with_beliefs(pool, self._player)
