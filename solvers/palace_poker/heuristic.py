"""A threshold heuristic for Palace Poker, as Numba kernels on the game's state array.

The heuristic judges every battle by its *equity*: the chance that its hand
beats the opponent's, given only what it may see. Its own hand is its palace,
banner and soldiers without the opponent's banner suit; the opponent's is the
opponent's banner and soldiers (and any palace cards shown to the heuristic
at an earlier battle) without the heuristic's banner suit, completed with
palace cards drawn uniformly from the cards the heuristic has not seen. A
tie (equal hands and equal own-suit counts) counts one half.

Decisions (``params``, a ``float64`` array indexed by the ``P_*`` constants;
``make_params`` fills defaults and checks ranges):

* **Turn.** The target is the *weakest-looking* opponent: the one it may bet
  on (still in, another banner suit) against whom its equity is highest.
  With two players left (a battle is forced) it bets on the target when that
  equity is at least ``forced``, else folds. Otherwise it bets when the
  equity is at least ``attack``; else it buys while its own hand (nothing
  excluded, the showdown hand) is below the hand level ``buy_below``; else it
  stays. It never pays to discard. Bets are the minimum (``limit``: the only
  amount; ``no_limit``: level 0), or all-in when the stack does not cover it.
* **Battle** (defender facing a bet, or either battler facing a raise):
  raise (minimum raise) when the equity is at least ``raise``, call when it is
  at least ``call``, else fold.
* **Discards.** It keeps the soldiers that make its best five-card hand: when
  holding more than five it drops, one at a time, the soldier whose loss
  costs least, then drops every soldier whose loss costs nothing (fewer
  soldiers make its own bets and calls cheaper).

Hand levels (for ``buy_below``) are ``16 * category + top rank``: a pair of
nines is ``16 * 1 + 9 = 25``, ace high ``14``, two pair with queens up
``16 * 2 + 12 = 44`` (categories of ``gamut.envs.hands``).

:class:`PalaceHeuristicBot` plays these kernels as a ``pyspiel.Bot`` (the
``heuristic`` agent of ``gamut.solvers.palace_poker.agents``).
"""

from __future__ import annotations

import numba
import numpy as np
import pyspiel

from gamut.envs import hands
from gamut.envs.hands import HAND_TABLE
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker.rollout import random_chance_card
from gamut.envs.palace_poker.showdown import banner_suit, own_suit_count, player_cards, popcount
from gamut.envs.rng import below, rng_state
from gamut.solvers.seat_bots import SeatBot

P_ATTACK, P_CALL, P_RAISE, P_FORCED, P_BUY_BELOW, P_SAMPLES = range(6)
PARAM_NAMES = ("attack", "call", "raise", "forced", "buy_below", "samples")
DEFAULTS = {"attack": 0.7, "call": 0.45, "raise": 0.8, "forced": 0.2, "buy_below": 28, "samples": 48}
NUM_PARAMS = len(PARAM_NAMES)
# Up to 3 palace + 1 banner + 11 soldiers (own five, a loser's banner and five) in a discard phase.
MAX_HELD = L.PALACE_SIZE + 1 + L.MAX_HELD_SOLDIERS
WORK_SIZE = 2 * MAX_HELD + L.NUM_CARDS  # scratch: own cards, opponent's cards, unseen pool


