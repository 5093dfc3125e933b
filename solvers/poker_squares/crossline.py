"""A learned correction for what the ten line values miss: lines competing for cells, suits and ranks (Numba).

The learned grid value (``gamut.solvers.poker_squares.learned``) sums ten line
values, each learned alone. It cannot see that an empty cell must serve its
row and its column at once, nor that two lines drawing to a flush of one suit
share its unseen cards. The correction is a linear function of features of
the whole grid, one weight vector per number of cards placed::

    corrected value = grid_value + weights[placed] . features      (placed 1..24)

and the plain score once the grid is full. The weights are fitted to the
residual ``final score - grid_value`` of the afterstates of self-play games
played greedily on the corrected value itself, by ridge regression over the
pooled normal equations of every round so far (``fit_rounds``): round 0 plays
with zero weights (the learned policy), each later round with the weights of
the fit before it.

Features (``NUM_FEATURES`` = 295, float64) of a grid with ``seen`` cards
(the grid and, when a placement is valued, the card placed)::

    [0, 289)  empty cells counted by the classes of their row r and column c: index 17 * r + c
    289       empty cells whose row and column draw to flushes of two different suits
    290       sum over suits of C(L, 2), L = lines drawing to a flush of that suit
    291       sum over suits of max(0, cards those lines still need - unseen cards of the suit)
    292       sum over ranks of max(0, W - 1), W = lines with a pair or better holding the rank
    293       sum over ranks of max(0, W - unseen cards of the rank)
    294       1 (the mean residual of the number of cards placed)

Line classes (lines with an empty cell; n = cards in the line): 0 empty; 1
one card; 2, 3, 4 distinct ranks with neither a flush nor a straight
possible, n = 2, 3, 4; 5, 6, 7 drawing to a flush only, n = 2, 3, 4; 8, 9,
10 drawing to a straight only, n = 2, 3, 4; 11 drawing to both (a straight
flush); 12 one pair, n = 2; 13 one pair and one or two other cards; 14 two
pairs; 15 three of a kind, n = 3; 16 three of a kind and another card, or
four of a kind. A line draws to a flush when its cards share one suit and
enough cards of it are unseen, and to a straight when some five-rank window
(ace high or low) holds its ranks, once each, and every missing rank still
has an unseen card (as ``learned.key_with_seen`` counts them). The classes
split the cards a line holds finely enough that the weight of an empty
cell can say how much each of its two lines still wants it.

Worked example: on the grid whose only cards are ``Ah`` and ``Kh`` in row 0
(cells 0 and 1), row 0 is class 11 (two hearts in the window T-A), columns 0
and 1 are class 1 and the other lines class 0. The 23 empty cells count as:
cells 2..4 at (11, 0) -> feature 187 = 3; the 8 empty cells of columns 0 and
1 at (0, 1) -> feature 1 = 8; the 12 cells of rows 1..4 in columns 2..4 at
(0, 0) -> feature 0 = 12; feature 294 = 1, the rest 0.

Weights are stored per point system as ``crossline_<system>.npz`` beside the
learned table they correct, with that table's SHA-256: a retrained table makes
them stale, and they are refused with a message saying to refit. The file
holds ``weights`` float64 (26, 295) (rows 0 and 25 zero), the pooled normal
equations ``xtx`` (26, 295, 295) and ``xty`` (26, 295) that a resumed fit
continues, ``round_means`` (the mean score of each round's games),
``settings`` int64 (rounds, games per round, seed), ``ridge``, ``points``,
``table_sha256`` and ``version``.
"""

from __future__ import annotations

import time
from pathlib import Path

import numba
import numpy as np

from gamut.envs.cards import NUM_CARDS, popcount
from gamut.envs.rng import rng_state, shuffle
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares.learned import (card_seen_word, dead_ranks, grid_value_with_seen, line_masks,
                                           line_windows, seen_word, unseen_of_rank, unseen_of_suit, value_from_masks)
from gamut.solvers.poker_squares.training import (
    RESULTS_DIR, file_sha256, load_npz, save_npz, stream_seed, system_name, table_path,
)

WEIGHTS_VERSION = 2
NUM_CLASSES = 17
NUM_FEATURES = NUM_CLASSES * NUM_CLASSES + 6
NUM_PLACED = K.NUM_CELLS + 1
F_CROSS_FLUSH, F_FLUSH_PAIRS, F_FLUSH_SHORT, F_RANK_PAIRS, F_RANK_SHORT, F_BIAS = range(NUM_CLASSES ** 2,
                                                                                       NUM_FEATURES)
