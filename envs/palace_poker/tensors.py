"""Palace Poker observation and information-state tensors, written by one Numba kernel.

``write_tensor`` is the one encoder: the pyspiel observer
(``gamut.envs.palace_poker.encoding.PalacePokerObserver``) and the batched
environment (``gamut.envs.palace_poker.vector``) both call it, so their tensors
are equal bit for bit.

Tensor layout (``n`` players; absolute seats; blocks in this order)
-------------------------------------------------------------------
==================  ============  ==============================================
name                size          content (every entry in ``[0, 1]``)
==================  ============  ==============================================
``observer``        n             one-hot seat of the observer
``to_move``         n             one-hot seat to act (zeros at chance/end)
``phase``           7             one-hot ``PH_*`` phase
``in_hand``         n             1 if the seat is still in the hand
``quiet``           n             1 if the seat only stayed/discarded since
                                  the last buy or bet
``stack``           n             chips behind / starting stack in chips
``contribution``    n             chips put in the pot / starting stack
``cards``           52 x (3+3n)   per card one-hot known location: draw pile,
                                  discard pile, set aside, banner of seat q
                                  (n), palace of q (n), soldier of q (n);
                                  all zero = unknown to the observer
``attacker``        n             one-hot attacker of the current battle
``defender``        n             one-hot defender of the current battle
``battle``          2             chips to call / starting stack, raises made
                                  in the battle / ``max(1, max_raises)``
``discard_phase``   5             one-hot kind (buy, paid, take), (last
                                  discarded card id + 1) / 52 (0 = none),
                                  cards discarded in this phase / 11
``piles``           4             turns taken / ``max_turns``, draw pile size
                                  / 52, discard pile size / 52, reshuffles of
                                  the discard pile / ``max_turns``
==================  ============  ==============================================

The information-state tensor appends ``action_counts`` (``n x 5``: per seat
the stays, buys, discards and bets made so far / ``max_turns``, and the raises
/ ``max_turns * max(1, max_raises)``). It is a fixed-size summary, not a
perfect-recall record (a hand can last ``max_turns`` turns); the
information-state *string* is the perfect-recall key.

Why these divisors bound every entry by 1: nobody holds or puts in more than
the starting stack (a raise nobody called goes back to the raiser's stack), so
chip amounts are at most ``cfg[C_STACK]``; the hand ends once ``max_turns``
turns were taken, every stay, buy, discard, bet and reshuffle (which happens at
a buy) takes a turn, and each bet opens a battle of at most ``max_raises``
raises; a discard phase starts with at most ``MAX_HELD_SOLDIERS = 11`` soldiers.

Worked example (2 players, default stack of 200 chips): sizes are
2+2+7+2+2+2+2+52*9+2+2+2+5+4 = 502 for the observation and 502 + 10 = 512 for
the information state. Seat 1's own palace card ``As`` (id 51) sets
``cards[51, 3 + 2 + 1]``, index ``6*2+7 + 51*9 + 6 = 484``; after both antes
of 1 chip, ``stack`` holds ``199 / 200 = 0.995`` (as float32) for each seat.
"""

from __future__ import annotations

import numba

from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L

NUM_DISCARD_FIELDS = 5  # kind one-hot (3), last card, count
NUM_PILE_FIELDS = 4  # turns, draw pile, discard pile, reshuffles
NUM_BATTLE_FIELDS = 2  # to call, raises


def tensor_blocks(n: int, perfect_recall: bool) -> list[tuple[str, tuple[int, ...]]]:
    """Names and shapes of the tensor blocks in layout order (see the module doc)."""
    blocks = [
        ("observer", (n,)), ("to_move", (n,)), ("phase", (L.NUM_PHASES,)), ("in_hand", (n,)),
        ("quiet", (n,)), ("stack", (n,)), ("contribution", (n,)), ("cards", (L.NUM_CARDS, 3 + 3 * n)),
        ("attacker", (n,)), ("defender", (n,)), ("battle", (NUM_BATTLE_FIELDS,)),
        ("discard_phase", (NUM_DISCARD_FIELDS,)), ("piles", (NUM_PILE_FIELDS,)),
    ]
    if perfect_recall:
        blocks.append(("action_counts", (n, L.NUM_COUNTS)))
    return blocks


