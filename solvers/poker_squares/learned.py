"""Learned values of abstract partial lines (Numba), in the manner of Neller et al., with outs.

A partial row or column is reduced to a small abstract key; a table holds, for
each key, the mean final points of lines seen in that key during self-play.
A placement is valued by the sum of the ten line values after it (only the
card's row and column change, so the comparison uses those two alone).

Beyond Neller et al.'s abstraction (rank multiplicities, flush and straight
still possible, cards to come, row or column), the key counts *outs*: how many
cards not yet seen can still complete or improve the line. Seen cards are the
cards on the player's grid (and, when a placement is valued, the card being
placed): the deal order of the rest is unknown. Abstract key of a line that
is not full (``NUM_KEYS`` = 26 * 2 * 60 * 5 * 4 * 7 = 436,800)::

    key = ((((placed * 2 + is_column) * 60 + pattern) * 5 + flush) * 4 + straight) * 7 + rank_outs

- ``placed``: cards on the grid (0..25) when the line is valued: how many
  cards are still to come, which sets how likely a partial line is to fill up.
- ``is_column``: rows and columns are symmetric in the rules, but a learned
  policy specialises them (e.g. flushes in columns), so their values differ.
- ``pattern`` = singles + 5 * (pairs + 3 * (trips + 2 * quads)): the rank
  multiplicities (which also fix the number of cards ``n``, 0..4).
- ``flush``: 0 if the cards have two suits or fewer unseen cards of their suit
  remain than the ``5 - n`` the line needs; else ``1 + min(spare, 3)`` with
  ``spare`` = unseen cards of the suit beyond those needed. 4 for an empty line.
- ``straight``: the number (at most 3) of five-rank windows (ace high or low)
  that hold every rank of the line, with no repeated rank, and whose missing
  ranks all still have an unseen card. 3 for an empty line.
- ``rank_outs``: unseen cards of the ranks the line holds, at most 6 (the
  cards that would pair, trip or quad it). 0 for an empty line.

Worked example: with 7 cards on the grid, among them the column ``7h 7c 9d``
and no other 7 or 9, pattern 1 + 5 * 1 = 6, suits mixed (flush 0), a pair
(straight 0), rank outs 2 + 3 = 5: key
``((((7 * 2 + 1) * 60 + 6) * 5 + 0) * 4 + 0) * 7 + 5 = 126,845``.

Seen cards travel through the kernels as one packed ``int64`` word: the count
of rank ``r`` (0..12, rank - 2) at bits ``3 r .. 3 r + 2``, the count of suit
``s`` at bits ``40 + 4 s .. 43 + 4 s``.

Training (``train_games``) is Monte Carlo with epsilon-greedy self-play:
each game is played greedily on the current table with probability ``1 -
eps`` per move (a uniformly random cell otherwise), and every key visited
after every placement moves towards the final points of its line by the step
``1 / min(visits, STEP_CAP)``, so later, better-played games weigh more.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.cards import NUM_CARDS, popcount
from gamut.envs.hands import add_rank
from gamut.envs.rng import below, next_random, rng_state, shuffle
from gamut.envs.poker_squares import kernels as K

TABLE_VERSION = 2
NUM_PLACED = K.NUM_CELLS + 1
NUM_PATTERNS = 60
NUM_FLUSH, NUM_STRAIGHT, NUM_RANK_OUTS = 5, 4, 7
NUM_KEYS = NUM_PLACED * 2 * NUM_PATTERNS * NUM_FLUSH * NUM_STRAIGHT * NUM_RANK_OUTS
STEP_CAP = 20000
_WHEEL = 0x100F  # ranks A, 2, 3, 4, 5 as bits rank - 2
_SUIT_SHIFT = 40


@numba.njit(cache=True)
def unseen_of_suit(seen, suit):
    """Cards of ``suit`` not in the packed seen word ``seen``."""
    return 13 - ((seen >> (_SUIT_SHIFT + 4 * suit)) & 15)


@numba.njit(cache=True)
def unseen_of_rank(seen, r):
    """Cards of rank ``r + 2`` not in the packed seen word ``seen``."""
    return 4 - ((seen >> (3 * r)) & 7)


@numba.njit(cache=True)
def card_seen_word(card):
    """The packed seen-cards word of the single card ``card`` (add words to combine cards)."""
    return (1 << (3 * (card >> 2))) + (1 << (_SUIT_SHIFT + 4 * (card & 3)))


@numba.njit(cache=True)
def seen_word(state, player):
    """Packed counts (see the module docstring) of the cards on ``player``'s grid."""
    base = K.S_GRID + K.NUM_CELLS * player
    seen = 0
    for cell in range(K.NUM_CELLS):
        card = state[base + cell]
        if card >= 0:
            seen += card_seen_word(card)
    return seen


