"""The hand_frequencies experiment: dealing, counting and the exact reference counts."""

import numpy as np
import pytest
from math import comb

from gamut.experiments.trials import hand_frequencies as hf


def test_dealt_hands_hold_distinct_cards_and_every_card_appears():
    hands = hf.deal_hands(np.random.default_rng(0), 20_000, 7)
    assert hands.shape == (20_000, 7) and hands.max() < 52
    assert all(len(set(row)) == 7 for row in hands[:2000].tolist())
    counts = np.bincount(hands.ravel(), minlength=52)
    assert counts.min() > 0.85 * counts.mean() and counts.max() < 1.15 * counts.mean()


def test_exact_counts_cover_every_hand():
    assert sum(hf.EXACT_COUNTS[5]) == comb(52, 5)
    assert sum(hf.EXACT_COUNTS[7]) == comb(52, 7)


def test_a_trial_counts_every_hand_once_and_is_seeded():
    params = {"hands_per_trial": 150_000, "hand_sizes": [7], "seed": 0, "trials": 1}
    rows = hf.run_trial(params, {"trial": 0, "hand_size": 7}, seed=5)
    assert sum(r["count"] for r in rows) == 150_000
    assert rows == hf.run_trial(params, {"trial": 0, "hand_size": 7}, seed=5)


def test_bad_hand_size_is_named():
    with pytest.raises(ValueError, match="'hand_sizes': 6"):
        hf.validate({"hands_per_trial": 10, "hand_sizes": [5, 6]})
