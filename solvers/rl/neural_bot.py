"""The bots of the ``ppo``, ``nfsp`` and ``dmc`` agents: trained networks playing through pyspiel, in NumPy.

The agents play the shipped weights of their variant
(:mod:`gamut.solvers.rl.shipped`), or ``weights=PATH``, one's own file from
``gamut train`` (it must have been trained on the same game string). Every
file is verified before use: the manifest's SHA-256 of a shipped file, and
the digests inside any weights file (:mod:`gamut.solvers.rl.checkpoint`); a
damaged or mismatched file raises ``ValueError`` naming it.

Playing needs NumPy only (no JAX): the forward pass is
:func:`gamut.solvers.rl.networks.forward`. ``ppo`` plays its most probable
legal action by default (``greedy=True``); ``nfsp`` samples its average policy
(``greedy=False``), the policy whose exploitability its training measures.
For a variant without shipped weights use :func:`neural_bot`. A PPO file
records its policy head (``policy_head``): ``flat`` (one logit per action id;
also every file written before the action head existed) or ``actions`` (one
shared network scoring each legal action from its features, computed here as
in training from the ``action_features`` the file names). ``dmc``
(:class:`DMCBot`) plays the legal action of largest Q-value of a Deep
Monte-Carlo Q-network, computing the same action features as its training.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.solvers.blas_threads import one_blas_thread
from gamut.solvers.rl.checkpoint import RLFileError, load_weights
from gamut.solvers.rl.features import recorded_features, score_actions
from gamut.solvers.rl.networks import forward, layer_sizes, masked_log_softmax, policy_input
from gamut.solvers.rl.shipped import shipped_path


def _input_size(game, metadata: dict) -> int:
    """Width of the network input a weights file of ``game`` was trained on (tensor, then seat one-hot)."""
    info_state = metadata["input"].startswith("information_state")
    size = game.information_state_tensor_size() if info_state else game.observation_tensor_size()
    return size + (game.num_players() if game.num_players() > 1 else 0)


def _network_input(game, state, player: int, info_state: bool) -> np.ndarray:
    """Network input float32 ``(1, D)`` of ``player`` at ``state``."""
    tensor = state.information_state_tensor(player) if info_state else state.observation_tensor(player)
    return policy_input(np.asarray(tensor, np.float32)[None], np.array([player]), game.num_players())


def _legal_mask(game, legal: list[int]) -> np.ndarray:
    mask = np.zeros((1, game.num_distinct_actions()), np.bool_)
    mask[0, legal] = True
    return mask


class NeuralBot(pyspiel.Bot):
    """Plays a policy network from a weights file (see the module docstring).

    Parameters
    ----------
    game : pyspiel.Game
        The game the weights were trained on (its string must match).
    path : str or Path
        Weights file written by ``gamut train``.
    player : int
    seed : int
        Seed of the sampled actions (unused when ``greedy``).
    greedy : bool
        Play the most probable legal action instead of sampling.
    algorithm : str or None
        Refuse weights of another algorithm.
    """

    def __init__(self, game, path, player: int, seed: int = 0, greedy: bool = True, algorithm: str | None = None):
        pyspiel.Bot.__init__(self)
        one_blas_thread()
        self._params, self.metadata = load_weights(path, game, algorithm)
        self._game = game
        self._player = player
        self._greedy = greedy
        self._rng = np.random.default_rng(seed)
        self._info_state = self.metadata["input"].startswith("information_state")
        width, outputs = _input_size(game, self.metadata), game.num_distinct_actions()
        # A file written before the action head existed has no policy_head: it is flat.
        head = self.metadata.get("policy_head", "flat")
        if head not in ("flat", "actions"):
            raise RLFileError(f"weights {path} have policy head {head!r}; this toolkit plays 'flat' and 'actions'")
        self._features = None
        if head == "actions":
            self._features = recorded_features(game, self.metadata, path)
            width, outputs = width + self._features.size, 1
        sizes = layer_sizes(self._params, "pi")
        if sizes[0] != width or sizes[-1] != outputs:
            raise RLFileError(f"weights {path} take {sizes[0]} inputs and give {sizes[-1]} outputs; {game} needs "
                              f"{width} and {outputs} ({head} policy head)")

    def player_id(self) -> int:
        return self._player

    def restart_at(self, state) -> None:
        """Nothing to reset: the policy reads the whole information state at every move."""

    def provides_policy(self) -> bool:
        return True

    def _log_probs(self, state) -> tuple[list[int], np.ndarray]:
        """The legal actions and the log-probability float64 ``(A,)`` of every action (``-inf`` if illegal)."""
        p = self._player
        x = _network_input(self._game, state, p, self._info_state)
        legal = state.legal_actions(p)
        mask = _legal_mask(self._game, legal)
        if self._features is None:
            logits = forward(self._params, "pi", x)
        else:
            feats = None if self._features.one_hot else self._features(x, mask)
            logits = score_actions(self._params, "pi", x, feats)
        return legal, masked_log_softmax(logits, mask)[0]

    def step_with_policy(self, state):
        legal, logp = self._log_probs(state)
        if not legal:
            return [], pyspiel.INVALID_ACTION
        probs = np.exp(logp[legal])
        probs /= probs.sum()
        if self._greedy:
            action = legal[int(np.argmax(probs))]
        else:
            action = legal[int(self._rng.choice(len(legal), p=probs))]
        return [(int(a), float(q)) for a, q in zip(legal, probs)], int(action)

    def step(self, state) -> int:
        return self.step_with_policy(state)[1]


def neural_bot(game, path, player: int = 0, seed: int = 0, greedy: bool = True) -> NeuralBot:
    """The agent of any weights file from ``gamut train``, on any variant it was trained on."""
    return NeuralBot(game, path, player, seed, greedy)


def make_ppo_bot(game, player: int, seed: int, weights: str, greedy: bool) -> NeuralBot:
    """Registry factory of ``ppo``: ``weights`` or the shipped PPO weights of ``game``."""
    return NeuralBot(game, weights or shipped_path("ppo", game), player, seed, greedy, "ppo")


def make_nfsp_bot(game, player: int, seed: int, weights: str, greedy: bool) -> NeuralBot:
    """Registry factory of ``nfsp``: ``weights`` or the shipped NFSP weights of ``game``."""
    return NeuralBot(game, weights or shipped_path("nfsp", game), player, seed, greedy, "nfsp")


class DMCBot(pyspiel.Bot):
    """Plays the greedy action of a Deep Monte-Carlo Q-network (:mod:`gamut.solvers.rl.dmc`), in NumPy.

    Parameters
    ----------
    game : pyspiel.Game
        The game the weights were trained on (its string must match).
    path : str or Path
        Weights file written by ``gamut train --algo dmc``.
    player : int
    """

    def __init__(self, game, path, player: int):
        pyspiel.Bot.__init__(self)
        one_blas_thread()
        self._params, self.metadata = load_weights(path, game, "dmc")
        self._game = game
        self._player = player
        self._info_state = self.metadata["input"].startswith("information_state")
        self._features = recorded_features(game, self.metadata, path)
        width = _input_size(game, self.metadata) + self._features.size
        sizes = layer_sizes(self._params, "q")
        if sizes[0] != width or sizes[-1] != 1:
            raise RLFileError(f"weights {path} take {sizes[0]} inputs and give {sizes[-1]} values; {game} needs "
                              f"{width} and 1")

    def player_id(self) -> int:
        return self._player

    def restart_at(self, state) -> None:
        """Nothing to reset: the network reads the whole information state at every move."""

    def q_values(self, state) -> tuple[list[int], np.ndarray]:
        """The legal actions and the Q-value float32 ``(A,)`` of every action (meaningful at the legal ones)."""
        p = self._player
        x = _network_input(self._game, state, p, self._info_state)
        legal = state.legal_actions(p)
        feats = None if self._features.one_hot else self._features(x, _legal_mask(self._game, legal))
        return legal, score_actions(self._params, "q", x, feats)[0]

    def step(self, state) -> int:
        legal, q = self.q_values(state)
        if not legal:
            return pyspiel.INVALID_ACTION
        return int(legal[int(np.argmax(q[legal]))])


def make_dmc_bot(game, player: int, seed: int, weights: str) -> DMCBot:
    """Registry factory of ``dmc``: ``weights`` (from ``gamut train --algo dmc``) or the shipped DMC weights."""
    return DMCBot(game, weights or shipped_path("dmc", game), player)
