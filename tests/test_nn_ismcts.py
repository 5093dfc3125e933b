"""PUCT in the generic ISMCTS, network priors, and the ``nn_ismcts`` agents of Poke and Palace Poker."""

from __future__ import annotations

import json

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers the games)
from gamut.envs.loading import load_game
from gamut.solvers.bots import bot_names, make_bot
from gamut.solvers.ismcts import ISMCTS, checked_priors
from gamut.solvers.search.prior import NetworkPrior

KUHN_KING_FACING_BET = (2, 0, 0, 1)  # deal K to player 0 and J to 1; 0 checks, 1 bets


def _kuhn_state():
    game = pyspiel.load_game("kuhn_poker")
    state = game.new_initial_state()
    for action in KUHN_KING_FACING_BET:
        state.apply_action(action)
    return game, state


def _uniform(state, player):
    return [1.0] * len(state.legal_actions())


def _random_play(state, rng, stop=lambda s: False):
    """Advance ``state`` by uniformly random moves until it is terminal or ``stop(state)``; yields decision states."""
    while not state.is_terminal() and not stop(state):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        yield state
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])


# ---- PUCT in the generic search ----------------------------------------------------------------

@pytest.mark.parametrize("c", [0.5, 1.0, 2.0])
def test_puct_with_a_uniform_prior_finds_the_call_with_the_king(c):
    game, state = _kuhn_state()
    plain = ISMCTS(game).search(state, np.random.default_rng(0), iterations=400)
    puct = ISMCTS(game, uct_c=c, prior=_uniform).search(state, np.random.default_rng(0), iterations=400)
    assert plain.best_action() == puct.best_action() == 1
    assert sum(puct.visits) == 400 and min(puct.visits) >= 1  # the losing fold was tried, then left
    assert puct.mean_returns[1] == pytest.approx(2.0)


def test_puct_explores_more_with_a_larger_constant():
    game, state = _kuhn_state()
    folds = [ISMCTS(game, uct_c=c, prior=_uniform).search(state, np.random.default_rng(0), iterations=400).visits[0]
             for c in (0.25, 1.0, 4.0)]
    assert folds[0] < folds[1] < folds[2]


def test_puct_follows_a_confident_prior_before_the_returns_overrule_it():
    game, state = _kuhn_state()

    def fold_first(s, player):  # at the root: 0.99 on the fold, which loses 1 where the call wins 2
        legal = s.legal_actions()
        return [0.99, 0.01] if s.history() == list(KUHN_KING_FACING_BET) else [1.0] * len(legal)

    few = ISMCTS(game, uct_c=1.0, prior=fold_first).search(state, np.random.default_rng(0), iterations=6)
    many = ISMCTS(game, uct_c=1.0, prior=fold_first).search(state, np.random.default_rng(0), iterations=2000)
    assert few.visits[0] > few.visits[1]
    assert many.best_action() == 1


def test_the_prior_is_asked_once_per_information_set_over_its_legal_actions():
    game, state = _kuhn_state()
    calls = []

    def recording(s, player):
        calls.append((s.information_state_string(player), len(s.legal_actions())))
        return [1.0] * len(s.legal_actions())

    ISMCTS(game, uct_c=1.0, prior=recording).search(state, np.random.default_rng(0), iterations=300)
    keys = [key for key, _ in calls]
    assert len(keys) == len(set(keys)) >= 1
    assert all(count == 2 for _, count in calls)


def test_the_prior_is_asked_at_the_root_and_at_second_visits_only():
    game = pyspiel.load_game("leduc_poker")
    state = game.new_initial_state()
    for action in (0, 3):  # deal: a jack to player 0 and a queen to 1
        state.apply_action(action)
    asked = []

    def recording(s, player):
        asked.append(s.information_state_string(player))
        return [1.0] * len(s.legal_actions())

    result = ISMCTS(game, uct_c=1.0, prior=recording).search(state, np.random.default_rng(0), iterations=300)
    assert asked[0] == state.information_state_string(0)
    assert 1 < len(asked) < result.num_nodes  # nodes visited once were never asked


@pytest.mark.parametrize("bad", [[1.0], [1.0, 1.0, 1.0], [0.5, -0.1], [0.0, 0.0], [np.nan, 1.0], [np.inf, 1.0]])
def test_a_prior_that_is_not_a_distribution_over_the_legal_actions_is_refused(bad):
    game, state = _kuhn_state()
    with pytest.raises(ValueError, match="prior"):
        ISMCTS(game, prior=lambda s, p: bad).search(state, np.random.default_rng(0), iterations=10)


