"""Poker Squares positions for the search tests, built through the game's kernels."""

import numpy as np

from envs.poker_squares import kernels as K


def dealt_state(deal, placed_cells):
    """The one-player state after ``deal[i]`` went to ``placed_cells[i]``, with the next card dealt.

    ``deal``: int card ids, at least ``len(placed_cells) + 1`` of them; returns int64 (STATE_SIZE,).
    """
    st = np.empty(K.STATE_SIZE, dtype=np.int64)
    K.init_state(st)
    for i, cell in enumerate(placed_cells):
        K.deal_card(st, deal[i])
        K.place_card(st, 0, cell)
    K.deal_card(st, deal[len(placed_cells)])
    return st
