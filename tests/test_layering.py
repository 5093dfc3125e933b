"""The import layering of pyproject.toml's import-linter contracts holds.

The editable install maps the top-level folders (``envs/``, ``solvers/``, ...)
under ``gamut``, which import-linter's graph builder cannot follow; so the
test copies the sources into one ``gamut`` package in a temporary folder and
runs ``lint-imports`` there with the repository's own contracts.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LAYER_FOLDERS = ("envs", "solvers", "experiments", "benchmarks")


def _stage(root: Path) -> None:
    package = root / "gamut"
    package.mkdir()
    shutil.copy(REPO / "gamut" / "__init__.py", package / "__init__.py")
    for folder in LAYER_FOLDERS:
        shutil.copytree(REPO / folder, package / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.toml", "*.npz", "*.json"))


def _lint(root: Path) -> subprocess.CompletedProcess:
    pytest.importorskip("importlinter")
    lint = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(lint), str(REPO / "pyproject.toml")], cwd=root, capture_output=True, text=True,
                          timeout=300, env={"PYTHONPATH": str(root), "PATH": str(lint.parent)})


def test_every_layering_contract_is_kept(tmp_path):
    _stage(tmp_path)
    done = _lint(tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 kept, 0 broken" in done.stdout


def test_an_upward_import_breaks_the_contracts(tmp_path):
    _stage(tmp_path)
    with (tmp_path / "gamut" / "envs" / "cards.py").open("a") as module:
        module.write("\nfrom gamut.solvers import stats  # noqa: E402,F401\n")
    done = _lint(tmp_path)
    assert done.returncode != 0
    assert "gamut.envs is not allowed to import gamut.solvers" in done.stdout
