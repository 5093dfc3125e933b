"""The ranking game of poker dice solved by backward induction over "best hand so far".

Seats play in order; each sees the final hands before it (``docs/games/poker_dice.md``).
When ``m`` seats (including the one to move) remain and the best hand so far
is ``b`` held by ``t`` tied players, let ``W[m, b, t]`` be the expected win
share of each of those leaders. With no seat left a leader gets ``1 / t``.
The seat to move maximises its own expected share, whose value for a final
hand ``h`` is ``W[m - 1, h, 1]`` if ``h`` beats ``b``, ``W[m - 1, b, t + 1]``
if it ties, else 0; the leaders keep ``W[m - 1, b, t]`` if ``h`` is lower,
``W[m - 1, b, t + 1]`` if it ties, and 0 if it is higher.

One seat's turn (three rolls; dice kept at the first reroll are frozen) is
solved exactly for a value ``u`` of final hands: keep expectations give the
value of a second reroll from each keep; for each first keep ``F`` the best
second keep between ``F`` and the roll showing is found by a maximum over
sub-multisets restricted to supersets of ``F``. Ties between choices go to
stopping, then to the lowest keep id, so the policy (and the other seats'
shares) is deterministic.

Hands are roll ids; ``b`` is stored as ``ROLL_RANK + 1`` with 0 for "no hand yet".
"""

from __future__ import annotations

import time

import numba
import numpy as np

from gamut.envs import dice
from gamut.solvers.poker_dice.dp import _keep_expectations

MAX_PLAYERS = 8
_SHORT = dice.NUM_SHORT_KEEPS


def _superset_lists():
    counts = dice.KEEP_COUNTS
    start = np.zeros(_SHORT + 1, dtype=np.int64)
    items = []
    for f in range(_SHORT):
        sup = np.nonzero(np.all(counts >= counts[f], axis=1))[0]  # ascending: smaller first
        items.append(sup)
        start[f + 1] = start[f] + len(sup)
    return start, np.concatenate(items).astype(np.int64)


SUPERSET_START, SUPERSETS = _superset_lists()
"""Keeps ``X`` containing keep ``F`` (``F < 210``), ascending by id (hence by size)."""


@numba.njit(cache=True)
def _seat_turn(u, p0, keep_remove, keep_size, sup_start, sups, trans_start, trans_roll,
               trans_prob, roll_keeps_start, roll_keeps, ev, first_ev, best, arg, stamp, second,
               first, dist, mass1, mass2):
    """Optimal turn for final-hand values ``u`` (252,). Fills ``second[F, r]`` (the second
    keep after first keep F with roll r showing; -1 = stop), ``first[r]`` (the first keep;
    -1 = stop) and ``dist`` (252,) the final-hand distribution; returns the expected value.
    The other arguments are dice tables and scratch buffers (see ``solve_ranking``)."""
    # ev[K]: value of keeping K before the last roll (a keep of five dice is that hand).
    _keep_expectations(u, ev)
    stamp[:] = -1
    second[:, :] = -1  # also for rolls a first keep cannot lead to
    for F in range(_SHORT):
        # best[X]: best second keep K with F <= K <= X and |K| < 5 (arg[X] = K, -1 = none).
        # Supersets come in ascending id order, so X's one-die-smaller supersets of F are
        # done first; stamp[Y] == F marks them.
        for i in range(sup_start[F], sup_start[F + 1]):
            X = sups[i]
            stamp[X] = F
            if keep_size[X] < dice.NUM_DICE:
                best[X] = ev[X]
                arg[X] = X
            else:
                best[X] = -np.inf
                arg[X] = -1
            for f in range(dice.NUM_FACES):
                Y = keep_remove[X, f]
                if Y < 0 or stamp[Y] != F:
                    continue
                if best[Y] > best[X] or (best[Y] == best[X] and 0 <= arg[Y] < arg[X]):
                    best[X] = best[Y]
                    arg[X] = arg[Y]
        total = 0.0
        for i in range(trans_start[F], trans_start[F + 1]):
            r = trans_roll[i]
            X = _SHORT + r
            if best[X] > u[r]:
                second[F, r] = arg[X]
                total += trans_prob[i] * best[X]
            else:
                second[F, r] = -1
                total += trans_prob[i] * u[r]
        first_ev[F] = total
    value = 0.0
    for r in range(dice.NUM_ROLLS):
        choice = -1
        top = u[r]
        for i in range(roll_keeps_start[r], roll_keeps_start[r + 1]):
            k = roll_keeps[i]
            if keep_size[k] < dice.NUM_DICE and first_ev[k] > top:
                top = first_ev[k]
                choice = k
        first[r] = choice
        value += p0[r] * top
    # Final-hand distribution under this policy.
    dist[:] = 0.0
    mass1[:] = 0.0
    mass2[:] = 0.0
    for r in range(dice.NUM_ROLLS):
        if first[r] < 0:
            dist[r] += p0[r]
        else:
            mass1[first[r]] += p0[r]
    for F in range(_SHORT):
        if mass1[F] == 0.0:
            continue
        for i in range(trans_start[F], trans_start[F + 1]):
            r = trans_roll[i]
            if second[F, r] < 0:
                dist[r] += mass1[F] * trans_prob[i]
            else:
                mass2[second[F, r]] += mass1[F] * trans_prob[i]
    for K in range(_SHORT):
        if mass2[K] > 0.0:
            for i in range(trans_start[K], trans_start[K + 1]):
                dist[trans_roll[i]] += mass2[K] * trans_prob[i]
    return value


