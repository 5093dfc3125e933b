"""A weights file that ``gamut train`` writes is an agent at every entry point, on every game.

One tiny run a game (a few thousand decisions: the weights play badly, which
does not matter here) is trained through the CLI, then seated:

- in the Python API, ``gamut.make_bot(game, ALGO, weights=PATH)``;
- in the game's own command: ``gamut squares eval``, ``gamut poke match``,
  ``gamut palace match`` and ``gamut dice regret``;
- in ``gamut play`` as the opponent (games with other seats) and as the hint;
- in experiment configs (the ``options`` of ``palace_tournament`` and
  ``poker_squares_agents``).

A file of another game, a damaged file and a missing one are refused with
exit status 2 and the reason, before any play: no output file appears.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from gamut.experiments.cli import main
from tests.chance import play_game

pytestmark = pytest.mark.slow

# game string, algorithm, settings that keep the run to seconds
RUNS = {
    "poker_squares": ("poker_squares", "ppo", ["num_envs=16", "rollout=32", "hidden=32"]),
    "poke": ("poke(mode=deal,num_ranks=3,num_suits=2,hand_size=2)", "nfsp",
             ["num_envs=16", "hidden=32", "min_buffer=64", "replay_size=2000", "reservoir_size=2000"]),
    "palace_poker": ("palace_poker(players=2)", "dmc", ["num_envs=4", "rollout=16", "hidden=32", "batch_size=64",
                                                         "buffer_size=512"]),
    "poker_dice": ("poker_dice(variant=yacht12,players=1)", "ppo", ["num_envs=16", "rollout=32", "hidden=32"]),
}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """``{game: (game string, algorithm, weights path)}`` of one tiny run a game, trained by ``gamut train``."""
    root = tmp_path_factory.mktemp("trained")
    out = {}
    for name, (game, algo, settings) in RUNS.items():
        folder = root / name
        sets = [word for setting in settings for word in ("--set", setting)]
        assert main(["train", "--game", game, "--algo", algo, "--steps", "1024", "--out", str(folder),
                     "--eval-games", "10", "--final-games", "10", "--quiet", *sets]) == 0
        out[name] = (game, algo, str(folder / "weights.npz"))
    return out


def _json(capsys) -> dict:
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(RUNS))
def test_make_bot_plays_the_weights_on_its_game(trained, name):
    import gamut

    game_string, algo, path = trained[name]
    game = gamut.load_game(game_string)
    bots = [gamut.make_bot(game_string, algo, player=p, seed=p, weights=path) for p in range(game.num_players())]
    # play_game checks that every move the bots name is legal.
    end = play_game(game, np.random.default_rng(0), lambda state: bots[state.current_player()].step(state))
    assert end.is_terminal()


def test_squares_eval_scores_the_weights(trained, capsys, tmp_path):
    _, algo, path = trained["poker_squares"]
    scores = tmp_path / "scores.json"
    assert main(["squares", "eval", "--agent", algo, "--option", f"weights={path}", "--deals", "3",
                 "--save-scores", str(scores), "--json", "--quiet"]) == 0
    out = _json(capsys)
    assert out["agent"] == algo and out["n"] == 3 and 0 <= out["mean"] and scores.exists()


def test_poke_match_plays_the_weights_on_the_small_deck(trained, capsys):
    game, algo, path = trained["poke"]
    assert main(["poke", "match", "--agents", algo, "random", "--a-option", f"weights={path}", "--game", game,
                 "--rubbers", "3", "--json", "--quiet"]) == 0
    assert _json(capsys)["n"] == 3


def test_palace_match_seats_the_weights(trained, capsys):
    _, algo, path = trained["palace_poker"]
    assert main(["palace", "match", "--agents", algo, "heuristic", "--option", f"{algo}.weights={path}",
                 "--hands", "3", "--json", "--quiet"]) == 0
    assert _json(capsys)


def test_dice_regret_measures_the_weights(trained, capsys):
    _, algo, path = trained["poker_dice"]
    assert main(["dice", "regret", "--variant", "yacht12", "--agent", algo, "--option", f"weights={path}",
                 "--games", "3", "--json", "--quiet"]) == 0
    assert _json(capsys)["games"] == 3


@pytest.mark.parametrize("name", sorted(RUNS))
def test_play_seats_the_weights_as_opponent_and_as_hint(trained, name, capsys, monkeypatch):
    import gamut

    game_string, algo, path = trained[name]
    seats = gamut.load_game(game_string).num_players()
    monkeypatch.setattr("sys.stdin", io.StringIO("hint\nquit\n"))
    argv = ["play", game_string, "--hint", algo, "--hint-option", f"weights={path}"]
    if seats > 1:
        argv += ["--opponent", algo, "--opponent-option", f"weights={path}"]
    assert main(argv) == 0
    screen = capsys.readouterr().out
    assert f"{algo} answers 'hint'" in screen and "hint: " in screen
    if seats > 1:
        assert f"seat 1 is {algo}" in screen


CONFIGS = {
    "palace_poker": ("palace_tournament", '[params]\nseed = 1\ntrials = 1\nplayers = [2]\ndeals = [2]\n'
                     'matchups = ["{algo}:heuristic"]\nbetting = "limit"\noptions = ["{algo}.weights={path}"]\n'),
    "poker_squares": ("poker_squares_agents", '[params]\nseed = 1\ntrials = 1\ndeals_per_trial = 2\n'
                      'scorings = ["american"]\nagents = ["greedy", "{algo}"]\nbudget_agents = []\nbudgets = []\n'
                      'options = ["{algo}.weights={path}"]\n'),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_an_experiment_config_seats_the_weights(trained, name, tmp_path):
    import pandas as pd

    _, algo, path = trained[name]
    experiment, params = CONFIGS[name]
    config = tmp_path / "config.toml"
    config.write_text(f'experiment = "{experiment}"\ndescription = "a trained agent"\n'
                      + params.format(algo=algo, path=path))
    assert main(["run", experiment, "--config", str(config), "--out", str(tmp_path / "results"),
                 "--workers", "1", "--no-progress"]) == 0
    table = pd.read_parquet(next((tmp_path / "results").rglob("trials.parquet")))
    seated = set(table["a"]) if name == "palace_poker" else set(table["agent"])
    assert algo in seated


def test_a_config_whose_weights_are_of_another_game_is_refused_before_any_trial(trained, tmp_path, capsys):
    experiment, params = CONFIGS["poker_squares"]
    config = tmp_path / "config.toml"
    config.write_text(f'experiment = "{experiment}"\ndescription = "weights of Poke"\n'
                      + params.format(algo=trained["poke"][1], path=trained["poke"][2]))
    assert main(["run", experiment, "--config", str(config), "--out", str(tmp_path / "results"),
                 "--workers", "1", "--no-progress"]) == 2
    assert "trained on" in capsys.readouterr().err
    assert not list((tmp_path / "results").rglob("trials.parquet"))


@pytest.mark.parametrize("problem", ["another game", "damaged", "missing"])
def test_a_bad_weights_file_exits_2_naming_why_before_any_play(trained, problem, tmp_path, capsys):
    game, algo, path = trained["poker_squares"]
    bad = tmp_path / "weights.npz"
    if problem == "another game":
        bad = trained["poke"][2]
        algo = trained["poke"][1]
    elif problem == "damaged":
        data = bytearray(open(path, "rb").read())
        data[len(data) // 2] ^= 0xFF
        bad.write_bytes(bytes(data))
    scores = tmp_path / "scores.json"
    entry_points = [
        ["squares", "eval", "--agent", algo, "--option", f"weights={bad}", "--deals", "2",
         "--save-scores", str(scores)],
        ["play", "poker_squares", "--hint", algo, "--hint-option", f"weights={bad}"],
        ["dice", "regret", "--variant", "yacht12", "--agent", algo, "--option", f"weights={bad}", "--games", "2",
         "--out", str(scores)],
    ]
    expected = {"another game": "trained on", "damaged": str(bad), "missing": "no gamut-rl-weights-1 file"}[problem]
    for argv in entry_points:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "error:" in err and expected in err and "Traceback" not in err, (argv, err)
        assert not scores.exists()
