"""Game strings are read strictly: what OpenSpiel's parser drops, repeats or crashes on is refused by name."""

import numpy as np
import pyspiel
import pytest

import gamut
from gamut.envs.game_strings import INT_MAX, INT_MIN, parse_game_string
from gamut.envs.serialization import deserialize_state
from gamut.envs.versions import game_variants
from gamut.experiments.cli import main

WELL_FORMED = [
    *(variant for variants in game_variants().values() for variant in variants),
    "kuhn_poker", "leduc_poker()", "turn_based_simultaneous_game(game=goofspiel(num_cards=4,players=2))",
    "poke(max_deals=1000000,mode=rubber)", "poke(trick_value=0.25)", "poker_squares(scoring=0;1;2;3;4;5;6;7;8;9)",
]


def _openspiel_view(params: dict) -> dict:
    """OpenSpiel's reading of a game string, as text (nested games as game strings), without its name."""
    def text(value):
        if isinstance(value, dict):
            inner = {k: v for k, v in value.items() if k != "name"}
            return value["name"] + ("(" + ",".join(f"{k}={text(v)}" for k, v in inner.items()) + ")" if inner else "")
        return str(value).lower() if isinstance(value, bool) else str(value)
    return {k: text(v) for k, v in params.items() if k != "name"}


@pytest.mark.parametrize("game_string", WELL_FORMED)
def test_a_well_formed_string_reads_as_openspiel_reads_it(game_string):
    name, params = parse_game_string(game_string)
    theirs = pyspiel.game_parameters_from_string(game_string)
    assert name == theirs["name"]
    ours = {k: v for k, v in params.items()}
    # OpenSpiel sorts nested parameters and may write numbers its own way: compare by value.
    expected = _openspiel_view(theirs)
    assert set(ours) == set(expected)
    for key, value in ours.items():
        if "(" in value:
            assert parse_game_string(value)[0] == expected[key].split("(")[0]
        else:
            assert value == expected[key] or float(value) == float(expected[key])


def test_random_well_formed_strings_round_trip():
    rng = np.random.default_rng(5)
    for _ in range(2000):
        keys = [f"k{i}" for i in rng.choice(20, size=rng.integers(0, 6), replace=False)]
        params = {k: str(int(rng.integers(INT_MIN, INT_MAX, endpoint=True))) if rng.random() < 0.5
                  else rng.choice(["true", "false", "deal", "0.5", "-3.25"]) for k in keys}
        text = "g" + ("(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")" if params or rng.random() < 0.5
                      else "")
        assert parse_game_string(text) == ("g", params)


MALFORMED = [
    ("poke(mode=rubber)junk", "text after the parameters"),
    ("poke(mode=rubber,mode=deal)", "parameter 'mode' is given twice"),
    ("poker_squares(players=3,)", "an empty parameter"),
    ("poker_squares(,players=2)", "an empty parameter"),
    ("palace_poker(players=" + str(10**30) + ")", "outside the whole numbers a game parameter holds"),
    (f"poke(max_deals={INT_MAX + 1})", "outside the whole numbers"),
    ("poke(trick_value=nan)", "not a finite number"),
    ("poke(trick_value=inf)", "not a finite number"),
    ("poke(mode=)", "parameter 'mode' has no value"),
    ("poke(=3)", "'' is not a parameter name"),
    ("poke(mode)", "has no '='"),
    ("poke(mode=rubber))", "a ')' closes nothing"),
    ("poke(mode=(rubber)", "never closed"),
    ("poke (mode=deal)", "unexpected text"),
    (" poke", "must start with the game's name"),
    ("poke(mode= deal)", "spaces around it"),
    ("turn_based_simultaneous_game(game=goofspiel(num_cards=4,num_cards=5))", "'num_cards' is given twice"),
]


@pytest.mark.parametrize("game_string, problem", MALFORMED)
def test_a_malformed_string_is_refused_naming_the_problem(game_string, problem):
    with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        parse_game_string(game_string)
    with pytest.raises(ValueError, match="game string"):
        gamut.load_game(game_string)


def test_a_game_that_is_not_a_string_gets_a_type_error():
    with pytest.raises(TypeError, match="game string .* or a pyspiel.Game; got int"):
        gamut.load_game(3)


@pytest.mark.parametrize("argv", [
    ["poke", "match", "--agents", "random", "random", "--rubbers", "1", "--game", "poke(mode=rubber)junk"],
    ["poke", "match", "--agents", "random", "random", "--rubbers", "1", "--game", "poke(mode=rubber,mode=deal)"],
    ["play", "poker_squares(players=2,)"],
    ["cfr", "--game", "kuhn_poker()x", "--algo", "cfr", "--iterations", "1"],
])
def test_every_game_flag_refuses_a_malformed_string_before_any_work(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "game string" in err and "Traceback" not in err


def test_a_saved_state_with_text_after_its_game_string_is_refused():
    state = gamut.load_game("poke(mode=deal)").new_initial_state()
    text = state.serialize()
    header, actions = text.split("\n")
    with pytest.raises(ValueError, match="text after the parameters"):
        deserialize_state(header + "__dict__=x\n" + actions)
    assert str(deserialize_state(text).get_game()) == str(state.get_game())


@pytest.mark.parametrize("game_string", WELL_FORMED)
def test_the_string_of_a_loaded_game_reads_back_to_the_same_game(game_string):
    game = gamut.load_game(game_string)
    assert str(gamut.load_game(str(game))) == str(game)


def test_a_parameter_beyond_what_the_game_can_hold_is_refused_by_the_game():
    # 2**31 - 1 deals fit a C++ int, but the moves they allow would not (OpenSpiel's max_game_length).
    with pytest.raises(ValueError, match=r"max_deals=2147483647 must be an integer in 1\.\.1000000"):
        gamut.load_game("poke(max_deals=2147483647,mode=rubber)")
