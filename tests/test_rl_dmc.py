"""Deep Monte-Carlo: action features, the Q forward passes, resume, and a tiny run on every game."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

pytest.importorskip("optax")

from gamut.solvers.rl.dmc import OneHotFeatures, action_features, q_values  # noqa: E402
from gamut.solvers.rl.networks import forward, init_mlp, policy_input  # noqa: E402
from gamut.solvers.rl.training import make_trainer, train  # noqa: E402
from tests.chance import play_game  # noqa: E402

TINY = {"num_envs": 8, "rollout": 8, "hidden": "16x16", "batch_size": 32, "sgd_steps": 2, "buffer_size": 512}


def _random_positions(game_string: str, rows: int, seed: int):
    """Network inputs and legal masks of ``rows`` positions reached by uniformly random play."""
    from gamut.envs.loading import load_game
    from gamut.envs.vector import make_vector
    from gamut.solvers.rl.evaluation import network_input, uses_info_state

    game = load_game(game_string)
    env = make_vector(game, rows, seed=seed, info_state=uses_info_state(game))
    rng = np.random.default_rng(seed)
    step = env.reset()
    for _ in range(int(rng.integers(0, 25 * game.num_players()))):
        step = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in step.legal_mask]))
    return game, network_input(step, game), step.legal_mask.copy()


def _line_reference(cards: list[tuple[int, int]], card: tuple[int, int]) -> list[float]:
    """The 24 features of one line, the obvious way: ``cards`` the line's (rank, suit) before, ``card`` placed."""
    after = cards + [card]
    ranks = Counter(r for r, _ in after)
    multiplicities = sorted(ranks.values(), reverse=True)
    pattern = {(4,): 5, (3, 2): 4, (3,): 3, (2, 2): 2, (2,): 1}.get(tuple(m for m in multiplicities if m > 1), 0)

    def flush(line):
        return len({s for _, s in line}) <= 1

    def straight(line):
        values = [r for r, _ in line]
        if len(set(values)) != len(values):
            return False
        runs = [set(range(low, low + 5)) for low in range(9)] + [{12, 0, 1, 2, 3}]
        return any(set(values) <= run for run in runs)

    hand = [0.0] * 10
    if len(after) == 5:
        is_flush, is_straight = flush(after), straight(after)
        royal = is_flush and is_straight and {8, 12} <= set(ranks)
        category = (9 if royal else 8 if is_flush and is_straight else 7 if pattern == 5 else 6 if pattern == 4
                    else 5 if is_flush else 4 if is_straight else pattern)
        hand[category] = 1.0
    return [len(after) / 5, *[float(pattern == k) for k in range(6)],
            sum(r == card[0] for r, _ in cards) / 3, sum(s == card[1] for _, s in cards) / 4,
            float(flush(after)), float(straight(after)), float(flush(cards) and not flush(after)),
            float(straight(cards) and not straight(after)), len(ranks) / 5, *hand]


