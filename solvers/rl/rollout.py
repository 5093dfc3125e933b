"""Self-play transitions of a batched environment: per-player credit, inputs, saved environments.

In a batch of ``N`` games stepped ``T`` times every row has its own player to
move. A player's transitions in one row form a chain: transition ``t`` of
player ``p`` is followed by ``p``'s next decision in that row (``next_index``)
or by the end of the game, whose return for ``p`` is the reward of ``p``'s
last transition. :func:`player_chains` links them; :func:`gae` computes
generalised advantage estimates along the chains. In a one-player game the
chain of a row is simply its transitions in order.

Worked example (one row, two players, ``T = 4``): players ``0, 1, 0, 1``, the
game ends after step 3 with returns ``(+1, -1)``. Player 0's chain is
``0 -> 2`` (reward of 2: +1, done), player 1's ``1 -> 3`` (reward of 3: -1).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _link(player, terminated, returns, reward, done, next_index):
    steps, rows = player.shape
    players = returns.shape[2]
    pending = np.full(players, -1, np.int64)
    for n in range(rows):
        pending[:] = -1
        for t in range(steps):
            p = player[t, n]
            if pending[p] >= 0:
                next_index[pending[p], n] = t
            pending[p] = t
            if terminated[t, n]:
                for q in range(players):
                    if pending[q] >= 0:
                        reward[pending[q], n] = returns[t, n, q]
                        done[pending[q], n] = True
                        pending[q] = -1


def player_chains(player: np.ndarray, terminated: np.ndarray, returns: np.ndarray):
    """Rewards, ends and successors of ``T x N`` self-play transitions.

    Parameters
    ----------
    player : int64 (T, N)
        Player who acted at step ``t`` in row ``n``.
    terminated : bool (T, N)
        The game of row ``n`` ended during step ``t``.
    returns : float32 (T, N, P)
        Final returns of the games that ended in step ``t`` (zero elsewhere).

    Returns
    -------
    reward : float32 (T, N)
        The acting player's return on their last transition of a game, else 0.
    done : bool (T, N)
        The transition was the acting player's last of a finished game.
    next_index : int64 (T, N)
        Step of the same player's next transition in the same row and game,
        ``-1`` when there is none in the batch (game over, or cut by the batch's end).
    """
    steps, rows = player.shape
    reward = np.zeros((steps, rows), np.float32)
    done = np.zeros((steps, rows), np.bool_)
    next_index = np.full((steps, rows), -1, np.int64)
    _link(np.ascontiguousarray(player, np.int64), np.ascontiguousarray(terminated, np.bool_),
          np.ascontiguousarray(returns, np.float32), reward, done, next_index)
    return reward, done, next_index


@numba.njit(cache=True)
def _gae(reward, done, next_index, value, bootstrap, gamma, lam, advantage):
    steps, rows = reward.shape
    for n in range(rows):
        for t in range(steps - 1, -1, -1):
            if done[t, n]:
                following, carry = 0.0, 0.0
            elif next_index[t, n] >= 0:
                following = value[next_index[t, n], n]
                carry = advantage[next_index[t, n], n]
            else:
                following, carry = bootstrap[t, n], 0.0
            delta = reward[t, n] + gamma * following - value[t, n]
            advantage[t, n] = delta + gamma * lam * carry


def gae(reward, done, next_index, value, bootstrap, gamma: float, lam: float) -> np.ndarray:
    """Generalised advantage estimates float32 ``(T, N)`` along the players' chains.

    ``bootstrap[t, n]`` is the value that ends a chain cut by the batch's end
    (used where ``next_index`` is -1 and ``done`` is False).
    """
    advantage = np.zeros(reward.shape, np.float32)
    _gae(reward, done, next_index, np.asarray(value, np.float32), np.asarray(bootstrap, np.float32),
         np.float32(gamma), np.float32(lam), advantage)
    return advantage


def env_arrays(env) -> dict:
    """Every array of a batched environment (game states, chance streams, output buffers), copied.

    With :func:`restore_env` this saves an environment mid-game: the restored
    one continues every row exactly as the saved one would have.
    """
    return {name: np.array(value) for name, value in vars(env).items() if isinstance(value, np.ndarray)}


def restore_env(env, arrays: dict) -> None:
    """Write ``arrays`` (from :func:`env_arrays`) back into ``env``, a fresh environment of the same game and size.

    Every array is checked before ``env`` is touched: a mismatch raises ValueError and leaves it as it was.
    """
    check_env_arrays(env, arrays)
    env.reset()
    own = {name: value for name, value in vars(env).items() if isinstance(value, np.ndarray)}
    for name, value in arrays.items():
        own[name][...] = value


def check_env_arrays(env, arrays: dict) -> None:
    """ValueError unless ``arrays`` (from :func:`env_arrays`) has ``env``'s array names, shapes and dtypes."""
    own = {name: value for name, value in vars(env).items() if isinstance(value, np.ndarray)}
    if set(own) != set(arrays):
        raise ValueError(f"saved environment arrays {sorted(arrays)} do not match this environment's {sorted(own)}")
    for name, value in arrays.items():
        if own[name].shape != value.shape or own[name].dtype != value.dtype:
            raise ValueError(f"saved environment array {name!r} has shape {value.shape} and dtype {value.dtype}, "
                             f"this environment's {own[name].shape} and {own[name].dtype}")
