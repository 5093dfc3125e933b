"""Batched poker dice: replay against pyspiel, determinism, auto-reset, bad actions, encoder."""

import numpy as np
import pyspiel
import pytest

import gamut.envs.poker_dice.game  # noqa: F401  (registers poker_dice)
from gamut.envs import dice
from gamut.envs.poker_dice import kernels as K
from gamut.envs.poker_dice.encoding import encode_observation, observation_scales
from gamut.envs.vector import make_vector, observation_bounds
from gamut.envs.versions import game_variants
from tests.vector_replay import drive, replay_check

VARIANTS = game_variants()["poker_dice"]
# Steps per variant, above each documented max_game_length (90, 150, 36, 39, 9
# decisions), so every row finishes at least one game.
REPLAY_STEPS = {"classic": 130, "classic_banked": 150, "yacht12": 70, "yahtzee": 70, "ranking": 30}
OTHER_PARAMS = (
    "poker_dice(variant=yahtzee,players=2,joker=forced)", "poker_dice(variant=yahtzee,joker=none)",
    "poker_dice(variant=ranking,players=8,zero_sum=true)", "poker_dice(variant=classic_banked,players=1)",
    "poker_dice(variant=yacht12,players=3)",
)


def _variant(game_string):
    return pyspiel.load_game(game_string).params["variant"]


@pytest.mark.parametrize("game_string", VARIANTS)
@pytest.mark.slow
def test_replay_every_documented_variant(game_string):
    finished = replay_check(game_string, num_envs=64, steps=REPLAY_STEPS[_variant(game_string)], seed=3)
    assert finished >= 64


@pytest.mark.parametrize("game_string", OTHER_PARAMS)
def test_replay_other_parameters(game_string):
    replay_check(game_string, num_envs=8, steps=40, seed=5)


def _same_rows(a, b, rows):
    for field in ("obs", "legal_mask", "current_player", "rewards", "terminated", "returns"):
        np.testing.assert_array_equal(getattr(a, field)[rows], getattr(b, field)[rows], err_msg=field)


@pytest.mark.parametrize("game_string", ["poker_dice(variant=yahtzee,players=1)",
                                         "poker_dice(variant=ranking,players=3)"])
@pytest.mark.slow
def test_rows_do_not_depend_on_batch_size_or_threads(game_string):
    # random_legal_actions draws row i's action from its own stream, so the first
    # 8 rows of the 64-row batch get the same actions as the 8-row batch.
    small = drive(make_vector(game_string, 8, seed=11), 150, policy_seed=4)
    large = drive(make_vector(game_string, 64, seed=11), 150, policy_seed=4)
    threaded = drive(make_vector(game_string, 64, seed=11, threads=2), 150, policy_seed=4)
    for s, big, thr in zip(small, large, threaded):
        _same_rows(s, big, slice(0, 8))
        _same_rows(big, thr, slice(None))
    assert any(r.terminated.any() for r in small)


def test_reset_with_a_seed_repeats_the_games():
    env = make_vector("poker_dice(variant=classic_banked,players=2)", 16, seed=1)
    first = drive(env, 30, policy_seed=3)
    again = drive(env, 30, policy_seed=3, reset_seed=1)
    for a, b in zip(first, again):
        _same_rows(a, b, slice(None))
    fresh = env.reset()  # without a seed: each row's stream goes on, new games
    assert not np.array_equal(fresh.obs, first[0].obs)


def test_finished_games_report_returns_and_restart():
    env = make_vector("poker_dice(variant=yacht12,players=1)", 16, seed=2)
    records = drive(env, 120, policy_seed=9)
    ended = 0
    for record in records[1:]:
        for i in np.flatnonzero(record.terminated):
            ended += 1
            assert record.returns[i, 0] == record.rewards[i, 0] > 0
            obs = record.obs[i]
            # First decision of a new game: one roll made, no box filled, score 0.
            assert obs[0] == 1.0 and obs[7] == np.float32(1 / 3)
            assert not obs[20:41].any()
            assert record.legal_mask[i, K.BOX_BASE:K.BOX_BASE + 12].all()
        assert not record.returns[~record.terminated].any()
    assert ended >= 16


