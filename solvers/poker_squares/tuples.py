"""An n-tuple residual learned by temporal differences over the cross-line corrected value (Numba).

The cross-line correction (``gamut.solvers.poker_squares.crossline``) is
linear in counts: it can say how many empty cells sit where a flush row meets
a paired column, but not how much each such meeting is worth given how far
the flush and the pair have come, and it is fitted by regression on final
scores, whose noise grows with the cards still to come. This module adds to
it a sum of table entries, as the n-tuple networks of 2048 do, learned by
TD(0) on the afterstates of self-play::

    value = learned grid value + correction . features + sum of tuples[i] over the active entries i

Each line is described by its cross-line class (``crossline.class_from_masks``,
17 classes) refined in three (``line_desc``; ``NUM_DESC`` = 52, the last for
a full line): a flush draw by its spare unseen cards of the suit beyond those
it needs (at most 1, 2-4, 5 or more), a paired line by the unseen cards of the
ranks it holds (0, 1-2, 3 or more), a straight draw by its live windows (1, 2,
3 or more), any other line 0. ``desc = 3 * class + refinement``. The active
entries of a grid with ``placed`` cards (1..24; seen: the grid's cards) are::

    cells   one per empty cell: (placed, desc(row), desc(col), same), same = 1 when the row and the
            column both draw to a flush of one suit          offset 0, size 26 * 52 * 52 * 2 = 140,608
    suits   one per suit: (placed, rows drawing to it (<= 5), columns drawing to it (<= 5),
            cards they need (<= 15), unseen cards of the suit)  offset 140,608, size 26 * 6 * 6 * 16 * 14
    ranks   one per rank: (placed, paired lines holding it (<= 5), unpaired lines holding it (<= 5),
            unseen cards of the rank)                          offset 350,272, size 26 * 6 * 6 * 5

each flattened row-major (``NUM_TUPLES`` = 354,952 float64 entries in all),
at most 24 + 4 + 13 = ``MAX_ACTIVE`` entries a grid. A full grid is worth its
score.

Worked example: the grid whose only cards are ``Ah Kh`` in row 0, valued
with 2 cards placed. Row 0 draws to a straight flush (class 11; 11 hearts
unseen, 3 needed, spare 8: refinement 2), so ``desc`` 35; columns 0 and 1 hold
one card (class 1, ``desc`` 3); every other line is empty (``desc`` 0). Cell
2 (row 0, column 2) is entry ``((2 * 52 + 35) * 52 + 0) * 2 + 0 = 14,456``;
cell 5 (row 1, column 0) is ``((2 * 52 + 0) * 52 + 3) * 2 = 10,822``; hearts,
one row drawing needing 3 cards, 11 unseen, is ``140,608 + (((2 * 6 + 1) * 6
+ 0) * 16 + 3) * 14 + 11 = 158,133``; the ace, held unpaired by row 0 and
column 0, 3 unseen, is ``350,272 + ((2 * 6 + 0) * 6 + 2) * 5 + 3 = 350,645``.

Training (``train``): games played greedily on the value above (ties to the
lowest cell), every afterstate's active entries moved by ``alpha * (next
value - value) / active`` with the next afterstate's value, or the final
score after the last card (the step is normalised by the number of active
entries, so ``alpha`` is about the share of the error removed; an entry
active for two cells of a grid moves twice). A schedule of
``(alpha, games)`` stages runs in chunks (``CHUNK`` = 100,000 games by
default), chunk ``i`` seeded ``stream_seed(seed, i)``, with a checkpoint after each: an interrupted run
resumes at its last chunk and ends with the weights of an uninterrupted one.

The file ``tuples_<system>.npz`` beside the learned table holds ``tuples``
float64 (NUM_TUPLES,), ``alphas`` float64 and ``stage_games`` int64 (the
schedule), ``seed``, ``chunk``, ``done`` (games played), ``chunk_means`` (each chunk's
mean score), ``points``, ``version`` and the SHA-256 of the learned table and
of the correction it was trained over: a retrained table or correction makes
it stale, and it is refused with a message saying to retrain.
"""

from __future__ import annotations

