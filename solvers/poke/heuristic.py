"""A rule-of-thumb Poke player as Numba kernels: draw to the best hand, double by thresholds, simple tricks.

The policy reads only what its player knows (own hand, the draw stage, the
lead on the table), through the rules kernels of ``gamut.envs.poke.kernels``.

Draw phase
----------
``discard_slots`` names the cards a drawer would throw away: keep every card
of a rank held twice or more (pairs, trips, quads); with no pair keep four
cards of one suit (a flush draw) if there are four, else the highest cards;
stand on a made straight, flush, full house or better. At most
``min(3, hand_size - 1)`` cards and never more than the stock holds; when
fewer may go, the lowest go first (high cards win tricks).

Whether to draw at all is a threshold on the hand's category (``gamut.envs.hands``:
0 high card, 1 pair, 2 two pairs, 3 trips, 4 straight, ...): the drawer draws
when the hand's category is *below* the threshold of the draw stage. The five
stages and their thresholds form the ``params`` array (``int64``,
``(NUM_PARAMS,)``):

===  ======================  =====================================  =======
idx  name                    draw                                   default
===  ======================  =====================================  =======
0    ``double_below``        non-dealer's first draw (doubles)      2
1    ``redouble_below``      non-dealer's second draw (redoubles)   1
2    ``free_below``          dealer's free first draw               4
3    ``dealer_double_below`` dealer's second draw (doubles)         1
4    ``dealer_redouble_below`` dealer's third draw (redoubles)      0
===  ======================  =====================================  =======

Worked example (defaults): the non-dealer holding ``7c 7d 9h Ks As`` (one
pair, category 1 < 2) discards ``9h Ks As`` (slot mask ``0b11100`` = action
28) and so doubles the dealer's tricks; holding ``7c 7d Ks Kh 2c`` (two pairs,
category 2) stands. A threshold of 0 never draws at that stage; 10 always
draws when something can be discarded.

Trick phase
-----------
The leader leads its largest set (ties: the highest rank), else its highest
card. The follower beats the lead as cheaply as it can (the lowest rank that
wins), else throws off its lowest cards.

:class:`HeuristicBot` plays these kernels as a ``pyspiel.Bot`` (the
``heuristic`` agent of ``gamut.solvers.poke.agents``).
"""

from __future__ import annotations

import numba
import numpy as np
import pyspiel

from gamut.envs import hands
from gamut.envs.poke import kernels as K
from gamut.envs.poke.showdown import hand_strength
from gamut.solvers.seat_bots import SeatBot

NUM_PARAMS = 5
PARAM_NAMES = ("double_below", "redouble_below", "free_below", "dealer_double_below", "dealer_redouble_below")
DEFAULT_PARAMS = (2, 1, 4, 1, 0)
NEVER, ALWAYS = 0, hands.NUM_CATEGORIES  # thresholds that never / always draw
MADE_HAND = hands.STRAIGHT  # straights and better use all five cards: stand on them


def make_params(**thresholds) -> np.ndarray:
    """The ``params`` array from keyword thresholds (names in ``PARAM_NAMES``), defaults elsewhere.

    >>> make_params(double_below=0).tolist()
    [0, 1, 4, 1, 0]
    """
    unknown = sorted(set(thresholds) - set(PARAM_NAMES))
    if unknown:
        raise ValueError(f"unknown heuristic threshold {unknown[0]!r}; allowed: {', '.join(PARAM_NAMES)}")
    values = dict(zip(PARAM_NAMES, DEFAULT_PARAMS))
    for name, value in thresholds.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not NEVER <= value <= ALWAYS:
            raise ValueError(f"threshold {name}={value!r} must be an integer in {NEVER}..{ALWAYS}")
        values[name] = int(value)
    return np.array([values[name] for name in PARAM_NAMES], dtype=np.int64)


@numba.njit(cache=True)
def _rank_counts(cards):
    # 4 bits per rank index (card id >> 2): how many cards of each rank the mask holds.
    counts = np.int64(0)
    rest = cards
    while rest:
        c = K.lowest_card(rest)
        rest &= rest - 1
        counts += np.int64(1) << (4 * (c >> 2))
    return counts


@numba.njit(cache=True)
def lowest_cards(cards, n):
    """Mask of the ``n`` lowest cards of the card mask ``cards`` (all of them if it holds fewer)."""
    out = np.int64(0)
    rest = cards
    for _ in range(n):
        if rest == 0:
            break
        low = rest & -rest
        out |= low
        rest &= rest - 1
    return out


