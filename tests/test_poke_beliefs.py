"""Belief pools of the Poke search (``gamut.solvers.poke.beliefs``): the opponent's draws explained by a model."""

from __future__ import annotations

import json

import numpy as np
import pytest

import gamut.envs  # noqa: F401  (registers the games)
from gamut.envs.loading import load_game
from gamut.envs.poke import kernels as K
from gamut.solvers.bots import make_bot
from gamut.solvers.poke.beliefs import (MAX_DRAWS, HeuristicDraws, NetworkDraws, belief_pool, draw_decisions, misses,
                                        opponent_drew)
from gamut.solvers.poke.heuristic import DEFAULT_PARAMS
from gamut.solvers.poke.nn_search import deal_prior
from gamut.solvers.poke.search import DealState
from gamut.solvers.poke.walker import information_key

GAME = "poke(mode=deal,trick_value=34.0)"
PARAMS = np.array(DEFAULT_PARAMS, dtype=np.int64)


def _heuristic_deal(seed, stop):
    """A deal played by the heuristic at both seats until ``stop(state)``; returns the states met (copies)."""
    game = load_game(GAME)
    bots = [make_bot(game, "heuristic", p, 0) for p in (0, 1)]
    rng = np.random.default_rng(seed)
    state, seen = game.new_initial_state(), []
    while not state.is_terminal() and not stop(state):
        seen.append(state.clone())
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return state, seen


def _in_tricks(state):
    return state.state[K.S_PHASE] == K.PH_TRICK


def test_draw_decisions_are_the_positions_a_replay_of_the_deal_meets():
    for seed in range(6):
        state, seen = _heuristic_deal(seed, _in_tricks)
        history = state.history()
        for player in (0, 1):
            # The slow way: every state the deal went through, kept when the player chose at a draw.
            expected = [(s.state.copy(), history[len(s.history())]) for s in seen
                        if s.state[K.S_PHASE] == K.PH_DRAW and s.current_player() == player]
            states = np.empty((MAX_DRAWS, K.STATE_SIZE), dtype=np.int64)
            actions = np.empty(MAX_DRAWS, dtype=np.int64)
            start = int(state.state[K.S_DEAL_START])
            n = draw_decisions(state.state, state.get_game().cfg, np.array(history[start:], dtype=np.int64), player,
                               states, actions)
            assert n == len(expected) >= 1
            for k, (position, action) in enumerate(expected):
                assert np.array_equal(states[k], position) and actions[k] == action


def test_the_heuristic_explains_its_own_draws_and_not_all_others():
    game = load_game(GAME)
    model = HeuristicDraws(game.cfg, PARAMS)
    wrong = HeuristicDraws(game.cfg, np.array([10, 10, 10, 10, 10], dtype=np.int64))  # always draws
    stood = 0
    for seed in range(12):
        state, _ = _heuristic_deal(seed, _in_tricks)
        sample = DealState.of(state)
        for player in (0, 1):
            assert misses(sample, player, model) == 0
            stood += misses(sample, player, wrong)
    assert stood > 0


def test_a_network_draw_model_discards_as_many_cards_as_its_best_scored_action():
    game = load_game(GAME)
    prior = deal_prior(game, "results/nn_ismcts/networks/dmc_poke_deal_tv34.npz")
    model = NetworkDraws(game.cfg, prior)
    state, _ = _heuristic_deal(1, lambda s: s.state[K.S_PHASE] == K.PH_DRAW)
    player = state.current_player()
    legal = state.legal_actions()
    best = legal[int(np.argmax(prior.scores(DealState.of(state), player, legal)))]
    assert model.discards(state.state, player) == K.popcount(best)


def test_a_pool_holds_states_of_the_searchers_information_set_best_explained_first():
    game = load_game(GAME)
    model = HeuristicDraws(game.cfg, PARAMS)
    for seed in range(4):
        state, _ = _heuristic_deal(seed, _in_tricks)
        player = state.current_player()
        root = DealState.of(state, 1 - player, PARAMS)
        assert opponent_drew(root, player)
        pool = belief_pool(root, player, np.random.default_rng(seed), 8, 40, model)
        assert len(pool) == 8
        counts = [misses(s, 1 - player, model) for s in pool]
        assert counts == sorted(counts) and counts[0] == 0
        for sample in pool:
            assert information_key(sample.state, player) == information_key(root.state, player)
        # The same generator state gives the same pool.
        again = belief_pool(root, player, np.random.default_rng(seed), 8, 40, model)
        assert all(np.array_equal(a.state, b.state) for a, b in zip(pool, again))


