"""Poker dice game rules as Numba kernels on one small ``int64`` state array.

Two modes share the turn engine: *scorecard* games (classic, classic_banked,
yacht12, yahtzee; scoring from :mod:`gamut.envs.poker_dice.scoring`) and the
*ranking* game (its rules in ``docs/games/poker_dice.md``).

Action ids (player moves)
-------------------------
* ``0..461``: keep id ``k`` (:mod:`gamut.envs.dice`): keep that sub-multiset of the
  dice showing and reroll the others (at least one die).
* ``462 + b``: scorecard games, record the dice in box ``b`` (ends the turn).
* ``462`` (``STOP``): ranking game, stop with the dice showing.

Chance outcomes are roll ids ``0..251`` (the sorted five dice after the roll),
with the probabilities of ``dice.TRANSITION[keep]``.

Worked example: with 1,1,3,4,5 showing, keeping 3,4,5 is action
``keep_id((3, 4, 5)) == 67``; recording in yacht12's box 11 (chance) is
action ``473``.

State layout (``STATE_SIZE`` int64): ``S_PHASE`` (chance / decide / over),
``S_PLAYER``, ``S_ROLLS`` (rolls made this turn), ``S_ROLL`` (roll id showing or
-1), ``S_KEEP`` (keep awaiting the roll), ``S_FROZEN`` (ranking: dice kept at the
first reroll), ``S_ROUND`` (completed rounds), then for each player ``i`` at
``S_PLAYERS + PLAYER_FIELDS * i``: ``F_MASK``, ``F_TOTAL`` (bonus-group total,
clipped as in the scoring kernels), ``F_AUX``, ``F_SCORE``, ``F_HAND`` (ranking:
final roll id, -1 before).

Config (``int64``): ``C_PLAYERS``, ``C_MODE`` (``MODE_SCORECARD``/``MODE_RANKING``),
``C_ZERO_SUM`` (ranking: win share minus 1/n).
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs import dice
from gamut.envs.poker_dice.scorecard import (
    AUX_BANK, P_AUX_KIND, P_BANK_STAGE_OK, P_NUM_BOXES, P_NUM_SUMS, P_SUM_LO,
)
from gamut.envs.poker_dice.scoring import allowed_boxes, current_stage, final_value, record
from gamut.envs.rng import uniform

NUM_KEEPS = dice.NUM_KEEPS
BOX_BASE = NUM_KEEPS
STOP = NUM_KEEPS
MAX_BOXES = 15
NUM_ACTIONS = NUM_KEEPS + MAX_BOXES  # 477
BASE_ROLLS = 3
MAX_PLAYERS = 8

PH_CHANCE, PH_DECIDE, PH_OVER = 0, 1, 2
MODE_SCORECARD, MODE_RANKING = 0, 1
C_PLAYERS, C_MODE, C_ZERO_SUM = 0, 1, 2
CONFIG_SIZE = 3
S_PHASE, S_PLAYER, S_ROLLS, S_ROLL, S_KEEP, S_FROZEN, S_ROUND = range(7)
S_PLAYERS = 7
F_MASK, F_TOTAL, F_AUX, F_SCORE, F_HAND = range(5)
PLAYER_FIELDS = 5
STATE_SIZE = S_PLAYERS + PLAYER_FIELDS * MAX_PLAYERS

# Kernels that never allocate are compiled without reference counting, which
# otherwise costs atomic operations on every array argument of every call.
_kernel = numba.njit(cache=True, _nrt=False)


def make_config(players: int, ranking: bool, zero_sum: bool) -> np.ndarray:
    """Config array of a game (see the module docstring)."""
    return np.array([players, MODE_RANKING if ranking else MODE_SCORECARD, int(zero_sum)],
                    dtype=np.int64)


@_kernel
def init_state(state, cfg, p):
    """Write the initial state (the first player's first roll is pending) into ``state``."""
    state[:] = 0
    state[S_ROLL] = -1
    for i in range(cfg[C_PLAYERS]):
        base = S_PLAYERS + PLAYER_FIELDS * i
        # An empty group totals 0 (clipped into the tracked range like every total).
        state[base + F_TOTAL] = min(max(0, p[P_SUM_LO]), p[P_SUM_LO] + p[P_NUM_SUMS] - 1)
        state[base + F_HAND] = -1


@_kernel
def current_player(state):
    """Player to move, -1 at a chance node, -4 when the game is over (pyspiel's ids)."""
    if state[S_PHASE] == PH_OVER:
        return -4
    if state[S_PHASE] == PH_CHANCE:
        return -1
    return state[S_PLAYER]


@_kernel
def _rerolls_allowed(state, cfg, p, bx):
    rolls = state[S_ROLLS]
    if rolls < BASE_ROLLS:
        return True
    if cfg[C_MODE] == MODE_RANKING or p[P_AUX_KIND] != AUX_BANK:
        return False
    base = S_PLAYERS + PLAYER_FIELDS * state[S_PLAYER]
    stage = current_stage(p, bx, state[base + F_MASK])
    return p[P_BANK_STAGE_OK + stage] == 1 and rolls - BASE_ROLLS < state[base + F_AUX]


@_kernel
def legal_actions(state, cfg, p, bx, rd, out, allowed):
    """Write the legal action ids (ascending) into ``out`` (>= NUM_ACTIONS); return how many.

    ``allowed`` is a bool scratch buffer of ``num_boxes``.
    """
    if state[S_PHASE] != PH_DECIDE:
        return 0
    roll = state[S_ROLL]
    n = 0
    if _rerolls_allowed(state, cfg, p, bx):
        frozen = state[S_FROZEN]
        for i in range(dice.ROLL_KEEPS_START[roll], dice.ROLL_KEEPS_START[roll + 1]):
            k = dice.ROLL_KEEPS[i]
            if dice.KEEP_SIZE[k] == dice.NUM_DICE:
                continue
            if cfg[C_MODE] == MODE_RANKING:
                contains = True
                for f in range(dice.NUM_FACES):
                    contains &= dice.KEEP_COUNTS[k, f] >= dice.KEEP_COUNTS[frozen, f]
                if not contains:
                    continue
            out[n] = k
            n += 1
    if cfg[C_MODE] == MODE_RANKING:
        out[n] = STOP
        return n + 1
    base = S_PLAYERS + PLAYER_FIELDS * state[S_PLAYER]
    allowed_boxes(p, bx, rd, state[base + F_MASK], roll, allowed)
    for b in range(p[P_NUM_BOXES]):
        if allowed[b]:
            out[n] = BOX_BASE + b
            n += 1
    return n


@_kernel
def chance_outcomes(state, outcomes, probs):
    """Write the roll ids and probabilities of the pending roll; return how many (0 if none)."""
    if state[S_PHASE] != PH_CHANCE:
        return 0
    k = state[S_KEEP]
    n = 0
    for i in range(dice.TRANS_START[k], dice.TRANS_START[k + 1]):
        outcomes[n] = dice.TRANS_ROLL[i]
        probs[n] = dice.TRANS_PROB[i]
        n += 1
    return n


@_kernel
def _next_player(state, cfg, p):
    state[S_ROLLS] = 0
    state[S_ROLL] = -1
    state[S_KEEP] = 0
    state[S_FROZEN] = 0
    state[S_PHASE] = PH_CHANCE
    state[S_PLAYER] += 1
    if state[S_PLAYER] < cfg[C_PLAYERS]:
        return
    state[S_PLAYER] = 0
    state[S_ROUND] += 1
    rounds = 1 if cfg[C_MODE] == MODE_RANKING else p[P_NUM_BOXES]
    if state[S_ROUND] == rounds:
        state[S_PHASE] = PH_OVER
        if cfg[C_MODE] == MODE_SCORECARD:
            for i in range(cfg[C_PLAYERS]):
                base = S_PLAYERS + PLAYER_FIELDS * i
                state[base + F_SCORE] += final_value(p, state[base + F_AUX])


@_kernel
def apply_action(state, cfg, p, bx, rd, action):
    """Apply a legal chance outcome or player action in place (the caller checks legality)."""
    if state[S_PHASE] == PH_CHANCE:
        state[S_ROLL] = action
        state[S_ROLLS] += 1
        state[S_PHASE] = PH_DECIDE
        if cfg[C_MODE] == MODE_RANKING and state[S_ROLLS] == BASE_ROLLS:
            state[S_PLAYERS + PLAYER_FIELDS * state[S_PLAYER] + F_HAND] = action
            _next_player(state, cfg, p)
        return
    base = S_PLAYERS + PLAYER_FIELDS * state[S_PLAYER]
    if action < NUM_KEEPS:
        if cfg[C_MODE] == MODE_RANKING and state[S_ROLLS] == 1:
            state[S_FROZEN] = action
        state[S_KEEP] = action
        state[S_PHASE] = PH_CHANCE
        return
    if cfg[C_MODE] == MODE_RANKING:
        state[base + F_HAND] = state[S_ROLL]
        _next_player(state, cfg, p)
        return
    rolls = state[S_ROLLS]
    aux = state[base + F_AUX]
    bank_after = aux + BASE_ROLLS - rolls  # unused base rolls are banked, extras spent
    points, mask, total, new_aux = record(p, bx, rd, state[base + F_MASK], state[base + F_TOTAL],
                                          aux, state[S_ROLL], rolls == 1, action - BOX_BASE,
                                          bank_after)
    state[base + F_MASK] = mask
    state[base + F_TOTAL] = total
    state[base + F_AUX] = new_aux
    state[base + F_SCORE] += points
    _next_player(state, cfg, p)


@_kernel
def returns(state, cfg, out):
    """Write each player's return into ``out`` (zeros before the end)."""
    n = cfg[C_PLAYERS]
    out[:n] = 0.0
    if state[S_PHASE] != PH_OVER:
        return
    if cfg[C_MODE] == MODE_SCORECARD:
        mean = 0.0
        for i in range(n):
            mean += state[S_PLAYERS + PLAYER_FIELDS * i + F_SCORE]
        mean /= n
        for i in range(n):
            score = state[S_PLAYERS + PLAYER_FIELDS * i + F_SCORE]
            out[i] = score if n == 1 else score - mean
        return
    best = -1
    for i in range(n):
        best = max(best, dice.ROLL_RANKING_VALUE[state[S_PLAYERS + PLAYER_FIELDS * i + F_HAND]])
    winners = 0
    for i in range(n):
        winners += dice.ROLL_RANKING_VALUE[state[S_PLAYERS + PLAYER_FIELDS * i + F_HAND]] == best
    for i in range(n):
        won = dice.ROLL_RANKING_VALUE[state[S_PLAYERS + PLAYER_FIELDS * i + F_HAND]] == best
        out[i] = (1.0 / winners if won else 0.0) - (1.0 / n if cfg[C_ZERO_SUM] else 0.0)


@_kernel
def sample_roll(keep, rng):
    """A roll drawn from ``TRANSITION[keep]``: each free die shows a uniform face."""
    k = keep
    for _ in range(dice.NUM_DICE - dice.KEEP_SIZE[keep]):
        k = dice.KEEP_ADD[k, int(uniform(rng) * dice.NUM_FACES)]
    return k - dice.NUM_SHORT_KEEPS  # roll ids are keep ids of five dice minus 210


@_kernel
def num_legal_actions(state, cfg, p, bx, rd, allowed):
    """Number of legal actions of a scorecard decision; fills ``allowed`` like ``allowed_boxes``.

    Without building the list: the keeps of a roll are its sub-multisets minus
    the roll itself (the last of them, having the highest id)."""
    roll = state[S_ROLL]
    keeps = 0
    if _rerolls_allowed(state, cfg, p, bx):
        keeps = dice.ROLL_KEEPS_START[roll + 1] - dice.ROLL_KEEPS_START[roll] - 1
    base = S_PLAYERS + PLAYER_FIELDS * state[S_PLAYER]
    return keeps + allowed_boxes(p, bx, rd, state[base + F_MASK], roll, allowed)


@_kernel
def legal_action_at(state, cfg, p, bx, rd, i, allowed):
    """The ``i``-th legal action of a scorecard decision (``allowed`` as filled by
    ``num_legal_actions``), equal to ``legal_actions(...)[i]``."""
    roll = state[S_ROLL]
    if _rerolls_allowed(state, cfg, p, bx):
        keeps = dice.ROLL_KEEPS_START[roll + 1] - dice.ROLL_KEEPS_START[roll] - 1
        if i < keeps:
            return dice.ROLL_KEEPS[dice.ROLL_KEEPS_START[roll] + i]
        i -= keeps
    for b in range(p[P_NUM_BOXES]):
        if allowed[b]:
            if i == 0:
                return BOX_BASE + b
            i -= 1
    return -1


@_kernel
def random_playout(state, cfg, p, bx, rd, rng, actions, allowed):
    """Play ``state`` to the end in place: chance by its probabilities, players uniformly
    among legal actions. ``rng`` is a one-element uint64 array advanced in place."""
    while state[S_PHASE] != PH_OVER:
        if state[S_PHASE] == PH_CHANCE:
            apply_action(state, cfg, p, bx, rd, sample_roll(state[S_KEEP], rng))
        elif cfg[C_MODE] == MODE_SCORECARD:
            n = num_legal_actions(state, cfg, p, bx, rd, allowed)
            i = int(uniform(rng) * n)
            apply_action(state, cfg, p, bx, rd, legal_action_at(state, cfg, p, bx, rd, i, allowed))
        else:
            n = legal_actions(state, cfg, p, bx, rd, actions, allowed)
            apply_action(state, cfg, p, bx, rd, actions[int(uniform(rng) * n)])


@numba.njit(cache=True)
def random_games(cfg, p, bx, rd, num_games, seed, scores):
    """Play ``num_games`` uniformly random games from the start; ``scores`` (num_games, players)
    float64 receives the returns. Same seed, same games."""
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    actions = np.zeros(NUM_ACTIONS, dtype=np.int64)
    allowed = np.zeros(p[P_NUM_BOXES], dtype=np.bool_)
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) | np.uint64(1)
    for g in range(num_games):
        init_state(state, cfg, p)
        random_playout(state, cfg, p, bx, rd, rng, actions, allowed)
        returns(state, cfg, scores[g])
