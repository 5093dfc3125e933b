"""Poker Squares search: candidate cells, two-ply expectimax against a plain reference, agents."""

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401
from gamut.envs.hands import HAND_TABLE
from gamut.envs.rng import rng_state
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.bots import make_bot
from gamut.solvers.poker_squares import crossline as X
from gamut.solvers.poker_squares import learned as L
from gamut.solvers.poker_squares import search as S
from gamut.solvers.poker_squares.evaluation import deals, evaluate
from gamut.solvers.poker_squares.training import table_path
from gamut.solvers.stats import paired_diff_ci
from tests.squares_states import dealt_state, reference_features

AMERICAN = (0, 2, 5, 10, 15, 20, 25, 50, 75, 100)


def _reference_candidates(grid):
    empty_rows = [r for r in range(5) if all(grid[5 * r + c] < 0 for c in range(5))]
    empty_cols = [c for c in range(5) if all(grid[5 * r + c] < 0 for r in range(5))]
    return [cell for cell in range(25) if grid[cell] < 0
            and (cell // 5 not in empty_rows or cell // 5 == empty_rows[0])
            and (cell % 5 not in empty_cols or cell % 5 == empty_cols[0])]


def test_candidate_cells_match_the_reference():
    rng = np.random.default_rng(1)
    out = np.empty(25, dtype=np.int64)
    for _ in range(3000):
        st = np.full(K.STATE_SIZE, -1, dtype=np.int64)
        k = rng.integers(0, 25)
        st[rng.choice(25, size=k, replace=False)] = rng.choice(52, size=k, replace=False)
        n = S.candidate_cells(st, 0, out)
        assert list(out[:n]) == _reference_candidates(st[:25])
    assert S.candidate_cells(np.full(K.STATE_SIZE, -1, dtype=np.int64), 0, out) == 1


def _reference_value(after, levels, cfg, values, used=(), weights=None):
    """Plain unpruned expectimax value of ``after``: the next card from ``levels[0]`` (less ``used``) goes to
    its best cell, valued by the same rule over ``levels[1:]``; the last level by the learned grid value, plus
    the cross-line correction of ``weights`` (counted from its definition) if given."""
    if after[K.S_NUM_PLACED] == 25:
        return K.grid_score(after, 0, cfg, HAND_TABLE)
    total, cards = 0.0, [c for c in levels[0] if c not in used]
    for card in cards:
        best = -np.inf
        for e in np.flatnonzero(after[:25] < 0):
            nxt = after.copy()
            nxt[e] = card
            nxt[K.S_NUM_PLACED] += 1
            if len(levels) == 1:
                leaf = L.grid_value(nxt, 0, cfg, HAND_TABLE, values)
                placed = nxt[K.S_NUM_PLACED]
                if weights is not None and placed < 25:
                    leaf += weights[placed] @ reference_features(nxt[:25], nxt[:25][nxt[:25] >= 0])
                best = max(best, leaf)
            else:
                best = max(best, _reference_value(nxt, levels[1:], cfg, values, used + (card,), weights))
        total += best
    return total / len(cards)


def test_expectimax_matches_a_plain_two_ply_reference():
    values = np.random.default_rng(2).normal(size=L.NUM_KEYS)
    cfg = K.make_config(1, False, False, AMERICAN)
    rng = np.random.default_rng(3)
    for placed in (3, 12, 23, 24):
        deal = rng.permutation(52)[:25]
        st = dealt_state(deal, list(rng.permutation(25)[:placed]))
        cands = np.array([c for c in range(25) if st[c] < 0], dtype=np.int64)
        got = S.expectimax_values(st, 0, cfg, HAND_TABLE, values, cands)
        unseen = [c for c in range(52) if c not in set(deal[:placed + 1])]
        for i, cell in enumerate(cands):
            after = st.copy()
            K.place_card(after, 0, int(cell))
            if placed == 24:
                assert got[i] == K.grid_score(after, 0, cfg, HAND_TABLE)
                continue
            assert got[i] == pytest.approx(_reference_value(after, [unseen], cfg, values))


@pytest.mark.parametrize("depth, placed, known", [(3, 20, 0), (3, 21, 1), (3, 19, 2), (3, 22, 0), (3, 23, 0),
                                                  (4, 21, 0), (4, 20, 2), (4, 22, 0), (4, 23, 0)])
@pytest.mark.slow
def test_deep_expectimax_matches_a_plain_reference(depth, placed, known):
    """Unpruned three and four plies against the definition; ``known`` of the next cards are already dealt."""
    values = np.random.default_rng(5).normal(size=L.NUM_KEYS)
    cfg = K.make_config(1, False, False, AMERICAN)
    rng = np.random.default_rng(placed)
    deal = rng.permutation(52)[:25]
    st = dealt_state(deal, list(rng.permutation(25)[:placed]))
    for i in range(known):
        K.deal_card(st, deal[placed + 1 + i])
    cands = np.array([c for c in range(25) if st[c] < 0][:2 if depth == 4 else 25], dtype=np.int64)
    got = S.expectimax_values(st, 0, cfg, HAND_TABLE, values, cands, depth=depth, width=25)
    unseen = [c for c in range(52) if c not in set(deal[:placed + 1 + known])]
    levels = [[int(deal[placed + 1 + i])] if i < known else unseen for i in range(depth - 1)]
    want = []
    for cell in cands:
        after = st.copy()
        K.place_card(after, 0, int(cell))
        want.append(_reference_value(after, levels, cfg, values))
    assert got == pytest.approx(want)


@pytest.mark.parametrize("depth, placed", [(2, 14), (2, 22), (3, 21)])
@pytest.mark.slow
def test_expectimax_with_the_cross_line_correction_matches_the_reference(depth, placed):
    values = np.random.default_rng(10).normal(size=L.NUM_KEYS)
    weights = np.random.default_rng(11).normal(size=(X.NUM_PLACED, X.NUM_FEATURES))
    cfg = K.make_config(1, False, False, AMERICAN)
    rng = np.random.default_rng(placed)
    deal = rng.permutation(52)[:25]
    st = dealt_state(deal, list(rng.permutation(25)[:placed]))
    cands = np.array([c for c in range(25) if st[c] < 0][:3], dtype=np.int64)
    got = S.expectimax_values(st, 0, cfg, HAND_TABLE, values, cands, depth, 25, weights=weights)
    unseen = [c for c in range(52) if c not in set(deal[:placed + 1])]
    want = []
    for cell in cands:
        after = st.copy()
        K.place_card(after, 0, int(cell))
        want.append(_reference_value(after, [unseen] * (depth - 1), cfg, values, weights=weights))
    assert got == pytest.approx(want)
    plain = S.expectimax_values(st, 0, cfg, HAND_TABLE, values, cands, depth, 25)
    assert not np.allclose(got, plain)
    with pytest.raises(ValueError, match="weights must be float64"):
        S.expectimax_values(st, 0, cfg, HAND_TABLE, values, cands, weights=np.zeros((26, 5)))


@pytest.mark.slow
def test_deep_values_grow_with_the_width():
    """Each next card's best cell is taken over more cells as the width grows, so no value can fall."""
    values = np.random.default_rng(6).normal(size=L.NUM_KEYS)
    cfg = K.make_config(1, False, False, AMERICAN)
    rng = np.random.default_rng(7)
    st = dealt_state(rng.permutation(52)[:25], list(rng.permutation(25)[:14]))
    cands = np.array([c for c in range(25) if st[c] < 0][:4], dtype=np.int64)
    for depth in (3, 4):
        by_width = [S.expectimax_values(st, 0, cfg, HAND_TABLE, values, cands[:2], depth, w) for w in (1, 2, 4)]
        for low, high in zip(by_width, by_width[1:]):
            assert np.all(high >= low - 1e-9)
        assert np.any(by_width[-1] > by_width[0] + 1e-9)
    with pytest.raises(ValueError, match="depth must be 2, 3 or 4"):
        S.expectimax_values(st, 0, cfg, HAND_TABLE, values, cands, depth=5)


@pytest.mark.parametrize("depth", [2, 3, 4])
@pytest.mark.slow
def test_expectimax_over_batches_of_next_cards_averages_to_the_exact_values(depth):
    """The time-budgeted agent weighs batch means by batch size: all batches together give the exact values."""
    values = np.random.default_rng(8).normal(size=L.NUM_KEYS)
    cfg = K.make_config(1, False, False, AMERICAN)
    rng = np.random.default_rng(9)
    st = dealt_state(rng.permutation(52)[:25], list(rng.permutation(25)[:17]))
    cands = np.array([c for c in range(25) if st[c] < 0], dtype=np.int64)
    exact = S.expectimax_values(st, 0, cfg, HAND_TABLE, values, cands, depth, 2)
    first = rng.permutation(S.next_cards(st, 0))
    assert len(first) == 52 - 18
    total = sum(len(b) * S.expectimax_values(st, 0, cfg, HAND_TABLE, values, cands, depth, 2, b)
                for b in np.array_split(first, 5))
    assert total / len(first) == pytest.approx(exact)
    with pytest.raises(ValueError, match="at least one next card"):
        S.expectimax_values(st, 0, cfg, HAND_TABLE, values, cands, depth, 2, first[:0])


def test_mc_batch_is_seeded_and_scores_every_candidate_on_the_same_cards():
    cfg = K.make_config(1, False, False, AMERICAN)
    st = dealt_state(np.random.default_rng(4).permutation(52)[:25], [0, 6, 12, 18, 24, 1, 7, 13, 19, 20])
    cands = np.array([c for c in range(25) if st[c] < 0], dtype=np.int64)
    sums = [np.zeros(len(cands)) for _ in range(2)]
    for s in sums:
        S.mc_batch(st, 0, cfg, HAND_TABLE, np.zeros(1), cands, 30, rng_state(7), S.POLICY_GREEDY, -1, s)
    assert np.array_equal(sums[0], sums[1]) and np.all(sums[0] >= 0)
    # Full rollouts score whole grids: every sum is a sum of 30 integer scores.
    assert np.all(sums[0] == np.round(sums[0]))


@pytest.fixture(scope="module")
def small_table(tmp_path_factory):
    cfg = K.make_config(1, False, False, AMERICAN)
    values, visits = np.zeros(L.NUM_KEYS), np.zeros(L.NUM_KEYS, dtype=np.int64)
    L.train_games(values, visits, cfg, 20_000, 1, 0.5, 0.0, 0, 20_000)
    path = tmp_path_factory.mktemp("squares") / "values.npz"
    np.savez(path, version=L.TABLE_VERSION, values=values, points=np.array(AMERICAN))
    return str(path)


@pytest.mark.slow
def test_search_agents_beat_greedy_on_the_same_deals(small_table):
    game = pyspiel.load_game("poker_squares")
    the_deals = deals(11, 60)
    greedy = evaluate(game, make_bot(game, "greedy", seed=1), the_deals)["scores"]
    for name, opts in (("expectimax", {}), ("mc", {"simulations": 8, "policy": "learned", "depth": 3})):
        scores = evaluate(game, make_bot(game, name, seed=1, table=small_table, **opts), the_deals)["scores"]
        assert paired_diff_ci(scores, greedy).ci95_low > 0, name


def test_expectimax_time_budget_per_game_is_kept(small_table):
    game = pyspiel.load_game("poker_squares")
    bot = make_bot(game, "expectimax", seed=2, table=small_table, depth=3, keep=4, seconds_per_game=0.4)
    evaluate(game, bot, deals(13, 1))  # compiles the kernels outside the measured games
    result = evaluate(game, bot, deals(13, 3))
    assert np.all(result["seconds"] < 0.8) and np.all(result["scores"] >= 0)
    with pytest.raises(ValueError, match="depth 2, 3 or 4"):
        make_bot(game, "expectimax", seed=2, table=small_table, depth=1)
    with pytest.raises(ValueError, match="deepen_at in 0..25"):
        make_bot(game, "expectimax", seed=2, table=small_table, depth=3, deepen_at=26)


@pytest.mark.slow
def test_expectimax_searches_one_ply_less_before_deepen_at(small_table):
    """Three plies from 25 cards on (never) play as two plies; deepening late changes only late moves."""
    game = pyspiel.load_game("poker_squares")
    the_deals = deals(15, 4)
    two = evaluate(game, make_bot(game, "expectimax", seed=1, table=small_table), the_deals)["grids"]
    never = make_bot(game, "expectimax", seed=1, table=small_table, depth=3, deepen_at=25)
    assert np.array_equal(evaluate(game, never, the_deals)["grids"], two)
    late = make_bot(game, "expectimax", seed=1, table=small_table, depth=4, width=2, keep=3, deepen_at=21)
    grids = evaluate(game, late, the_deals)["grids"]
    assert np.all(np.sort(grids, axis=1) == np.sort(the_deals, axis=1))


@pytest.mark.parametrize("share", ["even", "cells"])
@pytest.mark.slow
def test_mc_time_budget_per_game_is_kept(small_table, share):
    game = pyspiel.load_game("poker_squares")
    bot = make_bot(game, "mc", seed=2, table=small_table, policy="learned", seconds_per_game=0.5, share=share,
                   keep=4)
    result = evaluate(game, bot, deals(12, 3))
    assert np.all(result["seconds"] < 1.0) and np.all(result["scores"] >= 0)


@pytest.mark.slow
def test_mc_blending_in_only_three_plies_plays_as_expectimax_deep(small_table):
    game = pyspiel.load_game("poker_squares")
    the_deals = deals(16, 3)
    ours = evaluate(game, make_bot(game, "mc_learned", seed=3, table=small_table, seconds_per_game=0,
                                   simulations=1, blend=1.0), the_deals)
    ref = evaluate(game, make_bot(game, "expectimax_deep", seed=3, table=small_table), the_deals)
    assert np.array_equal(ours["grids"], ref["grids"])
    with pytest.raises(ValueError, match="blend must be in"):
        make_bot(game, "mc_learned", seed=3, table=small_table, blend=1.5)


def test_mc_keeping_one_cell_plays_the_expectimax_cell(small_table):
    game = pyspiel.load_game("poker_squares")
    the_deals = deals(14, 5)
    ours = evaluate(game, make_bot(game, "mc", seed=3, table=small_table, simulations=1, keep=1), the_deals)
    ref = evaluate(game, make_bot(game, "expectimax", seed=3, table=small_table), the_deals)
    assert np.array_equal(ours["grids"], ref["grids"])
    with pytest.raises(ValueError, match="share"):
        make_bot(game, "mc", seed=3, table=small_table, share="uneven")


def test_agents_play_any_point_system_and_two_player_games(small_table):
    game = pyspiel.load_game("poker_squares", {"scoring": "0,-1,3,6,12,-5,10,16,30,30", "players": 2,
                                               "variant": "open"})
    bots = [make_bot(game, "mc", player=p, seed=p, simulations=2) for p in range(2)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
    assert returns[0] == -returns[1]


def test_cross_line_agents_play_with_a_correction_fitted_on_their_table(small_table, tmp_path):
    weights = tmp_path / "crossline.npz"
    X.fit_rounds(AMERICAN, rounds=1, games=40, seed=1, table=small_table, path=weights)
    game = pyspiel.load_game("poker_squares")
    the_deals = deals(17, 3)
    greedy = evaluate(game, make_bot(game, "crossline", seed=1, table=small_table, weights=str(weights)), the_deals)
    assert np.all(np.sort(greedy["grids"], axis=1) == np.sort(the_deals, axis=1))
    two = pyspiel.load_game("poker_squares", {"players": 2, "variant": "open"})
    bots = [make_bot(two, "expectimax_cross", player=p, seed=p, table=small_table, weights=str(weights))
            for p in range(2)]
    returns = pyspiel.evaluate_bots(two.new_initial_state(), bots, 3)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
    # The committed correction belongs to the committed table, not to this one: refused, saying why.
    with pytest.raises(ValueError, match="another learned table"):
        make_bot(game, "expectimax", seed=1, table=small_table, crossline=True)
    with pytest.raises(ValueError, match="needs crossline=true"):
        make_bot(game, "expectimax", seed=1, table=small_table, weights=str(weights))
    with pytest.raises(ValueError, match="crossline corrects the learned values"):
        make_bot(game, "mc", seed=1, crossline=True)
    mc = make_bot(game, "mc_cross", seed=1, table=small_table, weights=str(weights), seconds_per_game=0,
                  simulations=2)
    assert np.all(np.sort(evaluate(game, mc, deals(17, 1))["grids"], axis=1) == np.sort(the_deals[:1], axis=1))


def test_committed_tables_give_a_strong_greedy_player():
    game = pyspiel.load_game("poker_squares")
    if not table_path(AMERICAN).exists():
        pytest.fail(f"the learned American table {table_path(AMERICAN)} is missing")
    the_deals = deals(13, 200)
    learned = evaluate(game, make_bot(game, "learned", seed=1), the_deals)["scores"]
    greedy = evaluate(game, make_bot(game, "greedy", seed=1), the_deals)["scores"]
    assert learned.mean() > 95 and paired_diff_ci(learned, greedy).ci95_low > 20
