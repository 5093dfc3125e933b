"""Toy Nim's batched environment: every row stepped by one compiled call on the kernels."""

import numba
import numpy as np

from gamut.envs.rng import below
from gamut.envs.vector import BatchedGame
from toy_nim import kernels as K


@numba.njit(cache=True)
def _start(i, state, max_pile, streams, trace, count, tracing):
    K.init_state(state)
    outcome = below(streams[i:i + 1], K.NUM_STARTS)
    if tracing:
        trace[i, count[i]] = outcome
        count[i] += 1
    K.draw_pile(state, max_pile, outcome)


@numba.njit(cache=True)
def _write(i, state, max_pile, obs, mask, players, work):
    players[i] = K.current_player(state)
    K.write_observation(state, max_pile, obs[i])
    mask[i, :] = False
    for k in range(K.legal_takes(state, work)):
        mask[i, work[k]] = True


@numba.njit(cache=True)
def _reset_rows(states, max_pile, streams, obs, mask, players, trace, count, tracing):
    work = np.empty(K.MAX_TAKE, np.int64)
    for i in range(states.shape[0]):
        _start(i, states[i], max_pile, streams, trace, count, tracing)
        _write(i, states[i], max_pile, obs, mask, players, work)


@numba.njit(cache=True)
def _step_rows(actions, states, max_pile, streams, obs, mask, players, rewards, terminated, returns, trace, count,
               tracing):
    work = np.empty(K.MAX_TAKE, np.int64)
    for i in range(states.shape[0]):
        K.take(states[i], actions[i])
        if K.current_player(states[i]) == K.TERMINAL:
            K.write_returns(states[i], returns[i])
            rewards[i, :] = returns[i, :]
            terminated[i] = True
            _start(i, states[i], max_pile, streams, trace, count, tracing)
        _write(i, states[i], max_pile, obs, mask, players, work)


class ToyNimVector(BatchedGame):
    game_name = "toy_nim"
    max_chance_per_step = 1

    def _setup(self):
        self.states = np.empty((self.num_envs, K.STATE_SIZE), np.int64)
        self.max_pile = self.game.params["max_pile"]

    def _reset_rows(self, parallel):
        _reset_rows(self.states, self.max_pile, self.streams, self.obs_buf, self.mask_buf, self.player_buf,
                    self.chance_trace, self.chance_count, self.tracing)

    def _step_rows(self, parallel, actions):
        _step_rows(actions, self.states, self.max_pile, self.streams, self.obs_buf, self.mask_buf, self.player_buf,
                   self.rewards_buf, self.terminated_buf, self.returns_buf, self.chance_trace, self.chance_count,
                   self.tracing)
