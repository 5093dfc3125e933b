"""A tighter bound on the best arrangement: Dantzig-Wolfe decomposition into a row side and a column side.

The set-partitioning model of ``partition`` has, for each side (rows, then
columns), the constraints "each position lies in exactly one chosen set", and
between the sides "no pair of positions lies together in a chosen row and a
chosen column". Its linear relaxation lets each side take fractions of
overlapping sets, which is where most of its gap lies. Here each side's
variables are whole *partitions* of the 25 positions into five sets, so each
side is integral and only the coupling is relaxed:

    maximise   sum over sides s and partitions P of  value_s(P) * lam[s, P]
    subject to sum over P of lam[s, P] = 1                      (each side)
               sum over s, P with pair p inside a set of P of lam[s, P] <= 1   (each pair p)
               lam >= 0

Its optimum is at most the set-partitioning LP's and at least the best
arrangement (every arrangement is one row partition and one column partition
sharing no pair). It is solved by column generation: the pricing problem of a
side is the best partition of the 25 positions under set values ``weights[s] -
sum of the pair duals of the set``, solved exactly by ``best_partition``. For
any pair duals ``pi >= 0`` the Lagrangian bound

    sum(pi) + best partition value of the row side + that of the column side

is an upper bound on the best arrangement (each pair constraint relaxed with a
non-negative multiplier, and each side maximised on its own), so the bound is
valid at every iteration, whenever the solve stops.

Exact best partition (``best_partition``): the linear relaxation of the side
problem by column generation (one constraint per position), whose duals ``u``
give each set a reduced value ``r = value - sum(u of its positions) <= 0``. A
partition's value is ``sum(u) + sum of its sets' r``, so a partition within
``G`` of the LP value uses only sets with ``r >= -G``: a depth-first search
over those (positions relabelled so that those in the fewest of these sets
come first; then the set holding the lowest uncovered position first, sets in
decreasing ``r``) finds the best one, and ``G`` doubles until a partition is
found, starting from the gap the side's previous solve needed. The side LP's
gap is small (a few points), so the search looks at a few thousand sets of the
53,130. A caller that needs the bound only above a ``floor`` (branch and price,
at a node no better than the best arrangement known) caps ``G`` where no
partition could lift the bound above the floor: where a side's LP lies far
above every partition, the search then ends instead of covering most sets.

Worked example of a master column: the row partition of the identity grid
(sets ``{0..4}, {5..9}, ..., {20..24}``) enters with cost ``sum(weights[0,
set ids])``, a 1 in the row side's convexity row, and a 1 in the row of each of
the 50 pairs inside its five sets (``{0, 1}``, ..., ``{23, 24}``).
"""

from __future__ import annotations

import time

import numba
import numpy as np

from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares.partition import NUM_PAIRS, NUM_SETS, SET_PAIRS, SETS, arrangement_value, \
    check_positions, check_weights, grid_from_sets, grid_sets, quiet_highs

SET_MASKS = (np.int64(1) << SETS).sum(axis=1).astype(np.int64)  # bit p set for each position p of the set
_LP_BATCH = 500
# Sets one side search may try (about a second of it). Early in a branch-and-price child's column generation
# the duals can leave the side LP thousands of points above every partition, where an exhaustive search
# prunes nothing; the searches of converging column generation stay far below this.
SEARCH_BUDGET = 100_000_000
# HiGHS options of each simplex method a SideLP may resume with (simplex_strategy 4: primal; edge weight
# strategy 0: Dantzig pricing, a little faster than devex here).
SIMPLEX_METHODS = {"primal": {"simplex_strategy": 4, "simplex_primal_edge_weight_strategy": 0}, "dual": {}}


