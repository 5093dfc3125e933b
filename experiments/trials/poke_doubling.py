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
- ``response``: the best-response draw table (``gamut.solvers.poke.best_response``,
  cells of ``gamut.solvers.poke.draw_table``) against a compiled opponent
  (``heuristic``, ``mccfr``, or ``equilibrium``: the draw equilibrium of
  ``gamut.solvers.poke.draw_equilibrium``, solved first in the same trial),
  ``response_rounds`` rounds of ``response_rubbers`` rubbers started from
  the threshold policy that does best against it; then that table and every
  threshold policy against the opponent over ``response_pairs`` pairs on the
  same seeds (rows ``response_eval``), the table's cells (``response_cell``)
  and, for the equilibrium, its cells (``equilibrium_cell``).
- ``bot_response``: the same against an agent that plays through pyspiel
  (``bot_opponents``, e.g. ``ismcts:iterations=50``): the best response to
  the heuristic (recomputed, the same seeds) refined on ``bot_response_rubbers``
  rubbers against the agent, then evaluated with ``bot_policies`` over
  ``bot_pairs`` pairs.

``summarize`` also plays the round robin of every policy (thresholds,
``mccfr``, the equilibrium and every best response) over
``round_robin_pairs`` pairs per match-up, from the tables the trials return.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gamut.experiments.ci_bars import ci_bars
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
    "response_opponents": list,
    "response_rounds": int,
    "response_rubbers": int,
    "response_pairs": int,
    "equilibrium_iterations": int,
    "equilibrium_sheet_rubbers": int,
    "bot_opponents": list,
    "bot_policies": list,
    "bot_response_rubbers": int,
    "bot_pairs": int,
    "round_robin_pairs": int,
}
SUMMARY_PARAMS = ("round_robin_pairs",)
# Every response trial's stream: the same rubbers for every opponent (and the same prelude in bot trials).
RESPONSE_STREAM = 4000
ROUND_ROBIN_SEED = 4001
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
    _validate_responses(params)
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
    # The longest trials first; the heuristic's best response first of all (the bot trials start from it).
    order = sorted(params["response_opponents"], key=["heuristic", "equilibrium", "mccfr"].index)
    specs = [{"kind": "response", "opponent": name, "stream": RESPONSE_STREAM} for name in order]
    specs += [{"kind": "bot_response", "opponent": entry, "stream": RESPONSE_STREAM}
              for entry in params["bot_opponents"]]
    specs += [{"kind": "equilibrium", "stream": 0}]
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
    if spec["kind"] in ("response", "bot_response"):
        return (_response_rows if spec["kind"] == "response" else _bot_response_rows)(game, params, spec, seed)
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


RESPONSE_OPPONENTS = ("heuristic", "mccfr", "equilibrium")


def _validate_responses(params: dict) -> None:
    from gamut.solvers.poke.response_study import parse_agent

    unknown = sorted(set(params["response_opponents"]) - set(RESPONSE_OPPONENTS))
    if unknown:
        raise ValueError(f"field 'response_opponents': unknown {unknown}; choose from {', '.join(RESPONSE_OPPONENTS)}")
    for entry in params["bot_opponents"]:
        parse_agent(entry)
    policies = parse_policies(params["policies"])
    missing = sorted(set(params["bot_policies"]) - set(policies))
    if missing:
        raise ValueError(f"field 'bot_policies' names policies not in 'policies': {missing}")
    for field in ("response_rounds", "response_rubbers", "equilibrium_iterations", "equilibrium_sheet_rubbers",
                  "bot_response_rubbers"):
        if params[field] < 1:
            raise ValueError(f"field {field!r} must be >= 1, got {params[field]}")
    for field in ("response_pairs", "bot_pairs", "round_robin_pairs"):
        if params[field] < 2:
            raise ValueError(f"field {field!r} must be >= 2 (a CI needs two), got {params[field]}")


def _response_seeds(params: dict, seed: int) -> tuple[list, np.ndarray]:
    """The rubbers of each improvement round and the evaluation pairs, from the trial's seed."""
    from gamut.solvers.poke.match import match_seeds

    rounds = [match_seeds(seed + 1 + r, params["response_rubbers"]) for r in range(params["response_rounds"])]
    return rounds, match_seeds(seed, params["response_pairs"])