@pytest.mark.parametrize("game_string", ["poker_squares", "poker_squares(players=2,variant=open)"])
def test_poker_squares_features_match_a_slow_reference_on_random_positions(game_string):
    game, inputs, mask = _random_positions(game_string, 24, seed=3)
    feats = action_features(game)(inputs, mask)
    assert feats.shape == (24, 25, 58) and feats.dtype == np.float32
    players = game.num_players()
    for n in range(len(inputs)):
        grid = inputs[n, :450].reshape(25, 18)
        cells = [None if g[17] else (int(np.argmax(g[:13])), int(np.argmax(g[13:17]))) for g in grid]
        card_id = int(np.argmax(inputs[n, 450 * players:450 * players + 52]))
        card = (card_id // 4, card_id % 4)
        for cell in range(25):
            if not mask[n, cell]:
                assert not feats[n, cell].any()
                continue
            row, col = divmod(cell, 5)
            row_cards = [c for c in cells[5 * row:5 * row + 5] if c is not None]
            col_cards = [c for c in cells[col::5] if c is not None]
            expected = (_line_reference(row_cards, card) + _line_reference(col_cards, card)
                        + list(np.eye(5)[row]) + list(np.eye(5)[col]))
            np.testing.assert_allclose(feats[n, cell], expected, atol=1e-6, err_msg=f"row {n} cell {cell}")


def test_a_full_line_is_scored_as_its_hand():
    # Row 0 holds Th Jh Qh Kh; the Ace of hearts in cell 4 completes a royal flush, the Ace of spades a straight.
    from gamut.envs.loading import load_game

    game = load_game("poker_squares")
    inputs = np.zeros((2, 606), np.float32)
    inputs[:, :450].reshape(2, 25, 18)[:, :, 17] = 1.0
    for cell, rank in enumerate((8, 9, 10, 11)):
        inputs[:, 18 * cell + 17] = 0.0
        inputs[:, 18 * cell + rank] = 1.0
        inputs[:, 18 * cell + 13 + 2] = 1.0
    inputs[0, 450 + 4 * 12 + 2] = 1.0  # Ah
    inputs[1, 450 + 4 * 12 + 3] = 1.0  # As
    mask = inputs[:, :450].reshape(2, 25, 18)[:, :, 17] > 0
    feats = action_features(game)(inputs, mask)
    assert np.flatnonzero(feats[0, 4, 14:24]).tolist() == [9]
    assert np.flatnonzero(feats[1, 4, 14:24]).tolist() == [4]
    assert feats[1, 4, 11] == 1.0 and feats[0, 4, 11] == 0.0  # the spade ends the flush candidate


def test_a_game_without_features_gets_the_one_hot_of_the_action_id():
    from gamut.envs.loading import load_game

    game = load_game("poker_dice")
    features = action_features(game)
    assert isinstance(features, OneHotFeatures) and features.one_hot and features.size == 477
    # Q over gathered rows of the first layer is the MLP of (input, one-hot) concatenated.
    rng = np.random.default_rng(0)
    params = init_mlp("q", [5 + 4, 8, 8, 1], rng)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    mask = np.ones((3, 4), bool)
    eye = OneHotFeatures(4)(x, mask)
    concat = np.concatenate([np.repeat(x[:, None], 4, axis=1), eye], axis=2).reshape(12, 9)
    expected = forward(params, "q", concat)[:, 0].reshape(3, 4)
    np.testing.assert_allclose(q_values(params, x, None), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(q_values(params, x, eye), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("game_string", ["poker_squares", "poke"])
def test_the_numpy_q_forward_equals_the_jax_one(game_string):
    import jax.numpy as jnp

    trainer = make_trainer("dmc", game_string, 1, TINY)
    _, inputs, mask = _random_positions(game_string, 6, seed=4)
    feats = None if trainer.one_hot else trainer.features(inputs, mask)
    np.testing.assert_allclose(trainer.q_numpy(inputs, mask), np.asarray(trainer._q(trainer.params, inputs, feats)),
                               rtol=1e-5, atol=1e-5)
    assert np.asarray(q_values(trainer.params, jnp.asarray(inputs), feats, jnp)).shape == mask.shape


def test_a_config_whose_games_in_flight_do_not_fit_is_refused():
    # Palace Poker games may last 6,800 decisions: 64 rows of them are over 1 GB.
    with pytest.raises(ValueError, match="max_game_length.*lower num_envs"):
        make_trainer("dmc", "palace_poker", 0, {"memory_mb": 256})
    with pytest.raises(ValueError, match="buffer_size"):
        make_trainer("dmc", "poker_squares", 0, {"buffer_size": 16, "batch_size": 32})


def test_the_learning_rate_anneals_over_adam_steps_and_bad_settings_are_refused():
    from gamut.solvers.rl.dmc import DMCConfig, _learning_rate

    # 1,024 decisions an update, 4 Adam steps an update: 102,400 decisions are 400 Adam steps.
    schedule = _learning_rate(DMCConfig(learning_rate=1e-3, anneal_steps=102400, final_learning_rate=1e-4))
    np.testing.assert_allclose([float(schedule(k)) for k in (0, 200, 400, 900)], [1e-3, 5.5e-4, 1e-4, 1e-4],
                               rtol=1e-5)
    assert "anneal_steps" not in DMCConfig().as_dict()  # runs from before the setting still resume
    for bad, message in (({"epsilon": 1.5}, "epsilon"), ({"final_learning_rate": 1.0}, "final_learning_rate"),
                         ({"anneal_steps": -1}, "anneal_steps"), ({"reward_scale": -1.0}, "reward_scale")):
        with pytest.raises(ValueError, match=message):
            DMCConfig(**bad)


@pytest.mark.slow
@pytest.mark.parametrize("game_string", ["poker_squares", "poke(mode=deal)"])
def test_resume_from_a_checkpoint_gives_the_parameters_of_an_uninterrupted_run(game_string, tmp_path):
    # Stopped after its first checkpoint (games in flight, half a buffer), then resumed to the same total;
    # the annealed learning rate continues on its schedule.
    settings = {**TINY, "anneal_steps": 384, "final_learning_rate": 1e-4}
    straight = make_trainer("dmc", game_string, 7, settings)
    summary = train(straight, 6 * 64, tmp_path / "straight", eval_every=2 * 64, eval_games=20, final_games=20)
    stopped = make_trainer("dmc", game_string, 7, settings)
    train(stopped, 6 * 64, tmp_path / "split", eval_every=2 * 64, eval_games=20, final_games=20,
          stop_after_seconds=0.0)
    assert stopped.steps == 64 and stopped.held.any()
    resumed = make_trainer("dmc", game_string, 7, settings)
    again = train(resumed, 6 * 64, tmp_path / "split", resume=True, eval_every=2 * 64, eval_games=20, final_games=20)
    assert resumed.steps == straight.steps == 6 * 64
    for key, value in straight.params.items():
        np.testing.assert_array_equal(value, resumed.params[key], err_msg=key)
    np.testing.assert_array_equal(straight.buffer["target"], resumed.buffer["target"])
    assert again["final_mean_return"] == summary["final_mean_return"]


@pytest.mark.slow
@pytest.mark.parametrize("game_string", ["poker_squares", "poker_dice", "poke", "palace_poker"])
def test_a_tiny_run_trains_and_its_weights_play_as_the_dmc_agent(game_string, tmp_path):
    import gamut
    import pyspiel

    settings = {**TINY, "num_envs": 4} if game_string == "palace_poker" else TINY
    trainer = make_trainer("dmc", game_string, 0, settings)
    summary = train(trainer, 2048, tmp_path, eval_games=20, final_games=40)
    assert trainer.filled > 0 and summary["n"] == 40 and np.isfinite(summary["final_mean_return"])
    game = pyspiel.load_game(trainer.game_string)
    bots = [gamut.make_bot(game, "dmc", player=p, weights=str(tmp_path / "weights.npz"))
            for p in range(game.num_players())]

    def choose(state):
        player = state.current_player()
        action = bots[player].step(state)
        # The bot plays what the trainer's greedy policy plays from the same position.
        tensor = (state.information_state_tensor(player) if bots[player]._info_state
                  else state.observation_tensor(player))
        x = policy_input(np.asarray(tensor, np.float32)[None], np.array([player]), game.num_players())
        mask = np.zeros((1, game.num_distinct_actions()), bool)
        mask[0, state.legal_actions(player)] = True
        assert trainer.act_greedy(x, mask)[0] == action
        return action

    play_game(game, np.random.default_rng(0), choose)  # which checks every move is legal


def test_weights_trained_on_one_hot_ids_still_play_after_the_game_lends_features(tmp_path, monkeypatch):
    import pyspiel

    import gamut
    from gamut.solvers.rl import dmc
    from gamut.solvers.rl.checkpoint import RLFileError
    from gamut.solvers.rl.features import recorded_features

    game = pyspiel.load_game("poke")
    # A run from before Poke declared its features: the trainer sees only the action ids.
    monkeypatch.setattr(dmc, "action_features", lambda g: OneHotFeatures(g.num_distinct_actions()))
    monkeypatch.setattr(dmc, "features_name", lambda g: "one-hot")
    trainer = make_trainer("dmc", "poke", 0, TINY)
    train(trainer, 512, tmp_path, eval_games=4, final_games=4)
    monkeypatch.undo()
    bots = [gamut.make_bot(game, "dmc", player=p, weights=str(tmp_path / "weights.npz")) for p in range(2)]

    def choose(state):
        return bots[state.current_player()].step(state)

    play_game(game, np.random.default_rng(1), choose)
    declared = action_features(game)
    assert recorded_features(game, {"action_features": dmc.features_name(game), "feature_size": declared.size},
                             "w.npz").size == declared.size
    with pytest.raises(RLFileError, match="trained on action features 'other' of size 3"):
        recorded_features(game, {"action_features": "other", "feature_size": 3}, "w.npz")
