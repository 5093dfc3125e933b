"""What a point below the line is worth above the line, measured on full rubbers.

One sample: play a rubber between two copies of the heuristic (common random
deals, ``gamut.solvers.poke.match``); pick one of its deals uniformly at random and
a seat; replay the same rubber with that seat given ``extra`` more points
below the line at the start of that deal. The change of the seat's final
above-the-line margin, divided by ``extra``, is an unbiased sample of the
marginal value of a below-the-line point at a random moment of a rubber under
that play (play stays the same until the points first change a decision or a
game result).
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.poke import kernels as K
from gamut.envs.rng import splitmix64
from gamut.solvers.poke.match import play_heuristic_match


@numba.njit(cache=True)
def _play_with_bonus(cfg, params, seed, bonus_deal, bonus_seat, extra, state, order):
    # A heuristic rubber with `extra` below-line points for `bonus_seat` from deal
    # `bonus_deal` (-1: never). Returns (seat 0 margin, deals played).
    margin = play_heuristic_match(cfg, params, seed, state, order, bonus_deal, bonus_seat, extra)
    return margin, state[K.S_DEALS_DONE]


@numba.njit(cache=True)
def _point_values(cfg, params, seeds, extra, out):
    state = np.empty(K.STATE_SIZE, dtype=np.int64)
    order = np.empty(52, dtype=np.int64)
    for i in range(seeds.shape[0]):
        base, deals = _play_with_bonus(cfg, params, seeds[i], -1, 0, extra, state, order)
        x = splitmix64(seeds[i] ^ np.uint64(0x5DEECE66D))
        bonus_deal = np.int64(x % np.uint64(deals))
        seat = np.int64((x >> np.uint64(32)) & np.uint64(1))
        moved, _ = _play_with_bonus(cfg, params, seeds[i], bonus_deal, seat, extra, state, order)
        sign = 1.0 if seat == 0 else -1.0
        out[i] = sign * (moved - base) / extra


def point_value_samples(cfg: np.ndarray, params: np.ndarray, seeds, extra: int = 1) -> np.ndarray:
    """Samples of the above-the-line value of one below-the-line point (see the module docstring).

    Parameters
    ----------
    cfg : ndarray, int64, shape (CFG_SIZE,)
        Kernel configuration of a ``rubber`` (or ``game``) mode Poke game.
    params : ndarray, int64, shape (NUM_PARAMS,)
        Heuristic thresholds of both players.
    seeds : array_like of int, shape (n,)
        One rubber per seed (``gamut.solvers.poke.match.match_seeds``).
    extra : int
        Points added (>= 1); the change is divided by it.

    Returns
    -------
    ndarray, float64, shape (n,)
    """
    if cfg[K.C_MODE] == K.MODE_DEAL:
        raise ValueError("the value of a point below the line needs mode=game or mode=rubber")
    if extra < 1:
        raise ValueError(f"extra must be >= 1, got {extra}")
    seeds = np.asarray(seeds, dtype=np.uint64)
    both = np.stack([np.asarray(params, np.int64)] * 2)
    out = np.empty(seeds.shape[0])
    _point_values(cfg, both, seeds, extra, out)
    return out
