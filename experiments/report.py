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
            f"{meta['trials']} trials, {meta['wall_seconds']:.0f} s on {meta['backend']['name']}; "
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
