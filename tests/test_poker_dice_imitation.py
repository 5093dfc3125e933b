"""The imitation agent of poker dice: exact targets against a slow expectimax, training, resume, shipped weights."""

import json

import gamut.envs  # noqa: F401  (registers the games)
import numpy as np
import pyspiel
import pytest
from gamut.envs.poker_dice import kernels as K
from gamut.experiments.cli import main
from gamut.solvers.poker_dice.solution import solve

from tests.chance import apply_sampled_chance

pytest.importorskip("jax")

from gamut.solvers.poker_dice.imitation import (
    ImitationTrainer,
    OptionValues,
    make_config,
    option_values,
    soft_targets,
)

YACHT12 = "poker_dice(variant=yacht12,players=1)"
YAHTZEE = "poker_dice(variant=yahtzee,players=1)"
TINY = {"num_envs": 8, "rollout": 4, "hidden": "16", "minibatches": 2}


def _after_box(solution, state, action, before: int) -> float:
    """Points of recording plus the optimal value of the next turn's card, read through pyspiel."""
    after = state.child(action)
    if after.is_terminal():
        return float(after.returns()[0] - before)
    base = K.S_PLAYERS
    return (int(after.state[base + K.F_SCORE]) - before
            + solution.value(int(after.state[base + K.F_MASK]), int(after.state[base + K.F_TOTAL]),
                             int(after.state[base + K.F_AUX])))


def _slow_value(solution, state, action, before: int) -> float:
    """Expectimax of one action to the end of the turn through pyspiel children (the slow, obvious way)."""
    if action >= K.BOX_BASE:
        return _after_box(solution, state, action, before)
    rolled = state.child(action)
    return sum(prob * max(_slow_value(solution, rolled.child(outcome), a, before)
                          for a in rolled.child(outcome).legal_actions())
               for outcome, prob in rolled.chance_outcomes())


def _decisions(game, rng, rolls: int, count: int, turns_before: int):
    """``count`` states after roll ``rolls`` of a turn, each reached by random moves after ``turns_before`` turns."""
    found = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                apply_sampled_chance(state, rng)
                continue
            if int(state.state[K.S_ROUND]) >= turns_before and int(state.state[K.S_ROLLS]) == rolls:
                found.append(state)
                break
            # Record at once until the wanted turn, then reroll until the wanted roll.
            legal = state.legal_actions()
            boxes = [a for a in legal if a >= K.BOX_BASE]
            keeps = [a for a in legal if a < K.BOX_BASE]
            state.apply_action(int(rng.choice(boxes if int(state.state[K.S_ROUND]) < turns_before else keeps)))
    return found


@pytest.mark.parametrize("game_string, name, rolls, turns_before", [
    (YACHT12, "yacht12", 3, 5), (YACHT12, "yacht12", 2, 9), (YAHTZEE, "yahtzee", 3, 7), (YAHTZEE, "yahtzee", 2, 11),
])
def test_option_values_equal_a_slow_expectimax_through_pyspiel(game_string, name, rolls, turns_before):
    solution = solve(name)
    game = pyspiel.load_game(game_string)
    # After the second roll every keep costs a pass over its rolls and theirs: one state keeps the test short.
    for state in _decisions(game, np.random.default_rng(rolls + turns_before), rolls, 2 if rolls == 3 else 1,
                            turns_before):
        q = option_values(solution, game, state.state[None, :K.S_PLAYERS + K.PLAYER_FIELDS])[0]
        legal = state.legal_actions()
        assert np.flatnonzero(np.isfinite(q)).tolist() == legal
        before = int(state.state[K.S_PLAYERS + K.F_SCORE])
        slow = {a: _slow_value(solution, state, a, before) for a in legal}
        for a in legal:
            assert q[a] == pytest.approx(slow[a], abs=1e-9)
        assert max(slow, key=slow.get) == int(np.argmax(q)) or slow[int(np.argmax(q))] == max(slow.values())


