"""Every notebook executes top to bottom on the quick profile (a broken notebook fails CI)."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks_to_execute():
    assert NOTEBOOKS, "notebooks/ holds no notebook"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes_on_the_quick_profile(path, tmp_path, monkeypatch):
    monkeypatch.setenv("GAMUT_PROFILE", "quick")
    monkeypatch.setenv("GAMUT_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [
        output for cell in notebook.cells if cell.cell_type == "code"
        for output in cell.get("outputs", []) if output.get("output_type") == "error"
    ]
    assert not errors
