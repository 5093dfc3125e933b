"""Learning curve of OpenSpiel's tabular Q-learner on Poke's small exact deal.

Two ``open_spiel.python.algorithms.tabular_qlearner.QLearner`` agents, one per
seat, learn by self-play through ``open_spiel.python.rl_environment.Environment``
(epsilon-greedy exploration, information-state tensor as the table key). At
each checkpoint the learning stops and the greedy policy (``is_evaluation=True``)
of the seat-0 learner plays seat 0 and that of the seat-1 learner plays seat 1
against each registry opponent (``random``, ``heuristic``) on ``eval_deals``
deals per seat. The evaluation deals, the opponent's seed and the greedy
tie-breaking are the same at every checkpoint (common random numbers), so the
curve shows the policy changing, not the deals.

One trial is one training seed. A trial's rows give, per checkpoint, opponent
and seat (0, 1 and ``both`` pooled), the mean return of the learner with a 95%
CI over the evaluation deals; the summary averages the pooled means over
training seeds with a 95% CI over seeds.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from open_spiel.python import rl_tools
from open_spiel.python.algorithms.tabular_qlearner import QLearner

from gamut.experiments.config import game_string
from gamut.experiments.store import markdown_table
from gamut.solvers.stats import mean_ci

NAME = "rl_learning_curve"
VERSION = 1
OPPONENTS = ("random", "heuristic")
PARAMS = {
    "game": game_string,
    "episodes": int,
    "checkpoints": int,
    "eval_deals": int,
    "opponents": list,
    "step_size": float,
    "epsilon": float,
}


def validate(params: dict) -> None:
    bad = [name for name in params["opponents"] if name not in OPPONENTS]
    if bad or not params["opponents"]:
        raise ValueError(f"field 'opponents': {bad[0] if bad else 'empty list'!r} is not allowed; "
                         f"choose from {', '.join(OPPONENTS)}")
    for field in ("episodes", "checkpoints"):
        if params[field] < 1:
            raise ValueError(f"field {field!r} must be >= 1, got {params[field]}")
    if params["eval_deals"] < 2:
        raise ValueError(f"field 'eval_deals' must be >= 2 (a CI needs two samples), got {params['eval_deals']}")
    if not 0.0 < params["step_size"] <= 1.0:
        raise ValueError(f"field 'step_size' must be in (0, 1], got {params['step_size']}")
    if not 0.0 <= params["epsilon"] <= 1.0:
        raise ValueError(f"field 'epsilon' must be in [0, 1], got {params['epsilon']}")


class SeededQLearner(QLearner):
    """OpenSpiel's tabular Q-learner with its action draws taken from seeded generators.

    ``QLearner`` draws exploration and greedy tie-breaks from NumPy's global
    generator; here training draws come from ``rng`` and evaluation draws from
    ``eval_rng`` (which the caller may reset), so evaluating never changes the
    training trajectory and the same seed gives the same run. The learning
    rule is OpenSpiel's, unchanged.
    """

    def __init__(self, player_id: int, num_actions: int, rng: np.random.Generator, **kwargs):
        super().__init__(player_id, num_actions, **kwargs)
        self.train_rng = rng
        self.eval_rng = np.random.default_rng(0)
        self._rng = rng

    def step(self, time_step, is_evaluation=False):
        self._rng = self.eval_rng if is_evaluation else self.train_rng
        return super().step(time_step, is_evaluation=is_evaluation)

    def _epsilon_greedy(self, info_state, legal_actions, epsilon):
        q = self._q_values[info_state]
        greedy_q = max(q[a] for a in legal_actions)
        greedy = [a for a in legal_actions if q[a] == greedy_q]
        probs = np.zeros(self._num_actions)
        probs[legal_actions] = epsilon / len(legal_actions)
        probs[greedy] += (1.0 - epsilon) / len(greedy)
        return int(self._rng.choice(self._num_actions, p=probs)), probs


def checkpoints(episodes: int, count: int) -> list[int]:
    """``count + 1`` evenly spaced episode counts from 0 (untrained) to ``episodes``."""
    return [int(e) for e in np.unique(np.round(np.linspace(0, episodes, count + 1)).astype(int))]


def _seeds(seed: int, count: int) -> list[int]:
    """``count`` independent 32-bit seeds (rl_environment needs a legacy RandomState seed)."""
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(count, dtype=np.uint32)]


def seeded_environment(game, seed: int):
    """An ``rl_environment.Environment`` whose chance events come from ``seed``.

    ``Environment(game, seed=...)`` does not seed anything (the keyword is
    taken as a game setting and the chance sampler is left unseeded), so the
    sampler is passed explicitly.
    """
    from open_spiel.python import rl_environment

    return rl_environment.Environment(game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed))


def train(env, agents, episodes: int) -> None:
    """Self-play: each seat's learner acts and learns for ``episodes`` deals."""
    for _ in range(episodes):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            time_step = env.step([agents[player].step(time_step).action])
        for agent in agents:
            agent.step(time_step)


