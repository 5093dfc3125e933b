"""The heuristic seated in PPO's self-play: same moves as its bot, tables, loss, resume, evaluation."""

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers the games)
from gamut.solvers.bots import make_bot
from gamut.solvers.rl.opponents import batched_heuristic, draw_tables
from tests.chance import decision_positions


@pytest.mark.parametrize("game_string", ["poke(mode=deal)", "poke(hand_size=2,mode=deal,num_ranks=3,num_suits=2)",
                                         "palace_poker(players=4)", "palace_poker(players=2,betting=no_limit)"])
def test_the_batched_heuristic_moves_as_its_bot_in_every_state(game_string):
    game, states = decision_positions(game_string, 150, 11, min_moves=1, max_moves=40)
    batch = np.stack([s.state for s in states])
    for i, state in enumerate(states):
        # A fresh generator per state on both sides: the Palace Poker heuristic samples palaces.
        bot = make_bot(game, "heuristic", player=state.current_player(), seed=100 + i)
        batched = batched_heuristic(game, 100 + i).actions(batch, np.array([i]))
        assert batched[0] == bot.step(state), (i, str(state))


def test_a_game_without_a_heuristic_is_refused():
    with pytest.raises(ValueError, match="poker_squares has no heuristic.*palace_poker, poke"):
        batched_heuristic(pyspiel.load_game("poker_squares"), 0)


def test_tables_keep_one_learner_seat_and_seat_the_heuristic_at_the_share():
    tables = draw_tables(np.random.default_rng(0), 20_000, 4, 0.5)
    assert tables.shape == (20_000, 4) and (~tables).any(axis=1).all()
    # Each of the three other seats is the heuristic's with probability 1/2: 1.5 seats a table.
    assert abs(tables.sum(axis=1).mean() - 1.5) < 0.03
    assert not draw_tables(np.random.default_rng(0), 100, 4, 0.0).any()


def test_the_loss_ignores_the_heuristic_s_transitions():
    jnp = pytest.importorskip("jax.numpy")
    from gamut.solvers.rl.networks import init_mlp
    from gamut.solvers.rl.ppo import PPOConfig, _loss

    rng = np.random.default_rng(3)
    params = {**init_mlp("pi", [6, 8, 4], rng, 0.5), **init_mlp("v", [6, 8, 1], rng, 1.0)}
    n = 40
    batch = {"inputs": rng.normal(size=(n, 6)).astype(np.float32), "mask": rng.random((n, 4)) < 0.8,
             "actions": np.zeros(n, np.int64), "logp": rng.normal(size=n).astype(np.float32) - 2,
             "advantages": rng.normal(size=n).astype(np.float32), "targets": rng.normal(size=n).astype(np.float32)}
    batch["mask"][:, 0] = True
    weight = (rng.random(n) < 0.6).astype(np.float32)
    kept = {k: v[weight == 1] for k, v in batch.items()}
    config = PPOConfig()
    with_garbage = {**{k: v.copy() for k, v in batch.items()}, "weight": weight}
    for key in ("advantages", "targets", "logp"):  # what the heuristic's rows hold must not matter
        with_garbage[key][weight == 0] = 1e3
    expected = float(_loss(params, {k: jnp.asarray(v) for k, v in kept.items()}, config))
    found = float(_loss(params, {k: jnp.asarray(v) for k, v in with_garbage.items()}, config))
    assert found == pytest.approx(expected, rel=1e-5)


