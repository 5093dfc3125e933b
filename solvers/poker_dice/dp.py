"""Exact solitaire dynamic programme for every scorecard variant of poker dice.

The value of a scorecard situation ``(mask, group_total, aux)`` at the start of
a turn is the optimal expected number of points still to come. Turns are
solved backwards over masks (a filled box never empties, so every successor
has a larger mask). Inside a turn the classic per-turn graph is evaluated with
two shared passes over the dice tables of :mod:`gamut.envs.dice`:

* keep expectations: a keep of ``k < 5`` dice is worth the mean over the six
  faces of the keep with one more die (rerolling dice one at a time gives the
  same distribution as rolling them together), so 210 keeps cost 6 sums each;
* best reroll of a roll: the maximum over its proper sub-multisets, computed
  for all keeps at once by ``best[k] = max(ev[k], best[k - one die])``.

Levels of a turn, for each ``aux``: ``G`` holds the values of rolls after the
last base roll (with banked rolls, ``G[c]`` is the value with ``c`` banked
rolls left to spend in this turn), ``L2`` after the second roll, ``L1`` after
the first. Scoring comes from :mod:`gamut.envs.poker_dice.scoring` only.

State layout: ``offsets[mask]`` is the first value of ``mask`` (-1 for masks the
stage order makes unreachable); the value of ``(mask, total, aux)`` is at
``offsets[mask] + (total - sum_lo) * num_aux + aux``. Once the bonus group is
complete its total is no longer needed and only ``total == sum_lo`` is stored.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from gamut.envs import dice
from gamut.envs.poker_dice.scorecard import (
    AUX_BANK, AUX_REPEAT_FLAG, B_STAGE, P_AUX_KIND, P_BANK_STAGE_OK, P_FIRST_MULT, P_GROUP_MASK,
    P_JOKER_BOX, P_NUM_AUX, P_NUM_BOXES, P_NUM_SUMS, P_REPEAT_BOX, P_SUM_LO, R_MEETS,
)
from gamut.envs.poker_dice.scoring import allowed_boxes, current_stage, final_value, record

_SHORT = dice.NUM_SHORT_KEEPS
_KEEP_ADD = np.ascontiguousarray(dice.KEEP_ADD)
_KEEP_REMOVE = np.ascontiguousarray(dice.KEEP_REMOVE)
_FIRST_ROLL = np.ascontiguousarray(dice.TRANSITION[0])

StateLayout = namedtuple("StateLayout", ["offsets", "sum_row", "sum_ok", "size"])
"""``offsets`` (2**n,) int64; ``sum_row`` (2**n,) int64 row of ``sum_ok`` (num rows,
num_sums) bool telling which group totals can occur with the group boxes of a
mask filled; ``size`` the number of values."""


def _box_score_values(tables, b: int) -> set[int]:
    met = tables.points[b][tables.meets[b]]
    values = {0, *(int(v) + int(tables.premium[b]) for v in met)}
    if tables.doubles[b]:
        values |= {int(v) * tables.first_roll_multiplier + int(tables.premium[b]) for v in met}
    return values


def state_layout(tables) -> StateLayout:
    """Where each scorecard situation's value lives (see the module docstring)."""
    n = tables.num_boxes
    masks = np.arange(1 << n, dtype=np.int64)
    valid = np.ones(1 << n, dtype=np.bool_)
    stage = np.asarray(tables.stage)
    for s in np.unique(stage):
        lower = int(sum(1 << b for b in range(n) if stage[b] < s))
        here = int(sum(1 << b for b in range(n) if stage[b] == s))
        valid &= ((masks & here) == 0) | ((masks & lower) == lower)
    group = tables.group_mask
    group_boxes = [b for b in range(n) if (group >> b) & 1]
    hi = tables.sum_lo + tables.num_sums - 1
    # Totals reachable with each subset of the group filled (clipping at hi is
    # monotone, so clipping the exact sum once is the same as clipping as we go).
    rows = np.zeros((1 << len(group_boxes), tables.num_sums), dtype=np.bool_)
    for sub in range(1 << len(group_boxes)):
        totals = {0}
        for i, b in enumerate(group_boxes):
            if (sub >> i) & 1:
                totals = {x + v for x in totals for v in _box_score_values(tables, b)}
        for x in totals:
            rows[sub, min(max(x, tables.sum_lo), hi) - tables.sum_lo] = True
    compact = np.zeros(1 << n, dtype=np.int64)
    for i, b in enumerate(group_boxes):
        compact |= ((masks >> b) & 1) << i
    complete = (masks & group) == group
    rows = np.vstack([rows, np.eye(1, tables.num_sums, dtype=np.bool_)])
    sum_row = np.where(complete, len(rows) - 1, compact)
    sizes = np.where(valid, np.where(complete, 1, tables.num_sums) * tables.num_aux, 0)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    offsets = np.where(valid, offsets, -1).astype(np.int64)
    return StateLayout(offsets, sum_row.astype(np.int64), rows, int(sizes.sum()))