def _twin_envs():
    return [make_vector("poker_dice(variant=classic,players=2)", 4, seed=6) for _ in range(2)]


@pytest.mark.parametrize("bad, message", [
    (np.zeros(3, np.int64), r"shape \(4,\)"),
    (np.zeros(4, np.float64), "must be integers"),
    (np.full(4, K.NUM_ACTIONS), r"row 0: action 477 \(outside 0..476\)"),
])
def test_bad_action_arrays_raise_and_change_nothing(bad, message):
    env, twin = _twin_envs()
    step = env.reset()
    twin.reset()
    with pytest.raises(ValueError, match=message):
        env.step(bad)
    actions = np.argmax(step.legal_mask, axis=1)
    _same_rows(env.step(actions), twin.step(actions), slice(None))


def test_illegal_action_names_the_row_and_the_legal_actions():
    env, twin = _twin_envs()
    step = env.reset()
    twin.reset()
    actions = np.argmax(step.legal_mask, axis=1)
    bad = actions.copy()
    bad[2] = K.BOX_BASE + 6  # a stage-2 box (pair) while stage 1 is open
    with pytest.raises(ValueError, match=r"row 2: action 468 \(box pair\) is not legal for player 0; "
                                         r"legal actions: 0 \(keep nothing\)"):
        env.step(bad)
    _same_rows(env.step(actions), twin.step(actions), slice(None))


def test_no_information_state_tensor():
    with pytest.raises(ValueError, match="no information-state tensor"):
        make_vector("poker_dice(variant=yacht12,players=1)", 2, info_state=True)


def test_observations_stay_in_the_declared_bounds():
    assert observation_bounds("poker_dice(variant=classic,players=2)") == (-1.0, 1.0)
    assert make_vector("poker_dice(variant=classic,players=2)", 1).obs_low == -1.0
    for game_string in VARIANTS + OTHER_PARAMS:
        records = drive(make_vector(game_string, 32, seed=1), 200, policy_seed=2)
        obs = np.stack([r.obs for r in records])
        assert obs.min() >= -1.0 and obs.max() <= 1.0, game_string


def test_scales_follow_the_variant_tables():
    expected = {"classic": [3, 63, 1, 516], "classic_banked": [33, 63, 30, 594],
                "yacht12": [3, 1, 1, 298], "yahtzee": [3, 63, 1, 1575], "ranking": [3, 1, 1, 1]}
    for game_string in VARIANTS:
        game = pyspiel.load_game(game_string)
        assert observation_scales(game.tables).tolist() == expected[_variant(game_string)]
        if game.num_players() == 1:  # the score scale is the best total the game declares
            assert observation_scales(game.tables)[3] == game.max_utility()


def reference_observation(game, st):
    """The tensor written the slow, obvious way (the pre-kernel observer, scaled)."""
    n, boxes = game.num_players(), game.tables.num_boxes
    rolls_scale, total_scale, aux_scale, score_scale = observation_scales(game.tables)
    player, faces, rolls = np.zeros(n), np.zeros(6), [st[K.S_ROLLS] / rolls_scale]
    if st[K.S_PHASE] != K.PH_OVER:
        player[st[K.S_PLAYER]] = 1.0
    if st[K.S_ROLL] >= 0:
        faces = dice.ROLL_COUNTS[st[K.S_ROLL]] / 5
    keep = dice.KEEP_COUNTS[st[K.S_KEEP]] / 5
    frozen = dice.KEEP_COUNTS[st[K.S_FROZEN]] / 5
    filled, totals, hands = np.zeros((n, boxes)), np.zeros((n, 3)), np.zeros((n, 6))
    for i in range(n):
        base = K.S_PLAYERS + K.PLAYER_FIELDS * i
        filled[i] = [(st[base + K.F_MASK] >> b) & 1 for b in range(boxes)]
        totals[i] = (st[base + K.F_TOTAL] / total_scale, st[base + K.F_AUX] / aux_scale,
                     st[base + K.F_SCORE] / score_scale)
        if st[base + K.F_HAND] >= 0:
            hands[i] = dice.ROLL_COUNTS[st[base + K.F_HAND]] / 5
    return np.concatenate([player, faces, rolls, keep, frozen, filled.ravel(), totals.ravel(),
                           hands.ravel()]).astype(np.float32)


