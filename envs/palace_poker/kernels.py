"""Palace Poker rules as Numba kernels on one small ``int64`` state array.

These kernels are the one implementation of ``/work/shared/rules/palace_poker.md``:
antes, the banner deal with distinct suits per seat group (set-aside cards and
the reshuffle when the deck runs out), palaces, buy / discard / bet / stay /
fold, battles with fold / call / raise / re-raise, soldiers capped at five,
forced battles between the last two, same-suit endings, the quiet-round and
``max_turns`` showdowns and whole-chip pot splits. ``envs.palace_poker.game``
wraps them for pyspiel; solvers may call them directly.

Seats: seat 0 sits at the dealer's left (dealt first, acts first), the dealer
is seat ``n - 1``; seat groups for banners are seats 0-3, 4-7 and 8-9.

Arrays
------
``cfg`` (``int64``, shape ``(CFG_SIZE,)``): the parameters, read only (see
``make_config``). ``state`` (``int64``, shape ``(STATE_SIZE,)``): a position;
field offsets are the ``S_*`` constants. ``S_LOC + c`` is where card ``c``
lies (``LOC_*`` codes; the banner, palace and soldiers of seat ``q`` are
``LOC_BANNER + q``, ``LOC_PALACE + q``, ``LOC_SOLDIER + q``). Card sets in
``S_PUBLIC`` / ``S_KNOWN`` are bitmasks over card ids.

Action ids (``L_b`` bet levels, ``L_r`` raise levels; see ``make_config``)
--------------------------------------------------------------------------
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

from envs.palace_poker import showdown

# --- parameters -------------------------------------------------------------
C_PLAYERS = 0
C_SMALL = 1
C_BIG = 2
C_NO_LIMIT = 3
C_STACK = 4  # starting stack in chips (before the ante)
C_MAX_RAISES = 5
C_MAX_TURNS = 6
C_ANTE = 7
C_BET_LEVELS = 8
C_RAISE_LEVELS = 9
C_BET_BASE = 10  # action id of "bet on seat 0, level 0"
C_NUM_ACTIONS = 11
CFG_SIZE = 12

# --- rules constants --------------------------------------------------------
MAX_PLAYERS = 10
NUM_CARDS = 52
PALACE_SIZE = 3
MAX_SOLDIERS = 5
GROUP_SIZE = 4  # banner seat groups: seats 0-3, 4-7, 8-9
# A discard phase starts with at most 5 + 1 + 5 = 11 soldiers (own five plus
# a loser's banner and five soldiers); each can be discarded, then DONE.
MAX_HELD_SOLDIERS = 2 * MAX_SOLDIERS + 1
MAX_DISCARD_MOVES = MAX_HELD_SOLDIERS + 1

STAY, FOLD, BUY, DISCARD, CALL, DONE = 0, 1, 2, 3, 4, 5
DISCARD_CARD = 6  # 6 + card id
RAISE_BASE = DISCARD_CARD + NUM_CARDS  # 58

# --- card locations ---------------------------------------------------------
LOC_DRAW = 0  # the deck while banners are dealt, then the draw pile
LOC_DISCARD = 1
LOC_SET_ASIDE = 2
LOC_BANNER = 3  # + seat
LOC_PALACE = LOC_BANNER + MAX_PLAYERS  # + seat
LOC_SOLDIER = LOC_PALACE + MAX_PLAYERS  # + seat
NUM_LOCS = LOC_SOLDIER + MAX_PLAYERS

# --- phases -----------------------------------------------------------------
PH_BANNER = 0  # chance: a card for seat S_DEAL_SEAT's banner
PH_PALACE = 1  # chance: palace card S_DEAL_COUNT of seat S_DEAL_SEAT
PH_TURN = 2  # S_TURN_PLAYER chooses stay / fold / buy / discard / bet
PH_BUY = 3  # chance: the card S_TURN_PLAYER buys
PH_DISCARD = 4  # S_ACTOR discards soldiers or is done
PH_BATTLE = 5  # S_ACTOR (defender or attacker) folds, calls or raises
PH_OVER = 6
NUM_PHASES = 7

DK_BUY, DK_PAID, DK_TAKE = 0, 1, 2  # why a discard phase runs

END_NONE, END_LAST, END_SAME_SUIT, END_BATTLE_SPLIT, END_QUIET, END_MAX_TURNS = 0, 1, 2, 3, 4, 5

CHANCE_PLAYER = -1
TERMINAL_PLAYER = -4

# --- state layout -----------------------------------------------------------
S_LOC = 0  # 52
S_STACK = S_LOC + NUM_CARDS  # 10: chips behind
S_CONTRIB = S_STACK + MAX_PLAYERS  # 10: chips put in the pot
S_BANNER = S_CONTRIB + MAX_PLAYERS  # 10: banner card (-1 before it is dealt)
S_NSOLD = S_BANNER + MAX_PLAYERS  # 10: soldiers held
S_PAYOUT = S_NSOLD + MAX_PLAYERS  # 10: chips won from the pot (set at the end)
S_KNOWN = S_PAYOUT + MAX_PLAYERS  # 10: mask of palace cards seat q has seen (own + shown)
S_COUNTS = S_KNOWN + MAX_PLAYERS  # 50: per seat counts of stays, buys, discards, bets, raises
NUM_COUNTS = 5
S_PHASE = S_COUNTS + NUM_COUNTS * MAX_PLAYERS
S_DEAL_SEAT = S_PHASE + 1
S_DEAL_COUNT = S_PHASE + 2
S_IN = S_PHASE + 3  # mask of seats still in the hand
S_QUIET = S_PHASE + 4  # mask of seats that only stayed / discarded since the last buy or bet
S_TURN_PLAYER = S_PHASE + 5
S_TURNS = S_PHASE + 6  # turns taken
S_ACTOR = S_PHASE + 7
S_DISC_KIND = S_PHASE + 8
S_DISC_LAST = S_PHASE + 9  # last card discarded in this discard phase (-1: none)
S_DISC_COUNT = S_PHASE + 10
S_ATTACKER = S_PHASE + 11
S_DEFENDER = S_PHASE + 12
S_TO_CALL = S_PHASE + 13  # chips the actor must add to call
S_RAISES = S_PHASE + 14
S_RESHUFFLES = S_PHASE + 15  # discard pile turned into the draw pile this many times
S_PUBLIC = S_PHASE + 16  # mask of cards everyone has seen since the palaces were dealt
S_END = S_PHASE + 17  # END_* code
S_LAST_OUT = S_PHASE + 18  # mask of seats that left the hand at the last action
STATE_SIZE = S_PHASE + 19


def num_levels(base, stack):
    """Doubling levels ``base * 2**k`` strictly below ``stack``: the count of such ``k >= 0``."""
    k = 0
    while base << k < stack:
        k += 1
    return k


def make_config(players, small_bet, big_bet, no_limit, stack_chips, max_raises, max_turns):
    """``cfg`` array (``int64``, ``(CFG_SIZE,)``) of checked parameters (see ``game.check_params``).

    ``no_limit``: ``L_b`` = number of bet levels ``s * 2**k < stack`` (the smallest
    minimum bet is ``s``), ``L_r`` = number of raise levels ``b * 2**k < stack``
    (each at least 1); ``limit``: ``L_b = L_r = 1``.
    """
    cfg = np.zeros(CFG_SIZE, dtype=np.int64)
    # One id per level keeps the layout uniform; whether a level is affordable
    # is decided by ``legal_actions`` from the stack at that moment.
    bet_levels = max(1, num_levels(small_bet, stack_chips)) if no_limit else 1
    raise_levels = max(1, num_levels(big_bet, stack_chips)) if no_limit else 1
    cfg[C_PLAYERS] = players
    cfg[C_SMALL] = small_bet
    cfg[C_BIG] = big_bet
    cfg[C_NO_LIMIT] = int(no_limit)
    cfg[C_STACK] = stack_chips
    cfg[C_MAX_RAISES] = max_raises
    cfg[C_MAX_TURNS] = max_turns
    cfg[C_ANTE] = small_bet // 2
    cfg[C_BET_LEVELS] = bet_levels
    cfg[C_RAISE_LEVELS] = raise_levels
    cfg[C_BET_BASE] = RAISE_BASE + raise_levels + 1
    cfg[C_NUM_ACTIONS] = cfg[C_BET_BASE] + players * (bet_levels + 1)
    return cfg


@numba.njit(cache=True)
def popcount(x):
    """Number of set bits of a non-negative ``int64``."""
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@numba.njit(cache=True)
def init_state(state, cfg):
    """Fill ``state`` with a new hand: antes paid, every card in the deck, banners next."""
    state[:] = 0
    n = cfg[C_PLAYERS]
    for p in range(MAX_PLAYERS):
        state[S_BANNER + p] = -1
    for p in range(n):
        state[S_STACK + p] = cfg[C_STACK] - cfg[C_ANTE]
        state[S_CONTRIB + p] = cfg[C_ANTE]
    state[S_PHASE] = PH_BANNER
    state[S_IN] = (1 << n) - 1
    state[S_ACTOR] = -1
    state[S_DISC_LAST] = -1
    state[S_ATTACKER] = -1
    state[S_DEFENDER] = -1


@numba.njit(cache=True)
def current_player(state):
    """pyspiel player id to move: a seat, ``CHANCE_PLAYER`` or ``TERMINAL_PLAYER``."""
    ph = state[S_PHASE]
    if ph == PH_TURN:
        return state[S_TURN_PLAYER]
    if ph == PH_DISCARD or ph == PH_BATTLE:
        return state[S_ACTOR]
    if ph == PH_OVER:
        return TERMINAL_PLAYER
    return CHANCE_PLAYER


@numba.njit(cache=True)
def count_at(state, loc):
    """Number of cards at location ``loc``."""
    n = 0
    for c in range(NUM_CARDS):
        if state[S_LOC + c] == loc:
            n += 1
    return n


@numba.njit(cache=True)
def _move_all(state, src, dst):
    for c in range(NUM_CARDS):
        if state[S_LOC + c] == src:
            state[S_LOC + c] = dst


@numba.njit(cache=True)
def banner_suit(state, p):
    """Suit ``0..3`` of seat ``p``'s banner."""
    return state[S_BANNER + p] & 3


