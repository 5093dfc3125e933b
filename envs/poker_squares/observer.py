"""Poker Squares observation and information-state tensors and strings.

Tensor layout seen by player ``p`` (``P`` = number of players; own grid first)::

    grids         (P, 25, 18)  per grid, per cell id 5*row+col: 13 rank one-hot (2..A),
                               4 suit one-hot (c, d, h, s), 1 "empty"
    current_card  (52,)        the card p places next, if it has been dealt
    upcoming      (52,)        other dealt cards p has still to place (open variant)
    unseen        (52,)        cards not dealt yet
    deal_order    (25, 52)     information state only: one-hot card dealt at each position

Sizes: observation 450 * P + 156 (606 or 1056); information state adds 1300
(1906 or 2356). Example: with one player, after As is dealt and put in cell 12,
``grids[0, 12, 12] = 1`` (rank A) and ``grids[0, 12, 13 + 3] = 1`` (spades).
The deal order makes the information state perfect-recall: with the grids it
determines every earlier move.
"""

from __future__ import annotations

import numpy as np

from gamut.envs.cards import NUM_CARDS, NUM_RANKS, card_str
from gamut.envs.poker_squares import kernels as K

CELL_FEATURES = NUM_RANKS + 4 + 1


def tensor_blocks(players: int, perfect_recall: bool) -> list[tuple[str, tuple[int, ...]]]:
    """Named blocks of the tensor, in order, with their shapes."""
    blocks = [
        ("grids", (players, K.NUM_CELLS, CELL_FEATURES)),
        ("current_card", (NUM_CARDS,)),
        ("upcoming", (NUM_CARDS,)),
        ("unseen", (NUM_CARDS,)),
    ]
    if perfect_recall:
        blocks.append(("deal_order", (K.NUM_CELLS, NUM_CARDS)))
    return blocks


def _grid_order(players: int, player: int) -> list[int]:
    return [player] + [q for q in range(players) if q != player]


def fill_tensor(views: dict, state: np.ndarray, cfg: np.ndarray, player: int) -> None:
    """Write ``state`` as seen by ``player`` into the zeroed named ``views``."""
    players = int(cfg[K.C_PLAYERS])
    for slot, q in enumerate(_grid_order(players, player)):
        grid = state[K.S_GRID + K.NUM_CELLS * q : K.S_GRID + K.NUM_CELLS * (q + 1)]
        for cell, card in enumerate(grid.tolist()):
            if card < 0:
                views["grids"][slot, cell, CELL_FEATURES - 1] = 1
            else:
                views["grids"][slot, cell, card >> 2] = 1
                views["grids"][slot, cell, NUM_RANKS + (card & 3)] = 1
    dealt = int(state[K.S_NUM_DEALT])
    placed = int(state[K.S_NUM_PLACED + player])
    deal = state[K.S_DEAL : K.S_DEAL + dealt].tolist()
    if placed < dealt:
        views["current_card"][deal[placed]] = 1
        for card in deal[placed + 1 :]:
            views["upcoming"][card] = 1
    views["unseen"][:] = 1
    views["unseen"][deal] = 0
    if "deal_order" in views:
        views["deal_order"][np.arange(dealt), deal] = 1


def _grid_text(state: np.ndarray, player: int) -> str:
    grid = state[K.S_GRID + K.NUM_CELLS * player : K.S_GRID + K.NUM_CELLS * (player + 1)].tolist()
    rows = [" ".join(card_str(c) if c >= 0 else ".." for c in grid[5 * r : 5 * r + 5]) for r in range(K.GRID_SIZE)]
    return "\n".join(rows)


def observation_string(state: np.ndarray, cfg: np.ndarray, player: int) -> str:
    """Grids (own first), the card to place and the other dealt cards still to place."""
    players = int(cfg[K.C_PLAYERS])
    parts = [f"grid p{q}:\n{_grid_text(state, q)}" for q in _grid_order(players, player)]
    dealt = int(state[K.S_NUM_DEALT])
    placed = int(state[K.S_NUM_PLACED + player])
    deal = state[K.S_DEAL : K.S_DEAL + dealt].tolist()
    if placed < dealt:
        parts.append(f"to place: {card_str(deal[placed])}")
        if placed + 1 < dealt:
            parts.append("then: " + " ".join(card_str(c) for c in deal[placed + 1 :]))
    return "\n".join(parts)


def information_state_string(state: np.ndarray, cfg: np.ndarray, player: int) -> str:
    """Observation string plus the deal order (with the grids it fixes the whole history)."""
    dealt = int(state[K.S_NUM_DEALT])
    deal = " ".join(card_str(c) for c in state[K.S_DEAL : K.S_DEAL + dealt].tolist())
    return f"{observation_string(state, cfg, player)}\ndealt: {deal}"


def state_string(state: np.ndarray, cfg: np.ndarray) -> str:
    """Every grid and the deal so far."""
    players = int(cfg[K.C_PLAYERS])
    grids = "\n".join(f"grid p{q}:\n{_grid_text(state, q)}" for q in range(players))
    dealt = int(state[K.S_NUM_DEALT])
    return f"{grids}\ndealt: " + " ".join(card_str(c) for c in state[K.S_DEAL : K.S_DEAL + dealt].tolist())


class PokerSquaresObserver:
    """pyspiel observer: ``tensor`` (float32) with named views ``dict`` written in place."""

    def __init__(self, iig_obs_type, cfg: np.ndarray):
        self.cfg = cfg
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        blocks = tensor_blocks(int(cfg[K.C_PLAYERS]), self.perfect_recall)
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in blocks), np.float32)
        self.dict = {}
        start = 0
        for name, shape in blocks:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[start : start + size].reshape(shape)
            start += size

    def set_from(self, state, player):
        """Write ``state`` as seen by ``player`` into ``tensor`` (in place)."""
        self.tensor.fill(0)
        fill_tensor(self.dict, state.state, self.cfg, player)

    def string_from(self, state, player):
        """Information-state string (perfect recall) or observation string."""
        if self.perfect_recall:
            return information_state_string(state.state, self.cfg, player)
        return observation_string(state.state, self.cfg, player)
