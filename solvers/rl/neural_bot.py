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
For a variant without shipped weights use :func:`neural_bot`. ``dmc``
(:class:`DMCBot`) plays the legal action of largest Q-value of a Deep
Monte-Carlo Q-network, computing the same action features as its training.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.solvers.rl.checkpoint import RLFileError, load_weights
from gamut.solvers.rl.networks import forward, layer_sizes, masked_log_softmax, policy_input
from gamut.solvers.rl.shipped import shipped_path

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
        self._params, self.metadata = load_weights(path, game, algorithm)
        self._game = game
        self._player = player
        self._greedy = greedy
        self._rng = np.random.default_rng(seed)
        self._info_state = self.metadata["input"].startswith("information_state")
        size = (game.information_state_tensor_size() if self._info_state else game.observation_tensor_size())
        seats = game.num_players() if game.num_players() > 1 else 0
        sizes = layer_sizes(self._params, "pi")
        if sizes[0] != size + seats or sizes[-1] != game.num_distinct_actions():
            raise RLFileError(f"weights {path} take {sizes[0]} inputs and give {sizes[-1]} actions; {game} needs "
                              f"{size + seats} and {game.num_distinct_actions()}")

    def player_id(self) -> int:
        return self._player

    def restart_at(self, state) -> None:
        """Nothing to reset: the policy reads the whole information state at every move."""

    def provides_policy(self) -> bool:
        return True

    def _log_probs(self, state) -> tuple[list[int], np.ndarray]:
        p = self._player
        tensor = state.information_state_tensor(p) if self._info_state else state.observation_tensor(p)
        x = policy_input(np.asarray(tensor, np.float32)[None], np.array([p]), self._game.num_players())
        legal = state.legal_actions(p)
        mask = np.zeros((1, self._game.num_distinct_actions()), np.bool_)
        mask[0, legal] = True
        return legal, masked_log_softmax(forward(self._params, "pi", x), mask)[0]

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
        from gamut.solvers.rl.dmc import action_features, features_name

        pyspiel.Bot.__init__(self)
        self._params, self.metadata = load_weights(path, game, "dmc")
        self._game = game
        self._player = player
        self._info_state = self.metadata["input"].startswith("information_state")
        self._features = action_features(game)
        expected = (features_name(game), int(self._features.size))
        if (self.metadata.get("action_features"), self.metadata.get("feature_size")) != expected:
            raise RLFileError(f"weights {path} were trained on action features "
                              f"{self.metadata.get('action_features')!r} of size {self.metadata.get('feature_size')}; "
                              f"{game} has {expected[0]!r} of size {expected[1]}")
        size = (game.information_state_tensor_size() if self._info_state else game.observation_tensor_size())
        width = size + (game.num_players() if game.num_players() > 1 else 0) + expected[1]
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
        from gamut.solvers.rl.dmc import q_values

        p = self._player
        tensor = state.information_state_tensor(p) if self._info_state else state.observation_tensor(p)
        x = policy_input(np.asarray(tensor, np.float32)[None], np.array([p]), self._game.num_players())
        legal = state.legal_actions(p)
        mask = np.zeros((1, self._game.num_distinct_actions()), np.bool_)
        mask[0, legal] = True
        feats = None if self._features.one_hot else self._features(x, mask)
        return legal, q_values(self._params, x, feats)[0]

    def step(self, state) -> int:
        legal, q = self.q_values(state)
        if not legal:
            return pyspiel.INVALID_ACTION
        return int(legal[int(np.argmax(q[legal]))])


def make_dmc_bot(game, player: int, seed: int, weights: str) -> DMCBot:
    """Registry factory of ``dmc``: a weights file from ``gamut train --algo dmc`` (none ship yet)."""
    return DMCBot(game, weights or shipped_path("dmc", game), player)