def test_checked_priors_normalises():
    assert checked_priors([1, 3], 2) == [0.25, 0.75]


def test_a_prior_that_is_not_callable_is_refused():
    with pytest.raises(ValueError, match="prior must be a callable"):
        ISMCTS(pyspiel.load_game("kuhn_poker"), prior=[0.5, 0.5])


def test_puct_search_is_reproducible():
    game, state = _kuhn_state()
    runs = [ISMCTS(game, prior=_uniform).search(state, np.random.default_rng(5), iterations=300) for _ in range(2)]
    assert runs[0].visits == runs[1].visits and runs[0].mean_returns == runs[1].mean_returns


# ---- network priors ---------------------------------------------------------------------------

def test_poke_search_tensor_is_the_pyspiel_information_state_tensor():
    from gamut.solvers.poke.nn_search import DealTensor, prior_network
    from gamut.solvers.poke.search import DealState

    _, network_game = prior_network(load_game("poke(mode=rubber)"), "")
    tensor = DealTensor(network_game)
    rng = np.random.default_rng(3)
    for state in _random_play(network_game.new_initial_state(), rng):
        p = state.current_player()
        assert np.array_equal(tensor(DealState.of(state), p), np.asarray(state.information_state_tensor(p), np.float32))


def test_palace_search_tensor_is_the_pyspiel_information_state_tensor():
    from gamut.solvers.palace_poker.nn_search import PalaceTensor

    game = load_game("palace_poker(players=4)")
    tensor = PalaceTensor(game)
    for state in _random_play(game.new_initial_state(), np.random.default_rng(4)):
        p = state.current_player()
        assert np.array_equal(tensor(state, p), np.asarray(state.information_state_tensor(p), np.float32))


def test_poke_prior_covers_exactly_the_search_candidates_and_matches_the_policy_network():
    from gamut.solvers.poke.nn_search import deal_prior, prior_network
    from gamut.solvers.poke.search import DealState
    from gamut.solvers.rl.neural_bot import make_ppo_bot

    game = load_game("poke(mode=rubber)")
    prior = deal_prior(game)
    _, network_game = prior_network(game, "")
    checked = 0
    for state in _random_play(network_game.new_initial_state(), np.random.default_rng(5)):
        deal = DealState.of(state)
        candidates = deal.legal_actions()
        probs = prior(deal, state.current_player())
        assert len(probs) == len(candidates) and sum(probs) == pytest.approx(1.0) and min(probs) > 0
        # Over the candidates, the prior is the network's policy renormalised.
        policy = dict(make_ppo_bot(network_game, state.current_player(), 0, "", True).step_with_policy(state)[0])
        expected = np.array([policy[a] for a in candidates])
        assert np.allclose(probs, expected / expected.sum(), atol=1e-6)
        checked += 1
    assert checked > 5


def test_palace_prior_is_the_policy_network_over_the_legal_actions():
    from gamut.solvers.palace_poker.nn_search import palace_prior
    from gamut.solvers.rl.neural_bot import make_ppo_bot

    game = load_game("palace_poker(players=4)")
    prior = palace_prior(game, temperature=1.0, mix=0.0, algorithm="ppo")
    hotter = palace_prior(game, temperature=4.0, mix=0.0, algorithm="ppo")
    for state in _random_play(game.new_initial_state(), np.random.default_rng(6)):
        p = state.current_player()
        policy = make_ppo_bot(game, p, 0, "", True).step_with_policy(state)[0]
        assert np.allclose(prior(state, p), [q for _, q in policy], atol=1e-6)
        assert [a for a, _ in policy] == state.legal_actions()
        if len(policy) > 1:  # a higher temperature flattens the prior
            assert np.ptp(hotter(state, p)) <= np.ptp(prior(state, p)) + 1e-12


