"""Poke action features: checked against a slow reference written from the rules, on random positions."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from gamut.envs.cards import deck
from gamut.envs.poke import kernels as K
from gamut.envs.poke.action_features import NUM_FEATURES, PokeFeatures
from gamut.envs.poke.encoding import mask_cards
from gamut.solvers.rl.features import action_features
from gamut.solvers.rl.networks import policy_input

from tests.chance import decision_positions
from tests.poke_reference import hand_key, reply_beats

CATEGORIES = ["high card", "one pair", "two pairs", "three of a kind", "straight", "flush", "full house",
              "four of a kind", "straight flush", "royal flush"]
# Five consecutive ranks (index 0 = deuce), the ace also low.
RUNS = [set(range(low, low + 5)) for low in range(9)] + [{12, 0, 1, 2, 3}]


def _trick_cards(st, recall: bool) -> tuple[set, set]:
    """(the mover's own cards it knows, the opponent's cards it has seen), the obvious way from the state."""
    p = K.current_player(st)
    mine = set(mask_cards(st[K.S_HAND + p]))
    seen = set()
    for t in range(st[K.S_TRICK] + 1):
        lead, follow = st[K.S_LEAD + t], st[K.S_FOLLOW + t]
        if lead == 0:
            break
        leader, winner = st[K.S_TRICK_LEADER + t], st[K.S_TRICK_WINNER + t]
        opp_cards = lead if leader != p else follow
        # The lead waiting on the table is in view; with recall, every lead was seen when it was played.
        if follow == 0 or (recall and leader != p):
            seen |= set(mask_cards(lead))
        if follow and winner != p:  # the opponent's won play lies face up
            seen |= set(mask_cards(opp_cards))
    if recall:
        mine |= set(mask_cards(st[K.S_DEALT + p]))
        for k in range(3):
            mine |= set(mask_cards(st[K.S_DRAWN + 3 * p + k]))
    return mine, seen


def _reference(game, st, legal: list[int], recall: bool) -> np.ndarray:
    """Features float32 ``(A, 44)`` of the mover's legal actions, written from the rules without the kernels."""
    h, num_ranks = int(game.cfg[K.C_HAND_SIZE]), int(game.cfg[K.C_NUM_RANKS])
    low = int(deck(num_ranks, int(game.cfg[K.C_NUM_SUITS]))[0]) >> 2
    p = K.current_player(st)
    hand = sorted(mask_cards(st[K.S_HAND + p]))
    played = set(mask_cards(st[K.S_PLAYED + p]))

    def rank(r):
        return (r - low + 1) / num_ranks

    def slots(m):
        return {hand[i] for i in range(len(hand)) if (m >> i) & 1}

    out = np.zeros((game.num_distinct_actions(), NUM_FEATURES), np.float32)
    base = 1 << h
    if st[K.S_PHASE] == K.PH_DRAW:
        draws = st[K.S_NDRAWS + p]
        for m in legal:
            disc = slots(m) if m else set()
            kept = set(hand) - disc
            counts = Counter(c >> 2 for c in kept)
            sets = [r for r, n in counts.items() if n >= 2]
            row = out[m]
            row[1 if m else 0] = 1
            row[3 + len(disc)] = 1
            row[7 + CATEGORIES.index(hand_key(kept)[1])] = 1
            row[17] = max(counts.values()) / 4
            row[18] = len(sets) / 2
            row[19] = max(Counter(c & 3 for c in kept).values()) / h
            row[20] = max(counts.values()) == 1 and any(set(counts) <= run for run in RUNS)
            row[21] = rank(max(counts))
            row[22] = rank(max(sets)) if sets else 0
            row[23] = rank(max(c >> 2 for c in disc)) if disc else 0
            # The non-dealer's draws double, then redouble; the dealer's first draw is free.
            after = draws + (1 if m else 0)
            doublings = max(after - 1, 0) if p == st[K.S_DEALER] else after
            row[24 + doublings] = 1
        return out
    lead = set(mask_cards(st[K.S_LEAD + st[K.S_TRICK]]))
    mine, seen = _trick_cards(st, recall)
    unseen = set(deck(num_ranks, int(game.cfg[K.C_NUM_SUITS])).tolist()) - mine - seen
    plays = {m: slots(m - base) for m in legal}
    for m, cards in plays.items():
        r, size = max(c >> 2 for c in cards), len(cards)  # a mixed throw-off: its best card
        same_size = [max(c >> 2 for c in other) for other in plays.values() if len(other) == size]
        left = set(hand) - played - cards
        row = out[m]
        row[2] = 1
        row[26 + size] = 1
        row[31] = rank(r)
        if lead:
            row[33 if reply_beats(lead, cards) else 34] = 1
            row[37] = (r - min(c >> 2 for c in lead)) / num_ranks
        else:
            row[32] = 1
        row[35] = r == min(same_size)
        row[36] = r == max(same_size)
        row[38] = sum(c >> 2 == r for c in left) / 3
        row[39] = rank(max(c >> 2 for c in left)) if left else 0
        row[40] = len(left) / h
        higher = [c for c in unseen if c >> 2 > r]
        row[42] = len(higher) / len(unseen) if unseen else 0
        if not lead:
            threats = [q for q, n in Counter(c >> 2 for c in higher).items() if n >= size]
            row[41] = len(threats) / num_ranks
            row[43] = not threats
    return out


