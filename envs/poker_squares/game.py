"""Poker Squares as a pyspiel game: parameters, GameType/GameInfo, State and Observer.

The rules live in ``gamut.envs.poker_squares.kernels``; the State is one ``int64``
array plus the config array. Every card dealt is an explicit chance node,
uniform over the unseen cards, whose outcome is the card id (action string
``'As'``); a placing move is a cell id ``5 * row + column``.

Variants: ``variant=open`` deals all 25 cards first (chance), then the player
places them in deal order, so the whole arrangement is chosen with every card
known. ``players=2``: both place the same card sequence, each on their own
grid, player 0 first for each card; both grids are public, so every variant is
a perfect-information game with explicit chance.

    >>> import pyspiel, gamut.envs
    >>> state = pyspiel.load_game("poker_squares").new_initial_state()
    >>> state.apply_action(51)             # chance deals As
    >>> state.apply_action(12)             # the player puts it in the centre
"""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.envs.cards import NUM_CARDS, card_str
from gamut.envs.hands import HAND_TABLE
from gamut.envs.kernel_game import KernelGame, KernelState, register
from gamut.envs.poker_squares import kernels as K

GAME_NAME = "poker_squares"

POINT_SYSTEMS = {
    # high card, pair, two pair, trips, straight, flush, full house, quads, straight flush, royal
    "american": (0, 2, 5, 10, 15, 20, 25, 50, 75, 100),
    "english": (0, 1, 3, 6, 12, 5, 10, 16, 30, 30),
}
VARIANTS_ALLOWED = ("standard", "open")
TWO_PLAYER_RETURNS = ("win", "difference")
DEFAULT_PARAMS = {"scoring": "american", "variant": "standard", "players": 1, "two_player_return": "win"}


def parse_points(scoring: str) -> tuple[int, ...]:
    """Ten category points (high card .. royal flush) of a ``scoring`` parameter.

    ``scoring`` is ``american``, ``english`` or ten integers separated by commas
    (dict parameters) or semicolons (game strings: ``poker_squares(scoring=0;1;2;...)``).
    """
    if scoring in POINT_SYSTEMS:
        return POINT_SYSTEMS[scoring]
    parts = str(scoring).replace(";", ",").split(",")
    try:
        points = tuple(int(x) for x in parts)
    except ValueError:
        points = ()
    if len(points) != 10:
        raise ValueError(
            f"scoring={scoring!r} must be one of {sorted(POINT_SYSTEMS)} or ten integers separated by commas "
            "(or by semicolons inside a game string) "
            "(high card, pair, two pair, trips, straight, flush, full house, quads, straight flush, royal flush)"
        )
    return points


def check_values(p: dict) -> dict:
    """Check the values of parameters ``p`` completed with defaults; ValueError names the bad parameter.

    A ``scoring`` of ten numbers is put in its canonical ``;``-separated form.
    """
    if p["scoring"] not in POINT_SYSTEMS:
        # Canonical ';'-separated form: commas would split the game string on reloading.
        p["scoring"] = ";".join(str(x) for x in parse_points(p["scoring"]))
    if p["variant"] not in VARIANTS_ALLOWED:
        raise ValueError(f"variant={p['variant']!r} is not one of {list(VARIANTS_ALLOWED)}")
    if p["players"] not in (1, 2) or isinstance(p["players"], bool):
        raise ValueError(f"players={p['players']!r} must be 1 or 2")
    if p["two_player_return"] not in TWO_PLAYER_RETURNS:
        raise ValueError(f"two_player_return={p['two_player_return']!r} is not one of {list(TWO_PLAYER_RETURNS)}")
    if p["players"] == 1 and p["two_player_return"] != DEFAULT_PARAMS["two_player_return"]:
        raise ValueError(f"two_player_return={p['two_player_return']} applies to players=2 only; "
                         "a one-player game returns the grid's score")
    return p


def cell_string(cell: int) -> str:
    """Name of a placing action: cell ``5 * row + column`` is ``r<row>c<column>`` (12 -> ``r2c2``)."""
    row, col = divmod(int(cell), K.GRID_SIZE)
    return f"r{row}c{col}"


