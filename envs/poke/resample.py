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

import numba
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


@numba.njit(cache=True)
def rewind_deal(state, cfg, replay):
    """Write into ``replay`` the start of ``state``'s deal: its score sheet and dealer, the deal fields cleared."""
    replay[:] = state
    K.start_deal(replay, cfg, state[K.S_DEALER])
    replay[K.S_MOVES] = state[K.S_DEAL_START]
    replay[K.S_DEAL_START] = state[K.S_DEAL_START]


@numba.njit(cache=True)
def _replay_deal(st, cfg, player, deal_actions, dealt, drawn, num_drawn, discards, throw_offs, out, legal, replay):
    # The kernel of ``_deal_actions``: the assignment as arrays (see there), the actions into ``out`` and the
    # final position into ``replay``; 0 when a replayed play is illegal.
    opp = 1 - player
    rewind_deal(st, cfg, replay)
    base = np.int64(1) << cfg[K.C_HAND_SIZE]
    dealt_left = dealt.shape[0]
    drawn_left = num_drawn.copy()
    for i in range(deal_actions.shape[0]):
        action = deal_actions[i]
        phase = replay[K.S_PHASE]
        mover = K.current_player(replay)
        new = action
        if phase == K.PH_DEAL:
            k = replay[K.S_NUM_DEALT]
            recipient = 1 - replay[K.S_DEALER] if k % 2 == 0 else replay[K.S_DEALER]
            if recipient != player:
                dealt_left -= 1
                new = dealt[dealt_left]
        elif phase == K.PH_REPLACE:
            if replay[K.S_DRAWER] != player:
                d = replay[K.S_NDRAWS + opp] - 1
                drawn_left[d] -= 1
                new = drawn[d, drawn_left[d]]
        elif mover == opp and phase == K.PH_DRAW and action != K.STAND:
            new = K.cards_to_slots(replay[K.S_HAND + opp], discards[replay[K.S_NDRAWS + opp]])
        elif mover == opp and phase == K.PH_TRICK:
            t = replay[K.S_TRICK]
            if throw_offs[t] != 0 and replay[K.S_LEAD + t] != 0:
                cards = throw_offs[t]
            else:
                cards = K.slots_to_cards(st[K.S_HAND + opp], action - base)
            new = base + K.cards_to_slots(replay[K.S_HAND + opp], cards)
            n = K.legal_actions(replay, cfg, legal)
            found = False
            for j in range(n):
                if legal[j] == new:
                    found = True
                    break
            if not found:
                return 0
        out[i] = new
        K.apply_action(replay, cfg, new)
    return 1


def _deal_actions(game, deal_actions: list[int], st: np.ndarray, player: int,
                  assignment) -> tuple[list[int], np.ndarray] | None:
    """The current deal's actions with the opponent's cards replaced by ``assignment``, and the position they reach.

    None when one of the opponent's replayed plays is not legal for the kernels
    (under ``follow=must_beat``: a throw-off where the assigned cards could beat).
    The replay is compiled (``_replay_deal``); the assignment is passed as
    arrays: the dealt cards in dealing order (taken from the end), per draw
    ``k`` its drawn cards (taken from the end) and its discards as a card
    mask, and per trick the throw-off's card mask (0: none).
    """
    dealt, draws, throw_offs = assignment
    drawn = np.zeros((3, K.MAX_HAND_SIZE), dtype=np.int64)
    num_drawn = np.zeros(3, dtype=np.int64)
    discards = np.zeros(3, dtype=np.int64)
    for k, (discarded, cards) in enumerate(draws):
        drawn[k, :len(cards)] = cards
        num_drawn[k] = len(cards)
        discards[k] = _bits(discarded)
    throws = np.zeros(K.MAX_HAND_SIZE, dtype=np.int64)
    for t, cards in throw_offs.items():
        throws[t] = _bits(cards)
    actions = np.asarray(deal_actions, dtype=np.int64)
    out = np.empty_like(actions)
    legal = np.empty(2 << int(game.cfg[K.C_HAND_SIZE]), dtype=np.int64)
    final = np.empty_like(st)
    if not _replay_deal(st, game.cfg, player, actions, np.asarray(dealt, dtype=np.int64), drawn, num_drawn,
                        discards, throws, out, legal, final):
        return None
    return out.tolist(), final


def resampled_deal(game, st: np.ndarray, history: list[int], player: int,
                   probability_sampler) -> tuple[list[int], np.ndarray]:
    """The history and kernel array of a state of ``game`` that ``player`` cannot tell from ``st``.

    ``st`` (int64, ``(STATE_SIZE,)``) and ``history`` are a position and the
    actions that reached it; ``probability_sampler`` as in ``resample``. The
    array is the compiled replay's own, so a caller that can build a state
    from an array and a history (the search's ``DealState``) need not replay
    the history again. Where no consistent assignment is found in
    ``MAX_ATTEMPTS`` tries, and at the end of a game, the position itself is
    returned (a copy).
    """
    if player not in (0, 1):
        raise ValueError(f"player_id must be 0 or 1, got {player!r}")
    history = list(history)
    if st[K.S_PHASE] == K.PH_OVER:
        return history, st.copy()
    rng = np.random.default_rng(int(float(probability_sampler()) * 2**53))
    deal_actions = history[int(st[K.S_DEAL_START]):]
    for _ in range(MAX_ATTEMPTS):
        assignment = _hidden_assignment(st, game.cfg, player, rng)
        replayed = None if assignment is None else _deal_actions(game, deal_actions, st, player, assignment)
        if replayed is not None:
            actions, final = replayed
            return history[:len(history) - len(deal_actions)] + actions, final
    return history, st.copy()


def resample(state, player: int, probability_sampler):
    """A new state of ``state``'s game that ``player`` cannot tell apart from ``state``.

    ``probability_sampler()`` returns a float in [0, 1) (e.g.
    ``pyspiel.UniformProbabilitySampler``); it seeds the draw, so the same
    sampler output gives the same state.
    """
    game = state.get_game()
    history, _ = resampled_deal(game, state.state, state.history(), player, probability_sampler)
    fresh = game.new_initial_state()
    for action in history:
        fresh.apply_action(action)
    return fresh