import time
from pathlib import Path

import numba
import numpy as np

from gamut.envs.cards import NUM_CARDS
from gamut.envs.rng import rng_state, shuffle
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares.crossline import NUM_FEATURES, class_from_masks, corrected_value, features
from gamut.solvers.poker_squares.learned import (card_seen_word, dead_ranks, line_masks, line_windows, seen_word,
                                                 unseen_of_rank, unseen_of_suit, value_from_masks)
from gamut.solvers.poker_squares.training import (RESULTS_DIR, file_sha256, load_npz, save_npz, stream_seed,
                                                  system_name, table_path)

TUPLES_VERSION = 1
NUM_DESC = 52
FULL_DESC = NUM_DESC - 1
NUM_PLACED = K.NUM_CELLS + 1
SUIT_OFFSET = NUM_PLACED * NUM_DESC * NUM_DESC * 2
RANK_OFFSET = SUIT_OFFSET + NUM_PLACED * 6 * 6 * 16 * 14
NUM_TUPLES = RANK_OFFSET + NUM_PLACED * 6 * 6 * 5
MAX_ACTIVE = K.NUM_CELLS - 1 + 4 + 13
CHUNK = 100_000
NO_TUPLES = np.zeros(NUM_TUPLES, dtype=np.float64)


@numba.njit(cache=True)
def line_desc(info, windows, seen):
    """``desc`` (module docstring) of a line from its ``class_from_masks`` ``info`` and ``line_windows``."""
    cls = info[0]
    if cls < 0:
        return FULL_DESC
    refine = 0
    if cls == 5 or cls == 6 or cls == 7 or cls == 11:  # flush draws, with or without a straight
        spare = unseen_of_suit(seen, info[1]) - info[2]
        refine = 0 if spare <= 1 else (1 if spare <= 4 else 2)
    elif cls >= 12:  # a pair or better
        outs = 0
        for r in range(13):
            if info[3] >> r & 1:
                outs += unseen_of_rank(seen, r)
        refine = 0 if outs == 0 else (1 if outs <= 2 else 2)
    elif cls >= 8:  # straight draws
        refine = min(windows, 3) - 1
    return 3 * cls + refine


@numba.njit(cache=True)
def _terms(state, info, desc, held, placed, seen, tuples, idx):
    """(sum of the active entries, their number) of the grid with line ``info``, ``desc`` and ranks ``held``.

    ``held`` holds each line's rank mask (``line_masks``' ``m1``); ``idx``
    receives the active entries.
    """
    n = 0
    total = 0.0
    for cell in range(K.NUM_CELLS):
        if state[K.S_GRID + cell] >= 0:
            continue
        row, col = K.CELL_LINES[cell, 0], K.CELL_LINES[cell, 1]
        same = 1 if info[row, 1] >= 0 and info[row, 1] == info[col, 1] else 0
        idx[n] = ((placed * NUM_DESC + desc[row]) * NUM_DESC + desc[col]) * 2 + same
        total += tuples[idx[n]]
        n += 1
    rows = np.zeros(4, np.int64)
    cols = np.zeros(4, np.int64)
    need = np.zeros(4, np.int64)
    paired = np.zeros(13, np.int64)
    single = np.zeros(13, np.int64)
    for line in range(K.NUM_LINES):
        suit = info[line, 1]
        if suit >= 0:
            if line < K.GRID_SIZE:
                rows[suit] += 1
            else:
                cols[suit] += 1
            need[suit] += info[line, 2]
        counts = paired if info[line, 0] >= 12 else single
        if info[line, 0] >= 1:
            for r in range(13):
                if held[line] >> r & 1:
                    counts[r] += 1
    for s in range(4):
        idx[n] = SUIT_OFFSET + (((placed * 6 + min(rows[s], 5)) * 6 + min(cols[s], 5)) * 16
                                + min(need[s], 15)) * 14 + min(unseen_of_suit(seen, s), 13)
        total += tuples[idx[n]]
        n += 1
    for r in range(13):
        idx[n] = RANK_OFFSET + ((placed * 6 + min(paired[r], 5)) * 6 + min(single[r], 5)) * 5 + unseen_of_rank(seen, r)
        total += tuples[idx[n]]
        n += 1
    return total, n


