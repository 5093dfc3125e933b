"""Palace Poker from one player's point of view: action names, strings and tensors.

Information
-----------
Public: banners, set-aside cards, soldiers, every action and chip amount, who
is out, and the result of each battle. Private: a player's own palace. At a
called battle both palaces are shown to the two battlers only. A card's
location is *known* to seat ``p`` when it is in ``state[S_PUBLIC]`` (seen by
all since the palaces were dealt) or in ``state[S_KNOWN + p]`` (``p``'s own
palace cards and palaces shown to ``p``); other cards read as unknown.

Tensors
-------
The observation and information-state tensors (layout, scaling into
``[0, 1]``) are written by ``gamut.envs.palace_poker.tensors.write_tensor``;
the observer below calls it.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.envs.cards import card_str, cards_str
from gamut.envs.hands import HAND_TABLE
from gamut.envs.kernel_game import tensor_views
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker.tensors import tensor_blocks, write_tensor

PHASE_NAMES = ("banners", "palaces", "turn", "buy", "discard", "battle", "over")
END_NAMES = ("", "last player", "same banner suit", "tied battle of the last two", "quiet round",
             "max_turns")
COUNT_NAMES = ("stays", "buys", "discards", "bets", "raises")


def known_mask(state: np.ndarray, player: int, private: bool = True) -> int:
    """Bitmask of the cards whose location ``player`` knows (``private=False``: public knowledge only)."""
    return int(state[L.S_PUBLIC]) | (int(state[L.S_KNOWN + player]) if private else 0)


def action_to_string(state: np.ndarray, cfg: np.ndarray, player: int, action: int) -> str:
    """Name of ``action``; chip amounts are those ``player`` would pay in ``state``."""
    if player == pyspiel.PlayerId.CHANCE:
        return card_str(action) if 0 <= action < L.NUM_CARDS else f"outcome {action}"
    names = {L.STAY: "stay", L.FOLD: "fold", L.BUY: "buy", L.DISCARD: "discard", L.CALL: "call",
             L.DONE: "done"}
    if action in names:
        return names[action]
    if L.DISCARD_CARD <= action < L.RAISE_BASE:
        return f"discard {card_str(action - L.DISCARD_CARD)}"
    bet_base = int(cfg[L.C_BET_BASE])
    if L.RAISE_BASE <= action < bet_base:
        level = action - L.RAISE_BASE
        if level == cfg[L.C_RAISE_LEVELS]:
            return "raise all-in"
        return f"raise {int(K.raise_amount(state, cfg, player, level))}"
    if bet_base <= action < cfg[L.C_NUM_ACTIONS]:
        target, level = (int(x) for x in K.bet_target_level(cfg, action))
        if level == cfg[L.C_BET_LEVELS]:
            return f"bet all-in on seat {target}"
        minimum = (int(state[L.S_NSOLD + player]) + 1) * int(cfg[L.C_SMALL])
        return f"bet {minimum << level} on seat {target}"
    return f"action {action}"


def _cards_of(state: np.ndarray, loc: int) -> str:
    return cards_str(np.flatnonzero(state[L.S_LOC:L.S_LOC + L.NUM_CARDS] == loc)) or "-"


def _seats(mask: int) -> str:
    return ",".join(str(q) for q in range(L.MAX_PLAYERS) if (mask >> q) & 1)


def history_events(history, cfg: np.ndarray, player: int, private: bool = True) -> list[str]:
    """What ``player`` observed along ``history``, one token per observation (perfect recall).

    Replays the kernels from the initial state; other seats' palace cards
    are not shown unless a called battle showed them to ``player``;
    ``private=False`` keeps only the public events.
    """
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    K.init_state(state, cfg)
    events = []
    for action in history:
        phase = int(state[L.S_PHASE])
        mover = int(K.current_player(state))
        before = state.copy()
        K.apply_action(state, cfg, int(action), HAND_TABLE)
        if phase == L.PH_BANNER:
            where = "banner" if state[L.S_LOC + action] >= L.LOC_BANNER else "aside"
            events.append(f"{before[L.S_DEAL_SEAT]}:{where}:{card_str(action)}")
        elif phase == L.PH_PALACE:
            if private and before[L.S_DEAL_SEAT] == player:
                events.append(f"palace:{card_str(action)}")
        elif phase == L.PH_BUY:
            events.append(f"{before[L.S_TURN_PLAYER]}:draws:{card_str(action)}")
        else:
            paid = int(state[L.S_CONTRIB + mover] - before[L.S_CONTRIB + mover])
            text = action_to_string(before, cfg, mover, int(action)).replace(" ", "_")
            events.append(f"{mover}:{text}" + (f":{paid}" if paid else ""))
            if phase == L.PH_BATTLE and action == L.CALL:
                a, d = int(before[L.S_ATTACKER]), int(before[L.S_DEFENDER])
                if private and player in (a, d):
                    other = a + d - player
                    shown = np.flatnonzero(before[L.S_LOC:L.S_LOC + L.NUM_CARDS] == L.LOC_PALACE + other)
                    events.append(f"shown:{other}:{cards_str(shown).replace(' ', ',')}")
        if state[L.S_LAST_OUT]:
            events.append(f"out:{_seats(int(state[L.S_LAST_OUT]))}")
        if state[L.S_PHASE] == L.PH_OVER:
            n = int(cfg[L.C_PLAYERS])
            events.append("won:" + ",".join(str(int(x)) for x in state[L.S_PAYOUT:L.S_PAYOUT + n]))
    return events


def information_state_string(history, cfg: np.ndarray, player: int, private: bool = True) -> str:
    """Perfect-recall key of ``player``: their seat, then ``history_events``."""
    return " ".join([f"seat{player}"] + history_events(history, cfg, player, private))


def observation_string(state: np.ndarray, cfg: np.ndarray, player: int, private: bool = True) -> str:
    """What ``player`` sees now: the table, their palace and the palaces shown to them."""
    n = int(cfg[L.C_PLAYERS])
    known = known_mask(state, player, private)
    lines = [f"seat {player}; {PHASE_NAMES[int(state[L.S_PHASE])]}; to move {int(K.current_player(state))}; "
             f"turns {int(state[L.S_TURNS])}; draw pile {K.count_at(state, L.LOC_DRAW)}; "
             f"discard pile {K.count_at(state, L.LOC_DISCARD)}"]
    for q in range(n):
        banner = int(state[L.S_BANNER + q])
        palace = np.flatnonzero(state[L.S_LOC:L.S_LOC + L.NUM_CARDS] == L.LOC_PALACE + q)
        shown = [c for c in palace if (known >> int(c)) & 1]
        lines.append(
            f"{q}: {'in' if (state[L.S_IN] >> q) & 1 else 'out'} stack {int(state[L.S_STACK + q])} "
            f"put {int(state[L.S_CONTRIB + q])} banner {card_str(banner) if banner >= 0 else '-'} "
            f"soldiers {_cards_of(state, L.LOC_SOLDIER + q)} palace {cards_str(shown) or '?'}")
    if state[L.S_PHASE] == L.PH_BATTLE:
        lines.append(f"battle {int(state[L.S_ATTACKER])} on {int(state[L.S_DEFENDER])}: "
                     f"to call {int(state[L.S_TO_CALL])}, raises {int(state[L.S_RAISES])}")
    aside = _cards_of(state, L.LOC_SET_ASIDE)
    if aside != "-":
        lines.append(f"set aside {aside}")
    return "\n".join(lines)


def state_string(state: np.ndarray, cfg: np.ndarray) -> str:
    """The whole position (every palace shown), for debugging and logs."""
    n = int(cfg[L.C_PLAYERS])
    pot = int(state[L.S_CONTRIB:L.S_CONTRIB + n].sum())
    lines = [f"{PHASE_NAMES[int(state[L.S_PHASE])]}; to move {int(K.current_player(state))}; pot {pot}; "
             f"turns {int(state[L.S_TURNS])}; draw {_cards_of(state, L.LOC_DRAW)}; "
             f"discard {_cards_of(state, L.LOC_DISCARD)}"]
    for q in range(n):
        banner = int(state[L.S_BANNER + q])
        lines.append(
            f"{q}: {'in' if (state[L.S_IN] >> q) & 1 else 'out'} stack {int(state[L.S_STACK + q])} "
            f"put {int(state[L.S_CONTRIB + q])} banner {card_str(banner) if banner >= 0 else '-'} "
            f"palace {_cards_of(state, L.LOC_PALACE + q)} soldiers {_cards_of(state, L.LOC_SOLDIER + q)}")
    if state[L.S_PHASE] == L.PH_OVER:
        lines.append(f"ended by {END_NAMES[int(state[L.S_END])]}; won "
                     + " ".join(str(int(x)) for x in state[L.S_PAYOUT:L.S_PAYOUT + n]))
    return "\n".join(lines)


class PalacePokerObserver:
    """pyspiel observer: ``tensor`` (float32) with named views ``dict`` (layout in ``tensors``)."""

    def __init__(self, iig_obs_type, cfg: np.ndarray):
        self.cfg = cfg
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info != pyspiel.PrivateInfoType.NONE
        blocks = tensor_blocks(int(cfg[L.C_PLAYERS]), self.perfect_recall)
        self.tensor, self.dict = tensor_views(blocks)

    def set_from(self, state, player):
        """Write ``state`` as seen by ``player`` into ``tensor`` (in place)."""
        write_tensor(state.state, self.cfg, player, self.private, self.perfect_recall, self.tensor)

    def string_from(self, state, player):
        """Information-state string (perfect recall) or observation string."""
        if self.perfect_recall:
            return information_state_string(state.history(), self.cfg, player, self.private)
        return observation_string(state.state, self.cfg, player, self.private)
