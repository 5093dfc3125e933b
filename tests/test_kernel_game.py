"""The shared base of the pyspiel games (``gamut.envs.kernel_game``), on a tiny game of its own and on the four."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers the games)
from gamut.envs.kernel_game import KernelGame, KernelState, instance_utility, register, tensor_views
from gamut.envs.palace_poker.game import PalacePokerGame
from gamut.envs.poke.game import PokeGame
from gamut.envs.poker_dice.game import PokerDiceGame
from gamut.envs.poker_squares.game import PokerSquaresGame

Utility = pyspiel.GameType.Utility
GAMES = (PokeGame, PokerDiceGame, PalacePokerGame, PokerSquaresGame)


class GuessState(KernelState):
    """Chance rolls a face, then the guesser (who sees it) names one; 1 for the right face, else 0."""

    def __init__(self, game):
        super().__init__(game)
        self.state = np.full(2, -1, dtype=np.int64)  # (face rolled, face named), -1 before

    def current_player(self):
        if self.state[0] < 0:
            return pyspiel.PlayerId.CHANCE
        return pyspiel.PlayerId.TERMINAL if self.state[1] >= 0 else 0

    def _legal_actions(self, player):
        return list(range(self.get_game().params["faces"]))

    def chance_outcomes(self):
        faces = self.get_game().params["faces"]
        return [(f, 1.0 / faces) for f in range(faces)]

    def apply(self, action):
        self.state[0 if self.state[0] < 0 else 1] = action

    def _action_to_string(self, player, action):
        return f"{'roll' if player == pyspiel.PlayerId.CHANCE else 'name'} {action}"

    def is_terminal(self):
        return bool(self.state[1] >= 0)

    def returns(self):
        return [float(self.state[0] == self.state[1])]

    def __str__(self):
        return f"rolled {self.state[0]} named {self.state[1]}"


class GuessObserver:
    def __init__(self, iig_obs_type):
        self.iig_obs_type = iig_obs_type
        self.tensor = np.zeros(0, np.float32)
        self.dict = {}


class GuessGame(KernelGame):
    short_name = "kernel_game_test_guess"
    long_name = "Guess the face (a test of the shared base)"
    information = pyspiel.GameType.Information.PERFECT_INFORMATION
    utility = Utility.GENERAL_SUM
    min_num_players = max_num_players = 1
    provides_information_state = False
    default_params = {"faces": 3, "label": "plain"}
    state_class = GuessState

    @staticmethod
    def check_values(p):
        if p["faces"] < 2:
            raise ValueError(f"faces={p['faces']} must be at least 2")
        return {**p, "label": p["label"].lower()}

    def configure(self, p):
        return pyspiel.GameInfo(num_distinct_actions=p["faces"], max_chance_outcomes=p["faces"], num_players=1,
                                min_utility=0.0, max_utility=1.0, max_game_length=1)

    def observer(self, iig_obs_type, params):
        return GuessObserver(iig_obs_type)


register(GuessGame)


def test_the_registered_game_type_is_built_from_the_declarations():
    game_type = next(t for t in pyspiel.registered_games() if t.short_name == "kernel_game_test_guess")
    assert game_type.long_name == "Guess the face (a test of the shared base)"
    assert game_type.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game_type.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert game_type.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert game_type.utility == Utility.GENERAL_SUM
    assert (game_type.min_num_players, game_type.max_num_players) == (1, 1)
    assert not game_type.provides_information_state_string and not game_type.provides_information_state_tensor
    assert game_type.provides_observation_string and game_type.provides_observation_tensor
    assert game_type.parameter_specification == {"faces": 3, "label": "plain"}


def test_parameters_are_completed_then_checked_by_the_game():
    game = pyspiel.load_game("kernel_game_test_guess(label=LOUD)")
    # The game's check put the label in canonical form; the default filled in faces.
    assert game.params == {"faces": 3, "label": "loud"}
    assert str(game) == "kernel_game_test_guess(faces=3,label=loud)"
    assert game.num_distinct_actions() == 3
    with pytest.raises(ValueError, match="faces=1 must be at least 2"):
        GuessGame({"faces": 1})


def test_an_unknown_parameter_is_refused_naming_the_allowed_ones_before_any_value_check():
    with pytest.raises(ValueError) as err:
        GuessGame.check_params({"sides": 6, "faces": 1})
    assert str(err.value) == "unknown kernel_game_test_guess parameter(s) ['sides']; allowed: ['faces', 'label']"


@pytest.mark.parametrize("game_class", GAMES)
def test_each_game_names_its_unknown_parameters(game_class):
    with pytest.raises(ValueError) as err:
        game_class.check_params({"zz": 1, "aa": 2})
    allowed = sorted(game_class.default_params)
    assert str(err.value) == f"unknown {game_class.short_name} parameter(s) ['aa', 'zz']; allowed: {allowed}"


def test_an_illegal_action_is_refused_before_the_move_is_made():
    state = GuessGame().new_initial_state()
    with pytest.raises(ValueError, match=r"action 3 is not legal here; legal actions: 0 \(roll 0\), 1 \(roll 1\)"):
        state.apply_action(3)
    assert state.state.tolist() == [-1, -1] and state.history() == []
    state.apply_action(2)
    state.apply_action(2)
    assert state.returns() == [1.0]
    with pytest.raises(ValueError, match="the game is over"):
        state.apply_action(0)
    assert state.state.tolist() == [2, 2]


def test_states_are_saved_as_text_and_loaded_by_replay():
    game = pyspiel.load_game("kernel_game_test_guess(faces=4)")
    state = game.new_initial_state()
    state.apply_action(3)
    text = state.serialize()
    assert text == "gamut-state v1 kernel_game_test_guess(faces=4,label=plain)\n3"
    loaded = game.deserialize_state(text)
    assert type(loaded) is GuessState and loaded.state.tolist() == [3, -1]
    with pytest.raises(ValueError, match="action 4 is not legal for chance"):
        game.deserialize_state("gamut-state v1 kernel_game_test_guess(faces=4,label=plain)\n4")


def test_a_clone_copies_the_state_array():
    state = GuessGame().new_initial_state()
    state.apply_action(1)
    clone = state.clone()
    clone.apply_action(0)
    assert state.state.tolist() == [1, -1] and clone.state.tolist() == [1, 0]


def test_the_observer_gets_the_default_observation_type_unless_given_one():
    game = GuessGame()
    assert game.make_py_observer().iig_obs_type.perfect_recall is False
    given = pyspiel.IIGObservationType(perfect_recall=True)
    assert game.make_py_observer(given).iig_obs_type is given


@pytest.mark.parametrize("info_sum, utility", [(None, Utility.GENERAL_SUM), (0.0, Utility.ZERO_SUM),
                                               (1.0, Utility.CONSTANT_SUM)])
def test_an_instance_states_the_utility_its_game_info_gives(info_sum, utility):
    kwargs = {} if info_sum is None else {"utility_sum": info_sum}
    info = pyspiel.GameInfo(num_distinct_actions=2, max_chance_outcomes=2, num_players=2, min_utility=-1.0,
                            max_utility=1.0, max_game_length=2, **kwargs)
    assert instance_utility(info) == utility


@pytest.mark.parametrize("game_string, registered, instance", [
    ("poke()", Utility.ZERO_SUM, Utility.ZERO_SUM),
    ("palace_poker(players=4)", Utility.ZERO_SUM, Utility.ZERO_SUM),
    ("poker_dice()", Utility.GENERAL_SUM, Utility.ZERO_SUM),
    ("poker_dice(variant=ranking,players=3)", Utility.GENERAL_SUM, Utility.CONSTANT_SUM),
    ("poker_dice(variant=ranking,players=3,zero_sum=true)", Utility.GENERAL_SUM, Utility.ZERO_SUM),
    ("poker_dice(variant=yacht12,players=1)", Utility.GENERAL_SUM, Utility.GENERAL_SUM),
    ("poker_squares()", Utility.GENERAL_SUM, Utility.GENERAL_SUM),
    ("poker_squares(players=2)", Utility.GENERAL_SUM, Utility.ZERO_SUM),
])
def test_the_games_register_one_utility_and_state_their_instances_own(game_string, registered, instance):
    game = pyspiel.load_game(game_string)
    name = game.get_type().short_name
    assert next(t for t in pyspiel.registered_games() if t.short_name == name).utility == registered
    assert game.get_type().utility == instance


@pytest.mark.parametrize("game_class", GAMES)
def test_an_instance_type_differs_from_the_registered_one_in_utility_alone(game_class):
    fields = ("short_name", "long_name", "dynamics", "chance_mode", "information", "reward_model",
              "max_num_players", "min_num_players", "provides_information_state_string",
              "provides_information_state_tensor", "provides_observation_string", "provides_observation_tensor",
              "parameter_specification")
    registered = next(t for t in pyspiel.registered_games() if t.short_name == game_class.short_name)
    for utility in Utility.__members__.values():
        built = game_class.game_type(utility)
        assert built.utility == utility
        assert all(getattr(built, f) == getattr(registered, f) for f in fields)


def test_an_observer_tensor_is_its_pieces_end_to_end_and_each_named_view_writes_into_it():
    tensor, views = tensor_views([("seat", (2,)), ("cards", (2, 3)), ("pot", ())])
    assert tensor.dtype == np.float32 and tensor.shape == (9,) and not tensor.any()
    assert list(views) == ["seat", "cards", "pot"]
    assert [v.shape for v in views.values()] == [(2,), (2, 3), ()]
    views["seat"][1] = 1.0
    views["cards"][1, 2] = 2.0
    views["pot"][...] = 3.0
    assert tensor.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 3.0]


@pytest.mark.parametrize("game_string", ["poke(hand_size=2,num_ranks=3,num_suits=2)", "poker_dice(players=3)",
                                         "palace_poker()", "poker_squares(players=2)"])
def test_each_game_observer_dict_views_its_tensor(game_string):
    game = pyspiel.load_game(game_string)
    observer = game.make_py_observer()
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    observer.set_from(state, state.current_player())
    assert sum(v.size for v in observer.dict.values()) == observer.tensor.size
    assert np.array_equal(np.concatenate([v.ravel() for v in observer.dict.values()]), observer.tensor)
    assert all(np.shares_memory(v, observer.tensor) for v in observer.dict.values())
