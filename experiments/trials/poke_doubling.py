"""The Poke doubling study: what a trick point is worth, which draw/double policies win, what equilibrium does.

Three kinds of trial (``kind`` column):

- ``point_value``: the above-the-line value of one below-the-line point from
  full rubbers of the default heuristic (``gamut.solvers.poke.point_value``), a
  batch of ``point_rubbers`` samples per trial, summed as moments.
- ``match``: two draw/double policy families (threshold sets of
  ``gamut.solvers.poke.heuristic``) head to head over ``pairs`` pairs of full
  rubbers with common random deals and swapped seats
  (``gamut.solvers.poke.match``). Every match-up of a batch uses the same seeds
  (``stream`` = batch), so the comparisons share their deals.
- ``equilibrium``: the exact CFR+ policy of the small deal (trick points worth
  ``small_trick_value``), its exploitability, and how often it draws at each
  stage by hand (``gamut.solvers.poke.equilibrium``); the non-dealer's first draw
  doubles, the dealer's is free.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gamut.experiments.config import game_string
from gamut.experiments.store import markdown_table

NAME = "poke_doubling"
VERSION = 1
PARAMS = {
    "game": game_string,
    "policies": list,
    "pairs": int,
    "point_batches": int,
    "point_rubbers": int,
    "small_trick_value": float,
    "cfr_iterations": int,
    "equilibrium_deals": int,
}


def parse_policies(entries: list) -> dict:
    """``["name=a,b,c,d,e", ...]`` -> ``{name: thresholds array}`` (``gamut.solvers.poke.heuristic`` order)."""
    from gamut.solvers.poke.heuristic import PARAM_NAMES, make_params

    out = {}
    for entry in entries:
        name, sep, values = str(entry).partition("=")
        parts = values.split(",")
        if not sep or not name or len(parts) != len(PARAM_NAMES):
            raise ValueError(f"policy {entry!r} must read NAME={','.join(PARAM_NAMES)} (five integers)")
        try:
            out[name] = make_params(**{k: int(v) for k, v in zip(PARAM_NAMES, parts)})
        except ValueError as err:
            raise ValueError(f"policy {entry!r}: {err}") from None
    return out


def validate(params: dict) -> None:
    policies = parse_policies(params["policies"])
    if len(policies) < 2:
        raise ValueError("field 'policies' needs at least two policies")
    if "default" not in policies:
        raise ValueError("field 'policies' needs one named 'default' (the reference of the plot)")
    for field in ("pairs", "point_batches", "point_rubbers", "cfr_iterations", "equilibrium_deals"):
        if params[field] < 1:
            raise ValueError(f"field {field!r} must be >= 1, got {params[field]}")
    if "mode=rubber" not in params["game"].replace(" ", ""):
        raise ValueError(f"field 'game' must be a rubber: poke(mode=rubber,...), got {params['game']!r}")
    if params["small_trick_value"] <= 0:
        raise ValueError(f"field 'small_trick_value' must be > 0, got {params['small_trick_value']}")
    import pyspiel

    from gamut.solvers.poke.policies import small_game_string

    # The equilibrium trial's game must load now, not when its trial starts.
    try:
        small_game_string(params["small_trick_value"])
    except pyspiel.SpielError as err:
        raise ValueError(f"field 'small_trick_value': the small deal does not load: {err}") from None


def trial_specs(params: dict) -> list[dict]:
    names = list(parse_policies(params["policies"]))
    specs = [{"kind": "equilibrium", "stream": 0}]
    specs += [{"kind": "point_value", "batch": b, "stream": 1000 + b} for b in range(params["point_batches"])]
    for batch in range(params["trials"]):
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                specs.append({"kind": "match", "a": a, "b": b, "batch": batch, "stream": 2000 + batch})
    return [{"trial": i, **spec} for i, spec in enumerate(specs)]


def _moments(samples: np.ndarray) -> dict:
    mean = float(samples.mean())
    return {"n": int(samples.size), "mean": mean, "m2": float(((samples - mean) ** 2).sum())}


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    import pyspiel

    import gamut.envs  # noqa: F401  (registers poke)
    from gamut.solvers.poke.match import heuristic_margins, match_seeds

    game = pyspiel.load_game(params["game"])
    if spec["kind"] == "point_value":
        from gamut.solvers.poke.heuristic import make_params
        from gamut.solvers.poke.point_value import point_value_samples

        samples = point_value_samples(game.cfg, make_params(), match_seeds(seed, params["point_rubbers"]))
        return [_moments(samples)]
    if spec["kind"] == "match":
        policies = parse_policies(params["policies"])
        margins = heuristic_margins(game.cfg, policies[spec["a"]], policies[spec["b"]],
                                    match_seeds(seed, params["pairs"]))
        return [_moments(margins.mean(axis=1))]
    from gamut.solvers.poke.equilibrium import draw_counts, draw_table
    from gamut.solvers.poke.policies import small_game_string, solve_small

    small = pyspiel.load_game(small_game_string(params["small_trick_value"]))
    strategy = solve_small(str(small), params["cfr_iterations"])
    rows = draw_table(draw_counts(small, strategy, params["equilibrium_deals"], seed))
    for row in rows:
        row["exploitability"] = strategy.metadata["exploitability"]
        row["cfr_iterations"] = params["cfr_iterations"]
    return rows


def _pooled(group: pd.DataFrame):
    from gamut.solvers.stats import combine_moments, moments_ci

    return moments_ci(*combine_moments(group["n"], group["mean"], group["m2"]))


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    import matplotlib.pyplot as plt

    point = _pooled(table[table["kind"] == "point_value"])
    writer.table("point_value", pd.DataFrame([{"value": point.value, "ci95_low": point.ci95_low,
                                               "ci95_high": point.ci95_high, "n": point.n}]))

    matches = table[table["kind"] == "match"]
    rows = []
    for (a, b), group in matches.groupby(["a", "b"], sort=False):
        est = _pooled(group)
        rows.append({"a": a, "b": b, "mean_margin": est.value, "ci95_low": est.ci95_low,
                     "ci95_high": est.ci95_high, "n_pairs": est.n})
        rows.append({"a": b, "b": a, "mean_margin": -est.value, "ci95_low": -est.ci95_high,
                     "ci95_high": -est.ci95_low, "n_pairs": est.n})
    head = pd.DataFrame(rows)
    writer.table("head_to_head", head)
    thresholds = {name: ",".join(str(int(x)) for x in arr)
                  for name, arr in parse_policies(params["policies"]).items()}
    versus = head[head["b"] == "default"].sort_values("mean_margin").reset_index(drop=True)
    versus.insert(1, "thresholds", versus["a"].map(thresholds))

    fig, ax = plt.subplots(figsize=(7, 0.5 * len(versus) + 1.5))
    y = np.arange(len(versus))
    ax.errorbar(versus["mean_margin"], y, xerr=[versus["mean_margin"] - versus["ci95_low"],
                                                versus["ci95_high"] - versus["mean_margin"]], fmt="o", capsize=3)
    ax.axvline(0.0, color="grey", lw=0.8)
    ax.set_yticks(y, [f"{a} ({t})" for a, t in zip(versus["a"], versus["thresholds"])])
    ax.set_xlabel("mean above-the-line margin per rubber against 'default' (95% CI)")
    ax.set_title("Draw/double policies head to head, common random deals")
    fig.tight_layout()
    writer.figure("margins_vs_default", fig)

    eq = table[table["kind"] == "equilibrium"][["stage", "stage_name", "hand", "draws", "decisions", "frequency",
                                                "ci95_low", "ci95_high"]].reset_index(drop=True)
    writer.table("equilibrium_draws", eq)
    exploit = float(table.loc[table["kind"] == "equilibrium", "exploitability"].iloc[0])
    first = eq[eq["stage"].isin([0, 2])].pivot(index="hand", columns="stage_name", values="frequency")

    return "\n".join([
        f"Value of one below-the-line point: **{point.value:.2f}** above-the-line points "
        f"(95% CI {point.ci95_low:.2f} .. {point.ci95_high:.2f}, n = {point.n:,} rubbers; default heuristic "
        "both sides, one extra point at the start of a random deal).",
        "",
        f"Policies against `default`, mean above-the-line margin per rubber (n pairs of rubbers, thresholds "
        "double, redouble, free, dealer double, dealer redouble: draw below that hand category):",
        "",
        markdown_table(versus[["a", "thresholds", "mean_margin", "ci95_low", "ci95_high", "n_pairs"]]),
        "",
        "![margins against default](margins_vs_default.png)",
        "",
        f"Small exact deal (trick point = {params['small_trick_value']:g} above), CFR+ "
        f"{params['cfr_iterations']} iterations, exploitability {exploit:.4g}. First-draw frequency by hand "
        "(non-dealer's doubles, dealer's is free):",
        "",
        markdown_table(first.reset_index()),
    ])
