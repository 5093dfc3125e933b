"""Poker Squares cross-line correction: features against their definition, the corrected player, the fit."""

import numpy as np
import pytest

from gamut.envs.hands import HAND_TABLE
from gamut.envs.rng import rng_state, shuffle
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares import crossline as X
from gamut.solvers.poker_squares import learned as L
from gamut.solvers.poker_squares.training import table_path
from tests.squares_states import dealt_state, reference_features

AMERICAN = (0, 2, 5, 10, 15, 20, 25, 50, 75, 100)


def _grid_seen(st):
    return L.seen_word(st, 0)


@pytest.mark.slow
def test_features_match_their_definition_on_random_grids():
    rng = np.random.default_rng(1)
    phi = np.empty(X.NUM_FEATURES)
    # All cards, two suits only (flush draws, competing suits), seven ranks only (pairs, trips, dead windows).
    pools = [np.arange(52), np.array([c for c in range(52) if c & 3 < 2]), np.arange(28)]
    for trial in range(1500):
        st = np.full(K.STATE_SIZE, -1, dtype=np.int64)
        k = int(rng.integers(0, 26))
        pool = rng.permutation(pools[trial % 3])
        cards = pool[:k]
        st[rng.choice(25, size=k, replace=False)] = cards
        extra = [int(c) for c in pool[k:k + int(rng.integers(0, 3))]]  # cards seen beyond the grid
        seen = _grid_seen(st) + sum(int(L.card_seen_word(c)) for c in extra)
        X.features(st, 0, seen, phi)
        np.testing.assert_array_equal(phi, reference_features(st[:25], list(cards) + extra))


def test_the_worked_example_of_the_module_docstring():
    st = np.full(K.STATE_SIZE, -1, dtype=np.int64)
    ace_h, king_h = 4 * 12 + 2, 4 * 11 + 2
    st[0], st[1] = ace_h, king_h
    phi = np.empty(X.NUM_FEATURES)
    X.features(st, 0, _grid_seen(st), phi)
    want = np.zeros(X.NUM_FEATURES)
    want[187], want[1], want[0], want[X.F_BIAS] = 3, 8, 12, 1
    np.testing.assert_array_equal(phi, want)


def test_the_corrected_value_adds_the_weights_of_the_cards_placed():
    values = np.random.default_rng(2).normal(size=L.NUM_KEYS)
    cfg = K.make_config(1, False, False, AMERICAN)
    st = dealt_state(np.random.default_rng(3).permutation(52)[:25], [0, 7, 13, 19, 21, 3])
    seen, phi = _grid_seen(st), np.empty(X.NUM_FEATURES)
    plain = L.grid_value_with_seen(st, 0, 6, seen, cfg, HAND_TABLE, values)
    assert X.corrected_value(st, 0, 6, seen, cfg, HAND_TABLE, values, X.NO_WEIGHTS, phi) == plain
    weights = np.random.default_rng(4).normal(size=(X.NUM_PLACED, X.NUM_FEATURES))
    want = plain + weights[6] @ reference_features(st[:25], [c for c in st[:25] if c >= 0])
    assert X.corrected_value(st, 0, 6, seen, cfg, HAND_TABLE, values, weights, phi) == pytest.approx(want)


@pytest.mark.parametrize("placed", [4, 15, 23, 24])
@pytest.mark.slow
def test_the_best_corrected_cell_is_the_argmax_over_every_empty_cell(placed):
    values = np.random.default_rng(5).normal(size=L.NUM_KEYS)
    weights = np.random.default_rng(6).normal(size=(X.NUM_PLACED, X.NUM_FEATURES))
    cfg = K.make_config(1, False, False, AMERICAN)
    rng = np.random.default_rng(placed)
    st = dealt_state(rng.permutation(52)[:25], list(rng.permutation(25)[:placed]))
    card = K.card_to_place(st, 0)
    scores = {}
    for cell in np.flatnonzero(st[:25] < 0):
        after = st.copy()
        K.place_card(after, 0, int(cell))
        scores[int(cell)] = L.grid_value(after, 0, cfg, HAND_TABLE, values)
        if placed + 1 < 25:
            scores[int(cell)] += weights[placed + 1] @ reference_features(after[:25], after[:25][after[:25] >= 0])
    before = st.copy()
    best = max(scores.values())
    assert X.best_corrected_after(st, 0, card, cfg, HAND_TABLE, values, weights) == pytest.approx(best)
    assert X.corrected_cell(st, 0, cfg, HAND_TABLE, values, weights) == min(c for c, v in scores.items()
                                                                           if v > best - 1e-9)
    np.testing.assert_array_equal(st, before)


