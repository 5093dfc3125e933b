"""The Poker Squares upper-bound experiment: its config checks, its reproducible trials and its summary table."""

import pandas as pd
import pytest

from gamut.experiments.config import CONFIG_DIR, load_config
from gamut.experiments.trials import poker_squares_bounds as B
from gamut.experiments.trials import poker_squares_upper_bound as T


def _params(profile="quick", name="poker_squares_upper_bound", module=T):
    schema = {"seed": int, "trials": int, **module.PARAMS}
    return dict(load_config(CONFIG_DIR / f"{name}.toml", profile, schema, name).params)


def test_config_validates_and_bad_fields_are_named():
    params = _params()
    T.validate(params)
    T.validate(_params("full"))
    for field, value, words in (("nodes_american", 0, "'nodes_american'"), ("nodes_english", 0, "'nodes_english'"),
                                ("dw_iterations", 0, "dw_iterations"), ("penalty", "free", "learned or fitted"),
                                ("targets", [170.0], "one target"), ("scale_english", -1.0, "scale_english"),
                                ("scorings", ["french"], "american or english")):
        with pytest.raises(ValueError, match=words):
            T.validate({**params, field: value})


def test_scales_are_those_the_bounds_experiment_tuned_on_other_deals():
    bounds = _params("full", "poker_squares_bounds", B)
    full = _params("full")
    for scoring in full["scorings"]:
        assert full[f"scale_{scoring}"] == bounds[f"scale_{scoring}"]
    assert (full["deal_seed"], full["penalty"], full["by_cell"]) == (bounds["deal_seed"], bounds["penalty"],
                                                                    bounds["by_cell"])
    assert full["deal_seed"] != bounds["tune_seed"]


def test_trials_go_scoring_by_scoring_and_repeat_exactly():
    params = {**_params(), "trials": 2, "deals_per_trial": 1, "nodes_american": 4}
    specs = T.trial_specs(params)
    assert [(s["scoring"], s["batch"]) for s in specs] == [("american", 0), ("american", 1), ("english", 0),
                                                            ("english", 1)]
    first = T.run_trial(params, specs[1], seed=0)
    again = T.run_trial(params, specs[1], seed=5)
    assert [r["deal"] for r in first] == [1]
    keys = ("upper", "root", "relaxed_value", "relaxed_score", "nodes", "proved")
    assert [{k: r[k] for k in keys} for r in first] == [{k: r[k] for k in keys} for r in again]
    row = first[0]
    assert row["relaxed_value"] - 1e-6 <= row["upper"] <= row["root"] + 1e-9
    assert row["relaxed_score"] - row["relaxed_penalty"] == pytest.approx(row["relaxed_value"])
    assert 1 <= row["nodes"] <= 4 + 2


def test_summary_pairs_the_root_with_the_bound_and_checks_the_target():
    table = pd.DataFrame({"scoring": ["american"] * 4, "deal": range(4), "upper": [160.0, 170.0, 165.0, 175.0],
                          "root": [161.0, 172.0, 166.0, 178.0], "relaxed_value": [150.0, 160.0, 158.0, 170.0],
                          "proved": [False, False, True, False], "cpu_seconds": [1.0] * 4})
    row = T.bound_table(table, {"scorings": ["american"], "targets": [170.0], "nodes_american": 40}).iloc[0]
    assert row["nodes"] == 40 and row["n"] == 4 and row["upper"] == pytest.approx(167.5)
    assert row["root_minus_upper"] == pytest.approx(1.75)
    assert row["proved"] == 1 and row["met"] and not row["met_at_95"]
    assert row["upper_ci95_low"] < row["upper"] < row["upper_ci95_high"]
