"""Monte Carlo tree search for Poker Squares with sampled chance (Numba), and the ``mcts`` agent.

The tree alternates two kinds of node, kept in one preallocated pool of flat
arrays (no allocation per iteration):

- a *decision* node: the player's grid with a known card to place; its
  children are after-state nodes, one per candidate cell
  (``search.candidate_cells``: empty cells, empty rows/columns collapsed by
  symmetry), stored contiguously;
- an *after-state* node: the grid after that placement; its children are
  decision nodes keyed by the next card the player places, created as cards
  are sampled (a linked list of siblings).

So the tree is keyed by the cells chosen *and* the cards drawn ("sparse"
sampling of chance, closed loop): a decision deep in the tree is taken
knowing the card it places, and the values converge to expectimax values.
Each iteration completes the deal by shuffling the unseen cards behind the
known ones (``search`` does the same), walks down by UCT at decision nodes and
by the sampled card at after-state nodes, stops at the first after-state node
never visited, values it by a learned-policy rollout of ``depth`` placements
then the learned grid value (``search.rollout_value``; a full grid is scored
exactly) and adds that return to every node on the path. With option
``crossline`` the rollout policy and that grid value are corrected for what
lines compete for (``gamut.solvers.poker_squares.crossline``).

UCT score of a visited child: ``mean + uct_c * sd * sqrt(ln N / n)``, with
``sd`` the standard deviation of the returns backed up at the root so far:
the exploration term is measured in the points of the game's own system
(any ten point values, negative ones included) and shrinks as the returns
settle late in the game. Unvisited children are tried first, in cell order.
The move is the root child of most visits (ties: higher mean, then lower cell).

    >>> import pyspiel, gamut.envs
    >>> from gamut.solvers.bots import make_bot
    >>> game = pyspiel.load_game("poker_squares")
    >>> bot = make_bot(game, "mcts", player=0, seed=1, iterations=200)
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numba
import numpy as np

from gamut.envs.cards import NUM_CARDS
from gamut.envs.hands import HAND_TABLE
from gamut.envs.rng import shuffle
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.bots import Option, register_bot
from gamut.solvers.poker_squares import search as S
from gamut.solvers.poker_squares.crossline import NO_WEIGHTS, checked_weights
from gamut.solvers.poker_squares.search_agents import TABLE_OPTION, WEIGHTS_OPTION, SquaresBot

NODES_PER_ITERATION = K.NUM_CELLS + 1  # one new decision node and its after-state children at most
_TIME_CAPACITY = 1 << 19  # pool size with a time budget (the search stops growing, not iterating, when full)
_BATCH = 32  # iterations between two looks at the clock


class Tree(NamedTuple):
    """Node pool of ``capacity`` nodes; node 0 is the root decision node.

    first : int64 (capacity,)
        Decision node: index of its first after-state child (-1: not expanded).
        After-state node: head of its list of decision children (-1: none).
    count : int64 (capacity,)
        Decision node: number of after-state children.
    label : int64 (capacity,)
        After-state node: the cell played; decision node: the card it places.
    sibling : int64 (capacity,)
        Decision node: the next decision child of the same after-state node (-1: last).
    visits : int64 (capacity,)
        Iterations through the node.
    total : float64 (capacity,)
        Sum of the returns backed up through the node.
    meta : int64 (1,)
        Nodes in use.
    root_stats : float64 (2,)
        Sum and sum of squares of the returns backed up at the root.
    """

    first: np.ndarray
    count: np.ndarray
    label: np.ndarray
    sibling: np.ndarray
    visits: np.ndarray
    total: np.ndarray
    meta: np.ndarray
    root_stats: np.ndarray


def new_tree(capacity: int) -> Tree:
    """An empty pool of ``capacity`` (>= 26) nodes."""
    if capacity < NODES_PER_ITERATION:
        raise ValueError(f"the tree needs room for at least {NODES_PER_ITERATION} nodes, got {capacity}")
    ints = [np.full(capacity, -1, dtype=np.int64) for _ in range(4)]
    return Tree(*ints, np.zeros(capacity, dtype=np.int64), np.zeros(capacity, dtype=np.float64),
                np.zeros(1, dtype=np.int64), np.zeros(2, dtype=np.float64))


@numba.njit(cache=True)
def _expand(work, player, node, first, count, label, sibling, visits, total, meta, cands):
    """Give decision ``node`` one after-state child per candidate cell; False if the pool is full."""
    ncand = S.candidate_cells(work, player, cands)
    start = meta[0]
    if start + ncand > len(first):
        return False
    for i in range(ncand):
        child = start + i
        first[child], count[child], label[child], sibling[child] = -1, 0, cands[i], -1
        visits[child], total[child] = 0, 0.0
    first[node], count[node] = start, ncand
    meta[0] = start + ncand
    return True


@numba.njit(cache=True)
def _select(node, uct_c, sd, first, count, visits, total):
    """The UCT child of decision ``node`` (the first unvisited child if any)."""
    log_n = np.log(max(visits[node], 1))
    best, best_score = -1, -np.inf
    for child in range(first[node], first[node] + count[node]):
        n = visits[child]
        if n == 0:
            return child
        score = total[child] / n + uct_c * sd * np.sqrt(log_n / n)
        if score > best_score:
            best, best_score = child, score
    return best


@numba.njit(cache=True)
def _decision_child(after, card, first, count, label, sibling, visits, total, meta):
    """The decision child of ``after`` for ``card``, created if new; -1 if the pool is full."""
    node = first[after]
    while node >= 0:
        if label[node] == card:
            return node
        node = sibling[node]
    node = meta[0]
    if node >= len(first):
        return -1
    first[node], count[node], label[node], sibling[node] = -1, 0, card, first[after]
    visits[node], total[node] = 0, 0.0
    first[after] = node
    meta[0] = node + 1
    return node


@numba.njit(cache=True)
def _iterate(state, player, cfg, table, values, weights, rng, uct_c, depth, num_iterations,
             first, count, label, sibling, visits, total, meta, root_stats):
    unseen = np.empty(NUM_CARDS, np.int64)
    nunseen = K.unseen_cards(state, unseen)
    first_free = state[K.S_NUM_DEALT]
    work = np.empty_like(state)
    cands = np.empty(K.NUM_CELLS, np.int64)
    path = np.empty(2 * K.NUM_CELLS + 1, np.int64)
    for _ in range(num_iterations):
        work[:] = state
        shuffle(unseen, nunseen, rng)
        # Complete the deal: known cards stay in place, unseen ones follow in the sampled order.
        for k in range(K.NUM_CELLS - first_free):
            work[K.S_DEAL + first_free + k] = unseen[k]
        work[K.S_NUM_DEALT] = K.NUM_CELLS
        n0 = visits[0]
        sd = 0.0
        if n0 > 1:
            mean = root_stats[0] / n0
            sd = np.sqrt(max(root_stats[1] / n0 - mean * mean, 0.0))
        node = 0
        path[0] = 0
        length = 1
        while True:
            if first[node] < 0 and not _expand(work, player, node, first, count, label, sibling, visits, total,
                                               meta, cands):
                ret = S.rollout_value(work, player, cfg, table, values, weights, rng, S.POLICY_LEARNED, depth)
                break
            after = _select(node, uct_c, sd, first, count, visits, total)
            K.place_card(work, player, label[after])
            path[length] = after
            length += 1
            if visits[after] == 0 or work[K.S_NUM_PLACED + player] == K.NUM_CELLS:
                ret = S.rollout_value(work, player, cfg, table, values, weights, rng, S.POLICY_LEARNED, depth)
                break
            node = _decision_child(after, K.card_to_place(work, player), first, count, label, sibling, visits,
                                   total, meta)
            if node < 0:
                ret = S.rollout_value(work, player, cfg, table, values, weights, rng, S.POLICY_LEARNED, depth)
                break
            path[length] = node
            length += 1
        for i in range(length):
            visits[path[i]] += 1
            total[path[i]] += ret
        root_stats[0] += ret
        root_stats[1] += ret * ret


def reset_tree(tree: Tree) -> None:
    """Empty ``tree``: only the unexpanded root decision node is left."""
    tree.first[0], tree.count[0], tree.label[0], tree.sibling[0] = -1, 0, -1, -1
    tree.visits[0], tree.total[0] = 0, 0.0
    tree.meta[0] = 1
    tree.root_stats[:] = 0.0


def search(state, player, cfg, table, values, rng, uct_c: float, depth: int, num_iterations: int,
           tree: Tree, weights: np.ndarray = NO_WEIGHTS) -> None:
    """Run ``num_iterations`` more iterations on ``tree`` from ``state`` (``player`` to place a card).

    ``tree`` keeps its nodes between calls (call ``reset_tree`` for a new
    position); ``rng`` is an ``gamut.envs.rng`` generator state; ``depth`` < 0
    rolls out to the end of the game. ``weights`` (float64 (26,
    crossline.NUM_FEATURES)) add the cross-line correction to the learned
    values of the rollout policy and of the grid where a rollout stops.
    """
    if K.current_player(state, cfg) != player:
        raise ValueError(f"mcts searches for the player to move, not player {player}")
    if num_iterations < 0 or uct_c < 0:
        raise ValueError("mcts needs num_iterations >= 0 and uct_c >= 0")
    _iterate(state, player, cfg, table, values, checked_weights(weights), rng, float(uct_c), int(depth),
             int(num_iterations), tree.first, tree.count, tree.label, tree.sibling, tree.visits, tree.total, tree.meta,
             tree.root_stats)


def root_children(tree: Tree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cells (int64), visits (int64) and mean returns (float64, nan if unvisited) of the root's children."""
    if tree.first[0] < 0:
        raise ValueError("the root has not been expanded: run at least one iteration")
    kids = np.arange(tree.first[0], tree.first[0] + tree.count[0])
    visits = tree.visits[kids].copy()
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(visits > 0, tree.total[kids] / np.maximum(visits, 1), np.nan)
    return tree.label[kids].copy(), visits, means


