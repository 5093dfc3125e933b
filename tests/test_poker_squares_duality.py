"""Set-partitioning model and duality penalty: brute force on restricted families, slow references, zero mean."""

from itertools import combinations, permutations

import numpy as np
import pytest

import gamut.envs  # noqa: F401
from gamut.envs.hands import HAND_TABLE, best_strength, category_of
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares import partition as P
from gamut.solvers.poker_squares.bounds import anneal
from gamut.solvers.poker_squares.duality import duality_bound, line_penalties, played_penalty, positions_grid
from gamut.solvers.poker_squares.evaluation import deals
from gamut.solvers.poker_squares.penalty_table import NUM_KEYS, line_key_v1, line_value_v1, load_penalty_values

AMERICAN = (0, 2, 5, 10, 15, 20, 25, 50, 75, 100)
CFG = K.make_config(1, False, False, AMERICAN)
IDENTITY = np.arange(25)


def _slow_key(cards, placed, is_col):
    ranks = [c >> 2 for c in cards]
    counts = sorted(ranks.count(r) for r in set(ranks))
    pattern = counts.count(1) + 5 * (counts.count(2) + 3 * (counts.count(3) + 2 * counts.count(4)))
    flush_ok = int(len({c & 3 for c in cards}) <= 1)
    distinct = set(ranks)
    windows = [set(range(lo, lo + 5)) for lo in range(9)] + [{12, 0, 1, 2, 3}]
    straight_ok = int(len(distinct) == len(ranks) and any(distinct <= w for w in windows))
    return ((((placed * 2 + is_col) * 5 + len(cards)) * 60 + pattern) * 2 + flush_ok) * 2 + straight_ok