def test_a_pat_opponent_is_believed_to_hold_a_hand_it_would_stand_on():
    game = load_game(GAME)
    model = HeuristicDraws(game.cfg, PARAMS)
    def dealer_follows(state):
        return _in_tricks(state) and state.current_player() == state.state[K.S_DEALER]

    for seed in range(200):
        state, _ = _heuristic_deal(seed, dealer_follows)
        player = state.current_player()
        opponent = 1 - player
        if not state.is_terminal() and state.state[K.S_NDRAWS + opponent] == 0:
            break
    else:
        pytest.fail("no deal in 200 where the non-dealer stood pat")
    pool = belief_pool(DealState.of(state, opponent, PARAMS), player, np.random.default_rng(0), 16, 400, model)
    # The heuristic stands as non-dealer on two pairs or better (double_below=2), or with nothing to throw.
    from gamut.envs import hands
    from gamut.envs.poke.showdown import hand_strength

    for sample in pool:
        assert misses(sample, opponent, model) == 0
        category = hands.category_of(hand_strength(sample.state[K.S_DEALT + opponent]))
        assert category >= DEFAULT_PARAMS[0]


def test_no_pool_before_the_opponent_has_drawn():
    game = load_game(GAME)
    state, _ = _heuristic_deal(0, lambda s: s.state[K.S_PHASE] == K.PH_DRAW)
    player = state.current_player()
    assert state.state[K.S_DEALER] != player  # the non-dealer draws first
    assert belief_pool(DealState.of(state), player, np.random.default_rng(0), 4, 8,
                       HeuristicDraws(game.cfg, PARAMS)) == []
    with pytest.raises(ValueError, match="size >= 1 and tries >= size"):
        belief_pool(DealState.of(state), player, np.random.default_rng(0), 4, 3, HeuristicDraws(game.cfg, PARAMS))


def test_the_search_draws_its_determinizations_from_the_pool():
    game = load_game(GAME)
    state, _ = _heuristic_deal(2, _in_tricks)
    player = state.current_player()
    root = DealState.of(state, 1 - player, PARAMS)
    pool = belief_pool(root, player, np.random.default_rng(1), 3, 12, HeuristicDraws(game.cfg, PARAMS))
    root.with_beliefs(pool[:1], player)
    for u in (0.0, 0.5, 0.999):
        sample = root.resample_from_infostate(player, lambda: u)
        assert np.array_equal(sample.state, pool[0].state) and sample is not pool[0]
    # The other player's determinizations stay uniform.
    other = root.resample_from_infostate(1 - player, lambda: 0.25)
    assert information_key(other.state, 1 - player) == information_key(root.state, 1 - player)


@pytest.mark.parametrize("options, message", [
    ({"beliefs": -1}, "'beliefs' must be an integer >= 0"),
    ({"belief_model": "oracle"}, "'belief_model' must be one of network, heuristic"),
])
def test_bad_belief_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        make_bot(GAME, "nn_ismcts", 0, 0, weights="results/nn_ismcts/networks/dmc_poke_deal_tv34.npz", **options)


@pytest.mark.parametrize("belief_model", ["network", "heuristic"])
def test_nn_ismcts_with_beliefs_is_reproducible_and_plays_legal_moves(belief_model):
    game = load_game(GAME)
    state, _ = _heuristic_deal(3, _in_tricks)
    player = state.current_player()

    def move():
        bot = make_bot(game, "nn_ismcts", player, 5, iterations=40, beliefs=6, belief_model=belief_model,
                       weights="results/nn_ismcts/networks/dmc_poke_deal_tv34.npz")
        return bot.step(state), bot.last_search.visits

    first = move()
    assert first == move() and first[0] in state.legal_actions()


def test_the_agreement_study_counts_every_draw_of_both_seats(tmp_path):
    from gamut.experiments.studies.poke_belief_agreement import main

    out = tmp_path / "agreement.json"
    assert main(["--deals", "3", "--iterations", "5", "--seed", "1", "--pool-sizes", "2,4", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    # Each deal has at least the non-dealer's and the dealer's first draw decision.
    assert report["draw_decisions"] >= 6 and {"git_commit", "toolkit_version"} <= set(report)
    for model in ("heuristic", "network"):
        assert 0.0 <= report[model]["ci95_low"] <= report[model]["agreement"] <= report[model]["ci95_high"] <= 1.0
    assert set(report["pool_seconds"]) == {"heuristic_2", "heuristic_4", "network_2", "network_4"}
    assert all(row["n"] >= 1 and row["mean"] > 0 for row in report["pool_seconds"].values())
    for bad in (["--deals", "0"], ["--pool-sizes", "2,x"], ["--pool-sizes", "0"]):
        with pytest.raises(SystemExit):
            main([*bad, "--out", str(out)])
