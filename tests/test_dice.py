"""Dice encodings, transitions and category tests against slow, obvious references."""

from collections import Counter
from itertools import combinations, product

import numpy as np
import pytest

from gamut.envs import dice

ALL_ORDERED = list(product(range(1, 7), repeat=5))  # index order: d0 varies slowest here


def _ordered_index_slow(faces):
    return sum((f - 1) * 6**i for i, f in enumerate(faces))


def _counts(faces):
    c = np.zeros(6, dtype=np.int64)
    for f in faces:
        c[f - 1] += 1
    return c


# ---------------------------------------------------------------- references

def _best_subset_sum(faces, size, accept):
    sums = [sum(s) for s in combinations(faces, size) if accept(sorted(s))]
    return max(sums, default=0)


def _is_n_alike(s):
    return len(set(s)) == 1


def _is_two_pairs(s):
    return s[0] == s[1] and s[2] == s[3] and s[1] != s[2]


def _is_full_house(s):
    return len(set(s)) == 2 and sorted(Counter(s).values()) == [2, 3]


def _is_run(s):
    return all(b == a + 1 for a, b in zip(s, s[1:]))


def _ranking_key_slow(faces):
    """(category, tie-break tuple) with Python tuple comparison as the order."""
    counts = Counter(faces)
    shape = sorted(counts.values(), reverse=True)
    category = {
        (5,): 6, (4, 1): 5, (3, 2): 4, (3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1,
        (1, 1, 1, 1, 1): 0,
    }[tuple(shape)]
    by_group = sorted(counts, key=lambda f: (-counts[f], -f))
    if category == 0:
        return (0, (sum(faces), *sorted(faces, reverse=True)))
    return (category, tuple(by_group))


# ------------------------------------------------------------------- tables

def test_table_sizes_and_round_trips():
    assert dice.KEEP_COUNTS.shape == (462, 6) and dice.ROLL_COUNTS.shape == (252, 6)
    assert len({tuple(c) for c in dice.KEEP_COUNTS}) == 462
    assert np.all(dice.KEEP_SIZE[dice.ROLL_TO_KEEP] == 5) and np.all(dice.KEEP_SIZE[:210] < 5)
    assert np.all(np.diff(dice.KEEP_SIZE) >= 0)
    for k in range(dice.NUM_KEEPS):
        assert dice.keep_id(dice.keep_faces(k)) == k
    for r in range(dice.NUM_ROLLS):
        faces = dice.roll_faces(r)
        assert dice.roll_id(faces[::-1]) == r
        assert tuple(dice.ROLL_FACES[r]) == faces and dice.ROLL_SUM[r] == sum(faces)
    assert dice.roll_id((1, 1, 1, 1, 1)) == 0 and dice.roll_id((6, 6, 6, 6, 6)) == 251


def test_add_and_remove_tables_match_counts():
    for k in range(dice.NUM_KEEPS):
        for f in range(6):
            added, removed = dice.KEEP_ADD[k, f], dice.KEEP_REMOVE[k, f]
            if dice.KEEP_SIZE[k] == 5:
                assert added == -1
            else:
                expect = dice.KEEP_COUNTS[k].copy()
                expect[f] += 1
                assert np.array_equal(dice.KEEP_COUNTS[added], expect)
            if dice.KEEP_COUNTS[k, f] == 0:
                assert removed == -1
            else:
                expect = dice.KEEP_COUNTS[k].copy()
                expect[f] -= 1
                assert np.array_equal(dice.KEEP_COUNTS[removed], expect)


def test_ordered_index_table_over_all_7776_rolls():
    multiplicity = Counter()
    for faces in ALL_ORDERED:
        index = _ordered_index_slow(faces)
        assert dice.ordered_index(faces) == index
        roll = dice.ORDERED_TO_ROLL[index]
        assert dice.roll_faces(roll) == tuple(sorted(faces))
        multiplicity[roll] += 1
    assert [multiplicity[r] for r in range(252)] == dice.ROLL_MULTIPLICITY.tolist()


@pytest.mark.parametrize("bad", [(1, 2, 3, 4), (1, 2, 3, 4, 7), (0, 1, 1, 1, 1), (1,) * 6])
def test_bad_dice_raise_naming_them(bad):
    with pytest.raises(ValueError, match="dice"):
        dice.roll_id(bad)


def test_legal_keeps_are_all_sub_multisets():
    total = 0
    for r in range(dice.NUM_ROLLS):
        faces = dice.roll_faces(r)
        expect = {tuple(s) for n in range(6) for s in combinations(faces, n)}
        got = dice.legal_keeps(r)
        assert sorted(dice.keep_faces(k) for k in got) == sorted(expect)
        assert np.all(np.diff(got) > 0)
        total += len(got)
    assert total == len(dice.ROLL_KEEPS)


# -------------------------------------------------------------- transitions

def test_transitions_match_brute_force_enumeration():
    for k in range(dice.NUM_KEEPS):
        kept = dice.keep_faces(k)
        free = 5 - len(kept)
        tally = Counter(dice.roll_id(kept + extra) for extra in product(range(1, 7), repeat=free))
        expect = np.zeros(dice.NUM_ROLLS)
        for r, n in tally.items():
            expect[r] = n / 6**free
        np.testing.assert_allclose(dice.TRANSITION[k], expect, rtol=0, atol=1e-15)
        lo, hi = dice.TRANS_START[k], dice.TRANS_START[k + 1]
        assert sorted(dice.TRANS_ROLL[lo:hi].tolist()) == sorted(tally)
        np.testing.assert_allclose(dice.TRANS_PROB[lo:hi], expect[dice.TRANS_ROLL[lo:hi]], atol=0)
    np.testing.assert_allclose(dice.TRANSITION.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert len(dice.TRANS_ROLL) == 4368
    np.testing.assert_array_equal(dice.TRANSITION[0] * 7776, dice.ROLL_MULTIPLICITY)


# ---------------------------------------------------------------- categories

def _category_flags(faces):
    c = _counts(faces)
    return (
        [dice.best_n_of_a_kind_sum(c, n) > 0 for n in range(2, 6)]
        + [dice.has_two_pairs(c), dice.has_full_house(c), dice.has_small_straight(c),
           dice.has_large_straight(c), dice.max_of_a_kind(c) == 5]
    )


def _category_flags_slow(faces):
    return (
        [_best_subset_sum(faces, n, _is_n_alike) > 0 for n in range(2, 6)]
        + [_best_subset_sum(faces, 4, _is_two_pairs) > 0,
           _best_subset_sum(faces, 5, _is_full_house) > 0,
           any(_is_run(sorted(s)) for s in combinations(sorted(set(faces)), 4)),
           _is_run(sorted(faces)),
           len(set(faces)) == 1]
    )


def test_category_counts_over_all_7776_ordered_rolls():
    ours = np.array([_category_flags(f) for f in ALL_ORDERED])
    slow = np.array([_category_flags_slow(f) for f in ALL_ORDERED])
    np.testing.assert_array_equal(ours, slow)
    # pair+, three+, four+, five, two pairs (a full house has two pairs), full house,
    # small straight, large straight, poker
    assert ours.sum(axis=0).tolist() == [7056, 1656, 156, 6, 2100, 300, 1200, 240, 6]
    per_roll = np.array([_category_flags(dice.roll_faces(r)) for r in range(252)])
    table = np.column_stack([
        dice.ROLL_HAS_N_OF_A_KIND[:, 2:], dice.ROLL_HAS_TWO_PAIRS, dice.ROLL_HAS_FULL_HOUSE,
        dice.ROLL_HAS_SMALL_STRAIGHT, dice.ROLL_HAS_LARGE_STRAIGHT, dice.ROLL_HAS_N_OF_A_KIND[:, 5],
    ])
    np.testing.assert_array_equal(per_roll, table)


def test_best_sums_match_subset_enumeration_on_every_roll():
    for r in range(dice.NUM_ROLLS):
        faces = dice.roll_faces(r)
        c = dice.ROLL_COUNTS[r]
        for n in range(1, 6):
            assert dice.best_n_of_a_kind_sum(c, n) == _best_subset_sum(faces, n, _is_n_alike)
        assert dice.best_two_pairs_sum(c) == _best_subset_sum(faces, 4, _is_two_pairs)
        runs4 = [s for s in combinations(faces, 4) if _is_run(list(s))]
        assert dice.best_small_straight_sum(c) == max((sum(s) for s in runs4), default=0)
        assert dice.large_straight_sum(c) == (sum(faces) if _is_run(list(faces)) else 0)
        assert dice.dice_sum(c) == sum(faces)


@pytest.mark.parametrize(
    "faces, pair, two_pairs, three, small",
    [((6, 6, 6, 2, 2), 12, 16, 18, 0), ((1, 2, 3, 4, 6), 0, 0, 0, 10),
     ((2, 3, 4, 5, 6), 0, 0, 0, 18), ((5, 5, 5, 5, 5), 10, 0, 15, 0),
     ((1, 1, 3, 3, 5), 6, 8, 0, 0), ((1, 2, 3, 4, 5), 0, 0, 0, 14)],
)
def test_spec_examples_of_best_choice(faces, pair, two_pairs, three, small):
    c = _counts(faces)
    assert dice.best_n_of_a_kind_sum(c, 2) == pair
    assert dice.best_two_pairs_sum(c) == two_pairs
    assert dice.best_n_of_a_kind_sum(c, 3) == three
    assert dice.best_small_straight_sum(c) == small


# ------------------------------------------------------------------- ranking

def test_ranking_order_matches_reference_on_all_pairs_of_rolls():
    slow = [_ranking_key_slow(dice.roll_faces(r)) for r in range(252)]
    values = dice.ROLL_RANKING_VALUE
    for a in range(252):
        for b in range(252):
            expect = (slow[a] > slow[b]) - (slow[a] < slow[b])
            got = int(values[a] > values[b]) - int(values[a] < values[b])
            assert got == expect, (dice.roll_faces(a), dice.roll_faces(b))
    assert [int(dice.ranking_value(_counts(dice.roll_faces(r)))) for r in range(252)] == \
        values.tolist()
    np.testing.assert_array_equal(
        dice.ROLL_RANKING_CATEGORY, [key[0] for key in slow]
    )
    assert np.array_equal(np.argsort(dice.ROLL_RANK), np.argsort(values))


def test_ranking_category_counts_and_tie_rules():
    per_ordered = dice.ROLL_RANKING_CATEGORY[dice.ORDERED_TO_ROLL]
    assert np.bincount(per_ordered).tolist() == [720, 3600, 1800, 1200, 300, 150, 6]

    def value(faces):
        return dice.ranking_value(_counts(faces))

    assert value((2, 2, 2, 3, 3)) > value((1, 1, 1, 6, 6))  # the three decides a full house
    assert value((5, 5, 1, 1, 2)) > value((4, 4, 3, 3, 6))  # the higher pair first
    assert value((5, 5, 2, 2, 3)) > value((5, 5, 1, 1, 6))  # then the lower pair
    assert value((3, 3, 6, 2, 1)) > value((3, 3, 5, 4, 2))  # then kickers, highest first
    assert value((2, 3, 4, 5, 6)) > value((1, 3, 4, 5, 6))  # high hands: sum first
    assert value((1, 1, 2, 3, 4)) > value((2, 3, 4, 5, 6))  # no straights: a pair beats high
    assert value((6, 5, 4, 3, 2)) == value((2, 3, 4, 5, 6))
