"""The bots of the Poker Squares agents that value the grid by its points, its learned line values and search.

- ``greedy``: puts each card in the empty cell that most raises the points of
  its row and column as they stand (partial lines valued by the pairs, trips
  and quads they hold), ties broken at random (``kernels.greedy_cell``); it
  works for every point system, the kernels scoring with the game's points.
- ``learned``: places each card where the learned value of the grid (the sum
  of its ten learned line values, ``gamut.solvers.poker_squares.learned``) is
  highest.
- ``expectimax``: two-ply expectimax, the expectation over every possible next
  card of the best learned grid value after placing it; or three or four
  plies (``depth``, ``width``, ``keep``, ``deepen_at``, see
  ``search.expectimax_values``), exact or with the next card sampled under a
  time budget per game.
- ``expectimax_deep``: ``expectimax`` with its strongest settings as
  defaults (three plies for the 6 cells two plies rank highest, 3 cells per
  next card; about 1.5 s per game).
- ``crossline``: like ``learned``, on the learned grid value plus its
  cross-line correction (``gamut.solvers.poker_squares.crossline``: empty cells that
  must serve two lines, lines competing for one suit or rank).
- ``expectimax_cross``: two-ply ``expectimax`` on the corrected values
  (option ``crossline`` of ``expectimax``).
- ``mc``: flat Monte Carlo over the candidate cells, every cell played out on
  the same sampled card orders, rollouts by the game's greedy kernel or by the
  learned policy, optionally cut after ``depth`` placements and valued by the
  learned table; a fixed number of rollouts per cell and move, or a time
  budget per game, split evenly over the moves or in proportion to the cells
  each move tries (``share``). With ``keep`` = k, only the k cells that
  two-ply expectimax ranks highest are rolled out (more rollouts per cell);
  ``blend`` = w values a cell by ``(1 - w)`` times its rollout mean plus ``w``
  times its three-ply expectimax value.
- ``mc_learned``: ``mc`` with its strongest settings as defaults (the 6
  cells expectimax ranks highest, learned rollouts of 3 placements, then the
  learned table; 4.5 s per game).
- ``mc_cross``: ``mc_learned`` with the cross-line correction (option
  ``crossline`` of ``mc``) in the ranking, the rollout policy and the cut.

Every search agent (``expectimax``, ``expectimax_deep``, ``expectimax_cross``,
``mc``, ``mc_learned``, ``mc_cross``) takes ``endgame`` = K: once K cells or
fewer are empty it plays the move of highest exact value
(:mod:`gamut.solvers.poker_squares.endgame`), and its time budget is shared
among the moves it still searches.

The learned table is that of the game's point system, read from
``results/poker_squares/`` (``gamut squares train`` makes it); ``table``
names another file. The correction is read from there too (``gamut squares
train-crossline`` fits it on the table; ``weights`` names another file).

    >>> import pyspiel, gamut.envs
    >>> from gamut.solvers.bots import make_bot
    >>> game = pyspiel.load_game("poker_squares")
    >>> bot = make_bot(game, "mc", player=0, seed=1, simulations=20)
"""

from __future__ import annotations

import time

import numpy as np
import pyspiel

from gamut.envs.hands import HAND_TABLE
from gamut.envs.rng import rng_state, shuffle
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares import search as S
from gamut.solvers.poker_squares.crossline import NO_WEIGHTS, corrected_cell, load_weights
from gamut.solvers.poker_squares.endgame import checked_endgame, endgame_choice
from gamut.solvers.poker_squares.learned import learned_cell
from gamut.solvers.poker_squares.training import load_values
from gamut.solvers.seat_bots import SeatBot

_BATCH = 8  # rollouts per cell between two looks at the clock
_CHANCE_BATCH = 4  # sampled next cards per expectimax call between two looks at the clock
_BLEND_WIDTH = 3  # cells per next card of the three-ply values mc blends in (as expectimax_deep)


def _check_game(game: pyspiel.Game, name: str) -> None:
    if game.get_type().short_name != "poker_squares":
        raise ValueError(f"the {name} Poker Squares agent cannot play {game.get_type().short_name}")