def test_the_uniform_mix_of_the_prior():
    from gamut.solvers.palace_poker.nn_search import palace_prior

    game = load_game("palace_poker(players=4)")
    uniform, half, sharp = (palace_prior(game, mix=m, algorithm="ppo") for m in (1.0, 0.5, 0.0))
    for state in _random_play(game.new_initial_state(), np.random.default_rng(8)):
        p, n = state.current_player(), len(state.legal_actions())
        assert np.allclose(uniform(state, p), 1.0 / n)
        assert np.allclose(half(state, p), 0.5 * np.array(sharp(state, p)) + 0.5 / n)
    with pytest.raises(ValueError, match="uniform mix"):
        palace_prior(game, mix=1.5)


def test_network_prior_refuses_weights_of_another_game():
    from gamut.solvers.palace_poker.nn_search import PalaceTensor
    from gamut.solvers.rl.shipped import shipped_path

    game = load_game("palace_poker(players=4)")
    poke_weights = shipped_path("ppo", load_game("poke(mode=deal,trick_value=0.0)"))
    with pytest.raises(ValueError, match="trained on"):
        NetworkPrior(poke_weights, game, PalaceTensor(game))


# ---- the agents ---------------------------------------------------------------------------------

def test_nn_ismcts_is_listed_where_a_prior_network_ships():
    assert "nn_ismcts" in bot_names("poke(mode=rubber)")
    assert "nn_ismcts" in bot_names("poke(mode=deal)")
    assert "nn_ismcts" in bot_names("palace_poker(players=4)")
    assert "nn_ismcts" not in bot_names("poke(num_ranks=3,num_suits=2,hand_size=2)")
    assert "nn_ismcts" not in bot_names("palace_poker(players=3)")


@pytest.mark.parametrize("game_string, options, message", [
    ("poke(mode=rubber)", {"temperature": 0.0}, "temperature"),
    ("poke(mode=rubber)", {"c_puct": -1.0}, "uct_c"),
    ("poke(mode=rubber)", {"seconds": -1.0}, "seconds"),
    ("poke(mode=rubber)", {"weights": "no/such/file.npz"}, "file.npz"),
    ("poke(mode=rubber)", {"playout": "smart"}, "play-out"),
    ("palace_poker(players=4)", {"temperature": float("inf")}, "temperature"),
    ("palace_poker(players=4)", {"c_puct": float("nan")}, "uct_c"),
    ("poke(mode=rubber)", {"mix": -0.1}, "uniform mix"),
    ("palace_poker(players=4)", {"mix": 2.0}, "uniform mix"),
    ("palace_poker(players=4)", {"rollout": "smart"}, "rollout"),
    ("palace_poker(players=4)", {"iterations": 0}, "iterations"),
    ("palace_poker(players=4)", {"beliefs": -1}, "beliefs"),
    ("palace_poker(players=4)", {"beliefs": 8, "belief_model": "oracle"}, "belief_model"),
    ("palace_poker(players=4)", {"beliefs": 8, "belief_weights": "no/such/file.npz"}, "file.npz"),
])
def test_bad_options_are_refused_with_a_clear_error(game_string, options, message):
    with pytest.raises(ValueError, match=message):
        make_bot(game_string, "nn_ismcts", 0, 0, **options)


def test_poke_weights_of_another_deck_are_refused():
    from gamut.solvers.poke.nn_search import prior_network
    from gamut.solvers.rl.shipped import shipped_path

    palace_weights = str(shipped_path("ppo", load_game("palace_poker(players=4)")))
    with pytest.raises(ValueError, match="one-deal Poke game"):
        prior_network(load_game("poke(mode=rubber)"), palace_weights)


@pytest.mark.parametrize("game_string, network_game, algorithm", [
    ("poke(mode=rubber)", "poke(mode=deal,trick_value=0.0)", "ppo"),
    ("palace_poker(players=4)", "palace_poker(players=4)", "dmc"),
])
def test_a_weights_file_given_by_path_plays_as_the_shipped_default(game_string, network_game, algorithm):
    from gamut.solvers.rl.shipped import shipped_path

    path = str(shipped_path(algorithm, load_game(network_game)))
    assert _first_searched_move(game_string, 3, 9, iterations=40, weights=path) == \
        _first_searched_move(game_string, 3, 9, iterations=40)


def test_palace_belief_weights_given_by_path_judge_as_the_shipped_default():
    from gamut.solvers.rl.shipped import shipped_path

    path = str(shipped_path("ppo", load_game("palace_poker(players=4)")))
    assert _first_searched_move("palace_poker(players=4)", 3, 9, iterations=40, belief_weights=path) == \
        _first_searched_move("palace_poker(players=4)", 3, 9, iterations=40)


