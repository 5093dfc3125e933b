"""ISMCTS: strength, known decisions, n-player backup, determinism, the rollout protocol, errors, agent."""

import math
from argparse import Namespace

import numpy as np
import pyspiel
import pytest
from open_spiel.python.games import kuhn_poker as python_kuhn

from gamut.solvers.bots import UniformRandomBot, bot_names, make_bot
from gamut.solvers.ismcts import ISMCTS, require_searchable
from gamut.solvers.search.ismcts_bot import ISMCTSBot
from gamut.solvers.search.leaf import make_evaluator, random_rollout, sample_outcome
from gamut.solvers.stats import mean_ci
from tests.chance import apply_sampled_chance

KUHN = pyspiel.load_game("kuhn_poker")
LEDUC = pyspiel.load_game("leduc_poker")
PASS, BET = 0, 1


def _state(game, actions):
    state = game.new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


def _returns_against_random(game, games, iterations, seed=0):
    """The ISMCTS seat's return in each game, rotating its seat, the other seats uniformly random."""
    out = []
    for i in range(games):
        seat = i % game.num_players()
        bots = [UniformRandomBot(p, seed + 1000 * i + p) for p in range(game.num_players())]
        bots[seat] = ISMCTSBot(game, seat, seed + i, iterations=iterations)
        out.append(pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + i)[seat])
    return out


@pytest.mark.parametrize("game_string, games", [("leduc_poker", 400), ("kuhn_poker(players=3)", 600)])
@pytest.mark.slow
def test_beats_uniform_random_with_a_ci_separated_margin(game_string, games):
    # Seats rotate, so a random player's expected return here is 0 by symmetry.
    estimate = mean_ci(_returns_against_random(pyspiel.load_game(game_string), games, iterations=200))
    assert estimate.n == games
    assert estimate.ci95_low > 0, estimate


@pytest.mark.parametrize(
    "game_string, actions, best",
    [
        ("kuhn_poker", [2, 0, PASS, BET], BET),  # king facing a bet: calling always wins 2
        ("kuhn_poker", [0, 2, PASS, BET], PASS),  # jack facing a bet: fold (-1) beats calling (-2)
        # Three players, each node backs up its own player's return: player 2 (the top card, 3)
        # calls a bet, player 2 holding the bottom card folds.
        ("kuhn_poker(players=3)", [0, 1, 3, BET, PASS], BET),
        ("kuhn_poker(players=3)", [3, 1, 0, BET, PASS], PASS),
    ],
)
def test_known_decisions(game_string, actions, best):
    game = pyspiel.load_game(game_string)
    result = ISMCTS(game).search(_state(game, actions), np.random.default_rng(1), iterations=1000)
    assert result.best_action() == best
    assert sum(result.visits) == result.iterations == 1000


@pytest.mark.parametrize(
    "moves, best",
    [
        ([0, 3, 1, 4], 2),  # x: 0, 1; o: 3, 4; x to move wins at 2
        ([0, 4, 1], 2),  # o to move must block x's row 0-1-2
    ],
)
def test_perfect_information_wins_and_blocks_in_tic_tac_toe(moves, best):
    game = pyspiel.load_game("tic_tac_toe")
    result = ISMCTS(game).search(_state(game, moves), np.random.default_rng(0), iterations=2000)
    assert result.best_action() == best


def test_chance_nodes_inside_the_tree_are_sampled():
    game = pyspiel.load_game("pig(winscore=10)")
    state = game.new_initial_state()
    search = ISMCTS(game)
    result = search.search(state, np.random.default_rng(0), iterations=300)
    assert result.num_nodes > 1 and set(result.actions) == set(state.legal_actions())


@pytest.mark.parametrize("game_string", ["leduc_poker(players=3)", "kuhn_poker(players=4)"])
def test_n_player_games_play_through_the_registry(game_string):
    game = pyspiel.load_game(game_string)
    bots = [make_bot(game, "ismcts", player=p, seed=p, iterations=50) for p in range(game.num_players())]
    for seed in range(3):
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
        assert len(returns) == game.num_players() and math.isclose(sum(returns), 0.0, abs_tol=1e-9)


