"""Run an experiment: check everything, fan trials out on a backend, publish results whole.

Order of a run, so that bad input costs nothing and published results are
never lost or mixed:

1. the results root is checked writable, then the config (every field, then
   the experiment's ``validate`` hook, which resolves agents and options
   against the registry and the game) and the arguments, and the backend is
   opened (an unreachable Ray cluster fails here);
2. the results folder's lock is taken (one writer per folder; a second run
   is refused, naming the first);
3. trials run into the staging folder, each journalled as it finishes;
4. the summary is written there, and the staging folder replaces the
   published one in one step (:func:`gamut.experiments.store.publish`).

A run that is interrupted (Ctrl-C, a kill, a lost machine) resumes with
``resume=True`` without losing or recomputing any finished trial. A run whose
config changed since the journal was written refuses to resume and names the
changed fields, one per line.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from gamut.experiments import provenance
from gamut.solvers.backends import TrialTask, make_backend
from gamut.experiments.config import changed_fields
from gamut.experiments.experiment import Experiment, load_experiment, trial_seed
from gamut.experiments.store import (
    JOURNAL,
    METADATA,
    REPORT_FRAGMENT,
    RUN_MANIFEST,
    FolderLock,
    ResultsWriter,
    TrialJournal,
    describe_owner,
    publish,
    read_json,
    recover_interrupted_publish,
    results_dir,
    staging_dir,
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


def _check_writable(root: Path) -> None:
    """The results root can be created and written; checked without creating anything."""
    probe = root
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise ValueError(f"--out {root}: {probe} is not a folder, so the results cannot be written under it")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ValueError(f"--out {root}: {probe} is not writable")


def _resume_refusal(experiment: Experiment, manifest: dict, source: Path) -> list[str]:
    """The changes that decide trials between the journal's config and this one (empty: resumable)."""
    old_params = manifest.get("params")
    if not isinstance(old_params, dict):
        raise ValueError(f"{source}: no 'params' object; run without --resume to start afresh")
    summary_only = experiment.summary_params
    changes = changed_fields({k: v for k, v in old_params.items() if k not in summary_only},
                             {k: v for k, v in experiment.config.params.items() if k not in summary_only})
    if manifest.get("experiment_version") != experiment.version:
        changes.append(f"experiment version: {manifest.get('experiment_version')} -> {experiment.version}")
    return changes


def unfinished_run(experiment: Experiment, folder: Path) -> dict | None:
    """What an unfinished run of ``experiment`` left in the staging folder beside ``folder``; None if nothing.

    Read-only (a line cut short by a kill is skipped, not truncated), so
    ``gamut list`` can report a run that is still going as well as one that
    died, or one whose staging folder was committed to carry it to another
    machine. Returns ``{"folder", "finished", "trials", "resumable",
    "reasons"}``: the finished trials that today's config still runs, their
    total, and whether ``--resume`` would continue them (else why not).
    """
    staging = staging_dir(folder)
    if not ((staging / RUN_MANIFEST).exists() and (staging / JOURNAL).exists()):
        return None
    wanted = {spec["trial"] for spec in experiment.trial_specs()}
    status = {"folder": str(staging), "finished": 0, "trials": len(wanted), "resumable": True, "reasons": []}
    data = (staging / JOURNAL).read_bytes()
    finished = set()
    for number, line in enumerate(data[: data.rfind(b"\n") + 1].decode(errors="replace").splitlines(), start=1):
        try:
            finished.add(int(json.loads(line)["trial"]))
        except (json.JSONDecodeError, TypeError, KeyError, ValueError):
            return {**status, "resumable": False, "reasons": [f"{staging / JOURNAL}: line {number} is not a "
                                                              "trial record"]}
    status["finished"] = len(finished & wanted)
    try:
        changes = _resume_refusal(experiment, read_json(staging / RUN_MANIFEST), staging / RUN_MANIFEST)
    except ValueError as err:  # an unreadable manifest: say so, not that the config changed
        return {**status, "resumable": False, "reasons": [str(err)]}
    if changes:
        status.update(resumable=False, reasons=[f"the config changed since its trials were run: {c}"
                                                for c in changes])
    return status


