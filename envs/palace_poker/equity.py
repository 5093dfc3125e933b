"""Exact battle equity: the share of an opponent's possible palaces that a seat's hand beats.

A battle is decided by cards one side cannot see: the opponent's palace
cards not yet shown to it. :func:`exact_equity` enumerates every set of
those cards that the unseen cards allow, each equally likely, and scores
each with the game's own comparison (``showdown.battle_winner``'s rule: each
hand without the other's banner suit, equal hands to the player with more
cards of their own banner suit): a win counts 1, a tie 1/2. It is the value
the ``heuristic`` agent estimates by sampling palaces, computed exactly.

The state is the one a seat *sees* (``action_features.rebuild_state``):
the cards it may not see lie in the draw pile, and ``S_PUBLIC`` marks every
card whose place it knows. The opponent's hidden palace cards are then drawn
from the cards outside ``S_PUBLIC``.

Cards of the seat's own banner suit do not count in the opponent's hand and
are not of the opponent's suit (a battle joins two banner suits), so they
change nothing: the enumeration draws ``k`` of the hidden cards from the
other unseen cards and weighs each such set by the number of ways,
``C(m, hidden - k)``, to draw the rest from the ``m`` unseen cards of the
seat's suit. With three hidden cards and 45 unseen cards of which 11 are of
the seat's suit that is 6,579 hands to value instead of 14,190.

Worked example (``palace_poker(players=4)``, the first turn): seat 0
(banner ``Kh``, palace ``Ah Ad 7s``) against seat 1, who shows only its
banner ``9s`` and hides three palace cards among the 45 cards seat 0 has
not seen (52 less four banners and its own palace). Seat 0 counts a pair of
aces with a king (its ``7s`` does not count against a spade banner); seat
1's hearts do not count, and of the three-card palaces it may hold only
those that make, with the ``9s``, a pair of aces with a better kicker, two
pair, trips or better beat it: the equity is 0.9922 (the ``action_features``
worked example; ``tests/test_palace_action_features.py`` checks the kernel
against a count over every combination of the unseen cards).
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs import hands
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker.showdown import MAX_CARDS, banner_suit, battle_order, own_suit_count, player_cards

WORK_SIZE = 2 * MAX_CARDS + L.NUM_CARDS  # scratch: own cards, opponent's cards, unseen pool


@numba.njit(cache=True)
def _choose(n, k):
    # Binomial coefficient as a float (0 when k > n).
    if k < 0 or k > n:
        return 0.0
    out = 1.0
    for i in range(k):
        out = out * (n - i) / (i + 1)
    return out


@numba.njit(cache=True)
def _score(theirs, count, my_suit, o_suit, v_me, own_me, table):
    # 1 if the seat's hand beats theirs[:count], 1/2 on a full tie, else 0 (the game's battle order).
    v_o = hands.best_strength(theirs, count, my_suit, table)
    own_o = 0
    for i in range(count):
        if (theirs[i] & 3) == o_suit:
            own_o += 1
    return 0.5 * (battle_order(v_me, own_me, v_o, own_o) + 1)


@numba.njit(cache=True)
def exact_equity(state, p, o, table, work):
    """Seat ``p``'s exact chance float of beating seat ``o`` in a called battle, ties counting one half.

    Parameters
    ----------
    state : int64 (L.STATE_SIZE,)
        The position as ``p`` sees it (see the module docstring): ``o``'s
        palace holds only the cards ``p`` was shown.
    p, o : int
        The two seats, of different banner suits.
    table : int64 array
        ``gamut.envs.hands.HAND_TABLE``.
    work : int64 (WORK_SIZE,)
        Scratch.

    Returns
    -------
    float
        In [0, 1]; with nothing hidden, the one comparison's score.
    """
    mine = work[:MAX_CARDS]
    n_mine = player_cards(state, p, mine)
    my_suit = banner_suit(state, p)
    o_suit = banner_suit(state, o)
    v_me = hands.best_strength(mine, n_mine, o_suit, table)
    own_me = own_suit_count(state, p)
    theirs = work[MAX_CARDS:2 * MAX_CARDS]
    n_seen = player_cards(state, o, theirs)
    hidden = L.PALACE_SIZE
    for c in range(L.NUM_CARDS):
        if state[L.S_LOC + c] == L.LOC_PALACE + o:
            hidden -= 1
    # Unseen cards not of p's suit (the pool), and how many are of p's suit (they do not matter).
    pool = work[2 * MAX_CARDS:]
    n_pool = 0
    mute = 0
    for c in range(L.NUM_CARDS):
        if not (state[L.S_PUBLIC] >> c) & 1:
            if (c & 3) == my_suit:
                mute += 1
            else:
                pool[n_pool] = c
                n_pool += 1
    hidden = min(hidden, n_pool + mute)
    total = 0.0
    weight_sum = 0.0
    for k in range(hidden + 1):
        weight = _choose(mute, hidden - k)
        if weight == 0.0 or k > n_pool:
            continue
        if k == 0:
            total += weight * _score(theirs, n_seen, my_suit, o_suit, v_me, own_me, table)
            weight_sum += weight
            continue
        # Every k-subset of the pool, k <= 3, in lexicographic order: index i0 < i1 < i2.
        idx = np.zeros(3, np.int64)
        for j in range(k):
            idx[j] = j
        while True:
            for j in range(k):
                theirs[n_seen + j] = pool[idx[j]]
            total += weight * _score(theirs, n_seen + k, my_suit, o_suit, v_me, own_me, table)
            weight_sum += weight
            j = k - 1
            while j >= 0 and idx[j] == n_pool - k + j:
                j -= 1
            if j < 0:
                break
            idx[j] += 1
            for t in range(j + 1, k):
                idx[t] = idx[t - 1] + 1
    return total / weight_sum
