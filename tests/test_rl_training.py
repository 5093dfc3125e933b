"""PPO and NFSP training: learning on a small game, exact resume, validated checkpoints and weights, the agents."""

import io
import json
import sys

import numpy as np
import pyspiel
import pytest

pytest.importorskip("jax")
pytest.importorskip("optax")

import gamut.envs  # noqa: E402,F401  (registers the games)
from gamut.solvers.rl.checkpoint import RLFileError, load_checkpoint, load_weights, save_checkpoint  # noqa: E402
from gamut.solvers.rl.evaluation import play_against  # noqa: E402
from gamut.solvers.rl.training import make_trainer, train  # noqa: E402
from gamut.solvers.stats import mean_ci  # noqa: E402

SMALL_POKE = "poke(hand_size=2,mode=deal,num_ranks=3,num_suits=2)"
TINY_PPO = {"num_envs": 16, "rollout": 8, "hidden": "16", "minibatches": 2, "epochs": 2}
TINY_NFSP = {"num_envs": 8, "hidden": "16", "replay_size": 500, "reservoir_size": 500, "min_buffer": 20,
             "batch_size": 16, "target_every": 3}


@pytest.mark.slow
def test_a_short_ppo_run_beats_random_play_on_the_small_poke_deal():
    trainer = make_trainer("ppo", SMALL_POKE, 3, {"num_envs": 64, "rollout": 16, "hidden": "64",
                                                 "learning_rate": 0.003, "epochs": 2, "minibatches": 2})
    before = mean_ci(play_against(SMALL_POKE, trainer.act_greedy, 2000, seed=5))
    for _ in range(10):
        trainer.train_update()
    after = mean_ci(play_against(SMALL_POKE, trainer.act_greedy, 2000, seed=5))
    # Untrained greedy play is about even with random (-6.9 points, CI -16 .. 2); ten updates
    # (10,240 decisions, fixed seed) reach about +84. Points range over -300 .. 300 per deal.
    assert after.ci95_low > before.ci95_high + 30


def _same(a: dict, b: dict) -> None:
    assert set(a) == set(b)
    for key in a:
        np.testing.assert_array_equal(np.asarray(a[key]), np.asarray(b[key]), err_msg=key)


@pytest.mark.parametrize("algorithm, game, overrides", [
    ("ppo", "poker_dice(variant=yacht12,players=1)", TINY_PPO),
    ("ppo", "poker_dice(variant=yacht12,players=1)", {**TINY_PPO, "anneal_steps": 384, "final_learning_rate": 1e-4}),
    ("ppo", "poker_dice(variant=yahtzee,players=1)", {**TINY_PPO, "score_rewards": True}),
    pytest.param("ppo", "palace_poker(players=3)", TINY_PPO, marks=pytest.mark.slow),
    ("nfsp", SMALL_POKE, TINY_NFSP),
])
@pytest.mark.slow
def test_resume_from_a_checkpoint_gives_the_parameters_of_an_uninterrupted_run(algorithm, game, overrides, tmp_path):
    # The run is checkpointed after two updates and goes on; a second process resumes from the checkpoint.
    straight = make_trainer(algorithm, game, 7, overrides)
    for _ in range(2):
        straight.train_update()
    save_checkpoint(tmp_path / "c.npz", straight)
    for _ in range(2):
        straight.train_update()
    resumed = make_trainer(algorithm, game, 7, overrides)
    load_checkpoint(tmp_path / "c.npz", resumed)
    for _ in range(2):
        resumed.train_update()
    assert resumed.steps == straight.steps
    _same(straight.params, resumed.params)


def test_the_learning_rate_anneals_linearly_over_the_decisions_then_stays():
    from gamut.solvers.rl.ppo import PPOConfig, _learning_rate

    assert _learning_rate(PPOConfig(learning_rate=0.002)) == 0.002
    # 8,192 decisions an update, 16 Adam steps an update: 81,920 decisions are 160 Adam steps.
    schedule = _learning_rate(PPOConfig(learning_rate=0.002, anneal_steps=81920, final_learning_rate=0.0005))
    rates = [float(schedule(k)) for k in (0, 80, 160, 1000)]
    np.testing.assert_allclose(rates, [0.002, 0.00125, 0.0005, 0.0005], rtol=1e-6)
    # Defaults are left out of the recorded config, so files written before the setting existed still match.
    assert "anneal_steps" not in PPOConfig().as_dict() and "final_learning_rate" not in PPOConfig().as_dict()
    for bad, message in (({"anneal_steps": -5}, "anneal_steps must be a whole number"),
                         ({"anneal_steps": 1000, "final_learning_rate": 0.01}, "final_learning_rate must lie in")):
        with pytest.raises(ValueError, match=message):
            PPOConfig(**bad)


