"""One call for notebooks: an experiment's tables and metadata as pandas objects.

Notebooks read results; they never hold logic of their own. The profile and
the results root come from the environment so the test suite can execute every
notebook on the quick profile in a scratch folder:

- ``GAMUT_PROFILE``: ``full`` (default) or ``quick``;
- ``GAMUT_RESULTS``: results root (default ``results`` beside the repo).

If the results do not exist yet they are computed first with the runner.
:func:`execute_notebooks` runs the notebooks themselves (``gamut reproduce``
does after its experiments).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from gamut.experiments.provenance import REPO_ROOT
from gamut.experiments.store import METADATA, load_results, results_dir


def notebook_profile() -> str:
    profile = os.environ.get("GAMUT_PROFILE", "full")
    if profile not in ("full", "quick"):
        raise ValueError(f"GAMUT_PROFILE is {profile!r}; use 'full' or 'quick'")
    return profile


def results_root() -> Path:
    return Path(os.environ.get("GAMUT_RESULTS", REPO_ROOT / "results"))


def load(experiment: str) -> dict:
    """Tables and metadata of ``experiment`` for the notebook's profile, running it if needed.

    Returns ``{"metadata": dict, "tables": {name: DataFrame}, "folder": Path}``.

    Examples
    --------
    >>> from gamut.experiments.notebook import load          # doctest: +SKIP
    >>> freq = load("hand_frequencies")["tables"]["category_frequencies"]  # doctest: +SKIP
    """
    profile, root = notebook_profile(), results_root()
    if not (results_dir(root, experiment, profile) / METADATA).exists():
        from gamut.experiments.runner import run_experiment

        run_experiment(experiment, profile=profile, results_root=root, resume=True)
    return load_results(experiment, profile, root)


NOTEBOOKS_DIR = REPO_ROOT / "notebooks"


@contextlib.contextmanager
def _kernel_environment(profile: str, root: Path):
    """The variables a notebook kernel inherits: the profile and results root; figures drawn inline."""
    saved = {name: os.environ.get(name) for name in ("GAMUT_PROFILE", "GAMUT_RESULTS", "MPLBACKEND")}
    os.environ["GAMUT_PROFILE"], os.environ["GAMUT_RESULTS"] = profile, str(root)
    # A non-interactive backend in the caller's environment would leave the executed notebooks without figures.
    os.environ.pop("MPLBACKEND", None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def _kernel_transport():
    """Traitlets config of the kernel managers: Unix sockets in a private temporary folder (POSIX).

    Over TCP, the default, every kernel warns on stderr that its traffic is
    unencrypted, once per notebook, across the progress of ``gamut reproduce``;
    sockets in a folder only this user can open need no encryption. The folder
    (and the sockets the kernel managers leave) is removed afterwards. On
    Windows, which has no IPC transport, the kernels keep TCP.
    """
    from traitlets.config import Config

    config = Config()
    if os.name != "posix":
        yield config
        return
    with tempfile.TemporaryDirectory(prefix="gamut-kernel-") as folder:
        config.KernelManager.transport = "ipc"
        # The sockets are <ip>-1 .. <ip>-5; without an ip they would be created in the working directory.
        config.KernelManager.ip = os.path.join(folder, "kernel")
        yield config


def notebooks_destination(profile: str, results_root: str | os.PathLike) -> Path:
    """Where :func:`execute_notebooks` writes: the checkout's ``notebooks/`` for its own full results, else a copy.

    The committed notebooks carry the outputs of the committed full results, so
    only a full run into the checkout's ``results/`` rewrites them; any other run
    writes executed copies beside its results (``<root>/notebooks`` or
    ``<root>/quick/notebooks``).
    """
    root = Path(results_root).resolve()
    if profile == "full" and root == (REPO_ROOT / "results").resolve():
        return NOTEBOOKS_DIR
    return results_dir(root, "notebooks", profile)


def execute_notebooks(profile: str, results_root: str | os.PathLike, notebooks: list[Path] | None = None,
                      on_start=None, timeout: int = 3600) -> list[Path]:
    """Execute notebooks top to bottom on ``profile``'s results under ``results_root``; return the files written.

    ``notebooks`` defaults to every notebook of the checkout (none outside a
    checkout). Each is executed in a fresh kernel that reads the results
    through :func:`load` and written to :func:`notebooks_destination`.
    ``on_start(path)`` is called before each. A cell that raises stops the
    run with ``nbclient``'s error, naming the notebook and the cell.
    """
    import nbformat
    from nbclient import NotebookClient

    paths = sorted(NOTEBOOKS_DIR.glob("*.ipynb")) if notebooks is None else [Path(p) for p in notebooks]
    root = Path(results_root).resolve()
    destination = notebooks_destination(profile, root)
    written = []
    with _kernel_environment(profile, root), _kernel_transport() as config:
        for path in paths:
            if on_start:
                on_start(path)
            notebook = nbformat.read(path, as_version=4)
            NotebookClient(notebook, timeout=timeout, kernel_name="python3", config=config,
                           resources={"metadata": {"path": str(path.parent)}}).execute()
            destination.mkdir(parents=True, exist_ok=True)
            out = destination / path.name
            nbformat.write(notebook, out)
            written.append(out)
    return written