class SideLP:
    """Linear relaxation of "the best partition of ``n`` positions into sets of 5", kept warm between solves.

    Parameters
    ----------
    sets : int64 (m, 5)
        Candidate sets (position ids 0..n-1, sorted within each row); every 5-subset for an exact bound.
    n : int
        Number of positions, a multiple of 5.
    simplex : {"primal", "dual"}
        The simplex method HiGHS resumes with: ``"primal"`` (primal simplex,
        Dantzig pricing) or ``"dual"`` (HiGHS's default, the baseline of
        ``gamut bench poker_squares_bnp``).

    Only the objective changes between ``solve`` calls (and columns are only
    added), so the last basis stays primal feasible. The primal simplex
    resumes from it directly, where the dual simplex must first win back dual
    feasibility; with it branch and price takes about 0.6 of the time
    (``gamut bench poker_squares_bnp``). One artificial column per position
    (cost ``-big``, far below any partition) keeps every restricted LP
    feasible; an optimum that still uses one means no partition exists.
    """

    def __init__(self, sets: np.ndarray, n: int, simplex: str = "primal"):
        import highspy

        if simplex not in SIMPLEX_METHODS:
            raise ValueError(f"simplex is one of {tuple(SIMPLEX_METHODS)}, not {simplex!r}")
        self.sets = np.ascontiguousarray(sets, dtype=np.int64)
        self.n = int(n)
        h = quiet_highs()
        h.setOptionValue("threads", 1)
        for option, value in SIMPLEX_METHODS[simplex].items():
            h.setOptionValue(option, value)
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        h.addRows(self.n, np.ones(self.n), np.ones(self.n), 0, np.zeros(0, np.int32), np.zeros(0, np.int32),
                  np.zeros(0))
        h.addCols(self.n, np.zeros(self.n), np.zeros(self.n), np.full(self.n, np.inf), self.n,
                  np.arange(self.n, dtype=np.int32), np.arange(self.n, dtype=np.int32), np.ones(self.n))
        self.h = h
        self.ids = np.zeros(0, dtype=np.int64)  # the set of LP column n + i is sets[ids[i]]
        self.in_lp = np.zeros(len(self.sets), dtype=bool)
        self.last_gap = 0.0  # LP value minus the best partition's, at the last solve

    def _add(self, ids: np.ndarray, values: np.ndarray) -> None:
        k = len(ids)
        self.h.addCols(k, values[ids], np.zeros(k), np.full(k, np.inf), 5 * k,
                       (np.arange(k) * 5).astype(np.int32), self.sets[ids].reshape(-1).astype(np.int32),
                       np.ones(5 * k))
        self.ids = np.concatenate([self.ids, ids])
        self.in_lp[ids] = True

    def solve(self, values: np.ndarray) -> tuple[float, np.ndarray]:
        """LP value and reduced values ``values - u[sets].sum(1)`` (float64 (m,), all <= about 1e-9).

        ValueError if no partition exists among the sets (the LP needs an artificial column).
        """
        import highspy

        big = 10.0 * self.n * (1.0 + float(np.abs(values).max()))
        self.h.changeColsCost(self.n, np.arange(self.n, dtype=np.int32), np.full(self.n, -big))
        if len(self.ids):
            self.h.changeColsCost(len(self.ids), np.arange(self.n, self.n + len(self.ids), dtype=np.int32),
                                  values[self.ids])
        else:
            self._add(np.argsort(-values)[:_LP_BATCH], values)
        while True:
            self.h.run()
            if self.h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                raise RuntimeError(f"side LP ended with status {self.h.getModelStatus()}")
            u = np.asarray(self.h.getSolution().row_dual, dtype=np.float64)
            reduced = values - gather_sums(self.sets, u)
            outside = np.where(self.in_lp, -np.inf, reduced)
            k = min(_LP_BATCH, int((outside > 1e-9).sum()))
            if k == 0:
                if np.asarray(self.h.getSolution().col_value)[: self.n].max() > 1e-9:
                    raise ValueError("no partition of the positions exists among the given sets")
                return float(u.sum()), reduced
            self._add(np.argpartition(-outside, k - 1)[:k], values)


@numba.njit(cache=True)
def gather_sums(index, x):
    """float64 (m,): ``x[index].sum(axis=1)`` for int64 ``index`` (m, k), without the (m, k) temporary.

    Example: ``gather_sums(np.array([[0, 2], [1, 2]]), np.array([1.0, 10.0, 100.0]))`` is ``[101.0, 110.0]``.
    """
    out = np.empty(index.shape[0])
    for j in range(index.shape[0]):
        total = 0.0
        for i in range(index.shape[1]):
            total += x[index[j, i]]
        out[j] = total
    return out


