"""Bounds on the optimal expected Poker Squares score: the best agent's mean below, relaxations above.

Two kinds of trial:

- ``tune``: the mean duality bound of one penalty (table, form, scale) on
  tuning deals (seed ``tune_seed``, never the reported deals); the
  configured ``scale_<scoring>`` must be the minimiser among the configured
  table's rows (checked and reported), so the reported bound is valid (no
  per-deal choice). The fitted table was fitted on yet other deals (seed
  778, ``gamut.solvers.poker_squares.penalty_fit``).
- ``bound``: a batch of the deals of ``gamut squares eval --seed deal_seed``
  (batch b holds deals b*k .. b*k+k-1 of that sequence): per deal the best
  arrangement found, the clairvoyant upper bound (smaller of the core ILP and
  the set-partitioning relaxation) and the duality bound with the configured
  penalty (``gamut.solvers.poker_squares.duality``), its relaxed problem
  bounded by the configured ``inner`` solver (``"dw"``: the Dantzig-Wolfe
  bound of ``partition_dw``, with the set-partitioning LP's bound of the same
  deal kept beside it for a paired comparison; ``"lp"``: the LP alone).

The lower bound (the best agent's mean on the same deals) comes from its own
run (experiment ``poker_squares_lower_bound`` at the contest's 30 s a game,
or ``gamut squares eval``) and is entered in the config with its CI and
``lower_source``, which names the agent, its budget and the command: it is
quoted, not computed by this experiment, and the table and figure say so
(column ``source``; a hollow marker).
"""

from __future__ import annotations

import pandas as pd

from gamut.experiments.store import markdown_table
from gamut.solvers.stats import mean_ci

NAME = "poker_squares_bounds"
VERSION = 4
PARAMS = {"deal_seed": int, "deals_per_trial": int, "scorings": list, "time_limit": float, "by_cell": bool,
          "penalty": str, "inner": str, "dw_iterations": int, "scale_american": float, "scale_english": float,
          "tune_seed": int, "tune_deals": int,
          "tune": list, "compare_learned": bool, "lower_american": list, "lower_english": list,
          "lower_source": str}
# The agent's figure is quoted beside the bounds, not computed here: updating it re-summarises on --resume.
SUMMARY_PARAMS = ("lower_american", "lower_english", "lower_source")


def validate(params: dict) -> None:
    if params["deals_per_trial"] < 1 or params["time_limit"] <= 0 or params["tune_deals"] < 1:
        raise ValueError("fields 'deals_per_trial', 'tune_deals' and 'time_limit' must be positive")
    if params["inner"] not in ("lp", "dw"):
        raise ValueError(f"field 'inner': {params['inner']!r} is not lp (set-partitioning LP) or dw (Dantzig-Wolfe)")
    if params["dw_iterations"] < 1:
        raise ValueError("field 'dw_iterations' must be positive")
    if params["penalty"] not in ("learned", "fitted"):
        raise ValueError(f"field 'penalty': {params['penalty']!r} is not learned or fitted")
    for entry in params["tune"]:
        if (len(entry) != 3 or entry[0] not in ("learned", "fitted") or not isinstance(entry[1], bool)
                or not isinstance(entry[2], (int, float))):
            raise ValueError(f"field 'tune': {entry!r} is not [table ('learned' or 'fitted'), by_cell, scale]")
    for s in params["scorings"]:
        if s not in ("american", "english"):
            raise ValueError(f"field 'scorings': {s!r} is not american or english")
        if len(params[f"lower_{s}"]) != 4:
            raise ValueError(f"field 'lower_{s}' is [mean, ci95_low, ci95_high, n]")


