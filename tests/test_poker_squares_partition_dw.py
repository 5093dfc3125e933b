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
from gamut.solvers.poker_squares.partition_bnp import bnp_bound, forbidden_sets, statuses_consistent
from gamut.solvers.poker_squares.partition_dw import SideLP, best_partition, dw_bound, gather_sums, \
    search_candidates
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


def _side_instance(n, rng):
    """All five-subsets of 0..n-1 with integer values, their index by tuple, and the best partition's value."""
    sets = np.array(list(combinations(range(n), 5)), dtype=np.int64)
    index = {tuple(s): j for j, s in enumerate(sets.tolist())}
    # Integer-valued sets, with ties and a few very good sets, so the LP is fractional and the gap doubles.
    values = rng.integers(-20, 5, len(sets)).astype(np.float64)
    values[rng.choice(len(sets), 6, replace=False)] += 30
    expected = max(sum(values[index[s]] for s in part) for part in _all_partitions(tuple(range(n))))
    return sets, index, values, expected


@pytest.mark.parametrize("n, seed", [(10, 0), (10, 1), (15, 2), (15, 3)])
def test_best_partition_matches_brute_force(n, seed):
    rng = np.random.default_rng(seed)
    sets, index, values, expected = _side_instance(n, rng)
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


@pytest.mark.parametrize("n, seed", [(10, 4), (15, 5)])
def test_best_partition_with_a_floor_is_exact_above_it_and_a_bound_below_it(n, seed):
    sets, _, values, expected = _side_instance(n, np.random.default_rng(seed))
    lp = SideLP(sets, n)
    value, ids = best_partition(values, lp, sets=sets, n=n, floor=expected - 0.5)
    assert value == expected and values[ids].sum() == expected
    for floor in (expected + 0.5, expected + 40.0):
        bound, none = best_partition(values, lp, sets=sets, n=n, floor=floor)
        assert none is None and expected <= bound <= floor
    # The docstring's example: two sets worth 1 each, nothing reaches 3, the LP's 2 bounds every partition.
    example = np.zeros(252)
    example[[0, 251]] = 1.0  # {0..4} and {5..9}
    ten = np.array(list(combinations(range(10), 5)), dtype=np.int64)
    assert best_partition(example, sets=ten, n=10)[0] == 2.0
    bound, none = best_partition(example, sets=ten, n=10, floor=3.0)
    assert none is None and bound == pytest.approx(2.0)


def test_best_partition_with_a_floor_bounds_a_side_whose_lp_is_far_above_every_partition():
    # Of each set and its complement in 0..9 one is allowed (value 0..4), the other forbidden (-1000): every
    # partition of 0..9 is a set and its complement, so it uses a forbidden set, while the LP mixes allowed
    # sets at several points. The search must stop at the floor instead of descending a thousand points.
    rng = np.random.default_rng(0)
    sets = np.array(list(combinations(range(10), 5)), dtype=np.int64)
    index = {tuple(s): j for j, s in enumerate(sets.tolist())}
    values = np.full(len(sets), -1000.0)
    for j, s in enumerate(sets.tolist()):
        other = index[tuple(sorted(set(range(10)) - set(s)))]
        if j < other:
            values[rng.choice([j, other])] = rng.integers(0, 5)
    expected = max(sum(values[index[s]] for s in part) for part in _all_partitions(tuple(range(10))))
    lp = SideLP(sets, 10)
    assert expected < -990 and lp.solve(values)[0] > 0
    bound, ids = best_partition(values, lp, sets=sets, n=10, floor=-500.0)
    assert ids is None and expected <= bound <= -500.0
    assert best_partition(values, lp, sets=sets, n=10)[0] == expected


@pytest.mark.parametrize("budget", [1, 30, 300, 3000])
def test_best_partition_out_of_budget_bounds_the_best_and_keeps_the_best_seen(budget):
    sets, _, values, expected = _side_instance(15, np.random.default_rng(6))
    bound, ids = best_partition(values, sets=sets, n=15, budget=budget)
    assert bound >= expected
    if ids is not None:
        assert sorted(sets[ids].reshape(-1).tolist()) == list(range(15))
        assert values[ids].sum() <= bound
    if budget == 1:
        assert ids is None and bound > expected  # one set tried: only the LP's value is known
    assert best_partition(values, sets=sets, n=15, budget=10**9)[0] == expected


@pytest.mark.parametrize("seed", range(3))
def test_dw_bound_stays_valid_when_its_side_searches_run_out_of_budget(seed, monkeypatch):
    from gamut.solvers.poker_squares import partition_dw

    weights, expected = _restricted(seed)
    monkeypatch.setattr(partition_dw, "SEARCH_BUDGET", 2)
    res = dw_bound(weights, IDENTITY)
    assert res["upper"] >= expected - 1e-6
    assert not res["converged"] and not res["proved"]