@numba.njit(cache=True)
def _search(order, starts, reduced, masks, n, gap, slack, best_sets, budget):
    """Best sum of ``reduced`` over partitions of positions 0..n-1 into sets of ``order`` (-1e300 if none >= -gap).

    ``order`` lists candidate set ids grouped by their lowest position ``e`` (``starts[e]:starts[e + 1]``),
    each group in decreasing ``reduced``; ``slack`` bounds any set's positive reduced value, so a branch is
    cut only when even ``slack`` per set still left could not bring it back to ``-gap``. The search stops
    after ``budget`` sets tried. Returns ``(found, tried)``: the search was exhaustive when ``tried < budget``;
    otherwise ``found`` is the best partition seen (possibly none), not necessarily the best there is.
    """
    groups = n // 5
    tried = 0
    chosen = np.empty(groups, np.int64)
    ptr = np.empty(groups, np.int64)
    acc = np.zeros(groups + 1)
    covered = 0
    found = -1e300
    depth = 0
    ptr[0] = starts[0]
    while depth >= 0:
        low = 0
        while (covered >> low) & 1:
            low += 1
        advanced = False
        while ptr[depth] < starts[low + 1]:
            if tried >= budget:
                return found, tried
            tried += 1
            j = order[ptr[depth]]
            ptr[depth] += 1
            if acc[depth] + reduced[j] + slack * (groups - 1 - depth) < -gap:
                ptr[depth] = starts[low + 1]
                break
            if masks[j] & covered:
                continue
            chosen[depth] = j
            acc[depth + 1] = acc[depth] + reduced[j]
            if depth == groups - 1:
                if acc[groups] > found:
                    found = acc[groups]
                    best_sets[:] = chosen
                    gap = -found  # from now on only better partitions matter
                continue
            covered |= masks[j]
            depth += 1
            nxt = 0
            while (covered >> nxt) & 1:
                nxt += 1
            ptr[depth] = starts[nxt]
            advanced = True
            break
        if not advanced:
            depth -= 1
            if depth >= 0:
                covered &= ~masks[chosen[depth]]
    return found, tried


@numba.njit(cache=True)
def search_candidates(reduced, sets, threshold, n):
    """The sets ``_search`` looks at, with their positions relabelled and grouped for it.

    Parameters
    ----------
    reduced : float64 (m,)
        Reduced value of each set.
    sets : int64 (m, 5)
        The sets' positions, 0..n-1.
    threshold : float
        Sets with ``reduced >= threshold`` are kept.
    n : int
        Number of positions (at most 63).

    Returns
    -------
    keep : int64 (k,)
        Ids of the kept sets, ascending.
    order : int64 (k,)
        Indices into ``keep``, grouped by each set's lowest relabelled position and, within a group, in
        decreasing ``reduced`` (ties in ``keep`` order).
    starts : int64 (n + 1,)
        Group ``e`` (lowest relabelled position ``e``) is ``order[starts[e]:starts[e + 1]]``.
    masks : int64 (k,)
        Bit ``rank[p]`` set for each position ``p`` of each kept set.

    The relabelling ``rank`` puts the positions in the fewest kept sets first (ties by position): the search
    branches on the lowest uncovered position, so it then branches where there is least choice.
    Example: of the sets ``{0..4}`` (reduced 0), ``{0, 5..8}`` (-1) and ``{1..5}`` (-9) of ``n = 10``
    positions with threshold -2, the first two are kept (``keep = [0, 1]``). Position 9 lies in no kept
    set, 1..8 in one and 0 in two, so ``rank`` maps 9 to 0, 1..8 to themselves and 0 to 9: the sets become
    ``{1..4, 9}`` (mask 542, lowest 1) and ``{5..9}`` (mask 992, lowest 5), so ``order = [0, 1]`` and
    ``starts = [0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2]``.
    """
    k = 0
    for j in range(reduced.shape[0]):
        if reduced[j] >= threshold:
            k += 1
    keep = np.empty(k, np.int64)
    counts = np.zeros(n, np.int64)
    i = 0
    for j in range(reduced.shape[0]):
        if reduced[j] >= threshold:
            keep[i] = j
            i += 1
            for c in range(sets.shape[1]):
                counts[sets[j, c]] += 1
    rank = np.empty(n, np.int64)
    rank[np.argsort(counts, kind="mergesort")] = np.arange(n)
    masks = np.zeros(k, np.int64)
    lows = np.empty(k, np.int64)
    for i in range(k):
        low = n
        for c in range(sets.shape[1]):
            r = rank[sets[keep[i], c]]
            masks[i] |= np.int64(1) << r
            low = min(low, r)
        lows[i] = low
    # Stable sort by decreasing reduced value, then a stable counting sort by lowest position.
    by_value = np.argsort(-reduced[keep], kind="mergesort")
    starts = np.zeros(n + 1, np.int64)
    for i in range(k):
        starts[lows[i] + 1] += 1
    for e in range(n):
        starts[e + 1] += starts[e]
    fill = starts[:n].copy()
    order = np.empty(k, np.int64)
    for i in by_value:
        order[fill[lows[i]]] = i
        fill[lows[i]] += 1
    return keep, order, starts, masks