def _equilibrium_table(cfg, params: dict, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from gamut.solvers.poke.draw_equilibrium import deal_sheets, mccfr_draw_table
    from gamut.solvers.poke.match import match_seeds

    sheets = deal_sheets(cfg, match_seeds(seed + 100, params["equilibrium_sheet_rubbers"]))
    table, average, _ = mccfr_draw_table(cfg, sheets, params["equilibrium_iterations"], seed + 101)
    return table, average.sum(axis=1)


def _threshold_seats(params: dict) -> dict:
    from gamut.solvers.poke.draw_table import SeatArrays

    return {name: SeatArrays.threshold(arr) for name, arr in parse_policies(params["policies"]).items()}


def _compiled_response(cfg, params: dict, opponent, seed: int) -> tuple:
    """Best response to a compiled seat: start from the best threshold policy, then the improvement rounds.

    Returns the table, the last round's cell stats, the start policy's name
    and the margins (per pair) of every threshold policy on the evaluation seeds.
    """
    from gamut.solvers.poke.best_response import best_response, threshold_table
    from gamut.solvers.poke.response_study import compiled_margins

    rounds, evaluation = _response_seeds(params, seed)
    thresholds = _threshold_seats(params)
    margins = compiled_margins(cfg, thresholds, opponent, evaluation)
    start = max(margins, key=lambda name: margins[name].mean())
    table, stats = best_response(cfg, opponent, rounds, threshold_table(thresholds[start].params))
    return table, stats, start, margins


# The sources whose code decides a best response's table: a cached table is reused only while they are unchanged.
_RESPONSE_SOURCES = ("solvers/poke/best_response.py", "solvers/poke/draw_table.py", "solvers/poke/heuristic.py",
                     "solvers/poke/match.py", "envs/poke/kernels.py", "envs/poke/showdown.py", "envs/hands.py")


def _response_cache(params: dict, seed: int):
    """Cache file of the best response to the heuristic of the ``response`` trial seeded ``seed``.

    Keyed by the fields and sources that decide the table; the cache
    (``gamut.envs.paths.cache_dir``) only saves the ``bot_response`` trials
    recomputing it.
    """
    import hashlib
    import json
    from pathlib import Path

    from gamut.envs.paths import cache_dir

    root = Path(__file__).resolve().parents[2]
    fields = {key: params[key] for key in ("game", "policies", "response_rounds", "response_rubbers", "response_pairs")}
    digest = hashlib.sha256(json.dumps({**fields, "seed": seed}, sort_keys=True).encode())
    for source in _RESPONSE_SOURCES:
        digest.update((root / source).read_bytes())
    return cache_dir("poke_doubling", f"br_heuristic_{digest.hexdigest()[:24]}.npy")


def _store_heuristic_response(params: dict, seed: int, table: np.ndarray) -> None:
    from gamut.solvers.atomic_file import write_atomically

    path = _response_cache(params, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, lambda handle: np.save(handle, table))


def _heuristic_response_table(cfg, params: dict, seed: int) -> np.ndarray:
    """The best response to the heuristic of the ``response`` trial with the same seed (from the cache if there)."""
    from gamut.solvers.poke.response_study import compiled_opponent

    path = _response_cache(params, seed)
    if path.exists():
        return np.load(path, allow_pickle=False)
    table, _, _, _ = _compiled_response(cfg, params, compiled_opponent("heuristic"), seed)
    _store_heuristic_response(params, seed, table)
    return table


def _cell_rows(opponent: str, table, start_table, stats) -> list[dict]:
    """The cells a table's estimate touched or changed, with their paired draw-minus-stand samples."""
    from gamut.solvers.poke.draw_table import HAND_CLASSES, SITUATIONS, cell_fields, context_fields

    mean, half = stats.mean(), stats.half_width()
    rows = []
    for cell in np.flatnonzero((stats.count > 0) | (table != start_table)):
        situation, cls, context = cell_fields(int(cell))
        rows.append({"kind": "response_cell", "opponent": opponent, "cell": int(cell),
                     "situation": SITUATIONS[situation], "hand_class": HAND_CLASSES[cls], **context_fields(context),
                     "draw": float(table[cell]), "start_draw": float(start_table[cell]), "n": int(stats.count[cell]),
                     "draw_minus_stand": float(mean[cell]), "ci95_low": float(mean[cell] - half[cell]),
                     "ci95_high": float(mean[cell] + half[cell])})
    return rows


def _response_rows(game, params: dict, spec: dict, seed: int) -> list[dict]:
    from gamut.solvers.poke.best_response import threshold_table
    from gamut.solvers.poke.draw_table import HAND_CLASSES, SITUATIONS, SeatArrays, cell_fields, context_fields
    from gamut.solvers.poke.response_study import compiled_margins, compiled_opponent, gain_rows

    cfg, name = game.cfg, spec["opponent"]
    rows = []
    if name == "equilibrium":
        eq, visits = _equilibrium_table(cfg, params, seed)
        opponent = SeatArrays.draw_table(eq)
        for cell in range(eq.size):
            situation, cls, context = cell_fields(cell)
            rows.append({"kind": "equilibrium_cell", "cell": cell, "situation": SITUATIONS[situation],
                         "hand_class": HAND_CLASSES[cls], **context_fields(context), "draw": float(eq[cell]),
                         "weight": float(visits[cell]), "iterations": params["equilibrium_iterations"]})
    else:
        opponent = compiled_opponent(name)
    table, stats, start, margins = _compiled_response(cfg, params, opponent, seed)
    if name == "heuristic":
        _store_heuristic_response(params, seed, table)
    _, evaluation = _response_seeds(params, seed)
    margins.update(compiled_margins(cfg, {"best response": SeatArrays.draw_table(table), "opponent itself": opponent},
                                    opponent, evaluation))
    rows += _cell_rows(name, table, threshold_table(_threshold_seats(params)[start].params), stats)
    rows += [{"kind": "response_eval", "opponent": name, "start": f"threshold:{start}", **row}
             for row in gain_rows(margins, "best response")]
    return rows


def _bot_response_rows(game, params: dict, spec: dict, seed: int) -> list[dict]:
    from gamut.solvers.poke.best_response import refine_against_bots
    from gamut.solvers.poke.draw_table import SeatArrays
    from gamut.solvers.poke.match import match_seeds
    from gamut.solvers.poke.response_study import bot_maker, bot_margins, gain_rows

    entry = spec["opponent"]
    make_opponent = bot_maker(game, entry)
    start = _heuristic_response_table(game.cfg, params, seed)
    table, stats = refine_against_bots(game, start, make_opponent, match_seeds(seed + 50, params["bot_response_rubbers"]))
    thresholds = _threshold_seats(params)
    policies = {"best response": SeatArrays.draw_table(table), "best response to heuristic": SeatArrays.draw_table(start),
                **{name: thresholds[name] for name in params["bot_policies"]}}
    margins = bot_margins(game, policies, make_opponent, match_seeds(seed + 60, params["bot_pairs"]))
    return (_cell_rows(entry, table, start, stats)
            + [{"kind": "response_eval", "opponent": entry, "start": "response:heuristic", **row}
               for row in gain_rows(margins, "best response")])


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
    for name, values in response_tables(table, params).items():
        writer.figure(_chart_name(name), decision_figure(values, name))


def _chart_name(name: str) -> str:
    return "decisions_" + name.replace("best response to ", "br_").replace(":", "_").replace("=", "").replace(",", "_")


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
            ci_bars(ax, line["value"], line["ci95_low"], line["ci95_high"], x + offset, axis="y", marker="o", ms=4,
                    capsize=2, label=f"other {other}")
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
        ci_bars(ax, rows["best_minus_stand"], rows["ci95_low"], rows["ci95_high"], y, fmt="o", capsize=3)
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


def response_tables(table: pd.DataFrame, params: dict) -> dict:
    """``{name: draw table}`` of the equilibrium and of every best response, rebuilt from the trials' rows.

    A best response's cells are its start table (a threshold policy, or the
    best response to the heuristic) with the returned cells written over it.
    """
    from gamut.solvers.poke.best_response import threshold_table

    thresholds = parse_policies(params["policies"])
    out = {}
    eq = table[table["kind"] == "equilibrium_cell"]
    if not eq.empty:
        values = np.zeros(len(eq))
        values[eq["cell"].astype(int).to_numpy()] = eq["draw"].to_numpy()
        out["equilibrium"] = values
    evals = table[table["kind"] == "response_eval"]
    cells = table[table["kind"] == "response_cell"]
    pending = list(dict.fromkeys(evals["opponent"]))
    while pending:
        opponent = pending.pop(0)
        start = str(evals.loc[evals["opponent"] == opponent, "start"].iloc[0])
        source, _, name = start.partition(":")
        if source == "threshold":
            base = threshold_table(thresholds[name])
        elif f"best response to {name}" in out:
            base = out[f"best response to {name}"]
        else:
            pending.append(opponent)
            continue
        values = base.copy()
        mine = cells[cells["opponent"] == opponent]
        values[mine["cell"].astype(int).to_numpy()] = mine["draw"].to_numpy()
        out[f"best response to {opponent}"] = values
    return out


def round_robin_table(table: pd.DataFrame, params: dict) -> pd.DataFrame:
    """Every threshold policy, ``mccfr``, the equilibrium and every best response, each against each (95% CI)."""
    from gamut.solvers.poke.draw_table import SeatArrays
    from gamut.solvers.poke.match import match_seeds
    from gamut.solvers.poke.response_study import compiled_opponent, round_robin

    import pyspiel

    seats = dict(_threshold_seats(params))
    seats["mccfr"] = compiled_opponent("mccfr")
    seats.update({name: SeatArrays.draw_table(values) for name, values in response_tables(table, params).items()})
    cfg = pyspiel.load_game(params["game"]).cfg
    rows = round_robin(cfg, seats, match_seeds(ROUND_ROBIN_SEED, params["round_robin_pairs"]))
    out = pd.DataFrame(rows)
    means = out.groupby("a", sort=False)["mean_margin"].mean()
    order = {name: i for i, name in enumerate(means.sort_values(ascending=False).index)}
    return out.sort_values(["a", "b"], key=lambda c: c.map(order)).reset_index(drop=True)


def round_robin_standings(rr: pd.DataFrame) -> pd.DataFrame:
    """Per policy: the match-ups of the round robin it wins, loses (95% CI above, below 0) and leaves undecided."""
    rows = []
    for name, group in rr.groupby("a", sort=False):
        won, lost = int((group["ci95_low"] > 0).sum()), int((group["ci95_high"] < 0).sum())
        rows.append({"policy": name, "won": won, "lost": lost, "undecided": len(group) - won - lost,
                     "n_pairs": int(group["n_pairs"].iloc[0])})
    out = pd.DataFrame(rows)
    return out.assign(net=out["won"] - out["lost"]).sort_values("net", ascending=False, kind="stable")\
        .drop(columns="net").reset_index(drop=True)


def round_robin_figure(rr: pd.DataFrame):
    """Heat map of the round robin: row policy's mean margin per rubber against the column policy."""
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(rr["a"]))
    grid = rr.pivot(index="a", columns="b", values="mean_margin").reindex(index=names, columns=names)
    half = (rr.assign(h=(rr["ci95_high"] - rr["ci95_low"]) / 2)
            .pivot(index="a", columns="b", values="h").reindex(index=names, columns=names))
    fig, ax = plt.subplots(figsize=(1.0 + 0.72 * len(names), 1.2 + 0.5 * len(names)))
    limit = float(np.nanmax(np.abs(grid.to_numpy())))
    image = ax.imshow(grid.to_numpy(), cmap="RdBu", vmin=-limit, vmax=limit)
    for i in range(len(names)):
        for j in range(len(names)):
            if i != j:
                ax.text(j, i, f"{grid.iat[i, j]:+.0f}\n±{half.iat[i, j]:.0f}", ha="center", va="center", fontsize=6)
    ax.set_xticks(range(len(names)), names, rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(len(names)), names, fontsize=7)
    fig.colorbar(image, ax=ax, label="row's mean margin per rubber")
    ax.set_title(f"Round robin of draw/double policies (pairs of rubbers, n = {int(rr['n_pairs'].iloc[0]):,} "
                 "per match-up; ± half the 95% CI)", fontsize=9)
    fig.tight_layout()
    return fig


