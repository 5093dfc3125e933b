"""Palace Poker as a pyspiel game: parameters, GameType/GameInfo, State and Observer.

Every rule lives in ``gamut.envs.palace_poker.kernels``; the State holds one
``int64`` array and calls the kernels. Action ids are documented in the
kernels module and in ``docs/games/palace_poker.md``; strings and tensors in
``gamut.envs.palace_poker.encoding``; resampling in ``gamut.envs.palace_poker.resample``.

    >>> import pyspiel, gamut.envs
    >>> game = pyspiel.load_game("palace_poker(players=3)")
    >>> state = game.new_initial_state()
    >>> state.chance_outcomes()[0]          # seat 0's banner: any of 52 cards
    (0, 0.019230769230769232)
"""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.envs.hands import HAND_TABLE
from gamut.envs.kernel_game import KernelGame, KernelState, register
from gamut.envs.palace_poker import encoding, resample
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L

GAME_NAME = "palace_poker"

BETTING = {"limit": False, "no_limit": True}
DEFAULT_PARAMS = {
    "players": 2,
    "small_bet": 2,
    "big_bet": 4,
    "betting": "limit",
    "stack": 100,  # in small bets
    "max_raises": 3,
    "max_turns": 400,
}
MIN_PLAYERS = 2
# A turn is at most: the turn action (1), the battle answers (one per raise
# plus the final call or fold: max_raises + 1) and the winner's discard phase
# (MAX_DISCARD_MOVES = 11 discards + done).
MOVES_PER_TURN_BASE = 1 + 1 + L.MAX_DISCARD_MOVES
MAX_GAME_LENGTH = 2**31 - 1  # GameInfo.max_game_length is a C++ int


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def check_values(p: dict) -> dict:
    """Check the values of parameters ``p`` completed with defaults; ValueError names the bad parameter."""
    if not _is_int(p["players"]) or not MIN_PLAYERS <= p["players"] <= L.MAX_PLAYERS:
        raise ValueError(f"players={p['players']!r} must be an integer in {MIN_PLAYERS}..{L.MAX_PLAYERS}")
    if p["betting"] not in BETTING:
        raise ValueError(f"betting={p['betting']!r} is not one of {sorted(BETTING)}")
    for name, low in (("small_bet", 1), ("stack", 1), ("max_raises", 0), ("max_turns", 1)):
        if not _is_int(p[name]) or p[name] < low:
            raise ValueError(f"{name}={p[name]!r} must be an integer >= {low}")
    if not _is_int(p["big_bet"]) or p["big_bet"] < p["small_bet"]:
        raise ValueError(f"big_bet={p['big_bet']!r} must be an integer >= small_bet={p['small_bet']}")
    if p["stack"] * p["small_bet"] >= 2**40:
        raise ValueError(f"stack={p['stack']} small bets of {p['small_bet']} chips is too large (< 2**40 chips)")
    _check_stakes_fit(p)
    return p


