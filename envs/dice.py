"""Five six-sided dice: roll and keep encodings, transitions and category tests.

Every poker-dice game (``docs/games/poker_dice.md``) scores a roll by its
multiset of faces, so rolls are stored sorted. Faces are ``1..6``.

Encodings
---------
*Counts*: a multiset of at most five dice as ``counts[f - 1]`` = number of dice
showing ``f`` (shape ``(6,)``).

*Keep id* ``0..461``: every multiset of 0..5 dice, ordered by size, then by its
sorted faces lexicographically. Keep 0 is the empty keep.

*Roll id* ``0..251``: every multiset of exactly five dice, in the same order.
Roll ``r`` is keep ``ROLL_TO_KEEP[r] == r + 210`` (210 keeps have fewer than
five dice).

*Ordered roll index* ``0..7775``: five dice in throwing order,
``(d0 - 1) + 6 * (d1 - 1) + 36 * (d2 - 1) + 216 * (d3 - 1) + 1296 * (d4 - 1)``.

Worked example::

    >>> roll_id((1, 1, 1, 1, 1)), roll_id((6, 6, 6, 6, 6)), roll_id((3, 1, 2, 1, 6))
    (0, 251, 29)
    >>> roll_faces(29)
    (1, 1, 2, 3, 6)
    >>> int(ORDERED_TO_ROLL[ordered_index((3, 1, 2, 1, 6))])
    29
    >>> keep_id(()), keep_id((6,)), keep_id((1, 1))
    (0, 6, 7)
    >>> int(KEEP_ADD[keep_id((1, 1))][5]) == keep_id((1, 1, 6))   # add a six
    True

Transitions: keeping keep ``k`` and rerolling the other ``5 - |k|`` dice gives
roll ``r`` with probability ``TRANSITION[k, r]`` (dense ``(462, 252)``), also
stored sparsely as rows ``TRANS_START[k]:TRANS_START[k + 1]`` of
``TRANS_ROLL``/``TRANS_PROB`` (4,368 entries in all).

The legal keeps of roll ``r`` (its sub-multisets, including the empty keep and
the whole roll) are ``ROLL_KEEPS[ROLL_KEEPS_START[r]:ROLL_KEEPS_START[r + 1]]``.

All tables are built once at import and are read-only.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations_with_replacement
from math import factorial

import numba
import numpy as np

NUM_FACES = 6
NUM_DICE = 5
NUM_KEEPS = 462
NUM_ROLLS = 252
NUM_ORDERED = NUM_FACES**NUM_DICE  # 7,776
NUM_SHORT_KEEPS = NUM_KEEPS - NUM_ROLLS  # keeps of 0..4 dice

# Ranking-game hand categories (docs/games/poker_dice.md, the ranking game), low to high.
HIGH, ONE_PAIR, TWO_PAIRS, THREE_OF_A_KIND, FULL_HOUSE, FOUR_OF_A_KIND, FIVE_OF_A_KIND = range(7)
RANKING_CATEGORY_NAMES = (
    "high", "one pair", "two pairs", "three of a kind", "full house", "four of a kind",
    "five of a kind",
)
# Ranking values are category * _CATEGORY_WEIGHT + tie-break digits in base 32.
_TIE_BASE = 32
_CATEGORY_WEIGHT = _TIE_BASE**6


def _build_keep_tables():
    faces_of_keep = [
        faces for size in range(NUM_DICE + 1)
        for faces in combinations_with_replacement(range(1, NUM_FACES + 1), size)
    ]
    counts = np.zeros((NUM_KEEPS, NUM_FACES), dtype=np.int64)
    for k, faces in enumerate(faces_of_keep):
        for face in faces:
            counts[k, face - 1] += 1
    # Key of a count vector: counts read as base-6 digits (each count is 0..5).
    keys = counts @ (NUM_FACES ** np.arange(NUM_FACES))
    by_key = np.full(NUM_FACES**NUM_FACES, -1, dtype=np.int64)
    by_key[keys] = np.arange(NUM_KEEPS)
    unit = NUM_FACES ** np.arange(NUM_FACES)
    add = np.full((NUM_KEEPS, NUM_FACES), -1, dtype=np.int64)
    remove = np.full((NUM_KEEPS, NUM_FACES), -1, dtype=np.int64)
    sizes = counts.sum(axis=1)
    for k in range(NUM_KEEPS):
        for f in range(NUM_FACES):
            if sizes[k] < NUM_DICE:
                add[k, f] = by_key[keys[k] + unit[f]]
            if counts[k, f] > 0:
                remove[k, f] = by_key[keys[k] - unit[f]]
    return counts, sizes, keys, by_key, add, remove


KEEP_COUNTS, KEEP_SIZE, _KEEP_KEY, KEEP_BY_KEY, KEEP_ADD, KEEP_REMOVE = _build_keep_tables()
"""``KEEP_COUNTS`` (462, 6) int64 face counts; ``KEEP_SIZE`` (462,) dice kept;
``KEEP_BY_KEY`` (46656,) keep id of ``sum(counts[f] * 6**f)`` or -1;
``KEEP_ADD[k, f]`` keep id after adding face ``f + 1`` (-1 when ``k`` has five dice);
``KEEP_REMOVE[k, f]`` keep id after removing one ``f + 1`` (-1 when there is none)."""

ROLL_TO_KEEP = np.arange(NUM_SHORT_KEEPS, NUM_KEEPS, dtype=np.int64)
KEEP_TO_ROLL = np.full(NUM_KEEPS, -1, dtype=np.int64)
KEEP_TO_ROLL[ROLL_TO_KEEP] = np.arange(NUM_ROLLS)
ROLL_COUNTS = KEEP_COUNTS[ROLL_TO_KEEP].copy()
"""(252, 6) int64 face counts of each roll."""
ROLL_FACES = np.repeat(
    np.tile(np.arange(1, NUM_FACES + 1), (NUM_ROLLS, 1)).ravel(), ROLL_COUNTS.ravel()
).reshape(NUM_ROLLS, NUM_DICE)
"""(252, 5) int64 faces of each roll, ascending."""
ROLL_SUM = ROLL_FACES.sum(axis=1)


def _build_ordered_table():
    digits = (np.arange(NUM_ORDERED)[:, None] // NUM_FACES ** np.arange(NUM_DICE)) % NUM_FACES
    counts = np.zeros((NUM_ORDERED, NUM_FACES), dtype=np.int64)
    for d in range(NUM_DICE):
        counts[np.arange(NUM_ORDERED), digits[:, d]] += 1
    keys = counts @ (NUM_FACES ** np.arange(NUM_FACES))
    return KEEP_TO_ROLL[KEEP_BY_KEY[keys]]


ORDERED_TO_ROLL = _build_ordered_table()
"""(7776,) int64 roll id of each ordered roll index."""
ROLL_MULTIPLICITY = np.bincount(ORDERED_TO_ROLL, minlength=NUM_ROLLS)
"""(252,) int64 number of ordered rolls giving each sorted roll (1..120; sums to 7,776)."""


def _build_transitions():
    dense = np.zeros((NUM_KEEPS, NUM_ROLLS), dtype=np.float64)
    for k in range(NUM_KEEPS):
        free = NUM_DICE - KEEP_SIZE[k]
        for r in range(NUM_ROLLS):
            extra = ROLL_COUNTS[r] - KEEP_COUNTS[k]
            if extra.min() < 0:
                continue
            ways = factorial(free)
            for n in extra:
                ways //= factorial(n)
            dense[k, r] = ways / NUM_FACES**free
    start = np.zeros(NUM_KEEPS + 1, dtype=np.int64)
    start[1:] = np.cumsum((dense > 0).sum(axis=1))
    rows, cols = np.nonzero(dense)
    return dense, start, cols.astype(np.int64), dense[rows, cols]


TRANSITION, TRANS_START, TRANS_ROLL, TRANS_PROB = _build_transitions()


def _build_roll_keeps():
    start = np.zeros(NUM_ROLLS + 1, dtype=np.int64)
    lists = []
    for r in range(NUM_ROLLS):
        inside = np.all(KEEP_COUNTS <= ROLL_COUNTS[r], axis=1)
        lists.append(np.nonzero(inside)[0])
        start[r + 1] = start[r] + len(lists[-1])
    return start, np.concatenate(lists).astype(np.int64)


ROLL_KEEPS_START, ROLL_KEEPS = _build_roll_keeps()
for _table in (
    KEEP_COUNTS, KEEP_SIZE, KEEP_BY_KEY, KEEP_ADD, KEEP_REMOVE, ROLL_TO_KEEP, KEEP_TO_ROLL,
    ROLL_COUNTS, ROLL_FACES, ROLL_SUM, ORDERED_TO_ROLL, ROLL_MULTIPLICITY, TRANSITION,
    TRANS_START, TRANS_ROLL, TRANS_PROB, ROLL_KEEPS_START, ROLL_KEEPS,
):
    _table.flags.writeable = False


# ---------------------------------------------------------------- conversions

def _check_faces(faces: Iterable[int], sizes: range) -> tuple[int, ...]:
    values = tuple(int(f) for f in faces)
    if len(values) not in sizes:
        raise ValueError(f"dice {values!r}: expected {sizes.start}..{sizes.stop - 1} dice")
    bad = [f for f in values if not 1 <= f <= NUM_FACES]
    if bad:
        raise ValueError(f"dice {values!r}: faces must be 1..{NUM_FACES}, got {bad}")
    return values


def keep_id(faces: Iterable[int]) -> int:
    """Keep id ``0..461`` of a multiset of 0..5 faces (any order)."""
    values = _check_faces(faces, range(NUM_DICE + 1))
    return int(KEEP_BY_KEY[sum(NUM_FACES ** (f - 1) for f in values)])


def roll_id(faces: Iterable[int]) -> int:
    """Roll id ``0..251`` of five faces (any order)."""
    values = _check_faces(faces, range(NUM_DICE, NUM_DICE + 1))
    return int(KEEP_TO_ROLL[keep_id(values)])


def keep_faces(keep: int) -> tuple[int, ...]:
    """Sorted faces of keep id ``keep``."""
    if not 0 <= keep < NUM_KEEPS:
        raise ValueError(f"keep id {keep!r} is not in 0..{NUM_KEEPS - 1}")
    return tuple(int(f) for f in np.repeat(np.arange(1, NUM_FACES + 1), KEEP_COUNTS[keep]))


def roll_faces(roll: int) -> tuple[int, ...]:
    """Sorted faces of roll id ``roll``."""
    if not 0 <= roll < NUM_ROLLS:
        raise ValueError(f"roll id {roll!r} is not in 0..{NUM_ROLLS - 1}")
    return tuple(int(f) for f in ROLL_FACES[roll])


def ordered_index(faces: Iterable[int]) -> int:
    """Ordered roll index ``0..7775`` of five faces in throwing order."""
    values = _check_faces(faces, range(NUM_DICE, NUM_DICE + 1))
    return sum((f - 1) * NUM_FACES**i for i, f in enumerate(values))


def legal_keeps(roll: int) -> np.ndarray:
    """Keep ids of every sub-multiset of roll ``roll`` (int64, ascending, read-only)."""
    if not 0 <= roll < NUM_ROLLS:
        raise ValueError(f"roll id {roll!r} is not in 0..{NUM_ROLLS - 1}")
    return ROLL_KEEPS[ROLL_KEEPS_START[roll]:ROLL_KEEPS_START[roll + 1]]


# ---------------------------------------------------------- category tests
# Scalar kernels on a counts vector (shape (6,), counts[f - 1] dice show f); callable
# from other kernels. "Sum" results are the best-scoring choice of dice where several
# choices meet the requirement (the two-stage game's rule), 0 when the requirement is not met.

@numba.njit(cache=True)
def max_of_a_kind(counts):
    """Largest number of dice showing one face."""
    best = 0
    for f in range(NUM_FACES):
        best = max(best, counts[f])
    return best


@numba.njit(cache=True)
def best_n_of_a_kind_sum(counts, n):
    """Sum of ``n`` dice of the highest face shown at least ``n`` times (``n * face``), else 0."""
    for f in range(NUM_FACES - 1, -1, -1):
        if counts[f] >= n:
            return n * (f + 1)
    return 0


@numba.njit(cache=True)
def best_two_pairs_sum(counts):
    """Sum of the four dice of the two highest distinct faces shown twice or more, else 0."""
    total = 0
    found = 0
    for f in range(NUM_FACES - 1, -1, -1):
        if counts[f] >= 2 and found < 2:
            total += 2 * (f + 1)
            found += 1
    return total if found == 2 else 0


@numba.njit(cache=True)
def has_two_pairs(counts):
    """Two dice of one face and two of another face."""
    return best_two_pairs_sum(counts) > 0


@numba.njit(cache=True)
def has_full_house(counts):
    """Three dice of one face and two of another (five of a kind does not count)."""
    three = False
    two = False
    for f in range(NUM_FACES):
        three |= counts[f] == 3
        two |= counts[f] == 2
    return three and two


@numba.njit(cache=True)
def _straight_sum(counts, length):
    """Sum of the highest ``length`` consecutive faces all present, else 0."""
    for low in range(NUM_FACES - length, -1, -1):
        present = True
        for f in range(low, low + length):
            present &= counts[f] > 0
        if present:
            return length * (low + 1) + length * (length - 1) // 2
    return 0


@numba.njit(cache=True)
def best_small_straight_sum(counts):
    """Sum of the highest four consecutive faces present (1-4: 10, 2-5: 14, 3-6: 18), else 0."""
    return _straight_sum(counts, 4)


@numba.njit(cache=True)
def has_small_straight(counts):
    """Four consecutive faces: 1-4, 2-5 or 3-6."""
    return best_small_straight_sum(counts) > 0


@numba.njit(cache=True)
def large_straight_sum(counts):
    """Sum of a five-dice straight (1-5: 15, 2-6: 20), else 0 (five faces present: one die each)."""
    return _straight_sum(counts, NUM_DICE)


@numba.njit(cache=True)
def has_large_straight(counts):
    """Five consecutive faces: 1-5 or 2-6."""
    return large_straight_sum(counts) > 0


@numba.njit(cache=True)
def dice_sum(counts):
    """Sum of the faces of all dice."""
    total = 0
    for f in range(NUM_FACES):
        total += counts[f] * (f + 1)
    return total


@numba.njit(cache=True)
def ranking_value(counts):
    """Strength of a five-dice hand in the ranking game, as one integer.

    Higher is better; equal values tie. ``value // 32**6`` is the category
    (``HIGH`` 0 .. ``FIVE_OF_A_KIND`` 6); the rest are tie-break digits in base
    32: the faces of the combination (the three before the two in a full house,
    the higher pair first), then the other dice highest first. A ``HIGH`` hand
    compares its sum, then its dice highest first. Straights do not exist here.
    """
    top = max_of_a_kind(counts)
    pairs = 0
    for f in range(NUM_FACES):
        pairs += counts[f] == 2
    if top == 5:
        category = FIVE_OF_A_KIND
    elif top == 4:
        category = FOUR_OF_A_KIND
    elif top == 3:
        category = FULL_HOUSE if pairs == 1 else THREE_OF_A_KIND
    elif pairs == 2:
        category = TWO_PAIRS
    elif pairs == 1:
        category = ONE_PAIR
    else:
        category = HIGH
    # Tie-break digits, most significant first: one per distinct face, ordered by
    # (count descending, face descending), which is the order the rules compare
    # them in; a HIGH hand puts its sum before its dice.
    value = 0
    digits = 0
    if category == HIGH:
        value = dice_sum(counts)
        digits = 1
    for group in range(NUM_DICE, 0, -1):
        for f in range(NUM_FACES - 1, -1, -1):
            if counts[f] == group:
                value = value * _TIE_BASE + f + 1
                digits += 1
    # Pad to six digits so that every category occupies its own block of values.
    for _ in range(digits, 6):
        value = value * _TIE_BASE
    return category * _CATEGORY_WEIGHT + value


@numba.njit(cache=True)
def _fill_roll_tables(roll_counts, kinds, two_pairs, full_house, small, large, ranking):
    for r in range(roll_counts.shape[0]):
        c = roll_counts[r]
        for n in range(1, NUM_DICE + 1):
            kinds[r, n] = best_n_of_a_kind_sum(c, n) > 0
        two_pairs[r] = has_two_pairs(c)
        full_house[r] = has_full_house(c)
        small[r] = has_small_straight(c)
        large[r] = has_large_straight(c)
        ranking[r] = ranking_value(c)


def _build_roll_tables():
    kinds = np.zeros((NUM_ROLLS, NUM_DICE + 1), dtype=np.bool_)
    flags = [np.zeros(NUM_ROLLS, dtype=np.bool_) for _ in range(4)]
    ranking = np.zeros(NUM_ROLLS, dtype=np.int64)
    _fill_roll_tables(ROLL_COUNTS, kinds, *flags, ranking)
    return kinds, *flags, ranking


(ROLL_HAS_N_OF_A_KIND, ROLL_HAS_TWO_PAIRS, ROLL_HAS_FULL_HOUSE, ROLL_HAS_SMALL_STRAIGHT,
 ROLL_HAS_LARGE_STRAIGHT, ROLL_RANKING_VALUE) = _build_roll_tables()
"""Per-roll tables (index = roll id): ``ROLL_HAS_N_OF_A_KIND`` (252, 6) bool, column
``n`` true when some face shows at least ``n`` times; the four ``ROLL_HAS_*`` (252,)
bool; ``ROLL_RANKING_VALUE`` (252,) int64 from :func:`ranking_value`."""
ROLL_RANKING_CATEGORY = ROLL_RANKING_VALUE // _CATEGORY_WEIGHT
ROLL_RANK = np.unique(ROLL_RANKING_VALUE, return_inverse=True)[1].astype(np.int64)
"""(252,) int64 dense rank of each roll in the ranking game: 0 is the weakest class."""
for _table in (
    ROLL_HAS_N_OF_A_KIND, ROLL_HAS_TWO_PAIRS, ROLL_HAS_FULL_HOUSE, ROLL_HAS_SMALL_STRAIGHT,
    ROLL_HAS_LARGE_STRAIGHT, ROLL_RANKING_VALUE, ROLL_RANKING_CATEGORY, ROLL_RANK,
):
    _table.flags.writeable = False
