"""Poker dice scorecard games under optimal play: scores, what each rule is worth, agents.

Three kinds of trial (the scorecard games of ``docs/games/poker_dice.md``):

* ``exact``: the exact optimal expected score of each variant from the
  solitaire DP (:func:`gamut.solvers.poker_dice.solution.solve`), and of the same
  variant with one rule switched off. Rules are switched off as data
  (:data:`RULE_SWITCHES` edits the variant's table with
  :func:`dataclasses.replace`), so the engine and the DP run unchanged; the
  value of a rule is the optimal expected score with it minus without it.
* ``simulate``: whole games played by the optimal policy in Numba
  (:func:`gamut.solvers.poker_dice.simulate.optimal_scores`); each trial returns the
  histogram of its final scores (scores are whole numbers). The summary pools
  the batches into the score distribution: mean with a 95% t interval, which
  must contain the exact mean, sd and quantiles.
* ``agents``: the ``optimal``, ``greedy`` and ``mcts`` agents (made by
  :func:`gamut.solvers.bots.make_bot`) play solitaire games through the pyspiel game
  on common random numbers: game ``g`` of a batch pre-draws the faces of every
  roll of every turn, and a roll that rerolls ``m`` dice takes the first ``m``
  faces drawn for that (turn, roll). Every agent therefore sees the same dice
  whenever it rerolls as many dice, and paired differences
  (:func:`gamut.solvers.stats.paired_diff_ci`) compare agents on the same games.

Variant keys are the scorecard variant names, with the joker rule for
``yahtzee`` (``yahtzee-free``, ``yahtzee-forced``, ``yahtzee-none``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from gamut.experiments.store import markdown_table
from gamut.solvers.stats import moments_ci, paired_diff_ci

NAME = "dice_optimal"
VERSION = 1
VARIANT_KEYS = ("classic", "classic_banked", "yacht12", "yahtzee-free", "yahtzee-forced", "yahtzee-none")
AGENTS = ("optimal", "greedy", "mcts")
AGENT_STREAMS = 1_000_000  # agent batches' streams start here, apart from the others
QUANTILES = (0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99)
PARAMS = {
    "variants": list,
    "rules": list,
    "games_per_variant": int,
    "games_per_trial": int,
    "agent_variants": list,
    "agent_games": int,
    "agent_batch": int,
    "mcts_games": int,
    "mcts_simulations": int,
}


def _no_four_kind_premium(variant):
    boxes = tuple(replace(b, premium=0) if b.name == "four of a kind" else b for b in variant.boxes)
    return replace(variant, boxes=boxes)


# Rule name -> (variants it exists in, the variant table with the rule switched off).
RULE_SWITCHES = {
    "first_roll_doubling": (("classic", "classic_banked"), lambda v: replace(v, first_roll_multiplier=1)),
    "stage_bonus": (("classic", "classic_banked"), lambda v: replace(v, group_bonus=0)),
    "banked_rolls": (("classic_banked",),
                     lambda v: replace(v, bank_rolls=False, bank_value=0, bank_stages=())),
    "four_kind_premium": (("classic_banked",), _no_four_kind_premium),
    "upper_bonus": (("yahtzee",), lambda v: replace(v, group_bonus=0)),
    "extra_yahtzee_bonus": (("yahtzee",), lambda v: replace(v, repeat_box="", repeat_bonus=0)),
}
RULE_LABELS = {
    "first_roll_doubling": "first-roll doubling", "stage_bonus": "+50 stage bonus",
    "banked_rolls": "banked rolls", "four_kind_premium": "+30 four of a kind",
    "upper_bonus": "+35 upper bonus", "extra_yahtzee_bonus": "+100 extra Yahtzee",
}


def split_key(key: str) -> tuple[str, str]:
    """``(variant name, joker)`` of a variant key, e.g. ``"yahtzee-none"`` -> ``("yahtzee", "none")``."""
    if key not in VARIANT_KEYS:
        raise ValueError(f"variant {key!r} is not one of {', '.join(VARIANT_KEYS)}")
    name, _, joker = key.partition("-")
    return name, joker or "free"


def variant_table(key: str, rule_off: str = ""):
    """The :class:`gamut.envs.poker_dice.scorecard.Variant` of ``key``, with rule ``rule_off`` switched off.

    The switched variant is renamed (``classic-no-stage_bonus``) so its solved
    table is cached apart.
    """
    from gamut.envs.poker_dice.scorecard import make_variant

    name, joker = split_key(key)
    variant = make_variant(name, joker)
    if not rule_off:
        return variant
    if rule_off not in RULE_SWITCHES:
        raise ValueError(f"rule {rule_off!r} is not one of {', '.join(RULE_SWITCHES)}")
    applies, switch = RULE_SWITCHES[rule_off]
    if name not in applies:
        raise ValueError(f"rule {rule_off!r} is not a rule of {name} (it belongs to {', '.join(applies)})")
    return replace(switch(variant), name=f"{variant.name}-no-{rule_off}")


def solution_of(key: str, rule_off: str = ""):
    """The solved (disk-cached) :class:`DiceSolution` of a variant key, optionally with a rule off."""
    from gamut.solvers.poker_dice.solution import solve

    name, joker = split_key(key)
    return solve(name, joker, variant=variant_table(key, rule_off))


def validate(params: dict) -> None:
    for field in ("variants", "agent_variants"):
        for key in params[field]:
            if key not in VARIANT_KEYS:
                raise ValueError(f"field {field!r}: variant {key!r} is not one of {', '.join(VARIANT_KEYS)}")
    for rule in params["rules"]:
        if rule not in RULE_SWITCHES:
            raise ValueError(f"field 'rules': unknown rule {rule!r}; choose from {', '.join(RULE_SWITCHES)}")
    for field in ("games_per_variant", "games_per_trial", "agent_games", "agent_batch", "mcts_simulations"):
        if params[field] < 1:
            raise ValueError(f"field {field!r} must be >= 1, got {params[field]}")
    if not 0 <= params["mcts_games"] <= params["agent_games"]:
        raise ValueError(f"field 'mcts_games' must be in 0..agent_games ({params['agent_games']}), "
                         f"got {params['mcts_games']}")


def _batches(total: int, size: int) -> list[int]:
    return [min(size, total - start) for start in range(0, total, size)]


def trial_specs(params: dict) -> list[dict]:
    """Exact solves, optimal-play simulation batches, and agent batches (agents share streams)."""
    specs = []
    for key in params["variants"]:
        name = split_key(key)[0]
        specs.append({"kind": "exact", "variant": key, "rule_off": "", "stream": len(specs)})
        for rule in params["rules"]:
            if name in RULE_SWITCHES[rule][0]:
                specs.append({"kind": "exact", "variant": key, "rule_off": rule, "stream": len(specs)})
    for key in params["variants"]:
        for batch, games in enumerate(_batches(params["games_per_variant"], params["games_per_trial"])):
            specs.append({"kind": "simulate", "variant": key, "batch": batch, "games": games,
                          "stream": len(specs)})
    for index, key in enumerate(params["agent_variants"]):
        first = 0
        for batch, games in enumerate(_batches(params["agent_games"], params["agent_batch"])):
            stream = AGENT_STREAMS + 10_000 * index + batch  # shared by the agents of the batch
            for agent in AGENTS:
                # MCTS plays only the first mcts_games games of the common sequence.
                played = games if agent != "mcts" else max(0, min(games, params["mcts_games"] - first))
                if played:
                    specs.append({"kind": "agents", "variant": key, "agent": agent, "batch": batch,
                                  "first_game": first, "games": played, "stream": stream})
            first += games
    return [{"trial": i, **spec} for i, spec in enumerate(specs)]


def score_histogram(scores: np.ndarray) -> list[dict]:
    """Rows ``{"score", "count"}`` of the distinct whole-number scores."""
    values, counts = np.unique(np.rint(scores).astype(np.int64), return_counts=True)
    return [{"score": int(v), "count": int(c)} for v, c in zip(values, counts)]


def play_common_dice(game, bot, faces: np.ndarray) -> float:
    """Final score of one solitaire game of ``bot``, rolls taken from ``faces``.

    ``faces`` (turns, rolls per turn, 5) int: roll ``j`` of turn ``t`` that
    rerolls ``m`` dice shows the kept dice plus ``faces[t, j, :m]``.
    """
    from gamut.envs import dice
    from gamut.envs.poker_dice import kernels as K

    state = game.new_initial_state()
    turn = 0
    while not state.is_terminal():
        st = state.state
        if state.is_chance_node():
            keep = int(st[K.S_KEEP])
            kept = dice.keep_faces(keep)
            fresh = faces[turn, int(st[K.S_ROLLS]), : dice.NUM_DICE - len(kept)]
            state.apply_action(dice.roll_id(tuple(kept) + tuple(int(f) for f in fresh)))
            continue
        action = bot.step(state)
        state.apply_action(action)
        if action >= K.BOX_BASE:
            turn += 1
    return float(state.returns()[0])


def _agent_rows(params: dict, spec: dict, seed: int) -> list[dict]:
    import pyspiel

    import gamut.envs  # noqa: F401  (registers poker_dice)
    from gamut.envs import dice
    from gamut.envs.poker_dice import kernels as K
    from gamut.solvers.bots import make_bot

    name, joker = split_key(spec["variant"])
    game = pyspiel.load_game(f"poker_dice(variant={name},joker={joker},players=1)")
    boxes = len(game.box_names)
    rolls_per_turn = K.BASE_ROLLS + 2 * boxes  # banked variants may add rolls to a turn
    # Every agent of the batch draws the same dice: the stream (hence seed) is shared.
    rng = np.random.default_rng(seed)
    all_faces = rng.integers(1, dice.NUM_FACES + 1, size=(spec["games"], boxes, rolls_per_turn, dice.NUM_DICE))
    options = {"simulations": params["mcts_simulations"]} if spec["agent"] == "mcts" else {}
    bot = make_bot(game, spec["agent"], 0, seed=seed % 2**31, **options)
    return [{"game": spec["first_game"] + g, "score": play_common_dice(game, bot, all_faces[g])}
            for g in range(spec["games"])]


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    if spec["kind"] == "exact":
        solution = solution_of(spec["variant"], spec["rule_off"])
        return [{"expected_score": solution.expected_score, "solve_seconds": solution.seconds,
                 "compile_seconds": solution.compile_seconds, "from_cache": solution.from_cache}]
    if spec["kind"] == "simulate":
        from gamut.solvers.poker_dice.simulate import optimal_scores

        return score_histogram(optimal_scores(solution_of(spec["variant"]), spec["games"], seed))
    return _agent_rows(params, spec, seed)


def _pick(table: pd.DataFrame, kind: str) -> pd.DataFrame:
    return table[table["kind"] == kind] if "kind" in table else table.iloc[0:0]


def _weighted_quantile(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    order = np.argsort(values)
    cum = np.cumsum(counts[order])
    return float(values[order][np.searchsorted(cum, q * cum[-1])])


def distribution_summary(table: pd.DataFrame) -> pd.DataFrame:
    """One row per variant: exact mean, simulated mean with 95% CI, sd, quantiles, coverage."""
    exact = _pick(table, "exact")
    base = exact[exact["rule_off"] == ""].set_index("variant")["expected_score"]
    rows = []
    for key, part in _pick(table, "simulate").groupby("variant", sort=False):
        hist = part.groupby("score")["count"].sum()
        values, counts = hist.index.to_numpy(dtype=float), hist.to_numpy(dtype=float)
        n = int(counts.sum())
        mean = float(values @ counts / n)
        m2 = float(counts @ (values - mean) ** 2)
        est = moments_ci(n, mean, m2)
        row = {"variant": key, "exact_mean": float(base[key]), "mean": est.value,
               "ci95_low": est.ci95_low, "ci95_high": est.ci95_high, "n": n,
               "sd": float(np.sqrt(m2 / max(n - 1, 1))),
               "min": float(values.min()), "max": float(values.max())}
        row.update({f"q{round(100 * q):02d}": _weighted_quantile(values, counts, q) for q in QUANTILES})
        row["exact_in_ci"] = bool(est.ci95_low <= row["exact_mean"] <= est.ci95_high)
        rows.append(row)
    return pd.DataFrame(rows)


def rule_values(table: pd.DataFrame) -> pd.DataFrame:
    """Optimal expected score with and without each rule, and the difference (exact)."""
    exact = _pick(table, "exact")
    base = exact[exact["rule_off"] == ""].set_index("variant")["expected_score"]
    rows = []
    for _, row in exact[exact["rule_off"] != ""].iterrows():
        rows.append({"variant": row["variant"], "rule": row["rule_off"], "label": RULE_LABELS[row["rule_off"]],
                     "with_rule": float(base[row["variant"]]), "without_rule": float(row["expected_score"]),
                     "value": float(base[row["variant"]] - row["expected_score"])})
    return pd.DataFrame(rows, columns=["variant", "rule", "label", "with_rule", "without_rule", "value"])


def agent_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Mean score of each agent (95% CI), and its paired difference to ``optimal`` on the same games."""
    from gamut.solvers.stats import mean_ci

    rows = []
    for key, part in _pick(table, "agents").groupby("variant", sort=False):
        scores = {agent: group.set_index("game")["score"] for agent, group in part.groupby("agent")}
        for agent in AGENTS:
            if agent not in scores:
                continue
            est = mean_ci(scores[agent].to_numpy())
            row = {"variant": key, "agent": agent, "mean": est.value, "ci95_low": est.ci95_low,
                   "ci95_high": est.ci95_high, "n": est.n}
            common = scores[agent].index.intersection(scores["optimal"].index)
            if agent != "optimal" and "optimal" in scores and len(common) > 1:
                diff = paired_diff_ci(scores[agent][common].to_numpy(), scores["optimal"][common].to_numpy())
                row.update({"minus_optimal": diff.value, "diff_ci95_low": diff.ci95_low,
                            "diff_ci95_high": diff.ci95_high, "pairs": diff.n})
            rows.append(row)
    return pd.DataFrame(rows)


