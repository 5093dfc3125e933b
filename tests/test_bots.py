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