@pytest.mark.parametrize("game_string", VARIANTS + OTHER_PARAMS)
def test_encoder_matches_the_reference_on_random_states(game_string):
    # 10,000 states of played-out games per game string, 100,000 in all.
    game = pyspiel.load_game(game_string)
    t = game.tables
    scales = observation_scales(t)
    rng = np.random.default_rng(8)
    stream = np.array([12345], np.uint64)
    st = np.zeros(K.STATE_SIZE, np.int64)
    legal = np.zeros(K.NUM_ACTIONS, np.int64)
    allowed = np.zeros(t.num_boxes, np.bool_)
    ours = np.zeros((10_000, game.observation_tensor_size()), np.float32)
    reference = np.zeros_like(ours)
    checked = 0
    while checked < len(ours):
        K.init_state(st, game.cfg, t.params)
        while checked < len(ours):
            encode_observation(st, game.cfg, t.params, scales, ours[checked])
            reference[checked] = reference_observation(game, st)
            checked += 1
            if st[K.S_PHASE] == K.PH_OVER:
                break
            if st[K.S_PHASE] == K.PH_CHANCE:
                action = K.sample_roll(st[K.S_KEEP], stream)
            else:
                n = K.legal_actions(st, game.cfg, t.params, t.box_data, t.roll_data, legal, allowed)
                # Boxes more often than uniform play, so cards fill and scores grow.
                action = legal[n - 1] if rng.random() < 0.3 else legal[rng.integers(n)]
            K.apply_action(st, game.cfg, t.params, t.box_data, t.roll_data, action)
    np.testing.assert_array_equal(ours, reference)
    assert (ours < 0).any() == (game.params["variant"] in ("classic", "classic_banked"))


def test_pyspiel_observer_writes_the_kernel_tensor_into_its_views():
    game = pyspiel.load_game("poker_dice(variant=yahtzee,players=2)")
    state = game.new_initial_state()
    state.apply_action(dice.roll_id((6, 6, 6, 6, 6)))
    state.apply_action(K.BOX_BASE + 11)  # Yahtzee box: 50 points
    observer = game.make_py_observer()
    observer.set_from(state, 0)
    assert observer.dict["totals"][0].tolist() == [0.0, 1.0, np.float32(50 / 1575)]
    assert observer.dict["player"].tolist() == [0.0, 1.0]
    assert observer.dict["filled"][0, 11] == 1.0
    assert state.observation_tensor(1) == observer.tensor.tolist()


def test_uniform_faces_give_the_chance_probabilities_exactly():
    # sample_roll adds one uniform face per rerolled die through KEEP_ADD; every
    # sequence of faces equally likely must give dice.TRANSITION[keep], the
    # probabilities of chance_outcomes().
    for keep in range(dice.NUM_KEEPS):
        free = dice.NUM_DICE - int(dice.KEEP_SIZE[keep])
        counts = np.zeros(dice.NUM_ROLLS)
        for faces in np.ndindex(*(dice.NUM_FACES,) * free):
            k = keep
            for f in faces:
                k = dice.KEEP_ADD[k, f]
            counts[k - dice.NUM_SHORT_KEEPS] += 1
        np.testing.assert_allclose(counts / dice.NUM_FACES ** free, dice.TRANSITION[keep], rtol=0, atol=1e-15)