@numba.njit(cache=True)
def _keep_expectations(level, ev):
    """Fill ``ev`` (462,) with the expected value of each keep when the free dice are rolled
    and the resulting roll is worth ``level[roll]`` (252,)."""
    for r in range(dice.NUM_ROLLS):
        ev[_SHORT + r] = level[r]
    for k in range(_SHORT - 1, -1, -1):
        total = 0.0
        for f in range(dice.NUM_FACES):
            total += ev[_KEEP_ADD[k, f]]
        ev[k] = total / dice.NUM_FACES


@numba.njit(cache=True)
def _best_reroll(level, ev, best, out):
    """``out[r]`` (252,): best expected value over keeps that reroll at least one die of roll r."""
    _keep_expectations(level, ev)
    for k in range(_SHORT):
        value = ev[k]
        for f in range(dice.NUM_FACES):
            j = _KEEP_REMOVE[k, f]
            if j >= 0 and best[j] > value:
                value = best[j]
        best[k] = value
    for r in range(dice.NUM_ROLLS):
        value = -np.inf
        for f in range(dice.NUM_FACES):
            j = _KEEP_REMOVE[_SHORT + r, f]
            if j >= 0 and best[j] > value:
                value = best[j]
        out[r] = value


@numba.njit(cache=True)
def _final_values(p, bx, rd, values, offsets, mask, total, aux, first, bank_after, allowed, out):
    """``out[r]``: best over allowed boxes of points now plus the value of the next turn."""
    lo, num_aux, n, jb = p[P_SUM_LO], p[P_NUM_AUX], p[P_NUM_BOXES], p[P_JOKER_BOX]
    stage = current_stage(p, bx, mask)
    jokers_possible = jb >= 0 and (mask >> jb) & 1 == 1
    out[:] = -np.inf
    # Box-major over the rolls that are not jokers: their allowed boxes are the open
    # boxes of the current stage (allowed_boxes agrees; the tests check it).
    for b in range(n):
        if (mask >> b) & 1 or bx[b, B_STAGE] != stage:
            continue
        for r in range(dice.NUM_ROLLS):
            if jokers_possible and rd[R_MEETS, jb, r] == 1:
                continue
            points, m2, s2, a2 = record(p, bx, rd, mask, total, aux, r, first, b, bank_after)
            v = points + values[offsets[m2] + (s2 - lo) * num_aux + a2]
            if v > out[r]:
                out[r] = v
    if jokers_possible:
        for r in range(dice.NUM_ROLLS):
            if rd[R_MEETS, jb, r] == 0:
                continue
            allowed_boxes(p, bx, rd, mask, r, allowed)
            for b in range(n):
                if allowed[b]:
                    points, m2, s2, a2 = record(p, bx, rd, mask, total, aux, r, first, b,
                                                bank_after)
                    v = points + values[offsets[m2] + (s2 - lo) * num_aux + a2]
                    if v > out[r]:
                        out[r] = v


@numba.njit(cache=True)
def _aux_possible(p, mask, aux):
    if p[P_AUX_KIND] == AUX_REPEAT_FLAG:
        return aux == 0 or (mask >> p[P_REPEAT_BOX]) & 1 == 1
    if p[P_AUX_KIND] == AUX_BANK:
        filled = 0
        for b in range(p[P_NUM_BOXES]):
            filled += (mask >> b) & 1
        return aux <= 2 * filled  # at most two unused rolls per recorded box
    return True


@numba.njit(cache=True)
def _turn_levels(p, bx, rd, values, offsets, mask, total, G, L2, L1, final, ev, best, allowed,
                 reroll, only_aux):
    """Fill ``G``, ``L2``, ``L1`` (num_aux, 252) for every possible ``aux`` of a turn, or
    only for ``aux == only_aux`` (and the ``G`` rows it needs) when ``only_aux >= 0``."""
    num_aux = p[P_NUM_AUX]
    banked = p[P_AUX_KIND] == AUX_BANK
    extras = banked and p[P_BANK_STAGE_OK + current_stage(p, bx, mask)] == 1
    if extras:
        for c in range(num_aux - 2):
            if not _aux_possible(p, mask, c) or 0 <= only_aux < c:
                break
            _final_values(p, bx, rd, values, offsets, mask, total, 0, False, c, allowed, G[c])
            if c > 0:
                _best_reroll(G[c - 1], ev, best, reroll)
                for r in range(dice.NUM_ROLLS):
                    G[c, r] = max(G[c, r], reroll[r])
    # Without banking or first-roll doubling the stop values are the same at every level.
    same_final = not banked and p[P_FIRST_MULT] == 1
    for aux in range(num_aux):
        if not _aux_possible(p, mask, aux) or (only_aux >= 0 and aux != only_aux):
            continue
        if not extras:
            _final_values(p, bx, rd, values, offsets, mask, total, aux, False, aux, allowed,
                          G[aux])
        if same_final:
            final[:] = G[aux]
        else:
            _final_values(p, bx, rd, values, offsets, mask, total, aux, False, aux + 1, allowed,
                          final)
        _best_reroll(G[aux], ev, best, reroll)
        for r in range(dice.NUM_ROLLS):
            L2[aux, r] = max(final[r], reroll[r])
        if not same_final:
            _final_values(p, bx, rd, values, offsets, mask, total, aux, True, aux + 2, allowed,
                          final)
        _best_reroll(L2[aux], ev, best, reroll)
        for r in range(dice.NUM_ROLLS):
            L1[aux, r] = max(final[r], reroll[r])


