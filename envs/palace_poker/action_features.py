"""Palace Poker action features: what a turn, battle or discard action does, for Deep Monte-Carlo and PPO's action head.

Palace Poker's action ids name a move but not its weight: "bet on seat 2" is
a cheap probe or the whole stack depending on the soldiers held, a strong or
a hopeless attack depending on the cards each side shows, and "discard Qh"
costs nothing or breaks a pair depending on the rest of the hand. A network
that scores ids (the generic one-hot) has to learn each of these from
scratch for every seat and card. The declaration lends
:func:`action_features` (``GAME.action_features``) instead: each legal action
is described by what it does.

The features read only the network input rows (the observation or
information-state tensor of the player to move, laid out by
``gamut.envs.palace_poker.tensors``, then the seat one-hot) and the legal
mask, so the trainer and the agents compute the same features. Each row is
turned back into a kernel state (``gamut.envs.palace_poker.layout``) as the
mover sees it: every card the tensor locates is put where it lies, every
card it does not (other players' palaces, the piles) is left in the draw
pile, every card it does locate is marked in ``S_PUBLIC`` (so the cards
outside it are the unseen ones), and the stacks, contributions, phase and
battle come from their blocks. Every rule question is then answered by the kernels themselves: the
chips an action puts in are what ``kernels.apply_action`` takes from the
mover's stack on a copy of that state, the bet target comes from
``kernels.bet_target_level``, hand strengths from
``showdown.player_hand_value`` (an opponent's hand is what the mover sees
of it: banner, soldiers and palace cards shown at a called battle) and the
own-suit tie-break from ``showdown.own_suit_count``.

A hand "level" below is ``strength / (10 * 2**20)`` of a
``gamut.envs.hands`` strength: the category (0 high card .. 9 royal flush)
in tenths plus the ranks within it, so a pair of aces is just under 0.2 and
a flush 0.5 and more. "Chips" are divided by the starting stack in chips
(``stack * small_bet``). The *opponent* of an action is the seat a bet
attacks, or the other player of the battle for a battle answer.

Each action gets :data:`NUM_FEATURES` = 38 float32 entries; illegal actions
get all zeros.

=====  =================================================================
0-9    kind: stay, fold on a turn, buy, paid discard, bet, fold in a
       battle, call, raise, done discarding, discard a soldier (one-hot)
10     chips the action puts in the pot / starting stack
11     those chips / (pot before + those chips): the share of the pot
       after it that the action paid
12     those chips / the mover's stack before (0 with an empty stack)
13     the action leaves the mover all-in (puts chips in, stack left 0)
14     bet or raise size: (level + 1) / (levels + 1), all-in 1
15     the action has an opponent (a bet or a battle answer)
16     opponent's visible level (without the mover's banner suit)
17     mover's level against the opponent (without its banner suit)
18     entry 17 - entry 16
19     opponent's unseen palace cards / 3
20     opponent's soldiers / 5
21     opponent's stack / starting stack
22     (mover's own-suit count - opponent's visible own-suit count) / 9:
       the battle tie-break as far as it is seen
23     bet only: the opponent is (one of) the weakest-looking targets,
       the lowest visible level among the seats the mover may attack
24     opponent's bets so far / 5, at most 1 (information-state input)
25     opponent's raises so far / 5, at most 1 (information-state input)
26     stay, fold, buy, discards, done: the mover's showdown level after
       the action (nothing excluded; a fold: the hand it gives up; a buy:
       before its card is drawn)
27     discard a soldier: the showdown level it gives up (before - after)
28     the mover's soldiers after the action / 5 (buys: before the card
       is drawn; bets and battle answers: those held now, whatever the
       battle's outcome)
29     discard a soldier: its rank, (rank - 1) / 13 (a deuce 1/13, an
       ace 1)
30     discard a soldier: it is of the mover's banner suit
31     discard a soldier: it counts in the mover's showdown hand (the
       level drops without it)
32     stay, fold, buy, discards, done: entry 26 - the best visible
       showdown level among the other seats still in
33     the action ends the hand (stay or a paid discard closing a quiet
       round, a fold leaving one player or one banner suit, ...); not
       set for bets and battle answers, whose outcome the mover cannot see
34     the seats still in after the action / players (bets and battle
       answers: those in now)
35     the minimum bet the mover will face next from the opponent's
       soldiers, i.e. (opponent's soldiers + 1) * small bet / starting
       stack (what a defender must add to call; bets and battle answers)
36     bets and battle answers: the mover's exact equity against the
       opponent (``gamut.envs.palace_poker.equity``): the share of the
       opponent's possible hidden palaces, drawn from the cards the
       mover has not seen, that its hand beats in a called battle, ties
       one half
37     bet only: the opponent is (one of) the targets of highest equity
       among the seats the mover may bet on
=====  =================================================================

Worked example (``palace_poker(players=4)``, 200-chip stacks, the ante of
1 chip paid by everyone): seat 0 moves first with no soldiers, banner
``Kh`` and palace ``Ah Ad 7s``; seat 1 flies ``9s``. Betting on seat 1
(action ``60 + 1 * 2 = 62``: bets start at ``58 + L_r + 1 = 60``, two ids a seat) is kind "bet" (4) and puts in the minimum
``(0 + 1) * 2 = 2`` chips: entry 10 is ``2 / 200``, entry 11 ``2 / (4 + 2)``
(the pot held the four antes), entry 12 ``2 / 199``. The opponent (15) shows
only the ``9s`` and the mover's spades do not count against it (16:
a high card nine, ``category 0``, just above 0); the mover's hand without
spades is a pair of aces with a king (17, just under 0.2). Seat 1 has three
unseen palace cards (19 = 1) and no soldiers (20 = 0, 35 = 2 / 200).
Of the 45 cards seat 0 has not seen, the three-card palaces that would
beat its aces are few: the equity (36) is 0.9922. Seat 2, also bettable,
gives 0.9925, so the bet on seat 1 is not the highest-equity target
(37 = 0).
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.action_features import ActionFeatures
from gamut.envs.hands import CATEGORY_SHIFT, HAND_TABLE, NUM_CATEGORIES
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import equity as EQ
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker import showdown
from gamut.envs.palace_poker.tensors import tensor_blocks

NUM_FEATURES = 38
# First entry of each block (see the module docstring).
F_KIND, F_CHIPS, F_OPP, F_MINE, F_EQUITY = 0, 10, 15, 26, 36
KIND_STAY, KIND_TURN_FOLD, KIND_BUY, KIND_PAID_DISCARD, KIND_BET = 0, 1, 2, 3, 4
KIND_BATTLE_FOLD, KIND_CALL, KIND_RAISE, KIND_DONE, KIND_DISCARD_CARD = 5, 6, 7, 8, 9
LEVEL_SCALE = float(NUM_CATEGORIES << CATEGORY_SHIFT)
# Offsets into the ``offsets`` array handed to the kernel, one per tensor block read.
(O_TO_MOVE, O_PHASE, O_IN, O_QUIET, O_STACK, O_CONTRIB, O_CARDS, O_ATTACKER, O_DEFENDER, O_BATTLE,
 O_DISCARD, O_PILES, O_COUNTS) = range(13)
_BLOCKS = ("to_move", "phase", "in_hand", "quiet", "stack", "contribution", "cards", "attacker", "defender",
           "battle", "discard_phase", "piles", "action_counts")


def block_offsets(n: int, perfect_recall: bool) -> np.ndarray:
    """Start int64 ``(13,)`` of each block the features read (``-1``: absent), from ``tensors.tensor_blocks``."""
    starts = {}
    at = 0
    for name, shape in tensor_blocks(n, perfect_recall):
        starts[name] = at
        at += int(np.prod(shape))
    return np.array([starts.get(name, -1) for name in _BLOCKS], np.int64)


@numba.njit(cache=True)
def _level(strength):
    return strength / LEVEL_SCALE


@numba.njit(cache=True)
def rebuild_state(row, cfg, offsets, state):
    """Write into ``state`` the kernel state of the tensor ``row`` as its observer sees it; return the mover.

    Cards the tensor does not locate are left in the draw pile, which holds
    no one's cards, so hand values count only what the mover sees.
    """
    n = cfg[L.C_PLAYERS]
    chips = float(cfg[L.C_STACK])
    state[:] = 0
    for q in range(L.MAX_PLAYERS):
        state[L.S_BANNER + q] = -1
    mover = -1
    for q in range(n):
        if row[offsets[O_TO_MOVE] + q] > 0.5:
            mover = q
        if row[offsets[O_IN] + q] > 0.5:
            state[L.S_IN] |= np.int64(1) << q
        if row[offsets[O_QUIET] + q] > 0.5:
            state[L.S_QUIET] |= np.int64(1) << q
        state[L.S_STACK + q] = int(round(row[offsets[O_STACK] + q] * chips))
        state[L.S_CONTRIB + q] = int(round(row[offsets[O_CONTRIB] + q] * chips))
    for ph in range(L.NUM_PHASES):
        if row[offsets[O_PHASE] + ph] > 0.5:
            state[L.S_PHASE] = ph
    width = 3 + 3 * n
    for c in range(L.NUM_CARDS):
        loc = L.LOC_DRAW
        located = False
        for col in range(width):
            if row[offsets[O_CARDS] + c * width + col] > 0.5:
                located = True
                if col < 3:
                    loc = col
                else:
                    kind = (col - 3) // n
                    loc = L.LOC_BANNER + kind * L.MAX_PLAYERS + (col - 3) % n
        state[L.S_LOC + c] = loc
        if located:
            state[L.S_PUBLIC] |= np.int64(1) << c
        if L.LOC_BANNER <= loc < L.LOC_BANNER + L.MAX_PLAYERS:
            state[L.S_BANNER + loc - L.LOC_BANNER] = c
        elif loc >= L.LOC_SOLDIER:
            state[L.S_NSOLD + loc - L.LOC_SOLDIER] += 1
    state[L.S_TURN_PLAYER] = mover
    state[L.S_ACTOR] = mover
    state[L.S_ATTACKER] = -1
    state[L.S_DEFENDER] = -1
    state[L.S_DISC_LAST] = -1
    if state[L.S_PHASE] == L.PH_BATTLE:
        for q in range(n):
            if row[offsets[O_ATTACKER] + q] > 0.5:
                state[L.S_ATTACKER] = q
            if row[offsets[O_DEFENDER] + q] > 0.5:
                state[L.S_DEFENDER] = q
        state[L.S_TO_CALL] = int(round(row[offsets[O_BATTLE]] * chips))
        state[L.S_RAISES] = int(round(row[offsets[O_BATTLE] + 1] * max(1, cfg[L.C_MAX_RAISES])))
    if state[L.S_PHASE] == L.PH_DISCARD:
        for k in range(3):
            if row[offsets[O_DISCARD] + k] > 0.5:
                state[L.S_DISC_KIND] = k
        state[L.S_DISC_LAST] = int(round(row[offsets[O_DISCARD] + 3] * L.NUM_CARDS)) - 1
        state[L.S_DISC_COUNT] = int(round(row[offsets[O_DISCARD] + 4] * L.MAX_HELD_SOLDIERS))
    turns = float(cfg[L.C_MAX_TURNS])
    state[L.S_TURNS] = int(round(row[offsets[O_PILES]] * turns))
    state[L.S_RESHUFFLES] = int(round(row[offsets[O_PILES] + 3] * turns))
    if offsets[O_COUNTS] >= 0:
        raises = turns * max(1, cfg[L.C_MAX_RAISES])
        for q in range(n):
            for k in range(L.NUM_COUNTS):
                scale = raises if k == L.NUM_COUNTS - 1 else turns
                state[L.S_COUNTS + L.NUM_COUNTS * q + k] = int(round(row[offsets[O_COUNTS] + L.NUM_COUNTS * q + k]
                                                                     * scale))
    return mover


@numba.njit(cache=True)
def _kind(state, cfg, action):
    ph = state[L.S_PHASE]
    if ph == L.PH_BATTLE:
        if action == L.FOLD:
            return KIND_BATTLE_FOLD
        return KIND_CALL if action == L.CALL else KIND_RAISE
    if ph == L.PH_DISCARD:
        return KIND_DONE if action == L.DONE else KIND_DISCARD_CARD
    if action >= cfg[L.C_BET_BASE]:
        return KIND_BET
    return action  # STAY, FOLD, BUY, DISCARD are kinds 0..3


@numba.njit(cache=True)
def _visible_own_suit(state, q):
    # The own-suit tie-break count over the cards of seat q placed in the rebuilt state.
    return showdown.own_suit_count(state, q)


@numba.njit(cache=True)
def _features_row(state, cfg, mover, mask_row, table, out):
    n = cfg[L.C_PLAYERS]
    chips = float(cfg[L.C_STACK])
    s = cfg[L.C_SMALL]
    pot = 0
    for q in range(n):
        pot += state[L.S_CONTRIB + q]
    my_level = _level(showdown.player_hand_value(state, mover, -1, table))
    best_other = 0.0
    for q in range(n):
        if q != mover and (state[L.S_IN] >> q) & 1:
            best_other = max(best_other, _level(showdown.player_hand_value(state, q, -1, table)))
    # Visible level of every seat the mover may attack, for the weakest-target flag.
    weakest = 2.0
    if state[L.S_PHASE] == L.PH_TURN:
        for q in range(n):
            if (q != mover and (state[L.S_IN] >> q) & 1
                    and showdown.banner_suit(state, q) != showdown.banner_suit(state, mover)):
                weakest = min(weakest, _level(showdown.player_hand_value(state, q, showdown.banner_suit(state, mover),
                                                                         table)))
    # Exact battle equity against each seat the mover may meet in a battle now (-1: not needed).
    equity = np.full(L.MAX_PLAYERS, -1.0)
    scratch = np.empty(EQ.WORK_SIZE, np.int64)
    best_equity = -1.0
    if state[L.S_PHASE] == L.PH_TURN:
        for a in range(cfg[L.C_BET_BASE], mask_row.shape[0]):
            if mask_row[a]:
                q = K.bet_target_level(cfg, a)[0]
                if equity[q] < 0:
                    equity[q] = EQ.exact_equity(state, mover, q, table, scratch)
                    best_equity = max(best_equity, equity[q])
    elif state[L.S_PHASE] == L.PH_BATTLE:
        q = state[L.S_ATTACKER] + state[L.S_DEFENDER] - mover
        equity[q] = EQ.exact_equity(state, mover, q, table, scratch)
    work = np.empty_like(state)
    for a in range(mask_row.shape[0]):
        if not mask_row[a]:
            continue
        row = out[a]
        kind = _kind(state, cfg, a)
        row[F_KIND + kind] = 1.0
        work[:] = state
        stack_before = state[L.S_STACK + mover]
        K.apply_action(work, cfg, a, table)
        paid = stack_before - work[L.S_STACK + mover]
        if paid > 0:
            row[F_CHIPS] = paid / chips
            row[F_CHIPS + 1] = paid / float(pot + paid)
            row[F_CHIPS + 2] = paid / float(stack_before)
            row[F_CHIPS + 3] = 1.0 if work[L.S_STACK + mover] == 0 else 0.0
        opp = -1
        if kind == KIND_BET:
            opp, level = K.bet_target_level(cfg, a)
            row[F_CHIPS + 4] = (level + 1) / float(cfg[L.C_BET_LEVELS] + 1)
        elif kind == KIND_RAISE:
            row[F_CHIPS + 4] = (a - L.RAISE_BASE + 1) / float(cfg[L.C_RAISE_LEVELS] + 1)
        if kind == KIND_BATTLE_FOLD or kind == KIND_CALL or kind == KIND_RAISE:
            opp = state[L.S_ATTACKER] + state[L.S_DEFENDER] - mover
        if opp >= 0:
            theirs = _level(showdown.player_hand_value(state, opp, showdown.banner_suit(state, mover), table))
            mine = _level(showdown.player_hand_value(state, mover, showdown.banner_suit(state, opp), table))
            row[F_OPP] = 1.0
            row[F_OPP + 1] = theirs
            row[F_OPP + 2] = mine
            row[F_OPP + 3] = mine - theirs
            row[F_OPP + 4] = (L.PALACE_SIZE - K.count_at(state, L.LOC_PALACE + opp)) / float(L.PALACE_SIZE)
            row[F_OPP + 5] = state[L.S_NSOLD + opp] / float(L.MAX_SOLDIERS)
            row[F_OPP + 6] = state[L.S_STACK + opp] / chips
            row[F_OPP + 7] = (_visible_own_suit(state, mover) - _visible_own_suit(state, opp)) / 9.0
            if kind == KIND_BET and theirs <= weakest:
                row[F_OPP + 8] = 1.0
            row[F_OPP + 9] = min(5, state[L.S_COUNTS + L.NUM_COUNTS * opp + 3]) / 5.0
            row[F_OPP + 10] = min(5, state[L.S_COUNTS + L.NUM_COUNTS * opp + 4]) / 5.0
            row[F_MINE + 9] = (state[L.S_NSOLD + opp] + 1) * s / chips
            row[F_EQUITY] = equity[opp]
            if kind == KIND_BET and equity[opp] >= best_equity:
                row[F_EQUITY + 1] = 1.0
        else:
            # Only a discarded soldier changes the hand (a fold gives the current one up, a buy has not drawn yet).
            after = _level(showdown.player_hand_value(work, mover, -1, table)) if kind == KIND_DISCARD_CARD else my_level
            row[F_MINE] = after
            if kind == KIND_DISCARD_CARD:
                c = a - L.DISCARD_CARD
                row[F_MINE + 1] = my_level - after
                row[F_MINE + 3] = ((c >> 2) + 1) / 13.0
                row[F_MINE + 4] = 1.0 if (c & 3) == showdown.banner_suit(state, mover) else 0.0
                row[F_MINE + 5] = 1.0 if after < my_level else 0.0
            row[F_MINE + 6] = after - best_other
            row[F_MINE + 7] = 1.0 if work[L.S_PHASE] == L.PH_OVER else 0.0
        # A battle's outcome depends on cards the mover cannot see: its actions keep today's counts.
        seen = work if opp < 0 else state
        row[F_MINE + 2] = seen[L.S_NSOLD + mover] / float(L.MAX_SOLDIERS)
        row[F_MINE + 8] = showdown.popcount(seen[L.S_IN]) / float(n)


@numba.njit(cache=True)
def _features(inputs, mask, cfg, offsets, table, out):
    state = np.zeros(L.STATE_SIZE, np.int64)
    for i in range(inputs.shape[0]):
        if not mask[i].any():
            continue
        mover = rebuild_state(inputs[i], cfg, offsets, state)
        _features_row(state, cfg, mover, mask[i], table, out[i])


class PalaceFeatures(ActionFeatures):
    """Palace Poker's action features, float32 ``(N, A, 38)`` for one variant.

    The attributes and the call are those of
    ``gamut.envs.action_features.ActionFeatures``; ``return_scale`` is ten
    small bets (20 chips with the default stakes), about what a hand won
    against two or three callers brings.
    """

    size = NUM_FEATURES
    name = "Palace Poker"

    def __init__(self, game):
        super().__init__(game)
        self.cfg = np.ascontiguousarray(game.cfg, np.int64)
        self.return_scale = float(10 * self.cfg[L.C_SMALL])
        self.read_layouts(game, lambda recall: block_offsets(game.num_players(), recall))

    def compute(self, inputs: np.ndarray, mask: np.ndarray, offsets) -> np.ndarray:
        out = np.zeros((inputs.shape[0], self.num_actions, NUM_FEATURES), np.float32)
        _features(np.ascontiguousarray(inputs, np.float32), np.ascontiguousarray(mask, np.bool_), self.cfg, offsets,
                  HAND_TABLE, out)
        return out


def action_features(game) -> PalaceFeatures:
    """Palace Poker's declared action features (``GAME.action_features``) for any variant of ``game``."""
    return PalaceFeatures(game)