@numba.njit(cache=True)
def _suit_used_in_group(state, seat, suit):
    first = seat - seat % GROUP_SIZE
    for q in range(first, seat):
        if state[S_BANNER + q] >= 0 and (state[S_BANNER + q] & 3) == suit:
            return True
    return False


@numba.njit(cache=True)
def chance_outcomes(state, out):
    """Write the equally likely chance outcomes (card ids, ascending) to ``out``; return their count.

    Banner and palace cards come from the deck (``LOC_DRAW``); a bought card
    from the draw pile, which ``BUY`` has already refilled from the discard
    pile when it was empty.
    """
    n = 0
    for c in range(NUM_CARDS):
        if state[S_LOC + c] == LOC_DRAW:
            out[n] = c
            n += 1
    return n


@numba.njit(cache=True)
def _bet_levels_into(state, cfg, p, minimum, base_id, out, n):
    # Doubling levels of ``minimum`` below the stack, then all-in (see the module doc).
    stack = state[S_STACK + p]
    levels = cfg[C_BET_LEVELS]
    for k in range(levels):
        if minimum << k < stack:
            out[n] = base_id + k
            n += 1
    if cfg[C_NO_LIMIT] or stack <= minimum:
        out[n] = base_id + levels
        n += 1
    return n


@numba.njit(cache=True)
def limit_raise(state, cfg, p):
    """The fixed ``limit`` raise of seat ``p``: ``b``, or ``2 s`` with no soldiers."""
    if state[S_NSOLD + p] > 0:
        return cfg[C_BIG]
    return 2 * cfg[C_SMALL]


