"""Neural agents measured against exact optima, exact exploitability and the toolkit's other agents.

Three kinds of trial (one training seed each, ``trials`` seeds per kind):

- ``optimum``: PPO (``gamut.solvers.rl.ppo``) on each one-player dice game of
  ``ppo_games``: the greedy policy's mean score over training, with a 95% CI
  over ``eval_games`` fixed games, beside the exact optimal expectation of
  the variant (``gamut.solvers.poker_dice.solution.solve``) and its share of it.
- ``exploitability``: NFSP (``gamut.solvers.rl.nfsp``) on ``nfsp_game`` (Poke's
  small exact deal): the exact exploitability of its average policy over
  training CPU seconds (``gamut.solvers.cfr.best_response``), beside CFR+ and
  OpenSpiel's tabular Q-learner (greedy policy, self-play as in
  ``rl_learning_curve``) given the same CPU seconds (wall seconds beside them).
- ``match``: each shipped self-play agent of ``match_agents`` (``ALGO|GAME``)
  against each registry opponent of ``opponents``, one seat each, the others
  seats the opponent's, over paired deals: every deal is played once with the
  agent in every seat from the same chance seed; the mean return per deal with
  a 95% CI (over deals).
"""

from __future__ import annotations

import tempfile
import time

import numpy as np
import pandas as pd

from gamut.experiments.config import game_string
from gamut.experiments.store import markdown_table
from gamut.solvers.stats import mean_ci

NAME = "learning_curves"
VERSION = 1
PARAMS = {
    "ppo_games": list,
    "ppo_steps": int,
    "ppo_settings": list,
    "nfsp_game": game_string,
    "nfsp_steps": int,
    "nfsp_settings": list,
    "evaluations": int,
    "eval_games": int,
    "match_agents": list,
    "opponents": list,
    "match_deals": int,
}
OPTIMA = {"poker_dice(variant=yacht12,players=1)": "yacht12", "poker_dice(variant=yahtzee,players=1)": "yahtzee"}


def _settings(pairs: list) -> dict:
    from gamut.experiments.validate import parse_options

    return parse_options([str(p) for p in pairs], "settings")


def validate(params: dict) -> None:
    import gamut.envs  # noqa: F401
    from gamut.envs.loading import load_game
    from gamut.solvers.bots import make_bot

    bad = [g for g in params["ppo_games"] if str(g) not in OPTIMA]
    if bad:
        raise ValueError(f"field 'ppo_games': {bad[0]!r} has no exact optimum here; use {', '.join(OPTIMA)}")
    for field in ("ppo_steps", "nfsp_steps", "evaluations"):
        if params[field] < 1:
            raise ValueError(f"field {field!r} must be >= 1, got {params[field]}")
    for field in ("eval_games", "match_deals"):
        if params[field] < 2:
            raise ValueError(f"field {field!r} must be >= 2 (a CI needs two samples), got {params[field]}")
    for field in ("ppo_settings", "nfsp_settings"):
        _settings(params[field])
    for entry in params["match_agents"]:
        algo, sep, game = str(entry).partition("|")
        if not sep:
            raise ValueError(f"field 'match_agents' takes ALGO|GAME entries, got {entry!r}")
        loaded = load_game(game)
        make_bot(loaded, algo, 0, 0)
        for opponent in params["opponents"]:
            make_bot(loaded, opponent, 1, 0)


