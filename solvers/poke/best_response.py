"""Best-response draw/double tables against a fixed Poke opponent, estimated by paired rollouts.

A best response here is a draw table (``gamut.solvers.poke.draw_table``: a
decision per cell of situation, hand class and score context; tricks played
like the heuristic) that maximises the above-the-line margin per rubber
against one opponent. It is found by rollout policy iteration:

1. Play rubbers of the current table against the opponent (both seatings,
   deals from ``gamut.solvers.poke.match.fill_deal_order``).
2. At every draw decision of the table's seat that is a cell, play both
   options (stand; draw the keep rule's cards) from the same state to the
   end of the rubber, the table and the opponent moving afterwards, with the
   same stock order and later deals for both (common random numbers). The
   difference of the seat's final margins is one paired sample of the
   cell's draw-minus-stand value.
3. The next table draws where the cell's mean difference is above zero
   (cells without samples keep their decision), and the loop repeats.

For opponents that play in compiled loops (threshold heuristics, draw
tables, the ``mccfr`` draw policy) everything runs in Numba
(``response_samples``). Opponents that play through pyspiel (``ismcts``,
``nn_ismcts``, network agents) are far slower: ``refine_against_bots``
starts from a given table (the best response to the heuristic) and plays
real rubbers against the agent, but each branch plays only the rest of the
*deal* against it; the rest of the rubber is valued by ``tails`` compiled
rollouts with the table against the default heuristic. A situation and hand
class row of the table changes only where its pooled paired difference has a
95% CI that excludes zero, so few samples leave the start table unchanged.

Samples of one rubber are not independent (the same rubber feeds several
cells); the per-cell intervals treat them as if they were, and the figures
that matter, margins of whole tables, come from separate paired matches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np
import pyspiel

from gamut.envs.poke import kernels as K
from gamut.solvers.poke.draw_table import (NUM_CELLS, NUM_CONTEXTS, THRESHOLD, SeatArrays, draw_cell,
                                           keep_rule_draw, play_seats_to_end, require_full_deck, seat_action,
                                           stack_seats)
from gamut.solvers.poke.heuristic import NUM_PARAMS, make_params
from gamut.solvers.poke.match import fill_deal_order, next_card
from gamut.solvers.seat_bots import SeatBot

# Category of each hand class (draw_table.HAND_CLASSES) and threshold index of each situation.
_CLASS_CATEGORY = np.array([0, 0, 1, 1, 1, 2, 3])
_SITUATION_STAGE = np.array([0, 1] + [2 + draw for draw in range(3) for _ in range(3)])


def threshold_table(params) -> np.ndarray:
    """The draw table that plays exactly like the threshold heuristic ``params`` (``int64``, ``(NUM_PARAMS,)``).

    The heuristic draws the keep rule's cards when the hand's category is
    below the threshold of the draw stage, which is what a cell decides.

    >>> t = threshold_table(make_params())
    >>> int(t[(0 * 7 + 2) * 36]), int(t[(0 * 7 + 5) * 36])   # non-dealer doubles on a pair, stands on two pairs
    (1, 0)
    """
    params = np.asarray(params, dtype=np.int64)
    if params.shape != (NUM_PARAMS,):
        raise ValueError(f"thresholds must have shape ({NUM_PARAMS},), got {params.shape}")
    draw = _CLASS_CATEGORY[None, :] < params[_SITUATION_STAGE][:, None]
    return np.repeat(draw[:, :, None], NUM_CONTEXTS, axis=2).reshape(NUM_CELLS).astype(np.float64)


@numba.njit(cache=True)
def _branch(state, cfg, option, kinds, params, tables, codes, key, order, n, work, deal_order, seat):
    work[:] = state
    K.apply_action(work, cfg, option)
    play_seats_to_end(work, cfg, kinds, params, tables, codes, key, order, n, deal_order)
    return work[K.S_ABOVE + seat] - work[K.S_ABOVE + 1 - seat]


@numba.njit(cache=True)
def _response_samples(cfg, kinds, params, tables, codes, seeds, count, total, squares):
    # kinds...codes: (2, 2, ...) stacks: [s] holds the seats with the table in seat s.
    state = np.empty(K.STATE_SIZE, dtype=np.int64)
    work = np.empty(K.STATE_SIZE, dtype=np.int64)
    order = np.empty(52, dtype=np.int64)
    branch_order = np.empty(52, dtype=np.int64)
    for i in range(seeds.shape[0]):
        key = seeds[i]
        for s in range(2):
            K.init_state(state, cfg)
            deal = 0
            n = fill_deal_order(cfg[K.C_DECK], np.uint64(key), np.uint64(0), order)
            while state[K.S_PHASE] != K.PH_OVER:
                if state[K.S_DEALS_DONE] != deal:
                    deal = state[K.S_DEALS_DONE]
                    n = fill_deal_order(cfg[K.C_DECK], np.uint64(key), np.uint64(deal), order)
                p = K.current_player(state)
                if p < 0:
                    K.apply_action(state, cfg, next_card(state, cfg, order, n))
                    continue
                if p == s and state[K.S_PHASE] == K.PH_DRAW:
                    cell = draw_cell(state, cfg)
                    if cell >= 0:
                        stand = _branch(state, cfg, K.STAND, kinds[s], params[s], tables[s], codes[s], key, order,
                                        n, work, branch_order, s)
                        draw = _branch(state, cfg, keep_rule_draw(state, cfg), kinds[s], params[s], tables[s],
                                       codes[s], key, order, n, work, branch_order, s)
                        diff = float(draw - stand)
                        count[cell] += 1
                        total[cell] += diff
                        squares[cell] += diff * diff
                K.apply_action(state, cfg, seat_action(state, cfg, p, kinds[s], params[s], tables[s], codes[s], key))


def _both_seatings(table: np.ndarray, opponent: SeatArrays) -> tuple:
    mine = SeatArrays.draw_table(table)
    first, second = stack_seats(mine, opponent), stack_seats(opponent, mine)
    return tuple(np.stack([a, b]) for a, b in zip(first, second))


def response_samples(cfg: np.ndarray, table: np.ndarray, opponent: SeatArrays, seeds) -> tuple:
    """Paired draw-minus-stand samples of every cell of ``table`` against a compiled ``opponent``, summed.

    Parameters
    ----------
    cfg : ndarray, int64, shape (CFG_SIZE,)
        A full-deck Poke game in ``rubber`` (or ``game``) mode.
    table : ndarray, float64, shape (NUM_CELLS,)
        The draw table played outside the branches.
    opponent : SeatArrays
    seeds : array_like of int, shape (n,)
        One rubber per seed and seating (the table in seat 0, then in seat 1).

    Returns
    -------
    count, total, squares : ndarray, shape (NUM_CELLS,)
        Samples per cell (``int64``), their sum and sum of squares (``float64``).
    """
    require_full_deck(cfg)
    if cfg[K.C_MODE] == K.MODE_DEAL:
        raise ValueError("best responses are measured to the end of a game or rubber: need mode=rubber or game")
    seeds = np.asarray(seeds, dtype=np.uint64)
    count = np.zeros(NUM_CELLS, dtype=np.int64)
    total = np.zeros(NUM_CELLS)
    squares = np.zeros(NUM_CELLS)
    _response_samples(cfg, *_both_seatings(np.asarray(table, np.float64), opponent), seeds, count, total, squares)
    return count, total, squares


@dataclass(frozen=True)
class CellStats:
    """Summed paired samples per cell, each ``(NUM_CELLS,)``: ``count`` (``int64``), ``total`` and ``squares``
    (``float64``)."""

    count: np.ndarray
    total: np.ndarray
    squares: np.ndarray

    def mean(self) -> np.ndarray:
        """Mean draw-minus-stand per cell (NaN where there is no sample)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.count > 0, self.total / np.maximum(self.count, 1), np.nan)

    def half_width(self) -> np.ndarray:
        """Half-width of the normal 95% interval of each cell's mean (NaN below two samples)."""
        n = self.count.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            var = (self.squares - self.total**2 / n) / (n - 1)
            return np.where(n >= 2, 1.96 * np.sqrt(np.maximum(var, 0.0) / n), np.nan)


