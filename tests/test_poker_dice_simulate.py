"""Optimal games in Numba: the same policy as the advisor, and the DP's mean score."""

import numpy as np
import pyspiel
import pytest

import gamut.envs.poker_dice.game  # noqa: F401  (registers poker_dice)
from gamut.envs import dice
from gamut.envs.poker_dice import kernels as K
from gamut.solvers.bots import make_bot
from gamut.solvers.poker_dice.dp import turn_levels
from gamut.solvers.poker_dice.simulate import optimal_action, optimal_scores
from gamut.solvers.poker_dice.solution import solve
from tests.chance import play_game


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMUT_CACHE_DIR", str(tmp_path))


@pytest.mark.parametrize("variant", ["yacht12", "classic_banked", "yahtzee"])
@pytest.mark.slow
def test_numba_policy_equals_the_advisor(variant, tmp_path):
    game = pyspiel.load_game(f"poker_dice(variant={variant},players=1)")
    solution = solve(variant, cache_dir=tmp_path)
    bot = make_bot(game, "optimal")  # solves into the private cache, as solve() above
    t = solution.tables
    rng = np.random.default_rng(3)
    ev = np.zeros(dice.NUM_KEEPS)
    allowed = np.zeros(t.num_boxes, dtype=np.bool_)

    def choose(state):
        st = state.state
        G, L2, _ = turn_levels(t, solution.layout, solution.values,
                               int(st[K.S_PLAYERS + K.F_MASK]),
                               int(st[K.S_PLAYERS + K.F_TOTAL]))
        ours = optimal_action(st, t.params, t.box_data, t.roll_data, solution.values,
                              solution.layout.offsets, G, L2, ev, allowed)
        assert ours == bot.step(state)
        return int(ours)

    for _ in range(8):
        play_game(game, rng, choose)


@pytest.mark.parametrize("variant, games", [
    ("yacht12", 20_000),
    pytest.param("classic", 10_000, marks=pytest.mark.slow),
    pytest.param("classic_banked", 2_000, marks=pytest.mark.slow),
    pytest.param("yahtzee", 10_000, marks=pytest.mark.slow),
])
def test_mean_of_optimal_games_is_the_expected_score(variant, games, tmp_path):
    solution = solve(variant, cache_dir=tmp_path)
    scores = optimal_scores(solution, games, seed=5)
    se = scores.std(ddof=1) / np.sqrt(games)
    assert abs(scores.mean() - solution.expected_score) < 4 * se
    assert np.array_equal(scores[:50], optimal_scores(solution, 50, seed=5))
    with pytest.raises(ValueError, match="num_games"):
        optimal_scores(solution, 0)
