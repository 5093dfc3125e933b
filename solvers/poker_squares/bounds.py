"""Clairvoyant optimum of a Poker Squares deal: the best arrangement of 25 known cards.

The clairvoyant player knows all 25 cards before placing any, so the mean of
its optimum over random deals bounds the optimal expected score of the
sequential game from above (and is the optimal expectation of the ``open``
variant).

Upper bound per deal: an integer program on *cores*. Every five-card line has
one canonical core: the cards that make its category (both cards of a pair,
the four of two pair, three of trips, four of quads, all five of a straight,
flush or full house, none for high card), worth that category's points. Each
of the 5 rows and 5 columns takes one core (``high card`` may repeat); the row
cores are disjoint, the column cores are disjoint, and no two cards lie
together in a row core and a column core, nor in two cores at all (two cards
share at most one line). The canonical cores of any arrangement satisfy all
of this, so the program's optimum is at least the arrangement's score: a valid
upper bound for every point system, negative points included. Solved by HiGHS
(``highspy``) with a time limit; if it stops early its proven dual bound is
used. A second bound comes from the set-partitioning relaxation
(``gamut.solvers.poker_squares.partition``); the smaller of the two is used (both
bound the same deal's optimum, so the minimum is valid deal by deal).

Lower bound per deal: simulated annealing over swaps of two cells
(``anneal``, rescoring only the two to four lines a swap touches), or the
set-partitioning program's arrangement when it finds a better one. When a
lower and an upper bound meet the deal is solved to proven optimality.
"""

from __future__ import annotations

from itertools import combinations

import numba
import numpy as np

from gamut.envs.hands import HAND_TABLE, best_strength, category_of
from gamut.envs.rng import below, next_random, rng_state
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares.partition import quiet_highs, swap_lines


def cores(cards) -> tuple[list[tuple[int, ...]], list[int]]:
    """Every canonical core within ``cards`` (card ids) and its category.

    Examples
    --------
    >>> from gamut.envs.cards import parse_card
    >>> cs, cats = cores([parse_card(s) for s in ("Ah", "Ad", "Kc", "Ks", "2h")])
    >>> sorted(zip(cats, map(len, cs)))
    [(1, 2), (1, 2), (2, 4)]
    """
    cards = sorted(int(c) for c in cards)
    by_rank: dict[int, list[int]] = {}
    by_suit: dict[int, list[int]] = {}
    for c in cards:
        by_rank.setdefault(c >> 2, []).append(c)
        by_suit.setdefault(c & 3, []).append(c)
    groups = {size: [g for r in sorted(by_rank) for g in combinations(by_rank[r], size)] for size in (2, 3, 4)}
    found: set[tuple[int, ...]] = set()
    found.update(groups[2], groups[3], groups[4])
    for a, b in combinations(groups[2], 2):
        if a[0] >> 2 != b[0] >> 2:
            found.add(tuple(sorted(a + b)))
    for t in groups[3]:
        for p in groups[2]:
            if t[0] >> 2 != p[0] >> 2:
                found.add(tuple(sorted(t + p)))
    for suited in by_suit.values():
        found.update(combinations(suited, 5))
    # Straights: one card of each of five consecutive ranks (rank index 12 is the ace, also low).
    for low in range(-1, 9):
        ranks = [(low + i) % 13 for i in range(5)]
        if all(r in by_rank for r in ranks):
            for pick in _product([by_rank[r] for r in ranks]):
                found.add(tuple(sorted(pick)))
    ordered = sorted(found)
    cats = [int(category_of(best_strength(np.array(c, dtype=np.int64), len(c), -1, HAND_TABLE))) for c in ordered]
    return ordered, cats


def _product(lists):
    out = [()]
    for items in lists:
        out = [prefix + (x,) for prefix in out for x in items]
    return out


