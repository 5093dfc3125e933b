"""Random play of Poke in compiled loops: seeded rollouts and the benchmark's random matches.

Randomness comes from an explicit splitmix64 stream (a one-element ``uint64``
array), never from a global generator: the same seed gives the same play.
Player actions are uniform over the legal ones; chance draws a card uniformly
from the stock, which is exactly the chance distribution of the game.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.poke.kernels import (
    PH_DEAL, PH_OVER, PH_REPLACE, S_ABOVE, S_PHASE, STATE_SIZE, apply_action, init_state, legal_actions,
    lowest_card, popcount, stock_mask,
)
from gamut.envs.rng import splitmix64


@numba.njit(cache=True)
def _next_random(rng):
    # splitmix64 step on a one-element uint64 array: explicit, seedable, allocation free.
    x = rng[0]
    rng[0] = x + np.uint64(0x9E3779B97F4A7C15)
    return splitmix64(x)


@numba.njit(cache=True)
def _random_below(rng, n):
    return np.int64(_next_random(rng) % np.uint64(n))


@numba.njit(cache=True)
def _random_stock_card(state, cfg, rng):
    # The k-th lowest card of the stock, k uniform: the chance distribution without listing it.
    stock = stock_mask(state, cfg)
    for _ in range(_random_below(rng, popcount(stock))):
        stock &= stock - 1
    return lowest_card(stock)


@numba.njit(cache=True)
def _rollout(state, cfg, rng, buf):
    steps = 0
    while state[S_PHASE] != PH_OVER:
        if state[S_PHASE] == PH_DEAL or state[S_PHASE] == PH_REPLACE:
            apply_action(state, cfg, _random_stock_card(state, cfg, rng))
        else:
            n = legal_actions(state, cfg, buf)
            apply_action(state, cfg, buf[_random_below(rng, n)])
        steps += 1
    return steps


@numba.njit(cache=True)
def random_rollout(state, cfg, seed):
    """Play ``state`` to the end in place: uniform random actions and exact chance.

    ``seed`` (int) seeds a splitmix64 generator; the same seed gives the same
    play. Returns the number of actions applied.
    """
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    buf = np.empty(64, dtype=np.int64)
    return _rollout(state, cfg, rng, buf)


@numba.njit(cache=True)
def random_matches(cfg, num_matches, seed, out_returns):
    """Play ``num_matches`` random matches (deals, games or rubbers by ``cfg``) from the start.

    Uniform random actions, exact chance, one splitmix64 stream seeded by
    ``seed``. Writes player 0's above-the-line difference of each into
    ``out_returns`` (``float64``, ``(num_matches,)``). Returns the total number
    of actions applied (chance included).
    """
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    buf = np.empty(64, dtype=np.int64)
    state = np.empty(STATE_SIZE, dtype=np.int64)
    total = 0
    for i in range(num_matches):
        init_state(state, cfg)
        total += _rollout(state, cfg, rng, buf)
        out_returns[i] = state[S_ABOVE] - state[S_ABOVE + 1]
    return total