def decision_figure(values: np.ndarray, title: str):
    """Decision chart of a draw table: one panel per situation, hand class by score context, P(draw) shaded."""
    import matplotlib.pyplot as plt

    from gamut.solvers.poke.draw_table import (BELOW_LABELS, HAND_CLASSES, NUM_CLASSES, NUM_CONTEXTS,
                                               NUM_SITUATIONS, SITUATIONS)

    grid = np.asarray(values).reshape(NUM_SITUATIONS, NUM_CLASSES, NUM_CONTEXTS)
    fig, axes = plt.subplots(4, 3, figsize=(18, 11), sharex=True, sharey=True)
    labels = [f"{g // 2}{g % 2} {own}/{opp}" for g in range(4) for own in BELOW_LABELS for opp in BELOW_LABELS]
    for k, ax in enumerate(axes.flat):
        if k >= NUM_SITUATIONS:
            ax.axis("off")
            continue
        ax.imshow(grid[k], cmap="Greens", vmin=0, vmax=1, aspect="auto")
        ax.set_title(SITUATIONS[k], fontsize=9)
        ax.set_yticks(range(NUM_CLASSES), HAND_CLASSES, fontsize=7)
        ax.set_xticks(range(NUM_CONTEXTS), labels, rotation=90, fontsize=5)
        for g in (9, 18, 27):
            ax.axvline(g - 0.5, color="grey", lw=0.6)
    fig.suptitle(f"{title}: P(draw) by hand class (rows) and score context (columns: games won own/opponent, "
                 "below the line own/opponent); dark = draw", fontsize=10)
    fig.tight_layout()
    return fig


