"""Poke kernels against the slow pure-Python referee of ``tests/poke_reference.py``."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from gamut.envs.poke import kernels as K
from gamut.envs.poke import rollout
from gamut.envs.poke import showdown
from gamut.envs.poke.game import FOLLOWS, MODES, TRICK_UNITS, check_params
from tests.poke_reference import RefPoke, poker_points, reply_beats


def _cfg(**params):
    p = check_params(params)
    return K.make_config(p["num_ranks"], p["num_suits"], p["hand_size"], MODES[p["mode"]],
                         TRICK_UNITS[p["trick_unit"]], p["max_deals"], FOLLOWS[p["follow"]])


@numba.njit(cache=True)
def _beats_batch(leads, follows, out):
    for i in range(leads.shape[0]):
        out[i] = K.beats(leads[i], follows[i])


@numba.njit(cache=True)
def _poker_batch(hands0, hands1, winners, points):
    for i in range(hands0.shape[0]):
        winners[i], points[i] = showdown.poker_winner(hands0[i], hands1[i])


def _random_card_sets(rng, n, size):
    """(n, 52) random permutations' first ``2*size`` cards, as two disjoint sets of ``size`` cards."""
    perm = np.argsort(rng.random((n, 52)), axis=1)
    return perm[:, :size], perm[:, size:2 * size]


def _masks(cards):
    return np.bitwise_or.reduce(np.left_shift(np.int64(1), cards), axis=1)


@pytest.mark.slow
def test_beats_matches_reference_on_random_plays():
    rng = np.random.default_rng(7)
    leads, follows = [], []
    for size in (1, 2, 3, 4):
        n = 30_000
        lead, follow = _random_card_sets(rng, n, size)
        # A lead is a single or a set of one rank; half the replies are sets of one rank too.
        lead_rank = rng.integers(0, 13, n)
        lead = 4 * lead_rank[:, None] + np.argsort(rng.random((n, 4)), axis=1)[:, :size]
        follow = np.where(np.isin(follow, lead).any(axis=1)[:, None], (lead + 4 * 7) % 52, follow)
        other_rank = rng.integers(0, 13, n)
        ok = rng.random(n) < 0.5
        swap = ok & (other_rank != lead_rank)
        follow[swap] = 4 * other_rank[swap, None] + np.argsort(rng.random((swap.sum(), 4)), axis=1)[:, :size]
        leads.append(_masks(lead))
        follows.append(_masks(follow))
    leads, follows = np.concatenate(leads), np.concatenate(follows)
    out = np.zeros(len(leads), dtype=np.bool_)
    _beats_batch(leads, follows, out)
    to_cards = lambda m: [c for c in range(52) if m >> c & 1]  # noqa: E731
    expected = np.array([reply_beats(to_cards(a), to_cards(b)) for a, b in zip(leads.tolist(), follows.tolist())])
    assert len(leads) >= 100_000
    assert out.sum() > 10_000 and (~out).sum() > 10_000
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("hand_size,num_ranks,num_suits", [(5, 13, 4), (4, 13, 4), (3, 4, 3), (2, 3, 2), (5, 5, 4)])
@pytest.mark.slow
def test_poker_comparison_matches_reference(hand_size, num_ranks, num_suits):
    rng = np.random.default_rng(hand_size)
    n = 25_000
    deck_cards = np.arange(52).reshape(13, 4)[13 - num_ranks:, :num_suits].ravel()
    perm = np.argsort(rng.random((n, len(deck_cards))), axis=1)
    cards = deck_cards[perm[:, :2 * hand_size]]
    h0, h1 = _masks(cards[:, :hand_size]), _masks(cards[:, hand_size:])
    winners = np.zeros(n, dtype=np.int64)
    points = np.zeros(n, dtype=np.int64)
    _poker_batch(h0, h1, winners, points)
    got = np.zeros((n, 2), dtype=np.int64)
    got[winners == 0, 0] = points[winners == 0]
    got[winners == 1, 1] = points[winners == 1]
    expected = np.array([poker_points(a, b) for a, b in zip(cards[:, :hand_size].tolist(),
                                                              cards[:, hand_size:].tolist())])
    np.testing.assert_array_equal(got, expected)


@numba.njit(cache=True)
def _bits_batch(masks, counts, lowest):
    for i in range(masks.shape[0]):
        counts[i] = K.popcount(masks[i])
        lowest[i] = K.lowest_card(masks[i]) if masks[i] else -1


def test_popcount_and_lowest_card_match_python():
    rng = np.random.default_rng(5)
    masks = rng.integers(0, 1 << 52, size=100_000) & rng.integers(0, 1 << 52, size=100_000)
    masks[:53] = [0] + [1 << b for b in range(52)]
    counts, lowest = np.empty_like(masks), np.empty_like(masks)
    _bits_batch(masks, counts, lowest)
    for m, n, low in zip(masks.tolist(), counts.tolist(), lowest.tolist()):
        assert n == bin(m).count("1") and low == ((m & -m).bit_length() - 1 if m else -1)


