"""Batched Poke: N games of one game string stepped by one compiled call.

:class:`PokeVector` runs every parameter set of ``poke`` (one deal, a game, a
rubber, reduced decks, both ``follow`` rules) on the game's own kernels
(:mod:`gamut.envs.poke.kernels`): ``apply_action`` for every action and card,
``stock_mask`` for the stock a card is drawn from (uniformly, the
probabilities of the pyspiel ``chance_outcomes()``), ``legal_actions`` for the
mask, ``returns`` at the end, and ``tensors.write_tensor`` for the observation
and information-state tensors the pyspiel observer writes (every entry in
[0, 1]).

    >>> import numpy as np
    >>> from gamut.envs.vector import make_vector
    >>> env = make_vector("poke()", num_envs=2, seed=3, info_state=True)
    >>> step = env.reset()
    >>> step.obs.shape, step.info_state.shape, step.legal_mask.shape
    ((2, 315), (2, 1219), (2, 64))
    >>> step.current_player.tolist()                   # the non-dealer draws first
    [0, 0]
    >>> step = env.step(np.zeros(2, dtype=np.int64))   # both stand; the dealers decide next
    >>> step.current_player.tolist()
    [1, 1]

A call applies at most ``2 * hand_size`` cards in a row: the deal of the next
deal (in a game or rubber) or of the next match after one ended; a draw takes
at most three.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.cards import popcount
from gamut.envs.poke import kernels as K
from gamut.envs.poke.encoding import action_to_string
from gamut.envs.poke.tensors import piece_offsets, write_tensor
from gamut.envs.rng import below
from gamut.envs.vector import BatchedGame

# The per-row code is inlined into the range loops, which run without Numba's
# reference counting (``_nrt=False``): they allocate nothing, and counting the
# references of every row view (state, stream, scratch) cost as much as a rule.
_inlined_row_code = numba.njit(cache=True, inline="always", _nrt=False)
_row_kernel = numba.njit(cache=True, _nrt=False)
_CHUNKS_PER_THREAD = 4


@_inlined_row_code
def _kth_card(cards, k):
    """Card id of the ``k``-th lowest card (from 0) of the non-negative card mask ``cards`` (more than ``k`` cards).

    A binary search on the counts of the lower halves: six popcounts, where
    listing the stock (``K.chance_outcomes``) walks every card in it.
    """
    card = np.int64(0)
    width = 32
    while width:
        low = cards & ((np.int64(1) << width) - 1)
        below_count = popcount(low)
        if k >= below_count:
            k -= below_count
            cards >>= width
            card += width
        else:
            cards = low
        width >>= 1
    return card


@_inlined_row_code
def _advance(i, state, stream, cfg, trick_value, finals, returns_buf, rewards_buf, terminated_buf, tracing,
             chance_trace, chance_count):
    """Deal cards until row ``i`` waits for a player; a finished match reports its returns and restarts.

    A card is drawn uniformly from the stock: the ``below(stream, n)``-th of
    the ``n`` ascending card ids ``K.chance_outcomes`` lists, picked from the
    stock mask directly.
    """
    while True:
        phase = state[K.S_PHASE]
        if phase == K.PH_OVER:
            K.returns(state, cfg, trick_value, finals)
            for j in range(2):
                returns_buf[i, j] = finals[j]
                rewards_buf[i, j] = finals[j]
            terminated_buf[i] = True
            K.init_state(state, cfg)
        elif phase == K.PH_DEAL or phase == K.PH_REPLACE:
            stock = K.stock_mask(state, cfg)
            card = _kth_card(stock, below(stream, popcount(stock)))
            if tracing:
                chance_trace[i, chance_count[i]] = card
                chance_count[i] += 1
            K.apply_action(state, cfg, card)
        else:
            return


@_inlined_row_code
def _write_outputs(i, state, cfg, index, num_cards, hand_size, maxima, obs_offsets, info_offsets, want_info,
                   obs_buf, info_buf, mask_buf, player_buf, scratch):
    """Tensors, legal mask and player to move of row ``i`` (at a decision node)."""
    p = K.current_player(state)
    player_buf[i] = p
    write_tensor(state, p, index, num_cards, hand_size, maxima, obs_offsets, obs_buf[i])
    if want_info:
        write_tensor(state, p, index, num_cards, hand_size, maxima, info_offsets, info_buf[i])
    n = K.legal_actions(state, cfg, scratch)
    for a in range(mask_buf.shape[1]):  # no slice assignment: it may allocate a temporary
        mask_buf[i, a] = False
    for j in range(n):
        mask_buf[i, scratch[j]] = True


@_row_kernel
def _run_range(first, stop, actions, states, cfg, trick_value, index, num_cards, hand_size, maxima, obs_offsets,
               info_offsets, want_info, streams, obs_buf, info_buf, mask_buf, player_buf, rewards_buf,
               terminated_buf, returns_buf, tracing, chance_trace, chance_count, scratch, finals):
    """Rows ``first .. stop - 1``: apply ``actions[i]`` (``< 0``: start a new match instead), deal, write the outputs."""
    for i in range(first, stop):
        state = states[i]
        action = actions[i]
        if action < 0:
            K.init_state(state, cfg)
        else:
            K.apply_action(state, cfg, action)
        _advance(i, state, streams[i:i + 1], cfg, trick_value, finals[i], returns_buf, rewards_buf, terminated_buf,
                 tracing, chance_trace, chance_count)
        _write_outputs(i, state, cfg, index, num_cards, hand_size, maxima, obs_offsets, info_offsets, want_info,
                       obs_buf, info_buf, mask_buf, player_buf, scratch[i])


# The serial driver steps every row in one range; the parallel one splits the
# rows into ``chunks`` ranges stepped on the Numba threads (rows are
# independent, so the numbers are the same).
@numba.njit(cache=True)
def _run_serial(actions, states, cfg, trick_value, index, num_cards, hand_size, maxima, obs_offsets,
                info_offsets, want_info, streams, obs_buf, info_buf, mask_buf, player_buf, rewards_buf,
                terminated_buf, returns_buf, tracing, chance_trace, chance_count, scratch, finals):
    _run_range(0, actions.shape[0], actions, states, cfg, trick_value, index, num_cards, hand_size, maxima,
               obs_offsets, info_offsets, want_info, streams, obs_buf, info_buf, mask_buf, player_buf, rewards_buf,
               terminated_buf, returns_buf, tracing, chance_trace, chance_count, scratch, finals)


@numba.njit(cache=True, parallel=True)
def _run_parallel(chunks, actions, states, cfg, trick_value, index, num_cards, hand_size, maxima, obs_offsets,
                  info_offsets, want_info, streams, obs_buf, info_buf, mask_buf, player_buf, rewards_buf,
                  terminated_buf, returns_buf, tracing, chance_trace, chance_count, scratch, finals):
    n = actions.shape[0]
    for c in numba.prange(chunks):
        _run_range(c * n // chunks, (c + 1) * n // chunks, actions, states, cfg, trick_value, index, num_cards,
                   hand_size, maxima, obs_offsets, info_offsets, want_info, streams, obs_buf, info_buf, mask_buf,
                   player_buf, rewards_buf, terminated_buf, returns_buf, tracing, chance_trace, chance_count,
                   scratch, finals)


class PokeVector(BatchedGame):
    """Batched ``poke`` of any parameters (see :class:`gamut.envs.vector.BatchedGame`).

    Observations and information states are the pyspiel tensors of the player
    to move (``tensors.write_tensor``), every entry in [0, 1]. A game or
    rubber runs deal after deal inside one row; ``terminated`` marks the end of
    the match (one deal in ``mode=deal``).
    """

    game_name = "poke"
    max_chance_per_step = 2 * K.MAX_HAND_SIZE  # the next deal's cards, after a match or a deal ended

    def _setup(self) -> None:
        game = self.game
        layout = game.layout
        self.cfg = game.cfg
        self.states = np.zeros((self.num_envs, K.STATE_SIZE), dtype=np.int64)
        self._scratch = np.zeros((self.num_envs, 2 << K.MAX_HAND_SIZE), dtype=np.int64)
        self._finals = np.zeros((self.num_envs, 2), dtype=np.float64)
        self._resets = np.full(self.num_envs, -1, dtype=np.int64)
        self._layout = (layout.index, np.int64(layout.num_cards), np.int64(layout.hand_size), layout.score_maxima,
                        piece_offsets(layout.pieces(perfect_recall=False, private=True)),
                        piece_offsets(layout.pieces(perfect_recall=True, private=True)))

    def _call(self, parallel: bool, actions: np.ndarray) -> None:
        buffers = (actions, self.states, self.cfg, self.game.trick_value, *self._layout, self.info_state_requested,
                   self.streams, self.obs_buf, self.info_buf, self.mask_buf, self.player_buf, self.rewards_buf,
                   self.terminated_buf, self.returns_buf, self.tracing, self.chance_trace, self.chance_count,
                   self._scratch, self._finals)
        if parallel:
            # A few ranges per thread evens out rows that finish a deal (and deal the next) in the call.
            _run_parallel(min(self.num_envs, _CHUNKS_PER_THREAD * numba.get_num_threads()), *buffers)
        else:
            _run_serial(*buffers)

    def _reset_rows(self, parallel: bool) -> None:
        self._call(parallel, self._resets)

    def _step_rows(self, parallel: bool, actions: np.ndarray) -> None:
        self._call(parallel, actions)

    def action_string(self, row: int, action: int) -> str:
        return action_to_string(self.states[row], self.cfg, int(self.player_buf[row]), int(action))