def response_gains(table: pd.DataFrame) -> pd.DataFrame:
    """Rows ``response_eval``: each policy's margin against each opponent and the best response's gain over it."""
    cols = ["opponent", "policy", "start", "n_pairs", "margin", "ci95_low", "ci95_high", "gain", "gain_ci95_low",
            "gain_ci95_high"]
    return table[table["kind"] == "response_eval"][cols].reset_index(drop=True)


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

    gains = response_gains(table)
    writer.table("best_response_gains", gains)
    writer.table("best_response_cells", table[table["kind"] == "response_cell"][
        ["opponent", "cell", "situation", "hand_class", "games_own", "games_opponent", "below_own", "below_opponent",
         "draw", "start_draw", "n", "draw_minus_stand", "ci95_low", "ci95_high"]].reset_index(drop=True))
    eq_cells = table[table["kind"] == "equilibrium_cell"][
        ["cell", "situation", "hand_class", "games_own", "games_opponent", "below_own", "below_opponent", "draw",
         "weight", "iterations"]].reset_index(drop=True)
    writer.table("equilibrium_table", eq_cells)
    for name, values in response_tables(table, params).items():
        writer.figure(_chart_name(name), decision_figure(values, name))
    rr = round_robin_table(table, params)
    writer.table("round_robin", rr)
    writer.figure("round_robin", round_robin_figure(rr))
    standings = round_robin_standings(rr)
    writer.table("round_robin_standings", standings)
    bound = gains[(gains["opponent"] == "equilibrium") & (gains["policy"] == "best response")]

    return "\n".join([
        "Best responses (draw tables over situation x hand class x score context) against each opponent: every "
        "policy's mean margin per rubber against the opponent and the best response's paired gain over it "
        "(95% CIs, n pairs of rubbers; 'opponent itself' is the opponent's own doubling):",
        "",
        markdown_table(gains),
        "",
        *([f"Equilibrium of the draw phase (MCCFR, {params['equilibrium_iterations']:,} iterations): a best "
           f"response gains **{bound['margin'].iloc[0]:+.1f}** per rubber against it (95% CI "
           f"{bound['ci95_low'].iloc[0]:+.1f} .. {bound['ci95_high'].iloc[0]:+.1f}, n = "
           f"{int(bound['n_pairs'].iloc[0]):,} pairs): a sampled lower bound of its exploitability in the "
           "abstraction.", ""] if not bound.empty else []),
        f"Round robin ({params['round_robin_pairs']:,} pairs of rubbers per match-up): match-ups each policy "
        "wins and loses (95% CI of its mean margin above or below 0), the rest undecided:",
        "",
        markdown_table(standings),
        "",
        "![round robin](round_robin.png)",
        "",
        f"Value of one below-the-line point: **{point.value:.2f}** above-the-line points "
        f"(95% CI {point.ci95_low:.2f} .. {point.ci95_high:.2f}, n = {point.n:,} rubbers; default heuristic "
        "both sides, one extra point at the start of a random deal).",
        "",
        "Policies against `default`, mean above-the-line margin per rubber (n pairs of rubbers, thresholds "
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
