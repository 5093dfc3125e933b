"""Best arrangement of 25 known cards with arbitrary line values: a set-partitioning program.

A deal's 25 cards are named by their *positions* 0..24 (the order they are
turned over). A line value is any number attached to a five-card set, one for
rows and one for columns: ``weights`` float64 (2, NUM_SETS), ``weights[0, j]``
the value of set ``SETS[j]`` as a row, ``weights[1, j]`` as a column. The
value of an arrangement is the sum of its ten line values; rows and columns
may be permuted freely, so an arrangement is its 5 row sets and 5 column sets.

Model: binary ``x[side, j]`` for each of the NUM_SETS = C(25, 5) = 53,130 sets.

- each card lies in exactly one row set and exactly one column set
  (50 equalities);
- each pair of cards lies together in at most one chosen set, row or column
  (300 inequalities).

Every arrangement satisfies these. Conversely the row sets partition the 25
cards into five sets, and so do the column sets; a row set meets a column set
in at most one card (a pair in both would break its inequality), so its five
cards lie in five different column sets, i.e. it meets each column set in
exactly one card, and (row, column) -> that card is an arrangement. So the
integer program is exact for every weight vector, negative values included.

Solution: the linear relaxation by column generation (a few hundred sets in
the LP; all 53,130 per side priced in ``_price`` from the duals), which gives
a Lagrangian upper bound at every iteration; then, if the gap to the
incumbent is small, the integer program over the sets that reduced-cost
fixing cannot exclude (HiGHS, time-limited).

Set ids: ``SETS`` int64 (NUM_SETS, 5) lists the position sets in
lexicographic order, e.g. ``SETS[0] = [0, 1, 2, 3, 4]``,
``SETS[1] = [0, 1, 2, 3, 5]``, ``SETS[-1] = [20, 21, 22, 23, 24]``.
"""

from __future__ import annotations

import functools
import time
from itertools import combinations
from math import comb

import numba
import numpy as np

from gamut.envs.hands import HAND_TABLE
from gamut.envs.poker_squares import kernels as K
from gamut.envs.rng import below, next_random, rng_state

SETS = np.array(list(combinations(range(K.NUM_CELLS), K.GRID_SIZE)), dtype=np.int64)
NUM_SETS = len(SETS)
_PAIRS = list(combinations(range(K.NUM_CELLS), 2))
PAIR_INDEX = np.full((K.NUM_CELLS, K.NUM_CELLS), -1, dtype=np.int64)
for _i, (_a, _b) in enumerate(_PAIRS):
    PAIR_INDEX[_a, _b] = PAIR_INDEX[_b, _a] = _i
SET_PAIRS = np.array([[PAIR_INDEX[s[a], s[b]] for a, b in combinations(range(5), 2)] for s in SETS],
                     dtype=np.int64)
NUM_PAIRS = len(_PAIRS)
_SET_ID = {tuple(int(x) for x in s): j for j, s in enumerate(SETS)}
# COLEX_TO_SET[sum_i C(s_i, i + 1)] = id of the sorted set s (the colex rank is cheap to compute in a kernel).
_BINOM = np.array([[comb(n, k) for k in range(K.GRID_SIZE + 1)] for n in range(K.NUM_CELLS)], dtype=np.int64)
COLEX_TO_SET = np.empty(NUM_SETS, dtype=np.int64)
COLEX_TO_SET[sum(_BINOM[SETS[:, i], i + 1] for i in range(K.GRID_SIZE))] = np.arange(NUM_SETS)
# LP rows: side * 25 + position (card equalities), then 50 + pair index (pair inequalities).
_NUM_ROWS = 2 * K.NUM_CELLS + NUM_PAIRS


@numba.njit(cache=True)
def _set_points(cards, cfg, table, sets, out):
    state = np.full(K.STATE_SIZE, -1, np.int64)
    for j in range(sets.shape[0]):
        for i in range(K.GRID_SIZE):
            state[K.LINES[0, i]] = cards[sets[j, i]]
        out[j] = K.line_points(state, 0, 0, cfg, table)


