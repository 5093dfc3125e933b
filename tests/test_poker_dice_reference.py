"""Slow, obvious scorecard rules written from the spec text, for the poker-dice tests.

Nothing here reads the compiled tables: boxes are scored by name, dice subsets
are enumerated, and totals are kept exact (never clipped).
"""

from collections import Counter
from functools import lru_cache
from itertools import combinations

FACE_NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes")


def _best(faces, size, accept):
    return max((sum(s) for s in combinations(faces, size) if accept(sorted(s))), default=None)


def _alike(s):
    return len(set(s)) == 1


def _two_pairs(s):
    return s[0] == s[1] and s[2] == s[3] and s[1] != s[2]


def _run(s):
    return all(b == a + 1 for a, b in zip(s, s[1:]))


def _full_house(faces):
    return sorted(Counter(faces).values()) == [2, 3]


def normal_score(family, name, faces, first):
    """Points of box ``name`` for ``faces`` without jokers. ``family``: classic, classic_banked,
    yacht12 or yahtzee."""
    return _normal_score(family, name, tuple(sorted(faces)), bool(first))


@lru_cache(maxsize=None)
def _normal_score(family, name, faces, first):
    faces = list(faces)
    total = sum(faces)
    if name in FACE_NAMES:
        face = FACE_NAMES.index(name) + 1
        n = faces.count(face)
        if family == "classic":
            return (n - 3) * face
        if family == "classic_banked":
            return min(0, (n - 3) * face)
        return n * face
    if family in ("classic", "classic_banked"):
        made = {
            "pair": _best(faces, 2, _alike),
            "two pairs": _best(faces, 4, _two_pairs),
            "three of a kind": _best(faces, 3, _alike),
            "small straight": _best(faces, 4, _run),
            "large straight": total if _run(faces) else None,
            "full house": total if _full_house(faces) else None,
            "four of a kind": _best(faces, 4, _alike),
            "poker": total if _alike(faces) else None,
            "chance": total,
        }[name]
        if made is None:
            return 0
        if name == "chance":
            return made
        points = 2 * made if first else made
        if name == "poker":
            points += 50
        if name == "four of a kind" and family == "classic_banked":
            points += 30
        return points
    four = _best(faces, 4, _alike) is not None
    straight4 = _best(faces, 4, _run) is not None
    if family == "yacht12":
        return {
            "four of a kind": total if four else 0,
            "full house": total if _full_house(faces) else 0,
            "small straight": 25 if straight4 else 0,
            "large straight": 30 if _run(faces) else 0,
            "poker": 50 if _alike(faces) else 0,
            "chance": total,
        }[name]
    return {
        "three of a kind": total if _best(faces, 3, _alike) is not None else 0,
        "four of a kind": total if four else 0,
        "full house": 25 if _full_house(faces) else 0,
        "small straight": 30 if straight4 else 0,
        "large straight": 40 if _run(faces) else 0,
        "yahtzee": 50 if _alike(faces) else 0,
        "chance": total,
    }[name]


def turn_outcomes(family, joker, names, stages, filled, faces, first):
    """``{box: points}`` for every box that may record ``faces``.

    ``filled`` maps filled box names to the points written in them. ``points``
    includes the extra-Yahtzee bonus but not the group bonus. ``stages`` maps
    box names to stages (the lowest stage with an open box is the current one).
    """
    open_boxes = [n for n in names if n not in filled]
    stage = min(stages[n] for n in open_boxes)
    open_boxes = [n for n in open_boxes if stages[n] == stage]
    five = len(set(faces)) == 1
    extra = 100 if family == "yahtzee" and five and filled.get("yahtzee") == 50 else 0
    jokered = family == "yahtzee" and joker != "none" and five and "yahtzee" in filled
    if not jokered:
        return {n: normal_score(family, n, faces, first) + extra for n in open_boxes}
    upper = FACE_NAMES[faces[0] - 1]
    allowed = open_boxes
    if joker == "forced":
        lower_open = [n for n in open_boxes if n not in FACE_NAMES]
        if upper in open_boxes:
            allowed = [upper]
        elif lower_open:
            allowed = lower_open
    full_value = {"full house": 25, "small straight": 30, "large straight": 40}
    result = {}
    for n in allowed:
        points = normal_score(family, n, faces, first)
        if n in full_value and (upper in filled or upper not in names):
            points = full_value[n]
        result[n] = points + extra
    return result
