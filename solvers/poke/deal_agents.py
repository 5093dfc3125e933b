"""Agents that play single Poke deals, seated in games and rubbers: every deal is played as a deal of its own.

The learned Poke agents (``ppo``, ``nfsp``: networks trained on
``poke(mode=deal)``) refuse rubbers, whose observations they were not trained
on. :class:`PerDealBot` seats such an agent in a rubber: at each of its
moves, the current deal is replayed in the one-deal game with the rubber's
deck (``gamut.solvers.poke.policies.current_deal``; seats swap when seat 0
deals, since a one-deal game always has seat 1 dealing) and the agent, made
once for each seat of the one-deal game, answers there. Action ids do not
depend on seats, so its answer applies unchanged. The agent sees nothing of
the score sheet, as in training.
"""

from __future__ import annotations

import pyspiel

from gamut.solvers.bots import make_bot
from gamut.solvers.poke.heuristic import require_poke
from gamut.solvers.poke.policies import current_deal, deal_game_for
from gamut.solvers.seat_bots import SeatBot


class PerDealBot(SeatBot):
    """A one-deal agent of the registry playing every deal of a Poke game or rubber (module docstring)."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, agent: str, trick_value: float = 0.0,
                 **options):
        super().__init__(player)
        require_poke(game)
        self._deal_game = deal_game_for(game, trick_value)
        self.agent = agent
        self._bots = [make_bot(self._deal_game, agent, seat, seed + seat, **options) for seat in (0, 1)]

    def inform_action(self, state, player, action) -> None:
        """Nothing to remember: each move replays the deal so far."""

    def step(self, state) -> int:
        deal, seat = current_deal(self._deal_game, state, self._player)
        return int(self._bots[seat].step(deal))
