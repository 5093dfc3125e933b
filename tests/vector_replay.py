"""Replay check of a batched environment against its pyspiel game.

``replay_check(game_string, num_envs, steps, seed)`` drives ``make_vector`` with
random legal actions and replays every row through a pyspiel State with the
same chance outcomes (the environment's chance trace), comparing after every
call the observation (and information-state) tensor, legal mask, player to
move, rewards, termination and final returns exactly. ``drive(env, steps,
policy_seed)`` gives the records of such random play, for tests that compare
two runs with each other.
"""

from __future__ import annotations

import numpy as np

from gamut.envs.loading import load_game
from gamut.envs.vector import game_streams, make_vector, random_legal_actions


def drive(env, steps: int, policy_seed: int, reset_seed: int | None = None) -> list:
    """The records of ``reset(reset_seed)`` and ``steps`` calls under random legal actions
    (row i's action drawn from policy stream ``(policy_seed, i)``)."""
    policy = game_streams(policy_seed, env.num_envs)
    actions = np.zeros(env.num_envs, np.int64)
    records = [env.reset(reset_seed)]
    for _ in range(steps):
        random_legal_actions(records[-1].legal_mask, policy, actions)
        records.append(env.step(actions))
    return records


def _advance_chance(state, outcomes, row):
    """Apply the traced chance outcomes to ``state``; return the finished states' returns and the live state."""
    finished = []
    game = state.get_game()
    for outcome in outcomes:
        if state.is_terminal():
            finished.append(state.returns())
            state = game.new_initial_state()
        assert state.is_chance_node(), f"row {row}: the trace has chance outcome {outcome} at a decision node"
        legal = [a for a, _ in state.chance_outcomes()]
        assert outcome in legal, f"row {row}: traced chance outcome {outcome} is not a chance outcome here"
        state.apply_action(int(outcome))
    if state.is_terminal():  # a game that ended on its last move and restarted without chance
        finished.append(state.returns())
        state = game.new_initial_state()
    assert not state.is_chance_node() and not state.is_terminal(), f"row {row}: replay stops off a decision node"
    return finished, state


def _compare(step, states, info_state, where):
    for i, state in enumerate(states):
        player = state.current_player()
        assert step.current_player[i] == player, f"{where}, row {i}: player {step.current_player[i]} != {player}"
        mask = np.zeros(step.legal_mask.shape[1], bool)
        mask[state.legal_actions()] = True
        np.testing.assert_array_equal(step.legal_mask[i], mask, err_msg=f"{where}, row {i}: legal mask")
        np.testing.assert_array_equal(step.obs[i], np.asarray(state.observation_tensor(player), np.float32),
                                      err_msg=f"{where}, row {i}: observation")
        if info_state:
            np.testing.assert_array_equal(
                step.info_state[i], np.asarray(state.information_state_tensor(player), np.float32),
                err_msg=f"{where}, row {i}: information state")


def replay_check(game_string: str, num_envs: int = 64, steps: int = 2000, seed: int = 0,
                 info_state: bool = False, threads: int | None = None) -> int:
    """Drive and replay ``steps`` calls of ``num_envs`` games; return the number of games finished."""
    game = load_game(game_string)
    env = make_vector(game, num_envs, seed, trace=True, info_state=info_state, threads=threads)
    policy = game_streams(seed + 1, num_envs)
    actions = np.zeros(num_envs, np.int64)
    step = env.reset()
    states = []
    for i in range(num_envs):
        done, state = _advance_chance(game.new_initial_state(), env.chance_trace[i, :env.chance_count[i]], i)
        assert not done, f"row {i}: a game finished during reset"
        states.append(state)
    _compare(step, states, info_state, "reset")
    finished = 0
    for t in range(steps):
        random_legal_actions(step.legal_mask, policy, actions)
        step = env.step(actions)
        for i in range(num_envs):
            states[i].apply_action(int(actions[i]))
            done, states[i] = _advance_chance(states[i], env.chance_trace[i, :env.chance_count[i]], i)
            assert len(done) <= 1, f"step {t}, row {i}: more than one game ended in one call"
            assert bool(step.terminated[i]) == bool(done), f"step {t}, row {i}: terminated flag"
            expected = np.asarray(done[0] if done else np.zeros(game.num_players()), np.float32)
            np.testing.assert_array_equal(step.returns[i], expected, err_msg=f"step {t}, row {i}: returns")
            np.testing.assert_array_equal(step.rewards[i], expected, err_msg=f"step {t}, row {i}: rewards")
            finished += len(done)
        _compare(step, states, info_state, f"step {t}")
    return finished