def _table(game: pyspiel.Game, table: str) -> np.ndarray:
    return load_values(tuple(game.cfg[K.C_POINTS:]), table or None)


def move_without_search(work: np.ndarray, player: int, cfg: np.ndarray, endgame: int) -> tuple[int | None, np.ndarray]:
    """The move that needs no search, else None and the cells to search.

    The move is the exact endgame's best cell when ``player``'s grid has at
    most ``endgame`` empty cells (``endgame.endgame_choice``), or the only
    candidate cell; the candidates are the empty cells, one per symmetry class
    (``search.candidate_cells``), int64 ``(n,)``.
    """
    exact = endgame_choice(work, player, cfg, endgame)
    if exact is not None:
        return exact[0], np.array([exact[0]], np.int64)
    cands = np.empty(K.NUM_CELLS, np.int64)
    cands = cands[:S.candidate_cells(work, player, cands)]
    return (int(cands[0]) if len(cands) == 1 else None), cands


def _searched_moves(placed: int, endgame: int) -> int:
    """Placements still to search from this one on: the last is forced, the last ``endgame`` are solved exactly."""
    return max(K.NUM_CELLS - placed - max(endgame, 1), 1)


class TimedSearch:
    """The per-game time budget of a search agent: ``_seconds`` a game, ``_left`` of it in the game in play.

    A subclass sets ``_seconds``, ``_endgame``, ``_player`` and ``_cfg``.
    """

    def _open_move(self, work: np.ndarray) -> tuple[int, int | None, np.ndarray]:
        """(cards placed, move, candidates): the budget is reset at a game's first card; ``move_without_search``."""
        placed = int(work[K.S_NUM_PLACED + self._player])
        if placed == 0:
            self._left = self._seconds
        return (placed, *move_without_search(work, self._player, self._cfg, self._endgame))

    def _even_share(self, placed: int) -> float:
        """An equal share of the time left for each placement still to search."""
        return self._left / _searched_moves(placed, self._endgame)


class GreedyBot(SeatBot):
    """Greedy placement by immediate row-plus-column points (see the module docstring)."""

    name = "greedy"

    def __init__(self, game: pyspiel.Game, player: int, seed: int):
        super().__init__(player)
        if game.get_type().short_name != "poker_squares":
            raise ValueError(f"the greedy Poker Squares agent cannot play {game.get_type().short_name}")
        self._cfg = game.cfg
        self._rng = rng_state(seed)

    def step(self, state) -> int:
        self.check_turn(state)
        work = state.state.copy()  # greedy_cell tries cells in place and restores them
        return int(K.greedy_cell(work, self._player, self._cfg, HAND_TABLE, self._rng))


