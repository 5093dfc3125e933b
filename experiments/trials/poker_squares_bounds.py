"""Bounds on the optimal expected Poker Squares score: the best agent's mean below, relaxations above.

Two kinds of trial:

- ``tune``: the mean duality bound of one penalty (form, scale) on tuning
  deals (seed ``tune_seed``, never the reported deals); the configured
  ``scale_<scoring>`` must be the minimiser of that table (checked and
  reported), so the reported bound is valid (no per-deal choice).
- ``bound``: a batch of the deals of ``gamut squares eval --seed deal_seed``
  (batch b holds deals b*k .. b*k+k-1 of that sequence): per deal the best
  arrangement found, the clairvoyant upper bound (smaller of the core ILP and
  the set-partitioning relaxation) and the duality bound with the configured
  penalty (``gamut.solvers.poker_squares.duality``).

The lower bound (the best agent's mean on the same deals) comes from
``gamut squares eval`` and is entered in the config with its CI and source.
"""

from __future__ import annotations

import pandas as pd

from gamut.experiments.store import markdown_table
from gamut.solvers.stats import mean_ci

NAME = "poker_squares_bounds"
VERSION = 2
PARAMS = {"deal_seed": int, "deals_per_trial": int, "scorings": list, "time_limit": float, "by_cell": bool,
          "scale_american": float, "scale_english": float, "tune_seed": int, "tune_deals": int,
          "tune_scales_by_cell": list, "tune_scales_by_line": list, "lower_american": list, "lower_english": list,
          "lower_source": str}
# The agent's figure is quoted beside the bounds, not computed here: updating it re-summarises on --resume.
SUMMARY_PARAMS = ("lower_american", "lower_english", "lower_source")


def validate(params: dict) -> None:
    if params["deals_per_trial"] < 1 or params["time_limit"] <= 0 or params["tune_deals"] < 1:
        raise ValueError("fields 'deals_per_trial', 'tune_deals' and 'time_limit' must be positive")
    for s in params["scorings"]:
        if s not in ("american", "english"):
            raise ValueError(f"field 'scorings': {s!r} is not american or english")
        if len(params[f"lower_{s}"]) != 4:
            raise ValueError(f"field 'lower_{s}' is [mean, ci95_low, ci95_high, n]")


def trial_specs(params: dict) -> list[dict]:
    specs = []
    for s in params["scorings"]:
        for by_cell, key in ((True, "tune_scales_by_cell"), (False, "tune_scales_by_line")):
            for scale in params[key]:
                specs.append({"kind": "tune", "scoring": s, "by_cell": by_cell, "scale": float(scale)})
    for b in range(params["trials"]):
        for s in params["scorings"]:
            specs.append({"kind": "bound", "batch": b, "scoring": s})
    return [dict(spec, trial=i, stream=0) for i, spec in enumerate(specs)]


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.solvers.poker_squares.bounds import anneal, clairvoyant_bounds
    from gamut.solvers.poker_squares.duality import duality_bounds
    from gamut.solvers.poker_squares.evaluation import deals
    from gamut.solvers.poker_squares.penalty_table import load_penalty_values

    game = pyspiel.load_game("poker_squares", {"scoring": spec["scoring"]})
    values = load_penalty_values(spec["scoring"])
    if spec["kind"] == "tune":
        the_deals = deals(params["tune_seed"], params["tune_deals"])
        grids = [anneal(d, game.cfg, 20_000, 1, seed=i)[1] for i, d in enumerate(the_deals)]
        dual = duality_bounds(the_deals, game.cfg, values, spec["scale"], grids, by_cell=spec["by_cell"])
        return [{"deal": i, "duality_upper": float(dual["upper"][i])} for i in range(len(the_deals))]
    k = params["deals_per_trial"]
    first = spec["batch"] * k
    the_deals = deals(params["deal_seed"], first + k)[first:]
    res = clairvoyant_bounds(the_deals, game.cfg, time_limit=params["time_limit"])
    scale = params[f"scale_{spec['scoring']}"]
    dual = duality_bounds(the_deals, game.cfg, values, scale, res["grids"], by_cell=params["by_cell"])
    return [{"deal": first + i, "arrangement": int(res["best"][i]), "upper": float(res["upper"][i]),
             "core_upper": float(res["core_upper"][i]), "partition_upper": float(res["partition_upper"][i]),
             "proven": bool(res["proven"][i]), "duality_upper": float(dual["upper"][i]),
             "relaxed_score": float(dual["score"][i]), "relaxed_penalty": float(dual["penalty"][i])}
            for i in range(k)]


