"""Scorecard rules as Numba kernels over a compiled variant.

These kernels are the one implementation of scoring used by the exact solver
and the game: which boxes may be filled, what a box scores, and the scorecard
state after recording a roll. They read the packed arrays of
:class:`gamut.envs.poker_dice.scorecard.VariantTables`: ``p`` = ``params``,
``bx`` = ``box_data``, ``rd`` = ``roll_data``.

A scorecard situation is ``(mask, group_total, aux)``: bit ``b`` of ``mask`` is
set when box ``b`` is filled; ``group_total`` is the running total of the bonus
group clipped to ``sum_lo .. sum_lo + num_sums - 1``; ``aux`` is the repeat flag
(the repeat box holds a non-zero score) or the number of banked rolls,
according to the variant's ``aux_kind``.

Worked example (yahtzee, free joker: five sixes after the Yahtzee box was
filled with 50 and the sixes box filled; the full house then scores its joker
value 25 and the repeat bonus adds 100)::

    >>> from gamut.envs.poker_dice.scorecard import compile_variant, make_variant
    >>> from gamut.envs.dice import roll_id
    >>> t = compile_variant(make_variant("yahtzee", "free"))
    >>> mask = (1 << 11) | (1 << 5)            # yahtzee box and sixes box filled
    >>> points, new_mask, total, flag = record(
    ...     t.params, t.box_data, t.roll_data, mask, 0, 1, roll_id((6,) * 5), False, 8, 0)
    >>> int(points), new_mask == mask | (1 << 8), int(flag)
    (125, True, 1)
"""

from __future__ import annotations

import numba

from gamut.envs.poker_dice.scorecard import (
    AUX_BANK, AUX_REPEAT_FLAG, B_FACE, B_IN_GROUP, B_JOKER_POINTS, B_STAGE, P_AUX_KIND,
    P_BANK_VALUE, P_GROUP_BONUS, P_GROUP_MASK, P_GROUP_THRESHOLD, P_JOKER_BOX, P_NUM_BOXES, P_NUM_SUMS, P_REPEAT_BONUS, P_REPEAT_BOX,
    P_SUM_LO, P_TIER_LOWER, P_TIER_MATCH, P_TIER_UPPER, P_UPPER_OF_FACE, R_LOW_FACE, R_MEETS,
    R_SCORE, R_SCORE_FIRST,
)

# These scalar kernels never allocate, so they are compiled without reference
# counting: with it, every call made inside the solver's per-roll loops paid
# atomic increments and decrements on its array arguments (measured 20-70x slower).
_kernel = numba.njit(cache=True, _nrt=False)


@_kernel
def current_stage(p, bx, mask):
    """Lowest stage that still has an open box (``-1`` when the card is full)."""
    stage = -1
    for b in range(p[P_NUM_BOXES]):
        if not (mask >> b) & 1 and (stage < 0 or bx[b, B_STAGE] < stage):
            stage = bx[b, B_STAGE]
    return stage


@_kernel
def joker_active(p, rd, mask, roll):
    """True when ``roll`` is a joker: it meets the joker box's requirement and that box is filled."""
    jb = p[P_JOKER_BOX]
    return jb >= 0 and (mask >> jb) & 1 == 1 and rd[R_MEETS, jb, roll] == 1


@_kernel
def _joker_tier(p, bx, rd, b, roll):
    face = bx[b, B_FACE]
    if face == 0:
        return p[P_TIER_LOWER]
    if face == rd[R_LOW_FACE, 0, roll]:
        return p[P_TIER_MATCH]
    return p[P_TIER_UPPER]


@_kernel
def allowed_boxes(p, bx, rd, mask, roll, out):
    """Mark in ``out`` (bool, ``(num_boxes,)``, written in place) the boxes that may
    record ``roll``: open, of the current stage, and of the lowest joker tier among
    those when ``roll`` is a joker. Returns how many are allowed."""
    n = p[P_NUM_BOXES]
    stage = current_stage(p, bx, mask)
    jokered = joker_active(p, rd, mask, roll)
    lowest = 1 << 30
    if jokered:
        for b in range(n):
            if not (mask >> b) & 1 and bx[b, B_STAGE] == stage:
                lowest = min(lowest, _joker_tier(p, bx, rd, b, roll))
    count = 0
    for b in range(n):
        ok = not (mask >> b) & 1 and bx[b, B_STAGE] == stage
        if ok and jokered:
            ok = _joker_tier(p, bx, rd, b, roll) == lowest
        out[b] = ok
        count += ok
    return count


@_kernel
def box_score(p, bx, rd, mask, roll, first, b):
    """Points written in box ``b`` for ``roll`` (``first``: made with the turn's first roll).

    A joker scores a box's joker value when the upper box of its face is filled;
    otherwise a met requirement scores its points (times the first-roll multiplier
    when the box doubles) plus the premium, and an unmet one scores 0.
    """
    if bx[b, B_JOKER_POINTS] >= 0 and joker_active(p, rd, mask, roll):
        upper = p[P_UPPER_OF_FACE + rd[R_LOW_FACE, 0, roll]]
        if upper < 0 or (mask >> upper) & 1:
            return bx[b, B_JOKER_POINTS]
    return rd[R_SCORE_FIRST if first else R_SCORE, b, roll]


@_kernel
def repeat_bonus(p, rd, aux, roll):
    """Extra points for ``roll`` when the repeat box already holds a non-zero score."""
    if p[P_AUX_KIND] == AUX_REPEAT_FLAG and aux == 1 and rd[R_MEETS, p[P_REPEAT_BOX], roll]:
        return p[P_REPEAT_BONUS]
    return 0


@_kernel
def record(p, bx, rd, mask, group_total, aux, roll, first, b, bank_after):
    """Record ``roll`` in box ``b``; returns ``(points, new_mask, new_group_total, new_aux)``.

    ``points`` includes the repeat bonus and the group bonus when this box
    completes the group (the group total is then reset to ``sum_lo``);
    ``bank_after`` is the new bank when the variant banks rolls. The caller
    checks :func:`allowed_boxes`.
    """
    score = box_score(p, bx, rd, mask, roll, first, b)
    points = score + repeat_bonus(p, rd, aux, roll)
    new_mask = mask | (1 << b)
    new_total = group_total
    if bx[b, B_IN_GROUP]:
        lo = p[P_SUM_LO]
        new_total = min(max(group_total + score, lo), lo + p[P_NUM_SUMS] - 1)
        group = p[P_GROUP_MASK]
        if new_mask & group == group:
            if new_total >= p[P_GROUP_THRESHOLD]:
                points += p[P_GROUP_BONUS]
            new_total = lo
    new_aux = aux
    if p[P_AUX_KIND] == AUX_REPEAT_FLAG:
        if b == p[P_REPEAT_BOX] and score > 0:
            new_aux = 1
    elif p[P_AUX_KIND] == AUX_BANK:
        new_aux = bank_after
    return points, new_mask, new_total, new_aux


@_kernel
def final_value(p, aux):
    """Points awarded when the card is full: each banked roll is worth ``bank_value``."""
    if p[P_AUX_KIND] == AUX_BANK:
        return aux * p[P_BANK_VALUE]
    return 0