def core_upper_bound(cards, points, time_limit: float = 20.0) -> tuple[float, bool]:
    """Upper bound on the best score of ``cards`` (25 ids) under ``points``; and whether HiGHS proved it.

    ``proved`` is False when the time limit stopped the solver: the returned
    figure is then HiGHS's dual bound, still a valid upper bound.
    """
    import highspy

    core_list, cats = cores(cards)
    m = len(core_list)
    pts = np.asarray(points, dtype=np.float64)
    card_index = {c: i for i, c in enumerate(sorted(int(c) for c in cards))}
    pair_rows: dict[tuple[int, int], int] = {}
    for core in core_list:
        for a, b in combinations(core, 2):
            pair_rows.setdefault((a, b), len(pair_rows))
    # Rows: 0 row-line count, 1 column-line count, 2..26 cards in row cores, 27..51 in column cores, pairs.
    num_rows = 2 + 2 * K.NUM_CELLS + len(pair_rows)
    starts, index, value, cost = [0], [], [], []
    for side in (0, 1):
        for core, cat in zip(core_list, cats):
            rows = [side] + [2 + side * K.NUM_CELLS + card_index[c] for c in core]
            rows += [2 + 2 * K.NUM_CELLS + pair_rows[p] for p in combinations(core, 2)]
            index.extend(rows)
            value.extend([1.0] * len(rows))
            starts.append(len(index))
            cost.append(pts[cat])
    for side in (0, 1):  # high-card lines of each side
        index.append(side)
        value.append(1.0)
        starts.append(len(index))
        cost.append(pts[0])
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = 2 * m + 2, num_rows
    lp.col_cost_ = np.array(cost)
    lp.col_lower_ = np.zeros(2 * m + 2)
    lp.col_upper_ = np.array([1.0] * (2 * m) + [5.0, 5.0])
    lp.row_lower_ = np.array([5.0, 5.0] + [-np.inf] * (num_rows - 2))
    lp.row_upper_ = np.array([5.0, 5.0] + [1.0] * (num_rows - 2))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.array(starts, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.array(value)
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.integrality_ = [highspy.HighsVarType.kInteger] * (2 * m + 2)
    bound, proved = _solve(lp, time_limit)
    if not np.isfinite(bound):
        # Stopped before the root relaxation was solved: the relaxation alone, without a limit, still bounds.
        lp.integrality_ = [highspy.HighsVarType.kContinuous] * (2 * m + 2)
        bound, _ = _solve(lp, np.inf)
        proved = False
    # Every score is an integer, so a bound may be rounded down (after a tolerance).
    return float(np.floor(bound + 1e-6)), proved


def _solve(lp, time_limit: float) -> tuple[float, bool]:
    """(bound, proved): the MIP's dual bound (the LP optimum for a continuous model)."""
    import highspy

    h = quiet_highs()
    if np.isfinite(time_limit):
        h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("threads", 1)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.passModel(lp)
    h.run()
    info = h.getInfo()
    optimal = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    if all(v == highspy.HighsVarType.kContinuous for v in lp.integrality_):
        return (info.objective_function_value if optimal else np.inf), False
    return info.mip_dual_bound, optimal


@numba.njit(cache=True)
def _grid_points(state, cfg, table):
    return K.grid_score(state, 0, cfg, table)


@numba.njit(cache=True)
def _anneal(cards, cfg, table, iterations, restarts, seed, temp_start, temp_end, best_grid):
    rng = rng_state(seed)
    state = np.full(K.STATE_SIZE, -1, np.int64)
    lines = np.empty(K.NUM_LINES, np.int64)
    touched = np.empty(4, np.int64)
    old = np.empty(4, np.int64)
    best = -(1 << 62)
    scale = max(1, np.abs(cfg[K.C_POINTS:]).max()) / 100.0
    ratio = (temp_end / temp_start) ** (1.0 / max(iterations - 1, 1))
    for _ in range(restarts):
        for i in range(K.NUM_CELLS):
            state[i] = cards[i]
        for i in range(K.NUM_CELLS - 1, 0, -1):
            j = below(rng, i + 1)
            state[i], state[j] = state[j], state[i]
        score = 0
        for line in range(K.NUM_LINES):
            lines[line] = K.line_points(state, 0, line, cfg, table)
            score += lines[line]
        if score > best:
            best = score
            best_grid[:] = state[:K.NUM_CELLS]
        temp = temp_start * scale
        for _ in range(iterations):
            temp *= ratio
            a, b = below(rng, K.NUM_CELLS), below(rng, K.NUM_CELLS)
            if a == b:
                continue
            n = swap_lines(a, b, touched)  # only these 2 to 4 lines change
            state[a], state[b] = state[b], state[a]
            delta = 0
            for i in range(n):
                old[i] = lines[touched[i]]
                lines[touched[i]] = K.line_points(state, 0, touched[i], cfg, table)
                delta += lines[touched[i]] - old[i]
            u = (next_random(rng) >> np.uint64(11)) * (1.0 / (1 << 42))
            if delta >= 0 or u < np.exp(delta / temp):
                score += delta
                if score > best:
                    best = score
                    best_grid[:] = state[:K.NUM_CELLS]
            else:
                state[a], state[b] = state[b], state[a]
                for i in range(n):
                    lines[touched[i]] = old[i]
    return best


def anneal(cards, cfg, iterations: int = 20000, restarts: int = 4, seed: int = 0, temp_start: float = 10.0,
           temp_end: float = 0.5) -> tuple[int, np.ndarray]:
    """Best arrangement found by simulated annealing: (score, grid int64 (25,) of card ids).

    Each restart shuffles the cards and swaps two cells per iteration; the temperature falls
    geometrically from ``temp_start`` to ``temp_end`` (in points of a system whose top category is worth
    100, scaled to the point system's largest absolute value).
    """
    cards = np.asarray(cards, dtype=np.int64)
    if cards.shape != (K.NUM_CELLS,):
        raise ValueError(f"anneal needs 25 cards, got shape {cards.shape}")
    grid = cards.copy()
    if iterations < 1 or restarts < 1 or not 0 < temp_end <= temp_start:
        raise ValueError("anneal needs iterations >= 1, restarts >= 1 and 0 < temp_end <= temp_start")
    best = _anneal(cards, cfg, HAND_TABLE, int(iterations), int(restarts), int(seed), float(temp_start),
                   float(temp_end), grid)
    return int(best), grid


def clairvoyant_bounds(deals: np.ndarray, cfg: np.ndarray, time_limit: float = 20.0,
                       iterations: int = 100_000, restarts: int = 4, partition_time: float = 5.0,
                       progress=None) -> dict:
    """Per deal: the best arrangement found and the smaller of two valid upper bounds on the best.

    Returns a dict of arrays of length n = ``len(deals)``: ``upper`` float64 (the bound: the smaller of
    ``core_upper`` (core ILP, ``time_limit`` s) and ``partition_upper`` (set-partitioning relaxation,
    ``gamut.solvers.poker_squares.partition``), never below ``best``), ``best`` int64 (best arrangement
    found, by annealing or the set-partitioning program), ``grids`` int64 (n, 25) (that arrangement,
    card ids), ``proven`` bool (``best == upper``). ``progress(done)``, if given, is called after each deal.
    """
    from gamut.solvers.poker_squares.partition import partition_bound, set_points

    points = cfg[K.C_POINTS:]
    n = len(deals)
    out = {"upper": np.empty(n), "best": np.empty(n, dtype=np.int64), "proven": np.zeros(n, dtype=bool),
           "core_upper": np.empty(n), "partition_upper": np.empty(n),
           "grids": np.empty((n, K.NUM_CELLS), dtype=np.int64)}
    for i, deal in enumerate(deals):
        best, grid = anneal(deal, cfg, iterations, restarts, seed=i)
        pos = {int(c): p for p, c in enumerate(deal)}
        weights = np.tile(set_points(deal, cfg), (2, 1))
        part = partition_bound(weights, [pos[int(c)] for c in grid], time_limit=partition_time, integral=True)
        if part["value"] > best:
            best, grid = int(part["value"]), np.asarray(deal)[part["grid"]]
        core, _ = core_upper_bound(deal, points, time_limit)
        out["core_upper"][i], out["partition_upper"][i] = core, part["upper"]
        out["upper"][i] = max(min(core, part["upper"]), best)
        out["best"][i], out["grids"][i] = best, grid
        out["proven"][i] = best >= out["upper"][i]
        if progress is not None:
            progress(i + 1)
    return out
