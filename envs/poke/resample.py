"""Full Poke states consistent with one player's information (for ISMCTS and belief search).

``resample(state, player, probability_sampler)`` keeps everything the player
knows (their own cards, every public action and face-up card) and draws the
rest of the current deal afresh:

* the opponent's hidden cards now held or thrown off, and the cards the
  opponent discarded, are drawn without replacement from the cards the player
  has not seen; a throw-off is drawn among the cards that do not beat the lead
  it answered (a beating reply would have won and lain face up). Under
  ``follow=must_beat`` a throw-off also shows that the opponent could not beat
  at all: after a single throw-off over a lead of rank ``r``, every card the
  opponent still held then has rank ``r`` or lower, so its later hidden cards
  are drawn below that rank; an assignment whose replay is not legal for the
  kernels (a set the opponent could have beaten with) is drawn again;
* working backwards through the opponent's draws, the cards drawn at each draw
  are a random subset of the hand after it, and the hand before it gets that
  draw's discards; the hand before the first draw is the opponent's deal.

Finished deals of a game or rubber are kept as they were played: each deal
uses a fresh deck, so only their score (which the player knows) influences the
play from here on. The result is a state that gives the player the same
information state; it is a simple consistent sample, not the posterior under
any particular opponent policy.
"""

from __future__ import annotations

import numpy as np

from gamut.envs.poke import kernels as K
from gamut.envs.poke.encoding import mask_cards

# Random assignments tried before falling back to the actual cards of the deal;
# only positions with several set throw-offs over a nearly exhausted deck fail.
MAX_ATTEMPTS = 100
ACE = 12  # rank index (card id >> 2) of the highest rank: no cap


def _bits(cards) -> int:
    out = 0
    for c in cards:
        out |= 1 << int(c)
    return out


def _take(pool: list[int], n: int, rng: np.random.Generator) -> list[int]:
    """Remove and return ``n`` random cards of ``pool``."""
    picks = sorted(rng.choice(len(pool), size=n, replace=False).tolist(), reverse=True)
    return [pool.pop(i) for i in picks]


def _take_among(pool: list[int], among: list[int], n: int, rng: np.random.Generator) -> list[int]:
    """Remove and return ``n`` random cards of ``pool`` at the ascending positions ``among``."""
    picks = sorted(rng.choice(len(among), size=n, replace=False).tolist(), reverse=True)
    return [pool.pop(among[i]) for i in picks]


def _hidden_assignment(st: np.ndarray, cfg: np.ndarray, player: int, rng: np.random.Generator):
    """Random opponent cards for the current deal, or None when this attempt fails.

    Returns ``(dealt, draws, throw_offs)``: the opponent's dealt cards, per draw
    ``k`` the ``(discarded, drawn)`` card lists, and ``{trick: cards}`` of its throw-offs.
    """
    opp = 1 - player
    seen = int(st[K.S_DEALT + player])
    for k in range(3):
        seen |= int(st[K.S_DRAWN + 3 * player + k])
    known, throw_tricks = 0, []
    for t in range(K.MAX_HAND_SIZE):
        lead = int(st[K.S_LEAD + t])
        if lead == 0:
            break
        if st[K.S_TRICK_LEADER + t] == opp:
            known |= lead
        elif st[K.S_FOLLOW + t]:
            if st[K.S_TRICK_WINNER + t] == opp:
                known |= int(st[K.S_FOLLOW + t])
            else:
                throw_tricks.append(t)
    pool = mask_cards(int(cfg[K.C_DECK]) & ~seen & ~known)
    held = int(st[K.S_DEALT + opp]) if st[K.S_PHASE] == K.PH_DEAL else int(st[K.S_HAND + opp])
    must_beat = cfg[K.C_FOLLOW] == K.FOLLOW_MUST_BEAT
    # Highest rank a hidden card may have: after a single throw-off under must_beat,
    # every card the opponent still held has at most the rank of the lead it answered.
    caps = {}
    cap = ACE
    for t in sorted(throw_tricks):
        lead = int(st[K.S_LEAD + t])
        own = K.lowest_card(lead) >> 2 if K.popcount(lead) == 1 else ACE
        caps[t] = min(cap, own)
        if must_beat:
            cap = caps[t]
    throw_offs = {}
    # Most constrained first (lowest cap, singles before sets): the candidate sets of
    # single throw-offs are nested (cards of rank <= a cap), so this greedy order
    # cannot strand a later one.
    throw_tricks.sort(key=lambda t: (caps[t], K.popcount(st[K.S_LEAD + t]) > 1,
                                     K.lowest_card(st[K.S_LEAD + t]) >> 2))
    for t in throw_tricks:
        lead = int(st[K.S_LEAD + t])
        size = K.popcount(lead)
        low = [i for i, c in enumerate(pool) if c >> 2 <= caps[t]]
        if len(low) < size:
            return None
        if size == 1:
            throw_offs[t] = [pool.pop(low[int(rng.integers(len(low)))])]
            continue
        cards = _take_among(pool, low, size, rng)
        if K.beats(lead, _bits(cards)):
            return None
        throw_offs[t] = cards
    num_hidden = K.popcount(held) - K.popcount(known) - sum(len(v) for v in throw_offs.values())
    low = [i for i, c in enumerate(pool) if c >> 2 <= cap]
    if num_hidden > len(low):
        return None
    hand = mask_cards(known) + [c for v in throw_offs.values() for c in v] + _take_among(pool, low, num_hidden, rng)
    draws = []
    for k in reversed(range(int(st[K.S_NDRAWS + opp]))):
        num_discarded = K.popcount(st[K.S_DISC + 3 * opp + k])
        num_drawn = K.popcount(st[K.S_DRAWN + 3 * opp + k])
        if num_discarded > len(pool):
            return None
        drawn = [hand.pop(i) for i in sorted(rng.choice(len(hand), size=num_drawn, replace=False).tolist(),
                                               reverse=True)]
        discarded = _take(pool, num_discarded, rng)
        hand += discarded
        draws.append((discarded, rng.permutation(drawn).tolist()))
    draws.reverse()
    return rng.permutation(hand).tolist(), draws, throw_offs


