"""``nn_ismcts`` for Poke: the Poke ISMCTS (``gamut.solvers.poke.search``) with PUCT priors from a trained network.

The search is the ``ismcts`` agent's unchanged (the current deal as a one-deal
game, the opponent modelled by the heuristic, compiled play-outs at the
leaves), except for selection: PUCT (``gamut.solvers.ismcts``, prior
section) with the probabilities a policy network trained by ``gamut train``
gives the searcher's candidate actions (``search.candidate_actions``; the
softmax is taken over those alone, so the prior never weighs an action the
search cannot take).

The network reads the information-state tensor of the one-deal game, written
from the search state's kernel array by ``gamut.envs.poke.tensors.write_tensor``
(the kernel behind the pyspiel observer): a deal of a full rubber looks to it
like a game of ``poke(mode=deal)``, which is what it was trained on. The
default network is the shipped ``ppo`` policy of the full-deck deal
(``results/rl/ppo_poke_deal.npz``); ``weights=PATH`` takes any ``gamut
train`` file of a one-deal Poke game with the same deck and hand size.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.envs.loading import load_game
from gamut.envs.poke.tensors import piece_offsets, write_tensor
from gamut.solvers.ismcts import ISMCTS
from gamut.solvers.poke.beliefs import HeuristicDraws, KeptBeliefs, NetworkDraws, belief_pool
from gamut.solvers.poke.chance import draw_chance
from gamut.solvers.poke.heuristic import require_poke
from gamut.solvers.poke.search import PokeISMCTSBot, PokeRollout, play_out_returns
from gamut.solvers.rl.checkpoint import load_weights
from gamut.solvers.rl.shipped import shipped_path
from gamut.solvers.search.prior import NetworkPrior, check_belief_options, check_value_weight, leaf_value_network

# The game string of the shipped prior network (the full-deck deal of the ``ppo`` agent).
SHIPPED_PRIOR_GAME = ("poke(follow=must_beat,hand_size=5,max_deals=100,mode=deal,num_ranks=13,num_suits=4,"
                      "trick_unit=card,trick_value=0.0)")
_DECK = ("num_ranks", "num_suits", "hand_size", "trick_unit", "follow")
BELIEF_MODELS = ("network", "heuristic")
# Uniform determinizations drawn per place in the belief pool, at most.
BELIEF_TRIES = 4


class DealTensor:
    """``tensor(state, player) -> float32 (D,)``: the information-state tensor of a one-deal search state.

    Parameters
    ----------
    network_game : pyspiel.Game
        A one-deal Poke game (the network's): its layout places the pieces.
    """

    def __init__(self, network_game: pyspiel.Game):
        layout = network_game.layout
        self._args = (layout.index, np.int64(layout.num_cards), np.int64(layout.hand_size), layout.score_maxima,
                      piece_offsets(layout.pieces(perfect_recall=True, private=True)))
        self._size = network_game.information_state_tensor_size()

    def __call__(self, state, player: int) -> np.ndarray:
        out = np.zeros(self._size, np.float32)
        write_tensor(state.state, player, *self._args, out)
        return out


def prior_network(game: pyspiel.Game, weights: str) -> tuple[str, pyspiel.Game]:
    """The weights file of ``nn_ismcts`` on ``game`` and the one-deal game it was trained on.

    ``weights`` empty: the shipped ``ppo`` file of the full-deck deal. A file's
    game must be a ``poke(mode=deal)`` with ``game``'s deck, hand size and trick rules.
    """
    path = weights or shipped_path("ppo", SHIPPED_PRIOR_GAME)
    if path is None:
        raise ValueError(f"no ppo weights ship for {SHIPPED_PRIOR_GAME}; pass a weights file as weights=PATH")
    _, header = load_weights(path)
    network_game = load_game(header["game"])
    if network_game.get_type().short_name != "poke" or network_game.params["mode"] != "deal":
        raise ValueError(f"nn_ismcts option 'weights': {path} was trained on {header['game']}; the prior needs "
                         f"a one-deal Poke game, poke(mode=deal,...)")
    if any(network_game.params[key] != game.params[key] for key in _DECK):
        raise ValueError(f"nn_ismcts option 'weights': {path} was trained on {header['game']}, whose deck or "
                         f"trick rules ({', '.join(_DECK)}) differ from {game}'s")
    return str(path), network_game


def deal_prior(game: pyspiel.Game, weights: str = "", temperature: float = 1.0, mix: float = 0.0) -> NetworkPrior:
    """The PUCT prior of ``nn_ismcts`` on ``game``: a network's softmax over the candidate actions."""
    path, network_game = prior_network(game, weights)
    return NetworkPrior(path, network_game, DealTensor(network_game), temperature, mix)


class NetworkLeaf:
    """Leaf evaluator ``evaluate(state, seed) -> returns`` mixing a Q-network's value into the play-outs.

    A Deep Monte-Carlo network (``gamut train --algo dmc``) of a one-deal game
    estimates, for the player to move after each action, the margin above the
    line plus the network game's ``trick_value`` per point below; its largest
    estimate over the search's candidate actions is that player's value
    ``V``. The search values a deal above the line plus its own
    ``trick_value`` per point below. The leaf's margin is ``P + w * (V - Q)``
    (``w`` the ``value_weight``), with ``P`` the play-outs' mean margin
    valued as the search values it and ``Q`` the same play-outs valued as the
    network does: the network replaces the part of the play-outs it
    measures, and the play-outs keep what it does not count (for a network
    trained with ``trick_value=0``, the points below the line). ``Q`` replays
    the play-outs from the same seed (the same cards and moves); a network
    trained on the search's own deal needs no replay (``Q = P``, and the
    margin is ``(1 - w) * P + w * V``).

    A leaf at a chance node is first advanced to the next decision by drawing
    the chance outcomes uniformly (seeded by ``seed``); at a terminal state the
    returns are exact.

    Parameters
    ----------
    network : NetworkPrior
        The ``dmc`` network of a one-deal Poke game, read through its ``scores``.
    value_weight : float
        Weight ``w`` of the network in the part of the play-outs it measures, in [0, 1].
    playout : str
        Play-out policy (``gamut.solvers.poke.search.PLAYOUTS``).
    count : int
        Play-outs averaged per leaf.
    """

    def __init__(self, network: NetworkPrior, value_weight: float, playout: str, count: int):
        self.network = network
        self.value_weight, self.scale = leaf_value_network(network, value_weight)
        self.network_trick_value = network.network_game.trick_value
        self.playout = PokeRollout(playout, count)

    def __call__(self, state, seed: int) -> np.ndarray:
        draw_chance(state, np.random.default_rng(seed))
        if state.is_terminal():
            return np.array(state.returns())
        player = state.current_player()
        count, kind = self.playout.count, self.playout.playout
        full = play_out_returns(state.state, state.cfg, state.trick_value, seed, kind, count)[0]
        measured = (full if self.network_trick_value == state.trick_value else
                    play_out_returns(state.state, state.cfg, self.network_trick_value, seed, kind, count)[0])
        value = float(self.network.scores(state, player, state.legal_actions()).max()) * self.scale
        if player == 1:
            value = -value
        margin = full + self.value_weight * (value - measured)
        return np.array([margin, 0.0 - margin])


class PokeNNISMCTSBot(PokeISMCTSBot):
    """Poke ISMCTS with PUCT selection under a network prior (see the module docstring).

    Parameters are those of :class:`gamut.solvers.poke.search.PokeISMCTSBot`, with
    ``c_puct`` (the PUCT constant, in units of the observed payoff spread) in
    place of ``uct_c``, plus ``weights`` (a weights file, empty for the shipped
    one), ``temperature`` (of the prior's softmax, > 0), ``mix`` (the weight
    of the uniform distribution mixed into the prior, in [0, 1]) and
    ``value_weight`` (the weight of the network's value at the leaves, in
    [0, 1], :class:`NetworkLeaf`; above 0 it needs ``dmc`` weights),
    ``beliefs`` (the size of a belief pool, ``gamut.solvers.poke.beliefs``:
    once the opponent has reached a draw, each search draws its
    determinizations from up to ``beliefs`` states under which
    ``belief_model`` would have discarded as many cards as the opponent did,
    found among ``BELIEF_TRIES * beliefs`` uniform ones; 0: uniform
    determinizations, as ``ismcts``) and ``belief_model`` (``"network"``:
    the prior network's best-scored draw; ``"heuristic"``: the threshold
    heuristic's) and ``belief_keep`` (False: a fresh pool at every move;
    True: the pool carried along the moves of a deal,
    ``gamut.solvers.poke.beliefs.KeptBeliefs``, and drawn afresh only when
    the opponent draws again or fewer than half its states can follow).
    Under a time budget the pool's cost comes out of the move's seconds.
    """

    def __init__(self, game: pyspiel.Game, player: int, seed: int, iterations: int, seconds: float, c_puct: float,
                 temperature: float, mix: float, weights: str, trick_value: float, playout: str, rollouts: int,
                 value_weight: float = 0.0, beliefs: int = 0, belief_model: str = "network",
                 belief_keep: bool = False):
        require_poke(game)
        check_belief_options(beliefs, belief_model, BELIEF_MODELS)
        super().__init__(game, player, seed, iterations, c_puct, trick_value, playout, "heuristic", rollouts, seconds)
        self.prior = deal_prior(game, weights, temperature, mix)
        leaf = (NetworkLeaf(self.prior, value_weight, playout, rollouts) if check_value_weight(value_weight) > 0
                else PokeRollout(playout, rollouts))
        self._search = ISMCTS(self._deal_game, uct_c=c_puct, evaluator=leaf, prior=self.prior)
        self._beliefs = beliefs
        if not isinstance(belief_keep, bool):
            raise ValueError(f"nn_ismcts option 'belief_keep' must be true or false, got {belief_keep!r}")
        cfg = self._deal_game.cfg
        self._draw_model = NetworkDraws(cfg, self.prior) if belief_model == "network" else HeuristicDraws(cfg,
                                                                                                        self._params)
        self._kept = KeptBeliefs(beliefs, BELIEF_TRIES * beliefs, self._draw_model) if belief_keep and beliefs else None

    def _root(self, root, seat: int):
        if self._beliefs == 0:
            return root
        if self._kept is not None:
            return root.with_beliefs(self._kept.pool(root, seat, self._rng), seat)
        pool = belief_pool(root, seat, self._rng, self._beliefs, BELIEF_TRIES * self._beliefs, self._draw_model)
        return root.with_beliefs(pool, seat)


def make_nn_ismcts_bot(game, player: int, seed: int, iterations: int, seconds: float, c_puct: float,
                       temperature: float, mix: float, weights: str, trick_value: float, playout: str,
                       rollouts: int, value_weight: float = 0.0, beliefs: int = 0,
                       belief_model: str = "network", belief_keep: bool = False) -> PokeNNISMCTSBot:
    """Registry factory of the Poke ``nn_ismcts`` agent."""
    return PokeNNISMCTSBot(game, player, seed, iterations, seconds, c_puct, temperature, mix, weights, trick_value,
                           playout, rollouts, value_weight, beliefs, belief_model, belief_keep)

