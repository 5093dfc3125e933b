"""Poker Squares agents, registered with the toolkit's agent registry (``gamut.solvers.bots``).

- ``greedy``: puts each card in the empty cell that most raises the points of
  its row and column as they stand (partial lines valued by the pairs, trips
  and quads they hold), ties broken at random (``kernels.greedy_cell``).
- ``random``: the registry's generic uniformly random agent plays Poker
  Squares as well; its placements are those of ``kernels.rollout_scores``
  without ``greedy``, whose American mean the tests check against the
  published 14.42.

Both work for every point system: the kernels score with the game's points.

    >>> import pyspiel, gamut.envs
    >>> from gamut.solvers.bots import make_bot
    >>> import gamut.solvers.poker_squares.agents
    >>> game = pyspiel.load_game("poker_squares")
    >>> bot = make_bot(game, "greedy", player=0, seed=1)
"""

from __future__ import annotations

import pyspiel

from gamut.envs.hands import HAND_TABLE
from gamut.envs.rng import rng_state
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.bots import register_bot


class GreedyBot(pyspiel.Bot):
    """Greedy placement by immediate row-plus-column points (see the module docstring)."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int):
        pyspiel.Bot.__init__(self)
        if game.get_type().short_name != "poker_squares":
            raise ValueError(f"the greedy Poker Squares agent cannot play {game.get_type().short_name}")
        self._cfg = game.cfg
        self._player = player
        self._rng = rng_state(seed)

    def player_id(self) -> int:
        return self._player

    def restart_at(self, state) -> None:
        """Nothing to reset: the bot keeps no state between moves."""

    def step(self, state) -> int:
        if state.current_player() != self._player:
            raise ValueError(f"greedy bot of player {self._player} asked to move for player {state.current_player()}")
        work = state.state.copy()  # greedy_cell tries cells in place and restores them
        return int(K.greedy_cell(work, self._player, self._cfg, HAND_TABLE, self._rng))


register_bot(
    "greedy",
    "poker_squares",
    lambda game, player, seed: GreedyBot(game, player, seed),
    "places each card where its row and column gain the most points as they stand (ties at random)",
)