def _row(scoring, label, est, **extra) -> dict:
    return {"scoring": scoring, "quantity": label, "mean": est.value, "ci95_low": est.ci95_low,
            "ci95_high": est.ci95_high, "n": int(est.n), **extra}


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    tune = table[table["kind"] == "tune"]
    tuning = tune.groupby(["scoring", "by_cell", "scale"], sort=True)["duality_upper"].agg(
        ["mean", "sem", "count"]).reset_index()
    writer.table("tuning", tuning)
    bound = table[table["kind"] == "bound"]
    summary = bounds_table(bound, params)
    notes = []
    for scoring in bound["scoring"].unique():
        t = tuning[(tuning["scoring"] == scoring) & (tuning["by_cell"] == params["by_cell"])]
        if len(t):
            best = t.loc[t["mean"].idxmin(), "scale"]
            notes.append(f"- {scoring}: tuning minimiser {best:g}, configured scale "
                         f"{params[f'scale_{scoring}']:g}" + ("" if best == params[f"scale_{scoring}"]
                                                               else " (MISMATCH: retune the config)"))
    writer.table("bounds", summary)
    writer.figure("bounds", bounds_figure(summary))
    return "\n".join([
        "Lower and upper bounds on the optimal expected score, the same deals for every row (the first "
        f"{len(bound) // max(len(params['scorings']), 1)} deals of `gamut squares eval --seed "
        f"{params['deal_seed']}`; 95% t intervals). The clairvoyant bound is the per-deal minimum of the "
        "core ILP and the set-partitioning LP; `proven_optimal` counts deals where the arrangement found "
        "meets it. The duality bound is the mean of an upper bound (the Lagrangian bound of the "
        "set-partitioning LP) on the best arrangement of each deal under score minus the learned-value "
        "penalty; the penalty scale was fixed on separate tuning "
        "deals. The gap share is "
        "(clairvoyant - duality) / (clairvoyant mean - agent mean) per deal; its interval ignores the "
        "uncertainty of the two means in the denominator.", "",
        markdown_table(summary, float_format="{:.4g}"), "",
        f"Penalty tuning (mean duality bound on {params['tune_deals']} deals of seed {params['tune_seed']}):",
        "", markdown_table(tuning, float_format="{:.4g}"), "", *notes, "",
        "![bounds per scoring system](bounds.png)"])


def bounds_table(bound: pd.DataFrame, params: dict) -> pd.DataFrame:
    """The lower bound (quoted from the config), the clairvoyant and duality bounds and the gap share, by scoring."""
    rows = []
    for scoring, g in bound.groupby("scoring", sort=False):
        mean, low, high, n = params[f"lower_{scoring}"]
        rows.append({"scoring": scoring, "quantity": "lower: best agent (" + params["lower_source"] + ")",
                     "mean": mean, "ci95_low": low, "ci95_high": high, "n": int(n)})
        rows.append(_row(scoring, "clairvoyant arrangement found", mean_ci(g["arrangement"])))
        rows.append(_row(scoring, "core ILP bound", mean_ci(g["core_upper"])))
        rows.append(_row(scoring, "set-partitioning LP bound", mean_ci(g["partition_upper"])))
        clair = mean_ci(g["upper"])
        rows.append(_row(scoring, "upper: clairvoyant bound", clair, proven_optimal=int(g["proven"].sum())))
        dual = mean_ci(g["duality_upper"])
        rows.append(_row(scoring, f"upper: duality bound (scale {params[f'scale_{scoring}']})", dual))
        closed = mean_ci((g["upper"] - g["duality_upper"]) / (clair.value - mean))
        rows.append(_row(scoring, "share of the clairvoyant-to-agent gap closed", closed))
    return pd.DataFrame(rows)


def plot(table: pd.DataFrame, params: dict, writer) -> None:
    """Draw the figure from the trials table alone (what ``summarize`` draws, without its tables)."""
    writer.figure("bounds", bounds_figure(bounds_table(table[table["kind"] == "bound"], params)))


# The three rows of the figure, bottom to top: (prefix of the table's quantity, label, colour).
_FIGURE_ROWS = (("lower: best agent", "best agent (lower)", "tab:green"),
                ("upper: duality bound", "duality bound (upper)", "tab:blue"),
                ("upper: clairvoyant bound", "clairvoyant bound (upper)", "tab:red"))


def bounds_figure(summary: pd.DataFrame):
    """One panel per scoring: the agent's mean, the duality and the clairvoyant bounds with 95% CIs and n.

    The optimal expected score lies between the agent's mean (below) and the
    duality bound (the tighter of the two upper bounds); the shaded band is that range.
    """
    import matplotlib.pyplot as plt

    scorings = list(dict.fromkeys(summary["scoring"]))
    fig, axes = plt.subplots(1, len(scorings), figsize=(6 * len(scorings), 3.2), squeeze=False)
    for ax, scoring in zip(axes[0], scorings):
        part = summary[summary["scoring"] == scoring]
        found = []
        for y, (prefix, label, colour) in enumerate(_FIGURE_ROWS):
            row = part[part["quantity"].str.startswith(prefix)].iloc[0]
            found.append(row)
            ax.errorbar(row["mean"], y, xerr=[[row["mean"] - row["ci95_low"]], [row["ci95_high"] - row["mean"]]],
                        fmt="o", color=colour, capsize=4, elinewidth=2)
            ax.annotate(f"{row['mean']:.1f} ({row['ci95_low']:.1f} .. {row['ci95_high']:.1f}), n={int(row['n']):,}",
                        (row["mean"], y), textcoords="offset points", xytext=(0, 8), ha="center", fontsize=8)
        ax.axvspan(found[0]["mean"], found[1]["mean"], color="grey", alpha=0.15, lw=0)
        ax.set_yticks(range(len(_FIGURE_ROWS)), [label for _, label, _ in _FIGURE_ROWS])
        ax.set_ylim(-0.6, len(_FIGURE_ROWS) - 0.3)
        span = found[2]["ci95_high"] - found[0]["ci95_low"]
        ax.set_xlim(found[0]["ci95_low"] - 0.12 * span, found[2]["ci95_high"] + 0.12 * span)
        ax.set(title=f"{scoring} scoring", xlabel="mean score per deal (95% CI)")
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle("Poker Squares: the optimal expected score lies in the shaded band")
    fig.tight_layout()
    return fig
