"""Exact Poker Squares endgames: the optimal expected final score of a grid with a few empty cells.

A position with ``k`` empty cells is solved by expectimax over every order
in which the remaining cards may come and every cell each may go to, with
four reductions that keep it exact:

1. **Transpositions.** The value of a chance node depends only on which card
   fills which of the ``k`` root cells, not on the order they were filled in,
   so values are memoised in an open-addressing hash map (a pair of arrays:
   ``int64`` keys, ``float64`` values) keyed by a 64-bit code of the
   fillings, shared by every move of the root.
2. **Interchangeable cards.** Two unseen cards of the same rank whose suits
   cannot make a flush in any line open at the root (the line's placed cards
   are not all of that suit) give every line the same category wherever they
   go, so swapping them maps the game onto itself. Such cards form one class;
   chance enumerates classes, weighted by how many of their cards are left.
   When a line open at the root is entirely empty every suit may still make
   its flush, and every card is its own class.
3. **Last cell.** With one empty cell the value is the points of the full
   lines plus the mean, over the cards left, of the two lines the card
   completes.
4. **Last two cells.** With two empty cells ``c1``, ``c2`` and ``n`` cards
   left, let ``f1(a)`` be the points of the lines through ``c1`` alone with
   card ``a`` in ``c1``, ``f2`` likewise, ``F1``, ``F2`` their sums over the
   cards left and ``g(a, b)`` the points of a line through both. Then::

       V = C + E[g(a, b)] + 1/n sum_a max(f1(a) + (F2 - f2(a)) / (n - 1),
                                          f2(a) + (F1 - f1(a)) / (n - 1))

   where ``C`` is the points of the full lines and ``E[g]`` the mean of ``g``
   over ordered pairs of distinct cards left: the shared line holds both
   cards whichever goes first, so it never sways the choice.

Only the lines through an empty cell of the root are ever scored; the others
are a constant. The final score depends only on each line's category, which
is what makes (2) hold.

Encoding
--------
The kernels take the root's empty cells ``empties`` (int64 (k,), ascending),
the unseen cards sorted by class ``deck`` (int64 (n,)), the first index of
each class in ``deck`` ``class_start`` (int64 (C + 1,)), and the cards
already known to come next, in order, ``known`` (int64 (m,); the card to
place at a decision, then, in the open variant, the rest of the deal). The
state of the search is ``filled`` (int64 (k,)): 0 for an empty root cell,
else one plus the class of its card (class ``C + j`` is ``known[j]``). The
memo key packs it 7 bits per root cell: ``key = sum_i filled[i] << 7 i``.

Worked example. The grid below (``-1`` empty) has four empty cells, 0, 6,
12 and 24; 29 cards are unseen and the card to place is the ace of spades
(51)::

    empties = [0, 6, 12, 24], known = [51]

Lines open at the root: row 0, row 1, row 2, row 4 and columns 0, 1, 2, 4.
If none of them is empty and, say, only clubs can still make a flush (one
column holds clubs alone), then the unseen 2d, 2h, 2s form one class, and
so on for every rank; the unseen 2c is a class of its own. After the ace
goes to cell 6 and a card of class 3 to cell 24, ``filled`` is
``[0, C + 1, 0, 4]`` and the key ``(C + 1) << 7 | 4 << 21``.

    >>> import numpy as np
    >>> from gamut.envs.poker_squares.game import POINT_SYSTEMS
    >>> grid = np.arange(25, dtype=np.int64) + 27   # 27..51 on the grid
    >>> grid[[3, 24]] = -1                          # two cells empty: 30 and 51 unseen
    >>> unseen = np.array([c for c in range(52) if c not in grid], dtype=np.int64)
    >>> round(endgame_value(grid, unseen, POINT_SYSTEMS["american"]), 4)
    127.1909
    >>> cells, values = endgame_move_values(grid, 51, unseen[unseen != 51], POINT_SYSTEMS["american"])
    >>> cells.tolist(), values.round(4).tolist()      # the ace of spades next: cell 24 is worth 41 more
    ([3, 24], [122.0714, 163.0357])
"""

from __future__ import annotations

import itertools

import numba
import numpy as np

from gamut.envs.cards import NUM_CARDS
from gamut.envs.hands import HAND_TABLE, hand_strength5
from gamut.envs.poker_squares import kernels as K
from gamut.envs.rng import below, rng_state

