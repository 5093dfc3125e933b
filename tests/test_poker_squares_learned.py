"""Learned partial-line values: abstract keys against a plain reference, gains, training and resume."""

import numpy as np
import pytest

import gamut.envs  # noqa: F401
from gamut.envs.hands import HAND_TABLE
from gamut.envs.rng import rng_state
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares import learned as L
from gamut.solvers.poker_squares import training as T

AMERICAN = (0, 2, 5, 10, 15, 20, 25, 50, 75, 100)


def _reference_key(cards, placed, is_col, seen):
    """Key of a line holding ``cards`` (-1: empty cells) when the cards ``seen`` are known."""
    cards = [c for c in cards if c >= 0]
    n = len(cards)
    if n == 5:
        return -1
    counts = {}
    for c in cards:
        counts[c // 4] = counts.get(c // 4, 0) + 1
    mult = list(counts.values())
    pattern = mult.count(1) + 5 * (mult.count(2) + 3 * (mult.count(3) + 2 * mult.count(4)))
    unseen = [c for c in range(52) if c not in seen]
    if n == 0:
        flush, straight, outs = 4, 3, 0
    else:
        suits = {c % 4 for c in cards}
        flush = 0
        if len(suits) == 1:
            spare = sum(1 for c in unseen if c % 4 in suits) - (5 - n)
            flush = 1 + min(spare, 3) if spare >= 0 else 0
        ranks = set(counts)
        straight = 0
        if all(m == 1 for m in mult):
            windows = [set(range(lo, lo + 5)) for lo in range(9)] + [{12, 0, 1, 2, 3}]
            live = [w for w in windows if ranks <= w
                    and all(any(c // 4 == r for c in unseen) for r in w - ranks)]
            straight = min(len(live), 3)
        outs = min(sum(1 for c in unseen if c // 4 in ranks), 6)
    return ((((placed * 2 + is_col) * L.NUM_PATTERNS + pattern) * 5 + flush) * 4 + straight) * 7 + outs


def _random_states(count, seed):
    """Grids holding distinct random cards in a random number of random cells (vectorised)."""
    rng = np.random.default_rng(seed)
    cards = np.argsort(rng.random((count, 52)), axis=1)[:, :25]
    filled = rng.random((count, 25)) < rng.random((count, 1))
    states = np.full((count, K.STATE_SIZE), -1, dtype=np.int64)
    states[:, :25] = np.where(filled, cards, -1)
    states[:, K.S_NUM_PLACED] = filled.sum(axis=1)
    return states


@pytest.mark.slow
def test_line_key_matches_the_plain_definition_on_100k_lines():
    states = _random_states(10_000, 1)
    for st in states:
        placed = int(st[K.S_NUM_PLACED])
        seen = {int(c) for c in st[:25] if c >= 0}
        for line in range(K.NUM_LINES):
            cards = [int(st[c]) for c in K.LINES[line]]
            assert L.line_key(st, 0, line, placed) == _reference_key(cards, placed, int(line >= 5), seen)


def test_key_example_of_the_module_docstring():
    st = np.full(K.STATE_SIZE, -1, dtype=np.int64)
    st[0], st[5], st[10] = 4 * 5 + 2, 4 * 5 + 0, 4 * 7 + 1  # 7h 7c 9d down column 0
    st[[1, 2, 3, 4]] = [0, 4, 40, 51]  # 2c 3c Qc As: no other 7 or 9
    assert L.line_key(st, 0, 5, 7) == 126_845


def test_placement_gains_differ_as_the_grid_values_after_them():
    """The card is seen wherever it goes: gains rank cells exactly as the grid values after placing."""
    values = np.random.default_rng(2).normal(size=L.NUM_KEYS)
    cfg = K.make_config(1, False, False, AMERICAN)
    for st in _random_states(300, 3):
        placed = int(st[K.S_NUM_PLACED])
        if placed == 25:
            continue
        used = set(int(c) for c in st[:25] if c >= 0)
        card = next(c for c in range(52) if c not in used)
        offsets, after_values = [], []
        for cell in np.flatnonzero(st[:25] < 0):
            after = st.copy()
            after[K.S_NUM_PLACED] = placed + 1
            after[cell] = card
            gain = L.placement_gain(st, 0, int(cell), card, cfg, HAND_TABLE, values)
            after_values.append(L.grid_value(after, 0, cfg, HAND_TABLE, values))
            offsets.append(after_values[-1] - gain)
        assert np.allclose(offsets, offsets[0])
        assert L.best_value_after(st, 0, card, cfg, HAND_TABLE, values) == pytest.approx(max(after_values))


def test_learned_cell_picks_an_empty_cell_of_highest_gain():
    values = np.random.default_rng(4).normal(size=L.NUM_KEYS)
    cfg = K.make_config(1, False, False, AMERICAN)
    rng = rng_state(5)
    for st in _random_states(200, 6):
        placed = int(st[K.S_NUM_PLACED])
        if placed == 25:
            continue
        used = set(int(c) for c in st[:25] if c >= 0)
        st[K.S_DEAL + placed] = next(c for c in range(52) if c not in used)
        cell = L.learned_cell(st, 0, cfg, HAND_TABLE, values, rng)
        gains = {c: L.placement_gain(st, 0, int(c), int(st[K.S_DEAL + placed]), cfg, HAND_TABLE, values)
                 for c in np.flatnonzero(st[:25] < 0)}
        assert st[cell] < 0 and gains[cell] == pytest.approx(max(gains.values()))


def test_training_is_seeded_and_learns_line_means():
    cfg = K.make_config(1, False, False, AMERICAN)
    runs = []
    for _ in range(2):
        values, visits = np.zeros(L.NUM_KEYS), np.zeros(L.NUM_KEYS, dtype=np.int64)
        scores = L.train_games(values, visits, cfg, 300, 9, 0.5, 0.0, 0, 300)
        runs.append((values, visits, scores))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][2], runs[1][2])
    values, visits, _ = runs[0]
    # Empty lines at the start are certain to end as lines: their value is a mean of line points.
    assert visits.sum() > 0 and values.min() >= 0 and values.max() <= 100


def test_resumed_training_equals_an_uninterrupted_run(tmp_path, monkeypatch):
    monkeypatch.setattr(T, "CHUNK", 200)
    whole = tmp_path / "whole.npz"
    T.train(AMERICAN, 600, seed=3, path=whole)
    part = tmp_path / "part.npz"
    calls = []

    def stop_after_first(done, total, mean, seconds):
        calls.append(done)
        if len(calls) == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        T.train(AMERICAN, 600, seed=3, path=part, progress=stop_after_first)
    assert int(np.load(part)["done"]) == 200
    T.train(AMERICAN, 600, seed=3, path=part)
    assert np.array_equal(T.load_values(AMERICAN, whole), T.load_values(AMERICAN, part))
    with pytest.raises(ValueError, match="other settings"):
        T.train(AMERICAN, 600, seed=4, path=part)


def test_tables_of_another_version_are_refused(tmp_path):
    path = tmp_path / "old.npz"
    np.savez(path, values=np.zeros(62_400), points=np.array(AMERICAN))  # a version 1 table: no version field
    with pytest.raises(ValueError, match="version 1 table.*retrain"):
        T.load_values(AMERICAN, path)


def test_table_names_and_missing_tables():
    assert T.system_name(AMERICAN) == "american"
    assert T.system_name((0, -1, 3, 6, 12, 5, 10, 16, 30, 30)) == "0_m1_3_6_12_5_10_16_30_30"
    with pytest.raises(ValueError, match="gamut squares train"):
        T.load_values((1,) * 10)