def set_points(cards, cfg) -> np.ndarray:
    """Points of every five-card set of a deal: float64 (NUM_SETS,), ``out[j]`` for ``cards[SETS[j]]``."""
    cards = check_deal(cards)
    out = np.empty(NUM_SETS, dtype=np.float64)
    _set_points(cards, np.asarray(cfg, dtype=np.int64), HAND_TABLE, SETS, out)
    return out


def check_deal(cards) -> np.ndarray:
    """``cards`` as int64 (25,) after checking they are 25 distinct card ids (ValueError otherwise)."""
    cards = np.asarray(cards, dtype=np.int64)
    if cards.shape != (K.NUM_CELLS,) or len(set(cards.tolist())) != K.NUM_CELLS or cards.min() < 0 \
            or cards.max() > 51:
        raise ValueError(f"a deal is 25 distinct card ids 0..51, got {cards.tolist()}")
    return cards


@numba.njit(cache=True)
def _price(weights, card_dual, pair_dual, sets, set_pairs, out):
    """Reduced profit of every set on both sides: weight minus the duals of its rows."""
    for side in range(2):
        for j in range(sets.shape[0]):
            r = weights[side, j]
            for i in range(K.GRID_SIZE):
                r -= card_dual[side, sets[j, i]]
            for p in range(10):
                r -= pair_dual[set_pairs[j, p]]
            out[side, j] = r


def reduced_profits(weights: np.ndarray, card_dual: np.ndarray, pair_dual: np.ndarray) -> np.ndarray:
    """``weights[s, j] - sum(card_dual[s, SETS[j]]) - sum(pair_dual[SET_PAIRS[j]])``: float64 (2, NUM_SETS)."""
    out = np.empty((2, NUM_SETS), dtype=np.float64)
    _price(np.ascontiguousarray(weights, dtype=np.float64), np.ascontiguousarray(card_dual, dtype=np.float64),
           np.ascontiguousarray(pair_dual, dtype=np.float64), SETS, SET_PAIRS, out)
    return out


def grid_sets(grid_positions) -> tuple[list[int], list[int]]:
    """Set ids of the 5 rows and 5 columns of a grid of positions (int (25,), cell -> deal position)."""
    g = np.asarray(grid_positions, dtype=np.int64).reshape(K.GRID_SIZE, K.GRID_SIZE)
    return ([_SET_ID[tuple(sorted(int(x) for x in g[r]))] for r in range(K.GRID_SIZE)],
            [_SET_ID[tuple(sorted(int(x) for x in g[:, c]))] for c in range(K.GRID_SIZE)])


def arrangement_value(weights: np.ndarray, grid_positions) -> float:
    """Sum of the ten line values of a grid of positions under ``weights`` (2, NUM_SETS)."""
    rows, cols = grid_sets(grid_positions)
    return float(weights[0, rows].sum() + weights[1, cols].sum())


def grid_from_sets(rows, cols) -> np.ndarray:
    """The grid of positions (int64 (25,)) whose row and column sets are ``rows`` and ``cols``."""
    grid = np.full(K.NUM_CELLS, -1, dtype=np.int64)
    for r, rj in enumerate(rows):
        for c, cj in enumerate(cols):
            common = set(SETS[rj].tolist()) & set(SETS[cj].tolist())
            if len(common) != 1:
                raise ValueError("row and column sets do not form an arrangement")
            grid[K.GRID_SIZE * r + c] = common.pop()
    return grid


@numba.njit(cache=True)
def _line_set(grid, line, binom, colex_to_set, buf):
    """Set id of the positions in ``line`` of ``grid``: sort five numbers, then the colex rank."""
    for i in range(K.GRID_SIZE):
        v = grid[K.LINES[line, i]]
        j = i
        while j > 0 and buf[j - 1] > v:
            buf[j] = buf[j - 1]
            j -= 1
        buf[j] = v
    rank = 0
    for i in range(K.GRID_SIZE):
        rank += binom[buf[i], i + 1]
    return colex_to_set[rank]


def check_weights(weights) -> np.ndarray:
    """``weights`` as contiguous float64 (2, NUM_SETS): row values, then column values, of every set."""
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if weights.shape != (2, NUM_SETS):
        raise ValueError(f"weights must be float64 (2, {NUM_SETS}), got {weights.shape}")
    return weights


