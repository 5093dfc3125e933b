"""The agent registry: creation by name, option checking, pyspiel.Bot behaviour."""

import numpy as np
import pyspiel
import pytest

from gamut.solvers.bots import Option, UniformRandomBot, bot_names, describe_bots, make_bot, register_bot

KUHN = pyspiel.load_game("kuhn_poker")


class FirstLegalBot(pyspiel.Bot):
    def __init__(self, player, offset):
        pyspiel.Bot.__init__(self)
        self.player, self.offset = player, offset

    def step(self, state):
        legal = state.legal_actions(self.player)
        return legal[min(self.offset, len(legal) - 1)]

    def restart_at(self, state):
        pass


register_bot(
    "first_legal_test",
    "kuhn_poker",
    lambda game, player, seed, offset: FirstLegalBot(player, offset),
    "plays the legal action at index offset (test agent)",
    {"offset": Option(int, 0, "index into the legal actions")},
)


def test_random_is_available_for_every_game_and_listed_with_options():
    assert "random" in bot_names(KUHN)
    assert "random" in bot_names(pyspiel.load_game("leduc_poker"))
    text = describe_bots(KUHN)
    assert "first_legal_test" in text and "offset (int, default 0)" in text
    assert "first_legal_test" not in bot_names(pyspiel.load_game("leduc_poker"))


def test_bots_play_through_openspiel_evaluate_bots():
    bots = [make_bot(KUHN, "random", player=0, seed=1), make_bot(KUHN, "first_legal_test", player=1, offset=1)]
    returns = pyspiel.evaluate_bots(KUHN.new_initial_state(), bots, 7)
    assert len(returns) == 2 and sum(returns) == 0


def test_same_seed_same_play():
    def actions(seed):
        bot = make_bot(KUHN, "random", player=0, seed=seed)
        state = KUHN.new_initial_state()
        state.apply_action(0)
        state.apply_action(1)
        return [bot.step(state) for _ in range(50)]

    assert actions(4) == actions(4)
    assert actions(4) != actions(5)


def test_random_policy_is_uniform_over_legal_actions():
    bot = UniformRandomBot(0, seed=0)
    state = KUHN.new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    policy, action = bot.step_with_policy(state)
    assert [a for a, _ in policy] == state.legal_actions() and action in state.legal_actions()
    assert np.isclose(sum(p for _, p in policy), 1.0)


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("nonesuch", {}, "unknown agent 'nonesuch' for kuhn_poker; available: .*random"),
        ("random", {"depth": 3}, "agent 'random' has no option 'depth'; its options: none"),
        ("first_legal_test", {"offset": "x"}, "option 'offset' takes int"),
        ("first_legal_test", {"offset": True}, "option 'offset' takes int"),
    ],
)
def test_bad_names_and_options_fail_with_the_valid_ones(name, options, message):
    with pytest.raises(ValueError, match=message):
        make_bot(KUHN, name, **options)


def test_bad_seat_and_duplicate_registration_are_rejected():
    with pytest.raises(ValueError, match="player 2 is not a seat"):
        make_bot(KUHN, "random", player=2)
    with pytest.raises(ValueError, match="already registered"):
        register_bot("first_legal_test", "kuhn_poker", lambda g, p, s: None, "duplicate")


def test_required_options_are_named_when_missing():
    with pytest.raises(ValueError, match="agent 'cfr-policy' needs option 'path'"):
        make_bot(KUHN, "cfr-policy")
    assert "path (str, required)" in describe_bots(KUHN)


def test_agents_that_cannot_play_a_variant_are_not_listed_and_say_why():
    register_bot(
        "two_seats_only_test",
        "kuhn_poker",
        lambda game, player, seed: UniformRandomBot(player, seed),
        "plays two-player Kuhn only (test agent)",
        supports=lambda game: None if game.num_players() == 2 else "solved for two players only",
    )
    three = pyspiel.load_game("kuhn_poker(players=3)")
    assert "two_seats_only_test" in bot_names(KUHN)
    assert "two_seats_only_test" not in bot_names(three)
    with pytest.raises(ValueError, match="cannot play kuhn_poker\\(players=3\\): solved for two players only"):
        make_bot(three, "two_seats_only_test")


def test_every_function_taking_a_game_takes_a_game_string():
    from gamut.solvers.bots import bot_specs

    assert bot_names("kuhn_poker") == bot_names(KUHN)
    assert list(bot_specs("kuhn_poker")) == list(bot_specs(KUHN))
    assert describe_bots("kuhn_poker(players=3)") == describe_bots(pyspiel.load_game("kuhn_poker(players=3)"))
    bot = make_bot("kuhn_poker", "first_legal_test", player=1, offset=1)
    assert isinstance(bot, FirstLegalBot) and bot.player == 1
    with pytest.raises(ValueError, match="nonesuch"):
        make_bot("nonesuch_game", "random")


@pytest.mark.parametrize("call", [make_bot, describe_bots, bot_names])
def test_a_game_that_is_neither_a_string_nor_a_game_is_a_type_error(call):
    args = (3, "random") if call is make_bot else (3,)
    with pytest.raises(TypeError, match="game string .* or a pyspiel.Game; got int 3"):
        call(*args)


def test_generic_table_defaults_are_those_of_the_bots():
    import inspect

    from gamut.solvers.ismcts import DEFAULT_UCT_C
    from gamut.solvers.search.ismcts_bot import DEFAULT_ITERATIONS, ISMCTSBot

    options = make_bot.__globals__["_specs_for_game"](KUHN)["ismcts"].options
    defaults = {k: p.default for k, p in inspect.signature(ISMCTSBot).parameters.items()
                if p.default is not inspect.Parameter.empty}
    assert options["iterations"].default == DEFAULT_ITERATIONS
    assert options["uct_c"].default == DEFAULT_UCT_C
    assert {k: opt.default for k, opt in options.items()} == defaults


def test_listing_the_agents_imports_none_of_their_factories():
    # A fresh interpreter: what describing every declared game's agents imports, and what making one adds.
    script = """
import sys
import gamut
from gamut.envs.registry import declarations
from gamut.solvers.bots import _REGISTRY, describe_bots

for declaration in declarations().values():
    for variant in declaration.variants:
        describe_bots(variant)
factories = {spec.factory.partition(":")[0] for specs in _REGISTRY.values() for spec in specs
             if isinstance(spec.factory, str)}
# The registry itself and the rule-of-thumb kernels whose thresholds the tables list are light; nothing else.
light = {"gamut.solvers.bots"} | {m for m in factories if m.endswith(".heuristic")}
print(sorted((factories - light) & set(sys.modules)))
print(len(factories))
gamut.make_bot("kuhn_poker", "ismcts")
print("gamut.solvers.search.ismcts_bot" in sys.modules)
"""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]"
    assert int(out[1]) >= 10
    assert out[2] == "True"