def make_params(**values) -> np.ndarray:
    """Threshold array (``float64``, ``(NUM_PARAMS,)``) from keyword values; defaults for the rest.

    Equity thresholds (``attack``, ``call``, ``raise``, ``forced``) lie in
    [0, 1] (above 1: never); ``buy_below`` is a hand level in 0..160;
    ``samples`` (palace draws per equity estimate) is at least 1.
    """
    unknown = sorted(set(values) - set(PARAM_NAMES))
    if unknown:
        raise ValueError(f"unknown heuristic parameter {unknown[0]!r}; parameters: {', '.join(PARAM_NAMES)}")
    merged = {**DEFAULTS, **values}
    for name in ("attack", "call", "raise", "forced"):
        if not 0.0 <= merged[name] <= 2.0:
            raise ValueError(f"heuristic {name}={merged[name]!r} must be an equity in [0, 1] (up to 2: never)")
    if not 0 <= merged["buy_below"] <= 16 * hands.NUM_CATEGORIES:
        raise ValueError(f"heuristic buy_below={merged['buy_below']!r} must be a hand level in 0..160")
    if int(merged["samples"]) != merged["samples"] or merged["samples"] < 1:
        raise ValueError(f"heuristic samples={merged['samples']!r} must be a whole number >= 1")
    return np.array([float(merged[name]) for name in PARAM_NAMES], dtype=np.float64)


@numba.njit(cache=True)
def hand_level(strength):
    """``16 * category + top rank`` of an ``gamut.envs.hands`` strength (0 for the empty hand)."""
    return (strength >> hands.CATEGORY_SHIFT) * 16 + ((strength >> 16) & 15)


@numba.njit(cache=True)
def battle_equity(state, p, o, samples, rng, table, work):
    """Seat ``p``'s chance of beating ``o`` in a called battle, from what ``p`` knows.

    ``o``'s palace cards not shown to ``p`` are drawn ``samples`` times from
    the cards ``p`` has not seen (``rng``: ``xorshift`` state, advanced);
    ties count one half. ``work`` is an ``int64`` scratch array of at least
    ``2 * L.NUM_CARDS`` entries.
    """
    known = state[L.S_PUBLIC] | state[L.S_KNOWN + p]
    mine = work[:MAX_HELD]
    n_mine = player_cards(state, p, mine)
    v_me = hands.best_strength(mine, n_mine, banner_suit(state, o), table)
    my_suit = banner_suit(state, p)
    own_me = own_suit_count(state, p)
    theirs = work[MAX_HELD:2 * MAX_HELD]
    pool = work[2 * MAX_HELD:2 * MAX_HELD + L.NUM_CARDS]
    n_seen = 0
    n_pool = 0
    seen_own = 0
    o_suit = banner_suit(state, o)
    for c in range(L.NUM_CARDS):
        loc = state[L.S_LOC + c]
        visible = loc == L.LOC_BANNER + o or loc == L.LOC_SOLDIER + o
        if loc == L.LOC_PALACE + o and (known >> c) & 1:
            visible = True
        if visible:
            theirs[n_seen] = c
            n_seen += 1
            if (c & 3) == o_suit:
                seen_own += 1
        elif not (known >> c) & 1:
            pool[n_pool] = c
            n_pool += 1
    hidden = L.PALACE_SIZE
    for c in range(L.NUM_CARDS):
        if state[L.S_LOC + c] == L.LOC_PALACE + o and (known >> c) & 1:
            hidden -= 1
    if hidden > n_pool:
        hidden = n_pool
    rounds = samples if hidden > 0 else 1
    score = 0.0
    for _ in range(rounds):
        own_o = seen_own
        # Partial Fisher-Yates: the first ``hidden`` pool entries become the palace.
        for i in range(hidden):
            j = i + below(rng, n_pool - i)
            pool[i], pool[j] = pool[j], pool[i]
            theirs[n_seen + i] = pool[i]
            if (pool[i] & 3) == o_suit:
                own_o += 1
        v_o = hands.best_strength(theirs, n_seen + hidden, my_suit, table)
        if v_me > v_o:
            score += 1.0
        elif v_me == v_o:
            if own_me > own_o:
                score += 1.0
            elif own_me == own_o:
                score += 0.5
    return score / rounds


@numba.njit(cache=True)
def _first_legal(legal, n, lo, hi):
    # The smallest legal id in [lo, hi], or -1.
    for i in range(n):
        if lo <= legal[i] <= hi:
            return legal[i]
    return -1


@numba.njit(cache=True)
def _is_legal(legal, n, action):
    for i in range(n):
        if legal[i] == action:
            return True
    return False


