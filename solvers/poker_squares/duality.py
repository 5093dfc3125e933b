"""Information-relaxation (duality) upper bound on the optimal expected Poker Squares score.

In the manner of Brown, Smith and Sun: let the player see the whole deal in
advance, but charge it a penalty whose conditional mean is zero under every
non-anticipative policy. With the deal's positions 0..24 and ``P_t`` the grid
after the cards at positions 0..t are placed (t = 0..23), the penalty is

    z_t = g_t(P_t, d[t+1]) - mean over the 52 - (t+1) cards c not yet seen of g_t(P_t, c),

so ``E[z_t | everything seen up to t] = 0`` whatever the policy did with what
it saw, and ``E[score - sum_t z_t] = E[score]`` for every policy. Hence
``E_deal[max over arrangements (score - sum_t z_t)]`` bounds the optimal
expected score from above, for ANY function ``g`` fixed before the deals are
drawn (it must not be tuned on the deals it is reported on).

Our ``g`` is line-decomposable, built from learned partial-line values ``v``
(a frozen self-play table, ``gamut.solvers.poker_squares.penalty_table``, keyed by
the cards placed):

    g_t(P, c) = scale * sum over lines L of P that are not full of w_t(L) * v_{t+2}(L + c),

the learned value of each line if ``c`` joined it (exact points when that
fills it), weighted by ``w_t(L) = (5 - |L|) / (24 - t)``, the chance that a
uniformly random empty cell of ``P_t`` lies in ``L`` (``by_cell``, the
default: ``g`` is then the learned value of ``c`` placed in a random cell),
or by ``w = 1`` (``by_cell=False``). A line whose content at time t is the
set ``L_t`` pays ``scale * w_t(L_t) * (v(L_t + d[t+1]) - mean_c v(L_t +
c))``: it is charged when the next card suits it better than an average card
would. Since the order of the
deal is known, ``L_t`` is the line's final set ``S`` intersected with
positions 0..t, so the total penalty of an arrangement is a sum over its ten
lines of ``pi(S)`` (rows and columns differ: the table is keyed by
orientation), and the relaxed problem is the best arrangement with line
values ``points(S) - pi(S)``, bounded by the set-partitioning LP of
``gamut.solvers.poker_squares.partition`` and, tighter, by the Dantzig-Wolfe
bound of ``gamut.solvers.poker_squares.partition_dw``.

``scale`` is chosen on tuning deals disjoint from the reported ones (a
per-deal choice would use the deal and break validity; so would taking, deal
by deal, the smaller of this bound and the clairvoyant one: the duality bound
holds only as a mean over deals). Worked example of the line penalty: at
t = 3 (four cards placed) a row holding only ``Kh`` (placed at t = 0) with
``d[4] = Qh`` pays, as a row with one card, ``scale * (4 / 21) * (v_5(Kh Qh)
- mean over the 48 unseen cards c of v_5(Kh c))``.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.cards import NUM_CARDS
from gamut.envs.hands import HAND_TABLE
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares.penalty_table import NUM_KEYS, line_value_v1
from gamut.solvers.poker_squares.partition import NUM_SETS, anneal_sets, arrangement_value, check_deal, \
    check_positions, partition_bound, set_points
from gamut.solvers.poker_squares.partition_bnp import bnp_bound
from gamut.solvers.poker_squares.partition_dw import dw_bound

_LAST = K.NUM_CELLS - 2  # the last penalised step: t = 23, before the 25th card
# Penalty scale per (scoring, by_cell), the minimiser of the mean bound on tuning deals (seed 777, never
# the reported deals): `gamut run poker_squares_bounds` recomputes that tuning table.
TUNED_SCALE = {("american", True): 1.5, ("english", True): 1.5, ("american", False): 0.5,
               ("english", False): 0.5}


@numba.njit(cache=True)
def _penalty(deal, seen_at, line, k, t, is_col, points, table, values, scale, by_cell):
    """Penalty at step t of a line holding ``line[:k]`` (card ids; ``line[k]`` is used as work space)."""
    placed = t + 2
    line[k] = deal[t + 1]
    actual = line_value_v1(line, k + 1, placed, is_col, points, table, values)
    total = 0.0
    count = 0
    for c in range(NUM_CARDS):
        if seen_at[c] <= t:
            continue
        line[k] = c
        total += line_value_v1(line, k + 1, placed, is_col, points, table, values)
        count += 1
    weight = (K.GRID_SIZE - k) / (K.NUM_CELLS - 1 - t) if by_cell else 1.0
    return scale * weight * (actual - total / count)


@numba.njit(cache=True)
def _step_penalties(deal, seen_at, line, k, t_first, is_col, points, table, values, scale, by_cell, out):
    """out[t] = penalty of a line holding ``line[:k]`` (card ids) at steps t = t_first..23."""
    for t in range(t_first, _LAST + 1):
        out[t] = _penalty(deal, seen_at, line, k, t, is_col, points, table, values, scale, by_cell)


@numba.njit(cache=True)
def _seen_at(deal):
    # seen_at[c]: the deal position of card c, where it is seen; past every step for cards not dealt.
    seen_at = np.full(NUM_CARDS, 1 << 30, np.int64)
    for i in range(K.NUM_CELLS):
        seen_at[deal[i]] = i
    return seen_at


@numba.njit(cache=True)
def _line_penalties(deal, points, table, values, scale, by_cell, out):
    seen_at = _seen_at(deal)
    line = np.zeros(K.GRID_SIZE, np.int64)
    # phi[k, t]: penalty at step t of the current k-card prefix of the set (prefix sums build pi).
    phi = np.zeros((K.GRID_SIZE, _LAST + 1), np.float64)
    n = K.NUM_CELLS
    for side in range(2):
        _step_penalties(deal, seen_at, line, 0, 0, side, points, table, values, scale, by_cell, phi[0])
        j = 0
        for s0 in range(n - 4):
            line[0] = deal[s0]
            a0 = phi[0, :s0].sum()
            _step_penalties(deal, seen_at, line, 1, s0, side, points, table, values, scale, by_cell, phi[1])
            a1 = a0
            for s1 in range(s0 + 1, n - 3):
                line[1] = deal[s1]
                a1 += phi[1, s1 - 1]
                _step_penalties(deal, seen_at, line, 2, s1, side, points, table, values, scale, by_cell, phi[2])
                a2 = a1
                for s2 in range(s1 + 1, n - 2):
                    line[2] = deal[s2]
                    a2 += phi[2, s2 - 1]
                    _step_penalties(deal, seen_at, line, 3, s2, side, points, table, values, scale, by_cell, phi[3])
                    a3 = a2
                    for s3 in range(s2 + 1, n - 1):
                        line[3] = deal[s3]
                        a3 += phi[3, s3 - 1]
                        _step_penalties(deal, seen_at, line, 4, s3, side, points, table, values, scale, by_cell,
                                        phi[4])
                        a4 = a3
                        for s4 in range(s3 + 1, n):
                            a4 += phi[4, s4 - 1]
                            out[side, j] = a4
                            j += 1


@numba.njit(cache=True)
def _played_penalty(deal, grid, points, table, values, scale, by_cell, first_step):
    seen_at = _seen_at(deal)
    line = np.zeros(K.GRID_SIZE, np.int64)
    total = 0.0
    for t in range(first_step, _LAST + 1):
        for ln in range(K.NUM_LINES):
            k = 0
            for i in range(K.GRID_SIZE):
                p = grid[K.LINES[ln, i]]
                if p <= t:
                    line[k] = deal[p]
                    k += 1
            if k == K.GRID_SIZE:
                continue
            is_col = 1 if ln >= K.GRID_SIZE else 0
            total += _penalty(deal, seen_at, line, k, t, is_col, points, table, values, scale, by_cell)
    return total


def played_penalty(deal, grid_positions, cfg, values: np.ndarray, scale: float, by_cell: bool = True,
                   first_step: int = 0) -> float:
    """``sum_t z_t`` of one arrangement computed step by step from the grids ``P_t`` (the definition).

    ``grid_positions`` int (25,): cell -> deal position. Used to check ``line_penalties`` and to measure
    the penalty a policy pays (its mean is zero for any policy that does not look ahead). With
    ``first_step`` = 25 - k - 1 the sum runs over the arrivals of the last k cards only: the penalty of
    the relaxation of a position with k empty cells.
    """
    deal = check_deal(deal)
    grid = check_positions(grid_positions, "grid_positions")
    if not 0 <= first_step <= _LAST:
        raise ValueError(f"first_step must be in 0..{_LAST}, got {first_step}")
    points = np.ascontiguousarray(np.asarray(cfg, dtype=np.int64)[K.C_POINTS:])
    return float(_played_penalty(deal, grid, points, HAND_TABLE, np.ascontiguousarray(values, dtype=np.float64),
                                 float(scale), bool(by_cell), int(first_step)))


def line_penalties(deal, cfg, values: np.ndarray, scale: float, by_cell: bool = True) -> np.ndarray:
    """Total penalty ``pi`` of every position set as a row and as a column: float64 (2, NUM_SETS).

    ``pi[side, j]`` is the sum over t = 0..23 of the penalty paid by a line
    (a row if ``side == 0``) whose final set is ``SETS[j]`` (deal positions).

    Parameters
    ----------
    deal : int (25,)
        Card ids in the order they are turned over.
    cfg : int64 (CONFIG_SIZE,)
        Game config (points of full lines).
    values : float64 (NUM_KEYS,)
        Partial-line values keyed as in ``penalty_table`` (``penalty_table.load_penalty_values``).
    scale : float
        Multiplier of the penalty (0 gives the plain clairvoyant problem).
    by_cell : bool
        Weigh each line by the chance ``(5 - |L_t|) / (24 - t)`` that a uniformly random empty cell lies
        in it, so ``g`` is the learned value of the card placed in a random cell.
    """
    deal = check_deal(deal)
    values = np.ascontiguousarray(values, dtype=np.float64)
    if values.shape != (NUM_KEYS,):
        raise ValueError(f"values must be float64 ({NUM_KEYS},), got {values.shape}")
    out = np.empty((2, NUM_SETS), dtype=np.float64)
    points = np.ascontiguousarray(np.asarray(cfg, dtype=np.int64)[K.C_POINTS:])
    _line_penalties(deal, points, HAND_TABLE, values, float(scale), bool(by_cell), out)
    return out


def penalized_weights(deal, cfg, values: np.ndarray, scale: float, by_cell: bool = True) -> np.ndarray:
    """Line values of the relaxed problem, ``points(S) - pi(S)``: float64 (2, NUM_SETS)."""
    return set_points(deal, cfg)[None, :] - line_penalties(deal, cfg, values, scale, by_cell)


def positions_grid(deal, grid_cards) -> np.ndarray:
    """A grid of card ids (int (25,)) as a grid of deal positions (int64 (25,))."""
    pos = {int(c): i for i, c in enumerate(deal)}
    return np.array([pos[int(c)] for c in grid_cards], dtype=np.int64)


def relaxed_start(weights: np.ndarray, cfg, grid_positions, iterations: int = 100_000,
                  restarts: int = 2) -> np.ndarray:
    """An arrangement of the relaxed problem annealed from ``grid_positions``: int64 (25,), cell -> deal position.

    The temperatures follow the largest line points (5% of them at the start, 1% at the end), so one recipe
    serves both point systems. A good start only speeds the inner solvers up and tightens what they report
    of the relaxed optimum; no bound depends on it.
    """
    temp = max(1, int(np.abs(np.asarray(cfg)[K.C_POINTS:]).max())) / 100.0
    _, start = anneal_sets(weights, grid_positions, iterations=iterations, restarts=restarts, temp_start=5.0 * temp,
                           temp_end=temp)
    return start


INNER_SOLVERS = ("lp", "dw", "bnp")


def duality_bound(deal, cfg, values: np.ndarray, scale: float, incumbent_grid, time_limit: float = 5.0,
                  by_cell: bool = True, inner: str = "dw", dw_iterations: int = 200, nodes: int = 40) -> dict:
    """Upper bound on ``max over arrangements (score - penalty)`` for one deal.

    ``incumbent_grid`` (int (25,), card ids) starts an annealing of the relaxed problem whose result
    starts the solver. ``inner`` picks the bound on the relaxed problem: ``"lp"`` the set-partitioning
    LP (``partition.partition_bound``, ``time_limit`` seconds), ``"dw"`` that and then the tighter
    Dantzig-Wolfe bound (``partition_dw.dw_bound``, at most ``dw_iterations`` column-generation steps),
    the smaller of the two; ``"bnp"`` branch and price (``partition_bnp.bnp_bound``, ``nodes`` nodes, the
    Dantzig-Wolfe bound at each), without the LP and so without a clock. Returns the dict of
    ``partition.partition_bound`` (``upper`` is the deal's term of the duality bound; with ``"bnp"``
    only ``upper``, ``value``, ``grid``, ``proved`` and ``nodes``) plus ``lp_upper`` (the LP's bound, NaN
    with ``"bnp"``), ``dw_upper`` (the Dantzig-Wolfe bound, of the root with ``"bnp"``; NaN with
    ``"lp"``), ``score`` and ``penalty`` of the best relaxed arrangement found.
    """
    if inner not in INNER_SOLVERS:
        raise ValueError(f"inner must be one of {INNER_SOLVERS}, got {inner!r}")
    weights = penalized_weights(deal, cfg, values, scale, by_cell)
    start = relaxed_start(weights, cfg, positions_grid(deal, incumbent_grid))
    if inner == "bnp":
        found = bnp_bound(weights, start, max_nodes=nodes, dw_iterations=dw_iterations)
        res = {key: found[key] for key in ("upper", "value", "grid", "proved", "nodes")}
        res["lp_upper"], res["dw_upper"] = float("nan"), found["root"]
    else:
        res = partition_bound(weights, start, time_limit=time_limit)
        res["lp_upper"] = res["upper"]
        res["dw_upper"] = float("nan")
    if inner == "dw" and not res["proved"]:
        dw = dw_bound(weights, res["grid"], max_iterations=dw_iterations, time_limit=max(time_limit, 60.0))
        res["dw_upper"] = dw["upper"]
        if dw["value"] > res["value"]:
            res["grid"], res["value"] = dw["grid"], dw["value"]
        res["upper"] = max(min(res["upper"], dw["upper"]), res["value"])
        res["proved"] = bool(res["upper"] <= res["value"] + 1e-6)
    points = set_points(deal, cfg)
    res["score"] = arrangement_value(np.stack([points, points]), res["grid"])
    res["penalty"] = res["score"] - res["value"]
    return res


def duality_bounds(deals: np.ndarray, cfg, values: np.ndarray, scale: float, grids: np.ndarray,
                   by_cell: bool = True, time_limit: float = 5.0, inner: str = "dw", dw_iterations: int = 200,
                   nodes: int = 40) -> dict:
    """``duality_bound`` on every deal: arrays (n,) ``upper``, ``lp_upper``, ``dw_upper``, ``value``, ``score``,
    ``penalty``, ``proved``.

    ``grids`` int (n, 25): an arrangement of each deal (card ids) to start from. The mean of ``upper``
    bounds the optimal expected score if ``scale`` and ``by_cell`` were fixed without looking at ``deals``.
    """
    keys = ("upper", "lp_upper", "dw_upper", "value", "score", "penalty")
    out = {k: np.empty(len(deals)) for k in keys}
    out["proved"] = np.zeros(len(deals), dtype=bool)
    for i, (deal, grid) in enumerate(zip(deals, grids)):
        res = duality_bound(deal, cfg, values, scale, grid, time_limit=time_limit, by_cell=by_cell, inner=inner,
                            dw_iterations=dw_iterations, nodes=nodes)
        for k in keys:
            out[k][i] = res[k]
        out["proved"][i] = res["proved"]
    return out
