"""Palace Poker in the terminal: the table as one seat sees it.

Importing this module registers the view for ``palace_poker`` with
``gamut.experiments.terminal_play`` (``gamut palace play`` does). Example (you in
seat 0 of three, seat 2 out)::

    Palace Poker: pot 13, draw pile 36, discard pile 3, turn 4
      seat      banner  soldiers      stack  put  state
      0 (you)   Kh      7c 7d           193    7  in
      1         3s      -               197    3  in, to act
      2         9c      -               197    3  out
    your palace: Ah Kd 2c
    seat 1's palace, shown to you: -

A called battle is narrated (the palaces are shown to its two players only)::

    battle called: seat 0 (you) attacks seat 1
      seat 0 (you): 3c Td Kc Kd: one pair
      seat 1: 6h 7c Kh (not counting 2d: diamonds, the other's banner suit): high card
      seat 0 (you) wins the battle and takes seat 1's banner and soldiers; seat 1 is out

a showdown (after a quiet round or ``max_turns``) lists every hand still in,
best first, and a finished hand says who won the pot: ``hand over (last
player): seat 0 (you) wins the pot of 6 chips``. A banner in brackets was
taken by a battle winner. Only what the seat may know is drawn: banners,
soldiers, stacks, chips put in, who is out, its own palace and palaces shown
to it at called battles.
"""

from __future__ import annotations

import numpy as np

from gamut.envs.cards import SUIT_NAMES, cards_str
from gamut.envs.hands import CATEGORY_NAMES, CATEGORY_SHIFT, HAND_TABLE, best_strength
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker.showdown import battle_winner
from gamut.envs.palace_poker.encoding import END_NAMES
from gamut.experiments.terminal_play import TableView


def _cards(st: np.ndarray, loc: int, mask: int | None = None) -> list[int]:
    return [c for c in range(L.NUM_CARDS)
            if st[L.S_LOC + c] == loc and (mask is None or (mask >> c) & 1)]


def render(state, player: int) -> str:
    """The table as ``player`` sees it (see the module doc)."""
    st, cfg = state.state, state.cfg
    n = int(cfg[L.C_PLAYERS])
    mover = int(K.current_player(st))
    pot = int(st[L.S_CONTRIB:L.S_CONTRIB + n].sum())
    lines = [f"Palace Poker: pot {pot}, draw pile {K.count_at(st, L.LOC_DRAW)}, "
             f"discard pile {K.count_at(st, L.LOC_DISCARD)}, turn {int(st[L.S_TURNS])}",
             f"  {'seat':<10}{'banner':<8}{'soldiers':<16}{'stack':>6}{'put':>5}  state"]
    for q in range(n):
        banner = int(st[L.S_BANNER + q])
        if banner < 0:
            flag = "-"
        elif st[L.S_LOC + banner] == L.LOC_BANNER + q:
            flag = cards_str([banner])
        else:  # taken by a battle winner (now one of its soldiers)
            flag = f"({cards_str([banner])})"
        soldiers = cards_str(_cards(st, L.LOC_SOLDIER + q)) or "-"
        status = "in" if (st[L.S_IN] >> q) & 1 else "out"
        if q == mover:
            status += ", to act"
        seat = f"{q} (you)" if q == player else str(q)
        lines.append(f"  {seat:<10}{flag:<8}{soldiers:<16}"
                     f"{int(st[L.S_STACK + q]):>6}{int(st[L.S_CONTRIB + q]):>5}  {status}")
    own = _cards(st, L.LOC_PALACE + player)
    if own:
        lines.append(f"your palace: {cards_str(own)}")
    known = int(st[L.S_KNOWN + player])
    for q in range(n):
        shown = _cards(st, L.LOC_PALACE + q, known)
        if q != player and shown:
            lines.append(f"seat {q}'s palace, shown to you: {cards_str(shown)}")
    if st[L.S_PHASE] == L.PH_BATTLE:
        lines.append(f"battle: seat {int(st[L.S_ATTACKER])} attacks seat {int(st[L.S_DEFENDER])}; "
                     f"to call {int(st[L.S_TO_CALL])}, raises {int(st[L.S_RAISES])}")
    aside = _cards(st, L.LOC_SET_ASIDE)
    if aside:
        lines.append(f"set aside: {cards_str(aside)}")
    if st[L.S_PHASE] == L.PH_OVER:
        lines.append(pot_line(st, n, player))
    return "\n".join(lines)


def _seat(q: int, viewer: int) -> str:
    return f"seat {q} (you)" if q == viewer else f"seat {q}"


