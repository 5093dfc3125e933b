"""Exact best response, policy value and exploitability on an extracted ``GameTree``.

A policy here is a float64 array of shape ``(tree.num_infoset_actions,)``
indexed like ``tree.infoset_actions`` (see ``gamut.solvers.cfr.extract``).

The best response of player ``p`` is computed bottom-up on counterfactual
values ``W(h) = sum_z pi_{-p}(h -> z) pi_{-p}(h) u_p(z)``. The best action of an
information set needs every history of the set, so nodes are processed by
``p``'s own depth (the number of ``p``'s actions above them), deepest first: by
perfect recall every history of a set has the same own depth, and every strict
descendant of ``p``'s node at own depth ``d`` has own depth ``d + 1`` or more.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.solvers.cfr.extract import CHANCE, DECISION, TERMINAL, GameTree


@numba.njit(cache=True)
def _opponent_reach(edge_start, edge_child, edge_prob, node_kind, node_player, node_infoset, action_start,
                    policy, player, reach, own_depth):
    # Top-down: reach of everyone but `player` (chance included) and `player`'s own depth.
    reach[0] = 1.0
    own_depth[0] = 0
    for n in range(node_kind.shape[0]):
        kind = node_kind[n]
        if kind == TERMINAL:
            continue
        first = edge_start[n]
        step = 1 if (kind == DECISION and node_player[n] == player) else 0
        for e in range(first, edge_start[n + 1]):
            c = edge_child[e]
            own_depth[c] = own_depth[n] + step
            if kind == CHANCE:
                reach[c] = reach[n] * edge_prob[e]
            elif node_player[n] == player:
                reach[c] = reach[n]
            else:
                reach[c] = reach[n] * policy[action_start[node_infoset[n]] + e - first]


@numba.njit(cache=True)
def _best_response(edge_start, edge_child, node_kind, node_player, node_infoset, node_utility, action_start,
                   player, reach, order, level_start, action_value, best, cf_value):
    # `order` lists nodes deepest own depth first, reverse preorder within a depth;
    # level_start[d] .. level_start[d + 1] is one depth.
    sign = 1.0 if player == 0 else -1.0
    for level in range(level_start.shape[0] - 1):
        lo = level_start[level]
        hi = level_start[level + 1]
        # Sum the counterfactual action values over all histories of each set of this depth.
        for j in range(lo, hi):
            n = order[j]
            if node_kind[n] == DECISION and node_player[n] == player:
                first = edge_start[n]
                base = action_start[node_infoset[n]] - first
                for e in range(first, edge_start[n + 1]):
                    action_value[base + e] += cf_value[edge_child[e]]
        for j in range(lo, hi):
            n = order[j]
            if node_kind[n] == DECISION and node_player[n] == player and best[node_infoset[n]] < 0:
                i = node_infoset[n]
                top = action_start[i]
                for k in range(action_start[i] + 1, action_start[i + 1]):
                    if action_value[k] > action_value[top]:
                        top = k
                best[i] = top - action_start[i]
        for j in range(lo, hi):
            n = order[j]
            kind = node_kind[n]
            if kind == TERMINAL:
                cf_value[n] = reach[n] * sign * node_utility[n]
            elif kind == DECISION and node_player[n] == player:
                cf_value[n] = cf_value[edge_child[edge_start[n] + best[node_infoset[n]]]]
            else:
                v = 0.0
                for e in range(edge_start[n], edge_start[n + 1]):
                    v += cf_value[edge_child[e]]
                cf_value[n] = v


@numba.njit(cache=True)
def value_pass(edge_start, edge_child, edge_prob, node_kind, node_infoset, node_utility, action_start,
               policy, value):
    """Player 0's expected return at every node under ``policy``, bottom-up into ``value``; returns the root's.

    ``value`` is a float64 buffer of shape ``(num_nodes,)``, written in place.
    """
    for n in range(node_kind.shape[0] - 1, -1, -1):
        kind = node_kind[n]
        if kind == TERMINAL:
            value[n] = node_utility[n]
            continue
        first = edge_start[n]
        v = 0.0
        if kind == CHANCE:
            for e in range(first, edge_start[n + 1]):
                v += edge_prob[e] * value[edge_child[e]]
        else:
            base = action_start[node_infoset[n]] - first
            for e in range(first, edge_start[n + 1]):
                v += policy[base + e] * value[edge_child[e]]
        value[n] = v
    return value[0]


def _checked_policy(tree: GameTree, policy) -> np.ndarray:
    policy = np.ascontiguousarray(policy, dtype=np.float64)
    if policy.shape != (tree.num_infoset_actions,):
        raise ValueError(f"policy must have shape ({tree.num_infoset_actions},), got {policy.shape}")
    return policy


def best_response(tree: GameTree, policy, player: int) -> tuple[float, np.ndarray]:
    """Value and actions of ``player``'s best response to ``policy``.

    Parameters
    ----------
    tree : GameTree
    policy : array_like, shape (num_infoset_actions,)
        Only the other player's entries matter.
    player : {0, 1}

    Returns
    -------
    value : float
        ``player``'s expected return when best-responding.
    best_action : ndarray, shape (num_infosets,), int32
        Index (within the set's actions) of the best action in each of
        ``player``'s sets; -1 for the other player's sets.
    """
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player}")
    policy = _checked_policy(tree, policy)
    reach = np.empty(tree.num_nodes)
    own_depth = np.empty(tree.num_nodes, dtype=np.int32)
    _opponent_reach(tree.edge_start, tree.edge_child, tree.edge_prob, tree.node_kind, tree.node_player,
                    tree.node_infoset, tree.infoset_action_start, policy, player, reach, own_depth)
    nodes = np.arange(tree.num_nodes)
    order = np.lexsort((-nodes, -own_depth)).astype(np.int32)
    counts = np.bincount(own_depth)[::-1]
    level_start = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    level_start[1:] = np.cumsum(counts)
    action_value = np.zeros(tree.num_infoset_actions)
    best = np.full(tree.num_infosets, -1, dtype=np.int32)
    cf_value = np.empty(tree.num_nodes)
    _best_response(tree.edge_start, tree.edge_child, tree.node_kind, tree.node_player, tree.node_infoset,
                   tree.node_utility, tree.infoset_action_start, player, reach, order, level_start,
                   action_value, best, cf_value)
    return float(cf_value[0]), best


def policy_value(tree: GameTree, policy) -> float:
    """Player 0's expected return when both players follow ``policy``."""
    policy = _checked_policy(tree, policy)
    value = np.empty(tree.num_nodes)
    return float(value_pass(tree.edge_start, tree.edge_child, tree.edge_prob, tree.node_kind,
                                 tree.node_infoset, tree.node_utility, tree.infoset_action_start, policy, value))


def exploitability(tree: GameTree, policy) -> float:
    """Mean over the two seats of the best response's gain: ``(br_0 + br_1) / 2``.

    Equals OpenSpiel's ``exploitability.exploitability`` (NashConv / 2) for a zero-sum game.
    """
    return 0.5 * (best_response(tree, policy, 0)[0] + best_response(tree, policy, 1)[0])
