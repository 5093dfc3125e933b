"""Scorecard variants of poker dice as data, compiled to arrays for the kernels.

A variant (the scorecard games of ``docs/games/poker_dice.md``) is a table of
boxes. Each box names a *requirement* and a *points* rule (strings parsed
below), an unscaled *premium* added when the requirement is met, whether its
points double when made with the turn's first roll, its stage, whether it
belongs to the bonus group, the face it aims at (upper boxes) and its joker
value. Variant-wide data: the group bonus (threshold, bonus), the first-roll
multiplier, banked rolls, the repeat bonus (extra Yahtzee) and the joker box
with its priority tiers. The kernels in :mod:`gamut.envs.poker_dice.scoring` read
only the compiled arrays, so a new variant is a new table, not new code.

Requirement strings: ``none``, ``kind:N`` (at least N alike), ``two_pairs``,
``full_house``, ``small_straight``, ``large_straight``.
Points strings: ``face_sum:F`` (sum of the dice showing F), ``face_aim:F``
(``(n - 3) * F``), ``face_aim_neg:F`` (``min(0, (n - 3) * F)``), ``dice_sum``,
``fixed:V``, ``kind_sum:N`` (N dice of the best face), ``two_pairs_sum``,
``small_straight_sum``, ``large_straight_sum``.

Worked example (classic pair box on 6,6,6,2,2 made with the first roll)::

    >>> v = make_variant("classic")
    >>> t = compile_variant(v)
    >>> from gamut.envs.dice import roll_id
    >>> b = box_names(v).index("pair")
    >>> int(t.points[b, roll_id((6, 6, 6, 2, 2))]) * t.first_roll_multiplier
    24
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gamut.envs import dice

JOKER_MODES = ("free", "forced", "none")
VARIANT_NAMES = ("classic", "classic_banked", "yacht12", "yahtzee")
AUX_NONE, AUX_REPEAT_FLAG, AUX_BANK = 0, 1, 2


@dataclass(frozen=True)
class Box:
    """One scorecard box; see the module docstring for the rule strings."""

    name: str
    requirement: str
    points: str
    premium: int = 0
    doubles: bool = False
    stage: int = 0
    in_group: bool = False
    face: int = 0
    joker_points: int = -1


@dataclass(frozen=True)
class Variant:
    """A scorecard game as data.

    ``joker_tiers`` is ``(matching upper box, lower box, other upper box)``: when a
    joker roll is recorded only open boxes of the lowest tier present may be used.
    """

    name: str
    boxes: tuple[Box, ...]
    group_threshold: int = 0
    group_bonus: int = 0
    first_roll_multiplier: int = 1
    bank_rolls: bool = False
    bank_value: int = 0
    bank_stages: tuple[int, ...] = ()
    repeat_box: str = ""
    repeat_bonus: int = 0
    joker_box: str = ""
    joker_tiers: tuple[int, int, int] = (0, 0, 0)
    joker: str = "none"


_FACES = ("ones", "twos", "threes", "fours", "fives", "sixes")


def _classic(banked: bool) -> Variant:
    aim = "face_aim_neg" if banked else "face_aim"
    upper = tuple(Box(n, "none", f"{aim}:{f}", stage=0, in_group=True, face=f)
                  for f, n in enumerate(_FACES, 1))
    lower = (
        Box("pair", "kind:2", "kind_sum:2", doubles=True, stage=1),
        Box("two pairs", "two_pairs", "two_pairs_sum", doubles=True, stage=1),
        Box("three of a kind", "kind:3", "kind_sum:3", doubles=True, stage=1),
        Box("small straight", "small_straight", "small_straight_sum", doubles=True, stage=1),
        Box("large straight", "large_straight", "large_straight_sum", doubles=True, stage=1),
        Box("full house", "full_house", "dice_sum", doubles=True, stage=1),
        Box("four of a kind", "kind:4", "kind_sum:4", premium=30 if banked else 0,
            doubles=True, stage=1),
        Box("poker", "kind:5", "kind_sum:5", premium=50, doubles=True, stage=1),
        Box("chance", "none", "dice_sum", stage=1),
    )
    return Variant(
        name="classic_banked" if banked else "classic", boxes=upper + lower,
        group_threshold=0, group_bonus=50, first_roll_multiplier=2,
        bank_rolls=banked, bank_value=3 if banked else 0, bank_stages=(1,) if banked else (),
    )


def _yacht12() -> Variant:
    upper = tuple(Box(n, "none", f"face_sum:{f}", face=f) for f, n in enumerate(_FACES, 1))
    lower = (
        Box("four of a kind", "kind:4", "dice_sum"),
        Box("full house", "full_house", "dice_sum"),
        Box("small straight", "small_straight", "fixed:25"),
        Box("large straight", "large_straight", "fixed:30"),
        Box("poker", "kind:5", "fixed:50"),
        Box("chance", "none", "dice_sum"),
    )
    return Variant(name="yacht12", boxes=upper + lower)


def _yahtzee(joker: str) -> Variant:
    upper = tuple(Box(n, "none", f"face_sum:{f}", in_group=True, face=f)
                  for f, n in enumerate(_FACES, 1))
    use_joker = joker != "none"
    lower = (
        Box("three of a kind", "kind:3", "dice_sum"),
        Box("four of a kind", "kind:4", "dice_sum"),
        Box("full house", "full_house", "fixed:25", joker_points=25 if use_joker else -1),
        Box("small straight", "small_straight", "fixed:30", joker_points=30 if use_joker else -1),
        Box("large straight", "large_straight", "fixed:40", joker_points=40 if use_joker else -1),
        Box("yahtzee", "kind:5", "fixed:50"),
        Box("chance", "none", "dice_sum"),
    )
    return Variant(
        name="yahtzee", boxes=upper + lower, group_threshold=63, group_bonus=35,
        repeat_box="yahtzee", repeat_bonus=100,
        joker_box="yahtzee" if use_joker else "",
        joker_tiers=(0, 1, 2) if joker == "forced" else (0, 0, 0), joker=joker,
    )


def make_variant(name: str, joker: str = "free") -> Variant:
    """The variant called ``name`` (one of ``VARIANT_NAMES``); ``joker`` applies to yahtzee."""
    if joker not in JOKER_MODES:
        raise ValueError(f"joker {joker!r} is not one of {', '.join(JOKER_MODES)}")
    if name == "classic":
        return _classic(banked=False)
    if name == "classic_banked":
        return _classic(banked=True)
    if name == "yacht12":
        return _yacht12()
    if name == "yahtzee":
        return _yahtzee(joker)
    raise ValueError(f"variant {name!r} is not one of {', '.join(VARIANT_NAMES)}")


def box_names(variant: Variant) -> list[str]:
    """Names of the boxes of ``variant`` in box-id order."""
    return [b.name for b in variant.boxes]


VariantTables = namedtuple("VariantTables", [
    "num_boxes", "meets", "points", "premium", "doubles", "stage", "in_group", "face",
    "joker_points", "upper_box_of_face", "joker_tier_match", "joker_tier_lower",
    "joker_tier_upper",
    "first_roll_multiplier", "group_mask", "group_threshold", "group_bonus", "sum_lo",
    "num_sums", "aux_kind", "num_aux", "bank_value", "bank_stage_ok", "repeat_box",
    "repeat_bonus", "joker_box", "max_score", "min_score", "params", "box_data", "roll_data",
])
"""Compiled variant. Arrays over boxes ``b`` and rolls ``r``: ``meets[b, r]`` bool,
``points[b, r]`` int64 points when met (multiplied by ``first_roll_multiplier``
after a first roll when ``doubles[b]``), ``premium``, ``doubles``, ``stage``,
``in_group``, ``face`` (0 for boxes without a face) and ``joker_points`` (-1: none),
all ``(num_boxes,)``; ``upper_box_of_face[f]`` (7,) the box aiming at face ``f``
or -1. The joker tiers are ints for the matching upper box, a lower box (face 0)
and another upper box. The bonus group's running total is kept
clipped to ``sum_lo .. sum_lo + num_sums - 1``. ``aux_kind`` says what the
auxiliary state number holds: nothing, the repeat flag (repeat box holds a
non-zero score) or the number of banked rolls (``num_aux - 1`` at most).
``bank_stage_ok[s]`` is 1 when banked rolls may be spent in stage ``s``.
``max_score[b]``/``min_score[b]`` bound what box ``b`` can score (int64).

