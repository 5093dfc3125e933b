"""Random playouts of Palace Poker inside Numba (benchmarks, search rollouts, tests).

Every chance outcome and every decision is drawn uniformly among the legal
ones with an inline xorshift generator seeded explicitly, so the same seed
gives the same hands.
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.hands import HAND_TABLE
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L
from gamut.envs.rng import below, rng_state


@numba.njit(cache=True)
def random_chance_card(state, rng):
    """A chance outcome of ``state`` drawn from ``rng``: a card uniform over the deck or draw pile.

    Draws card ids until one lies there (the pile is never empty at a chance
    node), cheaper than listing the pile.
    """
    card = below(rng, L.NUM_CARDS)
    while state[L.S_LOC + card] != L.LOC_DRAW:
        card = below(rng, L.NUM_CARDS)
    return card


@numba.njit(cache=True)
def play_random(state, cfg, rng, buf, table):
    """Play ``state`` to the end with uniform random moves; return the number of moves made.

    ``rng`` is a one-element ``uint64`` xorshift state (``gamut.envs.rng.rng_state``),
    ``buf`` an ``int64`` scratch array of ``cfg[C_NUM_ACTIONS]`` entries,
    ``table`` is ``gamut.envs.hands.HAND_TABLE``.
    """
    moves = 0
    while state[L.S_PHASE] != L.PH_OVER:
        if K.current_player(state) == L.CHANCE_PLAYER:
            K.apply_action(state, cfg, random_chance_card(state, rng), table)
        else:
            n = K.legal_actions(state, cfg, buf)
            K.apply_action(state, cfg, buf[below(rng, n)], table)
        moves += 1
    return moves


@numba.njit(cache=True)
def _random_hands(cfg, num_hands, seed, out_returns, table):
    rng = rng_state(seed)
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    buf = np.zeros(max(cfg[L.C_NUM_ACTIONS], L.NUM_CARDS), dtype=np.int64)
    n = cfg[L.C_PLAYERS]
    moves = 0
    for h in range(num_hands):
        K.init_state(state, cfg)
        moves += play_random(state, cfg, rng, buf, table)
        for p in range(n):
            out_returns[h, p] = state[L.S_PAYOUT + p] - state[L.S_CONTRIB + p]
    return moves


def random_hands(cfg: np.ndarray, num_hands: int, seed: int) -> tuple[np.ndarray, int]:
    """Returns of ``num_hands`` uniformly random hands and the total moves (chance included).

    Returns an ``int64`` array of shape ``(num_hands, players)`` (chips per
    seat; each row sums to zero) and the number of moves applied.
    """
    if num_hands < 0:
        raise ValueError(f"num_hands={num_hands} must be >= 0")
    out = np.zeros((num_hands, int(cfg[L.C_PLAYERS])), dtype=np.int64)
    moves = _random_hands(cfg, num_hands, int(seed) & (2**63 - 1), out, HAND_TABLE)
    return out, int(moves)
