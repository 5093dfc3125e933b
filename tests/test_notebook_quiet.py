"""Executing notebooks through the toolkit writes no kernel transport warning to the console."""

from __future__ import annotations

import warnings

import pytest


@pytest.mark.slow
def test_executing_a_notebook_prints_no_unencrypted_tcp_warning(tmp_path, capfd, monkeypatch):
    import nbformat

    from gamut.experiments.notebook import execute_notebooks

    source = tmp_path / "tiny.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")]), source)
    monkeypatch.chdir(tmp_path)
    capfd.readouterr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        written = execute_notebooks("quick", tmp_path / "res", notebooks=[source])
    out, err = capfd.readouterr()
    # The kernel is a child process writing to this process's stderr: its warning would land in err.
    assert "without encryption" not in out + err
    assert not [w for w in caught if "encryption" in str(w.message)]
    assert nbformat.read(written[0], as_version=4).cells[0].outputs[0]["data"]["text/plain"] == "2"
    # The kernel's sockets lived in a private temporary folder, not in the working directory.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res", "tiny.ipynb"]