The kernels read the same data packed in three int64 arrays (numba would
reference-count every array field of a tuple on each access): ``params``
(``NUM_PARAMS``,) indexed by the ``P_*`` constants, ``box_data`` (num_boxes,
``NUM_BOX_FIELDS``) indexed by ``B_*`` and ``roll_data`` (5, num_boxes, 252) with
``roll_data[R_MEETS]`` 0/1, ``roll_data[R_POINTS]`` the points when met, and the
resulting score of a non-joker roll (0 when unmet, else points, doubled as the
box says, plus premium) in ``roll_data[R_SCORE]`` (not the first roll) and
``roll_data[R_SCORE_FIRST]`` (the first roll); ``roll_data[R_LOW_FACE, b]`` is the
lowest face of each roll (the same for every ``b``; kernels read it instead of a
global table, which numba would rebuild on every inlined call)."""

(P_NUM_BOXES, P_FIRST_MULT, P_GROUP_MASK, P_GROUP_THRESHOLD, P_GROUP_BONUS, P_SUM_LO,
 P_NUM_SUMS, P_AUX_KIND, P_NUM_AUX, P_BANK_VALUE, P_REPEAT_BOX, P_REPEAT_BONUS, P_JOKER_BOX,
 P_TIER_MATCH, P_TIER_LOWER, P_TIER_UPPER) = range(16)
P_UPPER_OF_FACE = 16  # 7 entries: the box aiming at face 0..6 (-1: none)
P_BANK_STAGE_OK = 23  # MAX_STAGES entries
MAX_STAGES = 4
NUM_PARAMS = P_BANK_STAGE_OK + MAX_STAGES
B_PREMIUM, B_DOUBLES, B_STAGE, B_IN_GROUP, B_FACE, B_JOKER_POINTS = range(6)
NUM_BOX_FIELDS = 6
R_MEETS, R_POINTS, R_SCORE, R_SCORE_FIRST, R_LOW_FACE = range(5)


def _requirement_row(text: str) -> np.ndarray:
    kind, _, arg = text.partition(":")
    if kind == "none":
        return np.ones(dice.NUM_ROLLS, dtype=np.bool_)
    if kind == "kind":
        return dice.ROLL_HAS_N_OF_A_KIND[:, int(arg)].copy()
    table = {
        "two_pairs": dice.ROLL_HAS_TWO_PAIRS, "full_house": dice.ROLL_HAS_FULL_HOUSE,
        "small_straight": dice.ROLL_HAS_SMALL_STRAIGHT,
        "large_straight": dice.ROLL_HAS_LARGE_STRAIGHT,
    }
    if kind not in table:
        raise ValueError(f"unknown requirement {text!r}")
    return table[kind].copy()


def _points_of(text: str, counts: np.ndarray) -> int:
    kind, _, arg = text.partition(":")
    if kind in ("face_sum", "face_aim", "face_aim_neg"):
        face = int(arg)
        n = int(counts[face - 1])
        value = {"face_sum": n * face, "face_aim": (n - 3) * face,
                 "face_aim_neg": min(0, (n - 3) * face)}[kind]
        return value
    if kind == "fixed":
        return int(arg)
    if kind == "kind_sum":
        return int(dice.best_n_of_a_kind_sum(counts, int(arg)))
    simple = {
        "dice_sum": dice.dice_sum, "two_pairs_sum": dice.best_two_pairs_sum,
        "small_straight_sum": dice.best_small_straight_sum,
        "large_straight_sum": dice.large_straight_sum,
    }
    if kind not in simple:
        raise ValueError(f"unknown points rule {text!r}")
    return int(simple[kind](counts))


def compile_variant(variant: Variant) -> VariantTables:
    """Arrays the kernels read, built from ``variant``'s box table (see ``VariantTables``)."""
    boxes = variant.boxes
    n = len(boxes)
    meets = np.stack([_requirement_row(b.requirement) for b in boxes])
    points = np.array([[_points_of(b.points, dice.ROLL_COUNTS[r]) for r in range(dice.NUM_ROLLS)]
                       for b in boxes], dtype=np.int64)
    doubles = np.array([b.doubles for b in boxes], dtype=np.bool_)
    premium = np.array([b.premium for b in boxes], dtype=np.int64)
    mult = variant.first_roll_multiplier
    met_points = np.where(meets, points, 0)
    scale = np.where(doubles, mult, 1)[:, None]
    joker_points = np.array([b.joker_points for b in boxes], dtype=np.int64)
    # A box's score: met points (doubled after a first roll when it doubles) + premium,
    # 0 when unmet, or its joker value.
    max_score = np.maximum((met_points * scale).max(axis=1) + premium, joker_points.clip(0))
    min_score = np.minimum(met_points.min(axis=1), 0)
    in_group = np.array([b.in_group for b in boxes], dtype=np.bool_)
    group_mask = int(sum(1 << i for i in range(n) if in_group[i]))
    if group_mask:
        lo = int(min_score[in_group].sum())
        hi = int(max_score[in_group].sum())
        if lo >= 0:
            hi = min(hi, variant.group_threshold)  # totals past the threshold all earn the bonus
        hi = max(hi, lo)
    else:
        lo = hi = 0
    index = {name: i for i, name in enumerate(box_names(variant))}
    if variant.bank_rolls:
        aux_kind, num_aux = AUX_BANK, 2 * n + 1  # at most two unused rolls per turn
    elif variant.repeat_box:
        aux_kind, num_aux = AUX_REPEAT_FLAG, 2
    else:
        aux_kind, num_aux = AUX_NONE, 1
    stages = np.array([b.stage for b in boxes], dtype=np.int64)
    tiers = variant.joker_tiers
    faces = np.array([b.face for b in boxes], dtype=np.int64)
    upper_box_of_face = np.full(dice.NUM_FACES + 1, -1, dtype=np.int64)
    for i in np.nonzero(faces)[0]:
        upper_box_of_face[faces[i]] = i
    if stages.max() >= MAX_STAGES:
        raise ValueError(f"variant {variant.name!r} has more than {MAX_STAGES} stages")
    repeat_box = index[variant.repeat_box] if variant.repeat_box else -1
    joker_box = index[variant.joker_box] if variant.joker_box else -1
    bank_stage_ok = np.array([s in variant.bank_stages for s in range(MAX_STAGES)], dtype=np.int64)
    params = np.zeros(NUM_PARAMS, dtype=np.int64)
    params[:P_UPPER_OF_FACE] = (
        n, mult, group_mask, variant.group_threshold, variant.group_bonus, lo, hi - lo + 1,
        aux_kind, num_aux, variant.bank_value, repeat_box, variant.repeat_bonus, joker_box, *tiers,
    )
    params[P_UPPER_OF_FACE:P_BANK_STAGE_OK] = upper_box_of_face
    params[P_BANK_STAGE_OK:] = bank_stage_ok
    box_data = np.column_stack([premium, doubles, stages, in_group, faces, joker_points])
    score = np.where(meets, points + premium[:, None], 0)
    score_first = np.where(meets, points * scale + premium[:, None], 0)
    low_face = np.broadcast_to(dice.ROLL_FACES[:, 0], points.shape)
    roll_data = np.stack([meets, points, score, score_first, low_face]).astype(np.int64)
    return VariantTables(
        num_boxes=n, meets=meets, points=points, premium=premium, doubles=doubles,
        stage=stages, in_group=in_group, face=faces, joker_points=joker_points,
        upper_box_of_face=upper_box_of_face, joker_tier_match=tiers[0],
        joker_tier_lower=tiers[1], joker_tier_upper=tiers[2],
        first_roll_multiplier=mult, group_mask=group_mask,
        group_threshold=variant.group_threshold, group_bonus=variant.group_bonus,
        sum_lo=lo, num_sums=hi - lo + 1, aux_kind=aux_kind, num_aux=num_aux,
        bank_value=variant.bank_value,
        bank_stage_ok=bank_stage_ok, repeat_box=repeat_box, repeat_bonus=variant.repeat_bonus,
        joker_box=joker_box,
        max_score=max_score.astype(np.int64), min_score=min_score.astype(np.int64),
        params=params, box_data=box_data.astype(np.int64), roll_data=roll_data,
    )