@pytest.mark.slow
def test_a_round_adds_the_normal_equations_of_its_games():
    """Replay the round's games from the same seed and count every afterstate's features and residual."""
    values = np.random.default_rng(7).normal(size=L.NUM_KEYS)
    weights = 0.1 * np.random.default_rng(8).normal(size=(X.NUM_PLACED, X.NUM_FEATURES))
    cfg = K.make_config(1, False, False, AMERICAN)
    xtx = np.zeros((X.NUM_PLACED, X.NUM_FEATURES, X.NUM_FEATURES))
    xty = np.zeros((X.NUM_PLACED, X.NUM_FEATURES))
    scores = X.play_round(cfg, values, weights, 4, 11, xtx, xty)
    want_xtx, want_xty = np.zeros_like(xtx), np.zeros_like(xty)
    rng, deck = rng_state(11), np.arange(52)
    for g in range(4):
        shuffle(deck, 52, rng)
        st = np.empty(K.STATE_SIZE, dtype=np.int64)
        K.init_state(st)
        rows = []
        for step in range(25):
            K.deal_card(st, deck[step])
            K.place_card(st, 0, X.corrected_cell(st, 0, cfg, HAND_TABLE, values, weights))
            if step < 24:
                grid = st[:25]
                rows.append((step + 1, reference_features(grid, grid[grid >= 0]),
                             L.grid_value(st, 0, cfg, HAND_TABLE, values)))
        final = K.grid_score(st, 0, cfg, HAND_TABLE)
        assert scores[g] == final
        for t, phi, base in rows:
            want_xtx[t] += np.outer(phi, phi)
            want_xty[t] += phi * (final - base)
    np.testing.assert_allclose(xtx, want_xtx, atol=1e-9)
    np.testing.assert_allclose(xty, want_xty, atol=1e-9)
    fitted = X.fit(xtx, xty, 3.0)
    assert not fitted[0].any() and not fitted[25].any()
    np.testing.assert_allclose((xtx[9] + 3.0 * np.eye(X.NUM_FEATURES)) @ fitted[9], xty[9], atol=1e-8)


def _fit(tmp_path, name, **kw):
    return X.fit_rounds(AMERICAN, rounds=2, games=30, seed=3, ridge=10.0, path=tmp_path / name, **kw)


@pytest.mark.slow
def test_an_interrupted_fit_resumes_to_the_weights_of_an_uninterrupted_one(tmp_path):
    whole = _fit(tmp_path, "whole.npz")
    assert whole["rounds"] == 2 and len(whole["round_means"]) == 2

    def stop_after_first(done, total, mean, seconds):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _fit(tmp_path, "cut.npz", progress=stop_after_first)
    with pytest.raises(ValueError, match="unfinished fit"):
        X.load_weights(AMERICAN, tmp_path / "cut.npz")
    assert _fit(tmp_path, "cut.npz") == {**whole, "path": str(tmp_path / "cut.npz")}
    np.testing.assert_array_equal(X.load_weights(AMERICAN, tmp_path / "cut.npz"),
                                  X.load_weights(AMERICAN, tmp_path / "whole.npz"))


@pytest.mark.slow
def test_bad_fits_and_files_are_refused_with_the_reason(tmp_path):
    _fit(tmp_path, "w.npz")
    with pytest.raises(ValueError, match="other settings"):
        X.fit_rounds(AMERICAN, rounds=2, games=31, seed=3, ridge=10.0, path=tmp_path / "w.npz")
    with pytest.raises(ValueError, match="rounds and games must be >= 1"):
        X.fit_rounds(AMERICAN, rounds=0, path=tmp_path / "x.npz")
    other_table = tmp_path / "values.npz"
    saved = dict(np.load(table_path(AMERICAN)))
    saved["values"] = saved["values"] + 1.0
    np.savez_compressed(other_table, **saved)
    with pytest.raises(ValueError, match="another learned table"):
        X.load_weights(AMERICAN, tmp_path / "w.npz", other_table)
    with pytest.raises(ValueError, match="fitted for points"):
        X.load_weights((0, 1, 3, 6, 12, 5, 10, 16, 30, 30), tmp_path / "w.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a numpy file")
    with pytest.raises(ValueError, match="not a readable correction file"):
        X.load_weights(AMERICAN, tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="train-crossline"):
        X.load_weights(AMERICAN, tmp_path / "missing.npz")


def test_the_committed_correction_makes_a_stronger_greedy_player():
    import pyspiel

    from gamut.solvers.bots import make_bot
    from gamut.solvers.poker_squares.evaluation import deals, evaluate
    from gamut.solvers.stats import paired_diff_ci

    for points in (AMERICAN, (0, 1, 3, 6, 12, 5, 10, 16, 30, 30)):
        if not X.weights_path(points).exists():
            pytest.fail(f"the committed correction {X.weights_path(points)} is missing")
    game = pyspiel.load_game("poker_squares")
    the_deals = deals(13, 200)
    learned = evaluate(game, make_bot(game, "learned", seed=1), the_deals)["scores"]
    corrected = evaluate(game, make_bot(game, "crossline", seed=1), the_deals)["scores"]
    assert paired_diff_ci(corrected, learned).ci95_low > 0


def test_weights_of_any_other_shape_are_refused_before_a_kernel_indexes_them():
    from gamut.solvers.poker_squares import search as S

    assert X.checked_weights(X.NO_WEIGHTS).shape == (0, X.NUM_FEATURES)
    full = X.checked_weights(np.ones((X.NUM_PLACED, X.NUM_FEATURES), dtype=np.float32))
    assert full.dtype == np.float64 and full.flags.c_contiguous and full.shape == (26, X.NUM_FEATURES)
    for shape in [(5, X.NUM_FEATURES), (26, 5), (X.NUM_FEATURES,)]:
        with pytest.raises(ValueError, match=r"weights must be float64 \(0 or 26"):
            X.checked_weights(np.zeros(shape))
    cfg = K.make_config(1, False, False, AMERICAN)
    st = dealt_state(np.arange(25), [0, 1, 2])
    cands = np.array([3, 4], dtype=np.int64)
    sums = np.zeros(2)
    with pytest.raises(ValueError, match="weights must be float64"):
        S.mc_batch(st, 0, cfg, HAND_TABLE, np.zeros(L.NUM_KEYS), cands, 1, rng_state(1), S.POLICY_LEARNED, 2,
                   sums, np.zeros((5, X.NUM_FEATURES)))
    assert not sums.any()
