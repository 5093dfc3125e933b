"""Poke rules as Numba kernels on one small ``int64`` state array.

These kernels are the one implementation of the rules stated in
``docs/games/poke.md``: dealing, the draw phase with doubling, trick play,
scoring of a deal, games and rubbers. ``gamut.envs.poke.game`` wraps them for
pyspiel, ``gamut.envs.poke.rollout`` plays random matches with them in compiled
loops; solvers may call them directly.

Arrays
------
``cfg`` (``int64``, shape ``(CFG_SIZE,)``): the game parameters, read only; see
``make_config``. ``state`` (``int64``, shape ``(STATE_SIZE,)``): everything
about a position; the field offsets are the ``S_*`` constants below. Sets of
cards are bitmasks over card ids (``gamut.envs.cards``: bit ``4*(rank-2)+suit``).

Action ids (``hand_size = h``, ``2**h`` ids per phase)
------------------------------------------------------
* ``0`` = stand (draw phase).
* ``m`` in ``1 .. 2**h - 1`` = discard the cards in the slots of the bitmask
  ``m`` and draw as many; slot ``i`` is the ``i``-th lowest card id in the
  drawer's hand.
* ``2**h + m`` = trick play of the cards in the slots of ``m`` over the
  player's *poker hand* (the ``h`` cards held after the draw phase, lowest id
  first). Slots keep their meaning for the whole trick phase; played slots are
  no longer legal.

Worked example (``h = 5``): holding ``3c 7d 7s Qh As`` (slots 0..4), action
``0b00101 = 5`` discards ``3c`` and ``7s``; in the trick phase with poker hand
``7c 7d 9h Ks As``, action ``32 + 0b00011 = 35`` leads the pair of sevens and
``32 + 0b10000 = 48`` plays the ace of spades.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.cards import deck, popcount
from gamut.envs.poke import showdown

# --- parameters -------------------------------------------------------------
MODE_DEAL, MODE_GAME, MODE_RUBBER = 0, 1, 2
UNIT_CARD, UNIT_PLAY = 0, 1
FOLLOW_MUST_BEAT, FOLLOW_FREE = 0, 1

C_NUM_RANKS = 0
C_NUM_SUITS = 1
C_HAND_SIZE = 2
C_MODE = 3
C_TRICK_UNIT = 4
C_MAX_DEALS = 5
C_MAX_DRAW = 6  # min(3, hand_size - 1) cards per draw
C_DECK = 7  # bitmask of the cards in the deck
C_FOLLOW = 8  # FOLLOW_MUST_BEAT: a follower who can beat must; FOLLOW_FREE: may also throw off
CFG_SIZE = 9

# --- rules constants --------------------------------------------------------
MAX_HAND_SIZE = 5
MAX_SET = 4  # a set is 2, 3 or 4 cards of one rank
NONDEALER_DRAWS = 2  # draw (doubles), draw (redoubles)
DEALER_DRAWS = 3  # free draw, draw (doubles), draw (redoubles)
SWEEP_BONUS = 250
GAME_TARGET = 20  # below-the-line points that end a game
GAME_BONUS = 100
GAMES_TO_WIN_RUBBER = 2
RUBBER_BONUS_CLEAN = 750  # the loser won no game
RUBBER_BONUS_CONTESTED = 500  # the loser won one game
STAND = 0

# --- phases -----------------------------------------------------------------
PH_DEAL = 0  # chance: dealing card number S_NUM_DEALT
PH_DRAW = 1  # S_DRAWER decides: stand or discard
PH_REPLACE = 2  # chance: S_TO_DRAW replacement cards for S_DRAWER
PH_TRICK = 3  # the leader or the follower plays
PH_OVER = 4  # terminal

# pyspiel player ids
CHANCE_PLAYER = -1
TERMINAL_PLAYER = -4

# --- state layout -----------------------------------------------------------
S_PHASE = 0
S_DEALER = 1
S_DRAWER = 2
S_TO_DRAW = 3
S_NUM_DEALT = 4
S_NDRAWS = 5  # 2 fields: draws made this deal by player 0, 1
S_HAND = 7  # 2: cards held (after the draw phase: the poker hand)
S_DEALT = 9  # 2: cards dealt at the start of the deal
S_DISCARDS = 11  # all discarded cards of this deal
S_DISC = 12  # 6: S_DISC + 3*p + k = cards discarded by p at draw k
S_DRAWN = 18  # 6: S_DRAWN + 3*p + k = cards drawn by p at draw k
S_PLAYED = 24  # 2: cards played so far
S_LEADER = 26  # leader of the current trick
S_TRICK = 27  # number of completed tricks this deal
S_LEAD = 28  # 5: cards led in trick t
S_FOLLOW = 33  # 5: cards played by the follower in trick t
S_TRICK_LEADER = 38  # 5: leader of trick t
S_TRICK_WINNER = 43  # 5: winner of trick t
S_TRICKS = 48  # 2: tricks won this deal (in trick units, before multipliers)
S_WON_CARDS = 50  # 2: cards of won plays this deal
S_BELOW = 52  # 2: below the line (current game)
S_ABOVE = 54  # 2: above the line
S_GAMES = 56  # 2: games won
S_DEALS_DONE = 58
S_MOVES = 59  # actions applied so far (chance included) = len(history)
S_DEAL_START = 60  # S_MOVES when the current deal began
S_LAST_TRICK_PTS = 61  # 2: below-line points of the last finished deal
S_LAST_SWEEP = 63  # 2: sweep points of the last finished deal
S_LAST_POKER = 65  # 2: poker points of the last finished deal
S_LAST_GAME = 67  # winner of a game at the end of the last deal, else -1
STATE_SIZE = 68


# De Bruijn bit scan: (lowest bit * constant) >> 58 indexes a 64-entry table of bit positions.
_DEBRUIJN = 0x03F79D71B4CB0A89
_DEBRUIJN_TABLE = np.zeros(64, dtype=np.int64)
for _bit in range(64):
    _DEBRUIJN_TABLE[((1 << _bit) * _DEBRUIJN % 2**64) >> 58] = _bit


@numba.njit(cache=True)
def lowest_card(mask):
    """Lowest card id in a non-empty card mask (constant time)."""
    low = np.uint64(mask & -mask)
    return _DEBRUIJN_TABLE[(low * np.uint64(_DEBRUIJN)) >> np.uint64(58)]


@numba.njit(cache=True)
def cards_of(mask, out):
    """Write the card ids of ``mask``, ascending, into ``out`` (``int64``, room for every card); returns how many.

    A card id is its bit in the mask: the mask ``0b10011`` holds cards 0, 1
    and 4 (2c, 2d, 3c), written as ``out[:3] = [0, 1, 4]`` and returning 3.
    """
    n = 0
    rest = mask
    while rest:
        out[n] = lowest_card(rest)
        rest &= rest - 1
        n += 1
    return n


@numba.njit(cache=True)
def _slot_map(hand, mask, from_slots):
    # Walk the cards of `hand` lowest first; the i-th is slot i. Copy bit i of `mask` to bit (card id) of
    # the result when `from_slots`, bit (card id) to bit i otherwise.
    out = np.int64(0)
    i = 0
    rest = hand
    while rest:
        c = lowest_card(rest)
        rest &= rest - 1
        src, dst = (i, c) if from_slots else (c, i)
        if (mask >> src) & 1:
            out |= np.int64(1) << dst
        i += 1
    return out


@numba.njit(cache=True)
def slots_to_cards(hand, slots):
    """Card mask of the hand slots in ``slots`` (slot ``i`` = ``i``-th lowest card of ``hand``)."""
    return _slot_map(hand, slots, True)


@numba.njit(cache=True)
def cards_to_slots(hand, cards):
    """Slot mask of ``cards`` (a subset of ``hand``); inverse of ``slots_to_cards``."""
    return _slot_map(hand, cards, False)


@numba.njit(cache=True)
def set_rank(cards):
    """Rank shared by every card of ``cards`` (``card id >> 2``), or -1 if ranks differ."""
    c = lowest_card(cards)
    r = c >> 2
    rank_bits = np.int64(15) << (4 * r)
    if cards & ~rank_bits:
        return -1
    return r


@numba.njit(cache=True)
def beats(lead, follow):
    """True when the follower's cards beat the lead (same count assumed).

    A single is beaten by any higher card; a set only by a set of the same size
    and a higher rank. Equal ranks: the leader wins.
    """
    follow_rank = set_rank(follow)
    return follow_rank >= 0 and follow_rank > set_rank(lead)


@numba.njit(cache=True)
def stock_mask(state, cfg):
    """Cards neither in a hand nor discarded: the stock (and, while dealing, the undealt deck)."""
    return cfg[C_DECK] & ~(state[S_HAND] | state[S_HAND + 1] | state[S_DISCARDS])


@numba.njit(cache=True)
def trick_multiplier(state, player):
    """Points per trick of ``player`` in this deal: 1, 2 or 4 by the opponent's draws.

    The non-dealer's first draw doubles the dealer's tricks and the second
    redoubles; the dealer's first draw is free, the second doubles and the third
    redoubles the non-dealer's tricks.
    """
    opp = 1 - player
    draws = state[S_NDRAWS + opp]
    if opp == state[S_DEALER]:
        draws = max(draws - 1, 0)
    return 1 << draws


@numba.njit(cache=True)
def current_player(state):
    """Player to move: 0 or 1, ``CHANCE_PLAYER`` (-1) or ``TERMINAL_PLAYER`` (-4)."""
    phase = state[S_PHASE]
    if phase == PH_OVER:
        return TERMINAL_PLAYER
    if phase == PH_DEAL or phase == PH_REPLACE:
        return CHANCE_PLAYER
    if phase == PH_DRAW:
        return state[S_DRAWER]
    t = state[S_TRICK]
    if state[S_LEAD + t] == 0:
        return state[S_LEADER]
    return 1 - state[S_LEADER]


@numba.njit(cache=True)
def legal_actions(state, cfg, out):
    """Write the sorted legal actions into ``out`` (``int64``, ``(2 * 2**hand_size,)``).

    Returns how many were written (0 at chance and terminal nodes). A follower
    plays as many cards as were led; under ``FOLLOW_MUST_BEAT`` only the plays
    that beat the lead (``beats``) are legal when there is one, and any plays
    of that size otherwise.
    """
    phase = state[S_PHASE]
    if phase != PH_DRAW and phase != PH_TRICK:
        return 0
    h = cfg[C_HAND_SIZE]
    base = np.int64(1) << h
    n = 0
    if phase == PH_DRAW:
        limit = min(cfg[C_MAX_DRAW], popcount(stock_mask(state, cfg)))
        out[n] = STAND
        n += 1
        for m in range(1, base):
            if popcount(m) <= limit:
                out[n] = m
                n += 1
        return n
    p = current_player(state)
    hand = state[S_HAND + p]
    played = state[S_PLAYED + p]
    # Free slots and, 6 bits per slot, the card id in each slot.
    free = 0
    slot_cards = np.int64(0)
    rest = hand
    for i in range(h):
        c = lowest_card(rest)
        rest &= rest - 1
        slot_cards |= c << (6 * i)
        if not (played >> c) & 1:
            free |= 1 << i
    lead = state[S_LEAD + state[S_TRICK]]
    if lead != 0:
        lead_size = popcount(lead)
        must_beat = cfg[C_FOLLOW] == FOLLOW_MUST_BEAT
        found_beat = False
        for m in range(1, base):
            if m & ~free or popcount(m) != lead_size:
                continue
            if must_beat:
                if beats(lead, _slot_mask_cards(slot_cards, m)):
                    if not found_beat:
                        # The first beating play: the throw-offs listed so far are not legal.
                        found_beat = True
                        n = 0
                elif found_beat:
                    continue
            out[n] = base + m
            n += 1
        return n
    for m in range(1, base):
        if m & ~free or popcount(m) > MAX_SET:
            continue
        if set_rank(_slot_mask_cards(slot_cards, m)) >= 0:
            out[n] = base + m
            n += 1
    return n


@numba.njit(cache=True)
def _slot_mask_cards(slot_cards, slots):
    # Card mask of the slots in `slots`, card ids packed 6 bits per slot in `slot_cards`.
    out = np.int64(0)
    i = 0
    while slots:
        if slots & 1:
            out |= np.int64(1) << ((slot_cards >> (6 * i)) & 63)
        slots >>= 1
        i += 1
    return out


@numba.njit(cache=True)
def chance_outcomes(state, cfg, out):
    """Write the card ids of the stock, ascending, into ``out`` (``int64``, ``(52,)``).

    Each is equally likely. Returns how many were written (0 off chance nodes).
    """
    phase = state[S_PHASE]
    if phase != PH_DEAL and phase != PH_REPLACE:
        return 0
    return cards_of(stock_mask(state, cfg), out)


@numba.njit(cache=True)
def start_deal(state, cfg, dealer):
    """Clear the deal fields of ``state`` and start dealing with ``dealer``; the score sheet is kept."""
    for i in range(S_PHASE, S_BELOW):
        state[i] = 0
    state[S_PHASE] = PH_DEAL
    state[S_DEALER] = dealer
    state[S_DEAL_START] = state[S_MOVES]


@numba.njit(cache=True)
def init_state(state, cfg):
    """Fill ``state`` with the initial position: player 1 deals the first deal."""
    state[:] = 0
    state[S_LAST_GAME] = -1
    start_deal(state, cfg, 1)


@numba.njit(cache=True)
def _end_drawing(state):
    p = state[S_DRAWER]
    if p != state[S_DEALER]:
        state[S_DRAWER] = 1 - p
        state[S_PHASE] = PH_DRAW
    else:
        state[S_PHASE] = PH_TRICK
        state[S_LEADER] = 1 - p


@numba.njit(cache=True)
def max_draws(state, player):
    """Draws allowed to ``player`` in this deal: 3 for the dealer, 2 for the non-dealer."""
    return DEALER_DRAWS if player == state[S_DEALER] else NONDEALER_DRAWS


@numba.njit(cache=True)
def _settle_deal(state, cfg):
    """Score the finished deal, then end the game/rubber/match or start the next deal."""
    h = cfg[C_HAND_SIZE]
    for p in range(2):
        pts = state[S_TRICKS + p] * trick_multiplier(state, p)
        state[S_BELOW + p] += pts
        state[S_LAST_TRICK_PTS + p] = pts
        sweep = SWEEP_BONUS if state[S_WON_CARDS + p] == h else 0
        state[S_ABOVE + p] += sweep
        state[S_LAST_SWEEP + p] = sweep
        state[S_LAST_POKER + p] = 0
    winner, points = showdown.poker_winner(state[S_HAND], state[S_HAND + 1])
    if winner >= 0:
        state[S_ABOVE + winner] += points
        state[S_LAST_POKER + winner] = points
    state[S_DEALS_DONE] += 1
    state[S_LAST_GAME] = -1
    mode = cfg[C_MODE]
    if mode == MODE_DEAL:
        state[S_PHASE] = PH_OVER
        return
    b0 = state[S_BELOW]
    b1 = state[S_BELOW + 1]
    if max(b0, b1) >= GAME_TARGET and b0 != b1:
        w = 0 if b0 > b1 else 1
        state[S_LAST_GAME] = w
        state[S_ABOVE + w] += GAME_BONUS
        state[S_GAMES + w] += 1
        state[S_BELOW] = 0
        state[S_BELOW + 1] = 0
        if mode == MODE_GAME:
            state[S_PHASE] = PH_OVER
            return
        if state[S_GAMES + w] == GAMES_TO_WIN_RUBBER:
            if state[S_GAMES + 1 - w] == 0:
                state[S_ABOVE + w] += RUBBER_BONUS_CLEAN
            else:
                state[S_ABOVE + w] += RUBBER_BONUS_CONTESTED
            state[S_PHASE] = PH_OVER
            return
    if state[S_DEALS_DONE] >= cfg[C_MAX_DEALS]:
        state[S_PHASE] = PH_OVER
        return
    start_deal(state, cfg, 1 - state[S_DEALER])


@numba.njit(cache=True)
def apply_action(state, cfg, action):
    """Apply a legal ``action`` (a card id at chance nodes) to ``state`` in place.

    Legality is not checked here: callers check it with ``legal_actions`` or
    ``chance_outcomes`` (``gamut.envs.poke.game`` raises ValueError otherwise).
    """
    state[S_MOVES] += 1
    phase = state[S_PHASE]
    bit = np.int64(1) << action
    if phase == PH_DEAL:
        # Cards go alternately to the non-dealer and the dealer, non-dealer first.
        k = state[S_NUM_DEALT]
        p = 1 - state[S_DEALER] if k % 2 == 0 else state[S_DEALER]
        state[S_HAND + p] |= bit
        state[S_DEALT + p] |= bit
        state[S_NUM_DEALT] = k + 1
        if k + 1 == 2 * cfg[C_HAND_SIZE]:
            state[S_PHASE] = PH_DRAW
            state[S_DRAWER] = 1 - state[S_DEALER]
        return
    if phase == PH_REPLACE:
        p = state[S_DRAWER]
        state[S_HAND + p] |= bit
        state[S_DRAWN + 3 * p + state[S_NDRAWS + p] - 1] |= bit
        state[S_TO_DRAW] -= 1
        if state[S_TO_DRAW] == 0:
            if state[S_NDRAWS + p] == max_draws(state, p):
                _end_drawing(state)
            else:
                state[S_PHASE] = PH_DRAW
        return
    if phase == PH_DRAW:
        if action == STAND:
            _end_drawing(state)
            return
        p = state[S_DRAWER]
        cards = slots_to_cards(state[S_HAND + p], action)
        state[S_DISC + 3 * p + state[S_NDRAWS + p]] = cards
        state[S_NDRAWS + p] += 1
        state[S_HAND + p] &= ~cards
        state[S_DISCARDS] |= cards
        state[S_TO_DRAW] = popcount(cards)
        state[S_PHASE] = PH_REPLACE
        return
    _play(state, cfg, action)


@numba.njit(cache=True)
def _play(state, cfg, action):
    h = cfg[C_HAND_SIZE]
    p = current_player(state)
    cards = slots_to_cards(state[S_HAND + p], action - (np.int64(1) << h))
    state[S_PLAYED + p] |= cards
    t = state[S_TRICK]
    if state[S_LEAD + t] == 0:
        state[S_LEAD + t] = cards
        state[S_TRICK_LEADER + t] = p
        return
    state[S_FOLLOW + t] = cards
    lead = state[S_LEAD + t]
    winner = p if beats(lead, cards) else 1 - p
    size = popcount(cards)
    state[S_TRICK_WINNER + t] = winner
    state[S_TRICKS + winner] += size if cfg[C_TRICK_UNIT] == UNIT_CARD else 1
    state[S_WON_CARDS + winner] += size
    state[S_LEADER] = winner
    state[S_TRICK] = t + 1
    if state[S_PLAYED + p] == state[S_HAND + p]:
        _settle_deal(state, cfg)


@numba.njit(cache=True)
def returns(state, cfg, trick_value, out):
    """Write both players' returns into ``out`` (``float64``, ``(2,)``); zeros before the end.

    ``deal`` mode: above-the-line difference plus ``trick_value`` times the
    below-the-line difference; ``game``/``rubber``: above-the-line difference.
    """
    out[0] = 0.0
    out[1] = 0.0
    if state[S_PHASE] != PH_OVER:
        return
    diff = float(state[S_ABOVE] - state[S_ABOVE + 1])
    if cfg[C_MODE] == MODE_DEAL:
        diff += trick_value * float(state[S_BELOW] - state[S_BELOW + 1])
    out[0] = diff
    out[1] = 0.0 - diff  # not -diff: no negative zero


def make_config(num_ranks: int, num_suits: int, hand_size: int, mode: int, trick_unit: int,
                max_deals: int, follow: int = FOLLOW_MUST_BEAT) -> np.ndarray:
    """Parameter array ``cfg`` (``int64``, ``(CFG_SIZE,)``) for the kernels; arguments are checked by the game."""
    cfg = np.zeros(CFG_SIZE, dtype=np.int64)
    cfg[C_NUM_RANKS] = num_ranks
    cfg[C_NUM_SUITS] = num_suits
    cfg[C_HAND_SIZE] = hand_size
    cfg[C_MODE] = mode
    cfg[C_TRICK_UNIT] = trick_unit
    cfg[C_MAX_DEALS] = max_deals
    cfg[C_MAX_DRAW] = min(3, hand_size - 1)
    cfg[C_FOLLOW] = follow
    cfg[C_DECK] = int(np.bitwise_or.reduce(np.left_shift(np.int64(1), deck(num_ranks, num_suits))))
    return cfg