@numba.njit(cache=True)
def raise_amount(state, cfg, p, level):
    """Chips seat ``p`` adds on top of the call at raise ``level`` (not all-in)."""
    if cfg[C_NO_LIMIT]:
        return cfg[C_BIG] << level
    return limit_raise(state, cfg, p)


@numba.njit(cache=True)
def _soldier_cards_above(state, p, card):
    n = 0
    for c in range(card + 1, NUM_CARDS):
        if state[S_LOC + c] == LOC_SOLDIER + p:
            n += 1
    return n


@numba.njit(cache=True)
def legal_actions(state, cfg, out):
    """Write the legal action ids (ascending) of the player to move to ``out``; return the count.

    ``out`` needs ``cfg[C_NUM_ACTIONS]`` entries. Zero at chance and terminal nodes.
    """
    ph = state[S_PHASE]
    n = 0
    if ph == PH_TURN:
        p = state[S_TURN_PLAYER]
        s = cfg[C_SMALL]
        stack = state[S_STACK + p]
        forced = popcount(state[S_IN]) == 2
        if not forced:
            out[n] = STAY
            n += 1
        out[n] = FOLD
        n += 1
        if not forced and stack >= s:
            if count_at(state, LOC_DRAW) + count_at(state, LOC_DISCARD) > 0:
                out[n] = BUY
                n += 1
            if state[S_NSOLD + p] > 0:
                out[n] = DISCARD
                n += 1
        minimum = (state[S_NSOLD + p] + 1) * s
        width = cfg[C_BET_LEVELS] + 1
        for t in range(cfg[C_PLAYERS]):
            if t != p and (state[S_IN] >> t) & 1 and banner_suit(state, t) != banner_suit(state, p):
                n = _bet_levels_into(state, cfg, p, minimum, cfg[C_BET_BASE] + t * width, out, n)
    elif ph == PH_DISCARD:
        p = state[S_ACTOR]
        held = state[S_NSOLD + p]
        if held <= MAX_SOLDIERS and (state[S_DISC_KIND] != DK_PAID or state[S_DISC_COUNT] > 0):
            out[n] = DONE
            n += 1
        # Discards go in increasing card order (one ordering per set of discards);
        # card c is offered only if enough higher soldiers remain to reach five.
        for c in range(state[S_DISC_LAST] + 1, NUM_CARDS):
            if state[S_LOC + c] == LOC_SOLDIER + p:
                if held - 1 - _soldier_cards_above(state, p, c) <= MAX_SOLDIERS:
                    out[n] = DISCARD_CARD + c
                    n += 1
    elif ph == PH_BATTLE:
        p = state[S_ACTOR]
        o = state[S_ATTACKER] + state[S_DEFENDER] - p
        out[0] = FOLD
        out[1] = CALL
        n = 2
        to_call = state[S_TO_CALL]
        stack = state[S_STACK + p]
        if state[S_RAISES] < cfg[C_MAX_RAISES] and state[S_STACK + o] > 0 and stack > to_call:
            levels = cfg[C_RAISE_LEVELS]
            for k in range(levels):
                if to_call + raise_amount(state, cfg, p, k) < stack:
                    out[n] = RAISE_BASE + k
                    n += 1
            if cfg[C_NO_LIMIT] or stack <= to_call + limit_raise(state, cfg, p):
                out[n] = RAISE_BASE + levels
                n += 1
    return n