def test_palace_defaults_need_both_shipped_networks_and_name_the_option_when_one_is_missing():
    from gamut.solvers.palace_poker.nn_search import PalaceNNISMCTSBot

    game = load_game("palace_poker(players=3)")
    assert "nn_ismcts" not in bot_names(game)
    # A prior of the user's own lifts the listing's refusal; the pool's default network still ships for 4 only.
    with pytest.raises(ValueError, match="option 'belief_weights': no ppo weights ship"):
        PalaceNNISMCTSBot(game, 0, 0, weights="results/rl/dmc_palace_poker_4.npz")


def _first_searched_move(game_string, seed, rng_seed, **options):
    game = load_game(game_string)
    for state in _random_play(game.new_initial_state(), np.random.default_rng(rng_seed)):
        if len(state.legal_actions()) > 1:
            bot = make_bot(game, "nn_ismcts", state.current_player(), seed, **options)
            return bot.step(state), bot.last_search.visits
    raise AssertionError("the game ended without a choice")


@pytest.mark.parametrize("game_string", ["poke(mode=rubber)", "palace_poker(players=4)"])
def test_same_seed_same_move(game_string):
    first = _first_searched_move(game_string, 11, 2, iterations=60)
    again = _first_searched_move(game_string, 11, 2, iterations=60)
    assert first == again
    assert sum(first[1]) == 60


def _play_through_pyspiel(game, bots, rng):
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    return state.returns()


def test_poke_nn_ismcts_plays_full_deals_through_pyspiel():
    game = load_game("poke(mode=deal)")
    rng = np.random.default_rng(0)
    for deal in range(2):
        bots = [make_bot(game, "nn_ismcts", 0, deal, iterations=30), make_bot(game, "heuristic", 1, deal)]
        returns = _play_through_pyspiel(game, bots, rng)
        assert returns[0] == -returns[1]


def test_palace_nn_ismcts_plays_a_full_hand_at_every_seat_through_pyspiel():
    game = load_game("palace_poker(players=4)")
    bots = [make_bot(game, "nn_ismcts", p, p, iterations=20) for p in range(4)]
    returns = _play_through_pyspiel(game, bots, np.random.default_rng(1))
    assert sum(returns) == pytest.approx(0.0)


@pytest.mark.parametrize("belief_model", ["network", "heuristic"])
def test_palace_nn_ismcts_with_a_belief_pool_is_seeded_and_plays_full_hands(belief_model):
    options = {"beliefs": 8, "belief_model": belief_model}
    first = _first_searched_move("palace_poker(players=4)", 11, 2, iterations=60, **options)
    assert first == _first_searched_move("palace_poker(players=4)", 11, 2, iterations=60, **options)
    assert sum(first[1]) == 60
    game = load_game("palace_poker(players=4)")
    bots = [make_bot(game, "nn_ismcts", p, p, iterations=20, beliefs=4, belief_model=belief_model)
            for p in range(4)]
    returns = _play_through_pyspiel(game, bots, np.random.default_rng(2))
    assert sum(returns) == pytest.approx(0.0)


def test_poke_nn_ismcts_plays_a_rubber_through_pyspiel():
    game = load_game("poke(mode=rubber)")
    bots = [make_bot(game, "nn_ismcts", 0, 0, iterations=20), make_bot(game, "ismcts", 1, 1, iterations=20)]
    returns = _play_through_pyspiel(game, bots, np.random.default_rng(2))
    assert returns[0] == -returns[1] and returns[0] != 0


def test_the_registry_defaults_are_the_search_defaults():
    from gamut.solvers.bots import bot_specs
    from gamut.solvers.palace_poker import nn_search as palace

    options = bot_specs("palace_poker(players=4)")["nn_ismcts"].options
    assert (options["c_puct"].default, options["temperature"].default, options["mix"].default,
            options["beliefs"].default) == \
        (palace.DEFAULT_C_PUCT, palace.DEFAULT_TEMPERATURE, palace.DEFAULT_MIX, palace.DEFAULT_BELIEFS)


