"""Dantzig-Wolfe bound of the arrangement problem: the exact side solver against brute force, the bound's validity."""

from itertools import combinations, permutations

import numpy as np
import pytest

import gamut.envs  # noqa: F401
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares import partition as P
from gamut.solvers.poker_squares.bounds import anneal
from gamut.solvers.poker_squares.duality import duality_bound, penalized_weights, positions_grid
from gamut.solvers.poker_squares.evaluation import deals
from gamut.solvers.poker_squares.partition_bnp import bnp_bound, forbidden_sets
from gamut.solvers.poker_squares.partition_dw import SideLP, best_partition, dw_bound, gather_sums
from gamut.solvers.poker_squares.penalty_table import load_penalty_values

AMERICAN = (0, 2, 5, 10, 15, 20, 25, 50, 75, 100)
CFG = K.make_config(1, False, False, AMERICAN)
IDENTITY = np.arange(25)


def _all_partitions(items):
    """Every partition of ``items`` (a sorted tuple) into five-sets, each as a list of sorted tuples."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for others in combinations(rest, 4):
        left = tuple(x for x in rest if x not in others)
        for tail in _all_partitions(left):
            yield [(first, *others)] + tail


@pytest.mark.parametrize("n, seed", [(10, 0), (10, 1), (15, 2), (15, 3)])
def test_best_partition_matches_brute_force(n, seed):
    rng = np.random.default_rng(seed)
    sets = np.array(list(combinations(range(n), 5)), dtype=np.int64)
    index = {tuple(s): j for j, s in enumerate(sets.tolist())}
    # Integer-valued sets, with ties and a few very good sets, so the LP is fractional and the gap doubles.
    values = rng.integers(-20, 5, len(sets)).astype(np.float64)
    values[rng.choice(len(sets), 6, replace=False)] += 30
    expected = max(sum(values[index[s]] for s in part) for part in _all_partitions(tuple(range(n))))
    value, ids = best_partition(values, sets=sets, n=n)
    assert value == expected
    assert sorted(sets[ids].reshape(-1).tolist()) == list(range(n))
    assert values[ids].sum() == expected
    # A warm side LP gives the same answers as the values change, whichever simplex method resumes it.
    lps = [SideLP(sets, n, simplex) for simplex in ("primal", "dual")]
    for _ in range(3):
        values = rng.normal(size=len(sets)) * 10
        expected = max(sum(values[index[s]] for s in part) for part in _all_partitions(tuple(range(n))))
        for lp in lps:
            assert best_partition(values, lp, sets=sets, n=n)[0] == pytest.approx(expected, abs=1e-9)


def test_best_partition_names_bad_input():
    sets = np.array(list(combinations(range(10), 5)), dtype=np.int64)
    with pytest.raises(ValueError, match="values must be"):
        best_partition(np.zeros(5), sets=sets, n=10)
    only_with_zero = sets[sets[:, 0] == 0][:1]  # {0..4} alone cannot cover 5..9
    with pytest.raises(ValueError, match="no partition"):
        best_partition(np.zeros(1), sets=only_with_zero, n=10)
    with pytest.raises(ValueError, match=r"simplex is one of \('primal', 'dual'\), not 'barrier'"):
        SideLP(sets, 10, "barrier")


def _restricted(seed):
    """Weights allowing only the lines of grids that permute 5 cells of the identity grid; the optimum."""
    rng = np.random.default_rng(seed)
    cells = rng.choice(25, 5, replace=False)
    grids = []
    for perm in permutations(cells):
        grid = IDENTITY.copy()
        grid[cells] = grid[list(perm)]
        grids.append(grid)
    allowed = [set(), set()]
    for grid in grids:
        rows, cols = P.grid_sets(grid)
        allowed[0].update(rows)
        allowed[1].update(cols)
    weights = np.full((2, P.NUM_SETS), -1000.0)
    for side in range(2):
        ids = sorted(allowed[side])
        weights[side, ids] = rng.integers(0, 20, len(ids))
    # Every arrangement of the allowed lines is one of these grids' row sets with another's column sets.
    best = -np.inf
    row_sets = {tuple(sorted(P.grid_sets(g)[0])) for g in grids}
    col_sets = {tuple(sorted(P.grid_sets(g)[1])) for g in grids}
    for rows in row_sets:
        for cols in col_sets:
            try:
                P.grid_from_sets(rows, cols)
            except ValueError:
                continue
            best = max(best, weights[0, list(rows)].sum() + weights[1, list(cols)].sum())
    return weights, best


@pytest.mark.parametrize("seed", range(3))
def test_dw_bound_is_valid_and_exact_on_restricted_families(seed):
    weights, expected = _restricted(seed)
    res = dw_bound(weights, IDENTITY)
    assert res["upper"] >= expected - 1e-6
    assert res["value"] <= expected + 1e-9
    assert res["value"] == pytest.approx(P.arrangement_value(weights, res["grid"]))
    lp = P.partition_bound(weights, IDENTITY, time_limit=20.0)["lp"]
    assert res["upper"] <= lp + 1e-6
    assert res["converged"]


def test_gather_sums_is_the_numpy_gather():
    rng = np.random.default_rng(5)
    x = rng.normal(size=300)
    assert np.allclose(gather_sums(P.SET_PAIRS[:2000], x), x[P.SET_PAIRS[:2000]].sum(axis=1))
    assert np.allclose(gather_sums(np.array([[0, 2], [1, 2]]), np.array([1.0, 10.0, 100.0])), [101.0, 110.0])


def test_dw_bound_from_a_pool_and_warm_sides_reaches_the_same_bound():
    weights, expected = _restricted(1)
    cold = dw_bound(weights, IDENTITY)
    # A pool of the cold solve's partitions, re-solved under shifted weights against a fresh solve of those.
    shifted = weights - 0.3 * np.random.default_rng(0).random(weights.shape)
    fresh = dw_bound(shifted, IDENTITY)
    warm = dw_bound(shifted, IDENTITY, pool=cold["columns"], sides=cold["sides"])
    assert fresh["converged"] and warm["converged"]
    assert warm["upper"] == pytest.approx(fresh["upper"], abs=1e-6)
    assert warm["iterations"] <= fresh["iterations"]
    again = dw_bound(weights, IDENTITY, pool=cold["columns"])
    assert again["upper"] == pytest.approx(cold["upper"], abs=1e-6) and again["iterations"] < cold["iterations"]
    with pytest.raises(ValueError, match="pool holds"):
        dw_bound(weights, IDENTITY, pool=[(2, np.arange(5))])


def test_dw_bound_is_between_the_relaxed_arrangement_and_the_lp_on_real_deals():
    values = load_penalty_values("american")
    for i, deal in enumerate(deals(14, 2)):
        grid = anneal(deal, CFG, iterations=5000, restarts=1, seed=i)[1]
        res = duality_bound(deal, CFG, values, 1.5, grid, time_limit=10.0, inner="dw")
        lp = duality_bound(deal, CFG, values, 1.5, grid, time_limit=10.0, inner="lp")
        assert np.isnan(lp["dw_upper"]) and lp["upper"] == lp["lp_upper"]
        assert res["value"] <= res["upper"] <= res["lp_upper"] + 1e-6
        assert res["upper"] <= res["dw_upper"] + 1e-9
        assert res["lp_upper"] == pytest.approx(lp["lp_upper"], abs=1e-6)
        # The bound is on the relaxed problem: no arrangement, annealed at length, exceeds it.
        weights = penalized_weights(deal, CFG, values, 1.5)
        found, _ = P.anneal_sets(weights, positions_grid(deal, grid), iterations=200_000, restarts=3, seed=i,
                                 temp_start=1.5, temp_end=0.3)
        assert found <= res["upper"] + 1e-6
    with pytest.raises(ValueError, match="inner must be"):
        duality_bound(deal, CFG, values, 1.5, grid, inner="mip")
    # Branch and price from the same start: its root is the Dantzig-Wolfe bound, and it only goes lower.
    bnp = duality_bound(deal, CFG, values, 1.5, grid, inner="bnp", nodes=4)
    assert np.isnan(bnp["lp_upper"]) and bnp["dw_upper"] == pytest.approx(res["dw_upper"], abs=1e-5)
    assert bnp["value"] <= bnp["upper"] <= bnp["dw_upper"] + 1e-9 and bnp["nodes"] <= 6
    assert bnp["score"] - bnp["penalty"] == pytest.approx(bnp["value"])


def test_forbidden_sets_follow_the_pair_status():
    bad = forbidden_sets({0: "row"})  # pair {0, 1}
    split, both = P._SET_ID[(0, 2, 3, 4, 5)], P._SET_ID[(0, 1, 2, 3, 4)]
    assert bad[0, split] and not bad[0, both] and bad[1, both] and not bad[1, split]
    neither = forbidden_sets({0: "neither"})
    assert neither[0, both] and neither[1, both] and not neither[0, split]
    assert not forbidden_sets({}).any()
    with pytest.raises(ValueError, match="status is one of"):
        forbidden_sets({0: "diagonal"})


@pytest.mark.parametrize("seed", range(2))
def test_branch_and_price_is_valid_never_above_the_root_and_one_node_is_dw(seed):
    weights, expected = _restricted(seed)
    res = bnp_bound(weights, IDENTITY, max_nodes=13)
    assert expected - 1e-6 <= res["upper"] <= res["root"] + 1e-9
    assert res["value"] <= expected + 1e-9
    assert res["value"] == pytest.approx(P.arrangement_value(weights, res["grid"]))
    assert bnp_bound(weights, IDENTITY, max_nodes=1)["upper"] == pytest.approx(dw_bound(weights, IDENTITY)["upper"])
    with pytest.raises(ValueError, match="max_nodes"):
        bnp_bound(weights, IDENTITY, max_nodes=0)


def test_branch_and_price_lowers_the_bound_of_a_real_relaxed_problem():
    values = load_penalty_values("american", "fitted")
    deal = deals(777, 1)[0]
    weights = penalized_weights(deal, CFG, values, 1.5)
    start = positions_grid(deal, anneal(deal, CFG, iterations=5000, restarts=1, seed=0)[1])
    res = bnp_bound(weights, start, max_nodes=7)
    assert res["nodes"] == 7
    assert res["value"] <= res["upper"] < res["root"] - 0.1
    assert res["value"] == pytest.approx(P.arrangement_value(weights, res["grid"]))