NO_WEIGHTS = np.zeros((0, NUM_FEATURES), dtype=np.float64)


def checked_weights(weights) -> np.ndarray:
    """``weights`` as contiguous float64; a clear error unless shaped (0 or NUM_PLACED, NUM_FEATURES).

    The kernels index the weights by the number of cards placed without bounds
    checks, so every entry point that hands weights to them passes them here.
    """
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if weights.shape not in ((0, NUM_FEATURES), (NUM_PLACED, NUM_FEATURES)):
        raise ValueError(f"weights must be float64 (0 or {NUM_PLACED}, {NUM_FEATURES}), got shape {weights.shape}")
    return weights


@numba.njit(cache=True)
def class_from_masks(masks, windows, seen, out):
    """Class of a line (-1 when full), its flush suit (-1 if none), cards it needs and held ranks if paired.

    ``masks`` and ``windows`` are the line's ``line_masks`` and
    ``line_windows``. Writes ``out[0]`` class, ``out[1]`` suit drawn to (or
    -1), ``out[2]`` empty cells, ``out[3]`` bit mask of held ranks (rank - 2)
    for a line with a pair or better, else 0.
    """
    n, suits, suit, m1, m2, m3, _ = masks
    out[1] = -1
    out[2] = K.GRID_SIZE - n
    out[3] = 0
    if n == K.GRID_SIZE:
        out[0] = -1
    elif n <= 1:
        out[0] = n
    elif m2 != 0:
        out[3] = m1
        if m3 != 0:
            out[0] = 15 if n == 3 else 16
        elif popcount(m2) >= 2:
            out[0] = 14
        else:
            out[0] = 12 if n == 2 else 13
    else:
        flush = False
        if popcount(suits) == 1 and unseen_of_suit(seen, suit) >= K.GRID_SIZE - n:
            flush = True
            out[1] = suit
        straight = windows > 0
        if flush and straight:
            out[0] = 11
        elif flush:
            out[0] = 3 + n
        elif straight:
            out[0] = 6 + n
        else:
            out[0] = n


@numba.njit(cache=True)
def _cell_terms(info, row, col, phi, sign):
    """Add ``sign`` times the features of one empty cell whose row and column have ``info[row]``, ``info[col]``."""
    phi[info[row, 0] * NUM_CLASSES + info[col, 0]] += sign
    if info[row, 1] >= 0 and info[col, 1] >= 0 and info[row, 1] != info[col, 1]:
        phi[F_CROSS_FLUSH] += sign


@numba.njit(cache=True)
def _competition(info, seen, phi):
    """Write the suit and rank competition features and the bias (features 290..294) from the line infos."""
    drawing = np.zeros(4, np.int64)
    needed = np.zeros(4, np.int64)
    wanted = np.zeros(13, np.int64)
    for line in range(K.NUM_LINES):
        if info[line, 1] >= 0:
            drawing[info[line, 1]] += 1
            needed[info[line, 1]] += info[line, 2]
        held = info[line, 3]
        while held:  # one step per held rank of a paired line (most lines hold none)
            low = held & -held
            wanted[popcount(low - 1)] += 1
            held ^= low
    phi[F_FLUSH_PAIRS] = phi[F_FLUSH_SHORT] = phi[F_RANK_PAIRS] = phi[F_RANK_SHORT] = 0.0
    for s in range(4):
        phi[F_FLUSH_PAIRS] += drawing[s] * (drawing[s] - 1) // 2
        phi[F_FLUSH_SHORT] += max(0, needed[s] - unseen_of_suit(seen, s))
    for r in range(13):
        phi[F_RANK_PAIRS] += max(0, wanted[r] - 1)
        phi[F_RANK_SHORT] += max(0, wanted[r] - unseen_of_rank(seen, r))
    phi[F_BIAS] = 1.0


@numba.njit(cache=True)
def features(state, player, seen, phi):
    """Write the ``NUM_FEATURES`` features (module docstring) of ``player``'s grid into ``phi``."""
    base = K.S_GRID + K.NUM_CELLS * player
    info = np.empty((K.NUM_LINES, 4), np.int64)
    dead = dead_ranks(seen)
    for line in range(K.NUM_LINES):
        masks = line_masks(state, player, line)
        class_from_masks(masks, line_windows(masks, dead), seen, info[line])
    phi[:] = 0.0
    for cell in range(K.NUM_CELLS):
        if state[base + cell] < 0:
            _cell_terms(info, K.CELL_LINES[cell, 0], K.CELL_LINES[cell, 1], phi, 1.0)
    _competition(info, seen, phi)


