"""DMC with a league of its own past selves: snapshots, seats, checkpoint resume and the weights header."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("optax")

from gamut.solvers.rl.checkpoint import load_weights  # noqa: E402
from gamut.solvers.rl.league import League  # noqa: E402
from gamut.solvers.rl.training import make_trainer, train  # noqa: E402

TINY = {"num_envs": 8, "rollout": 8, "hidden": "16x16", "batch_size": 32, "sgd_steps": 2, "buffer_size": 512,
        "league_share": 0.75, "league_every": 128, "league_size": 2}
GAMES = ("poke(mode=deal,num_ranks=4,num_suits=2,hand_size=2)", "palace_poker(players=3)")


def test_tables_seat_one_learner_and_only_filled_slots():
    league = League(64, 4, 0.9, 100, 3, np.random.default_rng(0))
    assert (league.tables == -1).all()  # an empty pool: every seat is the learner's
    league.maybe_snapshot({"q/w0": np.ones((2, 2))}, 100)
    league.maybe_snapshot({"q/w0": np.ones((2, 2))}, 150)  # not past the next multiple: no snapshot
    assert len(league.pool) == 1 and league.taken == 1
    tables = league.draw(1000)
    assert ((tables < 0).sum(axis=1) >= 1).all()
    assert set(np.unique(tables)) == {-1, 0}
    assert 0.8 < (tables == 0).sum() / (1000 * 3) < 1.0  # about share of the other seats
    for steps in (200, 300, 400):
        league.maybe_snapshot({"q/w0": np.full((2, 2), steps, np.float32)}, steps)
    assert len(league.pool) == 3 and league.pool[0]["q/w0"][0, 0] == 400  # the ring replaced the oldest


def test_snapshots_play_greedy_and_are_not_the_learner():
    league = League(4, 2, 1.0, 10, 1, np.random.default_rng(1))
    params = {"q/w0": np.zeros((3, 1), np.float32), "q/b0": np.zeros(1, np.float32)}
    league.maybe_snapshot(params, 10)
    league.tables[:] = [[-1, 0], [0, -1], [-1, 0], [-1, -1]]
    x = np.zeros((4, 1), np.float32)
    feats = np.tile(np.array([[1.0, 0], [2.0, 0], [0, 3.0]], np.float32), (4, 1, 1))
    params["q/w0"][:] = [[0], [1.0], [1.0]]  # the learner's later parameters do not move the snapshot
    league.pool[0]["q/w0"][:] = [[0], [1.0], [0.0]]  # the snapshot prefers the first feature: action 1
    actions = np.array([2, 2, 2, 2])
    learner = league.play(actions, np.array([1, 0, 0, 1]), x, feats, np.ones((4, 3), bool))
    assert learner.tolist() == [False, False, True, True]
    assert actions.tolist() == [1, 1, 2, 2]


@pytest.mark.parametrize("game", GAMES)
def test_resume_gives_the_same_parameters_and_pool(tmp_path, game):
    whole = make_trainer("dmc", game, 3, TINY)
    train(whole, 1024, tmp_path / "whole", eval_every=512, eval_games=4)
    assert len(whole.league.pool) == 2 and whole.league.taken == 8
    first = make_trainer("dmc", game, 3, TINY)
    train(first, 512, tmp_path / "parts", eval_every=512, eval_games=4)
    second = make_trainer("dmc", game, 3, TINY)
    train(second, 1024, tmp_path / "parts", resume=True, eval_every=512, eval_games=4)
    for k in whole.params:
        np.testing.assert_array_equal(whole.params[k], second.params[k])
    for a, b in zip(whole.league.pool, second.league.pool):
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])
    np.testing.assert_array_equal(whole.league.tables, second.league.tables)
    # Snapshot decisions are not trained on: the buffer holds fewer decisions than were played.
    assert whole.filled < whole.steps
    _, header = load_weights(tmp_path / "whole" / "weights.npz", game, "dmc")
    assert header["heuristic_share"] == 0.0
    assert header["config"]["dmc"]["league_share"] == 0.75


def test_heuristic_share_recorded_for_every_algorithm(tmp_path):
    game = GAMES[0]
    for algo, settings in (("dmc", {"num_envs": 8, "rollout": 8, "hidden": "16x16", "batch_size": 32,
                                    "buffer_size": 512}),
                           ("ppo", {"num_envs": 8, "rollout": 8, "heuristic_share": 0.5})):
        trainer = make_trainer(algo, game, 0, settings)
        train(trainer, 64, tmp_path / algo, eval_every=64, eval_games=2)
        _, header = load_weights(tmp_path / algo / "weights.npz", game, algo)
        assert header["heuristic_share"] == settings.get("heuristic_share", 0.0)


def test_league_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="league_share"):
        make_trainer("dmc", GAMES[0], 0, {"league_share": 1.5})
    with pytest.raises(ValueError, match="actors"):
        make_trainer("dmc", GAMES[0], 0, {"league_share": 0.5, "actors": 2})
    with pytest.raises(ValueError, match="two or more players"):
        make_trainer("dmc", "poker_squares", 0, {"league_share": 0.5})