MAX_EMPTY = 8  # root empty cells the solver takes: 7-bit codes of 8 cells fill a 64-bit key
_CODE_BITS = 7
_EMPTY_KEY = -1
# Memo slots: 2 ** min(_MEMO_BITS_CAP, _MEMO_BITS_BASE + 2 k) for k empty cells (a power of two, 16
# bytes each: 32 MB at k = 6, 128 MB from k = 7); entries are only added below _MAX_LOAD of it, past
# that the search goes on without storing (slower, still exact).
_MEMO_BITS_BASE = 9
_MEMO_BITS_CAP = 23
_MAX_LOAD = 0.7
# The line cache (values of one line by what it holds, shared by every node): its slots and its
# float64 pool (32 MB); a full cache is emptied and refilled.
_LINE_KEY_BITS = 18
_POOL_SIZE = 1 << 22


@numba.njit(cache=True, inline="always")
def _points(grid, line, cfg, table):
    cells = K.LINES[line]
    s = hand_strength5(grid[cells[0]], grid[cells[1]], grid[cells[2]], grid[cells[3]], grid[cells[4]], table)
    return float(cfg[K.C_POINTS + (s >> 20)])


@numba.njit(cache=True, inline="always")
def _hash_slot(keys, key):
    mask = keys.shape[0] - 1
    slot = (key * 0x9E3779B97F4A7C15 >> 17) & mask
    while keys[slot] != key and keys[slot] != _EMPTY_KEY:
        slot = (slot + 1) & mask
    return slot


@numba.njit(cache=True)
def _free_member(grid, line, deck, class_start, c, other):
    """A card of class ``c`` that is not in ``line`` and is not ``other``, or -1."""
    for i in range(class_start[c], class_start[c + 1]):
        card = deck[i]
        if card == other:
            continue
        inside = False
        for t in range(K.GRID_SIZE):
            if grid[K.LINES[line, t]] == card:
                inside = True
        if not inside:
            return card
    return -1


@numba.njit(cache=True, inline="always")
def _line_entry(grid, line, code, open1, open2, deck, class_start, root_count, cfg, table, lkeys, loffsets, pool,
                pool_used):
    """Offset in ``pool`` of the cached values of ``line`` holding what it holds now (its code ``code``).

    One open cell ``open1`` (``open2`` < 0): the points of the full line with a
    card of each class in it, float64 (C,). Two open cells: ``S0`` (the sum of
    the line's points over ordered pairs of distinct root cards), ``w = G @
    root_count`` (C,) and ``G`` (C, C), the points with a card of class c and
    one of class d in the two cells. These depend on the line alone, not on
    the cards left elsewhere. A full cache is emptied and refilled.
    """
    key = code << 4 | line
    slot = _hash_slot(lkeys, key)
    if lkeys[slot] == key:
        return loffsets[slot]
    return _fill_line_entry(grid, line, key, slot, open1, open2, deck, class_start, root_count, cfg, table, lkeys,
                            loffsets, pool, pool_used)


@numba.njit(cache=True)
def _fill_line_entry(grid, line, key, slot, open1, open2, deck, class_start, root_count, cfg, table, lkeys, loffsets,
                     pool, pool_used):
    # The miss path of _line_entry: compute the entry, store it, return its offset.
    num = root_count.shape[0]
    size = num if open2 < 0 else 1 + num + num * num
    if pool_used[0] + size > pool.shape[0] or pool_used[1] + 1 > _MAX_LOAD * lkeys.shape[0]:
        lkeys[:] = _EMPTY_KEY
        pool_used[0] = 0
        pool_used[1] = 0
        slot = _hash_slot(lkeys, key)
    off = pool_used[0]
    if open2 < 0:
        for c in range(num):
            grid[open1] = -1
            card = _free_member(grid, line, deck, class_start, c, -1)
            value = 0.0
            if card >= 0:
                grid[open1] = card
                value = _points(grid, line, cfg, table)
            pool[off + c] = value
        grid[open1] = -1
    else:
        g = off + 1 + num
        for c in range(num):
            for d in range(c, num):
                value = 0.0
                grid[open1] = -1
                grid[open2] = -1
                first = _free_member(grid, line, deck, class_start, c, -1)
                second = _free_member(grid, line, deck, class_start, d, first)
                if first >= 0 and second >= 0:
                    grid[open1] = first
                    grid[open2] = second
                    value = _points(grid, line, cfg, table)
                pool[g + c * num + d] = value
                pool[g + d * num + c] = value
        grid[open1] = -1
        grid[open2] = -1
        total = 0.0
        for c in range(num):
            w = 0.0
            for d in range(num):
                w += pool[g + c * num + d] * root_count[d]
            pool[off + 1 + c] = w
            total += root_count[c] * (w - pool[g + c * num + c])
        pool[off] = total
    lkeys[slot] = key
    loffsets[slot] = off
    pool_used[0] += size
    pool_used[1] += 1
    return off


