"""Poker Squares rules as Numba kernels on one small ``int64`` state array.

State layout (``STATE_SIZE`` = 78 entries, ``-1`` marks an empty cell / undealt card)::

    [0, 25)    grid of player 0: cell id = 5 * row + column -> card id
    [25, 50)   grid of player 1 (unused with one player)
    [50, 75)   the dealt cards in deal order (both players place the same sequence)
    75         number of cards dealt
    76, 77     number of cards placed by player 0, player 1

Config layout (``CONFIG_SIZE`` = 13, built by ``make_config``)::

    0 players (1 or 2), 1 open (1: all 25 cards are dealt before any is placed),
    2 difference (two players: return the score difference instead of +1/0/-1),
    [3, 13) points of the ten categories, high card .. royal flush (envs.hands order)

Turn order: with the standard deal a card is dealt (chance), then placed by
player 0, then (two players) by player 1, then the next card is dealt. In the
open variant the 25 cards are all dealt first; the players then place them in
deal order, alternating with two players. Worked example (one player,
standard): after the chance outcome 51 (As) the player's action 12 puts the
ace of spades in the centre cell (row 2, column 2).
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.cards import NUM_CARDS
from gamut.envs.hands import HAND_TABLE, best_strength, category_of, hand_strength5
from gamut.envs.rng import below, rng_state

GRID_SIZE = 5
NUM_CELLS = GRID_SIZE * GRID_SIZE
NUM_LINES = 2 * GRID_SIZE
MAX_PLAYERS = 2
S_GRID = 0  # player p's grid starts at S_GRID + NUM_CELLS * p
S_DEAL = S_GRID + MAX_PLAYERS * NUM_CELLS
S_NUM_DEALT = S_DEAL + NUM_CELLS
S_NUM_PLACED = S_NUM_DEALT + 1
STATE_SIZE = S_NUM_PLACED + MAX_PLAYERS

C_PLAYERS, C_OPEN, C_DIFFERENCE, C_POINTS = 0, 1, 2, 3
CONFIG_SIZE = C_POINTS + 10

CHANCE = -1
TERMINAL = -4

# LINES[i] = the five cell ids of line i: rows 0..4, then columns 0..4.
LINES = np.array(
    [[5 * r + c for c in range(GRID_SIZE)] for r in range(GRID_SIZE)]
    + [[5 * r + c for r in range(GRID_SIZE)] for c in range(GRID_SIZE)],
    dtype=np.int64,
)
# CELL_LINES[cell] = (its row line, its column line).
CELL_LINES = np.array([[cell // 5, GRID_SIZE + cell % 5] for cell in range(NUM_CELLS)], dtype=np.int64)


def make_config(players: int, open_variant: bool, difference: bool, points) -> np.ndarray:
    """Kernel config array (int64 (CONFIG_SIZE,)) from checked parameters."""
    cfg = np.zeros(CONFIG_SIZE, dtype=np.int64)
    cfg[C_PLAYERS], cfg[C_OPEN], cfg[C_DIFFERENCE] = players, int(open_variant), int(difference)
    cfg[C_POINTS:] = np.asarray(points, dtype=np.int64)
    return cfg


@numba.njit(cache=True)
def init_state(state):
    """Write the initial state (empty grids, nothing dealt) into ``state`` in place."""
    state[:] = -1
    state[S_NUM_DEALT] = 0
    state[S_NUM_PLACED] = 0
    state[S_NUM_PLACED + 1] = 0


@numba.njit(cache=True)
def current_player(state, cfg):
    """0 or 1 for a placing player, ``CHANCE`` (-1) for a deal, ``TERMINAL`` (-4)."""
    dealt = state[S_NUM_DEALT]
    if cfg[C_OPEN] and dealt < NUM_CELLS:
        return CHANCE
    p = 0
    if cfg[C_PLAYERS] == 2 and state[S_NUM_PLACED + 1] < state[S_NUM_PLACED]:
        p = 1
    if state[S_NUM_PLACED + p] < dealt:
        return p
    if dealt < NUM_CELLS:
        return CHANCE
    return TERMINAL


@numba.njit(cache=True)
def card_to_place(state, player):
    """Card id that ``player`` places next (the next card of the deal they have not placed)."""
    return state[S_DEAL + state[S_NUM_PLACED + player]]


@numba.njit(cache=True)
def legal_cells(state, player, out):
    """Write the empty cells of ``player``'s grid, ascending, into ``out``; return their number."""
    # Branch-free: write every cell, advance past the empty ones (the batched environment's hot loop).
    base = S_GRID + NUM_CELLS * player
    n = 0
    for cell in range(NUM_CELLS):
        out[n] = cell
        n += state[base + cell] < 0
    return n


@numba.njit(cache=True)
def unseen_cards(state, out):
    """Write the card ids not dealt yet, ascending, into ``out``; return their number."""
    dealt = 0
    for i in range(state[S_NUM_DEALT]):
        dealt |= 1 << state[S_DEAL + i]
    n = 0
    for card in range(NUM_CARDS):  # branch-free, as in legal_cells
        out[n] = card
        n += 1 - ((dealt >> card) & 1)
    return n


