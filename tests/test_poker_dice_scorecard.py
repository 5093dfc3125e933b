"""Scorecard variants: compiled tables and scoring kernels against the spec-text reference."""

import numpy as np
import pytest

from gamut.envs import dice
from gamut.envs.poker_dice.scorecard import (
    AUX_BANK, VARIANT_NAMES, box_names, compile_variant, make_variant,
)
from gamut.envs.poker_dice.scoring import allowed_boxes, box_score, current_stage, record
from tests.test_poker_dice_reference import FACE_NAMES, normal_score, turn_outcomes

CASES = [("classic", "free"), ("classic_banked", "free"), ("yacht12", "free"),
         ("yahtzee", "free"), ("yahtzee", "forced"), ("yahtzee", "none")]


def _packed(t):
    return t.params, t.box_data, t.roll_data


@pytest.mark.parametrize("name, joker", CASES)
def test_every_box_scores_every_roll_as_the_spec_says(name, joker):
    variant = make_variant(name, joker)
    t = compile_variant(variant)
    for b, box in enumerate(box_names(variant)):
        for r in range(dice.NUM_ROLLS):
            faces = dice.roll_faces(r)
            for first in (False, True):
                # An empty card: no joker is possible yet.
                got = box_score(*_packed(t), 0, r, first, b)
                assert got == normal_score(name, box, faces, first), (box, faces, first)


def test_variant_shapes():
    sizes = {"classic": 15, "classic_banked": 15, "yacht12": 12, "yahtzee": 13}
    for name in VARIANT_NAMES:
        assert len(box_names(make_variant(name))) == sizes[name]
    classic = compile_variant(make_variant("classic"))
    assert (classic.sum_lo, classic.num_sums) == (-63, 106)  # stage-1 totals -63..+42
    yahtzee = compile_variant(make_variant("yahtzee"))
    assert (yahtzee.sum_lo, yahtzee.num_sums) == (0, 64)  # upper totals capped at 63
    banked = compile_variant(make_variant("classic_banked"))
    assert (banked.sum_lo, banked.num_sums, banked.aux_kind) == (-63, 64, AUX_BANK)


def test_bad_names_raise():
    with pytest.raises(ValueError, match="variant 'nope'"):
        make_variant("nope")
    with pytest.raises(ValueError, match="joker 'wild'"):
        make_variant("yahtzee", "wild")


def _random_situation(rng, family, names, stages):
    """A random reachable card: filled boxes respect the stage order; realistic scores."""
    n = len(names)
    while True:
        filled_bits = rng.random(n) < rng.random()
        if not filled_bits.all():
            stage_now = min(stages[names[b]] for b in range(n) if not filled_bits[b])
            if all(filled_bits[b] or stages[names[b]] >= stage_now for b in range(n)) and all(
                not filled_bits[b] or stages[names[b]] <= stage_now for b in range(n)
            ):
                break
    filled = {}
    for b in np.nonzero(filled_bits)[0]:
        box = names[b]
        faces = tuple(int(f) for f in rng.integers(1, 7, size=5))
        filled[box] = (50 if rng.random() < 0.5 else 0) if box == "yahtzee" else \
            normal_score(family, box, faces, False)
    if rng.random() < 0.4:
        faces = (int(rng.integers(1, 7)),) * 5
    else:
        faces = tuple(int(f) for f in rng.integers(1, 7, size=5))
    return filled, faces, bool(rng.random() < 0.5)


@pytest.mark.parametrize("name, joker", CASES)
@pytest.mark.slow
def test_record_matches_reference_on_random_cards(name, joker):
    variant = make_variant(name, joker)
    t = compile_variant(variant)
    p, bx, rd = _packed(t)
    names = box_names(variant)
    stages = {b.name: b.stage for b in variant.boxes}
    group = [b.name for b in variant.boxes if b.in_group]
    rng = np.random.default_rng(5)
    allowed = np.zeros(t.num_boxes, dtype=np.bool_)
    hi = t.sum_lo + t.num_sums - 1
    for _ in range(20_000):
        filled, faces, first = _random_situation(rng, name, names, stages)
        mask = sum(1 << names.index(box) for box in filled)
        total = sum(filled[box] for box in group if box in filled)
        clipped = t.sum_lo if set(group) <= set(filled) else min(max(total, t.sum_lo), hi)
        aux = int(filled.get("yahtzee") == 50) if name == "yahtzee" else 0
        if name == "classic_banked":
            aux = int(rng.integers(0, 2 * len(filled) + 1))
        roll = dice.roll_id(faces)
        expect = turn_outcomes(name, joker, names, stages, filled, faces, first)
        allowed_boxes(p, bx, rd, mask, roll, allowed)
        assert {names[b] for b in np.nonzero(allowed)[0]} == set(expect), (filled, faces)
        assert names[np.nonzero(allowed)[0][0]] in expect
        assert current_stage(p, bx, mask) == min(stages[b] for b in names if b not in filled)
        for box, points in expect.items():
            b = names.index(box)
            got, new_mask, new_total, new_aux = record(p, bx, rd, mask, clipped, aux, roll, first,
                                                       b, aux + 1)
            score = points - (100 if points >= 100 and name == "yahtzee" and
                              filled.get("yahtzee") == 50 and len(set(faces)) == 1 else 0)
            if box in group:
                exact = total + score
                if set(group) <= set(filled) | {box}:
                    points += t.group_bonus if exact >= t.group_threshold else 0
                    assert new_total == t.sum_lo
                else:
                    assert new_total == min(max(exact, t.sum_lo), hi)
            else:
                assert new_total == clipped
            assert (got, new_mask) == (points, mask | (1 << b)), (box, filled, faces, first)
            if name == "yahtzee":
                assert new_aux == int(aux == 1 or (box == "yahtzee" and score == 50))
            elif name == "classic_banked":
                assert new_aux == aux + 1


def test_spec_examples():
    classic = make_variant("classic")
    t = compile_variant(classic)
    names = box_names(classic)

    def score(box, faces, first=False, mask=0):
        return box_score(*_packed(t), mask, dice.roll_id(faces), first, names.index(box))

    assert score("ones", (1, 1, 2, 3, 6)) == -1
    assert score("twos", (2, 2, 2, 3, 5)) == 0
    assert score("threes", (3, 3, 3, 3, 4)) == 3
    assert score("fives", (2, 3, 5, 5, 6)) == -5
    assert score("sixes", (1, 6, 6, 6, 6)) == 6
    assert score("pair", (6, 6, 6, 2, 2)) == 12
    assert score("pair", (6, 6, 6, 2, 2), first=True) == 24
    assert score("poker", (4,) * 5, first=True) == 40 + 50
    assert score("chance", (1, 2, 3, 4, 6), first=True) == 16
    assert score("two pairs", (5, 5, 5, 5, 1)) == 0  # four alike is not two pairs
    assert score("full house", (5,) * 5) == 0
    assert score("four of a kind", (5,) * 5) == 20 and score("three of a kind", (5,) * 5) == 15
    yahtzee = make_variant("yahtzee", "forced")
    ty = compile_variant(yahtzee)
    ny = box_names(yahtzee)
    allowed = np.zeros(13, dtype=np.bool_)
    # Five threes with the Yahtzee box filled and threes open: forced into threes.
    mask = 1 << ny.index("yahtzee")
    allowed_boxes(*_packed(ty), mask, dice.roll_id((3,) * 5), allowed)
    assert [ny[b] for b in np.nonzero(allowed)[0]] == ["threes"]
    assert FACE_NAMES[2] == "threes"
