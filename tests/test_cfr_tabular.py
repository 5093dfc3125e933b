"""Tabular CFR kernels against OpenSpiel's own Python solvers (the slow reference)."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as openspiel_policy
from open_spiel.python.algorithms import cfr, discounted_cfr
from open_spiel.python.algorithms import exploitability as openspiel_exploitability

from gamut.solvers.cfr.best_response import exploitability, policy_value
from gamut.solvers.cfr.extract import extract_game
from gamut.solvers.cfr.tabular import TabularCFR, average_policy_from_cumulative


def _reference(game, algorithm):
    if algorithm == "cfr":
        return cfr.CFRSolver(game)
    if algorithm == "cfr+":
        return cfr.CFRPlusSolver(game)
    if algorithm == "dcfr":
        return discounted_cfr.DCFRSolver(game)
    if algorithm == "linear":
        return discounted_cfr.LCFRSolver(game)
    return cfr._CFRSolver(game, alternating_updates=False, linear_averaging=False, regret_matching_plus=False)


def _array_from_tabular(tree, tabular):
    out = np.empty(tree.num_infoset_actions)
    for i, key in enumerate(tree.infoset_keys):
        lo, hi = tree.infoset_action_start[i], tree.infoset_action_start[i + 1]
        out[lo:hi] = tabular.action_probability_array[tabular.state_lookup[key], tree.infoset_actions[lo:hi]]
    return out


def _compare(game_name, algorithm, iterations):
    game = pyspiel.load_game(game_name)
    tree = extract_game(game, report=None)
    ours = TabularCFR(tree, "cfr" if algorithm == "simultaneous" else algorithm,
                      alternating=algorithm != "simultaneous")
    reference = _reference(game, algorithm)
    for _ in range(iterations):
        ours.run(1)
        reference.evaluate_and_update_policy()
        # Current policies agree after every iteration, not only at the end (to rounding:
        # DCFR's t^2 weights magnify last-bit differences in summation order).
        np.testing.assert_allclose(ours.policy, _array_from_tabular(tree, reference.current_policy()),
                                   rtol=0, atol=1e-10)
    average = ours.average_policy()
    theirs = reference.average_policy()
    np.testing.assert_allclose(average, _array_from_tabular(tree, theirs), rtol=0, atol=1e-10)
    assert abs(exploitability(tree, average) - openspiel_exploitability.exploitability(game, theirs)) < 1e-9


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "dcfr", "linear", "simultaneous"])
def test_matches_openspiel_on_kuhn(algorithm):
    _compare("kuhn_poker", algorithm, 60)


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["cfr", "cfr+"])
def test_matches_openspiel_on_leduc(algorithm):
    _compare("leduc_poker", algorithm, 12)


def test_matches_openspiel_dcfr_on_leduc():
    _compare("leduc_poker", "dcfr", 3)


@pytest.fixture(scope="module")
def kuhn():
    return extract_game("kuhn_poker", report=None)


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "dcfr", "linear"])
def test_kuhn_converges_to_game_value(kuhn, algorithm):
    solver = TabularCFR(kuhn, algorithm)
    solver.run(1000)
    average = solver.average_policy()
    assert exploitability(kuhn, average) < 1e-3
    assert abs(policy_value(kuhn, average) - (-1.0 / 18.0)) < 2e-3


@pytest.mark.parametrize(
    "game_name,algorithm,expected",
    # Reference exploitabilities after 1,000 iterations (OpenSpiel's solvers).
    [("kuhn_poker", "cfr", 9.4e-4), ("kuhn_poker", "cfr+", 8.7e-5), ("leduc_poker", "cfr", 0.0118)],
)
def test_reference_exploitabilities_after_1000_iterations(game_name, algorithm, expected):
    tree = extract_game(game_name, report=None)
    solver = TabularCFR(tree, algorithm)
    solver.run(1000)
    assert exploitability(tree, solver.average_policy()) == pytest.approx(expected, rel=0.02)


def test_leduc_cfr_plus_reaches_reference_level():
    tree = extract_game("leduc_poker", report=None)
    solver = TabularCFR(tree, "cfr+")
    solver.run(1000)
    assert exploitability(tree, solver.average_policy()) == pytest.approx(2.5715e-4, rel=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["cfr", "cfr+"])
def test_matches_openspiel_cpp_solvers_over_a_long_run(algorithm):
    # Regret matching+ turns last-bit differences into different policies, so
    # agreement after hundreds of iterations needs the same summation order.
    game = pyspiel.load_game("leduc_poker")
    tree = extract_game(game, report=None)
    ours = TabularCFR(tree, algorithm)
    theirs = pyspiel.CFRSolver(game) if algorithm == "cfr" else pyspiel.CFRPlusSolver(game)
    ours.run(300)
    for _ in range(300):
        theirs.evaluate_and_update_policy()
    average = theirs.average_policy()
    expected = np.empty(tree.num_infoset_actions)
    for i, key in enumerate(tree.infoset_keys):
        lo, hi = tree.infoset_action_start[i], tree.infoset_action_start[i + 1]
        probs = dict(average.get_state_policy(key))
        expected[lo:hi] = [probs[a] for a in tree.infoset_actions[lo:hi]]
    np.testing.assert_allclose(ours.average_policy(), expected, rtol=0, atol=1e-12)
    assert abs(exploitability(tree, ours.average_policy()) - pyspiel.exploitability(game, average)) < 1e-9


def test_chunked_runs_equal_one_run_bit_for_bit(kuhn):
    whole = TabularCFR(kuhn, "dcfr")
    whole.run(50)
    chunked = TabularCFR(kuhn, "dcfr")
    for size in (1, 7, 0, 20, 22):
        chunked.run(size)
    assert chunked.iteration == whole.iteration == 50
    for name, array in whole.state_arrays().items():
        assert np.array_equal(array, chunked.state_arrays()[name]), name


def test_average_policy_normalization(kuhn):
    cumulative = np.zeros(kuhn.num_infoset_actions)
    cumulative[0:2] = [1.0, 3.0]
    average = average_policy_from_cumulative(kuhn, cumulative)
    assert average[0:2].tolist() == [0.25, 0.75]
    assert np.all(average[2:] == 0.5)
    with pytest.raises(ValueError, match="shape"):
        average_policy_from_cumulative(kuhn, cumulative[:-1])


def test_rejects_unknown_algorithm_and_negative_iterations(kuhn):
    with pytest.raises(ValueError, match="cfr\\+"):
        TabularCFR(kuhn, "cfr++")
    with pytest.raises(ValueError, match="iterations"):
        TabularCFR(kuhn, "cfr").run(-1)


def test_uniform_policy_before_any_iteration(kuhn):
    tabular = openspiel_policy.TabularPolicy(pyspiel.load_game("kuhn_poker"))
    assert np.array_equal(TabularCFR(kuhn, "cfr+").current_policy(), _array_from_tabular(kuhn, tabular))


def _blockwise_reference(weights, starts):
    """Per-set normalization of non-negative weights (uniform where a set sums to 0), vectorized."""
    sizes = np.diff(starts)
    sums = np.repeat(np.add.reduceat(weights, starts[:-1], axis=1), sizes, axis=1)
    uniform = np.broadcast_to(np.repeat(1.0 / sizes, sizes), weights.shape)
    return np.where(sums > 0, weights / np.where(sums > 0, sums, 1.0), uniform)


def test_regret_matching_and_normalization_kernels_on_random_tables():
    """Random tables: 10,000 over Kuhn's 12 sets and 60 over Leduc's 936 (176,160 sets)."""
    from gamut.solvers.cfr.tabular import _normalize_average, _regret_matching

    for game_name, count in (("kuhn_poker", 10_000), ("leduc_poker", 60)):
        tree = extract_game(game_name, report=None)
        rng = np.random.default_rng(99)
        tables = rng.normal(size=(count, tree.num_infoset_actions))
        tables[rng.random(tables.shape) < 0.3] = 0.0
        starts = tree.infoset_action_start
        policies = np.empty_like(tables)
        averages = np.empty_like(tables)
        for row, regret in enumerate(tables):
            _regret_matching(regret, policies[row], starts, tree.infoset_player, -1)
            _normalize_average(np.abs(regret), starts, averages[row])
        np.testing.assert_allclose(policies, _blockwise_reference(np.maximum(tables, 0.0), starts), rtol=1e-15, atol=0)
        np.testing.assert_allclose(averages, _blockwise_reference(np.abs(tables), starts), rtol=1e-15, atol=0)
