"""The Poker Squares afterstate value network: its inputs, its Numba forward pass, its weight files.

The network values an *afterstate* of one player's grid (the grid right after
a card is placed) by the expected final score of that grid, given which cards
have not been seen. It is built for the standard one-player deal, where every
card not on the grid may still come: ``25 - placed`` of the ``52 - placed``
unseen cards will be turned over, uniformly at random.

Inputs. Each of the ten lines (rows 0..4, then columns 0..4) is described by
``LINE_INPUTS`` = 40 numbers, each divided by its maximum (``LINE_SCALE``)::

    [0, 13)   how many of the line's cards have each rank (2 .. ace)
    [13, 17)  how many have each suit (clubs, diamonds, hearts, spades)
    [17, 23)  one-hot number of cards in the line, 0 .. 5
    [23, 36)  for each rank the line holds, its unseen cards (0 otherwise)
    [36, 40)  for each suit the line holds, its unseen cards (0 otherwise)

and the whole grid by ``GLOBAL_INPUTS`` = 18 numbers (``GLOBAL_SCALE``)::

    [0, 13)   unseen cards of each rank;  [13, 17) of each suit;  17  cards still to come

Worked example: a grid holding only ``Ah`` (card 50) in cell 0 has row 0 and
column 0 each with inputs 12 = 1/4 (one ace), 15 = 1/5 (one heart), 18 = 1
(one card), 35 = 3/4 (three aces unseen), 38 = 12/13 (twelve hearts
unseen); the eight other lines have only input 17 = 1 (no card). Globally,
input 12 = 3/4, inputs 0..11 = 1, inputs 13, 14, 16 = 1, 15 = 12/13 and
17 = 24/25.

Architecture (``H1``, ``H2``, ``H3`` hidden sizes, ReLU ``r``)::

    h_l = r(W1' x_l + U1' g + b1)          one shared line encoder, l = 0..9
    e_l = r(W2' h_l + b2)                  the line's embedding (H2)
    s   = mean over lines of e_l
    c   = sum over empty cells (i, j) of e_row(i) * e_col(j), divided by 25
    v   = value_scale * (w4 . r(W3' [s; c] + b3) + a . s + b4)

``c`` tells the head which rows and columns still compete for the same empty
cells. A full grid is never fed to the network: its value is its score.

Base. A network may be trained as a residual over the ``crossline`` value
(``base = "crossline"``): the value of an afterstate with 1..24 cards is then
``crossline corrected value + v`` (``valued_afterstates``), where the
corrected value is the committed learned table plus its cross-line
correction (``gamut.solvers.poker_squares.crossline``) of the same point
system. Its output layer starts at zero, so such a network starts out
playing exactly as ``crossline`` does and learns only what the linear value
misses. Its file names the base and the SHA-256 of the correction file it
was trained over; a network whose correction has since changed is refused.

Weight files (``.npz``, read without pickles) hold the arrays of ``PARAM_NAMES``
(float64), ``value_scale``, ``points`` (the point system the network was
trained for: one network per system, since the value of a line depends on what
every hand pays), ``metadata`` (a JSON text: training positions, wall time,
cores, seed, command, toolkit version, commit), optionally ``base`` and
``base_sha256`` (a residual network's base and its correction file's
digest; absent means no base) and ``sha256``, the hex SHA-256 of the other
arrays' bytes in a fixed order (``params_digest``).
A file whose arrays do not match its digest is refused.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numba
import numpy as np

from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares.crossline import NO_WEIGHTS, NUM_FEATURES, corrected_value, load_weights
from gamut.solvers.poker_squares.crossline import weights_path as crossline_path
from gamut.solvers.poker_squares.learned import seen_word
from gamut.solvers.poker_squares.training import (RESULTS_DIR, file_sha256, load_npz, load_values, save_npz,
                                                  system_name)

NET_VERSION = 1
LINE_INPUTS = 40
GLOBAL_INPUTS = 18
H1, H2, H3 = 64, 32, 64
I_RANK, I_SUIT, I_COUNT, I_UNSEEN_RANK, I_UNSEEN_SUIT = 0, 13, 17, 23, 36
G_TO_COME = 17
CROSS_SCALE = 1.0 / K.NUM_CELLS
LINE_SCALE = np.concatenate([np.full(13, 1 / 4), np.full(4, 1 / 5), np.ones(6), np.full(13, 1 / 4),
                             np.full(4, 1 / 13)])
GLOBAL_SCALE = np.concatenate([np.full(13, 1 / 4), np.full(4, 1 / 13), [1 / K.NUM_CELLS]])
PARAM_NAMES = ("w1", "u1", "b1", "w2", "b2", "w3", "b3", "w4", "a", "b4")
BASES = ("none", "crossline")
NO_BASE = (np.zeros(0), NO_WEIGHTS)  # the (table, correction) pair of a network without a base


def param_shapes(h1: int = H1, h2: int = H2, h3: int = H3) -> dict[str, tuple[int, ...]]:
    """Shape of each parameter array, input-major (``x @ w1``)."""
    return {"w1": (LINE_INPUTS, h1), "u1": (GLOBAL_INPUTS, h1), "b1": (h1,), "w2": (h1, h2), "b2": (h2,),
            "w3": (2 * h2, h3), "b3": (h3,), "w4": (h3,), "a": (h2,), "b4": (1,)}


@numba.njit(cache=True)
def unseen_counts(grid, rank_out, suit_out):
    """Write the unseen cards of each rank (int64 (13,)) and suit ((4,)) of a grid (int64 (25,), -1 empty)."""
    rank_out[:] = 4
    suit_out[:] = 13
    for cell in range(K.NUM_CELLS):
        card = grid[cell]
        if card >= 0:
            rank_out[card >> 2] -= 1
            suit_out[card & 3] -= 1


@numba.njit(cache=True)
def global_inputs(unseen_rank, unseen_suit, placed, out):
    """Write the ``GLOBAL_INPUTS`` inputs of a grid with ``placed`` cards into ``out`` (float64)."""
    for r in range(13):
        out[r] = unseen_rank[r] / 4.0
    for s in range(4):
        out[13 + s] = unseen_suit[s] / 13.0
    out[G_TO_COME] = (K.NUM_CELLS - placed) / K.NUM_CELLS


@numba.njit(cache=True)
def line_inputs(grid, line, unseen_rank, unseen_suit, out):
    """Write the ``LINE_INPUTS`` inputs of ``line`` of ``grid`` into ``out`` (float64, overwritten)."""
    out[:] = 0.0
    n = 0
    for i in range(K.GRID_SIZE):
        card = grid[K.LINES[line, i]]
        if card >= 0:
            out[I_RANK + (card >> 2)] += 0.25
            out[I_SUIT + (card & 3)] += 0.2
            n += 1
    out[I_COUNT + n] = 1.0
    for r in range(13):
        if out[I_RANK + r] > 0.0:
            out[I_UNSEEN_RANK + r] = unseen_rank[r] / 4.0
    for s in range(4):
        if out[I_SUIT + s] > 0.0:
            out[I_UNSEEN_SUIT + s] = unseen_suit[s] / 13.0


@numba.njit(cache=True)
def _embed(x, shared, w1, w2, b2, hidden, out):
    """Line embedding ``r(W2' r(W1' x + shared) + b2)`` into ``out``; ``shared`` = U1' g + b1."""
    h1 = w1.shape[1]
    for k in range(h1):
        hidden[k] = shared[k]
    for j in range(x.shape[0]):
        if x[j] != 0.0:  # at most 20 of the 40 inputs are non-zero
            xj = x[j]
            for k in range(h1):
                hidden[k] += xj * w1[j, k]
    for k in range(h1):
        if hidden[k] < 0.0:
            hidden[k] = 0.0
    h2 = w2.shape[1]
    for m in range(h2):
        out[m] = b2[m]
    for k in range(h1):
        hk = hidden[k]
        if hk != 0.0:
            for m in range(h2):
                out[m] += hk * w2[k, m]
    for m in range(h2):
        if out[m] < 0.0:
            out[m] = 0.0


