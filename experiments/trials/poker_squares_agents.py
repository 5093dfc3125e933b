"""Poker Squares agents on the same seeded deals: scores, hand categories, placements, time budgets.

Every agent plays every deal batch under every point system; a batch's deals
depend only on its stream, so all agents meet the same cards (paired
comparisons). Each row is one game: the score, the seconds it took, the
category of each of its ten lines and the final grid (card ids by cell, for
the placement heatmaps of the notebook). The ``budgets`` field adds each of
the ``budget_agents`` (agents that take ``seconds_per_game``) at several time
budgets per game, under every point system (score vs time). In the summary
tables such a run is a player of its own, named by :func:`player_names`
(``mc_cross@5s``), so it is ranked and paired with the fixed agents. The
``options`` field gives agents options (``AGENT.NAME=VALUE``, e.g.
``"ppo.weights=train/ppo-poker_squares/weights.npz"`` seats a trained network).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gamut.experiments.store import markdown_table
from gamut.solvers.stats import mean_ci, paired_diff_ci

NAME = "poker_squares_agents"
VERSION = 2
PARAMS = {"deals_per_trial": int, "scorings": list, "agents": list, "budget_agents": list, "budgets": list,
          "options": list}


def validate_deals_and_scorings(params: dict) -> None:
    """The checks every Poker Squares agent experiment makes: whole batches of deals, scorings with tables."""
    if params["deals_per_trial"] < 1:
        raise ValueError("field 'deals_per_trial' must be >= 1")
    for s in params["scorings"]:
        if s not in ("american", "english"):
            raise ValueError(f"field 'scorings': {s!r} is not american or english (the learned tables)")


def validate(params: dict) -> None:
    validate_deals_and_scorings(params)
    if any(float(b) <= 0 for b in params["budgets"]):
        raise ValueError("field 'budgets': every time budget must be > 0 seconds")
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.experiments.validate import agent_options
    from gamut.solvers.bots import bot_specs, make_bot

    specs = bot_specs(pyspiel.load_game("poker_squares"))
    for agent in params["budget_agents"]:
        spec = specs.get(agent)
        if spec is None or "seconds_per_game" not in spec.options:
            timed = sorted(name for name, sp in specs.items() if "seconds_per_game" in sp.options)
            raise ValueError(f"field 'budget_agents': {agent!r} is not a Poker Squares agent with a time budget "
                             f"per game; those with one: {', '.join(timed)}")
    if params["budget_agents"] and not params["budgets"]:
        raise ValueError("field 'budgets' is empty while 'budget_agents' names agents; give at least one budget")
    if not params["agents"]:
        raise ValueError("field 'agents' is empty; name at least one agent")
    options = agent_options(params["options"])
    playing = {str(agent) for agent in list(params["agents"]) + list(params["budget_agents"])}
    idle = sorted(set(options) - playing)
    if idle:
        raise ValueError(f"field 'options' sets options of {idle[0]!r}, which is in neither 'agents' nor "
                         f"'budget_agents'")
    # Every agent is built once per scoring it plays, so an unknown name, a missing table or a
    # weights file of another game fails here.
    for scoring in params["scorings"]:
        game = pyspiel.load_game("poker_squares", {"scoring": scoring})
        for agent in sorted(playing):
            try:
                make_bot(game, agent, player=0, seed=0, **options.get(agent, {}))
            except ValueError as err:
                raise ValueError(f"field 'agents' ({scoring}): {err}") from None


def trial_specs(params: dict) -> list[dict]:
    """One trial per (deal batch, scoring, agent) and per (deal batch, budget); a batch is a stream."""
    specs = []
    for batch in range(params["trials"]):
        runs = [(agent, scoring, 0.0) for scoring in params["scorings"] for agent in params["agents"]]
        runs += [(agent, scoring, float(b)) for scoring in params["scorings"] for agent in params["budget_agents"]
                 for b in params["budgets"]]
        for agent, scoring, budget in runs:
            specs.append({"trial": len(specs), "stream": batch, "batch": batch, "agent": agent,
                          "scoring": scoring, "budget": budget})
    return specs


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.envs.hands import HAND_TABLE
    from gamut.envs.poker_squares import kernels as K
    from gamut.experiments.validate import agent_options
    from gamut.solvers.bots import make_bot
    from gamut.solvers.poker_squares.evaluation import deals, evaluate

    game = pyspiel.load_game("poker_squares", {"scoring": spec["scoring"]})
    options = agent_options(params["options"]).get(spec["agent"], {})
    if spec["budget"] > 0:
        options = {**options, "seconds_per_game": spec["budget"]}
    # A throwaway copy plays one game first, so the published seconds per game exclude Numba's
    # compilation and table loading; the timed bot starts from its own seed, as before.
    evaluate(game, make_bot(game, spec["agent"], player=0, seed=seed, **options), deals(seed, 1))
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


def player_names(table: pd.DataFrame) -> pd.Series:
    """The player each trials row belongs to: the agent, or ``agent@<budget>s`` for a budget run.

    >>> player_names(pd.DataFrame({"agent": ["net", "mc_cross"], "budget": [0.0, 0.25]})).tolist()
    ['net', 'mc_cross@0.25s']
    """
    return pd.Series([agent if budget == 0 else f"{agent}@{budget:g}s"
                      for agent, budget in zip(table["agent"], table["budget"])], index=table.index, name="player")


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    from gamut.envs.hands import CATEGORY_NAMES

    table = table.assign(player=player_names(table))
    rows = []
    for (scoring, player), g in table.groupby(["scoring", "player"], sort=False):
        est = mean_ci(g["score"])
        rows.append({"scoring": scoring, "agent": player, "mean": est.value, "ci95_low": est.ci95_low,
                     "ci95_high": est.ci95_high, "n": est.n, "sd": float(g["score"].std()),
                     "seconds_per_game": float(g["seconds"].mean())})
    means = pd.DataFrame(rows).sort_values("scoring", kind="stable", ignore_index=True)
    writer.table("agent_means", means)

    lines = [f"line{i}" for i in range(10)]
    freq = []
    for (scoring, player), g in table.groupby(["scoring", "player"], sort=False):
        cats = g[lines].to_numpy()
        for c, name in enumerate(CATEGORY_NAMES):
            freq.append({"scoring": scoring, "agent": player, "category": name,
                         "rows_per_game": float((cats[:, :5] == c).sum(axis=1).mean()),
                         "columns_per_game": float((cats[:, 5:] == c).sum(axis=1).mean())})
    writer.table("category_frequencies", pd.DataFrame(freq))

    budgets = budget_table(table)
    writer.table("score_vs_budget", budgets)

    # Paired differences to the best player of each scoring (the same deals).
    paired = []
    for scoring, g in table.groupby("scoring", sort=False):
        wide = g.pivot_table(index=["batch", "deal"], columns="player", values="score")
        best = means[means["scoring"] == scoring].sort_values("mean").iloc[-1]["agent"]
        for player in wide.columns:
            if player != best:
                d = paired_diff_ci(wide[best], wide[player])
                paired.append({"scoring": scoring, "best": best, "other": player, "difference": d.value,
                               "ci95_low": d.ci95_low, "ci95_high": d.ci95_high, "n": d.n})
    writer.table("paired_differences", pd.DataFrame(paired))

    writer.figure("score_distributions", score_distributions_figure(table))
    text = ["Mean score per agent (same deals for every agent; 95% t intervals; `agent@Xs` is a budget run "
            "at X seconds per game):", "", markdown_table(means, float_format="{:.4g}"), "",
            "![score distributions](score_distributions.png)", ""]
    if len(budgets):
        writer.figure("score_vs_budget", budget_figure(budgets))
        text += ["Score against the time budget per game:", "", markdown_table(budgets, float_format="{:.4g}"),
                 "", "![score vs budget](score_vs_budget.png)"]
    return "\n".join(text)


def plot(table: pd.DataFrame, params: dict, writer) -> None:
    """Draw the figures from the trials table alone (what ``summarize`` draws, without its tables)."""
    writer.figure("score_distributions", score_distributions_figure(table.assign(player=player_names(table))))
    budgets = budget_table(table)
    if len(budgets):
        writer.figure("score_vs_budget", budget_figure(budgets))


def budget_table(table: pd.DataFrame) -> pd.DataFrame:
    """Mean score (95% CI, n) and seconds per game of each budget agent at each time budget, per scoring."""
    rows = []
    for (scoring, agent, budget), g in table[table["budget"] > 0].groupby(["scoring", "agent", "budget"],
                                                                          sort=False):
        est = mean_ci(g["score"])
        rows.append({"scoring": scoring, "agent": agent, "budget_seconds": budget, "mean": est.value,
                     "ci95_low": est.ci95_low, "ci95_high": est.ci95_high, "n": est.n,
                     "seconds_per_game": float(g["seconds"].mean())})
    return pd.DataFrame(rows)


def score_distributions_figure(table: pd.DataFrame):
    """One panel per scoring: a box plot of each player's scores (best mean on top), its mean and 95% CI.

    ``table`` has a ``player`` column (:func:`player_names`). Budget runs appear
    at their largest budget only. Overlaid histograms of many agents hide each
    other; boxes side by side keep every agent readable, and the red bar is the
    interval the tables quote.
    """
    import matplotlib.pyplot as plt

    timed = table[table["budget"] > 0]
    largest = timed[timed["budget"] == timed.groupby("agent")["budget"].transform("max")]
    fixed = pd.concat([table[table["budget"] == 0], largest]).assign(agent=lambda t: t["player"])

    scorings = list(fixed["scoring"].unique())
    agents = fixed.groupby("agent", sort=False).size()
    fig, axes = plt.subplots(1, len(scorings), figsize=(6 * len(scorings), 0.45 * len(agents) + 1.6),
                             squeeze=False)
    for ax, scoring in zip(axes[0], scorings):
        part = fixed[fixed["scoring"] == scoring]
        order = part.groupby("agent", sort=False)["score"].mean().sort_values().index
        data = [part.loc[part["agent"] == agent, "score"].to_numpy() for agent in order]
        ax.boxplot(data, orientation="horizontal", widths=0.55, flierprops={"markersize": 3, "alpha": 0.5},
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


def budget_figure(budgets: pd.DataFrame):
    """One panel per scoring: each budget agent's mean score (95% CI) against its time budget per game, with n."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    scorings = list(budgets["scoring"].unique())
    fig, axes = plt.subplots(1, len(scorings), figsize=(5.5 * len(scorings), 3.9), squeeze=False)
    seconds = np.sort(budgets["budget_seconds"].unique().astype(float))
    for ax, scoring in zip(axes[0], scorings):
        part = budgets[budgets["scoring"] == scoring]
        for i, (agent, g) in enumerate(part.groupby("agent", sort=False)):
            g = g.sort_values("budget_seconds")
            err = np.vstack([g["mean"] - g["ci95_low"], g["ci95_high"] - g["mean"]])
            # Agents side by side at each budget (a few percent apart on the log axis) so bars do not overlap.
            dodge = 1.06 ** (i - (part["agent"].nunique() - 1) / 2)
            ax.errorbar(g["budget_seconds"] * dodge, g["mean"], yerr=err, fmt="o-", capsize=4, label=agent)
        counts = sorted({int(n) for n in part["n"]})
        ax.set_xscale("log")
        # Ticks at the budgets themselves, written in seconds (no 6x10^-1 labels).
        ax.xaxis.set_major_locator(FixedLocator(seconds))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticks(seconds, [f"{x:g} s" for x in seconds])
        ax.set_xlim(seconds.min() / 1.6, seconds.max() * 1.6)
        ax.set(xlabel="time budget per game (log scale)", ylabel="mean score (95% CI)",
               title=f"{scoring} scoring, n = {', '.join(map(str, counts))} games per point")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig
