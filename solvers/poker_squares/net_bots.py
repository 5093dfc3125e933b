"""The bots of the Poker Squares agents on the learned afterstate value network (``net_model``).

- ``net``: one ply. Every empty cell the card may go to is valued by the
  network (one compiled call for all of them, the eight lines a placement
  leaves alone encoded once) and the highest wins, ties to the lowest cell.
- ``net_search``: two-ply expectimax over the network. Each candidate cell
  (``search.candidate_cells``: empty cells, one per symmetry class of empty
  rows and columns) is worth the mean, over the possible next cards, of the
  best network value after that card is placed. With ``seconds_per_game`` >
  0 the next cards are shuffled and taken ``CHANCE_BATCH`` at a time, every
  cell valued on the same cards, until the move's share of the time left
  (an equal share for each choice still to make) runs out or every card is
  taken; with 0 every next card is enumerated (exact and deterministic).
  With ``endgame`` = K it plays exactly once K cells or fewer are empty
  (:mod:`gamut.solvers.poker_squares.endgame`).

Both play the standard deal, one or two players (each maximises the
expected score of its own grid), and refuse the open variant, where the
cards to come are known and the network's premise (every unseen card may
come) does not hold. The network is that of the game's point system,
``results/poker_squares/net_american.npz`` or ``net_english.npz``, its
SHA-256 checked at load; ``weights`` names another file (trained with
``gamut squares train-net`` and ``--export``), for another point system or
a network trained as a residual over the ``crossline`` value (``--base
crossline``), whose agents add that value to the network's.
Neither needs JAX: the forward pass is Numba.

    >>> import pyspiel, gamut.envs
    >>> from gamut.solvers.bots import make_bot
    >>> bot = make_bot(pyspiel.load_game("poker_squares"), "net", player=0, seed=1)
"""

from __future__ import annotations

import time

import numba
import numpy as np
import pyspiel

from gamut.envs.cards import NUM_CARDS
from gamut.envs.hands import HAND_TABLE
from gamut.envs.poker_squares import kernels as K
from gamut.envs.rng import rng_state, shuffle
from gamut.solvers.poker_squares import net_model as M
from gamut.solvers.poker_squares.agents import refuse_open
from gamut.solvers.poker_squares.endgame import checked_endgame
from gamut.solvers.poker_squares.grid_bots import TimedSearch
from gamut.solvers.poker_squares.search import chance_cards
from gamut.solvers.seat_bots import SeatBot

CHANCE_BATCH = 4  # sampled next cards between two looks at the clock


@numba.njit(cache=True)
def best_cell(grid, card, params, base_values, base_weights, cfg, table):
    """The empty cell of highest network value for ``card`` (ties to the lowest); ``grid`` is restored.

    ``base_values``, ``base_weights``: the network's base (``net_model.valued_afterstates``).
    """
    values = np.empty(K.NUM_CELLS)
    M.valued_afterstates(grid, card, params, base_values, base_weights, cfg, table, values)
    return np.argmax(values)


@numba.njit(cache=True)
def two_ply_sums(grid, card, cands, nexts, params, base_values, base_weights, cfg, table, sums):
    """Add to ``sums[i]`` the best network value after each next card, ``card`` in cell ``cands[i]``.

    ``grid`` int64 (25,) is the player's grid before ``card`` is placed (restored);
    ``nexts`` int64 (m,) the next cards to try; ``sums`` float64 (len(cands),).
    """
    values = np.empty(K.NUM_CELLS)
    for i in range(cands.shape[0]):
        grid[cands[i]] = card
        for k in range(nexts.shape[0]):
            M.valued_afterstates(grid, nexts[k], params, base_values, base_weights, cfg, table, values)
            sums[i] += np.max(values)
        grid[cands[i]] = -1


class NetBot(SeatBot):
    """One-ply play on the value network (see the module docstring)."""

    name = "net"

    def __init__(self, game: pyspiel.Game, player: int, seed: int, weights: str):
        super().__init__(player)
        if game.get_type().short_name != "poker_squares":
            raise ValueError(f"the {self.name} agent plays poker_squares, not {game.get_type().short_name}")
        reason = refuse_open(game)
        if reason:
            raise ValueError(f"{self.name} cannot play {game}: {reason}")
        points = tuple(int(p) for p in game.cfg[K.C_POINTS:])
        self._net = M.load_net(weights or M.net_path(points), points)
        self._params = self._net["params"]
        self._base = self._net["base_arrays"]
        self._cfg = game.cfg
        self._rng = rng_state(seed)

    def step(self, state) -> int:
        self.check_turn(state)
        return int(self._choose(state.state.copy()))

    def _grid(self, work: np.ndarray) -> np.ndarray:
        base = K.S_GRID + K.NUM_CELLS * self._player
        return work[base:base + K.NUM_CELLS].copy()

    def _choose(self, work: np.ndarray) -> int:
        card = K.card_to_place(work, self._player)
        return best_cell(self._grid(work), card, self._params, *self._base, self._cfg, HAND_TABLE)


class NetSearchBot(NetBot, TimedSearch):
    """Two-ply expectimax over the value network, exact or on a time budget per game."""

    name = "net_search"

    def __init__(self, game, player, seed, weights, seconds_per_game, endgame=0):
        self._endgame = checked_endgame(self.name, endgame)
        if seconds_per_game < 0:
            raise ValueError(f"net_search option seconds_per_game must be >= 0, got {seconds_per_game}")
        super().__init__(game, player, seed, weights)
        self._seconds = self._left = seconds_per_game

    def _choose(self, work: np.ndarray) -> int:
        placed, move, cands = self._open_move(work)
        if move is not None:
            return move
        started = time.perf_counter()
        grid = self._grid(work)
        card = K.card_to_place(work, self._player)
        nexts = np.empty(NUM_CARDS, np.int64)
        nexts = nexts[:chance_cards(work, self._player, 0, nexts)]
        sums = np.zeros(len(cands))
        if self._seconds > 0:
            shuffle(nexts, len(nexts), self._rng)
            budget = self._even_share(placed)
            done = 0
            while done < len(nexts):
                batch = nexts[done:done + CHANCE_BATCH]
                two_ply_sums(grid, card, cands, batch, self._params, *self._base, self._cfg, HAND_TABLE, sums)
                done += len(batch)
                if time.perf_counter() - started >= budget:
                    break
            self._left -= time.perf_counter() - started
        else:
            two_ply_sums(grid, card, cands, nexts, self._params, *self._base, self._cfg, HAND_TABLE, sums)
        return int(cands[int(np.argmax(sums))])

