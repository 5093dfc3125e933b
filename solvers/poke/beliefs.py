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
from gamut.envs.poke.resample import rewind_deal
from gamut.solvers.poke.heuristic import heuristic_action
from gamut.solvers.poke.walker import information_key
from gamut.solvers.rl.features import score_actions

# At most this many draw decisions per player and deal (non-dealer 2, dealer 3).
MAX_DRAWS = 3
# The fewest tries a pool judges in one batch (one call of the draw model).
_MIN_BATCH = 16


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
    replay = np.empty_like(state)
    rewind_deal(state, cfg, replay)
    n = 0
    for i in range(deal_actions.shape[0]):
        if replay[K.S_PHASE] == K.PH_DRAW and replay[K.S_DRAWER] == player:
            states[n] = replay
            actions[n] = deal_actions[i]
            n += 1
        K.apply_action(replay, cfg, deal_actions[i])
    return n


class DrawModel(Protocol):
    """How many cards a player would discard at draw positions.

    ``discards_many(states, player)``: ``states`` int64 ``(N, STATE_SIZE)``
    draw positions of ``player``; returns int64 ``(N,)``, the number of
    cards the model discards at each (0: it stands).
    """

    def discards_many(self, states: np.ndarray, player: int) -> np.ndarray: ...


class HeuristicDraws:
    """The threshold heuristic as a draw model (``params``: its thresholds, ``int64``, ``(NUM_PARAMS,)``)."""

    def __init__(self, cfg: np.ndarray, params: np.ndarray):
        self.cfg = cfg
        self.params = params

    def discards(self, state: np.ndarray, player: int) -> int:
        return K.popcount(heuristic_action(state, self.cfg, self.params))

    def discards_many(self, states: np.ndarray, player: int) -> np.ndarray:
        return np.array([self.discards(state, player) for state in states], dtype=np.int64)


class _Position:
    """What a network prior reads of a search state: its kernel array."""

    def __init__(self, state: np.ndarray):
        self.state = state


class NetworkDraws:
    """A network as a draw model: the legal draw action it scores highest.

    ``network`` is a :class:`gamut.solvers.search.prior.NetworkPrior` of a
    one-deal Poke game (a ``ppo`` policy or a ``dmc`` Q-network).
    ``discards_many`` sends all its positions through the network in one
    forward pass (the inputs are built one position at a time).
    """

    def __init__(self, cfg: np.ndarray, network):
        self.cfg = cfg
        self.network = network
        self._legal = np.empty(2 * (1 << int(cfg[K.C_HAND_SIZE])), dtype=np.int64)

    def discards(self, state: np.ndarray, player: int) -> int:
        legal = self._legal[:K.legal_actions(state, self.cfg, self._legal)].tolist()
        scores = self.network.scores(_Position(state), player, legal)
        return K.popcount(legal[int(np.argmax(scores))])

    def discards_many(self, states: np.ndarray, player: int) -> np.ndarray:
        if len(states) == 0:
            return np.zeros(0, dtype=np.int64)
        legals, inputs, features = [], [], []
        for state in states:
            legal = self._legal[:K.legal_actions(state, self.cfg, self._legal)].tolist()
            x, feats = self.network.inputs(_Position(state), player, legal)
            legals.append(legal)
            inputs.append(x)
            features.append(feats)
        if features[0] is None:
            # Flat or one-hot heads score every action id at once.
            return np.array([K.popcount(legal[int(np.argmax(self.network.scores(_Position(state), player, legal)))])
                             for state, legal in zip(states, legals)], dtype=np.int64)
        width = max(len(legal) for legal in legals)
        feats = np.zeros((len(states), width, features[0].shape[-1]), dtype=np.float32)
        for i, f in enumerate(features):
            feats[i, :f.shape[1]] = f[0]
        scores = score_actions(self.network.params, self.network.head, np.concatenate(inputs), feats)
        out = np.empty(len(states), dtype=np.int64)
        for i, legal in enumerate(legals):
            out[i] = K.popcount(legal[int(np.argmax(scores[i, :len(legal)]))])
        return out


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
    return misses_many([sample], player, model)[0]


