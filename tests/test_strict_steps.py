"""Environment steps are strict: only integer action ids, legal ones, and nothing after the end."""

import numpy as np
import pytest

import gamut
from gamut.envs.memory import physical_memory

pytest.importorskip("pettingzoo")


@pytest.mark.parametrize("action, error, words", [
    (0.7, TypeError, "integer action id .* got float 0.7"),
    ("0", TypeError, "got str '0'"),
    (True, TypeError, "got bool True"),
    (np.bool_(False), TypeError, "got bool"),
    (-1, ValueError, "action -1 is not legal here; legal actions: 0 \\(r0c0\\)"),
    (25, ValueError, "action 25 is not legal"),
])
def test_a_pettingzoo_step_takes_only_a_legal_integer_and_changes_nothing_otherwise(action, error, words):
    env = gamut.pettingzoo_env("poker_squares")
    env.reset(seed=0)
    before = env.game_state.serialize()
    with pytest.raises(error, match=words):
        env.step(action)
    assert env.game_state.serialize() == before
    env.step(np.int32(12))  # a NumPy integer is an action id
    assert env.game_state.serialize() != before


def test_stepping_a_finished_game_follows_pettingzoo_and_then_asks_for_reset():
    env = gamut.pettingzoo_env("poke(hand_size=2,num_ranks=3,num_suits=2)")
    env.reset(seed=1)
    while not env.terminations[env.agent_selection]:
        observation = env.observe(env.agent_selection)
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)  # a finished agent steps out with None only
    while env.agents:
        env.step(None)
    with pytest.raises(ValueError, match="the game is over .* call reset\\(\\)"):
        env.step(0)
    env.reset(seed=2)
    assert env.agents == env.possible_agents


def test_a_batch_beyond_this_machine_s_memory_is_refused_naming_the_memory():
    total = physical_memory()
    if total is None:
        pytest.skip("the system does not say how much memory it has")
    with pytest.raises(ValueError, match=r"num_envs=1,000,000,000,000 needs at least .* PB .* use at most [0-9,]+$"):
        gamut.make_vector("poker_squares", num_envs=10**12)
    assert gamut.make_vector("poker_squares", num_envs=8).num_envs == 8
