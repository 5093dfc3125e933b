"""Poker Squares: conformance, scripted deals, kernels vs reference, random-play validation, OpenSpiel bots."""

from __future__ import annotations

import numba
import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers the toolkit's games)
from gamut.envs import hands
from gamut.envs.cards import parse_cards
from gamut.envs.poker_squares import game as G
from gamut.envs.poker_squares import kernels as K
from gamut.envs.versions import game_variants
from tests.chance import apply_sampled_chance
from tests.test_hands import reference_value

AMERICAN = np.array(G.POINT_SYSTEMS["american"])
ENGLISH = np.array(G.POINT_SYSTEMS["english"])

# Four royal flushes in rows 0-3 and four nines in row 4: 4 x 100 + 50 (row 4) + 5 x 50 (columns).
RECORD_GRID = "As Ks Qs Js Ts  Ah Kh Qh Jh Th  Ad Kd Qd Jd Td  Ac Kc Qc Jc Tc  9s 9h 9d 9c 2c"


def play_deal(state, cards, cells):
    """Scripted standard deal: each card is dealt, then every player puts it in the given cell."""
    for card, cell in zip(cards, cells):
        state.apply_action(int(card))
        while not state.is_chance_node() and not state.is_terminal():
            state.apply_action(int(cell))
    return state


@pytest.mark.parametrize("variant", game_variants()["poker_squares"] + ("poker_squares(scoring=-5;1;2;3;4;5;6;7;8;9)",))
def test_random_sim_test(variant):
    pyspiel.random_sim_test(pyspiel.load_game(variant), num_sims=10, serialize=True, verbose=False)


@pytest.mark.parametrize("scoring, expected", [("american", 700), ("english", 4 * 30 + 16 + 5 * 16)])
def test_scripted_record_grid(scoring, expected):
    state = pyspiel.load_game(f"poker_squares(scoring={scoring})").new_initial_state()
    for cell, card in enumerate(parse_cards(RECORD_GRID).tolist()):
        assert state.current_player() == pyspiel.PlayerId.CHANCE
        state.apply_action(card)
        assert state.current_player() == 0 and state.legal_actions() == list(range(cell, 25))
        assert state.returns() == [0.0]
        state.apply_action(cell)
    assert state.is_terminal() and state.returns() == [float(expected)]


def test_open_and_two_player_turn_order():
    cards = parse_cards(RECORD_GRID).tolist()
    state = pyspiel.load_game("poker_squares(variant=open,players=2,two_player_return=difference)").new_initial_state()
    for card in cards:
        assert state.is_chance_node()
        state.apply_action(card)
    # Player 1 mirrors player 0 except for swapping the cells of Ts and 9s (breaks a royal flush).
    for i in range(25):
        assert state.current_player() == 0 and state.observation_tensor(0)[1056 - 156 + cards[i]] == 1
        state.apply_action(i)
        assert state.current_player() == 1
        state.apply_action({4: 20, 20: 4}.get(i, i))
    assert state.is_terminal()
    # Player 1: row 0 As Ks Qs Js 9s flush (20), three royal rows, row 4 Ts 9h 9d 9c 2c trips (10);
    # columns 0-3 quads (4 x 50), column 4 9s Th Td Tc 2c trips (10).
    p1 = 20 + 3 * 100 + 10 + 4 * 50 + 10
    assert state.returns() == [700.0 - p1, p1 - 700.0]
    standard = pyspiel.load_game("poker_squares(players=2)").new_initial_state()
    standard.apply_action(cards[0])
    assert standard.current_player() == 0
    standard.apply_action(3)
    assert standard.current_player() == 1
    standard.apply_action(7)
    assert standard.is_chance_node()
    assert standard.observation_string(1).startswith("grid p1:\n.. .. .. .. ..\n.. .. As .. ..")


def test_illegal_actions_raise_naming_the_legal_ones():
    state = pyspiel.load_game("poker_squares").new_initial_state()
    state.apply_action(51)
    state.apply_action(12)
    with pytest.raises(ValueError, match="51"):
        state.apply_action(51)  # already dealt
    state.apply_action(0)
    with pytest.raises(ValueError, match="legal actions"):
        state.apply_action(12)  # occupied cell
    with pytest.raises(ValueError, match="variant"):
        pyspiel.load_game("poker_squares(variant=shuffled)")
    with pytest.raises(ValueError, match="scoring"):
        pyspiel.load_game("poker_squares(scoring=1;2;3)")