@numba.njit(cache=True)
def _head(grid, emb, w3, b3, w4, a, b4, joint, hidden):
    """Network output (unscaled) from the ten line embeddings ``emb`` (10, H2) of ``grid``."""
    h2 = emb.shape[1]
    for m in range(2 * h2):
        joint[m] = 0.0
    for line in range(K.NUM_LINES):
        for m in range(h2):
            joint[m] += emb[line, m] / K.NUM_LINES
    for cell in range(K.NUM_CELLS):
        if grid[cell] < 0:
            row, col = K.CELL_LINES[cell, 0], K.CELL_LINES[cell, 1]
            for m in range(h2):
                joint[h2 + m] += emb[row, m] * emb[col, m] * CROSS_SCALE
    value = b4[0]
    for m in range(h2):
        value += a[m] * joint[m]
    h3 = w3.shape[1]
    for k in range(h3):
        hidden[k] = b3[k]
    for m in range(2 * h2):
        jm = joint[m]
        if jm != 0.0:
            for k in range(h3):
                hidden[k] += jm * w3[m, k]
    for k in range(h3):
        if hidden[k] > 0.0:
            value += w4[k] * hidden[k]
    return value


@numba.njit(cache=True)
def _shared_layer(unseen_rank, unseen_suit, placed, u1, b1, g, shared):
    global_inputs(unseen_rank, unseen_suit, placed, g)
    for k in range(b1.shape[0]):
        shared[k] = b1[k]
    for j in range(GLOBAL_INPUTS):
        for k in range(b1.shape[0]):
            shared[k] += g[j] * u1[j, k]


