"""The ``ppo_turn`` planner: its inputs, the cards it values, its choice values against a slow reference, refusals."""

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers the games)
from gamut.envs import dice
from gamut.envs.poker_dice import kernels as K
from gamut.envs.poker_dice.encoding import observation_scales
from gamut.solvers.bots import make_bot
from gamut.solvers.poker_dice.dp import state_layout, turn_levels
from gamut.solvers.poker_dice.planner import (
    FIRST_ROLL_PROBS,
    TurnPlanner,
    first_roll_inputs,
    turn_successors,
)
from gamut.solvers.poker_dice.regret import policy_regret
from gamut.solvers.poker_dice.solution import solve
from gamut.solvers.rl.checkpoint import RLFileError, save_weights
from gamut.solvers.rl.networks import forward, init_mlp
from tests.chance import apply_sampled_chance

YACHT12 = "poker_dice(variant=yacht12,players=1)"
YAHTZEE = "poker_dice(variant=yahtzee,players=1)"
SCALE = 40.0


def _weights(tmp_path, game, meaning="points to come", heads=("pi", "v"), name="w.npz"):
    """A small random PPO weights file for ``game`` (hidden layer of 16)."""
    rng = np.random.default_rng(3)
    size = game.observation_tensor_size()
    params = {}
    if "pi" in heads:
        params.update(init_mlp("pi", [size, 16, game.num_distinct_actions()], rng))
    if "v" in heads:
        params.update(init_mlp("v", [size, 16, 1], rng))
    meta = {"algorithm": "ppo", "game": str(game), "input": "observation", "value_scale": SCALE}
    if meaning is not None:
        meta["value_meaning"] = meaning
    return save_weights(tmp_path / name, params, meta)


def _card(state):
    base = K.S_PLAYERS
    return tuple(int(state.state[base + f]) for f in (K.F_MASK, K.F_TOTAL, K.F_AUX))


def _turn_starts(game, rng, count):
    """Chance nodes at the start of a turn (first roll pending) of random games."""
    starts = []
    while len(starts) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(starts) < count:
            if state.is_chance_node():
                if int(state.state[K.S_ROLLS]) == 0 and rng.random() < 0.3:
                    starts.append(state.clone())
                apply_sampled_chance(state, rng)
            else:
                legal = state.legal_actions()
                state.apply_action(int(legal[rng.integers(len(legal))]))
    return starts


@pytest.mark.parametrize("game_string", [YACHT12, YAHTZEE, "poker_dice(variant=classic_banked,players=1)"])
def test_first_roll_inputs_are_the_observations_of_the_real_states_with_the_score_zeroed(game_string):
    game = pyspiel.load_game(game_string)
    t = game.tables
    starts = _turn_starts(game, np.random.default_rng(1), 5)
    cards = np.array([_card(s) for s in starts], np.int64)
    out = np.zeros((len(starts) * dice.NUM_ROLLS, game.observation_tensor_size()), np.float32)
    first_roll_inputs(game.cfg, t.params, t.box_data, t.roll_data, observation_scales(t),
                      cards[:, 0].copy(), cards[:, 1].copy(), cards[:, 2].copy(), out)
    for i, start in enumerate(starts):
        start.state[K.S_PLAYERS + K.F_SCORE] = 0
        for roll in (0, 17, 251):
            expected = np.asarray(start.child(roll).observation_tensor(0), np.float32)
            np.testing.assert_array_equal(out[i * dice.NUM_ROLLS + roll], expected)


@pytest.mark.parametrize("game_string", [YACHT12, YAHTZEE, "poker_dice(variant=classic_banked,players=1)",
                                         "poker_dice(variant=classic,players=1)"])
def test_a_turns_levels_read_only_the_cards_turn_successors_lists(game_string):
    # Every value outside the listed cards is huge: a level that read one would be huge too
    # (a maximum would pick it, a mean would carry it).
    game = pyspiel.load_game(game_string)
    t = game.tables
    layout = state_layout(t)
    capacity = t.num_boxes * dice.NUM_ROLLS * 2 * t.num_aux
    buffers = [np.zeros(capacity, np.int64) for _ in range(4)]
    for start in _turn_starts(game, np.random.default_rng(2), 8):
        mask, total, aux = _card(start)
        count = turn_successors(t.params, t.box_data, t.roll_data, layout.offsets, mask, total, aux, *buffers)
        assert count > 0
        values = np.full(layout.size, 1e9)
        values[buffers[0][:count]] = 1.0
        levels = turn_levels(t, layout, values, mask, total, aux)
        assert max(float(np.abs(level[:aux + 1]).max()) for level in levels) < 1e6


def _start_value(start, params) -> float:
    """W of a turn start, slowly: the network on each first roll's real state, score zeroed."""
    start = start.clone()
    start.state[K.S_PLAYERS + K.F_SCORE] = 0
    total = 0.0
    for roll, prob in start.chance_outcomes():
        x = np.asarray(start.child(roll).observation_tensor(0), np.float32)[None]
        total += prob * float(forward(params, "v", x)[0, 0]) * SCALE
    return total