def test_slots_and_cards_are_inverse():
    rng = np.random.default_rng(3)
    for _ in range(2000):
        hand_cards = rng.choice(52, size=5, replace=False)
        hand = int(_masks(hand_cards[None])[0])
        slots = int(rng.integers(0, 32))
        cards = K.slots_to_cards(hand, slots)
        assert cards & ~hand == 0 and K.popcount(cards) == bin(slots).count("1")
        expected = sum(1 << int(c) for i, c in enumerate(sorted(hand_cards)) if slots >> i & 1)
        assert cards == expected and K.cards_to_slots(hand, cards) == slots


def _check_against_reference(params, num_matches, seed):
    p = check_params(params)
    cfg = _cfg(**params)
    rng = np.random.default_rng(seed)
    buf = np.empty(64, dtype=np.int64)
    steps = 0
    for _ in range(num_matches):
        st = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.init_state(st, cfg)
        ref = RefPoke(p["num_ranks"], p["num_suits"], p["hand_size"], p["mode"], p["trick_unit"],
                      p["max_deals"], p["trick_value"], p["follow"])
        while True:
            assert K.current_player(st) == ref.player()
            if K.current_player(st) == K.TERMINAL_PLAYER:
                break
            if K.current_player(st) == K.CHANCE_PLAYER:
                n = K.chance_outcomes(st, cfg, buf)
            else:
                n = K.legal_actions(st, cfg, buf)
            assert buf[:n].tolist() == ref.legal()
            action = int(buf[rng.integers(n)])
            K.apply_action(st, cfg, action)
            ref.apply(action)
            steps += 1
        out = np.zeros(2)
        K.returns(st, cfg, p["trick_value"], out)
        assert out.tolist() == ref.returns()
        assert st[K.S_ABOVE:K.S_ABOVE + 2].tolist() == ref.above
        assert st[K.S_GAMES:K.S_GAMES + 2].tolist() == ref.games
    return steps


@pytest.mark.parametrize("params,num_matches", [
    (dict(num_ranks=3, num_suits=2, hand_size=2, trick_value=0.5), 1500),
    (dict(num_ranks=3, num_suits=2, hand_size=2, follow="free"), 800),
    (dict(num_ranks=4, num_suits=3, hand_size=4, trick_unit="play"), 800),
    (dict(num_ranks=4, num_suits=3, hand_size=4, follow="free"), 400),
    (dict(num_ranks=2, num_suits=1, hand_size=1), 200),
    (dict(), 1200),
    (dict(follow="free"), 600),
])
@pytest.mark.slow
def test_random_deals_match_reference(params, num_matches):
    assert _check_against_reference(params, num_matches, seed=num_matches) >= 6 * num_matches


@pytest.mark.slow
def test_random_matches_match_reference_over_100k_steps():
    steps = _check_against_reference(dict(mode="rubber", max_deals=40), 150, seed=1)
    steps += _check_against_reference(dict(mode="game", num_ranks=4, num_suits=2, hand_size=3), 300, seed=2)
    steps += _check_against_reference(dict(), 1500, seed=3)
    assert steps >= 100_000


@pytest.mark.slow
def test_rollout_is_deterministic_in_its_seed():
    cfg = _cfg(mode="rubber", max_deals=30)
    finals = []
    for seed in (5, 5, 6):
        st = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.init_state(st, cfg)
        n = rollout.random_rollout(st, cfg, seed)
        assert st[K.S_PHASE] == K.PH_OVER and n > 0
        finals.append(st.copy())
    np.testing.assert_array_equal(finals[0], finals[1])
    assert not np.array_equal(finals[0], finals[2])


@pytest.mark.slow
def test_random_matches_mean_is_zero_sum_and_seeded():
    cfg = _cfg()
    a, b = np.zeros(2000), np.zeros(2000)
    steps = rollout.random_matches(cfg, 2000, 11, a)
    rollout.random_matches(cfg, 2000, 11, b)
    np.testing.assert_array_equal(a, b)
    assert steps > 2000 * 10 and np.any(a != 0)


def test_cards_of_lists_the_set_bits_in_ascending_order():
    rng = np.random.default_rng(5)
    out = np.empty(52, np.int64)
    for mask in [0, 1, (1 << 51) | 1, *(int(m) for m in rng.integers(0, 1 << 52, size=200))]:
        n = K.cards_of(np.int64(mask), out)
        assert out[:n].tolist() == [bit for bit in range(52) if (mask >> bit) & 1]
