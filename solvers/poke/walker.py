"""MCCFR walkers over the Poke kernels' state arrays (see ``gamut.solvers.cfr.mccfr.PyspielWalker``).

``PokeWalker`` walks one deal exactly as the pyspiel game does (same legal
actions in the same order, same chance outcomes, keys equal to the game's
information-state strings), but on ``int64`` arrays: a child is an array copy
and one kernel call instead of a pyspiel clone. MCCFR with it reproduces MCCFR
through the pyspiel API exactly (same seed, same tables) and is faster.

``DrawWalker`` is the abstracted game of the ``mccfr`` agent for the full
52-card deal. Its decisions are the draws only, with two actions: ``STAND``
(0) or ``DRAW`` (1: discard what the heuristic's keep rule names,
``gamut.solvers.poke.heuristic.discard_cards``). The trick phase is played by the
heuristic for both players inside the terminal value. Information is
abstracted by ``draw_key``.
"""

from __future__ import annotations

import numba
import numpy as np
import pyspiel

from gamut.envs import hands
from gamut.envs.poke import kernels as K
from gamut.envs.poke.encoding import deal_string
from gamut.envs.poke.showdown import hand_strength
from gamut.solvers.cfr.extract import check_two_player_zero_sum
from gamut.solvers.poke.heuristic import discard_cards, heuristic_action

DRAW = 1
_NO_PARAMS = np.zeros(5, dtype=np.int64)  # thresholds are unused in the trick phase


def _require_deal_mode(game: pyspiel.Game) -> None:
    if game.get_type().short_name != "poke" or game.params["mode"] != "deal":
        raise ValueError(f"Poke walkers walk one deal: need poke(mode=deal,...), got {game}")
    check_two_player_zero_sum(game)


@numba.njit(cache=True)
def _information(state, player, out):
    # Everything `player` knows of the deal: own cards and draws, the public counts and plays.
    opp = 1 - player
    out[0] = player
    out[1] = state[K.S_PHASE]
    out[2] = state[K.S_DRAWER]
    out[3] = state[K.S_NDRAWS + player]
    out[4] = state[K.S_NDRAWS + opp]
    out[5] = state[K.S_DEALT + player]
    for k in range(3):
        out[6 + k] = state[K.S_DISC + 3 * player + k]
        out[9 + k] = state[K.S_DRAWN + 3 * player + k]
        out[12 + k] = K.popcount(state[K.S_DISC + 3 * opp + k])
    for t in range(K.MAX_HAND_SIZE):
        lead = state[K.S_LEAD + t]
        follow = state[K.S_FOLLOW + t]
        out[15 + 3 * t] = lead
        out[16 + 3 * t] = state[K.S_TRICK_LEADER + t]
        visible = follow == 0 or state[K.S_TRICK_WINNER + t] != state[K.S_TRICK_LEADER + t] \
            or state[K.S_TRICK_LEADER + t] == opp
        # A throw-off by the opponent shows only its size (as a negative count).
        out[17 + 3 * t] = follow if visible else -K.popcount(follow)


_KEY_SIZE = 15 + 3 * K.MAX_HAND_SIZE


def information_key(state_array: np.ndarray, player: int) -> bytes:
    """A key equal for two states of one deal exactly when ``player`` cannot tell them apart.

    It packs the player's information (``int64``, ``(30,)``): player, phase,
    drawer, both draw counts, own dealt cards, own discards and draws, the
    opponent's discard counts, and per trick the lead, its leader and the
    reply (a throw-off by the opponent only as its size).
    """
    out = np.empty(_KEY_SIZE, dtype=np.int64)
    _information(state_array, player, out)
    return out.tobytes()


KEYS = ("string", "compact")


