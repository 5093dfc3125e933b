"""Belief pools for the Palace search: modelled deals whose other seats' turns a network explains.

The Palace search (``gamut.solvers.palace_poker.search.ModelledState``) keeps,
of ``BELIEF_TRIES`` uniform deals of the hidden palaces, the one under which
the heuristic would have made the most of the other seats' moves. The
heuristic explains their battle decisions and discards well, their turns
poorly: against searching opponents it makes the turn move they made 26.8%
of the time, a Deep Monte-Carlo network of the game 36.8%
(``results/nn_ismcts/palace_model_agreement.json``).

:func:`network_pool` deals a pool with the two models split that way: each
candidate deal is charged the battle and discard decisions the heuristic
would not have made (``search.model_disagreements`` with ``turns=False``)
plus the turn decisions where the network's best-scored legal action is not
the move made (:func:`turn_decisions` writes those positions, one forward
pass judges every candidate's). Each place of the pool keeps the cheapest
of its ``tries`` candidates (the first, on ties).

Example: a candidate deal under which the heuristic would have folded one
battle the true seat called, and the network would have stayed at two of the
three turns where the other seats bought, is charged 1 + 2 = 3; of the ten
candidates of a place, the pool keeps the first with the smallest charge.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.hands import HAND_TABLE
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker.resample import MAX_TRIES, resample_history
from gamut.envs.palace_poker.tensors import write_tensor
from gamut.solvers.palace_poker.search import model_disagreements, replay


@numba.njit(cache=True)
def turn_decisions(history, cfg, searcher, table, tensors, players, masks, actions):
    """The turn decisions of seats other than ``searcher`` along ``history``: what each saw and did.

    ``history`` (``int64``, ``(L,)``) is a full history from the initial state.
    At the ``k``-th such decision the mover's information-state tensor
    (``write_tensor``, private and perfect recall) goes to ``tensors[k]``
    (``float32``, ``(L, D)``), the mover to ``players[k]`` (``int64``,
    ``(L,)``), its legal actions to ``masks[k]`` (``bool``, ``(L, A)``) and
    the action taken to ``actions[k]`` (``int64``, ``(L,)``). Returns how
    many were written.
    """
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    legal = np.empty(cfg[L.C_NUM_ACTIONS], dtype=np.int64)
    K.init_state(state, cfg)
    n = 0
    for i in range(history.shape[0]):
        p = K.current_player(state)
        if p >= 0 and p != searcher and state[L.S_PHASE] == L.PH_TURN:
            write_tensor(state, cfg, p, True, True, tensors[n])
            masks[n, :] = False
            for j in range(K.legal_actions(state, cfg, legal)):
                masks[n, legal[j]] = True
            players[n] = p
            actions[n] = history[i]
            n += 1
        K.apply_action(state, cfg, history[i], table)
    return n


def network_pool(root, player: int, seeds, tries: int, network) -> list[np.ndarray]:
    """A belief pool for ``player`` at ``root``, one position per seed (see the module docstring).

    Parameters
    ----------
    root : search.ModelledState
        The search's root (its history is the real one; its ``params`` the heuristic's thresholds).
    player : int
        The searching seat.
    seeds : sequence of int
        One per place of the pool; place ``i`` judges the deals of seeds ``seeds[i] + k``, ``k < tries``.
    tries : int
        Candidate deals judged per place (>= 1).
    network : gamut.solvers.search.prior.NetworkPrior
        A network of the game played (its ``best_actions`` judges the turns).

    Returns
    -------
    list of ndarray
        Kernel arrays ``int64`` ``(STATE_SIZE,)``, positions of ``player``'s information set,
        for ``ModelledState.with_beliefs``.
    """
    cfg, params = root.cfg, root.params
    history = np.asarray(root.history(), dtype=np.int64)
    length = len(history)
    count = len(seeds) * tries
    deals = np.empty((count, length), dtype=np.int64)
    charges = np.zeros(count, dtype=np.int64)
    # Scratch for one deal's turns (at most one per move); the rows found are copied out.
    tensors = np.empty((length, root.get_game().information_state_tensor_size()), np.float32)
    players = np.empty(length, dtype=np.int64)
    masks = np.empty((length, int(cfg[L.C_NUM_ACTIONS])), np.bool_)
    actions = np.empty(length, dtype=np.int64)
    found = []
    for i, seed in enumerate(seeds):
        for k in range(tries):
            c = i * tries + k
            if resample_history(history, cfg, player, int(seed) + k, MAX_TRIES, deals[c], HAND_TABLE) < 0:
                raise RuntimeError(f"no palace deal consistent with seat {player}'s information found in "
                                   f"{MAX_TRIES} tries")
            charges[c] = model_disagreements(deals[c], cfg, player, params, int(seed) + k, HAND_TABLE,
                                             length + 1, False)
            n = turn_decisions(deals[c], cfg, player, HAND_TABLE, tensors, players, masks, actions)
            if n:
                found.append((np.full(n, c), tensors[:n].copy(), players[:n].copy(), masks[:n].copy(),
                              actions[:n].copy()))
    if found:
        owner, rows, movers, legal, made = (np.concatenate(part) for part in zip(*found))
        np.add.at(charges, owner, network.best_actions(rows, movers, legal) != made)
    pool = []
    for i in range(len(seeds)):
        best = i * tries + int(np.argmin(charges[i * tries:(i + 1) * tries]))
        position = np.zeros(L.STATE_SIZE, dtype=np.int64)
        replay(deals[best], cfg, position, HAND_TABLE)
        pool.append(position)
    return pool