def improve(table: np.ndarray, stats: CellStats) -> np.ndarray:
    """``table`` changed where the evidence says so: draw where a cell's 95% CI of draw minus stand is above zero,
    stand where it is below; every other cell keeps its decision.

    Changing only the cells whose sign is clear keeps the noise of thin cells
    (most of the score contexts are rare) from flipping decisions at random.
    """
    mean, half = stats.mean(), stats.half_width()
    out = np.asarray(table, dtype=np.float64).copy()
    clear = (stats.count >= 2) & (np.abs(np.nan_to_num(mean)) > np.nan_to_num(half, nan=np.inf))
    out[clear] = (mean[clear] > 0).astype(np.float64)
    return out


def best_response(cfg: np.ndarray, opponent: SeatArrays, seeds_by_round: list, start: np.ndarray | None = None,
                  progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, CellStats]:
    """Rollout policy iteration against a compiled ``opponent`` (module docstring).

    Parameters
    ----------
    cfg : ndarray, int64, shape (CFG_SIZE,)
    opponent : SeatArrays
    seeds_by_round : list of array_like of int
        The rubbers of each round (one round per entry).
    start : ndarray, float64, shape (NUM_CELLS,), optional
        The first table played (default: the default heuristic's, ``threshold_table``).
    progress : callable ``(rounds done) -> None``, optional

    Returns
    -------
    table : ndarray, float64, shape (NUM_CELLS,)
        The last round's greedy table (0 stand, 1 draw).
    stats : CellStats
        The last round's samples (draw minus stand, under the table of that round).
    """
    if not seeds_by_round:
        raise ValueError("best_response needs at least one round of seeds")
    table = threshold_table(make_params()) if start is None else np.asarray(start, dtype=np.float64)
    stats = None
    for r, seeds in enumerate(seeds_by_round):
        stats = CellStats(*response_samples(cfg, table, opponent, seeds))
        table = improve(table, stats)
        if progress is not None:
            progress(r + 1)
    return table, stats


