"""The Gymnasium vector adapter: spaces, masks, seeding, same-step auto-reset, Gymnasium's own checks."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_space_limit, data_equivalence
from gymnasium.utils.passive_env_checker import check_obs
from gymnasium.vector import AutoresetMode

from gamut.envs.gym_vector import GymVectorEnv, make_gym_vector
from gamut.envs.hands import HAND_TABLE
from gamut.envs.loading import load_game
from gamut.envs.poker_squares import kernels as K
from gamut.envs.vector import game_streams, observation_bounds, random_legal_actions

ONE_PLAYER = ["poker_squares", "poker_squares(variant=open)", "poker_dice(variant=yacht12,players=1)",
              "poker_dice(variant=yahtzee,players=1)"]


def play(env, steps, seed, policy_seed=1):
    """Random legal play; returns every (obs, rewards, terminated, mask) in order."""
    obs, info = env.reset(seed=seed)
    policy = game_streams(policy_seed, env.num_envs)
    actions = np.zeros(env.num_envs, np.int64)
    out = [(obs, info["action_mask"])]
    for _ in range(steps):
        random_legal_actions(info["action_mask"], policy, actions)
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert not truncated.any()
        out.append((obs, rewards, terminated, info["action_mask"]))
    return out


@pytest.mark.parametrize("game_string", ONE_PLAYER)
@pytest.mark.slow
def test_spaces_and_what_comes_back_fit_them(game_string):
    game = load_game(game_string)
    env = make_gym_vector(game_string, num_envs=3, seed=5)
    low, high = observation_bounds(game_string)
    assert env.single_observation_space == gymnasium.spaces.Box(low, high, (game.observation_tensor_size(),),
                                                                np.float32)
    assert env.observation_space.shape == (3, game.observation_tensor_size())
    assert env.single_action_space == gymnasium.spaces.Discrete(game.num_distinct_actions())
    assert env.action_space == gymnasium.spaces.MultiDiscrete([game.num_distinct_actions()] * 3)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium warns about unbounded or badly typed spaces
        check_space_limit(env.single_observation_space, "observation")
    obs, info = env.reset()
    check_obs(obs, env.observation_space, "reset")
    assert info["action_mask"].shape == (3, game.num_distinct_actions()) and info["action_mask"].any(axis=1).all()
    for record in play(env, 40, seed=5)[1:]:
        obs, rewards, terminated, mask = record
        check_obs(obs, env.observation_space, "step")
        assert rewards.dtype == np.float64 and rewards.shape == (3,) and terminated.dtype == np.bool_
        assert (rewards[~terminated] == 0).all()
        assert mask.any(axis=1).all()


@pytest.mark.parametrize("game_string", ONE_PLAYER)
def test_same_seed_same_episodes_whatever_the_batch_size(game_string):
    first = play(make_gym_vector(game_string, num_envs=4), 60, seed=11)
    again = play(make_gym_vector(game_string, num_envs=4, seed=999), 60, seed=11)
    assert data_equivalence(first, again, exact=True)
    wider = play(make_gym_vector(game_string, num_envs=7), 60, seed=11)
    # Row 2 of a batch of 7 plays the game row 2 of a batch of 4 plays (its actions come from its own stream).
    for a, b in zip(first, wider):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x[2], y[2])
    other = play(make_gym_vector(game_string, num_envs=4), 60, seed=12)
    assert not data_equivalence(first, other)


def test_the_constructor_seed_is_the_first_reset_and_later_resets_start_new_games():
    env = make_gym_vector("poker_squares", num_envs=4, seed=21)
    obs, _ = env.reset()
    np.testing.assert_array_equal(obs, make_gym_vector("poker_squares", num_envs=4).reset(seed=21)[0])
    later, _ = env.reset()
    assert not np.array_equal(obs, later)
    np.testing.assert_array_equal(env.reset(seed=np.int64(21))[0], obs)
    assert env.np_random_seed == 21


def test_same_step_auto_reset_reports_the_finished_game():
    env = make_gym_vector("poker_squares", num_envs=6, seed=3)
    obs, info = env.reset()
    policy = game_streams(4, 6)
    actions = np.zeros(6, np.int64)
    finished = 0
    for t in range(K.NUM_CELLS * 2):
        random_legal_actions(info["action_mask"], policy, actions)
        obs, rewards, terminated, _, info = env.step(actions)
        if not terminated.any():
            assert "final_info" not in info and "final_obs" not in info
            continue
        np.testing.assert_array_equal(info["_final_info"], terminated)
        np.testing.assert_array_equal(info["_final_obs"], terminated)
        np.testing.assert_array_equal(info["final_info"]["returns"], rewards)
        for row in range(6):
            if not terminated[row]:
                assert info["final_obs"][row] is None
                continue
            finished += 1
            # The new game: one card dealt, an empty grid.
            assert obs[row, 450:502].sum() == 1 and obs[row, :450].reshape(25, 18)[:, 17].all()
            # The final observation: a full grid that scores exactly the reward.
            grid = info["final_obs"][row][:450].reshape(25, 18)
            assert not grid[:, 17].any()
            state = np.full(K.STATE_SIZE, -1, np.int64)
            state[:K.NUM_CELLS] = 4 * np.argmax(grid[:, :13], axis=1) + np.argmax(grid[:, 13:17], axis=1)
            assert K.grid_score(state, 0, load_game("poker_squares").cfg, HAND_TABLE) == rewards[row]
    assert finished == 12  # every game of Poker Squares lasts 25 placements


def test_gymnasium_episode_statistics_wrapper_counts_same_step_episodes():
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(make_gym_vector("poker_squares", num_envs=3, seed=8))
    obs, info = env.reset()
    policy = game_streams(2, 3)
    actions = np.zeros(3, np.int64)
    for _ in range(K.NUM_CELLS):
        random_legal_actions(info["action_mask"], policy, actions)
        obs, rewards, terminated, _, info = env.step(actions)
    assert terminated.all()
    np.testing.assert_array_equal(info["episode"]["l"], [K.NUM_CELLS] * 3)
    np.testing.assert_allclose(info["episode"]["r"], rewards)


def test_multi_player_games_are_refused():
    with pytest.raises(ValueError, match="one-player games; poker_squares.*has 2 players"):
        make_gym_vector("poker_squares(players=2)", num_envs=2)
    with pytest.raises(ValueError, match="one-player"):
        GymVectorEnv("poke", num_envs=2)


@pytest.mark.parametrize("kwargs, message", [
    ({"num_envs": 0}, "num_envs must be a whole number"),
    ({"num_envs": 2, "seed": -1}, "seed must be a whole number"),
    ({"num_envs": 2, "threads": 0}, "threads must be a whole number"),
])
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_gym_vector("poker_squares", **kwargs)


def test_bad_actions_and_reset_arguments_raise_and_change_nothing():
    env = make_gym_vector("poker_squares", num_envs=2, seed=1)
    obs, info = env.reset()
    taken = int(np.argmax(info["action_mask"][1]))
    env.step(np.array([0, taken]))
    with pytest.raises(ValueError, match=r"row 1: action .* \(r\d+c\d+\) is not legal"):
        env.step(np.array([1, taken]))
    with pytest.raises(ValueError, match="shape"):
        env.step(np.array([1]))
    with pytest.raises(ValueError, match="one whole number"):
        env.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="no options"):
        env.reset(options={"reset_mask": np.ones(2, bool)})
    fresh = make_gym_vector("poker_squares", num_envs=2, seed=1)
    fresh.reset()
    fresh.step(np.array([0, taken]))
    np.testing.assert_array_equal(env.step(np.array([1, 2]))[0], fresh.step(np.array([1, 2]))[0])


@pytest.mark.parametrize("game_string", ONE_PLAYER)
def test_final_info_of_every_game_holds_the_returns_of_the_games_that_ended(game_string):
    env = make_gym_vector(game_string, num_envs=4, seed=6)
    keeps_final_obs = getattr(env.batched, "final_obs_buf", None) is not None
    obs, info = env.reset()
    policy = game_streams(7, 4)
    actions = np.zeros(4, np.int64)
    ended = 0
    while ended < 8:
        random_legal_actions(info["action_mask"], policy, actions)
        obs, rewards, terminated, _, info = env.step(actions)
        if terminated.any():
            ended += int(terminated.sum())
            np.testing.assert_array_equal(info["_final_info"], terminated)
            np.testing.assert_array_equal(info["final_info"]["returns"], rewards)
            assert not info["final_info"]["action_mask"].any()
            assert ("final_obs" in info) == keeps_final_obs


def test_gymnasium_info_to_list_wrapper_reads_the_info_row_by_row():
    env = gymnasium.wrappers.vector.DictInfoToList(make_gym_vector("poker_squares", num_envs=3, seed=1))
    obs, infos = env.reset()
    assert len(infos) == 3 and all(info["action_mask"].shape == (25,) for info in infos)
    for _ in range(K.NUM_CELLS):
        obs, rewards, terminated, _, infos = env.step(np.array([np.flatnonzero(i["action_mask"])[0] for i in infos]))
    assert terminated.all()
    for row, info in enumerate(infos):
        assert info["final_info"]["returns"] == rewards[row] and info["final_obs"].shape == (606,)


def test_the_single_game_view_passes_gymnasiums_check_env():
    from gymnasium.utils.env_checker import check_env

    from gamut.envs.gym_vector import make_gym_env

    env = make_gym_env("poker_squares", seed=2)
    # check_env steps with unmasked random actions: in the first placements of Poker Squares every cell is empty.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, skip_render_check=True)


def test_the_single_game_view_plays_row_zero_and_stops_at_the_end():
    from gamut.envs.gym_vector import make_gym_env

    env = make_gym_env("poker_squares(variant=open)")
    obs, info = env.reset(seed=4)
    vector_obs, vector_info = make_gym_vector("poker_squares(variant=open)", num_envs=3).reset(seed=4)
    np.testing.assert_array_equal(obs, vector_obs[0])
    total, terminated = 0.0, False
    for _ in range(K.NUM_CELLS):
        assert not terminated
        obs, reward, terminated, truncated, info = env.step(int(np.argmax(info["action_mask"])))
        total += reward
    state = np.full(K.STATE_SIZE, -1, np.int64)
    grid = obs[:450].reshape(25, 18)
    state[:K.NUM_CELLS] = 4 * np.argmax(grid[:, :13], axis=1) + np.argmax(grid[:, 13:17], axis=1)
    assert terminated and not truncated and not info["action_mask"].any()
    assert K.grid_score(state, 0, load_game("poker_squares").cfg, HAND_TABLE) == total
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    assert env.reset()[1]["action_mask"].all()  # the next game, from the row's stream
    np.testing.assert_array_equal(env.reset(seed=np.int64(4))[0], vector_obs[0])
    with pytest.raises(ValueError, match="one-player"):
        make_gym_env("poker_squares(players=2)")