@numba.njit(cache=True)
def line_masks(state, player, line):
    """Cards of ``line`` of ``player``'s grid: ``(n, suits, suit, m1, m2, m3, m4)``.

    ``n`` cards; ``suits`` the bit mask of their suits and ``suit`` the last
    one's; ``mk`` the bit mask (rank - 2) of the ranks held at least k times.
    """
    base = K.S_GRID + K.NUM_CELLS * player
    m1 = m2 = m3 = m4 = 0
    suits = 0
    n = 0
    suit = 0
    for i in range(K.GRID_SIZE):
        card = state[base + K.LINES[line, i]]
        if card < 0:
            continue
        n += 1
        bit = 1 << (card >> 2)
        suit = card & 3
        suits |= 1 << suit
        m1, m2, m3, m4 = add_rank(bit, m1, m2, m3, m4)
    return n, suits, suit, m1, m2, m3, m4


@numba.njit(cache=True)
def dead_ranks(seen):
    """Bit mask (rank - 2) of the ranks with no unseen card left (all four in the packed ``seen``)."""
    dead = 0
    for r in range(13):
        if unseen_of_rank(seen, r) == 0:
            dead |= 1 << r
    return dead


@numba.njit(cache=True)
def live_windows(ranks, dead):
    """Five-rank windows (ace high or low) holding the ranks ``ranks`` with none of their other ranks ``dead``."""
    windows = 0
    if ranks & _WHEEL == ranks and (_WHEEL & ~ranks) & dead == 0:
        windows += 1
    for low in range(9):
        window = 0x1F << low
        if ranks & window == ranks and (window & ~ranks) & dead == 0:
            windows += 1
    return windows


@numba.njit(cache=True)
def line_windows(masks, dead):
    """``live_windows`` of a line's ranks (``masks`` from ``line_masks``); 0 when it is empty or paired."""
    n, _, _, m1, m2, _, _ = masks
    return live_windows(m1, dead) if n > 0 and m2 == 0 else 0


@numba.njit(cache=True)
def key_from_masks(masks, windows, line, placed, seen):
    """Abstract key of ``line`` from its ``line_masks`` and ``line_windows``; -1 if the line is full."""
    n, suits, suit, m1, m2, m3, m4 = masks
    if n == K.GRID_SIZE:
        return -1
    pattern = popcount(m1 & ~m2) + 5 * (popcount(m2 & ~m3) + 3 * (popcount(m3 & ~m4) + 2 * popcount(m4)))
    flush, straight, outs = NUM_FLUSH - 1, NUM_STRAIGHT - 1, 0
    if n > 0:
        flush = 0
        if popcount(suits) == 1:
            spare = unseen_of_suit(seen, suit) - (K.GRID_SIZE - n)
            if spare >= 0:
                flush = 1 + min(spare, 3)
        for r in range(13):
            if m1 >> r & 1:
                outs += unseen_of_rank(seen, r)
        straight = min(windows, NUM_STRAIGHT - 1)
        outs = min(outs, NUM_RANK_OUTS - 1)
    is_col = 1 if line >= K.GRID_SIZE else 0
    return (((((placed * 2 + is_col) * NUM_PATTERNS + pattern) * NUM_FLUSH + flush) * NUM_STRAIGHT + straight)
            * NUM_RANK_OUTS + outs)


@numba.njit(cache=True)
def key_with_seen(state, player, line, placed, seen):
    """Abstract key of ``line`` given the packed seen cards ``seen``; -1 if the line is full."""
    masks = line_masks(state, player, line)
    return key_from_masks(masks, line_windows(masks, dead_ranks(seen)), line, placed, seen)


@numba.njit(cache=True)
def line_key(state, player, line, placed):
    """Abstract key of ``line`` of ``player``'s grid with ``placed`` cards on it (seen: the grid); -1 if full."""
    return key_with_seen(state, player, line, placed, seen_word(state, player))


@numba.njit(cache=True)
def line_value_with_seen(state, player, line, placed, seen, cfg, table, values):
    """Learned value of ``line`` (its points once full) with ``placed`` cards on the grid and ``seen`` seen."""
    return _value_with_dead(state, player, line, placed, seen, dead_ranks(seen), cfg, table, values)


@numba.njit(cache=True)
def _value_with_dead(state, player, line, placed, seen, dead, cfg, table, values):
    """``line_value_with_seen`` with the ``dead_ranks`` of ``seen`` computed once by the caller."""
    masks = line_masks(state, player, line)
    return value_from_masks(state, player, line, masks, line_windows(masks, dead), placed, seen, cfg, table, values)


@numba.njit(cache=True)
def value_from_masks(state, player, line, masks, windows, placed, seen, cfg, table, values):
    """``line_value_with_seen`` from the line's ``line_masks`` and ``line_windows``, already computed."""
    key = key_from_masks(masks, windows, line, placed, seen)
    if key < 0:
        return float(K.line_points(state, player, line, cfg, table))
    return values[key]


