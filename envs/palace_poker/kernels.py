"""Palace Poker rules as Numba kernels on one small ``int64`` state array.

These kernels are the one implementation of the rules (``docs/games/palace_poker.md``):
antes, the banner deal with distinct suits per seat group (set-aside cards and
the reshuffle when the deck runs out), palaces, buy / discard / bet / stay /
fold, battles with fold / call / raise / re-raise (a fold to a raise returns
the uncalled part of that raise to the raiser), soldiers capped at five,
forced battles between the last two, same-suit endings, the quiet-round and
``max_turns`` showdowns and whole-chip pot splits. ``gamut.envs.palace_poker.game``
wraps them for pyspiel; solvers may call them directly.

Seats: seat 0 sits at the dealer's left (dealt first, acts first), the dealer
is seat ``n - 1``; seat groups for banners are seats 0-3, 4-7 and 8-9.

Arrays
------
``cfg`` (``int64``, shape ``(CFG_SIZE,)``): the parameters, read only;
``state`` (``int64``, shape ``(STATE_SIZE,)``): everything about a position.
Offsets, location codes and phases are the constants of
``gamut.envs.palace_poker.layout``; kernels write ``state`` in place.

Action ids (``L_b`` bet levels, ``L_r`` raise levels; see ``layout.make_config``)
---------------------------------------------------------------------------------
====================  ====================================================
``0`` STAY            turn: do nothing
``1`` FOLD            turn or battle: leave the hand
``2`` BUY             turn: pay s, draw a soldier
``3`` DISCARD         turn: pay s, then discard one or more soldiers
``4`` CALL            battle: call the bet or the last raise
``5`` DONE            discard phase: stop discarding
``6 + c``             discard phase: discard soldier card ``c`` (0..51)
``58 + k``            battle: raise level ``k`` (``k < L_r``)
``58 + L_r``          battle: raise all-in
``59 + L_r + t*(L_b+1) + k``  turn: bet on seat ``t`` at level ``k``
                      (``k < L_b``; ``k = L_b`` is all-in)
====================  ====================================================

Bet level ``k`` is ``2**k`` times the minimum ``(soldiers + 1) * s``
(``limit``: only ``k = 0``); raise level ``k`` adds ``2**k * b`` on top of the
amount to call (``limit``: only ``k = 0``, adding ``b``, or ``2 s`` when the
raiser has no soldiers). A level is legal only below the player's stack; the
all-in action pays the whole stack (``limit``: only when the stack does not
cover the fixed amount). Worked example (defaults, ``no_limit``, 4 players,
``L_b = 7``, ``L_r = 6``): ``59 + 6 + 2*8 + 1 = 82`` bets ``2 * min`` on seat
2; with 1 soldier that is ``2 * (1 + 1) * 2 = 8`` chips. ``58 + 0 = 58``
raises by ``b = 4`` chips after calling.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker import showdown


@numba.njit(cache=True)
def init_state(state, cfg):
    """Fill ``state`` with a new hand: antes paid, every card in the deck, banners next."""
    state[:] = 0
    n = cfg[L.C_PLAYERS]
    for p in range(L.MAX_PLAYERS):
        state[L.S_BANNER + p] = -1
    for p in range(n):
        state[L.S_STACK + p] = cfg[L.C_STACK] - cfg[L.C_ANTE]
        state[L.S_CONTRIB + p] = cfg[L.C_ANTE]
    state[L.S_PHASE] = L.PH_BANNER
    state[L.S_IN] = (1 << n) - 1
    state[L.S_ACTOR] = -1
    state[L.S_DISC_LAST] = -1
    state[L.S_ATTACKER] = -1
    state[L.S_DEFENDER] = -1


@numba.njit(cache=True)
def current_player(state):
    """pyspiel player id to move: a seat, ``L.CHANCE_PLAYER`` or ``L.TERMINAL_PLAYER``."""
    ph = state[L.S_PHASE]
    if ph == L.PH_TURN:
        return state[L.S_TURN_PLAYER]
    if ph == L.PH_DISCARD or ph == L.PH_BATTLE:
        return state[L.S_ACTOR]
    if ph == L.PH_OVER:
        return L.TERMINAL_PLAYER
    return L.CHANCE_PLAYER


@numba.njit(cache=True)
def count_at(state, loc):
    """Number of cards at location ``loc``."""
    n = 0
    for c in range(L.NUM_CARDS):
        if state[L.S_LOC + c] == loc:
            n += 1
    return n


@numba.njit(cache=True)
def any_at(state, loc1, loc2):
    """True if some card lies at location ``loc1`` or ``loc2`` (stops at the first one)."""
    for c in range(L.NUM_CARDS):
        loc = state[L.S_LOC + c]
        if loc == loc1 or loc == loc2:
            return True
    return False


@numba.njit(cache=True)
def _move_all(state, src, dst):
    for c in range(L.NUM_CARDS):
        if state[L.S_LOC + c] == src:
            state[L.S_LOC + c] = dst


@numba.njit(cache=True)
def _suit_used_in_group(state, seat, suit):
    first = seat - seat % L.GROUP_SIZE
    for q in range(first, seat):
        if state[L.S_BANNER + q] >= 0 and (state[L.S_BANNER + q] & 3) == suit:
            return True
    return False


@numba.njit(cache=True)
def chance_outcomes(state, out):
    """Write the equally likely chance outcomes (card ids, ascending) to ``out``; return their count.

    Banner and palace cards come from the deck (``L.LOC_DRAW``); a bought card
    from the draw pile, which ``L.BUY`` has already refilled from the discard
    pile when it was empty.
    """
    n = 0
    for c in range(L.NUM_CARDS):
        if state[L.S_LOC + c] == L.LOC_DRAW:
            out[n] = c
            n += 1
    return n


@numba.njit(cache=True)
def _bet_levels_into(state, cfg, p, minimum, base_id, out, n):
    # Doubling levels of ``minimum`` below the stack, then all-in (see the module doc).
    stack = state[L.S_STACK + p]
    levels = cfg[L.C_BET_LEVELS]
    for k in range(levels):
        if minimum << k < stack:
            out[n] = base_id + k
            n += 1
    if cfg[L.C_NO_LIMIT] or stack <= minimum:
        out[n] = base_id + levels
        n += 1
    return n


@numba.njit(cache=True)
def limit_raise(state, cfg, p):
    """The fixed ``limit`` raise of seat ``p``: ``b``, or ``2 s`` with no soldiers."""
    if state[L.S_NSOLD + p] > 0:
        return cfg[L.C_BIG]
    return 2 * cfg[L.C_SMALL]


@numba.njit(cache=True)
def raise_amount(state, cfg, p, level):
    """Chips seat ``p`` adds on top of the call at raise ``level`` (not all-in)."""
    if cfg[L.C_NO_LIMIT]:
        return cfg[L.C_BIG] << level
    return limit_raise(state, cfg, p)


@numba.njit(cache=True)
def _soldier_cards_above(state, p, card):
    n = 0
    for c in range(card + 1, L.NUM_CARDS):
        if state[L.S_LOC + c] == L.LOC_SOLDIER + p:
            n += 1
    return n


@numba.njit(cache=True)
def legal_actions(state, cfg, out):
    """Write the legal action ids (ascending) of the player to move to ``out``; return the count.

    ``out`` needs ``cfg[L.C_NUM_ACTIONS]`` entries. Zero at chance and terminal nodes.
    """
    ph = state[L.S_PHASE]
    n = 0
    if ph == L.PH_TURN:
        p = state[L.S_TURN_PLAYER]
        s = cfg[L.C_SMALL]
        stack = state[L.S_STACK + p]
        forced = showdown.popcount(state[L.S_IN]) == 2
        if not forced:
            out[n] = L.STAY
            n += 1
        out[n] = L.FOLD
        n += 1
        if not forced and stack >= s:
            if any_at(state, L.LOC_DRAW, L.LOC_DISCARD):
                out[n] = L.BUY
                n += 1
            if state[L.S_NSOLD + p] > 0:
                out[n] = L.DISCARD
                n += 1
        minimum = (state[L.S_NSOLD + p] + 1) * s
        width = cfg[L.C_BET_LEVELS] + 1
        for t in range(cfg[L.C_PLAYERS]):
            if t != p and (state[L.S_IN] >> t) & 1 and showdown.banner_suit(state, t) != showdown.banner_suit(state, p):
                n = _bet_levels_into(state, cfg, p, minimum, cfg[L.C_BET_BASE] + t * width, out, n)
    elif ph == L.PH_DISCARD:
        p = state[L.S_ACTOR]
        held = state[L.S_NSOLD + p]
        if held <= L.MAX_SOLDIERS and (state[L.S_DISC_KIND] != L.DK_PAID or state[L.S_DISC_COUNT] > 0):
            out[n] = L.DONE
            n += 1
        # Discards go in increasing card order (one ordering per set of discards);
        # card c is offered only if enough higher soldiers remain to reach five.
        for c in range(state[L.S_DISC_LAST] + 1, L.NUM_CARDS):
            if state[L.S_LOC + c] == L.LOC_SOLDIER + p:
                if held - 1 - _soldier_cards_above(state, p, c) <= L.MAX_SOLDIERS:
                    out[n] = L.DISCARD_CARD + c
                    n += 1
    elif ph == L.PH_BATTLE:
        p = state[L.S_ACTOR]
        o = state[L.S_ATTACKER] + state[L.S_DEFENDER] - p
        out[0] = L.FOLD
        out[1] = L.CALL
        n = 2
        to_call = state[L.S_TO_CALL]
        stack = state[L.S_STACK + p]
        if state[L.S_RAISES] < cfg[L.C_MAX_RAISES] and state[L.S_STACK + o] > 0 and stack > to_call:
            levels = cfg[L.C_RAISE_LEVELS]
            for k in range(levels):
                if to_call + raise_amount(state, cfg, p, k) < stack:
                    out[n] = L.RAISE_BASE + k
                    n += 1
            if cfg[L.C_NO_LIMIT] or stack <= to_call + limit_raise(state, cfg, p):
                out[n] = L.RAISE_BASE + levels
                n += 1
    return n


@numba.njit(cache=True)
def bet_target_level(cfg, action):
    """(target seat, level) of a bet action id (level ``cfg[L.C_BET_LEVELS]`` = all-in)."""
    rel = action - cfg[L.C_BET_BASE]
    width = cfg[L.C_BET_LEVELS] + 1
    return rel // width, rel % width


@numba.njit(cache=True)
def _pay(state, p, chips):
    chips = min(chips, state[L.S_STACK + p])
    state[L.S_STACK + p] -= chips
    state[L.S_CONTRIB + p] += chips
    return chips


@numba.njit(cache=True)
def _return_uncalled(state, raiser):
    # A fold to a raise or re-raise: the part of the last raise nobody called
    # (what the folder would have had to add to call) goes back to the raiser's
    # stack; everything called stays in the pot.
    uncalled = state[L.S_TO_CALL]
    state[L.S_STACK + raiser] += uncalled
    state[L.S_CONTRIB + raiser] -= uncalled


@numba.njit(cache=True)
def _leave(state, p):
    # Out of the hand: the palace goes to the discard pile; banner and soldiers
    # stay where they are unless a battle winner takes them.
    state[L.S_IN] &= ~(np.int64(1) << p)
    state[L.S_QUIET] &= ~(np.int64(1) << p)
    state[L.S_LAST_OUT] |= np.int64(1) << p
    for c in range(L.NUM_CARDS):
        if state[L.S_LOC + c] == L.LOC_PALACE + p:
            state[L.S_LOC + c] = L.LOC_DISCARD


@numba.njit(cache=True)
def _take(state, winner, loser):
    # The winner takes the loser's banner and soldiers as new soldiers.
    for c in range(L.NUM_CARDS):
        loc = state[L.S_LOC + c]
        if loc == L.LOC_BANNER + loser or loc == L.LOC_SOLDIER + loser:
            state[L.S_LOC + c] = L.LOC_SOLDIER + winner
            state[L.S_NSOLD + winner] += 1
            state[L.S_PUBLIC] |= np.int64(1) << c
    state[L.S_NSOLD + loser] = 0


@numba.njit(cache=True)
def _end_turn(state, cfg, table):
    if state[L.S_QUIET] == state[L.S_IN]:
        showdown.showdown(state, L.END_QUIET, table)
    elif state[L.S_TURNS] >= cfg[L.C_MAX_TURNS]:
        showdown.showdown(state, L.END_MAX_TURNS, table)
    else:
        p = state[L.S_TURN_PLAYER]
        n = cfg[L.C_PLAYERS]
        for step in range(1, n + 1):
            q = (p + step) % n
            if (state[L.S_IN] >> q) & 1:
                state[L.S_TURN_PLAYER] = q
                break
        state[L.S_PHASE] = L.PH_TURN
        state[L.S_ACTOR] = -1


@numba.njit(cache=True)
def _start_discard(state, p, kind):
    state[L.S_PHASE] = L.PH_DISCARD
    state[L.S_ACTOR] = p
    state[L.S_DISC_KIND] = kind
    state[L.S_DISC_LAST] = -1
    state[L.S_DISC_COUNT] = 0


@numba.njit(cache=True)
def _settle(state, cfg, table):
    # A called battle: compare, then the loser leaves (or both, or a split).
    a = state[L.S_ATTACKER]
    d = state[L.S_DEFENDER]
    state[L.S_KNOWN + a] |= showdown.palace_mask(state, d)
    state[L.S_KNOWN + d] |= showdown.palace_mask(state, a)
    winner = showdown.battle_winner(state, a, d, table)
    if winner == -1:
        if showdown.popcount(state[L.S_IN]) == 2:
            showdown.finish(state, state[L.S_IN], L.END_BATTLE_SPLIT)
            return
        _leave(state, a)
        _leave(state, d)
        if not showdown.hand_over_after_exit(state):
            _end_turn(state, cfg, table)
        return
    loser = a + d - winner
    _leave(state, loser)
    _take(state, winner, loser)
    if not showdown.hand_over_after_exit(state):
        _start_discard(state, winner, L.DK_TAKE)


@numba.njit(cache=True)
def _apply_turn(state, cfg, action, table):
    p = state[L.S_TURN_PLAYER]
    bit = np.int64(1) << p
    state[L.S_TURNS] += 1
    if action == L.STAY:
        state[L.S_COUNTS + L.NUM_COUNTS * p] += 1
        state[L.S_QUIET] |= bit
        _end_turn(state, cfg, table)
    elif action == L.FOLD:
        _leave(state, p)
        if not showdown.hand_over_after_exit(state):
            _end_turn(state, cfg, table)
    elif action == L.BUY:
        state[L.S_COUNTS + L.NUM_COUNTS * p + 1] += 1
        _pay(state, p, cfg[L.C_SMALL])
        state[L.S_QUIET] = 0
        if not any_at(state, L.LOC_DRAW, L.LOC_DRAW):
            _move_all(state, L.LOC_DISCARD, L.LOC_DRAW)
            state[L.S_RESHUFFLES] += 1
        state[L.S_PHASE] = L.PH_BUY
    elif action == L.DISCARD:
        state[L.S_COUNTS + L.NUM_COUNTS * p + 2] += 1
        _pay(state, p, cfg[L.C_SMALL])
        state[L.S_QUIET] |= bit
        _start_discard(state, p, L.DK_PAID)
    else:
        state[L.S_COUNTS + L.NUM_COUNTS * p + 3] += 1
        t, level = bet_target_level(cfg, action)
        minimum = (state[L.S_NSOLD + p] + 1) * cfg[L.C_SMALL]
        if level == cfg[L.C_BET_LEVELS]:
            _pay(state, p, state[L.S_STACK + p])
        else:
            _pay(state, p, minimum << level)
        state[L.S_QUIET] = 0
        state[L.S_ATTACKER] = p
        state[L.S_DEFENDER] = t
        state[L.S_TO_CALL] = (state[L.S_NSOLD + t] + 1) * cfg[L.C_SMALL]
        state[L.S_RAISES] = 0
        state[L.S_ACTOR] = t
        state[L.S_PHASE] = L.PH_BATTLE


@numba.njit(cache=True)
def _apply_battle(state, cfg, action, table):
    p = state[L.S_ACTOR]
    o = state[L.S_ATTACKER] + state[L.S_DEFENDER] - p
    if action == L.FOLD:
        if state[L.S_RAISES] > 0:
            _return_uncalled(state, o)
        _leave(state, p)
        _take(state, o, p)
        if not showdown.hand_over_after_exit(state):
            _start_discard(state, o, L.DK_TAKE)
    elif action == L.CALL:
        _pay(state, p, state[L.S_TO_CALL])
        _settle(state, cfg, table)
    else:
        state[L.S_COUNTS + L.NUM_COUNTS * p + 4] += 1
        level = action - L.RAISE_BASE
        to_call = state[L.S_TO_CALL]
        if level == cfg[L.C_RAISE_LEVELS]:
            paid = _pay(state, p, state[L.S_STACK + p])
        else:
            paid = _pay(state, p, to_call + raise_amount(state, cfg, p, level))
        state[L.S_TO_CALL] = paid - to_call
        state[L.S_RAISES] += 1
        state[L.S_ACTOR] = o


@numba.njit(cache=True)
def _apply_chance(state, cfg, card):
    ph = state[L.S_PHASE]
    n = cfg[L.C_PLAYERS]
    if ph == L.PH_BANNER:
        seat = state[L.S_DEAL_SEAT]
        state[L.S_PUBLIC] |= np.int64(1) << card
        if _suit_used_in_group(state, seat, card & 3):
            state[L.S_LOC + card] = L.LOC_SET_ASIDE
        else:
            state[L.S_LOC + card] = L.LOC_BANNER + seat
            state[L.S_BANNER + seat] = card
            state[L.S_DEAL_SEAT] = seat + 1
        if state[L.S_DEAL_SEAT] == n:
            # All cards but the banners are gathered for the palaces: only
            # banners stay publicly known.
            _move_all(state, L.LOC_SET_ASIDE, L.LOC_DRAW)
            state[L.S_PUBLIC] = 0
            for q in range(n):
                state[L.S_PUBLIC] |= np.int64(1) << state[L.S_BANNER + q]
            state[L.S_DEAL_SEAT] = 0
            state[L.S_PHASE] = L.PH_PALACE
        elif not any_at(state, L.LOC_DRAW, L.LOC_DRAW):
            _move_all(state, L.LOC_SET_ASIDE, L.LOC_DRAW)
    elif ph == L.PH_PALACE:
        seat = state[L.S_DEAL_SEAT]
        state[L.S_LOC + card] = L.LOC_PALACE + seat
        state[L.S_KNOWN + seat] |= np.int64(1) << card
        state[L.S_DEAL_COUNT] += 1
        if state[L.S_DEAL_COUNT] == L.PALACE_SIZE:
            state[L.S_DEAL_COUNT] = 0
            state[L.S_DEAL_SEAT] = seat + 1
            if seat + 1 == n:
                state[L.S_PHASE] = L.PH_TURN
                state[L.S_TURN_PLAYER] = 0
    else:
        p = state[L.S_TURN_PLAYER]
        state[L.S_LOC + card] = L.LOC_SOLDIER + p
        state[L.S_NSOLD + p] += 1
        state[L.S_PUBLIC] |= np.int64(1) << card
        _start_discard(state, p, L.DK_BUY)


@numba.njit(cache=True)
def apply_action(state, cfg, action, table):
    """Apply a chance outcome (card id) or a player action to ``state``; the caller checks legality.

    ``table`` is ``gamut.envs.hands.HAND_TABLE`` (hands are valued at called
    battles and showdowns).
    """
    state[L.S_LAST_OUT] = 0
    ph = state[L.S_PHASE]
    if ph == L.PH_BANNER or ph == L.PH_PALACE or ph == L.PH_BUY:
        _apply_chance(state, cfg, action)
    elif ph == L.PH_TURN:
        _apply_turn(state, cfg, action, table)
    elif ph == L.PH_BATTLE:
        _apply_battle(state, cfg, action, table)
    elif action == L.DONE:
        _end_turn(state, cfg, table)
    else:
        c = action - L.DISCARD_CARD
        p = state[L.S_ACTOR]
        state[L.S_LOC + c] = L.LOC_DISCARD
        state[L.S_NSOLD + p] -= 1
        state[L.S_DISC_LAST] = c
        state[L.S_DISC_COUNT] += 1


@numba.njit(cache=True)
def returns(state, out):
    """Write chips won from the pot minus chips put in, per seat, to ``out`` (zeros before the end)."""
    out[:] = 0.0
    if state[L.S_PHASE] == L.PH_OVER:
        for p in range(out.shape[0]):
            out[p] = state[L.S_PAYOUT + p] - state[L.S_CONTRIB + p]
