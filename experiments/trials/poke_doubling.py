"""The Poke doubling study: what a trick point is worth, which draw/double policies win, what equilibrium does.

Four kinds of trial (``kind`` column):

- ``point_value``: the above-the-line value of one below-the-line point from
  full rubbers of the default heuristic (``gamut.solvers.poke.point_value``), a
  batch of ``point_rubbers`` samples per trial, summed as moments; the same
  trial also returns the samples summed by score cell (rows of kind
  ``point_context``: games won by each side and bins of both below-the-line
  scores, from the side of the seat given the point).
- ``match``: two draw/double policy families (threshold sets of
  ``gamut.solvers.poke.heuristic``) head to head over ``pairs`` pairs of full
  rubbers with common random deals and swapped seats
  (``gamut.solvers.poke.match``). Every match-up of a batch uses the same seeds
  (``stream`` = batch), so the comparisons share their deals.
- ``equilibrium``: the exact CFR+ policy of the small deal (trick points worth
  ``small_trick_value``), its exploitability, and how often it draws at each
  stage by hand (``gamut.solvers.poke.equilibrium``); the non-dealer's first draw
  doubles, the dealer's is free.
- ``decision``: the doubling advisor (``gamut.solvers.poke.advisor``) at the
  non-dealer's first draw (the draw that doubles) for one hand of
  ``decision_hands`` at one score of ``decision_contexts``, over
  ``decision_rollouts`` rollouts to the end of the rubber, heuristic seats;
  the options are standing and the searcher's candidate draws
  (``gamut.solvers.poke.search.candidate_actions``: the keep rule's and the
  lowest cards, 1 to 3). Every decision trial uses the same seed, so a hand's
  values at different scores share their determinizations and later deals.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gamut.experiments.config import game_string
from gamut.experiments.store import markdown_table

NAME = "poke_doubling"
VERSION = 2
PARAMS = {
    "game": game_string,
    "policies": list,
    "pairs": int,
    "point_batches": int,
    "point_rubbers": int,
    "small_trick_value": float,
    "cfr_iterations": int,
    "equilibrium_deals": int,
    "decision_hands": list,
    "decision_contexts": list,
    "decision_rollouts": int,
}
# Every decision trial's stream: the same rollouts at every score (common random numbers).
DECISION_STREAM = 3000
CONTEXT_FIELDS = ("below", "below_opponent", "games", "games_opponent")


def parse_hands(entries: list) -> dict:
    """``["high pair=Kc Kd 3h 7s 9d", ...]`` -> ``{name: cards}``, each five cards of the full deck."""
    from gamut.envs.cards import parse_cards

    out = {}
    for entry in entries:
        name, sep, cards = str(entry).partition("=")
        try:
            parsed = parse_cards(cards) if sep and name else []
        except ValueError as err:
            raise ValueError(f"decision hand {entry!r}: {err}") from None
        if len(parsed) != 5 or len(set(parsed.tolist())) != 5:
            raise ValueError(f"decision hand {entry!r} must read NAME=five different cards, e.g. "
                             "'high pair=Kc Kd 3h 7s 9d'")
        out[name] = cards.strip()
    return out


def parse_contexts(entries: list) -> dict:
    """``["opponent 18=0,18,1,1", ...]`` -> ``{name: (below, below_opponent, games, games_opponent)}``.

    The drawer (the non-dealer) first; below-the-line scores 0..19, games 0..1.
    """
    out = {}
    for entry in entries:
        name, sep, values = str(entry).partition("=")
        parts = values.split(",")
        try:
            numbers = tuple(int(v) for v in parts)
        except ValueError:
            numbers = ()
        if (not sep or not name or len(numbers) != 4 or not all(0 <= v <= 19 for v in numbers[:2])
                or not all(0 <= v <= 1 for v in numbers[2:])):
            raise ValueError(f"decision context {entry!r} must read NAME={','.join(CONTEXT_FIELDS)} "
                             "(below-the-line scores 0..19, games 0..1; the drawer first)")
        out[name] = numbers
    return out


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
    if not parse_hands(params["decision_hands"]) or not parse_contexts(params["decision_contexts"]):
        raise ValueError("fields 'decision_hands' and 'decision_contexts' need at least one entry each")
    if params["decision_rollouts"] < 2:
        raise ValueError(f"field 'decision_rollouts' must be >= 2 (a CI needs two), got {params['decision_rollouts']}")
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
    specs += [{"kind": "decision", "hand": hand, "context": context, "stream": DECISION_STREAM}
              for hand in parse_hands(params["decision_hands"]) for context in parse_contexts(params["decision_contexts"])]
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
        from gamut.solvers.poke.point_value import context_moments, point_value_contexts

        samples, context = point_value_contexts(game.cfg, make_params(), match_seeds(seed, params["point_rubbers"]))
        return [_moments(samples)] + [{"kind": "point_context", **row} for row in context_moments(samples, context)]
    if spec["kind"] == "decision":
        return _decision_rows(game, params, spec, seed)
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


def _decision_rows(game, params: dict, spec: dict, seed: int) -> list[dict]:
    """The advisor's options at the non-dealer's first draw of ``spec``'s hand and score, with CIs."""
    from gamut.solvers.poke.advisor import advise_array, first_draw_position
    from gamut.solvers.poke.search import candidate_actions
    from gamut.solvers.stats import mean_ci

    below, below_opp, games, games_opp = parse_contexts(params["decision_contexts"])[spec["context"]]
    st = first_draw_position(game.cfg, parse_hands(params["decision_hands"])[spec["hand"]],
                             below=(below, below_opp), games=(games, games_opp))
    buf = np.empty(64, dtype=np.int64)
    advice = advise_array(st, game.cfg, rollouts=params["decision_rollouts"], seed=seed,
                          actions=buf[:candidate_actions(st, game.cfg, buf)], game_string=params["game"])
    stand = advice.samples[:, [o.action for o in advice.options].index(0)]
    rows = []
    for j, option in enumerate(advice.options):
        versus = mean_ci(advice.samples[:, j] - stand)
        rows.append({"option": option.name, "action": option.action, "rank": j, "n": option.value.n,
                     "value": option.value.value, "ci95_low": option.value.ci95_low,
                     "ci95_high": option.value.ci95_high, "versus_stand": versus.value,
                     "versus_stand_ci95_low": versus.ci95_low, "versus_stand_ci95_high": versus.ci95_high})
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
    """Draw the figures from the trials table alone (what ``summarize`` draws, without its tables)."""
    writer.figure("margins_vs_default", margins_figure(_versus_default(head_to_head(table), params), params))
    writer.figure("point_value_by_score", point_value_figure(point_value_by_score(table)))
    writer.figure("draw_by_score", draw_figure(draw_by_score(table, params)))