@numba.njit(cache=True)
def bet_target_level(cfg, action):
    """(target seat, level) of a bet action id (level ``cfg[C_BET_LEVELS]`` = all-in)."""
    rel = action - cfg[C_BET_BASE]
    width = cfg[C_BET_LEVELS] + 1
    return rel // width, rel % width


@numba.njit(cache=True)
def _pay(state, p, chips):
    chips = min(chips, state[S_STACK + p])
    state[S_STACK + p] -= chips
    state[S_CONTRIB + p] += chips
    return chips


@numba.njit(cache=True)
def _leave(state, p):
    # Out of the hand: the palace goes to the discard pile; banner and soldiers
    # stay where they are unless a battle winner takes them.
    state[S_IN] &= ~(np.int64(1) << p)
    state[S_QUIET] &= ~(np.int64(1) << p)
    state[S_LAST_OUT] |= np.int64(1) << p
    for c in range(NUM_CARDS):
        if state[S_LOC + c] == LOC_PALACE + p:
            state[S_LOC + c] = LOC_DISCARD


@numba.njit(cache=True)
def _take(state, winner, loser):
    # The winner takes the loser's banner and soldiers as new soldiers.
    for c in range(NUM_CARDS):
        loc = state[S_LOC + c]
        if loc == LOC_BANNER + loser or loc == LOC_SOLDIER + loser:
            state[S_LOC + c] = LOC_SOLDIER + winner
            state[S_NSOLD + winner] += 1
            state[S_PUBLIC] |= np.int64(1) << c
    state[S_NSOLD + loser] = 0


@numba.njit(cache=True)
def _finish(state, winners, end_kind):
    # Split the pot among the seats of ``winners``: equal whole-chip shares, odd
    # chips one each to the winners nearest the dealer's left (lowest seats).
    pot = 0
    for p in range(MAX_PLAYERS):
        pot += state[S_CONTRIB + p]
    k = popcount(winners)
    share = pot // k
    odd = pot - share * k
    for p in range(MAX_PLAYERS):
        if (winners >> p) & 1:
            state[S_PAYOUT + p] = share + (1 if odd > 0 else 0)
            odd -= 1
    state[S_PHASE] = PH_OVER
    state[S_END] = end_kind
    state[S_ACTOR] = -1


