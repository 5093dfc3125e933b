"""Priors for PUCT search (:mod:`gamut.solvers.ismcts`) from a network trained by ``gamut train``.

:class:`NetworkPrior` is a prior callable ``prior(state, player) ->
probabilities`` over ``state.legal_actions()``: the softmax, at temperature
``temperature``, of the network's scores of the legal actions at ``player``'s
information state. The network is read from any weights file of ``gamut
train``: a policy (``ppo``, ``nfsp``: head ``pi``, flat or scoring each
action from its features) or a Deep Monte-Carlo Q-network (``dmc``: head
``q``, whose Q-values then play the part of logits, so its temperature is in
the units of the game's returns).

The search's states need not be pyspiel states of the network's game (a game's
search often runs on a lighter stand-in): the game lends ``tensor(state,
player) -> float32 (D,)``, the network's input tensor of ``player`` at a
search state (the information-state or observation tensor the file was
trained on). The forward pass is NumPy, one information set at a time: the
search asks for a prior once per information set it creates.

A policy trained to play is often nearly deterministic (logit gaps of 10 to
30 in the shipped Poke and Palace Poker networks), and PUCT never visits an
action whose prior is 0: ``temperature`` flattens the softmax and ``mix``
blends in the uniform distribution.

    >>> prior = NetworkPrior(weights, network_game, tensor, temperature=1.0)   # doctest: +SKIP
    >>> ISMCTS(game, uct_c=1.0, prior=prior)                                   # doctest: +SKIP
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyspiel

from gamut.solvers.blas_threads import one_blas_thread
from gamut.solvers.rl.checkpoint import RLFileError, load_weights
from gamut.solvers.rl.features import recorded_features, score_actions, score_pairs
from gamut.solvers.rl.networks import forward, layer_sizes, policy_input

# The network head each algorithm's weights file plays.
HEADS = {"ppo": "pi", "nfsp": "pi", "dmc": "q"}

Tensor = Callable[[object, int], np.ndarray]


def check_mix(mix) -> float:
    """``mix`` as a float, or ValueError unless it is a number in [0, 1]."""
    if isinstance(mix, bool) or not isinstance(mix, (int, float)) or not 0 <= mix <= 1:
        raise ValueError(f"the prior's uniform mix must be a number in [0, 1], got {mix!r}")
    return float(mix)


def check_temperature(temperature) -> float:
    """``temperature`` as a float, or ValueError unless it is a finite number > 0."""
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) \
            or not 0 < temperature < math.inf:
        raise ValueError(f"the prior's temperature must be a finite number > 0, got {temperature!r}")
    return float(temperature)


def check_value_weight(value_weight) -> float:
    """A leaf's network weight ``value_weight`` as a float, or ValueError unless it is a number in [0, 1]."""
    if isinstance(value_weight, bool) or not isinstance(value_weight, (int, float)) or not 0 <= value_weight <= 1:
        raise ValueError(f"nn_ismcts option 'value_weight' must be a number in [0, 1], got {value_weight!r}")
    return float(value_weight)