class PokeWalker:
    """Exact Poke deal on kernel arrays.

    ``keys="string"``: ``infostate_key`` equals the game's
    ``information_state_string`` (tables interchangeable with MCCFR through
    pyspiel); ``"compact"``: ``information_key`` bytes, the same partition of
    states into information sets at a fraction of the cost.
    """

    def __init__(self, game: pyspiel.Game, keys: str = "string"):
        _require_deal_mode(game)
        if keys not in KEYS:
            raise ValueError(f"unknown key kind {keys!r}; choose one of {', '.join(KEYS)}")
        self._compact = keys == "compact"
        self.game_string = str(game)
        self.cfg = game.cfg
        self.trick_value = game.trick_value
        self._buf = np.empty(64, dtype=np.int64)
        root = np.empty(K.STATE_SIZE, dtype=np.int64)
        K.init_state(root, self.cfg)
        self._root = root

    def root(self):
        return self._root.copy()

    def is_terminal(self, state) -> bool:
        return state[K.S_PHASE] == K.PH_OVER

    def is_chance(self, state) -> bool:
        phase = state[K.S_PHASE]
        return phase == K.PH_DEAL or phase == K.PH_REPLACE

    def current_player(self, state) -> int:
        return int(K.current_player(state))

    def legal_actions(self, state) -> list:
        n = K.legal_actions(state, self.cfg, self._buf)
        return self._buf[:n].tolist()

    def chance_outcomes(self, state) -> list:
        n = K.chance_outcomes(state, self.cfg, self._buf)
        prob = 1.0 / n
        return [(c, prob) for c in self._buf[:n].tolist()]

    def child(self, state, action):
        out = state.copy()
        K.apply_action(out, self.cfg, action)
        return out

    def returns(self, state) -> list:
        out = np.zeros(2)
        K.returns(state, self.cfg, self.trick_value, out)
        return out.tolist()

    def infostate_key(self, state, player: int):
        if self._compact:
            return information_key(state, player)
        # The game's information-state string of a single deal (encoding.information_state_string).
        return f"P{player} || " + deal_string(state, player)


def draw_key(state: np.ndarray, player: int) -> str:
    """Abstract information of a drawer: role, draws so far, and a bucket of the hand.

    ``"N|0|1|c1r9f0"`` reads: non-dealer (``D`` for the dealer), own draws so
    far, the opponent's discard counts (``-`` none yet), and the hand bucket:
    category ``c`` (``gamut.envs.hands``), rank index ``r`` (0 = deuce) of the
    highest card in the hand's largest rank group, ``f`` 1 when four cards
    share a suit.
    """
    opp = 1 - player
    role = "D" if state[K.S_DEALER] == player else "N"
    opp_draws = "".join(str(K.popcount(state[K.S_DISC + 3 * opp + k])) for k in range(state[K.S_NDRAWS + opp]))
    hand = int(state[K.S_HAND + player])
    category = hands.category_of(hand_strength(hand))
    best_rank, best_count = -1, 0
    flush = 0
    for c in range(52):
        if (hand >> c) & 1:
            count = bin(hand & (15 << (4 * (c >> 2)))).count("1")
            if count >= best_count:
                best_rank, best_count = c >> 2, count
    for s in range(4):
        if bin(hand & (0x1111111111111 << s)).count("1") >= 4:
            flush = 1
    return f"{role}|{state[K.S_NDRAWS + player]}|{opp_draws or '-'}|c{category}r{best_rank}f{flush}"


def draw_slots(state: np.ndarray, cfg: np.ndarray) -> int:
    """The draw action (slot mask) of abstract ``DRAW`` for the drawer of ``state``; 0 if none applies."""
    p = state[K.S_DRAWER]
    hand = state[K.S_HAND + p]
    limit = min(cfg[K.C_MAX_DRAW], K.popcount(K.stock_mask(state, cfg)))
    return int(K.cards_to_slots(hand, discard_cards(hand, limit)))


class DrawWalker(PokeWalker):
    """Abstracted deal: draw decisions only (stand / draw by the keep rule), heuristic trick play."""

    def is_terminal(self, state) -> bool:
        return state[K.S_PHASE] >= K.PH_TRICK

    def legal_actions(self, state) -> list:
        return [K.STAND, DRAW] if draw_slots(state, self.cfg) else [K.STAND]

    def child(self, state, action):
        out = state.copy()
        if not self.is_chance(state) and action == DRAW:
            action = draw_slots(state, self.cfg)
        K.apply_action(out, self.cfg, action)
        return out

    def returns(self, state) -> list:
        work = state.copy()
        while work[K.S_PHASE] != K.PH_OVER:
            K.apply_action(work, self.cfg, heuristic_action(work, self.cfg, _NO_PARAMS))
        return super().returns(work)

    def infostate_key(self, state, player: int) -> str:
        return draw_key(state, player)
