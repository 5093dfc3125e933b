"""Belief pools of the Poke search (``gamut.solvers.poke.beliefs``): the opponent's draws explained by a model."""

from __future__ import annotations

import json

import numpy as np
import pytest

import gamut.envs  # noqa: F401  (registers the games)
from gamut.envs.loading import load_game
from gamut.envs.poke import kernels as K
from gamut.solvers.bots import make_bot
from gamut.solvers.poke.beliefs import (MAX_DRAWS, HeuristicDraws, KeptBeliefs, NetworkDraws, advance, belief_pool,
                                        draw_decisions, misses, opponent_drew)
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
    ({"belief_keep": 1}, "belief_keep"),
])
def test_bad_belief_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        make_bot(GAME, "nn_ismcts", 0, 0, weights="results/nn_ismcts/networks/dmc_poke_deal_tv34.npz", **options)


@pytest.mark.parametrize("belief_model, belief_keep", [("network", False), ("heuristic", False), ("network", True)])
def test_nn_ismcts_with_beliefs_is_reproducible_and_plays_legal_moves(belief_model, belief_keep):
    game = load_game(GAME)
    start, _ = _heuristic_deal(3, _in_tricks)
    player = start.current_player()

    def deal():
        # The rest of the deal against the heuristic: a kept pool is carried from move to move.
        bot = make_bot(game, "nn_ismcts", player, 5, iterations=40, beliefs=6, belief_model=belief_model,
                       belief_keep=belief_keep, weights="results/nn_ismcts/networks/dmc_poke_deal_tv34.npz")
        other = make_bot(game, "heuristic", 1 - player, 0)
        state, moves = start.clone(), []
        while not state.is_terminal():
            if state.current_player() == player:
                action = bot.step(state)
                assert action in state.legal_actions()
                moves.append((action, bot.last_search.visits))
            else:
                action = other.step(state)
            state.apply_action(action)
        return moves

    first = deal()
    assert len(first) >= 2 and first == deal()


def test_the_agreement_study_counts_every_draw_of_both_seats(tmp_path):
    from gamut.experiments.studies.poke_belief_agreement import main

    out = tmp_path / "agreement.json"
    assert main(["--deals", "3", "--iterations", "5", "--seed", "1", "--pool-sizes", "2,4", "--kept-sizes", "4",
                 "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    # Each deal has at least the non-dealer's and the dealer's first draw decision.
    assert report["draw_decisions"] >= 6 and {"git_commit", "toolkit_version"} <= set(report)
    for model in ("heuristic", "network"):
        assert 0.0 <= report[model]["ci95_low"] <= report[model]["agreement"] <= report[model]["ci95_high"] <= 1.0
    assert set(report["pool_seconds"]) == {"heuristic_2", "heuristic_4", "network_2", "network_4"}
    assert all(row["n"] >= 1 and row["mean"] > 0 for row in report["pool_seconds"].values())
    kept = report["kept_pools"]["4"]
    assert kept["first"]["n"] == 3 and kept["later"]["n"] >= 3 and 0.0 <= kept["carried"]["mean"] <= 1.0
    for bad in (["--deals", "0"], ["--pool-sizes", "2,x"], ["--pool-sizes", "0"], ["--kept-sizes", "-1"]):
        with pytest.raises(SystemExit):
            main([*bad, "--out", str(out)])


def test_batched_draw_models_answer_as_one_position_at_a_time():
    game = load_game(GAME)
    models = [HeuristicDraws(game.cfg, PARAMS),
              NetworkDraws(game.cfg, deal_prior(game, "results/nn_ismcts/networks/dmc_poke_deal_tv34.npz"))]
    positions = {0: [], 1: []}
    for seed in range(8):
        _, seen = _heuristic_deal(seed, _in_tricks)
        for s in seen:
            if s.state[K.S_PHASE] == K.PH_DRAW:
                positions[s.current_player()].append(s.state.copy())
    for model in models:
        for player, states in positions.items():
            one_by_one = [model.discards(state, player) for state in states]
            assert model.discards_many(np.array(states), player).tolist() == one_by_one


def _kept_pool_walk(seed, size, model, rng_seed=0):
    """Play a heuristic deal; at each trick decision of the seat to move first in tricks, ask a kept pool."""
    game = load_game(GAME)
    state, _ = _heuristic_deal(seed, _in_tricks)
    player = state.current_player()
    bots = [make_bot(game, "heuristic", p, 0) for p in (0, 1)]
    kept = KeptBeliefs(size, 4 * size, model)
    rng = np.random.default_rng(rng_seed)
    pools = []
    while not state.is_terminal():
        if state.current_player() == player:
            root = DealState.of(state, 1 - player, PARAMS)
            pools.append((root.state.copy(), kept.pool(root, player, rng)))
        state.apply_action(bots[state.current_player()].step(state))
    return player, pools


def test_a_kept_pool_follows_the_deal_within_the_searchers_information_set():
    game = load_game(GAME)
    model = HeuristicDraws(game.cfg, PARAMS)
    carried = 0
    for seed in range(6):
        player, pools = _kept_pool_walk(seed, 12, model)
        assert len(pools) >= 2
        for (root_state, pool), (_, previous) in zip(pools[1:], pools[:-1]):
            assert 6 <= len(pool) <= 12
            for sample in pool:
                assert information_key(sample.state, player) == information_key(root_state, player)
            # States carried over keep their opponent's dealt cards; count how many were carried.
            dealt = {int(s.state[K.S_DEALT + 1 - player]) for s in previous}
            carried += sum(int(s.state[K.S_DEALT + 1 - player]) in dealt for s in pool)
    assert carried > 0
    # The same generator gives the same pools.
    first, again = _kept_pool_walk(2, 12, model, 5)[1], _kept_pool_walk(2, 12, model, 5)[1]
    assert all(np.array_equal(a.state, b.state) for (_, p), (_, q) in zip(first, again) for a, b in zip(p, q))


def test_advance_drops_a_sample_whose_opponent_lacks_a_card_it_showed():
    game = load_game(GAME)
    model = HeuristicDraws(game.cfg, PARAMS)
    for seed in range(40):
        state, _ = _heuristic_deal(seed, _in_tricks)
        # The player to move leads the first trick; the opponent's reply is face up when it wins the trick.
        player = state.current_player()
        start = state.state.copy()
        root = DealState.of(state)
        pool = belief_pool(root, player, np.random.default_rng(seed), 24, 96, model)
        bots = [make_bot(game, "heuristic", p, 0) for p in (0, 1)]
        state.apply_action(bots[player].step(state))
        reply = bots[1 - player].step(state)
        actions = state.history()[len(root.history()):] + [reply]
        state.apply_action(reply)
        if state.state[K.S_TRICK_WINNER] != 1 - player:
            continue
        shown = int(state.state[K.S_FOLLOW])
        kept = [advance(s, start, actions, player, np.random.default_rng(0)) for s in pool]
        for sample, after in zip(pool, kept):
            holds = (int(sample.state[K.S_HAND + 1 - player]) & shown) == shown
            assert (after is not None) == holds
            if after is not None:
                assert information_key(after.state, player) == information_key(state.state, player)
        if any(k is None for k in kept) and any(k is not None for k in kept):
            return
    pytest.fail("no deal in 40 where a face-up reply split the pool")
