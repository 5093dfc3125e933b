"""Best-response draw tables, the draw-phase equilibrium, and one-deal agents seated in rubbers."""

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers poke)
from gamut.envs.poke import kernels as K
from gamut.solvers.poke.best_response import (CellStats, improve, refine_against_bots, response_samples,
                                              threshold_table)
from gamut.solvers.poke.deal_agents import PerDealBot
from gamut.solvers.poke.draw_equilibrium import deal_sheets, mccfr_draw_table
from gamut.solvers.poke.draw_table import (NUM_CELLS, SeatArrays, draw_cell, keep_rule_draw, seat_action,
                                           stack_seats)
from gamut.solvers.poke.heuristic import HeuristicBot, make_params
from gamut.solvers.poke.match import deal_order, match_seeds, next_card, play_pyspiel
from gamut.solvers.poke.response_study import parse_agent

RUBBER = "poke(mode=rubber)"


def _play(state, cfg, arrays, key):
    """Play a kernel state to the end of its rubber in Python: deals from ``deal_order(cfg, key, deal)``."""
    while state[K.S_PHASE] != K.PH_OVER:
        p = K.current_player(state)
        if p < 0:
            order = deal_order(cfg, key, int(state[K.S_DEALS_DONE]))
            K.apply_action(state, cfg, next_card(state, cfg, order, len(order)))
        else:
            K.apply_action(state, cfg, seat_action(state, cfg, p, *arrays, np.uint64(key)))


def _reference_samples(cfg, table, opponent, key):
    """Draw-minus-stand sums per cell from one rubber and both seatings, branched in plain Python."""
    count, total = np.zeros(NUM_CELLS, dtype=np.int64), np.zeros(NUM_CELLS)
    mine = SeatArrays.draw_table(table)
    for s in range(2):
        arrays = stack_seats(mine, opponent) if s == 0 else stack_seats(opponent, mine)
        state = np.empty(K.STATE_SIZE, dtype=np.int64)
        K.init_state(state, cfg)
        while state[K.S_PHASE] != K.PH_OVER:
            p = K.current_player(state)
            if p < 0:
                order = deal_order(cfg, key, int(state[K.S_DEALS_DONE]))
                K.apply_action(state, cfg, next_card(state, cfg, order, len(order)))
                continue
            if p == s and state[K.S_PHASE] == K.PH_DRAW and draw_cell(state, cfg) >= 0:
                values = []
                for option in (K.STAND, keep_rule_draw(state, cfg)):
                    branch = state.copy()
                    K.apply_action(branch, cfg, option)
                    _play(branch, cfg, arrays, key)
                    values.append(branch[K.S_ABOVE + s] - branch[K.S_ABOVE + 1 - s])
                cell = draw_cell(state, cfg)
                count[cell] += 1
                total[cell] += values[1] - values[0]
            K.apply_action(state, cfg, seat_action(state, cfg, p, *arrays, np.uint64(key)))
    return count, total


def test_response_samples_equal_branches_played_in_python():
    cfg = pyspiel.load_game(RUBBER).cfg
    table = threshold_table(make_params(double_below=0))
    opponent = SeatArrays.threshold(make_params())
    seeds = match_seeds(11, 2)
    count, total, squares = response_samples(cfg, table, opponent, seeds)
    expected_count, expected_total = np.zeros(NUM_CELLS, dtype=np.int64), np.zeros(NUM_CELLS)
    for key in seeds:
        c, t = _reference_samples(cfg, table, opponent, int(key))
        expected_count += c
        expected_total += t
    assert count.sum() > 10
    assert np.array_equal(count, expected_count)
    assert np.allclose(total, expected_total)
    assert np.all(squares >= total**2 / np.maximum(count, 1) - 1e-6)


