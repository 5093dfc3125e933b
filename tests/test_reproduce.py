"""`gamut reproduce --quick`, the README's main job, runs every experiment and links their results."""

import json
import os
import re

import pytest

from gamut.experiments.cli import main
from gamut.experiments.experiment import EXPERIMENTS


@pytest.mark.slow
def test_reproduce_quick_runs_every_experiment_and_writes_the_report(tmp_path, capsys):
    out = tmp_path / "results"
    # The notebooks are executed on the quick profile by tests/test_notebooks.py (and the executor below).
    assert main(["reproduce", "--quick", "--out", str(out), "--workers", "2", "--no-progress", "--json",
                 "--no-notebooks"]) == 0
    payload = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert payload["experiments"] == len(EXPERIMENTS) >= 1
    assert payload["notebooks"] == []
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


def test_notebooks_go_to_the_checkout_only_for_its_own_full_results(tmp_path):
    from gamut.experiments.notebook import NOTEBOOKS_DIR, notebooks_destination
    from gamut.experiments.provenance import REPO_ROOT

    assert notebooks_destination("full", REPO_ROOT / "results") == NOTEBOOKS_DIR
    assert notebooks_destination("quick", REPO_ROOT / "results") == (REPO_ROOT / "results" / "quick" / "notebooks")
    assert notebooks_destination("full", tmp_path) == tmp_path.resolve() / "notebooks"
    assert notebooks_destination("quick", tmp_path) == tmp_path.resolve() / "quick" / "notebooks"


@pytest.mark.slow
def test_the_executor_runs_a_notebook_on_the_profile_and_root_with_figures_inline(tmp_path, monkeypatch):
    import nbformat

    from gamut.experiments.notebook import execute_notebooks

    monkeypatch.setenv("MPLBACKEND", "Agg")  # the executor must not let this reach the kernel
    source = tmp_path / "probe.ipynb"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import os\nimport matplotlib.pyplot as plt\n"
        "print(os.environ['GAMUT_PROFILE'], os.environ['GAMUT_RESULTS'])\nplt.plot([1, 2])")])
    nbformat.write(notebook, source)
    seen = []
    written = execute_notebooks("quick", tmp_path / "res", notebooks=[source], on_start=seen.append)
    assert seen == [source] and written == [(tmp_path / "res").resolve() / "quick" / "notebooks" / "probe.ipynb"]
    outputs = nbformat.read(written[0], as_version=4).cells[0].outputs
    assert outputs[0]["text"].split() == ["quick", str((tmp_path / "res").resolve())]
    assert any("image/png" in out.get("data", {}) for out in outputs)
    assert os.environ["MPLBACKEND"] == "Agg" and "GAMUT_PROFILE" not in os.environ
    assert not nbformat.read(source, as_version=4).cells[0].outputs  # the source notebook is left as it was