@numba.njit(cache=True, inline="always")
def _line_code(line, filled, line_slot, line_cells):
    slot = line_slot[line]
    code = 0
    for j in range(K.GRID_SIZE):
        i = line_cells[slot, j]
        if i < 0:
            break
        code |= filled[i] << (_CODE_BITS * j)
    return code


@numba.njit(cache=True, inline="always")
def _in_line(line, cell):
    return cell >= 0 and (K.CELL_LINES[cell, 0] == line or K.CELL_LINES[cell, 1] == line)


@numba.njit(cache=True)
def _own_lines(grid, cell, other, other2, filled, deck, class_start, root_count, line_slot, line_cells, cfg, table,
               lkeys, loffsets, pool, pool_used, out):
    """Set ``out`` (float64 (C,)) to the points, by class of the card in ``cell``, of its lines through
    neither ``other`` nor ``other2`` (cells, -1 for none); every other cell of those lines is full."""
    out[:] = 0.0
    for t in range(2):
        line = K.CELL_LINES[cell, t]
        if _in_line(line, other) or _in_line(line, other2):
            continue
        off = _line_entry(grid, line, _line_code(line, filled, line_slot, line_cells), cell, -1, deck, class_start,
                          root_count, cfg, table, lkeys, loffsets, pool, pool_used)
        for c in range(out.shape[0]):
            out[c] += pool[off + c]


@numba.njit(cache=True, inline="always")
def _shared_line(c1, c2):
    if K.CELL_LINES[c1, 0] == K.CELL_LINES[c2, 0]:
        return K.CELL_LINES[c1, 0]
    if K.CELL_LINES[c1, 1] == K.CELL_LINES[c2, 1]:
        return K.CELL_LINES[c1, 1]
    return -1


@numba.njit(cache=True)
def _last_cells(grid, c1, c2, filled, count, n, deck, class_start, root_count, line_slot, line_cells, cfg, table,
                lkeys, loffsets, pool, pool_used, f1, f2):
    """Expected points of the lines through the last cell ``c1`` (``c2`` < 0) or the last two (closed forms)."""
    num = count.shape[0]
    _own_lines(grid, c1, c2, -1, filled, deck, class_start, root_count, line_slot, line_cells, cfg, table, lkeys,
               loffsets, pool, pool_used, f1)
    if c2 < 0:
        total = 0.0
        for c in range(num):
            total += count[c] * f1[c]
        return total / n
    _own_lines(grid, c2, c1, -1, filled, deck, class_start, root_count, line_slot, line_cells, cfg, table, lkeys,
               loffsets, pool, pool_used, f2)
    big1 = 0.0
    big2 = 0.0
    for c in range(num):
        big1 += count[c] * f1[c]
        big2 += count[c] * f2[c]
    choice = 0.0
    for c in range(num):
        if count[c] > 0:
            choice += count[c] * max(f1[c] + (big2 - f2[c]) / (n - 1), f2[c] + (big1 - f1[c]) / (n - 1))
    value = choice / n
    line = _shared_line(c1, c2)
    if line >= 0:
        off = _line_entry(grid, line, _line_code(line, filled, line_slot, line_cells), c1, c2, deck, class_start,
                          root_count, cfg, table, lkeys, loffsets, pool, pool_used)
        g = off + 1 + num
        # Pairs of the cards left = pairs of the root cards, less those with a card placed since.
        pairs = pool[off]
        for i in range(filled.shape[0]):
            a = filled[i] - 1
            if a < 0 or a >= num:
                continue
            pairs += pool[g + a * num + a] - 2.0 * pool[off + 1 + a]
            for j in range(filled.shape[0]):
                b = filled[j] - 1
                if 0 <= b < num:
                    pairs += pool[g + a * num + b]
        value += pairs / (n * (n - 1))
    return value


