"""Full-width CFR, CFR+, discounted CFR and linear CFR as Numba kernels on a ``GameTree``.

The update schemes match OpenSpiel's Python solvers (``open_spiel.python.algorithms.cfr``
and ``discounted_cfr``) and its C++ ``CFRSolver``/``CFRPlusSolver`` exactly, down
to the order in which terms are summed, so average policies agree to the last
bits even after hundreds of iterations (regret matching+ would otherwise turn
rounding differences into different policies):

- ``cfr``: regret matching, uniform averaging (``CFRSolver``);
- ``cfr+``: regret matching+ (negative cumulative regrets reset to zero after
  each player's update), averaging weighted by the iteration ``t`` (``CFRPlusSolver``);
- ``dcfr``: after player ``p``'s update its positive cumulative regrets are
  multiplied by ``t^alpha / (t^alpha + 1)``, negative ones by
  ``t^beta / (t^beta + 1)``, and iteration ``t`` enters the average with weight
  ``t^gamma`` (``DCFRSolver``; defaults alpha=1.5, beta=0, gamma=2);
- ``linear``: DCFR with alpha = beta = gamma = 1 (``LCFRSolver``).

All four use alternating updates by default: player 0 is updated with a full
tree pass, the current policy is recomputed, then player 1 is updated against
player 0's new policy. ``alternating=False`` gives simultaneous updates (both
players from one pass), like OpenSpiel's ``_CFRSolver(alternating_updates=False)``.

Per-action tables (regrets, cumulative policy, current policy) are float64
arrays of shape ``(tree.num_infoset_actions,)`` indexed like
``tree.infoset_actions``.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.solvers.cfr.best_response import value_pass
from gamut.solvers.cfr.extract import CHANCE, DECISION, TERMINAL, GameTree

ALGORITHMS = ("cfr", "cfr+", "dcfr", "linear")

# algorithm -> (regret matching+, discount cumulative regrets)
_SCHEMES = {"cfr": (False, False), "cfr+": (True, False), "dcfr": (False, True), "linear": (False, True)}


@numba.njit(cache=True)
def _regret_matching(regret, policy, action_start, infoset_player, player):
    # Recompute the current policy of `player`'s sets (player < 0: all sets).
    for i in range(action_start.shape[0] - 1):
        if player >= 0 and infoset_player[i] != player:
            continue
        lo = action_start[i]
        hi = action_start[i + 1]
        total = 0.0
        for k in range(lo, hi):
            if regret[k] > 0.0:
                total += regret[k]
        if total > 0.0:
            for k in range(lo, hi):
                policy[k] = regret[k] / total if regret[k] > 0.0 else 0.0
        else:
            for k in range(lo, hi):
                policy[k] = 1.0 / (hi - lo)


@numba.njit(cache=True)
def _reach_pass(edge_start, edge_child, edge_prob, node_kind, node_player, node_infoset, action_start,
                policy, reach0, reach1, reachc):
    # Top-down: reach probability of each node for player 0, player 1 and chance.
    reach0[0] = 1.0
    reach1[0] = 1.0
    reachc[0] = 1.0
    for n in range(node_kind.shape[0]):
        kind = node_kind[n]
        if kind == TERMINAL:
            continue
        first = edge_start[n]
        for e in range(first, edge_start[n + 1]):
            c = edge_child[e]
            reach0[c] = reach0[n]
            reach1[c] = reach1[n]
            reachc[c] = reachc[n]
            if kind == CHANCE:
                reachc[c] *= edge_prob[e]
            else:
                prob = policy[action_start[node_infoset[n]] + e - first]
                if node_player[n] == 0:
                    reach0[c] *= prob
                else:
                    reach1[c] *= prob


@numba.njit(cache=True)
def _update_pass(edge_start, edge_child, node_kind, node_player, node_infoset, action_start, policy, regret,
                 cum_policy, reach0, reach1, reachc, value, player, weight, weight_last):
    # Adds the counterfactual regrets and average-policy terms of `player`'s
    # nodes (player < 0: both players). Histories are visited in preorder so
    # that each table entry sums its terms in the same order as OpenSpiel's
    # recursive solvers: regret matching+ turns last-bit differences into
    # different policies, so the order matters for agreement over long runs.
    for n in range(node_kind.shape[0]):
        if node_kind[n] != DECISION:
            continue
        acting = node_player[n]
        if player >= 0 and acting != player:
            continue
        if acting == 0:
            own = reach0[n]
            other = reach1[n]
            sign = 1.0
        else:
            own = reach1[n]
            other = reach0[n]
            sign = -1.0
        if own == 0.0 and other == 0.0:
            continue  # unreachable for both players: no term (OpenSpiel prunes these)
        counterfactual = other * reachc[n]
        v = value[n]
        first = edge_start[n]
        base = action_start[node_infoset[n]] - first
        for e in range(first, edge_start[n + 1]):
            k = base + e
            regret[k] += counterfactual * sign * (value[edge_child[e]] - v)
            # Same multiplication order as the reference solvers (last-bit agreement).
            if weight_last:
                cum_policy[k] += own * policy[k] * weight
            else:
                cum_policy[k] += weight * own * policy[k]


@numba.njit(cache=True)
def _post_update(regret, action_start, infoset_player, player, rm_plus, discount, positive_scale, negative_scale):
    for i in range(infoset_player.shape[0]):
        if player >= 0 and infoset_player[i] != player:
            continue
        for k in range(action_start[i], action_start[i + 1]):
            if discount:
                regret[k] *= positive_scale if regret[k] >= 0.0 else negative_scale
            if rm_plus and regret[k] < 0.0:
                regret[k] = 0.0


@numba.njit(cache=True)
def _cfr_iterations(edge_start, edge_child, edge_prob, node_kind, node_player, node_infoset, node_utility,
                    action_start, infoset_player, regret, cum_policy, policy,
                    reach0, reach1, reachc, value, first_iteration, num_iterations,
                    alternating, rm_plus, discount, alpha, beta, gamma):
    for t in range(first_iteration, first_iteration + num_iterations):
        weight = float(t) ** gamma
        positive_scale = t ** alpha / (t ** alpha + 1.0)
        negative_scale = t ** beta / (t ** beta + 1.0)
        for pass_index in range(2 if alternating else 1):
            player = pass_index if alternating else -1
            _reach_pass(edge_start, edge_child, edge_prob, node_kind, node_player, node_infoset, action_start,
                        policy, reach0, reach1, reachc)
            value_pass(edge_start, edge_child, edge_prob, node_kind, node_infoset, node_utility, action_start,
                        policy, value)
            _update_pass(edge_start, edge_child, node_kind, node_player, node_infoset, action_start, policy,
                         regret, cum_policy, reach0, reach1, reachc, value, player, weight, discount)
            _post_update(regret, action_start, infoset_player, player, rm_plus, discount,
                         positive_scale, negative_scale)
            _regret_matching(regret, policy, action_start, infoset_player, player)


@numba.njit(cache=True)
def _normalize_average(cum_policy, action_start, out):
    for i in range(action_start.shape[0] - 1):
        lo = action_start[i]
        hi = action_start[i + 1]
        total = 0.0
        for k in range(lo, hi):
            total += cum_policy[k]
        for k in range(lo, hi):
            out[k] = cum_policy[k] / total if total > 0.0 else 1.0 / (hi - lo)


def average_policy_from_cumulative(tree: GameTree, cum_policy: np.ndarray) -> np.ndarray:
    """Normalize a cumulative policy per information set (uniform where it sums to 0).

    Returns a new float64 array of shape ``(tree.num_infoset_actions,)``.
    """
    cum_policy = np.ascontiguousarray(cum_policy, dtype=np.float64)
    if cum_policy.shape != (tree.num_infoset_actions,):
        raise ValueError(f"cum_policy must have shape ({tree.num_infoset_actions},), got {cum_policy.shape}")
    out = np.empty_like(cum_policy)
    _normalize_average(cum_policy, tree.infoset_action_start, out)
    return out


class TabularCFR:
    """Full-width CFR-family solver over an extracted ``GameTree``.

    Parameters
    ----------
    tree : GameTree
    algorithm : {"cfr", "cfr+", "dcfr", "linear"}
    alpha, beta, gamma : float
        DCFR discount parameters (used by ``dcfr`` only; ``linear`` fixes them to 1).
    alternating : bool
        Alternating (default, as OpenSpiel) or simultaneous updates.

    Examples
    --------
    >>> from gamut.solvers.cfr.extract import extract_game
    >>> solver = TabularCFR(extract_game("kuhn_poker", report=None), "cfr+")
    >>> solver.run(1000)
    >>> policy = solver.average_policy()   # shape (24,), indexed like tree.infoset_actions
    """

    def __init__(self, tree: GameTree, algorithm: str = "cfr+", alpha: float = 1.5, beta: float = 0.0,
                 gamma: float = 2.0, alternating: bool = True):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown tabular algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
        self.tree = tree
        self.game_string = tree.game_string
        self.algorithm = algorithm
        self.alternating = bool(alternating)
        self.rm_plus, self.discount = _SCHEMES[algorithm]
        if algorithm == "dcfr":
            self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)
        elif algorithm == "cfr":
            self.alpha, self.beta, self.gamma = 0.0, 0.0, 0.0
        else:
            self.alpha, self.beta, self.gamma = 1.0, 1.0, 1.0
        size = tree.num_infoset_actions
        self.iteration = 0
        self.regret = np.zeros(size)
        self.cum_policy = np.zeros(size)
        self.policy = np.empty(size)
        _regret_matching(self.regret, self.policy, tree.infoset_action_start, tree.infoset_player, -1)
        # Scratch buffers reused by every iteration (the kernels allocate nothing).
        self._reach0 = np.empty(tree.num_nodes)
        self._reach1 = np.empty(tree.num_nodes)
        self._reachc = np.empty(tree.num_nodes)
        self._value = np.empty(tree.num_nodes)

    def config(self) -> dict:
        """Settings that a resumed run must share with the run that wrote the checkpoint."""
        return {"algorithm": self.algorithm, "alpha": self.alpha, "beta": self.beta, "gamma": self.gamma,
                "alternating": self.alternating, **self.tree.fingerprint()}

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations in place."""
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        tree = self.tree
        _cfr_iterations(tree.edge_start, tree.edge_child, tree.edge_prob, tree.node_kind, tree.node_player,
                        tree.node_infoset, tree.node_utility, tree.infoset_action_start, tree.infoset_player,
                        self.regret, self.cum_policy, self.policy,
                        self._reach0, self._reach1, self._reachc, self._value,
                        self.iteration + 1, int(iterations), self.alternating, self.rm_plus, self.discount,
                        self.alpha, self.beta, self.gamma)
        self.iteration += int(iterations)

    def average_policy(self) -> np.ndarray:
        """The normalized average policy, shape ``(num_infoset_actions,)`` (a new array)."""
        return average_policy_from_cumulative(self.tree, self.cum_policy)

    def current_policy(self) -> np.ndarray:
        """A copy of the current (regret-matching) policy."""
        return self.policy.copy()

    def state_arrays(self) -> dict:
        """The arrays that define the solver's state (for checkpoints)."""
        return {"regret": self.regret, "cum_policy": self.cum_policy, "policy": self.policy}

    def load_state(self, iteration: int, arrays: dict) -> None:
        """Replace the solver state; arrays are validated before anything changes."""
        size = self.tree.num_infoset_actions
        checked = {}
        for name in ("regret", "cum_policy", "policy"):
            array = np.asarray(arrays[name], dtype=np.float64)
            if array.shape != (size,):
                raise ValueError(f"state array {name!r} has shape {array.shape}, expected ({size},)")
            checked[name] = array.copy()
        self.regret, self.cum_policy, self.policy = checked["regret"], checked["cum_policy"], checked["policy"]
        self.iteration = int(iteration)
