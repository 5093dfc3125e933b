"""What a Poke player sees: observation and information-state tensors and strings.

Both tensors are written from the kernels' state array (``gamut.envs.poke.kernels``)
by the Numba kernel ``gamut.envs.poke.tensors.write_tensor`` and laid out by ``Layout``; ``D = num_ranks * num_suits`` cards of the reduced
deck are indexed lowest card id first, ``h = hand_size``. "me" is the observing
player, "opp" the other. Pieces, in order (sizes):

========================  ===========  =========================================
piece                     size         meaning
========================  ===========  =========================================
``player``                2            one-hot of the observing player
``dealer``                2            [I deal, opponent deals]
``phase``                 4            [chance, draw, lead, follow]
``my_hand``               D            cards I hold and have not played
``my_face_up``            D            my won plays, lying face up
``opp_face_up``           D            the opponent's won plays, lying face up
``my_face_down``          D            my lost plays (throw-offs, beaten leads), face down
``opp_face_down_count``   h + 1        one-hot: how many of the opponent's cards lie face down
``current_lead``          D            cards led to the trick now being played
``draws``                 2 x 3 x 4    [me, opp] x draw k x one-hot count 0..3
``drawing_over``          2            [me, opp] has finished drawing
``multipliers``           2 x 3        [me, opp] x one-hot of 1, 2, 4 points per trick
``scores``                9            my/opp tricks this deal, my/opp below,
                                       my/opp above, my/opp games, deals done,
                                       each divided by its highest value
                                       (``game.score_maxima``)
========================  ===========  =========================================

Every entry lies in [0, 1].

The information-state tensor (perfect recall within the deal) appends:

========================  ===========  =========================================
``my_dealt``              D            the cards I was dealt
``my_discards``           3 x D        cards I discarded at my draw k
``my_drawn``              3 x D        cards I drew at my draw k
``tricks``                h x (2D+4)   per trick: leader [me, opp], cards led,
                                       reply (if on view or mine), winner [me, opp]
========================  ===========  =========================================

Earlier deals of a game or rubber reach the tensors only through ``scores``
(every deal uses a fresh deck, so the score sheet is all that carries over);
the information-state *string* holds the whole match. With public-only
observation types (``private_info = NONE``) the private pieces (``my_hand``,
``my_face_down``, ``my_dealt``, ``my_discards``, ``my_drawn``) are left out.

Worked example: full deck (D = 52, h = 5) gives an observation of
2+2+4+4*52+6+52+24+2+6+9 = 315 floats and an information state of
315 + 52 + 156 + 156 + 5*108 = 1219 floats.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.envs.cards import cards_str, deck
from gamut.envs.kernel_game import tensor_views
from gamut.envs.poke import kernels as K
from gamut.envs.poke.tensors import drawing_over, piece_offsets, table_cards, write_tensor

_PHASE_NAMES = {K.PH_DEAL: "deal", K.PH_DRAW: "draw", K.PH_REPLACE: "replace", K.PH_TRICK: "trick",
                K.PH_OVER: "over"}


def mask_cards(mask: int) -> list[int]:
    """Card ids of a card mask, ascending."""
    return [c for c in range(52) if (int(mask) >> c) & 1]


def mask_str(mask: int) -> str:
    return cards_str(mask_cards(mask))


class Layout:
    """Sizes and card indexing of the tensors for one deck and hand size."""

    def __init__(self, num_ranks: int, num_suits: int, hand_size: int, score_maxima: np.ndarray):
        self.deck = deck(num_ranks, num_suits)
        self.score_maxima = np.asarray(score_maxima, dtype=np.float64)
        self.num_cards = len(self.deck)
        self.hand_size = hand_size
        # Bit c of a mask -> tensor index: a (52,) lookup, -1 outside the deck.
        self.index = np.full(52, -1, dtype=np.int64)
        self.index[self.deck] = np.arange(self.num_cards)
        d, h = self.num_cards, hand_size
        self.public_pieces = [
            ("player", (2,)), ("dealer", (2,)), ("phase", (4,)), ("my_hand", (d,)),
            ("my_face_up", (d,)), ("opp_face_up", (d,)), ("my_face_down", (d,)),
            ("opp_face_down_count", (h + 1,)),
            ("current_lead", (d,)), ("draws", (2, 3, 4)), ("drawing_over", (2,)), ("multipliers", (2, 3)),
            ("scores", (9,)),
        ]
        self.recall_pieces = [("my_dealt", (d,)), ("my_discards", (3, d)), ("my_drawn", (3, d)),
                              ("tricks", (h, 2 * d + 4))]

    def pieces(self, perfect_recall: bool, private: bool) -> list[tuple[str, tuple[int, ...]]]:
        chosen = self.public_pieces + (self.recall_pieces if perfect_recall else [])
        if private:
            return chosen
        hidden = {"my_hand", "my_face_down", "my_dealt", "my_discards", "my_drawn"}
        return [piece for piece in chosen if piece[0] not in hidden]


class PokeObserver:
    """pyspiel Python observer: named views into one flat tensor, written in place."""

    def __init__(self, iig_obs_type, layout: Layout, params):
        if params:
            raise ValueError(f"poke observers take no parameters; got {params}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("poke observers support private_info SINGLE_PLAYER or NONE, not ALL_PLAYERS")
        self.layout = layout
        self.perfect_recall = iig_obs_type.perfect_recall
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        pieces = layout.pieces(self.perfect_recall, self.private)
        self.offsets = piece_offsets(pieces)
        self.tensor, self.dict = tensor_views(pieces)

    def set_from(self, state, player: int) -> None:
        lay = self.layout
        write_tensor(state.state, player, lay.index, lay.num_cards, lay.hand_size, lay.score_maxima,
                     self.offsets, self.tensor)

    def string_from(self, state, player: int) -> str:
        if self.perfect_recall:
            return information_state_string(state, player, self.private)
        return observation_string(state.state, player, self.private)


def action_to_string(st: np.ndarray, cfg: np.ndarray, player: int, action: int) -> str:
    """Readable name of a player action in state ``st``: ``'stand'``, ``'discard Jc Ad'``, ``'play Kc Kd'``."""
    h = int(cfg[K.C_HAND_SIZE])
    base = 1 << h
    hand = int(st[K.S_HAND + player])
    if action == K.STAND:
        return "stand"
    if 0 < action < base:
        return "discard " + mask_str(K.slots_to_cards(hand, action))
    if base <= action < 2 * base:
        return "play " + mask_str(K.slots_to_cards(hand, action - base))
    return f"action {action} (not a poke action for hand_size={h})"


def _draw_events(st: np.ndarray, player: int, private: bool) -> list[str]:
    """Draw phase of the current deal as seen by ``player``: non-dealer's draws, then dealer's."""
    events = []
    dealer = st[K.S_DEALER]
    for p in (1 - dealer, dealer):
        n = st[K.S_NDRAWS + p]
        for k in range(n):
            disc = st[K.S_DISC + 3 * p + k]
            text = f"P{p} discards {bin(disc).count('1')}"
            if p == player and private:
                text += f" [{mask_str(disc)}] draws [{mask_str(st[K.S_DRAWN + 3 * p + k])}]"
            events.append(text)
        if drawing_over(st, p) and n < K.max_draws(st, p):
            events.append(f"P{p} stands")
    return events


def _trick_events(st: np.ndarray, player: int, private: bool) -> list[str]:
    events = []
    for t in range(K.MAX_HAND_SIZE):
        lead = st[K.S_LEAD + t]
        if lead == 0:
            break
        leader = st[K.S_TRICK_LEADER + t]
        text = f"T{t + 1} P{leader} leads {mask_str(lead)}"
        follow = st[K.S_FOLLOW + t]
        if follow:
            winner = st[K.S_TRICK_WINNER + t]
            if winner != leader:
                text += f", P{1 - leader} beats with {mask_str(follow)}"
            elif 1 - leader == player and private:
                text += f", P{1 - leader} throws off [{mask_str(follow)}]"
            else:
                text += f", P{1 - leader} throws off {bin(follow).count('1')}"
        events.append(text)
    return events


def deal_string(st: np.ndarray, player: int, private: bool = True) -> str:
    """The current deal of ``st`` as ``player`` knows it (own cards, draws, plays)."""
    parts = [f"deal {st[K.S_DEALS_DONE] + 1} dealer P{st[K.S_DEALER]}"]
    if private:
        parts.append(f"dealt [{mask_str(st[K.S_DEALT + player])}]")
    parts += _draw_events(st, player, private)
    parts += _trick_events(st, player, private)
    return " | ".join(parts)


def _result_string(before: np.ndarray, after: np.ndarray) -> str:
    """Showdown and score of a finished deal (``before``: its last position, ``after``: settled)."""
    return (f"showdown P0 [{mask_str(before[K.S_HAND])}] P1 [{mask_str(before[K.S_HAND + 1])}]"
            f" | tricks {after[K.S_LAST_TRICK_PTS]}/{after[K.S_LAST_TRICK_PTS + 1]}"
            f" sweep {after[K.S_LAST_SWEEP]}/{after[K.S_LAST_SWEEP + 1]}"
            f" poker {after[K.S_LAST_POKER]}/{after[K.S_LAST_POKER + 1]}"
            + (f" | game to P{after[K.S_LAST_GAME]}" if after[K.S_LAST_GAME] >= 0 else "")
            + f" | above {after[K.S_ABOVE]}/{after[K.S_ABOVE + 1]} below {after[K.S_BELOW]}/{after[K.S_BELOW + 1]}")


def _record_last_trick(st: np.ndarray, cfg: np.ndarray, action: int) -> None:
    """Write the deal's final reply ``action`` into the trick log of ``st`` without settling the deal."""
    t = st[K.S_TRICK]
    follower = K.current_player(st)
    follow = K.slots_to_cards(st[K.S_HAND + follower], action - (1 << int(cfg[K.C_HAND_SIZE])))
    st[K.S_FOLLOW + t] = follow
    st[K.S_TRICK_WINNER + t] = follower if K.beats(st[K.S_LEAD + t], follow) else 1 - follower
    st[K.S_TRICK] = t + 1