@numba.njit(cache=True)
def _bet_on(cfg, legal, n, target):
    # The cheapest legal bet on ``target``: level 0 if legal, else the lowest offered (all-in).
    width = cfg[L.C_BET_LEVELS] + 1
    base = cfg[L.C_BET_BASE] + target * width
    return _first_legal(legal, n, base, base + width - 1)


@numba.njit(cache=True)
def _turn_action(state, cfg, params, rng, table, legal, n, work):
    p = state[L.S_TURN_PLAYER]
    best_t = -1
    best_e = -1.0
    samples = np.int64(params[P_SAMPLES])
    for t in range(cfg[L.C_PLAYERS]):
        if t != p and (state[L.S_IN] >> t) & 1 and banner_suit(state, t) != banner_suit(state, p):
            e = battle_equity(state, p, t, samples, rng, table, work)
            if e > best_e:
                best_t, best_e = t, e
    forced = popcount(state[L.S_IN]) == 2
    threshold = params[P_FORCED] if forced else params[P_ATTACK]
    if best_t >= 0 and best_e >= threshold:
        bet = _bet_on(cfg, legal, n, best_t)
        if bet >= 0:
            return bet
    if forced:
        return L.FOLD
    mine = work[:MAX_HELD]
    count = player_cards(state, p, mine)
    if hand_level(hands.best_strength(mine, count, -1, table)) < params[P_BUY_BELOW] and _is_legal(legal, n, L.BUY):
        return L.BUY
    return L.STAY


@numba.njit(cache=True)
def _battle_action(state, cfg, params, rng, table, legal, n, work):
    p = state[L.S_ACTOR]
    o = state[L.S_ATTACKER] + state[L.S_DEFENDER] - p
    e = battle_equity(state, p, o, np.int64(params[P_SAMPLES]), rng, table, work)
    if e >= params[P_RAISE]:
        raise_id = _first_legal(legal, n, L.RAISE_BASE, cfg[L.C_BET_BASE] - 1)
        if raise_id >= 0:
            return raise_id
    if e >= params[P_CALL]:
        return L.CALL
    return L.FOLD


@numba.njit(cache=True)
def _value_without(cards, count, skip, table):
    # Showdown strength of cards[:count] without cards[skip] (skip = -1: all of them).
    saved = -1
    if skip >= 0:
        saved = cards[skip]
        cards[skip] = -1
    v = hands.best_strength(cards, count, -1, table)
    if skip >= 0:
        cards[skip] = saved
    return v


@numba.njit(cache=True)
def _cheapest_drop(state, p, cards, count, last, table):
    # Index in cards[:count] of the soldier still offered (id above `last`) whose loss
    # keeps the strongest hand of the rest (the first on ties); -1 if none is offered.
    pick, pick_value = -1, np.int64(-1)
    for i in range(count):
        c = cards[i]
        if c > last and state[L.S_LOC + c] == L.LOC_SOLDIER + p:
            v = _value_without(cards, count, i, table)
            if v > pick_value:
                pick, pick_value = i, v
    return pick


@numba.njit(cache=True)
def discard_choice(state, table, work):
    """The next discard of the seat in a discard phase: ``L.DISCARD_CARD + c``, or ``L.DONE``.

    Plans the whole set of discards (see the module doc) among the soldiers
    still offered (ids above the last discarded one) and returns its lowest
    card, so that replanning after each discard follows the same plan.
    ``work``: ``int64`` scratch of at least ``MAX_HELD`` entries.
    """
    p = state[L.S_ACTOR]
    cards = work[:MAX_HELD]
    count = player_cards(state, p, cards)
    held = state[L.S_NSOLD + p]
    last = state[L.S_DISC_LAST]
    planned = 0
    lowest = L.NUM_CARDS
    # Forced drops: the offered soldier whose loss keeps the best hand.
    while held - planned > L.MAX_SOLDIERS:
        pick = _cheapest_drop(state, p, cards, count, last, table)
        if pick < 0:
            break
        lowest = min(lowest, cards[pick])
        cards[pick] = -1
        planned += 1
    # Free drops: soldiers that add nothing.
    full = _value_without(cards, count, -1, table)
    for i in range(count):
        c = cards[i]
        if c > last and state[L.S_LOC + c] == L.LOC_SOLDIER + p:
            if _value_without(cards, count, i, table) >= full:
                lowest = min(lowest, c)
                cards[i] = -1
                planned += 1
    if planned == 0 and state[L.S_DISC_KIND] == L.DK_PAID and state[L.S_DISC_COUNT] == 0:
        # A paid discard must drop one card: the one that costs least.
        lowest = cards[_cheapest_drop(state, p, cards, count, last, table)]
    if lowest < L.NUM_CARDS:
        return L.DISCARD_CARD + lowest
    return L.DONE