def point_value_by_score(table: pd.DataFrame) -> pd.DataFrame:
    """The value of a below-the-line point per score cell, pooled over batches (95% t CI, n rubbers).

    Rows ``games_seat, games_other, below_seat_bin, below_other_bin, value,
    ci95_low, ci95_high, n``; "seat" is the side given the point, the bins
    are ``gamut.solvers.poke.point_value.BIN_LABELS``.
    """
    from gamut.solvers.poke.point_value import BIN_LABELS

    keys = ["games_seat", "games_other", "below_seat_bin", "below_other_bin"]
    rows = []
    for key, group in table[table["kind"] == "point_context"].groupby(keys, sort=False):
        est = _pooled(group)
        rows.append({**dict(zip(keys, key)), "value": est.value, "ci95_low": est.ci95_low,
                     "ci95_high": est.ci95_high, "n": est.n})
    out = pd.DataFrame(rows)
    for column in ("games_seat", "games_other"):
        out[column] = out[column].astype(int)
    order = {label: i for i, label in enumerate(BIN_LABELS)}
    return out.sort_values(keys, key=lambda c: c.map(order) if c.name.endswith("bin") else c).reset_index(drop=True)


_GAMES_WORDS = {(0, 0): "no game won yet", (1, 0): "the seat has won a game", (0, 1): "the other has won a game",
                (1, 1): "one game each (the rubber game)"}


def point_value_figure(cells: pd.DataFrame):
    """One panel per games score: a point's value against the seat's below-the-line score, a line per other's."""
    import matplotlib.pyplot as plt

    from gamut.solvers.poke.point_value import BIN_LABELS

    fig, axes = plt.subplots(1, 4, figsize=(16, 4.2), sharey=True)
    x = np.arange(len(BIN_LABELS))
    for ax, games in zip(axes, _GAMES_WORDS):
        panel = cells[(cells["games_seat"] == games[0]) & (cells["games_other"] == games[1])]
        for k, other in enumerate(BIN_LABELS):
            line = panel[panel["below_other_bin"] == other].set_index("below_seat_bin").reindex(BIN_LABELS)
            offset = (k - 1.5) * 0.06
            ax.errorbar(x + offset, line["value"], yerr=[line["value"] - line["ci95_low"],
                                                         line["ci95_high"] - line["value"]],
                        marker="o", ms=4, capsize=2, label=f"other {other}")
        ax.set_xticks(x, BIN_LABELS)
        ax.set_xlabel("below the line, seat given the point")
        ax.set_title(f"{_GAMES_WORDS[games]}\nn = {int(panel['n'].sum()):,} rubbers", fontsize=9)
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("above-the-line value of one point below (95% CI)")
    axes[-1].legend(title="below, other seat", fontsize=8)
    fig.suptitle("What a point below the line is worth, by score (default heuristic both sides)", fontsize=10)
    fig.tight_layout()
    return fig


