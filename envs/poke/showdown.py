"""The poker comparison at the end of a Poke deal, valued by the shared evaluator ``envs.hands``.

Only the player with the higher hand scores, above the line, by the category
of their hand (``HAND_POINTS``); a higher hand with no pair scores 0 and equal
hands score nothing. Hands of fewer than five cards (small variants) are
valued on the same scale, where only pairs, two pairs, three and four of a
kind can occur.
"""

from __future__ import annotations

import numba
import numpy as np

from envs import hands

# Points by category, from no pair up to royal flush (spec table).
HAND_POINTS = np.array([0, 50, 100, 200, 300, 400, 500, 600, 750, 1000], dtype=np.int64)
CATEGORY_NAMES = ("high card", "one pair", "two pairs", "three of a kind", "straight", "flush",
                  "full house", "four of a kind", "straight flush", "royal flush")


@numba.njit(cache=True)
def hand_value(hand, hand_size):
    """(strength, category) of the cards of the mask ``hand`` (``hand_size`` cards).

    Strengths of hands of one size share one total order (higher is better);
    the category indexes ``HAND_POINTS``.
    """
    cards = np.empty(hand_size, dtype=np.int64)
    n = 0
    rest = hand
    while rest:
        c = 0
        while not (rest >> c) & 1:
            c += 1
        cards[n] = c
        n += 1
        rest &= rest - 1
    return hands.poke_hand_value(cards, hand_size)


@numba.njit(cache=True)
def poker_winner(hand0, hand1, hand_size):
    """(winner, points): the player with the higher hand and its points, or (-1, 0) on a tie."""
    s0, cat0 = hand_value(hand0, hand_size)
    s1, cat1 = hand_value(hand1, hand_size)
    if s0 > s1:
        return 0, HAND_POINTS[cat0]
    if s1 > s0:
        return 1, HAND_POINTS[cat1]
    return -1, 0
