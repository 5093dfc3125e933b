"""Compiled pieces of the Poke doubling advisor: determinizations of a draw decision and rubber rollouts.

A *determinization* of a draw decision is a full state that the drawer
cannot tell from the real one, plus the order in which the stock will be
dealt. :func:`determinize` draws it from a counter-based stream keyed by one
integer (``gamut.envs.rng.splitmix64``): the cards the drawer has not seen
(the deck minus its dealt and drawn cards) are shuffled; the first ones make
the opponent's hand, the next ones its discards, and the rest, in that
order, is the stock. Working back through the opponent's draws, the cards it
drew at each are a uniformly random subset of its hand after it. This is the
uniform belief over the hidden cards (every assignment consistent with what
the drawer saw is equally likely), the belief of ``gamut.envs.poke.resample``
at a draw decision; it is not a posterior under a model of the opponent's
draws.

:func:`rollout_returns` plays, for every determinization and every option,
the option and then the rest of the match with both seats following the
threshold heuristic (``gamut.solvers.poke.heuristic``, one threshold set per
seat). Chance deals the current deal's stock in the determinization's order
and every later deal from ``gamut.solvers.poke.match.fill_deal_order`` keyed
by the rollout's seed, so every option of a rollout meets the same hidden
cards, the same stock order and the same later deals (common random numbers).

Worked example of the keys: rollout ``r`` of an advice seeded ``s`` uses
``rollout_key(s, r)``; its determinization is drawn from that key and its
later deals are ``fill_deal_order(deck, rollout_key(s, r), deal)``.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.poke import kernels as K
from gamut.envs.rng import splitmix64
from gamut.solvers.poke.draw_table import NUM_CELLS, NUM_MCCFR_CODES, THRESHOLD, play_seats_to_end


@numba.njit(cache=True)
def rollout_key(seed, rollout):
    """The ``uint64`` key of rollout number ``rollout`` of an advice seeded ``seed``."""
    return splitmix64(np.uint64(seed) ^ splitmix64(np.uint64(rollout) + np.uint64(0x2545F4914F6CDD1D)))


@numba.njit(cache=True)
def _below(x, n):
    # A number in 0..n-1 from one splitmix64 output (modulo bias below n / 2**64).
    return np.int64(x % np.uint64(n))


@numba.njit(cache=True)
def determinize(state, cfg, player, key, out, order):
    """Write into ``out`` a state ``player`` cannot tell from ``state`` (a draw decision); return the stock size.

    Parameters
    ----------
    state : ndarray, int64, shape (STATE_SIZE,)
        A position in the draw phase (``PH_DRAW``), read only.
    cfg : ndarray, int64, shape (CFG_SIZE,)
    player : int
        The player whose information is kept (the drawer).
    key : uint64
        Seeds the draw (``rollout_key``); the same key gives the same state.
    out : ndarray, int64, shape (STATE_SIZE,)
        Written: the determinized state.
    order : ndarray, int64, shape (52,)
        Written: the unseen cards shuffled; ``order[:n]`` with ``n`` returned.
        The cards of the opponent's hand and discards come first; the stock
        is dealt in the order of the rest (``match.next_card`` skips the others).
    """
    opp = 1 - player
    out[:] = state
    seen = state[K.S_DEALT + player]
    for k in range(3):
        seen |= state[K.S_DRAWN + 3 * player + k]
    n = K.cards_of(cfg[K.C_DECK] & ~seen, order)
    x = splitmix64(np.uint64(key))
    for i in range(n - 1, 0, -1):
        x = splitmix64(x)
        j = _below(x, i + 1)
        order[i], order[j] = order[j], order[i]
    size = K.popcount(state[K.S_HAND + opp])
    hand = np.int64(0)
    for i in range(size):
        hand |= np.int64(1) << order[i]
    out[K.S_HAND + opp] = hand
    used = size
    discards = np.int64(0)
    for k in range(3):
        discards |= state[K.S_DISC + 3 * player + k]
        out[K.S_DISC + 3 * opp + k] = 0
        out[K.S_DRAWN + 3 * opp + k] = 0
    held = np.empty(K.MAX_HAND_SIZE, dtype=np.int64)
    for k in range(state[K.S_NDRAWS + opp] - 1, -1, -1):
        count = K.popcount(state[K.S_DISC + 3 * opp + k])
        # The cards drawn at draw k: a uniformly random subset of the hand after it (partial Fisher-Yates).
        m = K.cards_of(hand, held)
        drawn = np.int64(0)
        for i in range(count):
            x = splitmix64(x)
            j = i + _below(x, m - i)
            held[i], held[j] = held[j], held[i]
            drawn |= np.int64(1) << held[i]
        discarded = np.int64(0)
        for i in range(count):
            discarded |= np.int64(1) << order[used + i]
        used += count
        out[K.S_DISC + 3 * opp + k] = discarded
        out[K.S_DRAWN + 3 * opp + k] = drawn
        discards |= discarded
        hand = (hand & ~drawn) | discarded
    out[K.S_DEALT + opp] = hand
    out[K.S_DISCARDS] = discards
    return n


@numba.njit(cache=True)
def _rollout_returns(state, cfg, player, actions, params, trick_value, seed, first, out):
    det = np.empty_like(state)
    work = np.empty_like(state)
    order = np.empty(52, dtype=np.int64)
    deal_order = np.empty(52, dtype=np.int64)
    result = np.zeros(2)
    # Both seats heuristic for the rest of the match: threshold seats of the draw-table kernels.
    kinds = np.full(2, THRESHOLD, dtype=np.int64)
    tables = np.zeros((2, NUM_CELLS))
    codes = np.zeros((2, NUM_MCCFR_CODES))
    for r in range(out.shape[0]):
        key = rollout_key(seed, first + r)
        n = determinize(state, cfg, player, key, det, order)
        for a in range(actions.shape[0]):
            work[:] = det
            K.apply_action(work, cfg, actions[a])
            play_seats_to_end(work, cfg, kinds, params, tables, codes, key, order, n, deal_order)
            K.returns(work, cfg, trick_value, result)
            out[r, a] = result[player]


def rollout_returns(state: np.ndarray, cfg: np.ndarray, player: int, actions: np.ndarray, params: np.ndarray,
                    trick_value: float, seed: int, first: int, count: int) -> np.ndarray:
    """``player``'s final returns of rollouts ``first .. first + count - 1`` for each draw option.

    Parameters
    ----------
    state : ndarray, int64, shape (STATE_SIZE,)
        A draw decision of ``player``.
    cfg : ndarray, int64, shape (CFG_SIZE,)
    player : int
    actions : ndarray, int64, shape (A,)
        Legal draw actions of ``player`` at ``state``.
    params : ndarray, int64, shape (2, NUM_PARAMS)
        Heuristic thresholds of seat 0 and seat 1 for the rest of the match.
    trick_value : float
        The game's ``trick_value`` (counts in ``deal`` mode only).
    seed, first, count : int
        Rollout ``r`` uses ``rollout_key(seed, r)``: chunks of any size give the same numbers.

    Returns
    -------
    ndarray, float64, shape (count, A)
    """
    out = np.empty((count, len(actions)), dtype=np.float64)
    _rollout_returns(state, cfg, player, np.asarray(actions, np.int64), np.asarray(params, np.int64),
                     float(trick_value), np.uint64(seed), np.int64(first), out)
    return out