@pytest.mark.slow
def test_ppo_plays_the_heuristic_in_exactly_its_seats_and_resumes_exactly(tmp_path):
    pytest.importorskip("optax")
    from gamut.solvers.rl.checkpoint import load_checkpoint, save_checkpoint
    from gamut.solvers.rl.training import make_trainer

    game = "poke(hand_size=2,mode=deal,num_ranks=3,num_suits=2)"
    settings = {"num_envs": 16, "rollout": 8, "hidden": "16", "minibatches": 2, "epochs": 2, "heuristic_share": 0.6}
    straight = make_trainer("ppo", game, 5, settings)
    assert straight.tables.any() and (~straight.tables).any(axis=1).all()

    # Record, at every step, which rows the heuristic moved and what the environment was given.
    own_actions, env_step = straight.heuristic.actions, straight.env.step
    calls, played = [], []

    def heuristic_actions(states, rows):
        out = own_actions(states, rows)
        seats = straight.tables[np.arange(len(straight.tables)), straight.step.current_player]
        calls.append((np.asarray(rows).copy(), np.flatnonzero(seats), out.copy()))
        return out

    def step(actions):
        played.append(np.asarray(actions).copy())
        return env_step(actions)

    straight.heuristic.actions, straight.env.step = heuristic_actions, step
    for _ in range(2):
        straight.train_update()
    assert len(calls) == len(played) == 2 * settings["rollout"]
    assert sum(len(rows) for rows, _, _ in calls) > 0
    for (rows, heuristic_seats, moves), actions in zip(calls, played):
        np.testing.assert_array_equal(rows, heuristic_seats)  # the heuristic's seats, and only those
        np.testing.assert_array_equal(actions[rows], moves)  # its moves are the ones played
    straight.heuristic.actions, straight.env.step = own_actions, env_step
    save_checkpoint(tmp_path / "c.npz", straight)
    for _ in range(2):
        straight.train_update()
    resumed = make_trainer("ppo", game, 5, settings)
    load_checkpoint(tmp_path / "c.npz", resumed)
    for _ in range(2):
        resumed.train_update()
    np.testing.assert_array_equal(straight.tables, resumed.tables)
    for key, value in straight.params.items():
        np.testing.assert_array_equal(value, resumed.params[key], err_msg=key)


@pytest.mark.parametrize("settings, message", [
    ({"heuristic_share": 1.0}, "heuristic_share must lie in \\[0, 1\\)"),
    ({"heuristic_share": -0.1}, "heuristic_share must lie in \\[0, 1\\)"),
])
def test_bad_heuristic_shares_are_refused(settings, message):
    from gamut.solvers.rl.ppo import PPOConfig

    with pytest.raises(ValueError, match=message):
        PPOConfig(**settings)


def test_heuristic_seats_need_a_game_with_a_heuristic():
    pytest.importorskip("optax")
    from gamut.solvers.rl.training import make_trainer

    with pytest.raises(ValueError, match="needs a multi-player game"):
        make_trainer("ppo", "poker_dice(variant=yacht12,players=1)", 0, {"heuristic_share": 0.5})
    with pytest.raises(ValueError, match="poker_dice has no heuristic"):
        make_trainer("ppo", "poker_dice(variant=classic,players=2)", 0, {"heuristic_share": 0.5})


def test_the_heuristic_share_is_recorded_only_away_from_its_default(tmp_path):
    # Checkpoints and weights written before the setting existed hold no such key and still match.
    pytest.importorskip("optax")
    from gamut.solvers.rl.checkpoint import RLFileError, load_checkpoint, save_checkpoint
    from gamut.solvers.rl.ppo import PPOConfig
    from gamut.solvers.rl.training import make_trainer

    assert "heuristic_share" not in PPOConfig().as_dict()
    assert PPOConfig(heuristic_share=0.25).as_dict()["heuristic_share"] == 0.25
    game = "poke(hand_size=2,mode=deal,num_ranks=3,num_suits=2)"
    tiny = {"num_envs": 8, "rollout": 4, "hidden": "8", "minibatches": 2, "epochs": 1}
    save_checkpoint(tmp_path / "league.npz", make_trainer("ppo", game, 2, {**tiny, "heuristic_share": 0.5}))
    with pytest.raises(RLFileError, match="belongs to another run: config .*'heuristic_share': 0.5"):
        load_checkpoint(tmp_path / "league.npz", make_trainer("ppo", game, 2, tiny))


def test_evaluation_against_the_heuristic_seats_it_in_every_other_seat():
    from gamut.solvers.rl.evaluation import play_against

    game = "palace_poker(players=3)"
    loaded = pyspiel.load_game(game)

    def fold_or_first(inputs, mask):
        return np.argmax(mask, axis=1)

    vs_heuristic = play_against(game, fold_or_first, 60, seed=4, num_envs=8, opponent="heuristic")
    vs_random = play_against(game, fold_or_first, 60, seed=4, num_envs=8)
    assert vs_heuristic.shape == (60,) and not np.array_equal(vs_heuristic, vs_random)
    np.testing.assert_array_equal(vs_heuristic, play_against(game, fold_or_first, 60, seed=4, num_envs=8,
                                                             opponent="heuristic"))
    assert loaded.min_utility() <= vs_heuristic.min() and vs_heuristic.max() <= loaded.max_utility()
    with pytest.raises(ValueError, match="unknown evaluation opponent 'bogus'"):
        play_against(game, fold_or_first, 10, seed=4, opponent="bogus")
