"""How fast the CFR family converges: exploitability of the average policy against iterations.

Tabular algorithms (CFR, CFR+, DCFR, linear CFR) are deterministic and run once
per game; MCCFR (external and outcome sampling) runs once per seed, and its
exploitability at each checkpoint is reported as a mean over seeds with a 95%
confidence interval. Exploitability is exact (best response on the extracted
tree) for every point.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gamut.experiments.config import game_string
from gamut.experiments.store import table_summary
from gamut.solvers.stats import mean_ci

NAME = "cfr_convergence"
VERSION = 1
TABULAR = ("cfr", "cfr+", "dcfr", "linear")
SAMPLED = ("es-mccfr", "os-mccfr")
PARAMS = {
    "games": list,
    "algorithms": list,
    "iterations": int,
    "mccfr_algorithms": list,
    "mccfr_iterations": int,
    "checkpoints": int,
}


def validate(params: dict) -> None:
    for game in params["games"]:
        game_string(game)
    for field, allowed in (("algorithms", TABULAR), ("mccfr_algorithms", SAMPLED)):
        bad = [a for a in params[field] if a not in allowed]
        if bad:
            raise ValueError(f"field {field!r}: unknown algorithm {bad[0]!r}; choose from {', '.join(allowed)}")
    for field in ("iterations", "mccfr_iterations", "checkpoints"):
        if params[field] < 1:
            raise ValueError(f"field {field!r} must be >= 1, got {params[field]}")


def trial_specs(params: dict) -> list[dict]:
    """One trial per (game, tabular algorithm); ``trials`` seeds per (game, MCCFR algorithm)."""
    specs = []
    for game in params["games"]:
        for algorithm in params["algorithms"]:
            specs.append({"game": game, "algorithm": algorithm, "repetition": 0})
        for algorithm in params["mccfr_algorithms"]:
            specs += [{"game": game, "algorithm": algorithm, "repetition": r} for r in range(params["trials"])]
    return [{"trial": i, **spec} for i, spec in enumerate(specs)]


def checkpoints(total: int, count: int) -> list[int]:
    """About ``count`` log-spaced iteration counts from 1 to ``total`` (both included)."""
    points = np.unique(np.round(np.geomspace(1, total, count)).astype(int))
    return [int(p) for p in points]


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    import pyspiel

    from gamut.solvers.cfr.best_response import exploitability
    from gamut.solvers.compile_clock import timed
    from gamut.solvers.cfr.extract import extract_game
    from gamut.solvers.cfr.mccfr import MCCFR
    from gamut.solvers.cfr.policy_io import TabularStrategy
    from gamut.solvers.cfr.tabular import TabularCFR

    tree = extract_game(spec["game"], report=None)
    sampled = spec["algorithm"] in SAMPLED
    if sampled:
        scheme = "external" if spec["algorithm"] == "es-mccfr" else "outcome"
        solver = MCCFR(pyspiel.load_game(tree.game_string), scheme, seed=seed % 2**32)
        total = params["mccfr_iterations"]
    else:
        solver = TabularCFR(tree, spec["algorithm"])
        total = params["iterations"]
    rows, done, seconds, compiling = [], 0, 0.0, 0.0
    for point in checkpoints(total, params["checkpoints"]):
        # The solver's seconds leave out Numba's compilation of its kernels (a cold cache's cost, reported apart).
        _, spent, compile_spent = timed(solver.run, point - done)
        seconds += spent
        compiling += compile_spent
        done = point
        if sampled:
            policy = TabularStrategy.from_table(tree.game_string, solver.average_policy()).on_tree(tree)
        else:
            policy = solver.average_policy()
        rows.append({"iterations": point, "exploitability": exploitability(tree, policy), "solver_seconds": seconds,
                     "compile_seconds": compiling})
    return rows


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    import matplotlib.pyplot as plt

    summary_rows = []
    for (game, algorithm, iterations), group in table.groupby(["game", "algorithm", "iterations"], sort=False):
        values = group["exploitability"].to_numpy()
        if algorithm in SAMPLED:
            est = mean_ci(values)
            low, high, n = est.ci95_low, est.ci95_high, est.n
        else:
            low = high = float(values[0])
            n = 1
        summary_rows.append({
            "game": game, "algorithm": algorithm, "iterations": int(iterations),
            "exploitability": float(values.mean()), "ci95_low": low, "ci95_high": high, "n": n,
        })
    summary = pd.DataFrame(summary_rows)
    writer.table("exploitability", summary)

    games = list(dict.fromkeys(summary["game"]))
    fig, axes = plt.subplots(1, len(games), figsize=(5.5 * len(games), 4.2), squeeze=False)
    for ax, game in zip(axes[0], games):
        for algorithm, curve in summary[summary["game"] == game].groupby("algorithm", sort=False):
            line, = ax.plot(curve["iterations"], curve["exploitability"], label=algorithm)
            if algorithm in SAMPLED:
                # Each seed's curve, faint: a t band would cross zero on a log axis with few seeds.
                runs = table[(table["game"] == game) & (table["algorithm"] == algorithm)]
                for _, run in runs.groupby("repetition"):
                    ax.plot(run["iterations"], run["exploitability"], color=line.get_color(), alpha=0.25, lw=0.8)
        ax.set(xscale="log", yscale="log", xlabel="iterations", ylabel="exploitability", title=game)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle("Average-policy exploitability (MCCFR: mean over seeds, each seed faint)")
    fig.tight_layout()
    writer.figure("exploitability", fig)

    final = summary.loc[summary.groupby(["game", "algorithm"], sort=False)["iterations"].idxmax()]
    shown = final[["game", "algorithm", "iterations", "exploitability", "ci95_low", "ci95_high", "n"]]
    return table_summary(
        "Exploitability of the average policy after the last iteration (tabular: exact, one run; "
        "MCCFR: mean over seeds with 95% CI, n = seeds).",
        shown, "exploitability", "exploitability against iterations")
