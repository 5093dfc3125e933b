"""Head-to-head Poke matches with common random numbers and seat swapping.

Every deal of a match takes its cards from a shuffled deck fixed by ``(seed,
deal number)``: each chance node deals the first card of that order still in
the stock. Dealing from a uniformly shuffled deck in order is exactly the
game's chance distribution (each card uniform over the stock), and it gives
both seatings of a paired comparison the same cards in every deal, however
the players draw.

A *pair* plays the same seed twice, agent A in seat 0 and then in seat 1 (the
seats deal alternately, seat 1 first); A's margin of the pair is the mean of
its two above-the-line differences. ``compare`` turns pairs into a mean with
a 95% t interval (``gamut.solvers.stats``).

Two engines play the same matches: ``play_pyspiel`` drives any
``pyspiel.Bot`` through the game's API, and ``heuristic_margins`` plays the
threshold heuristic (``gamut.solvers.poke.heuristic``) against itself with other
thresholds in a compiled loop, thousands of rubbers a second. Tests check that
both give the same play.
"""

from __future__ import annotations

import numba
import numpy as np
import pyspiel

from gamut.envs.poke import kernels as K
from gamut.envs.rng import splitmix64
from gamut.solvers.paired_match import PairedMatch
from gamut.solvers.poke.heuristic import NUM_PARAMS, heuristic_action
from gamut.solvers.seat_bots import play_out
from gamut.solvers.stats import Estimate, mean_ci



@numba.njit(cache=True)
def fill_deal_order(deck_mask, seed, deal, out):
    """Write the shuffled deck of ``(seed, deal)`` into ``out`` (``int64``, ``(52,)``); returns the deck size.

    Fisher-Yates over the card ids of ``deck_mask``, from a splitmix64 stream keyed by (seed, deal).
    """
    n = K.cards_of(deck_mask, out)
    x = splitmix64(np.uint64(seed) ^ splitmix64(np.uint64(deal)))
    for i in range(n - 1, 0, -1):
        x = splitmix64(x)
        j = np.int64(x % np.uint64(i + 1))
        out[i], out[j] = out[j], out[i]
    return n


def deal_order(cfg: np.ndarray, seed: int, deal: int) -> np.ndarray:
    """The shuffled deck of deal number ``deal`` (0 first) of the match seeded by ``seed``.

    Returns ``int64`` card ids, shape ``(num_ranks * num_suits,)``, a
    permutation of the deck of ``cfg`` (``gamut.envs.poke.kernels.make_config``).
    """
    if seed < 0 or deal < 0:
        raise ValueError(f"seed and deal must be >= 0, got seed={seed}, deal={deal}")
    out = np.empty(52, dtype=np.int64)
    n = fill_deal_order(np.int64(cfg[K.C_DECK]), np.uint64(seed), np.uint64(deal), out)
    return out[:n]


@numba.njit(cache=True)
def next_card(state, cfg, order, n):
    """The first card of ``order[:n]`` still in the stock of ``state`` (a chance node's outcome)."""
    stock = K.stock_mask(state, cfg)
    for i in range(n):
        if (stock >> order[i]) & 1:
            return order[i]
    return -1


@numba.njit(cache=True)
def heuristic_move(state, cfg, params, order, n):
    """One move at ``state`` in place: a chance node deals the first card of ``order[:n]`` still in the stock,
    seat ``p`` plays the heuristic with ``params[p]`` (``int64``, ``(2, NUM_PARAMS)``)."""
    p = K.current_player(state)
    if p < 0:
        K.apply_action(state, cfg, next_card(state, cfg, order, n))
    else:
        K.apply_action(state, cfg, heuristic_action(state, cfg, params[p]))


@numba.njit(cache=True)
def play_heuristic_deal(state, cfg, params, seed, order):
    """Play the deal in progress in ``state`` to its end in place, each seat ``p`` heuristic with ``params[p]``.

    Its cards come from ``fill_deal_order(deck, seed, deal)`` (``order``: a ``(52,)`` work buffer).
    """
    deal = state[K.S_DEALS_DONE]
    n = fill_deal_order(cfg[K.C_DECK], np.uint64(seed), np.uint64(deal), order)
    while state[K.S_PHASE] != K.PH_OVER and state[K.S_DEALS_DONE] == deal:
        heuristic_move(state, cfg, params, order, n)


@numba.njit(cache=True)
def play_heuristic_match(cfg, params, seed, state, order, bonus_deal=-1, bonus_seat=0, extra=0):
    """One match from the start with deals from ``fill_deal_order``; seat 0's above-the-line difference.

    Seat ``p`` plays the heuristic with ``params[p]`` (``int64``, ``(2, NUM_PARAMS)``); ``state``
    (``(STATE_SIZE,)``) and ``order`` (``(52,)``) are work buffers. ``extra`` below-the-line
    points go to seat ``bonus_seat`` when deal ``bonus_deal`` starts (-1: never; the marginal
    point of ``gamut.solvers.poke.point_value``).
    """
    K.init_state(state, cfg)
    while state[K.S_PHASE] != K.PH_OVER:
        if state[K.S_DEALS_DONE] == bonus_deal:
            state[K.S_BELOW + bonus_seat] += extra
        play_heuristic_deal(state, cfg, params, seed, order)
    return state[K.S_ABOVE] - state[K.S_ABOVE + 1]