def _candidates_by_numpy(reduced, sets, threshold, n):
    """The obvious NumPy form of ``search_candidates``."""
    keep = np.flatnonzero(reduced >= threshold)
    counts = np.bincount(sets[keep].reshape(-1), minlength=n)
    rank = np.empty(n, dtype=np.int64)
    rank[np.argsort(counts, kind="stable")] = np.arange(n)
    relabelled = rank[sets[keep]]
    masks = (np.int64(1) << relabelled).sum(axis=1)
    lows = relabelled.min(axis=1)
    order = np.lexsort((-reduced[keep], lows))
    return keep, order, np.searchsorted(lows[order], np.arange(n + 1)), masks


@pytest.mark.parametrize("seed", range(4))
def test_search_candidates_matches_numpy(seed):
    rng = np.random.default_rng(seed)
    sets = P.SETS if seed < 2 else np.array(list(combinations(range(15), 5)), dtype=np.int64)
    n = int(sets.max()) + 1
    # Rounded values, so ties in the reduced value must keep their order.
    reduced = -np.round(rng.exponential(3.0, len(sets)), 1)
    got = search_candidates(reduced, sets, -1.5 * (seed + 1), n)
    for a, b in zip(got, _candidates_by_numpy(reduced, sets, -1.5 * (seed + 1), n)):
        assert np.array_equal(a, b)
    example = search_candidates(np.array([0.0, -1.0, -9.0]), np.array([[0, 1, 2, 3, 4], [0, 5, 6, 7, 8],
                                                                        [1, 2, 3, 4, 5]]), -2.0, 10)
    assert [x.tolist() for x in example] == [[0, 1], [0, 1], [0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2], [542, 992]]


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


def test_dw_bound_with_a_floor_is_unchanged_above_it_and_stops_once_bounded_below_it():
    weights, expected = _restricted(2)
    plain = dw_bound(weights, IDENTITY)
    low = dw_bound(weights, IDENTITY, floor=expected - 1.0)
    assert not low["pruned"] and low["upper"] == pytest.approx(plain["upper"], abs=1e-6)
    high = dw_bound(weights, IDENTITY, floor=plain["upper"] + 1.0)
    assert high["pruned"] and expected - 1e-6 <= high["upper"] <= plain["upper"] + 1.0
    assert high["iterations"] <= plain["iterations"]


def test_dw_bound_with_a_floor_proves_contradictory_statuses_empty():
    # Pairs {0, 1} and {1, 2} in a row but {0, 2} in a column: no arrangement keeps all three.
    values = load_penalty_values("american", "fitted")
    deal = deals(777, 1)[0]
    weights = penalized_weights(deal, CFG, values, 1.5)
    big = 20.0 * (1.0 + np.abs(weights).max())
    bad = forbidden_sets({P.PAIR_INDEX[0, 1]: "row", P.PAIR_INDEX[1, 2]: "row", P.PAIR_INDEX[0, 2]: "column"})
    res = dw_bound(np.where(bad, weights - big, weights), IDENTITY, floor=-big / 2)
    assert res["pruned"] and res["upper"] <= -big / 2


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


def _status_of(grid, a, b):
    """The status of positions a and b in ``grid`` (cell -> position): 'row', 'column' or 'neither'."""
    cell = np.argsort(grid)
    if cell[a] // 5 == cell[b] // 5:
        return "row"
    return "column" if cell[a] % 5 == cell[b] % 5 else "neither"


def test_statuses_of_an_arrangement_are_always_consistent():
    # Soundness: a status set judged inconsistent must hold no arrangement, so every arrangement's own
    # statuses, on any subset of pairs, pass.
    rng = np.random.default_rng(3)
    pairs = [(a, b) for a in range(25) for b in range(a + 1, 25)]
    for _ in range(200):
        grid = rng.permutation(25)
        chosen = rng.choice(len(pairs), rng.integers(1, 120), replace=False)
        status = {int(P.PAIR_INDEX[pairs[i]]): _status_of(grid, *pairs[i]) for i in chosen}
        assert statuses_consistent(status)


@pytest.mark.parametrize("fixed, consistent", [
    ({(0, 1): "row", (1, 2): "column"}, True),
    ({(0, 1): "row", (1, 2): "row", (0, 2): "column"}, False),  # a column pair inside a row class
    ({(0, 1): "column", (1, 2): "column", (0, 2): "neither"}, False),
    ({(5, 7): "row", (0, 7): "row", (7, 8): "row", (9, 23): "row", (7, 23): "row"}, False),  # six in a row
    ({(0, 1): "row", (1, 2): "row", (0, 5): "column", (5, 6): "column", (6, 2): "column"}, False),  # 0, 2 twice
    # Six column classes of three cards: each column holds one at most.
    ({(3 * i, 3 * i + 1): "column" for i in range(6)} | {(3 * i + 1, 3 * i + 2): "column" for i in range(6)},
     False),
    ({(3 * i, 3 * i + 1): "column" for i in range(5)} | {(3 * i + 1, 3 * i + 2): "column" for i in range(5)},
     True),
])
def test_statuses_consistent_finds_contradictions(fixed, consistent):
    assert statuses_consistent({int(P.PAIR_INDEX[a, b]): kind for (a, b), kind in fixed.items()}) is consistent


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
