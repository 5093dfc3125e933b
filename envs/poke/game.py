"""Poke as a pyspiel game: parameters, GameType/GameInfo, State and Observer.

Every rule lives in ``gamut.envs.poke.kernels``; the State here holds one ``int64``
array and calls the kernels. Action ids are documented in the kernels module
and in ``docs/games/poke.md``; tensors and strings in ``gamut.envs.poke.encoding``.

    >>> import pyspiel, gamut.envs
    >>> game = pyspiel.load_game("poke(num_ranks=4,num_suits=2,hand_size=3)")
    >>> state = game.new_initial_state()
    >>> state.chance_outcomes()[0]          # the Jc is dealt with probability 1/8
    (36, 0.125)
"""

from __future__ import annotations

import math

import numpy as np
import pyspiel

from gamut.envs.cards import card_str
from gamut.envs.kernel_game import KernelGame, KernelState, register
from gamut.envs.poke import encoding
from gamut.envs.poke import kernels as K
from gamut.envs.poke.resample import resample

GAME_NAME = "poke"

MODES = {"deal": K.MODE_DEAL, "game": K.MODE_GAME, "rubber": K.MODE_RUBBER}
TRICK_UNITS = {"card": K.UNIT_CARD, "play": K.UNIT_PLAY}
FOLLOWS = {"must_beat": K.FOLLOW_MUST_BEAT, "free": K.FOLLOW_FREE}
DEFAULT_PARAMS = {
    "mode": "deal",
    "num_ranks": 13,
    "num_suits": 4,
    "hand_size": 5,
    "trick_unit": "card",
    "trick_value": 0.0,
    "max_deals": 100,
    "follow": "must_beat",
}
# The small exact variant: 6 cards (Q, K, A in two suits), hands of two,
# one deal. Its tree size is documented in docs/games/poke.md and checked in tests.
SMALL_EXACT_PARAMS = {"mode": "deal", "num_ranks": 3, "num_suits": 2, "hand_size": 2}

_HAND_POINTS_BY_NEED = (
    # (points, min hand size, min suits, min ranks): the best category a deck can make.
    (1000, 5, 1, 5),  # royal flush (the highest ranks are always kept)
    (600, 4, 4, 1),  # four of a kind
    (500, 5, 3, 2),  # full house
    (200, 3, 3, 1),  # three of a kind
    (100, 4, 2, 2),  # two pairs
    (50, 2, 2, 1),  # one pair
)

# OpenSpiel holds max_game_length in a C++ int: a million deals of at most
# 5 + 2 * 5 moves each stay far below 2**31.
MAX_DEALS = 1_000_000

def check_values(p: dict) -> dict:
    """Check the values of parameters ``p`` completed with defaults; ValueError names the bad parameter."""
    if p["mode"] not in MODES:
        raise ValueError(f"mode={p['mode']!r} is not one of {sorted(MODES)}")
    if p["trick_unit"] not in TRICK_UNITS:
        raise ValueError(f"trick_unit={p['trick_unit']!r} is not one of {sorted(TRICK_UNITS)}")
    if p["follow"] not in FOLLOWS:
        raise ValueError(f"follow={p['follow']!r} is not one of {sorted(FOLLOWS)}")
    for name, lo, hi in (("num_ranks", 2, 13), ("num_suits", 1, 4), ("hand_size", 1, 5)):
        if isinstance(p[name], bool) or not isinstance(p[name], (int, np.integer)) or not lo <= p[name] <= hi:
            raise ValueError(f"{name}={p[name]!r} must be an integer in {lo}..{hi}")
    if (isinstance(p["max_deals"], bool) or not isinstance(p["max_deals"], (int, np.integer))
            or not 1 <= p["max_deals"] <= MAX_DEALS):
        raise ValueError(f"max_deals={p['max_deals']!r} must be an integer in 1..{MAX_DEALS}")
    if not isinstance(p["trick_value"], (int, float)) or not math.isfinite(p["trick_value"]):
        raise ValueError(f"trick_value={p['trick_value']!r} must be a finite number")
    if p["mode"] == "deal" and p["max_deals"] != DEFAULT_PARAMS["max_deals"]:
        raise ValueError(f"max_deals={p['max_deals']} applies to mode=game or mode=rubber only; "
                         "a mode=deal match is one deal")
    if p["mode"] != "deal" and p["trick_value"] != DEFAULT_PARAMS["trick_value"]:
        raise ValueError(f"trick_value={p['trick_value']} applies to mode=deal only; "
                         f"mode={p['mode']} returns the above-the-line difference")
    deck_size = p["num_ranks"] * p["num_suits"]
    if 2 * p["hand_size"] > deck_size:
        raise ValueError(
            f"hand_size={p['hand_size']} needs {2 * p['hand_size']} cards for both hands but the deck "
            f"(num_ranks={p['num_ranks']} x num_suits={p['num_suits']}) holds {deck_size}"
        )
    return p


def max_hand_points(hand_size: int, num_suits: int, num_ranks: int) -> int:
    """Highest poker-hand points a deal can score with these deck and hand sizes."""
    for points, need_hand, need_suits, need_ranks in _HAND_POINTS_BY_NEED:
        if hand_size >= need_hand and num_suits >= need_suits and num_ranks >= need_ranks:
            return points
    return 0


