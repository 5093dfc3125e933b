"""A slow, obvious pure-Python Poke referee, written from the rules spec, to check the kernels.

Cards are ids (``gamut.envs.cards``); hands are Python sets; actions use the ids of
``gamut.envs.poke.kernels``. Poker hands of five cards are valued with ``treys``; hands
of fewer cards by counting ranks (only pairs, two pairs, trips and quads exist).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, takewhile

import numpy as np
from treys import Card, Evaluator

from gamut.envs.cards import card_str, deck
from gamut.envs.poke import kernels as K

POINTS = {"high card": 0, "one pair": 50, "two pairs": 100, "three of a kind": 200, "straight": 300,
          "flush": 400, "full house": 500, "four of a kind": 600, "straight flush": 750, "royal flush": 1000}
_TREYS_CLASS = {"High Card": "high card", "Pair": "one pair", "Two Pair": "two pairs",
                "Three of a Kind": "three of a kind", "Straight": "straight", "Flush": "flush",
                "Full House": "full house", "Four of a Kind": "four of a kind",
                "Straight Flush": "straight flush", "Royal Flush": "royal flush"}
_EVALUATOR = Evaluator()


def hand_key(cards) -> tuple[tuple, str]:
    """(comparable key, category name) of a hand; a larger key is a better hand."""
    cards = list(cards)
    if len(cards) == 5:
        rank = _EVALUATOR.evaluate([Card.new(card_str(c)) for c in cards], [])
        name = _TREYS_CLASS[_EVALUATOR.class_to_string(_EVALUATOR.get_rank_class(rank))]
        if rank == 1:
            name = "royal flush"
        return (-rank,), name
    counts = Counter(c >> 2 for c in cards)
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    shape = tuple(n for n, _ in groups)
    name = {(4,): "four of a kind", (3,): "three of a kind", (2, 2): "two pairs", (2,): "one pair"}.get(
        tuple(n for n in shape if n > 1), "high card")
    order = ["high card", "one pair", "two pairs", "three of a kind", "four of a kind"]
    return (order.index(name), groups), name


def poker_points(hand0, hand1) -> tuple[int, int]:
    (k0, n0), (k1, n1) = hand_key(hand0), hand_key(hand1)
    if k0 > k1:
        return POINTS[n0], 0
    if k1 > k0:
        return 0, POINTS[n1]
    return 0, 0


def reply_beats(lead, follow) -> bool:
    lead_ranks = {c >> 2 for c in lead}
    follow_ranks = {c >> 2 for c in follow}
    return len(follow_ranks) == 1 and len(follow) == len(lead) and min(follow_ranks) > min(lead_ranks)


class RefPoke:
    """The whole match: ``legal()``, ``apply(action)``, ``returns()`` like the kernels."""

    def __init__(self, num_ranks, num_suits, hand_size, mode="deal", trick_unit="card", max_deals=100,
                 trick_value=0.0, follow="must_beat"):
        self.deck = set(deck(num_ranks, num_suits).tolist())
        self.h, self.mode, self.unit, self.follow = hand_size, mode, trick_unit, follow
        self.max_deals, self.trick_value = max_deals, trick_value
        self.max_draw = min(3, hand_size - 1)
        self.above, self.below, self.games = [0, 0], [0, 0], [0, 0]
        self.deals, self.over = 0, False
        self.new_deal(dealer=1)

    def new_deal(self, dealer):
        self.dealer = dealer
        self.hands, self.discards, self.draws = [set(), set()], set(), [0, 0]
        self.phase, self.dealt, self.to_draw = "deal", 0, 0
        self.drawer = 1 - dealer
        self.leader, self.lead, self.won, self.won_cards = 1 - dealer, None, [0, 0], [0, 0]
        self.played = [set(), set()]

    def stock(self):
        return sorted(self.deck - self.hands[0] - self.hands[1] - self.discards)

    def player(self):
        if self.over:
            return -4
        if self.phase in ("deal", "replace"):
            return -1
        if self.phase == "draw":
            return self.drawer
        return self.leader if self.lead is None else 1 - self.leader

    def legal(self):
        if self.over:
            return []
        if self.phase in ("deal", "replace"):
            return self.stock()
        base = 1 << self.h
        if self.phase == "draw":
            limit = min(self.max_draw, len(self.stock()))
            return [0] + [m for m in range(1, base) if bin(m).count("1") <= limit]
        p = self.player()
        slots = sorted(self.hands[p])
        free = [i for i, c in enumerate(slots) if c not in self.played[p]]
        out = []
        for size in range(1, len(free) + 1):
            for combo in combinations(free, size):
                ranks = {slots[i] >> 2 for i in combo}
                if self.lead is None and (size > 4 or len(ranks) > 1):
                    continue
                if self.lead is not None and size != len(self.lead):
                    continue
                out.append(base + sum(1 << i for i in combo))
        if self.lead is not None and self.follow == "must_beat":
            # A follower who can beat must beat; only one who cannot throws off.
            beating = [a for a in out if reply_beats(self.lead, self.cards_of(p, a - base))]
            if beating:
                out = beating
        return sorted(out)

    def cards_of(self, p, slots):
        """Cards of ``p``'s poker-hand slots in the bitmask ``slots``."""
        return [c for i, c in enumerate(sorted(self.hands[p])) if slots >> i & 1]

    def apply(self, a):
        if a not in self.legal():
            raise ValueError(f"reference: illegal {a}")
        if self.phase == "deal":
            p = 1 - self.dealer if self.dealt % 2 == 0 else self.dealer
            self.hands[p].add(a)
            self.dealt += 1
            if self.dealt == 2 * self.h:
                self.phase = "draw"
        elif self.phase == "replace":
            self.hands[self.drawer].add(a)
            self.to_draw -= 1
            if self.to_draw == 0:
                self.phase = "draw"
                if self.draws[self.drawer] == (3 if self.drawer == self.dealer else 2):
                    self.end_drawing()
        elif self.phase == "draw":
            if a == 0:
                self.end_drawing()
            else:
                slots = sorted(self.hands[self.drawer])
                cards = {slots[i] for i in range(self.h) if a >> i & 1}
                self.hands[self.drawer] -= cards
                self.discards |= cards
                self.draws[self.drawer] += 1
                self.to_draw = len(cards)
                self.phase = "replace"
        else:
            self.play(a)

    def end_drawing(self):
        if self.drawer != self.dealer:
            self.drawer = self.dealer
        else:
            self.phase = "trick"

    def play(self, a):
        p = self.player()
        slots = sorted(self.hands[p])
        cards = [slots[i] for i in range(self.h) if (a - (1 << self.h)) >> i & 1]
        self.played[p] |= set(cards)
        if self.lead is None:
            self.lead = cards
            return
        winner = p if reply_beats(self.lead, cards) else 1 - p
        self.won[winner] += len(cards) if self.unit == "card" else 1
        self.won_cards[winner] += len(cards)
        self.leader, self.lead = winner, None
        if len(self.played[p]) == self.h:
            self.settle()

    def multiplier(self, p):
        opp_draws = self.draws[1 - p]
        if 1 - p == self.dealer:
            opp_draws = max(0, opp_draws - 1)
        return [1, 2, 4][opp_draws]

    def settle(self):
        for p in (0, 1):
            self.below[p] += self.won[p] * self.multiplier(p)
            if self.won_cards[p] == self.h:
                self.above[p] += 250
        pts = poker_points(self.hands[0], self.hands[1])
        self.above = [self.above[0] + pts[0], self.above[1] + pts[1]]
        self.deals += 1
        if self.mode == "deal":
            self.over = True
            return
        if max(self.below) >= 20 and self.below[0] != self.below[1]:
            w = 0 if self.below[0] > self.below[1] else 1
            self.above[w] += 100
            self.games[w] += 1
            self.below = [0, 0]
            if self.mode == "game":
                self.over = True
                return
            if self.games[w] == 2:
                self.above[w] += 750 if self.games[1 - w] == 0 else 500
                self.over = True
                return
        if self.deals >= self.max_deals:
            self.over = True
            return
        self.new_deal(1 - self.dealer)

    def returns(self):
        if not self.over:
            return [0.0, 0.0]
        diff = self.above[0] - self.above[1]
        if self.mode == "deal":
            diff += self.trick_value * (self.below[0] - self.below[1])
        return [float(diff), float(-diff)]


