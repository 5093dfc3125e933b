"""gamut.envs.hands: exhaustive five-card counts, order vs a plain-Python reference, best-of-N vs brute force."""

from __future__ import annotations

import argparse
from collections import Counter
from itertools import combinations

import numba
import numpy as np
import pytest

from gamut.envs import hands
from gamut.envs.cards import parse_cards

EXPECTED_CATEGORY_COUNTS = {
    hands.HIGH_CARD: 1_302_540,
    hands.ONE_PAIR: 1_098_240,
    hands.TWO_PAIR: 123_552,
    hands.THREE_OF_A_KIND: 54_912,
    hands.STRAIGHT: 10_200,
    hands.FLUSH: 5_108,
    hands.FULL_HOUSE: 3_744,
    hands.FOUR_OF_A_KIND: 624,
    hands.STRAIGHT_FLUSH: 36,
    hands.ROYAL_FLUSH: 4,
}


# ---------------------------------------------------------------- slow reference
def reference_value(cards) -> tuple[int, list[int]]:
    """(category, ranks in comparison order) of at most five cards, by the book.

    Lists compare lexicographically, and a shorter list that is a prefix of a longer
    one is smaller: exactly "a missing kicker loses to any kicker".
    """
    cards = list(cards)
    assert len(cards) <= 5
    ranks = sorted(((c >> 2) + 2 for c in cards), reverse=True)
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rank_count: (rank_count[1], rank_count[0]), reverse=True)
    shape = [count for _, count in groups]
    ordered = [rank for rank, _ in groups]
    if len(cards) == 5:
        flush = len({c & 3 for c in cards}) == 1
        distinct = sorted(counts)
        top = 0
        if len(distinct) == 5 and distinct[-1] - distinct[0] == 4:
            top = distinct[-1]
        if distinct == [2, 3, 4, 5, 14]:
            top = 5
        if top and flush:
            return (hands.ROYAL_FLUSH if top == 14 else hands.STRAIGHT_FLUSH), [top]
        if flush:
            return hands.FLUSH, ranks
        if top:
            return hands.STRAIGHT, [top]
    if shape[:1] == [4]:
        return hands.FOUR_OF_A_KIND, ordered
    if shape[:2] == [3, 2]:
        return hands.FULL_HOUSE, ordered
    if shape[:1] == [3]:
        return hands.THREE_OF_A_KIND, ordered
    if shape[:2] == [2, 2]:
        return hands.TWO_PAIR, ordered
    if shape[:1] == [2]:
        return hands.ONE_PAIR, ordered
    return hands.HIGH_CARD, ordered


def reference_code(cards) -> int:
    category, ranks = reference_value(cards)
    padded = ranks + [0] * (5 - len(ranks))
    code = category
    for rank in padded:
        code = code << 4 | rank
    return code


def reference_best(cards, exclude_suit: int = -1) -> tuple[int, list[int]]:
    counting = [c for c in cards if (c & 3) != exclude_suit]
    return max(reference_value(sub) for sub in combinations(counting, min(5, len(counting))))


