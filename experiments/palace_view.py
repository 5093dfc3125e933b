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

A banner in brackets was taken by a battle winner. Only what the seat may know is drawn: banners, soldiers, stacks, chips put
in, who is out, its own palace and palaces shown to it at called battles.
"""

from __future__ import annotations

import numpy as np

from gamut.envs.cards import cards_str
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker.encoding import END_NAMES
from gamut.experiments.terminal_play import TableView, register_view


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
        won = ", ".join(f"seat {q} {int(st[L.S_PAYOUT + q])}" for q in range(n) if st[L.S_PAYOUT + q])
        lines.append(f"hand over ({END_NAMES[int(st[L.S_END])]}): pot won by {won}")
    return "\n".join(lines)


def describe_action(state, actor: int, action: int, viewer: int) -> str:
    """The move in words; every Palace decision is public (discarded soldiers are face up)."""
    text = state.action_to_string(actor, action)
    if viewer != actor:
        text = text.replace(f"seat {viewer}", "you")
    return text


register_view("palace_poker", TableView(
    render=render, describe_action=describe_action, allows_undo=False, opponent=("heuristic",),
    hint=("ismcts", "heuristic"),
    moves_help="  stay, buy, discard 7c, done, fold, call, raise 4, bet 2 on seat 1   as listed, any case",
))