@numba.njit(cache=True)
def _line_embeddings(grid, unseen_rank, unseen_suit, placed, params):
    # The embeddings (NUM_LINES, embedding size) of every line of `grid` seen with these
    # unseen counts, and the work arrays the caller reuses: (emb, shared layer, x, hidden).
    w1, u1, b1, w2, b2, w3, b3, w4, a, b4, scale = params
    g = np.empty(GLOBAL_INPUTS)
    shared = np.empty(b1.shape[0])
    _shared_layer(unseen_rank, unseen_suit, placed, u1, b1, g, shared)
    x = np.empty(LINE_INPUTS)
    hidden = np.empty(max(b1.shape[0], b3.shape[0]))
    emb = np.empty((K.NUM_LINES, b2.shape[0]))
    for line in range(K.NUM_LINES):
        line_inputs(grid, line, unseen_rank, unseen_suit, x)
        _embed(x, shared, w1, w2, b2, hidden, emb[line])
    return emb, shared, x, hidden


@numba.njit(cache=True)
def grid_value(grid, params, cfg, table):
    """Value in points of ``grid`` (int64 (25,), -1 empty): the network's, or the score of a full grid."""
    w1, u1, b1, w2, b2, w3, b3, w4, a, b4, scale = params
    placed = 0
    for cell in range(K.NUM_CELLS):
        placed += grid[cell] >= 0
    if placed == K.NUM_CELLS:
        return float(_grid_score(grid, cfg, table))
    unseen_rank = np.empty(13, np.int64)
    unseen_suit = np.empty(4, np.int64)
    unseen_counts(grid, unseen_rank, unseen_suit)
    emb, _, _, hidden = _line_embeddings(grid, unseen_rank, unseen_suit, placed, params)
    joint = np.empty(2 * b2.shape[0])
    return scale * _head(grid, emb, w3, b3, w4, a, b4, joint, hidden)


@numba.njit(cache=True)
def _grid_score(grid, cfg, table):
    state = np.full(K.STATE_SIZE, -1, np.int64)
    state[K.S_GRID:K.S_GRID + K.NUM_CELLS] = grid
    return K.grid_score(state, 0, cfg, table)