@pytest.mark.slow
def test_line_key_matches_the_documented_key():
    assert line_key_v1(np.array([4 * 5 + 2, 4 * 5 + 0, 4 * 7 + 1, 0, 0]), 3, 7, 1) == 18744
    rng = np.random.default_rng(3)
    n_cases = 100_000
    cards = np.argsort(rng.random((n_cases, 52)), axis=1)[:, :5]
    sizes = rng.integers(0, 5, n_cases)
    placed = rng.integers(0, 26, n_cases)
    cols = rng.integers(0, 2, n_cases)
    # Few-rank hands (pairs, trips, quads) are rare among random cards: force some.
    cards[: n_cases // 4, 1] = (cards[: n_cases // 4, 0] // 4) * 4 + (cards[: n_cases // 4, 0] + 1) % 4
    for i in range(n_cases):
        c = [int(x) for x in cards[i, : sizes[i]]]
        assert line_key_v1(cards[i], sizes[i], placed[i], cols[i]) == _slow_key(c, int(placed[i]), int(cols[i]))


def test_set_points_and_pricing_match_slow_references():
    deal = deals(11, 1)[0]
    pts = P.set_points(deal, CFG)
    for j in range(0, P.NUM_SETS, 7):
        cat = category_of(best_strength(deal[P.SETS[j]], 5, -1, HAND_TABLE))
        assert pts[j] == AMERICAN[cat]
    rng = np.random.default_rng(4)
    w, card, pair = rng.normal(size=(2, P.NUM_SETS)), rng.normal(size=(2, 25)), rng.random(P.NUM_PAIRS)
    r = P.reduced_profits(w, card, pair)
    for side in range(2):
        slow = [w[side, j] - card[side, list(s)].sum() - sum(pair[P.PAIR_INDEX[a, b]] for a, b in combinations(s, 2))
                for j, s in enumerate(P.SETS)]
        np.testing.assert_allclose(r[side], slow, atol=1e-9)


def _brute_force(weights, allowed):
    """Best value over every arrangement built from allowed sets only (row covers x column covers)."""
    def covers(ids):
        out = []

        def rec(chosen, used):
            if used == (1 << 25) - 1:
                out.append(list(chosen))
                return
            first = next(p for p in range(25) if not used >> p & 1)
            for j in ids:
                s = P.SETS[j]
                mask = sum(1 << int(p) for p in s)
                if s[0] == first and not mask & used:
                    rec(chosen + [j], used | mask)
        rec([], 0)
        return out
    best = -np.inf
    for rows in covers(allowed[0]):
        for cols in covers(allowed[1]):
            if all(len(set(P.SETS[a]) & set(P.SETS[b])) == 1 for a in rows for b in cols):
                best = max(best, weights[0, rows].sum() + weights[1, cols].sum())
    return best


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.slow
def test_partition_program_is_exact_on_restricted_families(seed):
    # Allowed sets: the lines of every grid made by permuting the cards of 5 cells of the identity grid
    # (so arrangements from rows of one grid and columns of another are possible too); the rest weigh -1000.
    rng = np.random.default_rng(seed)
    cells = rng.choice(25, 5, replace=False)
    allowed = [set(), set()]
    for perm in permutations(cells):
        grid = IDENTITY.copy()
        grid[cells] = grid[list(perm)]
        rows, cols = P.grid_sets(grid)
        allowed[0].update(rows)
        allowed[1].update(cols)
    allowed = [sorted(a) for a in allowed]
    weights = np.full((2, P.NUM_SETS), -1000.0)
    for side in range(2):
        weights[side, allowed[side]] = rng.integers(0, 20, len(allowed[side]))
    res = P.partition_bound(weights, IDENTITY, time_limit=20.0, integral=True)
    expected = _brute_force(weights, allowed)
    assert res["proved"] and res["upper"] == expected == res["value"]
    assert P.arrangement_value(weights, res["grid"]) == expected


def _slow_penalty_sum(deal, grid_positions, values, scale, by_cell):
    """sum_t z_t of an arrangement straight from the definition: ten lines of P_t, every unseen card."""
    where = {int(p): cell for cell, p in enumerate(grid_positions)}
    points = CFG[K.C_POINTS:]
    total = 0.0
    for t in range(24):
        unseen = [c for c in range(52) if c not in set(int(x) for x in deal[: t + 1])]

        def g(card):
            s = 0.0
            for line in range(10):
                content = [int(deal[p]) for p in range(t + 1) if where[p] in K.LINES[line]]
                if len(content) < 5:
                    cards = np.array(content + [card] + [0] * (4 - len(content)))
                    weight = (5 - len(content)) / (24 - t) if by_cell else 1.0
                    s += weight * line_value_v1(cards, len(content) + 1, t + 2, int(line >= 5), points,
                                                HAND_TABLE, values)
            return scale * s
        total += g(int(deal[t + 1])) - np.mean([g(c) for c in unseen])
    return total


@pytest.mark.parametrize("by_cell", [True, False])
@pytest.mark.slow
def test_line_penalties_sum_to_the_penalty_of_the_definition(by_cell):
    values = load_penalty_values("american")
    assert values.shape == (NUM_KEYS,)
    rng = np.random.default_rng(5)
    for k, deal in enumerate(deals(12, 3)):
        pi = line_penalties(deal, CFG, values, 0.7, by_cell)
        for _ in range(40):
            grid = rng.permutation(25)
            rows, cols = P.grid_sets(grid)
            total = pi[0, rows].sum() + pi[1, cols].sum()
            assert total == pytest.approx(played_penalty(deal, grid, CFG, values, 0.7, by_cell), abs=1e-8)
        if k == 0:
            assert total == pytest.approx(_slow_penalty_sum(deal, grid, values, 0.7, by_cell), abs=1e-8)


@pytest.mark.slow
def test_penalty_has_mean_zero_unless_the_policy_looks_ahead():
    # A grid drawn before the deal never looks ahead: its mean total penalty over random deals is 0.
    # Annealed arrangements are chosen knowing every card: they must pay a clearly positive mean.
    values = load_penalty_values("american")
    rng = np.random.default_rng(6)
    blind = np.array([played_penalty(d, rng.permutation(25), CFG, values, 1.0) for d in deals(13, 3000)])
    se = blind.std(ddof=1) / np.sqrt(len(blind))
    assert se > 0.01 and abs(blind.mean()) < 4 * se
    seeing = np.array([played_penalty(d, positions_grid(d, anneal(d, CFG, 3000, 1, 0)[1]), CFG, values, 1.0)
                       for d in deals(15, 200)])
    assert seeing.mean() > 4 * seeing.std(ddof=1) / np.sqrt(len(seeing))


def test_bounds_are_above_the_arrangements_found():
    values = load_penalty_values("american")
    for deal in deals(14, 2):
        best, grid = anneal(deal, CFG, iterations=5000, restarts=1, seed=0)
        weights = np.tile(P.set_points(deal, CFG), (2, 1))
        plain = P.partition_bound(weights, positions_grid(deal, grid), time_limit=10.0, integral=True)
        assert plain["upper"] >= plain["value"] >= best
        assert plain["lp"] >= plain["upper"] - 1e-6
        res = duality_bound(deal, CFG, values, 0.3, grid, time_limit=10.0)
        assert res["upper"] >= res["value"] and res["value"] == pytest.approx(res["score"] - res["penalty"])


def test_set_annealing_reports_the_value_of_its_grid_and_never_loses_its_start():
    rng = np.random.default_rng(7)
    assert np.array_equal(np.sort(P.COLEX_TO_SET), np.arange(P.NUM_SETS))
    for seed in range(3):
        weights = rng.normal(size=(2, P.NUM_SETS)) * 10
        start = rng.permutation(25)
        value, grid = P.anneal_sets(weights, start, iterations=20000, restarts=2, seed=seed, temp_start=5.0,
                                    temp_end=0.1)
        assert sorted(grid) == list(range(25))
        assert value == pytest.approx(P.arrangement_value(weights, grid))
        assert value >= P.arrangement_value(weights, start)
        assert value > np.mean([P.arrangement_value(weights, rng.permutation(25)) for _ in range(50)]) + 30