class TableBot(SeatBot):
    """A ``pyspiel.Bot`` that plays a draw table (``SeatArrays``) and the heuristic's tricks."""

    def __init__(self, game: pyspiel.Game, player: int, seat: SeatArrays, seed: int = 0):
        super().__init__(player)
        require_full_deck(game.cfg)
        self._cfg = game.cfg
        self._arrays = stack_seats(seat, seat)
        self._key = np.uint64(seed)

    def inform_action(self, state, player, action) -> None:
        """Nothing to remember."""

    def step(self, state) -> int:
        return int(seat_action(state.state, self._cfg, self._player, *self._arrays, self._key))


@numba.njit(cache=True)
def _tail_values(state, cfg, seat, params, keys, out):
    # The rest of the match from `state` (a deal start or the end) with heuristic seats, once per key.
    work = np.empty_like(state)
    order = np.empty(52, dtype=np.int64)
    deal_order = np.empty(52, dtype=np.int64)
    kinds = np.full(2, THRESHOLD, dtype=np.int64)
    no_tables = np.zeros((2, 1))
    for t in range(keys.shape[0]):
        work[:] = state
        if work[K.S_PHASE] != K.PH_OVER:
            n = fill_deal_order(cfg[K.C_DECK], np.uint64(keys[t]), np.uint64(work[K.S_DEALS_DONE]), order)
            play_seats_to_end(work, cfg, kinds, params, no_tables, no_tables, keys[t], order, n, deal_order)
        out[t] = work[K.S_ABOVE + seat] - work[K.S_ABOVE + 1 - seat]


