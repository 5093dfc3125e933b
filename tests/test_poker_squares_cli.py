"""``gamut squares eval|bound|train`` and the terminal view."""

import json

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401
from gamut.experiments.cli import main
from gamut.experiments.terminal_play import PlaySession
from gamut.solvers.poker_squares.evaluation import deals


def _last_json(capsys):
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_deals_are_fixed_by_the_seed():
    assert np.array_equal(deals(3, 10), deals(3, 10)) and not np.array_equal(deals(3, 10), deals(4, 10))
    assert np.array_equal(deals(3, 10)[:4], deals(3, 4))


def test_eval_prints_mean_and_ci_as_json(capsys):
    assert main(["squares", "eval", "--agent", "greedy", "--deals", "6", "--seed", "2", "--json"]) == 0
    result = _last_json(capsys)
    assert result["n"] == 6 and result["ci95_low"] <= result["mean"] <= result["ci95_high"]
    assert main(["squares", "eval", "--agent", "greedy", "--deals", "6", "--seed", "2", "--json"]) == 0
    assert _last_json(capsys)["mean"] == result["mean"]


def test_eval_pairs_two_agents_on_the_same_deals_and_refuses_other_deals(capsys, tmp_path):
    from gamut.solvers.poker_squares.evaluation import evaluate
    from gamut.solvers.bots import make_bot
    from gamut.solvers.stats import paired_diff_ci

    saved = tmp_path / "random.json"
    base = ["squares", "eval", "--deals", "8", "--seed", "5", "--json"]
    assert main(base + ["--agent", "random", "--save-scores", str(saved)]) == 0
    record = json.loads(saved.read_text())
    assert record["agent_seed"] == 1 and record["deals"] == 8
    assert record["provenance"]["command"].startswith("gamut squares eval") and record["provenance"]["git_commit"]
    assert record["mean"] == pytest.approx(np.mean(record["scores"]))
    assert json.loads(saved.read_text())["scores"] == [int(s) for s in evaluate(
        pyspiel.load_game("poker_squares"), make_bot(pyspiel.load_game("poker_squares"), "random", 0, 1),
        deals(5, 8))["scores"]]
    capsys.readouterr()
    assert main(base + ["--agent", "greedy", "--paired-with", str(saved)]) == 0
    result = _last_json(capsys)
    greedy = evaluate(pyspiel.load_game("poker_squares"), make_bot(pyspiel.load_game("poker_squares"), "greedy", 0, 1),
                      deals(5, 8))["scores"]
    expected = paired_diff_ci(greedy, json.loads(saved.read_text())["scores"])
    assert result["paired_with"] == "random" and result["paired_diff"] == pytest.approx(expected.value)
    assert result["paired_ci95_low"] == pytest.approx(expected.ci95_low)
    assert main(["squares", "eval", "--agent", "greedy", "--deals", "8", "--seed", "6", "--paired-with", str(saved)]) == 2
    assert "same deals" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{}")
    assert main(base + ["--agent", "greedy", "--paired-with", str(tmp_path / "bad.json")]) == 2
    assert "not a --save-scores file" in capsys.readouterr().err


def test_eval_rejects_a_budget_for_agents_without_one(capsys):
    assert main(["squares", "eval", "--agent", "greedy", "--deals", "2", "--seconds-per-game", "1"]) == 2
    assert "mc" in capsys.readouterr().err


@pytest.mark.slow
def test_bound_prints_the_upper_bound_and_proven_count(capsys):
    args = ["squares", "bound", "--deals", "2", "--seed", "1", "--time-limit", "1", "--scoring", "english", "--json"]
    assert main(args) == 0
    result = _last_json(capsys)
    assert result["n"] == 2 and 0 <= result["proven_optimal"] <= 2
    assert result["mean"] >= result["arrangement_mean"] > 0


@pytest.mark.slow
def test_bound_with_the_fitted_penalty_uses_the_published_scale(capsys):
    import tomllib

    from gamut.experiments.config import CONFIG_DIR

    params = tomllib.loads((CONFIG_DIR / "poker_squares_bounds.toml").read_text())["params"]
    args = ["squares", "bound", "--deals", "1", "--seed", "1", "--time-limit", "0.3", "--scoring", "english",
            "--penalty", "fitted", "--json"]
    assert main(args) == 0
    result = _last_json(capsys)
    assert result["duality_penalty"] == "fitted" and result["duality_scale"] == params["scale_english"]
    assert result["duality_mean"] >= result["duality_relaxed_found_mean"]
    assert main(["squares", "bound", "--deals", "1", "--penalty", "fitted", "--by-line"]) == 2
    assert "fitted for the by-cell penalty form" in capsys.readouterr().err


def test_bound_with_branch_and_price_reports_its_nodes_and_checks_the_flag(capsys):
    args = ["squares", "bound", "--deals", "1", "--seed", "1", "--time-limit", "0.3", "--penalty", "fitted",
            "--inner", "bnp", "--nodes", "4", "--json"]
    assert main(args) == 0
    result = _last_json(capsys)
    assert result["duality_inner"] == "bnp" and result["duality_nodes"] == 4
    assert result["duality_mean"] >= result["duality_relaxed_found_mean"]
    assert main(["squares", "bound", "--deals", "1", "--penalty", "fitted", "--nodes", "5"]) == 2
    assert "--nodes applies only with --inner bnp" in capsys.readouterr().err


def test_train_checks_the_number_of_games(capsys):
    assert main(["squares", "train", "--games", "12345"]) == 2
    assert "multiple of" in capsys.readouterr().err


def test_train_crossline_checks_its_settings(capsys):
    assert main(["squares", "train-crossline", "--rounds", "0"]) == 2
    assert "argument --rounds: expected a whole number in 1.." in capsys.readouterr().err


def test_eval_takes_boolean_agent_options(capsys):
    assert main(["squares", "eval", "--agent", "expectimax", "--option", "crossline=true", "--deals", "1",
                 "--json"]) == 0
    assert _last_json(capsys)["n"] == 1
    assert main(["squares", "eval", "--agent", "expectimax", "--option", "crossline=maybe", "--deals", "1"]) == 2
    assert "takes bool" in capsys.readouterr().err


def test_terminal_play_draws_the_grid_and_allows_undo():
    import gamut.experiments.squares_view  # noqa: F401

    game = pyspiel.load_game("poker_squares")
    script = iter(["1", "undo", "hint"])
    out = []
    # Then the lowest free cell (typed numbers are action ids, here cells) until the grid is full.
    session = PlaySession(game, hint="greedy", seed=3, write=out.append,
                          read=lambda prompt: next(script, None) or str(min(session.state.legal_actions())))
    returns = session.run()
    text = "\n".join(out)
    assert "card to place" in text and "your last move was taken back" in text and "hint:" in text
    assert returns is not None and "score" in out[-2]
