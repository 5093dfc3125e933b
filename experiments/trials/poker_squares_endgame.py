"""Poker Squares ground truth from exact endgames: agents' regret, value functions' error, bounds' slack.

Positions come from real games: the ``sampler`` agent (with ``sampler_options``)
plays the deals of ``gamut squares eval --seed deal_seed`` (batch b holds deals
b*k .. b*k+k-1) until ``empties`` cells are empty and the next card is dealt;
that decision is solved exactly (``gamut.solvers.poker_squares.endgame``):
the optimal expected final score of putting the card in each empty cell.
On each position:

- **regret** of each agent: the exact value of the best cell minus that of
  the agent's cell (0 when it plays a best cell). The sampler's move is the
  one it made in its game (its time budget as in play); every other agent
  is built once per trial and asked for its move on each position. Every
  agent plays on a count (rollouts, plies), never a clock: ``validate``
  refuses a ``seconds_per_game`` above 0, so the positions and the figures
  are the same on any machine and load;
- **error** of each value function (learned line values, with the
  cross-line correction, the value network, and two-ply expectimax on the
  corrected values): its value of the best cell's afterstate minus the exact
  value of that afterstate;
- **slack** of the clairvoyant bound: the mean, over ``clairvoyant_samples``
  random completions (the card and the cards after it), of the best
  arrangement knowing them, minus the exact value of the position;
- the **time** the exact solver took on the position (one core, compiled
  beforehand).

Every figure is a mean over positions with a 95% t interval and n.
"""

from __future__ import annotations

import functools
import json
import time

import numpy as np
import pandas as pd

from gamut.experiments.store import markdown_table
from gamut.solvers.stats import mean_ci

NAME = "poker_squares_endgame"
VERSION = 1
PARAMS = {"deal_seed": int, "deals_per_trial": int, "scorings": list, "scoring_trials": list, "empties": int,
          "sampler": str, "sampler_options": list, "agents": list, "options": list, "clairvoyant_samples": int}
VALUE_FUNCTIONS = ("learned", "crossline", "net", "expectimax_cross")


def validate(params: dict) -> None:
    from gamut.solvers.poker_squares.endgame import MAX_EMPTY

    if params["deals_per_trial"] < 1 or params["clairvoyant_samples"] < 1:
        raise ValueError("fields 'deals_per_trial' and 'clairvoyant_samples' must be >= 1")
    if len(params["scoring_trials"]) != len(params["scorings"]) or not all(
            1 <= int(t) <= params["trials"] for t in params["scoring_trials"]):
        raise ValueError(f"field 'scoring_trials' gives the batches of each scoring, 1..trials ({params['trials']}), "
                         f"one per scoring ({len(params['scorings'])}); got {params['scoring_trials']}")
    if not 1 <= params["empties"] <= MAX_EMPTY:
        raise ValueError(f"field 'empties' must be 1..{MAX_EMPTY}, got {params['empties']}")
    for s in params["scorings"]:
        if s not in ("american", "english"):
            raise ValueError(f"field 'scorings': {s!r} is not american or english (the learned tables)")
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.experiments.validate import agent_options
    from gamut.solvers.bots import bot_specs, make_bot

    agent_options(params["sampler_options"], "sampler_options")
    options = agent_options(params["options"])
    idle = sorted(set(options) - set(params["agents"]))
    if idle:
        raise ValueError(f"field 'options' sets options of {idle[0]!r}, which is not in 'agents'")
    for scoring in params["scorings"]:
        game = pyspiel.load_game("poker_squares", {"scoring": scoring})
        specs = bot_specs(game)
        for agent, opts in [(params["sampler"], _sampler_options(params))] + [
                (a, options.get(a, {})) for a in params["agents"]]:
            try:
                make_bot(game, agent, player=0, seed=0, **opts)
            except ValueError as err:
                raise ValueError(f"field 'agents' or 'sampler' ({scoring}): {err}") from None
            # A clock budget makes the moves depend on the machine and its load: the figures would not reproduce.
            clock = specs[agent].options.get("seconds_per_game")
            if clock is not None and float(opts.get("seconds_per_game", clock.default)) > 0:
                raise ValueError(f"agent {agent!r} plays on a clock (seconds_per_game "
                                 f"{opts.get('seconds_per_game', clock.default)}), so its moves depend on the "
                                 f"machine's load; set {agent}.seconds_per_game=0 and give it a count (simulations)")


def _sampler_options(params: dict) -> dict:
    from gamut.experiments.validate import agent_options

    return {name: value for entry in agent_options(params["sampler_options"], "sampler_options").values()
            for name, value in entry.items()}