def _prepare_staging(experiment: Experiment, folder: Path, resume: bool, code: dict[str, str]):
    """A staging folder for this run, and the trials already finished there (when resuming).

    Resuming continues an interrupted run's staging folder, or else the
    journal of the published results (copied, never changed in place).
    """
    staging = staging_dir(folder)
    source = None
    if resume:
        for candidate in (staging, folder):
            if (candidate / RUN_MANIFEST).exists() and (candidate / JOURNAL).exists():
                source = candidate
                break
    if source is None:
        if (staging / JOURNAL).exists():
            print(f"{experiment.name}: discarding the trials of an interrupted run in {staging} "
                  "(use --resume to keep them)", file=sys.stderr)
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        manifest = _manifest(experiment, code, None)
        write_json(staging / RUN_MANIFEST, manifest)
        return staging, {}, manifest
    manifest = read_json(source / RUN_MANIFEST)
    changes = _resume_refusal(experiment, manifest, source / RUN_MANIFEST)
    if changes:
        raise ValueError(
            f"cannot resume {experiment.name}: the config changed since its trials were run "
            f"({source / RUN_MANIFEST}):\n" + "\n".join(f"  {change}" for change in changes)
            + "\nrun without --resume to start afresh"
        )
    if source == folder:
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        shutil.copy2(folder / JOURNAL, staging / JOURNAL)
    old_code = manifest.get("code") if isinstance(manifest.get("code"), dict) else {}
    moved = sorted(name for name in set(old_code) | set(code)
                   if old_code.get(name) != code.get(name) and not name.endswith(provenance.SUMMARY_PART))
    if not old_code:
        print(f"{experiment.name}: the journal was started by a runner that recorded no code fingerprint; "
              "`gamut list` will mark these results stale", file=sys.stderr)
    elif moved:
        print(f"{experiment.name}: the code changed since the journal was started ({', '.join(moved[:5])}"
              f"{', ...' if len(moved) > 5 else ''}); `gamut list` will mark these results stale",
              file=sys.stderr)
    # Only fields the summary reads may differ: the finished trials stand, the summary is redone,
    # so the summary part of today's code is what made it.
    if old_code:
        old_code = {**old_code, **{k: v for k, v in code.items() if k.endswith(provenance.SUMMARY_PART)}}
    manifest = _manifest(experiment, old_code, manifest.get("started_utc"))
    write_json(staging / RUN_MANIFEST, manifest)
    return staging, TrialJournal(staging, origin=source / JOURNAL).load(), manifest


def _manifest(experiment: Experiment, code: dict[str, str], started_utc: str | None) -> dict:
    return {
        "experiment": experiment.name,
        "experiment_version": experiment.version,
        "profile": experiment.config.profile,
        "fingerprint": experiment.fingerprint(),
        "code": code,
        "params": experiment.config.params,
        "started_utc": started_utc or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


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
    _check_writable(Path(results_root))
    experiment = load_experiment(name, profile, config_path)
    specs = experiment.trial_specs()
    runner = make_backend(backend, address, workers)
    folder = results_dir(results_root, experiment.name, profile)
    code = provenance.code_fingerprint(experiment.module.__name__, experiment.config.params)
    runner.open()
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        with FolderLock(folder) as lock:
            if lock.stale_owner:
                print(f"{experiment.name}: took over the stale lock {lock.path} of a run that died "
                      f"({describe_owner(lock.stale_owner)})", file=sys.stderr)
            recover_interrupted_publish(folder)
            staging, finished, manifest = _prepare_staging(experiment, folder, resume, code)
            records, ran = _run_trials(experiment, runner, specs, staging, finished, progress)
            table = trials_table(records)
            writer = ResultsWriter(staging)
            writer.table("trials", table)
            report = experiment.module.summarize(table, experiment.config.params, writer)
            (staging / REPORT_FRAGMENT).write_text(report.rstrip() + "\n")
            wall = time.perf_counter() - started
            write_json(staging / METADATA,
                       _metadata(experiment, runner, records, ran, wall, writer.written, commit, manifest))
            publish(staging, folder)
    finally:
        runner.close()
    return RunSummary(experiment.name, folder, len(specs), len(records) - ran, ran, wall)


def _run_trials(experiment: Experiment, runner, specs: list[dict], staging: Path, finished: dict[int, dict],
                progress: bool) -> tuple[dict[int, dict], int]:
    """Run every trial not yet finished, journalling each; returns all records and how many ran now."""
    base_seed = experiment.config.params["seed"]
    wanted = {spec["trial"] for spec in specs}
    records = {trial: rec for trial, rec in finished.items() if trial in wanted}
    tasks = [
        TrialTask(experiment.module.__name__, experiment.config.params, spec, trial_seed(base_seed, spec["stream"]))
        for spec in specs
        if spec["trial"] not in records
    ]
    journal = TrialJournal(staging)
    bar = tqdm(
        total=len(specs), initial=len(records), unit="trial", desc=experiment.name,
        disable=not progress, file=sys.stderr, dynamic_ncols=True,
    )
    try:
        for record in runner.run(tasks):
            journal.append(record)
            records[record["trial"]] = record
            bar.update(1)
    except KeyboardInterrupt:
        print(
            f"{experiment.name}: interrupted with {len(records)} of {len(specs)} trials saved in {staging}; "
            f"run again with --resume to finish (the published results are unchanged)",
            file=sys.stderr,
        )
        raise
    finally:
        bar.close()
    return records, len(tasks)


def _metadata(experiment: Experiment, runner, records: dict[int, dict], ran: int, wall: float, files: list[str],
              commit: str | None, manifest: dict) -> dict:
    params = experiment.config.params
    return {
        # What `gamut list` compares with today's config and code to call the results fresh or stale.
        "fingerprints": {"config": manifest["fingerprint"], "code": manifest["code"],
                         "summary_params": sorted(experiment.summary_params)},
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
        # A resumed run's wall time is that of the invocation that finished it; `trials_resumed` says how many
        # of its trials earlier invocations ran.
        "wall_seconds": round(wall, 3),
        "trial_seconds_total": round(sum(r["seconds"] for r in records.values()), 3),
        "trials": len(records),
        "trials_resumed": len(records) - ran,
        "files": sorted(set(files)),
        "machine": provenance.machine(),
        "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
