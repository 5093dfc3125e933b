"""OpenSpiel's Python MCTS as an agent factory: UCT constant 2, one random roll-out per leaf.

A game's agent table names :func:`make_mcts_bot` for the games whose chance
and turns it can search in the open (the poker-dice ``mcts`` agent); the
search sees the whole state, so it suits perfect-information games only.
"""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

UCT_C = 2.0


def make_mcts_bot(game: pyspiel.Game, player: int, seed: int, simulations: int) -> pyspiel.Bot:
    """Registry factory: an ``MCTSBot`` of ``simulations`` per move, seeded by ``seed``.

    ``player`` is not needed: OpenSpiel's MCTS plays whoever is to move.
    """
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    return mcts.MCTSBot(game, UCT_C, simulations, evaluator, random_state=rng)
