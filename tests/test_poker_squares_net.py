"""The Poker Squares value network: inputs and forward pass against slow references, weight files, agents."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401
from gamut.envs.hands import HAND_TABLE
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.bots import bot_names, make_bot
from gamut.solvers.poker_squares import net_model as M
from gamut.solvers.poker_squares.training import NAMED_SYSTEMS

AMERICAN = K.make_config(1, False, False, NAMED_SYSTEMS["american"])


def random_params(seed: int) -> dict:
    """Every parameter random (the output layer too, which the training starts at zero)."""
    rng = np.random.default_rng(seed)
    return {name: rng.normal(0.0, 0.3, shape) for name, shape in M.param_shapes().items()}


def random_grid(rng, placed: int) -> np.ndarray:
    grid = np.full(K.NUM_CELLS, -1, np.int64)
    cells = rng.choice(K.NUM_CELLS, placed, replace=False)
    grid[cells] = rng.choice(52, placed, replace=False)
    return grid


def reference_inputs(grid):
    """The inputs written out from the module docstring, card by card."""
    cards = [int(c) for c in grid if c >= 0]
    unseen_rank = [4 - sum(1 for c in cards if c // 4 == r) for r in range(13)]
    unseen_suit = [13 - sum(1 for c in cards if c % 4 == s) for s in range(4)]
    lines = np.zeros((10, 40))
    for line in range(10):
        held = [int(grid[cell]) for cell in K.LINES[line] if grid[cell] >= 0]
        for c in held:
            lines[line, c // 4] += 1 / 4
            lines[line, 13 + c % 4] += 1 / 5
        lines[line, 17 + len(held)] = 1.0
        for r in {c // 4 for c in held}:
            lines[line, 23 + r] = unseen_rank[r] / 4
        for s in {c % 4 for c in held}:
            lines[line, 36 + s] = unseen_suit[s] / 13
    glob = np.array([u / 4 for u in unseen_rank] + [u / 13 for u in unseen_suit] + [(25 - len(cards)) / 25])
    return lines, glob


def reference_value(grid, params, scale=100.0):
    """The network written as plain numpy matrix algebra on the reference inputs."""
    lines, glob = reference_inputs(grid)
    relu = lambda x: np.maximum(x, 0.0)  # noqa: E731
    emb = relu(relu(lines @ params["w1"] + glob @ params["u1"] + params["b1"]) @ params["w2"] + params["b2"])
    cross = sum(emb[cell // 5] * emb[5 + cell % 5] for cell in range(25) if grid[cell] < 0) / 25
    joint = np.concatenate([emb.mean(axis=0), cross])
    return scale * (relu(joint @ params["w3"] + params["b3"]) @ params["w4"] + emb.mean(axis=0) @ params["a"]
                    + params["b4"][0])


def test_the_worked_example_of_the_inputs():
    grid = np.full(25, -1, np.int64)
    grid[0] = 50  # Ah
    lines = np.zeros((1, 10, 40), np.float32)
    glob = np.zeros((1, 18), np.float32)
    empty = np.zeros((1, 25), np.float32)
    M.encode_grids(grid[None], lines, glob, empty)
    for line in (0, 5):
        nonzero = {int(i): float(v) for i, v in enumerate(lines[0, line]) if v}
        assert nonzero == pytest.approx({12: 0.25, 15: 0.2, 18: 1.0, 35: 0.75, 38: 12 / 13})
    assert all(set(np.flatnonzero(lines[0, line])) == {17} for line in (1, 2, 3, 4, 6, 7, 8, 9))
    assert glob[0, 12] == 0.75 and glob[0, 15] == pytest.approx(12 / 13) and glob[0, 17] == pytest.approx(24 / 25)
    assert empty[0].sum() == 24


def test_inputs_and_forward_pass_match_the_references_on_random_grids():
    rng = np.random.default_rng(11)
    params = random_params(3)
    forward = M.forward_params(params, 100.0)
    for _ in range(300):
        grid = random_grid(rng, int(rng.integers(0, 25)))
        lines = np.zeros((1, 10, 40), np.float32)
        glob = np.zeros((1, 18), np.float32)
        empty = np.zeros((1, 25), np.float32)
        M.encode_grids(grid[None], lines, glob, empty)
        want_lines, want_glob = reference_inputs(grid)
        np.testing.assert_allclose(lines[0], want_lines, atol=1e-7)
        np.testing.assert_allclose(glob[0], want_glob, atol=1e-7)
        np.testing.assert_array_equal(empty[0], grid < 0)
        assert M.grid_value(grid, forward, AMERICAN, HAND_TABLE) == pytest.approx(reference_value(grid, params),
                                                                                   rel=1e-9, abs=1e-9)


def test_a_full_grid_is_valued_by_its_score():
    rng = np.random.default_rng(2)
    grid = random_grid(rng, 25)
    state = np.full(K.STATE_SIZE, -1, np.int64)
    state[:25] = grid
    value = M.grid_value(grid, M.forward_params(random_params(1), 100.0), AMERICAN, HAND_TABLE)
    assert value == K.grid_score(state, 0, AMERICAN, HAND_TABLE)


def test_afterstate_values_equal_the_value_of_each_afterstate():
    rng = np.random.default_rng(5)
    forward = M.forward_params(random_params(4), 100.0)
    out = np.empty(25)
    for placed in (0, 1, 7, 15, 23, 24):
        grid = random_grid(rng, placed)
        card = int(rng.choice(np.setdiff1d(np.arange(52), grid[grid >= 0])))
        before = grid.copy()
        M.afterstate_values(grid, card, forward, AMERICAN, HAND_TABLE, out)
        np.testing.assert_array_equal(grid, before)
        for cell in range(25):
            if grid[cell] >= 0:
                assert out[cell] == -np.inf
                continue
            after = grid.copy()
            after[cell] = card
            assert out[cell] == pytest.approx(M.grid_value(after, forward, AMERICAN, HAND_TABLE), rel=1e-12)


@pytest.mark.slow
def test_the_jax_forward_pass_matches_the_numba_one():
    pytest.importorskip("jax")
    from gamut.solvers.poker_squares.net_train import encode, forward

    rng = np.random.default_rng(8)
    params = random_params(6)
    grids = np.stack([random_grid(rng, int(rng.integers(0, 25))) for _ in range(64)])
    lines, glob, empty = encode(grids.astype(np.int8))
    jax_values = 100.0 * np.asarray(forward({k: v.astype(np.float32) for k, v in params.items()}, lines, glob,
                                            empty))
    numba_values = [M.grid_value(g, M.forward_params(params, 100.0), AMERICAN, HAND_TABLE) for g in grids]
    np.testing.assert_allclose(jax_values, numba_values, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("system", ["american", "english"])
def test_the_shipped_weights_load_with_their_digest_and_metadata(system):
    net = M.load_net(M.net_path(NAMED_SYSTEMS[system]), NAMED_SYSTEMS[system])
    assert net["points"] == NAMED_SYSTEMS[system]
    assert len(net["sha256"]) == 64
    assert {"training_positions", "wall_seconds", "cores", "seed", "command", "toolkit_version",
            "commit"} <= set(net["metadata"])
    assert M.net_path(NAMED_SYSTEMS[system]).stat().st_size < 5_000_000


def test_an_altered_or_damaged_weight_file_is_refused(tmp_path):
    saved = M.load_net(M.net_path(NAMED_SYSTEMS["american"]))["arrays"]
    params = {name: saved[name].copy() for name in M.PARAM_NAMES}
    good = tmp_path / "good.npz"
    M.save_net(good, params, 100.0, NAMED_SYSTEMS["american"], {"note": "copy"})
    M.load_net(good)
    arrays = dict(np.load(good, allow_pickle=False))
    arrays["w2"][3, 4] += 1e-6
    altered = tmp_path / "altered.npz"
    np.savez(altered, **arrays)
    with pytest.raises(ValueError, match="altered.npz.*SHA-256"):
        M.load_net(altered)
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(good.read_bytes()[:300])
    with pytest.raises(ValueError, match="damaged.npz is not a readable value-network file"):
        M.load_net(damaged)
    with pytest.raises(ValueError, match="trained for points"):
        M.load_net(good, NAMED_SYSTEMS["english"])
    with pytest.raises(ValueError, match="no value network"):
        M.load_net(tmp_path / "missing.npz")


@pytest.mark.parametrize("variant", ["poker_squares", "poker_squares(scoring=english)", "poker_squares(players=2)"])
@pytest.mark.parametrize("agent", ["net", "net_search"])
def test_the_agents_play_legal_moves(variant, agent):
    game = pyspiel.load_game(variant)
    options = {"seconds_per_game": 0.05} if agent == "net_search" else {}
    bots = [make_bot(game, agent, player=p, seed=p, **options) for p in range(game.num_players())]
    rng = np.random.default_rng(1)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            state.apply_action(int(rng.choice(outcomes)))
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)


def test_the_agents_refuse_the_open_variant_and_other_point_systems():
    open_game = pyspiel.load_game("poker_squares(variant=open)")
    assert "net" not in bot_names(open_game) and "net_search" not in bot_names(open_game)
    with pytest.raises(ValueError, match="open variant"):
        make_bot(open_game, "net", 0, 0)
    custom = pyspiel.load_game("poker_squares", {"scoring": "0,1,2,3,4,5,6,7,8,9"})
    with pytest.raises(ValueError, match="no value network"):
        make_bot(custom, "net_search", 0, 0)


def test_exact_net_search_is_deterministic_and_one_ply_agrees_with_the_values():
    from gamut.solvers.poker_squares.net_bots import best_cell

    game = pyspiel.load_game("poker_squares")
    rng = np.random.default_rng(4)
    state = game.new_initial_state()
    for _ in range(6):
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        state.apply_action(int(rng.choice(state.legal_actions())))
    state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
    moves = [make_bot(game, "net_search", 0, seed).step(state) for seed in (1, 2)]
    assert moves[0] == moves[1]
    net = M.load_net(M.net_path(NAMED_SYSTEMS["american"]))
    grid = state.state[:25].copy()
    card = int(K.card_to_place(state.state, 0))
    values = np.empty(25)
    M.afterstate_values(grid.copy(), card, net["params"], game.cfg, HAND_TABLE, values)
    assert best_cell(grid, card, net["params"], *M.NO_BASE, game.cfg, HAND_TABLE) == int(np.argmax(values))
    assert make_bot(game, "net", 0, 0).step(state) == int(np.argmax(values))