@numba.njit(cache=True)
def discard_cards(hand, max_discard):
    """Card mask the heuristic would discard from ``hand`` (at most ``max_discard`` cards; 0: stand).

    ``hand`` is a card mask; see the module docstring for the keep rule.
    """
    if max_discard <= 0:
        return np.int64(0)
    if hands.category_of(hand_strength(hand)) >= MADE_HAND:
        return np.int64(0)
    counts = _rank_counts(hand)
    keep = np.int64(0)
    rest = hand
    while rest:
        c = K.lowest_card(rest)
        rest &= rest - 1
        if (counts >> (4 * (c >> 2))) & 15 >= 2:
            keep |= np.int64(1) << c
    size = K.popcount(hand)
    if keep == 0:
        if size == K.MAX_HAND_SIZE:
            for s in range(4):
                suited = hand & (np.int64(0x1111111111111) << s)
                if K.popcount(suited) == 4:
                    keep = suited
        if keep == 0:
            # No pair, no flush draw: keep the highest cards.
            keep = hand & ~lowest_cards(hand, min(max_discard, size - 1))
    return lowest_cards(hand & ~keep, max_discard)


@numba.njit(cache=True)
def draw_stage(state):
    """Index into ``params`` of the drawer's next draw: 0-1 non-dealer, 2-4 dealer."""
    p = state[K.S_DRAWER]
    if p == state[K.S_DEALER]:
        return 2 + state[K.S_NDRAWS + p]
    return state[K.S_NDRAWS + p]


@numba.njit(cache=True)
def _draw_action(state, cfg, params):
    p = state[K.S_DRAWER]
    hand = state[K.S_HAND + p]
    limit = min(cfg[K.C_MAX_DRAW], K.popcount(K.stock_mask(state, cfg)))
    cards = discard_cards(hand, limit)
    if cards == 0:
        return K.STAND
    if hands.category_of(hand_strength(hand)) >= params[draw_stage(state)]:
        return K.STAND
    return K.cards_to_slots(hand, cards)


@numba.njit(cache=True)
def _lead_cards(free):
    counts = _rank_counts(free)
    best_rank, best_size = -1, 1
    for r in range(13):
        n = (counts >> (4 * r)) & 15
        if n >= best_size and n >= 2:
            best_rank, best_size = r, n
    if best_rank < 0:
        # No set: the highest single card.
        top = free
        while top & (top - 1):
            top &= top - 1
        return top
    return free & (np.int64(15) << (4 * best_rank))


@numba.njit(cache=True)
def _follow_cards(free, lead):
    size = K.popcount(lead)
    lead_rank = K.lowest_card(lead) >> 2
    counts = _rank_counts(free)
    for r in range(lead_rank + 1, 13):
        if (counts >> (4 * r)) & 15 >= size:
            return lowest_cards(free & (np.int64(15) << (4 * r)), size)
    return lowest_cards(free, size)


@numba.njit(cache=True)
def _trick_action(state, cfg):
    p = K.current_player(state)
    hand = state[K.S_HAND + p]
    free = hand & ~state[K.S_PLAYED + p]
    lead = state[K.S_LEAD + state[K.S_TRICK]]
    cards = _lead_cards(free) if lead == 0 else _follow_cards(free, lead)
    return (np.int64(1) << cfg[K.C_HAND_SIZE]) + K.cards_to_slots(hand, cards)


@numba.njit(cache=True)
def heuristic_action(state, cfg, params):
    """The heuristic's action at a decision node of ``state`` (``params``: ``int64``, ``(NUM_PARAMS,)``)."""
    if state[K.S_PHASE] == K.PH_DRAW:
        return _draw_action(state, cfg, params)
    return _trick_action(state, cfg)


def require_poke(game: pyspiel.Game) -> None:
    """Raise ValueError unless ``game`` is the toolkit's ``poke``."""
    if game.get_type().short_name != "poke":
        raise ValueError(f"this agent plays poke only, not {game.get_type().short_name}")


class HeuristicBot(SeatBot):
    """The threshold heuristic of ``gamut.solvers.poke.heuristic`` (deterministic; the seed is unused)."""

    def __init__(self, game: pyspiel.Game, player: int, params: np.ndarray):
        super().__init__(player)
        require_poke(game)
        self._cfg = game.cfg
        self.params = np.asarray(params, dtype=np.int64)

    def inform_action(self, state, player, action) -> None:
        """Nothing to remember."""

    def provides_policy(self) -> bool:
        return True

    def step_with_policy(self, state):
        action = self.step(state)
        return [(action, 1.0)], action

    def step(self, state) -> int:
        return int(heuristic_action(state.state, self._cfg, self.params))


def make_heuristic(game, player: int, seed: int, **thresholds) -> HeuristicBot:
    """Registry factory: ``thresholds`` are the named draw thresholds of ``make_params``."""
    return HeuristicBot(game, player, make_params(**thresholds))
