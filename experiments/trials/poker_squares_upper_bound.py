"""Poker Squares upper bound on the optimal expected score: the duality bound with branch and price, deal by deal.

The same bound as ``poker_squares_bounds`` (information relaxation with the
configured penalty table and scale, ``gamut.solvers.poker_squares.duality``),
with each deal's relaxed problem bounded by branch and price
(``partition_bnp.bnp_bound``: the Dantzig-Wolfe bound at the root, then up to
``nodes_<scoring>`` nodes branching on pairs of cards) instead of the root
alone. The deals are those of ``gamut squares eval --seed deal_seed`` (batch b
holds deals b*k .. b*k+k-1, k = ``deals_per_trial``), the deals
``poker_squares_bounds`` and ``poker_squares_lower_bound`` use. A node limit,
not a clock, stops each search, so a run gives the same figures on any machine
and under any load, and an interrupted run resumes (``gamut run --resume``)
without changing one.

The scales must be the minimisers that ``poker_squares_bounds`` tuned on its
own deals (seed ``tune_seed``, never these): a scale chosen here, on the
reported deals, would make the bound invalid. The trials run scoring by
scoring in the config's order, so the first scoring's figure is complete first.

Each row is one deal: the branch-and-price bound (``upper``), the root's
Dantzig-Wolfe bound (``root``), the best relaxed arrangement found (its value
``relaxed_value`` = score ``relaxed_score`` minus penalty
``relaxed_penalty``), nodes, whether the search proved the arrangement optimal,
and the CPU seconds (measured; no figure but that column depends on them). The
summary gives per scoring the mean bound (95% t interval, n deals), the root's
mean, their paired difference, the relaxed arrangements' mean, and the bound
against ``targets``: ``met`` when the mean is at most the target, ``met_at_95``
when the upper end of its interval is.
"""

from __future__ import annotations

import time

import pandas as pd

from gamut.experiments.store import markdown_table
from gamut.experiments.trials.poker_squares_agents import validate_deals_and_scorings
from gamut.solvers.stats import mean_ci, paired_diff_ci

NAME = "poker_squares_upper_bound"
VERSION = 2
PARAMS = {"deal_seed": int, "deals_per_trial": int, "scorings": list, "by_cell": bool, "penalty": str,
          "scale_american": float, "scale_english": float, "nodes_american": int, "nodes_english": int,
          "dw_iterations": int, "targets": list}
# The targets only label the summary: changing them keeps every finished trial.
SUMMARY_PARAMS = ("targets",)


def validate(params: dict) -> None:
    validate_deals_and_scorings(params)
    if params["penalty"] not in ("learned", "fitted"):
        raise ValueError(f"field 'penalty': {params['penalty']!r} is not learned or fitted")
    if params["dw_iterations"] < 1:
        raise ValueError(f"field 'dw_iterations' must be >= 1, got {params['dw_iterations']}")
    for scoring in params["scorings"]:
        if params[f"scale_{scoring}"] < 0:
            raise ValueError(f"field 'scale_{scoring}' must be >= 0, got {params[f'scale_{scoring}']}")
        if params[f"nodes_{scoring}"] < 1:
            raise ValueError(f"field 'nodes_{scoring}' must be >= 1 (1 node: the Dantzig-Wolfe bound alone); "
                             f"got {params[f'nodes_{scoring}']}")
    if len(params["targets"]) != len(params["scorings"]):
        raise ValueError(f"field 'targets' gives one target bound per scoring ({len(params['scorings'])}); "
                         f"got {params['targets']}")


def trial_specs(params: dict) -> list[dict]:
    """One trial per (scoring, batch), scoring by scoring in the config's order."""
    specs = []
    for scoring in params["scorings"]:
        for batch in range(params["trials"]):
            specs.append({"trial": len(specs), "stream": 0, "batch": batch, "scoring": scoring})
    return specs


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.solvers.poker_squares.bounds import anneal
    from gamut.solvers.poker_squares.duality import duality_bound
    from gamut.solvers.poker_squares.evaluation import deals
    from gamut.solvers.poker_squares.penalty_table import load_penalty_values

    scoring = spec["scoring"]
    game = pyspiel.load_game("poker_squares", {"scoring": scoring})
    values = load_penalty_values(scoring, params["penalty"])
    k = params["deals_per_trial"]
    first = spec["batch"] * k
    rows = []
    for i, deal in enumerate(deals(params["deal_seed"], first + k)[first:]):
        cpu = time.process_time()
        # The start only speeds the search up: every node's bound holds whatever arrangement it starts from.
        grid = anneal(deal, game.cfg, 20_000, 1, seed=first + i)[1]
        res = duality_bound(deal, game.cfg, values, params[f"scale_{scoring}"], grid, by_cell=params["by_cell"],
                            inner="bnp", dw_iterations=params["dw_iterations"], nodes=params[f"nodes_{scoring}"])
        rows.append({"deal": first + i, "upper": res["upper"], "root": res["dw_upper"], "relaxed_value": res["value"],
                     "relaxed_score": res["score"], "relaxed_penalty": res["penalty"], "nodes": res["nodes"],
                     "proved": res["proved"], "cpu_seconds": time.process_time() - cpu})
    return rows