def _record_gae_inputs(monkeypatch) -> list:
    """Make every PPO update append its ``(reward, done)`` arrays, as passed to ``rollout.gae``, to the returned list."""
    from gamut.solvers.rl import rollout

    seen = []
    real_gae = rollout.gae

    def spy(reward, done, *rest):
        seen.append((reward.copy(), done.copy()))
        return real_gae(reward, done, *rest)

    monkeypatch.setattr(rollout, "gae", spy)
    return seen


@pytest.mark.parametrize("game", ["poker_dice(variant=yacht12,players=1)", "poker_dice(variant=yahtzee,players=1)",
                                  "poker_dice(variant=classic_banked,players=1)", "poker_squares",
                                  "poker_squares(variant=open,scoring=english)",
                                  # High cards score here, so the empty grid's 50 points must not be paid twice.
                                  "poker_squares(scoring=5;6;7;8;9;10;11;12;13;14)"])
@pytest.mark.slow
def test_score_rewards_pay_each_game_its_return_as_it_is_scored(game, monkeypatch):
    seen = _record_gae_inputs(monkeypatch)
    trainer = make_trainer("ppo", game, 4,
                           {**TINY_PPO, "rollout": 120, "num_envs": 4, "score_rewards": True})
    trainer.train_update()
    reward, done = seen[-1][0] * trainer.reward_scale, seen[-1][1]
    # Every row starts a game at step 0 (a fresh environment); a game ends where ``done`` is set.
    totals = [one.sum() for row in range(reward.shape[1])
              for one in np.split(reward[:, row], np.flatnonzero(done[:, row]) + 1)[:-1]]
    assert len(totals) == len(trainer.finished_returns) >= 8
    np.testing.assert_allclose(sorted(totals), sorted(trainer.finished_returns), atol=1e-3)
    # The points are paid along the way, not all at the end.
    assert np.count_nonzero(reward[~done]) > reward.shape[1] * 10


@pytest.mark.parametrize("game, overrides, message", [
    ("poker_squares(players=2)", {"score_rewards": True}, "one-player game with a running score"),
    ("poker_dice(variant=yacht12,players=2)", {"score_rewards": True}, "one-player game with a running score"),
    (SMALL_POKE, {"score_rewards": True}, "one-player game with a running score"),
    ("poker_dice(variant=yacht12,players=1)", {"score_rewards": True, "gamma": 0.99}, "needs gamma = 1"),
    ("poker_dice(variant=yacht12,players=1)", {"score_rewards": 1}, "takes bool"),
])
def test_score_rewards_are_refused_where_no_running_score_sums_to_the_return(game, overrides, message):
    with pytest.raises(ValueError, match=message):
        make_trainer("ppo", game, 0, {**TINY_PPO, **overrides})


@pytest.mark.slow
@pytest.mark.parametrize("policy, default_scale", [("flat", 1000.0), ("actions", 100.0)])
def test_the_reward_scale_divides_the_rewards_and_defaults_to_the_largest_utility(monkeypatch, policy, default_scale):
    """The flat head's default is the largest utility (American: 10 royal flushes); the action head's the features'."""
    from gamut.solvers.rl.ppo import PPOConfig

    seen = _record_gae_inputs(monkeypatch)
    rewards = {}
    for scale in (0.0, 50.0):
        trainer = make_trainer("ppo", "poker_squares", 2, {**TINY_PPO, "score_rewards": True, "reward_scale": scale,
                                                           "policy": policy})
        trainer.train_update()
        rewards[scale] = seen[-1][0]
    assert trainer.reward_scale == 50.0
    np.testing.assert_allclose(rewards[0.0] * default_scale, rewards[50.0] * 50.0, atol=1e-4)
    assert np.abs(rewards[50.0]).max() > 0
    assert "reward_scale" not in PPOConfig().as_dict()
    for bad in (-1.0, float("nan")):
        with pytest.raises(ValueError, match="reward_scale must be > 0, or 0"):
            PPOConfig(reward_scale=bad)


