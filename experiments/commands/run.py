"""``gamut run``, ``gamut reproduce`` and ``gamut list``: the experiment runner on the command line."""

from __future__ import annotations

import argparse
import json
import sys

from gamut.experiments.cli_output import add_json_flag, emit_result
from gamut.experiments.commands.action import add_action
from gamut.experiments.validate import output_root


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true", help="use the config's quick profile (minutes, not hours)")
    parser.add_argument(
        "--backend", choices=("local", "ray"), default="local",
        help="local worker processes (default) or Ray",
    )
    parser.add_argument(
        "--address", default=None,
        help="Ray cluster address to join (ray backend only; default: start a local Ray instance)",
    )
    parser.add_argument("--workers", type=_positive_int, default=None, help="parallel workers (default: all cores)")
    parser.add_argument(
        "--resume", action="store_true",
        help="keep the finished trials of an interrupted run with the same config",
    )
    parser.add_argument("--out", type=output_root, default="results",
                        help="results root folder (default: %(default)s)")
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")
    add_json_flag(parser)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value}")
    return value


def register(subparsers) -> None:
    run = add_action(
        subparsers, "run", _run, help="run one experiment (resumable)",
        description="Run one experiment: its trials fan out on the backend and its results go to results/.",
    )
    run.add_argument("experiment", help="a name from 'gamut list', or a dotted module path with --config")
    run.add_argument("--config", default=None, help="config file (default: the experiment's own)")
    _add_run_options(run)

    reproduce = add_action(
        subparsers, "reproduce", _reproduce, help="run every experiment, then write results/REPORT.md",
        description="Run every registered experiment in order and write the summary report.",
    )
    _add_run_options(reproduce)
    reproduce.add_argument(
        "--no-notebooks", action="store_true",
        help="do not execute the notebooks afterwards (by default a full run into the checkout's results/ "
             "rewrites notebooks/ with their outputs, any other run writes executed copies beside its results)",
    )

    listing = add_action(
        subparsers, "list", _list, help="list the experiments and whether their results are fresh or stale",
        description="List every registered experiment with, per profile, whether its results exist and whether "
                    "they are fresh (made by today's config and code) or stale, and why.",
    )
    listing.add_argument("--out", default="results", help="results root folder (default: %(default)s)")
    add_json_flag(listing)


def _run_one(name: str, args: argparse.Namespace, config: str | None = None):
    from gamut.experiments.runner import run_experiment

    summary = run_experiment(
        name,
        profile="quick" if args.quick else "full",
        backend=args.backend,
        address=args.address,
        workers=args.workers,
        resume=args.resume,
        results_root=args.out,
        config_path=config,
        progress=not args.no_progress,
    )
    print(
        f"{summary.experiment}: {summary.trials} trials ({summary.trials_resumed} resumed, "
        f"{summary.trials_run} run) in {summary.wall_seconds:.1f} s -> {summary.folder}",
        file=sys.stderr,
    )
    return summary


def _run(args: argparse.Namespace) -> int:
    summary = _run_one(args.experiment, args, args.config)
    emit_result(
        {
            "experiment": summary.experiment,
            "folder": str(summary.folder),
            "trials": summary.trials,
            "trials_resumed": summary.trials_resumed,
            "trials_run": summary.trials_run,
            "wall_seconds": round(summary.wall_seconds, 3),
        },
        args.json,
    )
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    from gamut.experiments.experiment import EXPERIMENTS, load_experiment
    from gamut.experiments.report import write_report

    # Every config is checked before the first experiment runs, so a bad one costs no work.
    for name in EXPERIMENTS:
        load_experiment(name, "quick" if args.quick else "full")
    summaries = [_run_one(name, args) for name in EXPERIMENTS]
    profile = "quick" if args.quick else "full"
    report = write_report(list(EXPERIMENTS), profile, args.out)
    notebooks = [] if args.no_notebooks else _execute_notebooks(args, profile)
    emit_result(
        {
            "experiments": len(summaries),
            "trials": sum(s.trials for s in summaries),
            "wall_seconds": round(sum(s.wall_seconds for s in summaries), 3),
            "report": str(report),
            "notebooks": [str(path) for path in notebooks],
        },
        args.json,
    )
    return 0


