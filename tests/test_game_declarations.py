"""Each game declares itself once, in its own package, and every generic layer reads the declarations.

The toy game (``tests/toy_games/toy_nim``, copied to a temporary folder) is a
fifth game that only its own package knows: through ``GAMUT_GAMES`` it works
in the Python API and in ``gamut play``, ``gamut bench vector`` and
``gamut train`` with no edit anywhere else.
"""

import ast
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gamut.envs.declaration import GameDeclaration, resolve
from gamut.envs.registry import GAMES_ENV, _declarations_for, declaration_of, declarations

REPO = Path(__file__).resolve().parent.parent
TOY = Path(__file__).resolve().parent / "toy_games" / "toy_nim"
BUILT_IN = ("palace_poker", "poke", "poker_dice", "poker_squares")


def test_the_toolkit_finds_its_four_games_from_their_packages():
    found = declarations()
    assert tuple(found) == BUILT_IN
    for name, declaration in found.items():
        assert declaration.name == name and declaration.game == f"gamut.envs.{name}.game"
        assert declaration.variants[0].startswith(name)
        # Every reference resolves: the classes and hooks a layer would import on first use.
        assert resolve(declaration.vector).game_name == name
        assert resolve(declaration.view).opponent
        for reference in (declaration.heuristic, declaration.running_score, *declaration.replots.values()):
            if reference:
                assert callable(resolve(reference))
    assert declaration_of("poke(mode=rubber)") is found["poke"] and declaration_of("kuhn_poker") is None


def test_a_declaration_refuses_what_cannot_be_a_game():
    with pytest.raises(ValueError, match="identifier"):
        GameDeclaration(name="my game", version=1, game="x")
    with pytest.raises(ValueError, match="version must be a whole number >= 1"):
        GameDeclaration(name="g", version=0, game="x")
    with pytest.raises(ValueError, match="low <= high"):
        GameDeclaration(name="g", version=1, game="x", observation_bounds=(1.0, 0.0))
    assert GameDeclaration(name="g", version=1, game="x").variants == ("g()",)


def test_a_named_game_package_that_is_missing_or_undeclared_is_named(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "not_a_game").mkdir()
    (tmp_path / "not_a_game" / "__init__.py").write_text("")
    with pytest.raises(ImportError, match="GAMUT_GAMES names the game package 'no_such_game_package'"):
        _declarations_for("no_such_game_package")
    with pytest.raises(ValueError, match="'not_a_game', which defines no GAME declaration"):
        _declarations_for("not_a_game")


def _strings_outside_docstrings(path: Path):
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(["gamut", *parts[:-1]] + ([] if parts[-1] == "__init__" else parts[-1:]))


def test_no_generic_module_names_a_game():
    """Outside a game's packages and the modules its declaration names, no code string names a game.

    Experiment trials and the stand-alone studies (``experiments/studies``) are studies of
    particular games and are left out;
    docstrings may use a game as an example.
    """
    own = set()
    for d in declarations().values():
        for reference in (d.game, d.vector, d.view, d.heuristic, d.running_score, *d.agents, *d.commands,
                          *d.benchmarks.values(), *d.replots.values()):
            if reference:
                own.add(reference.partition(":")[0])
        for module_name in d.benchmarks.values():
            own.update(getattr(importlib.import_module(module_name), "MORE_BENCHMARKS", {}).values())
    name = re.compile(r"\b(" + "|".join(BUILT_IN) + r")\b")
    found = []
    for folder in ("envs", "solvers", "experiments", "benchmarks"):
        for path in sorted((REPO / folder).rglob("*.py")):
            relative = path.relative_to(REPO).parts
            studies = relative[:2] in (("experiments", "trials"), ("experiments", "studies"))
            if relative[1] in BUILT_IN or studies or _module_name(path) in own:
                continue
            found += [f"{Path(*relative)}:{line}: {text!r}" for line, text in _strings_outside_docstrings(path)
                      if name.search(text)]
    assert found == []