def check_positions(grid_positions, name: str) -> np.ndarray:
    """A copy of ``grid_positions`` (cell -> deal position) as int64 (25,), each position 0..24 once."""
    grid = np.asarray(grid_positions, dtype=np.int64).copy()
    if grid.shape != (K.NUM_CELLS,) or sorted(grid.tolist()) != list(range(K.NUM_CELLS)):
        raise ValueError(f"{name} must hold each position 0..24 once")
    return grid


@numba.njit(cache=True)
def swap_lines(a, b, touched):
    """Fill ``touched`` (int64, >= 4) with the distinct lines (0..9) of cells ``a`` and ``b``; return how many.

    Swapping the cards of two cells changes only these 2 to 4 rows and columns,
    so local search rescoring a swap looks at them alone.
    """
    n = 0
    for line in (K.CELL_LINES[a, 0], K.CELL_LINES[a, 1], K.CELL_LINES[b, 0], K.CELL_LINES[b, 1]):
        dup = False
        for i in range(n):
            dup = dup or touched[i] == line
        if not dup:
            touched[n] = line
            n += 1
    return n


@numba.njit(cache=True)
def _anneal_sets(weights, grid, iterations, restarts, seed, temp_start, temp_end, binom, colex_to_set, best_grid):
    rng = rng_state(seed)
    buf = np.empty(K.GRID_SIZE, np.int64)
    vals = np.empty(K.NUM_LINES, np.float64)
    touched = np.empty(4, np.int64)
    old = np.empty(4, np.float64)
    ratio = (temp_end / temp_start) ** (1.0 / max(iterations - 1, 1))
    start = grid.copy()
    best = -np.inf
    for restart in range(restarts):
        grid[:] = start
        if restart > 0:  # the first restart refines the given arrangement, the others start at random
            for i in range(K.NUM_CELLS - 1, 0, -1):
                j = below(rng, i + 1)
                grid[i], grid[j] = grid[j], grid[i]
        value = 0.0
        for line in range(K.NUM_LINES):
            vals[line] = weights[line // K.GRID_SIZE, _line_set(grid, line, binom, colex_to_set, buf)]
            value += vals[line]
        if value > best:
            best = value
            best_grid[:] = grid
        temp = temp_start
        for _ in range(iterations):
            temp *= ratio
            a, b = below(rng, K.NUM_CELLS), below(rng, K.NUM_CELLS)
            if a == b:
                continue
            n = swap_lines(a, b, touched)
            grid[a], grid[b] = grid[b], grid[a]
            delta = 0.0
            for i in range(n):
                line = touched[i]
                old[i] = vals[line]
                vals[line] = weights[line // K.GRID_SIZE, _line_set(grid, line, binom, colex_to_set, buf)]
                delta += vals[line] - old[i]
            u = (next_random(rng) >> np.uint64(11)) * (1.0 / (1 << 42))
            if delta >= 0 or u < np.exp(delta / temp):
                value += delta
                if value > best + 1e-9:
                    best = value
                    best_grid[:] = grid
            else:
                grid[a], grid[b] = grid[b], grid[a]
                for i in range(n):
                    vals[touched[i]] = old[i]
    return best


def anneal_sets(weights: np.ndarray, grid_positions, iterations: int = 100_000, restarts: int = 2, seed: int = 0,
                temp_start: float = 5.0, temp_end: float = 1.0) -> tuple[float, np.ndarray]:
    """Simulated annealing for the best arrangement under any line values ``weights`` (2, NUM_SETS).

    Swaps two cells per step (rescoring the 2-4 lines touched); the first restart starts from
    ``grid_positions`` (int (25,), cell -> position), the others from random grids; the temperature falls
    geometrically from ``temp_start`` to ``temp_end`` (in the units of ``weights``).
    Returns (value, grid int64 (25,)), the best arrangement seen.
    """
    weights = check_weights(weights)
    grid = check_positions(grid_positions, "grid_positions")
    if iterations < 1 or restarts < 1 or not 0 < temp_end <= temp_start:
        raise ValueError("anneal_sets needs iterations >= 1, restarts >= 1 and 0 < temp_end <= temp_start")
    best_grid = grid.copy()
    best = _anneal_sets(weights, grid, int(iterations), int(restarts), int(seed), float(temp_start),
                        float(temp_end), _BINOM, COLEX_TO_SET, best_grid)
    return float(best), best_grid


def _column_entries(side: int, ids: np.ndarray):
    """CSC pieces of the LP columns of sets ``ids`` on ``side``: starts, row indices, values."""
    rows = np.concatenate([side * K.NUM_CELLS + SETS[ids], 2 * K.NUM_CELLS + SET_PAIRS[ids]], axis=1)
    starts = np.arange(len(ids), dtype=np.int32) * 15
    return starts, rows.reshape(-1).astype(np.int32), np.ones(rows.size)


@functools.cache
def _quiet_highs_class():
    import highspy

    class QuietHighs(highspy.Highs):
        # highspy's constructor registers its callbacks (``enableCallbacks``), and that first call into
        # HiGHS prints the "Running HiGHS" banner unless output is already off: turn it off just before.
        def enableCallbacks(self):
            self.setOptionValue("output_flag", False)
            super().enableCallbacks()

    return QuietHighs


def quiet_highs():
    """A new ``highspy.Highs`` with ``output_flag`` off from its construction: it writes nothing to the console.

    Setting ``output_flag`` on a ``highspy.Highs()`` silences the solve logs
    but comes too late for the version banner, which the constructor prints
    and which would break into the progress bars of ``gamut reproduce``.
    """
    return _quiet_highs_class()()


def _new_model(integer: bool):
    import highspy

    h = quiet_highs()
    h.setOptionValue("threads", 1)
    if integer:
        h.setOptionValue("mip_rel_gap", 0.0)
    lower = np.array([1.0] * (2 * K.NUM_CELLS) + [-np.inf] * NUM_PAIRS)
    h.addRows(_NUM_ROWS, lower, np.ones(_NUM_ROWS), 0, np.zeros(0, np.int32), np.zeros(0, np.int32),
              np.zeros(0))
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    return h


def _add_columns(h, weights, side, ids, integer: bool):
    import highspy

    if len(ids) == 0:
        return
    starts, index, value = _column_entries(side, ids)
    first = h.getNumCol()
    h.addCols(len(ids), weights[side, ids], np.zeros(len(ids)), np.full(len(ids), np.inf), len(index),
              starts, index, value)
    if integer:
        cols = np.arange(first, first + len(ids), dtype=np.int32)
        h.changeColsIntegrality(len(cols), cols, np.array([highspy.HighsVarType.kInteger] * len(cols)))


def _duals(h) -> tuple[np.ndarray, np.ndarray]:
    """Duals of the maximisation as (card (2, 25), pair (300,) clipped >= 0 so every bound stays valid)."""
    y = np.asarray(h.getSolution().row_dual, dtype=np.float64)
    card = y[: 2 * K.NUM_CELLS].reshape(2, K.NUM_CELLS)
    pair = np.maximum(y[2 * K.NUM_CELLS:], 0.0)
    return card, pair


def partition_bound(weights: np.ndarray, incumbent_grid, time_limit: float = 5.0, batch: int = 200,
                    mip_columns: int = 4000, integral: bool = False) -> dict:
    """Upper bound on the best arrangement value under ``weights``; and the best arrangement found.

    Parameters
    ----------
    weights : float64 (2, NUM_SETS)
        Row and column values of every position set.
    incumbent_grid : int (25,)
        An arrangement (cell -> deal position): its sets start the LP, so it is always feasible.
    time_limit : float
        Seconds for the whole solve; the bound is valid whenever it stops.
    batch : int
        Most sets added per side and iteration (those of largest positive reduced profit).
    mip_columns : int
        The integer program runs on the sets left by reduced-cost fixing only if there are at most this many.
    integral : bool
        All values are integers, so the bound may be rounded down and an arrangement must beat the
        incumbent by 1 to matter.

    Returns
    -------
    dict
        ``upper`` (float, valid bound), ``lp`` (the Lagrangian bound of the relaxation), ``value`` and
        ``grid`` (best arrangement found: its value and int64 (25,) positions), ``proved`` (bool:
        ``upper == value``), ``lp_iterations``, ``mip_columns`` (sets left for the integer program, -1 if
        it did not run), ``lp_solution`` (the last optimal LP's positive variables as arrays of side,
        set id and value).
    """
    started = time.perf_counter()
    weights = check_weights(weights)
    grid = check_positions(incumbent_grid, "incumbent_grid")
    value = arrangement_value(weights, grid)
    rows, cols = grid_sets(grid)
    h = _new_model(integer=False)
    in_lp = np.zeros((2, NUM_SETS), dtype=bool)
    # The (side, set id) of each LP column in order, to read the LP's solution back as sets.
    lp_sides, lp_ids = [], []
    for side, ids in ((0, rows), (1, cols)):
        ids = np.unique(np.concatenate([ids, np.argsort(-weights[side])[:batch]]))
        _add_columns(h, weights, side, ids, integer=False)
        in_lp[side, ids] = True
        lp_sides.append(np.full(len(ids), side))
        lp_ids.append(ids)
    best = np.inf
    iterations = 0
    while True:
        h.setOptionValue("time_limit", max(time_limit - (time.perf_counter() - started), 0.01))
        h.run()
        iterations += 1
        import highspy

        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            break
        card, pair = _duals(h)
        x = np.asarray(h.getSolution().col_value, dtype=np.float64)
        r = reduced_profits(weights, card, pair)
        dual_value = card.sum() + pair.sum()
        best = min(best, dual_value + K.GRID_SIZE * (max(r[0].max(), 0.0) + max(r[1].max(), 0.0)))
        r_new = np.where(in_lp, -np.inf, r)
        if r_new.max() <= 1e-7 or time.perf_counter() - started > time_limit:
            break
        for side in range(2):
            k = min(batch, int((r_new[side] > 1e-7).sum()))
            if k:
                ids = np.argpartition(-r_new[side], k - 1)[:k]
                _add_columns(h, weights, side, ids, integer=False)
                in_lp[side, ids] = True
                lp_sides.append(np.full(k, side))
                lp_ids.append(ids)
    lp = best
    if not np.isfinite(lp):
        raise RuntimeError("the LP relaxation stopped before its first optimum; raise time_limit")
    slack = 1.0 - 1e-6 if integral else -1e-9
    upper = np.floor(lp + 1e-6) if integral else lp
    converged = r.max() <= 1e-7
    kept = -1
    if converged and upper > value + slack:
        # Reduced-cost fixing: an arrangement using set j is worth at most dual_value + r[j].
        keep = dual_value + r >= value + slack
        kept = int(keep.sum())
        remaining = time_limit - (time.perf_counter() - started)
        if kept <= mip_columns and remaining > 0.05:
            upper, grid, value = _restricted_mip(weights, keep, upper, grid, value, remaining, integral)
    upper = max(upper, value)
    support = np.flatnonzero(x > 1e-9)
    sides, ids = np.concatenate(lp_sides)[: len(x)], np.concatenate(lp_ids)[: len(x)]
    return {"upper": float(upper), "lp": float(lp), "value": float(value), "grid": grid,
            "proved": bool(upper <= value + (1e-6 if not integral else 0.5)), "lp_iterations": iterations,
            "mip_columns": kept, "lp_solution": (sides[support], ids[support], x[support])}


def _restricted_mip(weights, keep, upper, grid, value, time_limit, integral):
    """Integer program over the kept sets: (upper, grid, value) improved where it proves or finds more."""
    import highspy

    h = _new_model(integer=True)
    ids = [np.flatnonzero(keep[0]), np.flatnonzero(keep[1])]
    for side in range(2):
        _add_columns(h, weights, side, ids[side], integer=True)
    h.setOptionValue("time_limit", float(time_limit))
    h.run()
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        return value, grid, value
    info = h.getInfo()
    if info.primal_solution_status == 2:  # a feasible integer solution exists
        x = np.asarray(h.getSolution().col_value)
        chosen = np.flatnonzero(x > 0.5)
        n0 = len(ids[0])
        rows = [int(ids[0][j]) for j in chosen if j < n0]
        cols = [int(ids[1][j - n0]) for j in chosen if j >= n0]
        found = arrangement_value(weights, grid_from_sets(rows, cols))
        if found > value:
            grid, value = grid_from_sets(rows, cols), found
    bound = info.mip_dual_bound if status != highspy.HighsModelStatus.kOptimal else info.objective_function_value
    if np.isfinite(bound):
        upper = min(upper, np.floor(bound + 1e-6) if integral else bound)
    return max(upper, value), grid, value
