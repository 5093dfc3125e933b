"""The ``ppo`` and ``nfsp`` agents: a trained policy network playing through pyspiel, in NumPy.

The shipped weights live in ``results/rl/`` and are listed in
``results/rl/manifest.json`` (algorithm -> game string -> file and its
SHA-256); an agent is offered for exactly the variants that have shipped
weights, and ``weights=PATH`` loads one's own file from ``gamut train``
instead (it must have been trained on the same game string). Every file is
verified before use: the manifest's SHA-256 of a shipped file, and the digests
inside any weights file (:mod:`gamut.solvers.rl.checkpoint`); a damaged or
mismatched file raises ``ValueError`` naming it.

Playing needs NumPy only (no JAX): the forward pass is
:func:`gamut.solvers.rl.networks.forward`. ``ppo`` plays its most probable
legal action by default (``greedy=True``); ``nfsp`` samples its average policy
(``greedy=False``), the policy whose exploitability its training measures.
For a variant without shipped weights use :func:`neural_bot`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyspiel

from gamut.envs.registry import declarations
from gamut.solvers.bots import Option, register_bot
from gamut.solvers.rl.checkpoint import RLFileError, file_sha256, load_weights
from gamut.solvers.rl.networks import forward, layer_sizes, masked_log_softmax, policy_input

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "results" / "rl"
MANIFEST = SHIPPED_DIR / "manifest.json"
# The networks play through the batched environments: every declared game that has one.
GAMES = tuple(name for name, d in declarations().items() if d.vector)


def shipped_weights() -> dict:
    """``{algorithm: {game string: {"file": name, "sha256": digest}}}`` of the shipped weights."""
    if not MANIFEST.is_file():
        return {}
    return json.loads(MANIFEST.read_text())


def shipped_path(algorithm: str, game) -> Path | None:
    """The verified shipped weights file of ``algorithm`` for ``game``, or None when none ships."""
    entry = shipped_weights().get(algorithm, {}).get(str(game))
    if entry is None:
        return None
    path = SHIPPED_DIR / entry["file"]
    if not path.is_file() or file_sha256(path) != entry["sha256"]:
        raise RLFileError(f"shipped weights {path} are missing or fail the SHA-256 recorded in {MANIFEST}")
    return path


def ship_weights(path, name: str) -> Path:
    """Copy a verified weights file to ``results/rl/<name>.npz`` and record it in the manifest.

    Also writes ``results/rl/<name>.json``: the file's metadata (game, budget,
    evaluation, learning curve) in readable form. Returns the shipped path.
    """
    import shutil

    from gamut.solvers.rl.checkpoint import WEIGHTS_FORMAT, read_verified

    header, _ = read_verified(path, WEIGHTS_FORMAT)
    target = SHIPPED_DIR / f"{name}.npz"
    SHIPPED_DIR.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, target)
    manifest = shipped_weights()
    manifest.setdefault(header["algorithm"], {})[header["game"]] = {"file": target.name,
                                                                    "sha256": file_sha256(target)}
    MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    readable = {k: v for k, v in header.items() if k not in ("digests", "header_sha256")}
    (SHIPPED_DIR / f"{name}.json").write_text(json.dumps(readable, indent=1) + "\n")
    return target


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


def _factory(algorithm: str):
    def make(game, player, seed, weights, greedy):
        path = weights or shipped_path(algorithm, game)
        return NeuralBot(game, path, player, seed, greedy, algorithm)

    return make


def _supports(algorithm: str):
    def refusal(game) -> str | None:
        if str(game) in shipped_weights().get(algorithm, {}):
            return None
        return (f"no {algorithm} weights ship for this variant (they ship for "
                f"{', '.join(shipped_weights().get(algorithm, {})) or 'none'}); train them with gamut train and "
                "pass the file as weights=PATH")

    return refusal


def _options(default_greedy: bool) -> dict:
    return {"weights": Option(str, "", "weights file from gamut train (default: the shipped weights)"),
            "greedy": Option(bool, default_greedy, "play the most probable legal action instead of sampling")}


register_bot("ppo", GAMES, _factory("ppo"), "policy network trained by PPO with action masking (self-play in "
             "multi-player games); NumPy forward pass", _options(True), supports=_supports("ppo"), lifted_by="weights")
register_bot("nfsp", GAMES, _factory("nfsp"), "average policy of neural fictitious self-play; NumPy forward pass",
             _options(False), supports=_supports("nfsp"), lifted_by="weights")
