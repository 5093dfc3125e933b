"""Full Poke states consistent with one player's information (for ISMCTS and belief search).

``resample(state, player, probability_sampler)`` keeps everything the player
knows (their own cards, every public action and face-up card) and draws the
rest of the current deal afresh:

* the opponent's hidden cards now held or thrown off, and the cards the
  opponent discarded, are drawn without replacement from the cards the player
  has not seen; a throw-off is drawn among the cards that do not beat the lead
  it answered (a beating reply would have won and lain face up);
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


def _bits(cards) -> int:
    out = 0
    for c in cards:
        out |= 1 << int(c)
    return out


def _take(pool: list[int], n: int, rng: np.random.Generator) -> list[int]:
    """Remove and return ``n`` random cards of ``pool``."""
    picks = sorted(rng.choice(len(pool), size=n, replace=False).tolist(), reverse=True)
    return [pool.pop(i) for i in picks]


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
    throw_offs = {}
    # Single throw-offs first, lowest lead first: their candidate sets are nested
    # (cards of rank <= the lead), so this greedy order cannot strand a later one.
    throw_tricks.sort(key=lambda t: (K.popcount(st[K.S_LEAD + t]) > 1, K.lowest_card(st[K.S_LEAD + t]) >> 2))
    for t in throw_tricks:
        lead = int(st[K.S_LEAD + t])
        size = K.popcount(lead)
        if size == 1:
            lead_rank = K.lowest_card(lead) >> 2
            low = [i for i, c in enumerate(pool) if c >> 2 <= lead_rank]
            if not low:
                return None
            throw_offs[t] = [pool.pop(low[int(rng.integers(len(low)))])]
            continue
        if len(pool) < size:
            return None
        cards = _take(pool, size, rng)
        if K.beats(lead, _bits(cards)):
            return None
        throw_offs[t] = cards
    num_hidden = K.popcount(held) - K.popcount(known) - sum(len(v) for v in throw_offs.values())
    if num_hidden > len(pool):
        return None
    hand = mask_cards(known) + [c for v in throw_offs.values() for c in v] + _take(pool, num_hidden, rng)
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


def _deal_actions(game, deal_actions: list[int], st: np.ndarray, player: int, assignment) -> list[int]:
    """The current deal's actions with the opponent's cards replaced by ``assignment``."""
    cfg = game.cfg
    dealt, draws, throw_offs = assignment
    dealt, drawn_queue = list(dealt), [list(drawn) for _, drawn in draws]
    base = 1 << int(cfg[K.C_HAND_SIZE])
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
        if assignment is not None:
            new_deal = _deal_actions(game, deal_actions, st, player, assignment)
            break
    fresh = game.new_initial_state()
    for action in history[:len(history) - len(deal_actions)] + new_deal:
        fresh.apply_action(action)
    return fresh