def evaluate(game, agent: SeededQLearner, seat: int, opponent: str, deals: int, seeds: tuple[int, int, int]):
    """Returns of ``agent``'s greedy policy in ``seat`` against registry bot ``opponent``.

    Parameters
    ----------
    seeds : (int, int, int)
        Seeds of the deals (environment chance), of the opponent bot and of the
        learner's greedy tie-breaks.

    Returns
    -------
    numpy.ndarray, shape (deals,), float64
        The learner's return on each deal.
    """
    from gamut.solvers.bots import make_bot

    env = seeded_environment(game, seeds[0])
    bot = make_bot(game, opponent, player=1 - seat, seed=seeds[1])
    agent.eval_rng = np.random.default_rng(seeds[2])
    returns = np.empty(deals)
    for deal in range(deals):
        time_step = env.reset()
        bot.restart_at(env.get_state)
        while not time_step.last():
            if time_step.observations["current_player"] == seat:
                action = agent.step(time_step, is_evaluation=True).action
            else:
                action = bot.step(env.get_state)
            time_step = env.step([action])
        returns[deal] = time_step.rewards[seat]
    return returns


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    import pyspiel

    import gamut.envs  # noqa: F401  (registers the toolkit's games in this process)

    game = pyspiel.load_game(params["game"])
    train_seed, learner0, learner1, *eval_seeds = _seeds(seed, 9)
    env = seeded_environment(game, train_seed)
    num_actions = env.action_spec()["num_actions"]
    agents = [
        SeededQLearner(p, num_actions, np.random.default_rng(s), step_size=params["step_size"],
                       epsilon_schedule=rl_tools.ConstantSchedule(params["epsilon"]))
        for p, s in ((0, learner0), (1, learner1))
    ]
    rows, done, seconds = [], 0, 0.0
    for point in checkpoints(params["episodes"], params["checkpoints"]):
        start = time.perf_counter()
        train(env, agents, point - done)
        seconds += time.perf_counter() - start
        done = point
        for opponent in params["opponents"]:
            by_seat = [evaluate(game, agents[seat], seat, opponent, params["eval_deals"],
                                tuple(eval_seeds[3 * seat:3 * seat + 3])) for seat in (0, 1)]
            for seat, returns in (("0", by_seat[0]), ("1", by_seat[1]), ("both", np.concatenate(by_seat))):
                est = mean_ci(returns)
                rows.append({"episodes": point, "opponent": opponent, "seat": seat,
                             "mean_return": float(est.value), "ci95_low": float(est.ci95_low),
                             "ci95_high": float(est.ci95_high), "n": est.n, "train_seconds": seconds})
    return rows


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    import matplotlib.pyplot as plt

    pooled = table[table["seat"] == "both"]
    summary_rows = []
    for (opponent, episodes), group in pooled.groupby(["opponent", "episodes"], sort=False):
        est = mean_ci(group["mean_return"].to_numpy())
        summary_rows.append({
            "opponent": opponent, "episodes": int(episodes), "mean_return": est.value,
            "ci95_low": est.ci95_low, "ci95_high": est.ci95_high, "seeds": est.n,
            "deals_per_seed": int(group["n"].iloc[0]),
        })
    summary = pd.DataFrame(summary_rows).sort_values(["opponent", "episodes"], kind="stable")
    writer.table("learning_curve", summary)

    opponents = list(dict.fromkeys(summary["opponent"]))
    fig, axes = plt.subplots(1, len(opponents), figsize=(5.5 * len(opponents), 4.2), squeeze=False, sharey=True)
    for ax, opponent in zip(axes[0], opponents):
        curve = summary[summary["opponent"] == opponent]
        line, = ax.plot(curve["episodes"], curve["mean_return"], marker="o", ms=3, label="mean over seeds")
        ax.fill_between(curve["episodes"], curve["ci95_low"], curve["ci95_high"], color=line.get_color(),
                        alpha=0.25, label="95% CI over seeds")
        for _, run in pooled[pooled["opponent"] == opponent].groupby("trial"):
            ax.plot(run["episodes"], run["mean_return"], color=line.get_color(), alpha=0.2, lw=0.8)
        ax.axhline(0.0, color="grey", lw=0.8)
        ax.set(xlabel="self-play training episodes", ylabel="mean return of the greedy learner (points)",
               title=f"vs {opponent}")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right")
    fig.suptitle(f"Tabular Q-learning on {params['game']}: both seats, "
                 f"{2 * params['eval_deals']} deals per point per seed (each seed faint)")
    fig.tight_layout()
    writer.figure("learning_curve", fig)

    final = summary[summary["episodes"] == summary["episodes"].max()]
    first = summary[summary["episodes"] == 0]
    per_seat = (table[(table["seat"] != "both") & (table["episodes"] == table["episodes"].max())]
                .groupby(["opponent", "seat"], sort=False)["mean_return"].apply(lambda s: mean_ci(s.to_numpy()))
                .apply(str).rename("mean return over seeds (95% CI)").reset_index())
    return "\n".join([
        f"OpenSpiel `tabular_qlearner.QLearner` (step size {params['step_size']}, constant epsilon "
        f"{params['epsilon']}) trained by self-play through `rl_environment.Environment` on "
        f"`{params['game']}` for {params['episodes']:,} episodes, {params['trials']} training seeds. "
        f"At each checkpoint the greedy policy plays {params['eval_deals']:,} fixed deals in each seat "
        "against each opponent; returns are in points, from the learner's side. CIs are over seeds "
        "(n = seeds); per-seed CIs over deals are in `trials.csv`.",
        "",
        "Untrained (episode 0, greedy over an empty table = uniformly random play):",
        "",
        markdown_table(first.reset_index(drop=True)),
        "",
        f"After {params['episodes']:,} episodes:",
        "",
        markdown_table(final.reset_index(drop=True)),
        "",
        "By seat after the last checkpoint:",
        "",
        markdown_table(per_seat),
        "",
        "![learning curves against random and heuristic](learning_curve.png)",
    ])
