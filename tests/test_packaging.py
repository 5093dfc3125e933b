"""One import namespace: ``import gamut`` gives the user API, nothing generic is installed at the top level."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import gamut

REPO = Path(__file__).resolve().parent.parent
LAYERS = {"envs": "gamut.envs", "solvers": "gamut.solvers", "experiments": "gamut.experiments",
          "benchmarks": "gamut.benchmarks"}


def test_every_package_folder_is_listed_in_pyproject():
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {"gamut"}
    for folder, package in LAYERS.items():
        assert setuptools["package-dir"][package] == folder
        for init in (REPO / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO / folder)
            folders.add(".".join([package, *rel.parts]))
    assert folders == set(setuptools["packages"])


def test_user_api():
    game = gamut.load_game("poker_squares(scoring=english)")
    assert game.get_type().short_name == "poker_squares"
    assert "greedy" in gamut.describe_bots(game)
    bot = gamut.make_bot(game, "random", seed=1)
    state = game.new_initial_state()
    state.apply_action(51)
    assert bot.step(state) in state.legal_actions()
    env = gamut.pettingzoo_env("poker_squares")
    assert env.possible_agents == ["player_0"]


@pytest.mark.parametrize("bad, named", [
    ("no_such_game", "unknown game 'no_such_game'"),
    ("poke(hand_size=", "a '(' never closed"),
    ("poker_squares(scoring=nine)", "scoring"),
])
def test_load_game_names_what_is_wrong(bad, named):
    with pytest.raises(ValueError, match=named.replace("(", r"\(")) as err:
        gamut.load_game(bad)
    assert len(str(err.value).splitlines()) <= 3


def test_no_generic_top_level_names_outside_the_checkout(tmp_path):
    code = ("import importlib.util, json; print(json.dumps({n: importlib.util.find_spec(n) is not None "
            "for n in ['gamut', 'envs', 'solvers', 'experiments', 'benchmarks']}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ('{"gamut": true, "envs": false, "solvers": false, "experiments": false, '
                                  '"benchmarks": false}')


@pytest.mark.slow
def test_a_users_own_envs_folder_does_not_hide_the_games(tmp_path):
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / "__init__.py").write_text("")
    code = "import envs, gamut, pyspiel; print(pyspiel.load_game('poke').get_type().short_name)"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "poke"
