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


def head_to_head(table: pd.DataFrame) -> pd.DataFrame:
    """Mean margin (95% CI, pairs of rubbers) of every match-up, both ways round."""
    rows = []
    for (a, b), group in table[table["kind"] == "match"].groupby(["a", "b"], sort=False):
        est = _pooled(group)
        rows.append({"a": a, "b": b, "mean_margin": est.value, "ci95_low": est.ci95_low,
                     "ci95_high": est.ci95_high, "n_pairs": est.n})
        rows.append({"a": b, "b": a, "mean_margin": -est.value, "ci95_low": -est.ci95_high,
                     "ci95_high": -est.ci95_low, "n_pairs": est.n})
    return pd.DataFrame(rows)


def _versus_default(head: pd.DataFrame, params: dict) -> pd.DataFrame:
    thresholds = {name: ",".join(str(int(x)) for x in arr)
                  for name, arr in parse_policies(params["policies"]).items()}
    versus = head[head["b"] == "default"].sort_values("mean_margin").reset_index(drop=True)
    versus.insert(1, "thresholds", versus["a"].map(thresholds))
    return versus


def plot(table: pd.DataFrame, params: dict, writer) -> None:
    """Draw the figure from the trials table alone (what ``summarize`` draws, without its tables)."""
    writer.figure("margins_vs_default", margins_figure(_versus_default(head_to_head(table), params), params))


_STAGES = ("double", "redouble", "free", "dealer double", "dealer redouble")


def policy_in_words(thresholds: str) -> str:
    """A threshold set (``"2,1,4,1,0"``) as when each draw is taken.

    >>> policy_in_words("2,1,4,1,0")
    'double < two pair, redouble < one pair, free < straight, dealer double < one pair, dealer redouble never'
    """
    from gamut.envs.hands import CATEGORY_NAMES, NUM_CATEGORIES

    words = []
    for stage, value in zip(_STAGES, (int(v) for v in thresholds.split(","))):
        if value == 0:
            words.append(f"{stage} never")
        elif value >= NUM_CATEGORIES:
            words.append(f"{stage} always")
        else:
            words.append(f"{stage} < {CATEGORY_NAMES[value]}")
    return ", ".join(words)


def margins_figure(versus: pd.DataFrame, params: dict):
    """Each policy's margin against ``default`` with its 95% CI, the figures written beside the bars.

    The intervals (a few points) are narrow against margins of hundreds, so
    they are drawn as thick bars and also written out; each policy is labelled
    with its draws in words (the draw is taken when the hand is below the
    named category).
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(14, 0.62 * len(versus) + 1.8))
    y = np.arange(len(versus))
    ax.hlines(y, versus["ci95_low"], versus["ci95_high"], color="tab:blue", lw=6)
    ax.plot(versus["mean_margin"], y, "|", color="black", ms=12, mew=1.5)
    for yi, (_, r) in zip(y, versus.iterrows()):
        ax.annotate(f"{r['mean_margin']:+.1f} ({r['ci95_low']:+.1f} .. {r['ci95_high']:+.1f}), n={int(r['n_pairs']):,}",
                    (1.02, yi), xycoords=("axes fraction", "data"), va="center", fontsize=8)
    ax.axvline(0.0, color="grey", lw=0.8)
    ax.set_yticks(y, [f"{a}\n{policy_in_words(t)}" for a, t in zip(versus["a"], versus["thresholds"])],
                  fontsize=7.5)
    ax.set_xlabel("mean above-the-line margin per rubber against 'default' (95% CI, n pairs of rubbers)")
    ax.set_title(f"Draw/double policies against 'default' ({policy_in_words(_versus_default_thresholds(params))}),"
                 "\ncommon random deals, seats swapped", fontsize=9)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def _versus_default_thresholds(params: dict) -> str:
    return ",".join(str(int(x)) for x in parse_policies(params["policies"])["default"])


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    point = _pooled(table[table["kind"] == "point_value"])
    writer.table("point_value", pd.DataFrame([{"value": point.value, "ci95_low": point.ci95_low,
                                               "ci95_high": point.ci95_high, "n": point.n}]))

    head = head_to_head(table)
    writer.table("head_to_head", head)
    versus = _versus_default(head, params)

    writer.figure("margins_vs_default", margins_figure(versus, params))

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
