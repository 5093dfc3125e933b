"""Poker Squares lower bound on the optimal expected score: the best agent's mean on the bound deals, by budget.

The agent (``agent``, a Monte Carlo agent) plays the deals of ``gamut squares
eval --seed deal_seed`` (batch b holds deals b*k .. b*k+k-1, k =
``deals_per_trial``), the deals ``poker_squares_bounds`` bounds from above.
Its budget is a count, never a clock: each entry of ``runs`` is
``[seconds, simulations, endgame, batches]``, rollouts per candidate cell and
move (``simulations``), exact play once ``endgame`` cells or fewer are empty,
on the first ``batches`` batches; ``seconds`` is the CPU time per game that
count costs on an idle core (``python -m
gamut.experiments.studies.poker_squares_mc_budget``), a label the trials do
not read. So a run gives the same scores on any machine and under any load,
and an interrupted run resumes (``gamut run --resume``) without changing a
figure. A batch's agent starts from the seed of its stream, the same for
every run: the runs are paired on the deals and on the random numbers.

Each row is one game: its score and the CPU and wall seconds it took
(measured, so they depend on the machine; no figure is derived from them
but the seconds-per-game column). The summary gives each run's mean score
(95% t interval, n), each run's paired difference to the largest budget on
the deals both played, and the lower bound: the mean of the run with the
most deals (the largest budget among those), against ``targets`` (one per
scoring): ``met`` when the mean reaches it, ``met_at_95`` when the lower end
of its 95% interval does.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from gamut.experiments.store import markdown_table
from gamut.experiments.trials.poker_squares_agents import validate_deals_and_scorings
from gamut.solvers.stats import mean_ci, paired_diff_ci

NAME = "poker_squares_lower_bound"
VERSION = 1
PARAMS = {"deal_seed": int, "deals_per_trial": int, "scorings": list, "agent": str, "runs": list,
          "targets": list}
# The targets only label the summary: changing them keeps every finished trial.
SUMMARY_PARAMS = ("targets",)


def validate(params: dict) -> None:
    validate_deals_and_scorings(params)
    if len(params["targets"]) != len(params["scorings"]):
        raise ValueError(f"field 'targets' gives one target score per scoring ({len(params['scorings'])}); "
                         f"got {params['targets']}")
    if not params["runs"]:
        raise ValueError("field 'runs' is empty; give at least one [seconds, simulations, endgame, batches]")
    for run in params["runs"]:
        if (not isinstance(run, list) or len(run) != 4 or float(run[0]) <= 0 or int(run[1]) < 1
                or not 1 <= int(run[3]) <= params["trials"]):
            raise ValueError(f"field 'runs': each entry is [seconds > 0, simulations >= 1, endgame, batches "
                             f"1..trials ({params['trials']})]; got {run!r}")
    labels = [float(run[0]) for run in params["runs"]]
    if len(set(labels)) != len(labels):
        raise ValueError(f"field 'runs': the seconds label each run, so they must differ; got {labels}")
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.solvers.bots import bot_specs, make_bot

    game = pyspiel.load_game("poker_squares", {"scoring": params["scorings"][0]})
    spec = bot_specs(game).get(params["agent"])
    if spec is None or "simulations" not in spec.options:
        counted = sorted(n for n, s in bot_specs(game).items() if "simulations" in s.options)
        raise ValueError(f"field 'agent': {params['agent']!r} is not a Poker Squares agent with a rollout count; "
                         f"those with one: {', '.join(counted)}")
    for scoring in params["scorings"]:
        game = pyspiel.load_game("poker_squares", {"scoring": scoring})
        for run in params["runs"]:
            try:
                make_bot(game, params["agent"], player=0, seed=0, **_options(run[1], run[2]))
            except ValueError as err:
                raise ValueError(f"field 'runs' ({scoring}, {run!r}): {err}") from None


def _options(simulations: int, endgame: int) -> dict:
    """The agent's options of a run: its count, no clock, its endgame."""
    return {"seconds_per_game": 0.0, "simulations": int(simulations), "endgame": int(endgame)}