def _game_info(p: dict) -> pyspiel.GameInfo:
    points = parse_points(p["scoring"])
    # A grid scores 10 lines, each worth between min(points) and max(points).
    low, high = K.NUM_LINES * min(points), K.NUM_LINES * max(points)
    if p["players"] == 1:
        min_u, max_u, total = float(low), float(high), None
    elif p["two_player_return"] == "win":
        min_u, max_u, total = -1.0, 1.0, 0.0
    else:
        min_u, max_u, total = float(low - high), float(high - low), 0.0
    kwargs = {} if total is None else {"utility_sum": total}
    return pyspiel.GameInfo(
        num_distinct_actions=K.NUM_CELLS,
        max_chance_outcomes=NUM_CARDS,  # outcomes are card ids
        num_players=p["players"],
        min_utility=min_u,
        max_utility=max_u,
        max_game_length=p["players"] * K.NUM_CELLS,  # each player places 25 cards
        **kwargs,
    )


class PokerSquaresState(KernelState):
    """A Poker Squares position: one ``int64`` array (``kernels.STATE_SIZE``) plus the config."""

    def __init__(self, game: PokerSquaresGame):
        super().__init__(game)
        self.cfg = game.cfg
        self.state = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.init_state(self.state)

    def current_player(self):
        p = int(K.current_player(self.state, self.cfg))
        if p == K.CHANCE:
            return pyspiel.PlayerId.CHANCE
        if p == K.TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        return p

    def _legal_actions(self, player):
        buf = np.empty(K.NUM_CELLS, dtype=np.int64)
        n = K.legal_cells(self.state, player, buf)
        return buf[:n].tolist()

    def chance_outcomes(self):
        buf = np.empty(NUM_CARDS, dtype=np.int64)
        n = K.unseen_cards(self.state, buf)
        return [(int(c), 1.0 / n) for c in buf[:n]]

    def apply(self, action):
        player = self.current_player()
        if player == pyspiel.PlayerId.CHANCE:
            K.deal_card(self.state, action)
        else:
            K.place_card(self.state, player, action)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return card_str(int(action))
        return cell_string(action)

    def is_terminal(self):
        return K.current_player(self.state, self.cfg) == K.TERMINAL

    def returns(self):
        out = np.zeros(int(self.cfg[K.C_PLAYERS]))
        K.returns(self.state, self.cfg, HAND_TABLE, out)
        return out.tolist()

    def scores(self) -> list[int]:
        """Current points of each player's grid (partial lines count as they stand)."""
        return [int(K.grid_score(self.state, p, self.cfg, HAND_TABLE)) for p in range(int(self.cfg[K.C_PLAYERS]))]

    def __str__(self):
        from gamut.envs.poker_squares.observer import state_string

        return state_string(self.state, self.cfg)


class PokerSquaresGame(KernelGame):
    """Poker Squares with the parameters of ``DEFAULT_PARAMS`` (see ``docs/games/poker_squares.md``)."""

    short_name = GAME_NAME
    long_name = "Poker Squares"
    information = pyspiel.GameType.Information.PERFECT_INFORMATION
    utility = pyspiel.GameType.Utility.GENERAL_SUM
    min_num_players, max_num_players = 1, K.MAX_PLAYERS
    default_params = DEFAULT_PARAMS
    state_class = PokerSquaresState
    check_values = staticmethod(check_values)

    def configure(self, p):
        self.cfg = K.make_config(
            p["players"], p["variant"] == "open", p["two_player_return"] == "difference", parse_points(p["scoring"])
        )
        return _game_info(p)

    def observer(self, iig_obs_type, params):
        if params:
            raise ValueError(f"poker_squares observers take no parameters, got {params!r}")
        from gamut.envs.poker_squares.observer import PokerSquaresObserver

        return PokerSquaresObserver(iig_obs_type, self.cfg)


# The check as a function, for callers that build a kernel config without a game.
check_params = PokerSquaresGame.check_params


register(PokerSquaresGame)
