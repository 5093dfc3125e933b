"""Poker Squares batched environment: N games stepped by one compiled call.

Every row is one game of the same game string (any variant: American or
English scoring, standard or open deal, one or two players). A call applies
the placement of the player to move in each row, deals (chance, uniform over
the unseen cards, from the row's own stream) until the row reaches its next
placement, and writes that position's observation, legal cells and player.
A game that ends reports its returns, keeps its final state
(``final_states``; ``final_obs_buf`` is player 0's observation of it) and
starts again in the same call.

    >>> import numpy as np
    >>> from gamut.envs.vector import make_vector
    >>> env = make_vector("poker_squares(variant=open)", num_envs=2, seed=3)
    >>> step = env.reset()                         # each row: 25 cards dealt, first to place
    >>> int(step.obs[0, 450:502].sum()), int(step.legal_mask[0].sum())
    (1, 25)
    >>> step = env.step(np.array([12, 0]))         # row 0: centre cell, row 1: top left

The rules are the kernels of ``gamut.envs.poker_squares.kernels``; the tensors
are written by ``gamut.envs.poker_squares.observer.write_tensor``, the same
kernel as the pyspiel observer, so every entry is 0 or 1.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.cards import NUM_CARDS
from gamut.envs.hands import HAND_TABLE
from gamut.envs.poker_squares import kernels as K
from gamut.envs.poker_squares.game import cell_string
from gamut.envs.poker_squares.observer import update_after_placement, write_tensor
from gamut.envs.rng import below
from gamut.envs.vector import BatchedGame


# The per-row code is inlined into the range loops, which run without Numba's
# reference counting (``_nrt=False``): they allocate nothing, and counting the
# references of every row view cost more than the step itself.
_inlined_row_code = numba.njit(cache=True, inline="always", _nrt=False)
_row_kernel = numba.njit(cache=True, _nrt=False)
_CHUNKS_PER_THREAD = 4


@_inlined_row_code
def _deal_row(i, state, stream, work, cfg, table, rewards, terminated, returns, final_states, trace, count, tracing):
    """Deal row ``i`` (``state``, ``stream``: its views) to its next placement; True if its game ended and restarted.

    ``work`` (int64 (52,), the row's scratch) receives the unseen cards.
    """
    restarted = False
    while True:
        p = K.current_player(state, cfg)
        if p == K.TERMINAL:
            K.returns(state, cfg, table, returns[i])
            for q in range(returns.shape[1]):
                rewards[i, q] = returns[i, q]
            terminated[i] = True
            for k in range(state.shape[0]):  # no slice assignment: it may allocate a temporary
                final_states[i, k] = state[k]
            K.init_state(state)
            restarted = True
        elif p == K.CHANCE:
            n = K.unseen_cards(state, work)
            card = work[below(stream, n)]
            if tracing:
                trace[i, count[i]] = card
                count[i] += 1
            K.deal_card(state, card)
        else:
            return restarted


@_inlined_row_code
def _write_mask(i, state, p, work, mask):
    n = K.legal_cells(state, p, work)
    for a in range(mask.shape[1]):
        mask[i, a] = False
    for k in range(n):
        mask[i, work[k]] = True


@_inlined_row_code
def _write_row(i, state, work, cfg, obs, info, want_info, mask, player_buf):
    """Write row ``i``'s player to move, tensors (from scratch) and legal cells."""
    p = K.current_player(state, cfg)
    player_buf[i] = p
    write_tensor(state, cfg, p, False, obs[i])
    if want_info:
        write_tensor(state, cfg, p, True, info[i])
    _write_mask(i, state, p, work, mask)


@_inlined_row_code
def _reset_row(i, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
               rewards, terminated, returns, final_states, trace, count, tracing):
    state, stream, work = states[i], streams[i:i + 1], scratch[i]
    K.init_state(state)
    _deal_row(i, state, stream, work, cfg, table, rewards, terminated, returns, final_states, trace, count, tracing)
    _write_row(i, state, work, cfg, obs, info, want_info, mask, player_buf)


@_inlined_row_code
def _step_row(i, actions, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
              rewards, terminated, returns, final_states, trace, count, tracing):
    state, stream, work = states[i], streams[i:i + 1], scratch[i]
    p = player_buf[i]
    cell = actions[i]
    placed, dealt = state[K.S_NUM_PLACED + p], state[K.S_NUM_DEALT]
    K.place_card(state, p, cell)
    if _deal_row(i, state, stream, work, cfg, table, rewards, terminated, returns, final_states, trace, count,
                 tracing) or cfg[K.C_PLAYERS] != 1:
        _write_row(i, state, work, cfg, obs, info, want_info, mask, player_buf)
        return
    # One player, same game: the previous tensors are still in the buffers; change what moved.
    update_after_placement(state, cell, placed, dealt, False, obs[i])
    if want_info:
        update_after_placement(state, cell, placed, dealt, True, info[i])
    _write_mask(i, state, 0, work, mask)


@_row_kernel
def _reset_range(first, stop, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                 rewards, terminated, returns, final_states, trace, count, tracing):
    """Reset rows ``first .. stop - 1`` one after the other."""
    for i in range(first, stop):
        _reset_row(i, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                   rewards, terminated, returns, final_states, trace, count, tracing)


@_row_kernel
def _step_range(first, stop, actions, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                rewards, terminated, returns, final_states, trace, count, tracing):
    """Step rows ``first .. stop - 1`` one after the other."""
    for i in range(first, stop):
        _step_row(i, actions, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                  rewards, terminated, returns, final_states, trace, count, tracing)


# The serial drivers step every row in one range; the parallel ones split the
# rows into ``chunks`` ranges stepped on the Numba threads (rows are
# independent, so the numbers are the same).
@numba.njit(cache=True)
def _reset_serial(states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf, rewards,
                  terminated, returns, final_states, trace, count, tracing):
    _reset_range(0, states.shape[0], states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                 rewards, terminated, returns, final_states, trace, count, tracing)


@numba.njit(cache=True, parallel=True)
def _reset_parallel(chunks, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf, rewards,
                    terminated, returns, final_states, trace, count, tracing):
    n = states.shape[0]
    for c in numba.prange(chunks):
        _reset_range(c * n // chunks, (c + 1) * n // chunks, states, cfg, table, streams, scratch, obs, info,
                     want_info, mask, player_buf, rewards, terminated, returns, final_states, trace, count, tracing)


@numba.njit(cache=True)
def _step_serial(actions, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf, rewards,
                 terminated, returns, final_states, trace, count, tracing):
    _step_range(0, states.shape[0], actions, states, cfg, table, streams, scratch, obs, info, want_info, mask,
                player_buf, rewards, terminated, returns, final_states, trace, count, tracing)


@numba.njit(cache=True, parallel=True)
def _step_parallel(chunks, actions, states, cfg, table, streams, scratch, obs, info, want_info, mask, player_buf,
                   rewards, terminated, returns, final_states, trace, count, tracing):
    n = states.shape[0]
    for c in numba.prange(chunks):
        _step_range(c * n // chunks, (c + 1) * n // chunks, actions, states, cfg, table, streams, scratch, obs,
                    info, want_info, mask, player_buf, rewards, terminated, returns, final_states, trace, count,
                    tracing)


class PokerSquaresVector(BatchedGame):
    """Batched Poker Squares (see ``gamut.envs.vector.BatchedGame`` for the options).

    Attributes
    ----------
    states : int64 (N, STATE_SIZE)
        The kernel state of each game.
    final_states : int64 (N, STATE_SIZE)
        After a call, the rows with ``terminated`` hold the final state of the
        game that ended (the other rows keep older contents).
    """

    game_name = "poker_squares"
    # The open variant deals all 25 cards before the first placement, so a call
    # that finishes a game and starts the next applies 25 chance outcomes.
    max_chance_per_step = K.NUM_CELLS

    def _setup(self) -> None:
        n = self.num_envs
        self.states = np.empty((n, K.STATE_SIZE), np.int64)
        self.final_states = np.empty((n, K.STATE_SIZE), np.int64)
        self._final_obs = np.zeros_like(self.obs_buf)
        self._scratch = np.empty((n, NUM_CARDS), np.int64)

    @property
    def final_obs_buf(self) -> np.ndarray:
        """float32 (N, obs_size): in the rows that ended during the last call, the observation of the final state.

        The observation is player 0's (the full grids, nothing to place). It is
        encoded when asked for, not in the step, which stays cheap; the rows
        that did not end hold older contents.
        """
        _encode_final(self.final_states, self.game.cfg, np.flatnonzero(self.terminated_buf), self._final_obs)
        return self._final_obs

    def _buffers(self) -> tuple:
        return (self.states, self.game.cfg, HAND_TABLE, self.streams, self._scratch, self.obs_buf, self.info_buf,
                self.info_state_requested, self.mask_buf, self.player_buf, self.rewards_buf, self.terminated_buf,
                self.returns_buf, self.final_states, self.chance_trace, self.chance_count, self.tracing)

    def _reset_rows(self, parallel: bool) -> None:
        if parallel:
            _reset_parallel(self._chunks(), *self._buffers())
        else:
            _reset_serial(*self._buffers())

    def _step_rows(self, parallel: bool, actions: np.ndarray) -> None:
        if parallel:
            _step_parallel(self._chunks(), actions, *self._buffers())
        else:
            _step_serial(actions, *self._buffers())

    def _chunks(self) -> int:
        # A few ranges per thread evens out rows that end a game (and deal a new one) in the call.
        return min(self.num_envs, _CHUNKS_PER_THREAD * numba.get_num_threads())

    def action_string(self, row: int, action: int) -> str:
        """The cell's name, ``r<row>c<column>``, as pyspiel writes it."""
        return cell_string(action)


@numba.njit(cache=True)
def _encode_final(final_states, cfg, rows, out):
    for r in rows:
        write_tensor(final_states[r], cfg, 0, False, out[r])



@numba.njit(cache=True)
def _grid_scores(states, cfg, table, offset, out):
    for i in range(states.shape[0]):
        out[i] = K.grid_score(states[i], 0, cfg, table) - offset


def running_score(game):
    """Poker Squares' declared running score: ``env -> float64 (N,)``, each row's grid score as it stands.

    Each line is valued as the hand its cards make so far (``kernels.grid_score``:
    a pair counts before its line is full), minus the score of the empty grid
    (0 in the American and English systems), so the score is 0 before the
    first card and the final score after the last. Example, American scoring:
    a grid whose only cards are two Kings in the top row has running score 2.
    Raises ``ValueError`` for two players (the return is a comparison, not one grid's score).
    """
    if game.num_players() != 1:
        raise ValueError(f"{game} has {game.num_players()} players; a running score needs a one-player game")
    empty = np.empty(K.STATE_SIZE, np.int64)
    K.init_state(empty)
    offset = int(K.grid_score(empty, 0, game.cfg, HAND_TABLE))

    def read(env):
        out = np.empty(env.num_envs, np.float64)
        _grid_scores(env.states, game.cfg, HAND_TABLE, offset, out)
        return out

    return read
