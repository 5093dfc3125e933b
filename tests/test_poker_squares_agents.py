"""Poker Squares agents: registry, OpenSpiel play, determinism, strength against random play."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers the toolkit's games)
import gamut.solvers.poker_squares.agents  # noqa: F401  (registers the agents)
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.bots import bot_names, make_bot


def play(game, bots, seed):
    return pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)


def test_greedy_and_random_are_registered_for_poker_squares():
    game = pyspiel.load_game("poker_squares")
    assert {"greedy", "random"} <= set(bot_names(game))
    with pytest.raises(ValueError, match="greedy"):
        make_bot(pyspiel.load_game("poker_squares"), "greedy", player=0, seed=0).step(
            pyspiel.load_game("poker_squares").new_initial_state()
        )


@pytest.mark.parametrize("scoring", ["american", "english", "0;-1;-2;-3;-4;-5;-6;-7;-8;-9"])
def test_greedy_beats_random_through_evaluate_bots(scoring):
    game = pyspiel.load_game(f"poker_squares(scoring={scoring})")
    greedy = [play(game, [make_bot(game, "greedy", player=0, seed=s)], 100 + s)[0] for s in range(40)]
    random = [play(game, [make_bot(game, "random", player=0, seed=s)], 100 + s)[0] for s in range(40)]
    assert np.mean(greedy) > np.mean(random)


def test_greedy_is_seeded_and_plays_two_player_games():
    game = pyspiel.load_game("poker_squares(players=2,two_player_return=difference)")

    def returns(seed):
        bots = [make_bot(game, "greedy", player=0, seed=seed), make_bot(game, "random", player=1, seed=seed)]
        return play(game, bots, 5)

    assert returns(3) == returns(3)
    totals = [returns(s)[0] for s in range(20)]
    assert np.mean(totals) > 0  # greedy outscores random on the same cards


def test_random_agent_mean_matches_the_published_value():
    # Published: random play 14.42 (sd 7.68) American. The random agent's placements are
    # those of the kernel rollouts; 40,000 seeded games give a 95% CI of about +-0.075.
    start = np.empty(K.STATE_SIZE, np.int64)
    K.init_state(start)
    game = pyspiel.load_game("poker_squares")
    scores = K.rollout_scores(start, game.cfg, 40_000, seed=77)[:, 0]
    half = 1.96 * scores.std(ddof=1) / np.sqrt(len(scores))
    assert scores.mean() - half - 0.05 < 14.42 < scores.mean() + half + 0.05
    # And the registry's random agent through OpenSpiel agrees on a small sample.
    sample = [play(game, [make_bot(game, "random", player=0, seed=s)], s)[0] for s in range(150)]
    assert abs(np.mean(sample) - 14.42) < 4 * 7.68 / np.sqrt(len(sample))
