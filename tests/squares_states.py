"""Poker Squares positions for the search tests, built through the game's kernels."""

import numpy as np

from gamut.envs.poker_squares import kernels as K


def dealt_state(deal, placed_cells):
    """The one-player state after ``deal[i]`` went to ``placed_cells[i]``, with the next card dealt.

    ``deal``: int card ids, at least ``len(placed_cells) + 1`` of them; returns int64 (STATE_SIZE,).
    """
    st = np.empty(K.STATE_SIZE, dtype=np.int64)
    K.init_state(st)
    for i, cell in enumerate(placed_cells):
        K.deal_card(st, deal[i])
        K.place_card(st, 0, cell)
    K.deal_card(st, deal[len(placed_cells)])
    return st


# The cells of the ten lines: rows 0..4, then columns 0..4.
LINES = [[5 * r + c for c in range(5)] for r in range(5)] + [[5 * r + c for r in range(5)] for c in range(5)]


def reference_lines(grid, seen):
    """Each line's cross-line facts counted plainly: a list of ten dicts (rows 0..4, then columns 0..4).

    Keys: ``cls`` (the class, -1 when full), ``suit`` (the suit it draws a flush to, else -1), ``held`` (the
    ranks of a line with a pair or better, else empty), ``ranks`` (its cards' ranks), ``windows`` (the live
    five-rank windows holding its ranks, unpaired lines only), ``empty`` (its empty cells). ``grid``: 25 card
    ids or -1 (cell id = 5 * row + column); ``seen``: the seen card ids.
    """
    seen_ranks = [sum(1 for c in seen if c >> 2 == r) for r in range(13)]
    seen_suits = [sum(1 for c in seen if c & 3 == s) for s in range(4)]
    windows = [{12, 0, 1, 2, 3}] + [set(range(low, low + 5)) for low in range(9)]
    out = []
    for cells in LINES:
        cards = [grid[c] for c in cells if grid[c] >= 0]
        ranks = [c >> 2 for c in cards]
        counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
        flush_suit, held_ranks, live = -1, set(), 0
        if cards and counts[0] == 1:
            live = sum(1 for w in windows if set(ranks) <= w and all(seen_ranks[r] < 4 for r in w - set(ranks)))
        if len(cards) == 5:
            cls = -1
        elif len(cards) <= 1:
            cls = len(cards)
        elif counts[0] >= 3:
            held_ranks = set(ranks)
            cls = 15 if len(cards) == 3 else 16
        elif counts[0] == 2:
            held_ranks = set(ranks)
            cls = 14 if counts.count(2) == 2 else 12 if len(cards) == 2 else 13
        else:
            suits = {c & 3 for c in cards}
            flush = len(suits) == 1 and 13 - seen_suits[min(suits)] >= 5 - len(cards)
            flush_suit = min(suits) if flush else -1
            cls = 11 if flush and live else 3 + len(cards) if flush else 6 + len(cards) if live else len(cards)
        out.append({"cls": cls, "suit": flush_suit, "held": held_ranks, "ranks": set(ranks), "windows": live,
                    "empty": 5 - len(cards)})
    return out


def reference_features(grid, seen):
    """The cross-line features of ``gamut.solvers.poker_squares.crossline``, counted plainly from their definition.

    ``grid``: 25 card ids or -1 (cell id = 5 * row + column); ``seen``: the seen card ids. Returns float (295,).
    """
    seen_ranks = [sum(1 for c in seen if c >> 2 == r) for r in range(13)]
    seen_suits = [sum(1 for c in seen if c & 3 == s) for s in range(4)]
    facts = reference_lines(grid, seen)
    kind = [f["cls"] for f in facts]
    suit_of = [f["suit"] for f in facts]
    held = [f["held"] for f in facts]
    lines = LINES
    phi = np.zeros(295)
    for cell in range(25):
        if grid[cell] < 0:
            row, col = cell // 5, 5 + cell % 5
            phi[17 * kind[row] + kind[col]] += 1
            phi[289] += suit_of[row] >= 0 and suit_of[col] >= 0 and suit_of[row] != suit_of[col]
    for s in range(4):
        drawing = [i for i in range(10) if suit_of[i] == s]
        phi[290] += len(drawing) * (len(drawing) - 1) // 2
        need = sum(sum(1 for c in lines[i] if grid[c] < 0) for i in drawing)
        phi[291] += max(0, need - (13 - seen_suits[s]))
    for r in range(13):
        wanted = sum(1 for h in held if r in h)
        phi[292] += max(0, wanted - 1)
        phi[293] += max(0, wanted - (4 - seen_ranks[r]))
    phi[294] = 1
    return phi
