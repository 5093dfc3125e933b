"""Search-labelled TD targets: bootstrapping from the mean best value over every card that could come next."""

from __future__ import annotations

import numpy as np
import pytest

import gamut.envs  # noqa: F401
from gamut.envs.cards import NUM_CARDS
from gamut.envs.hands import HAND_TABLE
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares import crossline as C
from gamut.solvers.poker_squares import net_model as M
from gamut.solvers.poker_squares.training import NAMED_SYSTEMS
from tests.squares_states import dealt_state

AMERICAN = NAMED_SYSTEMS["american"]
CFG = K.make_config(1, False, False, AMERICAN)


def random_params(seed: int) -> tuple:
    """A network with every parameter random (the trained ones are not zero anywhere either)."""
    rng = np.random.default_rng(seed)
    return M.forward_params({name: rng.normal(0, 0.3, shape) for name, shape in M.param_shapes().items()}, 100.0)


def slow_value(grid: np.ndarray, params: tuple, base: tuple) -> float:
    """A grid's value the obvious way: its score when full, else the network's value of the whole grid plus the base."""
    state = np.full(K.STATE_SIZE, -1, np.int64)
    state[K.S_GRID:K.S_GRID + K.NUM_CELLS] = grid
    placed = int((grid >= 0).sum())
    if placed == K.NUM_CELLS:
        return float(K.grid_score(state, 0, CFG, HAND_TABLE))
    value = M.grid_value(grid.copy(), params, CFG, HAND_TABLE)
    if base[0].shape[0]:
        phi = np.empty(C.NUM_FEATURES)
        value += C.corrected_value(state, 0, placed, C.seen_word(state, 0), CFG, HAND_TABLE, *base, phi)
    return value


def slow_expected_best(grid: np.ndarray, params: tuple, base: tuple) -> float:
    """The mean, over every card not on ``grid``, of the best value of placing it in an empty cell."""
    bests = []
    for card in sorted(set(range(NUM_CARDS)) - set(grid[grid >= 0].tolist())):
        values = []
        for cell in np.flatnonzero(grid < 0):
            after = grid.copy()
            after[cell] = card
            values.append(slow_value(after, params, base))
        bests.append(max(values))
    return float(np.mean(bests))


def states_with(placed_counts, seed: int) -> np.ndarray:
    """One-player states (int64 (n, STATE_SIZE)), built by the kernels, with that many random cards placed."""
    rng = np.random.default_rng(seed)
    return np.array([dealt_state(rng.permutation(NUM_CARDS), rng.permutation(K.NUM_CELLS)[:placed])
                     for placed in placed_counts])


@pytest.mark.parametrize("base_name", ["none", "crossline"])
def test_expected_best_is_the_mean_best_value_over_every_unseen_card(base_name):
    from gamut.solvers.poker_squares.net_train import expected_best

    params = random_params(1)
    base = M.load_base(base_name, AMERICAN)[0]
    placed = [1, 7, 15, 23, 24]  # 24: the last card, whose afterstate is the full grid's score
    states = states_with(placed, seed=2)
    out = np.full((len(placed), K.NUM_CELLS), np.nan)
    expected_best(states, params, *base, CFG, HAND_TABLE, 5, out)
    for i in range(len(placed)):
        grid = states[i, K.S_GRID:K.S_GRID + K.NUM_CELLS].copy()
        assert out[i, 5] == pytest.approx(slow_expected_best(grid, params, base), rel=1e-9, abs=1e-9)
    assert np.isnan(np.delete(out, 5, axis=1)).all()  # only column ``move`` is written


@pytest.mark.slow
def test_expected_bootstrap_plays_the_same_games_and_trains_on_their_search_labelled_targets(tmp_path):
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    from gamut.solvers.poker_squares import net_train as T

    small = {"games_per_chunk": 4, "updates": 0, "batch": 4, "buffer": 500, "base": "crossline",
             "bootstrap": "expected", "lam": 0.6, "epsilon": 0.3}
    path = tmp_path / "run.npz"
    T.train_net("american", T.POSITIONS_PER_GAME * 4, path, seed=7, **small)
    start = M.forward_params(M.initial_params(7), T.VALUE_SCALE)
    drawn = T.play_chunk("poker_squares", start, 7, 0, 4, 0.3, base="crossline")
    expected = T.play_chunk("poker_squares", start, 7, 0, 4, 0.3, base="crossline", bootstrap="expected")
    # The bootstrap changes what is learned from a game, never the game.
    np.testing.assert_array_equal(drawn["grids"], expected["grids"])
    np.testing.assert_array_equal(drawn["scores"], expected["scores"])
    np.testing.assert_array_equal(drawn["best"][:, 0], expected["best"][:, 0])
    base = M.load_base("crossline", AMERICAN)[0]
    for g in range(4):
        for t in (1, 12, 24):
            before = expected["grids"][g, t - 1].astype(np.int64)
            assert expected["best"][g, t] == pytest.approx(slow_expected_best(before, start, base), abs=1e-9)
    targets = T.lambda_targets(expected["best"], expected["scores"], 0.6).reshape(-1)
    grids = expected["grids"][:, :T.POSITIONS_PER_GAME].reshape(-1, K.NUM_CELLS)
    base_of = np.empty(len(grids))
    M.base_values_of(grids, CFG, HAND_TABLE, *base, base_of)
    saved = np.load(path, allow_pickle=False)
    np.testing.assert_allclose(saved["buffer_targets"], (targets - base_of) / T.VALUE_SCALE, rtol=1e-6, atol=1e-6)
    # A resume must keep the bootstrap; another one, or an unknown one, is refused before anything runs.
    with pytest.raises(ValueError, match="other settings: bootstrap 'expected' \\(now 'drawn'\\)"):
        T.train_net("american", T.POSITIONS_PER_GAME * 8, path, seed=7, resume=True,
                    **{**small, "bootstrap": "drawn"})
    with pytest.raises(ValueError, match="unknown bootstrap 'sampled'; known: drawn, expected"):
        T.train_net("american", T.POSITIONS_PER_GAME * 4, tmp_path / "other.npz", seed=7,
                    **{**small, "bootstrap": "sampled"})
    assert not (tmp_path / "other.npz").exists()
    assert np.load(path)["chunk"] == 1


def test_the_cli_records_the_bootstrap_and_refuses_an_unknown_one(tmp_path, capsys):
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    from tests.train_net_cli import train_then_refuse

    _, weights = train_then_refuse(tmp_path, "--bootstrap", "expected", "sampled")
    assert M.load_net(weights)["metadata"]["settings"]["bootstrap"] == "expected"
    err = capsys.readouterr().err
    assert "--bootstrap" in err and "'drawn', 'expected'" in err