def trial_specs(params: dict) -> list[dict]:
    specs = []
    for s in params["scorings"]:
        for table, by_cell, scale in params["tune"]:
            specs.append({"kind": "tune", "scoring": s, "table": table, "by_cell": by_cell, "scale": float(scale)})
    for b in range(params["trials"]):
        for s in params["scorings"]:
            specs.append({"kind": "bound", "batch": b, "scoring": s})
    return [dict(spec, trial=i, stream=0) for i, spec in enumerate(specs)]


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.solvers.poker_squares.bounds import anneal, clairvoyant_bounds
    from gamut.solvers.poker_squares.duality import TUNED_SCALE, duality_bounds
    from gamut.solvers.poker_squares.evaluation import deals
    from gamut.solvers.poker_squares.penalty_table import load_penalty_values

    game = pyspiel.load_game("poker_squares", {"scoring": spec["scoring"]})
    values = load_penalty_values(spec["scoring"], spec["table"] if spec["kind"] == "tune" else params["penalty"])
    if spec["kind"] == "tune":
        the_deals = deals(params["tune_seed"], params["tune_deals"])
        grids = [anneal(d, game.cfg, 20_000, 1, seed=i)[1] for i, d in enumerate(the_deals)]
        dual = duality_bounds(the_deals, game.cfg, values, spec["scale"], grids, by_cell=spec["by_cell"],
                              inner=params["inner"], dw_iterations=params["dw_iterations"])
        return [{"deal": i, "duality_upper": float(dual["upper"][i])} for i in range(len(the_deals))]
    k = params["deals_per_trial"]
    first = spec["batch"] * k
    the_deals = deals(params["deal_seed"], first + k)[first:]
    res = clairvoyant_bounds(the_deals, game.cfg, time_limit=params["time_limit"])
    scale = params[f"scale_{spec['scoring']}"]
    dual = duality_bounds(the_deals, game.cfg, values, scale, res["grids"], by_cell=params["by_cell"],
                          inner=params["inner"], dw_iterations=params["dw_iterations"])
    rows = [{"deal": first + i, "arrangement": int(res["best"][i]), "upper": float(res["upper"][i]),
             "core_upper": float(res["core_upper"][i]), "partition_upper": float(res["partition_upper"][i]),
             "proven": bool(res["proven"][i]), "duality_upper": float(dual["upper"][i]),
             "duality_lp_upper": float(dual["lp_upper"][i]), "relaxed_score": float(dual["score"][i]),
             "relaxed_penalty": float(dual["penalty"][i])}
            for i in range(k)]
    if params["compare_learned"] and params["penalty"] != "learned":
        # The learned table's bound on the same deals, at its own tuned scale: a paired measure of the fit.
        learned = duality_bounds(the_deals, game.cfg, load_penalty_values(spec["scoring"]),
                                 TUNED_SCALE[(spec["scoring"], params["by_cell"])], res["grids"],
                                 by_cell=params["by_cell"], inner=params["inner"],
                                 dw_iterations=params["dw_iterations"])
        for i, row in enumerate(rows):
            row["duality_upper_learned"] = float(learned["upper"][i])
    return rows


