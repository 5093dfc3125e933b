"""PPO's action policy head: one shared network scoring every legal action from the game's action features."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")
pytest.importorskip("optax")

import gamut.envs  # noqa: E402,F401  (registers the games)
from gamut.solvers.rl.checkpoint import load_checkpoint, load_weights, save_checkpoint  # noqa: E402
from gamut.solvers.rl.networks import forward, init_mlp  # noqa: E402
from gamut.solvers.rl.training import make_trainer, train  # noqa: E402
from tests.chance import play_game  # noqa: E402

TINY = {"num_envs": 16, "rollout": 8, "hidden": "16", "minibatches": 2, "epochs": 2}


def _random_positions(game_string: str, rows: int, seed: int):
    """Network inputs and legal masks of ``rows`` positions reached by uniformly random play."""
    from gamut.envs.loading import load_game
    from gamut.envs.vector import make_vector
    from gamut.solvers.rl.evaluation import network_input, uses_info_state

    game = load_game(game_string)
    env = make_vector(game, rows, seed=seed, info_state=uses_info_state(game))
    rng = np.random.default_rng(seed)
    step = env.reset()
    for _ in range(int(rng.integers(1, 20))):
        step = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in step.legal_mask]))
    return network_input(step, game), step.legal_mask.copy()


@pytest.mark.parametrize("one_hot", [False, True])
def test_the_numpy_action_head_equals_the_jax_one_and_its_packed_loss_form(one_hot):
    import jax.numpy as jnp

    from gamut.solvers.rl.ppo import _logits, _pack_legal, _packed_logits

    rng = np.random.default_rng(3)
    n, d, a, f = 7, 11, 6, 5
    params = init_mlp("pi", [d + (a if one_hot else f), 9, 8, 1], rng, 1.0)
    x = rng.standard_normal((n, d)).astype(np.float32)
    feats = None if one_hot else rng.standard_normal((n, a, f)).astype(np.float32)
    mask = rng.random((n, a)) < 0.6
    mask[:, 0] = True
    numpy_logits = _logits(params, x, feats, True)
    jax_logits = np.asarray(_logits({k: jnp.asarray(v) for k, v in params.items()}, jnp.asarray(x),
                                    None if one_hot else jnp.asarray(feats), True, jnp))
    np.testing.assert_allclose(numpy_logits, jax_logits, rtol=1e-5, atol=1e-5)
    # The reference: one MLP on the concatenation of the row's input and the action's features.
    columns = np.eye(a, dtype=np.float32)[None].repeat(n, 0) if one_hot else feats
    joined = np.concatenate([np.repeat(x[:, None], a, 1), columns], axis=2).reshape(n * a, -1)
    np.testing.assert_allclose(numpy_logits, forward(params, "pi", joined).reshape(n, a), rtol=1e-4, atol=1e-5)
    # The loss scores only the legal pairs, padded; the rest are masked.
    packed = _pack_legal(mask, feats)
    assert len(packed["pair_rows"]) >= mask.sum() and (packed["pair_slots"] < a).sum() == mask.sum()
    batch = {"inputs": jnp.asarray(x), "mask": jnp.asarray(mask), **{k: jnp.asarray(v) for k, v in packed.items()}}
    loss_logits = np.asarray(_packed_logits(params, batch, one_hot, jnp))
    np.testing.assert_allclose(loss_logits[mask], numpy_logits[mask], rtol=1e-5, atol=1e-5)
    assert (loss_logits[~mask] == -1e9).all()


def test_the_action_head_is_chosen_where_a_game_declares_features_and_illegal_actions_get_nothing():
    trainer = make_trainer("ppo", "poker_squares", 1, TINY)
    assert trainer.actions and trainer.features.size == 58 and trainer.params["pi/w0"].shape[1:] == (16,)
    assert trainer.params["pi/w1"].shape == (16, 1) and trainer.reward_scale == 100.0
    inputs, mask = _random_positions("poker_squares", 9, seed=2)
    probs = trainer.probabilities(inputs, mask)
    assert (probs[~mask] == 0).all() and (probs[mask] > 0).all()
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    assert mask[np.arange(9), trainer.act_greedy(inputs, mask)].all()
    flat = make_trainer("ppo", "poker_squares", 1, {**TINY, "policy": "flat"})
    assert not flat.actions and flat.params["pi/w1"].shape == (16, 25) and flat.reward_scale == 1000.0
    # A game without declared features keeps the flat head; asked for, the action head scores one-hot ids.
    assert not make_trainer("ppo", "poker_dice(variant=yacht12,players=1)", 1, TINY).actions
    one_hot = make_trainer("ppo", "poker_dice(variant=yacht12,players=1)", 1, {**TINY, "policy": "actions"})
    assert one_hot.actions and one_hot.features.one_hot
    with pytest.raises(ValueError, match="policy must be one of auto, flat, actions"):
        make_trainer("ppo", "poker_squares", 1, {"policy": "tree"})
    from gamut.solvers.rl.ppo import PPOConfig

    assert "policy" not in PPOConfig().as_dict()  # runs from before the setting still resume


@pytest.mark.slow
@pytest.mark.parametrize("game, overrides", [
    ("poker_squares", {**TINY, "score_rewards": True}),
    ("poker_dice(variant=yacht12,players=1)", {**TINY, "policy": "actions"}),
])
def test_resume_gives_the_parameters_of_an_uninterrupted_run(game, overrides, tmp_path):
    straight = make_trainer("ppo", game, 7, overrides)
    straight.train_update()
    save_checkpoint(tmp_path / "c.npz", straight)
    straight.train_update()
    resumed = make_trainer("ppo", game, 7, overrides)
    load_checkpoint(tmp_path / "c.npz", resumed)
    resumed.train_update()
    assert resumed.steps == straight.steps
    for key, value in straight.params.items():
        np.testing.assert_array_equal(np.asarray(value), np.asarray(resumed.params[key]), err_msg=key)


def test_a_tiny_poker_squares_run_saves_weights_the_ppo_agent_and_the_cli_play(tmp_path, capsys):
    import pyspiel

    import gamut
    from gamut.experiments.cli import main
    from gamut.solvers.rl.networks import policy_input

    trainer = make_trainer("ppo", "poker_squares", 0, TINY)
    summary = train(trainer, 256, tmp_path, eval_games=10, final_games=10)
    assert summary["n"] == 10 and np.isfinite(summary["final_mean_return"])
    path = str(tmp_path / "weights.npz")
    params, meta = load_weights(path, "poker_squares", "ppo")
    assert meta["policy_head"] == "actions" and meta["feature_size"] == 58
    assert meta["action_features"] == "gamut.envs.poker_squares.action_features:action_features"
    game = pyspiel.load_game("poker_squares")
    bot = gamut.make_bot(game, "ppo", weights=path)

    def choose(state):
        action = bot.step(state)
        x = policy_input(np.asarray(state.observation_tensor(0), np.float32)[None], np.array([0]), 1)
        mask = np.zeros((1, 25), bool)
        mask[0, state.legal_actions(0)] = True
        assert trainer.act_greedy(x, mask)[0] == action  # the NumPy bot plays the trainer's greedy policy
        return action

    play_game(game, np.random.default_rng(0), choose)
    assert main(["squares", "eval", "--agent", "ppo", "--option", f"weights={path}", "--deals", "3"]) == 0
    assert "ppo" in capsys.readouterr().out


def test_flat_weights_without_a_policy_head_still_load_and_play_as_before():
    import pyspiel

    import gamut
    from gamut.solvers.rl.networks import masked_log_softmax, policy_input
    from gamut.solvers.rl.shipped import shipped_path

    game = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    path = shipped_path("ppo", game)
    params, meta = load_weights(path)
    assert "policy_head" not in meta
    bot = gamut.make_bot(game, "ppo")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    legal = state.legal_actions(0)
    pairs, _ = bot.step_with_policy(state)
    x = policy_input(np.asarray(state.observation_tensor(0), np.float32)[None], np.array([0]), 1)
    mask = np.zeros((1, game.num_distinct_actions()), bool)
    mask[0, legal] = True
    expected = np.exp(masked_log_softmax(forward(params, "pi", x), mask)[0, legal])
    np.testing.assert_array_equal([p for _, p in pairs], expected / expected.sum())
