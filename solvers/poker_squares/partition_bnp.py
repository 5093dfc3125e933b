"""Branch and price on the arrangement problem: the Dantzig-Wolfe bound, node by node.

Every arrangement puts each pair of positions (cards) either together in a
row, together in a column, or in neither. A node of the search fixes that
status for some pairs; its bound is the Dantzig-Wolfe bound
(``partition_dw.dw_bound``) of the problem in which the sets that break a
fixed status weigh ``-big``:

- status *row*: on the row side a set holding exactly one of the two
  positions is forbidden (the two must share a row set); on the column side
  a set holding both is;
- status *column*: the same with the sides swapped;
- status *neither*: a set holding both is forbidden on both sides.

An arrangement that keeps a node's statuses uses no forbidden set, so the
node's bound holds for every such arrangement; the three children of a node
(one pair, three statuses) share its arrangements out. The search expands the
open node of largest bound first, branching on the pair whose status is most
undecided in the node's master optimum (the middle of its three shares, row,
column and neither, is largest), and at any point the largest bound of an
open node (or the best arrangement found, if larger) bounds the best
arrangement. A node limit, not a clock, stops it, so the result does not
depend on the machine's speed. A child starts its column generation from the
partitions of its parent's master that keep the child's statuses, and the
side LPs stay warm from node to node: the nodes then take about half of the
column-generation steps of cold starts (698 against 1,370 over 40 nodes on a
tuning deal).

Two checks keep a child cheap when it cannot matter. Before it is solved, its
statuses are closed (``statuses_consistent``): pairs in a row join cards into
classes that must share a row, and a class of six cards, a pair inside a class
fixed otherwise, two cards sharing both a row class and a column class, or
classes that do not pack into five lines drop the child unsolved. And a child
is solved only down to a floor, the best arrangement known (or ``-big / 2``,
below which it holds no arrangement): the solve stops at the first bound under
it, and the side searches never look further below their LPs than such a bound
allows. Without the closure a side whose every partition uses a forbidden set
sends the exact side search over most of the 53,130 sets (on one deal of the
upper-bound run, a row class of six cards, it had not ended after a quarter of
an hour).
"""

from __future__ import annotations

import heapq

import numpy as np

from gamut.solvers.poker_squares.partition import NUM_PAIRS, PAIR_INDEX, SET_PAIRS, check_positions, \
    check_weights
from gamut.solvers.poker_squares.partition_dw import SET_MASKS, dw_bound

# _PAIR_MASKS[PAIR_INDEX[a, b]]: the bits of positions a and b.
_PAIR_MASKS = np.zeros(NUM_PAIRS, dtype=np.int64)
for _a in range(25):
    for _b in range(_a + 1, 25):
        _PAIR_MASKS[PAIR_INDEX[_a, _b]] = (1 << _a) | (1 << _b)
_PAIR_CARDS = {int(PAIR_INDEX[a, b]): (a, b) for a in range(25) for b in range(a + 1, 25)}
STATUSES = ("row", "column", "neither")


def forbidden_sets(status: dict) -> np.ndarray:
    """bool (2, NUM_SETS): the sets each side may not use under ``status`` ({pair index: 'row'|'column'|'neither'}).

    Example: with pair ``{0, 1}`` (index 0) fixed to ``"row"``, the row set ``{0, 2, 3, 4, 5}`` (it splits
    the pair) and the column set ``{0, 1, 2, 3, 4}`` (it holds both) are forbidden.
    """
    bad = np.zeros((2, len(SET_MASKS)), dtype=bool)
    for pair, kind in status.items():
        if kind not in STATUSES:
            raise ValueError(f"a pair's status is one of {STATUSES}, not {kind!r}")
        held = SET_MASKS & _PAIR_MASKS[pair]
        both = held == _PAIR_MASKS[pair]
        one = (held != 0) & ~both
        for side, together in ((0, "row"), (1, "column")):
            bad[side] |= one if kind == together else both
    return bad


def statuses_consistent(status: dict) -> bool:
    """Whether some arrangement could keep ``status`` ({pair index: 'row'|'column'|'neither'}), by closure.

    The pairs fixed to *row* join cards into classes that must share a row (and the same for *column*).
    The statuses are inconsistent when a class has more than five cards, when two cards of a row class are
    also in one column class (they would share a row and a column), when a pair inside a class is fixed to
    another status, or when a side's classes cannot be packed into five lines of five. Consistent statuses
    may still admit no arrangement; the node's bound then falls below ``-big / 2`` as before.

    Example: pairs {0, 1} and {1, 2} in a row with {0, 2} in a column are inconsistent; {0, 1} in a row
    with {1, 2} in a column are consistent.
    """
    classes = []
    for side, together in ((0, "row"), (1, "column")):
        parent = list(range(25))

        def find(a):
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        for pair, kind in status.items():
            if kind == together:
                a, b = _PAIR_CARDS[pair]
                parent[find(a)] = find(b)
        label = np.array([find(a) for a in range(25)])
        sizes = np.bincount(label, minlength=25)
        if sizes.max() > 5 or not _packs(sorted(sizes[sizes > 1].tolist(), reverse=True), [5] * 5):
            return False
        for pair, kind in status.items():
            a, b = _PAIR_CARDS[pair]
            if kind != together and label[a] == label[b]:
                return False
        classes.append(label)
    same_row = classes[0][:, None] == classes[0][None, :]
    same_column = classes[1][:, None] == classes[1][None, :]
    return not (same_row & same_column & ~np.eye(25, dtype=bool)).any()


