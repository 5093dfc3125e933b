"""Palace Poker tournament: pairs of agents at 2-, 4- and 6-player tables, rotating seats, common deals.

A *match-up* ``A:B`` at ``n`` seats fills the seats alternately with A and
B (``A B A B ...``). Each deal is played once per rotation of the seats
(``gamut.solvers.palace_poker.match``): every agent sits in every seat on the same
cards. A trial plays ``deals`` deals (one count per table size) of one
match-up at one table size; all match-ups of one batch and table size share
their deals (same ``stream``).
Rows: one per deal with each agent's mean chips per hand over its seats.
The summary gives, per table size and match-up, each agent's mean chips per
hand and the paired difference A - B, each with a 95% t interval over deals.
"""

from __future__ import annotations

import pandas as pd

from gamut.experiments.ci_bars import ci_bars
from gamut.experiments.store import table_summary

NAME = "palace_tournament"
VERSION = 1
PARAMS = {
    "players": list,
    "matchups": list,
    "deals": list,
    "betting": str,
    "options": list,
}


def parse_matchup(text) -> tuple[str, str]:
    """``"ismcts:heuristic"`` -> ``("ismcts", "heuristic")``."""
    a, sep, b = str(text).partition(":")
    if not sep or not a or not b or a == b:
        raise ValueError(f"match-up {text!r} must read A:B with two different agent names")
    return a, b


def _game(players: int, betting: str):
    import pyspiel

    import gamut.envs  # noqa: F401  (registers palace_poker)

    return pyspiel.load_game("palace_poker", {"players": players, "betting": betting})


def validate(params: dict) -> None:
    from gamut.experiments.validate import agent_options
    from gamut.solvers.bots import make_bot

    for n in params["players"]:
        if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 10:
            raise ValueError(f"field 'players': table sizes must be integers in 2..10, got {n!r}")
    deals = params["deals"]
    if len(deals) != len(params["players"]) or any(isinstance(d, bool) or not isinstance(d, int) or d < 1
                                                     for d in deals):
        raise ValueError(f"field 'deals' needs one whole number >= 1 per table size of 'players', got {deals!r}")
    if params["betting"] not in ("limit", "no_limit"):
        raise ValueError(f"field 'betting' must be limit or no_limit, got {params['betting']!r}")
    if not params["matchups"]:
        raise ValueError("field 'matchups' is empty; name at least one A:B")
    options = agent_options(params["options"])
    playing = {name for matchup in params["matchups"] for name in parse_matchup(matchup)}
    idle = sorted(set(options) - playing)
    if idle:
        raise ValueError(f"field 'options' sets options of {idle[0]!r}, which plays in none of the 'matchups' "
                         f"({', '.join(sorted(playing))})")
    # Every agent is built, with its options, at every table size it sits at, before the first trial.
    for n in params["players"]:
        game = _game(n, params["betting"])
        for name in sorted(playing):
            try:
                make_bot(game, name, 0, 0, **options.get(name, {}))
            except ValueError as err:
                raise ValueError(f"field 'matchups'/'options' ({n} players): {err}") from None


def trial_specs(params: dict) -> list[dict]:
    specs = []
    for n, deals in zip(params["players"], params["deals"]):
        for matchup in params["matchups"]:
            a, b = parse_matchup(matchup)
            for batch in range(params["trials"]):
                specs.append({"players": n, "a": a, "b": b, "batch": batch, "deals": deals,
                              "stream": 1000 * n + batch})
    return [{"trial": i, **spec} for i, spec in enumerate(specs)]


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    from gamut.experiments.validate import agent_options
    from gamut.solvers.bots import make_bot
    from gamut.solvers.palace_poker.match import lineup_for, rotated_match

    game = _game(spec["players"], params["betting"])
    options = agent_options(params["options"])
    a, b = spec["a"], spec["b"]
    samples = rotated_match(game, lineup_for([a, b], spec["players"]),
                            lambda name, seat, s: make_bot(game, name, seat, s, **options.get(name, {})),
                            seed, range(spec["deals"]))
    return [{"deal": d, "chips_a": float(samples[a][d]), "chips_b": float(samples[b][d])}
            for d in range(spec["deals"])]


