"""Game extraction: structure of the arrays, GameType checks, size limits."""

import numpy as np
import pyspiel
import pytest

from gamut.solvers.cfr.extract import (
    CHANCE,
    DECISION,
    TERMINAL,
    check_two_player_zero_sum,
    estimate_num_nodes,
    extract_game,
    load_game_string,
)


def _reference_walk(state, out):
    """Preorder list of (kind, player, info key, legal actions or chance outcomes, utility)."""
    if state.is_terminal():
        out.append((TERMINAL, -1, None, None, state.returns()[0]))
        return
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        out.append((CHANCE, -1, None, outcomes, 0.0))
        for action, _ in outcomes:
            _reference_walk(state.child(action), out)
        return
    player = state.current_player()
    out.append((DECISION, player, state.information_state_string(player), state.legal_actions(), 0.0))
    for action in state.legal_actions():
        _reference_walk(state.child(action), out)


@pytest.mark.parametrize("game_name", ["kuhn_poker", "leduc_poker"])
def test_arrays_match_a_recursive_walk(game_name):
    game = pyspiel.load_game(game_name)
    tree = extract_game(game, report=None)
    expected = []
    _reference_walk(game.new_initial_state(), expected)
    assert tree.num_nodes == len(expected)
    for n, (kind, player, key, branches, utility) in enumerate(expected):
        assert tree.node_kind[n] == kind
        assert tree.node_player[n] == player
        children = tree.edge_child[tree.edge_start[n]:tree.edge_start[n + 1]]
        if kind == TERMINAL:
            assert tree.node_utility[n] == utility and len(children) == 0
        elif kind == CHANCE:
            assert tree.node_infoset[n] == -1
            np.testing.assert_array_equal(tree.edge_prob[tree.edge_start[n]:tree.edge_start[n + 1]],
                                          [p for _, p in branches])
        else:
            i = tree.node_infoset[n]
            assert tree.infoset_keys[i] == key and tree.infoset_player[i] == player
            assert tree.infoset_index[key] == i
            lo, hi = tree.infoset_action_start[i], tree.infoset_action_start[i + 1]
            assert tree.infoset_actions[lo:hi].tolist() == branches
        assert np.all(tree.node_parent[children] == n)
    # Subtrees are contiguous index ranges; checked bottom-up.
    for n in range(tree.num_nodes - 1, -1, -1):
        children = tree.edge_child[tree.edge_start[n]:tree.edge_start[n + 1]]
        assert tree.subtree_end[n] == (tree.subtree_end[children[-1]] if len(children) else n + 1)


def test_kuhn_sizes_and_documented_example():
    tree = extract_game("kuhn_poker", report=None)
    assert tree.fingerprint() == {"game": "kuhn_poker()", "num_nodes": 58, "num_infosets": 12,
                                  "num_infoset_actions": 24}
    assert tree.edge_child[0:3].tolist() == [1, 20, 39]
    assert tree.node_infoset[2] == 0 and tree.infoset_keys[0] == "0"
    assert tree.infoset_actions[0:2].tolist() == [0, 1]


def test_leduc_sizes():
    tree = extract_game("leduc_poker", report=None)
    assert (tree.num_nodes, tree.num_infosets, tree.num_infoset_actions) == (9457, 936, 2184)


@pytest.mark.parametrize("game_string,problem", [
    ("kuhn_poker(players=3)", "3 players"),
    ("matrix_rps", "SIMULTANEOUS"),
    ("lewis_signaling", "GENERAL_SUM"),
])
def test_rejects_unsupported_games(game_string, problem):
    with pytest.raises(ValueError, match=problem):
        check_two_player_zero_sum(pyspiel.load_game(game_string))
    with pytest.raises(ValueError, match="two-player zero-sum"):
        extract_game(game_string, report=None)


def test_malformed_game_string_is_a_value_error():
    with pytest.raises(ValueError, match="leduc_poker\\("):
        load_game_string("leduc_poker(")
    with pytest.raises(ValueError, match="no_such_game"):
        extract_game("no_such_game", report=None)


def test_too_big_fails_early_with_advice():
    messages = []
    with pytest.raises(ValueError, match="mccfr"):
        extract_game("leduc_poker", max_nodes=1000, report=messages.append)
    assert "MB" in messages[0] and "leduc_poker" in messages[0]


def test_walk_guard_when_the_estimate_is_low():
    # The estimate (about 57) passes max_nodes=57; the exact count (58) does not.
    assert estimate_num_nodes(pyspiel.load_game("kuhn_poker")) <= 57
    with pytest.raises(ValueError, match="at least 58"):
        extract_game("kuhn_poker", max_nodes=57, report=None)


def test_estimate_is_close_and_seeded():
    game = pyspiel.load_game("leduc_poker")
    estimate = estimate_num_nodes(game, probes=2000, seed=1)
    assert 0.7 * 9457 < estimate < 1.3 * 9457
    assert estimate_num_nodes(game, seed=5) == estimate_num_nodes(game, seed=5)
