"""A league of the learner's own past selves at the tables of batched self-play (Deep Monte-Carlo).

Pure self-play meets only its current self: a policy can drift into a style
that beats itself and loses to a player it never met, and back (the
self-play cycle). A league keeps frozen snapshots of the learner's past
parameters and seats them beside it, so each update also has to hold against
the policies it used to be (as in AlphaStar's league or the "past selves"
of OpenAI Five). No hand-written player takes part: the agent trained this
way is trained by self-play alone.

:class:`League` holds, for the games in flight of
:class:`~gamut.solvers.rl.dmc.DMCTrainer` (``league_share > 0``):

- the **pool**: a ring of up to ``size`` snapshots of the Q-network's
  parameters; one is taken each time the run's decisions pass a multiple of
  ``every`` (the newest replaces the oldest once the ring is full);
- the **tables**: int ``(rows, players)``, who plays each seat of each game
  in flight: ``-1`` the learner, ``k >= 0`` the snapshot in ring slot ``k``.
  At each new game one seat, drawn uniformly, is the learner's; every other
  seat is a snapshot with probability ``share`` (drawn uniformly from the
  filled slots), else the learner's too. While the pool is empty every seat
  is the learner's. The draws per new game are fixed (a seat, then one
  uniform per seat and one per seat for the slot), so the run's generator
  stays in step whatever the pool holds.

A snapshot plays the greedy action of its Q-values (computed in NumPy, as the
``dmc`` agent plays); its decisions are not trained on. A slot replaced while
a game in flight still seats it plays the newer snapshot for the rest of that
game.

Worked example (four players, ``share = 0.5``, two snapshots): a table drawn
as ``[-1, 1, -1, 0]`` has the learner in seats 0 and 2 (both trained on),
snapshot 1 in seat 1 and snapshot 0 in seat 3.
"""

from __future__ import annotations

import numpy as np

from gamut.solvers.rl.features import score_actions


class League:
    """The pool of past snapshots and the seats of the games in flight (see the module docstring).

    Parameters
    ----------
    rows : int
        Games in flight.
    players : int
    share : float
        Probability that a non-learner seat of a new game is a snapshot's.
    every : int
        Decisions between snapshots.
    size : int
        Snapshots kept.
    rng : numpy.random.Generator
        The trainer's generator (the draws of the tables).
    """

    def __init__(self, rows: int, players: int, share: float, every: int, size: int, rng: np.random.Generator):
        self.rows, self.players = int(rows), int(players)
        self.share, self.every, self.size = float(share), int(every), int(size)
        self.rng = rng
        self.pool: list[dict] = []  # ring slots in order; slot k is pool[k]
        self.taken = 0  # snapshots taken so far (the next goes to slot taken % size)
        self.tables = -np.ones((self.rows, self.players), np.int64)
        self.new_games(np.arange(self.rows))

    def draw(self, count: int) -> np.ndarray:
        """Tables int ``(count, players)`` of ``count`` new games (fixed draws per game, see the module)."""
        seat = self.rng.integers(0, self.players, size=count)
        other = self.rng.random((count, self.players)) < self.share
        slot = np.floor(self.rng.random((count, self.players)) * max(len(self.pool), 1)).astype(np.int64)
        tables = np.where(other & (len(self.pool) > 0), slot, -1)
        tables[np.arange(count), seat] = -1
        return tables

    def new_games(self, rows: np.ndarray) -> None:
        """Draw the tables of the games that start in ``rows``."""
        rows = np.asarray(rows, np.int64)
        if len(rows):
            self.tables[rows] = self.draw(len(rows))

    def learner_seat(self, rows: np.ndarray) -> np.ndarray:
        """The learner's first seat at each table of ``rows``."""
        return np.argmax(self.tables[np.asarray(rows, np.int64)] < 0, axis=1)

    def play(self, actions: np.ndarray, player: np.ndarray, x: np.ndarray, feats, mask: np.ndarray) -> np.ndarray:
        """Replace, in place, the actions of rows whose mover is a snapshot; returns bool ``(rows,)``: learner's.

        ``actions`` int ``(rows,)`` are the learner's choices, ``player`` the
        movers, ``x`` the network inputs, ``feats`` the action features
        ``(rows, A, F)`` (None: one-hot ids), ``mask`` the legal masks.
        """
        seat = self.tables[np.arange(self.rows), np.asarray(player, np.int64)]
        for slot in np.unique(seat[seat >= 0]):
            rows = np.flatnonzero(seat == slot)
            q = score_actions(self.pool[slot], "q", x[rows], None if feats is None else feats[rows])
            actions[rows] = np.argmax(np.where(mask[rows], q, -np.inf), axis=1)
        return seat < 0

    def maybe_snapshot(self, params: dict, steps: int) -> bool:
        """Freeze ``params`` into the pool when ``steps`` has passed the next multiple of ``every``."""
        if steps // self.every <= self.taken:
            return False
        snapshot = {k: np.array(v, np.float32) for k, v in params.items()}
        if len(self.pool) < self.size:
            self.pool.append(snapshot)
        else:
            self.pool[self.taken % self.size] = snapshot
        self.taken = steps // self.every
        return True

    # -- checkpoint support ---------------------------------------------------
    def state(self) -> tuple[dict, dict]:
        """JSON-able counters and the arrays (``tables``, ``<slot>/<parameter>``)."""
        arrays = {"tables": self.tables.copy()}
        for k, snapshot in enumerate(self.pool):
            arrays.update({f"{k}/{name}": v for name, v in snapshot.items()})
        return {"taken": self.taken, "pool": len(self.pool)}, arrays

    def load_state(self, info: dict, arrays: dict, like: dict) -> None:
        """Restore :meth:`state`'s output; ``like`` holds the parameter shapes (ValueError on a mismatch)."""
        count = int(info["pool"])
        if count > self.size or arrays["tables"].shape != self.tables.shape:
            raise ValueError("the saved league does not match this configuration")
        pool = []
        for k in range(count):
            snapshot = {name: np.asarray(arrays[f"{k}/{name}"], np.float32) for name in like}
            if any(snapshot[name].shape != np.shape(like[name]) for name in like):
                raise ValueError(f"league snapshot {k} does not match the network's shapes")
            pool.append(snapshot)
        self.pool, self.taken = pool, int(info["taken"])
        self.tables[:] = arrays["tables"]
