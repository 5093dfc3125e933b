"""Hand comparisons of Palace Poker, valued by the shared evaluator ``envs.hands``.

A player's cards are their palace (3), banner (1) and soldiers (0..5); their
hand is the best five-card poker hand among them. In a battle each side's
cards of the opponent's banner suit do not count (fewer than five counting
cards make a partial hand, valued on the same scale by ``envs.hands``); at a
showdown nothing is excluded. These kernels read the ``state`` array of
``envs.palace_poker.kernels`` (layout constants are repeated here as the
kernels module imports this one).
"""

from __future__ import annotations

import numba
import numpy as np

from envs import hands

NUM_CARDS = 52
MAX_PLAYERS = 10
MAX_CARDS = 9  # palace 3 + banner 1 + soldiers 5 when hands are compared
S_LOC = 0
S_BANNER = NUM_CARDS + 2 * MAX_PLAYERS
LOC_BANNER = 3
LOC_PALACE = LOC_BANNER + MAX_PLAYERS
LOC_SOLDIER = LOC_PALACE + MAX_PLAYERS


@numba.njit(cache=True)
def player_cards(state, p, out):
    """Write seat ``p``'s palace, banner and soldier cards (ascending ids) to ``out``; return the count."""
    n = 0
    for c in range(NUM_CARDS):
        loc = state[S_LOC + c]
        if loc == LOC_PALACE + p or loc == LOC_BANNER + p or loc == LOC_SOLDIER + p:
            out[n] = c
            n += 1
    return n


@numba.njit(cache=True)
def palace_mask(state, p):
    """Bitmask of the cards in seat ``p``'s palace."""
    mask = np.int64(0)
    for c in range(NUM_CARDS):
        if state[S_LOC + c] == LOC_PALACE + p:
            mask |= np.int64(1) << c
    return mask


@numba.njit(cache=True)
def player_hand_value(state, p, ignore_suit):
    """Strength of seat ``p``'s best hand, not counting cards of ``ignore_suit`` (-1: none).

    Higher is better; values of every hand size share one total order.
    """
    cards = np.empty(MAX_CARDS, dtype=np.int64)
    n = player_cards(state, p, cards)
    return hands.best_hand_value(cards[:n], ignore_suit)


@numba.njit(cache=True)
def own_suit_count(state, p):
    """Number of seat ``p``'s cards (palace, banner, soldiers) of their own banner suit."""
    suit = state[S_BANNER + p] & 3
    n = 0
    for c in range(NUM_CARDS):
        loc = state[S_LOC + c]
        if (c & 3) == suit and (loc == LOC_PALACE + p or loc == LOC_BANNER + p or loc == LOC_SOLDIER + p):
            n += 1
    return n


@numba.njit(cache=True)
def battle_winner(state, a, d):
    """Winner (``a`` or ``d``) of a called battle, or -1 when it is a tie.

    Each hand excludes the other's banner suit; equal hands go to the player
    with more cards of their own banner suit.
    """
    va = player_hand_value(state, a, state[S_BANNER + d] & 3)
    vd = player_hand_value(state, d, state[S_BANNER + a] & 3)
    if va != vd:
        return a if va > vd else d
    na = own_suit_count(state, a)
    nd = own_suit_count(state, d)
    if na != nd:
        return a if na > nd else d
    return -1