def information_state_string(state, player: int, private: bool = True) -> str:
    """Everything ``player`` has seen, in order (perfect recall over the whole match).

    Finished deals are replayed from the history (only games and rubbers have
    any); each ends with its showdown, where both poker hands are shown.
    """
    st, cfg = state.state, state.cfg
    segments = []
    if st[K.S_DEAL_START] > 0 or st[K.S_PHASE] == K.PH_OVER:
        replay = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.init_state(replay, cfg)
        for action in state.history():
            before = replay.copy()
            K.apply_action(replay, cfg, action)
            if replay[K.S_DEALS_DONE] != before[K.S_DEALS_DONE]:
                _record_last_trick(before, cfg, action)
                segments.append(deal_string(before, player, private) + " | " + _result_string(before, replay))
    if st[K.S_PHASE] != K.PH_OVER:
        segments.append(deal_string(st, player, private))
    return f"P{player} || " + " || ".join(segments)


def observation_string(st: np.ndarray, player: int, private: bool = True) -> str:
    """What ``player`` sees now: own hand, cards on view, draw counts, multipliers and the score."""
    me, opp = player, 1 - player
    my_up, my_down = table_cards(st, me)
    opp_up, opp_down = table_cards(st, opp)
    parts = [f"P{me} dealer P{st[K.S_DEALER]} {_PHASE_NAMES[int(st[K.S_PHASE])]}"]
    if private:
        parts.append(f"hand [{mask_str(st[K.S_HAND + me] & ~st[K.S_PLAYED + me])}]")
        parts.append(f"my face down [{mask_str(my_down)}]")
    counts = [[bin(st[K.S_DISC + 3 * p + k]).count("1") for k in range(st[K.S_NDRAWS + p])] for p in (me, opp)]
    parts.append(f"face up me [{mask_str(my_up)}] opp [{mask_str(opp_up)}] opp face down {K.popcount(opp_down)}")
    if st[K.S_PHASE] == K.PH_TRICK and K.current_player(st) != st[K.S_LEADER]:
        parts.append(f"lead [{mask_str(st[K.S_LEAD + st[K.S_TRICK]])}]")
    parts.append(f"draws me {counts[0]} opp {counts[1]} x{K.trick_multiplier(st, me)}/x{K.trick_multiplier(st, opp)}")
    parts.append(f"tricks {st[K.S_TRICKS + me]}/{st[K.S_TRICKS + opp]} below {st[K.S_BELOW + me]}/"
                 f"{st[K.S_BELOW + opp]} above {st[K.S_ABOVE + me]}/{st[K.S_ABOVE + opp]} games "
                 f"{st[K.S_GAMES + me]}/{st[K.S_GAMES + opp]} deals {st[K.S_DEALS_DONE]}")
    return " | ".join(parts)


def state_string(st: np.ndarray, cfg: np.ndarray) -> str:
    """Full position (both hands, the stock size and the score) for debugging and logs."""
    return (f"{_PHASE_NAMES[int(st[K.S_PHASE])]} dealer P{st[K.S_DEALER]} | P0 [{mask_str(st[K.S_HAND])}] "
            f"P1 [{mask_str(st[K.S_HAND + 1])}] | stock {bin(K.stock_mask(st, cfg)).count('1')} | "
            f"{deal_string(st, 0)} | above {st[K.S_ABOVE]}/{st[K.S_ABOVE + 1]} below "
            f"{st[K.S_BELOW]}/{st[K.S_BELOW + 1]} games {st[K.S_GAMES]}/{st[K.S_GAMES + 1]}")
