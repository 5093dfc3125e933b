"""The fixed partial-line values behind the duality penalty (``gamut.solvers.poker_squares.duality``).

A duality bound is valid for any penalty fixed before the deals are drawn,
and reproducible only if that penalty stays fixed. The playing agents' learned
table (``gamut.solvers.poker_squares.learned``) evolves, so the bound keeps its own
frozen copy: the self-play tables trained by ``gamut squares train --scoring
american --games 4000000 --seed 0`` (commit 42d0a9e) and ``--scoring english
--games 2000000`` (commit 14fa3d2), stored as
``results/poker_squares_bounds/penalty_values_<scoring>.npz`` with their
SHA-256 below, read with the abstract line key they were trained on
(version 1), reimplemented here.

Version-1 key of a line that is not full (``NUM_KEYS`` = 26 * 2 * 5 * 60 * 2 * 2 = 62,400)::

    key = ((((placed * 2 + is_column) * 5 + n) * 60 + pattern) * 2 + flush_ok) * 2 + straight_ok

``placed`` = cards on the grid (0..25), ``n`` = cards in the line (0..4),
``pattern = singles + 5 * (pairs + 3 * (trips + 2 * quads))`` (rank
multiplicities), ``flush_ok`` = one suit so far (true when empty),
``straight_ok`` = distinct ranks within one five-rank window, ace high or low
(true when empty). Worked example: 7 cards on the grid, the column
``7h 7c 9d`` (n = 3, pattern 1 + 5 * 1 = 6, mixed suits, not straight-able)
has key ``((((7 * 2 + 1) * 5 + 3) * 60 + 6) * 2 + 0) * 2 + 0 = 18,744``.
A full line is valued by its exact points.
"""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np

from gamut.envs.cards import popcount
from gamut.envs.hands import add_rank, category_of, hand_strength5
from gamut.solvers.poker_squares.training import file_sha256, load_npz

NUM_KEYS = 26 * 2 * 5 * 60 * 2 * 2
RESULTS_DIR = Path(__file__).resolve().parents[2] / "results" / "poker_squares_bounds"
SHA256 = {
    "american": "7b7b8605b695fb8430533ce00aa1743c7efac908c7449ea6be27145b57a8ac64",
    "english": "e79e025abea9f39954872490b0203dc768f8607c7f34d27a25e7527cd3a25bf7",
}
# The shipped ("fitted") tables are the learned ones fitted in three stages by ``FITTED_COMMANDS`` (formatted
# with ``FITTED_FORMAT[scoring]``): first one multiplier per (cards placed, row or column, cards in the
# line), 260 in all, by 10 epochs of Adam on the mean set-partitioning LP bound of 100 deals of seed 778 at
# scale 1.5 (kept as ``penalty_fitted_line_<scoring>.npz``, checksum ``SHA256_FITTED_LINE``); then one
# multiplier per (those, flush still possible, straight still possible), 1,040 in all, started from it, by 2
# epochs on the mean Dantzig-Wolfe bound of 400 deals of seed 778 at the first stage's tuned scale (kept as
# ``penalty_fitted_draw_<scoring>.npz``, checksum ``SHA256_FITTED_DRAW``); then every one of the 62,400 keys
# moved on its own (additively, step 0.1 points), started from the second stage's table, by 2 epochs on the
# mean Dantzig-Wolfe bound of 1,600 deals (American) or 400 (English) of seed 778 at scale 1.75. Each fit's
# progress and its start table's checksum are beside its table in ``penalty_fitted[_line|_draw]_<scoring>.json``.
SHA256_FITTED = {
    "american": "ba27e66b4a263f22ed22a12b55fe2a3631aae6e815b9fddb9dd43e830f9b4ed7",
    "english": "5f83bc5802429a1c5a1a74c61fbaa824fc69504a2d68e3fcf848f05cf40bb00c",
}
SHA256_FITTED_DRAW = {
    "american": "4756568d979c74177a7969d524b076ab5c16609f0a5f5bfce2425552ed3a3e5d",
    "english": "b2e24e75a51ba3a55e5e4964ca22ae2bcca589bf7771f4b95f12bc04c0a47436",
}
SHA256_FITTED_LINE = {
    "american": "a6282c8f70e7c784a99c7197295655758e0f35bd8fe61b74cec05458ded64deb",
    "english": "371094038787ba3daaf97f61d0d30352051de9b3c5e054fd3130c0e93e0f81b7",
}
FITTED_COMMANDS = (
    "python -m gamut.solvers.poker_squares.penalty_fit --scoring {scoring} --seed 778 --deals 100 --epochs 10 "
    "--batch 10 --lr 0.05 --scale 1.5 --groups line "
    "--out results/poker_squares_bounds/penalty_fitted_line_{scoring}.npz",
    "python -m gamut.solvers.poker_squares.penalty_fit --scoring {scoring} --seed 778 --deals 400 --epochs 2 "
    "--batch 10 --lr 0.05 --scale {draw_scale} --groups draw --inner dw "
    "--start results/poker_squares_bounds/penalty_fitted_line_{scoring}.npz "
    "--out results/poker_squares_bounds/penalty_fitted_draw_{scoring}.npz",
    "python -m gamut.solvers.poker_squares.penalty_fit --scoring {scoring} --seed 778 --deals {key_deals} "
    "--epochs 2 --batch 10 --lr 0.1 --scale 1.75 --groups key --inner dw "
    "--start results/poker_squares_bounds/penalty_fitted_draw_{scoring}.npz "
    "--out results/poker_squares_bounds/penalty_fitted_{scoring}.npz",
)
FITTED_FORMAT = {
    "american": {"scoring": "american", "draw_scale": "1.75", "key_deals": "1600"},
    "english": {"scoring": "english", "draw_scale": "1.5", "key_deals": "400"},
}
_POINTS = {"american": (0, 2, 5, 10, 15, 20, 25, 50, 75, 100), "english": (0, 1, 3, 6, 12, 5, 10, 16, 30, 30)}
_WHEEL = 0x100F  # rank bits of A, 2, 3, 4, 5 (bit = rank - 2)