@numba.njit(cache=True)
def _line_state(state, seen, info, desc, held):
    """Fill the class ``info``, ``desc`` and rank mask of each of the ten lines of player 0's grid."""
    dead = dead_ranks(seen)
    for line in range(K.NUM_LINES):
        masks = line_masks(state, 0, line)
        windows = line_windows(masks, dead)
        class_from_masks(masks, windows, seen, info[line])
        desc[line] = line_desc(info[line], windows, seen)
        held[line] = masks[3]


@numba.njit(cache=True)
def tuple_terms(state, placed, seen, tuples, idx):
    """(sum, number) of the active entries of player 0's grid valued with ``placed`` cards and ``seen`` seen."""
    info = np.empty((K.NUM_LINES, 4), np.int64)
    desc = np.empty(K.NUM_LINES, np.int64)
    held = np.empty(K.NUM_LINES, np.int64)
    _line_state(state, seen, info, desc, held)
    return _terms(state, info, desc, held, placed, seen, tuples, idx)


@numba.njit(cache=True)
def grid_value(state, cfg, table, values, weights, tuples):
    """The value (module docstring) of player 0's grid as it stands; its score once full."""
    placed = state[K.S_NUM_PLACED]
    seen = seen_word(state, 0)
    value = corrected_value(state, 0, placed, seen, cfg, table, values, weights, np.empty(NUM_FEATURES, np.float64))
    if 0 < placed < K.NUM_CELLS:
        value += tuple_terms(state, placed, seen, tuples, np.empty(MAX_ACTIVE, np.int64))[0]
    return value


@numba.njit(cache=True)
def best_placement(state, card, cfg, table, values, weights, tuples, idx, best_idx):
    """(best value, its lowest cell, its number of active entries) of putting ``card`` on player 0's grid.

    ``best_idx`` receives the best cell's active entries; ``state`` is
    restored. The lines of the grid without the card (``card`` seen) are
    scanned once and each cell rescans its row and column; the correction's
    features are counted afresh (``crossline.features``) for each cell.
    """
    base = K.S_GRID
    after = state[K.S_NUM_PLACED] + 1
    seen = seen_word(state, 0) + card_seen_word(card)
    inner = after < K.NUM_CELLS
    before = np.empty(K.NUM_LINES, np.float64)
    info = np.empty((K.NUM_LINES, 4), np.int64)
    desc = np.empty(K.NUM_LINES, np.int64)
    held = np.empty(K.NUM_LINES, np.int64)
    total = 0.0
    dead = dead_ranks(seen)
    for line in range(K.NUM_LINES):
        masks = line_masks(state, 0, line)
        windows = line_windows(masks, dead)
        before[line] = value_from_masks(state, 0, line, masks, windows, after, seen, cfg, table, values)
        total += before[line]
        class_from_masks(masks, windows, seen, info[line])
        desc[line] = line_desc(info[line], windows, seen)
        held[line] = masks[3]
    moved, moved_desc, moved_held = info.copy(), desc.copy(), held.copy()
    phi = np.empty(NUM_FEATURES, np.float64)
    best, best_cell, best_n = -np.inf, -1, 0
    for cell in range(K.NUM_CELLS):
        if state[base + cell] >= 0:
            continue
        row, col = K.CELL_LINES[cell, 0], K.CELL_LINES[cell, 1]
        state[base + cell] = card
        row_masks, col_masks = line_masks(state, 0, row), line_masks(state, 0, col)
        row_windows, col_windows = line_windows(row_masks, dead), line_windows(col_masks, dead)
        value = (total - before[row] - before[col]
                 + value_from_masks(state, 0, row, row_masks, row_windows, after, seen, cfg, table, values)
                 + value_from_masks(state, 0, col, col_masks, col_windows, after, seen, cfg, table, values))
        n = 0
        if inner:
            class_from_masks(row_masks, row_windows, seen, moved[row])
            class_from_masks(col_masks, col_windows, seen, moved[col])
            if weights.shape[0] > 0:
                features(state, 0, seen, phi)  # counts, so equal to crossline's incremental update bit for bit
                value += np.dot(weights[after], phi)
            moved_desc[row] = line_desc(moved[row], row_windows, seen)
            moved_desc[col] = line_desc(moved[col], col_windows, seen)
            moved_held[row], moved_held[col] = row_masks[3], col_masks[3]
            extra, n = _terms(state, moved, moved_desc, moved_held, after, seen, tuples, idx)
            value += extra
            moved[row], moved[col] = info[row], info[col]
            moved_desc[row], moved_desc[col] = desc[row], desc[col]
            moved_held[row], moved_held[col] = held[row], held[col]
        state[base + cell] = -1
        if value > best + 1e-12:
            best, best_cell, best_n = value, cell, n
            best_idx[:n] = idx[:n]
    return best, best_cell, best_n