def test_same_seed_and_iterations_give_the_same_search_and_play():
    state = _state(LEDUC, [0, 3])

    def run(seed):
        return ISMCTS(LEDUC).search(state, np.random.default_rng(seed), iterations=300)

    first, again, other = run(7), run(7), run(8)
    assert first.visits == again.visits and first.mean_returns == again.mean_returns
    assert first.num_nodes == again.num_nodes
    assert first.visits != other.visits

    def play(seed):
        bots = [ISMCTSBot(LEDUC, 0, seed, iterations=100), UniformRandomBot(1, 5)]
        state = LEDUC.new_initial_state()
        rng = np.random.default_rng(3)
        while not state.is_terminal():
            if state.is_chance_node():
                apply_sampled_chance(state, rng)
            else:
                state.apply_action(bots[state.current_player()].step(state))
        return state.history()

    assert play(11) == play(11)


def test_a_time_budget_runs_at_least_one_iteration():
    state = _state(LEDUC, [0, 3])
    result = ISMCTS(LEDUC).search(state, np.random.default_rng(0), seconds=0.02)
    assert result.iterations >= 1 and sum(result.visits) == result.iterations
    bot = make_bot(LEDUC, "ismcts", player=0, seed=0, seconds=0.02)
    assert bot.step(state) in state.legal_actions() and bot.last_search.iterations >= 1


def test_the_search_leaves_the_root_state_unchanged():
    state = _state(LEDUC, [0, 3, 1])
    before = (state.history(), str(state))
    ISMCTS(LEDUC).search(state, np.random.default_rng(0), iterations=200)
    assert (state.history(), str(state)) == before


# --- the rollout protocol -------------------------------------------------------------------


class ToyKuhnState(python_kuhn.KuhnPokerState):
    """OpenSpiel's Python Kuhn poker plus resampling and a ``rollout_returns`` fast path."""

    rollout_seeds: list = []
    resample_calls = 0

    def resample_from_infostate(self, player_id, probability_sampler):
        ToyKuhnState.resample_calls += 1
        cards = list(self.cards)
        if len(cards) == 2:
            others = sorted(python_kuhn._DECK - {cards[player_id]})
            cards[1 - player_id] = others[int(probability_sampler() * len(others))]
        state = self.get_game().new_initial_state()
        for action in cards + list(self.bets):
            state.apply_action(action)
        return state

    def rollout_returns(self, seed):
        ToyKuhnState.rollout_seeds.append(seed)
        work = self.clone()  # the protocol forbids changing self
        rng = np.random.default_rng(seed)
        while not work.is_terminal():
            if work.is_chance_node():
                outcomes = [a for a, _ in work.chance_outcomes()]
                work.apply_action(outcomes[rng.integers(len(outcomes))])
            else:
                work.apply_action(int(rng.choice(work.legal_actions())))
        return np.asarray(work.returns(), dtype=np.float64)


class ToyKuhnGame(python_kuhn.KuhnPokerGame):
    def __init__(self, params=None):
        pyspiel.Game.__init__(self, TOY_TYPE, python_kuhn._GAME_INFO, params or {})

    def new_initial_state(self):
        return ToyKuhnState(self)


def _toy_type(short_name):
    return pyspiel.GameType(
        short_name=short_name,
        long_name=f"Kuhn poker for the ISMCTS tests ({short_name})",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=True,
    )


TOY_TYPE = _toy_type("ismcts_test_toy_kuhn")
pyspiel.register_game(TOY_TYPE, ToyKuhnGame)
TOY = pyspiel.load_game("ismcts_test_toy_kuhn")


@pytest.fixture
def toy_counters():
    ToyKuhnState.rollout_seeds = []
    ToyKuhnState.resample_calls = 0
    return ToyKuhnState


def test_the_game_rollout_hook_is_used_when_the_states_provide_it(toy_counters):
    state = _state(TOY, [2, 0, PASS, BET])
    search = ISMCTS(TOY)  # its check of the game resamples once
    toy_counters.resample_calls = 0
    result = search.search(state, np.random.default_rng(0), iterations=400)
    assert len(toy_counters.rollout_seeds) == result.leaf_evaluations > 0
    assert toy_counters.resample_calls == 400  # one determinization per iteration, nothing more
    assert result.best_action() == BET

    toy_counters.rollout_seeds = []
    ISMCTS(TOY, evaluator="api").search(state, np.random.default_rng(0), iterations=100)
    assert toy_counters.rollout_seeds == []

    result = ISMCTS(TOY, evaluator="state", rollouts=3).search(state, np.random.default_rng(0), iterations=50)
    seeds = toy_counters.rollout_seeds
    assert len(seeds) == 3 * result.leaf_evaluations and len(set(seeds)) == len(seeds)
    assert all(0 <= s < 2**63 for s in seeds)


