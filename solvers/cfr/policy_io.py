"""Tabular policies: OpenSpiel ``TabularPolicy`` conversion, files with metadata, bots.

A ``TabularStrategy`` is a table from information-state key (OpenSpiel's
``information_state_string`` unless an abstraction says otherwise) to the
probabilities of that state's legal actions. Flat layout: the actions of key
``keys[i]`` are ``actions[action_start[i]:action_start[i + 1]]`` with
probabilities ``probs[...]`` at the same positions, exactly like
``GameTree.infoset_actions``. Example (Kuhn poker, player 0 holding the jack):
``keys[0] == "0"``, ``actions[0:2] == [0, 1]`` (pass, bet), ``probs[0:2] ==
[0.79, 0.21]``.

Files are ``.npz`` archives holding those arrays plus a JSON metadata string
(game string, algorithm, iterations, exploitability, toolkit version, ...).
Format 2 records the SHA-256 digest of every array in that header and the
digest of the header itself; format-1 files (no digests) still load. Loading
never unpickles, checks every digest, that the arrays line up and that each
key's probabilities are a distribution; a damaged file is a ``ValueError``
naming it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python import policy as openspiel_policy

from gamut.solvers.hashed_npz import digest_problem, write_hashed_npz
from gamut.solvers.cfr.extract import GameTree
from gamut.solvers.seat_bots import PolicyBot

_FORMAT = "gamut-tabular-strategy-2"
_FORMAT_WITHOUT_DIGESTS = "gamut-tabular-strategy-1"
_ARRAYS = ("keys", "action_start", "actions", "probs")
_PROBABILITY_SUM_TOLERANCE = 1e-6


@dataclass
class TabularStrategy:
    """Action probabilities per information-state key (see the module docstring)."""

    game_string: str
    keys: tuple
    action_start: np.ndarray
    actions: np.ndarray
    probs: np.ndarray
    metadata: dict = field(default_factory=dict)

    def __post_init__(self):
        self.action_start = np.asarray(self.action_start, dtype=np.int64)
        self.actions = np.asarray(self.actions, dtype=np.int64)
        self.probs = np.asarray(self.probs, dtype=np.float64)
        self.keys = tuple(str(k) for k in self.keys)
        if (self.action_start.shape != (len(self.keys) + 1,) or self.action_start[0] != 0
                or np.any(np.diff(self.action_start) <= 0) or self.actions.shape != (self.action_start[-1],)
                or self.probs.shape != self.actions.shape):
            raise ValueError("strategy arrays disagree: keys, action_start, actions and probs must line up")
        self._index = {k: i for i, k in enumerate(self.keys)}

    @classmethod
    def from_tree(cls, tree: GameTree, policy, metadata: dict | None = None) -> "TabularStrategy":
        """Wrap a policy array of shape ``(tree.num_infoset_actions,)``."""
        policy = np.asarray(policy, dtype=np.float64)
        if policy.shape != (tree.num_infoset_actions,):
            raise ValueError(f"policy must have shape ({tree.num_infoset_actions},), got {policy.shape}")
        return cls(tree.game_string, tree.infoset_keys, tree.infoset_action_start, tree.infoset_actions,
                   policy.copy(), dict(metadata or {}))

    @classmethod
    def from_table(cls, game_string: str, table: dict, metadata: dict | None = None) -> "TabularStrategy":
        """From ``key -> (action ids, probabilities)``, e.g. ``MCCFR.average_policy()``."""
        keys = list(table)
        sizes = [len(table[k][0]) for k in keys]
        start = np.zeros(len(keys) + 1, dtype=np.int64)
        start[1:] = np.cumsum(sizes)
        actions = [a for k in keys for a in table[k][0]]
        probs = [p for k in keys for p in table[k][1]]
        return cls(game_string, keys, start, actions, probs, dict(metadata or {}))

    def action_probabilities(self, key: str, legal_actions=None) -> dict:
        """``{action: probability}`` at ``key``; uniform over ``legal_actions`` for an unseen key.

        Raises ``ValueError`` for an unseen key when ``legal_actions`` is not given.
        """
        i = self._index.get(key)
        if i is None:
            if legal_actions is None:
                raise ValueError(f"information state {key!r} is not in the strategy")
            return {a: 1.0 / len(legal_actions) for a in legal_actions}
        lo, hi = self.action_start[i], self.action_start[i + 1]
        return {int(a): float(p) for a, p in zip(self.actions[lo:hi], self.probs[lo:hi])}

    def on_tree(self, tree: GameTree) -> np.ndarray:
        """Policy array for ``tree`` (uniform at sets the strategy lacks)."""
        out = np.empty(tree.num_infoset_actions)
        for i, key in enumerate(tree.infoset_keys):
            lo, hi = tree.infoset_action_start[i], tree.infoset_action_start[i + 1]
            legal = tree.infoset_actions[lo:hi]
            probs = self.action_probabilities(key, legal.tolist())
            out[lo:hi] = [probs.get(int(a), 0.0) for a in legal]
        return out


def to_tabular_policy(game: pyspiel.Game, strategy: TabularStrategy) -> openspiel_policy.TabularPolicy:
    """An OpenSpiel ``TabularPolicy`` (uniform at states the strategy lacks)."""
    tabular = openspiel_policy.TabularPolicy(game)
    for key, row in tabular.state_lookup.items():
        i = strategy._index.get(key)
        if i is None:
            continue
        lo, hi = strategy.action_start[i], strategy.action_start[i + 1]
        tabular.action_probability_array[row] = 0.0
        tabular.action_probability_array[row, strategy.actions[lo:hi]] = strategy.probs[lo:hi]
    return tabular


def from_tabular_policy(tabular: openspiel_policy.TabularPolicy, metadata: dict | None = None) -> TabularStrategy:
    """A strategy holding every state of an OpenSpiel ``TabularPolicy`` (legal actions only)."""
    keys = list(tabular.state_lookup)
    rows = [tabular.state_lookup[k] for k in keys]
    legal = [np.flatnonzero(tabular.legal_actions_mask[r]) for r in rows]
    start = np.zeros(len(keys) + 1, dtype=np.int64)
    start[1:] = np.cumsum([len(a) for a in legal])
    actions = np.concatenate(legal) if legal else np.zeros(0, dtype=np.int64)
    probs = np.concatenate([tabular.action_probability_array[r, a] for r, a in zip(rows, legal)]) if legal \
        else np.zeros(0)
    return TabularStrategy(str(tabular.game), keys, start, actions, probs, dict(metadata or {}))


def save_strategy(path: str | os.PathLike, strategy: TabularStrategy) -> Path:
    """Write ``strategy`` (arrays + JSON metadata) atomically to ``path`` (an ``.npz`` file)."""
    arrays = {"keys": np.array(strategy.keys, dtype=np.str_), "action_start": strategy.action_start,
              "actions": strategy.actions, "probs": strategy.probs}
    header = {"format": _FORMAT, "game": strategy.game_string, "toolkit_version": version("gamut"),
              "metadata": strategy.metadata}
    return write_hashed_npz(path, header, arrays, header_key="header")


def load_strategy(path: str | os.PathLike) -> TabularStrategy:
    """Read a strategy written by ``save_strategy``; a missing, damaged or foreign file raises ``ValueError``."""
    if not Path(path).is_file():
        raise ValueError(f"no strategy file at {path}")
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            arrays = {name: data[name] for name in _ARRAYS}
    except Exception as err:  # zipfile, zlib, numpy and JSON each raise their own types on damage
        raise ValueError(f"{path} is not a readable strategy file ({type(err).__name__}: {err})") from None
    try:
        _check_strategy_file(header, arrays)
        strategy = TabularStrategy(header["game"], arrays["keys"].tolist(), arrays["action_start"],
                                   arrays["actions"], arrays["probs"], header["metadata"])
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{path} is not a valid strategy file: {err}") from None
    _check_distributions(path, strategy)
    return strategy


def _check_strategy_file(header, arrays: dict) -> None:
    if not isinstance(header, dict):
        raise ValueError("its header is not a JSON object")
    if header.get("format") not in (_FORMAT, _FORMAT_WITHOUT_DIGESTS):
        raise ValueError(f"unknown format {header.get('format')!r}, expected {_FORMAT!r}")
    if header["format"] == _FORMAT:
        problem = digest_problem(header, arrays)
        if problem is not None:
            raise ValueError(problem)
    if not isinstance(header.get("game"), str) or not isinstance(header.get("metadata"), dict):
        raise ValueError("its header lacks the game string or the metadata")
    if arrays["keys"].dtype.kind != "U" or arrays["keys"].ndim != 1:
        raise ValueError("keys must be a 1-D array of strings")


def _check_distributions(path, strategy: TabularStrategy) -> None:
    probs, start = strategy.probs, strategy.action_start
    if len(probs) and (not np.all(np.isfinite(probs)) or probs.min() < 0 or strategy.actions.min() < 0):
        raise ValueError(f"{path} is not a valid strategy file: negative or non-finite probabilities or action ids")
    sums = np.add.reduceat(probs, start[:-1]) if len(probs) else np.zeros(0)
    off = np.flatnonzero(np.abs(sums - 1.0) > _PROBABILITY_SUM_TOLERANCE)
    if len(off):
        raise ValueError(f"{path} is not a valid strategy file: the probabilities of {strategy.keys[off[0]]!r} "
                         f"sum to {sums[off[0]]:.9g}, not 1")


class StrategyBot(PolicyBot):
    """A pyspiel bot that samples its actions from a ``TabularStrategy``.

    Parameters
    ----------
    strategy : TabularStrategy
    player : int
        The seat the bot plays.
    seed : int
        Seed of the bot's ``np.random.Generator``; the stream runs on across
        games, so consecutive games are independent draws.
    key_fn : callable ``(state, player) -> str``, optional
        Information-state abstraction used when the strategy was trained;
        defaults to ``information_state_string``.
    """

    def __init__(self, strategy: TabularStrategy, player: int, seed: int = 0, key_fn=None):
        super().__init__(player)
        self.strategy = strategy
        self._rng = np.random.default_rng(seed)
        self._key_fn = key_fn

    def _policy(self, state, legal):
        key = (self._key_fn(state, self._player) if self._key_fn is not None
               else state.information_state_string(self._player))
        probs = self.strategy.action_probabilities(key, legal)
        weights = np.array([probs.get(a, 0.0) for a in legal])
        weights /= weights.sum()
        action = int(legal[int(self._rng.choice(len(legal), p=weights))])
        return [(a, float(w)) for a, w in zip(legal, weights)], action


def make_strategy_bot(game: pyspiel.Game, player: int, seed: int, path: str) -> StrategyBot:
    """Registry factory of ``cfr-policy``: a ``StrategyBot`` for ``game`` from the strategy file at ``path``."""
    strategy = load_strategy(path)
    if strategy.game_string != str(game):
        raise ValueError(f"strategy file {path} is for {strategy.game_string}, not {game}")
    return StrategyBot(strategy, player, seed)
