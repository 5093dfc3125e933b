"""Batched Poke's chance draw: the card it picks from the stock mask is the one ``chance_outcomes`` lists."""

from __future__ import annotations

import numpy as np

from gamut.envs.poke import kernels as K
from gamut.envs.poke.vector import _kth_card


def test_kth_card_is_the_kth_chance_outcome_of_the_stock():
    rng = np.random.default_rng(0)
    state = np.zeros(K.STATE_SIZE, np.int64)
    listed = np.zeros(52, np.int64)
    full_deck = K.make_config(13, 4, 5, K.MODE_DEAL, K.UNIT_CARD, 1)
    for trial in range(300):
        cfg = full_deck.copy()
        # Random stocks of every size: the deck mask stands for the stock (no hand, no discards).
        cfg[K.C_DECK] = int(np.bitwise_or.reduce(np.int64(1) << rng.choice(52, 1 + trial % 52, replace=False)))
        state[K.S_PHASE] = K.PH_DEAL
        n = K.chance_outcomes(state, cfg, listed)
        assert n == bin(int(cfg[K.C_DECK])).count("1")
        assert [_kth_card(cfg[K.C_DECK], k) for k in range(n)] == listed[:n].tolist()
