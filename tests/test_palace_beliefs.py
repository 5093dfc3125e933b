"""Palace belief pools: the turns a network judges, its batched choices, and the deals a pool keeps."""

from __future__ import annotations

import numpy as np
import pytest

import gamut.envs.palace_poker.game  # noqa: F401  (registers palace_poker)
from gamut.envs.hands import HAND_TABLE
from gamut.envs.loading import load_game
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker.resample import MAX_TRIES, resample_history
from gamut.solvers.palace_poker import heuristic as H
from gamut.solvers.palace_poker import search as S
from gamut.solvers.palace_poker.beliefs import network_pool, turn_decisions
from gamut.solvers.palace_poker.nn_search import palace_prior
from tests.chance import decision_positions, random_move

GAME = "palace_poker(players=4)"


def _turns(game, history, searcher):
    """Reference: replay through pyspiel and read each other seat's turn from the state's own API."""
    state = game.new_initial_state()
    rows = []
    for action in history:
        p = state.current_player()
        if p >= 0 and p != searcher and state.state[L.S_PHASE] == L.PH_TURN:
            rows.append((np.asarray(state.information_state_tensor(p), np.float32), p, state.legal_actions(),
                         int(action)))
        state.apply_action(int(action))
    return rows


def _buffers(game, length):
    return (np.empty((length, game.information_state_tensor_size()), np.float32), np.empty(length, np.int64),
            np.empty((length, int(game.cfg[L.C_NUM_ACTIONS])), np.bool_), np.empty(length, np.int64))


def test_turn_decisions_are_the_other_seats_turns_as_pyspiel_shows_them():
    game = load_game(GAME)
    rng = np.random.default_rng(3)
    found = 0
    for _ in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            random_move(state, rng)
        history = np.asarray(state.history(), np.int64)
        for searcher in range(4):
            tensors, players, masks, actions = _buffers(game, len(history))
            n = turn_decisions(history, game.cfg, searcher, HAND_TABLE, tensors, players, masks, actions)
            expected = _turns(game, history, searcher)
            assert n == len(expected)
            for k, (tensor, p, legal, action) in enumerate(expected):
                np.testing.assert_array_equal(tensors[k], tensor)
                assert players[k] == p and np.flatnonzero(masks[k]).tolist() == legal and actions[k] == action
            found += n
    assert found > 20


@pytest.mark.parametrize("weights", ["", "results/rl/dmc_palace_poker_4.npz"])
def test_best_actions_are_the_best_scored_legal_actions_one_position_at_a_time(weights):
    game, states = decision_positions(GAME, 12, 5)
    network = palace_prior(game, weights)
    tensors = np.stack([np.asarray(s.information_state_tensor(s.current_player()), np.float32) for s in states])
    players = np.array([s.current_player() for s in states])
    masks = np.zeros((len(states), game.num_distinct_actions()), np.bool_)
    for k, s in enumerate(states):
        masks[k, s.legal_actions()] = True
    expected = [s.legal_actions()[int(np.argmax(network.scores(s, s.current_player(), s.legal_actions())))]
                for s in states]
    assert network.best_actions(tensors, players, masks).tolist() == expected
    assert network.best_actions(tensors[:0], players[:0], masks[:0]).shape == (0,)


def test_a_network_pool_keeps_each_place_the_deal_the_models_charge_least():
    game, states = decision_positions(GAME, 8, 17, min_moves=30, max_moves=90)
    network = palace_prior(game)
    params = H.make_params()
    tries, seeds = 4, [101, 202, 303]
    judged = 0
    for state in states:
        p = state.current_player()
        root = S.ModelledState.from_history(game, state.history(), p, params, 2)
        pool = network_pool(root, p, seeds, tries, network)
        history = np.asarray(state.history(), np.int64)
        assert len(pool) == len(seeds)
        for seed, position in zip(seeds, pool):
            charges, positions = [], []
            for k in range(tries):
                deal = np.empty_like(history)
                assert resample_history(history, game.cfg, p, seed + k, MAX_TRIES, deal, HAND_TABLE) >= 0
                charge = S.model_disagreements(deal, game.cfg, p, params, seed + k, HAND_TABLE, len(deal) + 1, False)
                replay = game.new_initial_state()
                for action in deal:
                    mover = replay.current_player()
                    if mover >= 0 and mover != p and replay.state[L.S_PHASE] == L.PH_TURN:
                        legal = replay.legal_actions()
                        charge += legal[int(np.argmax(network.scores(replay, mover, legal)))] != action
                        judged += 1
                    replay.apply_action(int(action))
                charges.append(charge)
                positions.append(replay.state.copy())
            np.testing.assert_array_equal(position, positions[int(np.argmin(charges))])
            check = S.ModelledState.from_history(game, state.history(), p, params, 2)
            check.state[:] = position
            assert check.information_state_string(p) == root.information_state_string(p)
    assert judged > 50
