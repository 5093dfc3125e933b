"""Sampled best response against the exact one on Kuhn poker."""

import numpy as np
import pyspiel
import pytest

from gamut.solvers.cfr.best_response import best_response, policy_value
from gamut.solvers.cfr.extract import extract_game
from gamut.solvers.cfr.policy_io import TabularStrategy
from gamut.solvers.cfr.sampled_best_response import sampled_best_response, sampled_exploitability
from gamut.solvers.cfr.tabular import TabularCFR


@pytest.fixture(scope="module")
def kuhn():
    game = pyspiel.load_game("kuhn_poker")
    tree = extract_game(game, report=None)
    solver = TabularCFR(tree, "cfr")
    solver.run(10)  # a clearly exploitable policy
    return game, tree, solver.average_policy()


def _responder_value(tree, policy, player, choice):
    """Exact value of the sampled responder (its choices, uniform where unseen) against ``policy``."""
    combined = policy.copy()
    for i in np.flatnonzero(tree.infoset_player == player):
        lo, hi = tree.infoset_action_start[i], tree.infoset_action_start[i + 1]
        combined[lo:hi] = 1.0 / (hi - lo)
        if tree.infoset_keys[i] in choice:
            combined[lo:hi] = 0.0
            combined[lo + choice[tree.infoset_keys[i]]] = 1.0
    return (1.0 if player == 0 else -1.0) * policy_value(tree, combined)


@pytest.mark.parametrize("player", [0, 1])
def test_responder_reaches_the_exact_best_response_and_estimate_covers_it(kuhn, player):
    game, tree, policy = kuhn
    strategy = TabularStrategy.from_tree(tree, policy)
    estimate, choice = sampled_best_response(game, strategy, player, train_iterations=2000, episodes=20_000, seed=3)
    exact = best_response(tree, policy, player)[0]
    responder = _responder_value(tree, policy, player, choice)
    assert responder == pytest.approx(exact, abs=1e-12)
    assert estimate.samples == 20_000
    # Within three standard errors (the estimate is unbiased; the seed fixes the draw).
    assert abs(estimate.mean - responder) < 3.0 * estimate.ci95 / 1.96
    assert 0.0 < estimate.ci95 < 0.03


def test_short_training_is_still_a_lower_bound(kuhn):
    game, tree, policy = kuhn
    strategy = TabularStrategy.from_tree(tree, policy)
    for player in (0, 1):
        _, choice = sampled_best_response(game, strategy, player, train_iterations=5, episodes=2, seed=0)
        assert _responder_value(tree, policy, player, choice) <= best_response(tree, policy, player)[0] + 1e-12


def test_equilibrium_has_near_zero_sampled_exploitability():
    game = pyspiel.load_game("kuhn_poker")
    tree = extract_game(game, report=None)
    solver = TabularCFR(tree, "cfr+")
    solver.run(1000)
    bound = sampled_exploitability(game, TabularStrategy.from_tree(tree, solver.average_policy()),
                                   train_iterations=500, episodes=10_000, seed=1)
    assert bound.samples == 20_000
    assert abs(bound.mean) < bound.ci95 + 1e-3


def test_same_seed_same_estimate(kuhn):
    game, tree, policy = kuhn
    strategy = TabularStrategy.from_tree(tree, policy)
    runs = [sampled_best_response(game, strategy, 1, 100, 500, seed=7) for _ in range(2)]
    assert runs[0] == runs[1]


def test_rejects_bad_arguments(kuhn):
    game, tree, policy = kuhn
    strategy = TabularStrategy.from_tree(tree, policy)
    with pytest.raises(ValueError, match="player"):
        sampled_best_response(game, strategy, 2)
    with pytest.raises(ValueError, match="episodes"):
        sampled_best_response(game, strategy, 0, episodes=1)
