"""Redraw an experiment's figures from its published trials table, without running a trial.

A figure's look (panels, labels, intervals) may change while the trials that
feed it stand. :func:`replot` reads the published ``trials.parquet`` and the
parameters the trials were run with (from ``metadata.json``) and calls the
experiment module's ``plot(table, params, writer)``, which draws the same
figures ``summarize`` draws. Tables, the report fragment and the fingerprints
are left as they are; a figure file new to the folder is added to the
metadata's file list and linked at the end of the report fragment, so
``results/REPORT.md`` shows it.

Run it as ``python -m gamut.experiments.replot NAME [NAME ...]``. A game may
declare figures of its own records (``GAME.replots``: name -> a function of
the results root returning the files written), redrawn by the same command,
as is ``rl_curves``: the learning curve of every recorded training run, one
figure per game (:mod:`gamut.experiments.rl_curves`).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pandas as pd

from gamut.experiments.experiment import EXPERIMENTS
from gamut.experiments.store import METADATA, REPORT_FRAGMENT, ResultsWriter, read_json, results_dir, write_json



def game_replots() -> dict:
    """Name -> redrawing function of the figures the games declare (``GAME.replots``), and ``rl_curves``."""
    from gamut.envs.declaration import resolve
    from gamut.envs.registry import declarations

    found = {name: resolve(ref) for d in declarations().values() for name, ref in d.replots.items()}
    # The learning curves of every game's recorded training runs (results/rl/).
    found["rl_curves"] = resolve("gamut.experiments.rl_curves:draw")
    return found


def replot(name: str, results_root: str | Path = "results", profile: str = "full") -> list[str]:
    """Redraw the figures of experiment ``name`` in its published folder; returns the files written.

    Raises ValueError when the experiment is unknown, has no published
    results, or draws no figures of its own (no ``plot`` function).
    """
    if name not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {name!r}; known: {', '.join(EXPERIMENTS)}")
    module = importlib.import_module(EXPERIMENTS[name])
    if not hasattr(module, "plot"):
        raise ValueError(f"experiment {name!r} has no plot function: its figures are redrawn by `gamut run {name}`")
    folder = results_dir(results_root, name, profile)
    if not (folder / METADATA).exists() or not (folder / "trials.parquet").exists():
        raise ValueError(f"{folder}: no published results to redraw; run `gamut run {name}` first")
    meta = read_json(folder / METADATA)
    writer = ResultsWriter(folder)
    module.plot(pd.read_parquet(folder / "trials.parquet"), meta["config"]["params"], writer)
    new = sorted(set(writer.written) - set(meta.get("files", [])))
    if new:
        meta["files"] = sorted(set(meta.get("files", [])) | set(new))
        write_json(folder / METADATA, meta)
    report = folder / REPORT_FRAGMENT
    if report.exists():
        text = report.read_text()
        unlinked = [f for f in new if f.endswith(".png") and f"]({f})" not in text]
        if unlinked:
            links = "\n".join(f"![{Path(f).stem}]({f})" for f in unlinked)
            report.write_text(text.rstrip("\n") + "\n\n" + links + "\n")
    return writer.written


def main(argv: list[str] | None = None) -> int:
    names = sys.argv[1:] if argv is None else argv
    if not names:
        print(f"usage: python -m gamut.experiments.replot NAME [NAME ...]  (experiments: "
              f"{', '.join(EXPERIMENTS)}; or {', '.join(game_replots())})", file=sys.stderr)
        return 2
    replots = game_replots()
    try:
        for name in names:
            written = replots[name]("results") if name in replots else replot(name)
            print(f"{name}: {', '.join(written)}")
    except ValueError as err:
        print(f"replot: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
