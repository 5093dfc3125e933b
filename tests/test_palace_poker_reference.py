"""Palace Poker kernels vs a slow, obvious pure-Python reference of the rules, step by step.

The reference keeps the position as Python sets and lists and follows the
rules of ``docs/games/palace_poker.md`` directly, with its action ids. Random
playouts compare, at every step, the player to move, legal actions, chance
outcomes, every card's location, the stacks and chips put in (which always add
up to the starting stacks) and, at the end, the returns.
"""

from __future__ import annotations

import zlib

import numpy as np
import pyspiel
import pytest

import gamut.envs.palace_poker.game  # noqa: F401  (registers palace_poker)
from gamut.envs import hands
from gamut.envs.palace_poker import layout as L

SUITS = 4


def suit(card):
    return card % SUITS


def hand_value(cards, ignore_suit=-1):
    """Best hand of ``cards`` not counting ``ignore_suit``, by the shared evaluator's Python API."""
    return int(hands.best_strengths(np.array([sorted(cards)], dtype=np.int64), exclude_suit=ignore_suit)[0])


def levels(base, stack):
    k = 0
    while base * 2**k < stack:
        k += 1
    return k


class Reference:
    """The rules as plain Python (one object per hand)."""

    def __init__(self, n, small, big, no_limit, stack, max_raises, max_turns):
        self.n, self.s, self.b, self.no_limit = n, small, big, no_limit
        self.max_raises, self.max_turns = max_raises, max_turns
        self.bet_levels = max(1, levels(small, stack)) if no_limit else 1
        self.raise_levels = max(1, levels(big, stack)) if no_limit else 1
        self.bet_base = 58 + self.raise_levels + 1
        ante = small // 2
        self.stack = [stack - ante] * n
        self.put = [ante] * n
        self.deck = set(range(52))
        self.aside = set()
        self.banner = [None] * n
        self.palace = [[] for _ in range(n)]
        self.soldiers = [set() for _ in range(n)]
        self.draw, self.discard = set(), set()
        self.live = set(range(n))
        self.quiet = set()
        self.mode, self.seat, self.turn, self.turns = "banner", 0, 0, 0
        self.won = None
        self.returned_raises = 0

    # --- who moves, what is legal ------------------------------------------
    def player(self):
        if self.mode in ("banner", "palace", "buy"):
            return -1
        if self.mode == "over":
            return -4
        return self.turn if self.mode == "turn" else self.actor

    def chance_outcomes(self):
        return sorted(self.deck if self.mode in ("banner", "palace") else self.draw)

    def legal(self):
        if self.mode == "turn":
            return self._turn_legal()
        if self.mode == "discard":
            p, held = self.actor, len(self.soldiers[self.actor])
            acts = []
            if held <= 5 and (self.kind != "paid" or self.count > 0):
                acts.append(L.DONE)
            for c in sorted(self.soldiers[p]):
                higher = sum(1 for x in self.soldiers[p] if x > c)
                if c > self.last and held - 1 - higher <= 5:
                    acts.append(6 + c)
            return acts
        if self.mode == "battle":
            p = self.actor
            o = self.attacker if p == self.defender else self.defender
            acts = [L.FOLD, L.CALL]
            if self.raises < self.max_raises and self.stack[o] > 0 and self.stack[p] > self.to_call:
                fixed = self.b if self.soldiers[p] else 2 * self.s
                for k in range(self.raise_levels):
                    r = self.b * 2**k if self.no_limit else fixed
                    if self.to_call + r < self.stack[p]:
                        acts.append(58 + k)
                if self.no_limit or self.stack[p] <= self.to_call + fixed:
                    acts.append(58 + self.raise_levels)
            return acts
        return []

    def _turn_legal(self):
        p = self.turn
        forced = len(self.live) == 2
        acts = [] if forced else [L.STAY]
        acts.append(L.FOLD)
        if not forced and self.stack[p] >= self.s:
            if self.draw or self.discard:
                acts.append(L.BUY)
            if self.soldiers[p]:
                acts.append(L.DISCARD)
        minimum = (len(self.soldiers[p]) + 1) * self.s
        for t in sorted(self.live):
            if t != p and suit(self.banner[t]) != suit(self.banner[p]):
                base = self.bet_base + t * (self.bet_levels + 1)
                for k in range(self.bet_levels):
                    if minimum * 2**k < self.stack[p]:
                        acts.append(base + k)
                if self.no_limit or self.stack[p] <= minimum:
                    acts.append(base + self.bet_levels)
        return acts

    # --- moves ---------------------------------------------------------------
    def apply(self, a):
        getattr(self, "_apply_" + self.mode)(a)

    def _apply_banner(self, card):
        self.deck.remove(card)
        group = range(self.seat - self.seat % 4, self.seat)
        if any(suit(self.banner[q]) == suit(card) for q in group):
            self.aside.add(card)
        else:
            self.banner[self.seat] = card
            self.seat += 1
        if self.seat == self.n:
            self.deck = set(range(52)) - set(self.banner)
            self.aside = set()
            self.mode, self.seat = "palace", 0
        elif not self.deck:
            self.deck, self.aside = self.aside, set()

    def _apply_palace(self, card):
        self.deck.remove(card)
        self.palace[self.seat].append(card)
        if len(self.palace[self.seat]) == 3:
            self.seat += 1
            if self.seat == self.n:
                self.draw, self.deck = self.deck, set()
                self.mode, self.turn = "turn", 0

    def _pay(self, p, chips):
        chips = min(chips, self.stack[p])
        self.stack[p] -= chips
        self.put[p] += chips
        return chips

    def _apply_turn(self, a):
        p = self.turn
        self.turns += 1
        if a == L.STAY:
            self.quiet.add(p)
            self._end_turn()
        elif a == L.FOLD:
            self._leave(p)
            if not self._over_after_exit():
                self._end_turn()
        elif a == L.BUY:
            self._pay(p, self.s)
            self.quiet = set()
            if not self.draw:
                self.draw, self.discard = self.discard, set()
            self.mode = "buy"
        elif a == L.DISCARD:
            self._pay(p, self.s)
            self.quiet.add(p)
            self._discard_phase(p, "paid")
        else:
            target, level = divmod(a - self.bet_base, self.bet_levels + 1)
            minimum = (len(self.soldiers[p]) + 1) * self.s
            self._pay(p, self.stack[p] if level == self.bet_levels else minimum * 2**level)
            self.quiet = set()
            self.attacker, self.defender, self.actor = p, target, target
            self.to_call = (len(self.soldiers[target]) + 1) * self.s
            self.raises = 0
            self.mode = "battle"

    def _apply_buy(self, card):
        self.draw.remove(card)
        self.soldiers[self.turn].add(card)
        self._discard_phase(self.turn, "buy")

    def _discard_phase(self, p, kind):
        self.mode, self.actor, self.kind, self.last, self.count = "discard", p, kind, -1, 0

    def _apply_discard(self, a):
        if a == L.DONE:
            self._end_turn()
            return
        c = a - 6
        self.soldiers[self.actor].remove(c)
        self.discard.add(c)
        self.last, self.count = c, self.count + 1

    def _apply_battle(self, a):
        p = self.actor
        o = self.attacker if p == self.defender else self.defender
        if a == L.FOLD:
            if self.raises:  # the raiser takes back the raise nobody called
                self.stack[o] += self.to_call
                self.put[o] -= self.to_call
                self.returned_raises += 1
            self._leave(p)
            self._take(o, p)
        elif a == L.CALL:
            self._pay(p, self.to_call)
            self._settle()
        else:
            level = a - 58
            fixed = self.b if self.soldiers[p] else 2 * self.s
            r = (self.b * 2**level if self.no_limit else fixed)
            paid = self._pay(p, self.stack[p] if level == self.raise_levels else self.to_call + r)
            self.to_call = paid - self.to_call
            self.raises += 1
            self.actor = o

    def _settle(self):
        a, d = self.attacker, self.defender
        cards = {q: set(self.palace[q]) | {self.banner[q]} | self.soldiers[q] for q in (a, d)}
        va = hand_value(cards[a], suit(self.banner[d]))
        vd = hand_value(cards[d], suit(self.banner[a]))
        if va == vd:
            na = sum(1 for c in cards[a] if suit(c) == suit(self.banner[a]))
            nd = sum(1 for c in cards[d] if suit(c) == suit(self.banner[d]))
            va, vd = na, nd
        if va == vd:
            if len(self.live) == 2:
                self._finish(set(self.live))
                return
            self._leave(a)
            self._leave(d)
            if not self._over_after_exit():
                self._end_turn()
            return
        winner, loser = (a, d) if va > vd else (d, a)
        self._leave(loser)
        self._take(winner, loser)

    def _take(self, winner, loser):
        self.soldiers[winner] |= self.soldiers[loser] | {self.banner[loser]}
        self.soldiers[loser] = set()
        self.taken_banner = getattr(self, "taken_banner", set()) | {self.banner[loser]}
        if not self._over_after_exit():
            self._discard_phase(winner, "take")

    def _leave(self, p):
        self.live.discard(p)
        self.quiet.discard(p)
        self.discard |= set(self.palace[p])
        self.palace[p] = []

    def _over_after_exit(self):
        if len(self.live) == 1 or len({suit(self.banner[q]) for q in self.live}) == 1:
            self._finish(set(self.live))
            return True
        return False

    def _end_turn(self):
        if self.quiet == self.live or self.turns >= self.max_turns:
            values = {q: hand_value(set(self.palace[q]) | {self.banner[q]} | self.soldiers[q]) for q in self.live}
            best = max(values.values())
            self._finish({q for q, v in values.items() if v == best})
            return
        for step in range(1, self.n + 1):
            q = (self.turn + step) % self.n
            if q in self.live:
                self.turn = q
                break
        self.mode = "turn"

    def _finish(self, winners):
        pot = sum(self.put)
        share, odd = divmod(pot, len(winners))
        self.won = [0] * self.n
        for i, q in enumerate(sorted(winners)):
            self.won[q] = share + (1 if i < odd else 0)
        self.mode = "over"

    # --- comparison helpers ---------------------------------------------------
    def locations(self):
        loc = np.zeros(52, dtype=np.int64)
        for c in range(52):
            if c in self.discard:
                loc[c] = L.LOC_DISCARD
            elif c in self.aside:
                loc[c] = L.LOC_SET_ASIDE
        taken = getattr(self, "taken_banner", set())
        for q in range(self.n):
            if self.banner[q] is not None and self.banner[q] not in taken:
                loc[self.banner[q]] = L.LOC_BANNER + q
            for c in self.palace[q]:
                loc[c] = L.LOC_PALACE + q
            for c in self.soldiers[q]:
                loc[c] = L.LOC_SOLDIER + q
        return loc

    def returns(self):
        return [0] * self.n if self.won is None else [w - p for w, p in zip(self.won, self.put)]


