"""DMC's self-play rounds fan out on the backends with the same data for any split, local processes and Ray."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("jax")
pytest.importorskip("optax")

from gamut.solvers.rl.actors import counter_uniforms, part_bounds, play_round, round_seed  # noqa: E402
from gamut.solvers.rl.training import make_trainer  # noqa: E402

ROUND = {"epsilon": 0.3, "reward_scale": 100.0, "score_rewards": True}


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_counter_uniforms_depend_on_their_counters_alone():
    games = np.arange(1000)
    u = counter_uniforms(5, games, 3, 0)
    assert ((0 <= u) & (u < 1)).all() and 0.45 < u.mean() < 0.55
    np.testing.assert_array_equal(counter_uniforms(5, games[400:], 3, 0), u[400:])
    for other in (counter_uniforms(6, games, 3, 0), counter_uniforms(5, games, 4, 0), counter_uniforms(5, games, 3, 1)):
        assert not np.array_equal(other, u)


def test_parts_cover_every_game_once():
    assert part_bounds(10, 3) == [(0, 3), (3, 3), (6, 4)]
    assert part_bounds(2, 5) == [(0, 1), (1, 1)]
    assert round_seed(1, 2) != round_seed(1, 3) and 0 <= round_seed(1, 2) < 2 ** 63


@pytest.mark.parametrize("game_string", ["poker_squares", "poke", "palace_poker(players=3)"])
def test_a_round_is_the_same_for_any_split_in_this_process(game_string):
    trainer = make_trainer("dmc", game_string, 0, {"num_envs": 8, "actors": 1, "hidden": "16"})
    net = trainer.params
    one = play_round(trainer.game_string, net, 11, 9, 1, **ROUND)
    for parts in (2, 9):
        _same(one, play_round(trainer.game_string, net, 11, 9, parts, **ROUND))
    # Every decision of every game, each with its mover's target; a different round is other games.
    assert len(one["returns"]) == 9 and len(one["x"]) == len(one["chosen"]) == len(one["target"]) >= 9
    assert not np.array_equal(one["target"], play_round(trainer.game_string, net, 12, 9, 1, **ROUND)["target"])


def test_poker_squares_targets_are_the_points_still_to_come():
    trainer = make_trainer("dmc", "poker_squares", 0, {"num_envs": 4, "actors": 1, "hidden": "16"})
    data = play_round(trainer.game_string, trainer.params, 5, 3, 1, epsilon=1.0, reward_scale=1.0,
                      score_rewards=True)
    targets = data["target"].reshape(3, 25)  # 25 placements a game, in game order
    # The first placement's target is the whole score; the points still to come never grow.
    np.testing.assert_allclose(targets[:, 0], data["returns"][:, 0])
    assert (np.diff(targets, axis=1) <= 1e-6).all()


@pytest.mark.slow
def test_training_with_actors_on_worker_processes_gives_the_parameters_of_one_process():
    from gamut.solvers.backends import LocalBackend

    settings = {"num_envs": 8, "actors": 4, "hidden": "16", "batch_size": 32, "rollout": 25}
    here = make_trainer("dmc", "poker_squares", 2, settings)
    spread = make_trainer("dmc", "poker_squares", 2, settings)
    backend = LocalBackend(2)
    backend.open()
    try:
        spread.use_backend(backend)
        for _ in range(3):
            here.train_update()
            spread.train_update()
    finally:
        backend.close()
    assert here.steps == spread.steps == 3 * 8 * 25
    _same(here.params, spread.params)


@pytest.mark.slow
@pytest.mark.usefixtures("ray_instance_lock")
def test_a_round_is_the_same_on_a_real_local_ray_instance():
    pytest.importorskip("ray")
    from gamut.solvers.backends import RayBackend

    trainer = make_trainer("dmc", "poke", 0, {"num_envs": 8, "actors": 1, "hidden": "16"})
    one = play_round(trainer.game_string, trainer.params, 7, 10, 1, **ROUND)
    backend = RayBackend(workers=2)
    backend.open()  # starts a local Ray instance; close() stops it
    try:
        split = play_round(trainer.game_string, trainer.params, 7, 10, 3, backend=backend, **ROUND)
    finally:
        backend.close()
    _same(one, split)


def test_the_cli_refuses_a_backend_without_actors_and_trains_with_one(tmp_path, capsys):
    from gamut.experiments.cli import main

    common = ["train", "--game", "poker_squares", "--algo", "dmc", "--steps", "400", "--eval-games", "4",
              "--final-games", "4", "--json", "--quiet", "--set", "num_envs=8", "--set", "hidden=16",
              "--set", "batch_size=32"]
    assert main([*common, "--out", str(tmp_path / "a"), "--backend", "local"]) == 2
    assert "--set actors=N" in capsys.readouterr().err
    assert main([*common, "--out", str(tmp_path / "b"), "--workers", "2"]) == 2
    assert "--workers needs --backend" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    assert main([*common, "--out", str(tmp_path / "c"), "--set", "actors=2", "--backend", "local",
                 "--workers", "2"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["steps"] == 400
