"""Search kernels for Poker Squares: flat Monte Carlo and exact two-ply expectimax (Numba).

Both value the placements of the card to place for one player's grid and work
on the kernel state of ``envs.poker_squares.kernels`` (any variant, any point
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
"""

from __future__ import annotations

import numba
import numpy as np

from envs.cards import NUM_CARDS
from envs.rng import shuffle
from envs.poker_squares import kernels as K
from solvers.poker_squares.learned import (best_gain, card_seen_word, grid_value, grid_value_with_seen,
                                          learned_cell, seen_word)

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
def _future_cards(state, player, future):
    """Write the cards ``player`` will place after the current one (known first); return the count."""
    n = 0
    for i in range(state[K.S_NUM_PLACED + player] + 1, state[K.S_NUM_DEALT]):
        future[n] = state[K.S_DEAL + i]
        n += 1
    return n


@numba.njit(cache=True)
def rollout_value(work, player, cfg, table, values, rng, policy, depth):
    """Place the remaining cards of ``work`` (deal complete) for ``player``; return the final value."""
    moves = 0
    while work[K.S_NUM_PLACED + player] < K.NUM_CELLS:
        if depth >= 0 and moves >= depth:
            return grid_value(work, player, cfg, table, values)
        if policy == POLICY_LEARNED:
            cell = learned_cell(work, player, cfg, table, values, rng)
        else:
            cell = K.greedy_cell(work, player, cfg, table, rng)
        K.place_card(work, player, cell)
        moves += 1
    return float(K.grid_score(work, player, cfg, table))


@numba.njit(cache=True)
def _mc_batch(state, player, cfg, table, values, cands, ncand, num_sims, rng, policy, depth, sums):
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
            sums[i] += rollout_value(work, player, cfg, table, values, rng, policy, depth)


def mc_batch(state, player, cfg, table, values, cands, num_sims, rng, policy, depth, sums) -> None:
    """Add the values of ``num_sims`` rollouts per candidate cell to ``sums`` (float64 (len(cands),)).

    ``policy`` is ``POLICY_GREEDY`` or ``POLICY_LEARNED``; ``depth`` < 0 plays
    to the end, otherwise the grid is valued by the learned table after
    ``depth`` placements. ``rng`` is a ``xorshift`` generator state.
    """
    if len(sums) != len(cands):
        raise ValueError("sums must have one entry per candidate cell")
    _mc_batch(state, player, cfg, table, values, cands, len(cands), int(num_sims), rng, int(policy),
              int(depth), sums)


@numba.njit(cache=True)
def _expectimax(state, player, cfg, table, values, cands, ncand, out):
    base = K.S_GRID + K.NUM_CELLS * player
    placed = state[K.S_NUM_PLACED + player]
    card = state[K.S_DEAL + placed]
    known = np.empty(NUM_CARDS, np.int64)
    nknown = _future_cards(state, player, known)
    nxt = np.empty(NUM_CARDS, np.int64)
    if nknown > 0:
        nxt[0] = known[0]
        nnext = 1
    else:
        nnext = K.unseen_cards(state, nxt)
    work = state.copy()
    for i in range(ncand):
        cell = cands[i]
        work[base + cell] = card
        work[K.S_NUM_PLACED + player] = placed + 1
        if placed + 1 == K.NUM_CELLS:
            out[i] = float(K.grid_score(work, player, cfg, table))
        else:
            # Best grid value after the next card = grid value before it (with it seen) + its best gain.
            seen = seen_word(work, player)
            total = 0.0
            for k in range(nnext):
                seen_k = seen + card_seen_word(nxt[k])
                total += grid_value_with_seen(work, player, placed + 2, seen_k, cfg, table, values) + best_gain(
                    work, player, nxt[k], cfg, table, values)
            out[i] = total / nnext
        work[base + cell] = -1
        work[K.S_NUM_PLACED + player] = placed


def expectimax_values(state, player, cfg, table, values, cands) -> np.ndarray:
    """Two-ply expectimax value of each candidate cell: float64 (len(cands),).

    The value is the expectation over the next card (every unseen card, or the
    known next card) of the best learned grid value after placing it; chance is
    enumerated exactly, so the result is deterministic.
    """
    out = np.zeros(len(cands), dtype=np.float64)
    _expectimax(state, player, cfg, table, values, cands, len(cands), out)
    return out
