"""An equilibrium of Poke's draw phase on the full deck: external-sampling MCCFR over the draw-table abstraction.

The game solved
---------------
One deal of a rubber, from a score sheet drawn from the sheets at which
deals start in rubbers of the default heuristic (``deal_sheets``). Seat 1
deals. The players choose only their draws, one decision per cell of
``gamut.solvers.poke.draw_table`` (situation x hand class x score context):
stand, or discard the keep rule's cards and draw. The tricks of the deal are
played like the heuristic by both, and the rest of the rubber by the default
heuristic for both seats; the payoff is the non-dealer's final above-the-line
margin (zero-sum). A cell is what the player knows in the abstraction: it
forgets the hand class before its own last draw (imperfect recall), which
MCCFR handles as it handles any abstraction, without guarantees.

The algorithm
-------------
External-sampling MCCFR (Lanctot et al. 2009) with regret matching+: each
iteration samples a score sheet, the deck order (which fixes the deal and
every replacement card, whatever is discarded: common random numbers across
the traverser's options) and the rest of the rubber, then walks every
option of the traverser and one sampled option of the other player (the
traverser alternates by iteration). The average strategy is accumulated at
the other player's decisions with linear weights (iteration number). The
result is a draw table: the average probability of drawing per cell.

How exploitable it is is measured outside, by the best response of
``gamut.solvers.poke.best_response`` against the table over full rubbers:
its gain per rubber is a sampled lower bound of the exploitability within
the abstraction.
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

from gamut.envs.poke import kernels as K
from gamut.envs.rng import splitmix64
from gamut.solvers.poke.draw_table import (NUM_CELLS, THRESHOLD, decision_uniform, draw_cell, keep_rule_draw,
                                           play_seats_to_end, require_full_deck)
from gamut.solvers.poke.heuristic import make_params
from gamut.solvers.poke.match import fill_deal_order, next_card, play_heuristic_deal

SHEET_COLUMNS = ("below_non_dealer", "below_dealer", "games_non_dealer", "games_dealer")


@numba.njit(cache=True)
def _deal_sheets(cfg, params, seeds, out):
    state = np.empty(K.STATE_SIZE, dtype=np.int64)
    order = np.empty(52, dtype=np.int64)
    rows = 0
    for i in range(seeds.shape[0]):
        K.init_state(state, cfg)
        while state[K.S_PHASE] != K.PH_OVER:
            if rows < out.shape[0]:
                dealer = state[K.S_DEALER]
                out[rows, 0] = state[K.S_BELOW + 1 - dealer]
                out[rows, 1] = state[K.S_BELOW + dealer]
                out[rows, 2] = state[K.S_GAMES + 1 - dealer]
                out[rows, 3] = state[K.S_GAMES + dealer]
                rows += 1
            play_heuristic_deal(state, cfg, params, seeds[i], order)
    return rows


def deal_sheets(cfg: np.ndarray, seeds, max_rows: int = 1_000_000) -> np.ndarray:
    """The score sheet at the start of every deal of default-heuristic rubbers, non-dealer first.

    Returns ``int64`` ``(rows, 4)``, columns ``SHEET_COLUMNS``; at most ``max_rows`` rows.
    """
    out = np.empty((max_rows, 4), dtype=np.int64)
    rows = _deal_sheets(cfg, np.tile(make_params(), (2, 1)), np.asarray(seeds, dtype=np.uint64), out)
    return out[:rows].copy()


@numba.njit(cache=True)
def _strategy(regret, cell):
    r0 = max(regret[cell, 0], 0.0)
    r1 = max(regret[cell, 1], 0.0)
    if r0 + r1 <= 0.0:
        return 0.5
    return r1 / (r0 + r1)


@numba.njit(cache=True)
def _traverse(state, cfg, traverser, regret, average, weight, key, order, n, kinds, params, tables, codes,
              deal_order):
    # Value of `state` to `traverser` (one deal's draw phase, the rest played by the heuristic); updates in place.
    if state[K.S_PHASE] >= K.PH_TRICK:
        work = state.copy()
        play_seats_to_end(work, cfg, kinds, params, tables, codes, key, order, n, deal_order)
        return float(work[K.S_ABOVE + traverser] - work[K.S_ABOVE + 1 - traverser])
    child = state.copy()
    if state[K.S_PHASE] == K.PH_REPLACE:
        K.apply_action(child, cfg, next_card(state, cfg, order, n))
        return _traverse(child, cfg, traverser, regret, average, weight, key, order, n, kinds, params, tables,
                         codes, deal_order)
    cell = draw_cell(state, cfg)
    if cell < 0:
        K.apply_action(child, cfg, K.STAND)
        return _traverse(child, cfg, traverser, regret, average, weight, key, order, n, kinds, params, tables,
                         codes, deal_order)
    p_draw = _strategy(regret, cell)
    draw = keep_rule_draw(state, cfg)
    if state[K.S_DRAWER] != traverser:
        average[cell, 0] += weight * (1.0 - p_draw)
        average[cell, 1] += weight * p_draw
        action = draw if decision_uniform(key, state[K.S_DRAWER], state[K.S_MOVES]) < p_draw else K.STAND
        K.apply_action(child, cfg, action)
        return _traverse(child, cfg, traverser, regret, average, weight, key, order, n, kinds, params, tables,
                         codes, deal_order)
    K.apply_action(child, cfg, K.STAND)
    stand = _traverse(child, cfg, traverser, regret, average, weight, key, order, n, kinds, params, tables, codes,
                      deal_order)
    child[:] = state
    K.apply_action(child, cfg, draw)
    drawn = _traverse(child, cfg, traverser, regret, average, weight, key, order, n, kinds, params, tables, codes,
                      deal_order)
    value = (1.0 - p_draw) * stand + p_draw * drawn
    regret[cell, 0] = max(regret[cell, 0] + stand - value, 0.0)
    regret[cell, 1] = max(regret[cell, 1] + drawn - value, 0.0)
    return value


@numba.njit(cache=True)
def _iterate(cfg, sheets, seed, first, count, regret, average):
    state = np.empty(K.STATE_SIZE, dtype=np.int64)
    order = np.empty(52, dtype=np.int64)
    deal_order = np.empty(52, dtype=np.int64)
    # The rest of each rubber: the default heuristic in both seats.
    kinds = np.array([THRESHOLD, THRESHOLD], dtype=np.int64)
    params = np.empty((2, 5), dtype=np.int64)
    params[0] = np.array([2, 1, 4, 1, 0])
    params[1] = params[0]
    tables = np.zeros((2, 1))
    codes = np.zeros((2, 1))
    for t in range(first, first + count):
        key = splitmix64(np.uint64(seed) ^ splitmix64(np.uint64(t)))
        row = np.int64(splitmix64(key ^ np.uint64(0xA5A5A5A5)) % np.uint64(sheets.shape[0]))
        K.init_state(state, cfg)
        state[K.S_BELOW] = sheets[row, 0]
        state[K.S_BELOW + 1] = sheets[row, 1]
        state[K.S_GAMES] = sheets[row, 2]
        state[K.S_GAMES + 1] = sheets[row, 3]
        # Seat 1 deals the even deals; eight deals per game won keeps the sheet plausible.
        state[K.S_DEALS_DONE] = 8 * (sheets[row, 2] + sheets[row, 3])
        n = fill_deal_order(cfg[K.C_DECK], key, np.uint64(state[K.S_DEALS_DONE]), order)
        while state[K.S_PHASE] == K.PH_DEAL:
            K.apply_action(state, cfg, next_card(state, cfg, order, n))
        _traverse(state, cfg, t % 2, regret, average, float(t + 1), key, order, n, kinds, params, tables, codes,
                  deal_order)


def mccfr_draw_table(cfg: np.ndarray, sheets: np.ndarray, iterations: int, seed: int, chunk: int = 20_000,
                     progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run external-sampling MCCFR over the draw abstraction (module docstring); the average draw table.

    Parameters
    ----------
    cfg : ndarray, int64, shape (CFG_SIZE,)
        A full-deck ``poke(mode=rubber)`` kernel configuration.
    sheets : ndarray, int64, shape (m, 4)
        Score sheets to start deals from (``deal_sheets``), one drawn per iteration.
    iterations : int
        Iterations (the traverser alternates; iteration ``t`` is keyed by ``(seed, t)``).
    seed : int
    chunk : int
        Iterations per compiled call (only ``progress`` sees it: the numbers do not depend on it).
    progress : callable ``(iterations done) -> None``, optional

    Returns
    -------
    table : ndarray, float64, shape (NUM_CELLS,)
        The average probability of drawing per cell; cells the average
        never reached take the last regret-matching strategy (0.5 if unvisited).
    average : ndarray, float64, shape (NUM_CELLS, 2)
        Weighted sums of the stand and draw probabilities at the other player's visits.
    regret : ndarray, float64, shape (NUM_CELLS, 2)
        Cumulative regrets+ of stand and draw.
    """
    require_full_deck(cfg)
    if cfg[K.C_MODE] != K.MODE_RUBBER:
        raise ValueError("the draw equilibrium is solved in rubbers: need poke(mode=rubber)")
    sheets = np.asarray(sheets, dtype=np.int64)
    if sheets.ndim != 2 or sheets.shape[1] != 4 or sheets.shape[0] == 0:
        raise ValueError(f"sheets must be a non-empty (m, 4) array, got shape {sheets.shape}")
    if iterations < 1 or chunk < 1:
        raise ValueError(f"iterations and chunk must be >= 1, got {iterations} and {chunk}")
    regret = np.zeros((NUM_CELLS, 2))
    average = np.zeros((NUM_CELLS, 2))
    for first in range(0, iterations, chunk):
        _iterate(cfg, sheets, np.uint64(seed), first, min(chunk, iterations - first), regret, average)
        if progress is not None:
            progress(min(first + chunk, iterations))
    total = average.sum(axis=1)
    positive = np.maximum(regret, 0.0)
    current = np.where(positive.sum(axis=1) > 0, positive[:, 1] / np.maximum(positive.sum(axis=1), 1e-300), 0.5)
    table = np.where(total > 0, average[:, 1] / np.maximum(total, 1e-300), current)
    return table, average, regret