def draw_by_score(table: pd.DataFrame, params: dict) -> pd.DataFrame:
    """Per hand and score: the advisor's best option, its gain over standing (paired 95% CI) and standing's value.

    Hands and scores in the order of the config.
    """
    decisions = table[table["kind"] == "decision"]
    rows = []
    for hand in parse_hands(params["decision_hands"]):
        for context in parse_contexts(params["decision_contexts"]):
            cell = decisions[(decisions["hand"] == hand) & (decisions["context"] == context)]
            if cell.empty:
                continue
            best = cell.sort_values("rank").iloc[0]
            stand = cell[cell["action"] == 0].iloc[0]
            rows.append({"hand": hand, "cards": parse_hands(params["decision_hands"])[hand], "score": context,
                         "best": best["option"], "best_minus_stand": best["versus_stand"],
                         "ci95_low": best["versus_stand_ci95_low"], "ci95_high": best["versus_stand_ci95_high"],
                         "stand_value": stand["value"], "stand_ci95_low": stand["ci95_low"],
                         "stand_ci95_high": stand["ci95_high"], "n": int(best["n"])})
    return pd.DataFrame(rows)


def draw_figure(summary: pd.DataFrame):
    """One panel per hand: the best draw's gain over standing at each score (95% CI); 0 means stand."""
    import matplotlib.pyplot as plt

    hands = list(dict.fromkeys(summary["hand"]))
    fig, axes = plt.subplots(1, len(hands), figsize=(3.6 * len(hands), 0.45 * summary["score"].nunique() + 1.8),
                             sharey=True, squeeze=False)
    for ax, hand in zip(axes[0], hands):
        rows = summary[summary["hand"] == hand].reset_index(drop=True)
        y = np.arange(len(rows))
        ax.errorbar(rows["best_minus_stand"], y, xerr=[rows["best_minus_stand"] - rows["ci95_low"],
                                                        rows["ci95_high"] - rows["best_minus_stand"]],
                    fmt="o", capsize=3)
        for yi, r in zip(y, rows.itertuples()):
            ax.annotate(r.best, (r.best_minus_stand, yi), xytext=(4, 4), textcoords="offset points", fontsize=7)
        ax.axvline(0.0, color="grey", lw=0.8)
        ax.set_yticks(y, rows["score"])
        ax.set_title(f"{hand}\n{rows['cards'].iloc[0]}", fontsize=9)
        ax.set_xlabel("best option minus stand\n(points to the end of the rubber)")
        ax.grid(True, axis="x", alpha=0.3)
    axes[0][0].invert_yaxis()
    n = int(summary["n"].iloc[0])
    fig.suptitle(f"The non-dealer's doubling draw by score: the advisor's best option against standing "
                 f"(95% paired CI, n = {n:,} rollouts, heuristic seats)", fontsize=10)
    fig.tight_layout()
    return fig


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

    cells = point_value_by_score(table)
    writer.table("point_value_by_score", cells)
    writer.figure("point_value_by_score", point_value_figure(cells))
    decisions = draw_by_score(table, params)
    writer.table("draw_by_score", decisions)
    writer.table("draw_options_by_score", table[table["kind"] == "decision"][
        ["hand", "context", "rank", "option", "action", "value", "ci95_low", "ci95_high", "versus_stand",
         "versus_stand_ci95_low", "versus_stand_ci95_high", "n"]].reset_index(drop=True))
    writer.figure("draw_by_score", draw_figure(decisions))

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
        "The value of a point below the line by score (same samples; the seat given the point against the other, "
        "bins of the below-the-line scores at the start of the deal, games won by each; 95% t CI, n rubbers):",
        "",
        markdown_table(cells),
        "",
        "![point value by score](point_value_by_score.png)",
        "",
        f"The non-dealer's doubling draw by score: the advisor's best option and its gain over standing "
        f"(points to the end of the rubber, heuristic seats, paired 95% CI over "
        f"{params['decision_rollouts']:,} rollouts; the same rollouts at every score):",
        "",
        markdown_table(decisions[["hand", "cards", "score", "best", "best_minus_stand", "ci95_low", "ci95_high",
                                  "stand_value", "n"]]),
        "",
        "![draw by score](draw_by_score.png)",
        "",
        f"Small exact deal (trick point = {params['small_trick_value']:g} above), CFR+ "
        f"{params['cfr_iterations']} iterations, exploitability {exploit:.4g}. First-draw frequency by hand "
        "(non-dealer's doubles, dealer's is free):",
        "",
        markdown_table(first.reset_index()),
    ])