def _row(scoring, label, est, **extra) -> dict:
    return {"scoring": scoring, "quantity": label, "mean": est.value, "ci95_low": est.ci95_low,
            "ci95_high": est.ci95_high, "n": int(est.n), **extra}


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    tune = table[table["kind"] == "tune"]
    tuning = tune.groupby(["scoring", "table", "by_cell", "scale"], sort=True)["duality_upper"].agg(
        ["mean", "sem", "count"]).reset_index()
    writer.table("tuning", tuning)
    bound = table[table["kind"] == "bound"]
    summary = bounds_table(bound, params)
    notes = []
    for scoring in bound["scoring"].unique():
        t = tuning[(tuning["scoring"] == scoring) & (tuning["by_cell"] == params["by_cell"])
                   & (tuning["table"] == params["penalty"])]
        if len(t):
            best = t.loc[t["mean"].idxmin(), "scale"]
            notes.append(f"- {scoring}: tuning minimiser {best:g}, configured scale "
                         f"{params[f'scale_{scoring}']:g}" + ("" if best == params[f"scale_{scoring}"]
                                                               else " (MISMATCH: retune the config)"))
    writer.table("bounds", summary)
    writer.figure("bounds", bounds_figure(summary))
    n = len(bound) // max(len(params["scorings"]), 1)
    quoted_n = min(int(params[f"lower_{s}"][3]) for s in params["scorings"])
    deals_note = (f"The upper bounds are computed on the first {n} deals of `gamut squares eval --seed "
                  f"{params['deal_seed']}`; the agent's mean is quoted from the config (`source` column), "
                  f"measured on the first {quoted_n} of the same sequence"
                  + (", so it and the upper bounds share their deals." if n >= quoted_n else
                     f", not on these {n} deals: it is not computed by this run."))
    caveat = ([] if n >= MIN_BAND_DEALS else
              [f"**Only {n} deals per scoring**: too few for the bracket to mean anything (the figure draws "
               f"no band below {MIN_BAND_DEALS} deals); each computed row carries its n and 95% interval.", ""])
    return "\n".join([
        *caveat,
        "Lower and upper bounds on the optimal expected score (95% t intervals). " + deals_note
        + " The clairvoyant bound is the per-deal minimum of the "
        "core ILP and the set-partitioning LP; `proven_optimal` counts deals where the arrangement found "
        "meets it. The duality bound is the mean of an upper bound ("
        + ("the Dantzig-Wolfe bound, each side's partition integral, or the set-partitioning LP's if smaller"
           if params.get("inner") == "dw" else "the Lagrangian bound of the set-partitioning LP")
        + f") on the best arrangement of each deal under score minus the {params['penalty']} "
        "penalty (`penalty_table.load_penalty_values`); the penalty and its scale were fixed on separate "
        "tuning deals. The gap share is "
        "(clairvoyant - duality) / (clairvoyant mean - agent mean) per deal; its interval ignores the "
        "uncertainty of the two means in the denominator.", "",
        markdown_table(summary, float_format="{:.4g}"), "",
        f"Penalty tuning (mean duality bound on {params['tune_deals']} deals of seed {params['tune_seed']}):",
        "", markdown_table(tuning, float_format="{:.4g}"), "", *notes, "",
        "![bounds per scoring system](bounds.png)"])


# The bracket drawn as a band needs enough deals for its upper end to mean something.
MIN_BAND_DEALS = 100
QUOTED = "quoted from the config, not computed by this run"
COMPUTED = "computed by this run"