def bound_table(table: pd.DataFrame, params: dict) -> pd.DataFrame:
    """Per scoring: the bound, the root's, their paired difference, the arrangements found (95% CI, n)."""
    targets = dict(zip(params["scorings"], params["targets"]))
    rows = []
    for scoring, g in table.groupby("scoring", sort=False):
        upper, root, found = mean_ci(g["upper"]), mean_ci(g["root"]), mean_ci(g["relaxed_value"])
        gain = paired_diff_ci(g["root"], g["upper"])
        target = float(targets[scoring])
        rows.append({"scoring": scoring, "n": int(upper.n), "upper": upper.value, "upper_ci95_low": upper.ci95_low,
                     "upper_ci95_high": upper.ci95_high, "root": root.value, "root_ci95_low": root.ci95_low,
                     "root_ci95_high": root.ci95_high, "root_minus_upper": gain.value,
                     "root_minus_upper_ci95_low": gain.ci95_low, "root_minus_upper_ci95_high": gain.ci95_high,
                     "relaxed_found": found.value, "relaxed_found_ci95_low": found.ci95_low,
                     "relaxed_found_ci95_high": found.ci95_high, "nodes": params[f"nodes_{scoring}"],
                     "proved": int(g["proved"].sum()),
                     "cpu_seconds_per_deal": float(g["cpu_seconds"].mean()), "target": target,
                     "met": bool(upper.value <= target), "met_at_95": bool(upper.ci95_high <= target)})
    return pd.DataFrame(rows)


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    bound = bound_table(table, params)
    writer.table("upper_bound", bound)
    writer.figure("upper_bound", bound_figure(bound, params))
    return "\n".join([
        f"Duality bound on the optimal expected score, penalty table `{params['penalty']}` (scales "
        + ", ".join(f"{s} {params[f'scale_{s}']}" for s in params["scorings"])
        + ", tuned by `poker_squares_bounds` on other deals), each relaxed problem bounded by branch and price "
        "with at most " + ", ".join(f"{params[f'nodes_{s}']} nodes {s}" for s in params["scorings"])
        + f" (at most {params['dw_iterations']} column-generation steps a node), on the "
        f"deals of `gamut squares eval --seed {params['deal_seed']}`. `upper`: the bound (mean over deals, 95% t "
        "interval, n deals); `root`: the Dantzig-Wolfe bound of the root alone, on the same deals; "
        "`root_minus_upper`: what branching gains, paired; `relaxed_found`: the best relaxed arrangements found, "
        "below which no inner solver can bring the bound with this penalty; `proved`: deals whose relaxed problem "
        "was solved exactly; `met`: the mean at most the target, `met_at_95`: the interval's upper end too.", "",
        markdown_table(bound, float_format="{:.4g}"), "", "![upper bound](upper_bound.png)"])


def plot(table: pd.DataFrame, params: dict, writer) -> None:
    """Draw the figure from the trials table alone."""
    writer.figure("upper_bound", bound_figure(bound_table(table, params), params))


def bound_figure(bound: pd.DataFrame, params: dict):
    """One panel per scoring: root bound, branch-and-price bound and relaxed arrangements found (95% CI), target."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(bound), figsize=(5 * len(bound), 4), squeeze=False)
    for ax, (_, row) in zip(axes[0], bound.iterrows()):
        labels = (("root", "Dantzig-Wolfe\n(root)"), ("upper", f"branch and price\n({row['nodes']} nodes)"),
                  ("relaxed_found", "relaxed\narrangement found"))
        for x, (key, label) in enumerate(labels):
            mean = row[key]
            ax.errorbar([x], [mean], yerr=[[mean - row[f"{key}_ci95_low"]], [row[f"{key}_ci95_high"] - mean]],
                        fmt="o", capsize=5, color="C0" if key == "upper" else "grey")
        ax.axhline(row["target"], ls="--", color="C3", label=f"target {row['target']:g}")
        ax.set_xticks(range(len(labels)), [label for _, label in labels])
        ax.set(title=f"{row['scoring']} scoring, n = {row['n']:,} deals", ylabel="mean over deals (95% CI)")
        ax.legend(loc="upper right")
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle("Poker Squares duality bound: branch and price on each relaxed problem")
    fig.tight_layout()
    return fig