def test_option_values_after_the_first_roll_equal_the_solution_s_options():
    solution = solve("yahtzee")
    game = pyspiel.load_game(YAHTZEE)
    names = list(game.box_names)
    from gamut.envs import dice

    for state in _decisions(game, np.random.default_rng(3), 1, 4, 6):
        q = option_values(solution, game, state.state[None, :K.S_PLAYERS + K.PLAYER_FIELDS])[0]
        st = state.state
        options = solution.options(int(st[K.S_PLAYERS + K.F_MASK]), int(st[K.S_PLAYERS + K.F_TOTAL]),
                                   int(st[K.S_PLAYERS + K.F_AUX]), int(st[K.S_ROLL]), 2)
        expected = {K.BOX_BASE + names.index(o["box"]) if o["action"] == "box" else dice.keep_id(o["keep"]):
                    o["value"] for o in options}
        assert sorted(expected) == np.flatnonzero(np.isfinite(q)).tolist()
        for a, v in expected.items():
            assert q[a] == pytest.approx(v, abs=1e-9)


def test_turn_levels_kept_per_row_give_the_same_values_as_fresh_ones():
    from gamut.envs.vector import make_vector

    solution = solve("yacht12")
    env = make_vector(YACHT12, 16, seed=5)
    step = env.reset()
    kept = OptionValues(solution, env.game, 16)
    rng = np.random.default_rng(0)
    for _ in range(40):
        q = kept(env.states)
        assert np.array_equal(q, option_values(solution, env.game, env.states))
        assert np.array_equal(np.isfinite(q), step.legal_mask)
        legal = [np.flatnonzero(row) for row in step.legal_mask]
        step = env.step(np.array([rng.choice(a) for a in legal]))


def test_soft_targets_put_most_weight_on_the_best_action_and_none_on_illegal_ones():
    values = np.array([[10.0, 9.0, 0.0, 50.0], [1.0, 1.0, 3.0, -np.inf]])
    mask = np.array([[True, True, True, False], [True, True, False, False]])
    t = soft_targets(values, mask, 0.5)
    assert t.sum(axis=1) == pytest.approx([1.0, 1.0])
    assert t[0, 3] == 0 and t[1, 2] == 0 and t[1, 3] == 0
    assert t[0, 0] / t[0, 1] == pytest.approx(np.exp(2.0), rel=1e-5)
    assert t[1, 0] == pytest.approx(0.5)


def test_option_values_refuse_other_games():
    solution = solve("yacht12")
    with pytest.raises(ValueError, match="one-player poker_dice scorecard"):
        OptionValues(solution, "poker_dice(variant=yacht12,players=2)", 4)
    with pytest.raises(ValueError, match="not the solved variant"):
        OptionValues(solution, YAHTZEE, 4)
    with pytest.raises(ValueError, match="states must have shape"):
        OptionValues(solution, YACHT12, 4)(np.zeros((3, 12), np.int64))


def test_config_refuses_unknown_settings_and_bad_values():
    with pytest.raises(ValueError, match="no setting 'gamma'"):
        make_config({"gamma": 1.0})
    with pytest.raises(ValueError, match="temperature must be > 0"):
        make_config({"temperature": 0.0})
    with pytest.raises(ValueError, match="sample_share"):
        make_config({"sample_share": 1.5})
    assert make_config({"hidden": "64x32"}).hidden == (64, 32)


def _trainer(seed=0):
    return ImitationTrainer(YACHT12, seed, make_config(TINY), solution=solve("yacht12"))


@pytest.mark.slow
def test_training_is_deterministic_and_resumes_to_identical_parameters(tmp_path):
    from gamut.solvers.rl.checkpoint import load_checkpoint, save_checkpoint

    straight = _trainer()
    for _ in range(3):
        straight.train_update()
    again = _trainer()
    for _ in range(3):
        again.train_update()
    first = _trainer()
    first.train_update()
    save_checkpoint(tmp_path / "c.npz", first)
    resumed = _trainer()
    load_checkpoint(tmp_path / "c.npz", resumed)
    resumed.train_update()
    resumed.train_update()
    for key, value in straight.params.items():
        assert np.array_equal(value, again.params[key])
        assert np.array_equal(value, resumed.params[key])
    other = _trainer(seed=1)
    other.train_update()
    assert not np.array_equal(other.params["pi/w0"], first.params["pi/w0"])