def _distribution_figure(table: pd.DataFrame, summary: pd.DataFrame):
    import matplotlib.pyplot as plt

    keys = list(summary["variant"])
    cols = min(3, len(keys))
    rows = -(-len(keys) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.6 * rows), squeeze=False)
    sims = _pick(table, "simulate")
    for ax, (_, row) in zip(axes.ravel(), summary.iterrows()):
        hist = sims[sims["variant"] == row["variant"]].groupby("score")["count"].sum()
        lo, hi = row["q01"], row["q99"]
        width = max(1, int(np.ceil((hi - lo) / 60)))
        edges = np.arange(lo, hi + 2 * width, width)
        ax.hist(hist.index, bins=edges, weights=hist.to_numpy() / row["n"] / width, color="C0", alpha=0.8)
        ax.axvline(row["exact_mean"], color="C3", lw=1.2, label=f"exact mean {row['exact_mean']:.2f}")
        ax.set(title=f"{row['variant']} (n = {row['n']:,} games)", xlabel="final score (1st..99th percentile)",
               ylabel="probability per point")
        ax.legend(fontsize=8)
    for ax in axes.ravel()[len(keys):]:
        ax.set_visible(False)
    fig.suptitle("Score distribution under the optimal policy (simulated)")
    fig.tight_layout()
    return fig


