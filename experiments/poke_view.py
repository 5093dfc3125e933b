"""Poke in the terminal: a score sheet with a line, the deal as the person sees it, discreet bot moves.

Importing this module registers the view for ``poke`` with
``gamut.experiments.terminal_play`` (``gamut poke play`` does). At the end of
each deal both hands are shown, as at the showdown that scores the poker
points, e.g. ``end of deal 1: the opponent held 4c 5s 8d Ac Ah (one pair); you
held 5d 6h 9h 9s Ad (one pair)``.

Example of a sheet (the person in seat 0, after a few deals)::

    Poke score sheet          you   opponent
      above the line          150        350
      ---------------------------------------
      below the line            8         12
      games won                 1          0
"""

from __future__ import annotations

import numpy as np

from gamut.envs.cards import cards_str, parse_cards
from gamut.envs.hands import CATEGORY_NAMES, CATEGORY_SHIFT, HAND_TABLE, best_strength
from gamut.envs.poke import kernels as K
from gamut.envs.poke.encoding import deal_string, mask_cards, table_cards
from gamut.experiments.terminal_play import TableView, normalise


def score_sheet(st, player: int) -> str:
    """The above/below-the-line sheet of state array ``st`` from ``player``'s side."""
    me, opp = player, 1 - player
    rows = [("above the line", K.S_ABOVE), (None, None), ("below the line", K.S_BELOW), ("games won", K.S_GAMES)]
    lines = [f"{'Poke score sheet':<22}{'you':>7}{'opponent':>11}"]
    for label, field in rows:
        if label is None:
            lines.append("  " + "-" * 38)
        else:
            lines.append(f"  {label:<20}{st[field + me]:>7}{st[field + opp]:>11}")
    return "\n".join(lines)


def render(state, player: int) -> str:
    st = state.state
    parts = [score_sheet(st, player)]
    if st[K.S_DEALS_DONE] > 0:
        me, opp = player, 1 - player
        last = (f"last deal: tricks {st[K.S_LAST_TRICK_PTS + me]}/{st[K.S_LAST_TRICK_PTS + opp]}, "
                f"poker {st[K.S_LAST_POKER + me]}/{st[K.S_LAST_POKER + opp]}, "
                f"sweep {st[K.S_LAST_SWEEP + me]}/{st[K.S_LAST_SWEEP + opp]} (you/opponent)")
        if st[K.S_LAST_GAME] >= 0:
            last += "; game to " + ("you" if st[K.S_LAST_GAME] == player else "the opponent")
        parts.append(last)
    if state.is_terminal():
        return "\n".join(parts)
    role = "you deal" if st[K.S_DEALER] == player else "the opponent deals"
    parts.append(f"deal {st[K.S_DEALS_DONE] + 1}, {role}; your tricks score {K.trick_multiplier(st, player)} "
                 f"each, the opponent's {K.trick_multiplier(st, 1 - player)}")
    held = st[K.S_HAND + player] & ~st[K.S_PLAYED + player]
    parts.append("your cards: " + cards_str(mask_cards(held)))
    up, down = table_cards(st, player)
    opp_up, opp_down = table_cards(st, 1 - player)
    if st[K.S_PHASE] == K.PH_TRICK:
        parts.append(f"won (face up): you {cards_str(mask_cards(up)) or '-'}; "
                     f"opponent {cards_str(mask_cards(opp_up)) or '-'} (+{K.popcount(opp_down)} face down)")
        lead = st[K.S_LEAD + st[K.S_TRICK]]
        if lead and K.current_player(st) == player:
            parts.append("to beat: " + cards_str(mask_cards(lead)))
    parts.append("so far: " + deal_string(st, player))
    return "\n".join(parts)