def pot_line(st: np.ndarray, n: int, viewer: int) -> str:
    """Who won the pot of a finished hand and how many chips, e.g. ``hand over (last player in): seat 0 (you)
    wins the pot of 58 chips``."""
    winners = [q for q in range(n) if st[L.S_PAYOUT + q] > 0]
    pot = int(st[L.S_PAYOUT:L.S_PAYOUT + n].sum())
    head = f"hand over ({END_NAMES[int(st[L.S_END])]}): "
    if len(winners) == 1:
        return head + f"{_seat(winners[0], viewer)} wins the pot of {pot} chips"
    shares = ", ".join(f"{_seat(q, viewer)} {int(st[L.S_PAYOUT + q])}" for q in winners)
    return head + f"the pot of {pot} chips is split: {shares}"


def _hand_words(st: np.ndarray, q: int, excluded_suit: int) -> tuple[str, int]:
    """Seat ``q``'s cards, those of ``excluded_suit`` set apart, and the hand the others make; and its strength."""
    cards = [c for c in range(L.NUM_CARDS)
             if st[L.S_LOC + c] in (L.LOC_PALACE + q, L.LOC_BANNER + q, L.LOC_SOLDIER + q)]
    counting = np.array([c for c in cards if c & 3 != excluded_suit], dtype=np.int64)
    dropped = [c for c in cards if c & 3 == excluded_suit]
    strength = int(best_strength(counting, len(counting), -1, HAND_TABLE))
    text = cards_str(counting.tolist()) or "no counting cards"
    if dropped:
        text += f" (not counting {cards_str(dropped)}: {SUIT_NAMES[excluded_suit]}, the other's banner suit)"
    return f"{text}: {CATEGORY_NAMES[strength >> CATEGORY_SHIFT]}", strength


def narrate(before, actor: int, action: int, after, viewer: int) -> list[str]:
    """A called battle as ``viewer`` may know it (both hands to the two players in it, and the winner); the
    hands of a showdown."""
    st = before.state
    if after.state[L.S_PHASE] == L.PH_OVER and after.state[L.S_END] in (L.END_QUIET, L.END_MAX_TURNS) \
            and st[L.S_PHASE] != L.PH_OVER:
        return _showdown_lines(after.state, int(after.get_game().num_players()), viewer)
    if st[L.S_PHASE] != L.PH_BATTLE or before.action_to_string(actor, action) != "call":
        return []
    a, d = int(st[L.S_ATTACKER]), int(st[L.S_DEFENDER])
    lines = [f"battle called: {_seat(a, viewer)} attacks {_seat(d, viewer)}"]
    hands = {q: _hand_words(st, q, int(st[L.S_BANNER + other]) & 3) for q, other in ((a, d), (d, a))}
    if viewer in (a, d):  # the two palaces are shown to the two players in the battle only
        lines += [f"  {_seat(q, viewer)}: {hands[q][0]}" for q in (a, d)]
    else:
        lines.append("  (the palaces are shown to the two players in the battle only)")
    winner = int(battle_winner(st, a, d, HAND_TABLE))
    if winner < 0:
        lines.append("  equal hands and equal counts of their own banner suits: "
                     + ("they split the pot" if after.state[L.S_PHASE] == L.PH_OVER else "both are out"))
        return lines
    loser = a + d - winner
    why = " (equal hands: more cards of its own banner suit)" if hands[a][1] == hands[d][1] else ""
    lines.append(f"  {_seat(winner, viewer)} wins the battle{why} and takes {_seat(loser, viewer)}'s banner and "
                 f"soldiers; {_seat(loser, viewer)} is out")
    return lines


def describe_action(state, actor: int, action: int, viewer: int) -> str:
    """The move in words; every Palace decision is public (discarded soldiers are face up)."""
    text = state.action_to_string(actor, action)
    if viewer != actor:
        text = text.replace(f"seat {viewer}", "you")
    return text


# The game's declaration names this view (``GAME.view``).
VIEW = TableView(
    render=render, describe_action=describe_action, allows_undo=False, opponent=("nn_ismcts", "ismcts", "heuristic"),
    hint=("ismcts", "heuristic"), narrate=narrate,
    moves_help="  stay, buy, discard 7c, done, fold, call, raise 4, bet 2 on seat 1   as listed, any case",
    return_unit="chips won",
)


def _showdown_lines(st: np.ndarray, n: int, viewer: int) -> list[str]:
    """Every hand still in at a showdown (nothing excluded), best first."""
    hands = [(q, *_hand_words(st, q, -1)) for q in range(n) if (st[L.S_IN] >> q) & 1]
    hands.sort(key=lambda row: -row[2])
    return ["showdown (the best hand takes the pot):"] + [f"  {_seat(q, viewer)}: {text}" for q, text, _ in hands]
