"""Poke's chance draws in Python walks of a deal, and the equilibrium draw counts that use them."""

from __future__ import annotations

import numpy as np

import gamut.envs  # noqa: F401  (registers the games)
from gamut.envs.loading import load_game
from gamut.solvers.poke.chance import draw_chance


def test_draw_chance_stops_at_a_decision_or_the_end_and_is_seeded():
    game = load_game("poke(mode=deal)")
    a, b = game.new_initial_state(), game.new_initial_state()
    draw_chance(a, np.random.default_rng(3))
    draw_chance(b, np.random.default_rng(3))
    assert not a.is_chance_node() and a.current_player() >= 0 and a.history() == b.history()
    c = game.new_initial_state()
    draw_chance(c, np.random.default_rng(4))
    assert c.history() != a.history()
    # At a decision it draws nothing.
    before = a.history()
    draw_chance(a, np.random.default_rng(5))
    assert a.history() == before


def test_the_search_state_takes_the_same_draws():
    from gamut.solvers.poke.search import DealState

    game = load_game("poke(mode=deal,trick_value=34.0)")
    state = game.new_initial_state()
    deal = DealState.of(state)
    draw_chance(state, np.random.default_rng(8))
    draw_chance(deal, np.random.default_rng(8))
    assert deal.history() == state.history() and np.array_equal(deal.state, state.state)


def _reference_draw_counts(game, strategy, deals, seed):
    """The walk written out with pyspiel's own chance test (the draw counts before the shared helper)."""
    from gamut.envs.poke import kernels as K
    from gamut.solvers.poke.equilibrium import hand_label
    from gamut.solvers.poke.heuristic import draw_stage

    rng = np.random.default_rng(seed)
    counts = {}
    for _ in range(deals):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
                continue
            player = state.current_player()
            legal = state.legal_actions()
            probs = strategy.action_probabilities(state.information_state_string(player), legal)
            weights = np.array([probs.get(a, 0.0) for a in legal])
            action = legal[int(rng.choice(len(legal), p=weights / weights.sum()))]
            st = state.state
            if st[K.S_PHASE] == K.PH_DRAW and len(legal) > 1:
                entry = counts.setdefault((int(draw_stage(st)), hand_label(int(st[K.S_HAND + player]))), [0, 0])
                entry[0] += int(action != K.STAND)
                entry[1] += 1
            state.apply_action(action)
    return counts


def test_equilibrium_draw_counts_match_the_written_out_walk():
    from gamut.solvers.poke.equilibrium import draw_counts
    from gamut.solvers.poke.policies import small_game_string, solve_small

    game = load_game(small_game_string())
    strategy = solve_small(str(game), 20)
    counts = draw_counts(game, strategy, 200, seed=11)
    assert counts == _reference_draw_counts(game, strategy, 200, 11)
    assert sum(decisions for _, decisions in counts.values()) > 100