def _rule_figure(values: pd.DataFrame):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 0.45 * len(values) + 1.5))
    labels = [f"{r.variant}: {r.label}" for r in values.itertuples()]
    ax.barh(np.arange(len(values)), values["value"], color="C2")
    for y, v in enumerate(values["value"]):
        ax.text(v, y, f" {v:.2f}", va="center", fontsize=8)
    ax.set_yticks(np.arange(len(values)), labels)
    ax.invert_yaxis()
    ax.set(xlabel="optimal expected score with the rule minus without (exact)",
           title="What each rule is worth under optimal play")
    fig.tight_layout()
    return fig


def _agent_figure(agents: pd.DataFrame):
    import matplotlib.pyplot as plt

    keys = list(dict.fromkeys(agents["variant"]))
    fig, axes = plt.subplots(1, len(keys), figsize=(4.5 * len(keys), 3.8), squeeze=False)
    for ax, key in zip(axes[0], keys):
        part = agents[agents["variant"] == key]
        x = np.arange(len(part))
        err = np.vstack([part["mean"] - part["ci95_low"], part["ci95_high"] - part["mean"]])
        ax.bar(x, part["mean"], yerr=err, capsize=4, color=[f"C{i}" for i in range(len(part))])
        ax.set_xticks(x, [f"{a}\nn = {n:,}" for a, n in zip(part["agent"], part["n"])])
        ax.set(title=key, ylabel="mean final score (95% CI)")
    fig.suptitle("Agents on common dice (solitaire)")
    fig.tight_layout()
    return fig


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    dist = distribution_summary(table)
    values = rule_values(table)
    agents = agent_summary(table)
    writer.table("score_distribution", dist)
    writer.table("rule_values", values)
    writer.table("agents", agents)
    parts = []
    if len(dist):
        writer.figure("score_distributions", _distribution_figure(table, dist))
        covered = int(dist["exact_in_ci"].sum())
        shown = dist[["variant", "exact_mean", "mean", "ci95_low", "ci95_high", "n", "sd", "q05", "q50", "q95"]]
        parts += [
            "Optimal expected score (exact DP) and the score distribution of games played by the "
            f"optimal policy (simulated; 95% t intervals): the exact mean lies inside {covered} of "
            f"{len(dist)} intervals.", "", markdown_table(shown, "{:.2f}"), "",
            "![score distributions](score_distributions.png)", "",
        ]
    if len(values):
        writer.figure("rule_values", _rule_figure(values))
        parts += [
            "What each rule is worth: the optimal expected score with the rule minus the optimal "
            "expected score of the same table with the rule switched off (both exact).", "",
            markdown_table(values[["variant", "label", "with_rule", "without_rule", "value"]], "{:.3f}"), "",
            "![rule values](rule_values.png)", "",
        ]
    if len(agents):
        writer.figure("agents", _agent_figure(agents))
        parts += [
            f"Agents on common dice (MCTS: {params['mcts_simulations']} simulations a move, random "
            "rollouts); paired differences to the optimal policy on the same games.", "",
            markdown_table(agents.astype(object).where(agents.notna(), ""), "{:.2f}"), "",
            "![agents](agents.png)",
        ]
    return "\n".join(parts)