def test_the_toy_hook_keeps_its_contract(toy_counters):
    state = _state(TOY, [1, 2, PASS])
    before = state.history()
    first = state.rollout_returns(42)
    assert state.history() == before and first.dtype == np.float64 and first.shape == (2,)
    assert np.array_equal(first, state.rollout_returns(42))


def test_a_custom_evaluator_drives_the_choice():
    # Player 1 faces a raise holding a queen; the honest search re-raises. An evaluator that
    # rewards calling (action 1) at every leaf below it must flip the choice.
    state = _state(LEDUC, [0, 3, 2])
    depth = len(state.history())
    calls = []

    def call_loving(leaf, seed):
        calls.append(seed)
        reward = 1.0 if leaf.history()[depth] == 1 else -1.0
        return [-reward, reward]

    honest = ISMCTS(LEDUC).search(state, np.random.default_rng(0), iterations=300)
    assert honest.best_action() == 2
    result = ISMCTS(LEDUC, evaluator=call_loving).search(state, np.random.default_rng(0), iterations=300)
    assert result.best_action() == 1 and len(calls) == result.leaf_evaluations > 0


def test_random_rollout_is_seeded_and_samples_uniformly():
    state = _state(KUHN, [0])
    assert random_rollout(state.clone(), 5) == random_rollout(state.clone(), 5)
    # The second card is dealt by chance inside the play-out: uniform over the two left.
    counts = np.zeros(3)
    for seed in range(3000):
        work = state.clone()
        random_rollout(work, seed)
        counts[work.history()[1]] += 1
    assert counts[0] == 0 and abs(counts[1] / 3000 - 0.5) < 0.03
    outcomes = [(4, 0.25), (7, 0.75)]
    assert sample_outcome(outcomes, 0.2) == 4 and sample_outcome(outcomes, 0.3) == 7


def test_averaged_play_outs_clone_all_but_the_last_and_return_the_mean():
    state = _state(LEDUC, [0, 3])
    seen = []

    def recorder(leaf, seed):
        seen.append((leaf, seed))
        return [float(len(seen)), -float(len(seen))]

    returns = make_evaluator(LEDUC, recorder, rollouts=3)(state, 10)
    assert np.allclose(returns, [2.0, -2.0])
    assert [leaf is state for leaf, _ in seen] == [False, False, True]
    assert len({seed for _, seed in seen}) == 3 and seen[0][1] == 10


def test_random_rollout_decisions_are_uniform_over_legal_actions():
    state = _state(LEDUC, [0, 3, 1, 2])  # check, raise: fold, call and raise are legal
    assert state.legal_actions() == [0, 1, 2]
    first = np.zeros(3)
    for seed in range(3000):
        work = state.clone()
        random_rollout(work, seed)
        first[work.history()[4]] += 1
    assert np.all(np.abs(first / 3000 - 1 / 3) < 0.03), first


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, message",
    [
        ({"iterations": 0}, "'iterations' must be >= 1"),
        ({"seconds": -1.0}, "'seconds' must be >= 0"),
        ({"seconds": math.inf}, "option 'seconds' takes at most 600, got inf"),
        ({"uct_c": -0.5}, "uct_c must be a finite number >= 0"),
        ({"uct_c": math.nan}, "uct_c must be a finite number >= 0"),
        ({"rollout": "fast"}, "'rollout' must be one of auto, api, state"),
        ({"rollout": "state"}, "evaluator 'state' needs states with a rollout_returns"),
        ({"rollouts": 0}, "rollouts must be an int >= 1"),
        ({"iterations": 2.5}, "option 'iterations' takes int"),
    ],
)
def test_bad_options_fail_clearly(options, message):
    with pytest.raises(ValueError, match=message):
        make_bot(LEDUC, "ismcts", player=0, seed=0, **options)