@numba.njit(cache=True)
def line_value(state, player, line, placed, cfg, table, values):
    """Learned expected final points of ``line`` (exact points once it is full); seen: the grid."""
    return line_value_with_seen(state, player, line, placed, seen_word(state, player), cfg, table, values)


@numba.njit(cache=True)
def grid_value_with_seen(state, player, placed, seen, cfg, table, values):
    """Sum of the ten line values of ``player``'s grid valued with ``placed`` cards and ``seen`` cards seen."""
    dead = dead_ranks(seen)
    total = 0.0
    for line in range(K.NUM_LINES):
        total += _value_with_dead(state, player, line, placed, seen, dead, cfg, table, values)
    return total


@numba.njit(cache=True)
def grid_value(state, player, cfg, table, values):
    """Learned expected final score of ``player``'s grid: the sum of its ten line values."""
    return grid_value_with_seen(state, player, state[K.S_NUM_PLACED + player], seen_word(state, player), cfg,
                                table, values)


@numba.njit(cache=True)
def _gain_with_seen(state, player, cell, card, seen, cfg, table, values):
    """``placement_gain`` with the packed seen word of the grid plus ``card`` given."""
    base = K.S_GRID + K.NUM_CELLS * player
    after = state[K.S_NUM_PLACED + player] + 1
    row, col = K.CELL_LINES[cell, 0], K.CELL_LINES[cell, 1]
    before = line_value_with_seen(state, player, row, after, seen, cfg, table, values) + line_value_with_seen(
        state, player, col, after, seen, cfg, table, values)
    state[base + cell] = card
    gain = line_value_with_seen(state, player, row, after, seen, cfg, table, values) + line_value_with_seen(
        state, player, col, after, seen, cfg, table, values) - before
    state[base + cell] = -1
    return gain


@numba.njit(cache=True)
def placement_gain(state, player, cell, card, cfg, table, values):
    """Change of the learned grid value when ``card`` goes into the empty ``cell``.

    The card is seen wherever it goes and the other eight lines are valued at
    the same (later) time whatever the cell, so only the cell's row and column
    enter the comparison; all four line values count ``card`` as seen.
    """
    seen = seen_word(state, player) + card_seen_word(card)
    return _gain_with_seen(state, player, cell, card, seen, cfg, table, values)


@numba.njit(cache=True)
def best_value_after(work, player, card, cfg, table, values):
    """The highest ``grid_value`` of ``player``'s grid over the empty cells ``card`` may go to.

    Full lines count their exact points, so on the last card this is the best
    final score. The ten line values without the card (``card`` seen) are
    shared by every cell, so each cell costs only the two line values it
    changes. ``work`` is restored before returning.
    """
    base = K.S_GRID + K.NUM_CELLS * player
    after = work[K.S_NUM_PLACED + player] + 1
    seen = seen_word(work, player) + card_seen_word(card)
    dead = dead_ranks(seen)
    before = np.empty(K.NUM_LINES, np.float64)
    total = 0.0
    for line in range(K.NUM_LINES):
        before[line] = _value_with_dead(work, player, line, after, seen, dead, cfg, table, values)
        total += before[line]
    best = -np.inf
    for cell in range(K.NUM_CELLS):
        if work[base + cell] >= 0:
            continue
        row, col = K.CELL_LINES[cell, 0], K.CELL_LINES[cell, 1]
        work[base + cell] = card
        gain = (_value_with_dead(work, player, row, after, seen, dead, cfg, table, values)
                + _value_with_dead(work, player, col, after, seen, dead, cfg, table, values) - before[row] - before[col])
        work[base + cell] = -1
        if gain > best:
            best = gain
    return total + best


@numba.njit(cache=True)
def learned_cell(state, player, cfg, table, values, rng):
    """The empty cell of highest learned placement value for the card to place (ties at random)."""
    card = K.card_to_place(state, player)
    base = K.S_GRID + K.NUM_CELLS * player
    seen = seen_word(state, player) + card_seen_word(card)
    best_gain = -np.inf
    best = -1
    ties = 0
    for cell in range(K.NUM_CELLS):
        if state[base + cell] >= 0:
            continue
        gain = _gain_with_seen(state, player, cell, card, seen, cfg, table, values)
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
        seen = 0
        for step in range(K.NUM_CELLS):
            K.deal_card(state, deck[step])
            if (next_random(rng) >> np.uint64(11)) * (1.0 / (1 << 42)) < eps:
                cell = _random_empty_cell(state, rng)
            else:
                cell = learned_cell(state, 0, cfg, table, values, rng)
            K.place_card(state, 0, cell)
            seen += card_seen_word(deck[step])
            for line in range(K.NUM_LINES):
                keys[step, line] = key_with_seen(state, 0, line, step + 1, seen)
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
    from gamut.envs.hands import HAND_TABLE

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
