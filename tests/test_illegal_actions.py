"""Out-of-range and illegal action ids are refused before any kernel writes, and change nothing."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers the games)
from gamut.envs.versions import game_variants
from tests.chance import apply_sampled_chance

VARIANTS = [v for variants in game_variants().values() for v in variants]
INT64_MAX = 2**63 - 1


def _snapshot(state):
    attrs = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in vars(state).items()}
    return list(state.history()), str(state), attrs


def _assert_unchanged(before, state):
    history, text, attrs = before
    assert state.history() == history
    assert str(state) == text
    now = vars(state)
    assert now.keys() == attrs.keys()
    for key, value in attrs.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(now[key], value, err_msg=key)
        else:
            assert now[key] == value, key


def _bad_ids(game, state, rng) -> list[int]:
    legal = set() if state.is_terminal() else set(state.legal_actions())
    span = max(game.num_distinct_actions(), game.max_chance_outcomes()) + 2
    in_range = [a for a in range(span) if a not in legal]
    sampled = rng.choice(in_range, size=min(40, len(in_range)), replace=False).tolist() if in_range else []
    edges = [-2, -(2**31), -(2**63), INT64_MAX, 2**31, 2**32 + 1, 10**6,
             game.num_distinct_actions() - 1, game.num_distinct_actions(), game.max_chance_outcomes()]
    return [a for a in edges + sampled if a not in legal]


@pytest.mark.parametrize("variant", VARIANTS)
def test_bad_ids_raise_and_leave_the_state_unchanged(variant):
    game = pyspiel.load_game(variant)
    rng = np.random.default_rng(sum(map(ord, variant)))
    state = game.new_initial_state()
    checked = {"chance": 0, "decision": 0, "terminal": 0}
    step = 0
    while True:
        # Every node for the first 12 moves, then every 9th, and the terminal node.
        if step < 12 or step % 9 == 0 or state.is_terminal():
            kind = "terminal" if state.is_terminal() else "chance" if state.is_chance_node() else "decision"
            checked[kind] += 1
            for action in _bad_ids(game, state, rng):
                before = _snapshot(state)
                with pytest.raises(ValueError, match=f"action {action}"):
                    state.apply_action(action)
                _assert_unchanged(before, state)
            # Ids OpenSpiel itself refuses before the game sees them: -1 is its
            # invalid-action marker; ids outside int64 do not convert.
            for action, error in ((-1, pyspiel.SpielError), (2**63, TypeError), (-(2**63) - 1, TypeError)):
                before = _snapshot(state)
                with pytest.raises(error):
                    state.apply_action(action)
                _assert_unchanged(before, state)
        if state.is_terminal():
            break
        if state.is_chance_node():
            apply_sampled_chance(state, rng)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        step += 1
    assert checked["chance"] > 0 and checked["decision"] > 0 and checked["terminal"] == 1


def test_a_finished_poker_squares_game_refuses_every_cell():
    # Before the check, a finished game asked the kernels for the moves of the
    # pseudo-player TERMINAL (-4), which read and wrote outside the state array.
    game = pyspiel.load_game("poker_squares(players=2)")
    state = game.new_initial_state()
    rng = np.random.default_rng(5)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    before = _snapshot(state)
    for cell in range(25):
        with pytest.raises(ValueError, match="the game is over"):
            state.apply_action(cell)
    _assert_unchanged(before, state)
