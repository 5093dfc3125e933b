"""Bots: the optimal bot, played through the game, scores what the DP says it expects."""

import numpy as np
import pyspiel
import pytest

import gamut.envs.poker_dice.game  # noqa: F401  (registers poker_dice)
from gamut.solvers.bots import bot_names, make_bot
from gamut.solvers.poker_dice.solution import solve
from tests.chance import play_game


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMUT_CACHE_DIR", str(tmp_path))


def _play(game, bot, games, seed):
    rng = np.random.default_rng(seed)
    totals = [play_game(game, rng, bot.step).returns()[0] for _ in range(games)]
    return np.mean(totals), np.std(totals, ddof=1) / np.sqrt(games)


# Other variants: tests/test_poker_dice_simulate.py checks that this bot's policy equals
# the Numba one and that the Numba games score the DP expectation.
@pytest.mark.parametrize("variant, games", [("yacht12", 800)])
@pytest.mark.slow
def test_optimal_bot_scores_the_dp_expectation(variant, games, tmp_path):
    game = pyspiel.load_game(f"poker_dice(variant={variant},players=1)")
    expected = solve(variant, cache_dir=tmp_path).expected_score
    mean, se = _play(game, make_bot(game, "optimal"), games, seed=1)
    assert abs(mean - expected) < 4 * se, (mean, se, expected)


@pytest.mark.slow
def test_greedy_is_worse_than_optimal_and_names_are_checked(tmp_path):
    game = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    optimal = solve("yacht12", cache_dir=tmp_path).expected_score
    mean, se = _play(game, make_bot(game, "greedy"), 400, seed=2)
    assert mean + 4 * se < optimal
    with pytest.raises(ValueError, match="unknown agent 'smart' for poker_dice"):
        make_bot(game, "smart")
    ranking = pyspiel.load_game("poker_dice(variant=ranking,players=2)")
    with pytest.raises(ValueError, match="cannot play .*not the ranking game"):
        make_bot(ranking, "optimal")
    assert make_bot(ranking, "random", seed=3).step(ranking.new_initial_state().child(0)) in \
        ranking.new_initial_state().child(0).legal_actions()


def test_dice_agents_are_in_the_toolkit_registry():
    yacht = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    assert {"optimal", "greedy", "mcts", "random"} <= set(bot_names(yacht))
    ranking = pyspiel.load_game("poker_dice(variant=ranking,players=2)")
    assert "optimal" not in bot_names(ranking) and "mcts" in bot_names(ranking)
    bot = make_bot(yacht, "optimal", player=0, seed=1)
    assert pyspiel.evaluate_bots(yacht.new_initial_state(), [bot], 1)[0] > 0