def trial_specs(params: dict) -> list[dict]:
    """One trial per (run, batch, scoring), run by run in the config's order: a short run finishes first."""
    specs = []
    for index, run in enumerate(params["runs"]):
        for batch in range(int(run[3])):
            for scoring in params["scorings"]:
                specs.append({"trial": len(specs), "stream": batch, "batch": batch, "scoring": scoring,
                              "run": index, "seconds": float(run[0]), "simulations": int(run[1]),
                              "endgame": int(run[2])})
    return specs


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.solvers.bots import make_bot
    from gamut.solvers.poker_squares.evaluation import deals, play_deal

    game = pyspiel.load_game("poker_squares", {"scoring": spec["scoring"]})
    k = params["deals_per_trial"]
    first = spec["batch"] * k
    the_deals = deals(params["deal_seed"], first + k)[first:]
    # A throwaway copy plays one game first, so the seconds exclude Numba's compilation and table loading.
    play_deal(game, make_bot(game, params["agent"], player=0, seed=seed, **_options(1, spec["endgame"])),
              the_deals[0])
    bot = make_bot(game, params["agent"], player=0, seed=seed, **_options(spec["simulations"], spec["endgame"]))
    rows = []
    for i, deal in enumerate(the_deals):
        wall, cpu = time.perf_counter(), time.process_time()
        score = play_deal(game, bot, deal)[0]
        rows.append({"deal": first + i, "score": int(score), "cpu_seconds": time.process_time() - cpu,
                     "wall_seconds": time.perf_counter() - wall})
    return rows


def curve_table(table: pd.DataFrame) -> pd.DataFrame:
    """Mean score (95% CI, n) and measured seconds per game of each run, per scoring."""
    rows = []
    for (scoring, seconds), g in table.groupby(["scoring", "seconds"], sort=False):
        est = mean_ci(g["score"])
        rows.append({"scoring": scoring, "seconds": seconds, "simulations": int(g["simulations"].iloc[0]),
                     "endgame": int(g["endgame"].iloc[0]), "mean": est.value, "ci95_low": est.ci95_low,
                     "ci95_high": est.ci95_high, "n": int(est.n), "cpu_seconds_per_game": float(g["cpu_seconds"].mean()),
                     "wall_seconds_per_game": float(g["wall_seconds"].mean())})
    return pd.DataFrame(rows).sort_values(["scoring", "seconds"], kind="stable", ignore_index=True)


def paired_table(table: pd.DataFrame) -> pd.DataFrame:
    """Each run minus the largest budget, on the deals both played (95% t interval, n), per scoring."""
    rows = []
    for scoring, g in table.groupby("scoring", sort=False):
        wide = g.pivot_table(index="deal", columns="seconds", values="score")
        top = max(wide.columns)
        for seconds in sorted(wide.columns):
            if seconds == top:
                continue
            both = wide[[top, seconds]].dropna()
            d = paired_diff_ci(both[seconds], both[top])
            rows.append({"scoring": scoring, "seconds": seconds, "minus_seconds": top, "difference": d.value,
                         "ci95_low": d.ci95_low, "ci95_high": d.ci95_high, "n": int(d.n)})
    return pd.DataFrame(rows)


