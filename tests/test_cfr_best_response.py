"""Exact best response on the extracted tree against slow, obvious references."""

import itertools

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as openspiel_policy
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability as openspiel_exploitability

from gamut.solvers.cfr.best_response import best_response, exploitability, policy_value
from gamut.solvers.cfr.extract import CHANCE, TERMINAL, extract_game


def _random_policies(tree, rng, count):
    """``count`` random policies, shape (count, num_infoset_actions), some with zero entries."""
    raw = rng.random((count, tree.num_infoset_actions)) ** 3
    raw[rng.random(raw.shape) < 0.1] = 0.0
    sums = np.add.reduceat(raw, tree.infoset_action_start[:-1], axis=1)
    sizes = np.diff(tree.infoset_action_start)
    empty = np.repeat(sums == 0.0, sizes, axis=1)
    raw[empty] = 1.0
    sums = np.add.reduceat(raw, tree.infoset_action_start[:-1], axis=1)
    return raw / np.repeat(sums, sizes, axis=1)


def _terminal_paths(tree):
    """For each terminal: chance probability, player-0 utility and the (player, flat action) steps on its path."""
    out = []
    for z in np.flatnonzero(tree.node_kind == TERMINAL):
        chance, steps, node = 1.0, [], z
        while tree.node_parent[node] >= 0:
            parent = tree.node_parent[node]
            first = tree.edge_start[parent]
            edge = first + int(np.flatnonzero(tree.edge_child[first:tree.edge_start[parent + 1]] == node)[0])
            if tree.node_kind[parent] == CHANCE:
                chance *= tree.edge_prob[edge]
            else:
                i = tree.node_infoset[parent]
                steps.append((int(tree.node_player[parent]), i, int(tree.infoset_action_start[i] + edge - first)))
            node = parent
        out.append((chance, tree.node_utility[z], steps))
    return out


def _pure_strategy_best_responses(tree, policies, player):
    """Best-response values by enumerating every pure strategy of ``player`` (vectorized over policies)."""
    paths = _terminal_paths(tree)
    own_sets = [i for i in range(tree.num_infosets) if tree.infoset_player[i] == player]
    sign = 1.0 if player == 0 else -1.0
    # Weighted terminal payoffs: chance * opponent reach * utility, shape (num_policies, num_terminals).
    weights = np.empty((policies.shape[0], len(paths)))
    for t, (chance, utility, steps) in enumerate(paths):
        column = np.full(policies.shape[0], chance * sign * utility)
        for acting, _, flat in steps:
            if acting != player:
                column *= policies[:, flat]
        weights[:, t] = column
    sizes = [int(tree.infoset_action_start[i + 1] - tree.infoset_action_start[i]) for i in own_sets]
    plays = np.zeros((int(np.prod(sizes)), len(paths)))
    for s, choice in enumerate(itertools.product(*[range(n) for n in sizes])):
        chosen = {tree.infoset_action_start[i] + c for i, c in zip(own_sets, choice)}
        for t, (_, _, steps) in enumerate(paths):
            plays[s, t] = all(flat in chosen for acting, _, flat in steps if acting == player)
    return (weights @ plays.T).max(axis=1)


@pytest.fixture(scope="module")
def kuhn():
    return extract_game("kuhn_poker", report=None)


@pytest.mark.slow
def test_best_response_matches_pure_strategy_enumeration_on_100000_policies(kuhn):
    rng = np.random.default_rng(20261129)
    policies = _random_policies(kuhn, rng, 50_000)
    for player in (0, 1):
        expected = _pure_strategy_best_responses(kuhn, policies, player)
        ours = np.array([best_response(kuhn, p, player)[0] for p in policies])
        np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-12)


def _tabular(game, tree, policy):
    tabular = openspiel_policy.TabularPolicy(game)
    for i, key in enumerate(tree.infoset_keys):
        lo, hi = tree.infoset_action_start[i], tree.infoset_action_start[i + 1]
        row = tabular.state_lookup[key]
        tabular.action_probability_array[row] = 0.0
        tabular.action_probability_array[row, tree.infoset_actions[lo:hi]] = policy[lo:hi]
    return tabular


@pytest.mark.parametrize("game_name,count", [("kuhn_poker", 200), ("leduc_poker", 15)])
@pytest.mark.slow
def test_exploitability_and_value_match_openspiel(game_name, count):
    game = pyspiel.load_game(game_name)
    tree = extract_game(game, report=None)
    rng = np.random.default_rng(7)
    for policy in _random_policies(tree, rng, count):
        tabular = _tabular(game, tree, policy)
        assert exploitability(tree, policy) == pytest.approx(
            openspiel_exploitability.exploitability(game, tabular), abs=1e-12)
        expected_value = expected_game_score.policy_value(game.new_initial_state(), [tabular, tabular])[0]
        assert policy_value(tree, policy) == pytest.approx(expected_value, abs=1e-12)


def test_best_actions_achieve_the_best_response_value():
    tree = extract_game("leduc_poker", report=None)
    rng = np.random.default_rng(3)
    for policy in _random_policies(tree, rng, 5):
        for player in (0, 1):
            value, best = best_response(tree, policy, player)
            combined = policy.copy()
            for i in np.flatnonzero(tree.infoset_player == player):
                lo, hi = tree.infoset_action_start[i], tree.infoset_action_start[i + 1]
                combined[lo:hi] = 0.0
                combined[lo + best[i]] = 1.0
            sign = 1.0 if player == 0 else -1.0
            assert sign * policy_value(tree, combined) == pytest.approx(value, abs=1e-12)
            assert np.all(best[tree.infoset_player != player] == -1)


def test_rejects_bad_arguments(kuhn):
    with pytest.raises(ValueError, match="shape"):
        exploitability(kuhn, np.full(5, 0.5))
    with pytest.raises(ValueError, match="player"):
        best_response(kuhn, np.full(kuhn.num_infoset_actions, 0.5), 2)