def _check_stakes_fit(p: dict) -> None:
    # A starting stack must pay the ante and still cover one big bet (hence the
    # minimum bet, one small bet), or no raise could ever be made; the declared
    # game length must fit OpenSpiel's 32-bit int.
    ante, chips = p["small_bet"] // 2, p["stack"] * p["small_bet"]
    if chips - ante < p["big_bet"]:
        least = -(-(p["big_bet"] + ante) // p["small_bet"])
        short = f"the minimum bet {p['small_bet']} and " if chips - ante < p["small_bet"] else ""
        raise ValueError(
            f"stack={p['stack']} small bets ({chips} chips) leaves {chips - ante} after the ante of {ante}, "
            f"less than {short}one big bet (big_bet={p['big_bet']}); with small_bet={p['small_bet']} "
            f"and big_bet={p['big_bet']} the stack must be at least {least}")
    length = p["max_turns"] * (MOVES_PER_TURN_BASE + p["max_raises"])
    if length > MAX_GAME_LENGTH:
        raise ValueError(
            f"max_turns={p['max_turns']} x ({MOVES_PER_TURN_BASE} + max_raises={p['max_raises']}) = {length} "
            f"moves exceeds the longest game OpenSpiel can declare ({MAX_GAME_LENGTH})")


def make_config(p: dict) -> np.ndarray:
    """Kernel ``cfg`` array of checked parameters ``p``."""
    return L.make_config(p["players"], p["small_bet"], p["big_bet"], BETTING[p["betting"]],
                         p["stack"] * p["small_bet"], p["max_raises"], p["max_turns"])


def _game_info(p: dict, cfg: np.ndarray) -> pyspiel.GameInfo:
    stack = p["stack"] * p["small_bet"]
    return pyspiel.GameInfo(
        num_distinct_actions=int(cfg[L.C_NUM_ACTIONS]),
        max_chance_outcomes=L.NUM_CARDS,  # outcomes are card ids
        num_players=p["players"],
        # A player puts in at most their stack and wins at most everyone else's.
        min_utility=-float(stack),
        max_utility=float((p["players"] - 1) * stack),
        utility_sum=0.0,
        max_game_length=p["max_turns"] * (MOVES_PER_TURN_BASE + p["max_raises"]),
    )


class PalacePokerState(KernelState):
    """A Palace Poker position: one ``int64`` array (``kernels.STATE_SIZE``) plus the parameters."""

    def __init__(self, game: PalacePokerGame):
        super().__init__(game)
        self.cfg = game.cfg
        self.state = np.zeros(L.STATE_SIZE, dtype=np.int64)
        K.init_state(self.state, self.cfg)

    def current_player(self):
        return int(K.current_player(self.state))

    def _legal_actions(self, player):
        buf = np.empty(int(self.cfg[L.C_NUM_ACTIONS]), dtype=np.int64)
        n = K.legal_actions(self.state, self.cfg, buf)
        return buf[:n].tolist()

    def chance_outcomes(self):
        buf = np.empty(L.NUM_CARDS, dtype=np.int64)
        n = K.chance_outcomes(self.state, buf)
        return [(int(c), 1.0 / n) for c in buf[:n]]

    def apply(self, action):
        K.apply_action(self.state, self.cfg, action, HAND_TABLE)

    def _action_to_string(self, player, action):
        return encoding.action_to_string(self.state, self.cfg, player, int(action))

    def is_terminal(self):
        return bool(self.state[L.S_PHASE] == L.PH_OVER)

    def returns(self):
        out = np.zeros(int(self.cfg[L.C_PLAYERS]))
        K.returns(self.state, out)
        return out.tolist()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A full state consistent with ``player_id``'s information (see ``resample``)."""
        return resample.resample_state(self, player_id, probability_sampler)

    def __str__(self):
        return encoding.state_string(self.state, self.cfg)


class PalacePokerGame(KernelGame):
    """Palace Poker with the parameters of ``DEFAULT_PARAMS`` (see ``docs/games/palace_poker.md``)."""

    short_name = GAME_NAME
    long_name = "Palace Poker"
    information = pyspiel.GameType.Information.IMPERFECT_INFORMATION
    utility = pyspiel.GameType.Utility.ZERO_SUM
    min_num_players, max_num_players = MIN_PLAYERS, L.MAX_PLAYERS
    default_params = DEFAULT_PARAMS
    state_class = PalacePokerState
    check_values = staticmethod(check_values)

    def configure(self, p):
        self.cfg = make_config(p)
        return _game_info(p, self.cfg)

    def observer(self, iig_obs_type, params):
        if params:
            raise ValueError(f"palace_poker observers take no parameters, got {params!r}")
        return encoding.PalacePokerObserver(iig_obs_type, self.cfg)


# The check as a function, for callers that build a kernel config without a game.
check_params = PalacePokerGame.check_params


register(PalacePokerGame)