@numba.njit(cache=True)
def _hand_over_after_exit(state):
    # The last player wins; if all remaining share one banner suit they split.
    live = state[S_IN]
    if popcount(live) == 1:
        _finish(state, live, END_LAST)
        return True
    suit = -1
    for p in range(MAX_PLAYERS):
        if (live >> p) & 1:
            if suit == -1:
                suit = banner_suit(state, p)
            elif banner_suit(state, p) != suit:
                return False
    _finish(state, live, END_SAME_SUIT)
    return True


@numba.njit(cache=True)
def _showdown(state, end_kind):
    live = state[S_IN]
    best = np.int64(-1)
    winners = np.int64(0)
    for p in range(MAX_PLAYERS):
        if (live >> p) & 1:
            v = showdown.player_hand_value(state, p, -1)
            if v > best:
                best = v
                winners = np.int64(1) << p
            elif v == best:
                winners |= np.int64(1) << p
    _finish(state, winners, end_kind)


@numba.njit(cache=True)
def _end_turn(state, cfg):
    if state[S_QUIET] == state[S_IN]:
        _showdown(state, END_QUIET)
    elif state[S_TURNS] >= cfg[C_MAX_TURNS]:
        _showdown(state, END_MAX_TURNS)
    else:
        p = state[S_TURN_PLAYER]
        n = cfg[C_PLAYERS]
        for step in range(1, n + 1):
            q = (p + step) % n
            if (state[S_IN] >> q) & 1:
                state[S_TURN_PLAYER] = q
                break
        state[S_PHASE] = PH_TURN
        state[S_ACTOR] = -1


@numba.njit(cache=True)
def _start_discard(state, p, kind):
    state[S_PHASE] = PH_DISCARD
    state[S_ACTOR] = p
    state[S_DISC_KIND] = kind
    state[S_DISC_LAST] = -1
    state[S_DISC_COUNT] = 0


@numba.njit(cache=True)
def _settle(state, cfg):
    # A called battle: compare, then the loser leaves (or both, or a split).
    a = state[S_ATTACKER]
    d = state[S_DEFENDER]
    state[S_KNOWN + a] |= showdown.palace_mask(state, d)
    state[S_KNOWN + d] |= showdown.palace_mask(state, a)
    winner = showdown.battle_winner(state, a, d)
    if winner == -1:
        if popcount(state[S_IN]) == 2:
            _finish(state, state[S_IN], END_BATTLE_SPLIT)
            return
        _leave(state, a)
        _leave(state, d)
        if not _hand_over_after_exit(state):
            _end_turn(state, cfg)
        return
    loser = a + d - winner
    _leave(state, loser)
    _take(state, winner, loser)
    if not _hand_over_after_exit(state):
        _start_discard(state, winner, DK_TAKE)


@numba.njit(cache=True)
def _apply_turn(state, cfg, action):
    p = state[S_TURN_PLAYER]
    bit = np.int64(1) << p
    state[S_TURNS] += 1
    if action == STAY:
        state[S_COUNTS + NUM_COUNTS * p] += 1
        state[S_QUIET] |= bit
        _end_turn(state, cfg)
    elif action == FOLD:
        _leave(state, p)
        if not _hand_over_after_exit(state):
            _end_turn(state, cfg)
    elif action == BUY:
        state[S_COUNTS + NUM_COUNTS * p + 1] += 1
        _pay(state, p, cfg[C_SMALL])
        state[S_QUIET] = 0
        if count_at(state, LOC_DRAW) == 0:
            _move_all(state, LOC_DISCARD, LOC_DRAW)
            state[S_RESHUFFLES] += 1
        state[S_PHASE] = PH_BUY
    elif action == DISCARD:
        state[S_COUNTS + NUM_COUNTS * p + 2] += 1
        _pay(state, p, cfg[C_SMALL])
        state[S_QUIET] |= bit
        _start_discard(state, p, DK_PAID)
    else:
        state[S_COUNTS + NUM_COUNTS * p + 3] += 1
        t, level = bet_target_level(cfg, action)
        minimum = (state[S_NSOLD + p] + 1) * cfg[C_SMALL]
        if level == cfg[C_BET_LEVELS]:
            _pay(state, p, state[S_STACK + p])
        else:
            _pay(state, p, minimum << level)
        state[S_QUIET] = 0
        state[S_ATTACKER] = p
        state[S_DEFENDER] = t
        state[S_TO_CALL] = (state[S_NSOLD + t] + 1) * cfg[C_SMALL]
        state[S_RAISES] = 0
        state[S_ACTOR] = t
        state[S_PHASE] = PH_BATTLE