def _deal_actions(game, deal_actions: list[int], st: np.ndarray, player: int, assignment) -> list[int] | None:
    """The current deal's actions with the opponent's cards replaced by ``assignment``.

    None when one of the opponent's replayed plays is not legal for the kernels
    (under ``follow=must_beat``: a throw-off where the assigned cards could beat).
    """
    cfg = game.cfg
    dealt, draws, throw_offs = assignment
    dealt, drawn_queue = list(dealt), [list(drawn) for _, drawn in draws]
    base = 1 << int(cfg[K.C_HAND_SIZE])
    legal = np.empty(2 * base, dtype=np.int64)
    replay = np.zeros(K.STATE_SIZE, dtype=np.int64)
    replay[:] = st
    # Rewind the deal: keep the score sheet and the dealer, clear the deal fields.
    K.start_deal(replay, cfg, st[K.S_DEALER])
    replay[K.S_MOVES] = st[K.S_DEAL_START]
    replay[K.S_DEAL_START] = st[K.S_DEAL_START]
    out = []
    for action in deal_actions:
        phase = replay[K.S_PHASE]
        mover = K.current_player(replay)
        new = action
        if phase == K.PH_DEAL:
            k = replay[K.S_NUM_DEALT]
            recipient = 1 - replay[K.S_DEALER] if k % 2 == 0 else replay[K.S_DEALER]
            if recipient != player:
                new = dealt.pop()
        elif phase == K.PH_REPLACE:
            drawer = replay[K.S_DRAWER]
            if drawer != player:
                new = drawn_queue[replay[K.S_NDRAWS + drawer] - 1].pop()
        elif mover != player and phase == K.PH_DRAW and action != K.STAND:
            discarded = draws[replay[K.S_NDRAWS + mover]][0]
            new = K.cards_to_slots(replay[K.S_HAND + mover], _bits(discarded))
        elif mover != player and phase == K.PH_TRICK:
            t = replay[K.S_TRICK]
            if t in throw_offs and replay[K.S_LEAD + t] != 0:
                cards = _bits(throw_offs[t])
            else:
                cards = K.slots_to_cards(st[K.S_HAND + mover], action - base)
            new = base + K.cards_to_slots(replay[K.S_HAND + mover], cards)
            if new not in legal[:K.legal_actions(replay, cfg, legal)]:
                return None
        out.append(int(new))
        K.apply_action(replay, cfg, int(new))
    return out


def resample(state, player: int, probability_sampler):
    """A new state of ``state``'s game that ``player`` cannot tell apart from ``state``.

    ``probability_sampler()`` returns a float in [0, 1) (e.g.
    ``pyspiel.UniformProbabilitySampler``); it seeds the draw, so the same
    sampler output gives the same state.
    """
    if player not in (0, 1):
        raise ValueError(f"player_id must be 0 or 1, got {player!r}")
    game = state.get_game()
    rng = np.random.default_rng(int(float(probability_sampler()) * 2**53))
    st = state.state
    history = state.history()
    start = int(st[K.S_DEAL_START])
    deal_actions = history[start:]
    if st[K.S_PHASE] == K.PH_OVER:
        deal_actions = []
    new_deal = deal_actions
    for _ in range(MAX_ATTEMPTS):
        assignment = _hidden_assignment(st, game.cfg, player, rng)
        replayed = None if assignment is None else _deal_actions(game, deal_actions, st, player, assignment)
        if replayed is not None:
            new_deal = replayed
            break
    fresh = game.new_initial_state()
    for action in history[:len(history) - len(deal_actions)] + new_deal:
        fresh.apply_action(action)
    return fresh
