"""Bounds on the optimal expected Poker Squares score: an agent's mean below, the clairvoyant optimum above.

Per deal: the agent's score (a policy's expectation estimates a lower bound
on the optimum), the best arrangement found by annealing and the core ILP
upper bound on the best arrangement of the 25 cards (``solvers.poker_squares.
bounds``). The mean upper bound over random deals bounds the optimal expected
score of the sequential game from above; the same deals serve both sides.
"""

from __future__ import annotations

import pandas as pd

from experiments.store import markdown_table
from solvers.stats import mean_ci

NAME = "poker_squares_bounds"
VERSION = 1
PARAMS = {"deals_per_trial": int, "scorings": list, "time_limit": float, "agent": str}


def validate(params: dict) -> None:
    if params["deals_per_trial"] < 1 or params["time_limit"] <= 0:
        raise ValueError("fields 'deals_per_trial' and 'time_limit' must be positive")
    for s in params["scorings"]:
        if s not in ("american", "english"):
            raise ValueError(f"field 'scorings': {s!r} is not american or english")


def trial_specs(params: dict) -> list[dict]:
    """One trial per (deal batch, scoring); a batch is a stream, so both scorings see the same deals."""
    return [{"trial": b * len(params["scorings"]) + j, "stream": b, "batch": b, "scoring": s}
            for b in range(params["trials"]) for j, s in enumerate(params["scorings"])]


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    import pyspiel

    import envs  # noqa: F401
    from solvers.bots import make_bot
    from solvers.poker_squares.bounds import clairvoyant_bounds
    from solvers.poker_squares.evaluation import deals, evaluate

    game = pyspiel.load_game("poker_squares", {"scoring": spec["scoring"]})
    the_deals = deals(seed, params["deals_per_trial"])
    scores = evaluate(game, make_bot(game, params["agent"], player=0, seed=seed), the_deals)["scores"]
    res = clairvoyant_bounds(the_deals, game.cfg, time_limit=params["time_limit"])
    return [{"deal": i, "agent_score": int(scores[i]), "arrangement": int(res["best"][i]),
             "upper": float(res["upper"][i]), "proven": bool(res["proven"][i])} for i in range(len(the_deals))]


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    rows = []
    for scoring, g in table.groupby("scoring", sort=False):
        for label, column in (("lower: agent " + params["agent"], "agent_score"),
                              ("clairvoyant arrangement found", "arrangement"),
                              ("upper: clairvoyant bound", "upper")):
            est = mean_ci(g[column])
            rows.append({"scoring": scoring, "quantity": label, "mean": est.value, "ci95_low": est.ci95_low,
                         "ci95_high": est.ci95_high, "n": est.n,
                         "proven_optimal": int(g["proven"].sum()) if column == "upper" else None})
    summary = pd.DataFrame(rows)
    writer.table("bounds", summary)
    return "\n".join([
        "Lower and upper bounds on the optimal expected score (same deals; 95% t intervals). "
        "The upper bound is the mean per-deal clairvoyant bound; `proven_optimal` counts deals where the "
        "annealed arrangement meets it.", "", markdown_table(summary, float_format="{:.4g}")])