@numba.njit(cache=True)
def afterstate_values(grid, card, params, cfg, table, out):
    """Write into ``out`` (float64 (25,)) the value of putting ``card`` in each empty cell; -inf elsewhere.

    ``grid`` (int64 (25,)) is restored. The eight lines a placement leaves
    alone keep their embeddings, computed once with ``card`` seen; only the
    cell's row and column are encoded again for each cell.
    """
    w1, u1, b1, w2, b2, w3, b3, w4, a, b4, scale = params
    placed = 1
    for cell in range(K.NUM_CELLS):
        placed += grid[cell] >= 0
        out[cell] = -np.inf
    if placed == K.NUM_CELLS:
        for cell in range(K.NUM_CELLS):
            if grid[cell] < 0:
                grid[cell] = card
                out[cell] = float(_grid_score(grid, cfg, table))
                grid[cell] = -1
        return
    unseen_rank = np.empty(13, np.int64)
    unseen_suit = np.empty(4, np.int64)
    unseen_counts(grid, unseen_rank, unseen_suit)
    unseen_rank[card >> 2] -= 1
    unseen_suit[card & 3] -= 1
    base, shared, x, hidden = _line_embeddings(grid, unseen_rank, unseen_suit, placed, params)
    emb = base.copy()
    joint = np.empty(2 * b2.shape[0])
    for cell in range(K.NUM_CELLS):
        if grid[cell] >= 0:
            continue
        row, col = K.CELL_LINES[cell, 0], K.CELL_LINES[cell, 1]
        grid[cell] = card
        line_inputs(grid, row, unseen_rank, unseen_suit, x)
        _embed(x, shared, w1, w2, b2, hidden, emb[row])
        line_inputs(grid, col, unseen_rank, unseen_suit, x)
        _embed(x, shared, w1, w2, b2, hidden, emb[col])
        out[cell] = scale * _head(grid, emb, w3, b3, w4, a, b4, joint, hidden)
        grid[cell] = -1
        emb[row] = base[row]
        emb[col] = base[col]


@numba.njit(cache=True)
def base_value(grid, placed, cfg, table, values, weights, state, phi):
    """The ``crossline`` corrected value of ``grid`` (int64 (25,)) holding ``placed`` (1..24) cards.

    ``state`` (int64 (STATE_SIZE,)) and ``phi`` (float64 (NUM_FEATURES,))
    are work space; the grid is valued as player 0's of a one-player deal,
    the cards on it the only ones seen.
    """
    for cell in range(K.NUM_CELLS):
        state[K.S_GRID + cell] = grid[cell]
    return corrected_value(state, 0, placed, seen_word(state, 0), cfg, table, values, weights, phi)


@numba.njit(cache=True)
def valued_afterstates(grid, card, params, base_values, base_weights, cfg, table, out):
    """``afterstate_values`` plus, for a network with a base, the base value of each afterstate.

    ``base_values``, ``base_weights`` are the base's learned table and
    correction (``NO_BASE``, empty, for a network without one). A full grid
    is worth its score alone.
    """
    afterstate_values(grid, card, params, cfg, table, out)
    if base_values.shape[0] == 0:
        return
    placed = 1
    for cell in range(K.NUM_CELLS):
        placed += grid[cell] >= 0
    if placed == K.NUM_CELLS:
        return
    state = np.full(K.STATE_SIZE, -1, np.int64)
    phi = np.empty(NUM_FEATURES)
    for cell in range(K.NUM_CELLS):
        if grid[cell] < 0:
            grid[cell] = card
            out[cell] += base_value(grid, placed, cfg, table, base_values, base_weights, state, phi)
            grid[cell] = -1


@numba.njit(cache=True)
def _copy_grid(grids, b, grid):
    # Copy grid b of a batch (-1 empty) into the int64 `grid`; returns the number of cards on it.
    placed = 0
    for cell in range(K.NUM_CELLS):
        grid[cell] = grids[b, cell]
        placed += grid[cell] >= 0
    return placed