def test_observation_tensor_layout_example():
    game = pyspiel.load_game("poker_squares")
    state = game.new_initial_state()
    state.apply_action(parse_cards("As")[0])
    obs = np.array(state.observation_tensor(0))
    assert obs[450 + 51] == 1 and obs[450 + 52 + 52 + 51] == 0 and obs[450 + 104:].sum() == 51
    state.apply_action(12)
    grids = np.array(state.observation_tensor(0))[:450].reshape(25, 18)
    assert grids[12, 12] == 1 and grids[12, 13 + 3] == 1 and grids[12, 17] == 0
    assert grids[:, 17].sum() == 24
    info = np.array(state.information_state_tensor(0))
    assert info[606:].reshape(25, 52)[0, 51] == 1 and info[606:].sum() == 1


# ---------------------------------------------------------------- kernels vs reference
@numba.njit
def _scores_of_grids(grids, cfg, table, out):
    state = np.full(K.STATE_SIZE, -1, np.int64)
    for g in range(grids.shape[0]):
        state[K.S_GRID : K.S_GRID + K.NUM_CELLS] = grids[g]
        out[g] = K.grid_score(state, 0, cfg, table)


def random_grids(rng, n, blanks=0):
    grids = np.argsort(rng.random((n, 52)), axis=1)[:, :25].astype(np.int64)
    for _ in range(blanks):
        grids[np.arange(n), rng.integers(0, 25, size=n)] = -1
    return grids


@pytest.mark.parametrize("points", [AMERICAN, ENGLISH, np.array([-3, 1, 4, -1, 5, 9, -2, 6, 5, 3])])
def test_full_grid_scores_match_vectorised_reference(points):
    rng = np.random.default_rng(int(points.sum()) + 100)
    grids = random_grids(rng, 100_000)
    cfg = K.make_config(1, False, False, points)
    ours = np.empty(len(grids), np.int64)
    _scores_of_grids(grids, cfg, hands.HAND_TABLE, ours)
    cells = grids.reshape(-1, 5, 5)
    lines = np.concatenate([cells, cells.transpose(0, 2, 1)], axis=1).reshape(-1, 5)
    expected = points[hands.categories(hands.strengths5(lines))].reshape(-1, 10).sum(axis=1)
    assert np.array_equal(ours, expected)


def test_partial_grid_scores_match_plain_python_reference():
    rng = np.random.default_rng(5)
    grids = random_grids(rng, 2_000, blanks=12)
    ours = np.empty(len(grids), np.int64)
    _scores_of_grids(grids, K.make_config(1, False, False, AMERICAN), hands.HAND_TABLE, ours)
    for grid, score in zip(grids.tolist(), ours.tolist()):
        rows = [grid[5 * r : 5 * r + 5] for r in range(5)] + [grid[c::5] for c in range(5)]
        expected = sum(AMERICAN[reference_value([c for c in line if c >= 0])[0]] for line in rows)
        assert score == expected


# ---------------------------------------------------------------- rollouts
def test_random_play_matches_the_published_american_mean():
    # Published: random play averages 14.42 (sd 7.68). 40,000 games: 95% CI half-width ~0.075.
    state = np.empty(K.STATE_SIZE, np.int64)
    K.init_state(state)
    scores = K.rollout_scores(state, K.make_config(1, False, False, AMERICAN), 40_000, seed=2026)[:, 0]
    half = 1.96 * scores.std(ddof=1) / np.sqrt(len(scores))
    assert abs(scores.mean() - 14.42) < half + 0.05
    assert 7.3 < scores.std() < 8.1


def test_rollouts_are_seeded_and_start_from_any_state():
    game = pyspiel.load_game("poker_squares(players=2)")
    state = game.new_initial_state()
    state = play_deal(state, parse_cards("As Ks").tolist(), [0, 1])
    cfg = game.cfg
    a = K.rollout_scores(state.state, cfg, 50, seed=1, greedy=True)
    assert np.array_equal(a, K.rollout_scores(state.state, cfg, 50, seed=1, greedy=True))
    assert not np.array_equal(a, K.rollout_scores(state.state, cfg, 50, seed=2, greedy=True))
    assert a.shape == (50, 2)
    single = np.empty(K.STATE_SIZE, np.int64)
    K.init_state(single)
    greedy = K.rollout_scores(single, K.make_config(1, False, False, AMERICAN), 2_000, seed=3, greedy=True)
    random = K.rollout_scores(single, K.make_config(1, False, False, AMERICAN), 2_000, seed=3)
    assert greedy.mean() > random.mean() + 20  # greedy placement is far better than random