class MctsBot(SquaresBot):
    """UCT with sampled chance (see the module docstring)."""

    name = "mcts"

    def __init__(self, game, player, seed, table, iterations, seconds_per_game, uct_c, depth, crossline=False,
                 weights=""):
        if iterations < 1 or seconds_per_game < 0 or uct_c < 0:
            raise ValueError("mcts needs iterations >= 1, seconds_per_game >= 0 and uct_c >= 0")
        super().__init__(game, player, seed, table, crossline, weights)
        self._iterations, self._seconds, self._uct_c, self._depth = iterations, seconds_per_game, uct_c, depth
        capacity = _TIME_CAPACITY if seconds_per_game > 0 else NODES_PER_ITERATION * (iterations + 1)
        self._tree = new_tree(capacity)
        self._left = seconds_per_game

    def _run(self, work, n):
        search(work, self._player, self._cfg, HAND_TABLE, self._values, self._rng, self._uct_c, self._depth, n,
               self._tree, self._weights)

    def _choose(self, work: np.ndarray) -> int:
        placed = int(work[K.S_NUM_PLACED + self._player])
        if placed == 0:
            self._left = self._seconds
        cands = np.empty(K.NUM_CELLS, np.int64)
        ncand = S.candidate_cells(work, self._player, cands)
        if ncand == 1:
            return int(cands[0])
        reset_tree(self._tree)
        if self._seconds > 0:
            started = time.perf_counter()
            # An equal share of the time left for each placement still to choose (the last is forced).
            budget = self._left / max(K.NUM_CELLS - 1 - placed, 1)
            while True:
                self._run(work, _BATCH)
                if time.perf_counter() - started >= budget:
                    break
            self._left -= time.perf_counter() - started
        else:
            self._run(work, self._iterations)
        cells, visits, means = root_children(self._tree)
        order = np.lexsort((cells, -np.nan_to_num(means, nan=-np.inf), -visits))
        return int(cells[order[0]])


register_bot(
    "mcts", "poker_squares",
    lambda game, player, seed, **o: MctsBot(game, player, seed, **o),
    "UCT over cells with sampled next cards, leaves valued by a short learned rollout and the learned table",
    {
        "table": TABLE_OPTION,
        "crossline": Option(bool, False, "add the cross-line correction to the learned values (rollout policy and "
                            "leaf)"),
        "weights": WEIGHTS_OPTION,
        "iterations": Option(int, 400, "iterations per move (when seconds_per_game is 0)"),
        "seconds_per_game": Option(float, 0.0, "time budget per game in seconds, split evenly over the moves "
                                               "(0: use iterations)"),
        "uct_c": Option(float, 1.0, "exploration constant, in standard deviations of the returns at the root"),
        "depth": Option(int, 3, "learned-policy placements before the learned table values a leaf (-1: to the end)"),
    },
)
