"""Draw/double policies as decision tables over an abstraction of Poke's draw decisions, played in compiled loops.

The abstraction
---------------
A draw decision of the full 52-card deck (hands of five) falls into one
*cell*, ``(situation, hand class, score context)``; only decisions where the
heuristic's keep rule (``gamut.solvers.poke.heuristic.discard_cards``) would
discard something are cells (made hands, straights and better, stand):

- ``situation`` (``SITUATIONS``, 11): the seat and draw number: the
  non-dealer's first draw (it doubles) and second (it redoubles); the
  dealer's free, doubling and redoubling draws, each by how many times the
  non-dealer drew (0, 1 or 2; the dealer sees it).
- ``hand class`` (``HAND_CLASSES``, 7): high card, four to a flush (no
  pair), pair of 2-7, of 8-J, of Q-A, two pairs, three of a kind.
- ``score context`` (``NUM_CONTEXTS``, 36): the drawer's and the opponent's
  below-the-line scores in the bins ``BELOW_LABELS`` (0-9, 10-15, 16 and
  more: a game ends at 20, and a tie-breaker deal starts with both equal at
  20 or more) and the games each has won in the rubber (0 or 1).

Cell id: ``(situation * NUM_CLASSES + hand_class) * NUM_CONTEXTS + context``,
context id: ``((games_own * 2 + games_opponent) * 3 + bin_own) * 3 + bin_opponent``.
Worked example: the non-dealer's first draw (situation 0) holding a pair of
fives (class 2) at 12 below against 17 below (bins 1 and 2), no game won by
either: context ``(0 * 3 + 1) * 3 + 2 = 5``, cell ``(0 * 7 + 2) * 36 + 5 = 77``.

A *draw table* is a ``float64`` array of shape ``(NUM_CELLS,)``: the
probability of drawing (discarding the keep rule's cards) in each cell.

Seats
-----
Compiled matches seat two policies; each seat is described by ``SeatArrays``
(its kind and the arrays the kind reads) and plays its tricks like the
heuristic (beat as cheaply as possible, lead the largest set):

- ``THRESHOLD``: the heuristic with five category thresholds (``params``);
- ``TABLE``: a draw table;
- ``MCCFR``: the ``mccfr`` agent's draw policy (``gamut.solvers.poke.policies``,
  abstraction ``gamut.solvers.poke.walker.draw_key``) as a dense array over
  ``mccfr_code``.

A stochastic seat draws with a uniform number keyed by the match seed, the
seat and the move number (``decision_uniform``), so the same seed gives the
same match.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from gamut.envs import hands
from gamut.envs.poke import kernels as K
from gamut.envs.poke.showdown import hand_strength
from gamut.envs.rng import splitmix64
from gamut.solvers.poke.heuristic import NUM_PARAMS, discard_cards, heuristic_action, make_params
from gamut.solvers.poke.match import fill_deal_order, next_card

SITUATIONS = ("non-dealer double", "non-dealer redouble") + tuple(
    f"dealer {draw}, non-dealer drew {o}" for draw in ("free", "double", "redouble") for o in range(3))
HAND_CLASSES = ("high card", "four-flush", "pair 2-7", "pair 8-J", "pair Q-A", "two pairs", "trips")
BELOW_LABELS = ("0-9", "10-15", "16+")
NUM_SITUATIONS = len(SITUATIONS)
NUM_CLASSES = len(HAND_CLASSES)
NUM_CONTEXTS = 36
NUM_CELLS = NUM_SITUATIONS * NUM_CLASSES * NUM_CONTEXTS
# Below-the-line bins by lower edge.
_BIN_EDGES = (10, 16)

THRESHOLD, TABLE, MCCFR = 0, 1, 2
# mccfr_code: (((role * 3 + own draws) * 64 + opponent's discard counts in base 4) * 10 + category) * 13 + rank,
# then * 2 + four-flush.
NUM_MCCFR_CODES = 2 * 3 * 64 * hands.NUM_CATEGORIES * 13 * 2
_SUIT_MASK = 0x1111111111111


def require_full_deck(cfg: np.ndarray) -> None:
    """Raise ValueError unless ``cfg`` is the full 52-card deck with hands of five (the abstraction's game)."""
    if cfg[K.C_NUM_RANKS] != 13 or cfg[K.C_NUM_SUITS] != 4 or cfg[K.C_HAND_SIZE] != 5:
        raise ValueError("draw tables abstract the full 52-card deck with hands of 5; got num_ranks="
                         f"{cfg[K.C_NUM_RANKS]}, num_suits={cfg[K.C_NUM_SUITS]}, hand_size={cfg[K.C_HAND_SIZE]}")


@numba.njit(cache=True)
def _below_bin(below):
    if below >= _BIN_EDGES[1]:
        return 2
    if below >= _BIN_EDGES[0]:
        return 1
    return 0


@numba.njit(cache=True)
def score_context(state, player):
    """Context id (0..35) of the score sheet of ``state`` from ``player``'s side (module docstring)."""
    opp = 1 - player
    games = state[K.S_GAMES + player] * 2 + state[K.S_GAMES + opp]
    return (games * 3 + _below_bin(state[K.S_BELOW + player])) * 3 + _below_bin(state[K.S_BELOW + opp])


@numba.njit(cache=True)
def _four_flush(hand):
    for s in range(4):
        if K.popcount(hand & (np.int64(_SUIT_MASK) << s)) >= 4:
            return True
    return False


@numba.njit(cache=True)
def hand_class(hand):
    """Hand class id (``HAND_CLASSES``) of a five-card mask with no made hand; -1 for straights and better."""
    category = hands.category_of(hand_strength(hand))
    if category >= hands.STRAIGHT:
        return -1
    if category == hands.HIGH_CARD:
        return 1 if _four_flush(hand) else 0
    if category == hands.ONE_PAIR:
        rank = -1
        rest = hand
        while rest:
            c = K.lowest_card(rest)
            rest &= rest - 1
            if K.popcount(hand & (np.int64(15) << (4 * (c >> 2)))) == 2:
                rank = c >> 2
        # rank index 0 is a deuce: 2-7 are 0..5, 8-J 6..9, Q-A 10..12
        if rank <= 5:
            return 2
        return 3 if rank <= 9 else 4
    return 5 if category == hands.TWO_PAIR else 6


@numba.njit(cache=True)
def keep_rule_draw(state, cfg):
    """The draw action (slot mask) of the keep rule for the drawer of ``state``; 0 when it would stand."""
    p = state[K.S_DRAWER]
    hand = state[K.S_HAND + p]
    limit = min(cfg[K.C_MAX_DRAW], K.popcount(K.stock_mask(state, cfg)))
    return K.cards_to_slots(hand, discard_cards(hand, limit))


@numba.njit(cache=True)
def situation(state):
    """Situation id (``SITUATIONS``) of the drawer's next draw in ``state`` (a draw decision)."""
    p = state[K.S_DRAWER]
    if p != state[K.S_DEALER]:
        return state[K.S_NDRAWS + p]
    return 2 + 3 * state[K.S_NDRAWS + p] + state[K.S_NDRAWS + 1 - p]


@numba.njit(cache=True)
def draw_cell(state, cfg):
    """Cell id of the draw decision ``state`` (module docstring), or -1 when the keep rule stands."""
    if keep_rule_draw(state, cfg) == 0:
        return -1
    p = state[K.S_DRAWER]
    cls = hand_class(state[K.S_HAND + p])
    if cls < 0:
        return -1
    return (situation(state) * NUM_CLASSES + cls) * NUM_CONTEXTS + score_context(state, p)


def cell_fields(cell: int) -> tuple[int, int, int]:
    """``(situation, hand class, context)`` of a cell id; inverse of the cell formula.

    >>> cell_fields(77)
    (0, 2, 5)
    """
    if not 0 <= cell < NUM_CELLS:
        raise ValueError(f"cell {cell} outside 0..{NUM_CELLS - 1}")
    return cell // (NUM_CLASSES * NUM_CONTEXTS), (cell // NUM_CONTEXTS) % NUM_CLASSES, cell % NUM_CONTEXTS


def context_fields(context: int) -> dict:
    """The score context id as named fields: games won by each side and the below-the-line bins.

    >>> context_fields(5)
    {'games_own': 0, 'games_opponent': 0, 'below_own': '10-15', 'below_opponent': '16+'}
    """
    if not 0 <= context < NUM_CONTEXTS:
        raise ValueError(f"context {context} outside 0..{NUM_CONTEXTS - 1}")
    games, bins = divmod(context, 9)
    return {"games_own": games // 2, "games_opponent": games % 2, "below_own": BELOW_LABELS[bins // 3],
            "below_opponent": BELOW_LABELS[bins % 3]}


@numba.njit(cache=True)
def mccfr_code(state, player):
    """Index of ``walker.draw_key(state, player)`` in the dense array of ``mccfr_table`` (module constants)."""
    opp = 1 - player
    role = 1 if state[K.S_DEALER] == player else 0
    counts = 0
    scale = 1
    for k in range(state[K.S_NDRAWS + opp]):
        counts += K.popcount(state[K.S_DISC + 3 * opp + k]) * scale
        scale *= 4
    hand = state[K.S_HAND + player]
    category = hands.category_of(hand_strength(hand))
    best_rank, best_count = -1, 0
    rest = hand
    while rest:
        c = K.lowest_card(rest)
        rest &= rest - 1
        count = K.popcount(hand & (np.int64(15) << (4 * (c >> 2))))
        if count >= best_count:
            best_rank, best_count = c >> 2, count
    flush = 1 if _four_flush(hand) else 0
    code = ((role * 3 + state[K.S_NDRAWS + player]) * 64 + counts) * hands.NUM_CATEGORIES + category
    return (code * 13 + best_rank) * 2 + flush


def mccfr_table(strategy) -> np.ndarray:
    """The draw probability of a ``draw_key`` strategy (``TabularStrategy``) per ``mccfr_code``, ``(NUM_MCCFR_CODES,)``.

    Keys the strategy never saw draw with probability 1/2, as the strategy
    answers there (uniform over stand and draw).
    """
    out = np.full(NUM_MCCFR_CODES, 0.5)
    for key in strategy.keys:
        role, own, opp, bucket = key.split("|")
        counts = sum(int(d) * 4**k for k, d in enumerate(opp)) if opp != "-" else 0
        category, rest = bucket[1:].split("r")
        rank, flush = rest.split("f")
        code = (((("ND".index(role)) * 3 + int(own)) * 64 + counts) * hands.NUM_CATEGORIES + int(category))
        probs = strategy.action_probabilities(key, [K.STAND, 1])
        total = probs.get(1, 0.0) + probs.get(K.STAND, 0.0)
        out[(code * 13 + int(rank)) * 2 + int(flush)] = probs.get(1, 0.0) / total if total > 0 else 0.5
    return out


@dataclass(frozen=True)
class SeatArrays:
    """One compiled seat: ``kind`` (``THRESHOLD``, ``TABLE``, ``MCCFR``) and the arrays every kind carries.

    ``params``: ``int64`` ``(NUM_PARAMS,)`` thresholds (``THRESHOLD``);
    ``table``: ``float64`` ``(NUM_CELLS,)`` draw table (``TABLE``);
    ``codes``: ``float64`` ``(NUM_MCCFR_CODES,)`` draw probabilities (``MCCFR``).
    Unused arrays are zeros of the right shape.
    """

    kind: int
    params: np.ndarray
    table: np.ndarray
    codes: np.ndarray

    @classmethod
    def threshold(cls, params) -> "SeatArrays":
        return cls(THRESHOLD, _vector(params, np.int64, NUM_PARAMS, "thresholds"), _NO_TABLE, _NO_CODES)

    @classmethod
    def draw_table(cls, table) -> "SeatArrays":
        table = _vector(table, np.float64, NUM_CELLS, "a draw table")
        if not np.all((table >= 0) & (table <= 1)):
            raise ValueError("a draw table holds probabilities, each in [0, 1]")
        return cls(TABLE, _DEFAULT_PARAMS, table, _NO_CODES)

    @classmethod
    def mccfr(cls, codes) -> "SeatArrays":
        return cls(MCCFR, _DEFAULT_PARAMS, _NO_TABLE, _vector(codes, np.float64, NUM_MCCFR_CODES, "mccfr codes"))


def _vector(values, dtype, size: int, what: str) -> np.ndarray:
    array = np.asarray(values, dtype=dtype)
    if array.shape != (size,):
        raise ValueError(f"{what} must have shape ({size},), got {array.shape}")
    return array


_DEFAULT_PARAMS = make_params()
_NO_TABLE = np.zeros(NUM_CELLS)
_NO_CODES = np.zeros(NUM_MCCFR_CODES)


def stack_seats(seat0: SeatArrays, seat1: SeatArrays) -> tuple:
    """The arrays of two seats stacked seat by seat: ``(kinds, params, tables, codes)`` for the kernels."""
    return (np.array([seat0.kind, seat1.kind], dtype=np.int64), np.stack([seat0.params, seat1.params]),
            np.stack([seat0.table, seat1.table]), np.stack([seat0.codes, seat1.codes]))


@numba.njit(cache=True)
def decision_uniform(key, seat, move):
    """A uniform number in [0, 1) for move number ``move`` of ``seat`` in the match keyed ``key``."""
    x = splitmix64(np.uint64(key) ^ splitmix64(np.uint64(move) * np.uint64(2) + np.uint64(seat)))
    return float(x >> np.uint64(11)) / 9007199254740992.0


@numba.njit(cache=True)
def seat_action(state, cfg, seat, kinds, params, tables, codes, key):
    """The action of ``seat`` at its decision node in ``state`` (its draw policy; heuristic tricks)."""
    if state[K.S_PHASE] != K.PH_DRAW or kinds[seat] == THRESHOLD:
        return heuristic_action(state, cfg, params[seat])
    draw = keep_rule_draw(state, cfg)
    if draw == 0:
        return K.STAND
    if kinds[seat] == TABLE:
        p = tables[seat, draw_cell(state, cfg)]
    else:
        p = codes[seat, mccfr_code(state, seat)]
    if p >= 1.0 or (p > 0.0 and decision_uniform(key, seat, state[K.S_MOVES]) < p):
        return draw
    return K.STAND


@numba.njit(cache=True)
def play_seats_to_end(state, cfg, kinds, params, tables, codes, key, order, n, deal_order):
    """Play ``state`` to the end of its match in place, the seats' policies moving.

    The current deal's chance nodes take the first card of ``order[:n]``
    still in the stock; later deals come from ``fill_deal_order(deck, key,
    deal)`` (``deal_order``: a ``(52,)`` work buffer).
    """
    deal = state[K.S_DEALS_DONE]
    while state[K.S_PHASE] != K.PH_OVER:
        if state[K.S_DEALS_DONE] != deal:
            deal = state[K.S_DEALS_DONE]
            n = fill_deal_order(cfg[K.C_DECK], np.uint64(key), np.uint64(deal), deal_order)
            order = deal_order
        p = K.current_player(state)
        if p < 0:
            K.apply_action(state, cfg, next_card(state, cfg, order, n))
        else:
            K.apply_action(state, cfg, seat_action(state, cfg, p, kinds, params, tables, codes, key))


@numba.njit(cache=True)
def play_match(cfg, kinds, params, tables, codes, key, state, order, deal_order):
    """One match from the start, deals from ``fill_deal_order(deck, key, deal)``; seat 0's above-the-line difference."""
    K.init_state(state, cfg)
    n = fill_deal_order(cfg[K.C_DECK], np.uint64(key), np.uint64(0), order)
    play_seats_to_end(state, cfg, kinds, params, tables, codes, key, order, n, deal_order)
    return state[K.S_ABOVE] - state[K.S_ABOVE + 1]


@numba.njit(cache=True)
def _pair_margins(cfg, kinds, params, tables, codes, seeds, out):
    state = np.empty(K.STATE_SIZE, dtype=np.int64)
    order = np.empty(52, dtype=np.int64)
    deal_order = np.empty(52, dtype=np.int64)
    swapped = np.array([1, 0])
    for i in range(seeds.shape[0]):
        out[i, 0] = play_match(cfg, kinds, params, tables, codes, seeds[i], state, order, deal_order)
        out[i, 1] = -play_match(cfg, kinds[swapped], params[swapped], tables[swapped], codes[swapped], seeds[i],
                                state, order, deal_order)


def seat_margins(cfg: np.ndarray, a: SeatArrays, b: SeatArrays, seeds) -> np.ndarray:
    """A's above-the-line margins against B over pairs of matches (the seats swapped, the same deals).

    Parameters
    ----------
    cfg : ndarray, int64, shape (CFG_SIZE,)
        A full-deck Poke game's kernel configuration (any mode).
    a, b : SeatArrays
    seeds : array_like of int, shape (n,)
        One pair per seed (``gamut.solvers.poke.match.match_seeds``); deal ``d``
        of both matches of a pair is ``fill_deal_order(deck, seed, d)``, as in
        ``gamut.solvers.poke.match.heuristic_margins`` (two threshold seats
        give the same numbers).

    Returns
    -------
    ndarray, float64, shape (n, 2)
        Column 0: A's margin in seat 0; column 1: in seat 1.
    """
    require_full_deck(cfg)
    seeds = np.asarray(seeds, dtype=np.uint64)
    out = np.empty((seeds.shape[0], 2))
    _pair_margins(cfg, *stack_seats(a, b), seeds, out)
    return out
