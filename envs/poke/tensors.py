"""Poke's observation and information-state tensors, written by one Numba kernel.

``write_tensor`` fills a zeroed-then-written ``float32`` row from the kernels'
state array (``gamut.envs.poke.kernels``); the pyspiel observer
(``gamut.envs.poke.encoding.PokeObserver``) and the batched environment
(``gamut.envs.poke.vector``) both call it. The pieces and their order are
those of ``encoding.Layout`` (documented there and in ``docs/games/poke.md``);
``piece_offsets`` turns a list of pieces into the ``offsets`` array the kernel
reads, ``-1`` for a piece left out (public-only observers drop the private
pieces, observation tensors drop the perfect-recall pieces).

Worked example, ``poke()`` (``D = 52``, ``h = 5``), player 0 about to follow a
led ``Ac`` with the hand ``2c 9d Ks``, nothing played yet, P1 dealing, no draws:
``player`` = ``[1, 0]`` (indices 0..1), ``dealer`` = ``[0, 1]`` (2..3),
``phase`` = ``[0, 0, 0, 1]`` (4..7: follow), ``my_hand`` marks indices
``8 + 0``, ``8 + 29``, ``8 + 47`` (card ids of ``2c``, ``9d``, ``Ks``),
``current_lead`` marks ``222 + 48`` (``Ac``), ``opp_face_down_count[0] = 1``
(index 216), both ``multipliers`` read 1 point per trick (indices 300, 303),
and every ``scores`` entry is a count divided by its highest value
(``game.score_maxima``), so every entry lies in [0, 1].
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.cards import popcount
from gamut.envs.poke import kernels as K

PIECES = ("player", "dealer", "phase", "my_hand", "my_face_up", "opp_face_up", "my_face_down",
          "opp_face_down_count", "current_lead", "draws", "drawing_over", "multipliers", "scores",
          "my_dealt", "my_discards", "my_drawn", "tricks")
(P_PLAYER, P_DEALER, P_PHASE, P_MY_HAND, P_MY_FACE_UP, P_OPP_FACE_UP, P_MY_FACE_DOWN, P_OPP_DOWN_COUNT,
 P_CURRENT_LEAD, P_DRAWS, P_DRAWING_OVER, P_MULTIPLIERS, P_SCORES, P_MY_DEALT, P_MY_DISCARDS, P_MY_DRAWN,
 P_TRICKS) = range(len(PIECES))
DRAW_COUNTS = 4  # one-hot discard counts 0..3 per draw
MAX_DRAWS = 3  # draws a player can make in one deal (the dealer's three)


def piece_offsets(pieces) -> np.ndarray:
    """``int64 (len(PIECES),)``: where each piece of ``pieces`` (``[(name, shape), ...]``, in order) starts; -1 if absent."""
    offsets = np.full(len(PIECES), -1, dtype=np.int64)
    start = 0
    for name, shape in pieces:
        offsets[PIECES.index(name)] = start
        start += int(np.prod(shape))
    return offsets


@numba.njit(cache=True)
def table_cards(st, player):
    """(face-up, face-down) card masks of ``player``'s finished plays in the current deal.

    The winner's cards of a trick lie face up; the loser's (a throw-off or a
    beaten lead) face down. A lead still waiting for its reply is in neither.
    """
    up = np.int64(0)
    down = np.int64(0)
    for t in range(K.MAX_HAND_SIZE):
        lead = st[K.S_LEAD + t]
        follow = st[K.S_FOLLOW + t]
        if lead == 0 or follow == 0:
            break
        mine = lead if st[K.S_TRICK_LEADER + t] == player else follow
        if st[K.S_TRICK_WINNER + t] == player:
            up |= mine
        else:
            down |= mine
    return up, down


@numba.njit(cache=True)
def drawing_over(st, player):
    """True once ``player`` has finished the draw phase of the current deal."""
    phase = st[K.S_PHASE]
    if phase == K.PH_TRICK or phase == K.PH_OVER:
        return True
    if phase == K.PH_DEAL:
        return False
    return player != st[K.S_DEALER] and st[K.S_DRAWER] == st[K.S_DEALER]


@numba.njit(cache=True)
def _mark(out, start, index, mask):
    # out[start + index[c]] = 1 for every card c of mask.
    rest = mask
    while rest:
        out[start + index[K.lowest_card(rest)]] = 1.0
        rest &= rest - 1


@numba.njit(cache=True)
def write_tensor(st, player, index, num_cards, hand_size, score_maxima, offsets, out):
    """Write ``player``'s tensor of state ``st`` into ``out`` (``float32``, the tensor's size), zeroing it first.

    Parameters
    ----------
    st : int64 (STATE_SIZE,)
        Kernel state.
    player : int
        The observing player, 0 or 1.
    index : int64 (52,)
        Tensor position of each card id (``encoding.Layout.index``).
    num_cards, hand_size : int
        ``D`` and ``h`` of the game.
    score_maxima : float64 (9,)
        Divisors of the ``scores`` entries (``game.score_maxima``).
    offsets : int64 (len(PIECES),)
        Start of each piece in ``out`` or -1 (``piece_offsets``).
    out : float32 (tensor size,)
        Written in place; every entry ends in [0, 1].
    """
    out[:] = 0.0
    me = player
    opp = 1 - player
    d = num_cards
    phase = st[K.S_PHASE]
    trick = st[K.S_TRICK]
    out[offsets[P_PLAYER] + me] = 1.0
    out[offsets[P_DEALER] + (0 if st[K.S_DEALER] == me else 1)] = 1.0
    if phase == K.PH_DEAL or phase == K.PH_REPLACE:
        out[offsets[P_PHASE]] = 1.0
    elif phase == K.PH_DRAW:
        out[offsets[P_PHASE] + 1] = 1.0
    elif phase == K.PH_TRICK:
        out[offsets[P_PHASE] + (2 if st[K.S_LEAD + trick] == 0 else 3)] = 1.0
    my_up, my_down = table_cards(st, me)
    opp_up, opp_down = table_cards(st, opp)
    private = offsets[P_MY_HAND] >= 0
    if private:
        _mark(out, offsets[P_MY_HAND], index, st[K.S_HAND + me] & ~st[K.S_PLAYED + me])
        _mark(out, offsets[P_MY_FACE_DOWN], index, my_down)
    _mark(out, offsets[P_MY_FACE_UP], index, my_up)
    _mark(out, offsets[P_OPP_FACE_UP], index, opp_up)
    out[offsets[P_OPP_DOWN_COUNT] + popcount(opp_down)] = 1.0
    if phase == K.PH_TRICK and K.current_player(st) != st[K.S_LEADER]:
        _mark(out, offsets[P_CURRENT_LEAD], index, st[K.S_LEAD + trick])
    for who in range(2):
        p = me if who == 0 else opp
        for k in range(st[K.S_NDRAWS + p]):
            out[offsets[P_DRAWS] + (who * MAX_DRAWS + k) * DRAW_COUNTS + popcount(st[K.S_DISC + 3 * p + k])] = 1.0
        if drawing_over(st, p):
            out[offsets[P_DRAWING_OVER] + who] = 1.0
        # trick_multiplier is 1, 2 or 4: its one-hot position is the exponent.
        out[offsets[P_MULTIPLIERS] + 3 * who + popcount(K.trick_multiplier(st, p) - 1)] = 1.0
    s = offsets[P_SCORES]
    out[s] = st[K.S_TRICKS + me] / score_maxima[0]
    out[s + 1] = st[K.S_TRICKS + opp] / score_maxima[1]
    out[s + 2] = st[K.S_BELOW + me] / score_maxima[2]
    out[s + 3] = st[K.S_BELOW + opp] / score_maxima[3]
    out[s + 4] = st[K.S_ABOVE + me] / score_maxima[4]
    out[s + 5] = st[K.S_ABOVE + opp] / score_maxima[5]
    out[s + 6] = st[K.S_GAMES + me] / score_maxima[6]
    out[s + 7] = st[K.S_GAMES + opp] / score_maxima[7]
    out[s + 8] = st[K.S_DEALS_DONE] / score_maxima[8]
    if offsets[P_TRICKS] < 0:
        return
    if private:
        _mark(out, offsets[P_MY_DEALT], index, st[K.S_DEALT + me])
        for k in range(MAX_DRAWS):
            _mark(out, offsets[P_MY_DISCARDS] + k * d, index, st[K.S_DISC + 3 * me + k])
            _mark(out, offsets[P_MY_DRAWN] + k * d, index, st[K.S_DRAWN + 3 * me + k])
    for t in range(hand_size):
        lead = st[K.S_LEAD + t]
        if lead == 0:
            break
        row = offsets[P_TRICKS] + t * (2 * d + 4)
        leader = st[K.S_TRICK_LEADER + t]
        out[row + (0 if leader == me else 1)] = 1.0
        _mark(out, row + 2, index, lead)
        follow = st[K.S_FOLLOW + t]
        if follow:
            follower = 1 - leader
            winner = st[K.S_TRICK_WINNER + t]
            # A winning reply lies face up; a throw-off is seen by its owner only.
            if winner == follower or (follower == me and private):
                _mark(out, row + 2 + d, index, follow)
            out[row + 2 * d + 2 + (0 if winner == me else 1)] = 1.0