def misses_many(samples: list, player: int, model: DrawModel) -> list[int]:
    """``misses`` of each of ``samples``, the model asked once for all their draw positions."""
    draws = [_draws(sample, player) for sample in samples]
    positions = [states for states, _ in draws]
    counts = model.discards_many(np.concatenate(positions) if positions else
                                 np.empty((0, K.STATE_SIZE), dtype=np.int64), player)
    out, at = [], 0
    for _, actions in draws:
        chosen = counts[at:at + len(actions)]
        at += len(actions)
        out.append(int(sum(int(c) != K.popcount(a) for c, a in zip(chosen, actions))))
    return out


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

    The tries are judged in batches (one call of the model each), and
    ``rng`` is left as if they had been drawn one at a time up to the one
    that filled the pool: the pool and the generator's state do not depend
    on the batch size.
    """
    if size < 1 or tries < size:
        raise ValueError(f"a belief pool needs size >= 1 and tries >= size, got {size} and {tries}")
    if not opponent_drew(root, player):
        return []
    plain = root.plain()
    kept, others = [], []
    tried = 0
    while tried < tries and len(kept) < size:
        batch = min(max(size - len(kept), _MIN_BATCH), tries - tried)
        saved = rng.bit_generator.state
        # resample draws its whole determinization from one number of the sampler.
        draws = [rng.random() for _ in range(batch)]
        samples = [plain.resample_from_infostate(player, lambda u=u: u) for u in draws]
        for used, (sample, count) in enumerate(zip(samples, misses_many(samples, 1 - player, model)), start=1):
            if count == 0:
                kept.append(sample)
                if len(kept) == size:
                    rng.bit_generator.state = saved
                    for _ in range(used):
                        rng.random()
                    break
            else:
                others.append((count, len(others), sample))
        tried += batch
    others.sort(key=lambda row: row[:2])
    return kept + [sample for _, _, sample in others[:size - len(kept)]]


def _successors(state, cfg, buf) -> list[int]:
    """The actions of the node ``state``: its chance outcomes or its legal actions."""
    if K.current_player(state) == K.CHANCE_PLAYER:
        return buf[:K.chance_outcomes(state, cfg, buf)].tolist()
    return buf[:K.legal_actions(state, cfg, buf)].tolist()


def advance(sample, start: np.ndarray, actions: list[int], player: int, rng: np.random.Generator):
    """``sample`` carried along ``actions`` as ``player`` saw them, or None where it cannot follow.

    ``sample`` (a ``DealState``) is a determinization of ``start`` (the
    kernel array of the true position, in ``player``'s information set), and
    ``actions`` the true actions played from ``start`` on. At each action the
    sample takes one whose result ``player`` cannot tell from the true
    result (``information_key``): the same action where ``player`` sees it
    (its own moves, its own cards, a card the opponent shows); one drawn
    uniformly among the sample's matching actions where it does not (a
    face-down throw-off, a card dealt to the opponent). None when the sample
    has no matching action (its opponent does not hold a card the true
    opponent showed, or could have beaten a lead it threw off to). The
    result holds ``player``'s information of the true position.

    Example: the true opponent leads the king of hearts; a sample whose
    opponent was given that king leads it too, and one whose opponent was
    not is dropped.
    """
    cfg = sample.cfg
    true = start.copy()
    state = sample.state.copy()
    history = sample.history()
    buf = np.empty(64, dtype=np.int64)
    for action in actions:
        mover = K.current_player(true)
        K.apply_action(true, cfg, action)
        key = information_key(true, player)
        options = [action] if mover == player else _successors(state, cfg, buf)
        matching = []
        for option in options:
            after = state.copy()
            K.apply_action(after, cfg, option)
            if information_key(after, player) == key:
                matching.append((option, after))
        if not matching:
            return None
        option, state = matching[int(rng.integers(len(matching)))] if len(matching) > 1 else matching[0]
        history.append(int(option))
    return type(sample)(sample.get_game(), state, history)


class KeptBeliefs:
    """A belief pool kept across the moves of one deal (``nn_ismcts`` option ``belief_keep``).

    ``pool(root, player, rng)`` returns the pool for ``root``. The first
    call of a deal, and any call after the opponent drew again (a new draw
    to explain), builds it with ``belief_pool`` (``size``, ``tries``,
    ``model``). A later call carries the pool's states along the moves
    played since (``advance``), keeps those that follow, and builds a fresh
    pool of the missing size when fewer than half of ``size`` are left.
    """

    def __init__(self, size: int, tries: int, model: DrawModel):
        self.size, self.tries, self.model = size, tries, model
        self._start: np.ndarray | None = None
        self._history: list[int] = []
        self._player = -1
        self._pool: list = []
        self._opponent_draws = 0

    def _moves_since(self, root, player: int) -> list[int] | None:
        """The actions from the kept pool's position to ``root``; None if ``root`` does not follow it, or if the
        opponent has reached a draw since (the pool does not explain it)."""
        history = root.history()
        if self._start is None or player != self._player or history[:len(self._history)] != self._history:
            return None
        actions = history[len(self._history):]
        replay = self._start.copy()
        for action in actions:
            K.apply_action(replay, root.cfg, action)
        if not np.array_equal(replay, root.state) or len(_draws(root, 1 - player)[1]) != self._opponent_draws:
            return None
        return actions

    def pool(self, root, player: int, rng: np.random.Generator) -> list:
        actions = self._moves_since(root, player)
        pool: list = []
        if actions is not None:
            pool = [s for s in (advance(sample, self._start, actions, player, rng) for sample in self._pool)
                    if s is not None]
        if 2 * len(pool) < self.size:
            missing = self.size - len(pool)
            pool += belief_pool(root, player, rng, missing, max(self.tries * missing // self.size, missing),
                                self.model)
        self._start, self._history, self._player, self._pool = root.state.copy(), root.history(), player, pool
        self._opponent_draws = len(_draws(root, 1 - player)[1])
        return pool