def bound_table(curve: pd.DataFrame, params: dict) -> pd.DataFrame:
    """The lower bound of each scoring: the run with the most deals (then the largest budget), against its target."""
    rows = []
    for scoring, target in zip(params["scorings"], params["targets"]):
        g = curve[curve["scoring"] == scoring]
        if not len(g):
            continue
        best = g.sort_values(["n", "seconds"]).iloc[-1]
        rows.append({"scoring": scoring, "seconds": best["seconds"], "simulations": int(best["simulations"]),
                     "endgame": int(best["endgame"]), "mean": best["mean"], "ci95_low": best["ci95_low"],
                     "ci95_high": best["ci95_high"], "n": int(best["n"]), "target": float(target),
                     "met": bool(best["mean"] >= float(target)),
                     "met_at_95": bool(best["ci95_low"] >= float(target))})
    return pd.DataFrame(rows)


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    curve = curve_table(table)
    paired = paired_table(table)
    bound = bound_table(curve, params)
    writer.table("score_vs_budget", curve)
    writer.table("paired_differences", paired)
    writer.table("lower_bound", bound)
    writer.figure("score_vs_budget", curve_figure(curve, params, paired))
    return "\n".join([
        f"`{params['agent']}` on the deals of `gamut squares eval --seed {params['deal_seed']}` (the deals of "
        "`poker_squares_bounds`), its budget a rollout count per cell and move (`simulations`) with exact play "
        "once `endgame` cells are empty; `seconds`: the CPU seconds per game the count costs on an idle core "
        "(the measured seconds of this run, on a shared machine, are beside it). Mean scores with 95% t "
        "intervals:", "", markdown_table(curve, float_format="{:.4g}"), "",
        "Each budget minus the largest, paired on the deals both played:", "",
        markdown_table(paired, float_format="{:.4g}"), "",
        "Lower bound on the optimal expected score (the run with the most deals) against the target:", "",
        markdown_table(bound, float_format="{:.4g}"), "", "![score vs budget](score_vs_budget.png)"])


def plot(table: pd.DataFrame, params: dict, writer) -> None:
    """Draw the figure from the trials table alone."""
    writer.figure("score_vs_budget", curve_figure(curve_table(table), params, paired_table(table)))


def curve_figure(curve: pd.DataFrame, params: dict, paired: pd.DataFrame | None = None):
    """Mean score (95% CI) against the budget in idle-core seconds, the target dashed; one column per scoring.

    The runs may differ in their deals (the contest budget plays more), so
    with ``paired`` (:func:`paired_table`) a second row of panels shows each
    budget minus the largest on the deals both played, the comparison the
    means above cannot make.
    """
    import matplotlib.pyplot as plt

    scorings = list(dict.fromkeys(curve["scoring"]))
    rows = 1 if paired is None or not len(paired) else 2
    fig, axes = plt.subplots(rows, len(scorings), figsize=(6 * len(scorings), 4 * rows), squeeze=False)
    targets = dict(zip(params["scorings"], params["targets"]))
    for ax, scoring in zip(axes[0], scorings):
        g = curve[curve["scoring"] == scoring]
        ax.errorbar(g["seconds"], g["mean"], yerr=[g["mean"] - g["ci95_low"], g["ci95_high"] - g["mean"]],
                    fmt="o-", capsize=4)
        for _, row in g.iterrows():
            ax.annotate(f"n={row['n']:,}", (row["seconds"], row["ci95_high"]), textcoords="offset points",
                        xytext=(0, 4), ha="center", fontsize=8)
        if scoring in targets:
            ax.axhline(float(targets[scoring]), ls="--", color="grey", label=f"target {targets[scoring]}")
            ax.legend(loc="lower right")
        ax.set_xscale("log")
        ax.margins(y=0.1)  # room for the n labels above the intervals
        ax.set(title=f"{scoring} scoring", xlabel="budget: CPU seconds per game on an idle core (log)",
               ylabel="mean score (95% CI)")
        ax.grid(True, alpha=0.3)
    for ax, scoring in zip(axes[1] if rows == 2 else (), scorings):
        d = paired[paired["scoring"] == scoring]
        top = float(d["minus_seconds"].iloc[0])
        ax.errorbar(d["seconds"], d["difference"], fmt="o", capsize=4, color="tab:purple",
                    yerr=[d["difference"] - d["ci95_low"], d["ci95_high"] - d["difference"]])
        for _, row in d.iterrows():
            ax.annotate(f"n={row['n']:,}", (row["seconds"], row["ci95_high"]), textcoords="offset points",
                        xytext=(0, 4), ha="center", fontsize=8)
        ax.axhline(0.0, color="grey", lw=1)
        ax.set_xscale("log")
        ax.margins(y=0.1)
        ax.set(title=f"{scoring}: each budget minus {top:g} s, paired on the same deals",
               xlabel="budget: CPU seconds per game on an idle core (log)", ylabel="score difference (95% CI)")
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"{params['agent']} on the bound deals: score against budget")
    fig.tight_layout()
    return fig