@numba.njit(cache=True)
def base_values_of(grids, cfg, table, values, weights, out):
    """The base value of each grid of a batch (int8 (B, 25), 1..24 cards each) into ``out`` float64 (B,)."""
    state = np.full(K.STATE_SIZE, -1, np.int64)
    phi = np.empty(NUM_FEATURES)
    grid = np.empty(K.NUM_CELLS, np.int64)
    for b in range(grids.shape[0]):
        placed = _copy_grid(grids, b, grid)
        out[b] = base_value(grid, placed, cfg, table, values, weights, state, phi)


def load_base(base: str, points) -> tuple[tuple[np.ndarray, np.ndarray], str]:
    """The (learned table, correction) of ``base`` for ``points`` and the correction file's SHA-256.

    ``"none"`` gives ``NO_BASE`` and an empty digest; ``"crossline"`` the
    committed table and correction (checked as the ``crossline`` agent
    checks them).
    """
    if base not in BASES:
        raise ValueError(f"unknown value-network base {base!r}; known: {', '.join(BASES)}")
    if base == "none":
        return NO_BASE, ""
    return (load_values(points), load_weights(points)), file_sha256(crossline_path(points))


@numba.njit(cache=True)
def encode_grids(grids, lines_out, global_out, empty_out):
    """Network inputs of a batch of grids (int8 or int64 (B, 25), -1 empty), for training.

    Writes ``lines_out`` float32 (B, 10, LINE_INPUTS), ``global_out`` float32
    (B, GLOBAL_INPUTS) and ``empty_out`` float32 (B, 25) (1 for an empty cell).
    """
    unseen_rank = np.empty(13, np.int64)
    unseen_suit = np.empty(4, np.int64)
    x = np.empty(LINE_INPUTS)
    g = np.empty(GLOBAL_INPUTS)
    grid = np.empty(K.NUM_CELLS, np.int64)
    for b in range(grids.shape[0]):
        placed = _copy_grid(grids, b, grid)
        for cell in range(K.NUM_CELLS):
            empty_out[b, cell] = 1.0 if grid[cell] < 0 else 0.0
        unseen_counts(grid, unseen_rank, unseen_suit)
        global_inputs(unseen_rank, unseen_suit, placed, g)
        for j in range(GLOBAL_INPUTS):
            global_out[b, j] = g[j]
        for line in range(K.NUM_LINES):
            line_inputs(grid, line, unseen_rank, unseen_suit, x)
            for j in range(LINE_INPUTS):
                lines_out[b, line, j] = x[j]