def random_hands(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n rows of k distinct card ids (uint8), vectorised: the first k of a random permutation."""
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.uint8)


@pytest.fixture(scope="module")
def all_five_card_hands() -> np.ndarray:
    flat = np.fromiter(
        (c for combo in combinations(range(52), 5) for c in combo), dtype=np.uint8, count=2_598_960 * 5
    )
    return flat.reshape(-1, 5)


# ---------------------------------------------------------------- exhaustive five-card facts
def test_all_five_card_hands_category_counts_and_distinct_strengths(all_five_card_hands):
    strengths = hands.strengths5(all_five_card_hands)
    counts = np.bincount(hands.categories(strengths), minlength=hands.NUM_CATEGORIES)
    assert dict(enumerate(counts.tolist())) == EXPECTED_CATEGORY_COUNTS
    assert len(np.unique(strengths)) == 7462


def test_strength_of_every_five_card_class_matches_reference(all_five_card_hands):
    # One representative per distinct strength covers every class of the 7,462 exactly.
    strengths = hands.strengths5(all_five_card_hands)
    _, first = np.unique(strengths, return_index=True)
    for row in first:
        assert strengths[row] == reference_code(all_five_card_hands[row].tolist())


@pytest.mark.slow
def test_order_agrees_with_reference_on_random_pairs():
    rng = np.random.default_rng(20261129)
    n = 100_000
    a, b = random_hands(rng, n, 5), random_hands(rng, n, 5)
    ours = np.sign(hands.strengths5(a).astype(np.int64) - hands.strengths5(b))
    expected = [
        (ra > rb) - (ra < rb)
        for ra, rb in zip(map(reference_value, a.tolist()), map(reference_value, b.tolist()))
    ]
    assert np.array_equal(ours, expected)
    assert set(expected) == {-1, 0, 1}  # ties do occur and are checked too


@pytest.mark.parametrize(
    "text, category, code",
    [
        ("As Ks Qs Js Ts", hands.ROYAL_FLUSH, 0x9E0000),
        ("9h Kh Qh Jh Th", hands.STRAIGHT_FLUSH, 0x8D0000),
        ("5d 4d 3d 2d Ad", hands.STRAIGHT_FLUSH, 0x850000),
        ("7c 7d 7h 7s 2c", hands.FOUR_OF_A_KIND, 0x772000),
        ("3c 3d 3h Ks Kc", hands.FULL_HOUSE, 0x63D000),
        ("2h 9h Jh Kh 4h", hands.FLUSH, 0x5DB942),
        ("5c 4d 3h 2s Ac", hands.STRAIGHT, 0x450000),
        ("6c 5d 4h 3s 2c", hands.STRAIGHT, 0x460000),
        ("Ac Kd Qh Js Tc", hands.STRAIGHT, 0x4E0000),
        ("7c 7d Ah Ks 4c", hands.ONE_PAIR, 0x17ED40),
        ("Ac Kd Qh Js 9c", hands.HIGH_CARD, 0x0EDCB9),
    ],
)
def test_known_hands(text, category, code):
    strength = hands.strengths5(parse_cards(text)[None, :])[0]
    assert strength == code and hands.category_of(strength) == category


def test_wheel_is_the_lowest_straight_and_steel_wheel_the_lowest_straight_flush():
    texts = ["5c 4d 3h 2s Ac", "6c 5d 4h 3s 2c", "5h 4h 3h 2h Ah", "6h 5h 4h 3h 2h", "Ac Ad Ah Ks Kd"]
    wheel, six_high, steel, six_flush, full_house = hands.strengths5(np.stack([parse_cards(t) for t in texts]))
    assert wheel < six_high < full_house < steel < six_flush


# ---------------------------------------------------------------- seven cards and best-of-N
def brute_force_best(cards: np.ndarray, exclude_suit: np.ndarray) -> np.ndarray:
    """Max of strengths5 over every 5-subset of the counting cards (rows with >= 5 of them)."""
    n, k = cards.shape
    subsets = np.array(list(combinations(range(k), 5)))
    chosen = cards[:, subsets]  # (n, C(k, 5), 5)
    values = hands.strengths5(chosen.reshape(-1, 5)).reshape(n, len(subsets)).astype(np.int64)
    excluded_in_subset = ((chosen & 3) == exclude_suit[:, None, None]).any(axis=2)
    values[excluded_in_subset] = -1
    return values.max(axis=1)


def test_seven_card_strengths_match_brute_force():
    rng = np.random.default_rng(7)
    cards = random_hands(rng, 100_000, 7)
    expected = brute_force_best(cards, np.full(len(cards), -1))
    assert np.array_equal(hands.strengths7(cards), expected)
    assert np.array_equal(hands.best_strengths(cards), expected)


@pytest.mark.parametrize("k", [6, 7, 8, 9])
@pytest.mark.slow
def test_best_of_n_with_and_without_excluded_suit_matches_brute_force(k):
    rng = np.random.default_rng(100 + k)
    n = 100_000
    cards = random_hands(rng, n, k)
    for exclude in (np.full(n, -1), rng.integers(-1, 4, size=n)):
        ours = hands.best_strengths(cards, exclude_suit=exclude).astype(np.int64)
        counting = ((cards & 3) != exclude[:, None]).sum(axis=1)
        full = counting >= 5
        assert np.array_equal(ours[full], brute_force_best(cards[full], exclude[full]))
        # Fewer than five counting cards: the small hand itself, by the reference.
        few = np.flatnonzero(~full)
        expected = [reference_code([c for c in cards[i].tolist() if (c & 3) != exclude[i]]) for i in few]
        assert np.array_equal(ours[few], expected)


def test_best_of_n_uses_flush_and_pairs_together_and_ignores_the_excluded_suit():
    cards = parse_cards("2h 5h 7h 9h Jh 9c 9d 9s Jc")  # flush, and quads nine with 9h
    assert hands.strength_str(hands.best_strengths(cards[None, :])[0]) == "four of a kind: 9 J"
    without_hearts = hands.best_strengths(cards[None, :], exclude_suit=2)[0]
    assert hands.strength_str(without_hearts) == "three of a kind: 9 J"  # only 9c 9d 9s Jc count
    assert hands.strength_str(hands.best_strengths(cards[None, :], exclude_suit=0)[0]) == "flush: J 9 7 5 2"


def test_reference_best_agrees_on_a_small_sample():
    # The slow reference end to end (subsets and partial hands) on a few thousand cases.
    rng = np.random.default_rng(3)
    cards = random_hands(rng, 2_000, 8)
    exclude = rng.integers(-1, 4, size=len(cards))
    ours = hands.best_strengths(cards, exclude_suit=exclude)
    for row, suit, value in zip(cards.tolist(), exclude.tolist(), ours.tolist()):
        category, ranks = reference_best(row, suit)
        assert value >> 20 == category
        assert [value >> s & 15 for s in (16, 12, 8, 4, 0)][: len(ranks)] == ranks


# ---------------------------------------------------------------- small hands
@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_small_hands_exhaustively_match_reference(k):
    combos = list(combinations(range(52), k))
    cards = np.array(combos, dtype=np.uint8).reshape(len(combos), k)
    expected = [reference_code(row) for row in cards.tolist()]
    assert np.array_equal(hands.best_strengths(cards), expected)


@pytest.mark.slow
def test_four_card_hands_match_reference_and_order_across_sizes():
    rng = np.random.default_rng(4)
    four = random_hands(rng, 100_000, 4)
    ours4 = hands.best_strengths(four)
    assert np.array_equal(ours4, [reference_code(row) for row in four.tolist()])
    # Hands of different sizes compare as the reference's lists do (prefix = missing kicker).
    sizes = rng.integers(1, 6, size=20_000)
    a, b = random_hands(rng, 20_000, 5), random_hands(rng, 20_000, 5)
    for size in range(1, 6):
        rows = np.flatnonzero(sizes == size)
        other = (size % 5) + 1
        sa = hands.best_strengths(a[rows, :size]).astype(np.int64)
        sb = hands.best_strengths(b[rows, :other]).astype(np.int64)
        expected = [
            (x > y) - (x < y)
            for x, y in zip(
                (reference_value(r) for r in a[rows, :size].tolist()),
                (reference_value(r) for r in b[rows, :other].tolist()),
            )
        ]
        assert np.array_equal(np.sign(sa - sb), expected)


def test_small_hand_examples_from_the_docstring():
    assert hands.best_strengths(parse_cards("Ah Ad")[None, :])[0] == 0x1E0000
    kings = hands.strengths5(parse_cards("Kh Kd Qc Js 9c")[None, :])[0]
    aces_and_two = hands.best_strengths(parse_cards("Ah Ad 2c")[None, :])[0]
    assert kings < 0x1E0000 < aces_and_two
    assert hands.best_strengths(np.zeros((1, 0), np.uint8))[0] == 0


# ---------------------------------------------------------------- API
@pytest.mark.slow
def test_scalar_kernels_are_callable_from_other_kernels():
    @numba.njit
    def pair_of_evaluations(cards, table):
        five = hands.hand_strength5(cards[0], cards[1], cards[2], cards[3], cards[4], table)
        seven = hands.hand_strength7(cards[0], cards[1], cards[2], cards[3], cards[4], cards[5], cards[6], table)
        best = hands.best_strength(cards, 7, -1, table)
        return five, seven, best, hands.category_of(seven)

    cards = parse_cards("As Ks Qs Js 9s Ts 2c")
    five, seven, best, category = pair_of_evaluations(cards, hands.HAND_TABLE)
    assert hands.strength_str(five) == "flush: A K Q J 9"
    assert seven == best == 0x9E0000 and category == hands.ROYAL_FLUSH


def test_bad_input_raises_naming_the_hand():
    with pytest.raises(ValueError, match="hand 1"):
        hands.strengths5(np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 3]]))
    with pytest.raises(ValueError, match="hand 0"):
        hands.strengths7(np.array([[0, 1, 2, 3, 4, 5, 52]]))
    with pytest.raises(ValueError, match="hand 0"):
        hands.best_strengths(np.array([[-1, 1]]))
    with pytest.raises(ValueError, match="shape"):
        hands.strengths5(np.zeros((3, 4), np.uint8))
    with pytest.raises(ValueError, match="exclude_suit"):
        hands.best_strengths(np.zeros((1, 0), np.uint8), exclude_suit=4)
    with pytest.raises(ValueError, match="dtype"):
        hands.strengths5(np.zeros((1, 5)))


def test_strengths_agree_with_treys_order():
    treys = pytest.importorskip("treys")
    evaluator = treys.Evaluator()
    rng = np.random.default_rng(11)
    names = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    to_treys = [treys.Card.new(name) for name in names]
    for k in (5, 7):
        a, b = random_hands(rng, 5_000, k), random_hands(rng, 5_000, k)
        ours = np.sign(hands.best_strengths(a).astype(np.int64) - hands.best_strengths(b))
        # treys ranks 1 (best) .. 7462 (worst)
        theirs = [
            np.sign(evaluator.evaluate([], [to_treys[c] for c in y]) - evaluator.evaluate([], [to_treys[c] for c in x]))
            for x, y in zip(a.tolist(), b.tolist())
        ]
        assert np.array_equal(ours, theirs)


def test_benchmark_runs_on_a_tiny_size():
    from gamut.benchmarks import hands as bench

    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    result = bench.run(parser.parse_args(["--hands", "2000", "--baseline-hands", "200", "--repeats", "2"]))
    for key in ("ours_5card_per_s", "ours_7card_per_s", "treys_5card_per_s", "phevaluator_5card_per_s"):
        assert result[key] > 0
    assert result["ours_vs_treys_5card"] == pytest.approx(result["ours_5card_per_s"] / result["treys_5card_per_s"])