def opening_keeps(key: str, rolls: list[tuple[int, ...]], top: int = 3, filled: tuple[str, ...] = (),
                  total: int = 0) -> pd.DataFrame:
    """The best ``top`` choices of the optimal policy after the first roll of a turn.

    The scorecard has the boxes named in ``filled`` filled (none: the game's first
    turn) with bonus-group total ``total``. One row per (roll, choice): ``roll``
    (str), ``rank``, ``choice`` (``keep 3,4,5``, ``keep nothing`` or ``box NAME``)
    and ``value``, the optimal expected points from this turn on after that choice
    (the whole game's expected score when nothing is filled).
    """
    from gamut.envs import dice
    from gamut.envs.poker_dice.scorecard import box_names

    solution = solution_of(key)
    names = box_names(solution.variant)
    unknown = [box for box in filled if box not in names]
    if unknown:
        raise ValueError(f"box {unknown[0]!r} is not a box of {key}: {', '.join(names)}")
    mask = sum(1 << names.index(box) for box in filled)
    rows = []
    for faces in rolls:
        options = solution.options(mask, total, 0, dice.roll_id(faces), rolls_left=2)
        for rank, option in enumerate(options[:top], start=1):
            choice = (f"keep {','.join(map(str, option['keep'])) or 'nothing'}" if option["action"] == "keep"
                      else f"box {option['box']}")
            rows.append({"roll": ",".join(map(str, sorted(faces))), "rank": rank, "choice": choice,
                         "value": option["value"]})
    return pd.DataFrame(rows)