def _packs(sizes: list, room: list) -> bool:
    """Whether classes of ``sizes`` (largest first) fit into lines with ``room`` places left (singletons fill up)."""
    if not sizes:
        return True
    tried = set()
    for i, free in enumerate(room):
        if free >= sizes[0] and free not in tried:
            tried.add(free)
            room[i] -= sizes[0]
            fits = _packs(sizes[1:], room)
            room[i] += sizes[0]
            if fits:
                return True
    return False


def _pair_shares(solution) -> np.ndarray:
    """float64 (3, NUM_PAIRS): each pair's share together in a row, in a column, and in neither."""
    sides, ids, weights = solution
    shares = np.zeros((3, NUM_PAIRS))
    for side in range(2):
        mine = sides == side
        np.add.at(shares[side], SET_PAIRS[ids[mine]].reshape(-1), np.repeat(weights[mine], 10))
    shares[2] = 1.0 - shares[0] - shares[1]
    return shares


def bnp_bound(weights: np.ndarray, incumbent_grid, max_nodes: int = 40, dw_iterations: int = 200,
              sides=None) -> dict:
    """Upper bound on the best arrangement value under ``weights`` by branch and price.

    Parameters
    ----------
    weights : float64 (2, NUM_SETS)
        Row and column values of every position set (as in ``partition.partition_bound``).
    incumbent_grid : int (25,)
        An arrangement (cell -> deal position) to start from.
    max_nodes : int
        Nodes whose Dantzig-Wolfe bound is computed (the root is node 1; a node's three children are bounded
        together, so up to ``max_nodes + 2``); ``max_nodes=1`` is ``dw_bound``.
    dw_iterations : int
        Column-generation steps at most per node.
    sides : (SideLP, SideLP), optional
        Side LPs to price with (row side, column side), as in ``dw_bound``; new primal-simplex ones by default.

    Returns
    -------
    dict
        ``upper`` (valid bound), ``root`` (the root's Dantzig-Wolfe bound), ``value`` and ``grid`` (the
        best arrangement found), ``proved`` (``upper`` meets ``value``), ``nodes`` (bounds computed).
    """
    weights = check_weights(weights)
    grid = check_positions(incumbent_grid, "incumbent_grid")
    if max_nodes < 1 or dw_iterations < 1:
        raise ValueError("bnp_bound needs max_nodes >= 1 and dw_iterations >= 1")
    # Enough that an arrangement using a forbidden set (ten lines, each at most max |w|) is below every other;
    # no larger, so the side LPs stay well scaled.
    big = 20.0 * (1.0 + float(np.abs(weights).max()))
    best = {"value": -np.inf, "grid": grid, "sides": sides}

    def solve(status: dict, pool, floor: float):
        bad = forbidden_sets(status)
        node_weights = np.where(bad, weights - big, weights)
        # The parent's partitions that keep the child's statuses start its master: the child's optimum is
        # usually close to them. The side LPs carry their bases from node to node for the same reason.
        pool = [(side, ids) for side, ids in pool if not bad[side, ids].any()]
        res = dw_bound(node_weights, best["grid"], max_iterations=dw_iterations, pool=pool, sides=best["sides"],
                       floor=floor)
        best["sides"] = res["sides"]
        # Only an arrangement that keeps the statuses has its true value under the node's weights.
        if res["value"] > best["value"] and res["value"] > -big / 2:
            best["value"], best["grid"] = res["value"], res["grid"]
        return res

    root = solve({}, (), -np.inf)
    nodes = 1
    heap = [(-root["upper"], 0, {}, _pair_shares(root["solution"]), root["columns"])]
    while heap and nodes < max_nodes and -heap[0][0] > best["value"] + 1e-6 * max(1.0, abs(best["value"])):
        neg_upper, _, status, shares, columns = heapq.heappop(heap)
        middle = np.sort(shares, axis=0)[1]
        middle[list(status)] = -1.0
        pair = int(np.argmax(middle))
        if middle[pair] <= 1e-9:
            # Every pair's status is decided in the master: its bound is an arrangement's value, found above.
            heapq.heappush(heap, (neg_upper, nodes, status, shares, columns))
            break
        for kind in STATUSES:
            child = {**status, pair: kind}
            if not statuses_consistent(child):
                continue  # no arrangement keeps these statuses
            # A child bounded at or below the best arrangement known holds no better one, and one bounded
            # below -big / 2 holds no arrangement at all: its solve may stop as soon as it is bounded below both.
            floor = max(best["value"], -big / 2)
            res = solve(child, columns, floor)
            nodes += 1
            bound = min(res["upper"], -neg_upper)  # a child's arrangements are its parent's too
            if bound > floor:
                heapq.heappush(heap, (-bound, nodes, child, _pair_shares(res["solution"]), res["columns"]))
    upper = max(-heap[0][0] if heap else -np.inf, best["value"])
    return {"upper": float(upper), "root": float(root["upper"]), "value": float(best["value"]),
            "grid": best["grid"], "proved": bool(upper <= best["value"] + 1e-6 * max(1.0, abs(best["value"]))),
            "nodes": nodes}