@numba.njit(cache=True)
def tensor_size(n, perfect_recall):
    """Length of the observation (``perfect_recall=False``) or information-state tensor."""
    size = 6 * n + L.NUM_PHASES + L.NUM_CARDS * (3 + 3 * n) + 2 * n
    size += NUM_BATTLE_FIELDS + NUM_DISCARD_FIELDS + NUM_PILE_FIELDS
    if perfect_recall:
        size += n * L.NUM_COUNTS
    return size


@numba.njit(cache=True)
def write_tensor(state, cfg, player, private, perfect_recall, out):
    """Write ``state`` as seen by ``player`` into ``out`` (float32, ``tensor_size(n, perfect_recall)``).

    ``private=False`` leaves out what only ``player`` knows (their palace and
    palaces shown to them); ``perfect_recall`` appends ``action_counts``.
    Every entry is written (zeros included); see the module doc for the layout.
    """
    out[:] = 0.0
    n = cfg[L.C_PLAYERS]
    chips = float(cfg[L.C_STACK])
    out[player] = 1.0
    mover = K.current_player(state)
    if mover >= 0:
        out[n + mover] = 1.0
    phase = state[L.S_PHASE]
    out[2 * n + phase] = 1.0
    at = 2 * n + L.NUM_PHASES
    for q in range(n):
        out[at + q] = (state[L.S_IN] >> q) & 1
        out[at + n + q] = (state[L.S_QUIET] >> q) & 1
        out[at + 2 * n + q] = state[L.S_STACK + q] / chips
        out[at + 3 * n + q] = state[L.S_CONTRIB + q] / chips
    at += 4 * n
    known = state[L.S_PUBLIC]
    if private:
        known |= state[L.S_KNOWN + player]
    width = 3 + 3 * n
    draw = 0
    discard = 0
    for c in range(L.NUM_CARDS):
        loc = state[L.S_LOC + c]
        if loc == L.LOC_DRAW:
            draw += 1
        elif loc == L.LOC_DISCARD:
            discard += 1
        if (known >> c) & 1:
            if loc < L.LOC_BANNER:
                column = loc
            else:
                kind = (loc - L.LOC_BANNER) // L.MAX_PLAYERS
                column = 3 + kind * n + (loc - L.LOC_BANNER) % L.MAX_PLAYERS
            out[at + c * width + column] = 1.0
    at += L.NUM_CARDS * width
    if phase == L.PH_BATTLE:
        out[at + state[L.S_ATTACKER]] = 1.0
        out[at + n + state[L.S_DEFENDER]] = 1.0
        out[at + 2 * n] = state[L.S_TO_CALL] / chips
        out[at + 2 * n + 1] = state[L.S_RAISES] / float(max(1, cfg[L.C_MAX_RAISES]))
    at += 2 * n + NUM_BATTLE_FIELDS
    if phase == L.PH_DISCARD:
        out[at + state[L.S_DISC_KIND]] = 1.0
        out[at + 3] = (state[L.S_DISC_LAST] + 1) / float(L.NUM_CARDS)
        out[at + 4] = state[L.S_DISC_COUNT] / float(L.MAX_HELD_SOLDIERS)
    at += NUM_DISCARD_FIELDS
    turns = float(cfg[L.C_MAX_TURNS])
    out[at] = state[L.S_TURNS] / turns
    out[at + 1] = draw / float(L.NUM_CARDS)
    out[at + 2] = discard / float(L.NUM_CARDS)
    out[at + 3] = state[L.S_RESHUFFLES] / turns
    at += NUM_PILE_FIELDS
    if perfect_recall:
        raises = turns * max(1, cfg[L.C_MAX_RAISES])
        for q in range(n):
            for k in range(L.NUM_COUNTS):
                count = state[L.S_COUNTS + L.NUM_COUNTS * q + k]
                out[at + L.NUM_COUNTS * q + k] = count / (raises if k == L.NUM_COUNTS - 1 else turns)
