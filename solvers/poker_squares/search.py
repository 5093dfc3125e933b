"""Search kernels for Poker Squares: flat Monte Carlo and exact expectimax of two to four plies (Numba).

Both value the placements of the card to place for one player's grid and work
on the kernel state of ``gamut.envs.poker_squares.kernels`` (any variant, any point
system). Future cards are the cards already dealt that the player has not
placed yet (open variant, two players), in deal order, then the unseen cards in
a random order.

Candidate cells are the empty cells, less those that a symmetry makes
equivalent: the score is unchanged by permuting rows or columns, so among
entirely empty rows (and entirely empty columns) only the first one is tried.
On an empty grid this leaves one cell.

Flat Monte Carlo (``mc_batch``) plays every candidate against the same
sampled card orders (common random numbers: the differences between cells
carry far less noise than the scores themselves). A rollout places cards with
the greedy kernel of the game or the learned-value policy, and may stop after
``depth`` placements to value the grid with the learned line values.

Expectimax (``expectimax_values``) enumerates chance exactly. Two plies: each
candidate cell is worth the mean, over every possible next card, of the best
learned grid value after that card is placed. Three plies: each next card
goes to the best of its ``width`` cells of highest learned placement gain,
valued by two-ply expectimax over the card after it; the pruning keeps the
cost near ``width`` times that of two plies per next card. Four plies nest
three the same way.

Both take optional cross-line ``weights`` (``gamut.solvers.poker_squares.crossline``):
the learned grid value at the leaves, in the learned rollout policy and at a
rollout's cut is then corrected for what lines compete for.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.cards import NUM_CARDS
from gamut.envs.rng import shuffle
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares.crossline import (NO_WEIGHTS, NUM_FEATURES, best_corrected_after, checked_weights,
                                             corrected_cell, corrected_value)
from gamut.solvers.poker_squares.learned import best_value_after, grid_value, learned_cell, placement_gain, seen_word

POLICY_GREEDY = 0
POLICY_LEARNED = 1


@numba.njit(cache=True)
def candidate_cells(state, player, out):
    """Write the candidate cells (empty, one per symmetry class of empty rows/columns) into ``out``."""
    base = K.S_GRID + K.NUM_CELLS * player
    row_empty = np.zeros(K.GRID_SIZE, np.bool_)
    col_empty = np.zeros(K.GRID_SIZE, np.bool_)
    for i in range(K.GRID_SIZE):
        row_empty[i] = True
        col_empty[i] = True
        for j in range(K.GRID_SIZE):
            if state[base + 5 * i + j] >= 0:
                row_empty[i] = False
            if state[base + 5 * j + i] >= 0:
                col_empty[i] = False
    first_row, first_col = -1, -1
    for i in range(K.GRID_SIZE):
        if row_empty[i] and first_row < 0:
            first_row = i
        if col_empty[i] and first_col < 0:
            first_col = i
    n = 0
    for cell in range(K.NUM_CELLS):
        r, c = cell // 5, cell % 5
        if state[base + cell] >= 0:
            continue
        if row_empty[r] and r != first_row:
            continue
        if col_empty[c] and c != first_col:
            continue
        out[n] = cell
        n += 1
    return n


@numba.njit(cache=True)
def rollout_value(work, player, cfg, table, values, weights, rng, policy, depth):
    """Place the remaining cards of ``work`` (deal complete) for ``player``; return the final value.

    With ``weights`` (not empty) the learned policy and the value at the cut
    use the grid value with its cross-line correction.
    """
    moves = 0
    corrected = weights.shape[0] > 0
    while work[K.S_NUM_PLACED + player] < K.NUM_CELLS:
        if depth >= 0 and moves >= depth:
            if corrected:
                placed = work[K.S_NUM_PLACED + player]
                return corrected_value(work, player, placed, seen_word(work, player), cfg, table, values, weights,
                                       np.empty(NUM_FEATURES, np.float64))
            return grid_value(work, player, cfg, table, values)
        if policy == POLICY_LEARNED and corrected:
            cell = corrected_cell(work, player, cfg, table, values, weights)
        elif policy == POLICY_LEARNED:
            cell = learned_cell(work, player, cfg, table, values, rng)
        else:
            cell = K.greedy_cell(work, player, cfg, table, rng)
        K.place_card(work, player, cell)
        moves += 1
    return float(K.grid_score(work, player, cfg, table))


@numba.njit(cache=True)
def _mc_batch(state, player, cfg, table, values, weights, cands, ncand, num_sims, rng, policy, depth, sums):
    unseen = np.empty(NUM_CARDS, np.int64)
    nunseen = K.unseen_cards(state, unseen)
    work = np.empty_like(state)
    first_free = state[K.S_NUM_DEALT]
    base = K.S_GRID + K.NUM_CELLS * player
    placed = state[K.S_NUM_PLACED + player]
    for _ in range(num_sims):
        shuffle(unseen, nunseen, rng)
        for i in range(ncand):
            work[:] = state
            # Complete the deal: known cards stay in place, unseen ones follow in the sampled order.
            for k in range(K.NUM_CELLS - first_free):
                work[K.S_DEAL + first_free + k] = unseen[k]
            work[K.S_NUM_DEALT] = K.NUM_CELLS
            work[base + cands[i]] = work[K.S_DEAL + placed]
            work[K.S_NUM_PLACED + player] = placed + 1
            sums[i] += rollout_value(work, player, cfg, table, values, weights, rng, policy, depth)


def mc_batch(state, player, cfg, table, values, cands, num_sims, rng, policy, depth, sums,
             weights=NO_WEIGHTS) -> None:
    """Add the values of ``num_sims`` rollouts per candidate cell to ``sums`` (float64 (len(cands),)).

    ``policy`` is ``POLICY_GREEDY`` or ``POLICY_LEARNED``; ``depth`` < 0 plays
    to the end, otherwise the grid is valued by the learned table after
    ``depth`` placements. ``rng`` is a ``xorshift`` generator state.
    ``weights`` (not empty) add the cross-line correction to the learned policy
    and values.
    """
    if len(sums) != len(cands):
        raise ValueError("sums must have one entry per candidate cell")
    _mc_batch(state, player, cfg, table, values, checked_weights(weights), cands, len(cands),
              int(num_sims), rng, int(policy), int(depth), sums)


@numba.njit(cache=True)
def chance_cards(state, player, level, out):
    """Write the cards that may be the ``level``-th after the current one (0: the next); return their number.

    The card itself when it is already dealt (open variant, two players), else
    every card not dealt yet.
    """
    known = state[K.S_NUM_DEALT] - state[K.S_NUM_PLACED + player] - 1
    if level < known:
        out[0] = state[K.S_DEAL + state[K.S_NUM_PLACED + player] + 1 + level]
        return 1
    return K.unseen_cards(state, out)


@numba.njit(cache=True)
def _two_ply(work, player, cfg, table, values, weights, nxt, nnext, skip1, skip2):
    """Mean over the next cards ``nxt[:nnext]`` (less ``skip1``, ``skip2``) of the best grid value after it.

    The grid value is the learned one, corrected by ``weights`` unless they are empty.
    """
    if work[K.S_NUM_PLACED + player] == K.NUM_CELLS:
        return float(K.grid_score(work, player, cfg, table))
    total = 0.0
    count = 0
    for k in range(nnext):
        if nxt[k] != skip1 and nxt[k] != skip2:
            if weights.shape[0] == 0:
                total += best_value_after(work, player, nxt[k], cfg, table, values)
            else:
                total += best_corrected_after(work, player, nxt[k], cfg, table, values, weights)
            count += 1
    return total / count


@numba.njit(cache=True)
def _widest_cells(work, player, card, cfg, table, values, width, chosen):
    """Write the ``width`` candidate cells of highest placement gain for ``card`` into ``chosen``; return how many."""
    inner = np.empty(K.NUM_CELLS, np.int64)
    gains = np.empty(K.NUM_CELLS, np.float64)
    ninner = candidate_cells(work, player, inner)
    for j in range(ninner):
        gains[j] = placement_gain(work, player, inner[j], card, cfg, table, values)
    order = np.argsort(-gains[:ninner], kind="mergesort")
    count = min(width, ninner)
    for j in range(count):
        chosen[j] = inner[order[j]]
    return count


@numba.njit(cache=True)
def _three_ply(work, player, cfg, table, values, weights, nxt, nnext, later, nlater, skip, width):
    """Three-ply value of ``work``: the mean over the next cards ``nxt`` (less ``skip``) of their best cell.

    Only the ``width`` cells of highest placement gain are tried, each valued
    by ``_two_ply`` over the cards ``later`` (less ``skip`` and the card placed).
    """
    base = K.S_GRID + K.NUM_CELLS * player
    placed = work[K.S_NUM_PLACED + player]
    if placed >= K.NUM_CELLS - 1:
        return _two_ply(work, player, cfg, table, values, weights, nxt, nnext, skip, -1)
    chosen = np.empty(K.NUM_CELLS, np.int64)
    total = 0.0
    count = 0
    for k in range(nnext):
        card = nxt[k]
        if card == skip:
            continue
        best = -np.inf
        for j in range(_widest_cells(work, player, card, cfg, table, values, width, chosen)):
            work[base + chosen[j]] = card
            work[K.S_NUM_PLACED + player] = placed + 1
            value = _two_ply(work, player, cfg, table, values, weights, later, nlater, skip, card)
            work[base + chosen[j]] = -1
            work[K.S_NUM_PLACED + player] = placed
            best = max(best, value)
        total += best
        count += 1
    return total / count


@numba.njit(cache=True)
def _four_ply(work, player, cfg, table, values, weights, first, nfirst, second, nsecond, third, nthird, width):
    """Four-ply value of ``work``: the mean over the next cards ``first`` of their best cell.

    Only the ``width`` cells of highest placement gain are tried, each valued
    by ``_three_ply`` over the two cards after it.
    """
    base = K.S_GRID + K.NUM_CELLS * player
    placed = work[K.S_NUM_PLACED + player]
    if placed == K.NUM_CELLS:
        return float(K.grid_score(work, player, cfg, table))
    chosen = np.empty(K.NUM_CELLS, np.int64)
    total = 0.0
    for k in range(nfirst):
        card = first[k]
        best = -np.inf
        for j in range(_widest_cells(work, player, card, cfg, table, values, width, chosen)):
            work[base + chosen[j]] = card
            work[K.S_NUM_PLACED + player] = placed + 1
            value = _three_ply(work, player, cfg, table, values, weights, second, nsecond, third, nthird, card,
                               width)
            work[base + chosen[j]] = -1
            work[K.S_NUM_PLACED + player] = placed
            best = max(best, value)
        total += best
    return total / nfirst


@numba.njit(cache=True)
def _expectimax(state, player, cfg, table, values, weights, cands, ncand, first, nfirst, depth, width, out):
    base = K.S_GRID + K.NUM_CELLS * player
    placed = state[K.S_NUM_PLACED + player]
    card = state[K.S_DEAL + placed]
    second = np.empty(NUM_CARDS, np.int64)
    nsecond = chance_cards(state, player, 1, second)
    third = np.empty(NUM_CARDS, np.int64)
    nthird = chance_cards(state, player, 2, third)
    work = state.copy()
    for i in range(ncand):
        work[base + cands[i]] = card
        work[K.S_NUM_PLACED + player] = placed + 1
        if depth == 2:
            out[i] = _two_ply(work, player, cfg, table, values, weights, first, nfirst, -1, -1)
        elif depth == 3:
            out[i] = _three_ply(work, player, cfg, table, values, weights, first, nfirst, second, nsecond, -1,
                                    width)
        else:
            out[i] = _four_ply(work, player, cfg, table, values, weights, first, nfirst, second, nsecond, third,
                               nthird, width)
        work[base + cands[i]] = -1
        work[K.S_NUM_PLACED + player] = placed


def next_cards(state, player) -> np.ndarray:
    """The cards that may come after the one to place: int64 (n,), the dealt next card alone or the unseen."""
    out = np.empty(NUM_CARDS, np.int64)
    return out[:chance_cards(state, player, 0, out)]


def expectimax_values(state, player, cfg, table, values, cands, depth=2, width=K.NUM_CELLS, first=None,
                      weights=NO_WEIGHTS) -> np.ndarray:
    """Expectimax value of each candidate cell: float64 (len(cands),).

    ``depth`` 2: the expectation over the next card (every unseen card, or the
    known next card) of the best learned grid value after placing it. ``depth``
    3: the expectation over the next card of its best placement among the
    ``width`` empty cells of highest learned placement gain, each valued by
    two-ply expectimax over the card after it. ``depth`` 4: likewise, each
    of those cells valued by three plies. Chance is enumerated exactly,
    so the result is deterministic. ``first`` (int64 (m,), a subset of
    ``next_cards``) restricts the next card to those cards: the mean is then
    over them alone, which lets a caller sample chance and stop on a clock.
    ``weights`` (float64 (26, crossline.NUM_FEATURES)) add the cross-line
    correction to the grid values at the leaves; the cells deeper levels try
    are still those of highest plain learned gain.
    """
    if depth not in (2, 3, 4) or width < 1:
        raise ValueError(f"expectimax depth must be 2, 3 or 4 and width >= 1, got depth {depth}, width {width}")
    first = next_cards(state, player) if first is None else np.ascontiguousarray(first, dtype=np.int64)
    if len(first) == 0:
        raise ValueError("expectimax needs at least one next card")
    out = np.zeros(len(cands), dtype=np.float64)
    _expectimax(state, player, cfg, table, values, checked_weights(weights), cands, len(cands), first, len(first),
                int(depth), int(width), out)
    return out
