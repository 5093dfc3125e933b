"""A value network trained as a residual over the crossline value: its values, its training targets, its files."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401
from gamut.envs.hands import HAND_TABLE
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.bots import make_bot
from gamut.solvers.poker_squares import crossline as C
from gamut.solvers.poker_squares import net_model as M
from gamut.solvers.poker_squares.training import NAMED_SYSTEMS, file_sha256

AMERICAN = NAMED_SYSTEMS["american"]


def zero_params() -> tuple:
    """A network whose every parameter is 0: it adds nothing to its base."""
    return M.forward_params({name: np.zeros(shape) for name, shape in M.param_shapes().items()}, 100.0)


def random_positions(game, count: int, seed: int):
    """``count`` states of random play, each with a card to place (0 .. 24 cards on the grid)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, 25))):
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
            state.apply_action(int(rng.choice(state.legal_actions())))
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        yield state


@pytest.mark.parametrize("system", ["american", "english"])
def test_a_zero_network_over_the_crossline_base_values_afterstates_as_crossline_does(system):
    game = pyspiel.load_game("poker_squares", {"scoring": system})
    (values, weights), _ = M.load_base("crossline", NAMED_SYSTEMS[system])
    params, out = zero_params(), np.empty(K.NUM_CELLS)
    for state in random_positions(game, 60, seed=3):
        work = state.state.copy()
        grid = work[K.S_GRID:K.S_GRID + K.NUM_CELLS].copy()
        card = int(K.card_to_place(work, 0))
        M.valued_afterstates(grid, card, params, values, weights, game.cfg, HAND_TABLE, out)
        np.testing.assert_array_equal(grid, work[K.S_GRID:K.S_GRID + K.NUM_CELLS])  # restored
        best, cell = C._best_cell(work, 0, card, game.cfg, HAND_TABLE, values, weights)
        assert out.max() == pytest.approx(best, abs=1e-9)
        # Symmetric cells tie up to rounding (the sums are taken in another order): the same value, not cell.
        assert out[cell] == pytest.approx(best, abs=1e-9)
        for c in np.flatnonzero(grid < 0):
            after = work.copy()
            after[K.S_GRID + c] = card
            placed = int((grid >= 0).sum()) + 1
            if placed == K.NUM_CELLS:
                want = K.grid_score(after, 0, game.cfg, HAND_TABLE)
            else:
                phi = np.empty(C.NUM_FEATURES)
                want = C.corrected_value(after, 0, placed, C.seen_word(after, 0), game.cfg, HAND_TABLE, values,
                                         weights, phi)
            assert out[c] == pytest.approx(want, abs=1e-9)


def test_a_network_adds_its_own_value_to_the_base():
    game = pyspiel.load_game("poker_squares")
    (values, weights), _ = M.load_base("crossline", AMERICAN)
    rng = np.random.default_rng(2)
    params = M.forward_params({name: rng.normal(0.0, 0.3, shape) for name, shape in M.param_shapes().items()},
                              100.0)
    plain, based, base_only = np.empty(25), np.empty(25), np.empty(25)
    for state in random_positions(game, 20, seed=5):
        grid = state.state[:K.NUM_CELLS].copy()
        card = int(K.card_to_place(state.state, 0))
        M.afterstate_values(grid, card, params, game.cfg, HAND_TABLE, plain)
        M.valued_afterstates(grid, card, params, values, weights, game.cfg, HAND_TABLE, based)
        M.valued_afterstates(grid, card, zero_params(), values, weights, game.cfg, HAND_TABLE, base_only)
        empty = grid < 0
        if empty.sum() == 1:  # the last card: the score alone, no network and no base
            np.testing.assert_array_equal(based[empty], plain[empty])
        else:
            np.testing.assert_allclose(based[empty], plain[empty] + base_only[empty], rtol=1e-12)
        assert np.all(np.isneginf(based[~empty]))


def test_base_values_of_a_batch_are_the_base_value_of_each_grid():
    (values, weights), _ = M.load_base("crossline", AMERICAN)
    cfg = K.make_config(1, False, False, AMERICAN)
    rng = np.random.default_rng(8)
    grids = np.full((30, 25), -1, np.int8)
    for b in range(30):
        placed = int(rng.integers(1, 25))
        grids[b, rng.choice(25, placed, replace=False)] = rng.choice(52, placed, replace=False)
    got = np.empty(30)
    M.base_values_of(grids, cfg, HAND_TABLE, values, weights, got)
    for b in range(30):
        state = np.full(K.STATE_SIZE, -1, np.int64)
        state[:25] = grids[b]
        placed = int((grids[b] >= 0).sum())
        want = C.corrected_value(state, 0, placed, C.seen_word(state, 0), cfg, HAND_TABLE, values, weights,
                                 np.empty(C.NUM_FEATURES))
        assert got[b] == pytest.approx(want, abs=1e-9)