def _execute_notebooks(args: argparse.Namespace, profile: str) -> list:
    """The notebooks executed on the results just made (none outside a checkout or without nbclient, said why)."""
    import importlib.util

    from gamut.experiments.cli_output import notice
    from gamut.experiments.notebook import NOTEBOOKS_DIR, execute_notebooks, notebooks_destination

    if not sorted(NOTEBOOKS_DIR.glob("*.ipynb")):
        print("reproduce: no notebooks/ folder here (an installed package, not a checkout): notebooks not executed",
              file=sys.stderr)
        return []
    missing = [name for name in ("nbclient", "nbformat", "ipykernel") if importlib.util.find_spec(name) is None]
    if missing:
        print(f"reproduce: notebooks not executed: {', '.join(missing)} missing (pip install -e '.[notebooks]')",
              file=sys.stderr)
        return []
    destination = notebooks_destination(profile, args.out)
    return execute_notebooks(profile, args.out, on_start=lambda path: notice(
        args, f"executing {path.name} -> {destination / path.name}"))


def result_status(name: str, profile: str, root) -> dict | None:
    """Whether ``name``'s results for ``profile`` under ``root`` are fresh; None when there are none.

    Returns ``{"profile", "fresh": bool, "reasons": [str], "commit", "finished_utc"}``.
    """
    from gamut.experiments.store import METADATA, read_json, results_dir

    path = results_dir(root, name, profile) / METADATA
    if not path.exists():
        return None
    try:
        meta = read_json(path)
    except ValueError as err:
        return {"profile": profile, "fresh": False, "reasons": [str(err)], "commit": None, "finished_utc": None}
    return {"profile": profile, **_freshness(name, profile, meta)}


def _freshness(name: str, profile: str, meta: dict, config_path=None, recorded: bool = False) -> dict:
    """``{"fresh", "reasons", "commit", "finished_utc"}`` of results with metadata ``meta``.

    They are judged against the config at ``config_path`` (default: the experiment's own), or, with
    ``recorded``, against the parameters they record, so that only a change of code or version stales them.
    """
    from gamut.experiments import provenance
    from gamut.experiments.config import ConfigError
    from gamut.experiments.experiment import load_experiment

    try:
        experiment = load_experiment(name, profile, config_path)
    except ConfigError as err:
        reasons = [f"today's config does not load: {err}"]
    else:
        params = experiment.config.params
        if recorded and isinstance(meta.get("config"), dict) and isinstance(meta["config"].get("params"), dict):
            params = meta["config"]["params"]
        code = provenance.code_fingerprint(experiment.module.__name__, params)
        reasons = provenance.staleness(meta, params, experiment.version, code)
    return {"fresh": not reasons, "reasons": reasons, "commit": meta.get("git_commit"),
            "finished_utc": meta.get("finished_utc")}


def other_runs(root) -> dict[str, list[dict]]:
    """Results under ``root`` that a run with another config wrote to another folder, by experiment name.

    ``gamut run NAME --config C --out F`` keeps its results where ``F`` puts
    them, not in ``root/NAME``; a folder whose ``metadata.json`` names an
    experiment and is not that experiment's own folder is such a run. It is
    judged against the ``config.toml`` kept beside it, else against the
    parameters it records (then only a change of code or version stales it).
    Each entry is ``{"folder", "config", "profile", "fresh", "reasons", "commit", "finished_utc"}``.
    """
    from pathlib import Path

    from gamut.experiments.config import PROFILES
    from gamut.experiments.experiment import EXPERIMENTS
    from gamut.experiments.store import METADATA, read_json, results_dir

    root = Path(root)
    found: dict[str, list[dict]] = {}
    for path in sorted(root.rglob(METADATA)):
        folder = path.parent
        if any(part.startswith(".") for part in folder.relative_to(root).parts):
            continue  # staging and retired folders of the runner
        try:
            meta = read_json(path)
        except ValueError:
            continue
        name = meta.get("experiment")
        if not isinstance(name, str) or name not in EXPERIMENTS:
            continue
        if folder in {results_dir(root, name, p) for p in PROFILES}:
            continue  # the experiment's own folder, which result_status reports
        profile = meta.get("profile") if meta.get("profile") in PROFILES else "full"
        config = folder / "config.toml"
        status = (_freshness(name, profile, meta, config) if config.is_file()
                  else _freshness(name, profile, meta, recorded=True))
        found.setdefault(name, []).append({"folder": str(folder), "config": str(config) if config.is_file() else None,
                                           "profile": profile, **status})
    return found


