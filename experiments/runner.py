"""Run an experiment: check its config, fan trials out on a backend, store results.

Finished trials go to the journal as they finish, so a run that is interrupted
(Ctrl-C, a kill, a lost machine) resumes with ``resume=True`` without losing
or recomputing any of them. A run whose config changed since the journal was
written refuses to resume and names the changed fields.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from gamut.experiments import provenance
from gamut.experiments.backends import TrialTask, make_backend
from gamut.experiments.config import changed_fields
from gamut.experiments.experiment import Experiment, load_experiment, trial_seed
from gamut.experiments.store import (
    METADATA,
    REPORT_FRAGMENT,
    RUN_MANIFEST,
    ResultsWriter,
    TrialJournal,
    results_dir,
    trials_table,
    write_json,
)


@dataclass(frozen=True)
class RunSummary:
    """What a finished run did."""

    experiment: str
    folder: Path
    trials: int
    trials_resumed: int
    trials_run: int
    wall_seconds: float


def _prepare_folder(experiment: Experiment, folder: Path, resume: bool) -> dict[int, dict]:
    """Make the results folder ready; returns the trials already finished (when resuming)."""
    folder.mkdir(parents=True, exist_ok=True)
    journal = TrialJournal(folder)
    fingerprint = experiment.fingerprint()
    manifest_path = folder / RUN_MANIFEST
    if resume and manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("fingerprint") != fingerprint or manifest.get("params") != experiment.config.params:
            summary_only = experiment.summary_params
            old_params = manifest.get("params", {})
            new_params = experiment.config.params
            changes = changed_fields({k: v for k, v in old_params.items() if k not in summary_only},
                                     {k: v for k, v in new_params.items() if k not in summary_only})
            if manifest.get("experiment_version") != experiment.version:
                changes.append(f"experiment version: {manifest.get('experiment_version')} -> {experiment.version}")
            if changes:
                raise ValueError(
                    f"cannot resume {experiment.name}: the config changed since its trials were run "
                    f"({'; '.join(changes)}); run without --resume to start afresh"
                )
            # Only fields the summary reads changed: the finished trials stand, the summary is redone.
            _write_manifest(manifest_path, experiment, fingerprint, manifest.get("started_utc"))
        return journal.load()
    journal.clear()
    for stale in (METADATA, REPORT_FRAGMENT):
        (folder / stale).unlink(missing_ok=True)
    _write_manifest(manifest_path, experiment, fingerprint, None)
    return {}


def _write_manifest(path: Path, experiment: Experiment, fingerprint: str, started_utc: str | None) -> None:
    write_json(
        path,
        {
            "experiment": experiment.name,
            "experiment_version": experiment.version,
            "profile": experiment.config.profile,
            "fingerprint": fingerprint,
            "params": experiment.config.params,
            "started_utc": started_utc or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    )


def run_experiment(
    name: str,
    *,
    profile: str = "full",
    backend: str = "local",
    address: str | None = None,
    workers: int | None = None,
    resume: bool = False,
    results_root: str | Path = "results",
    config_path: str | Path | None = None,
    progress: bool = True,
) -> RunSummary:
    """Run (or resume) one experiment and write its results.

    Parameters
    ----------
    name : str
        Registered experiment name, or a dotted module path.
    profile : {"full", "quick"}
        Full-scale or quick parameters from the config.
    backend : {"local", "ray"}
        Local worker processes, or Ray (``address`` joins an existing cluster;
        without it a local Ray instance is started and stopped).
    workers : int, optional
        Parallel workers (default: all cores for local).
    resume : bool
        Keep the finished trials of an interrupted run with the same config.
    results_root : path
        Root of the results store.
    config_path : path, optional
        Config file instead of ``experiments/configs/<name>.toml``.
    progress : bool
        Show a progress bar with rate and ETA.
    """
    started = time.perf_counter()
    # The commit the trials run on, taken before this run writes its own (tracked) result files.
    commit = provenance.git_commit()
    experiment = load_experiment(name, profile, config_path)
    runner = make_backend(backend, address, workers)
    specs = experiment.trial_specs()
    folder = results_dir(results_root, experiment.name, profile)
    finished = _prepare_folder(experiment, folder, resume)
    base_seed = experiment.config.params["seed"]
    finished = {trial: rec for trial, rec in finished.items() if trial in {s["trial"] for s in specs}}
    tasks = [
        TrialTask(experiment.module.__name__, experiment.config.params, spec, trial_seed(base_seed, spec["stream"]))
        for spec in specs
        if spec["trial"] not in finished
    ]
    journal = TrialJournal(folder)
    bar = tqdm(
        total=len(specs), initial=len(finished), unit="trial", desc=experiment.name,
        disable=not progress, file=sys.stderr, dynamic_ncols=True,
    )
    records = dict(finished)
    try:
        for record in runner.run(tasks):
            journal.append(record)
            records[record["trial"]] = record
            bar.update(1)
    except KeyboardInterrupt:
        bar.close()
        print(
            f"{experiment.name}: interrupted with {len(records)} of {len(specs)} trials saved in {folder}; "
            f"run again with --resume to finish",
            file=sys.stderr,
        )
        raise
    bar.close()

    table = trials_table(records)
    writer = ResultsWriter(folder)
    writer.table("trials", table)
    report = experiment.module.summarize(table, experiment.config.params, writer)
    (folder / REPORT_FRAGMENT).write_text(report.rstrip() + "\n")
    wall = time.perf_counter() - started
    write_json(folder / METADATA, _metadata(experiment, runner, records, wall, writer.written, commit))
    return RunSummary(experiment.name, folder, len(specs), len(finished), len(tasks), wall)


def _metadata(experiment: Experiment, runner, records: dict[int, dict], wall: float, files: list[str],
              commit: str | None) -> dict:
    params = experiment.config.params
    return {
        "experiment": experiment.name,
        "experiment_version": experiment.version,
        "description": experiment.config.description,
        "profile": experiment.config.profile,
        "toolkit_version": provenance.toolkit_version(),
        "game_versions": provenance.game_versions(),
        "git_commit": commit,
        "config": {"source": experiment.config.source, "params": params},
        "seeds": {
            "base_seed": params["seed"],
            "derivation": "numpy SeedSequence(base_seed, spawn_key=(stream,)), see experiments.experiment.trial_seed",
            "trial_seeds": {str(t): records[t]["seed"] for t in sorted(records)},
        },
        "backend": runner.describe(),
        "wall_seconds": round(wall, 3),
        "trial_seconds_total": round(sum(r["seconds"] for r in records.values()), 3),
        "trials": len(records),
        "files": sorted(set(files)),
        "machine": provenance.machine(),
        "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
