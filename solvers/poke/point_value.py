"""What a point below the line is worth above the line, measured on full rubbers.

One sample: play a rubber between two copies of the heuristic (common random
deals, ``gamut.solvers.poke.match``); pick one of its deals uniformly at random and
a seat; replay the same rubber with that seat given ``extra`` more points
below the line at the start of that deal. The change of the seat's final
above-the-line margin, divided by ``extra``, is an unbiased sample of the
marginal value of a below-the-line point at a random moment of a rubber under
that play (play stays the same until the points first change a decision or a
game result).

The same samples by score context (``point_value_contexts``): each sample
also records the score sheet at the start of the chosen deal, from the side
of the seat given the point (its below-the-line score and the other's, games
won by each). ``context_moments`` sums them by cell: the games score and bins
of both below-the-line scores (``BELOW_BINS``). The mean of a cell is the
value of a point where the score stands, instead of one number averaged over
every situation.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.poke import kernels as K
from gamut.envs.rng import splitmix64
from gamut.solvers.poke.match import play_heuristic_match

# Context columns of point_value_contexts, from the side of the seat given the point.
CONTEXT_COLUMNS = ("below_seat", "below_other", "games_seat", "games_other")
# Below-the-line score bins by lower edge: 0-4, 5-9, 10-14, 15 and more (a game ends at 20).
BELOW_BINS = (0, 5, 10, 15)
BIN_LABELS = ("0-4", "5-9", "10-14", "15+")


@numba.njit(cache=True)
def _play_with_bonus(cfg, params, seed, bonus_deal, bonus_seat, extra, state, order):
    # A heuristic rubber with `extra` below-line points for `bonus_seat` from deal
    # `bonus_deal` (-1: never). Returns (seat 0 margin, deals played).
    margin = play_heuristic_match(cfg, params, seed, state, order, bonus_deal, bonus_seat, extra)
    return margin, state[K.S_DEALS_DONE]


@numba.njit(cache=True)
def _point_values(cfg, params, seeds, extra, out, context):
    # context: (n, 4), or (0, 4) when not wanted: the sheet at the start of the bonus deal, bonus seat's side.
    state = np.empty(K.STATE_SIZE, dtype=np.int64)
    order = np.empty(52, dtype=np.int64)
    cut = cfg.copy()
    for i in range(seeds.shape[0]):
        base, deals = _play_with_bonus(cfg, params, seeds[i], -1, 0, extra, state, order)
        x = splitmix64(seeds[i] ^ np.uint64(0x5DEECE66D))
        bonus_deal = np.int64(x % np.uint64(deals))
        seat = np.int64((x >> np.uint64(32)) & np.uint64(1))
        moved, _ = _play_with_bonus(cfg, params, seeds[i], bonus_deal, seat, extra, state, order)
        sign = 1.0 if seat == 0 else -1.0
        out[i] = sign * (moved - base) / extra
        if context.shape[0] == 0:
            continue
        if bonus_deal == 0:
            state[:] = 0
        else:
            # The same rubber stopped after bonus_deal deals: its sheet is the one the bonus deal starts from.
            cut[K.C_MAX_DEALS] = bonus_deal
            play_heuristic_match(cut, params, seeds[i], state, order)
        context[i, 0] = state[K.S_BELOW + seat]
        context[i, 1] = state[K.S_BELOW + 1 - seat]
        context[i, 2] = state[K.S_GAMES + seat]
        context[i, 3] = state[K.S_GAMES + 1 - seat]


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
    return _samples(cfg, params, seeds, extra, with_context=False)[0]


def point_value_contexts(cfg: np.ndarray, params: np.ndarray, seeds, extra: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The samples of ``point_value_samples`` (the same numbers) and the score sheet each was taken at.

    Returns
    -------
    samples : ndarray, float64, shape (n,)
    context : ndarray, int64, shape (n, 4)
        Columns ``CONTEXT_COLUMNS``: below the line of the seat given the
        point and of the other seat, games won by each, at the start of the
        deal where the point was given.
    """
    return _samples(cfg, params, seeds, extra, with_context=True)


def _samples(cfg, params, seeds, extra, with_context: bool):
    if cfg[K.C_MODE] == K.MODE_DEAL:
        raise ValueError("the value of a point below the line needs mode=game or mode=rubber")
    if extra < 1:
        raise ValueError(f"extra must be >= 1, got {extra}")
    seeds = np.asarray(seeds, dtype=np.uint64)
    both = np.stack([np.asarray(params, np.int64)] * 2)
    out = np.empty(seeds.shape[0])
    context = np.zeros((seeds.shape[0] if with_context else 0, len(CONTEXT_COLUMNS)), dtype=np.int64)
    _point_values(cfg, both, seeds, extra, out, context)
    return out, context


def below_bin(below) -> np.ndarray:
    """Index into ``BELOW_BINS`` of below-the-line scores (``int64``, the shape of ``below``).

    >>> below_bin([0, 4, 5, 19, 23]).tolist()
    [0, 0, 1, 3, 3]
    """
    return np.searchsorted(np.asarray(BELOW_BINS), np.asarray(below), side="right") - 1


def context_moments(samples: np.ndarray, context: np.ndarray) -> list[dict]:
    """``(n, mean, m2)`` of the samples of every non-empty score cell, one row each.

    A cell is the games score (``games_seat``, ``games_other``) and the bins
    of both below-the-line scores (``below_seat_bin``, ``below_other_bin``,
    labelled by ``BIN_LABELS``); ``m2`` is the sum of squared deviations from
    the cell's mean (``gamut.solvers.stats.combine_moments`` merges batches).
    """
    keys = np.stack([context[:, 2], context[:, 3], below_bin(context[:, 0]), below_bin(context[:, 1])], axis=1)
    rows = []
    for key in np.unique(keys, axis=0):
        chosen = samples[(keys == key).all(axis=1)]
        mean = float(chosen.mean())
        rows.append({"games_seat": int(key[0]), "games_other": int(key[1]), "below_seat_bin": BIN_LABELS[key[2]],
                     "below_other_bin": BIN_LABELS[key[3]], "n": int(chosen.size), "mean": mean,
                     "m2": float(((chosen - mean) ** 2).sum())})
    return rows