def unfinished_status(name: str, profile: str, root) -> dict | None:
    """The unfinished run of ``name`` for ``profile`` under ``root`` (``runner.unfinished_run``); None if none.

    Returns ``{"profile", "folder", "finished", "trials", "resumable", "reasons"}``.
    """
    from gamut.experiments.config import ConfigError
    from gamut.experiments.experiment import load_experiment
    from gamut.experiments.runner import unfinished_run
    from gamut.experiments.store import RUN_MANIFEST, results_dir, staging_dir

    folder = results_dir(root, name, profile)
    if not (staging_dir(folder) / RUN_MANIFEST).exists():
        return None
    try:
        status = unfinished_run(load_experiment(name, profile), folder)
    except ConfigError as err:
        return {"profile": profile, "folder": str(staging_dir(folder)), "finished": None, "trials": None,
                "resumable": False, "reasons": [f"today's config does not load: {err}"]}
    return None if status is None else {"profile": profile, **status}


def _list(args: argparse.Namespace) -> int:
    import tomllib

    from gamut.experiments.config import CONFIG_DIR, ConfigError
    from gamut.experiments.experiment import EXPERIMENTS, resolve_module

    listing = []
    elsewhere = other_runs(args.out)
    for name in EXPERIMENTS:
        try:
            description = tomllib.loads((CONFIG_DIR / f"{resolve_module(name).NAME}.toml").read_text()).get(
                "description", "")
        except (ConfigError, OSError, tomllib.TOMLDecodeError) as err:
            description = f"(config unreadable: {err})"
        statuses = [s for s in (result_status(name, p, args.out) for p in ("full", "quick")) if s is not None]
        unfinished = [s for s in (unfinished_status(name, p, args.out) for p in ("full", "quick")) if s is not None]
        others = elsewhere.get(name, [])
        listing.append({"experiment": name, "description": description, "results": statuses,
                        "unfinished": unfinished, "other_runs": others})
        print(f"{name:<24} {description}")
        if not statuses and not unfinished:
            print("    no results yet" + (" in its own folder" if others else ""))
        for status in unfinished:
            flag = " --quick" if status["profile"] == "quick" else ""
            then = (f"`gamut run {name}{flag} --resume` continues it" if status["resumable"]
                    else "--resume refuses it: " + "; ".join(status["reasons"]))
            counted = ("" if status["finished"] is None
                       else f", {status['finished']} of {status['trials']} trials finished")
            print(f"    {status['profile']}: unfinished run in {status['folder']}{counted}; {then}")
        for status in statuses:
            made = f"made {status['finished_utc']}, commit {str(status['commit'])[:12]}"
            if status["fresh"]:
                print(f"    {status['profile']}: fresh ({made})")
            else:
                print(f"    {status['profile']}: stale ({made}): " + "; ".join(status["reasons"]))
        for run in others:
            made = f"made {run['finished_utc']}, commit {str(run['commit'])[:12]}"
            judged = f"its {run['config']}" if run["config"] else "the config it records"
            state = "fresh" if run["fresh"] else "stale"
            why = "" if run["fresh"] else ": " + "; ".join(run["reasons"])
            print(f"    {run['profile']}, another config: {run['folder']}: {state} against {judged} ({made}){why}")
    if args.json:
        print(json.dumps({"experiments": listing}))
    return 0
