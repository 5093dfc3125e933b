"""The Palace Poker model-agreement study: every decision of the searchers is asked of both models."""

import json

import pytest

from gamut.experiments.studies.palace_model_agreement import PHASES, main


def test_the_study_asks_both_models_at_every_decision_and_records_its_run(tmp_path):
    out = tmp_path / "agreement.json"
    assert main(["--deals", "4", "--iterations", "10", "--seed", "3", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    counted = sum(report["decisions"].values())
    assert counted >= 4 * 4 and {"git_commit", "toolkit_version", "command"} <= set(report)
    for model in ("heuristic", "network"):
        assert report[model]["all"]["n"] == counted
        assert sum(report[model][phase]["n"] for phase in PHASES if phase in report[model]) == counted
        for row in (value for value in report[model].values() if isinstance(value, dict)):
            assert 0.0 <= row["ci95_low"] <= row["agreement"] <= row["ci95_high"] <= 1.0
        assert report[model]["seconds_per_call"] > 0
    # The search hands its own discards to the heuristic with the same settings, so they agree every time.
    assert report["decisions"]["discard"] > 0 and report["heuristic"]["discard"]["agreement"] == 1.0


@pytest.mark.parametrize("bad", [["--deals", "0"], ["--iterations", "0"], ["--deals", "x"]])
def test_bad_flags_are_usage_errors(tmp_path, bad):
    with pytest.raises(SystemExit):
        main([*bad, "--out", str(tmp_path / "never.json")])
    assert not (tmp_path / "never.json").exists()
