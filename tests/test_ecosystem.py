"""Every variant of every toolkit game in OpenSpiel's conformance test, OpenSpiel RL and the agent registry."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python import rl_environment

import gamut.envs  # noqa: F401  (registers the toolkit's games)
from gamut.envs.versions import game_variants
from gamut.solvers.bots import make_bot

SMALL_BUDGETS = {"iterations": 4, "seconds": 0.0, "simulations": 4, "rollouts": 1}
VARIANTS = [variant for variants in game_variants().values() for variant in variants]


@pytest.mark.parametrize("variant", VARIANTS)
def test_openspiel_conformance(variant):
    pyspiel.random_sim_test(pyspiel.load_game(variant), num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", VARIANTS)
def test_openspiel_rl_environment_plays_an_episode(variant):
    # Environment(game, seed=...) drops the seed for a loaded game; a seeded sampler makes chance reproducible.
    env = rl_environment.Environment(
        pyspiel.load_game(variant), chance_event_sampler=rl_environment.ChanceEventSampler(seed=1)
    )
    rng = np.random.default_rng(0)
    step = env.reset()
    while not step.last():
        player = step.observations["current_player"]
        legal = step.observations["legal_actions"][player]
        step = env.step([int(rng.choice(legal))])
    assert len(step.rewards) == env.num_players


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.slow
def test_every_registered_agent_plays_through_evaluate_bots(variant):
    from gamut.solvers.bots import bot_specs

    game = pyspiel.load_game(variant)
    for name, spec in bot_specs(game).items():
        if any(option.required for option in spec.options.values()):
            continue  # needs a file made for this game (e.g. a trained policy); tested with its solver
        # The smallest search budgets: this checks that every agent plays every variant, not how well.
        small = {key: value for key, value in SMALL_BUDGETS.items() if key in spec.options}
        bots = [make_bot(game, name, player=p, seed=p, **small) for p in range(game.num_players())]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
        assert len(returns) == game.num_players(), name


@pytest.mark.parametrize("variant", VARIANTS)
def test_an_illegal_action_is_named_and_changes_nothing(variant):
    game = pyspiel.load_game(variant)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    before = state.serialize()
    illegal = next(a for a in range(game.num_distinct_actions() + 1) if a not in state.legal_actions())
    with pytest.raises((ValueError, pyspiel.SpielError), match=f"action {illegal}( \\(.*\\))? is not legal here; legal actions"):
        state.apply_action(illegal)
    assert state.serialize() == before