def trial_specs(params: dict) -> list[dict]:
    """One trial per (deal batch, scoring), batch by batch, the first ``scoring_trials[i]`` batches of scoring i."""
    specs = []
    for batch in range(params["trials"]):
        for scoring, batches in zip(params["scorings"], params["scoring_trials"]):
            if batch < int(batches):
                specs.append({"trial": len(specs), "stream": batch, "batch": batch, "scoring": scoring})
    return specs


def _positions(game, sampler, the_deals, empties):
    """Play each deal with ``sampler`` to the decision with ``empties`` empty cells: (state, sampler's cell)."""
    from gamut.envs.poker_squares import kernels as K

    found = []
    for deal in the_deals:
        state = game.new_initial_state()
        sampler.restart_at(state)
        nxt = 0
        while True:
            if state.is_chance_node():
                state.apply_action(int(deal[nxt]))
                nxt += 1
                continue
            cell = sampler.step(state)
            if K.NUM_CELLS - state.state[K.S_NUM_PLACED] == empties:
                found.append((state.clone(), int(cell)))
                break
            state.apply_action(cell)
    return found


@functools.cache
def _tables(points: tuple[int, ...]):
    """The learned table, the cross-line weights and the network of a point system (read once per process)."""
    from gamut.solvers.poker_squares import net_model as M
    from gamut.solvers.poker_squares.crossline import load_weights
    from gamut.solvers.poker_squares.training import load_values

    return load_values(points, None), load_weights(points), M.load_net(M.net_path(points), points)


def _value_functions(game, state, cells):
    """Each value function's value of the afterstate of each cell: name -> float64 (len(cells),)."""
    from gamut.envs.hands import HAND_TABLE
    from gamut.envs.poker_squares import kernels as K
    from gamut.solvers.poker_squares import net_model as M
    from gamut.solvers.poker_squares.crossline import NUM_FEATURES, corrected_value
    from gamut.solvers.poker_squares.learned import grid_value, seen_word
    from gamut.solvers.poker_squares.search import expectimax_values

    values, weights, net = _tables(tuple(int(p) for p in game.cfg[K.C_POINTS:]))
    card = int(state.state[K.S_DEAL + state.state[K.S_NUM_PLACED]])
    placed = int(state.state[K.S_NUM_PLACED])
    out = {name: np.empty(len(cells)) for name in VALUE_FUNCTIONS}
    net_out = np.empty(K.NUM_CELLS)
    M.valued_afterstates(state.state[:K.NUM_CELLS].copy(), card, net["params"], *net["base_arrays"], game.cfg,
                         HAND_TABLE, net_out)
    for i, cell in enumerate(cells):
        work = state.state.copy()
        K.place_card(work, 0, cell)
        out["learned"][i] = grid_value(work, 0, game.cfg, HAND_TABLE, values)
        out["crossline"][i] = corrected_value(work, 0, placed + 1, seen_word(work, 0), game.cfg, HAND_TABLE, values,
                                              weights, np.empty(NUM_FEATURES))
        out["net"][i] = net_out[cell]
    out["expectimax_cross"][:] = expectimax_values(state.state, 0, game.cfg, HAND_TABLE, values,
                                                   np.asarray(cells, dtype=np.int64), weights=weights)
    return out


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.envs.cards import card_str
    from gamut.envs.poker_squares import kernels as K
    from gamut.experiments.validate import agent_options
    from gamut.solvers.bots import make_bot
    from gamut.solvers.poker_squares.endgame import clairvoyant_scores, endgame_move_values, state_move_values
    from gamut.solvers.poker_squares.evaluation import deals

    game = pyspiel.load_game("poker_squares", {"scoring": spec["scoring"]})
    # Compile the solver on a small position first, so solve_seconds times the search alone.
    warm = np.arange(K.NUM_CELLS, dtype=np.int64)
    warm[[0, 6, 12]] = -1
    endgame_move_values(warm, 50, np.arange(K.NUM_CELLS, 50), game.cfg)
    k = params["deals_per_trial"]
    first = spec["batch"] * k
    the_deals = deals(params["deal_seed"], first + k)[first:]
    sampler = make_bot(game, params["sampler"], player=0, seed=seed, **_sampler_options(params))
    options = agent_options(params["options"])
    agents = {name: make_bot(game, name, player=0, seed=seed, **options.get(name, {})) for name in params["agents"]}
    rows = []
    for i, (state, sampler_cell) in enumerate(_positions(game, sampler, the_deals, params["empties"])):
        started = time.perf_counter()
        cells, exact = state_move_values(state.state, 0, game.cfg)
        solve_seconds = time.perf_counter() - started
        cells = [int(c) for c in cells]
        best = float(exact.max())
        best_index = int(np.argmax(exact))
        card = int(state.state[K.S_DEAL + state.state[K.S_NUM_PLACED]])
        unseen = np.empty(52, np.int64)
        unseen = unseen[:K.unseen_cards(state.state, unseen)]
        clair = clairvoyant_scores(state.state[:K.NUM_CELLS], card, unseen, game.cfg,
                                   params["clairvoyant_samples"], seed + i)
        row = {"deal": first + i, "grid": " ".join(map(str, state.state[:K.NUM_CELLS])), "card": card_str(card),
               "exact": json.dumps({str(c): float(v) for c, v in zip(cells, exact)}), "best_value": best,
               "worst_value": float(exact.min()), "clairvoyant": float(clair.mean()), "solve_seconds": solve_seconds,
               f"regret_{params['sampler']} (in its game)": best - float(exact[cells.index(sampler_cell)])}
        for name, bot in agents.items():
            row["regret_" + name] = best - float(exact[cells.index(int(bot.step(state)))])
        for name, estimates in _value_functions(game, state, cells).items():
            row["error_" + name] = float(estimates[best_index]) - best
        rows.append(row)
    return rows


