"""ISMCTS for Poke: the search stand-in state, candidate actions, compiled play-outs, the ismcts agent."""

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers poke)
from gamut.envs.poke import kernels as K
from gamut.solvers.bots import make_bot
from gamut.solvers.poke.heuristic import heuristic_action, make_params
from gamut.solvers.poke.match import deal_order, match_seeds, play_pyspiel
from gamut.solvers.poke.search import DealState, candidate_actions, information_key, play_out_returns
from tests.chance import random_move

DEAL = "poke(trick_value=34.0)"


def _random_trajectories(game, count, seed):
    """Every decision state of ``count`` random deals (pyspiel states, cloned)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                yield state.clone()
            random_move(state, rng)


@pytest.mark.parametrize("game_string", [DEAL, "poke(trick_value=34.0,follow=free)"])
@pytest.mark.slow
def test_candidates_are_legal_and_include_the_heuristics_choice(game_string):
    game = pyspiel.load_game(game_string)
    buf = np.empty(64, dtype=np.int64)
    seen = 0
    for state in _random_trajectories(game, 200, 1):
        n = candidate_actions(state.state, game.cfg, buf)
        cands = buf[:n].tolist()
        legal = state.legal_actions()
        assert cands == sorted(set(cands)) and set(cands) <= set(legal)
        assert int(heuristic_action(state.state, game.cfg, make_params())) in cands
        seen += 1
    assert seen > 1500


def test_deal_state_follows_the_pyspiel_state():
    game = pyspiel.load_game(DEAL)
    rng = np.random.default_rng(2)
    for _ in range(50):
        state = game.new_initial_state()
        light = DealState.of(state)
        while not state.is_terminal():
            if state.is_chance_node():
                assert light.chance_outcomes() == state.chance_outcomes()
                action = state.chance_outcomes()[int(rng.integers(len(state.chance_outcomes())))][0]
            else:
                assert set(light.legal_actions()) <= set(state.legal_actions())
                action = light.legal_actions()[int(rng.integers(len(light.legal_actions())))]
            assert light.current_player() == state.current_player()
            state.apply_action(action)
            light.apply_action(action)
            assert np.array_equal(light.state, state.state) and light.history() == state.history()
        assert light.is_terminal() and light.returns() == state.returns()


@pytest.mark.slow
def test_resampled_states_keep_the_searchers_information():
    game = pyspiel.load_game(DEAL)
    sampler = pyspiel.UniformProbabilitySampler(3, 0.0, 1.0)
    for k, state in enumerate(_random_trajectories(game, 40, 3)):
        player = state.current_player()
        light = DealState.of(state, 1 - player, make_params())
        for _ in range(5):
            sample = light.resample_from_infostate(player, sampler)
            assert sample.information_state_string(player) == information_key(state.state, player)
            full = game.new_initial_state()
            for action in sample.history():
                full.apply_action(action)
            assert full.information_state_string(player) == state.information_state_string(player)
            # The sample's array is the compiled replay's own: the same as replaying its history action by action.
            assert np.array_equal(full.state, sample.state)


def test_the_opponent_model_moves_inside_the_search_state():
    game = pyspiel.load_game(DEAL)
    state = game.new_initial_state()
    for card in deal_order(game.cfg, 4, 0)[:10]:
        state.apply_action(int(card))
    light = DealState.of(state, 1, make_params())
    light.apply_action(K.STAND)  # seat 0 stands; seat 1 (modelled) acts at once
    assert light.current_player() in (pyspiel.PlayerId.CHANCE, 0)


def test_play_outs_are_seeded_and_zero_sum():
    game = pyspiel.load_game(DEAL)
    state = game.new_initial_state()
    for card in deal_order(game.cfg, 9, 0)[:10]:
        state.apply_action(int(card))
    a = play_out_returns(state.state, game.cfg, 34.0, 5, count=8)
    assert np.array_equal(a, play_out_returns(state.state, game.cfg, 34.0, 5, count=8))
    assert a[0] == -a[1]
    assert not np.array_equal(a, play_out_returns(state.state, game.cfg, 34.0, 6, count=8))


def test_ismcts_agent_plays_rubbers_reproducibly():
    game = pyspiel.load_game("poke(mode=game)")

    def bots():
        return [make_bot(game, "heuristic", 0, 0), make_bot(game, "ismcts", 1, 7, iterations=20)]

    seed = int(match_seeds(5, 1)[0])
    assert play_pyspiel(game, bots(), seed) == play_pyspiel(game, bots(), seed)
