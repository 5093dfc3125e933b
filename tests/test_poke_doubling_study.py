"""The poke_doubling study's best-response parts: config checks, tables rebuilt from trial rows, standings."""

import numpy as np
import pandas as pd
import pytest

from gamut.experiments.experiment import load_experiment
from gamut.experiments.trials import poke_doubling as study
from gamut.solvers.poke.best_response import threshold_table
from gamut.solvers.poke.draw_table import NUM_CELLS
from gamut.solvers.poke.heuristic import make_params


def _params(**changes):
    return {**load_experiment("poke_doubling", "quick").config.params, **changes}


@pytest.mark.parametrize("changes, message", [
    ({"response_opponents": ["heuristic", "random"]}, "unknown"),
    ({"bot_policies": ["nowhere"]}, "not in 'policies'"),
    ({"response_pairs": 1}, "a CI needs two"),
    ({"response_rounds": 0}, "must be >= 1"),
    ({"bot_opponents": ["ismcts:iterations"]}, "key=value"),
])
def test_bad_response_fields_fail_before_any_trial(changes, message):
    with pytest.raises(ValueError, match=message):
        study.validate(_params(**changes))


def test_the_quick_profile_validates_and_runs_the_longest_trials_first():
    params = _params()
    study.validate(params)
    kinds = [(spec["kind"], spec.get("opponent")) for spec in study.trial_specs(params)]
    assert kinds[0] == ("response", "heuristic")
    assert kinds.index(("bot_response", params["bot_opponents"][0])) < kinds.index(("equilibrium", None))


def test_response_tables_rebuild_best_responses_from_their_start_and_cells():
    params = _params()
    rows = [
        {"kind": "response_eval", "opponent": "heuristic", "start": "threshold:never_double"},
        {"kind": "response_cell", "opponent": "heuristic", "cell": 0, "draw": 1.0},
        {"kind": "response_eval", "opponent": "ismcts:iterations=5", "start": "response:heuristic"},
        {"kind": "response_cell", "opponent": "ismcts:iterations=5", "cell": 5, "draw": 1.0},
        {"kind": "equilibrium_cell", "cell": 3, "draw": 0.25},
    ]
    # The agent's rows come first: its start table is rebuilt once the heuristic's is.
    table = pd.DataFrame([rows[2], rows[3], rows[0], rows[1]] + [rows[4]] + [
        {"kind": "equilibrium_cell", "cell": c, "draw": 0.5} for c in range(NUM_CELLS) if c != 3])
    tables = study.response_tables(table, params)
    start = threshold_table(make_params(double_below=0, redouble_below=0, dealer_double_below=0))
    expected = start.copy()
    expected[0] = 1.0
    assert np.array_equal(tables["best response to heuristic"], expected)
    expected[5] = 1.0
    assert np.array_equal(tables["best response to ismcts:iterations=5"], expected)
    assert tables["equilibrium"][3] == 0.25 and tables["equilibrium"][4] == 0.5


def test_standings_count_the_match_ups_won_and_lost_by_their_intervals():
    rr = pd.DataFrame([
        {"a": "x", "b": "y", "mean_margin": 10.0, "ci95_low": 2.0, "ci95_high": 18.0, "n_pairs": 9},
        {"a": "y", "b": "x", "mean_margin": -10.0, "ci95_low": -18.0, "ci95_high": -2.0, "n_pairs": 9},
        {"a": "x", "b": "z", "mean_margin": 1.0, "ci95_low": -3.0, "ci95_high": 5.0, "n_pairs": 9},
        {"a": "z", "b": "x", "mean_margin": -1.0, "ci95_low": -5.0, "ci95_high": 3.0, "n_pairs": 9},
        {"a": "y", "b": "z", "mean_margin": -4.0, "ci95_low": -6.0, "ci95_high": -1.0, "n_pairs": 9},
        {"a": "z", "b": "y", "mean_margin": 4.0, "ci95_low": 1.0, "ci95_high": 6.0, "n_pairs": 9},
    ])
    standings = study.round_robin_standings(rr)
    assert standings["policy"].tolist() == ["x", "z", "y"]
    assert standings[["won", "lost", "undecided"]].to_numpy().tolist() == [[1, 0, 1], [1, 0, 1], [0, 2, 0]]