def best_partition(values: np.ndarray, lp: SideLP | None = None, sets: np.ndarray = SETS,
                   n: int = K.NUM_CELLS, floor: float = -np.inf,
                   budget: int | None = None) -> tuple[float, np.ndarray | None]:
    """The best partition of positions 0..n-1 into five-sets, exactly (or a proof that it is below ``floor``).

    Parameters
    ----------
    values : float64 (m,)
        Value of each candidate set ``sets[j]``.
    lp : SideLP, optional
        A warm side LP over the same ``sets`` (repeated calls with changing values reuse its basis).
    sets : int64 (m, 5)
        Candidate sets, positions sorted within each row (default: all 53,130 five-subsets of 25).
    n : int
        Number of positions (a multiple of 5, at most 60).
    floor : float
        The caller needs the best partition only if its value is at least ``floor``: the search never looks
        further below the LP value than ``floor``, which bounds its work where the LP lies far above every
        partition (a side whose every partition uses a forbidden set, in branch and price).
    budget : int, optional
        Sets the search may try in all (default ``SEARCH_BUDGET``). Where the LP lies far above every
        partition and ``floor`` is far below it, nothing prunes and an exhaustive search could run for hours;
        a count, not a clock, keeps the answer the same on any machine.

    Returns
    -------
    (value, ids)
        The best total value (float) and the ids (int64 (n // 5,)) of its sets; or, when no partition is
        worth ``floor`` or more, ``(bound, None)`` with ``bound`` (at most ``floor``) above every partition's
        value. Out of budget, ``value`` is only an upper bound on the best partition's value (above
        ``floor``) and ``ids`` the best partition seen, or None: the answer is exact exactly when ``value``
        is the value of ``ids``. ValueError if no partition exists among ``sets`` and ``floor`` is ``-inf``.

    Example: with ``n = 10`` and ``sets`` all 252 five-subsets of 0..9, valued 1 for ``{0..4}`` and
    ``{5..9}`` and 0 otherwise, the answer is 2 with those two sets; with ``floor=3`` it is ``(2.0, None)``
    (the LP value: no partition reaches 3, and none is above the LP's 2).
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    sets = np.ascontiguousarray(sets, dtype=np.int64)
    if lp is None:
        lp = SideLP(sets, n)
    if values.shape != (len(sets),):
        raise ValueError(f"values must be float64 ({len(sets)},), got {values.shape}")
    lp_value, reduced = lp.solve(values)
    return partition_below_lp(values, lp_value, reduced, lp, floor, budget)


def partition_below_lp(values: np.ndarray, lp_value: float, reduced: np.ndarray, lp: SideLP,
                       floor: float = -np.inf, budget: int | None = None) -> tuple[float, np.ndarray | None]:
    """``best_partition`` once ``lp`` is solved: ``(lp_value, reduced)`` is what ``lp.solve(values)`` returned."""
    budget = SEARCH_BUDGET if budget is None else int(budget)
    if lp_value <= floor:
        return lp_value, None  # the LP value bounds every partition
    n = lp.n
    sets = lp.sets
    slack = max(float(reduced.max()), 0.0)
    # Start from the gap the last solve of this side needed: between column-generation steps it changes little.
    # A partition worth floor or more lies within lp_value - floor of the LP, so the gap never needs to pass it.
    limit = lp_value - floor
    gap = min(max(0.5, 1.25 * lp.last_gap), limit)
    bound = lp_value  # above every partition: the LP's value, then what each finished search proved
    chosen = np.full(n // 5, -1, dtype=np.int64)
    while True:
        keep, order, starts, masks = search_candidates(reduced, sets, -gap - slack, n)
        local = np.full(n // 5, -1, dtype=np.int64)
        found, tried = _search(order, starts, reduced[keep], masks, n, gap, slack, local, budget)
        if tried >= budget:
            # Out of budget: the bound stands on the searches that finished; the best partition seen still prices.
            return float(bound), (keep[local] if found > -1e299 else None)
        budget -= tried
        if found > -1e299:
            chosen[:] = keep[local]
            lp.last_gap = -found
            return float(values[chosen].sum()), chosen
        if gap >= limit:
            # Searched every partition within lp_value - floor of the LP: none is worth floor.
            return float(floor), None
        if len(keep) == len(sets):
            raise ValueError("no partition of the positions exists among the given sets")
        bound = lp_value - gap
        gap = min(2.0 * gap, limit)


def _pair_rows(set_ids: np.ndarray) -> np.ndarray:
    return np.unique(SET_PAIRS[set_ids].reshape(-1))


def dw_bound(weights: np.ndarray, incumbent_grid, max_iterations: int = 200, time_limit: float = 60.0,
             tolerance: float = 1e-6, pool=(), sides: tuple[SideLP, SideLP] | None = None,
             floor: float = -np.inf) -> dict:
    """Dantzig-Wolfe (Lagrangian) upper bound on the best arrangement value under ``weights``.

    Parameters
    ----------
    weights : float64 (2, NUM_SETS)
        Row and column values of every position set (as in ``partition.partition_bound``).
    incumbent_grid : int (25,)
        An arrangement (cell -> deal position): its row and column partitions start the master problem.
    max_iterations, time_limit : int, float
        Column generation stops at whichever comes first (or when the bound meets the master's value);
        the bound is valid whenever it stops. The iteration count makes the result independent of the
        machine's speed when it binds first.
    tolerance : float
        Relative gap between bound and master value that counts as converged.
    pool : iterable of (int, int64 (5,))
        Further partitions (side, set ids) to start the master with, such as the ``columns`` of an earlier
        solve under nearby weights; a good pool saves most column-generation steps. Any partition is valid.
    sides : (SideLP, SideLP), optional
        Warm side LPs over all five-sets (row side, column side) from an earlier solve, to start from their
        bases; new ones by default.
    floor : float
        The caller needs the bound only while it is above ``floor`` (branch and price: a node bounded at or
        below the best arrangement known is done). Pricing then looks for partitions only as far below the
        side LPs as a bound above ``floor`` needs, and the solve stops, ``pruned``, at the first bound at or
        below ``floor``.

    Returns
    -------
    dict
        ``upper`` (float, valid bound: the least Lagrangian bound seen), ``master`` (the last master
        value), ``value`` and ``grid`` (the best arrangement known: the incumbent, or an integral pair of
        master partitions if better), ``proved`` (``upper`` within ``tolerance`` of ``value``),
        ``iterations``, ``converged`` (bound met the master value), ``pruned`` (the bound fell to ``floor``
        or below), ``seconds``, ``solution`` (the last
        master optimum as weights of sets: arrays of side, set id and weight, the sum of ``lam`` over the
        partitions holding the set; at convergence the bound's subgradient in ``weights``), ``columns``
        (the master's partitions, a pool for a later solve) and ``sides`` (the side LPs, warm).
    """
    import highspy

    started = time.perf_counter()
    weights = check_weights(weights)
    grid = check_positions(incumbent_grid, "incumbent_grid")
    value = arrangement_value(weights, grid)
    h = quiet_highs()
    h.setOptionValue("threads", 1)
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    h.addRows(2, np.ones(2), np.ones(2), 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
    h.addRows(NUM_PAIRS, np.full(NUM_PAIRS, -np.inf), np.ones(NUM_PAIRS), 0, np.zeros(0, np.int32),
              np.zeros(0, np.int32), np.zeros(0))
    columns: list[tuple[int, np.ndarray]] = []
    known: set[tuple[int, tuple]] = set()

    def add(side: int, set_ids: np.ndarray) -> bool:
        set_ids = np.sort(np.asarray(set_ids, dtype=np.int64))
        key = (int(side), tuple(set_ids.tolist()))
        if key in known:
            return False
        known.add(key)
        rows = np.concatenate([[side], 2 + _pair_rows(set_ids)]).astype(np.int32)
        h.addCols(1, np.array([weights[side, set_ids].sum()]), np.zeros(1), np.full(1, np.inf), len(rows),
                  np.zeros(1, np.int32), rows, np.ones(len(rows)))
        columns.append((side, set_ids))
        return True

    rows, cols = grid_sets(grid)
    add(0, np.array(rows, dtype=np.int64))
    add(1, np.array(cols, dtype=np.int64))
    for side, set_ids in pool:
        if side not in (0, 1) or np.shape(set_ids) != (K.GRID_SIZE,):
            raise ValueError("pool holds (side 0 or 1, five set ids) pairs")
        add(side, set_ids)
    if sides is None:
        sides = (SideLP(SETS, K.NUM_CELLS), SideLP(SETS, K.NUM_CELLS))
    upper = np.inf
    master = -np.inf
    converged = pruned = False
    iterations = 0
    while iterations < max_iterations:
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"master LP ended with status {h.getModelStatus()}")
        iterations += 1
        master = h.getInfo().objective_function_value
        duals = np.asarray(h.getSolution().row_dual, dtype=np.float64)
        convexity, pair = duals[:2], np.maximum(duals[2:], 0.0)
        lam = np.asarray(h.getSolution().col_value, dtype=np.float64)
        grid, value = _best_master_pair(weights, columns, lam, grid, value)
        side_values = [weights[side] - gather_sums(SET_PAIRS, pair) for side in range(2)]
        solved = [sides[side].solve(side_values[side]) for side in range(2)]
        bound = pair.sum() + solved[0][0] + solved[1][0]  # each side's LP value bounds its best partition
        priced = []
        exact, below = True, False
        for side in range(2):
            # The best partition of this side matters only if the bound, with the other side at its LP value
            # (or its best partition, once found), stays above floor.
            side_floor = floor - (bound - solved[side][0])
            side_bound, set_ids = partition_below_lp(side_values[side], *solved[side], sides[side], side_floor)
            if set_ids is None and side_bound <= side_floor:
                below = True  # this side is below its floor: the bound is at most floor
                break
            bound += side_bound - solved[side][0]
            if set_ids is not None:
                side_value = float(side_values[side][set_ids].sum())
                # An exhausted search budget leaves a bound above the best partition seen.
                exact = exact and side_value == side_bound
                priced.append((side, side_value, set_ids))
            else:
                exact = False
        if not below:
            upper = min(upper, bound)
        if below or upper <= floor:
            upper = min(upper, floor)
            pruned = True
            break
        if upper - master <= tolerance * max(1.0, abs(master)):
            converged = True
            break
        added = 0
        for side, side_value, set_ids in priced:
            if side_value - convexity[side] > tolerance * max(1.0, abs(side_value)):
                added += add(side, set_ids)
        if added == 0:
            # No column prices out: the master is optimal if both sides were searched to the end.
            converged = exact
            break
        if time.perf_counter() - started > time_limit:
            break
    upper = max(upper, value)
    set_weight = np.zeros((2, NUM_SETS))
    for (side, set_ids), x in zip(columns, lam):
        set_weight[side, set_ids] += x
    used_sides, ids = np.nonzero(set_weight > 1e-12)
    return {"upper": float(upper), "master": float(master), "value": float(value), "grid": grid,
            "proved": bool(upper - value <= tolerance * max(1.0, abs(value))), "iterations": iterations,
            "converged": converged, "pruned": pruned, "seconds": time.perf_counter() - started,
            "solution": (used_sides, ids, set_weight[used_sides, ids]), "columns": columns, "sides": sides}


def _best_master_pair(weights, columns, lam, grid, value):
    """Every (row partition, column partition) pair in the master's support that forms an arrangement."""
    support = [c for c, x in zip(columns, lam) if x > 1e-9]
    row_parts = [ids for side, ids in support if side == 0]
    col_parts = [ids for side, ids in support if side == 1]
    for r in row_parts[:30]:
        row_masks = SET_MASKS[r]
        for c in col_parts[:30]:
            inter = row_masks[:, None] & SET_MASKS[c][None, :]
            if np.all((inter != 0) & ((inter & (inter - 1)) == 0)):
                candidate = grid_from_sets(r.tolist(), c.tolist())
                found = arrangement_value(weights, candidate)
                if found > value:
                    grid, value = candidate, found
    return grid, value
