"""`gamut reproduce --quick`, the README's main job, runs every experiment and links their results."""

import json
import re

import pytest

from gamut.experiments.cli import main
from gamut.experiments.experiment import EXPERIMENTS


@pytest.mark.slow
def test_reproduce_quick_runs_every_experiment_and_writes_the_report(tmp_path, capsys):
    out = tmp_path / "results"
    assert main(["reproduce", "--quick", "--out", str(out), "--workers", "2", "--no-progress", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert payload["experiments"] == len(EXPERIMENTS) >= 1
    report = (out / "quick" / "REPORT.md").read_text()
    for name in EXPERIMENTS:
        assert f"## {name}" in report
        meta = json.loads((out / "quick" / name / "metadata.json").read_text())
        assert meta["profile"] == "quick" and meta["trials"] >= 1
    for target in re.findall(r"\]\(([^)]+)\)", report):
        assert (out / "quick" / target).exists(), f"REPORT.md links a missing file: {target}"
    # No lock, staging or retired folder is left, and `gamut list` finds every result just made fresh.
    assert not [p.name for p in (out / "quick").iterdir() if p.name.startswith(".")]
    assert main(["list", "--out", str(out), "--json"]) == 0
    listing = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["experiments"]
    assert [(e["experiment"], r["reasons"]) for e in listing for r in e["results"] if not r["fresh"]] == []
    assert all(e["results"] for e in listing)