@numba.njit(cache=True, fastmath=True)
def _last_three(grid, cells, filled, count, n, deck, class_start, root_count, line_slot, line_cells, cfg, table, lkeys,
                loffsets, pool, pool_used, work):
    """Expected points of the lines through the last three ``cells`` (int64 (3,)), or NaN if one line holds all three.

    The closed form of the last two cells, applied to each card and cell of
    the first of the three with every line value read from the line cache:
    for card ``a`` in ``p``, the lines through ``p`` alone are full, a line
    through ``p`` and ``q`` adds ``G[a, .]`` to ``q``'s values, and the pairs
    of a line through ``q`` and ``r`` lose those holding ``a``. ``work`` is
    float64 (6, C) scratch.
    """
    num = count.shape[0]
    line = _shared_line(cells[0], cells[1])
    if line >= 0 and _in_line(line, cells[2]):
        return np.nan
    best = work[0]
    own_p = work[1]
    own_q = work[2]
    own_r = work[3]
    val_q = work[4]
    val_r = work[5]
    best[:] = -np.inf
    for first in range(3):
        p = cells[first]
        q = cells[(first + 1) % 3]
        r = cells[(first + 2) % 3]
        _own_lines(grid, p, q, r, filled, deck, class_start, root_count, line_slot, line_cells, cfg, table, lkeys,
                   loffsets, pool, pool_used, own_p)
        _own_lines(grid, q, p, r, filled, deck, class_start, root_count, line_slot, line_cells, cfg, table, lkeys,
                   loffsets, pool, pool_used, own_q)
        _own_lines(grid, r, p, q, filled, deck, class_start, root_count, line_slot, line_cells, cfg, table, lkeys,
                   loffsets, pool, pool_used, own_r)
        # Offsets of the G matrices of the lines through p and q, p and r (-1: none), and the pair entry of q, r.
        g_pq = -1
        line = _shared_line(p, q)
        if line >= 0:
            g_pq = _line_entry(grid, line, _line_code(line, filled, line_slot, line_cells), p, q, deck, class_start,
                               root_count, cfg, table, lkeys, loffsets, pool, pool_used) + 1 + num
        g_pr = -1
        line = _shared_line(p, r)
        if line >= 0:
            g_pr = _line_entry(grid, line, _line_code(line, filled, line_slot, line_cells), p, r, deck, class_start,
                               root_count, cfg, table, lkeys, loffsets, pool, pool_used) + 1 + num
        m = -1
        line = _shared_line(q, r)
        pairs0 = 0.0
        if line >= 0:
            m = _line_entry(grid, line, _line_code(line, filled, line_slot, line_cells), q, r, deck, class_start,
                           root_count, cfg, table, lkeys, loffsets, pool, pool_used)
            gm = m + 1 + num
            pairs0 = pool[m]
            for i in range(filled.shape[0]):
                x = filled[i] - 1
                if 0 <= x < num:
                    pairs0 += pool[gm + x * num + x] - 2.0 * pool[m + 1 + x]
                    for j in range(filled.shape[0]):
                        y = filled[j] - 1
                        if 0 <= y < num:
                            pairs0 += pool[gm + x * num + y]
        n1 = n - 1
        inv = 1.0 / (n1 - 1)
        for a in range(num):
            if count[a] == 0:
                continue
            # Sums over every class with the counts of the node, then the one card a taken out (branch-free
            # loops, which the compiler vectorises).
            for b in range(num):
                val_q[b] = own_q[b]
                val_r[b] = own_r[b]
            if g_pq >= 0:
                for b in range(num):
                    val_q[b] += pool[g_pq + a * num + b]
            if g_pr >= 0:
                for b in range(num):
                    val_r[b] += pool[g_pr + a * num + b]
            big_q = -val_q[a]
            big_r = -val_r[a]
            for b in range(num):
                big_q += count[b] * val_q[b]
                big_r += count[b] * val_r[b]
            choice = -max(val_q[a] + (big_r - val_r[a]) * inv, val_r[a] + (big_q - val_q[a]) * inv)
            for b in range(num):
                choice += count[b] * max(val_q[b] + (big_r - val_r[b]) * inv, val_r[b] + (big_q - val_q[b]) * inv)
            value = own_p[a] + choice / n1
            if m >= 0:
                gm = m + 1 + num
                pairs = pairs0 + 2.0 * pool[gm + a * num + a] - 2.0 * pool[m + 1 + a]
                for i in range(filled.shape[0]):
                    x = filled[i] - 1
                    if 0 <= x < num:
                        pairs += 2.0 * pool[gm + a * num + x]
                value += pairs / (n1 * (n1 - 1))
            best[a] = max(best[a], value)
    total = 0.0
    for a in range(num):
        if count[a] > 0:
            total += count[a] * best[a]
    return total / n