def bounds_table(bound: pd.DataFrame, params: dict) -> pd.DataFrame:
    """The lower bound (quoted from the config), the clairvoyant and duality bounds and the gap share, by scoring.

    Column ``source`` says which rows this run computed and which it quotes (with the quote's command).
    """
    rows = []
    for scoring, g in bound.groupby("scoring", sort=False):
        mean, low, high, n = params[f"lower_{scoring}"]
        rows.append({"scoring": scoring, "quantity": "lower: best agent", "mean": mean, "ci95_low": low,
                     "ci95_high": high, "n": int(n), "source": f"{QUOTED}: {params['lower_source']}"})
        rows.append(_row(scoring, "clairvoyant arrangement found", mean_ci(g["arrangement"])))
        rows.append(_row(scoring, "core ILP bound", mean_ci(g["core_upper"])))
        rows.append(_row(scoring, "set-partitioning LP bound", mean_ci(g["partition_upper"])))
        clair = mean_ci(g["upper"])
        rows.append(_row(scoring, "upper: clairvoyant bound", clair, proven_optimal=int(g["proven"].sum())))
        dual = mean_ci(g["duality_upper"])
        # Results older than the inner solver's field (version 3) were bounded by the LP and say nothing.
        inner = {"dw": ", Dantzig-Wolfe inner bound", "lp": ", set-partitioning LP inner bound"}.get(
            params.get("inner"), "")
        rows.append(_row(scoring, f"upper: duality bound ({params['penalty']} penalty, scale "
                                  f"{params[f'scale_{scoring}']}{inner})", dual))
        closed = mean_ci((g["upper"] - g["duality_upper"]) / (clair.value - mean))
        rows.append(_row(scoring, "share of the clairvoyant-to-agent gap closed", closed))
        if params.get("inner") == "dw" and "duality_lp_upper" in g:
            rows.append(_row(scoring, "duality bound, set-partitioning LP inner bound (same deals)",
                             mean_ci(g["duality_lp_upper"])))
            rows.append(_row(scoring, "duality bound, Dantzig-Wolfe minus LP inner bound (paired)",
                             mean_ci(g["duality_upper"] - g["duality_lp_upper"])))
            rows.append(_row(scoring, "relaxed arrangement found (score minus penalty)",
                             mean_ci(g["relaxed_score"] - g["relaxed_penalty"])))
        if "duality_upper_learned" in g and g["duality_upper_learned"].notna().all():
            rows.append(_row(scoring, "duality bound with the learned penalty (same deals)",
                             mean_ci(g["duality_upper_learned"])))
            rows.append(_row(scoring, "duality bound, fitted minus learned penalty (paired)",
                             mean_ci(g["duality_upper"] - g["duality_upper_learned"])))
    out = pd.DataFrame(rows)
    out["source"] = out["source"].fillna(COMPUTED)
    return out


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
    duality bound (the tighter of the two upper bounds); the shaded band is
    that range, drawn only when the upper bounds rest on at least
    ``MIN_BAND_DEALS`` deals. A quoted row (not computed by the run) is drawn
    hollow and labelled as quoted.
    """
    import matplotlib.pyplot as plt

    scorings = list(dict.fromkeys(summary["scoring"]))
    fig, axes = plt.subplots(1, len(scorings), figsize=(6 * len(scorings), 3.4), squeeze=False)
    banded = True
    for ax, scoring in zip(axes[0], scorings):
        part = summary[summary["scoring"] == scoring]
        found = []
        for y, (prefix, label, colour) in enumerate(_FIGURE_ROWS):
            row = part[part["quantity"].str.startswith(prefix)].iloc[0]
            found.append(row)
            quoted = str(row.get("source", COMPUTED)).startswith(QUOTED)
            ax.errorbar(row["mean"], y, xerr=[[row["mean"] - row["ci95_low"]], [row["ci95_high"] - row["mean"]]],
                        fmt="o", color=colour, capsize=4, elinewidth=2, mfc="white" if quoted else colour)
            text = f"{row['mean']:.1f} ({row['ci95_low']:.1f} .. {row['ci95_high']:.1f}), n={int(row['n']):,}"
            ax.annotate(text + (", quoted (not computed here)" if quoted else ""), (row["mean"], y),
                        textcoords="offset points", xytext=(0, 8), ha="center", fontsize=8)
        upper_n = min(int(found[1]["n"]), int(found[2]["n"]))
        if upper_n >= MIN_BAND_DEALS:
            ax.axvspan(found[0]["mean"], found[1]["mean"], color="grey", alpha=0.15, lw=0)
        else:
            banded = False
        ax.set_yticks(range(len(_FIGURE_ROWS)), [label for _, label, _ in _FIGURE_ROWS])
        ax.set_ylim(-0.6, len(_FIGURE_ROWS) - 0.3)
        lo = min(r["ci95_low"] for r in found)
        hi = max(r["ci95_high"] for r in found)
        span = hi - lo
        ax.set_xlim(lo - 0.12 * span, hi + 0.12 * span)
        ax.set(title=f"{scoring} scoring", xlabel="mean score per deal (95% CI)")
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle("Poker Squares: the optimal expected score lies in the shaded band" if banded else
                 f"Poker Squares bounds: too few deals for a bracket (no band below {MIN_BAND_DEALS} deals)")
    fig.tight_layout()
    return fig
