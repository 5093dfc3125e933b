"""Whole solitaire games played by the optimal policy, in Numba (score distributions).

The policy is the one of :class:`gamut.solvers.poker_dice.table_bot.TableBot`: at every
decision the best of recording the dice (points now plus the value table of the
next turn) and every keep (expected value of the turn's next level); ties go
to recording, then to the lowest keep id. Turn levels come from the DP kernels
and the rules from the game kernels, so nothing here re-implements either.

    >>> from gamut.solvers.poker_dice.solution import solve
    >>> scores = optimal_scores(solve("yacht12"), num_games=2000, seed=1)
    >>> scores.shape, bool(150 < scores.mean() < 220)
    ((2000,), True)
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs import dice
from gamut.envs.poker_dice import kernels as K
from gamut.envs.poker_dice.scorecard import AUX_BANK, P_AUX_KIND, P_BANK_STAGE_OK, P_NUM_AUX, \
    P_NUM_BOXES, P_SUM_LO
from gamut.envs.poker_dice.scoring import allowed_boxes, current_stage, record
from gamut.solvers.poker_dice.dp import _keep_expectations, _turn_buffers, _turn_levels


@numba.njit(cache=True)
def optimal_action(state, p, bx, rd, values, offsets, G, L2, ev, allowed):
    """The optimal action of the (single) player at a decision, given this turn's levels
    ``G`` and ``L2`` (num_aux, 252) from ``_turn_levels``; ``ev`` (462,) and ``allowed``
    are scratch buffers."""
    base = K.S_PLAYERS
    mask, total, aux = state[base + K.F_MASK], state[base + K.F_TOTAL], state[base + K.F_AUX]
    roll, rolls = state[K.S_ROLL], state[K.S_ROLLS]
    banked = p[P_AUX_KIND] == AUX_BANK
    bank = aux - max(0, rolls - K.BASE_ROLLS)
    rolls_left = max(0, K.BASE_ROLLS - rolls)
    bank_after = bank + rolls_left if banked else aux
    allowed_boxes(p, bx, rd, mask, roll, allowed)
    best = -np.inf
    action = -1
    for b in range(p[P_NUM_BOXES]):
        if allowed[b]:
            points, m2, s2, a2 = record(p, bx, rd, mask, total, aux, roll, rolls == 1, b,
                                        bank_after)
            v = points + values[offsets[m2] + (s2 - p[P_SUM_LO]) * p[P_NUM_AUX] + a2]
            if v > best:
                best = v
                action = K.BOX_BASE + b
    extras = banked and p[P_BANK_STAGE_OK + current_stage(p, bx, mask)] == 1
    if rolls_left == 2:
        _keep_expectations(L2[aux], ev)
    elif rolls_left == 1:
        _keep_expectations(G[bank if banked else aux], ev)
    elif extras and bank > 0:
        _keep_expectations(G[bank - 1], ev)
    else:
        return action
    for i in range(dice.ROLL_KEEPS_START[roll], dice.ROLL_KEEPS_START[roll + 1]):
        k = dice.ROLL_KEEPS[i]
        if dice.KEEP_SIZE[k] < dice.NUM_DICE and ev[k] > best:
            best = ev[k]
            action = k
    return action


@numba.njit(cache=True)
def _optimal_games(cfg, p, bx, rd, values, offsets, num_games, seed, scores):
    num_aux = p[P_NUM_AUX]
    state = np.zeros(K.STATE_SIZE, dtype=np.int64)
    G, L2, L1, final, reroll, ev, best, allowed = _turn_buffers(num_aux, p[P_NUM_BOXES])
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) | np.uint64(1)
    for g in range(num_games):
        K.init_state(state, cfg, p)
        while state[K.S_PHASE] != K.PH_OVER:
            if state[K.S_PHASE] == K.PH_CHANCE:
                K.apply_action(state, cfg, p, bx, rd, K.sample_roll(state[K.S_KEEP], rng))
                continue
            if state[K.S_ROLLS] == 1:
                _turn_levels(p, bx, rd, values, offsets, state[K.S_PLAYERS + K.F_MASK],
                             state[K.S_PLAYERS + K.F_TOTAL], G, L2, L1, final, ev, best, allowed,
                             reroll, state[K.S_PLAYERS + K.F_AUX])
            action = optimal_action(state, p, bx, rd, values, offsets, G, L2, ev, allowed)
            K.apply_action(state, cfg, p, bx, rd, action)
        scores[g] = state[K.S_PLAYERS + K.F_SCORE]


def optimal_scores(solution, num_games: int, seed: int = 0) -> np.ndarray:
    """Final scores (float64, ``(num_games,)``) of solitaire games played optimally.

    Same seed, same games. Their mean estimates ``solution.expected_score``.
    """
    if num_games < 1:
        raise ValueError(f"num_games must be >= 1, got {num_games}")
    t = solution.tables
    cfg = K.make_config(1, False, False)
    scores = np.zeros(num_games)
    _optimal_games(cfg, t.params, t.box_data, t.roll_data, solution.values,
                   solution.layout.offsets, num_games, seed, scores)
    return scores
