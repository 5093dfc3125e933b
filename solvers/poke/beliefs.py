"""Beliefs for the Poke search: determinizations that agree with what the opponent showed at its draws.

``gamut.envs.poke.resample`` draws the opponent's hidden cards uniformly among
those consistent with the searcher's information: it ignores *why* the
opponent stood or drew. Yet how many cards a player throws away says much
about the hand (a pat hand stands; a pair keeps two and draws three). A
belief pool keeps instead the determinizations under which a model of the
opponent would have discarded as many cards as the opponent did at every one
of its draws so far (a rejection filter, as the Palace Poker search does
with the heuristic); the search then draws its determinizations from the
pool.

Two models answer "how many cards would you discard here?":

- :class:`HeuristicDraws`: the threshold heuristic (``gamut.solvers.poke.heuristic``);
- :class:`NetworkDraws`: a network trained by ``gamut train`` (its best-scored
  legal action, through :class:`gamut.solvers.search.prior.NetworkPrior`).

Example: the opponent, non-dealer, stood pat. A uniform determinization gives
it a random five cards (high card about half the time); under the heuristic
model only hands of two pairs or better survive the filter.
"""

from __future__ import annotations

from typing import Protocol

import numba
import numpy as np

from gamut.envs.poke import kernels as K
from gamut.envs.poke.resample import resample
from gamut.solvers.poke.heuristic import heuristic_action

# At most this many draw decisions per player and deal (non-dealer 2, dealer 3).
MAX_DRAWS = 3


@numba.njit(cache=True)
def draw_decisions(state, cfg, deal_actions, player, states, actions):
    """The positions where ``player`` chose at a draw in the current deal, and what it chose.

    ``state`` (``int64``, ``(STATE_SIZE,)``) is any position of the deal and
    ``deal_actions`` (``int64``, ``(L,)``) the actions since the deal began
    (the history from ``state[S_DEAL_START]``). The deal is replayed from
    its start (the score sheet kept); at each draw decision of ``player``
    the position is copied into ``states[k]`` (``int64``, ``(MAX_DRAWS,
    STATE_SIZE)``) and the action taken into ``actions[k]`` (``STAND`` = 0,
    else the slot mask of the discards). Returns how many were written.
    """
    replay = state.copy()
    K.start_deal(replay, cfg, state[K.S_DEALER])
    replay[K.S_MOVES] = state[K.S_DEAL_START]
    replay[K.S_DEAL_START] = state[K.S_DEAL_START]
    n = 0
    for i in range(deal_actions.shape[0]):
        if replay[K.S_PHASE] == K.PH_DRAW and replay[K.S_DRAWER] == player:
            states[n] = replay
            actions[n] = deal_actions[i]
            n += 1
        K.apply_action(replay, cfg, deal_actions[i])
    return n


class DrawModel(Protocol):
    """``discards(state, player) -> int``: how many cards ``player`` would discard at the draw of ``state``."""

    def discards(self, state: np.ndarray, player: int) -> int: ...


class HeuristicDraws:
    """The threshold heuristic as a draw model (``params``: its thresholds, ``int64``, ``(NUM_PARAMS,)``)."""

    def __init__(self, cfg: np.ndarray, params: np.ndarray):
        self.cfg = cfg
        self.params = params

    def discards(self, state: np.ndarray, player: int) -> int:
        return K.popcount(heuristic_action(state, self.cfg, self.params))


class _Position:
    """What a network prior reads of a search state: its kernel array."""

    def __init__(self, state: np.ndarray):
        self.state = state


class NetworkDraws:
    """A network as a draw model: the legal draw action it scores highest.

    ``network`` is a :class:`gamut.solvers.search.prior.NetworkPrior` of a
    one-deal Poke game (a ``ppo`` policy or a ``dmc`` Q-network).
    """

    def __init__(self, cfg: np.ndarray, network):
        self.cfg = cfg
        self.network = network
        self._legal = np.empty(2 * (1 << int(cfg[K.C_HAND_SIZE])), dtype=np.int64)

    def discards(self, state: np.ndarray, player: int) -> int:
        legal = self._legal[:K.legal_actions(state, self.cfg, self._legal)].tolist()
        scores = self.network.scores(_Position(state), player, legal)
        return K.popcount(legal[int(np.argmax(scores))])


def _draws(sample, player: int) -> tuple[np.ndarray, np.ndarray]:
    """``player``'s draw positions and actions in the deal of ``sample`` (``draw_decisions`` on its history)."""
    st = sample.state
    deal_actions = np.asarray(sample.history()[int(st[K.S_DEAL_START]):], dtype=np.int64)
    states = np.empty((MAX_DRAWS, K.STATE_SIZE), dtype=np.int64)
    actions = np.empty(MAX_DRAWS, dtype=np.int64)
    n = draw_decisions(st, sample.cfg, deal_actions, player, states, actions)
    return states[:n], actions[:n]


def misses(sample, player: int, model: DrawModel) -> int:
    """How many of ``player``'s draws in ``sample`` (a ``DealState``) discarded another count than ``model`` would."""
    states, actions = _draws(sample, player)
    return sum(model.discards(position, player) != K.popcount(action) for position, action in zip(states, actions))


def opponent_drew(state, player: int) -> bool:
    """Whether ``player``'s opponent has made a draw decision (stood or drawn) in the deal of ``state``."""
    return len(_draws(state, 1 - player)[1]) > 0


def belief_pool(root, player: int, rng: np.random.Generator, size: int, tries: int, model: DrawModel) -> list:
    """Up to ``size`` determinizations of ``root`` for ``player``, the opponent's draws explained by ``model``.

    ``root`` is a ``gamut.solvers.poke.search.DealState``. Up to ``tries``
    uniform determinizations (``gamut.envs.poke.resample``) are drawn from
    ``rng``; those under which ``model`` discards as the opponent did at
    every draw are kept, and if fewer than ``size`` are, the pool is filled
    up with the others, fewest disagreements first. Returns ``[]`` when the
    opponent has not reached a draw yet (nothing to explain).
    """
    if size < 1 or tries < size:
        raise ValueError(f"a belief pool needs size >= 1 and tries >= size, got {size} and {tries}")
    if not opponent_drew(root, player):
        return []
    kept, others = [], []
    for _ in range(tries):
        sample = resample(root.plain(), player, rng.random)
        count = misses(sample, 1 - player, model)
        if count == 0:
            kept.append(sample)
            if len(kept) == size:
                break
        else:
            others.append((count, len(others), sample))
    others.sort(key=lambda row: row[:2])
    return kept + [sample for _, _, sample in others[:size - len(kept)]]
