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
    import matplotlib.pyplot as plt

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

    budget_rows = []
    for budget, g in table[table["budget"] > 0].groupby("budget"):
        est = mean_ci(g["score"])
        budget_rows.append({"budget_seconds": budget, "mean": est.value, "ci95_low": est.ci95_low,
                            "ci95_high": est.ci95_high, "n": est.n, "seconds_per_game": float(g["seconds"].mean())})
    budgets = pd.DataFrame(budget_rows)
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

    scorings = list(fixed["scoring"].unique())
    fig, axes = plt.subplots(1, len(scorings), figsize=(6 * len(scorings), 4), squeeze=False)
    for ax, scoring in zip(axes[0], scorings):
        for agent, g in fixed[fixed["scoring"] == scoring].groupby("agent", sort=False):
            ax.hist(g["score"], bins=30, histtype="step", label=f"{agent} (n={len(g)})")
        ax.set(title=f"score distribution, {scoring}", xlabel="score", ylabel="games")
        ax.legend()
    fig.tight_layout()
    writer.figure("score_distributions", fig)

    text = ["Mean score per agent (same deals for every agent; 95% t intervals):", "",
            markdown_table(means, float_format="{:.4g}"), "",
            "![score distributions](score_distributions.png)", ""]
    if len(budgets):
        fig, ax = plt.subplots(figsize=(5, 3.5))
        err = np.vstack([budgets["mean"] - budgets["ci95_low"], budgets["ci95_high"] - budgets["mean"]])
        ax.errorbar(budgets["budget_seconds"], budgets["mean"], yerr=err, fmt="o-")
        ax.set(xscale="log", xlabel="seconds per game", ylabel="mean score",
               title=f"{params['budget_agent']}, {params['budget_scoring']}")
        fig.tight_layout()
        writer.figure("score_vs_budget", fig)
        text += ["Score against the time budget per game:", "", markdown_table(budgets, float_format="{:.4g}"),
                 "", "![score vs budget](score_vs_budget.png)"]
    return "\n".join(text)
