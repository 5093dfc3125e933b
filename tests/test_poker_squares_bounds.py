"""Clairvoyant bounds: cores against brute force, the bounds above every arrangement, annealing."""

from itertools import combinations

import numpy as np
import pytest

import gamut.envs  # noqa: F401
from gamut.envs.hands import FLUSH, FOUR_OF_A_KIND, FULL_HOUSE, HAND_TABLE, ONE_PAIR, ROYAL_FLUSH, STRAIGHT, \
    STRAIGHT_FLUSH, THREE_OF_A_KIND, TWO_PAIR, best_strength, category_of
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares.bounds import anneal, clairvoyant_bounds, core_upper_bound, cores
from gamut.solvers.poker_squares.evaluation import deals

AMERICAN = (0, 2, 5, 10, 15, 20, 25, 50, 75, 100)
CORE_CATEGORIES = {2: {ONE_PAIR}, 3: {THREE_OF_A_KIND}, 4: {TWO_PAIR, FOUR_OF_A_KIND},
                   5: {STRAIGHT, FLUSH, FULL_HOUSE, STRAIGHT_FLUSH, ROYAL_FLUSH}}


def _category(cards):
    return int(category_of(best_strength(np.array(cards, dtype=np.int64), len(cards), -1, HAND_TABLE)))


def test_cores_are_exactly_the_canonical_subsets():
    rng = np.random.default_rng(1)
    sets = [rng.permutation(52)[:12] for _ in range(15)]
    sets.append(np.array([48, 44, 40, 36, 32, 0, 4, 8, 12, 49, 50, 51]))  # royal, wheel, quads
    for cards in sets:
        expected = {}
        for k in (2, 3, 4, 5):
            for sub in combinations(sorted(int(c) for c in cards), k):
                if _category(sub) in CORE_CATEGORIES[k]:
                    expected[sub] = _category(sub)
        found, cats = cores(cards)
        assert dict(zip(found, cats)) == expected


@pytest.mark.slow
def test_upper_bound_is_above_random_and_annealed_arrangements():
    cfg = K.make_config(1, False, False, AMERICAN)
    rng = np.random.default_rng(2)
    state = np.full(K.STATE_SIZE, -1, dtype=np.int64)
    for deal in deals(5, 3):
        ub, _ = core_upper_bound(deal, AMERICAN, time_limit=3.0)
        best, grid = anneal(deal, cfg, iterations=5000, restarts=2, seed=1)
        state[:25] = grid
        assert sorted(grid) == sorted(deal) and K.grid_score(state, 0, cfg, HAND_TABLE) == best
        assert best <= ub
        for _ in range(200):
            state[:25] = rng.permutation(deal)
            assert K.grid_score(state, 0, cfg, HAND_TABLE) <= ub


def test_bound_is_exact_on_a_deal_with_a_known_optimum():
    # Only royal flushes score: the deal holds two (hearts and spades), which two rows can hold, and
    # no column can hold a third; the bound must be 2, not more (no double counting), not less.
    points = (0, 0, 0, 0, 0, 0, 0, 0, 0, 1)
    deal = np.array([4 * r + s for s in (2, 3) for r in range(8, 13)] + [0, 1, 2, 3, 4, 5, 6, 9, 12, 13, 14, 16,
                                                                         17, 21, 22])
    ub, proved = core_upper_bound(deal, points, time_limit=10.0)
    assert proved and ub == 2
    cfg = K.make_config(1, False, False, points)
    res = clairvoyant_bounds(deal[None, :], cfg, time_limit=10.0, iterations=2000, restarts=1)
    assert res["upper"][0] == 2 and res["best"][0] <= 2 and res["proven"][0] == (res["best"][0] == 2)


@pytest.mark.slow
def test_clairvoyant_bounds_take_the_smaller_valid_bound_and_a_real_arrangement():
    cfg = K.make_config(1, False, False, AMERICAN)
    the_deals = deals(8, 3)
    res = clairvoyant_bounds(the_deals, cfg, time_limit=1.0, iterations=20000, restarts=2)
    state = np.full(K.STATE_SIZE, -1, dtype=np.int64)
    for i, deal in enumerate(the_deals):
        assert res["upper"][i] == max(min(res["core_upper"][i], res["partition_upper"][i]), res["best"][i])
        state[:25] = res["grids"][i]
        assert sorted(res["grids"][i]) == sorted(deal)
        assert K.grid_score(state, 0, cfg, HAND_TABLE) == res["best"][i] <= res["upper"][i]
        assert res["proven"][i] == (res["best"][i] == res["upper"][i])


def test_swap_lines_are_the_distinct_rows_and_columns_of_both_cells():
    from gamut.solvers.poker_squares.partition import swap_lines

    touched = np.zeros(4, dtype=np.int64)
    for a in range(25):
        for b in range(25):
            n = swap_lines(a, b, touched)
            expected = {a // 5, 5 + a % 5, b // 5, 5 + b % 5}
            assert n == len(expected) and set(touched[:n].tolist()) == expected
