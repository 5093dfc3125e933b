"""The Poke heuristic's kernels against slow, obvious references on >= 100,000 random cases."""

import numpy as np
import pytest

from gamut.envs import hands
from gamut.solvers.poke import heuristic as H

N = 100_000


def _random_masks(rng, num_cards, size, n):
    """``n`` random masks of ``size`` distinct cards from card ids ``0..num_cards-1``, vectorised."""
    picks = np.argsort(rng.random((n, num_cards)), axis=1)[:, :size]
    return (np.int64(1) << picks).sum(axis=1)


def _cards(mask):
    return [c for c in range(52) if (int(mask) >> c) & 1]


def _category(mask):
    cards = _cards(mask)
    padded = np.array([cards + [-1] * (5 - len(cards))])
    return int(hands.categories(hands.best_strengths(padded, check=False))[0])


def _reference_discard(mask, max_discard):
    cards = _cards(mask)
    if max_discard <= 0 or _category(mask) >= hands.STRAIGHT:
        return 0
    ranks = [c >> 2 for c in cards]
    keep = [c for c in cards if ranks.count(c >> 2) >= 2]
    if not keep and len(cards) == 5:
        for s in range(4):
            suited = [c for c in cards if c & 3 == s]
            if len(suited) == 4:
                keep = suited
    if not keep:
        keep = cards[min(max_discard, len(cards) - 1):]
    rest = [c for c in cards if c not in keep][:max_discard]
    return sum(1 << c for c in rest)


@pytest.mark.slow
def test_discard_cards_matches_the_reference_on_random_hands():
    rng = np.random.default_rng(1)
    sizes = rng.integers(1, 6, N)
    limits = rng.integers(0, 4, N)
    masks = np.concatenate([_random_masks(rng, 52, s, int((sizes == s).sum())) for s in range(1, 6)])
    sizes = np.concatenate([np.full(int((sizes == s).sum()), s) for s in range(1, 6)])
    # Categories come from the shared batch evaluator once (the slow part of the reference).
    padded = np.full((N, 5), -1, dtype=np.int64)
    for i, m in enumerate(masks):
        cs = _cards(m)
        padded[i, :len(cs)] = cs
    categories = hands.categories(hands.best_strengths(padded, check=False))
    made = 0
    for i in range(N):
        mask, limit = int(masks[i]), int(limits[i])
        if categories[i] >= hands.STRAIGHT:
            made += 1
            assert H.discard_cards(mask, limit) == 0
            continue
        assert H.discard_cards(mask, limit) == _reference_discard(mask, limit), (_cards(mask), limit)
    assert made > 0


def _reference_lead(free):
    cards = _cards(free)
    groups = {}
    for c in cards:
        groups.setdefault(c >> 2, []).append(c)
    sets = [(len(g), r) for r, g in groups.items() if len(g) >= 2]
    if not sets:
        return 1 << max(cards)
    _, rank = max(sets)
    return sum(1 << c for c in groups[rank])


def _reference_follow(free, lead):
    size = bin(lead).count("1")
    lead_rank = _cards(lead)[0] >> 2
    cards = _cards(free)
    for rank in range(lead_rank + 1, 13):
        same = [c for c in cards if c >> 2 == rank]
        if len(same) >= size:
            return sum(1 << c for c in same[:size])
    return sum(1 << c for c in cards[:size])


@pytest.mark.slow
def test_trick_choices_match_the_reference_on_random_positions():
    rng = np.random.default_rng(2)
    sizes = rng.integers(1, 6, N)
    free = np.concatenate([_random_masks(rng, 52, s, int((sizes == s).sum())) for s in range(1, 6)])
    lead_ranks = rng.integers(0, 13, N)
    lead_sizes = rng.integers(1, 5, N)
    for i in range(N):
        f = int(free[i])
        assert H._lead_cards(f) == _reference_lead(f)
        size = min(int(lead_sizes[i]), bin(f).count("1"))
        lead = sum(1 << (4 * int(lead_ranks[i]) + s) for s in range(size))
        assert H._follow_cards(f, lead) == _reference_follow(f, lead)


def test_thresholds_decide_whether_to_draw():
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.envs.cards import parse_card
    from gamut.envs.poke import kernels as K

    game = pyspiel.load_game("poke")
    state = game.new_initial_state()
    # Non-dealer (seat 0) gets 7c 7d 9h Ks As; the dealer five other cards.
    for name in ["7c", "2c", "7d", "3d", "9h", "4h", "Ks", "5s", "As", "8c"]:
        state.apply_action(parse_card(name))
    st = state.state
    assert H.heuristic_action(st, game.cfg, H.make_params()) == 0b11100  # pair < 2: draw three
    assert H.heuristic_action(st, game.cfg, H.make_params(double_below=1)) == K.STAND
    assert H.draw_stage(st) == 0


def test_make_params_checks_names_and_values():
    assert H.make_params().tolist() == list(H.DEFAULT_PARAMS)
    with pytest.raises(ValueError, match="unknown heuristic threshold"):
        H.make_params(bogus=1)
    with pytest.raises(ValueError, match="must be an integer"):
        H.make_params(free_below=11)