@numba.njit(cache=True)
def deal_card(state, card):
    """Chance: deal ``card`` (must not be dealt yet; checked by the caller)."""
    state[S_DEAL + state[S_NUM_DEALT]] = card
    state[S_NUM_DEALT] += 1


@numba.njit(cache=True)
def place_card(state, player, cell):
    """``player`` puts their next card into the empty ``cell`` (checked by the caller)."""
    state[S_GRID + NUM_CELLS * player + cell] = card_to_place(state, player)
    state[S_NUM_PLACED + player] += 1


@numba.njit(cache=True)
def line_strength(state, player, line, table):
    """Strength (envs.hands scale) of the cards now in ``line`` of ``player``'s grid.

    A full line is a five-card hand; a partial line is valued as the small hand
    it holds (pairs, trips, quads; straights and flushes need five cards).
    """
    base = S_GRID + NUM_CELLS * player
    cells = LINES[line]
    c0, c1, c2 = state[base + cells[0]], state[base + cells[1]], state[base + cells[2]]
    c3, c4 = state[base + cells[3]], state[base + cells[4]]
    if c0 >= 0 and c1 >= 0 and c2 >= 0 and c3 >= 0 and c4 >= 0:
        return hand_strength5(c0, c1, c2, c3, c4, table)
    return best_strength((c0, c1, c2, c3, c4), GRID_SIZE, -1, table)  # skips empty (-1) cells


@numba.njit(cache=True)
def line_points(state, player, line, cfg, table):
    """Points of ``line`` as it stands (partial lines: the category of the cards so far)."""
    return cfg[C_POINTS + category_of(line_strength(state, player, line, table))]


@numba.njit(cache=True)
def grid_score(state, player, cfg, table):
    """Sum of the ten line points of ``player``'s grid (the final score when it is full)."""
    total = 0
    for line in range(NUM_LINES):
        total += line_points(state, player, line, cfg, table)
    return total


@numba.njit(cache=True)
def returns(state, cfg, table, out):
    """Write each player's return into ``out`` (zeros unless the game is over)."""
    out[:] = 0.0
    if current_player(state, cfg) != TERMINAL:
        return
    s0 = grid_score(state, 0, cfg, table)
    if cfg[C_PLAYERS] == 1:
        out[0] = s0
        return
    diff = s0 - grid_score(state, 1, cfg, table)
    if not cfg[C_DIFFERENCE]:
        diff = (diff > 0) - (diff < 0)
    out[0] = diff
    out[1] = -diff


@numba.njit(cache=True)
def greedy_cell(state, player, cfg, table, rng):
    """The empty cell that most increases the points of its row and column as they stand.

    Ties (common: most placements change no category) are broken uniformly at random.
    """
    card = card_to_place(state, player)
    base = S_GRID + NUM_CELLS * player
    best_gain = -(1 << 62)
    best = -1
    ties = 0
    for cell in range(NUM_CELLS):
        if state[base + cell] >= 0:
            continue
        row, col = CELL_LINES[cell, 0], CELL_LINES[cell, 1]
        before = line_points(state, player, row, cfg, table) + line_points(state, player, col, cfg, table)
        state[base + cell] = card
        gain = line_points(state, player, row, cfg, table) + line_points(state, player, col, cfg, table) - before
        state[base + cell] = -1
        if gain > best_gain:
            best_gain, best, ties = gain, cell, 1
        elif gain == best_gain:
            ties += 1
            if below(rng, ties) == 0:
                best = cell
    return best


@numba.njit(cache=True)
def play_out(state, cfg, table, rng, greedy):
    """Play ``state`` to the end in place: uniform deals, random (or greedy) placements."""
    cells = np.empty(NUM_CELLS, np.int64)
    cards = np.empty(NUM_CARDS, np.int64)
    while True:
        p = current_player(state, cfg)
        if p == TERMINAL:
            return
        if p == CHANCE:
            n = unseen_cards(state, cards)
            deal_card(state, cards[below(rng, n)])
        elif greedy:
            place_card(state, p, greedy_cell(state, p, cfg, table, rng))
        else:
            n = legal_cells(state, p, cells)
            place_card(state, p, cells[below(rng, n)])


@numba.njit(cache=True)
def _rollouts(state, cfg, table, num_games, seed, greedy, out):
    rng = rng_state(seed)
    work = np.empty_like(state)
    for g in range(num_games):
        work[:] = state
        play_out(work, cfg, table, rng, greedy)
        for p in range(cfg[C_PLAYERS]):
            out[g, p] = grid_score(work, p, cfg, table)


def rollout_scores(state: np.ndarray, cfg: np.ndarray, num_games: int, seed: int, greedy: bool = False) -> np.ndarray:
    """Final grid scores of ``num_games`` playouts from ``state``: int64 (num_games, players).

    Deals are uniform over unseen cards; placements uniformly random, or greedy
    (``greedy_cell``). The same ``seed`` gives the same games.
    """
    if num_games < 0:
        raise ValueError(f"num_games must be >= 0, got {num_games}")
    out = np.zeros((num_games, int(cfg[C_PLAYERS])), dtype=np.int64)
    _rollouts(np.asarray(state, dtype=np.int64), cfg, HAND_TABLE, int(num_games), int(seed), bool(greedy), out)
    return out
