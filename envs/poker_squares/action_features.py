"""Poker Squares action features: what placing the current card in each cell does to its row and column.

Deep Monte-Carlo (``gamut.solvers.rl.dmc``) values a placement ``Q(s, a)``
from the network input of the position and a vector describing the action.
The declaration lends :func:`action_features` (``GAME.action_features``);
it reads only the network input rows (the observation or information-state
tensor of the player to move, own grid first, then the seat one-hot) and the
legal mask, so the trainer and the ``dmc`` agent compute the same features.

Each of the 25 cells gets :data:`NUM_FEATURES` = 58 floats: 24 describing its
row after the card is placed there, 24 its column, then the row's one-hot (5)
and the column's one-hot (5). The 24 of a line (a row or a column) are:

====  ============================================================
0     cards in the line after the placement, divided by 5
1-6   rank pattern after: no pair, one pair, two pair, trips,
      full house, quads (one-hot)
7     cards of the card's rank in the line before, divided by 3
8     cards of the card's suit in the line before, divided by 4
9     the line is still a flush candidate (all its cards one suit)
10    the line is still a straight candidate (distinct ranks that fit
      in one straight, the ace high or low)
11    the card ends a flush candidate (it was one before, not after)
12    the card ends a straight candidate
13    distinct ranks after, divided by 5
14-23 the hand the line completes when the card is its fifth (one-hot:
      high card, pair, two pair, trips, straight, flush, full house,
      quads, straight flush, royal flush); all 0 while it is not full
====  ============================================================

Worked example: the card to place is the King of spades and the top row
holds Kh, 7s and 2s (cells 0-2). For cell 3 (row 0, column 3, an empty
column) the row part reads: 4/5 cards, pattern "one pair", 1/3 Kings before,
2/4 spades before, not a flush candidate (hearts and spades), not a straight
candidate (K, 7, 2 do not fit in five ranks), ends neither (neither held
before: the heart and the gap were already there), 3/5 distinct ranks, not
full. The column part reads 1/5 cards, no pair, 0, 0, a flush candidate, a
straight candidate, ends neither, 1/5 distinct ranks. Illegal (filled) cells
get all zeros.
"""

from __future__ import annotations

import numpy as np

from gamut.envs.action_features import ActionFeatures
from gamut.envs.poker_squares.observer import CELL_FEATURES

NUM_CELLS = 25
LINE_FEATURES = 24
NUM_FEATURES = 2 * LINE_FEATURES + 10

# Rank sets of the ten straights (index 0 = deuce .. 12 = ace): A-2-3-4-5, then 2-6 .. 10-A.
_STRAIGHTS = np.zeros((10, 13), np.float32)
_STRAIGHTS[0, [12, 0, 1, 2, 3]] = 1.0
for _low in range(9):
    _STRAIGHTS[_low + 1, _low:_low + 5] = 1.0
_OUTSIDE = (1.0 - _STRAIGHTS).T  # (13, 10): ranks that fall outside each straight


class PokerSquaresFeatures(ActionFeatures):
    """Poker Squares' action features, float32 ``(N, 25, 58)`` for one variant: the features of every cell.

    The attributes and the call are those of
    ``gamut.envs.action_features.ActionFeatures``; ``return_scale`` is a tenth
    of the largest absolute return (100 of American scoring's 1,000: good
    play scores about that), and at least 1 (a two-player win or loss).
    """

    size = NUM_FEATURES
    name = "Poker Squares"

    def __init__(self, game):
        super().__init__(game)
        self.players = game.num_players()

    def compute(self, inputs: np.ndarray, mask: np.ndarray, layout) -> np.ndarray:
        n = inputs.shape[0]
        grid = inputs[:, :NUM_CELLS * CELL_FEATURES].reshape(n, 5, 5, CELL_FEATURES)
        start = NUM_CELLS * CELL_FEATURES * self.players
        card = inputs[:, start:start + 52].reshape(n, 13, 4)  # card id = 4 * rank + suit
        rank = card.sum(axis=2)  # (n, 13) one-hot of the card's rank
        suit = card.sum(axis=1)  # (n, 4)
        # Lines 0-4 are the rows, 5-9 the columns: rank and suit counts before the placement.
        ranks = np.concatenate([grid[..., :13].sum(axis=2), grid[..., :13].sum(axis=1)], axis=1)
        suits = np.concatenate([grid[..., 13:17].sum(axis=2), grid[..., 13:17].sum(axis=1)], axis=1)
        lines = _line_features(ranks, suits, rank[:, None, :], suit[:, None, :])  # (n, 10, 24)
        cells = np.arange(NUM_CELLS)
        eye = np.eye(5, dtype=np.float32)
        out = np.concatenate([lines[:, cells // 5], lines[:, 5 + cells % 5],
                              np.broadcast_to(eye[cells // 5], (n, NUM_CELLS, 5)),
                              np.broadcast_to(eye[cells % 5], (n, NUM_CELLS, 5))], axis=2)
        return np.where(mask[:, :, None], out, 0.0).astype(np.float32)


def _candidates(counts: np.ndarray, suits: np.ndarray, held: np.ndarray):
    """Flush and straight candidacy bool ``(n, 10)`` of lines with rank counts ``counts`` and suit counts ``suits``."""
    flush = suits.max(axis=2) == held
    present = (counts > 0).astype(np.float32)
    fits = ((present @ _OUTSIDE) == 0).any(axis=2)
    return flush, fits & (counts.max(axis=2) <= 1)


def _line_features(ranks, suits, rank, suit) -> np.ndarray:
    """Features float32 ``(n, 10, 24)`` of the ten lines after adding the card (``rank``, ``suit``: one-hots)."""
    held = ranks.sum(axis=2)
    after, after_suits = ranks + rank, suits + suit
    count = held + 1
    flush_before, straight_before = _candidates(ranks, suits, held)
    flush, straight = _candidates(after, after_suits, count)
    pairs, trips, quads = ((after == k).sum(axis=2) for k in (2, 3, 4))
    pattern = np.select([quads > 0, (trips > 0) & (pairs > 0), trips > 0, pairs == 2, pairs == 1],
                        [5, 4, 3, 2, 1], 0)
    royal = (after[..., 12] > 0) & (after[..., 8] > 0)  # an ace and a ten in a straight: 10-J-Q-K-A
    hand = np.select([straight & flush & royal, straight & flush, pattern == 5, pattern == 4, flush, straight,
                      pattern == 3, pattern == 2, pattern == 1],
                     [9, 8, 7, 6, 5, 4, 3, 2, 1], 0)
    full = count == 5
    features = [count / 5.0, *(pattern == k for k in range(6)), (ranks * rank).sum(axis=2) / 3.0,
                (suits * suit).sum(axis=2) / 4.0, flush, straight, flush_before & ~flush,
                straight_before & ~straight, (after > 0).sum(axis=2) / 5.0,
                *((hand == k) & full for k in range(10))]
    return np.stack([np.asarray(f, np.float32) for f in features], axis=2)


def action_features(game) -> PokerSquaresFeatures:
    """Poker Squares' declared action features (``GAME.action_features``) for any variant of ``game``."""
    return PokerSquaresFeatures(game)
