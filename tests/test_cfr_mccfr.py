"""MCCFR: convergence on Kuhn poker, seeded determinism, abstraction and the walker hook."""

import numpy as np
import pyspiel
import pytest

from gamut.solvers.cfr.best_response import exploitability
from gamut.solvers.cfr.extract import extract_game
from gamut.solvers.cfr.mccfr import MCCFR
from gamut.solvers.cfr.policy_io import TabularStrategy


@pytest.fixture(scope="module")
def game():
    return pyspiel.load_game("kuhn_poker")


@pytest.fixture(scope="module")
def tree():
    return extract_game("kuhn_poker", report=None)


def _exploitability(tree, solver):
    return exploitability(tree, TabularStrategy.from_table("kuhn_poker()", solver.average_policy()).on_tree(tree))


@pytest.mark.parametrize("scheme,iterations,bound", [("external", 4000, 0.03), ("outcome", 30000, 0.05)])
def test_converges_on_kuhn(game, tree, scheme, iterations, bound):
    solver = MCCFR(game, scheme, seed=11)
    solver.run(iterations // 20)
    early = _exploitability(tree, solver)
    solver.run(iterations - iterations // 20)
    late = _exploitability(tree, solver)
    assert late < bound
    assert late < early
    assert len(solver.tables) == tree.num_infosets


@pytest.mark.parametrize("scheme", ["external", "outcome"])
def test_same_seed_same_tables_other_seed_differs(game, scheme):
    runs = []
    for seed in (5, 5, 6):
        solver = MCCFR(game, scheme, seed=seed)
        solver.run(300)
        runs.append(solver.tables)
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


class KuhnWalker:
    """Kuhn poker on plain tuples (cards, history): a stand-in for a game's own kernels."""

    game_string = "kuhn_poker()"

    def root(self):
        return ((), "")

    def is_terminal(self, state):
        cards, history = state
        return history in ("pp", "bp", "bb", "pbp", "pbb")

    def is_chance(self, state):
        return len(state[0]) < 2

    def current_player(self, state):
        return len(state[1]) % 2

    def legal_actions(self, state):
        return [0, 1]

    def chance_outcomes(self, state):
        left = [c for c in range(3) if c not in state[0]]
        return [(c, 1.0 / len(left)) for c in left]

    def child(self, state, action):
        cards, history = state
        if len(cards) < 2:
            return (cards + (action,), history)
        return (cards, history + "pb"[action])

    def returns(self, state):
        cards, history = state
        if history in ("bp", "pbp"):  # the last player folded to a bet
            winner = 0 if history == "bp" else 1
            amount = 1.0
        else:
            winner = 0 if cards[0] > cards[1] else 1
            amount = 2.0 if history.endswith("bb") else 1.0
        return [amount, -amount] if winner == 0 else [-amount, amount]

    def infostate_key(self, state, player):
        return str(state[0][player]) + state[1]


@pytest.mark.parametrize("scheme", ["external", "outcome"])
def test_walker_hook_reproduces_the_pyspiel_run(game, scheme):
    through_pyspiel = MCCFR(game, scheme, seed=2)
    through_walker = MCCFR(KuhnWalker(), scheme, seed=2)
    through_pyspiel.run(500)
    through_walker.run(500)
    assert through_walker.tables == through_pyspiel.tables


def test_abstraction_buckets_share_tables(game, tree):
    # Bucket by private card only: the history is forgotten (an imperfect-recall abstraction).
    def card_only(state, player):
        return state.information_state_string(player)[0] + ("p0" if player == 0 else "p1")

    solver = MCCFR(game, "external", seed=1, abstraction=card_only)
    solver.run(200)
    assert set(solver.tables) == {f"{c}p{p}" for c in "012" for p in "01"}
    assert solver.config()["abstraction"].endswith("card_only")


def test_abstraction_merging_different_action_counts_is_an_error():
    leduc = pyspiel.load_game("leduc_poker")
    solver = MCCFR(leduc, "external", seed=0, abstraction=lambda state, player: "one bucket")
    with pytest.raises(ValueError, match="same number of actions"):
        solver.run(20)


def test_rejects_bad_settings(game):
    with pytest.raises(ValueError, match="external, outcome"):
        MCCFR(game, "sideways")
    with pytest.raises(ValueError, match="exploration"):
        MCCFR(game, "outcome", exploration=0.0)
    with pytest.raises(ValueError, match="zero-sum"):
        MCCFR(pyspiel.load_game("kuhn_poker(players=3)"))


def test_average_policy_is_normalized(game):
    solver = MCCFR(game, "outcome", seed=4)
    solver.run(100)
    for actions, probs in solver.average_policy().values():
        assert actions == [0, 1]
        assert sum(probs) == pytest.approx(1.0)
        assert np.all(np.asarray(probs) >= 0.0)