@numba.njit(cache=True)
def _chance_value(grid, filled, count, n, empty_mask, depth, full, empties, deck, class_start, root_count, known,
                  line_slot, line_cells, line_empties, cfg, table, keys, values, used, lkeys, loffsets, pool,
                  pool_used, work, three):
    """Optimal expected final score of the chance node ``filled`` (see the module docstring).

    ``grid`` int64 (25,) holds the cards placed so far and is restored;
    ``count`` int64 (C,) the cards left per class, ``n`` their sum;
    ``empty_mask`` has bit i set while root cell i is empty; ``depth`` root
    cells are filled; ``full`` is the points of every line with no empty cell.
    ``line_slot`` int64 (10,) numbers the lines through a root empty cell
    (-1 for the others), ``line_cells`` int64 (L, 5) lists the root cells of
    each (-1 padded) and ``line_empties`` int64 (L,) their mask. ``keys``,
    ``values`` are the memo and ``used`` int64 (1,) its entries; ``lkeys``,
    ``loffsets``, ``pool`` and ``pool_used`` int64 (2,) the line cache
    (:func:`_line_entry`).
    """
    k = empties.shape[0]
    left = k - depth
    if left == 0:
        return full
    known_next = depth < known.shape[0]
    if not known_next and left <= 2:
        cell_a = -1
        cell_b = -1
        for i in range(k):
            if empty_mask >> i & 1:
                if cell_a < 0:
                    cell_a = empties[i]
                else:
                    cell_b = empties[i]
        return full + _last_cells(grid, cell_a, cell_b, filled, count, n, deck, class_start, root_count, line_slot,
                                  line_cells, cfg, table, lkeys, loffsets, pool, pool_used, work[0], work[1])
    key = 0
    for i in range(k):
        key |= filled[i] << (_CODE_BITS * i)
    slot = _hash_slot(keys, key)
    if keys[slot] == key:
        return values[slot]
    value = np.nan
    if not known_next and left == 3:
        j = 0
        for i in range(k):
            if empty_mask >> i & 1:
                three[j] = empties[i]
                j += 1
        value = full + _last_three(grid, three, filled, count, n, deck, class_start, root_count, line_slot,
                                   line_cells, cfg, table, lkeys, loffsets, pool, pool_used, work)
    if np.isnan(value):
        # One level of expectimax: every next card (the known one, or one of each class) in every empty cell.
        num = count.shape[0]
        total = 0.0
        for c in range(num + 1):
            if known_next:
                if c < num:
                    continue
                card = known[depth]
                weight = 1
                code = num + depth + 1
            else:
                if c == num or count[c] == 0:
                    continue
                weight = count[c]
                # The class's cards are used first to last; the placed ones are exactly its first.
                card = deck[class_start[c + 1] - weight]
                code = c + 1
                count[c] -= 1
            best = -np.inf
            for i in range(k):
                if empty_mask >> i & 1:
                    cell = empties[i]
                    grid[cell] = card
                    filled[i] = code
                    mask = empty_mask & ~(1 << i)
                    now_full = full
                    for t in range(2):
                        line = K.CELL_LINES[cell, t]
                        if line_empties[line_slot[line]] & mask == 0:
                            now_full += _points(grid, line, cfg, table)
                    v = _chance_value(grid, filled, count, n - (not known_next), mask, depth + 1, now_full, empties,
                                      deck, class_start, root_count, known, line_slot, line_cells, line_empties, cfg,
                                      table, keys, values, used, lkeys, loffsets, pool, pool_used, work, three)
                    filled[i] = 0
                    grid[cell] = -1
                    best = max(best, v)
            if not known_next:
                count[c] += 1
            total += weight * best
        value = total if known_next else total / n
    if used[0] < _MAX_LOAD * keys.shape[0]:
        slot = _hash_slot(keys, key)
        keys[slot] = key
        values[slot] = value
        used[0] += 1
    return value


