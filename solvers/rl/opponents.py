"""The toolkit's heuristic as a fixed opponent inside batched self-play.

PPO's ``heuristic_share`` setting seats the game's rule-of-thumb player
(``gamut.solvers.poke.heuristic``, ``gamut.solvers.palace_poker.heuristic``) at
some tables of its self-play batch. :class:`BatchedHeuristic` plays those
seats: one compiled call computes the heuristic's move in every chosen row,
straight from the batched environment's kernel states (``env.states``), so the
heuristic moves exactly as its ``pyspiel.Bot`` would in the same state.

Which seats it plays is drawn per game by :func:`draw_tables`: one seat of
each table is the learner's; every other seat is the heuristic's with
probability ``share``, else the learner's too (self-play).

Worked example (four players, ``share = 0.5``): a table drawn as
``[False, True, False, True]`` has the learner in seats 0 and 2 (both trained
on) and the heuristic in seats 1 and 3 (not trained on).
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs.hands import HAND_TABLE
from gamut.envs.palace_poker import layout as palace_layout
from gamut.envs.rng import rng_state
from gamut.solvers.palace_poker import heuristic as palace_heuristic
from gamut.solvers.poke import heuristic as poke_heuristic

GAMES = ("poke", "palace_poker")


@numba.njit(cache=True)
def _poke_actions(states, cfg, params, rows, out):
    for k in range(rows.shape[0]):
        out[k] = poke_heuristic.heuristic_action(states[rows[k]], cfg, params)


@numba.njit(cache=True)
def _palace_actions(states, cfg, params, rng, table, legal, work, rows, out):
    for k in range(rows.shape[0]):
        out[k] = palace_heuristic.heuristic_action(states[rows[k]], cfg, params, rng, table, legal, work)


class BatchedHeuristic:
    """The default-threshold heuristic of ``game`` (``poke`` or ``palace_poker``) over a batch of kernel states.

    Parameters
    ----------
    game : pyspiel.Game
        The game the batched environment plays.
    seed : int
        Seeds the palace draws of the Palace Poker heuristic's equity
        estimates (the Poke heuristic is deterministic).

    Raises
    ------
    ValueError
        For a game without a heuristic (naming the games that have one).
    """

    def __init__(self, game, seed: int):
        name = game.get_type().short_name
        if name not in GAMES:
            raise ValueError(f"{name} has no heuristic to seat in self-play; games with one: {', '.join(GAMES)}")
        self.name = name
        self.cfg = game.cfg
        if name == "poke":
            self.params = poke_heuristic.make_params()
        else:
            self.params = palace_heuristic.make_params()
            self.rng = rng_state(int(seed) & (2**63 - 1))
            self._legal = np.empty(int(self.cfg[palace_layout.C_NUM_ACTIONS]), np.int64)
            self._work = np.empty(palace_heuristic.WORK_SIZE, np.int64)

    def actions(self, states: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The heuristic's action int64 ``(len(rows),)`` for the player to move in each of ``states[rows]``."""
        rows = np.ascontiguousarray(rows, np.int64)
        out = np.empty(rows.shape[0], np.int64)
        if self.name == "poke":
            _poke_actions(states, self.cfg, self.params, rows, out)
        else:
            _palace_actions(states, self.cfg, self.params, self.rng, HAND_TABLE, self._legal, self._work, rows, out)
        return out

    def state(self) -> dict:
        """Arrays that, with :meth:`load_state`, continue the same moves after a checkpoint."""
        return {"rng": self.rng.copy()} if self.name == "palace_poker" else {}

    def load_state(self, arrays: dict) -> None:
        if self.name == "palace_poker":
            saved = arrays.get("rng")
            if saved is None or saved.shape != self.rng.shape or saved.dtype != self.rng.dtype:
                raise ValueError("the saved heuristic generator does not match this run")
            self.rng[...] = saved


def draw_tables(rng: np.random.Generator, rows: int, players: int, share: float) -> np.ndarray:
    """Seats bool ``(rows, players)`` played by the heuristic in ``rows`` new games (see the module docstring).

    ``rng`` draws the learner's seat of each row, then one uniform number per
    seat (the learner's seat included, so the draws per row are fixed).
    """
    learner = rng.integers(0, players, size=rows)
    heuristic = rng.random((rows, players)) < share
    heuristic[np.arange(rows), learner] = False
    return heuristic