def trial_specs(params: dict) -> list[dict]:
    specs = []
    for seed in range(params["trials"]):
        specs += [{"kind": "optimum", "game": g, "stream": seed} for g in params["ppo_games"]]
        specs.append({"kind": "exploitability", "game": params["nfsp_game"], "stream": seed})
    specs += [{"kind": "match", "agent": a, "opponent": o, "stream": 0}
              for a in params["match_agents"] for o in params["opponents"]]
    for i, spec in enumerate(specs):
        spec["trial"] = i
    return specs


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    import gamut.envs  # noqa: F401
    from gamut.solvers.rl.training import make_trainer, train

    seed = seed % (1 << 62)
    if spec["kind"] == "match":
        return _match(params, spec, seed)
    algo = "ppo" if spec["kind"] == "optimum" else "nfsp"
    steps = params["ppo_steps"] if algo == "ppo" else params["nfsp_steps"]
    trainer = make_trainer(algo, spec["game"], seed, _settings(params[f"{algo}_settings"]))
    with tempfile.TemporaryDirectory() as folder:
        train(trainer, steps, folder, eval_every=max(1, steps // params["evaluations"]),
              eval_games=params["eval_games"], final_games=params["eval_games"],
              exploitability=algo == "nfsp")
        from gamut.solvers.rl.checkpoint import CHECKPOINT_FORMAT, read_verified

        history = read_verified(f"{folder}/checkpoint.npz", CHECKPOINT_FORMAT)[0]["history"]
    rows = [{"kind": spec["kind"], "game": spec["game"], "method": algo, **row} for row in history]
    if spec["kind"] == "optimum":
        from gamut.solvers.poker_dice.solution import solve

        optimum = solve(OPTIMA[spec["game"]]).expected_score
        for row in rows:
            row.update(optimum=optimum, share=row["mean_return"] / optimum)
        return rows
    return rows + _baselines(trainer.game, history, seed)


def _baselines(game, history: list[dict], seed: int) -> list[dict]:
    """CFR+ and the tabular Q-learner's exact exploitability at NFSP's evaluation times.

    The methods meet at equal CPU seconds (process time): unlike wall time it
    does not depend on what else the machine runs, and it charges NFSP for
    every thread its network library uses. Wall seconds are kept beside them.
    """
    from gamut.experiments.trials.rl_learning_curve import SeededQLearner, seeded_environment
    from gamut.solvers.cfr.best_response import exploitability
    from gamut.solvers.cfr.extract import extract_game
    from gamut.solvers.cfr.tabular import TabularCFR
    from gamut.solvers.rl.evaluation import tabular_policy

    tree = extract_game(game, report=None)
    times = [row["cpu_seconds"] for row in history]
    rows = []
    cfr, spent, wall = TabularCFR(tree, "cfr+"), 0.0, 0.0
    for mark in times:
        while spent < mark:
            start, cpu = time.perf_counter(), time.process_time()
            cfr.run(1)
            spent += time.process_time() - cpu
            wall += time.perf_counter() - start
        rows.append({"kind": "exploitability", "method": "cfr+", "seconds": wall, "cpu_seconds": spent,
                     "steps": cfr.iteration, "exploitability": float(exploitability(tree, cfr.average_policy()))})
    env = seeded_environment(game, seed % (1 << 31))
    agents = [SeededQLearner(p, game.num_distinct_actions(), np.random.default_rng(seed + p), step_size=0.1)
              for p in (0, 1)]
    spent, wall, episodes = 0.0, 0.0, 0
    for mark in times:
        while spent < mark:
            start, cpu = time.perf_counter(), time.process_time()
            for _ in range(50):
                time_step = env.reset()
                while not time_step.last():
                    time_step = env.step([agents[time_step.observations["current_player"]].step(time_step).action])
                for agent in agents:
                    agent.step(time_step)
            episodes += 50
            spent += time.process_time() - cpu
            wall += time.perf_counter() - start
        rows.append({"kind": "exploitability", "method": "tabular Q-learning", "seconds": wall, "cpu_seconds": spent,
                     "steps": episodes,
                     "exploitability": float(exploitability(tree, tabular_policy(game, _greedy_q(agents), tree)))})
    return [{**row, "game": str(game)} for row in rows]


def _greedy_q(agents):
    """Probabilities of the Q-learners' greedy policies (ties split), keyed as OpenSpiel keys its table."""

    import json

    # OpenSpiel keys the table by str(list of the float64 tensor); the network input is float32.
    tables = [{tuple(np.float32(json.loads(key))): q for key, q in agent._q_values.items()} for agent in agents]

    def probabilities(inputs, mask):
        out = np.zeros(mask.shape)
        for i, (x, legal) in enumerate(zip(inputs, mask)):
            q = tables[int(np.argmax(x[-2:]))].get(tuple(x[:-2]), {})
            actions = np.flatnonzero(legal)
            values = np.array([q.get(a, 0.0) for a in actions])
            best = actions[values == values.max()]
            out[i, best] = 1.0 / len(best)
        return out

    return probabilities


def _match(params: dict, spec: dict, seed: int) -> list[dict]:
    from gamut.envs.loading import load_game
    from gamut.solvers.bots import make_bot
    from gamut.solvers.rl.evaluation import paired_returns

    algo, _, game_str = spec["agent"].partition("|")
    game = load_game(game_str)
    returns = paired_returns(game, lambda p, s: make_bot(game, algo, p, s),
                             lambda p, s: make_bot(game, spec["opponent"], p, s), params["match_deals"], seed)
    est = mean_ci(returns)
    return [{"kind": "match", "game": str(game), "method": algo, "opponent": spec["opponent"],
             "mean_return": est.value, "ci95_low": est.ci95_low, "ci95_high": est.ci95_high, "n": est.n}]


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    import matplotlib.pyplot as plt

    parts = []
    optimum = table[table["kind"] == "optimum"]
    if len(optimum):
        curve = (optimum.groupby(["game", "steps"], sort=True)
                 .agg(mean_return=("mean_return", "mean"), seconds=("seconds", "mean"), optimum=("optimum", "first"),
                      seeds=("trial", "nunique")).reset_index())
        curve["share"] = curve["mean_return"] / curve["optimum"]
        writer.table("optimum_curve", curve)
        fig, axes = plt.subplots(1, curve["game"].nunique(), figsize=(6, 4), squeeze=False)
        for ax, (game, part) in zip(axes[0], optimum.groupby("game")):
            for _, run in part.groupby("trial"):
                ax.plot(run["steps"], run["mean_return"], marker="o", ms=3)
                ax.fill_between(run["steps"], run["ci95_low"], run["ci95_high"], alpha=0.2)
            ax.axhline(part["optimum"].iloc[0], color="black", ls="--", label="exact optimum")
            ax.set(xlabel="training decisions", ylabel="mean score (95% CI)", title=game)
            ax.legend()
        fig.tight_layout()
        writer.figure("optimum_curve", fig)
        final = curve.loc[curve.groupby("game")["steps"].idxmax()]
        parts += ["PPO against the exact optimum (last evaluation; CIs per seed in `trials.csv`, "
                  f"{params['eval_games']:,} games per point):", "", markdown_table(final.reset_index(drop=True)),
                  "", "![PPO against the exact optimum](optimum_curve.png)", ""]
    expl = table[table["kind"] == "exploitability"]
    if len(expl):
        columns = ["trial", "method", "cpu_seconds", "seconds", "steps", "exploitability"]
        writer.table("exploitability_curve", expl[columns])
        fig, ax = plt.subplots(figsize=(6, 4))
        for method, part in expl.groupby("method"):
            for k, (_, run) in enumerate(part.groupby("trial")):
                ax.plot(run["cpu_seconds"], run["exploitability"], marker="o", ms=3,
                        label=method if k == 0 else None)
        ax.set(xlabel="training CPU seconds", ylabel="exact exploitability (points)", yscale="log",
               title=params["nfsp_game"])
        ax.legend()
        fig.tight_layout()
        writer.figure("exploitability_curve", fig)
        last = expl.loc[expl.groupby(["trial", "method"])["cpu_seconds"].idxmax()]
        last = last[columns].reset_index(drop=True)
        parts += ["Exact exploitability at equal CPU seconds (process time; wall seconds beside them), last point "
                  "of each seed:", "", markdown_table(last), "",
                  "![exploitability over CPU time](exploitability_curve.png)", ""]
    matches = table[table["kind"] == "match"]
    if len(matches):
        shown = matches[["game", "method", "opponent", "mean_return", "ci95_low", "ci95_high", "n"]]
        writer.table("matches", shown)
        parts += [f"Shipped self-play agents against the registry, {params['match_deals']:,} deals, each played "
                  "with the agent in every seat (mean return of the agent per seat-game, 95% CI over deals):", "",
                  markdown_table(shown.reset_index(drop=True))]
    return "\n".join(parts)