@numba.njit(cache=True)
def _apply_battle(state, cfg, action):
    p = state[S_ACTOR]
    o = state[S_ATTACKER] + state[S_DEFENDER] - p
    if action == FOLD:
        _leave(state, p)
        _take(state, o, p)
        if not _hand_over_after_exit(state):
            _start_discard(state, o, DK_TAKE)
    elif action == CALL:
        _pay(state, p, state[S_TO_CALL])
        _settle(state, cfg)
    else:
        state[S_COUNTS + NUM_COUNTS * p + 4] += 1
        level = action - RAISE_BASE
        to_call = state[S_TO_CALL]
        if level == cfg[C_RAISE_LEVELS]:
            paid = _pay(state, p, state[S_STACK + p])
        else:
            paid = _pay(state, p, to_call + raise_amount(state, cfg, p, level))
        state[S_TO_CALL] = paid - to_call
        state[S_RAISES] += 1
        state[S_ACTOR] = o


@numba.njit(cache=True)
def _apply_chance(state, cfg, card):
    ph = state[S_PHASE]
    n = cfg[C_PLAYERS]
    if ph == PH_BANNER:
        seat = state[S_DEAL_SEAT]
        state[S_PUBLIC] |= np.int64(1) << card
        if _suit_used_in_group(state, seat, card & 3):
            state[S_LOC + card] = LOC_SET_ASIDE
        else:
            state[S_LOC + card] = LOC_BANNER + seat
            state[S_BANNER + seat] = card
            state[S_DEAL_SEAT] = seat + 1
        if state[S_DEAL_SEAT] == n:
            # All cards but the banners are gathered for the palaces: only
            # banners stay publicly known.
            _move_all(state, LOC_SET_ASIDE, LOC_DRAW)
            state[S_PUBLIC] = 0
            for q in range(n):
                state[S_PUBLIC] |= np.int64(1) << state[S_BANNER + q]
            state[S_DEAL_SEAT] = 0
            state[S_PHASE] = PH_PALACE
        elif count_at(state, LOC_DRAW) == 0:
            _move_all(state, LOC_SET_ASIDE, LOC_DRAW)
    elif ph == PH_PALACE:
        seat = state[S_DEAL_SEAT]
        state[S_LOC + card] = LOC_PALACE + seat
        state[S_KNOWN + seat] |= np.int64(1) << card
        state[S_DEAL_COUNT] += 1
        if state[S_DEAL_COUNT] == PALACE_SIZE:
            state[S_DEAL_COUNT] = 0
            state[S_DEAL_SEAT] = seat + 1
            if seat + 1 == n:
                state[S_PHASE] = PH_TURN
                state[S_TURN_PLAYER] = 0
    else:
        p = state[S_TURN_PLAYER]
        state[S_LOC + card] = LOC_SOLDIER + p
        state[S_NSOLD + p] += 1
        state[S_PUBLIC] |= np.int64(1) << card
        _start_discard(state, p, DK_BUY)


@numba.njit(cache=True)
def apply_action(state, cfg, action):
    """Apply a chance outcome (card id) or a player action; the caller checks legality."""
    state[S_LAST_OUT] = 0
    ph = state[S_PHASE]
    if ph == PH_BANNER or ph == PH_PALACE or ph == PH_BUY:
        _apply_chance(state, cfg, action)
    elif ph == PH_TURN:
        _apply_turn(state, cfg, action)
    elif ph == PH_BATTLE:
        _apply_battle(state, cfg, action)
    elif action == DONE:
        _end_turn(state, cfg)
    else:
        c = action - DISCARD_CARD
        p = state[S_ACTOR]
        state[S_LOC + c] = LOC_DISCARD
        state[S_NSOLD + p] -= 1
        state[S_DISC_LAST] = c
        state[S_DISC_COUNT] += 1


@numba.njit(cache=True)
def returns(state, out):
    """Write chips won from the pot minus chips put in, per seat, to ``out`` (zeros before the end)."""
    out[:] = 0.0
    if state[S_PHASE] == PH_OVER:
        for p in range(out.shape[0]):
            out[p] = state[S_PAYOUT + p] - state[S_CONTRIB + p]