@numba.njit(cache=True)
def _heuristic_margins(cfg, params_a, params_b, seeds, out):
    state = np.empty(K.STATE_SIZE, dtype=np.int64)
    order = np.empty(52, dtype=np.int64)
    seats = np.empty((2, params_a.shape[0]), dtype=np.int64)
    for i in range(seeds.shape[0]):
        seats[0] = params_a
        seats[1] = params_b
        first = play_heuristic_match(cfg, seats, seeds[i], state, order)
        seats[0] = params_b
        seats[1] = params_a
        second = play_heuristic_match(cfg, seats, seeds[i], state, order)
        out[i, 0] = first
        out[i, 1] = -second


def heuristic_margins(cfg: np.ndarray, params_a: np.ndarray, params_b: np.ndarray, seeds) -> np.ndarray:
    """A's above-the-line margins, heuristic thresholds ``params_a`` against ``params_b``.

    Parameters
    ----------
    cfg : ndarray, int64, shape (CFG_SIZE,)
        The game's kernel configuration (any mode).
    params_a, params_b : ndarray, int64, shape (NUM_PARAMS,)
        Threshold arrays (``gamut.solvers.poke.heuristic.make_params``).
    seeds : array_like of int, shape (n,)
        One match pair per seed.

    Returns
    -------
    ndarray, float64, shape (n, 2)
        Column 0: A's margin in seat 0; column 1: in seat 1 (same cards).
    """
    seeds = np.asarray(seeds, dtype=np.uint64)
    for name, params in (("params_a", params_a), ("params_b", params_b)):
        if np.shape(params) != (NUM_PARAMS,):
            raise ValueError(f"{name} must have shape ({NUM_PARAMS},), got {np.shape(params)}")
    out = np.empty((seeds.shape[0], 2), dtype=np.float64)
    _heuristic_margins(cfg, np.asarray(params_a, np.int64), np.asarray(params_b, np.int64), seeds, out)
    return out


def play_pyspiel(game: pyspiel.Game, bots: list, seed: int) -> float:
    """Play one match of ``game`` (a ``poke`` game) between ``bots[0]`` and ``bots[1]``; seat 0's return.

    Chance follows ``deal_order(cfg, seed, deal)``; each bot sees every action
    through ``inform_action`` and is restarted first.
    """
    cfg = game.cfg
    orders = {}  # deal number -> its deck order

    def chance(node) -> int:
        deal = int(node.state[K.S_DEALS_DONE])
        if deal not in orders:
            orders[deal] = deal_order(cfg, seed, deal)
        order = orders[deal]
        return int(next_card(node.state, cfg, order, len(order)))

    state = game.new_initial_state()
    play_out(state, bots, chance)
    return float(state.returns()[0])


def pyspiel_margins(game: pyspiel.Game, make_a, make_b, seeds, progress=None) -> np.ndarray:
    """A's margins like ``heuristic_margins`` for any bots: ``make_x(player, seed) -> pyspiel.Bot``.

    ``progress(done)``, if given, is called after each pair.
    """
    out = np.empty((len(seeds), 2))
    for i, seed in enumerate(seeds):
        seed = int(seed)
        out[i, 0] = play_pyspiel(game, [make_a(0, seed), make_b(1, seed + 1)], seed)
        out[i, 1] = -play_pyspiel(game, [make_b(0, seed + 1), make_a(1, seed)], seed)
        if progress is not None:
            progress(i + 1)
    return out


def match_seeds(seed: int, pairs: int) -> np.ndarray:
    """``pairs`` match seeds drawn from ``np.random.default_rng(seed)`` (``uint64`` below 2**62)."""
    if pairs < 1:
        raise ValueError(f"the number of match pairs must be >= 1, got {pairs}")
    return np.random.default_rng(seed).integers(0, 2**62, size=pairs, dtype=np.uint64)


def rubber_pair(game: pyspiel.Game, make, a: str, b: str, seed: int, index: int) -> dict:
    """Pair ``index`` of the rubber match seeded by ``seed``: the same deals with the seats swapped.

    ``make(name, seat, seed)`` creates an agent; the sample is A's mean
    above-the-line margin over the pair's two rubbers.
    """
    match_seed = match_seeds(seed, index + 1)[index]
    margins = pyspiel_margins(game, lambda p, q: make(a, p, q), lambda p, q: make(b, p, q), [match_seed])[0]
    return {"seed": int(match_seed), "margins": margins.tolist(), "sample": float(margins.mean())}


PAIRED_RUBBERS = PairedMatch(
    game="poke(mode=rubber)",
    unit="pairs of rubbers; sample = A's mean above-the-line margin per rubber over the pair",
    play="gamut.solvers.poke.match:rubber_pair",
)


def compare(margins: np.ndarray) -> Estimate:
    """A's mean margin per match with a 95% t interval over pairs (``n`` = pairs)."""
    return mean_ci(np.asarray(margins, dtype=np.float64).mean(axis=1))
