"""Policies: OpenSpiel TabularPolicy round trip, files with metadata, bots."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as openspiel_policy
from open_spiel.python.algorithms import exploitability as openspiel_exploitability

from gamut.solvers.cfr.best_response import exploitability
from gamut.solvers.cfr.extract import extract_game
from gamut.solvers.cfr.mccfr import MCCFR
from gamut.solvers.cfr.policy_io import (
    StrategyBot,
    TabularStrategy,
    from_tabular_policy,
    load_strategy,
    save_strategy,
    to_tabular_policy,
)
from gamut.solvers.cfr.tabular import TabularCFR


@pytest.fixture(scope="module")
def leduc():
    game = pyspiel.load_game("leduc_poker")
    tree = extract_game(game, report=None)
    solver = TabularCFR(tree, "cfr+")
    solver.run(50)
    return game, tree, solver.average_policy()


def test_tabular_policy_round_trip(leduc):
    game, tree, average = leduc
    strategy = TabularStrategy.from_tree(tree, average, {"algorithm": "cfr+"})
    tabular = to_tabular_policy(game, strategy)
    assert openspiel_exploitability.exploitability(game, tabular) == pytest.approx(
        exploitability(tree, average), abs=1e-12)
    back = from_tabular_policy(tabular)
    np.testing.assert_array_equal(back.on_tree(tree), average)
    assert back.game_string == "leduc_poker()"


def test_openspiel_policy_in_and_out():
    game = pyspiel.load_game("kuhn_poker")
    tree = extract_game(game, report=None)
    tabular = openspiel_policy.TabularPolicy(game)
    rng = np.random.default_rng(0)
    tabular.action_probability_array[:] = rng.dirichlet([1.0, 1.0], size=len(tabular.state_lookup))
    strategy = from_tabular_policy(tabular)
    assert exploitability(tree, strategy.on_tree(tree)) == pytest.approx(
        openspiel_exploitability.exploitability(game, tabular), abs=1e-12)
    np.testing.assert_array_equal(to_tabular_policy(game, strategy).action_probability_array,
                                  tabular.action_probability_array)


def test_save_and_load_keep_arrays_and_metadata(tmp_path, leduc):
    _, tree, average = leduc
    strategy = TabularStrategy.from_tree(tree, average, {"algorithm": "cfr+", "iterations": 50})
    path = save_strategy(tmp_path / "sub" / "leduc.npz", strategy)
    loaded = load_strategy(path)
    assert loaded.game_string == "leduc_poker()"
    assert loaded.metadata == {"algorithm": "cfr+", "iterations": 50}
    assert loaded.keys == strategy.keys
    np.testing.assert_array_equal(loaded.probs, strategy.probs)
    np.testing.assert_array_equal(loaded.actions, strategy.actions)


def test_bad_strategy_files_are_value_errors(tmp_path):
    (tmp_path / "junk.npz").write_text("junk")
    with pytest.raises(ValueError, match="not a readable strategy"):
        load_strategy(tmp_path / "junk.npz")
    with pytest.raises(ValueError, match="no strategy file"):
        load_strategy(tmp_path / "absent.npz")


def test_mismatched_arrays_are_rejected():
    with pytest.raises(ValueError, match="line up"):
        TabularStrategy("kuhn_poker()", ["0"], [0, 2], [0, 1], [1.0])


def test_unknown_key_is_uniform_only_when_legal_actions_are_given(leduc):
    _, tree, average = leduc
    strategy = TabularStrategy.from_tree(tree, average)
    assert strategy.action_probabilities("nowhere", [0, 2]) == {0: 0.5, 2: 0.5}
    with pytest.raises(ValueError, match="nowhere"):
        strategy.action_probabilities("nowhere")


def test_mccfr_table_to_strategy():
    game = pyspiel.load_game("kuhn_poker")
    solver = MCCFR(game, "external", seed=0)
    solver.run(50)
    strategy = TabularStrategy.from_table(str(game), solver.average_policy())
    assert set(strategy.keys) == set(solver.tables)
    for key, (actions, probs) in solver.average_policy().items():
        assert strategy.action_probabilities(key) == dict(zip(actions, probs))


def test_bot_follows_the_strategy_and_is_seeded():
    game = pyspiel.load_game("kuhn_poker")
    tree = extract_game(game, report=None)
    # Player 0 always bets (action 1); player 1 always passes.
    always = np.zeros(tree.num_infoset_actions)
    for i in range(tree.num_infosets):
        lo = tree.infoset_action_start[i]
        always[lo + (1 if tree.infoset_player[i] == 0 else 0)] = 1.0
    strategy = TabularStrategy.from_tree(tree, always)
    bots = [StrategyBot(strategy, 0, seed=1), StrategyBot(strategy, 1, seed=2)]
    rng = np.random.default_rng(5)
    for _ in range(30):
        # Player 0 bets, player 1 folds: player 0 wins the ante.
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, int(rng.integers(1 << 30)))
        assert returns == [1.0, -1.0]

    mixed = TabularStrategy.from_tree(tree, np.full(tree.num_infoset_actions, 0.5))
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    first, second = StrategyBot(mixed, 0, seed=3), StrategyBot(mixed, 0, seed=3)
    stream = [first.step(state) for _ in range(200)]
    assert stream == [second.step(state) for _ in range(200)]
    assert 60 < sum(stream) < 140
    assert first.step_with_policy(state)[0] == [(0, 0.5), (1, 0.5)]
    assert first.player_id() == 0


def test_cfr_policy_agent_from_the_registry(tmp_path):
    from gamut.solvers.bots import make_bot

    game = pyspiel.load_game("kuhn_poker")
    tree = extract_game(game, report=None)
    solver = TabularCFR(tree, "cfr+")
    solver.run(100)
    path = save_strategy(tmp_path / "kuhn.npz", TabularStrategy.from_tree(tree, solver.average_policy()))
    bots = [make_bot(game, "cfr-policy", player=p, seed=p, path=str(path)) for p in (0, 1)]
    returns = [pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)[0] for seed in range(2000)]
    # Near-equilibrium self-play: player 0's mean return is close to the game value -1/18.
    assert abs(np.mean(returns) + 1 / 18) < 3 * np.std(returns) / np.sqrt(len(returns))
    with pytest.raises(ValueError, match="not leduc_poker"):
        make_bot(pyspiel.load_game("leduc_poker"), "cfr-policy", path=str(path))
    with pytest.raises(ValueError, match="needs option .path."):
        make_bot(game, "cfr-policy")