def test_load_base_names_what_it_knows():
    assert M.load_base("none", AMERICAN) == (M.NO_BASE, "")
    _, digest = M.load_base("crossline", AMERICAN)
    assert digest == file_sha256(C.weights_path(AMERICAN))
    with pytest.raises(ValueError, match="unknown value-network base 'linear'; known: none, crossline"):
        M.load_base("linear", AMERICAN)


def based_file(tmp_path, base="crossline", digest=None) -> str:
    params = {name: np.zeros(shape) for name, shape in M.param_shapes().items()}
    path = tmp_path / "based.npz"
    if digest is None:
        digest = file_sha256(C.weights_path(AMERICAN))
    M.save_net(path, params, 100.0, AMERICAN, {"note": "test"}, base, digest)
    return str(path)


def test_a_based_weight_file_records_its_base_and_is_refused_when_the_base_changed(tmp_path):
    net = M.load_net(based_file(tmp_path))
    assert net["base"] == "crossline" and net["base_arrays"][1].shape == (C.NUM_PLACED, C.NUM_FEATURES)
    assert str(net["arrays"]["base_sha256"]) == file_sha256(C.weights_path(AMERICAN))
    plain = M.load_net(M.net_path(AMERICAN))
    assert plain["base"] == "none" and plain["base_arrays"][0].shape == (0,)
    with pytest.raises(ValueError, match="trained over another crossline correction.*retrain"):
        M.load_net(based_file(tmp_path, digest="0" * 64))
    with pytest.raises(ValueError, match="unknown base 'linear'"):
        M.load_net(based_file(tmp_path, base="linear"))
    arrays = dict(np.load(based_file(tmp_path), allow_pickle=False))
    arrays["base_sha256"] = np.str_("1" * 64)  # altered without a new digest
    np.savez(tmp_path / "altered.npz", **arrays)
    with pytest.raises(ValueError, match="altered.npz.*SHA-256"):
        M.load_net(tmp_path / "altered.npz")


@pytest.mark.parametrize("variant", ["poker_squares", "poker_squares(players=2)"])
@pytest.mark.slow
def test_agents_on_a_zero_residual_choose_what_crossline_and_expectimax_cross_choose(tmp_path, variant):
    from gamut.solvers.poker_squares.net_bots import two_ply_sums
    from gamut.solvers.poker_squares.search import chance_cards

    game = pyspiel.load_game(variant)
    weights = based_file(tmp_path)
    (values, table_weights), _ = M.load_base("crossline", AMERICAN)
    params, out = zero_params(), np.empty(K.NUM_CELLS)
    ours = {name: [make_bot(game, name, player=p, seed=p, weights=weights) for p in range(game.num_players())]
            for name in ("net", "net_search")}
    theirs = {"net": [make_bot(game, "crossline", player=p, seed=p) for p in range(game.num_players())],
              "net_search": [make_bot(game, "expectimax_cross", player=p, seed=p)
                             for p in range(game.num_players())]}
    rng = np.random.default_rng(11)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
            continue
        player = state.current_player()
        work = state.state.copy()
        grid = work[K.S_GRID + K.NUM_CELLS * player:K.S_GRID + K.NUM_CELLS * (player + 1)].copy()
        card = int(K.card_to_place(work, player))
        M.valued_afterstates(grid, card, params, values, table_weights, game.cfg, HAND_TABLE, out)
        one = [bots[player].step(state) for bots in (ours["net"], theirs["net"])]
        # Symmetric cells tie up to rounding: both choices have the best value.
        assert out[one[0]] == pytest.approx(out.max(), abs=1e-9) and out[one[1]] == pytest.approx(out.max(), abs=1e-9)
        cells = np.flatnonzero(grid < 0)
        nexts = np.empty(52, np.int64)
        nexts = nexts[:chance_cards(work, player, 0, nexts)]
        sums = np.zeros(len(cells))
        two_ply_sums(grid, card, cells, nexts, params, values, table_weights, game.cfg, HAND_TABLE, sums)
        two = [bots[player].step(state) for bots in (ours["net_search"], theirs["net_search"])]
        for action in two:
            assert action in state.legal_actions()
            assert sums[list(cells).index(action)] == pytest.approx(sums.max(), abs=1e-6 * len(nexts))
        state.apply_action(two[0])