@numba.njit(cache=True)
def _turn_buffers(num_aux, num_boxes):
    """Zeroed work arrays of ``_turn_levels``: ``(G, L2, L1, final, reroll, ev, best, allowed)``,
    the levels (num_aux, 252), ``final`` and ``reroll`` (252,), ``ev`` and ``best`` (462,)
    and ``allowed`` (num_boxes,) bool."""
    shape = (num_aux, dice.NUM_ROLLS)
    return (np.zeros(shape), np.zeros(shape), np.zeros(shape), np.zeros(dice.NUM_ROLLS),
            np.zeros(dice.NUM_ROLLS), np.zeros(dice.NUM_KEEPS), np.zeros(dice.NUM_KEEPS),
            np.zeros(num_boxes, dtype=np.bool_))


@numba.njit(cache=True)
def _solve(p, bx, rd, offsets, sum_row, sum_ok, values):
    n, num_aux, group = p[P_NUM_BOXES], p[P_NUM_AUX], p[P_GROUP_MASK]
    G, L2, L1, final, reroll, ev, best, allowed = _turn_buffers(num_aux, n)
    full = (1 << n) - 1
    for mask in range(full, -1, -1):
        base = offsets[mask]
        if base < 0:
            continue
        if mask == full:
            for aux in range(num_aux):
                values[base + aux] = final_value(p, aux)
            continue
        row = sum_row[mask]
        complete = mask & group == group
        for s in range(1 if complete else p[P_NUM_SUMS]):
            if not sum_ok[row, s]:
                continue
            _turn_levels(p, bx, rd, values, offsets, mask, p[P_SUM_LO] + s, G, L2, L1, final, ev,
                         best, allowed, reroll, -1)
            for aux in range(num_aux):
                if _aux_possible(p, mask, aux):
                    total = 0.0
                    for r in range(dice.NUM_ROLLS):
                        total += _FIRST_ROLL[r] * L1[aux, r]
                    values[base + s * num_aux + aux] = total


def solve_values(tables) -> tuple[StateLayout, np.ndarray]:
    """Optimal expected points to come for every reachable situation at the start of a turn.

    Returns the layout and a float64 array of ``layout.size`` values (unreachable
    entries are 0). ``values[layout.offsets[0] + (0 - sum_lo) ...]`` at the empty card
    is the optimal expected score; see :class:`gamut.solvers.poker_dice.solution.DiceSolution`.
    """
    layout = state_layout(tables)
    values = np.zeros(layout.size, dtype=np.float64)
    _solve(tables.params, tables.box_data, tables.roll_data, layout.offsets, layout.sum_row,
           layout.sum_ok, values)
    return layout, values


def turn_levels(tables, layout, values, mask: int, total: int, only_aux: int = -1):
    """``(G, L2, L1)`` (each (num_aux, 252) float64) of one turn; see the module docstring.

    With ``only_aux >= 0`` only that ``aux``'s rows (and the ``G`` rows they need)
    are filled, and only the values of that ``aux``'s successors are read.
    """
    G, L2, L1, final, reroll, ev, best, allowed = _turn_buffers(tables.num_aux, tables.num_boxes)
    _turn_levels(tables.params, tables.box_data, tables.roll_data, values, layout.offsets, mask,
                 total, G, L2, L1, final, ev, best, allowed, reroll, only_aux)
    return G, L2, L1


def keep_expectations(level: np.ndarray) -> np.ndarray:
    """(462,) float64 expected value of each keep when rolls are worth ``level`` (252,)."""
    level = np.ascontiguousarray(level, dtype=np.float64)
    if level.shape != (dice.NUM_ROLLS,):
        raise ValueError(f"level must have shape ({dice.NUM_ROLLS},), got {level.shape}")
    ev = np.zeros(dice.NUM_KEEPS)
    _keep_expectations(level, ev)
    return ev