def describe_action(state, actor: int, action: int, viewer: int) -> str:
    """The move as ``viewer`` sees it: discards and throw-offs are counted, not shown."""
    st = state.state
    if actor == viewer:
        return state.action_to_string(actor, action)
    base = 1 << int(state.cfg[K.C_HAND_SIZE])
    if st[K.S_PHASE] == K.PH_DRAW:
        if action == K.STAND:
            return "stands"
        n = K.popcount(action)
        return f"discards {n} and draws {n}"
    cards = K.slots_to_cards(st[K.S_HAND + actor], action - base)
    lead = st[K.S_LEAD + st[K.S_TRICK]]
    if lead == 0:
        return "leads " + cards_str(mask_cards(cards))
    if K.beats(lead, cards):
        return "beats with " + cards_str(mask_cards(cards))
    return f"throws off {K.popcount(cards)} card(s) face down"


def parse_action(state, player: int, text: str) -> int | None:
    """``discard``/``play`` with the cards in any order (``play 10h``, ``discard ad 5d``)."""
    verb, _, rest = normalise(text).partition(" ")
    if verb not in ("discard", "play") or not rest:
        return None
    wanted = set(parse_cards(rest).tolist())
    for action in state.legal_actions(player):
        name_verb, _, cards = state.action_to_string(player, action).partition(" ")
        if name_verb == verb and set(parse_cards(cards).tolist()) == wanted:
            return action
    st = state.state
    missing = wanted - set(mask_cards(st[K.S_HAND + player] & ~st[K.S_PLAYED + player]))
    if missing:
        raise ValueError(f"you do not hold {cards_str(sorted(missing))}")
    if verb == "discard":
        sizes = [len(parse_cards(name.partition(" ")[2])) for name in
                 (state.action_to_string(player, a) for a in state.legal_actions(player)) if name.startswith("discard")]
        if not sizes:
            raise ValueError("no discard is possible now")
        if len(wanted) > max(sizes):
            raise ValueError(f"you may discard at most {max(sizes)} card{'s' if max(sizes) > 1 else ''} now "
                             f"(at most 3, one fewer than the hand, and no more than the stock holds); "
                             f"{len(wanted)} named")
    return None


def hand_words(mask: int) -> str:
    """The cards of ``mask`` and the poker hand they make, e.g. ``9h 9s Kd Kc 2c (two pair)``."""
    cards = np.array(mask_cards(mask), dtype=np.int64)
    category = best_strength(cards, len(cards), -1, HAND_TABLE) >> CATEGORY_SHIFT
    return f"{cards_str(cards)} ({CATEGORY_NAMES[category]})"


def narrate(before, actor: int, action: int, after, viewer: int) -> list[str]:
    """At the end of a deal, the hands both players held (shown at the showdown)."""
    if after.state[K.S_DEALS_DONE] == before.state[K.S_DEALS_DONE]:
        return []
    st = before.state
    return [f"end of deal {st[K.S_DEALS_DONE] + 1}: the opponent held {hand_words(st[K.S_HAND + 1 - viewer])}; "
            f"you held {hand_words(st[K.S_HAND + viewer])}"]


# Rollouts of a hint at a draw decision: about a second on the full deck with every option.
HINT_ROLLOUTS = 1000


def advice(state, player: int, seed: int) -> str | None:
    """At a draw decision, the doubling advisor's values of the six best options (None elsewhere)."""
    if state.state[K.S_PHASE] != K.PH_DRAW:
        return None
    from gamut.solvers.poke.advisor import advise

    answer = advise(state, rollouts=HINT_ROLLOUTS, seed=seed)
    return f"hint: {answer.best.name}   (the doubling advisor)\n" + answer.table(limit=6)


# The game's declaration names this view (``GAME.view``).
VIEW = TableView(
    render=render, describe_action=describe_action, allows_undo=False, opponent=("ismcts", "heuristic"),
    hint=("cfr", "ismcts", "heuristic"), parse_action=parse_action, narrate=narrate,
    moves_help="  discard 5d Ad, play 9h 9s   the cards in any order and case ('play 10h' works too)",
    return_unit="above-the-line points", advice=advice,
)
