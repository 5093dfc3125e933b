"""One call for notebooks: an experiment's tables and metadata as pandas objects.

Notebooks read results; they never hold logic of their own. The profile and
the results root come from the environment so the test suite can execute every
notebook on the quick profile in a scratch folder:

- ``GAMUT_PROFILE``: ``full`` (default) or ``quick``;
- ``GAMUT_RESULTS``: results root (default ``results`` beside the repo).

If the results do not exist yet they are computed first with the runner.
"""

from __future__ import annotations

import os
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