def test_the_match_driver_resumes_and_collects(tmp_path):
    from gamut.experiments.studies.nn_ismcts_match import collect, run

    out = tmp_path / "palace_c0.5"  # a dotted name keeps its suffixes whole
    first = run("palace_poker", 0.0, 1, 3, {"c_puct": 0.5}, {}, out, iterations=5)
    again = run("palace_poker", 0.0, 2, 3, {"c_puct": 0.5}, {}, out, iterations=5)
    rows = [line for line in (tmp_path / "palace_c0.5.jsonl").read_text().splitlines() if line]
    assert len(rows) == 2 and first["n"] == 1 and again["n"] == 2
    assert again["resolved_options"]["nn_ismcts"]["c_puct"] == 0.5
    assert again["resolved_options"]["nn_ismcts"]["iterations"] == 5
    assert {"toolkit_version", "game_versions", "git_commit"} <= set(again)
    # Each row names the commit its run started from; the summary counts them (one commit here, both runs).
    commits = {json.loads(line)["commit"] for line in rows}
    assert len(commits) == 1 and again["sample_commits"] == {str(commits.pop()): 2}
    table = collect(tmp_path)
    assert [row["n"] for row in table] == [2] and (tmp_path / "matches.png").is_file()
    with pytest.raises(ValueError, match="one budget"):
        run("palace_poker", 0.1, 1, 3, {}, {}, tmp_path / "x", iterations=5)
    # One agent on both sides keeps one set of options: different ones are refused, not silently merged.
    with pytest.raises(ValueError, match="both 'ismcts' with different options"):
        run("palace_poker", 0.0, 1, 3, {"rollouts": 2}, {}, tmp_path / "y", iterations=5, a_name="ismcts")
    assert not (tmp_path / "y.jsonl").exists()