def test_training_moves_the_policy_toward_the_optimal_choices():
    trainer = ImitationTrainer(YACHT12, 0, make_config({"num_envs": 64, "rollout": 8, "hidden": "64"}),
                               solution=solve("yacht12"))
    from gamut.envs.vector import make_vector
    from gamut.solvers.rl.evaluation import network_input

    env = make_vector(YACHT12, 256, seed=9)
    step = env.reset()
    q = option_values(trainer.solution, env.game, env.states)
    x = network_input(step, env.game)

    def regret():
        chosen = trainer.act_greedy(x, step.legal_mask)
        return float(np.mean(q.max(axis=1) - q[np.arange(256), chosen]))

    untrained = regret()
    for _ in range(30):
        trainer.train_update()
    assert regret() < 0.5 * untrained


@pytest.mark.slow
def test_cli_trains_resumes_and_the_agent_plays_the_weights(tmp_path, capsys):
    out = tmp_path / "run"
    sets = [w for s in ("num_envs=8", "rollout=4", "hidden=16", "minibatches=2") for w in ("--set", s)]
    assert main(["dice", "imitate", "--variant", "yacht12", "--steps", "64", "--out", str(out),
                 "--eval-games", "4", "--final-games", "4", "--json", "--quiet", *sets]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["steps"] == 64
    assert main(["dice", "imitate", "--variant", "yacht12", "--steps", "64", "--out", str(out), "--quiet",
                 *sets]) == 2
    assert "already holds a checkpoint" in capsys.readouterr().err
    assert main(["dice", "imitate", "--variant", "yacht12", "--steps", "128", "--out", str(out), "--resume",
                 "--eval-games", "4", "--final-games", "4", "--json", "--quiet", *sets]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["steps"] == 128
    assert main(["dice", "imitate", "--variant", "yacht12", "--steps", "64", "--out", str(tmp_path / "x"),
                 "--set", "gamma=1", "--quiet"]) == 2
    assert "no setting 'gamma'" in capsys.readouterr().err
    assert main(["dice", "regret", "--variant", "yacht12", "--agent", "imitation", "--option",
                 f"weights={out / 'weights.npz'}", "--games", "2", "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["games"] == 2


@pytest.mark.parametrize("variant", ["yacht12", "yahtzee"])
def test_shipped_weights_load_and_play_a_whole_game(variant):
    from gamut.solvers.bots import make_bot
    from gamut.solvers.rl.checkpoint import load_weights
    from gamut.solvers.rl.shipped import shipped_path

    game = pyspiel.load_game(f"poker_dice(variant={variant},players=1)")
    _, header = load_weights(shipped_path("imitation", game), game, "imitation")
    assert header["policy_head"] == "flat" and header["policy"] == "greedy" and "not RL" in header["targets"]
    bot = make_bot(game, "imitation", player=0, seed=0)
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    while not state.is_terminal():
        if state.is_chance_node():
            apply_sampled_chance(state, rng)
        else:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    assert state.returns()[0] > 0


def test_the_agent_refuses_the_ranking_game_and_variants_without_weights():
    from gamut.solvers.bots import make_bot

    with pytest.raises(ValueError, match="ranking game"):
        make_bot("poker_dice(variant=ranking,players=2)", "imitation")
    with pytest.raises(ValueError, match="no imitation weights ship"):
        make_bot("poker_dice(variant=classic,players=1)", "imitation")


def test_play_takes_the_agent_as_hint(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("hint\nquit\n"))
    assert main(["play", "poker_dice(variant=yacht12,players=1)", "--hint", "imitation"]) == 0
    assert "hint: " in capsys.readouterr().out