def test_a_damaged_or_foreign_checkpoint_is_refused_and_changes_nothing(tmp_path):
    trainer = make_trainer("ppo", "poker_dice(variant=yacht12,players=1)", 1, TINY_PPO)
    trainer.train_update()
    path = save_checkpoint(tmp_path / "c.npz", trainer)
    other = make_trainer("ppo", "poker_dice(variant=yacht12,players=1)", 2, TINY_PPO)
    before = {k: v.copy() for k, v in other.params.items()}
    with pytest.raises(RLFileError, match="belongs to another run: seed 1"):
        load_checkpoint(path, other)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "bad.npz").write_bytes(bytes(data))
    same_seed = make_trainer("ppo", "poker_dice(variant=yacht12,players=1)", 1, TINY_PPO)
    with pytest.raises(RLFileError, match="bad.npz"):
        load_checkpoint(tmp_path / "bad.npz", same_seed)
    _same(before, other.params)


@pytest.mark.parametrize("algorithm", ["ppo", "dmc"])
def test_a_state_of_another_environment_is_refused_before_anything_changes(algorithm):
    from gamut.solvers.rl.rollout import env_arrays

    overrides = TINY_PPO if algorithm == "ppo" else {"num_envs": 8, "rollout": 4, "hidden": "16", "batch_size": 16}
    trainer = make_trainer(algorithm, "poker_dice(variant=yacht12,players=1)", 1, overrides)
    trainer.train_update()
    info, arrays = trainer.state()
    name = next(key for key in arrays if key.startswith("env/"))
    arrays[name] = np.concatenate([arrays[name], arrays[name]])
    env_before = {k: v.copy() for k, v in env_arrays(trainer.env).items()}
    params_before = {k: np.array(v) for k, v in trainer.params.items()}
    with pytest.raises(ValueError, match="saved environment array"):
        trainer.load_state(info, arrays)
    for key, value in env_arrays(trainer.env).items():
        assert np.array_equal(value, env_before[key]), key
    _same(params_before, trainer.params)


def test_weights_are_validated_and_the_agent_plays_only_legal_moves(tmp_path):
    summary = train(make_trainer("nfsp", SMALL_POKE, 4, TINY_NFSP), 200, tmp_path, eval_games=50,
                    final_games=50)
    assert summary["steps"] >= 200 and summary["n"] == 50
    params, meta = load_weights(tmp_path / "weights.npz", SMALL_POKE, "nfsp")
    assert meta["budget"]["steps"] == summary["steps"] and set(params) == {"pi/w0", "pi/b0", "pi/w1", "pi/b1"}
    with pytest.raises(RLFileError, match="not on 'poke\\(follow=must_beat,hand_size=5"):
        load_weights(tmp_path / "weights.npz", "poke()")
    with pytest.raises(RLFileError, match="not 'ppo'"):
        load_weights(tmp_path / "weights.npz", SMALL_POKE, "ppo")
    data = bytearray((tmp_path / "weights.npz").read_bytes())
    data[-300] ^= 0x01
    (tmp_path / "bad.npz").write_bytes(bytes(data))
    with pytest.raises(RLFileError, match="bad.npz"):
        load_weights(tmp_path / "bad.npz")

    from gamut.solvers.rl.neural_bot import neural_bot

    game = pyspiel.load_game(SMALL_POKE)
    bots = [neural_bot(game, tmp_path / "weights.npz", player=p, seed=p, greedy=False) for p in (0, 1)]
    for _ in range(20):  # evaluate_bots applies every move to pyspiel, which refuses an illegal one
        pyspiel.evaluate_bots(game.new_initial_state(), bots, np.random.default_rng(0).integers(1 << 30))