def load_penalty_values(scoring: str, kind: str = "learned") -> np.ndarray:
    """A frozen table of ``scoring`` (american or english): float64 (NUM_KEYS,), checksum verified.

    ``kind``: ``"learned"``, the self-play table, or ``"fitted"``, the same table fitted to minimise the
    duality bound on tuning deals (``gamut.solvers.poker_squares.penalty_fit``; commands and deals in
    ``FITTED_COMMANDS``).
    """
    if scoring not in SHA256:
        raise ValueError(f"the duality penalty has frozen tables for american and english, not {scoring!r}")
    if kind not in ("learned", "fitted"):
        raise ValueError(f"penalty tables are 'learned' or 'fitted', not {kind!r}")
    path = RESULTS_DIR / (f"penalty_values_{scoring}.npz" if kind == "learned" else f"penalty_fitted_{scoring}.npz")
    expected = SHA256[scoring] if kind == "learned" else SHA256_FITTED[scoring]
    digest = file_sha256(path)
    if digest != expected:
        raise ValueError(f"{path} has SHA-256 {digest}, expected {expected}: the penalty table changed")
    saved = load_npz(path, ("points", "values"))
    if tuple(int(p) for p in saved["points"]) != _POINTS[scoring] or saved["values"].shape != (NUM_KEYS,):
        raise ValueError(f"{path} is not a version-1 {scoring} table")
    return saved["values"].astype(np.float64)


@numba.njit(cache=True)
def line_key_v1(cards, n, placed, is_col):
    """Version-1 key of a partial line holding ``cards[:n]`` (n <= 4) with ``placed`` cards on the grid."""
    m1 = m2 = m3 = m4 = 0
    suits = 0
    for i in range(n):
        card = cards[i]
        bit = 1 << (card >> 2)
        suits |= 1 << (card & 3)
        m1, m2, m3, m4 = add_rank(bit, m1, m2, m3, m4)
    pattern = popcount(m1 & ~m2) + 5 * (popcount(m2 & ~m3) + 3 * (popcount(m3 & ~m4) + 2 * popcount(m4)))
    flush_ok = 1 if n == 0 or popcount(suits) == 1 else 0
    straight_ok = 0
    if m2 == 0:
        if m1 & _WHEEL == m1:
            straight_ok = 1
        for low in range(9):
            if m1 & (0x1F << low) == m1:
                straight_ok = 1
    return ((((placed * 2 + is_col) * 5 + n) * 60 + pattern) * 2 + flush_ok) * 2 + straight_ok


@numba.njit(cache=True)
def line_value_v1(cards, n, placed, is_col, points, table, values):
    """Value of a line holding ``cards[:n]``: exact points (``points`` int64 (10,)) if n == 5, else the table's."""
    if n == 5:
        return float(points[category_of(hand_strength5(cards[0], cards[1], cards[2], cards[3], cards[4], table))])
    return values[line_key_v1(cards, n, placed, is_col)]
