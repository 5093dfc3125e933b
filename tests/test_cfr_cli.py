"""``gamut cfr`` and ``gamut bench cfr`` end to end (in process)."""

import json
import re

import pyspiel
import pytest

from gamut.experiments.cli import main
from gamut.solvers.cfr.policy_io import load_strategy


def _last_json(capsys):
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_cfr_plus_on_kuhn(capsys):
    assert main(["cfr", "--game", "kuhn_poker", "--algo", "cfr+", "--iterations", "1000", "--json"]) == 0
    result = _last_json(capsys)
    assert {"exploitability", "iterations", "iterations_per_s", "seconds", "game_value"} <= set(result)
    assert result["iterations"] == 1000
    assert result["exploitability"] == pytest.approx(8.7e-5, rel=0.02)
    assert result["game_value"] == pytest.approx(-1 / 18, abs=1e-3)


def test_checkpoint_resume_and_saved_policy(tmp_path, capsys):
    checkpoint = str(tmp_path / "ck.npz")
    base = ["cfr", "--game", "kuhn_poker", "--algo", "dcfr", "--json"]
    assert main(base + ["--iterations", "300"]) == 0
    whole = _last_json(capsys)
    assert main(base + ["--iterations", "120", "--checkpoint", checkpoint, "--checkpoint-every", "50"]) == 0
    capsys.readouterr()
    policy = str(tmp_path / "policy.npz")
    assert main(base + ["--iterations", "300", "--checkpoint", checkpoint, "--resume", "--save-policy", policy]) == 0
    resumed = _last_json(capsys)
    assert resumed["resumed_from"] == 120 and resumed["iterations_run"] == 180
    assert resumed["exploitability"] == whole["exploitability"]
    strategy = load_strategy(policy)
    assert strategy.metadata["algorithm"] == "dcfr" and strategy.metadata["iterations"] == 300


def test_dcfr_parameters_reach_the_solver(capsys):
    from open_spiel.python.algorithms import discounted_cfr, exploitability

    assert main(["cfr", "--game", "kuhn_poker", "--algo", "dcfr", "--alpha", "1", "--beta", "1", "--gamma", "1",
                 "--iterations", "40", "--json"]) == 0
    result = _last_json(capsys)
    game = pyspiel.load_game("kuhn_poker")
    reference = discounted_cfr.DCFRSolver(game, alpha=1, beta=1, gamma=1)
    for _ in range(40):
        reference.evaluate_and_update_policy()
    assert result["exploitability"] == pytest.approx(exploitability.exploitability(game, reference.average_policy()),
                                                     abs=1e-12)


def test_mccfr_reports_seed_and_exact_exploitability(capsys):
    assert main(["cfr", "--game", "kuhn_poker", "--algo", "es-mccfr", "--iterations", "300", "--seed", "4",
                 "--json"]) == 0
    first = _last_json(capsys)
    assert main(["cfr", "--game", "kuhn_poker", "--algo", "es-mccfr", "--iterations", "300", "--seed", "4",
                 "--json"]) == 0
    second = _last_json(capsys)
    assert first["seed"] == 4 and 0 < first["exploitability"] < 0.5
    assert first["exploitability"] == second["exploitability"]


@pytest.mark.parametrize("argv,message", [
    (["--game", "leduc_poker("], "leduc_poker\\("),
    (["--game", "kuhn_poker(players=3)"], "3 players"),
    (["--game", "kuhn_poker", "--resume"], "--checkpoint"),
    (["--game", "leduc_poker", "--max-nodes", "100"], "mccfr"),
    (["--game", "kuhn_poker", "--iterations", "-5"], "iterations"),
    (["--game", "kuhn_poker", "--algo", "cfr+", "--alpha", "2"], "dcfr only"),
])
def test_bad_input_exits_2_with_a_message(capsys, argv, message):
    assert main(["cfr"] + argv) == 2
    err = capsys.readouterr().err
    assert "gamut cfr: error" in err
    assert re.search(message, err)


def test_corrupt_checkpoint_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK\x03\x04 broken")
    assert main(["cfr", "--game", "kuhn_poker", "--checkpoint", str(bad), "--resume"]) == 2
    assert "corrupt" in capsys.readouterr().err
    assert bad.read_bytes() == b"PK\x03\x04 broken"


def test_bench_runs_on_a_tiny_size(capsys):
    assert main(["bench", "cfr", "--game", "kuhn_poker", "--iterations", "20", "--repeats", "1",
                 "--mccfr-iterations", "10", "--out", "", "--json"]) == 0
    result = _last_json(capsys)
    assert result["ours_iterations_per_s"] > 0 and result["openspiel_cpp_iterations_per_s"] > 0
    assert result["ours_exploitability"] == pytest.approx(result["openspiel_cpp_exploitability"], abs=1e-12)
    assert result["ours_es_mccfr_iterations_per_s"] > 0


def test_mccfr_on_a_game_too_big_to_extract_reports_a_sampled_lower_bound(capsys):
    assert main(["cfr", "--game", "kuhn_poker", "--algo", "os-mccfr", "--iterations", "500", "--max-nodes", "10",
                 "--br-episodes", "2000", "--br-iterations", "200", "--json"]) == 0
    result = _last_json(capsys)
    assert result["exploitability"] is None and "too large" in result["note"]
    assert result["exploitability_lower_bound_games"] == 4000
    assert 0 < result["exploitability_lower_bound_ci95"] < 0.1


@pytest.mark.slow
def test_cfr_cli_loads_toolkit_games_by_name(capsys):
    assert main(["cfr", "--game", "poke(num_ranks=2,num_suits=2,hand_size=1)", "--algo", "cfr+",
                 "--iterations", "5", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert payload["iterations"] == 5 and payload["exploitability"] >= 0.0