@numba.njit(cache=True)
def corrected_value(state, player, placed, seen, cfg, table, values, weights, phi):
    """Learned grid value plus the correction of ``placed`` cards (none when the grid is full or no weights)."""
    total = grid_value_with_seen(state, player, placed, seen, cfg, table, values)
    if weights.shape[0] > 0 and 0 < placed < K.NUM_CELLS:
        features(state, player, seen, phi)
        total += np.dot(weights[placed], phi)
    return total


@numba.njit(cache=True)
def _best_cell(state, player, card, cfg, table, values, weights):
    """(best corrected value, its lowest cell) of putting ``card`` into an empty cell; ``state`` is restored.

    Only the card's row and column change, so the line values and classes of
    the grid without the card (``card`` seen) are shared by every cell: each
    cell rescans two lines (one scan serves the value and the class) and moves
    the terms of the empty cells in them.
    """
    base = K.S_GRID + K.NUM_CELLS * player
    after = state[K.S_NUM_PLACED + player] + 1
    seen = seen_word(state, player) + card_seen_word(card)
    correct = weights.shape[0] > 0 and after < K.NUM_CELLS
    before = np.empty(K.NUM_LINES, np.float64)
    info = np.empty((K.NUM_LINES, 4), np.int64)
    total = 0.0
    shared = np.zeros(NUM_FEATURES, np.float64)
    dead = dead_ranks(seen)
    for line in range(K.NUM_LINES):
        masks = line_masks(state, player, line)
        windows = line_windows(masks, dead)
        before[line] = value_from_masks(state, player, line, masks, windows, after, seen, cfg, table, values)
        total += before[line]
        class_from_masks(masks, windows, seen, info[line])
    for cell in range(K.NUM_CELLS):
        if state[base + cell] < 0:
            _cell_terms(info, K.CELL_LINES[cell, 0], K.CELL_LINES[cell, 1], shared, 1.0)
    moved = info.copy()
    phi = np.empty(NUM_FEATURES, np.float64)
    best, best_cell = -np.inf, -1
    for cell in range(K.NUM_CELLS):
        if state[base + cell] >= 0:
            continue
        row, col = K.CELL_LINES[cell, 0], K.CELL_LINES[cell, 1]
        state[base + cell] = card
        row_masks, col_masks = line_masks(state, player, row), line_masks(state, player, col)
        row_windows, col_windows = line_windows(row_masks, dead), line_windows(col_masks, dead)
        value = (total - before[row] - before[col]
                 + value_from_masks(state, player, row, row_masks, row_windows, after, seen, cfg, table, values)
                 + value_from_masks(state, player, col, col_masks, col_windows, after, seen, cfg, table, values))
        if correct:
            class_from_masks(row_masks, row_windows, seen, moved[row])
            class_from_masks(col_masks, col_windows, seen, moved[col])
            phi[:] = shared
            _cell_terms(info, row, col, phi, -1.0)
            for i in range(K.GRID_SIZE):
                other = K.LINES[row, i]  # the row's other empty cells: new row class, same column
                if other != cell and state[base + other] < 0:
                    _cell_terms(info, row, K.CELL_LINES[other, 1], phi, -1.0)
                    _cell_terms(moved, row, K.CELL_LINES[other, 1], phi, 1.0)
                other = K.LINES[col, i]  # the column's: same row, new column class
                if other != cell and state[base + other] < 0:
                    _cell_terms(info, K.CELL_LINES[other, 0], col, phi, -1.0)
                    _cell_terms(moved, K.CELL_LINES[other, 0], col, phi, 1.0)
            _competition(moved, seen, phi)
            value += np.dot(weights[after], phi)
            moved[row] = info[row]
            moved[col] = info[col]
        state[base + cell] = -1
        if value > best + 1e-12:
            best, best_cell = value, cell
    return best, best_cell


@numba.njit(cache=True)
def best_corrected_after(state, player, card, cfg, table, values, weights):
    """The highest corrected value of ``player``'s grid over the empty cells ``card`` may go to."""
    return _best_cell(state, player, card, cfg, table, values, weights)[0]


@numba.njit(cache=True)
def corrected_cell(state, player, cfg, table, values, weights):
    """The empty cell of highest corrected value for the card to place (ties to the lowest cell)."""
    return _best_cell(state, player, K.card_to_place(state, player), cfg, table, values, weights)[1]


