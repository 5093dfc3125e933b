"""The poker comparison at the end of a Poke deal, valued by the shared evaluator ``gamut.envs.hands``.

Only the player with the higher hand scores, above the line, by the category
of their hand (``HAND_POINTS``); a higher hand with no pair scores 0 and equal
hands score nothing. Hands of fewer than five cards (small variants) are
valued on the same scale, where only pairs, two pairs, three and four of a
kind can occur.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs import hands

# Points by category; looked up by the evaluator's category names so that the
# table follows envs.hands' category numbering (a renamed category fails here).
_POINTS_BY_NAME = {"high card": 0, "one pair": 50, "two pair": 100, "three of a kind": 200, "straight": 300,
                   "flush": 400, "full house": 500, "four of a kind": 600, "straight flush": 750,
                   "royal flush": 1000}
HAND_POINTS = np.array([_POINTS_BY_NAME[name] for name in hands.CATEGORY_NAMES], dtype=np.int64)

# A global array is compiled into the kernels as a read-only constant (551 KB, read once).
_HAND_TABLE = np.ascontiguousarray(hands.HAND_TABLE)


@numba.njit(cache=True)
def hand_strength(hand):
    """Evaluator strength of the cards of the mask ``hand`` (at most five cards).

    Hands of every size share the evaluator's scale (``gamut.envs.hands``: higher is
    better, equal is a tie, ``category_of(strength)`` indexes ``HAND_POINTS``).
    """
    # Five scalars, not an array: nothing is allocated per hand.
    c0 = c1 = c2 = c3 = c4 = 0
    n = 0
    card = 0
    rest = hand
    while rest:
        if rest & 1:
            if n == 0:
                c0 = card
            elif n == 1:
                c1 = card
            elif n == 2:
                c2 = card
            elif n == 3:
                c3 = card
            else:
                c4 = card
            n += 1
        rest >>= 1
        card += 1
    return hands.best_strength((c0, c1, c2, c3, c4), n, -1, _HAND_TABLE)


@numba.njit(cache=True)
def poker_winner(hand0, hand1):
    """(winner, points): the player with the higher hand and its points, or (-1, 0) on a tie."""
    s0 = hand_strength(hand0)
    s1 = hand_strength(hand1)
    if s0 > s1:
        return 0, HAND_POINTS[hands.category_of(s0)]
    if s1 > s0:
        return 1, HAND_POINTS[hands.category_of(s1)]
    return -1, 0