def ranking_tables() -> VariantTables:
    """A card without boxes, for the ranking game, so every turn kernel takes one shape."""
    n = 0
    empty = np.zeros(n, dtype=np.int64)
    params = np.zeros(NUM_PARAMS, dtype=np.int64)
    params[[P_NUM_SUMS, P_NUM_AUX]] = 1
    params[[P_REPEAT_BOX, P_JOKER_BOX]] = -1
    params[P_UPPER_OF_FACE:P_BANK_STAGE_OK] = -1
    return VariantTables(
        num_boxes=n, meets=np.zeros((n, dice.NUM_ROLLS), dtype=np.bool_),
        points=np.zeros((n, dice.NUM_ROLLS), dtype=np.int64), premium=empty,
        doubles=empty.astype(np.bool_), stage=empty, in_group=empty.astype(np.bool_), face=empty,
        joker_points=empty, upper_box_of_face=np.full(dice.NUM_FACES + 1, -1, dtype=np.int64),
        joker_tier_match=0, joker_tier_lower=0, joker_tier_upper=0, first_roll_multiplier=1,
        group_mask=0, group_threshold=0, group_bonus=0, sum_lo=0, num_sums=1, aux_kind=AUX_NONE,
        num_aux=1, bank_value=0, bank_stage_ok=np.zeros(MAX_STAGES, dtype=np.int64),
        repeat_box=-1, repeat_bonus=0, joker_box=-1, max_score=empty, min_score=empty,
        params=params, box_data=np.zeros((n, NUM_BOX_FIELDS), dtype=np.int64),
        roll_data=np.zeros((5, n, dice.NUM_ROLLS), dtype=np.int64),
    )
