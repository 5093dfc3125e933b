"""Toy Nim's own agent: the winning rule (leave a multiple of four tokens), registered by name."""

import pyspiel

from gamut.solvers.bots import register_bot
from toy_nim import kernels as K


class MultipleOfFourBot(pyspiel.Bot):
    def __init__(self, player):
        pyspiel.Bot.__init__(self)
        self._player = player

    def player_id(self):
        return self._player

    def restart_at(self, state):
        pass

    def step(self, state):
        pile = int(state.state[K.S_PILE])
        return pile % 4 - 1 if pile % 4 else 0  # take pile % 4 tokens when that wins, else one


register_bot("multiple_of_four", ("toy_nim",), lambda game, player, seed: MultipleOfFourBot(player),
             "takes the tokens that leave a multiple of four (the winning rule)")