def summary_table(table: pd.DataFrame) -> pd.DataFrame:
    """Mean (95% CI, n) of every regret, error and slack, and the share of positions each agent plays best."""
    rows = []
    for scoring, g in table.groupby("scoring", sort=False):
        for column in [c for c in table.columns if c.startswith("regret_")]:
            est = mean_ci(g[column])
            best = mean_ci((g[column] <= 1e-9).astype(float))
            rows.append({"scoring": scoring, "quantity": "regret", "of": column[len("regret_"):], "mean": est.value,
                         "ci95_low": est.ci95_low, "ci95_high": est.ci95_high, "n": int(est.n),
                         "share_best": best.value, "share_best_ci95_low": best.ci95_low,
                         "share_best_ci95_high": best.ci95_high})
        for column in [c for c in table.columns if c.startswith("error_")]:
            for kind, values in (("error", g[column]), ("absolute error", g[column].abs())):
                est = mean_ci(values)
                rows.append({"scoring": scoring, "quantity": kind, "of": column[len("error_"):], "mean": est.value,
                             "ci95_low": est.ci95_low, "ci95_high": est.ci95_high, "n": int(est.n)})
        for label, values in (("exact value of the position", g["best_value"]),
                              ("seconds to solve a position", g["solve_seconds"]),
                              ("spread: best minus worst cell", g["best_value"] - g["worst_value"]),
                              ("slack", g["clairvoyant"] - g["best_value"])):
            est = mean_ci(values)
            rows.append({"scoring": scoring, "quantity": label.split(":")[0],
                         "of": "clairvoyant bound" if label == "slack" else label, "mean": est.value,
                         "ci95_low": est.ci95_low, "ci95_high": est.ci95_high, "n": int(est.n)})
    return pd.DataFrame(rows)


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    summary = summary_table(table)
    writer.table("summary", summary)
    writer.figure("regret", regret_figure(summary))
    return "\n".join([
        f"Positions with {params['empties']} empty cells and the card to place, from games of "
        f"`{params['sampler']}` ({', '.join(params['sampler_options']) or 'default options'}) on the deals of "
        f"`gamut squares eval --seed {params['deal_seed']}`; every value exact (expected final score under best "
        "play). Regret: exact value of the best cell minus that of the agent's cell (`share_best`: share of "
        "positions where the agent plays a best cell). Error: a value function's value of the best cell's "
        "afterstate minus its exact value. Slack: the clairvoyant bound of the position (mean of "
        f"{params['clairvoyant_samples']} sampled completions arranged knowing their cards) minus its exact "
        "value. Means over positions with 95% t intervals.", "",
        markdown_table(summary, float_format="{:.4g}"), "", "![regret per agent](regret.png)"])


def plot(table: pd.DataFrame, params: dict, writer) -> None:
    """Draw the figure from the trials table alone."""
    writer.figure("regret", regret_figure(summary_table(table)))


def regret_figure(summary: pd.DataFrame):
    """One panel per scoring: each agent's mean regret (95% CI, n) at the sampled positions."""
    import matplotlib.pyplot as plt

    part = summary[summary["quantity"] == "regret"]
    scorings = list(dict.fromkeys(part["scoring"]))
    fig, axes = plt.subplots(1, len(scorings), figsize=(6 * len(scorings), 0.4 * part["of"].nunique() + 1.8),
                             squeeze=False)
    for ax, scoring in zip(axes[0], scorings):
        g = part[part["scoring"] == scoring].sort_values("mean", ascending=False)
        y = np.arange(len(g))
        ax.errorbar(g["mean"], y, xerr=[g["mean"] - g["ci95_low"], g["ci95_high"] - g["mean"]], fmt="o",
                    capsize=4)
        ax.set_yticks(y, [f"{a} (n={n:,})" for a, n in zip(g["of"], g["n"])])
        ax.set(title=f"{scoring} scoring", xlabel="mean regret, points (95% CI)")
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle("Regret of each agent's move against the exact best move")
    fig.tight_layout()
    return fig
