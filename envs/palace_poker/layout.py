"""Palace Poker state layout, parameters and action ids (constants shared by every kernel).

``cfg`` (``int64``, shape ``(CFG_SIZE,)``) holds the parameters (``C_*``
offsets, see ``make_config``); ``state`` (``int64``, shape ``(STATE_SIZE,)``)
a position (``S_*`` offsets). ``state[S_LOC + c]`` is where card ``c`` lies
(``LOC_*`` codes; banner, palace and soldiers of seat ``q`` are
``LOC_BANNER + q``, ``LOC_PALACE + q``, ``LOC_SOLDIER + q``). Card sets in
``S_PUBLIC`` / ``S_KNOWN`` are bitmasks over card ids (``gamut.envs.cards``).
Action ids are tabled in ``gamut.envs.palace_poker.kernels`` and in
``docs/games/palace_poker.md``.
"""

from __future__ import annotations

import numpy as np

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