def _cli(capsys, *args):
    from gamut.experiments.cli import main

    status = main(["train", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.slow
def test_cli_trains_resumes_and_refuses_bad_checkpoints(tmp_path, capsys):
    common = ["--game", "poker_dice(variant=yacht12,players=1)", "--algo", "ppo", "--out", str(tmp_path / "run"),
              "--eval-games", "20", "--final-games", "30", "--json"] + [f"--set={k}={v}" for k, v in TINY_PPO.items()]
    status, out, err = _cli(capsys, "--steps", "128", *common)
    assert status == 0, err
    result = json.loads(out.splitlines()[-1])
    assert {"final_mean_return", "ci95_low", "ci95_high", "n", "steps", "weights"} <= set(result)
    assert result["steps"] == 128 and result["n"] == 30
    # Training time (the updates: wall and CPU) is reported apart from the command's wall time.
    assert 0 < result["train_seconds"] < result["wall_seconds"] and result["train_cpu_seconds"] > 0
    assert "seconds" not in result
    status, _, err = _cli(capsys, "--steps", "256", *common)
    assert status == 2 and "--resume" in err
    status, out, err = _cli(capsys, "--steps", "256", "--resume", *common)
    assert status == 0, err
    assert json.loads(out.splitlines()[-1])["steps"] == 256
    # The weights file ships the value network beside the policy, with how to read it.
    arrays, meta = load_weights(tmp_path / "run" / "weights.npz", "poker_dice(variant=yacht12,players=1)", "ppo")
    assert {"pi/w0", "v/w0"} <= set(arrays) and meta["value_meaning"] == "final return"
    assert meta["value_scale"] == pytest.approx(pyspiel.load_game("poker_dice(variant=yacht12,players=1)").max_utility())
    status, _, err = _cli(capsys, "--steps", "128", "--resume", *common)
    assert status == 2 and "is below the 256 steps" in err
    checkpoint = tmp_path / "run" / "checkpoint.npz"
    checkpoint.write_bytes(checkpoint.read_bytes()[:-50])
    status, _, err = _cli(capsys, "--steps", "512", "--resume", *common)
    assert status == 2 and "checkpoint.npz" in err and "Traceback" not in err


@pytest.mark.parametrize("game, algo, flags, message", [
    ("poker_dice(variant=yacht12,players=1)", "ppo", ["--set", "bogus=1"], "has no setting 'bogus'"),
    ("poker_dice(variant=yacht12,players=1)", "ppo", ["--set", "hidden=a"], "hidden takes layer widths"),
    ("palace_poker(players=4)", "ppo", ["--set", "score_rewards=true"], "score_rewards needs a one-player game"),
    ("palace_poker(players=4)", "nfsp", [], "two-player zero-sum"),
    ("poker_dice(variant=yacht12,players=1)", "ppo", ["--exploitability"], "--exploitability"),
    ("poker_dice(variant=yacht12,players=1)", "ppo", ["--resume"], "no checkpoint"),
    ("poker_dice(variant=yacht12,players=1)", "ppo", ["--steps", "0"], "expected a whole number"),
    ("poker_dice(variant=nope)", "ppo", [], "--game"),
    ("poker_dice(variant=yacht12,players=1)", "ppo", ["--eval-opponent", "heuristic"], "poker_dice has no heuristic"),
    ("palace_poker(players=4)", "ppo", ["--eval-opponent", "ismcts"], "invalid choice: 'ismcts'"),
])
def test_cli_refuses_bad_flags_before_any_work(game, algo, flags, message, tmp_path, capsys):
    status, _, err = _cli(capsys, "--game", game, "--algo", algo, "--out", str(tmp_path / "o"), *flags)
    assert status == 2 and message in err, err
    assert not (tmp_path / "o").exists()


def test_shipped_weights_are_checked_against_the_manifest(tmp_path, monkeypatch):
    from gamut.solvers.bots import bot_names, make_bot
    from gamut.solvers.rl import shipped

    game = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    source = shipped.shipped_path("ppo", game)
    assert source is not None and "ppo" in bot_names(game)
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path)
    monkeypatch.setattr(shipped, "MANIFEST", tmp_path / "manifest.json")
    mine = shipped.ship_weights(source, "mine")
    assert make_bot(game, "ppo").metadata["game"] == str(game)
    data = bytearray(mine.read_bytes())
    data[100] ^= 0x01
    mine.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="fail the SHA-256"):
        make_bot(game, "ppo")
    assert "ppo" not in bot_names(pyspiel.load_game("poker_dice(variant=classic,players=2)"))


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.slow
def test_the_bar_stops_at_its_total_and_says_whom_it_evaluates_against(tmp_path, monkeypatch):
    from gamut.experiments.cli import main

    err = _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    # 100 steps in updates of 16 x 8 = 128: the run ends past --steps, the bar must not.
    status = main(["train", "--game", "palace_poker(players=3)", "--algo", "ppo", "--steps", "100",
                   "--out", str(tmp_path / "run"), "--eval-games", "4", "--final-games", "6",
                   "--eval-opponent", "heuristic", "--set", "num_envs=16", "--set", "rollout=8",
                   "--set", "hidden=16"])
    monkeypatch.undo()
    screen = err.getvalue()
    assert status == 0, screen
    assert "100/100" in screen and "128/100" not in screen, screen
    assert "ppo evaluating: 4 games against heuristic at the other seats" in screen, screen
    assert "ppo final evaluation: 6 games against heuristic at the other seats" in screen, screen
    assert "ppo training" in screen