@numba.njit(cache=True)
def card_classes(grid, deck, open_lines, out):
    """Class of each unseen card (int64, written into ``out``); return the number of classes.

    ``grid`` int64 (25,) with -1 for empty cells; ``deck`` int64 (n,) the
    unseen cards; ``open_lines`` the lines through an empty cell. Cards of one
    rank share a class when none of their suits can still make a flush in an
    open line (reduction 2 of the module docstring); every other card is a
    class of its own. Classes are numbered in the order of ``deck``.
    """
    live = 0  # bit s: suit s may still make a flush in some open line
    for j in range(open_lines.shape[0]):
        suits = 0
        for t in range(K.GRID_SIZE):
            card = grid[K.LINES[open_lines[j], t]]
            if card >= 0:
                suits |= 1 << (card & 3)
        if suits == 0:
            live = 15
        elif suits & (suits - 1) == 0:
            live |= suits
    dead_class = np.full(13, -1, np.int64)
    num = 0
    for i in range(deck.shape[0]):
        card = deck[i]
        if live >> (card & 3) & 1:
            out[i] = num
            num += 1
        elif dead_class[card >> 2] >= 0:
            out[i] = dead_class[card >> 2]
        else:
            dead_class[card >> 2] = num
            out[i] = num
            num += 1
    return num


def _checked(grid, unseen, known, cfg):
    grid = np.asarray(grid, dtype=np.int64)
    unseen = np.asarray(unseen, dtype=np.int64)
    known = np.asarray(known, dtype=np.int64).reshape(-1)
    if grid.shape != (K.NUM_CELLS,) or ((grid < -1) | (grid >= NUM_CARDS)).any():
        raise ValueError(f"grid must hold 25 card ids 0..51 or -1 (empty), got shape {grid.shape}")
    empties = np.flatnonzero(grid < 0)
    if not 1 <= len(empties) <= MAX_EMPTY:
        raise ValueError(f"the exact endgame takes 1..{MAX_EMPTY} empty cells, got {len(empties)}")
    cards = np.concatenate([grid[grid >= 0], unseen, known])
    if ((cards < 0) | (cards >= NUM_CARDS)).any() or len(np.unique(cards)) != len(cards):
        raise ValueError("grid, unseen and known cards must be distinct card ids 0..51")
    if len(known) < len(empties) and len(unseen) < len(empties) - len(known):
        raise ValueError(f"{len(empties)} empty cells need at least {len(empties) - len(known)} unseen cards "
                         f"after the {len(known)} known, got {len(unseen)}")
    return grid, unseen, known, empties, np.asarray(cfg, dtype=np.int64)


def _solve(grid, unseen, known, cfg, moves):
    """Values of the chance node (``moves`` False) or of each move of ``known[0]`` (``moves`` True)."""
    grid, unseen, known, empties, cfg = _checked(grid, unseen, known, cfg)
    if cfg.shape[0] == 10:
        cfg = K.make_config(1, False, False, cfg)
    open_lines = sorted({int(line) for cell in empties for line in K.CELL_LINES[cell]})
    line_slot = np.full(K.NUM_LINES, -1, dtype=np.int64)
    line_cells = np.full((len(open_lines), K.GRID_SIZE), -1, dtype=np.int64)
    line_empties = np.zeros(len(open_lines), dtype=np.int64)
    for slot, line in enumerate(open_lines):
        line_slot[line] = slot
        inside = [i for i, cell in enumerate(empties) if line in K.CELL_LINES[cell]]
        line_cells[slot, :len(inside)] = inside
        line_empties[slot] = sum(1 << i for i in inside)
    filler = grid.copy()
    filler[empties] = 0  # any card: only the lines with no empty cell are summed here
    constant = sum(_points(filler, line, cfg, HAND_TABLE) for line in range(K.NUM_LINES) if line_slot[line] < 0)
    classes = np.empty(len(unseen), dtype=np.int64)
    num = card_classes(grid, unseen, np.array(open_lines, dtype=np.int64), classes)
    deck = unseen[np.argsort(classes, kind="stable")]
    root_count = np.bincount(classes, minlength=num).astype(np.int64)
    class_start = np.concatenate([[0], np.cumsum(root_count)]).astype(np.int64)
    bits = min(_MEMO_BITS_CAP, _MEMO_BITS_BASE + 2 * len(empties))
    memo = (np.full(1 << bits, _EMPTY_KEY, dtype=np.int64), np.zeros(1 << bits, dtype=np.float64),
            np.zeros(1, dtype=np.int64))
    cache = (np.full(1 << _LINE_KEY_BITS, _EMPTY_KEY, dtype=np.int64), np.zeros(1 << _LINE_KEY_BITS, dtype=np.int64),
             np.zeros(_POOL_SIZE, dtype=np.float64), np.zeros(2, dtype=np.int64))
    scratch = (np.empty((6, max(num, 1)), dtype=np.float64), np.empty(3, dtype=np.int64))
    tail = (empties, deck, class_start, root_count, known, line_slot, line_cells, line_empties, cfg, HAND_TABLE,
            *memo, *cache, *scratch)
    filled = np.zeros(len(empties), dtype=np.int64)
    full_mask = (1 << len(empties)) - 1
    if not moves:
        return _chance_value(grid.copy(), filled, root_count.copy(), len(deck), full_mask, 0, float(constant), *tail)
    out = np.empty(len(empties), dtype=np.float64)
    work = grid.copy()
    for i, cell in enumerate(empties):
        work[cell] = known[0]
        filled[i] = num + 1
        mask = full_mask & ~(1 << i)
        full = constant + sum(_points(work, line, cfg, HAND_TABLE) for line in K.CELL_LINES[cell]
                              if line_empties[line_slot[line]] & mask == 0)
        out[i] = _chance_value(work, filled, root_count.copy(), len(deck), mask, 1, float(full), *tail)
        filled[i] = 0
        work[cell] = -1
    return empties, out