def standings(table: pd.DataFrame) -> pd.DataFrame:
    """Each agent's mean chips per hand (95% CI) and A - B per table size and match-up."""
    from gamut.solvers.stats import mean_ci, paired_diff_ci

    rows = []
    for (n, a, b), group in table.groupby(["players", "a", "b"], sort=False):
        est_a, est_b = mean_ci(group["chips_a"]), mean_ci(group["chips_b"])
        diff = paired_diff_ci(group["chips_a"], group["chips_b"])
        rows.append({"players": int(n), "a": a, "b": b,
                     "a_mean_chips": est_a.value, "a_ci95_low": est_a.ci95_low, "a_ci95_high": est_a.ci95_high,
                     "b_mean_chips": est_b.value, "b_ci95_low": est_b.ci95_low, "b_ci95_high": est_b.ci95_high,
                     "diff": diff.value, "diff_ci95_low": diff.ci95_low, "diff_ci95_high": diff.ci95_high,
                     "a_beats_b": bool(est_a.ci95_low > est_b.ci95_high), "deals": est_a.n})
    return pd.DataFrame(rows)


def plot(table: pd.DataFrame, params: dict, writer) -> None:
    """Draw the figure from the trials table alone (what ``summarize`` draws, without its tables)."""
    writer.figure("standings", standings_figure(standings(table), params))


def standings_figure(summary: pd.DataFrame, params: dict):
    """A's own mean chips per hand with its 95% CI, one panel per table size (the figure the README quotes).

    The seats alternate A, B, ... and every deal is played in every rotation,
    so B's chips per hand are A's negated; the figures are written beside the bars.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    sizes = list(dict.fromkeys(summary["players"]))
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.8 * len(sizes), 0.6 * len(params["matchups"]) + 2.4),
                             squeeze=False, sharey=True)
    for ax, n in zip(axes[0], sizes):
        part = summary[summary["players"] == n].reset_index(drop=True)
        y = np.arange(len(part))
        ci_bars(ax, part["a_mean_chips"], part["a_ci95_low"], part["a_ci95_high"], y, fmt="o", capsize=4,
                elinewidth=2)
        for yi, (_, r) in zip(y, part.iterrows()):
            ax.annotate(f"{r['a_mean_chips']:+.2f} ({r['a_ci95_low']:+.2f} .. {r['a_ci95_high']:+.2f})",
                        (r["a_mean_chips"], yi), textcoords="offset points", xytext=(0, 8), ha="center", fontsize=8)
        ax.axvline(0.0, color="grey", lw=0.8)
        ax.set_yticks(y, [f"{a} vs {b}" for a, b in zip(part["a"], part["b"])])
        ax.set_ylim(-0.6, len(part) - 0.4)
        ax.set(title=f"{n} players, n = {int(part['deals'].iloc[0]):,} deals", xlabel="A's chips per hand (95% CI)")
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle(f"Palace Poker ({params['betting']}): A's mean chips per hand against B, rotated seats, "
                 "common deals")
    fig.tight_layout()
    return fig


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    summary = standings(table)
    writer.table("standings", summary)

    writer.figure("standings", standings_figure(summary, params))

    shown = summary[["players", "a", "b", "a_mean_chips", "a_ci95_low", "a_ci95_high", "b_mean_chips",
                     "b_ci95_low", "b_ci95_high", "a_beats_b", "deals"]]
    return table_summary(
        "Mean chips per hand of each agent (seats alternate A, B, ...; every deal played in every rotation; "
        "95% t intervals over deals, n = deals). `a_beats_b`: A's interval lies wholly above B's.",
        shown, "standings", "A's chips per hand per table size")