@numba.njit(cache=True)
def _td_games(cfg, table, values, weights, tuples, num_games, seed, alpha, scores):
    rng = rng_state(seed)
    deck = np.arange(NUM_CARDS)
    state = np.empty(K.STATE_SIZE, np.int64)
    idx = np.empty(MAX_ACTIVE, np.int64)
    chosen = np.empty(MAX_ACTIVE, np.int64)
    previous = np.empty(MAX_ACTIVE, np.int64)
    for g in range(num_games):
        K.init_state(state)
        shuffle(deck, NUM_CARDS, rng)
        previous_value, previous_n = 0.0, 0
        for step in range(K.NUM_CELLS):
            K.deal_card(state, deck[step])
            value, cell, n = best_placement(state, deck[step], cfg, table, values, weights, tuples, idx, chosen)
            K.place_card(state, 0, cell)
            if previous_n > 0:
                step_size = alpha * (value - previous_value) / previous_n
                for i in range(previous_n):
                    tuples[previous[i]] += step_size
            previous[:n] = chosen[:n]
            previous_value, previous_n = value, n
        scores[g] = float(K.grid_score(state, 0, cfg, table))


def td_games(cfg, values, weights, tuples: np.ndarray, num_games: int, seed: int, alpha: float) -> np.ndarray:
    """Play ``num_games`` greedy games on the value, updating ``tuples`` in place by TD(0); their scores.

    Parameters
    ----------
    cfg : int64 (CONFIG_SIZE,)
        One-player game config (its points score the games).
    values : float64 (learned.NUM_KEYS,)
        The learned table.
    weights : float64 (NUM_PLACED, crossline.NUM_FEATURES)
        The cross-line correction.
    tuples : float64 (NUM_TUPLES,)
        The entries, updated in place.
    seed : int
        Kernel seed of the deals.
    alpha : float
        Share of each error removed, > 0.

    Returns
    -------
    float64 (num_games,)
    """
    from gamut.envs.hands import HAND_TABLE

    scores = np.zeros(num_games, dtype=np.float64)
    _td_games(cfg, HAND_TABLE, values, weights, tuples, int(num_games), int(seed), float(alpha), scores)
    return scores


def tuples_path(points, directory: Path | None = None) -> Path:
    """Where the n-tuple residual of a point system is stored."""
    return Path(directory or RESULTS_DIR) / f"tuples_{system_name(points)}.npz"


def parse_schedule(text: str, chunk: int = CHUNK) -> list[tuple[float, int]]:
    """``"0.01:1300000,0.002:500000"`` -> ``[(0.01, 1300000), (0.002, 500000)]``; a clear error otherwise.

    Each stage's games must be a positive multiple of ``chunk`` and its alpha in (0, 1].
    """
    stages = []
    for part in text.split(","):
        try:
            alpha_text, games_text = part.split(":")
            alpha, games = float(alpha_text), int(games_text)
        except ValueError:
            raise ValueError(f"a schedule is comma-separated ALPHA:GAMES stages, e.g. 0.01:1300000,0.002:500000; "
                             f"got {text!r}") from None
        if not 0 < alpha <= 1 or games < chunk or games % chunk:
            raise ValueError(f"each stage needs 0 < alpha <= 1 and games a positive multiple of {chunk}; got {part!r}")
        stages.append((alpha, games))
    return stages