def endgame_value(grid, unseen, points, known=()) -> float:
    """Optimal expected final score of a grid with 1..8 empty cells, before the next card is seen.

    Parameters
    ----------
    grid : array_like of int, shape (25,)
        Card id by cell (``5 * row + column``), -1 for an empty cell.
    unseen : array_like of int, shape (n,)
        The cards that may still come, each equally likely next.
    points : array_like of int, shape (10,) or (13,)
        Points of the ten categories (high card .. royal flush), or a kernel config.
    known : array_like of int, shape (m,)
        Cards known to come first, in order (the open variant); then the unseen ones.

    Returns
    -------
    float
        The expectation, under the best placements, of the final score.
    """
    return float(_solve(grid, unseen, known, points, moves=False))


def endgame_move_values(grid, card, unseen, points, known=()) -> tuple[np.ndarray, np.ndarray]:
    """Exact value of putting ``card`` in each empty cell: (cells int64 (k,), values float64 (k,)).

    A cell's value is the optimal expected final score after ``card`` goes
    there; ``unseen`` (may come next, equally likely) and ``known`` (come
    next after ``card``, in order) are as in :func:`endgame_value`.
    """
    return _solve(grid, unseen, np.concatenate([[int(card)], np.asarray(known, dtype=np.int64).reshape(-1)]),
                  points, moves=True)