def refine_against_bots(game: pyspiel.Game, table: np.ndarray, make_opponent: Callable[[int, int], pyspiel.Bot],
                        seeds, tails: int = 8, progress: Callable[[int], None] | None = None) -> tuple:
    """A best-response table against a pyspiel agent: ``table`` changed row by row where the evidence says so.

    Parameters
    ----------
    game : pyspiel.Game
        A full-deck ``poke(mode=rubber)`` game.
    table : ndarray, float64, shape (NUM_CELLS,)
        The start table, played outside the branches (e.g. the best response to the heuristic).
    make_opponent : callable ``(player, seed) -> pyspiel.Bot``
    seeds : array_like of int
        One rubber per seed and seating.
    tails : int
        Compiled rollouts valuing the rest of the rubber after each branch's deal.
    progress : callable ``(rubbers done) -> None``, optional

    Returns
    -------
    table : ndarray, float64, shape (NUM_CELLS,)
        ``table`` with every (situation, hand class) row set to draw (stand)
        where the row's pooled mean paired difference has a 95% CI above
        (below) zero.
    stats : CellStats
        The samples per cell (draw minus stand, points to the end of the rubber).
    """
    from gamut.solvers.poke.match import deal_order

    require_full_deck(game.cfg)
    if tails < 1:
        raise ValueError(f"tails must be >= 1, got {tails}")
    cfg = game.cfg
    mine = SeatArrays.draw_table(table)
    heuristic_seats = np.stack([make_params(), make_params()])
    count = np.zeros(NUM_CELLS, dtype=np.int64)
    total = np.zeros(NUM_CELLS)
    squares = np.zeros(NUM_CELLS)
    values = np.empty(tails)
    done = 0
    for seed in np.asarray(seeds, dtype=np.uint64):
        seed = int(seed)
        tail_keys = np.array([seed ^ (0x9E3779B97F4A7C15 * (t + 1) % 2**64) for t in range(tails)], dtype=np.uint64)
        for s in range(2):
            orders = {}

            def chance(st) -> int:
                deal = int(st[K.S_DEALS_DONE])
                if deal not in orders:
                    orders[deal] = deal_order(cfg, seed, deal)
                return int(next_card(st, cfg, orders[deal], len(orders[deal])))

            bots = {s: TableBot(game, s, mine, seed), 1 - s: make_opponent(1 - s, seed)}
            state = game.new_initial_state()
            while not state.is_terminal():
                st = state.state
                actor = state.current_player()
                if state.is_chance_node():
                    action = chance(st)
                else:
                    p = state.current_player()
                    if p == s and st[K.S_PHASE] == K.PH_DRAW and draw_cell(st, cfg) >= 0:
                        cell = draw_cell(st, cfg)
                        results = []
                        for option in (K.STAND, int(keep_rule_draw(st, cfg))):
                            branch = state.clone()
                            branch.apply_action(option)
                            rival = make_opponent(1 - s, seed + 1 + int(st[K.S_MOVES]))
                            rival.restart_at(branch)
                            deal = int(branch.state[K.S_DEALS_DONE])
                            while not branch.is_terminal() and int(branch.state[K.S_DEALS_DONE]) == deal:
                                actor = branch.current_player()
                                if branch.is_chance_node():
                                    move = chance(branch.state)
                                elif actor == s:
                                    move = bots[s].step(branch)
                                else:
                                    move = int(rival.step(branch))
                                if actor != 1 - s:
                                    rival.inform_action(branch, actor, move)
                                branch.apply_action(move)
                            _tail_values(branch.state, cfg, s, heuristic_seats, tail_keys, values)
                            results.append(values.mean())
                        diff = results[1] - results[0]
                        count[cell] += 1
                        total[cell] += diff
                        squares[cell] += diff * diff
                    action = int(bots[p].step(state))
                for seat, bot in bots.items():
                    if seat != actor:
                        bot.inform_action(state, actor, action)
                state.apply_action(action)
        done += 1
        if progress is not None:
            progress(done)
    stats = CellStats(count, total, squares)
    return _row_decisions(table, stats), stats


def _row_decisions(table: np.ndarray, stats: CellStats) -> np.ndarray:
    out = np.asarray(table, dtype=np.float64).copy().reshape(-1, NUM_CONTEXTS)
    rows = CellStats(*(a.reshape(-1, NUM_CONTEXTS).sum(axis=1) for a in (stats.count, stats.total, stats.squares)))
    mean, half = rows.mean(), rows.half_width()
    for row in range(out.shape[0]):
        if rows.count[row] >= 2 and abs(mean[row]) > half[row]:
            out[row] = 1.0 if mean[row] > 0 else 0.0
    return out.reshape(NUM_CELLS)

