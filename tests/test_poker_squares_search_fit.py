"""Poker Squares search refit: its games are the agent's, its equations add up, it resumes and refuses."""

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401
from gamut.envs.hands import HAND_TABLE
from gamut.envs.rng import rng_state, shuffle
from gamut.envs.poker_squares import kernels as K
from gamut.experiments.cli import main
from gamut.solvers.bots import make_bot
from gamut.solvers.poker_squares import crossline as X
from gamut.solvers.poker_squares import learned as L
from gamut.solvers.poker_squares import search_fit as F
from gamut.solvers.poker_squares.evaluation import evaluate
from gamut.solvers.poker_squares.training import load_values, stream_seed

AMERICAN = (0, 2, 5, 10, 15, 20, 25, 50, 75, 100)


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """A small learned table and a finished one-round greedy fit of its correction."""
    cfg = K.make_config(1, False, False, AMERICAN)
    values, visits = np.zeros(L.NUM_KEYS), np.zeros(L.NUM_KEYS, dtype=np.int64)
    L.train_games(values, visits, cfg, 20_000, 1, 0.5, 0.0, 0, 20_000)
    folder = tmp_path_factory.mktemp("search_fit")
    table = folder / "values.npz"
    np.savez(table, version=L.TABLE_VERSION, values=values, points=np.array(AMERICAN))
    weights = folder / "greedy.npz"
    X.fit_rounds(AMERICAN, rounds=1, games=40, seed=1, table=table, path=weights)
    return table, weights


def _copy(src, dst):
    dst.write_bytes(src.read_bytes())
    return dst


def _chunk_deals(seed, n):
    """The deals of a chunk, shuffled exactly as the kernel shuffles them: int64 (n, 25)."""
    rng, deck, out = rng_state(seed), np.arange(52), np.empty((n, 25), dtype=np.int64)
    for g in range(n):
        shuffle(deck, 52, rng)
        out[g] = deck[:25]
    return out


def test_the_chunk_games_are_the_games_of_the_expectimax_cross_agent(fitted):
    table, weights = fitted
    values, w = load_values(AMERICAN, table), X.load_weights(AMERICAN, weights, table)
    cfg = K.make_config(1, False, False, AMERICAN)
    xtx, xty, scores = F.play_chunk(cfg, values, w, 3, 21)
    game = pyspiel.load_game("poker_squares")
    bot = make_bot(game, "expectimax_cross", seed=0, table=str(table), weights=str(weights))
    played = evaluate(game, bot, _chunk_deals(21, 3))
    np.testing.assert_array_equal(scores, played["scores"])
    # Their afterstates, recounted from the agent's grids, give the chunk's equations.
    want_xtx, want_xty = np.zeros_like(xtx), np.zeros_like(xty)
    phi = np.empty(X.NUM_FEATURES)
    for deal, grid, final in zip(_chunk_deals(21, 3), played["grids"], scores):
        st = np.empty(K.STATE_SIZE, dtype=np.int64)
        K.init_state(st)
        for t in range(1, 25):
            K.deal_card(st, deal[t - 1])
            K.place_card(st, 0, int(np.flatnonzero(grid == deal[t - 1])[0]))
            X.features(st, 0, L.seen_word(st, 0), phi)
            want_xtx[t] += np.outer(phi, phi)
            want_xty[t] += phi * (final - L.grid_value(st, 0, cfg, HAND_TABLE, values))
    np.testing.assert_allclose(xtx, want_xtx, atol=1e-9)
    np.testing.assert_allclose(xty, want_xty, atol=1e-9)


def test_the_refit_adds_the_search_games_to_the_scaled_greedy_equations(fitted, tmp_path):
    table, weights = fitted
    path = _copy(weights, tmp_path / "w.npz")
    greedy = dict(np.load(weights))
    summary = F.refit_on_search(AMERICAN, games=5, chunk=2, seed=4, scale=0.5, path=path, table=table)
    assert summary["games"] == 5
    cfg = K.make_config(1, False, False, AMERICAN)
    values = load_values(AMERICAN, table)
    parts = [F.play_chunk(cfg, values, greedy["weights"], n, stream_seed(4, c)) for c, n in enumerate((2, 2, 1))]
    xtx = parts[0][0] + parts[1][0] + parts[2][0]
    xty = parts[0][1] + parts[1][1] + parts[2][1]
    saved = np.load(path)
    np.testing.assert_array_equal(saved["search_xtx"], xtx)
    np.testing.assert_array_equal(saved["greedy_weights"], greedy["weights"])
    np.testing.assert_array_equal(saved["search_scores"], np.concatenate([p[2] for p in parts]))
    want = X.fit(0.5 * greedy["xtx"] + xtx, 0.5 * greedy["xty"] + xty, float(greedy["ridge"]))
    np.testing.assert_array_equal(X.load_weights(AMERICAN, path, table), want)
    # A new scale refits from the stored sums without playing again.
    F.refit_on_search(AMERICAN, games=5, chunk=2, seed=4, scale=0.0, path=path, table=table,
                      progress=lambda *a: None)
    np.testing.assert_array_equal(X.load_weights(AMERICAN, path, table), X.fit(xtx, xty, float(greedy["ridge"])))


def test_an_interrupted_refit_resumes_to_the_bits_of_one_run_by_two_workers(fitted, tmp_path):
    table, weights = fitted
    whole = _copy(weights, tmp_path / "whole.npz")
    F.refit_on_search(AMERICAN, games=4, chunk=1, seed=2, workers=2, path=whole, table=table)
    cut = _copy(weights, tmp_path / "cut.npz")

    def stop_after_first(done, total, mean, seconds):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        F.refit_on_search(AMERICAN, games=4, chunk=1, seed=2, path=cut, table=table, progress=stop_after_first)
    with pytest.raises(ValueError, match="unfinished search refit"):
        X.load_weights(AMERICAN, cut, table)
    assert len(np.load(cut)["search_scores"]) == 1
    F.refit_on_search(AMERICAN, games=4, chunk=1, seed=2, path=cut, table=table)
    for key in ("weights", "search_xtx", "search_xty", "search_scores"):
        np.testing.assert_array_equal(np.load(cut)[key], np.load(whole)[key])


def test_bad_refits_are_refused_and_change_nothing(fitted, tmp_path, capsys):
    table, weights = fitted
    path = _copy(weights, tmp_path / "w.npz")
    F.refit_on_search(AMERICAN, games=1, chunk=1, seed=0, path=path, table=table)
    before = path.read_bytes()
    with pytest.raises(ValueError, match="other settings"):
        F.refit_on_search(AMERICAN, games=2, chunk=1, seed=0, path=path, table=table)
    with pytest.raises(ValueError, match="must be >= 1"):
        F.refit_on_search(AMERICAN, games=0, path=path, table=table)
    with pytest.raises(ValueError, match="no cross-line correction"):
        F.refit_on_search(AMERICAN, games=1, path=tmp_path / "missing.npz", table=table)
    assert path.read_bytes() == before
    unfinished = tmp_path / "unfinished.npz"

    def stop(done, total, mean, seconds):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        X.fit_rounds(AMERICAN, rounds=2, games=5, seed=1, table=table, path=unfinished, progress=stop)
    with pytest.raises(ValueError, match="unfinished fit"):
        F.refit_on_search(AMERICAN, games=1, path=unfinished, table=table)
    assert main(["squares", "refit-crossline", "--games", "0"]) == 2
    assert "argument --games: expected a whole number in 1.." in capsys.readouterr().err