def params_digest(arrays: dict) -> str:
    """Hex SHA-256 of the parameters, value scale, points, metadata and base (if any), in a fixed order."""
    h = hashlib.sha256()
    names = (*PARAM_NAMES, "value_scale", "points", "metadata")
    for name in names + tuple(name for name in ("base", "base_sha256") if name in arrays):
        arr = np.ascontiguousarray(arrays[name])
        h.update(name.encode())
        h.update(str(arr.dtype).encode() + str(arr.shape).encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def net_path(points, directory: Path | None = None) -> Path:
    """Where the shipped network of a point system lives: ``results/poker_squares/net_<system>.npz``."""
    return Path(directory or RESULTS_DIR) / f"net_{system_name(points)}.npz"


def save_net(path: Path, params: dict, value_scale: float, points, metadata: dict, base: str = "none",
             base_sha256: str = "") -> str:
    """Write a weight file (atomically) and return its digest; a ``base`` other than none is recorded."""
    arrays = {name: np.asarray(params[name], dtype=np.float64) for name in PARAM_NAMES}
    if base != "none":
        arrays["base"], arrays["base_sha256"] = np.str_(base), np.str_(base_sha256)
    arrays["value_scale"] = np.float64(value_scale)
    arrays["points"] = np.asarray(points, dtype=np.int64)
    arrays["metadata"] = np.str_(json.dumps(metadata, sort_keys=True))
    arrays["version"] = np.int64(NET_VERSION)
    digest = params_digest(arrays)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    save_npz(Path(path), sha256=np.str_(digest), **arrays)
    return digest


def load_net(path: Path, points=None) -> dict:
    """A weight file, checked: its digest, version, shapes and (when given) its point system.

    Returns a dict with ``params`` (the Numba forward pass's tuple), ``base``
    (its name) and ``base_arrays`` (``load_base``'s pair, for
    ``valued_afterstates``), ``arrays``, ``points``, ``metadata`` and
    ``sha256``. A damaged, altered or foreign file, or one whose base has
    changed since it was trained, is a ``ValueError`` naming it.
    """
    path = Path(path)
    if not path.exists():
        raise ValueError(f"no value network at {path}: train one with `gamut squares train-net --scoring ... "
                         "--out FILE` and pass it as weights=FILE")
    saved = load_npz(path, (*PARAM_NAMES, "value_scale", "points", "metadata", "version", "sha256"),
                     "value-network file")
    if str(saved["sha256"]) != params_digest(saved):
        raise ValueError(f"{path}: its arrays do not match its SHA-256 digest: the file is corrupted or was "
                         "altered; restore it (git checkout) or retrain it")
    if int(saved["version"]) != NET_VERSION:
        raise ValueError(f"{path} holds a version {int(saved['version'])} network; this code reads version "
                         f"{NET_VERSION}")
    h1, h2, h3 = saved["b1"].shape[0], saved["b2"].shape[0], saved["b3"].shape[0]
    for name, shape in param_shapes(h1, h2, h3).items():
        if saved[name].shape != shape:
            raise ValueError(f"{path}: parameter {name} has shape {saved[name].shape}, expected {shape}")
    if points is not None and tuple(saved["points"]) != tuple(int(p) for p in points):
        raise ValueError(f"{path} was trained for points {tuple(int(p) for p in saved['points'])}, not "
                         f"{tuple(int(p) for p in points)}")
    base = str(saved.get("base", "none"))
    if base not in BASES:
        raise ValueError(f"{path} names an unknown base {base!r}; this code knows {', '.join(BASES)}")
    base_arrays, digest = load_base(base, tuple(int(p) for p in saved["points"]))
    if digest != str(saved.get("base_sha256", "")):
        raise ValueError(f"{path} was trained over another crossline correction than the one at "
                         f"{crossline_path(saved['points'])} (SHA-256 {digest[:12]}..., the file names "
                         f"{str(saved.get('base_sha256', ''))[:12]}...): retrain it over this correction")
    return {"params": forward_params(saved, float(saved["value_scale"])), "base": base, "base_arrays": base_arrays,
            "arrays": saved,
            "points": tuple(int(p) for p in saved["points"]), "metadata": json.loads(str(saved["metadata"])),
            "sha256": str(saved["sha256"])}


def forward_params(arrays: dict, value_scale: float) -> tuple:
    """The tuple the Numba kernels take: the ``PARAM_NAMES`` arrays (contiguous float64), then the scale."""
    return tuple(np.ascontiguousarray(arrays[name], dtype=np.float64) for name in PARAM_NAMES) \
        + (float(value_scale),)


def initial_params(seed: int, h1: int = H1, h2: int = H2, h3: int = H3) -> dict:
    """He-initialised parameters (float64) from ``seed``; output layer zero, so the first value is 0."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0x4E45,)))
    params = {}
    for name, shape in param_shapes(h1, h2, h3).items():
        if len(shape) == 2:
            fan_in = shape[0] + (GLOBAL_INPUTS if name == "w1" else 0)
            params[name] = rng.normal(0.0, np.sqrt(2.0 / fan_in), shape)
        else:
            params[name] = np.zeros(shape)
    params["b1"] = np.full(h1, 0.01)
    params["b2"] = np.full(h2, 0.01)
    return params