def _toy_env(tmp_path: Path) -> dict:
    shutil.copytree(TOY, tmp_path / "toy_nim", ignore=shutil.ignore_patterns("__pycache__"))
    python_path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    return {**os.environ, GAMES_ENV: "toy_nim", "PYTHONPATH": python_path}


def _run(args, env, cwd, stdin=None):
    done = subprocess.run(args, env=env, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_only_the_toy_game_s_own_folder_knows_it():
    for folder in ("envs", "solvers", "experiments", "benchmarks", "gamut"):
        for path in (REPO / folder).rglob("*.py"):
            assert "toy_nim" not in path.read_text(), path


API_CHECK = """
import json, numpy as np, pyspiel, gamut
from gamut.envs.versions import game_versions
game = gamut.load_game("toy_nim(max_pile=7)")
pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)
env = gamut.make_vector("toy_nim", num_envs=16, seed=1)
step, ended = env.reset(), 0
for _ in range(40):
    step = env.step(np.argmax(step.legal_mask, axis=1))
    ended += int(step.terminated.sum())
pz = gamut.pettingzoo_env("toy_nim")
pz.reset(seed=0)
state = game.new_initial_state()
state.apply_action(0)  # chance: a pile of 7
move = gamut.make_bot(game, "multiple_of_four", player=0).step(state)
print(json.dumps({"move": move, "versions": game_versions(), "obs": list(step.obs.shape), "bounds": [env.obs_low, env.obs_high],
                  "ended": ended, "agents": pz.agents, "bots": gamut.describe_bots(game),
                  "space": pz.observation_space("player_0")["observation"].shape[0]}))
"""


@pytest.mark.slow
def test_a_toy_game_declared_in_its_own_folder_works_in_the_python_api(tmp_path):
    out = json.loads(_run([sys.executable, "-c", API_CHECK], _toy_env(tmp_path), tmp_path).splitlines()[-1])
    assert out["versions"]["toy_nim"] == 1 and set(BUILT_IN) < set(out["versions"])
    assert out["obs"] == [16, 13] and out["bounds"] == [0.0, 1.0] and out["ended"] > 16
    assert out["agents"] == ["player_0", "player_1"] and out["space"] == 13
    assert "multiple_of_four" in out["bots"] and "ismcts" in out["bots"]
    assert out["move"] == 2  # take 3 of 7, leaving 4


@pytest.mark.slow
def test_a_toy_game_declared_in_its_own_folder_works_in_every_command(tmp_path):
    env, gamut = _toy_env(tmp_path), [sys.executable, "-m", "gamut.experiments.cli"]
    # Terminal play: its view shows the pile, its own agent answers the hint and plays the other seat.
    screen = _run([*gamut, "play", "toy_nim", "--seed", "3"], env, tmp_path, stdin="hint\n" + "0\n" * 10)
    assert "Toy Nim: " in screen and "multiple_of_four" in screen and "game over" in screen
    bench = json.loads(_run([*gamut, "bench", "vector", "--games", "toy_nim", "--num-envs", "16", "--steps", "3",
                             "--baseline-steps", "30", "--repeats", "1", "--out", "", "--json"],
                            env, tmp_path).splitlines()[-1])
    assert bench["games"]["toy_nim"]["ours_steps_per_s"] > 0 and bench["missing"] == []
    pytest.importorskip("jax")
    out = tmp_path / "run"
    trained = json.loads(_run([*gamut, "train", "--game", "toy_nim", "--algo", "ppo", "--steps", "1024", "--set",
                               "num_envs=16", "--eval-games", "20", "--final-games", "40", "--out", str(out),
                               "--quiet", "--json"], env, tmp_path).splitlines()[-1])
    assert trained["n"] == 40 and (out / "weights.npz").is_file()
    played = _run([sys.executable, "-c", "import gamut, sys; game = gamut.load_game('toy_nim'); "
                   "bot = gamut.make_bot(game, 'ppo', weights=sys.argv[1]); state = game.new_initial_state(); "
                   "state.apply_action(0); print(bot.step(state))", str(out / "weights.npz")], env, tmp_path)
    assert int(played.split()[-1]) in (0, 1, 2)