class NetworkPrior:
    """A network's softmax over the legal actions, as a PUCT prior (see the module docstring).

    Parameters
    ----------
    path : str or Path
        Weights file from ``gamut train`` (``ppo``, ``nfsp`` or ``dmc``), verified on loading.
    network_game : pyspiel.Game
        The game the weights were trained on (its string must match the file's).
    tensor : callable
        ``tensor(state, player) -> float32 (D,)``: the network's input tensor (without the seat
        one-hot, which is added here) of ``player`` at a search state.
    temperature : float
        Softmax temperature (> 0): 1 is the network's own policy, larger flattens it.
    mix : float
        Weight in [0, 1] of the uniform distribution mixed in: ``(1 - mix) * softmax + mix / len(legal)``,
        so that no legal action's prior is (numerically) 0 and the search can still find it.

    Attributes
    ----------
    network_game : pyspiel.Game
        The game the weights were trained on (callers read its parameters, e.g. how it values a deal).

    Raises
    ------
    ValueError
        A damaged or mismatched file (``RLFileError``), an algorithm without a playable head,
        a temperature that is not a finite number > 0, or a mix outside [0, 1].
    """

    def __init__(self, path, network_game: pyspiel.Game, tensor: Tensor, temperature: float = 1.0,
                 mix: float = 0.0):
        self.temperature = check_temperature(temperature)
        self.mix = check_mix(mix)
        one_blas_thread()
        self.params, self.metadata = load_weights(path, network_game)
        algorithm = self.metadata.get("algorithm")
        if algorithm not in HEADS:
            raise RLFileError(f"weights {path} were trained by {algorithm!r}; a prior needs one of "
                              f"{', '.join(HEADS)}")
        self.head = HEADS[algorithm]
        self.num_players = network_game.num_players()
        self.num_actions = network_game.num_distinct_actions()
        info_state = self.metadata["input"].startswith("information_state")
        width = (network_game.information_state_tensor_size() if info_state
                 else network_game.observation_tensor_size())
        width += self.num_players if self.num_players > 1 else 0
        # A file written before the action head existed has no policy_head: it is flat (dmc always scores actions).
        kind = "actions" if algorithm == "dmc" else self.metadata.get("policy_head", "flat")
        if kind not in ("flat", "actions"):
            raise RLFileError(f"weights {path} have policy head {kind!r}; a prior reads 'flat' and 'actions'")
        self.features = None
        outputs = self.num_actions
        if kind == "actions":
            self.features = recorded_features(network_game, self.metadata, path)
            width, outputs = width + self.features.size, 1
        sizes = layer_sizes(self.params, self.head)
        if sizes[0] != width or sizes[-1] != outputs:
            raise RLFileError(f"weights {path} take {sizes[0]} inputs and give {sizes[-1]} outputs; "
                              f"{network_game} needs {width} and {outputs}")
        self.tensor = tensor
        self.network_game = network_game

    def inputs(self, state, player: int, legal: list[int]) -> tuple[np.ndarray, np.ndarray | None]:
        """What the network reads: input float32 ``(1, D)`` and, with action features, ``legal``'s rows ``(1, K, F)``.

        The features are None for a flat head or one-hot action ids.
        """
        x = policy_input(np.asarray(self.tensor(state, player), np.float32)[None], np.array([player]),
                         self.num_players)
        if self.features is None or self.features.one_hot:
            return x, None
        mask = np.zeros((1, self.num_actions), np.bool_)
        mask[0, legal] = True
        return x, self.features(x, mask)[:, legal]

    def scores(self, state, player: int, legal: list[int]) -> np.ndarray:
        """The network's scores float64 ``(len(legal),)`` of the actions ``legal`` of ``player`` at ``state``."""
        x, feats = self.inputs(state, player, legal)
        if feats is not None:
            # Only the legal rows go through the hidden layers: most of the actions are illegal.
            return score_actions(self.params, self.head, x, feats)[0].astype(np.float64)
        if self.features is None:
            logits = forward(self.params, self.head, x)
        else:
            logits = score_actions(self.params, self.head, x, None)
        return logits[0, legal].astype(np.float64)

    def best_actions(self, tensors: np.ndarray, players: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The legal action the network scores highest at each of ``N`` positions, int64 ``(N,)``.

        ``tensors`` float32 ``(N, D)`` are the positions' input tensors (as ``tensor`` gives
        them), ``players`` int ``(N,)`` who moves at each, ``masks`` bool ``(N, A)`` their legal
        actions (at least one a row). One forward pass for all rows; a head that scores actions
        from their features scores the legal (position, action) pairs only. Ties go to the
        lowest action id, as ``argmax`` over :meth:`scores` of the sorted legal actions.
        """
        if len(tensors) == 0:
            return np.zeros(0, dtype=np.int64)
        x = policy_input(np.asarray(tensors, np.float32), np.asarray(players), self.num_players)
        if self.features is None:
            return np.where(masks, forward(self.params, self.head, x), -np.inf).argmax(axis=1)
        rows, actions = np.nonzero(masks)
        one_hot = self.features.one_hot
        chosen = actions if one_hot else self.features(x, masks)[rows, actions]
        full = np.full(masks.shape, -np.inf)
        full[rows, actions] = score_pairs(self.params, self.head, x, rows, chosen, one_hot)
        return full.argmax(axis=1)

    def __call__(self, state, player: int) -> list[float]:
        """Probabilities of ``state.legal_actions()`` (in that order), summing to 1."""
        legal = state.legal_actions()
        z = self.scores(state, player, legal) / self.temperature
        z = np.exp(z - z.max())
        return ((1.0 - self.mix) * z / z.sum() + self.mix / len(legal)).tolist()


def check_belief_options(beliefs, belief_model, models: tuple[str, ...]) -> int:
    """``beliefs`` (a belief pool's size) as an int, or ValueError unless it is an integer >= 0 and
    ``belief_model`` one of ``models``."""
    if isinstance(beliefs, bool) or not isinstance(beliefs, int) or beliefs < 0:
        raise ValueError(f"nn_ismcts option 'beliefs' must be an integer >= 0 (0: no belief pool, each "
                         f"determinization drawn afresh), got {beliefs!r}")
    if belief_model not in models:
        raise ValueError(f"nn_ismcts option 'belief_model' must be one of {', '.join(models)}, got {belief_model!r}")
    return beliefs


def leaf_value_network(network: NetworkPrior, value_weight) -> tuple[float, float]:
    """``(value_weight, value_scale)`` for a leaf that mixes ``network``'s value into its play-outs.

    ValueError unless the network is a Deep Monte-Carlo Q-network (head ``q``;
    its Q-values times ``value_scale`` are in the game's returns) and
    ``value_weight`` a number in [0, 1].
    """
    if network.head != "q":
        raise ValueError("a network value at the leaves needs Deep Monte-Carlo weights (gamut train --algo dmc); "
                         "the weights given hold a policy head only")
    return check_value_weight(value_weight), float(network.metadata["value_scale"])