# --- the slow tensor encoder (the reference of gamut.envs.poke.tensors.write_tensor) -----------

def _ref_drawing_over(st, player) -> bool:
    phase = st[K.S_PHASE]
    if phase in (K.PH_TRICK, K.PH_OVER):
        return True
    if phase == K.PH_DEAL:
        return False
    return player != st[K.S_DEALER] and st[K.S_DRAWER] == st[K.S_DEALER]


def _ref_table_cards(st, player) -> tuple[int, int]:
    """(face-up, face-down) masks of ``player``'s finished plays: winners' cards up, losers' down."""
    tricks = [(int(st[K.S_LEAD + t]), int(st[K.S_FOLLOW + t]), st[K.S_TRICK_LEADER + t] == player,
               st[K.S_TRICK_WINNER + t] == player) for t in range(K.MAX_HAND_SIZE)]
    finished = list(takewhile(lambda trick: trick[0] and trick[1], tricks))
    mine = [(lead if led else follow, won) for lead, follow, led, won in finished]
    return (sum(cards for cards, won in mine if won), sum(cards for cards, won in mine if not won))


def reference_tensor(layout, st, player, perfect_recall, private):
    """The tensor of ``player`` in kernel state ``st``, piece by piece through named numpy views."""
    pieces = layout.pieces(perfect_recall, private)
    tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
    views, start = {}, 0
    for name, shape in pieces:
        size = int(np.prod(shape))
        views[name] = tensor[start:start + size].reshape(shape)
        start += size

    def mark(view, mask):
        for c in range(52):
            if (int(mask) >> c) & 1:
                view[layout.index[c]] = 1.0

    me, opp = player, 1 - player
    phase = st[K.S_PHASE]
    views["player"][me] = 1.0
    views["dealer"][0 if st[K.S_DEALER] == me else 1] = 1.0
    if phase in (K.PH_DEAL, K.PH_REPLACE):
        views["phase"][0] = 1.0
    elif phase == K.PH_DRAW:
        views["phase"][1] = 1.0
    elif phase == K.PH_TRICK:
        views["phase"][2 if st[K.S_LEAD + st[K.S_TRICK]] == 0 else 3] = 1.0
    my_up, my_down = _ref_table_cards(st, me)
    opp_up, opp_down = _ref_table_cards(st, opp)
    if private:
        mark(views["my_hand"], st[K.S_HAND + me] & ~st[K.S_PLAYED + me])
        mark(views["my_face_down"], my_down)
    mark(views["my_face_up"], my_up)
    mark(views["opp_face_up"], opp_up)
    views["opp_face_down_count"][bin(opp_down).count("1")] = 1.0
    if phase == K.PH_TRICK and K.current_player(st) != st[K.S_LEADER]:
        mark(views["current_lead"], st[K.S_LEAD + st[K.S_TRICK]])
    for who, p in ((0, me), (1, opp)):
        for k in range(st[K.S_NDRAWS + p]):
            views["draws"][who, k, bin(int(st[K.S_DISC + 3 * p + k])).count("1")] = 1.0
        views["drawing_over"][who] = float(_ref_drawing_over(st, p))
        views["multipliers"][who, int(K.trick_multiplier(st, p)).bit_length() - 1] = 1.0
    scores = [st[K.S_TRICKS + me], st[K.S_TRICKS + opp], st[K.S_BELOW + me], st[K.S_BELOW + opp],
              st[K.S_ABOVE + me], st[K.S_ABOVE + opp], st[K.S_GAMES + me], st[K.S_GAMES + opp], st[K.S_DEALS_DONE]]
    views["scores"][:] = np.asarray(scores, dtype=np.float64) / layout.score_maxima
    if not perfect_recall:
        return tensor
    if private:
        mark(views["my_dealt"], st[K.S_DEALT + me])
        for k in range(3):
            mark(views["my_discards"][k], st[K.S_DISC + 3 * me + k])
            mark(views["my_drawn"][k], st[K.S_DRAWN + 3 * me + k])
    d = layout.num_cards
    for t in range(layout.hand_size):
        lead = st[K.S_LEAD + t]
        if lead == 0:
            break
        row = views["tricks"][t]
        row[0 if st[K.S_TRICK_LEADER + t] == me else 1] = 1.0
        mark(row[2:2 + d], lead)
        follow = st[K.S_FOLLOW + t]
        if follow:
            follower = 1 - st[K.S_TRICK_LEADER + t]
            if st[K.S_TRICK_WINNER + t] == follower or (follower == me and private):
                mark(row[2 + d:2 + 2 * d], follow)
            row[2 * d + 2 + (0 if st[K.S_TRICK_WINNER + t] == me else 1)] = 1.0
    return tensor