class _Scratch:
    """Dice tables and scratch buffers for ``_seat_turn``."""

    def __init__(self):
        self.tables = (
            np.ascontiguousarray(dice.TRANSITION[0]), dice.KEEP_REMOVE,
            dice.KEEP_SIZE, SUPERSET_START, SUPERSETS, dice.TRANS_START, dice.TRANS_ROLL,
            dice.TRANS_PROB, dice.ROLL_KEEPS_START, dice.ROLL_KEEPS,
        )
        self.ev = np.zeros(dice.NUM_KEEPS)
        self.first_ev = np.zeros(_SHORT)
        self.best = np.zeros(dice.NUM_KEEPS)
        self.arg = np.zeros(dice.NUM_KEEPS, dtype=np.int64)
        self.stamp = np.zeros(dice.NUM_KEEPS, dtype=np.int64)
        self.second = np.zeros((_SHORT, dice.NUM_ROLLS), dtype=np.int64)
        self.first = np.zeros(dice.NUM_ROLLS, dtype=np.int64)
        self.dist = np.zeros(dice.NUM_ROLLS)
        self.mass1 = np.zeros(_SHORT)
        self.mass2 = np.zeros(_SHORT)

    def turn(self, u: np.ndarray) -> float:
        return _seat_turn(np.ascontiguousarray(u, dtype=np.float64), *self.tables, self.ev,
                          self.first_ev, self.best, self.arg, self.stamp, self.second, self.first,
                          self.dist, self.mass1, self.mass2)


