"""Draw tables: the cell abstraction against a slow reference, compiled seats against the engines they copy."""

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers poke)
from gamut.envs.poke import kernels as K
from gamut.solvers.cfr.policy_io import load_strategy
from gamut.solvers.poke.best_response import TableBot, threshold_table
from gamut.solvers.poke.draw_table import (NUM_CELLS, SeatArrays, cell_fields, context_fields, draw_cell,
                                           mccfr_code, mccfr_table, seat_margins)
from gamut.solvers.poke.heuristic import HeuristicBot, discard_cards, make_params
from gamut.solvers.poke.match import heuristic_margins, match_seeds, play_pyspiel
from gamut.solvers.poke.policies import MCCFR_POLICY
from gamut.solvers.poke.walker import draw_key
from tests.chance import states_along_random_games

RUBBER = "poke(mode=rubber)"
POLICIES = [make_params(), make_params(double_below=0, redouble_below=0, dealer_double_below=0),
            make_params(double_below=10, redouble_below=10, free_below=10, dealer_double_below=10,
                        dealer_redouble_below=10), make_params(double_below=3, redouble_below=2, free_below=0)]


def _draw_states(count, seed):
    """Draw decisions met in random play of rubbers, as kernel arrays (random score sheets come with them)."""
    game = pyspiel.load_game(RUBBER)
    found = states_along_random_games(game, count, seed, lambda state: state.state[K.S_PHASE] == K.PH_DRAW)
    return game, [state.state.copy() for state in found]


def _reference_cell(st, cfg):
    """The cell of a draw decision from its definition, in plain Python."""
    p = int(st[K.S_DRAWER])
    hand = int(st[K.S_HAND + p])
    stock = int(cfg[K.C_DECK]) & ~(int(st[K.S_HAND]) | int(st[K.S_HAND + 1]) | int(st[K.S_DISCARDS]))
    if discard_cards(hand, min(3, bin(stock).count("1"))) == 0:
        return -1
    cards = [c for c in range(52) if (hand >> c) & 1]
    ranks = sorted((sum(1 for c in cards if c >> 2 == r), r) for r in {c >> 2 for c in cards})
    counts = sorted(n for n, _ in ranks)
    suits = max(sum(1 for c in cards if c & 3 == s) for s in range(4))
    if counts == [1, 1, 1, 1, 1]:
        cls = 1 if suits == 4 else 0
    elif counts == [1, 1, 1, 2]:
        pair = [r for n, r in ranks if n == 2][0]
        cls = 2 if pair <= 5 else 3 if pair <= 9 else 4
    elif counts == [1, 2, 2]:
        cls = 5
    elif counts == [1, 1, 3]:
        cls = 6
    else:
        return -1
    dealer = int(st[K.S_DEALER])
    own, opp = int(st[K.S_NDRAWS + p]), int(st[K.S_NDRAWS + 1 - p])
    situation = own if p != dealer else 2 + 3 * own + opp

    def binned(below):
        return 0 if below < 10 else 1 if below < 16 else 2

    context = ((int(st[K.S_GAMES + p]) * 2 + int(st[K.S_GAMES + 1 - p])) * 3 + binned(int(st[K.S_BELOW + p]))) * 3 \
        + binned(int(st[K.S_BELOW + 1 - p]))
    return (situation * 7 + cls) * 36 + context


def test_cells_match_the_reference_on_random_draw_decisions():
    game, states = _draw_states(3000, seed=1)
    cells = [int(draw_cell(st, game.cfg)) for st in states]
    assert cells == [_reference_cell(st, game.cfg) for st in states]
    assert len({c for c in cells if c >= 0}) > 100


def test_cell_fields_invert_the_cell_formula():
    assert cell_fields(77) == (0, 2, 5)
    assert context_fields(5) == {"games_own": 0, "games_opponent": 0, "below_own": "10-15",
                                 "below_opponent": "16+"}
    for cell in (0, 1234, NUM_CELLS - 1):
        s, c, x = cell_fields(cell)
        assert (s * 7 + c) * 36 + x == cell
    with pytest.raises(ValueError, match="outside"):
        cell_fields(NUM_CELLS)


@pytest.mark.parametrize("i", range(len(POLICIES)))
def test_threshold_tables_play_exactly_like_the_thresholds(i):
    cfg = pyspiel.load_game(RUBBER).cfg
    seeds = match_seeds(3, 60)
    expected = heuristic_margins(cfg, POLICIES[i], make_params(), seeds)
    assert np.array_equal(seat_margins(cfg, SeatArrays.threshold(POLICIES[i]), SeatArrays.threshold(make_params()),
                                       seeds), expected)
    assert np.array_equal(seat_margins(cfg, SeatArrays.draw_table(threshold_table(POLICIES[i])),
                                       SeatArrays.threshold(make_params()), seeds), expected)


def test_mccfr_codes_give_the_agents_draw_probabilities():
    strategy = load_strategy(MCCFR_POLICY)
    codes = mccfr_table(strategy)
    game, states = _draw_states(1500, seed=2)
    for st in states:
        p = int(st[K.S_DRAWER])
        probs = strategy.action_probabilities(draw_key(st, p), [K.STAND, 1])
        assert codes[mccfr_code(st, p)] == pytest.approx(probs.get(1, 0.0) / (probs.get(1, 0.0) + probs.get(0, 0.0)))


def test_table_bot_through_pyspiel_equals_the_compiled_match():
    game = pyspiel.load_game(RUBBER)
    table = SeatArrays.draw_table(threshold_table(POLICIES[1]))
    for seed in match_seeds(4, 3):
        seed = int(seed)
        margin = play_pyspiel(game, [TableBot(game, 0, table, seed), HeuristicBot(game, 1, make_params())], seed)
        assert margin == seat_margins(game.cfg, table, SeatArrays.threshold(make_params()), [seed])[0, 0]


def test_seats_refuse_bad_arrays_and_small_decks():
    with pytest.raises(ValueError, match="draw table"):
        SeatArrays.draw_table(np.full(NUM_CELLS, 1.5))
    with pytest.raises(ValueError, match="shape"):
        SeatArrays.threshold([1, 2])
    small = pyspiel.load_game("poke(mode=rubber,num_ranks=3,num_suits=2,hand_size=2)")
    with pytest.raises(ValueError, match="full 52-card deck"):
        seat_margins(small.cfg, SeatArrays.threshold(make_params()), SeatArrays.threshold(make_params()), [1])
