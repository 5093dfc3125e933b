"""Batched poker dice: N games of one variant stepped by one compiled call.

:class:`PokerDiceVector` runs every variant and parameter set of
``poker_dice`` (scorecard games with any number of players and joker rule, the
ranking game with or without ``zero_sum``) on the game's own kernels
(:mod:`gamut.envs.poker_dice.kernels`): ``apply_action`` for the action and
every roll, ``sample_roll`` for the rolls (each rerolled die shows a uniform
face, so a roll follows ``dice.TRANSITION[keep]``, the probabilities of
``chance_outcomes()``), ``legal_actions`` for the mask, ``returns`` at the end
and ``encoding.encode_observation`` for the tensor the pyspiel observer writes.

    >>> import numpy as np
    >>> from gamut.envs.vector import make_vector
    >>> env = make_vector("poker_dice(variant=yacht12,players=1)", num_envs=2, seed=3)
    >>> step = env.reset()
    >>> step.obs.shape, step.legal_mask.shape, env.obs_low
    ((2, 41), (2, 477), -1.0)
    >>> (step.obs[0, 1:7] * 5).tolist()               # row 0's dice 1,2,2,3,3 (counts / 5)
    [1.0, 2.0, 2.0, 0.0, 0.0, 0.0]
    >>> step = env.step(np.full(2, 462 + 11))         # record both first rolls in chance
    >>> np.round(step.obs[:, 34] * 298).tolist()      # scores (scaled by yacht12's 298)
    [11.0, 24.0]

A call applies at most two rolls in a row: in the ranking game the third roll
ends the turn and the next seat's first roll follows (or the game ends, resets
and rolls for its first seat).
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.poker_dice import kernels as K
from gamut.envs.poker_dice.encoding import encode_observation, observation_scales
from gamut.envs.poker_dice.game import action_to_string
from gamut.envs.vector import BatchedGame

# The per-row functions never allocate, so they skip reference counting (which costs
# atomic operations on every array view), and are inlined into the drivers: a call
# would pass some hundred words of array structs per row (measured a third slower).
_row_kernel = numba.njit(cache=True, _nrt=False, inline="always")


@_row_kernel
def _advance(i, state, cfg, p, bx, rd, streams, returns_buf, rewards_buf, terminated_buf,
             tracing, chance_trace, chance_count):
    """Roll until row ``i`` waits for a player; a finished game reports its returns and restarts."""
    while state[K.S_PHASE] != K.PH_DECIDE:
        if state[K.S_PHASE] == K.PH_OVER:
            K.returns(state, cfg, returns_buf[i])
            for j in range(returns_buf.shape[1]):
                rewards_buf[i, j] = returns_buf[i, j]
            terminated_buf[i] = True
            K.init_state(state, cfg, p)
        roll = K.sample_roll(state[K.S_KEEP], streams[i:i + 1])
        if tracing:
            chance_trace[i, chance_count[i]] = roll
            chance_count[i] += 1
        K.apply_action(state, cfg, p, bx, rd, roll)


@_row_kernel
def _write_outputs(i, state, cfg, p, bx, rd, scales, obs_buf, mask_buf, player_buf, legal, allowed):
    """Observation, legal mask and player to move of row ``i`` (at a decision node)."""
    player_buf[i] = state[K.S_PLAYER]
    encode_observation(state, cfg, p, scales, obs_buf[i])
    count = K.legal_actions(state, cfg, p, bx, rd, legal, allowed)
    mask_buf[i, :] = False
    for j in range(count):
        mask_buf[i, legal[j]] = True


@_row_kernel
def _reset_row(i, states, cfg, p, bx, rd, scales, streams, obs_buf, mask_buf, player_buf,
               rewards_buf, terminated_buf, returns_buf, tracing, chance_trace, chance_count,
               legal, allowed):
    state = states[i]
    K.init_state(state, cfg, p)
    _advance(i, state, cfg, p, bx, rd, streams, returns_buf, rewards_buf, terminated_buf,
             tracing, chance_trace, chance_count)
    _write_outputs(i, state, cfg, p, bx, rd, scales, obs_buf, mask_buf, player_buf, legal, allowed)


@_row_kernel
def _step_row(i, action, states, cfg, p, bx, rd, scales, streams, obs_buf, mask_buf, player_buf,
              rewards_buf, terminated_buf, returns_buf, tracing, chance_trace, chance_count,
              legal, allowed):
    state = states[i]
    K.apply_action(state, cfg, p, bx, rd, action)
    _advance(i, state, cfg, p, bx, rd, streams, returns_buf, rewards_buf, terminated_buf,
             tracing, chance_trace, chance_count)
    _write_outputs(i, state, cfg, p, bx, rd, scales, obs_buf, mask_buf, player_buf, legal, allowed)


# Drivers: ``bounds[c]:bounds[c + 1]`` are the rows of chunk ``c``, which uses the
# scratch rows ``legal[c]`` and ``allowed[c]``; the serial driver has one chunk.
@_row_kernel
def _reset_serial(bounds, states, cfg, p, bx, rd, scales, streams, obs_buf, mask_buf, player_buf,
                  rewards_buf, terminated_buf, returns_buf, tracing, chance_trace, chance_count,
                  legal, allowed):
    for c in range(bounds.shape[0] - 1):
        for i in range(bounds[c], bounds[c + 1]):
            _reset_row(i, states, cfg, p, bx, rd, scales, streams, obs_buf, mask_buf, player_buf,
                       rewards_buf, terminated_buf, returns_buf, tracing, chance_trace,
                       chance_count, legal[c], allowed[c])


@numba.njit(cache=True, parallel=True)
def _reset_parallel(bounds, states, cfg, p, bx, rd, scales, streams, obs_buf, mask_buf,
                    player_buf, rewards_buf, terminated_buf, returns_buf, tracing, chance_trace,
                    chance_count, legal, allowed):
    for c in numba.prange(bounds.shape[0] - 1):
        for i in range(bounds[c], bounds[c + 1]):
            _reset_row(i, states, cfg, p, bx, rd, scales, streams, obs_buf, mask_buf, player_buf,
                       rewards_buf, terminated_buf, returns_buf, tracing, chance_trace,
                       chance_count, legal[c], allowed[c])


@_row_kernel
def _step_serial(bounds, actions, states, cfg, p, bx, rd, scales, streams, obs_buf, mask_buf,
                 player_buf, rewards_buf, terminated_buf, returns_buf, tracing, chance_trace,
                 chance_count, legal, allowed):
    for c in range(bounds.shape[0] - 1):
        for i in range(bounds[c], bounds[c + 1]):
            _step_row(i, actions[i], states, cfg, p, bx, rd, scales, streams, obs_buf, mask_buf,
                      player_buf, rewards_buf, terminated_buf, returns_buf, tracing, chance_trace,
                      chance_count, legal[c], allowed[c])


@numba.njit(cache=True, parallel=True)
def _step_parallel(bounds, actions, states, cfg, p, bx, rd, scales, streams, obs_buf, mask_buf,
                   player_buf, rewards_buf, terminated_buf, returns_buf, tracing, chance_trace,
                   chance_count, legal, allowed):
    for c in numba.prange(bounds.shape[0] - 1):
        for i in range(bounds[c], bounds[c + 1]):
            _step_row(i, actions[i], states, cfg, p, bx, rd, scales, streams, obs_buf, mask_buf,
                      player_buf, rewards_buf, terminated_buf, returns_buf, tracing, chance_trace,
                      chance_count, legal[c], allowed[c])


class PokerDiceVector(BatchedGame):
    """Batched ``poker_dice`` of any variant (see :class:`gamut.envs.vector.BatchedGame`).

    Observations are the pyspiel tensors (``encoding.encode_observation``), in
    ``[-1, 1]``: the bonus-group total and the score of ``classic`` and
    ``classic_banked`` can be negative; every other entry lies in ``[0, 1]``.
    The game has perfect information and no information-state tensor.
    """

    game_name = "poker_dice"
    max_chance_per_step = 2

    def _setup(self) -> None:
        game = self.game
        tables = game.tables
        self._cfg = game.cfg
        self._p, self._bx, self._rd = tables.params, tables.box_data, tables.roll_data
        self._scales = observation_scales(tables)
        # The kernels read and write the fields of the game's players only, so a row
        # holds just those (96 bytes for one player instead of STATE_SIZE's 376).
        width = K.S_PLAYERS + K.PLAYER_FIELDS * self.num_players
        self.states = np.zeros((self.num_envs, width), np.int64)
        chunks = min(self.threads or 1, self.num_envs)
        self._bounds = np.linspace(0, self.num_envs, chunks + 1).round().astype(np.int64)
        self._legal = np.zeros((chunks, K.NUM_ACTIONS), np.int64)
        self._allowed = np.zeros((chunks, tables.num_boxes), np.bool_)

    def _buffers(self):
        return (self.states, self._cfg, self._p, self._bx, self._rd, self._scales, self.streams,
                self.obs_buf, self.mask_buf, self.player_buf, self.rewards_buf, self.terminated_buf,
                self.returns_buf, self.tracing, self.chance_trace, self.chance_count, self._legal,
                self._allowed)

    def _reset_rows(self, parallel: bool) -> None:
        driver = _reset_parallel if parallel else _reset_serial
        driver(self._bounds, *self._buffers())

    def _step_rows(self, parallel: bool, actions: np.ndarray) -> None:
        driver = _step_parallel if parallel else _step_serial
        driver(self._bounds, actions, *self._buffers())

    def action_string(self, row: int, action: int) -> str:
        return action_to_string(self.game, int(self.player_buf[row]), int(action))



def running_score(game):
    """Poker dice's declared running score: ``env -> float64 (N,)``, each row's scorecard total so far.

    Every one-player variant is a scorecard game whose return is the final
    total (box points and bonuses), so the total so far is the score built up.
    Example: after Threes scored 9 and Sixes 24, the running score is 33.
    Raises ``ValueError`` for two or more players (the return is not one score).
    """
    if game.num_players() != 1:
        raise ValueError(f"{game} has {game.num_players()} players; a running score needs a one-player game")
    column = K.S_PLAYERS + K.F_SCORE
    return lambda env: env.states[:, column].astype(np.float64)