@pytest.mark.parametrize(
    "game_string, message",
    [
        ("liars_dice", "needs states that implement resample_from_infostate; liars_dice does not"),
        ("python_kuhn_poker", "needs states that implement resample_from_infostate; python_kuhn_poker"),
        ("goofspiel", "sequential games only; goofspiel has SIMULTANEOUS moves"),
    ],
)
def test_games_it_cannot_search_are_refused_by_the_factory(game_string, message):
    game = pyspiel.load_game(game_string)
    assert "ismcts" in bot_names(game)
    with pytest.raises(ValueError, match=message):
        make_bot(game, "ismcts", player=0, seed=0)
    require_searchable(KUHN)


def test_bad_search_calls_fail_clearly():
    search = ISMCTS(LEDUC)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="searches decision nodes"):
        search.search(LEDUC.new_initial_state(), rng, iterations=10)
    with pytest.raises(ValueError, match="exactly one budget"):
        search.search(_state(LEDUC, [0, 3]), rng, iterations=10, seconds=1.0)
    with pytest.raises(ValueError, match="iterations must be an int >= 1"):
        search.search(_state(LEDUC, [0, 3]), rng, iterations=0)
    with pytest.raises(ValueError, match="unknown leaf evaluator 'fast'"):
        make_evaluator(LEDUC, "fast")
    short = ISMCTS(LEDUC, evaluator=lambda state, seed: [0.0])
    with pytest.raises(ValueError, match="returned 1 values for 2 players"):
        short.search(_state(LEDUC, [0, 3]), rng, iterations=5)
    with pytest.raises(ValueError, match=r"this search is for leduc_poker\(\), the state is of kuhn_poker\(\)"):
        search.search(_state(KUHN, [0, 1]), rng, iterations=5)
    bot = make_bot(LEDUC, "ismcts", player=1, seed=0)
    with pytest.raises(ValueError, match="plays seat 1, but the player to act is 0"):
        bot.step(_state(LEDUC, [0, 3]))


class CarelessKuhnState(ToyKuhnState):
    """Swaps the two dealt cards: states the searching player can tell apart from its own."""

    def resample_from_infostate(self, player_id, probability_sampler):
        cards = self.cards[::-1]
        state = self.get_game().new_initial_state()
        for action in cards + list(self.bets):
            state.apply_action(action)
        return state


class CarelessKuhnGame(ToyKuhnGame):
    def __init__(self, params=None):
        pyspiel.Game.__init__(self, CARELESS_TYPE, python_kuhn._GAME_INFO, params or {})

    def new_initial_state(self):
        return CarelessKuhnState(self)


CARELESS_TYPE = _toy_type("ismcts_test_careless_kuhn")
pyspiel.register_game(CARELESS_TYPE, CarelessKuhnGame)


def test_an_inconsistent_resampler_is_reported():
    game = pyspiel.load_game("ismcts_test_careless_kuhn")
    with pytest.raises(ValueError, match=r"resample_from_infostate\(0, ...\) gave a state with another"):
        ISMCTS(game).search(_state(game, [2, 0]), np.random.default_rng(0), iterations=200)


def test_policy_is_the_visit_distribution_and_single_actions_are_not_searched():
    bot = make_bot(LEDUC, "ismcts", player=0, seed=0, iterations=100)
    policy, action = bot.step_with_policy(_state(LEDUC, [0, 3]))
    assert math.isclose(sum(p for _, p in policy), 1.0) and action == max(policy, key=lambda ap: ap[1])[0]
    assert bot.last_search.iterations == 100
    game = pyspiel.load_game("tic_tac_toe")
    last_cell = _state(game, [0, 1, 2, 4, 3, 5, 7, 6])
    bot = make_bot(game, "ismcts", player=0, seed=0)
    assert bot.step_with_policy(last_cell) == ([(8, 1.0)], 8) and bot.last_search is None


def test_benchmark_runs_on_a_tiny_size():
    from gamut.benchmarks import ismcts as bench

    result = bench.run(Namespace(game="kuhn_poker", iterations=20, positions=2, repeats=1, uct_c=1.0, seed=0))
    assert result["ours_iterations_per_s"] > 0 and result["openspiel_python_iterations_per_s"] > 0
    assert "ours_kernel_iterations_per_s" not in result
    toy = bench.run(Namespace(game="ismcts_test_toy_kuhn", iterations=20, positions=2, repeats=1, uct_c=1.0,
                              seed=0))
    assert toy["ours_kernel_iterations_per_s"] > 0