def deals_at_most(p: dict) -> int:
    """Deals a match of checked parameters ``p`` can last: 1 in ``deal`` mode, else ``max_deals``."""
    return 1 if p["mode"] == "deal" else p["max_deals"]


def above_at_most(p: dict) -> int:
    """Highest above-the-line score of one player in a match of checked parameters ``p``.

    Per deal at most a sweep plus the best hand the deck allows; plus the game
    bonus (``game``) or two game bonuses and the clean rubber bonus (``rubber``).
    """
    per_deal = K.SWEEP_BONUS + max_hand_points(p["hand_size"], p["num_suits"], p["num_ranks"])
    bonus = {"deal": 0, "game": K.GAME_BONUS,
             "rubber": K.GAMES_TO_WIN_RUBBER * K.GAME_BONUS + K.RUBBER_BONUS_CLEAN}[p["mode"]]
    return deals_at_most(p) * per_deal + bonus


def score_maxima(p: dict) -> np.ndarray:
    """``float64 (9,)``: the divisors of the tensors' ``scores`` piece, each that entry's highest value.

    Tricks of a deal: ``hand_size``; below the line: 4 points per trick for
    every deal; above the line: ``above_at_most``; games won: 2; deals done:
    ``deals_at_most``. Worked example, ``poke()``: ``[5, 5, 20, 20, 1250,
    1250, 2, 2, 1]``.
    """
    h, deals, above = p["hand_size"], deals_at_most(p), above_at_most(p)
    below = deals * 4 * h  # a player's below-the-line score never exceeds 4 per trick of every deal
    return np.array([h, h, below, below, above, above, K.GAMES_TO_WIN_RUBBER, K.GAMES_TO_WIN_RUBBER, deals],
                    dtype=np.float64)


def _game_info(p: dict) -> pyspiel.GameInfo:
    h = p["hand_size"]
    # One deal: the non-dealer makes at most 2 draw decisions (draw, draw), the
    # dealer at most 3 (draw, draw, draw or draw, draw, stand), and each of at
    # most h tricks takes 2 plays.
    per_deal_moves = K.NONDEALER_DRAWS + K.DEALER_DRAWS + 2 * h
    deals = deals_at_most(p)
    # Above the line a player gains at most above_at_most; in deal mode the
    # return adds trick_value times at most h tricks at 4 points each.
    bound = above_at_most(p)
    if p["mode"] == "deal":
        bound += abs(float(p["trick_value"])) * 4 * h
    return pyspiel.GameInfo(
        num_distinct_actions=2 << h,  # 2**h draw ids (0 = stand) + 2**h play ids
        max_chance_outcomes=52,  # outcomes are card ids 0..51
        num_players=2,
        min_utility=-float(bound),
        max_utility=float(bound),
        utility_sum=0.0,
        max_game_length=deals * per_deal_moves,
    )


class PokeState(KernelState):
    """A Poke position: one ``int64`` array (``kernels.STATE_SIZE``) plus the parameters."""

    def __init__(self, game: PokeGame):
        super().__init__(game)
        self.cfg = game.cfg
        self.trick_value = game.trick_value
        self.state = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.init_state(self.state, self.cfg)

    def current_player(self):
        return int(K.current_player(self.state))

    def _legal_actions(self, player):
        buf = np.empty(2 << int(self.cfg[K.C_HAND_SIZE]), dtype=np.int64)
        n = K.legal_actions(self.state, self.cfg, buf)
        return buf[:n].tolist()

    def chance_outcomes(self):
        buf = np.empty(52, dtype=np.int64)
        n = K.chance_outcomes(self.state, self.cfg, buf)
        return [(int(c), 1.0 / n) for c in buf[:n]]

    def apply(self, action):
        K.apply_action(self.state, self.cfg, action)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return card_str(int(action))
        return encoding.action_to_string(self.state, self.cfg, player, int(action))

    def is_terminal(self):
        return self.state[K.S_PHASE] == K.PH_OVER

    def returns(self):
        out = np.zeros(2)
        K.returns(self.state, self.cfg, self.trick_value, out)
        return out.tolist()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A full state consistent with ``player_id``'s information (see ``gamut.envs.poke.resample``)."""
        return resample(self, player_id, probability_sampler)

    def __str__(self):
        return encoding.state_string(self.state, self.cfg)


class PokeGame(KernelGame):
    """Poke with the parameters of ``DEFAULT_PARAMS`` (see ``docs/games/poke.md``)."""

    short_name = GAME_NAME
    long_name = "Poke (Sackson)"
    information = pyspiel.GameType.Information.IMPERFECT_INFORMATION
    utility = pyspiel.GameType.Utility.ZERO_SUM
    min_num_players = max_num_players = 2
    default_params = DEFAULT_PARAMS
    state_class = PokeState
    check_values = staticmethod(check_values)

    def configure(self, p):
        self.cfg = K.make_config(p["num_ranks"], p["num_suits"], p["hand_size"], MODES[p["mode"]],
                                 TRICK_UNITS[p["trick_unit"]], p["max_deals"], FOLLOWS[p["follow"]])
        self.trick_value = float(p["trick_value"])
        self.layout = encoding.Layout(p["num_ranks"], p["num_suits"], p["hand_size"], score_maxima(p))
        return _game_info(p)

    def observer(self, iig_obs_type, params):
        return encoding.PokeObserver(iig_obs_type, self.layout, params)


# The check as a function, for callers that build a kernel config without a game.
check_params = PokeGame.check_params


register(PokeGame)
