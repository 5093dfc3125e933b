"""Palace Poker batched environment: N hands stepped by one compiled call.

Every row is one hand of the same game string (any variant: 2 to 10 players,
``limit`` or ``no_limit``, any stakes, stack, ``max_raises`` or
``max_turns``). A call applies the decision of the player to move in each row
(turn action, battle answer or discard), deals the chance nodes that follow
(banners, palaces, a bought card: uniform over the deck or draw pile, from the
row's own stream) until the row reaches its next decision, and writes that
position's observation tensor for the player to move, legal actions and
player. A hand that ends reports its returns (chips) and the next hand starts
in the same call.

    >>> import numpy as np
    >>> from gamut.envs.vector import make_vector
    >>> env = make_vector("palace_poker(players=4)", num_envs=2, seed=3, info_state=True)
    >>> step = env.reset()                     # banners and palaces dealt, seat 0 to act
    >>> step.obs.shape, step.info_state.shape, step.current_player.tolist()
    ((2, 830), (2, 850), [0, 0])
    >>> bool(step.legal_mask[0, 0]), bool(step.legal_mask[0, 4])   # stay is legal, call is not
    (True, False)
    >>> step = env.step(np.array([0, 1]))      # row 0 stays, row 1 folds

The rules are the kernels of ``gamut.envs.palace_poker.kernels``; the tensors
are written by ``gamut.envs.palace_poker.tensors.write_tensor``, the same
kernel as the pyspiel observer, so every entry lies in ``[0, 1]``. The
information-state tensor needs nothing beyond the state array (its action
counts are kept there).
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.hands import HAND_TABLE
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker.encoding import action_to_string
from gamut.envs.palace_poker.rollout import random_chance_card
from gamut.envs.palace_poker.tensors import write_tensor
from gamut.envs.vector import BatchedGame

# Chance nodes one call can apply: a bought card, then the next hand's deal.
# A banner seat draws at most the whole deck, and after the set-aside cards
# return at most the whole deck again (at least 11 cards of a suit unused in
# its group are then in the deck), so at most 2 * 52 cards per seat; then
# three palace cards per seat.
MAX_CHANCE_PER_CALL = 1 + L.MAX_PLAYERS * (2 * L.NUM_CARDS + L.PALACE_SIZE)


@numba.njit(cache=True, inline="always")
def _deal_row(i, states, cfg, table, streams, rewards, terminated, returns, trace, count, tracing):
    """Advance row ``i`` through chance to its next decision, finishing and restarting a hand that ended."""
    state = states[i]
    stream = streams[i:i + 1]
    while True:
        phase = state[L.S_PHASE]
        if phase == L.PH_OVER:
            n = cfg[L.C_PLAYERS]
            for p in range(n):
                returns[i, p] = state[L.S_PAYOUT + p] - state[L.S_CONTRIB + p]
                rewards[i, p] = returns[i, p]
            terminated[i] = True
            K.init_state(state, cfg)
        elif phase == L.PH_BANNER or phase == L.PH_PALACE or phase == L.PH_BUY:
            card = random_chance_card(state, stream)
            if tracing:
                trace[i, count[i]] = card
                count[i] += 1
            K.apply_action(state, cfg, card, table)
        else:
            return


@numba.njit(cache=True, inline="always")
def _write_row(i, states, cfg, scratch, obs, info, want_info, mask, player_buf):
    """Write row ``i``'s player to move, tensors and legal actions (``scratch[i]`` lists them)."""
    state = states[i]
    p = K.current_player(state)
    player_buf[i] = p
    write_tensor(state, cfg, p, True, False, obs[i])
    if want_info:
        write_tensor(state, cfg, p, True, True, info[i])
    work = scratch[i]
    n = K.legal_actions(state, cfg, work)
    mask[i, :] = False
    for k in range(n):
        mask[i, work[k]] = True


@numba.njit(cache=True, inline="always")
def _reset_row(i, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
               rewards, terminated, returns, trace, count, tracing):
    K.init_state(states[i], cfg)
    _deal_row(i, states, cfg, table, streams, rewards, terminated, returns, trace, count, tracing)
    _write_row(i, states, cfg, scratch, obs, info, want_info, mask, player_buf)


@numba.njit(cache=True, inline="always")
def _step_row(i, actions, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
              rewards, terminated, returns, trace, count, tracing):
    K.apply_action(states[i], cfg, actions[i], table)
    _deal_row(i, states, cfg, table, streams, rewards, terminated, returns, trace, count, tracing)
    _write_row(i, states, cfg, scratch, obs, info, want_info, mask, player_buf)


@numba.njit(cache=True)
def _reset_serial(states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                  rewards, terminated, returns, trace, count, tracing):
    for i in range(states.shape[0]):
        _reset_row(i, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                   rewards, terminated, returns, trace, count, tracing)


@numba.njit(cache=True, parallel=True)
def _reset_parallel(states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                    rewards, terminated, returns, trace, count, tracing):
    for i in numba.prange(states.shape[0]):
        _reset_row(i, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                   rewards, terminated, returns, trace, count, tracing)


@numba.njit(cache=True)
def _step_serial(actions, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                 rewards, terminated, returns, trace, count, tracing):
    for i in range(states.shape[0]):
        _step_row(i, actions, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                  rewards, terminated, returns, trace, count, tracing)


@numba.njit(cache=True, parallel=True)
def _step_parallel(actions, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                   rewards, terminated, returns, trace, count, tracing):
    for i in numba.prange(states.shape[0]):
        _step_row(i, actions, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                  rewards, terminated, returns, trace, count, tracing)


class PalacePokerVector(BatchedGame):
    """Batched Palace Poker (see ``gamut.envs.vector.BatchedGame`` for the options).

    Attributes
    ----------
    states : int64 (N, STATE_SIZE)
        The kernel state of each hand (``gamut.envs.palace_poker.layout``).
    """

    game_name = "palace_poker"
    max_chance_per_step = MAX_CHANCE_PER_CALL

    def _setup(self) -> None:
        n = self.num_envs
        self.states = np.empty((n, L.STATE_SIZE), np.int64)
        self._scratch = np.empty((n, self.num_actions), np.int64)

    def _buffers(self) -> tuple:
        return (self.states, self.game.cfg, HAND_TABLE, self.streams, self._scratch, self.obs_buf, self.info_buf,
                self.info_state_requested, self.mask_buf, self.player_buf, self.rewards_buf, self.terminated_buf,
                self.returns_buf, self.chance_trace, self.chance_count, self.tracing)

    def _reset_rows(self, parallel: bool) -> None:
        (_reset_parallel if parallel else _reset_serial)(*self._buffers())

    def _step_rows(self, parallel: bool, actions: np.ndarray) -> None:
        (_step_parallel if parallel else _step_serial)(actions, *self._buffers())

    def action_string(self, row: int, action: int) -> str:
        """The action's name for the player to move in ``row``, as pyspiel writes it (``bet 4 on seat 2``)."""
        return action_to_string(self.states[row], self.game.cfg, int(self.player_buf[row]), int(action))