def test_improve_changes_only_the_cells_whose_sign_is_clear():
    table = np.zeros(NUM_CELLS)
    count = np.zeros(NUM_CELLS, dtype=np.int64)
    total, squares = np.zeros(NUM_CELLS), np.zeros(NUM_CELLS)
    # Cell 0: ten samples of +5 +- 1 (clear, draw); cell 1: +-10 around +1 (unclear); cell 2: one sample.
    for cell, samples in ((0, [4, 6] * 5), (1, [11, -9] * 5), (2, [50])):
        count[cell], total[cell], squares[cell] = len(samples), sum(samples), sum(x * x for x in samples)
    table[1] = 1.0
    out = improve(table, CellStats(count, total, squares))
    assert out[0] == 1.0 and out[1] == 1.0 and out[2] == 0.0
    assert np.array_equal(out[3:], table[3:])


def test_best_response_samples_are_reproducible_and_refuse_deal_mode():
    cfg = pyspiel.load_game(RUBBER).cfg
    table = threshold_table(make_params())
    first = response_samples(cfg, table, SeatArrays.threshold(make_params()), match_seeds(5, 3))
    again = response_samples(cfg, table, SeatArrays.threshold(make_params()), match_seeds(5, 3))
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    with pytest.raises(ValueError, match="mode=rubber"):
        response_samples(pyspiel.load_game("poke").cfg, table, SeatArrays.threshold(make_params()), [1])


def test_refining_against_a_pyspiel_agent_keeps_unclear_rows_and_is_reproducible():
    game = pyspiel.load_game(RUBBER)
    table = threshold_table(make_params())

    def heuristic(player, seed):
        return HeuristicBot(game, player, make_params())

    out, stats = refine_against_bots(game, table, heuristic, match_seeds(6, 1), tails=2)
    again, stats_again = refine_against_bots(game, table, heuristic, match_seeds(6, 1), tails=2)
    assert stats.count.sum() > 5 and np.array_equal(stats.total, stats_again.total)
    assert np.array_equal(out, again)
    # With a handful of samples a row changes only where every sample of it points the same way, far from zero.
    rows = stats.count.reshape(-1, 36).sum(axis=1)
    changed = np.flatnonzero((out != table).reshape(-1, 36).any(axis=1))
    assert all(rows[r] >= 2 for r in changed)
    with pytest.raises(ValueError, match="tails"):
        refine_against_bots(game, table, heuristic, [1], tails=0)


def test_equilibrium_is_reproducible_whatever_the_chunks_and_checks_its_input():
    cfg = pyspiel.load_game(RUBBER).cfg
    sheets = deal_sheets(cfg, match_seeds(7, 20))
    assert sheets.shape[1] == 4 and sheets.shape[0] > 20 and sheets.min() >= 0 and sheets[:, 2:].max() <= 1
    # A deal starts at 20 or more below the line only as a tie-breaker.
    assert np.all((sheets[:, :2].max(axis=1) < 20) | (sheets[:, 0] == sheets[:, 1]))
    table, average, regret = mccfr_draw_table(cfg, sheets, 600, seed=3, chunk=600)
    again, _, _ = mccfr_draw_table(cfg, sheets, 600, seed=3, chunk=250)
    assert np.array_equal(table, again)
    assert np.all((table >= 0) & (table <= 1)) and average.sum() > 0 and np.all(regret >= 0)
    with pytest.raises(ValueError, match="mode=rubber"):
        mccfr_draw_table(pyspiel.load_game("poke").cfg, sheets, 10, seed=0)
    with pytest.raises(ValueError, match="sheets"):
        mccfr_draw_table(cfg, sheets[:, :3], 10, seed=0)


def test_one_deal_agents_play_whole_rubbers_reproducibly():
    game = pyspiel.load_game(RUBBER)
    results = [play_pyspiel(game, [PerDealBot(game, 0, 1, "nfsp"), HeuristicBot(game, 1, make_params())], 9)
               for _ in range(2)]
    assert results[0] == results[1]


def test_agent_entries_parse_with_their_options():
    assert parse_agent("ismcts:iterations=50,uct_c=0.5,playout=random") == (
        "ismcts", {"iterations": 50, "uct_c": 0.5, "playout": "random"})
    assert parse_agent("ppo") == ("ppo", {})
    with pytest.raises(ValueError, match="key=value"):
        parse_agent("ismcts:iterations")
