"""Training the Poker Squares value network: targets, self-play data, checkpoints and resume, the CLI."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")
pytest.importorskip("optax")

from gamut.envs.hands import HAND_TABLE  # noqa: E402
from gamut.envs.poker_squares import kernels as K  # noqa: E402
from gamut.solvers.poker_squares import net_model as M  # noqa: E402
from gamut.solvers.poker_squares import net_train as T  # noqa: E402

SMALL = {"games_per_chunk": 12, "updates": 3, "batch": 16, "buffer": 500}
PER_CHUNK = SMALL["games_per_chunk"] * T.POSITIONS_PER_GAME


def test_lambda_targets_follow_the_recursion():
    rng = np.random.default_rng(0)
    best = rng.normal(50, 10, (3, 25))
    scores = rng.normal(60, 10, 3)
    lam = 0.6
    got = T.lambda_targets(best, scores, lam)
    for g in range(3):
        following = scores[g]
        for t in range(23, -1, -1):
            following = (1 - lam) * best[g, t + 1] + lam * following
            assert got[g, t] == pytest.approx(following)
    assert np.allclose(T.lambda_targets(best, scores, 1.0), scores[:, None])
    assert np.allclose(T.lambda_targets(best, scores, 0.0), best[:, 1:])


def test_self_play_games_are_legal_greedy_and_scored():
    params = M.forward_params({k: v + 0.01 for k, v in M.initial_params(3).items()}, 100.0)
    cfg = K.make_config(1, False, False, (0, 2, 5, 10, 15, 20, 25, 50, 75, 100))
    games = T.play_games("poker_squares", params, 5, 6, 0, 8, 0.0)
    values = np.empty(25)
    for g in range(8):
        grids = games["grids"][g].astype(np.int64)
        for t in range(25):
            before = grids[t - 1].copy() if t else np.full(25, -1, np.int64)
            changed = np.flatnonzero(grids[t] != before)
            assert len(changed) == 1 and before[changed[0]] == -1  # one card into one empty cell
            M.afterstate_values(before, int(grids[t, changed[0]]), params, cfg, HAND_TABLE, values)
            assert games["best"][g, t] == pytest.approx(values.max())
            assert values[changed[0]] == values.max()  # epsilon 0: always a best cell
        state = np.full(K.STATE_SIZE, -1, np.int64)
        state[:25] = grids[24]
        assert games["scores"][g] == K.grid_score(state, 0, cfg, HAND_TABLE)
        assert len(set(grids[24].tolist())) == 25


@pytest.mark.slow
def test_a_chunk_is_the_same_in_one_process_or_two():
    params = M.forward_params(M.initial_params(1), 100.0)
    one = T.play_chunk("poker_squares", params, 9, 2, 10, 0.3, workers=1)
    two = T.play_chunk("poker_squares", params, 9, 2, 10, 0.3, workers=2)
    for key in one:
        np.testing.assert_array_equal(one[key], two[key])


@pytest.mark.slow
@pytest.mark.usefixtures("ray_instance_lock")
def test_a_chunk_is_the_same_on_a_real_local_ray_instance():
    pytest.importorskip("ray")
    from gamut.solvers.backends import RayBackend

    params = M.forward_params(M.initial_params(1), 100.0)
    one = T.play_chunk("poker_squares", params, 9, 2, 10, 0.3, workers=1)
    backend = RayBackend(workers=2)
    backend.open()  # starts a local Ray instance; close() stops it
    try:
        split = T.play_chunk("poker_squares", params, 9, 2, 10, 0.3, workers=3, backend=backend)
    finally:
        backend.close()
    for key in one:
        np.testing.assert_array_equal(one[key], split[key])


@pytest.mark.slow
def test_resume_after_a_kill_gives_the_parameters_of_an_uninterrupted_run(tmp_path):
    whole = T.train_net("american", 3 * PER_CHUNK, tmp_path / "whole.npz", seed=4, **SMALL)
    # A run killed during its third chunk has left the checkpoint of its second.
    T.train_net("american", 2 * PER_CHUNK, tmp_path / "cut.npz", seed=4, **SMALL)
    resumed = T.train_net("american", 3 * PER_CHUNK, tmp_path / "cut.npz", seed=4, resume=True, **SMALL)
    assert whole["chunks"] == resumed["chunks"] == 3
    a, b = np.load(tmp_path / "whole.npz"), np.load(tmp_path / "cut.npz")
    for name in [n for n in a.files if n.startswith(("p_", "opt_", "buffer_"))] + ["chunk_means"]:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    out = tmp_path / "net.npz"
    meta = T.export(tmp_path / "cut.npz", out, "test")
    assert meta["training_positions"] == 3 * PER_CHUNK
    assert M.load_net(out)["sha256"] == meta["sha256"]


def test_a_damaged_or_mismatched_checkpoint_is_refused(tmp_path):
    path = tmp_path / "run.npz"
    T.train_net("american", PER_CHUNK, path, seed=1, **SMALL)
    with pytest.raises(ValueError, match="exists: pass --resume"):
        T.train_net("american", PER_CHUNK, path, seed=1, **SMALL)
    with pytest.raises(ValueError, match="other settings: .*seed 1 .*now 2"):
        T.train_net("american", 2 * PER_CHUNK, path, seed=2, resume=True, **SMALL)
    with pytest.raises(ValueError, match="other settings: points"):
        T.train_net("english", 2 * PER_CHUNK, path, seed=1, resume=True, **SMALL)
    arrays = dict(np.load(path, allow_pickle=False))
    arrays["p_w1"][0, 0] += 1.0
    np.savez(tmp_path / "altered.npz", **arrays)
    with pytest.raises(ValueError, match="altered.npz.*SHA-256"):
        T.train_net("american", 2 * PER_CHUNK, tmp_path / "altered.npz", seed=1, resume=True, **SMALL)
    (tmp_path / "cut.npz").write_bytes(path.read_bytes()[:1000])
    with pytest.raises(ValueError, match="cut.npz is not a readable training checkpoint"):
        T.train_net("american", 2 * PER_CHUNK, tmp_path / "cut.npz", seed=1, resume=True, **SMALL)


def test_the_cli_trains_exports_and_refuses_a_corrupt_checkpoint(tmp_path, capsys):
    from gamut.experiments.cli import main

    out, weights = tmp_path / "ck.npz", tmp_path / "w.npz"
    flags = ["--games-per-chunk", "12", "--updates", "2", "--batch", "8", "--buffer", "400"]
    assert main(["squares", "train-net", "--positions", "10", "--out", str(out), "--export", str(weights),
                 "--quiet", *flags]) == 0
    assert M.load_net(weights)["metadata"]["training_positions"] == PER_CHUNK
    out.write_bytes(b"not a checkpoint")
    assert main(["squares", "train-net", "--positions", "10", "--out", str(out), "--resume", "--quiet",
                 *flags]) == 2
    assert "not a readable training checkpoint" in capsys.readouterr().err


def test_teacher_games_are_those_of_the_crossline_agent():
    from gamut.solvers.poker_squares.crossline import corrected_cell, load_weights
    from gamut.solvers.poker_squares.training import load_values

    points = (0, 2, 5, 10, 15, 20, 25, 50, 75, 100)
    cfg = K.make_config(1, False, False, points)
    values, weights = load_values(points), load_weights(points)
    games = T.play_games("poker_squares", M.forward_params(M.initial_params(0), 100.0), 3, 4, 0, 4, 0.0, True)
    assert not games["best"].any()
    for g in range(4):
        state = np.full(K.STATE_SIZE, -1, np.int64)
        K.init_state(state)
        grids = games["grids"][g].astype(np.int64)
        for t in range(25):
            before = grids[t - 1] if t else np.full(25, -1, np.int64)
            cell = int(np.flatnonzero(grids[t] != before)[0])
            K.deal_card(state, int(grids[t, cell]))
            assert corrected_cell(state, 0, cfg, HAND_TABLE, values, weights) == cell
            K.place_card(state, 0, cell)
