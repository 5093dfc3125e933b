"""Toy Nim's rules as Numba kernels on one int64 state array.

State layout (int64, ``(STATE_SIZE,)``): ``[pile, player to move, winner]``;
``pile`` is -1 before chance draws it, ``winner`` -1 until the last token goes.
Action ``a`` takes ``a + 1`` tokens. Example: pile 5, player 0 plays action 2
(takes 3): pile 2, player 1 to move.
"""

import numba
import numpy as np

CHANCE, TERMINAL = -1, -4  # pyspiel's player ids
S_PILE, S_PLAYER, S_WINNER = 0, 1, 2
STATE_SIZE = 3
MAX_TAKE = 3
NUM_STARTS = 3  # the pile starts at max_pile - k for a chance outcome k in 0..2


@numba.njit(cache=True)
def init_state(state):
    state[S_PILE] = -1
    state[S_PLAYER] = 0
    state[S_WINNER] = -1


@numba.njit(cache=True)
def current_player(state):
    if state[S_PILE] < 0:
        return CHANCE
    if state[S_WINNER] >= 0:
        return TERMINAL
    return state[S_PLAYER]


@numba.njit(cache=True)
def draw_pile(state, max_pile, outcome):
    state[S_PILE] = max_pile - outcome


@numba.njit(cache=True)
def legal_takes(state, out):
    """Write the legal actions into ``out`` (int64, >= MAX_TAKE) in ascending order; return how many."""
    n = 0
    for a in range(MAX_TAKE):
        if a + 1 <= state[S_PILE]:
            out[n] = a
            n += 1
    return n


@numba.njit(cache=True)
def take(state, action):
    state[S_PILE] -= action + 1
    if state[S_PILE] == 0:
        state[S_WINNER] = state[S_PLAYER]
    else:
        state[S_PLAYER] = 1 - state[S_PLAYER]


@numba.njit(cache=True)
def write_returns(state, out):
    """Write +1 for the winner and -1 for the other into ``out`` (float, (2,)); zeros before the end."""
    out[0] = 0.0
    out[1] = 0.0
    if state[S_WINNER] >= 0:
        out[state[S_WINNER]] = 1.0
        out[1 - state[S_WINNER]] = -1.0


@numba.njit(cache=True)
def write_observation(state, max_pile, out):
    """One-hot pile (``max_pile + 1`` entries) then one-hot player to move (2 entries) into ``out`` (float32)."""
    for k in range(out.shape[0]):
        out[k] = 0.0
    if state[S_PILE] >= 0:
        out[state[S_PILE]] = 1.0
    if current_player(state) >= 0:
        out[max_pile + 1 + state[S_PLAYER]] = 1.0


def observation_size(max_pile: int) -> int:
    return max_pile + 3


def new_state() -> np.ndarray:
    state = np.empty(STATE_SIZE, np.int64)
    init_state(state)
    return state
