"""Learned values of abstract partial lines (Numba), in the manner of Neller et al.

A partial row or column is reduced to a small abstract key; a table holds, for
each key, the mean final points of lines seen in that key during self-play.
A placement is valued by the sum of the ten line values after it (only the
card's row and column change, so the comparison uses those two alone).

Abstract key of a line that is not full (``NUM_KEYS`` = 26 * 2 * 5 * 60 * 2 * 2)::

    key = ((((placed * 2 + is_column) * 5 + n) * 60 + pattern) * 2 + flush_ok) * 2 + straight_ok

- ``placed``: cards on the whole grid (0..25) when the line is valued: how many
  cards are still to come, which sets how likely a partial line is to fill up.
- ``is_column``: rows and columns are symmetric in the rules, but a learned
  policy specialises them (e.g. flushes in columns), so their values differ.
- ``n``: cards in the line, 0..4 (full lines are valued by their exact points).
- ``pattern`` = singles + 5 * (pairs + 3 * (trips + 2 * quads)): the rank
  multiplicities, i.e. which of pair, two pair, trips, quads the line holds.
- ``flush_ok``: every card of the line has one suit (true when empty).
- ``straight_ok``: the ranks are distinct and fit in one five-rank window
  (ace high or low) (true when empty).

Worked example: with 7 cards on the grid, the column ``7h 7c 9d`` (n = 3, one
pair and one single: pattern 1 + 5 * 1 = 6, suits mixed, not straight-able)
has key ``((((7 * 2 + 1) * 5 + 3) * 60 + 6) * 2 + 0) * 2 + 0 = 18,744``.

Training (``train_games``) is Monte Carlo with epsilon-greedy self-play:
each game is played greedily on the current table with probability ``1 -
eps`` per move (a uniformly random cell otherwise), and every key visited
after every placement moves towards the final points of its line by the step
``1 / min(visits, STEP_CAP)``, so later, better-played games weigh more.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.cards import NUM_CARDS
from envs.rng import below, next_random, rng_state, shuffle
from envs.poker_squares import kernels as K

NUM_PLACED = K.NUM_CELLS + 1
NUM_PATTERNS = 60
NUM_KEYS = NUM_PLACED * 2 * 5 * NUM_PATTERNS * 2 * 2
STEP_CAP = 20000
_WHEEL = 0x100F  # ranks A, 2, 3, 4, 5 as bits rank - 2


@numba.njit(cache=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@numba.njit(cache=True)
def line_key(state, player, line, placed):
    """Abstract key of ``line`` of ``player``'s grid with ``placed`` cards on it; -1 if full."""
    base = K.S_GRID + K.NUM_CELLS * player
    m1 = m2 = m3 = m4 = 0
    suits = 0
    n = 0
    for i in range(K.GRID_SIZE):
        card = state[base + K.LINES[line, i]]
        if card < 0:
            continue
        n += 1
        bit = 1 << (card >> 2)
        suits |= 1 << (card & 3)
        if m3 & bit:
            m4 |= bit
        elif m2 & bit:
            m3 |= bit
        elif m1 & bit:
            m2 |= bit
        else:
            m1 |= bit
    if n == K.GRID_SIZE:
        return -1
    pattern = _popcount(m1 & ~m2) + 5 * (_popcount(m2 & ~m3) + 3 * (_popcount(m3 & ~m4) + 2 * _popcount(m4)))
    flush_ok = 1 if n == 0 or _popcount(suits) == 1 else 0
    straight_ok = 0
    if m2 == 0:
        if m1 & _WHEEL == m1:
            straight_ok = 1
        for low in range(9):
            window = 0x1F << low
            if m1 & window == m1:
                straight_ok = 1
    is_col = 1 if line >= K.GRID_SIZE else 0
    return ((((placed * 2 + is_col) * 5 + n) * NUM_PATTERNS + pattern) * 2 + flush_ok) * 2 + straight_ok


@numba.njit(cache=True)
def line_value(state, player, line, placed, cfg, table, values):
    """Learned expected final points of ``line`` (exact points once it is full)."""
    key = line_key(state, player, line, placed)
    if key < 0:
        return float(K.line_points(state, player, line, cfg, table))
    return values[key]


@numba.njit(cache=True)
def grid_value(state, player, cfg, table, values):
    """Learned expected final score of ``player``'s grid: the sum of its ten line values."""
    placed = state[K.S_NUM_PLACED + player]
    total = 0.0
    for line in range(K.NUM_LINES):
        total += line_value(state, player, line, placed, cfg, table, values)
    return total