@numba.njit(cache=True)
def heuristic_action(state, cfg, params, rng, table, legal, work):
    """The heuristic's move for the player to act at a decision node of ``state``.

    ``params``: ``make_params`` array; ``rng``: ``xorshift`` state (advanced);
    ``table``: ``gamut.envs.hands.HAND_TABLE``; ``legal``: ``int64`` scratch of
    ``cfg[L.C_NUM_ACTIONS]`` entries; ``work``: ``int64`` scratch of at least
    ``WORK_SIZE`` entries. Uses only what the player to act may know.
    """
    n = K.legal_actions(state, cfg, legal)
    ph = state[L.S_PHASE]
    if ph == L.PH_TURN:
        return _turn_action(state, cfg, params, rng, table, legal, n, work)
    if ph == L.PH_BATTLE:
        return _battle_action(state, cfg, params, rng, table, legal, n, work)
    return discard_choice(state, table, work)


@numba.njit(cache=True)
def play_heuristic(state, cfg, params, rng, legal, work, table):
    """Play ``state`` to the end, every seat by the heuristic ``params``, chance uniform; return the moves made.

    Chance outcomes are uniform over the deck or draw pile
    (``gamut.envs.palace_poker.rollout.random_chance_card``).
    """
    moves = 0
    while state[L.S_PHASE] != L.PH_OVER:
        if K.current_player(state) == L.CHANCE_PLAYER:
            K.apply_action(state, cfg, random_chance_card(state, rng), table)
        else:
            K.apply_action(state, cfg, heuristic_action(state, cfg, params, rng, table, legal, work), table)
        moves += 1
    return moves


class PalaceHeuristicBot(SeatBot):
    """Plays ``gamut.solvers.palace_poker.heuristic`` for one seat.

    Parameters
    ----------
    game : pyspiel.Game
        A ``palace_poker`` game.
    player : int
        The seat the bot plays.
    seed : int
        Seeds the palace draws of its equity estimates (same seed, same play).
    params : ndarray, float64, shape (NUM_PARAMS,)
        Thresholds from ``heuristic.make_params``.
    """

    name = "heuristic"

    def __init__(self, game: pyspiel.Game, player: int, seed: int, params: np.ndarray):
        super().__init__(player)
        if game.get_type().short_name != "palace_poker":
            raise ValueError(f"the palace heuristic plays palace_poker, not {game.get_type().short_name}")
        self._cfg = game.cfg
        self._params = params
        self._rng = rng_state(int(seed) & (2**63 - 1))
        self._legal = np.empty(int(self._cfg[L.C_NUM_ACTIONS]), dtype=np.int64)
        self._work = np.empty(WORK_SIZE, dtype=np.int64)

    def step(self, state) -> int:
        self.check_turn(state)
        return int(heuristic_action(state.state, self._cfg, self._params, self._rng, HAND_TABLE,
                                    self._legal, self._work))


def make_heuristic(game, player: int, seed: int, **thresholds) -> PalaceHeuristicBot:
    """Registry factory: a :class:`PalaceHeuristicBot` with the given thresholds."""
    return PalaceHeuristicBot(game, player, seed, make_params(**thresholds))
