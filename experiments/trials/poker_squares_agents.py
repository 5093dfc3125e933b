"""Poker Squares agents on the same seeded deals: scores, hand categories, placements, time budgets.

Every agent plays every deal batch under every point system; a batch's deals
depend only on its stream, so all agents meet the same cards (paired
comparisons). Each row is one game: the score, the seconds it took, the
category of each of its ten lines and the final grid (card ids by cell, for
the placement heatmaps of the notebook). The ``budgets`` field adds the
``budget_agent`` (one that takes ``seconds_per_game``) at several time budgets
per game (score vs time).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gamut.experiments.store import markdown_table
from gamut.solvers.stats import mean_ci, paired_diff_ci

NAME = "poker_squares_agents"
VERSION = 1
PARAMS = {"deals_per_trial": int, "scorings": list, "agents": list, "budget_agent": str, "budgets": list,
          "budget_scoring": str}


def validate(params: dict) -> None:
    if params["deals_per_trial"] < 1:
        raise ValueError("field 'deals_per_trial' must be >= 1")
    for s in params["scorings"] + [params["budget_scoring"]]:
        if s not in ("american", "english"):
            raise ValueError(f"field 'scorings': {s!r} is not american or english (the learned tables)")
    if any(float(b) <= 0 for b in params["budgets"]):
        raise ValueError("field 'budgets': every time budget must be > 0 seconds")
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.solvers.bots import bot_specs

    from gamut.solvers.bots import make_bot

    spec = bot_specs(pyspiel.load_game("poker_squares")).get(params["budget_agent"])
    if spec is None or "seconds_per_game" not in spec.options:
        raise ValueError(f"field 'budget_agent': {params['budget_agent']!r} is not a Poker Squares agent with a "
                         "time budget per game")
    if not params["agents"]:
        raise ValueError("field 'agents' is empty; name at least one agent")
    # Every agent is built once per scoring it plays, so an unknown name or a missing table fails here.
    for scoring in params["scorings"]:
        game = pyspiel.load_game("poker_squares", {"scoring": scoring})
        for agent in params["agents"]:
            try:
                make_bot(game, str(agent), player=0, seed=0)
            except ValueError as err:
                raise ValueError(f"field 'agents' ({scoring}): {err}") from None


def trial_specs(params: dict) -> list[dict]:
    """One trial per (deal batch, scoring, agent) and per (deal batch, budget); a batch is a stream."""
    specs = []
    for batch in range(params["trials"]):
        runs = [(agent, scoring, 0.0) for scoring in params["scorings"] for agent in params["agents"]]
        runs += [(params["budget_agent"], params["budget_scoring"], float(b)) for b in params["budgets"]]
        for agent, scoring, budget in runs:
            specs.append({"trial": len(specs), "stream": batch, "batch": batch, "agent": agent,
                          "scoring": scoring, "budget": budget})
    return specs


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.envs.hands import HAND_TABLE
    from gamut.envs.poker_squares import kernels as K
    from gamut.solvers.bots import make_bot
    from gamut.solvers.poker_squares.evaluation import deals, evaluate

    game = pyspiel.load_game("poker_squares", {"scoring": spec["scoring"]})
    options = {"seconds_per_game": spec["budget"]} if spec["budget"] > 0 else {}
    bot = make_bot(game, spec["agent"], player=0, seed=seed, **options)
    result = evaluate(game, bot, deals(seed, params["deals_per_trial"]))
    rows = []
    state = np.full(K.STATE_SIZE, -1, dtype=np.int64)
    for i, (score, grid, secs) in enumerate(zip(result["scores"], result["grids"], result["seconds"])):
        state[:K.NUM_CELLS] = grid
        cats = [int(K.line_strength(state, 0, line, HAND_TABLE)) >> 20 for line in range(K.NUM_LINES)]
        row = {"deal": i, "score": int(score), "seconds": float(secs), "grid": " ".join(map(str, grid))}
        row.update({f"line{line}": cats[line] for line in range(K.NUM_LINES)})
        rows.append(row)
    return rows


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    from gamut.envs.hands import CATEGORY_NAMES

    fixed = table[table["budget"] == 0]
    rows = []
    for (scoring, agent), g in fixed.groupby(["scoring", "agent"], sort=False):
        est = mean_ci(g["score"])
        rows.append({"scoring": scoring, "agent": agent, "mean": est.value, "ci95_low": est.ci95_low,
                     "ci95_high": est.ci95_high, "n": est.n, "sd": float(g["score"].std()),
                     "seconds_per_game": float(g["seconds"].mean())})
    means = pd.DataFrame(rows)
    writer.table("agent_means", means)

    lines = [f"line{i}" for i in range(10)]
    freq = []
    for (scoring, agent), g in fixed.groupby(["scoring", "agent"], sort=False):
        cats = g[lines].to_numpy()
        for c, name in enumerate(CATEGORY_NAMES):
            freq.append({"scoring": scoring, "agent": agent, "category": name,
                         "rows_per_game": float((cats[:, :5] == c).sum(axis=1).mean()),
                         "columns_per_game": float((cats[:, 5:] == c).sum(axis=1).mean())})
    writer.table("category_frequencies", pd.DataFrame(freq))

    budgets = budget_table(table)
    writer.table("score_vs_budget", budgets)

    # Paired differences to the best agent of each scoring (the same deals).
    paired = []
    for scoring, g in fixed.groupby("scoring", sort=False):
        wide = g.pivot_table(index=["batch", "deal"], columns="agent", values="score")
        best = means[means["scoring"] == scoring].sort_values("mean").iloc[-1]["agent"]
        for agent in wide.columns:
            if agent != best:
                d = paired_diff_ci(wide[best], wide[agent])
                paired.append({"scoring": scoring, "best": best, "other": agent, "difference": d.value,
                               "ci95_low": d.ci95_low, "ci95_high": d.ci95_high, "n": d.n})
    writer.table("paired_differences", pd.DataFrame(paired))

    writer.figure("score_distributions", score_distributions_figure(fixed))
    text = ["Mean score per agent (same deals for every agent; 95% t intervals):", "",
            markdown_table(means, float_format="{:.4g}"), "",
            "![score distributions](score_distributions.png)", ""]
    if len(budgets):
        writer.figure("score_vs_budget", budget_figure(budgets, params))
        text += ["Score against the time budget per game:", "", markdown_table(budgets, float_format="{:.4g}"),
                 "", "![score vs budget](score_vs_budget.png)"]
    return "\n".join(text)


def plot(table: pd.DataFrame, params: dict, writer) -> None:
    """Draw the figures from the trials table alone (what ``summarize`` draws, without its tables)."""
    fixed = table[table["budget"] == 0]
    writer.figure("score_distributions", score_distributions_figure(fixed))
    budgets = budget_table(table)
    if len(budgets):
        writer.figure("score_vs_budget", budget_figure(budgets, params))


def budget_table(table: pd.DataFrame) -> pd.DataFrame:
    """Mean score (95% CI, n) and seconds per game of the budget agent at each time budget."""
    rows = []
    for budget, g in table[table["budget"] > 0].groupby("budget"):
        est = mean_ci(g["score"])
        rows.append({"budget_seconds": budget, "mean": est.value, "ci95_low": est.ci95_low,
                     "ci95_high": est.ci95_high, "n": est.n, "seconds_per_game": float(g["seconds"].mean())})
    return pd.DataFrame(rows)


def score_distributions_figure(fixed: pd.DataFrame):
    """One panel per scoring: a box plot of each agent's scores (best mean on top), its mean and 95% CI.

    Overlaid histograms of eight agents hide each other; boxes side by side keep
    every agent readable, and the red bar is the interval the tables quote.
    """
    import matplotlib.pyplot as plt

    scorings = list(fixed["scoring"].unique())
    agents = fixed.groupby("agent", sort=False).size()
    fig, axes = plt.subplots(1, len(scorings), figsize=(6 * len(scorings), 0.45 * len(agents) + 1.6),
                             squeeze=False)
    for ax, scoring in zip(axes[0], scorings):
        part = fixed[fixed["scoring"] == scoring]
        order = part.groupby("agent", sort=False)["score"].mean().sort_values().index
        data = [part.loc[part["agent"] == agent, "score"].to_numpy() for agent in order]
        ax.boxplot(data, vert=False, widths=0.55, flierprops={"markersize": 3, "alpha": 0.5},
                   medianprops={"color": "black"})
        for y, scores in enumerate(data, start=1):
            est = mean_ci(scores)
            ax.plot([est.ci95_low, est.ci95_high], [y, y], color="tab:red", lw=3, solid_capstyle="butt")
            ax.plot(est.value, y, "D", color="tab:red", ms=4)
        counts = sorted({len(scores) for scores in data})
        ax.set_yticks(range(1, len(order) + 1), [f"{agent} (n={len(scores)})" for agent, scores in zip(order, data)])
        ax.set(title=f"{scoring} scoring, n = {', '.join(map(str, counts))} games per agent", xlabel="score")
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle("Score per game: box = quartiles, whiskers 1.5 IQR; red = mean and its 95% CI")
    fig.tight_layout()
    return fig


def budget_figure(budgets: pd.DataFrame, params: dict):
    """Mean score (95% CI) against the time budget per game, with n; ticks in seconds."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    seconds = budgets["budget_seconds"].to_numpy(dtype=float)
    err = np.vstack([budgets["mean"] - budgets["ci95_low"], budgets["ci95_high"] - budgets["mean"]])
    ax.errorbar(seconds, budgets["mean"], yerr=err, fmt="o-", capsize=4)
    for x, m, n in zip(seconds, budgets["ci95_high"], budgets["n"]):
        ax.annotate(f"n={int(n)}", (x, m), textcoords="offset points", xytext=(0, 4), ha="center", fontsize=8)
    ax.set_xscale("log")
    # Ticks at the budgets themselves, written in seconds (no 6x10^-1 labels).
    ax.xaxis.set_major_locator(FixedLocator(seconds))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticks(seconds, [f"{x:g} s" for x in seconds])
    ax.set_xlim(seconds.min() / 1.6, seconds.max() * 1.6)
    note = "" if len(seconds) > 2 else f" ({len(seconds)} budget{'s' if len(seconds) > 1 else ''} in the config)"
    ax.set(xlabel="time budget per game (log scale)", ylabel="mean score (95% CI)",
           title=f"{params['budget_agent']}, {params['budget_scoring']} scoring{note}")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig
