"""Poke action features: what a draw or a trick play does, for Deep Monte-Carlo and PPO's action head.

Poke's action ids are slot masks (``gamut.envs.poke.kernels``): the same id
discards or plays different cards in every hand, so a network that scores
ids (the generic one-hot) cannot carry what it learns about one card to
another. The declaration lends :func:`action_features` (``GAME.action_features``)
instead: each legal action is described by the cards it moves. The features
read only the network input rows (the observation or information-state
tensor of the player to move, laid out by ``gamut.envs.poke.encoding.Layout``,
then the seat one-hot) and the legal mask, so the trainer and the agents
compute the same features. Card sets are rebuilt from the tensor as card-id
bitmasks and every rule question (which cards a slot mask names, whether a
reply beats the lead, the rank of a set, the class of a poker hand, what a
draw does to the opponent's trick multiplier) is answered by the kernels'
own functions (``kernels.slots_to_cards``, ``kernels.beats``,
``kernels.set_rank``, ``kernels.trick_multiplier``,
``showdown.hand_strength``).

Each action gets :data:`NUM_FEATURES` = 44 float32 entries; illegal actions
get all zeros. "Rank" below is ``(r - lowest rank of the deck + 1) /
num_ranks``, so a deuce of the full deck is 1/13, an ace 1, and 0 means
"none"; the rank of a play is the rank of its cards, or the highest of them
for a throw-off of mixed ranks (the best card it gives up). "Unseen" cards are the deck less my own cards (held, played, dealt,
drawn; dealt and drawn only with the information-state tensor) and every
card of the opponent's that I have seen (its face-up plays, the lead on the
table and, with the information-state tensor, every card shown in a trick).

=====  =================================================================
0-2    kind: stand, discard, trick play (one-hot)
3-6    cards discarded, 0 (stand) to 3 (one-hot; draw decisions only)
7-16   class of the cards kept (the whole hand when standing): high card,
       one pair, two pair, three of a kind, straight, flush, full house,
       four of a kind, straight flush, royal flush (one-hot)
17     largest set of one rank among the kept cards, / 4
18     ranks held two or more times among the kept cards, / 2
19     largest suit among the kept cards, / hand size
20     the kept cards have distinct ranks within five consecutive ranks
       (the ace also low): a straight may still come
21     highest kept rank
22     rank of the highest set (2 or more) kept, 0 without one
23     highest discarded rank, 0 when standing
24-26  the opponent's points per trick after this decision: 1, 2, 4
       (one-hot; ``kernels.trick_multiplier`` after the draw)
27-30  cards played, 1 to 4 (one-hot; trick plays only)
31     rank of the cards played
32     a lead
33     a reply that beats the lead (``kernels.beats``)
34     a reply that does not beat it (a throw-off)
35     the lowest rank among the legal plays of its size (for a beating
       reply: the cheapest beat)
36     the highest rank among the legal plays of its size
37     reply only: (rank played - rank led) / num_ranks
38     cards of the played rank left in hand after the play, / 3
39     highest rank left in hand after the play, 0 when none is left
40     cards left in hand after the play, / hand size
41     lead only: ranks above the lead with at least as many unseen
       cards as the lead has, / num_ranks (ways the reply could beat it)
42     unseen cards of a higher rank than the play, / unseen cards
43     lead only: no unseen cards could beat it (entry 41 is 0)
=====  =================================================================

Worked example (``poke()``): the opponent leads the single ``9h`` and I
hold ``4c 9d Jh Ks As`` with nothing played. The legal replies are the
three beating singles ``Jh``, ``Ks``, ``As`` (the follower must beat).
``Jh`` gets kind "trick play" (2), one card (27), rank 10/13 (31), a beating
reply (33), the lowest beating rank (35), margin 2/13 (37), no Jack left
(38 = 0), the ace left highest (39 = 1), 4/5 cards left (40) and the unseen
cards above a Jack (42): the 10 Queens, Kings and Aces I do not hold among
the 46 unseen cards (the deck less my five and the ``9h``), 10/46. ``As``
also beats but is the highest (36) and gives up the ace (39 = 12/13, the
King).
"""

from __future__ import annotations

import numba
import numpy as np
from gamut.envs import hands
from gamut.envs.action_features import ActionFeatures
from gamut.envs.cards import popcount
from gamut.envs.poke import kernels as K
from gamut.envs.poke import showdown
from gamut.envs.poke.tensors import (
    DRAW_COUNTS,
    MAX_DRAWS,
    P_CURRENT_LEAD,
    P_DEALER,
    P_DRAWS,
    P_MY_DEALT,
    P_MY_DRAWN,
    P_MY_FACE_DOWN,
    P_MY_FACE_UP,
    P_MY_HAND,
    P_OPP_FACE_UP,
    P_TRICKS,
    piece_offsets,
)

NUM_FEATURES = 44
# First entry of each block (see the module docstring).
F_KIND, F_DISCARDED, F_CLASS, F_KEPT, F_MULTIPLIER = 0, 3, 7, 17, 24
F_PLAYED, F_PLAY = 27, 31


class PokeFeatures(ActionFeatures):
    """Poke's action features, float32 ``(N, A, 44)`` for one variant (``A = 2 * 2**hand_size``).

    The attributes and the call are those of
    ``gamut.envs.action_features.ActionFeatures``; ``return_scale`` is a tenth
    of the largest absolute return (125 points in ``poke(mode=deal)``, about a
    sweep or a two-pair win).
    """

    size = NUM_FEATURES
    name = "Poke"

    def __init__(self, game):
        super().__init__(game)
        lay = game.layout
        self.hand_size = lay.hand_size
        self.num_ranks = int(game.cfg[K.C_NUM_RANKS])
        self.low_rank = int(lay.deck[0] >> 2)
        # Card bit of each tensor index: a (D,) row of ``1 << card id``, so ``marks @ bits`` is a card mask.
        self.bits = np.left_shift(np.int64(1), lay.deck)
        self.num_cards = lay.num_cards
        self.read_layouts(game, lambda recall: piece_offsets(lay.pieces(recall, True)))

    def compute(self, inputs: np.ndarray, mask: np.ndarray, offsets) -> np.ndarray:
        n, d = inputs.shape[0], self.num_cards
        marks = inputs > 0.5

        def cards(piece: int, count: int = 1) -> np.ndarray:
            start = offsets[piece]
            block = marks[:, start:start + count * d].reshape(n, count, d)
            return np.bitwise_or.reduce(block.astype(np.int64) @ self.bits, axis=1)

        held = cards(P_MY_HAND)
        poker_hand = held | cards(P_MY_FACE_UP) | cards(P_MY_FACE_DOWN)
        lead = cards(P_CURRENT_LEAD)
        seen = cards(P_OPP_FACE_UP) | lead
        mine = poker_hand
        if offsets[P_TRICKS] >= 0:
            mine = mine | cards(P_MY_DEALT) | cards(P_MY_DRAWN, MAX_DRAWS)
            # Each trick row: leader (2), cards led (D), reply when shown (D), winner (2).
            rows = marks[:, offsets[P_TRICKS]:offsets[P_TRICKS] + self.hand_size * (2 * d + 4)]
            rows = rows.reshape(n, self.hand_size, 2 * d + 4)[:, :, 2:2 + 2 * d].reshape(n, self.hand_size * 2, d)
            seen = seen | np.bitwise_or.reduce(rows.astype(np.int64) @ self.bits, axis=1)
        deck = np.bitwise_or.reduce(self.bits)
        unseen = deck & ~mine & ~seen
        draws = marks[:, offsets[P_DRAWS]:offsets[P_DRAWS] + MAX_DRAWS * DRAW_COUNTS]
        my_draws = draws.reshape(n, MAX_DRAWS, DRAW_COUNTS).any(axis=2).sum(axis=1).astype(np.int64)
        i_deal = marks[:, offsets[P_DEALER]]
        out = np.zeros((n, self.num_actions, NUM_FEATURES), np.float32)
        _features(held, poker_hand, lead, unseen, my_draws, i_deal, np.ascontiguousarray(mask), self.hand_size,
                  self.num_ranks, self.low_rank, out)
        return out


@numba.njit(cache=True)
def _rank(r, low, num_ranks):
    # The docstring's rank scale: 1/num_ranks for the deck's lowest rank, 1 for its highest.
    return (r - low + 1) / num_ranks


@numba.njit(cache=True)
def _highest_rank(cards):
    # Rank index (card id >> 2) of the highest card of a non-empty mask.
    top = 0
    rest = cards
    while rest:
        top = K.lowest_card(rest) >> 2
        rest &= rest - 1
    return top