@pytest.mark.parametrize("spec", ["poke", "poke(hand_size=3,num_ranks=6,num_suits=3)", "poke(follow=free)"])
@pytest.mark.parametrize("recall", [True, False])
def test_features_match_a_slow_reference_on_random_positions(spec, recall):
    game, states = decision_positions(spec, 60, seed=5, min_moves=6, max_moves=40)
    features = action_features(game)
    assert isinstance(features, PokeFeatures) and features.size == NUM_FEATURES and not features.one_hot
    kinds = Counter()
    for state in states:
        p = state.current_player()
        tensor = state.information_state_tensor(p) if recall else state.observation_tensor(p)
        x = policy_input(np.asarray(tensor, np.float32)[None], np.array([p]), 2)
        legal = state.legal_actions()
        mask = np.zeros((1, game.num_distinct_actions()), bool)
        mask[0, legal] = True
        got = features(x, mask)
        assert got.shape == (1, game.num_distinct_actions(), NUM_FEATURES) and got.dtype == np.float32
        expected = _reference(game, state.state, legal, recall)
        np.testing.assert_allclose(got[0], expected, atol=1e-6, err_msg=f"{spec}: {state}")
        kinds.update(np.flatnonzero(expected[:, :3].any(axis=0)).tolist())
        kinds.update(["follow"] if expected[:, 33:35].any() else [])
    # The positions cover standing, discarding, leading and following.
    assert kinds[0] and kinds[1] and kinds[2] and kinds["follow"]


def test_the_documented_example():
    # The opponent (P0) leads 9h; I (P1, the dealer) hold 4c 9d Jh Ks As; no draws were made.
    from gamut.envs.cards import parse_cards
    from gamut.envs.loading import load_game
    from gamut.envs.poke.tensors import piece_offsets, write_tensor

    game = load_game("poke(mode=deal)")
    lay = game.layout

    def mask(text):
        return int(np.bitwise_or.reduce(np.left_shift(np.int64(1), parse_cards(text))))

    st = np.zeros(K.STATE_SIZE, np.int64)
    st[K.S_PHASE], st[K.S_DEALER], st[K.S_LEADER], st[K.S_NUM_DEALT] = K.PH_TRICK, 1, 0, 10
    st[K.S_HAND] = st[K.S_DEALT] = mask("9h 2d 5s 6s 8c")
    st[K.S_HAND + 1] = st[K.S_DEALT + 1] = mask("4c 9d Jh Ks As")
    st[K.S_PLAYED] = st[K.S_LEAD] = mask("9h")
    st[K.S_TRICK_LEADER] = 0
    tensor = np.zeros(game.information_state_tensor_size(), np.float32)
    write_tensor(st, 1, lay.index, lay.num_cards, lay.hand_size, lay.score_maxima,
                 piece_offsets(lay.pieces(True, True)), tensor)
    legal = np.zeros(game.num_distinct_actions(), np.int64)
    legal = legal[:K.legal_actions(st, game.cfg, legal)]
    base = 32
    assert legal.tolist() == [base + 4, base + 8, base + 16]  # Jh, Ks, As: slots 2, 3, 4
    mask_ = np.zeros((1, 64), bool)
    mask_[0, legal] = True
    feats = action_features(game)(policy_input(tensor[None], np.array([1]), 2), mask_)[0]
    jack, ace = feats[base + 4], feats[base + 16]
    assert np.flatnonzero(jack).tolist() == [2, 27, 31, 33, 35, 37, 39, 40, 42]
    np.testing.assert_allclose(jack[[31, 37, 39, 40, 42]], [10 / 13, 2 / 13, 1.0, 4 / 5, 10 / 46], rtol=1e-6)
    assert ace[36] == 1 and ace[35] == 0 and ace[39] == pytest.approx(12 / 13)
    assert not feats[:base].any() and not feats[base + 1].any()


def test_the_return_scale():
    from gamut.envs.loading import load_game

    assert action_features(load_game("poke")).return_scale == pytest.approx(125.0)