SMALL = {"games_per_chunk": 12, "updates": 3, "batch": 16, "buffer": 500, "base": "crossline"}


@pytest.mark.slow
def test_training_over_the_base_starts_as_crossline_and_fits_what_the_base_misses(tmp_path):
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    from gamut.solvers.poker_squares import net_train as T

    path = tmp_path / "run.npz"
    T.train_net("american", T.POSITIONS_PER_GAME * 12, path, seed=3, epsilon=0.0, lam=0.8,
                **{**SMALL, "updates": 0})
    saved = np.load(path, allow_pickle=False)
    assert '"base": "crossline"' in str(saved["header"])
    start = M.forward_params(M.initial_params(3), T.VALUE_SCALE)  # the output layer is 0: the base alone
    games = T.play_chunk("poker_squares", start, 3, 0, 12, 0.0, base="crossline")
    (values, weights), _ = M.load_base("crossline", AMERICAN)
    cfg = K.make_config(1, False, False, AMERICAN)
    for g in range(12):  # every placement is the crossline agent's
        for t in range(K.NUM_CELLS):
            state = np.full(K.STATE_SIZE, -1, np.int64)
            state[:25] = games["grids"][g, t - 1] if t else -1
            state[K.S_NUM_PLACED] = t
            card = int(games["grids"][g, t][games["grids"][g, t] != state[:25]][0])
            best, _ = C._best_cell(state, 0, card, cfg, HAND_TABLE, values, weights)
            assert games["best"][g, t] == pytest.approx(best, abs=1e-9)
    targets = T.lambda_targets(games["best"], games["scores"], 0.8).reshape(-1)
    grids = games["grids"][:, :T.POSITIONS_PER_GAME].reshape(-1, K.NUM_CELLS)
    base = np.empty(len(grids))
    M.base_values_of(grids, cfg, HAND_TABLE, values, weights, base)
    np.testing.assert_array_equal(saved["buffer_grids"], grids)
    np.testing.assert_allclose(saved["buffer_targets"], (targets - base) / T.VALUE_SCALE, rtol=1e-6, atol=1e-6)


@pytest.mark.slow
def test_a_run_over_the_base_resumes_bit_for_bit_and_exports_its_base(tmp_path):
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    from gamut.solvers.poker_squares import net_train as T

    per_chunk = SMALL["games_per_chunk"] * T.POSITIONS_PER_GAME
    T.train_net("american", 2 * per_chunk, tmp_path / "whole.npz", seed=4, **SMALL)
    T.train_net("american", per_chunk, tmp_path / "cut.npz", seed=4, **SMALL)
    with pytest.raises(ValueError, match="other settings: base 'crossline' \\(now 'none'\\)"):
        T.train_net("american", 2 * per_chunk, tmp_path / "cut.npz", seed=4, resume=True,
                    **{**SMALL, "base": "none"})
    T.train_net("american", 2 * per_chunk, tmp_path / "cut.npz", seed=4, resume=True, **SMALL)
    a, b = np.load(tmp_path / "whole.npz"), np.load(tmp_path / "cut.npz")
    for name in [n for n in a.files if n.startswith(("p_", "opt_", "buffer_"))] + ["chunk_means"]:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    T.export(tmp_path / "cut.npz", tmp_path / "net.npz", "test")
    net = M.load_net(tmp_path / "net.npz", AMERICAN)
    assert net["base"] == "crossline" and net["metadata"]["settings"]["base"] == "crossline"


def test_the_cli_trains_over_the_base_and_names_the_bases_it_knows(tmp_path, capsys):
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    from tests.train_net_cli import train_then_refuse

    flags = ["--games-per-chunk", "6", "--updates", "1", "--batch", "4", "--buffer", "200", "--quiet"]
    out, weights = train_then_refuse(tmp_path, "--base", "crossline", "linear", flags)
    net = M.load_net(weights)
    assert net["base"] == "crossline"
    assert net["metadata"]["command"] == ("gamut squares train-net --positions 1 --out " + str(out)
                                          + " --base crossline --export " + str(weights) + " " + " ".join(flags))
    err = capsys.readouterr().err
    assert "--base" in err and "'none', 'crossline'" in err
