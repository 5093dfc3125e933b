"""Toy Nim as a pyspiel game on the toolkit's shared wrapper base."""

import numpy as np
import pyspiel

from gamut.envs.kernel_game import KernelGame, KernelState, register
from toy_nim import kernels as K


class ToyNimState(KernelState):
    def __init__(self, game):
        super().__init__(game)
        self.max_pile = game.params["max_pile"]
        self.state = K.new_state()

    def current_player(self):
        return int(K.current_player(self.state))

    def _legal_actions(self, player):
        buf = np.empty(K.MAX_TAKE, np.int64)
        return buf[:K.legal_takes(self.state, buf)].tolist()

    def chance_outcomes(self):
        return [(k, 1.0 / K.NUM_STARTS) for k in range(K.NUM_STARTS)]

    def apply(self, action):
        if self.is_chance_node():
            K.draw_pile(self.state, self.max_pile, action)
        else:
            K.take(self.state, action)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"pile {self.max_pile - action}"
        return f"take {action + 1}"

    def is_terminal(self):
        return K.current_player(self.state) == K.TERMINAL

    def returns(self):
        out = np.zeros(2)
        K.write_returns(self.state, out)
        return out.tolist()

    def __str__(self):
        return f"pile {self.state[K.S_PILE]}, player {self.state[K.S_PLAYER]} to move"


class ToyNimObserver:
    def __init__(self, max_pile):
        self.max_pile = max_pile
        self.tensor = np.zeros(K.observation_size(max_pile), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        K.write_observation(state.state, self.max_pile, self.tensor)

    def string_from(self, state, player):
        return str(state)


class ToyNimGame(KernelGame):
    short_name, long_name = "toy_nim", "Toy Nim"
    information = pyspiel.GameType.Information.PERFECT_INFORMATION
    utility = pyspiel.GameType.Utility.ZERO_SUM
    min_num_players = max_num_players = 2
    provides_information_state = False
    default_params = {"max_pile": 10}
    state_class = ToyNimState

    @staticmethod
    def check_values(p):
        if isinstance(p["max_pile"], bool) or not isinstance(p["max_pile"], int) or not 4 <= p["max_pile"] <= 30:
            raise ValueError(f"max_pile={p['max_pile']!r} must be a whole number in 4..30")
        return p

    def configure(self, p):
        return pyspiel.GameInfo(num_distinct_actions=K.MAX_TAKE, max_chance_outcomes=K.NUM_STARTS, num_players=2,
                                min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
                                max_game_length=p["max_pile"])  # at most one token a move

    def observer(self, iig_obs_type, params):
        return ToyNimObserver(self.params["max_pile"])


register(ToyNimGame)