PARAMS = [
    dict(players=2), dict(players=2, betting="no_limit", stack=10),
    dict(players=3, stack=6, small_bet=3, big_bet=5, max_raises=1),
    dict(players=4, betting="no_limit", stack=20), dict(players=5, max_turns=12),
    dict(players=7, betting="no_limit", stack=8, max_raises=5), dict(players=10), dict(players=10, stack=3),
]


def _reference_for(game):
    p = game.params
    return Reference(p["players"], p["small_bet"], p["big_bet"], p["betting"] == "no_limit",
                     p["stack"] * p["small_bet"], p["max_raises"], p["max_turns"])


def _compare_playout(game, ref, rng, stay_bias):
    state = game.new_initial_state()
    steps = 0
    while True:
        assert state.current_player() == ref.player()
        np.testing.assert_array_equal(state.state[L.S_LOC:L.S_LOC + 52], ref.locations())
        np.testing.assert_array_equal(state.state[L.S_STACK:L.S_STACK + game.num_players()], ref.stack)
        np.testing.assert_array_equal(state.state[L.S_CONTRIB:L.S_CONTRIB + game.num_players()], ref.put)
        assert sum(ref.stack) + sum(ref.put) == game.num_players() * game.params["stack"] * game.params["small_bet"]
        if state.is_terminal():
            assert state.returns() == ref.returns()
            assert sum(state.returns()) == 0
            return steps, state
        if state.is_chance_node():
            outcomes = [c for c, _ in state.chance_outcomes()]
            assert outcomes == ref.chance_outcomes()
            action = outcomes[rng.integers(len(outcomes))]
        else:
            legal = state.legal_actions()
            assert legal == ref.legal()
            # Staying and buying more often than uniform play makes hands longer
            # and reaches full soldier counts, reshuffles and showdowns.
            preferred = [a for a in legal if a in (L.STAY, L.BUY, L.DONE)]
            pool = preferred if preferred and rng.random() < stay_bias else legal
            action = pool[rng.integers(len(pool))]
        state.apply_action(action)
        ref.apply(action)
        steps += 1


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_kernels_match_reference_on_random_playouts(params):
    game = pyspiel.load_game("palace_poker", params)
    rng = np.random.default_rng(zlib.crc32(repr(sorted(params.items())).encode()))
    steps = hands_played = returned_raises = 0
    ends = set()
    while steps < 14_000:
        bias = 0.8 if hands_played % 2 else 0.0
        ref = _reference_for(game)
        played, state = _compare_playout(game, ref, rng, stay_bias=bias)
        steps += played
        hands_played += 1
        returned_raises += ref.returned_raises
        ends.add(int(state.state[L.S_END]))
    # With three or more players hands end in more than one way (last player,
    # same suit, showdowns); two players only battle.
    assert len(ends) >= (2 if game.num_players() >= 3 else 1)
    assert returned_raises > 0  # folds to raises were played and compared


