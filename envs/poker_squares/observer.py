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

import numba
import numpy as np

from gamut.envs.cards import NUM_CARDS, NUM_RANKS, card_str
from gamut.envs.kernel_game import tensor_views
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


@numba.njit(cache=True)
def write_tensor(state, cfg, player, perfect_recall, out):
    """Write ``state`` as seen by ``player`` into the float32 row ``out`` (in place).

    ``out`` has the size of the observation tensor (``450 * P + 156``), or of the
    information-state tensor (``+ 1300``, the deal order) when
    ``perfect_recall``; every entry is 0 or 1 (layout in the module docstring).
    The pyspiel observer and the batched environment both call this kernel.

    Parameters
    ----------
    state : int64 (STATE_SIZE,)
    cfg : int64 (CONFIG_SIZE,)
    player : int
        The observing player; their grid comes first, then the other's.
    perfect_recall : bool
    out : float32 (450 * P + 156,) or (450 * P + 1456,)
    """
    out[:] = 0.0
    players = cfg[K.C_PLAYERS]
    for slot in range(players):
        q = player
        if slot > 0:  # the other grids in player order, skipping the observer's
            q = slot - 1 if slot - 1 < player else slot
        grid = K.S_GRID + K.NUM_CELLS * q
        first = slot * K.NUM_CELLS * CELL_FEATURES
        for cell in range(K.NUM_CELLS):
            card = state[grid + cell]
            at = first + cell * CELL_FEATURES
            if card < 0:
                out[at + CELL_FEATURES - 1] = 1.0
            else:
                out[at + (card >> 2)] = 1.0
                out[at + NUM_RANKS + (card & 3)] = 1.0
    current = players * K.NUM_CELLS * CELL_FEATURES
    upcoming = current + NUM_CARDS
    unseen = upcoming + NUM_CARDS
    deal_order = unseen + NUM_CARDS
    dealt = state[K.S_NUM_DEALT]
    placed = state[K.S_NUM_PLACED + player]
    if placed < dealt:
        out[current + state[K.S_DEAL + placed]] = 1.0
        for k in range(placed + 1, dealt):
            out[upcoming + state[K.S_DEAL + k]] = 1.0
    out[unseen:deal_order] = 1.0
    for k in range(dealt):
        out[unseen + state[K.S_DEAL + k]] = 0.0
    if perfect_recall:
        for k in range(dealt):
            out[deal_order + NUM_CARDS * k + state[K.S_DEAL + k]] = 1.0


@numba.njit(cache=True)
def update_after_placement(state, cell, placed_before, dealt_before, perfect_recall, out):
    """Update a one-player tensor in place after a placement and the deals that followed it.

    ``out`` holds what ``write_tensor`` wrote for player 0 of a one-player game
    when ``placed_before`` cards were placed and ``dealt_before`` dealt; since
    then the player put the card ``deal[placed_before]`` into ``cell`` and the
    deal went on to ``state``'s cards (the game not over). Afterwards ``out``
    equals ``write_tensor(state, cfg, 0, perfect_recall, ...)``: only the
    entries that change are written (the filled cell, the card to place, the
    queue, the newly dealt cards), which is what makes the batched
    environment's step cheap.

    Parameters
    ----------
    state : int64 (STATE_SIZE,)
    cell : int
    placed_before, dealt_before : int
    perfect_recall : bool
    out : float32 (606,) or (1906,)
    """
    card = state[K.S_DEAL + placed_before]
    at = cell * CELL_FEATURES
    out[at + CELL_FEATURES - 1] = 0.0
    out[at + (card >> 2)] = 1.0
    out[at + NUM_RANKS + (card & 3)] = 1.0
    current = K.NUM_CELLS * CELL_FEATURES
    upcoming = current + NUM_CARDS
    unseen = upcoming + NUM_CARDS
    deal_order = unseen + NUM_CARDS
    out[current + card] = 0.0
    following = placed_before + 1
    dealt = state[K.S_NUM_DEALT]
    for k in range(dealt_before, dealt):
        new = state[K.S_DEAL + k]
        out[unseen + new] = 0.0
        if k > following:
            out[upcoming + new] = 1.0
        if perfect_recall:
            out[deal_order + NUM_CARDS * k + new] = 1.0
    if following < dealt:
        new = state[K.S_DEAL + following]
        out[current + new] = 1.0
        out[upcoming + new] = 0.0


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
        self.tensor, self.dict = tensor_views(blocks)

    def set_from(self, state, player):
        """Write ``state`` as seen by ``player`` into ``tensor`` (in place)."""
        write_tensor(state.state, self.cfg, player, self.perfect_recall, self.tensor)

    def string_from(self, state, player):
        """Information-state string (perfect recall) or observation string."""
        if self.perfect_recall:
            return information_state_string(state.state, self.cfg, player)
        return observation_string(state.state, self.cfg, player)
