"""One learning-curve figure per game, from the training runs recorded under ``results/rl/``.

Every weights file that ``gamut train`` writes carries its learning curve in
its header (one row per evaluation: decisions, training seconds, mean return
with its 95% CI and sample size). Two kinds of run are recorded here:

- the shipped weights, ``results/rl/<name>.json`` beside ``<name>.npz``
  (:func:`gamut.solvers.rl.shipped.ship_weights` writes both);
- runs measured but not shipped, ``results/rl/curves/<name>.json``: the header
  alone, written by :func:`record_run`.

:func:`draw` plots every recorded curve of a game into
``results/rl/curves_<game>.png`` (one panel per variant, a line per run with
its 95% band), so the figures follow the records. Redraw them with
``python -m gamut.experiments.replot rl_curves``.
"""

from __future__ import annotations

import json
from pathlib import Path

RUNS_FOLDER = "curves"


def record_run(weights, name: str, results_root: str | Path = "results") -> Path:
    """Write the header of the verified weights file ``weights`` to ``rl/curves/<name>.json``; returns its path.

    The parameters are left out: the record keeps what the run measured
    (configuration, budget, evaluation, curve), not an agent.
    """
    from gamut.solvers.rl.checkpoint import WEIGHTS_FORMAT, read_verified

    header, _ = read_verified(weights, WEIGHTS_FORMAT)
    folder = Path(results_root) / "rl" / RUNS_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    readable = {k: v for k, v in header.items() if k not in ("digests", "header_sha256")}
    path.write_text(json.dumps(readable, indent=1) + "\n")
    return path


def recorded_runs(results_root: str | Path = "results") -> list[tuple[str, dict]]:
    """``(name, header)`` of every recorded run with a curve: the shipped weights' and ``curves/``'s."""
    folder = Path(results_root) / "rl"
    runs = []
    for path in sorted(folder.glob("*.json")) + sorted((folder / RUNS_FOLDER).glob("*.json")):
        header = json.loads(path.read_text())
        if isinstance(header, dict) and header.get("curve") and header.get("game"):
            runs.append((path.stem, header))
    return runs


def _label(name: str, header: dict) -> str:
    """``dmc (dmc_yacht12; 2,000,000 decisions, 1,000 games a point)``, and the evaluation opponent if any."""
    from gamut.envs.loading import load_game

    last = header["curve"][-1]
    against = "" if load_game(header["game"]).num_players() == 1 else \
        f", against {header.get('evaluation_opponent', 'random')}"
    return f"{header['algorithm']} ({name}; {last['steps']:,} decisions, {last['n']:,} games a point{against})"


def draw(results_root: str | Path = "results") -> list[str]:
    """Draw ``rl/curves_<game>.png`` for every game with a recorded curve; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_game: dict[str, dict[str, list]] = {}
    for name, header in recorded_runs(results_root):
        short = header["game"].split("(")[0]
        by_game.setdefault(short, {}).setdefault(header["game"], []).append((name, header))
    written = []
    for short, variants in sorted(by_game.items()):
        fig, axes = plt.subplots(1, len(variants), figsize=(6.5 * len(variants), 4.5), squeeze=False)
        for ax, (game, runs) in zip(axes[0], sorted(variants.items())):
            for name, header in runs:
                curve = header["curve"]
                steps = [row["steps"] for row in curve]
                ax.plot(steps, [row["mean_return"] for row in curve], marker="o", ms=3, label=_label(name, header))
                ax.fill_between(steps, [row["ci95_low"] for row in curve], [row["ci95_high"] for row in curve],
                                alpha=0.2)
            ax.set(xlabel="training decisions", ylabel="mean return of the greedy or average policy (95% CI)",
                   title=game if len(game) < 70 else game[:67] + "...")
            ax.legend(fontsize="small")
        fig.tight_layout()
        path = Path(results_root) / "rl" / f"curves_{short}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(str(path))
    return written