def seat_turn(u: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """Optimal turn of one seat whose final hand ``h`` (roll id) is worth ``u[h]``.

    Returns ``(value, first, second, dist)``: ``first`` (252,) int64 first keep per
    first roll (-1 = stop), ``second`` (210, 252) second keep per first keep and roll
    (-1 = stop, or a roll the first keep cannot produce; a second keep always contains
    the first), ``dist`` (252,) the
    final-hand distribution under this policy.
    """
    u = np.asarray(u, dtype=np.float64)
    if u.shape != (dice.NUM_ROLLS,) or not np.all(np.isfinite(u)):
        raise ValueError(f"u must be {dice.NUM_ROLLS} finite values, got shape {u.shape}")
    scratch = _Scratch()
    value = scratch.turn(u)
    return value, scratch.first.copy(), scratch.second.copy(), scratch.dist.copy()


def _hand_values(w_next: np.ndarray, b: int, t: int) -> tuple[np.ndarray, np.ndarray]:
    """(mover's value, each leader's value) of every final hand, given leader state (b, t)."""
    rank = dice.ROLL_RANK + 1  # 1..252; 0 is "no hand yet"
    mover = np.where(rank > b, w_next[rank, 1], 0.0)
    leader = np.zeros(dice.NUM_ROLLS)
    if b > 0:
        mover = np.where(rank == b, w_next[b, t + 1], mover)
        leader = np.where(rank < b, w_next[b, t], np.where(rank == b, w_next[b, t + 1], 0.0))
    return mover, leader


def solve_ranking(players: int, progress=None) -> dict:
    """Optimal play of every seat in a ``players``-seat ranking game and each seat's win share.

    Returns ``{"players", "win_share" (list, by seat), "seconds", "leader_share" (array
    W[m, b, t] as in the module docstring)}``. Shares sum to 1. ``progress(done, total)``,
    if given, is called after each solved situation ``(m, b, t)`` of the backward pass.
    """
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or \
            not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"players={players!r} must be an integer in 2..{MAX_PLAYERS}")
    start = time.perf_counter()
    ranks = dice.NUM_ROLLS + 1
    W = np.zeros((players + 1, ranks, players + 2))
    W[0, :, 1:] = 1.0 / np.arange(1, players + 2)
    mover_value = np.zeros((players + 1, ranks, players + 1))
    dists = {}
    scratch = _Scratch()
    # Situations of the backward pass: (ranks - 1) * (players - m) for each m < players, one for m = players.
    total, done = 1 + (ranks - 1) * players * (players - 1) // 2, 0
    for m in range(1, players + 1):
        seated = players - m  # hands already final when m seats remain
        if seated == 0:
            cases = [(0, 0)]
        else:
            cases = [(b, t) for b in range(1, ranks) for t in range(1, seated + 1)]
        for b, t in cases:
            mover, leader = _hand_values(W[m - 1], b, t)
            mover_value[m, b, t] = scratch.turn(mover)
            W[m, b, t] = scratch.dist @ leader
            dists[m, b, t] = scratch.dist.copy()
            done += 1
            if progress is not None:
                progress(done, total)
    # Forward: the distribution of (best so far, ties) before each seat.
    state = {(0, 0): 1.0}
    shares = []
    rank = dice.ROLL_RANK + 1
    for seat in range(players):
        m = players - seat
        shares.append(sum(p * mover_value[m, b, t] for (b, t), p in state.items()))
        after: dict[tuple[int, int], float] = {}
        for (b, t), p in state.items():
            dist = dists[m, b, t]
            for h in np.nonzero(dist)[0]:
                key = (int(rank[h]), 1) if rank[h] > b else (b, t + 1) if rank[h] == b else (b, t)
                after[key] = after.get(key, 0.0) + p * dist[h]
        state = after
    return {"players": players, "win_share": [float(x) for x in shares],
            "seconds": time.perf_counter() - start, "leader_share": W}


def seat_policy(leader_share: np.ndarray, seats_left: int, best_roll: int | None, ties: int):
    """Optimal ``(first, second)`` keeps (as in :func:`seat_turn`) of the seat to move when
    ``seats_left`` seats (itself included) remain, the best hand so far is roll id
    ``best_roll`` (None before any hand) held by ``ties`` players; ``leader_share`` is
    ``solve_ranking(n)["leader_share"]``."""
    if not 1 <= seats_left < leader_share.shape[0]:
        raise ValueError(f"seats_left {seats_left} is not in 1..{leader_share.shape[0] - 1}")
    b = 0 if best_roll is None else int(dice.ROLL_RANK[best_roll]) + 1
    if (b == 0) != (ties == 0) or ties > leader_share.shape[0] - 1 - seats_left:
        raise ValueError(f"ties {ties} does not fit best_roll {best_roll} with {seats_left} left")
    mover, _ = _hand_values(leader_share[seats_left - 1], b, ties)
    _, first, second, _ = seat_turn(mover)
    return first, second
