"""Monte Carlo CFR (external and outcome sampling) for games too big to extract.

The solver walks states through a *walker*: ``PyspielWalker`` uses the public
pyspiel API; a game with its own Numba kernels can pass any object with the
same methods (see ``PyspielWalker``) to walk its small state arrays directly.
Information states map to table keys through a pluggable abstraction, a
function ``(state, player) -> str``; the default is the information state
string itself (no abstraction). Keys sharing a bucket share regrets, so a
bucket's states must have the same number of legal actions.

Schemes (one iteration = one traversal per player, player 0 first):

- external sampling: the updating player's actions are all explored, chance
  and the other player's actions sampled; regrets of the updating player are
  incremented by the sampled counterfactual action values minus the node value,
  and the other player's visited sets add their current policy to the average.
- outcome sampling: one trajectory per traversal; the updating player samples
  from ``exploration * uniform + (1 - exploration) * policy``, values are
  importance weighted by the sampling probability, and the updating player's
  sets add ``own reach * policy / sampling reach`` to the average. Chance is
  sampled on-policy and left out of both the reach and the sampling reach: it
  cancels in the regret weights and only scales a set's average-policy terms
  by a constant that the normalization removes.

Randomness comes only from the ``np.random.Generator`` built from ``seed``, so
a seed fixes the run; its state is part of the checkpoint, so a resumed run
repeats an uninterrupted one exactly.
"""

from __future__ import annotations

import json

import numpy as np
import pyspiel

from gamut.solvers.cfr.extract import check_two_player_zero_sum

SCHEMES = ("external", "outcome")


class PyspielWalker:
    """Walk a game through the pyspiel API; MCCFR calls only these methods.

    A game that provides kernels offers a walker with the same methods (and a
    ``game_string`` attribute) over its own state type; ``child`` must return a
    new state and leave its argument unchanged.
    """

    def __init__(self, game: pyspiel.Game, abstraction=None):
        check_two_player_zero_sum(game)
        self.game = game
        self.game_string = str(game)
        self._abstraction = abstraction

    def root(self):
        return self.game.new_initial_state()

    def is_terminal(self, state) -> bool:
        return state.is_terminal()

    def is_chance(self, state) -> bool:
        return state.is_chance_node()

    def current_player(self, state) -> int:
        return state.current_player()

    def legal_actions(self, state) -> list:
        return state.legal_actions()

    def chance_outcomes(self, state) -> list:
        """``[(action, probability), ...]`` at a chance node."""
        return state.chance_outcomes()

    def child(self, state, action):
        return state.child(action)

    def returns(self, state) -> list:
        return state.returns()

    def infostate_key(self, state, player: int) -> str:
        if self._abstraction is None:
            return state.information_state_string(player)
        return self._abstraction(state, player)


def _sample(rng: np.random.Generator, probs) -> int:
    # Inverse-CDF draw from one uniform number: a fixed count of draws per sample.
    draw = rng.random()
    total = 0.0
    for k, p in enumerate(probs):
        total += p
        if draw < total:
            return k
    return len(probs) - 1


def _regret_matching(regret: list) -> list:
    positive = sum(r for r in regret if r > 0.0)
    if positive > 0.0:
        return [r / positive if r > 0.0 else 0.0 for r in regret]
    return [1.0 / len(regret)] * len(regret)


