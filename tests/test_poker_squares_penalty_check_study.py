"""The penalty-check study: the shipped table checked against itself gives zero differences; bad input is named."""

import argparse
import json
from pathlib import Path
import tomllib

import numpy as np
import pytest

from gamut.experiments.studies import poker_squares_penalty_check as study
from gamut.solvers.poker_squares.penalty_table import RESULTS_DIR

ENGLISH_SCALE = tomllib.loads((Path(__file__).resolve().parents[1] / "experiments" / "configs"
                               / "poker_squares_bounds.toml").read_text())["params"]["scale_english"]


def _args(*extra):
    parser = argparse.ArgumentParser()
    study.add_arguments(parser)
    return parser.parse_args(list(extra))


def test_the_shipped_table_against_itself_differs_by_nothing(capsys):
    table = RESULTS_DIR / "penalty_fitted_english.npz"
    rows = study.run(_args("--scoring", "english", "--table", str(table), "--scale", str(ENGLISH_SCALE), "--deals", "2",
                           "--first", "3"))
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 3 and lines[:2] == rows and [r["deal"] for r in rows] == [3, 4]
    for row in rows:
        assert row["candidate"] == row["shipped"] and row["candidate_found"] <= row["candidate"] + 1e-9
    summary = lines[2]
    assert summary["shipped_scale"] == ENGLISH_SCALE and summary["candidate_minus_shipped"][0] == 0.0


def test_bad_tables_and_the_reported_deals_are_refused(tmp_path):
    american = RESULTS_DIR / "penalty_fitted_american.npz"
    with pytest.raises(ValueError, match="not of english"):
        study.run(_args("--scoring", "english", "--table", str(american), "--scale", "1.5"))
    with pytest.raises(ValueError, match="reported deals"):
        study.run(_args("--table", str(american), "--scale", "1.5", "--seed", "2026"))
    empty = tmp_path / "empty.npz"
    np.savez(empty, values=np.zeros(3))
    with pytest.raises(ValueError, match="'points' and 'values'"):
        study.run(_args("--table", str(empty), "--scale", "1.5"))


def test_mean_intervals_is_the_t_interval_of_each_key():
    from gamut.experiments.studies import mean_intervals

    got = mean_intervals([{"a": 1.0, "b": 5.0}, {"a": 3.0, "b": 5.0}], ["a", "b"])
    assert got["a"] == pytest.approx([2.0, 2.0 - 12.7062, 2.0 + 12.7062], abs=1e-3)
    assert got["b"] == [5.0, 5.0, 5.0]