def test_paired_differences_match_sample_by_sample_and_refuse_other_deals(tmp_path, capsys):
    from gamut.experiments.studies.nn_ismcts_match import main, paired
    from gamut.solvers.stats import mean_ci

    def write(name, seed, samples):
        (tmp_path / f"{name}.json").write_text(json.dumps({"seed": seed}))
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps({"index": i, "sample": x}) + "\n"
                                                       for i, x in samples))

    write("a", 7, [(2, 5.0), (0, 1.0), (1, -2.0), (3, 4.0)])  # rows in any order, as workers append them
    write("b", 7, [(0, 0.5), (1, 1.0), (2, 2.0)])
    result = paired(tmp_path / "a", tmp_path / "b")
    expected = mean_ci(np.array([0.5, -3.0, 3.0]))
    assert result["n"] == 3 and result["mean_diff"] == pytest.approx(expected.value)
    assert (result["ci95_low"], result["ci95_high"]) == pytest.approx((expected.ci95_low, expected.ci95_high))
    assert main(["paired", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 3
    write("c", 8, [(0, 1.0)])
    with pytest.raises(ValueError, match="seeds 7 and 8"):
        paired(tmp_path / "a", tmp_path / "c")
    write("d", 7, [(9, 1.0)])
    with pytest.raises(ValueError, match="share no sample"):
        paired(tmp_path / "a", tmp_path / "d")


def test_the_match_driver_gives_agent_a_its_own_iteration_count(tmp_path):
    from gamut.experiments.studies.nn_ismcts_match import collect, main, run

    summary = run("palace_poker", 0.0, 1, 3, {}, {}, tmp_path / "small", iterations=6, a_iterations=3)
    assert summary["options"]["nn_ismcts"]["iterations"] == 3 and summary["options"]["ismcts"]["iterations"] == 6
    assert summary["resolved_options"]["nn_ismcts"]["iterations"] == 3
    assert (summary["iterations_per_move"], summary["a_iterations_per_move"]) == (6, 3)
    assert collect(tmp_path)[0]["budget"] == "A 3, B 6 it/move"
    with pytest.raises(ValueError, match="needs an iteration budget"):
        run("palace_poker", 0.1, 1, 3, {}, {}, tmp_path / "timed", a_iterations=3)
    with pytest.raises(ValueError, match="cannot search two iteration counts"):
        run("palace_poker", 0.0, 1, 3, {}, {}, tmp_path / "same", iterations=6, a_iterations=3, a_name="ismcts")
    for bad in (["--a-iterations", "3"], ["--iterations", "6", "--a-iterations", "-1"]):
        with pytest.raises(SystemExit):
            main(["palace_poker", "--pairs", "1", *bad, "--out", str(tmp_path / "bad")])
    assert not (tmp_path / "timed.jsonl").exists() and not (tmp_path / "bad.jsonl").exists()


def test_the_match_driver_plays_the_same_rows_in_worker_processes(tmp_path):
    from gamut.experiments.studies.nn_ismcts_match import run

    def rows(path):
        lines = (tmp_path / f"{path}.jsonl").read_text().splitlines()
        return sorted(({k: v for k, v in json.loads(line).items() if k != "seconds"} for line in lines),
                      key=lambda row: row["index"])

    one = run("palace_poker", 0.0, 3, 5, {}, {}, tmp_path / "one", iterations=4)
    two = run("palace_poker", 0.0, 3, 5, {}, {}, tmp_path / "two", iterations=4, workers=2)
    assert rows("one") == rows("two") and one["mean_diff"] == two["mean_diff"] and two["workers"] == 2
    with pytest.raises(ValueError, match="workers must be >= 1"):
        run("palace_poker", 0.0, 1, 5, {}, {}, tmp_path / "z", iterations=4, workers=0)


def test_a_paired_sample_depends_only_on_the_seed_and_its_index():
    from gamut.solvers.paired_match import paired_match

    match = paired_match("poke")
    game = load_game(match.game)

    def make(name, seat, seed):
        return make_bot(game, name, seat, seed)

    third = match.play_sample(game, make, "heuristic", "random", 4, 2)
    again = match.play_sample(game, make, "heuristic", "random", 4, 2)
    assert third == again and third["sample"] == sum(third["margins"]) / 2
    assert match.play_sample(game, make, "heuristic", "random", 4, 1)["seed"] != third["seed"]
    with pytest.raises(ValueError, match="declares no paired match; games that do: palace_poker, poke"):
        paired_match("poker_squares")


# ---- Poke: the Q-network's value at the leaves --------------------------------------------------

DMC_POKE = "results/rl/dmc_poke_deal.npz"


def _dmc_leaf(value_weight, playout="heuristic", count=2):
    from gamut.solvers.poke.nn_search import NetworkLeaf, deal_prior

    return NetworkLeaf(deal_prior(load_game("poke(mode=rubber)"), DMC_POKE), value_weight, playout, count)


def _deal_decisions(seed):
    """Decision states of one-deal Poke (valued with trick_value=34) met in uniformly random play."""
    from gamut.solvers.poke.search import DealState

    game = load_game("poke(mode=deal,trick_value=34.0)")
    return [DealState.of(state) for state in _random_play(game.new_initial_state(), np.random.default_rng(seed))]


def test_the_leaf_without_network_weight_is_the_play_out():
    from gamut.solvers.poke.search import PokeRollout

    leaf, rollout = _dmc_leaf(0.0), PokeRollout("heuristic", 2)
    for state in _deal_decisions(4)[:8]:
        assert np.array_equal(leaf(state.clone(), 77), rollout(state.clone(), 77))


def test_the_leaf_replaces_the_above_the_line_part_by_the_network_value():
    from gamut.solvers.poke.search import play_out_returns

    leaf = _dmc_leaf(1.0)
    scale = float(leaf.network.metadata["value_scale"])
    checked = 0
    for state in _deal_decisions(6):
        player = state.current_player()
        # Reference: the network's best candidate for the mover, seen from seat 0, plus the play-outs'
        # below-the-line part valued at trick_value (points below, times 34).
        best = max(leaf.network.scores(state, player, state.legal_actions())) * scale
        network = best if player == 0 else -best
        full = play_out_returns(state.state, state.cfg, 34.0, 5, "heuristic", 2)
        above = play_out_returns(state.state, state.cfg, 0.0, 5, "heuristic", 2)
        below = full[0] - above[0]
        got = leaf(state.clone(), 5)
        assert got[0] == pytest.approx(network + below) and got[1] == -got[0]
        half = _dmc_leaf(0.5)(state.clone(), 5)
        assert half[0] == pytest.approx(above[0] + 0.5 * (network - above[0]) + below)
        checked += 1
    assert checked > 5


def test_a_network_of_the_searchs_own_deal_replaces_the_whole_play_out_value():
    from gamut.solvers.poke.search import play_out_returns

    leaf = _dmc_leaf(0.25)
    leaf.network_trick_value = 34.0  # the same network, read as one trained on poke(mode=deal,trick_value=34.0)
    scale = float(leaf.network.metadata["value_scale"])
    for state in _deal_decisions(8)[:6]:
        player = state.current_player()
        best = max(leaf.network.scores(state, player, state.legal_actions())) * scale
        network = best if player == 0 else -best
        full = play_out_returns(state.state, state.cfg, 34.0, 9, "heuristic", 2)[0]
        got = leaf(state.clone(), 9)
        assert got[0] == pytest.approx(0.75 * full + 0.25 * network) and got[1] == -got[0]


def test_the_leaf_draws_chance_to_the_next_decision_and_is_exact_at_the_end():
    from gamut.solvers.poke.search import DealState

    leaf = _dmc_leaf(1.0)
    game = load_game("poke(mode=deal,trick_value=34.0)")
    state = game.new_initial_state()
    assert state.is_chance_node()
    first, again = leaf(DealState.of(state), 3), leaf(DealState.of(state), 3)
    assert np.array_equal(first, again)
    rng = np.random.default_rng(2)
    for _ in _random_play(state, rng):
        pass
    assert np.array_equal(leaf(DealState.of(state), 1), np.array(state.returns()))


@pytest.mark.parametrize("options, message", [
    ({"value_weight": 1.5}, "value_weight"),
    ({"value_weight": -0.1}, "value_weight"),
    ({"value_weight": 0.5}, "Deep Monte-Carlo"),
])
def test_bad_leaf_value_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        make_bot("poke(mode=rubber)", "nn_ismcts", 0, 0, **options)


def test_poke_nn_ismcts_with_network_leaves_is_reproducible():
    options = {"weights": DMC_POKE, "temperature": 0.1, "value_weight": 0.5}
    assert _first_searched_move("poke(mode=rubber)", 3, 9, iterations=60, **options) == \
        _first_searched_move("poke(mode=rubber)", 3, 9, iterations=60, **options)


def test_the_match_driver_plays_the_samples_on_another_variant(tmp_path):
    from gamut.experiments.studies.nn_ismcts_match import collect, run

    deal = run("poke", 0.0, 2, 4, {}, {}, tmp_path / "deal", iterations=10,
               game_string="poke(mode=deal,trick_value=34.0)")
    assert deal["game"].startswith("poke(") and "mode=deal" in deal["game"] and "played on" in deal["unit"]
    rows = [line for line in (tmp_path / "deal.jsonl").read_text().splitlines() if line]
    assert len(rows) == 2
    assert [row["game_string"] for row in collect(tmp_path)] == [deal["game"]]
    with pytest.raises(ValueError, match="not a variant"):
        run("poke", 0.0, 1, 4, {}, {}, tmp_path / "x", iterations=10, game_string="palace_poker(players=4)")


# ---- Palace Poker: the Q-network's value at the leaves ------------------------------------------

DMC_PALACE = "results/rl/dmc_palace_poker_4.npz"


def _palace_decisions(seed):
    game = load_game("palace_poker(players=4)")
    return [state.clone() for state in _random_play(game.new_initial_state(), np.random.default_rng(seed))]


def _palace_leaf(value_weight, searcher):
    from gamut.solvers.palace_poker.nn_search import NetworkLeaf, palace_prior
    from gamut.solvers.palace_poker.search import PalaceRollout

    game = load_game("palace_poker(players=4)")
    return NetworkLeaf(palace_prior(game, DMC_PALACE), value_weight, PalaceRollout(game), searcher)


def test_palace_advance_stops_at_the_searchers_branching_decision_on_the_heuristics_own_path():
    from gamut.envs.hands import HAND_TABLE
    from gamut.envs.palace_poker import kernels as K
    from gamut.envs.palace_poker import layout as L
    from gamut.envs.rng import rng_state
    from gamut.solvers.palace_poker.heuristic import WORK_SIZE, make_params, play_heuristic
    from gamut.solvers.palace_poker.nn_search import advance_to_decision

    params = make_params(samples=12)
    legal, work = np.empty(L.NUM_CARDS + 64, np.int64), np.empty(WORK_SIZE, np.int64)
    stopped = 0
    for state in _palace_decisions(3)[::3]:
        cfg = state.cfg
        for searcher in range(4):
            whole, part = state.state.copy(), state.state.copy()
            rng_whole, rng_part = rng_state(21 + searcher), rng_state(21 + searcher)
            moves = play_heuristic(whole, cfg, params, rng_whole, legal, work, HAND_TABLE)
            made = advance_to_decision(part, cfg, params, rng_part, searcher, legal, work, HAND_TABLE)
            over = part[L.S_PHASE] == L.PH_OVER
            # It stops at the searcher's own choice (not a discard) or at the end, nowhere else ...
            assert over or (K.current_player(part) == searcher and part[L.S_PHASE] != L.PH_DISCARD)
            stopped += not over
            # ... on the path the heuristic play-out takes from the same generator: finishing it
            # with the play-out gives the play-out's own end, move for move.
            rest = play_heuristic(part, cfg, params, rng_part, legal, work, HAND_TABLE)
            assert made + rest == moves and np.array_equal(part, whole) and np.array_equal(rng_part, rng_whole)
    assert stopped > 5


def test_palace_leaf_without_network_weight_is_the_play_out():
    from gamut.solvers.palace_poker.search import PalaceRollout

    leaf, rollout = _palace_leaf(0.0, 1), PalaceRollout(load_game("palace_poker(players=4)"))
    for state in _palace_decisions(4)[:10]:
        assert np.array_equal(leaf(state, 77), rollout(state, 77))


def test_palace_leaf_mixes_the_searchers_network_value_into_its_play_out():
    from gamut.envs.hands import HAND_TABLE
    from gamut.envs.palace_poker import kernels as K
    from gamut.envs.palace_poker import layout as L
    from gamut.envs.rng import rng_state
    from gamut.solvers.palace_poker.heuristic import WORK_SIZE
    from gamut.solvers.palace_poker.nn_search import advance_to_decision
    from gamut.solvers.palace_poker.search import PalaceRollout

    rollout = PalaceRollout(load_game("palace_poker(players=4)"))
    legal, work = np.empty(64, np.int64), np.empty(WORK_SIZE, np.int64)
    kinds = set()
    leaves = [(_palace_leaf(1.0, seat), _palace_leaf(0.5, seat)) for seat in range(4)]
    for state, searcher in ((s, seat) for s in _palace_decisions(5)[::2] for seat in range(4)):
        full, half = leaves[searcher]
        # Reference: the model plays on from the leaf; the network's best Q-value of the searcher's
        # legal actions there, in chips, or the exact chips when the hand is over.
        position = state.state.copy()
        advance_to_decision(position, state.cfg, rollout.params, rng_state(8), searcher, legal, work, HAND_TABLE)
        if position[L.S_PHASE] == L.PH_OVER:
            value = float(position[L.S_PAYOUT + searcher] - position[L.S_CONTRIB + searcher])
        else:
            n = K.legal_actions(position, state.cfg, legal)
            view = state.clone()
            view.state[:] = position
            value = max(full.network.scores(view, searcher, [int(a) for a in legal[:n]])) * 20.0
        kinds.add(bool(position[L.S_PHASE] == L.PH_OVER))
        got = full(state, 8)
        assert got[searcher] == pytest.approx(value) and np.count_nonzero(got) <= 1
        played = rollout(state, 8)
        mixed = half(state, 8)
        assert mixed[searcher] == pytest.approx(0.5 * played[searcher] + 0.5 * value)
        assert np.array_equal(np.delete(mixed, searcher), np.delete(played, searcher))
    assert kinds == {False, True}


@pytest.mark.parametrize("options, message", [
    ({"value_weight": 2.0}, "value_weight"),
    ({"value_weight": 0.5, "weights": "results/rl/ppo_palace_poker_4.npz"}, "Deep Monte-Carlo"),
])
def test_bad_palace_leaf_value_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        make_bot("palace_poker(players=4)", "nn_ismcts", 0, 0, **options)


def test_palace_nn_ismcts_with_network_leaves_is_reproducible_and_plays_a_hand():
    options = {"weights": DMC_PALACE, "temperature": 0.2, "value_weight": 0.5}
    first = _first_searched_move("palace_poker(players=4)", 3, 9, iterations=60, **options)
    assert first == _first_searched_move("palace_poker(players=4)", 3, 9, iterations=60, **options)
    game = load_game("palace_poker(players=4)")
    bots = [make_bot(game, "nn_ismcts", p, p, iterations=20, **options) for p in range(4)]
    assert sum(_play_through_pyspiel(game, bots, np.random.default_rng(2))) == pytest.approx(0.0)