# ---------------------------------------------------------------- OpenSpiel bots
def test_python_mcts_and_evaluate_bots_run():
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("poker_squares(players=2,two_player_return=difference)")
    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=8, evaluator=evaluator, random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            apply_sampled_chance(state, rng)
        else:
            state.apply_action(bot.step(state))
    assert len(state.returns()) == 2 and sum(state.returns()) == 0
    solitaire = pyspiel.load_game("poker_squares(variant=open)")
    one_player_bot = mcts.MCTSBot(solitaire, uct_c=2.0, max_simulations=8, evaluator=evaluator, random_state=rng)
    (score,) = pyspiel.evaluate_bots(solitaire.new_initial_state(), [one_player_bot], 3)
    assert 0 <= score <= solitaire.max_utility()
    for name in ("poker_squares", "poker_squares(players=2)"):
        g = pyspiel.load_game(name)
        bots = [pyspiel.make_uniform_random_bot(p, 7 + p) for p in range(g.num_players())]
        returns = pyspiel.evaluate_bots(g.new_initial_state(), bots, 11)
        assert len(returns) == g.num_players()


def test_benchmark_runs_on_a_tiny_size():
    import argparse

    from gamut.benchmarks import poker_squares as bench

    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    result = bench.run(parser.parse_args(["--games", "500", "--api-games", "2", "--repeats", "1"]))
    assert result["ours_games_per_s"] > 0 and result["api_games_per_s"] > 0
    assert result["ratio"] == pytest.approx(result["ours_games_per_s"] / result["api_games_per_s"])


@pytest.mark.slow
def test_branch_and_price_benchmark_runs_on_a_tiny_size():
    import argparse

    from gamut.benchmarks import poker_squares_bnp as bench
    from gamut.solvers.poker_squares.bounds import anneal
    from gamut.solvers.poker_squares.duality import duality_bound
    from gamut.solvers.poker_squares.evaluation import deals
    from gamut.solvers.poker_squares.penalty_table import load_penalty_values

    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    result = bench.run(parser.parse_args(["--deals", "1", "--nodes", "3", "--scoring", "english"]))
    assert result["ours_primal_median_cpu_s_a_deal"] > 0 and result["baseline_dual_median_cpu_s_a_deal"] > 0
    # "Ours" is what the upper-bound experiment runs: duality_bound with its default (primal) side LPs.
    cfg = pyspiel.load_game("poker_squares(scoring=english)").cfg
    deal = deals(777, 1)[0]
    grid = anneal(deal, cfg, 20_000, 1, seed=0)[1]
    expected = duality_bound(deal, cfg, load_penalty_values("english", "fitted"), result["penalty_scale"], grid,
                             inner="bnp", nodes=3)
    assert result["mean_upper_primal"] == expected["upper"]
    # The baseline's bound is valid too: never below an arrangement of the same relaxed problem.
    assert result["mean_upper_dual"] >= expected["value"] - 1e-9


def test_information_state_has_perfect_recall_and_win_returns():
    game = pyspiel.load_game("poker_squares(players=2)")
    # The same grids reached with the two cards dealt in the other order: same observation,
    # different information state (the deal order is remembered).
    a = play_deal(game.new_initial_state(), parse_cards("As Kd").tolist(), [0, 1])
    b = game.new_initial_state()
    for card, cell in ((parse_cards("Kd")[0], 1), (parse_cards("As")[0], 0)):
        b.apply_action(int(card))
        b.apply_action(cell)
        b.apply_action(cell)
    for player in (0, 1):
        assert a.observation_string(player) == b.observation_string(player)
        assert a.observation_tensor(player) == b.observation_tensor(player)
        assert a.information_state_string(player) != b.information_state_string(player)
        assert a.information_state_tensor(player) != b.information_state_tensor(player)
    # Finish with player 1 copying player 0 except one swap that costs points: player 0 wins.
    state = game.new_initial_state()
    for i, card in enumerate(parse_cards(RECORD_GRID).tolist()):
        state.apply_action(card)
        state.apply_action(i)
        state.apply_action({4: 20, 20: 4}.get(i, i))
    assert state.returns() == [1.0, -1.0]