@numba.njit(cache=True)
def _draw_features(hand, m, my_draws, i_deal, h, num_ranks, low, row):
    """Write the draw entries (0-26) of discarding the slots ``m`` of ``hand`` (0: stand) into ``row``."""
    disc = K.slots_to_cards(hand, m) if m else np.int64(0)
    kept = hand & ~disc
    row[F_KIND + (1 if m else 0)] = 1.0
    row[F_DISCARDED + popcount(disc)] = 1.0
    row[F_CLASS + hands.category_of(showdown.hand_strength(kept))] = 1.0
    counts = np.zeros(13, np.int64)
    suits = np.zeros(4, np.int64)
    rest = kept
    while rest:
        c = K.lowest_card(rest)
        rest &= rest - 1
        counts[c >> 2] += 1
        suits[c & 3] += 1
    groups = 0
    top_set = -1
    lowest = 13
    highest = -1
    for r in range(13):
        if counts[r]:
            lowest = min(lowest, r)
            highest = r
        if counts[r] >= 2:
            groups += 1
            top_set = r
    row[F_KEPT] = counts.max() / 4.0
    row[F_KEPT + 1] = groups / 2.0
    row[F_KEPT + 2] = suits.max() / h
    # The ace (index 12) also counts low, below the deuce: A-2-3-4-5.
    low_span = highest - lowest
    if counts[12] and highest == 12:
        second = -1
        for r in range(12):
            if counts[r]:
                second = r
        low_span = min(low_span, second + 1 if second >= 0 else 0)
    row[F_KEPT + 3] = 1.0 if counts.max() <= 1 and low_span <= 4 else 0.0
    row[F_KEPT + 4] = _rank(highest, low, num_ranks)
    row[F_KEPT + 5] = _rank(top_set, low, num_ranks) if top_set >= 0 else 0.0
    row[F_KEPT + 6] = _rank(_highest_rank(disc), low, num_ranks) if disc else 0.0
    # What this decision makes the opponent's tricks worth: the kernels' rule on a state after it.
    st = np.zeros(K.STATE_SIZE, np.int64)
    st[K.S_DEALER] = 0 if i_deal else 1
    st[K.S_NDRAWS] = my_draws + (1 if m else 0)
    row[F_MULTIPLIER + popcount(K.trick_multiplier(st, 1) - 1)] = 1.0


@numba.njit(cache=True)
def _features(held, poker_hand, lead, unseen, my_draws, i_deal, mask, h, num_ranks, low, out):
    """Fill ``out`` float32 ``(N, A, 44)`` for the legal actions of ``mask`` (see the module docstring).

    ``held``, ``poker_hand``, ``lead`` and ``unseen`` are card masks int64
    ``(N,)``: cards not yet played, the whole poker hand (slots index it),
    the lead on the table (0 when leading or drawing) and the unseen cards.
    """
    base = np.int64(1) << h
    n, a = mask.shape
    ranks = np.empty(a, np.int64)
    sizes = np.empty(a, np.int64)
    for i in range(n):
        if mask[i, :base].any():
            for m in range(base):
                if mask[i, m]:
                    _draw_features(held[i], m, my_draws[i], i_deal[i], h, num_ranks, low, out[i, m])
            continue
        unseen_count = popcount(unseen[i])
        unseen_ranks = np.zeros(13, np.int64)
        rest = unseen[i]
        while rest:
            unseen_ranks[K.lowest_card(rest) >> 2] += 1
            rest &= rest - 1
        low_of_size = np.full(K.MAX_SET + 1, 13, np.int64)
        high_of_size = np.full(K.MAX_SET + 1, -1, np.int64)
        for m in range(base, 2 * base):
            if mask[i, m]:
                cards = K.slots_to_cards(poker_hand[i], m - base)
                sizes[m] = popcount(cards)
                ranks[m] = _highest_rank(cards)
                low_of_size[sizes[m]] = min(low_of_size[sizes[m]], ranks[m])
                high_of_size[sizes[m]] = max(high_of_size[sizes[m]], ranks[m])
        led = lead[i]
        led_rank = K.set_rank(led) if led else -1
        for m in range(base, 2 * base):
            if not mask[i, m]:
                continue
            row = out[i, m]
            cards = K.slots_to_cards(poker_hand[i], m - base)
            size, r = sizes[m], ranks[m]
            left = held[i] & ~cards
            row[F_KIND + 2] = 1.0
            row[F_PLAYED + size - 1] = 1.0
            row[F_PLAY] = _rank(r, low, num_ranks)
            if led:
                row[F_PLAY + 2 if K.beats(led, cards) else F_PLAY + 3] = 1.0
                row[F_PLAY + 6] = (r - led_rank) / num_ranks
            else:
                row[F_PLAY + 1] = 1.0
            row[F_PLAY + 4] = 1.0 if r == low_of_size[size] else 0.0
            row[F_PLAY + 5] = 1.0 if r == high_of_size[size] else 0.0
            row[F_PLAY + 7] = popcount(left & (np.int64(15) << (4 * r))) / 3.0
            row[F_PLAY + 8] = _rank(_highest_rank(left), low, num_ranks) if left else 0.0
            row[F_PLAY + 9] = popcount(left) / h
            higher = 0
            threats = 0
            for q in range(r + 1, 13):
                higher += unseen_ranks[q]
                if unseen_ranks[q] >= size:
                    threats += 1
            row[F_PLAY + 11] = higher / unseen_count if unseen_count else 0.0
            if not led:
                row[F_PLAY + 10] = threats / num_ranks
                row[F_PLAY + 12] = 1.0 if threats == 0 else 0.0


def action_features(game) -> PokeFeatures:
    """Poke's declared action features (``GAME.action_features``) for any variant of ``game``."""
    return PokeFeatures(game)