class SquaresBot(SeatBot):
    """Shared plumbing: own seat check, a kernel generator, the learned table, the cross-line weights."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, table: str, crossline: bool = False,
                 weights: str = ""):
        super().__init__(player)
        _check_game(game, self.name)
        if weights and not crossline:
            raise ValueError(f"{self.name} option weights names a cross-line correction file: it needs "
                             "crossline=true")
        self._cfg = game.cfg
        self._rng = rng_state(seed)
        self._values = _table(game, table)
        self._weights = NO_WEIGHTS
        if crossline:
            self._weights = load_weights(tuple(game.cfg[K.C_POINTS:]), weights or None, table or None)

    def step(self, state) -> int:
        self.check_turn(state)
        return int(self._choose(state.state.copy()))


class LearnedBot(SquaresBot):
    """Greedy on the learned grid value."""

    name = "learned"

    def _choose(self, work: np.ndarray) -> int:
        return learned_cell(work, self._player, self._cfg, HAND_TABLE, self._values, self._rng)


class CrosslineBot(SquaresBot):
    """Greedy on the learned grid value plus its cross-line correction (ties to the lowest cell)."""

    name = "crossline"

    def __init__(self, game, player, seed, table, weights):
        super().__init__(game, player, seed, table, crossline=True, weights=weights)

    def _choose(self, work: np.ndarray) -> int:
        return corrected_cell(work, self._player, self._cfg, HAND_TABLE, self._values, self._weights)


class ExpectimaxBot(SquaresBot):
    """Two-, three- or four-ply expectimax on the learned grid value (ties to the lowest cell).

    Before ``deepen_at`` cards are on the grid the search is one ply shallower
    (never below two): early moves have the most next cards to enumerate, so
    a deeper search costs most there.

    With ``seconds_per_game`` > 0 the next card is sampled: the possible next
    cards are shuffled and taken ``_CHANCE_BATCH`` at a time, every candidate
    cell valued on the same cards, until the move's share of the time left
    (an equal share for each choice still to make) runs out or every card is
    taken (then the values are exact).
    """

    name = "expectimax"
    # What ``last_values`` holds (read by ``gamut play``'s hint): the learned line values sum to a final score.
    VALUES_MEANING = "estimated final score"

    def __init__(self, game, player, seed, table, depth=2, width=3, keep=0, deepen_at=0, seconds_per_game=0.0,
                 crossline=False, weights="", endgame=0):
        self._endgame = checked_endgame(self.name, endgame)
        if depth not in (2, 3, 4) or width < 1 or keep < 0 or not 0 <= deepen_at <= K.NUM_CELLS \
                or seconds_per_game < 0:
            raise ValueError(f"{self.name} needs depth 2, 3 or 4, width >= 1, keep >= 0, deepen_at in 0..25 and "
                             f"seconds_per_game >= 0; got depth {depth}, width {width}, keep {keep}, "
                             f"deepen_at {deepen_at}, seconds_per_game {seconds_per_game}")
        super().__init__(game, player, seed, table, crossline, weights)
        self._depth, self._width, self._keep, self._deepen_at = depth, width, keep, deepen_at
        self._seconds = self._left = seconds_per_game
        self.last_values: list[tuple[int, float]] | None = None

    def _choose(self, work: np.ndarray) -> int:
        self.last_values = None
        placed = int(work[K.S_NUM_PLACED + self._player])
        if placed == 0:
            self._left = self._seconds
        exact = endgame_choice(work, self._player, self._cfg, self._endgame)
        if exact is not None:
            self.last_values = exact[1]
            return exact[0]
        cands = np.empty(K.NUM_CELLS, np.int64)
        cands = cands[:S.candidate_cells(work, self._player, cands)]
        depth = self._depth if placed >= self._deepen_at else max(self._depth - 1, 2)
        if len(cands) == 1:
            if placed == 0:
                # Every cell of the empty grid is alike: the move is forced, but a hint shows what the
                # game is worth. Valued outside the time budget and the generator, so play is unchanged.
                value = S.expectimax_values(work, self._player, self._cfg, HAND_TABLE, self._values, cands, depth,
                                            self._width, S.next_cards(work, self._player), self._weights)
                self.last_values = [(int(cands[0]), float(value[0]))]
            return int(cands[0])
        started = time.perf_counter()
        if depth > 2 and 0 < self._keep < len(cands):
            # The deeper search only for the cells two plies rank highest (stable: ties keep cell order).
            ranked = S.expectimax_values(work, self._player, self._cfg, HAND_TABLE, self._values, cands,
                                         weights=self._weights)
            cands = cands[np.sort(np.argsort(-ranked, kind="stable")[:self._keep])]
        first = S.next_cards(work, self._player)
        if self._seconds > 0:
            shuffle(first, len(first), self._rng)
            budget = self._left / _searched_moves(placed, self._endgame)
            sums = np.zeros(len(cands), dtype=np.float64)
            done = 0
            while done < len(first):
                batch = first[done:done + _CHANCE_BATCH]
                sums += len(batch) * S.expectimax_values(work, self._player, self._cfg, HAND_TABLE, self._values,
                                                         cands, depth, self._width, batch, self._weights)
                done += len(batch)
                if time.perf_counter() - started >= budget:
                    break
            values = sums / done
            self._left -= time.perf_counter() - started
        else:
            values = S.expectimax_values(work, self._player, self._cfg, HAND_TABLE, self._values, cands, depth,
                                         self._width, first, self._weights)
        self.last_values = [(int(c), float(v)) for c, v in zip(cands, values)]
        return int(cands[int(np.argmax(values))])


class MonteCarloBot(SquaresBot, TimedSearch):
    """Flat Monte Carlo with common random numbers (see the module docstring)."""

    name = "mc"

    def __init__(self, game, player, seed, table, simulations, seconds_per_game, policy, depth, keep=0,
                 share="even", blend=0.0, crossline=False, weights="", endgame=0):
        self._endgame = checked_endgame(self.name, endgame)
        if not 0.0 <= blend <= 1.0:
            raise ValueError(f"mc option blend must be in [0, 1], got {blend}")
        self._blend = blend
        if share not in ("even", "cells"):
            raise ValueError(f"mc option share must be 'even' or 'cells', got {share!r}")
        self._share = share
        if policy not in ("greedy", "learned"):
            raise ValueError(f"mc option policy must be 'greedy' or 'learned', got {policy!r}")
        if simulations < 1 or seconds_per_game < 0 or keep < 0:
            raise ValueError("mc needs simulations >= 1, seconds_per_game >= 0 and keep >= 0")
        self._keep = keep
        needs_table = policy == "learned" or depth >= 0 or keep > 0 or blend > 0
        if crossline and not needs_table:
            raise ValueError("mc option crossline corrects the learned values: it needs policy 'learned', a "
                             "depth >= 0, keep or blend")
        self._policy = S.POLICY_LEARNED if policy == "learned" else S.POLICY_GREEDY
        if needs_table:
            super().__init__(game, player, seed, table, crossline, weights)
        else:
            self._plain_init(game, player, seed)
        self._sims, self._seconds, self._depth = simulations, seconds_per_game, depth
        self._left = seconds_per_game

    def _plain_init(self, game, player, seed):
        SeatBot.__init__(self, player)
        _check_game(game, self.name)
        self._cfg, self._rng = game.cfg, rng_state(seed)
        self._values = np.zeros(1, dtype=np.float64)  # never read: greedy rollouts played to the end
        self._weights = NO_WEIGHTS

    def _choose(self, work: np.ndarray) -> int:
        placed, move, cands = self._open_move(work)
        if move is not None:
            return move
        started = time.perf_counter()
        if 0 < self._keep < len(cands):
            # Rollouts only for the cells two-ply expectimax ranks highest (stable: ties keep cell order).
            ranked = S.expectimax_values(work, self._player, self._cfg, HAND_TABLE, self._values, cands,
                                         weights=self._weights)
            cands = cands[np.sort(np.argsort(-ranked, kind="stable")[:self._keep])]
        if self._blend > 0:
            three = S.expectimax_values(work, self._player, self._cfg, HAND_TABLE, self._values, cands, 3,
                                        _BLEND_WIDTH, weights=self._weights)
        sums = np.zeros(len(cands), dtype=np.float64)
        sims = 0
        if self._seconds > 0:
            if self._share == "even":
                budget = self._even_share(placed)
            else:
                # A share proportional to the cells to try, against the empty cells of every later choice.
                cap = self._keep or K.NUM_CELLS
                later = sum(min(K.NUM_CELLS - q, cap) for q in range(placed + 1, K.NUM_CELLS - max(self._endgame, 1)))
                budget = self._left * len(cands) / (len(cands) + later)
            while True:
                S.mc_batch(work, self._player, self._cfg, HAND_TABLE, self._values, cands, _BATCH, self._rng,
                           self._policy, self._depth, sums, self._weights)
                sims += _BATCH
                if time.perf_counter() - started >= budget:
                    break
            self._left -= time.perf_counter() - started
        else:
            S.mc_batch(work, self._player, self._cfg, HAND_TABLE, self._values, cands, self._sims, self._rng,
                       self._policy, self._depth, sums, self._weights)
            sims = self._sims
        values = sums / sims
        if self._blend > 0:
            values = (1.0 - self._blend) * values + self._blend * three
        return int(cands[int(np.argmax(values))])

