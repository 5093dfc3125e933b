"""Scoring Poker Squares agents on seeded deals (the same deals for every agent).

A deal is the order of the 25 cards turned over; ``deals(seed, n)`` fixes
``n`` deals from ``seed`` independently of any agent, so two agents evaluated
with the same seed meet the same cards (a paired comparison).
"""

from __future__ import annotations

import time

import numpy as np
import pyspiel

from gamut.envs.poker_squares import kernels as K


def deals(seed: int, n: int) -> np.ndarray:
    """``n`` seeded deals: int64 (n, 25), card ids in the order they are turned over.

    Examples
    --------
    >>> d = deals(7, 3)
    >>> d.shape, bool((np.sort(d, axis=1)[:, 1:] > np.sort(d, axis=1)[:, :-1]).all())
    ((3, 25), True)
    """
    if n < 1:
        raise ValueError(f"the number of deals must be >= 1, got {n}")
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0x5051,)))
    return np.argsort(rng.random((n, 52)), axis=1)[:, : K.NUM_CELLS].astype(np.int64)


def play_deal(game: pyspiel.Game, bot: pyspiel.Bot, deal: np.ndarray) -> tuple[int, np.ndarray]:
    """Play one one-player game on ``deal`` with ``bot``; return (score, final grid int64 (25,))."""
    if game.num_players() != 1:
        raise ValueError("deal evaluation plays the one-player game")
    state = game.new_initial_state()
    bot.restart_at(state)
    nxt = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(deal[nxt]))
            nxt += 1
        else:
            state.apply_action(bot.step(state))
    return int(state.returns()[0]), state.state[K.S_GRID:K.S_GRID + K.NUM_CELLS].copy()


def evaluate(game: pyspiel.Game, bot: pyspiel.Bot, the_deals: np.ndarray) -> dict:
    """Scores (int64 (n,)), final grids (int64 (n, 25)) and seconds per game of ``bot`` on the deals."""
    scores = np.empty(len(the_deals), dtype=np.int64)
    grids = np.empty((len(the_deals), K.NUM_CELLS), dtype=np.int64)
    seconds = np.empty(len(the_deals), dtype=np.float64)
    for i, deal in enumerate(the_deals):
        start = time.perf_counter()
        scores[i], grids[i] = play_deal(game, bot, deal)
        seconds[i] = time.perf_counter() - start
    return {"scores": scores, "grids": grids, "seconds": seconds}
