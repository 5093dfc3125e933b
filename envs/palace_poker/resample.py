"""Resampling a full Palace Poker state consistent with one player's information.

The only cards a player does not see are the other players' palaces (minus
those shown to them in called battles); every other chance outcome (banners,
set-aside cards, bought cards) is public. A resampled state keeps the whole
history and replaces the hidden palace cards, uniformly over the assignments
that reproduce everything the player observed:

* a card is first seen when it is bought. Before that it was in the initial
  draw pile (epoch 0) or in the palace of a player who left the hand and whose
  palace reached the draw pile at the next reshuffle of the discard pile
  (epoch ``k`` = reshuffles before leaving + 1). So cards first bought in
  epoch ``k >= 1`` fill hidden palace slots of epoch ``k``; in an epoch that
  has ended (its draw pile ran out) they fill all of them.
* remaining hidden slots take cards never seen, uniformly without
  replacement; the rest of those stay in the initial draw pile.
* battles between two other players were decided by their hidden palaces:
  a candidate is replayed and rejected unless every exit and the final
  payouts are the same (rejection keeps the distribution uniform over
  consistent assignments).

Every consistent history has the same chance probability (pile sizes are
public), so this is the uniform posterior over hidden cards that ignores how
the other players' decisions depend on their cards, as OpenSpiel's ISMCTS
expects.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.hands import HAND_TABLE
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L
from gamut.envs.rng import rng_state, shuffle

MAX_TRIES = 200_000
NEVER = 1 << 30


@numba.njit(cache=True)
def _replay_matches(history, length, cfg, outs, payouts, state, table):
    # Replay ``history``; True when every step is possible and every exit and
    # the final payouts match the recorded ones.
    K.init_state(state, cfg)
    for i in range(length):
        ph = state[L.S_PHASE]
        a = history[i]
        if (ph == L.PH_BANNER or ph == L.PH_PALACE or ph == L.PH_BUY) and state[L.S_LOC + a] != L.LOC_DRAW:
            return False
        K.apply_action(state, cfg, a, table)
        if state[L.S_LAST_OUT] != outs[i]:
            return False
    for q in range(L.MAX_PLAYERS):
        if state[L.S_PAYOUT + q] != payouts[q]:
            return False
    return True


@numba.njit(cache=True)
def resample_history(history, cfg, player, seed, max_tries, out, table):
    """Write to ``out`` a history consistent with ``player``'s information; return the tries used.

    ``history`` (``int64``, ``(L,)``) is the true history, ``out`` the same
    shape, ``table`` is ``gamut.envs.hands.HAND_TABLE``. Returns -1 if no candidate
    matched within ``max_tries``.
    """
    length = history.shape[0]
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    K.init_state(state, cfg)
    slot_index = np.full(L.MAX_PLAYERS * L.PALACE_SIZE, -1, dtype=np.int64)
    slot_owner = np.zeros(L.MAX_PLAYERS * L.PALACE_SIZE, dtype=np.int64)
    num_slots = 0
    first_epoch = np.full(L.NUM_CARDS, -1, dtype=np.int64)
    leave_epoch = np.full(L.MAX_PLAYERS, NEVER, dtype=np.int64)
    outs = np.zeros(length, dtype=np.int64)
    for i in range(length):
        ph = state[L.S_PHASE]
        a = history[i]
        if ph == L.PH_PALACE:
            slot_index[num_slots] = i
            slot_owner[num_slots] = state[L.S_DEAL_SEAT]
            num_slots += 1
        elif ph == L.PH_BUY and first_epoch[a] < 0:
            first_epoch[a] = state[L.S_RESHUFFLES]
        K.apply_action(state, cfg, a, table)
        outs[i] = state[L.S_LAST_OUT]
        for q in range(L.MAX_PLAYERS):
            if (outs[i] >> q) & 1:
                leave_epoch[q] = state[L.S_RESHUFFLES] + 1
    payouts = state[L.S_PAYOUT:L.S_PAYOUT + L.MAX_PLAYERS].copy()
    last_epoch = state[L.S_RESHUFFLES]
    # Cards whose whereabouts the player always knew: their own palace, palaces
    # shown to them, and banners (a banner can be taken, discarded and bought,
    # but it never sat in a hidden palace).
    known = state[L.S_KNOWN + player]
    for q in range(cfg[L.C_PLAYERS]):
        if state[L.S_BANNER + q] >= 0:
            known |= np.int64(1) << state[L.S_BANNER + q]
    # Hidden slots and the cards that can fill them.
    hidden = np.zeros(num_slots, dtype=np.int64)
    num_hidden = 0
    pool = np.zeros(L.NUM_CARDS, dtype=np.int64)
    for s in range(num_slots):
        c = history[slot_index[s]]
        if slot_owner[s] != player and not (known >> c) & 1:
            hidden[num_hidden] = s
            num_hidden += 1
    unseen = np.zeros(L.NUM_CARDS, dtype=np.int64)
    num_unseen = 0
    for c in range(L.NUM_CARDS):
        if not (known >> c) & 1 and first_epoch[c] < 0:
            unseen[num_unseen] = c
            num_unseen += 1
    out[:] = history
    work = np.zeros(L.STATE_SIZE, dtype=np.int64)
    slot_epoch = np.zeros(num_hidden, dtype=np.int64)
    for h in range(num_hidden):
        slot_epoch[h] = leave_epoch[slot_owner[hidden[h]]]
    order = np.zeros(num_hidden, dtype=np.int64)
    filled = np.zeros(num_hidden, dtype=np.bool_)
    rng = rng_state(seed)
    for tries in range(1, max_tries + 1):
        filled[:] = False
        for k in range(1, last_epoch + 1):
            # Cards first bought in epoch k go to random hidden slots of epoch k.
            n_slots = 0
            for h in range(num_hidden):
                if slot_epoch[h] == k:
                    order[n_slots] = h
                    n_slots += 1
            shuffle(order, n_slots, rng)
            j = 0
            for c in range(L.NUM_CARDS):
                if first_epoch[c] == k and not (known >> c) & 1:
                    out[slot_index[hidden[order[j]]]] = c
                    filled[order[j]] = True
                    j += 1
        for i in range(num_unseen):
            pool[i] = unseen[i]
        shuffle(pool, num_unseen, rng)
        j = 0
        for h in range(num_hidden):
            if not filled[h]:
                out[slot_index[hidden[h]]] = pool[j]
                j += 1
        if _replay_matches(out, length, cfg, outs, payouts, work, table):
            return tries
    return -1


def resample_state(state, player: int, probability_sampler):
    """New pyspiel state with ``state``'s history but resampled hidden palaces of ``player``'s opponents.

    ``probability_sampler()`` returns uniform numbers in ``[0, 1)`` (e.g.
    ``pyspiel.UniformProbabilitySampler``); two draws seed the kernel.
    """
    n = int(state.cfg[L.C_PLAYERS])
    if not 0 <= player < n:
        raise ValueError(f"player {player} is not a seat of this {n}-player game")
    seed = int(probability_sampler() * 2**31) << 31 | int(probability_sampler() * 2**31)
    history = np.asarray(state.history(), dtype=np.int64)
    out = np.empty_like(history)
    tries = resample_history(history, state.cfg, player, seed, MAX_TRIES, out, HAND_TABLE)
    if tries < 0:
        raise RuntimeError(f"no palace deal consistent with player {player}'s information found in "
                           f"{MAX_TRIES} tries")
    new = state.get_game().new_initial_state()
    for action in out.tolist():
        new.apply_action(action)
    return new
