"""Hand comparisons of Palace Poker, valued by the shared evaluator ``gamut.envs.hands``.

A player's cards are their palace (3), banner (1) and soldiers (0..5); their
hand is the best five-card poker hand among them. In a battle each side's
cards of the opponent's banner suit do not count (fewer than five counting
cards make a partial hand, valued on the same scale by ``gamut.envs.hands``); at a
showdown nothing is excluded. These kernels also end a hand: the pot
split (``finish``), the exits that end it at once (``hand_over_after_exit``)
and the showdown (``showdown``).
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs import hands
from gamut.envs.cards import popcount
from gamut.envs.palace_poker import layout as L

MAX_CARDS = 9  # palace 3 + banner 1 + soldiers 5 when hands are compared


@numba.njit(cache=True)
def player_cards(state, p, out):
    """Write seat ``p``'s palace, banner and soldier cards (ascending ids) to ``out``; return the count."""
    n = 0
    for c in range(L.NUM_CARDS):
        loc = state[L.S_LOC + c]
        if loc == L.LOC_PALACE + p or loc == L.LOC_BANNER + p or loc == L.LOC_SOLDIER + p:
            out[n] = c
            n += 1
    return n


@numba.njit(cache=True)
def palace_mask(state, p):
    """Bitmask of the cards in seat ``p``'s palace."""
    mask = np.int64(0)
    for c in range(L.NUM_CARDS):
        if state[L.S_LOC + c] == L.LOC_PALACE + p:
            mask |= np.int64(1) << c
    return mask


@numba.njit(cache=True)
def player_hand_value(state, p, ignore_suit, table):
    """Strength of seat ``p``'s best hand, not counting cards of ``ignore_suit`` (-1: none).

    ``gamut.envs.hands`` strengths: higher is better, and hands of fewer than five
    counting cards sit on the same scale. ``table`` is ``gamut.envs.hands.HAND_TABLE``.
    """
    cards = np.empty(MAX_CARDS, dtype=np.int64)
    n = player_cards(state, p, cards)
    return hands.best_strength(cards, n, ignore_suit, table)


@numba.njit(cache=True)
def own_suit_count(state, p):
    """Number of seat ``p``'s cards (palace, banner, soldiers) of their own banner suit."""
    suit = state[L.S_BANNER + p] & 3
    n = 0
    for c in range(L.NUM_CARDS):
        loc = state[L.S_LOC + c]
        if (c & 3) == suit and (loc == L.LOC_PALACE + p or loc == L.LOC_BANNER + p or loc == L.LOC_SOLDIER + p):
            n += 1
    return n


@numba.njit(cache=True)
def battle_winner(state, a, d, table):
    """Winner (``a`` or ``d``) of a called battle, or -1 when it is a tie.

    Each hand excludes the other's banner suit; equal hands go to the player
    with more cards of their own banner suit.
    """
    va = player_hand_value(state, a, state[L.S_BANNER + d] & 3, table)
    vd = player_hand_value(state, d, state[L.S_BANNER + a] & 3, table)
    order = battle_order(va, own_suit_count(state, a), vd, own_suit_count(state, d))
    return a if order > 0 else d if order < 0 else -1


@numba.njit(cache=True)
def battle_order(value_a, own_a, value_d, own_d):
    """1 when side a wins a called battle, -1 when side d does, 0 on a tie.

    ``value_*`` is each side's hand value without the other's banner suit,
    ``own_*`` its count of cards of its own banner suit: the better hand
    wins, and equal hands go to the side with more of its own suit.
    """
    if value_a != value_d:
        return 1 if value_a > value_d else -1
    if own_a != own_d:
        return 1 if own_a > own_d else -1
    return 0


@numba.njit(cache=True)
def banner_suit(state, p):
    """Suit ``0..3`` of seat ``p``'s banner."""
    return state[L.S_BANNER + p] & 3


@numba.njit(cache=True)
def finish(state, winners, end_kind):
    """End the hand: split the pot among the seats of the mask ``winners``.

    Equal whole-chip shares; the odd chips go one each to the winners nearest
    the dealer's left (the lowest seats).
    """
    pot = 0
    for p in range(L.MAX_PLAYERS):
        pot += state[L.S_CONTRIB + p]
    k = popcount(winners)
    share = pot // k
    odd = pot - share * k
    for p in range(L.MAX_PLAYERS):
        if (winners >> p) & 1:
            state[L.S_PAYOUT + p] = share + (1 if odd > 0 else 0)
            odd -= 1
    state[L.S_PHASE] = L.PH_OVER
    state[L.S_END] = end_kind
    state[L.S_ACTOR] = -1


@numba.njit(cache=True)
def hand_over_after_exit(state):
    """After a player left: end the hand if one player is left or all left share one banner suit."""
    live = state[L.S_IN]
    if popcount(live) == 1:
        finish(state, live, L.END_LAST)
        return True
    suit = -1
    for p in range(L.MAX_PLAYERS):
        if (live >> p) & 1:
            if suit == -1:
                suit = banner_suit(state, p)
            elif banner_suit(state, p) != suit:
                return False
    finish(state, live, L.END_SAME_SUIT)
    return True


@numba.njit(cache=True)
def showdown(state, end_kind, table):
    """End the hand with a showdown: the best hands (nothing excluded) split the pot."""
    live = state[L.S_IN]
    best = np.int64(-1)
    winners = np.int64(0)
    for p in range(L.MAX_PLAYERS):
        if (live >> p) & 1:
            v = player_hand_value(state, p, -1, table)
            if v > best:
                best = v
                winners = np.int64(1) << p
            elif v == best:
                winners |= np.int64(1) << p
    finish(state, winners, end_kind)
