"""Poker hand strength: one integer per hand, batch-first Numba kernels.

Strength encoding
-----------------
A hand's strength is an ``int32`` whose natural order is the poker order
(higher is better; equal means a tie; suits are never ranked)::

    strength = category << 20 | r0 << 16 | r1 << 12 | r2 << 8 | r3 << 4 | r4

``category`` is one of the constants below (``HIGH_CARD = 0`` ...
``ROYAL_FLUSH = 9``, so ``category_of(s) == s >> 20``) and ``r0..r4`` are
ranks ``2..14`` in the order poker compares them, ``0`` where a hand has no
card to fill the place:

==================  =======================================================
category            r0 r1 r2 r3 r4
==================  =======================================================
high card, flush    the five ranks, highest first
one pair            pair rank, then the three kickers, highest first
two pair            high pair, low pair, kicker
three of a kind     trips rank, then the two kickers
straight (flush)    top rank (5 for the wheel 5-4-3-2-A), then 0 0 0 0
full house          trips rank, pair rank
four of a kind      quads rank, kicker
royal flush         14 (an ace-high straight flush), then 0 0 0 0
==================  =======================================================

Worked example: a pair of sevens with A, K, 4 kickers is
``1 << 20 | 7 << 16 | 14 << 12 | 13 << 8 | 4 << 4 = 0x17ED40``; the wheel
``5c 4d 3h 2s Ac`` is ``0x450000`` and ``6c 5d 4h 3s 2c`` is ``0x460000``.
Over all 2,598,960 five-card hands there are exactly 7,462 distinct strengths.

Hands of fewer than five cards
------------------------------
Fewer than five cards are valued as poker values partial hands (for Poke
with small hand sizes, and Palace Poker battles where a suit is excluded):
only high card, pair, two pair, three and four of a kind can occur (straights
and flushes need five cards), the ranks are filled as above and a missing
kicker counts ``0``, below every real kicker. So ``Ah Ad`` (``0x1E0000``)
beats any pair of kings and loses to ``Ah Ad 2c``; the empty hand is ``0``.
A set of more than five cards is worth its best five (``best_strengths``),
and a set of fewer than five is worth itself, which is also the maximum over
its subsets, so every size sits on one scale.

Evaluation
----------
Five and seven cards: each card adds a per-rank key whose sums are distinct
for every multiset of ranks of that size (small keys of this kind come from a
greedy search, each the smallest value keeping all sums distinct), the sum indexes a
displacement-compressed table of non-flush strengths (row offset table +
packed values, both small enough for the L1/L2 cache), and a flush is looked
up by its 13-bit rank mask. Any other size, and hands that ignore one suit,
use ``best_strength``: it folds the cards into masks of the ranks held at
least once, twice, three and four times and reads the highest ranks and
straights of those masks from small tables.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numba
import numpy as np

from gamut.envs.cards import NUM_CARDS, NUM_RANKS

HIGH_CARD = 0
ONE_PAIR = 1
TWO_PAIR = 2
THREE_OF_A_KIND = 3
STRAIGHT = 4
FLUSH = 5
FULL_HOUSE = 6
FOUR_OF_A_KIND = 7
STRAIGHT_FLUSH = 8
ROYAL_FLUSH = 9
NUM_CATEGORIES = 10
CATEGORY_NAMES = (
    "high card", "one pair", "two pair", "three of a kind", "straight",
    "flush", "full house", "four of a kind", "straight flush", "royal flush",
)
CATEGORY_SHIFT = 20

# Per-rank keys (rank 2 first) whose sums over any 5 (resp. 7) ranks with at most four
# of a rank are all distinct; _build_lookup checks this when the table is built.
RANK_KEYS5 = np.array([0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415])
RANK_KEYS7 = np.array(
    [0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181]
)
_ROW_SHIFT = 8  # displacement rows of 256 keys keep offsets and values cache-sized
_ROW_MASK = (1 << _ROW_SHIFT) - 1

# Layout of HAND_TABLE, the one int32 array every evaluation kernel reads
# (one array argument: a tuple of arrays costs reference counting per access in Numba):
#   [_AT_FLUSH, +8192)   strength of the best five cards of one suit by 13-bit rank mask
#                        (bit r-2 for rank r); 0 below five ranks
#   [_AT_STRAIGHT, +8192)  top rank of the best straight in a rank mask, 0 if none
#   [_AT_TOP_RANKS, +8192) the five highest ranks of a mask, packed as a strength's r0..r4
#   [_AT_KEY5, +52)      per-card rank key for 5-card sums (RANK_KEYS5 of its rank)
#   [_AT_KEY7, +52)      per-card rank key for 7-card sums
#   [_AT_OFFSETS5, ...)  row start (absolute index into HAND_TABLE) of 5-card key sum >> 8
#   [_AT_OFFSETS7, ...)  the same for 7-card sums
#   [_AT_VALUES, ...)    the packed non-flush strengths of both sizes:
#                        strength = HAND_TABLE[HAND_TABLE[_AT_OFFSETS5 + (k >> 8)] + (k & 255)]
_AT_FLUSH = 0
_AT_STRAIGHT = _AT_FLUSH + (1 << NUM_RANKS)
_AT_TOP_RANKS = _AT_STRAIGHT + (1 << NUM_RANKS)
_AT_KEY5 = _AT_TOP_RANKS + (1 << NUM_RANKS)
_AT_KEY7 = _AT_KEY5 + NUM_CARDS
_AT_OFFSETS5 = _AT_KEY7 + NUM_CARDS
_AT_OFFSETS7 = _AT_OFFSETS5 + ((4 * int(RANK_KEYS5[-1]) + int(RANK_KEYS5[-2])) >> _ROW_SHIFT) + 1
_AT_VALUES = _AT_OFFSETS7 + ((4 * int(RANK_KEYS7[-1]) + 3 * int(RANK_KEYS7[-2])) >> _ROW_SHIFT) + 1


@numba.njit(cache=True)
def category_of(strength):
    """Category ``0..9`` of a strength (scalar; callable from kernels)."""
    return strength >> CATEGORY_SHIFT


@numba.njit(cache=True)
def _straight_top(mask):
    # Highest rank topping five consecutive ranks in a 13-bit mask; the wheel has top 5.
    for top in range(14, 5, -1):
        run = 0x1F << (top - 6)
        if mask & run == run:
            return top
    wheel = 0x100F  # A, 5, 4, 3, 2
    if mask & wheel == wheel:
        return 5
    return 0


@numba.njit(cache=True)
def _top_five(mask):
    # The five highest ranks of a 13-bit mask packed 4 bits each, highest first
    # (fewer if the mask holds fewer), and how many were packed.
    packed = 0
    places = 0
    for r in range(14, 1, -1):
        if mask >> (r - 2) & 1 and places < 5:
            packed = packed << 4 | r
            places += 1
    return packed, places


@numba.njit(cache=True)
def _flush_strength(mask):
    # Best hand from one suit's ranks: 0 unless at least five ranks are present.
    ranks, places = _top_five(mask)
    if places < 5:
        return 0
    top = _straight_top(mask)
    if top == 14:
        return ROYAL_FLUSH << CATEGORY_SHIFT | 14 << 16
    if top > 0:
        return STRAIGHT_FLUSH << CATEGORY_SHIFT | top << 16
    return FLUSH << CATEGORY_SHIFT | ranks


@numba.njit(cache=True)
def _top_ranks(mask, table):
    # The five highest ranks of a 13-bit mask packed r0<<16 | ... | r4 (0-padded):
    # >> 16 is the highest rank, >> 12 the two highest, >> 8 the three highest.
    return table[_AT_TOP_RANKS + mask]


@numba.njit(cache=True)
def add_rank(bit, m1, m2, m3, m4):
    """Rank masks ``(m1, m2, m3, m4)`` with one more card of the rank ``bit`` (``1 << (card >> 2)``).

    ``mk`` is the 13-bit mask (bit = rank - 2) of the ranks held at least
    ``k`` times; start from four zeros. A fifth card of a rank changes nothing.
    """
    return m1 | bit, m2 | m1 & bit, m3 | m2 & bit, m4 | m3 & bit


@numba.njit(cache=True)
def _rank_strength(m1, m2, m3, m4, table):
    # Best non-flush strength of a rank multiset given as the 13-bit masks of the
    # ranks held at least once (m1), twice (m2), three times (m3) and four times (m4).
    if m4:
        quad = _top_ranks(m4, table) >> 16
        kicker = _top_ranks(m1 & ~(1 << (quad - 2)), table) >> 16
        return FOUR_OF_A_KIND << CATEGORY_SHIFT | quad << 16 | kicker << 12
    trip = _top_ranks(m3, table) >> 16
    if trip:
        # The pair of a full house may be a second trips.
        pair = _top_ranks(m2 & ~(1 << (trip - 2)), table) >> 16
        if pair:
            return FULL_HOUSE << CATEGORY_SHIFT | trip << 16 | pair << 12
    top = table[_AT_STRAIGHT + m1]
    if top:
        return STRAIGHT << CATEGORY_SHIFT | top << 16
    if trip:
        kickers = _top_ranks(m1 & ~(1 << (trip - 2)), table) >> 12
        return THREE_OF_A_KIND << CATEGORY_SHIFT | trip << 16 | kickers << 8
    pairs = _top_ranks(m2, table)
    high, low = pairs >> 16, pairs >> 12 & 15
    if low:
        kicker = _top_ranks(m1 & ~(1 << (high - 2)) & ~(1 << (low - 2)), table) >> 16
        return TWO_PAIR << CATEGORY_SHIFT | high << 16 | low << 12 | kicker << 8
    if high:
        kickers = _top_ranks(m1 & ~(1 << (high - 2)), table) >> 8
        return ONE_PAIR << CATEGORY_SHIFT | high << 16 | kickers << 4
    return HIGH_CARD << CATEGORY_SHIFT | _top_ranks(m1, table)


@numba.njit(cache=True)
def best_strength(cards, num_cards, exclude_suit, table):
    """Strength of the best hand of at most five of ``cards[:num_cards]``.

    Scalar kernel for any number of cards (0..52); ``cards`` is an array or a
    tuple. Cards whose suit equals ``exclude_suit`` do not count (``-1``: every
    card counts), nor do negative entries (empty slots, e.g. of a grid line).
    ``table`` is ``HAND_TABLE``. Cards must be distinct ids ``0..51`` (not checked).
    """
    m1 = m2 = m3 = m4 = 0
    suit_masks = 0  # 13 bits per suit, suit s at bits 16*s
    for i in range(num_cards):
        c = np.int64(cards[i])
        if c < 0 or (c & 3) == exclude_suit:
            continue
        bit = 1 << (c >> 2)
        m1, m2, m3, m4 = add_rank(bit, m1, m2, m3, m4)
        suit_masks |= bit << 16 * (c & 3)
    best = _rank_strength(m1, m2, m3, m4, table)
    for s in range(4):
        f = table[_AT_FLUSH + (suit_masks >> 16 * s & 0x1FFF)]
        if f > best:
            best = f
    return best


@numba.njit(cache=True)
def hand_strength5(c0, c1, c2, c3, c4, table):
    """Strength of the five distinct cards ``c0..c4`` (scalar; ``table`` is ``HAND_TABLE``)."""
    if ((c0 ^ c1) | (c0 ^ c2) | (c0 ^ c3) | (c0 ^ c4)) & 3 == 0:
        mask = (1 << (c0 >> 2)) | (1 << (c1 >> 2)) | (1 << (c2 >> 2)) | (1 << (c3 >> 2)) | (1 << (c4 >> 2))
        return table[_AT_FLUSH + mask]
    k = table[_AT_KEY5 + c0] + table[_AT_KEY5 + c1] + table[_AT_KEY5 + c2] + table[_AT_KEY5 + c3] + table[_AT_KEY5 + c4]
    return table[table[_AT_OFFSETS5 + (k >> _ROW_SHIFT)] + (k & _ROW_MASK)]


@numba.njit(cache=True)
def hand_strength7(c0, c1, c2, c3, c4, c5, c6, table):
    """Strength of the best five of the seven distinct cards ``c0..c6`` (scalar)."""
    # Each suit's nibble starts at 3, so its top bit is set exactly from five cards on.
    suits = 0x3333
    for c in (c0, c1, c2, c3, c4, c5, c6):
        suits += 1 << 4 * (c & 3)
    flush_bits = suits & 0x8888
    if flush_bits:
        # Seven cards hold at most one flush suit, and with it no full house or quads.
        suit = 0
        while not (flush_bits >> (4 * suit + 3)) & 1:
            suit += 1
        mask = 0
        for c in (c0, c1, c2, c3, c4, c5, c6):
            if (c & 3) == suit:
                mask |= 1 << (c >> 2)
        return table[_AT_FLUSH + mask]
    k = (
        table[_AT_KEY7 + c0] + table[_AT_KEY7 + c1] + table[_AT_KEY7 + c2] + table[_AT_KEY7 + c3]
        + table[_AT_KEY7 + c4] + table[_AT_KEY7 + c5] + table[_AT_KEY7 + c6]
    )
    return table[table[_AT_OFFSETS7 + (k >> _ROW_SHIFT)] + (k & _ROW_MASK)]


@numba.njit(cache=True)
def _first_bad_hand(hands):
    # Index of the first row that is not distinct ids in 0..51, or -1.
    for i in range(hands.shape[0]):
        seen = 0
        bad = False
        for j in range(hands.shape[1]):
            c = np.int64(hands[i, j])
            bit = 1 << (c & 63)
            bad |= (c < 0) | (c >= NUM_CARDS) | ((seen & bit) != 0)
            seen |= bit
        if bad:
            return i
    return -1


@numba.njit(cache=True)
def _strengths5(hands, table, out):
    for i in range(hands.shape[0]):
        out[i] = hand_strength5(hands[i, 0], hands[i, 1], hands[i, 2], hands[i, 3], hands[i, 4], table)


@numba.njit(cache=True)
def _strengths7(hands, table, out):
    for i in range(hands.shape[0]):
        out[i] = hand_strength7(
            hands[i, 0], hands[i, 1], hands[i, 2], hands[i, 3], hands[i, 4], hands[i, 5], hands[i, 6], table
        )


@numba.njit(cache=True)
def _best_strengths(hands, exclude_suits, table, out):
    for i in range(hands.shape[0]):
        out[i] = best_strength(hands[i], hands.shape[1], exclude_suits[i], table)


def _checked_hands(hands, num_cards: int | None, check: bool) -> np.ndarray:
    hands = np.asarray(hands)
    if hands.ndim != 2 or (num_cards is not None and hands.shape[1] != num_cards):
        want = f"(n, {num_cards})" if num_cards is not None else "(n, k)"
        raise ValueError(f"hands must be an integer array of shape {want}, got shape {hands.shape}")
    if not np.issubdtype(hands.dtype, np.integer):
        raise ValueError(f"hands must hold integer card ids 0..51, got dtype {hands.dtype}")
    hands = np.ascontiguousarray(hands)
    bad = _first_bad_hand(hands) if check else -1
    if bad >= 0:
        raise ValueError(f"hand {bad} ({hands[bad].tolist()}) must hold distinct card ids in 0..{NUM_CARDS - 1}")
    return hands


def strengths5(hands, check: bool = True) -> np.ndarray:
    """Strengths of five-card hands.

    Parameters
    ----------
    hands : int array (n, 5) of distinct card ids per row (any integer dtype; ``uint8``
        is fastest).
    check : bool
        Verify that every row holds distinct ids 0..51 (ValueError naming the first bad
        row). Pass ``False`` only for hands dealt by trusted code: an invalid row then
        yields a meaningless strength.

    Returns
    -------
    int32 array (n,). Example: ``strengths5([[51, 47, 43, 39, 35]])`` (As Ks Qs Js Ts)
    is ``[ROYAL_FLUSH << 20 | 14 << 16]``.
    """
    hands = _checked_hands(hands, 5, check)
    out = np.empty(len(hands), np.int32)
    _strengths5(hands, HAND_TABLE, out)
    return out


def strengths7(hands, check: bool = True) -> np.ndarray:
    """Strengths of the best five cards of each seven-card hand: int (n, 7) -> int32 (n,).

    ``check`` as in ``strengths5``.
    """
    hands = _checked_hands(hands, 7, check)
    out = np.empty(len(hands), np.int32)
    _strengths7(hands, HAND_TABLE, out)
    return out


def best_strengths(hands, exclude_suit=None, check: bool = True) -> np.ndarray:
    """Strength of the best hand of at most five cards from each row of ``hands``.

    Parameters
    ----------
    hands : int array (n, k), ``0 <= k <= 52``, distinct card ids per row. With
        ``k < 5`` this is the strength of the small hand itself.
    exclude_suit : None, int 0..3, or int array (n,) of -1..3
        Cards of this suit do not count (Palace Poker: the opponent's banner suit);
        ``None`` or ``-1``: every card counts. Fewer than five counting cards are
        valued as a small hand (see the module docstring).
    check : bool
        As in ``strengths5``.

    Returns
    -------
    int32 array (n,). Example: ``best_strengths([[51, 50, 3, 2, 49, 48]], exclude_suit=3)``
    (As Ah 2s 2h Ad Ac without spades: Ah 2h Ad Ac count) is three aces with a two
    kicker, ``0x3E2000``.
    """
    hands = _checked_hands(hands, None, check)
    if exclude_suit is None:
        exclude_suit = -1
    suits = np.asarray(exclude_suit)
    if not np.issubdtype(suits.dtype, np.integer) or suits.ndim > 1:
        raise ValueError(f"exclude_suit must be None, an int in -1..3 or an int array (n,), got {exclude_suit!r}")
    if suits.ndim == 1 and len(suits) != len(hands):
        raise ValueError(f"exclude_suit has {len(suits)} entries for {len(hands)} hands")
    suits = np.ascontiguousarray(np.broadcast_to(suits, (len(hands),)), dtype=np.int64)
    if suits.size and (suits.min() < -1 or suits.max() > 3):
        raise ValueError(f"exclude_suit values must be in -1..3 (-1: none), got {exclude_suit!r}")
    out = np.empty(len(hands), np.int32)
    _best_strengths(hands, suits, HAND_TABLE, out)
    return out


def categories(strengths) -> np.ndarray:
    """Category ``0..9`` of each strength: int array (n,) -> int8 array (n,)."""
    return (np.asarray(strengths, dtype=np.int64) >> CATEGORY_SHIFT).astype(np.int8)


def strength_str(strength: int) -> str:
    """Readable form of a strength, e.g. ``'one pair: 7 A K 4'`` or ``'straight: 5'``."""
    strength = int(strength)
    category = strength >> CATEGORY_SHIFT
    if not 0 <= category < NUM_CATEGORIES:
        raise ValueError(f"strength {strength} has no category in 0..{NUM_CATEGORIES - 1}")
    ranks = [strength >> shift & 15 for shift in (16, 12, 8, 4, 0)]
    names = " ".join("23456789TJQKA"[r - 2] for r in ranks if r)
    return f"{CATEGORY_NAMES[category]}: {names}" if names else CATEGORY_NAMES[category]


@numba.njit(cache=True)
def _fill_mask_tables(table):
    for mask in range(1 << NUM_RANKS):
        table[_AT_FLUSH + mask] = _flush_strength(mask)
        table[_AT_STRAIGHT + mask] = _straight_top(mask)
        packed, places = _top_five(mask)
        table[_AT_TOP_RANKS + mask] = packed << 4 * (5 - places)


@numba.njit(cache=True)
def _fill_rank_strengths(at_least, table, out):
    # at_least[i, k-1] = mask of the ranks multiset i holds at least k times.
    for i in range(out.size):
        out[i] = _rank_strength(at_least[i, 0], at_least[i, 1], at_least[i, 2], at_least[i, 3], table)


@numba.njit(cache=True)
def _displace(keys, shift):
    """Row offsets placing sorted distinct ``keys`` into a packed table without collisions.

    Row ``key >> shift`` is placed at the first offset where none of its columns
    ``key & (2**shift - 1)`` is taken, fullest rows first (first-fit decreasing).
    Returns ``(offsets int32 ((max_key >> shift) + 1,), slots int64 like keys, size)``.
    """
    width = 1 << shift
    num_rows = (keys[-1] >> shift) + 1
    starts = np.searchsorted(keys, np.arange(num_rows + 1) << shift)
    fill = starts[1:] - starts[:-1]
    # A row never needs an offset past all taken cells, so this is large enough.
    taken = np.zeros(2 * keys.size + 2 * width, np.bool_)
    offsets = np.zeros(num_rows, np.int64)
    first_free = 0
    for row in np.argsort(-fill, kind="mergesort"):
        if fill[row] == 0:
            break
        lowest = keys[starts[row]] & (width - 1)
        offset = max(first_free - lowest, 0)
        while True:
            if offset + width > taken.size:
                raise RuntimeError("displacement table overflow")
            clash = False
            for j in range(starts[row], starts[row + 1]):
                if taken[offset + (keys[j] & (width - 1))]:
                    clash = True
                    break
            if not clash:
                break
            offset += 1
        for j in range(starts[row], starts[row + 1]):
            taken[offset + (keys[j] & (width - 1))] = True
        offsets[row] = offset
        while taken[first_free]:
            first_free += 1
    slots = offsets[keys >> shift] + (keys & (width - 1))
    return offsets.astype(np.int32), slots, slots.max() + 1


def _build_lookup(size: int, rank_keys: np.ndarray, table: np.ndarray):
    # Every multiset of `size` ranks with at most four of a rank -> (row offsets, packed values).
    combos = np.array(list(combinations_with_replacement(range(NUM_RANKS), size)))
    counts = np.zeros((len(combos), NUM_RANKS), np.int64)
    for column in combos.T:
        counts[np.arange(len(combos)), column] += 1
    counts = counts[counts.max(axis=1) <= 4]
    keys = counts @ rank_keys
    order = np.argsort(keys)
    keys, counts = keys[order], counts[order]
    if np.any(np.diff(keys) == 0):
        raise RuntimeError(f"rank keys do not separate all {size}-card rank multisets")
    strengths = np.empty(len(keys), np.int32)
    bits = 1 << np.arange(NUM_RANKS, dtype=np.int64)
    at_least = np.stack([(counts >= k) @ bits for k in range(1, 5)], axis=1)
    _fill_rank_strengths(at_least, table, strengths)
    offsets, slots, table_size = _displace(keys, _ROW_SHIFT)
    values = np.zeros(table_size, np.int32)
    values[slots] = strengths
    return offsets, values


def _build_hand_table() -> np.ndarray:
    masks = np.zeros(_AT_KEY5, np.int32)
    _fill_mask_tables(masks)
    offsets5, values5 = _build_lookup(5, RANK_KEYS5, masks)
    offsets7, values7 = _build_lookup(7, RANK_KEYS7, masks)
    table = np.zeros(_AT_VALUES + len(values5) + len(values7), np.int32)
    table[:_AT_KEY5] = masks
    ranks = np.arange(NUM_CARDS) >> 2
    table[_AT_KEY5:_AT_KEY7] = RANK_KEYS5[ranks]
    table[_AT_KEY7:_AT_OFFSETS5] = RANK_KEYS7[ranks]
    table[_AT_OFFSETS5:_AT_OFFSETS7] = offsets5 + _AT_VALUES
    table[_AT_OFFSETS7:_AT_VALUES] = offsets7 + _AT_VALUES + len(values5)
    table[_AT_VALUES:_AT_VALUES + len(values5)] = values5
    table[_AT_VALUES + len(values5):] = values7
    return table


#: int32 (137,850,): the table argument of every evaluation kernel (layout above).
HAND_TABLE = _build_hand_table()
