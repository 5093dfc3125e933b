"""The committed notebooks carry their outputs, made from the committed results.

A reader on the web sees the notebooks as committed, so every code cell must
hold the outputs of a clean run, and those outputs must come from the results
committed beside them: each notebook prints ``<experiment> commit <sha>`` for
every experiment it loads, and where ``results/<experiment>/`` holds full
results, that commit must be theirs (regenerating a result without
re-executing its notebook fails here). An experiment without full results yet
may be shown on the quick profile, and the notebook must say so.
"""

import json
import re
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
LOADED = re.compile(r"""\bload\(["'](\w+)["']\)""")
PRINTED = re.compile(r"^(\w+) commit ([0-9a-f]{40}(?:-dirty)?)$", re.MULTILINE)


def _text_outputs(notebook) -> str:
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if output.get("output_type") == "stream":
                parts.append(output.get("text", ""))
    return "".join(parts)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_code_cell_ran_once_in_order_without_error(path):
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    counts = [cell.get("execution_count") for cell in code]
    assert counts == list(range(1, len(code) + 1)), f"{path.name}: re-execute it top to bottom (counts {counts})"
    errors = [out for cell in code for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    assert not errors, f"{path.name}: committed with an error output"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_outputs_come_from_the_committed_results(path):
    notebook = nbformat.read(path, as_version=4)
    loaded = {name for cell in notebook.cells if cell.cell_type == "code" for name in LOADED.findall(cell.source)}
    text = _text_outputs(notebook)
    printed = dict(PRINTED.findall(text))
    assert loaded, f"{path.name} loads no experiment"
    assert set(printed) == loaded, f"{path.name}: prints the commit of {sorted(printed)}, loads {sorted(loaded)}"
    for experiment in sorted(loaded):
        metadata = REPO / "results" / experiment / "metadata.json"
        if metadata.exists():
            commit = json.loads(metadata.read_text())["git_commit"]
            assert printed[experiment] == commit, (
                f"{path.name}: its outputs come from {experiment} at {printed[experiment][:12]}, the committed "
                f"results from {commit[:12]}; re-execute the notebook")
            assert "profile full" in text, f"{path.name}: committed results are full; execute on the full profile"
        else:
            assert "profile quick" in text, f"{path.name}: {experiment} has no full results; say which profile"