@numba.njit(cache=True)
def record_afterstate(state, placed, seen, cfg, table, values, phis, base):
    """Write the features and the learned value of player 0's grid after its ``placed``-th card into row ``placed``.

    ``seen`` is the packed word of the grid's cards; a full grid (``placed`` 25)
    writes nothing, its score being the game's final one (``add_game``).
    """
    if placed < K.NUM_CELLS:
        features(state, 0, seen, phis[placed])
        base[placed] = grid_value_with_seen(state, 0, placed, seen, cfg, table, values)


@numba.njit(cache=True)
def add_game(phis, base, final, xtx, xty):
    """Add the afterstates of one finished game to the normal equations of the residual fit.

    ``phis`` float64 (NUM_PLACED, NUM_FEATURES) and ``base`` float64
    (NUM_PLACED,) hold, in row t = 1..24, the features and the learned grid
    value of the grid after its t-th card; ``final`` is the game's score.
    Row t of ``xtx`` and ``xty`` gains ``phi phi^T`` and ``phi * (final -
    base[t])``.
    """
    for t in range(1, K.NUM_CELLS):
        residual = final - base[t]
        for i in range(NUM_FEATURES):
            if phis[t, i] == 0.0:
                continue
            xty[t, i] += phis[t, i] * residual
            for j in range(NUM_FEATURES):
                xtx[t, i, j] += phis[t, i] * phis[t, j]


@numba.njit(cache=True)
def _play_round(cfg, table, values, weights, num_games, seed, xtx, xty, scores):
    rng = rng_state(seed)
    deck = np.arange(NUM_CARDS)
    state = np.empty(K.STATE_SIZE, np.int64)
    phis = np.zeros((NUM_PLACED, NUM_FEATURES), np.float64)
    base = np.zeros(NUM_PLACED, np.float64)
    for g in range(num_games):
        K.init_state(state)
        shuffle(deck, NUM_CARDS, rng)
        seen = 0
        for step in range(K.NUM_CELLS):
            K.deal_card(state, deck[step])
            K.place_card(state, 0, corrected_cell(state, 0, cfg, table, values, weights))
            seen += card_seen_word(deck[step])
            record_afterstate(state, step + 1, seen, cfg, table, values, phis, base)
        scores[g] = float(K.grid_score(state, 0, cfg, table))
        add_game(phis, base, scores[g], xtx, xty)


def play_round(cfg, values, weights, num_games: int, seed: int, xtx: np.ndarray, xty: np.ndarray) -> np.ndarray:
    """Play ``num_games`` one-player games greedily on the corrected value; add their normal equations.

    Parameters
    ----------
    cfg : int64 (CONFIG_SIZE,)
        Game config (its points score the games).
    values : float64 (learned.NUM_KEYS,)
        The learned table.
    weights : float64 (NUM_PLACED, NUM_FEATURES) or (0, NUM_FEATURES)
        The correction the games are played with (empty: none).
    xtx, xty : float64 (NUM_PLACED, NUM_FEATURES, NUM_FEATURES), (NUM_PLACED, NUM_FEATURES)
        Sums of ``phi phi^T`` and ``phi * residual`` per cards placed, updated in place.

    Returns
    -------
    float64 (num_games,)
        The final scores.
    """
    from gamut.envs.hands import HAND_TABLE

    scores = np.zeros(num_games, dtype=np.float64)
    _play_round(cfg, HAND_TABLE, values, checked_weights(weights), int(num_games),
                int(seed), xtx, xty, scores)
    return scores


def fit(xtx: np.ndarray, xty: np.ndarray, ridge: float) -> np.ndarray:
    """Ridge solution per cards placed: float64 (NUM_PLACED, NUM_FEATURES), zero rows for 0 and 25 placed."""
    weights = np.zeros((NUM_PLACED, NUM_FEATURES), dtype=np.float64)
    eye = ridge * np.eye(NUM_FEATURES)
    for t in range(1, K.NUM_CELLS):
        weights[t] = np.linalg.solve(xtx[t] + eye, xty[t])
    return weights


def weights_path(points, directory: Path | None = None) -> Path:
    """Where the correction weights of a point system are stored."""
    return Path(directory or RESULTS_DIR) / f"crossline_{system_name(points)}.npz"


