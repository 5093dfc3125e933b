"""The branch-and-price study: one JSON line per deal and a summary, the root bound never below the final one."""

import argparse
import json
import tomllib

import pytest

from gamut.experiments.config import CONFIG_DIR
from gamut.experiments.studies import poker_squares_bnp as study


def _args(**kw):
    parser = argparse.ArgumentParser()
    study.add_arguments(parser)
    return parser.parse_args([f"--{k}={v}" for k, v in kw.items()])


def test_study_reports_each_deal_and_a_summary(capsys):
    rows = study.run(_args(scoring="english", deals=2, nodes=4))
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 3 and lines[:2] == rows
    for row in rows:
        assert row["found"] <= row["bnp"] + 1e-9 <= row["dw_root"] + 2e-9
        assert 1 <= row["nodes"] <= 6
    summary = lines[2]
    published = tomllib.loads((CONFIG_DIR / "poker_squares_bounds.toml").read_text())["params"]["scale_english"]
    assert summary["deals"] == 2 and summary["scale"] == published and len(summary["root_minus_bnp"]) == 3


def test_study_rejects_a_zero_node_limit():
    with pytest.raises(ValueError, match="--deals and --nodes"):
        study.run(_args(nodes=0))
