"""The poker-dice observation tensor: layout, scales and the Numba encoder.

One kernel, :func:`encode_observation`, writes the tensor; the pyspiel observer
(:class:`gamut.envs.poker_dice.game.PokerDiceObserver`) and the batched
environment (:mod:`gamut.envs.poker_dice.vector`) both call it.

Layout (float32, ``n`` players, ``B`` boxes, size ``19 + n * (B + 10)``):

==========  ===================  ======  ==================================================
piece       indices              size    value
==========  ===================  ======  ==================================================
``player``  ``0 .. n-1``         n       one-hot of the player to move (zeros at the end)
``dice``    ``n .. n+5``         6       face counts of the dice showing / 5
``rolls``   ``n+6``              1       rolls made this turn / ``scales[SCALE_ROLLS]``
``keep``    ``n+7 .. n+12``      6       face counts of the keep awaiting its roll / 5
``frozen``  ``n+13 .. n+18``     6       ranking: face counts kept at the first reroll / 5
``filled``  ``n+19 ..``          n x B   per player, 1 for filled boxes
``totals``  next ``3n``          n x 3   per player: bonus-group total / ``scales[SCALE_TOTAL]``,
                                         aux / ``scales[SCALE_AUX]``, score / ``scales[SCALE_SCORE]``
``hands``   last ``6n``          n x 6   ranking: face counts of each final hand / 5
==========  ===================  ======  ==================================================

Every entry lies in ``[-1, 1]``; only the bonus-group total and the score of
``classic`` and ``classic_banked`` go below 0 (their ones..sixes boxes score
down to ``-3 * face``). The scales are the largest magnitudes the variant's
tables allow (:func:`observation_scales`).

Worked example (``yacht12``, one player, first roll 1,1,3,4,5; ``rolls`` scale
3, ``score`` scale 298)::

    >>> import pyspiel, gamut.envs.poker_dice.game
    >>> from gamut.envs import dice
    >>> state = pyspiel.load_game("poker_dice(variant=yacht12,players=1)").new_initial_state()
    >>> state.apply_action(dice.roll_id((1, 1, 3, 4, 5)))
    >>> t = state.observation_tensor(0)
    >>> len(t), t[0], [round(x, 2) for x in t[1:8]]    # player, dice / 5, rolls / 3
    (41, 1.0, [0.4, 0.0, 0.2, 0.2, 0.2, 0.0, 0.33])
    >>> state.apply_action(462 + 11)                    # chance box: 14 points
    >>> round(state.observation_tensor(0)[-7] * 298)    # the player's score
    14
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs import dice
from gamut.envs.poker_dice.kernels import (
    BASE_ROLLS, C_PLAYERS, F_AUX, F_HAND, F_MASK, F_SCORE, F_TOTAL, PH_OVER, PLAYER_FIELDS,
    S_FROZEN, S_KEEP, S_PHASE, S_PLAYER, S_PLAYERS, S_ROLL, S_ROLLS,
)
from gamut.envs.poker_dice.scorecard import AUX_BANK, AUX_REPEAT_FLAG, P_NUM_BOXES

SCALE_ROLLS, SCALE_TOTAL, SCALE_AUX, SCALE_SCORE = range(4)
NUM_SCALES = 4
# Pieces of the tensor before the per-player ones, after the player one-hot:
# dice (6), rolls (1), keep (6), frozen (6).
HEADER_SIZE = 3 * dice.NUM_FACES + 1

# Face counts / NUM_DICE of every keep id (rolls are keeps of five dice), as the
# float32 the tensor holds: a table read instead of a division per entry.
COUNT_FRACTIONS = (dice.KEEP_COUNTS / dice.NUM_DICE).astype(np.float32)

# Inlined where it is called from other kernels (the batched environment's row step),
# without reference counting: it never allocates.
_kernel = numba.njit(cache=True, _nrt=False, inline="always")


def observation_pieces(players: int, boxes: int) -> list[tuple[str, tuple[int, ...]]]:
    """``(name, shape)`` of each piece of the tensor, in order (the observer's dict views)."""
    f = dice.NUM_FACES
    return [("player", (players,)), ("dice", (f,)), ("rolls", (1,)), ("keep", (f,)),
            ("frozen", (f,)), ("filled", (players, boxes)), ("totals", (players, 3)),
            ("hands", (players, f))]


def score_bounds(tables) -> tuple[int, int]:
    """``(worst, best)``: bounds of any score a player holds, during the game or at its end.

    ``best`` = every box's best score + the group bonus + a repeat bonus on
    every box after the repeat box's first fill (``boxes - 1``) + the value of
    every roll the bank can hold (two per box); ``worst`` = every box's lowest
    score (boxes score at least ``min_score`` <= 0 and at most ``max_score``
    >= 0, so partial sums stay inside too). A ranking card has no boxes: (0, 0).
    """
    boxes = tables.num_boxes
    repeats = boxes - 1 if tables.aux_kind == AUX_REPEAT_FLAG else 0
    banked = 2 * boxes if tables.aux_kind == AUX_BANK else 0
    best = (int(tables.max_score.sum()) + tables.group_bonus + repeats * tables.repeat_bonus
            + banked * tables.bank_value)
    return int(tables.min_score.sum()), best


def observation_scales(tables) -> np.ndarray:
    """Divisors ``float64 (NUM_SCALES,)`` of the tensor's unbounded entries.

    - ``SCALE_ROLLS``: ``BASE_ROLLS`` (3); with banked rolls ``3 + num_aux - 1``
      (a turn's three rolls plus every banked roll: ``3 + 2 * 15 = 33`` in
      ``classic_banked``).
    - ``SCALE_TOTAL``: the largest magnitude of the clipped bonus-group total,
      ``max(|sum_lo|, |sum_lo + num_sums - 1|)`` (classic: ``|-3 * 21| = 63``,
      yahtzee: the threshold 63), 1 without a group.
    - ``SCALE_AUX``: ``num_aux - 1`` (banked rolls: 30; the extra-Yahtzee
      flag: 1), 1 when there is no aux.
    - ``SCALE_SCORE``: ``max(best, -worst)`` of :func:`score_bounds`
      (yacht12 298, yahtzee 1575, classic 516, classic_banked 594), 1 when both are 0.

    Worked example::

        >>> from gamut.envs.poker_dice.scorecard import compile_variant, make_variant
        >>> observation_scales(compile_variant(make_variant("classic"))).tolist()
        [3.0, 63.0, 1.0, 516.0]
    """
    rolls = BASE_ROLLS + (tables.num_aux - 1 if tables.aux_kind == AUX_BANK else 0)
    hi = tables.sum_lo + tables.num_sums - 1
    worst, best = score_bounds(tables)
    scales = np.ones(NUM_SCALES, dtype=np.float64)
    scales[SCALE_ROLLS] = rolls
    scales[SCALE_TOTAL] = max(abs(tables.sum_lo), abs(hi), 1)
    scales[SCALE_AUX] = max(tables.num_aux - 1, 1)
    scales[SCALE_SCORE] = max(best, -worst, 1)
    return scales


@_kernel
def encode_observation(state, cfg, p, scales, out):
    """Write the observation tensor of ``state`` into ``out`` (float32 ``(size,)``, in place).

    ``state`` is the kernels' int64 state, ``cfg`` the config, ``p`` the variant's
    ``params``, ``scales`` from :func:`observation_scales`. Perfect information:
    every player's tensor is the same. Every entry is written once (no zeroing pass).
    """
    n = cfg[C_PLAYERS]
    boxes = p[P_NUM_BOXES]
    to_move = state[S_PLAYER] if state[S_PHASE] != PH_OVER else -1
    for i in range(n):
        out[i] = 1.0 if i == to_move else 0.0
    # A roll id r is the keep id r + NUM_SHORT_KEEPS; keep 0 (no dice) stands for "no roll".
    roll = state[S_ROLL]
    shown = roll + dice.NUM_SHORT_KEEPS if roll >= 0 else 0
    _write_counts(out, n, shown)
    out[n + 6] = state[S_ROLLS] / scales[SCALE_ROLLS]
    _write_counts(out, n + 7, state[S_KEEP])
    _write_counts(out, n + 13, state[S_FROZEN])
    filled = n + HEADER_SIZE
    totals = filled + n * boxes
    hands = totals + 3 * n
    for i in range(n):
        base = S_PLAYERS + PLAYER_FIELDS * i
        mask = state[base + F_MASK]
        for b in range(boxes):
            out[filled + i * boxes + b] = (mask >> b) & 1
        out[totals + 3 * i] = state[base + F_TOTAL] / scales[SCALE_TOTAL]
        out[totals + 3 * i + 1] = state[base + F_AUX] / scales[SCALE_AUX]
        out[totals + 3 * i + 2] = state[base + F_SCORE] / scales[SCALE_SCORE]
        hand = state[base + F_HAND]
        _write_counts(out, hands + dice.NUM_FACES * i, hand + dice.NUM_SHORT_KEEPS if hand >= 0 else 0)


@_kernel
def _write_counts(out, start, keep):
    for f in range(dice.NUM_FACES):
        out[start + f] = COUNT_FRACTIONS[keep, f]