def train(points, schedule: list[tuple[float, int]], seed: int = 0, path: Path | None = None,
          table: Path | None = None, weights_file: Path | None = None, progress=None, chunk: int = CHUNK) -> dict:
    """Train (or resume training) the n-tuple residual of ``points`` over the ``(alpha, games)`` stages.

    Games run in chunks of ``chunk`` (each stage a multiple of it), a
    checkpoint after each. Resuming requires the same schedule, seed, chunk,
    learned table and correction (checked). Returns the path, games played and
    each chunk's mean score.
    """
    from gamut.solvers.poker_squares.crossline import load_weights, weights_path
    from gamut.solvers.poker_squares.training import load_values

    points = tuple(int(p) for p in points)
    table = Path(table) if table else table_path(points)
    weights_file = Path(weights_file) if weights_file else weights_path(points)
    values = load_values(points, table)
    weights = load_weights(points, weights_file, table)
    digests = (file_sha256(table), file_sha256(weights_file))
    path = Path(path) if path else tuples_path(points)
    path.parent.mkdir(parents=True, exist_ok=True)
    if chunk < 1 or any(games < chunk or games % chunk for _, games in schedule):
        raise ValueError(f"each stage's games must be a positive multiple of the chunk {chunk}")
    alphas = np.array([a for a, _ in schedule], dtype=np.float64)
    stage_games = np.array([g for _, g in schedule], dtype=np.int64)
    tuples = np.zeros(NUM_TUPLES, dtype=np.float64)
    means: list[float] = []
    if path.exists():
        saved = _load(path)
        if tuple(saved["points"]) != points or not np.array_equal(saved["alphas"], alphas) \
                or not np.array_equal(saved["stage_games"], stage_games) or int(saved["seed"]) != seed \
                or int(saved["chunk"]) != chunk \
                or (str(saved["table_sha256"]), str(saved["crossline_sha256"])) != digests:
            raise ValueError(f"{path} holds a run with other settings (points, schedule, seed, chunk, learned table "
                             "or correction); remove it or pass the same settings to resume")
        tuples = saved["tuples"].copy()
        means = list(saved["chunk_means"])
    cfg = K.make_config(1, False, False, points)
    stage_of_chunk = np.repeat(np.arange(len(schedule)), stage_games // chunk)
    started = time.perf_counter()
    while len(means) < len(stage_of_chunk):
        part = len(means)
        scores = td_games(cfg, values, weights, tuples, chunk, stream_seed(seed, part), alphas[stage_of_chunk[part]])
        means.append(float(scores.mean()))
        save_npz(path, version=np.int64(TUPLES_VERSION), tuples=tuples, alphas=alphas, stage_games=stage_games,
                 seed=np.int64(seed), chunk=np.int64(chunk), done=np.int64(len(means) * chunk),
                 chunk_means=np.array(means),
                 points=np.array(points), table_sha256=np.str_(digests[0]), crossline_sha256=np.str_(digests[1]))
        if progress:
            progress(len(means) * chunk, len(stage_of_chunk) * chunk, means[-1], time.perf_counter() - started)
    return {"path": str(path), "games": len(means) * chunk, "chunk_means": means}


def _load(path: Path):
    saved = load_npz(path, ("version", "tuples", "alphas", "stage_games", "seed", "chunk", "done", "chunk_means",
                            "points", "table_sha256", "crossline_sha256"), "n-tuple file")
    if int(saved["version"]) != TUPLES_VERSION:
        raise ValueError(f"{path} holds version {int(saved['version'])} tuples; this code reads version "
                         f"{TUPLES_VERSION}: retrain them")
    if saved["tuples"].shape != (NUM_TUPLES,) or saved["tuples"].dtype != np.float64:
        raise ValueError(f"{path} holds tuples of shape {saved['tuples'].shape}, not float64 ({NUM_TUPLES},)")
    return saved


def load_tuples(points, path: Path | None = None, table: Path | None = None,
                weights_file: Path | None = None) -> np.ndarray:
    """The trained entries of ``points`` (float64 (NUM_TUPLES,)), checked: finished, on this table and correction."""
    from gamut.solvers.poker_squares.crossline import weights_path

    points = tuple(int(p) for p in points)
    path = Path(path) if path else tuples_path(points)
    if not path.exists():
        raise ValueError(f"no n-tuple residual for points {points} at {path}: train it first "
                         "(python -m gamut.experiments.studies.poker_squares_tuples train --scoring ...)")
    saved = _load(path)
    if tuple(saved["points"]) != points:
        raise ValueError(f"{path} was trained for points {tuple(saved['points'])}, not {points}")
    table = Path(table) if table else table_path(points)
    weights_file = Path(weights_file) if weights_file else weights_path(points)
    if (str(saved["table_sha256"]), str(saved["crossline_sha256"])) != (file_sha256(table), file_sha256(weights_file)):
        raise ValueError(f"{path} was trained over another learned table or correction than {table} and "
                         f"{weights_file}: retrain it")
    if int(saved["done"]) < int(saved["stage_games"].sum()):
        raise ValueError(f"{path} is an unfinished run ({int(saved['done'])} of {int(saved['stage_games'].sum())} "
                         "games): resume it with the same command")
    return saved["tuples"].copy()


@numba.njit(cache=True)
def two_ply_values(state, cands, cfg, table, values, weights, tuples, out):
    """Mean over the unseen next cards of the best value after each candidate cell (card to place dealt).

    Writes ``out[i]`` for ``cands[i]``; ``state`` is restored. The grid must
    have at least two empty cells.
    """
    card = K.card_to_place(state, 0)
    used = np.zeros(NUM_CARDS, np.bool_)
    for cell in range(K.NUM_CELLS):
        if state[K.S_GRID + cell] >= 0:
            used[state[K.S_GRID + cell]] = True
    used[card] = True
    idx = np.empty(MAX_ACTIVE, np.int64)
    chosen = np.empty(MAX_ACTIVE, np.int64)
    for i in range(cands.shape[0]):
        state[K.S_GRID + cands[i]] = card
        state[K.S_NUM_PLACED] += 1
        total, count = 0.0, 0
        for nxt in range(NUM_CARDS):
            if not used[nxt]:
                total += best_placement(state, nxt, cfg, table, values, weights, tuples, idx, chosen)[0]
                count += 1
        state[K.S_NUM_PLACED] -= 1
        state[K.S_GRID + cands[i]] = -1
        out[i] = total / count


@numba.njit(cache=True)
def rollout_sums(state, cands, sims, rng, depth, cfg, table, values, weights, tuples, sums):
    """Add ``sims`` rollouts per candidate cell to ``sums``, every cell on the same sampled card orders.

    A rollout puts the card to place in its cell, places ``depth`` more
    cards greedily on the value and ends with the value of the grid (its
    score once full), as ``mc_cross`` does on the corrected value.
    """
    unseen = np.empty(NUM_CARDS, np.int64)
    nunseen = K.unseen_cards(state, unseen)
    work = np.empty_like(state)
    first_free = state[K.S_NUM_DEALT]
    placed = state[K.S_NUM_PLACED]
    idx = np.empty(MAX_ACTIVE, np.int64)
    chosen = np.empty(MAX_ACTIVE, np.int64)
    for _ in range(sims):
        shuffle(unseen, nunseen, rng)
        for i in range(cands.shape[0]):
            work[:] = state
            # Complete the deal: known cards stay in place, unseen ones follow in the sampled order.
            for k in range(K.NUM_CELLS - first_free):
                work[K.S_DEAL + first_free + k] = unseen[k]
            work[K.S_NUM_DEALT] = K.NUM_CELLS
            work[K.S_GRID + cands[i]] = work[K.S_DEAL + placed]
            work[K.S_NUM_PLACED] = placed + 1
            for _move in range(depth):
                if work[K.S_NUM_PLACED] == K.NUM_CELLS:
                    break
                cell = best_placement(work, K.card_to_place(work, 0), cfg, table, values, weights, tuples, idx,
                                      chosen)[1]
                K.place_card(work, 0, cell)
            sums[i] += grid_value(work, cfg, table, values, weights, tuples)