def _box_value(state, action, params, cache) -> float:
    after = state.clone()
    before = int(after.state[K.S_PLAYERS + K.F_SCORE])
    after.apply_action(action)
    points = int(after.returns()[0] if after.is_terminal() else after.state[K.S_PLAYERS + K.F_SCORE]) - before
    if after.is_terminal():
        return float(points)
    card = _card(after)
    if card not in cache:
        cache[card] = _start_value(after, params)
    return points + cache[card]


@pytest.mark.parametrize("game_string", [YACHT12, YAHTZEE])
@pytest.mark.slow
def test_choice_values_after_the_second_roll_match_a_slow_expectimax_over_the_network(game_string, tmp_path):
    game = pyspiel.load_game(game_string)
    path = _weights(tmp_path, game)
    params = {k: v for k, v in np.load(path).items() if k.startswith("v/")}
    bot = TurnPlanner(game, 0, path)
    rng = np.random.default_rng(5)
    checked = 0
    while checked < 3:
        state = game.new_initial_state()
        while not state.is_terminal() and checked < 3:
            if state.is_chance_node():
                apply_sampled_chance(state, rng)
                continue
            if int(state.state[K.S_ROLLS]) == 2 and rng.random() < 0.3:
                bot.step(state)
                got = dict(bot.last_values)
                cache = {}
                for action in state.legal_actions():
                    if action >= K.BOX_BASE:
                        expected = _box_value(state, action, params, cache)
                    else:
                        kept = state.child(action)
                        expected = sum(p * max(_box_value(kept.child(o), a, params, cache)
                                               for a in kept.child(o).legal_actions())
                                       for o, p in kept.chance_outcomes())
                    assert got[action] == pytest.approx(expected, abs=1e-3), state.action_to_string(action)
                checked += 1
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))


def test_the_planner_with_the_optimal_table_plays_like_the_optimal_bot(tmp_path):
    # The planner's turn graph is the solver's: with the exact values as W it is the optimal policy.
    game = pyspiel.load_game(YACHT12)
    bot = TurnPlanner(game, 0, _weights(tmp_path, game))
    exact = solve("yacht12")
    bot._values[:] = exact.values
    bot._known[:] = True
    report = policy_regret(exact, game, bot, 20, seed=3)
    assert report.mean_regret == pytest.approx(0.0, abs=1e-9)


def test_start_values_average_the_network_over_the_first_roll(tmp_path):
    game = pyspiel.load_game(YAHTZEE)
    path = _weights(tmp_path, game)
    params = {k: v for k, v in np.load(path).items() if k.startswith("v/")}
    bot = TurnPlanner(game, 0, path)
    starts = _turn_starts(game, np.random.default_rng(8), 3)
    cards = np.array([_card(s) for s in starts])
    got = bot.start_values(cards[:, 0], cards[:, 1], cards[:, 2])
    np.testing.assert_allclose(got, [_start_value(s, params) for s in starts], atol=1e-3)
    assert FIRST_ROLL_PROBS.sum() == pytest.approx(1.0)


def test_bad_weights_and_games_are_refused_with_the_reason(tmp_path):
    game = pyspiel.load_game(YACHT12)
    with pytest.raises(RLFileError, match="no value network"):
        TurnPlanner(game, 0, _weights(tmp_path, game, heads=("pi",), name="pi.npz"))
    with pytest.raises(RLFileError, match="score_rewards"):
        TurnPlanner(game, 0, _weights(tmp_path, game, meaning="final return", name="final.npz"))
    with pytest.raises(RLFileError, match="trained on"):
        TurnPlanner(game, 0, _weights(tmp_path, pyspiel.load_game(YAHTZEE), name="other.npz"))
    path = _weights(tmp_path, game, name="damaged.npz")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(RLFileError):
        TurnPlanner(game, 0, path)
    with pytest.raises(ValueError, match="one player"):
        TurnPlanner(pyspiel.load_game("poker_dice(variant=yacht12,players=2)"), 0, _weights(tmp_path, game))
    with pytest.raises(ValueError, match="not the ranking game"):
        TurnPlanner(pyspiel.load_game("poker_dice(variant=ranking,players=2)"), 0, _weights(tmp_path, game))
    with pytest.raises(ValueError, match="players=1"):
        make_bot(pyspiel.load_game("poker_dice(variant=yacht12,players=2)"), "ppo_turn")


@pytest.mark.slow
def test_the_shipped_planner_is_close_to_the_optimum_on_fixed_dice():
    # The shipped PPO policy alone loses about 13 points a game to the optimum (results/rl/README.md).
    game = pyspiel.load_game(YACHT12)
    report = policy_regret(solve("yacht12"), game, make_bot(game, "ppo_turn"), 40, seed=11)
    assert report.mean_regret < 4.0


def test_the_module_example_plays_as_it_says():
    import doctest

    from gamut.solvers.poker_dice import planner

    result = doctest.testmod(planner)
    assert result.attempted > 0 and result.failed == 0