def fit_rounds(points, rounds: int = 10, games: int = 200_000, seed: int = 0, ridge: float = 100.0,
               path: Path | None = None, table: Path | None = None, progress=None) -> dict:
    """Fit (or resume fitting) the correction of ``points`` over ``rounds`` rounds of ``games`` games.

    After every round the weights, the pooled normal equations and the round
    means are written atomically, so an interrupted fit resumes at its last
    finished round and ends with exactly the weights of an uninterrupted one.
    Resuming requires the same settings and the same learned table (checked).
    """
    from gamut.solvers.poker_squares.training import load_values

    if rounds < 1 or games < 1 or ridge <= 0:
        raise ValueError(f"rounds and games must be >= 1 and ridge > 0, got {rounds}, {games}, {ridge}")
    points = tuple(int(p) for p in points)
    table = Path(table) if table else table_path(points)
    values = load_values(points, table)
    digest = file_sha256(table)
    path = Path(path) if path else weights_path(points)
    path.parent.mkdir(parents=True, exist_ok=True)
    settings = np.array([rounds, games, seed], dtype=np.int64)
    xtx = np.zeros((NUM_PLACED, NUM_FEATURES, NUM_FEATURES))
    xty = np.zeros((NUM_PLACED, NUM_FEATURES))
    weights = np.zeros((NUM_PLACED, NUM_FEATURES))
    means: list[float] = []
    if path.exists():
        saved = _load(path)
        if tuple(saved["points"]) != points or not np.array_equal(saved["settings"], settings) \
                or float(saved["ridge"]) != ridge or str(saved["table_sha256"]) != digest:
            raise ValueError(f"{path} holds a fit with other settings (points, rounds, games, seed, ridge or "
                             "learned table); remove it or pass the same settings to resume")
        xtx, xty, weights = saved["xtx"].copy(), saved["xty"].copy(), saved["weights"].copy()
        means = list(saved["round_means"])
    cfg = K.make_config(1, False, False, points)
    started = time.perf_counter()
    while len(means) < rounds:
        scores = play_round(cfg, values, weights, games, stream_seed(seed, len(means)), xtx, xty)
        means.append(float(scores.mean()))
        weights = fit(xtx, xty, ridge)
        save_npz(path, version=np.int64(WEIGHTS_VERSION), weights=weights, xtx=xtx, xty=xty,
                 points=np.array(points), settings=settings, ridge=np.float64(ridge), table_sha256=np.str_(digest),
                 round_means=np.array(means))
        if progress:
            progress(len(means), rounds, means[-1], time.perf_counter() - started)
    return {"path": str(path), "rounds": len(means), "round_means": means}


def _load(path: Path):
    saved = load_npz(path, ("version", "points", "table_sha256", "round_means", "settings", "weights"),
                     "correction file")
    version = int(saved["version"])
    if version != WEIGHTS_VERSION:
        raise ValueError(f"{path} holds version {version} weights; this code reads version {WEIGHTS_VERSION}: refit "
                         "with `gamut squares train-crossline ...`")
    return saved


def load_fit(points, path: Path | None = None, table: Path | None = None):
    """The correction file of ``points`` (an ``np.load`` mapping), checked: a finished fit on ``table``."""
    points = tuple(int(p) for p in points)
    path = Path(path) if path else weights_path(points)
    if not path.exists():
        raise ValueError(f"no cross-line correction for points {points} at {path}: run "
                         "`gamut squares train-crossline --scoring ...` first")
    saved = _load(path)
    if tuple(saved["points"]) != points:
        raise ValueError(f"{path} was fitted for points {tuple(saved['points'])}, not {points}")
    table = Path(table) if table else table_path(points)
    if str(saved["table_sha256"]) != file_sha256(table):
        raise ValueError(f"{path} was fitted on another learned table than {table}: refit it with "
                         "`gamut squares train-crossline --scoring ...`")
    if len(saved["round_means"]) < int(saved["settings"][0]):
        raise ValueError(f"{path} is an unfinished fit ({len(saved['round_means'])} of {int(saved['settings'][0])} "
                         "rounds): resume it with the same command")
    return saved


def load_weights(points, path: Path | None = None, table: Path | None = None) -> np.ndarray:
    """The fitted weights of ``points`` (float64 (NUM_PLACED, NUM_FEATURES)), checked against the table."""
    path = Path(path) if path else weights_path(points)
    saved = load_fit(points, path, table)
    if "search_settings" in saved and len(saved["search_scores"]) < int(saved["search_settings"][0]):
        raise ValueError(f"{path} holds an unfinished search refit ({len(saved['search_scores'])} of "
                         f"{int(saved['search_settings'][0])} games) by `gamut squares refit-crossline`, retired "
                         "after commit 3151173: finish it on a checkout of that commit, or fit anew with "
                         "`gamut squares train-crossline`")
    return saved["weights"].copy()
