"""``results/REPORT.md``: every experiment's key tables and figures on one page."""

from __future__ import annotations

from pathlib import Path

from gamut.experiments.store import METADATA, REPORT_FRAGMENT, read_json, results_dir


def write_report(experiments: list[str], profile: str, results_root: str | Path = "results") -> Path:
    """Stitch the ``report.md`` of each experiment (in order) into one report; returns its path.

    Figures and tables are linked relative to the report. Experiments with no
    finished results are listed as missing, with the command that makes them.
    """
    root = Path(results_root)
    report_folder = root if profile == "full" else root / profile
    report_folder.mkdir(parents=True, exist_ok=True)
    quick = " --quick" if profile == "quick" else ""
    lines = [
        "# Gamut results" + (" (quick profile)" if quick else ""),
        "",
        f"Regenerate everything with `gamut reproduce{quick}`; one experiment with `gamut run NAME{quick}`.",
        "Every Monte Carlo figure is given with its sample size and a 95% confidence interval.",
        "",
    ]
    for name in experiments:
        folder = results_dir(root, name, profile)
        relative = folder.relative_to(report_folder).as_posix()
        lines += [f"## {name}", ""]
        if not (folder / METADATA).exists():
            lines += [f"No finished results: run `gamut run {name}{quick}`.", ""]
            continue
        meta = read_json(folder / METADATA)
        lines += [
            f"{meta['description']}",
            "",
            f"Commit `{meta['git_commit']}`, toolkit {meta['toolkit_version']}, "
            f"{_run_time(meta)}, on {meta['backend']['name']}; "
            f"[metadata]({relative}/{METADATA}), [trials table]({relative}/trials.csv).",
            "",
        ]
        fragment = (folder / REPORT_FRAGMENT).read_text()
        # Fragments link their files by bare name; make the links work from the report's folder.
        for file_name in meta["files"]:
            fragment = fragment.replace(f"]({file_name})", f"]({relative}/{file_name})")
        lines += [fragment.rstrip(), ""]
    path = report_folder / "REPORT.md"
    path.write_text("\n".join(lines).rstrip() + "\n")
    return path


def _run_time(meta: dict) -> str:
    """The trials and their time, for a report line.

    A resumed run's wall time covers only the invocation that finished it, so the trials' own seconds (summed
    over every invocation) come first; metadata from before ``trials_resumed`` was recorded says neither count.

    Examples
    --------
    >>> meta = {"trials": 200, "trials_resumed": 154, "trial_seconds_total": 40736.2, "wall_seconds": 4375.2}
    >>> print(_run_time(meta))  # doctest: +NORMALIZE_WHITESPACE
    200 trials (154 resumed from an interrupted run), 40736 trial-seconds in all,
    4375 s of wall time in the last invocation
    >>> _run_time({"trials": 4, "trials_resumed": 0, "trial_seconds_total": 75.0, "wall_seconds": 41.0})
    '4 trials, 75 trial-seconds, 41 s of wall time'
    """
    resumed = meta.get("trials_resumed")
    trials, spent, wall = meta["trials"], meta["trial_seconds_total"], meta["wall_seconds"]
    if resumed:
        return (f"{trials} trials ({resumed} resumed from an interrupted run), {spent:.0f} trial-seconds in all, "
                f"{wall:.0f} s of wall time in the last invocation")
    if resumed is None:
        return (f"{trials} trials, {spent:.0f} trial-seconds, "
                f"{wall:.0f} s of wall time in the invocation that finished them")
    return f"{trials} trials, {spent:.0f} trial-seconds, {wall:.0f} s of wall time"