def state_move_values(state: np.ndarray, player: int, cfg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`endgame_move_values` for ``player``'s decision in a kernel state (any variant).

    The card to place is the player's next; the cards dealt after it and not
    yet placed by the player are known, the cards not dealt are unseen.
    """
    base = K.S_GRID + K.NUM_CELLS * player
    placed = int(state[K.S_NUM_PLACED + player])
    dealt = int(state[K.S_NUM_DEALT])
    known = state[K.S_DEAL + placed + 1:K.S_DEAL + dealt]
    unseen = np.empty(NUM_CARDS, np.int64)
    unseen = unseen[:K.unseen_cards(state, unseen)]
    return endgame_move_values(state[base:base + K.NUM_CELLS], state[K.S_DEAL + placed], unseen, cfg, known)


def checked_endgame(agent: str, endgame: int) -> int:
    """``endgame`` if it is a number of empty cells the solver takes (0: off), else a ValueError naming ``agent``."""
    if isinstance(endgame, bool) or not isinstance(endgame, (int, np.integer)) or not 0 <= endgame <= MAX_EMPTY:
        raise ValueError(f"{agent} option endgame takes 0 (off) or a number of empty cells 1..{MAX_EMPTY} from which "
                         f"to play exactly, got {endgame!r}")
    return int(endgame)


def endgame_choice(state: np.ndarray, player: int, cfg: np.ndarray, endgame: int):
    """The exact best cell and every move's value when ``player``'s grid has 1..``endgame`` empty cells, else None.

    Returns ``(cell, [(cell, value), ...])``: the cell of highest exact value
    (ties to the lowest cell) and each empty cell with its optimal expected
    final score.
    """
    empty = K.NUM_CELLS - int(state[K.S_NUM_PLACED + player])
    if not 1 <= empty <= endgame:
        return None
    cells, values = state_move_values(state, player, cfg)
    return int(cells[int(np.argmax(values))]), [(int(c), float(v)) for c, v in zip(cells, values)]


@numba.njit(cache=True)
def _clairvoyant(grid, empties, card, unseen, perms, samples, seed, cfg, table, out):
    rng = rng_state(seed)
    k = empties.shape[0]
    cards = np.empty(k, np.int64)
    pool = unseen.copy()
    work = grid.copy()
    for s in range(samples):
        # The card to place, then k - 1 of the unseen cards drawn without replacement.
        cards[0] = card
        for j in range(1, k):
            pick = j - 1 + below(rng, pool.shape[0] - (j - 1))
            pool[j - 1], pool[pick] = pool[pick], pool[j - 1]
            cards[j] = pool[j - 1]
        best = -np.inf
        for p in range(perms.shape[0]):
            for j in range(k):
                work[empties[j]] = cards[perms[p, j]]
            total = 0.0
            for line in range(K.NUM_LINES):
                total += _points(work, line, cfg, table)
            best = max(best, total)
        out[s] = best


def clairvoyant_scores(grid, card, unseen, points, samples: int, seed: int) -> np.ndarray:
    """Best final score of ``samples`` random completions of a position, each arranged knowing its cards.

    The completion is ``card`` (the card to place) and k - 1 cards drawn
    without replacement from ``unseen`` (int64 (n,)), for the k (1..8) empty
    cells of ``grid``; each is worth the best of its k! arrangements. The mean
    is an unbiased estimate of the clairvoyant upper bound of the position
    (the mean best arrangement when every card to come is known in advance):
    float64 (samples,), the same for the same ``seed``.
    """
    grid, unseen, known, empties, cfg = _checked(grid, unseen, [card], points)
    if cfg.shape[0] == 10:
        cfg = K.make_config(1, False, False, cfg)
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    perms = np.array(list(itertools.permutations(range(len(empties)))), dtype=np.int64)
    out = np.empty(samples, dtype=np.float64)
    _clairvoyant(grid, empties, int(card), unseen, perms, int(samples), int(seed), cfg, HAND_TABLE, out)
    return out


def parse_position(text: str) -> tuple[np.ndarray, int | None]:
    """A position from text: five rows of five cards (``..`` for an empty cell), then optionally ``next: CARD``.

    Returns the grid (int64 (25,), -1 for empty) and the card to place, or
    None when the next card is not dealt yet. Blank lines and lines starting
    with ``#`` are ignored.

    >>> grid, card = parse_position('''
    ... Ac Kc Qc .. ..
    ... 2d 3d 4d 5d ..
    ... 7h 7s 9h Th Jh
    ... 8c 8d 6s 6h Qs
    ... Ks 3s 4c 5h 9d
    ... next: 9c''')
    >>> np.flatnonzero(grid < 0).tolist(), card
    ([3, 4, 9], 28)
    """
    from gamut.envs.cards import parse_card

    rows, card = [], None
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            if line.lower().startswith("next:"):
                card = parse_card(line.split(":", 1)[1].strip())
            else:
                tokens = line.split()
                if len(tokens) != K.GRID_SIZE:
                    raise ValueError(f"a row holds 5 cards or '..', got {len(tokens)}")
                rows.append([-1 if token == ".." else parse_card(token) for token in tokens])
        except ValueError as err:
            raise ValueError(f"line {number} ({line!r}): {err}") from None
    if len(rows) != K.GRID_SIZE:
        raise ValueError(f"a position has 5 rows of 5 cards ('..' for empty), then optionally 'next: CARD'; "
                         f"got {len(rows)} rows")
    grid = np.array(rows, dtype=np.int64).reshape(-1)
    cards = grid[grid >= 0].tolist() + ([] if card is None else [card])
    if len(set(cards)) != len(cards):
        raise ValueError("a card appears twice in the position")
    return grid, card