@numba.njit(cache=True)
def placement_gain(state, player, cell, card, cfg, table, values):
    """Change of the learned grid value when ``card`` goes into the empty ``cell``.

    The other eight lines are valued at the same (later) time whatever the cell,
    so only the cell's row and column enter the comparison.
    """
    base = K.S_GRID + K.NUM_CELLS * player
    after = state[K.S_NUM_PLACED + player] + 1
    row, col = K.CELL_LINES[cell, 0], K.CELL_LINES[cell, 1]
    before = line_value(state, player, row, after, cfg, table, values) + line_value(
        state, player, col, after, cfg, table, values)
    state[base + cell] = card
    gain = line_value(state, player, row, after, cfg, table, values) + line_value(
        state, player, col, after, cfg, table, values) - before
    state[base + cell] = -1
    return gain


@numba.njit(cache=True)
def learned_cell(state, player, cfg, table, values, rng):
    """The empty cell of highest learned placement value for the card to place (ties at random)."""
    card = K.card_to_place(state, player)
    base = K.S_GRID + K.NUM_CELLS * player
    best_gain = -np.inf
    best = -1
    ties = 0
    for cell in range(K.NUM_CELLS):
        if state[base + cell] >= 0:
            continue
        gain = placement_gain(state, player, cell, card, cfg, table, values)
        if gain > best_gain + 1e-12:
            best_gain, best, ties = gain, cell, 1
        elif gain >= best_gain - 1e-12:
            ties += 1
            if below(rng, ties) == 0:
                best = cell
    return best


@numba.njit(cache=True)
def _random_empty_cell(state, rng):
    empty = 0
    for cell in range(K.NUM_CELLS):
        if state[K.S_GRID + cell] < 0:
            empty += 1
    k = below(rng, empty)
    for cell in range(K.NUM_CELLS):
        if state[K.S_GRID + cell] < 0:
            if k == 0:
                return cell
            k -= 1
    return -1


@numba.njit(cache=True)
def _train(values, visits, cfg, table, num_games, seed, eps_start, eps_end, done, total, scores):
    rng = rng_state(seed)
    deck = np.arange(NUM_CARDS)
    state = np.empty(K.STATE_SIZE, np.int64)
    keys = np.empty((K.NUM_CELLS, K.NUM_LINES), np.int64)
    final = np.empty(K.NUM_LINES, np.float64)
    for g in range(num_games):
        # Exploration decays linearly over the whole training run (checkpoints included).
        frac = (done + g) / max(total - 1, 1)
        eps = eps_start + (eps_end - eps_start) * min(frac, 1.0)
        K.init_state(state)
        shuffle(deck, NUM_CARDS, rng)
        for step in range(K.NUM_CELLS):
            K.deal_card(state, deck[step])
            if (next_random(rng) >> np.uint64(11)) * (1.0 / (1 << 42)) < eps:
                cell = _random_empty_cell(state, rng)
            else:
                cell = learned_cell(state, 0, cfg, table, values, rng)
            K.place_card(state, 0, cell)
            for line in range(K.NUM_LINES):
                keys[step, line] = line_key(state, 0, line, step + 1)
        total_score = 0
        for line in range(K.NUM_LINES):
            pts = K.line_points(state, 0, line, cfg, table)
            final[line] = pts
            total_score += pts
        scores[g] = total_score
        for step in range(K.NUM_CELLS):
            for line in range(K.NUM_LINES):
                key = keys[step, line]
                if key < 0:
                    continue
                visits[key] += 1
                values[key] += (final[line] - values[key]) / min(visits[key], STEP_CAP)


def train_games(values: np.ndarray, visits: np.ndarray, cfg: np.ndarray, num_games: int, seed: int,
                eps_start: float, eps_end: float, done: int, total: int) -> np.ndarray:
    """Play ``num_games`` self-play training games, updating ``values`` and ``visits`` in place.

    Parameters
    ----------
    values : float64 (NUM_KEYS,)
        Learned mean final points per abstract key (updated).
    visits : int64 (NUM_KEYS,)
        Visits per key (updated).
    cfg : int64 (CONFIG_SIZE,)
        Game config; only the points are used (training plays one-player games).
    num_games, seed : int
        Games of this chunk and its seed (same seed, same games and table).
    eps_start, eps_end : float
        Exploration rate at the start and at the end of the whole run.
    done, total : int
        Games already played in earlier chunks and the planned total, for the schedule.

    Returns
    -------
    int64 (num_games,)
        The score of each training game (exploration included).
    """
    from envs.hands import HAND_TABLE

    if values.shape != (NUM_KEYS,) or values.dtype != np.float64:
        raise ValueError(f"values must be float64 ({NUM_KEYS},)")
    if visits.shape != (NUM_KEYS,) or visits.dtype != np.int64:
        raise ValueError(f"visits must be int64 ({NUM_KEYS},)")
    if num_games < 0 or not 0.0 <= eps_end <= 1.0 or not 0.0 <= eps_start <= 1.0:
        raise ValueError("num_games must be >= 0 and both exploration rates in [0, 1]")
    scores = np.zeros(num_games, dtype=np.int64)
    _train(values, visits, cfg, HAND_TABLE, int(num_games), int(seed), float(eps_start), float(eps_end),
           int(done), int(total), scores)
    return scores