def test_fold_to_a_raise_matches_the_reference_in_a_hand_made_position():
    # Three players, seat 0 bets on seat 1, seat 1 raises, seat 0 folds, then
    # seat 1 bets on seat 2, seat 2 raises and seat 1 folds: each raiser takes
    # its raise back (version 1 kept both raises in the pot).
    game = pyspiel.load_game("palace_poker", {"players": 3})
    ref = _reference_for(game)
    state = game.new_initial_state()
    banners = [0, 5, 10]  # 2c 3d 4h
    palaces = [12, 16, 20, 25, 29, 33, 38, 42, 46]  # 5c 6c 7c 8d 9d Td Jh Qh Kh
    raise_4 = L.RAISE_BASE
    bet_seat = [int(game.cfg[L.C_BET_BASE]) + t * (int(game.cfg[L.C_BET_LEVELS]) + 1) for t in range(3)]
    moves = banners + palaces + [bet_seat[1], raise_4, L.FOLD, L.DONE, bet_seat[2], raise_4, L.FOLD]
    for move in moves:
        assert move in (state.legal_actions() if not state.is_chance_node()
                        else [c for c, _ in state.chance_outcomes()])
        state.apply_action(move)
        ref.apply(move)
        np.testing.assert_array_equal(state.state[L.S_STACK:L.S_STACK + 3], ref.stack)
        np.testing.assert_array_equal(state.state[L.S_CONTRIB:L.S_CONTRIB + 3], ref.put)
        assert sum(ref.stack) + sum(ref.put) == 600
    assert ref.returned_raises == 2
    assert state.is_terminal() and state.returns() == ref.returns() == [-3, -7, 10]
