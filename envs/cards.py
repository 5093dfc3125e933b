"""Card encoding shared by every card game in the toolkit.

A card is one integer in ``0..51``::

    card = 4 * (rank - 2) + suit

with ``rank`` in ``2..14`` (jack 11, queen 12, king 13, ace 14) and ``suit`` in
``0..3`` (clubs, diamonds, hearts, spades). Every game uses these ids as its
chance outcomes, so a deal written as ids means the same cards everywhere.

Worked example::

    >>> card_id(14, 3)          # ace of spades
    51
    >>> card_id(10, 1)          # ten of diamonds
    33
    >>> card_str(33), parse_card("10d"), parse_card("Td")
    ('Td', 33, 33)
    >>> rank_of(51), suit_of(51)
    (14, 3)

Reduced decks (for small exact variants) keep the highest ranks::

    >>> [card_str(c) for c in deck(num_ranks=2, num_suits=2)]
    ['Kc', 'Kd', 'Ac', 'Ad']
"""

from __future__ import annotations

from collections.abc import Iterable

import numba
import numpy as np

NUM_RANKS = 13
NUM_SUITS = 4
NUM_CARDS = NUM_RANKS * NUM_SUITS
MIN_RANK = 2
MAX_RANK = 14  # ace

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = "\u2663\u2666\u2665\u2660"

_RANK_BY_TEXT = {ch: MIN_RANK + i for i, ch in enumerate(RANK_CHARS)}
_RANK_BY_TEXT["10"] = 10
_SUIT_BY_TEXT = {ch: i for i, ch in enumerate(SUIT_CHARS)}
_SUIT_BY_TEXT.update({ch: i for i, ch in enumerate(SUIT_SYMBOLS)})


@numba.njit(cache=True)
def popcount(x):
    """Number of set bits of a non-negative ``int64`` (a card or rank mask; SWAR, constant time)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) & 0x7FFFFFFFFFFFFFFF) >> 56


@numba.njit(cache=True)
def card_rank(card):
    """Rank ``2..14`` of a card id (scalar; callable from kernels)."""
    return (card >> 2) + MIN_RANK


@numba.njit(cache=True)
def card_suit(card):
    """Suit ``0..3`` of a card id (scalar; callable from kernels)."""
    return card & 3


def card_id(rank: int, suit: int) -> int:
    """Card id of ``rank`` (2..14) and ``suit`` (0..3); ValueError if out of range."""
    if not MIN_RANK <= rank <= MAX_RANK:
        raise ValueError(f"rank {rank!r} is not in {MIN_RANK}..{MAX_RANK}")
    if not 0 <= suit < NUM_SUITS:
        raise ValueError(f"suit {suit!r} is not in 0..{NUM_SUITS - 1}")
    return 4 * (rank - MIN_RANK) + suit


def _check_card(card: int) -> int:
    if isinstance(card, (bool, np.bool_)) or not isinstance(card, (int, np.integer)):
        raise ValueError(f"card {card!r} is not an integer id in 0..{NUM_CARDS - 1}")
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card} is not in 0..{NUM_CARDS - 1}")
    return int(card)


def rank_of(card: int) -> int:
    """Rank ``2..14`` of a card id; ValueError for an id outside ``0..51``."""
    return (_check_card(card) >> 2) + MIN_RANK


def suit_of(card: int) -> int:
    """Suit ``0..3`` of a card id; ValueError for an id outside ``0..51``."""
    return _check_card(card) & 3


def card_str(card: int, symbols: bool = False) -> str:
    """Two-character name of a card, e.g. ``'As'``, ``'Td'`` (``'T\u2666'`` with symbols)."""
    card = _check_card(card)
    suits = SUIT_SYMBOLS if symbols else SUIT_CHARS
    return RANK_CHARS[card >> 2] + suits[card & 3]


def parse_card(text: str) -> int:
    """Card id of a name such as ``'As'``, ``'Td'``, ``'10h'`` or ``'q\u2660'``.

    Rank and suit letters are case-insensitive; ``10`` and ``T`` both mean ten.
    Raises ValueError naming the text when it is not a card.
    """
    if not isinstance(text, str):
        raise ValueError(f"card {text!r} is not a string such as 'As', 'Td' or '10h'")
    cleaned = text.strip()
    rank = _RANK_BY_TEXT.get(cleaned[:-1].upper())
    suit = _SUIT_BY_TEXT.get(cleaned[-1:].lower()) if cleaned else None
    if rank is None or suit is None:
        raise ValueError(
            f"bad card {text!r}: expected a rank from {', '.join(RANK_CHARS)} "
            f"(or 10) followed by a suit from {', '.join(SUIT_CHARS)}, e.g. 'As', 'Td', '10h'"
        )
    return card_id(rank, suit)


def parse_cards(text: str | Iterable[str]) -> np.ndarray:
    """Card ids of several cards: ``'As Td 10h'``, ``'As,Td'`` or a list of names.

    Returns an ``int64`` array of shape ``(n,)``. Duplicate cards raise ValueError.
    """
    names = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    cards = np.array([parse_card(name) for name in names], dtype=np.int64)
    if len(np.unique(cards)) != len(cards):
        seen: set[int] = set()
        dup = next(c for c in cards.tolist() if c in seen or seen.add(c))
        raise ValueError(f"card {card_str(dup)} appears more than once in {text!r}")
    return cards


def cards_str(cards: Iterable[int], symbols: bool = False) -> str:
    """Space-separated names of card ids, e.g. ``'As Td'``."""
    return " ".join(card_str(int(c), symbols) for c in cards)


def deck(num_ranks: int = NUM_RANKS, num_suits: int = NUM_SUITS) -> np.ndarray:
    """Sorted card ids of a deck of the ``num_ranks`` highest ranks in ``num_suits`` suits.

    Suits are taken in order clubs, diamonds, hearts, spades. Returns an ``int64``
    array of shape ``(num_ranks * num_suits,)``; ``deck()`` is ``0..51``.
    """
    if not 1 <= num_ranks <= NUM_RANKS:
        raise ValueError(f"num_ranks {num_ranks!r} is not in 1..{NUM_RANKS}")
    if not 1 <= num_suits <= NUM_SUITS:
        raise ValueError(f"num_suits {num_suits!r} is not in 1..{NUM_SUITS}")
    ranks = np.arange(MAX_RANK - num_ranks + 1, MAX_RANK + 1)
    suits = np.arange(num_suits)
    return (4 * (ranks[:, None] - MIN_RANK) + suits[None, :]).ravel().astype(np.int64)