class MCCFR:
    """External- or outcome-sampling MCCFR with tables keyed by information-state bucket.

    Parameters
    ----------
    game : pyspiel.Game or walker
        A two-player zero-sum game, or a walker object (see ``PyspielWalker``).
    scheme : {"external", "outcome"}
    seed : int
        Seed of the solver's ``np.random.Generator``.
    exploration : float
        Outcome sampling's exploration of the updating player, in (0, 1].
    abstraction : callable ``(state, player) -> str``, optional
        Information-state bucketing (pyspiel games only; a walker brings its own).
    """

    def __init__(self, game, scheme: str = "external", seed: int = 0, exploration: float = 0.6, abstraction=None):
        if scheme not in SCHEMES:
            raise ValueError(f"unknown MCCFR scheme {scheme!r}; choose one of {', '.join(SCHEMES)}")
        if not 0.0 < exploration <= 1.0:
            raise ValueError(f"exploration must be in (0, 1], got {exploration}")
        self.walker = PyspielWalker(game, abstraction) if isinstance(game, pyspiel.Game) else game
        self.game_string = self.walker.game_string
        # Checkpoints record which bucketing built the tables; a resume must use the same one.
        self.abstraction_name = (
            "none" if abstraction is None else getattr(abstraction, "__qualname__", repr(abstraction))
        )
        self.scheme = scheme
        self.algorithm = "es-mccfr" if scheme == "external" else "os-mccfr"
        self.seed = int(seed)
        self.exploration = float(exploration)
        self.rng = np.random.default_rng(self.seed)
        self.iteration = 0
        # key -> [regrets, cumulative policy, action ids], one entry per legal action.
        self.tables: dict[str, list] = {}

    def config(self) -> dict:
        """Settings that a resumed run must share with the run that wrote the checkpoint."""
        exploration = self.exploration if self.scheme == "outcome" else None  # external sampling ignores it
        return {"algorithm": self.algorithm, "seed": self.seed, "exploration": exploration,
                "walker": type(self.walker).__qualname__, "abstraction": self.abstraction_name}

    def _entry(self, key: str, actions: list) -> list:
        entry = self.tables.get(key)
        if entry is None:
            entry = [[0.0] * len(actions), [0.0] * len(actions), list(actions)]
            self.tables[key] = entry
        elif len(entry[0]) != len(actions):
            raise ValueError(
                f"information-state key {key!r} was seen with {len(entry[0])} and {len(actions)} legal actions; "
                "an abstraction must only merge states with the same number of actions"
            )
        return entry

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations (one traversal per player each)."""
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        walker = self.walker
        for _ in range(iterations):
            for player in (0, 1):
                if self.scheme == "external":
                    self._external(walker.root(), player)
                else:
                    self._outcome(walker.root(), player, 1.0, 1.0, 1.0)
            self.iteration += 1

    def _next_decision(self, state):
        # Sample through chance nodes to the next terminal or decision state. Returns
        # (state, None) at a terminal, else (state, (acting player, legal actions, regrets,
        # cumulative policy, regret-matching policy)) with the acting player's table entry.
        # Both schemes sample chance on-policy, so its probability cancels out of their weights.
        walker = self.walker
        while not walker.is_terminal(state):
            if not walker.is_chance(state):
                acting = walker.current_player(state)
                actions = walker.legal_actions(state)
                regret, cum_policy, _ = self._entry(walker.infostate_key(state, acting), actions)
                return state, (acting, actions, regret, cum_policy, _regret_matching(regret))
            outcomes = walker.chance_outcomes(state)
            k = _sample(self.rng, [p for _, p in outcomes])
            state = walker.child(state, outcomes[k][0])
        return state, None

    def _external(self, state, player: int) -> float:
        walker = self.walker
        state, node = self._next_decision(state)
        if node is None:
            return walker.returns(state)[player]
        acting, actions, regret, cum_policy, policy = node
        if acting != player:
            for k, p in enumerate(policy):
                cum_policy[k] += p
            k = _sample(self.rng, policy)
            return self._external(walker.child(state, actions[k]), player)
        values = [self._external(walker.child(state, a), player) for a in actions]
        value = sum(p * v for p, v in zip(policy, values))
        for k, v in enumerate(values):
            regret[k] += v - value
        return value

    def _outcome(self, state, player: int, own_reach: float, other_reach: float, sample_reach: float) -> float:
        # Returns the sampled utility of `player` divided by the sampling
        # probability of the trajectory's tail below `state`.
        walker = self.walker
        state, node = self._next_decision(state)
        if node is None:
            return walker.returns(state)[player]
        acting, actions, regret, cum_policy, policy = node
        if acting == player:
            uniform = self.exploration / len(actions)
            sampling = [uniform + (1.0 - self.exploration) * p for p in policy]
        else:
            sampling = policy
        k = _sample(self.rng, sampling)
        q = sampling[k]
        if acting == player:
            child = self._outcome(walker.child(state, actions[k]), player, own_reach * policy[k], other_reach,
                                  sample_reach * q)
        else:
            child = self._outcome(walker.child(state, actions[k]), player, own_reach,
                                  other_reach * policy[k], sample_reach * q)
        # Unbiased action values: the sampled action's tail value over its probability, others 0.
        sampled_value = child / q
        value = policy[k] * sampled_value
        if acting == player:
            weight = other_reach / sample_reach
            for b in range(len(actions)):
                action_value = sampled_value if b == k else 0.0
                regret[b] += weight * (action_value - value)
            for b, p in enumerate(policy):
                cum_policy[b] += own_reach * p / sample_reach
        return value

    def average_policy(self) -> dict:
        """``key -> (action ids, probabilities)`` (uniform where nothing was accumulated)."""
        result = {}
        for key, (_, cum_policy, actions) in self.tables.items():
            total = sum(cum_policy)
            n = len(cum_policy)
            result[key] = (list(actions), [c / total for c in cum_policy] if total > 0.0 else [1.0 / n] * n)
        return result

    def state_arrays(self) -> dict:
        """Tables flattened for a checkpoint: keys, action offsets, regrets, cumulative policy."""
        keys = list(self.tables)
        offsets = np.zeros(len(keys) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(self.tables[k][0]) for k in keys])
        regret = np.array([r for k in keys for r in self.tables[k][0]], dtype=np.float64)
        cum_policy = np.array([c for k in keys for c in self.tables[k][1]], dtype=np.float64)
        actions = np.array([a for k in keys for a in self.tables[k][2]], dtype=np.int64)
        return {"keys": np.array(keys, dtype=np.str_), "offsets": offsets, "regret": regret,
                "cum_policy": cum_policy, "actions": actions,
                "rng_state": np.array(json.dumps(self.rng.bit_generator.state), dtype=np.str_)}

    def load_state(self, iteration: int, arrays: dict) -> None:
        """Replace tables, iteration and generator state; validated before anything changes."""
        keys = [str(k) for k in arrays["keys"]]
        offsets = np.asarray(arrays["offsets"], dtype=np.int64)
        regret = np.asarray(arrays["regret"], dtype=np.float64)
        cum_policy = np.asarray(arrays["cum_policy"], dtype=np.float64)
        actions = np.asarray(arrays["actions"], dtype=np.int64)
        if (offsets.shape != (len(keys) + 1,) or offsets[0] != 0 or np.any(np.diff(offsets) <= 0)
                or regret.shape != (offsets[-1],) or cum_policy.shape != regret.shape
                or actions.shape != regret.shape):
            raise ValueError("MCCFR state arrays are inconsistent (keys, offsets and table sizes disagree)")
        rng = np.random.default_rng()
        rng.bit_generator.state = json.loads(str(arrays["rng_state"]))
        tables = {}
        for i, key in enumerate(keys):
            lo, hi = offsets[i], offsets[i + 1]
            tables[key] = [regret[lo:hi].tolist(), cum_policy[lo:hi].tolist(), actions[lo:hi].tolist()]
        self.tables = tables
        self.rng = rng
        self.iteration = int(iteration)
