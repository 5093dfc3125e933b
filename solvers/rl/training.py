"""One training loop for every algorithm: periodic evaluation, checkpoints, resume, weights.

:func:`train` runs a trainer (:class:`~gamut.solvers.rl.ppo.PPOTrainer`,
:class:`~gamut.solvers.rl.nfsp.NFSPTrainer` or
:class:`~gamut.solvers.rl.dmc.DMCTrainer`) up to a total number of steps
(decisions played in the batched environment), evaluating the policy every
``eval_every`` steps on the same ``eval_games`` games (common random numbers:
the curve shows the policy changing, not the games), and writes into its
output folder:

- ``checkpoint.npz``: the whole run, written after every evaluation, every
  ``checkpoint_seconds`` and at the end (a killed run resumes from it with
  nothing finished lost and the same parameters as an uninterrupted run);
- ``weights.npz``: the policy with the metadata of its training (what the
  ``ppo``/``nfsp`` agents load);
- ``curve.csv``: one row per evaluation; ``seconds`` and ``cpu_seconds`` are
  the wall and process CPU seconds spent in training updates up to it
  (evaluations and checkpoints excluded). The CPU seconds compare runs on a
  loaded machine fairly; they exceed the wall seconds when JAX uses several
  threads.

The evaluation is the mean return of the policy (greedy for PPO and DMC, the sampled
average policy for NFSP) with a 95% CI, against uniformly random seats in a
multi-player game (or the game's heuristic, ``eval_opponent="heuristic"``);
with ``exploitability=True`` on a small two-player zero-sum game the exact
exploitability of the policy is added.
"""

from __future__ import annotations

import csv
import io
import os
import time
from pathlib import Path

import numpy as np

from gamut.solvers.atomic_file import write_atomically
from gamut.solvers.rl.checkpoint import (CHECKPOINT_FORMAT, RLFileError, load_checkpoint, read_verified,
                                        save_checkpoint, save_weights)
from gamut.solvers.rl.evaluation import exact_exploitability, play_against, uses_info_state
from gamut.solvers.stats import mean_ci

ALGORITHMS = ("ppo", "nfsp", "dmc")
# Algorithms whose agent plays its greedy action (NFSP samples its average policy).
GREEDY_ALGORITHMS = ("ppo", "dmc", "imitation")
CURVE_FIELDS = ("steps", "seconds", "cpu_seconds", "mean_return", "ci95_low", "ci95_high", "n", "exploitability")


def make_trainer(algorithm: str, game_string: str, seed: int = 0, overrides: dict | None = None):
    """The trainer of ``algorithm`` with its default configuration changed by ``overrides``.

    Raises ValueError for an unknown algorithm or configuration field (naming
    the valid ones) or a value the configuration refuses.
    """
    if algorithm == "ppo":
        from gamut.solvers.rl.ppo import PPOConfig as Config, PPOTrainer as Trainer
    elif algorithm == "nfsp":
        from gamut.solvers.rl.nfsp import NFSPConfig as Config, NFSPTrainer as Trainer
    elif algorithm == "dmc":
        from gamut.solvers.rl.dmc import DMCConfig as Config, DMCTrainer as Trainer
    else:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    return Trainer(game_string, seed, Config.from_overrides(overrides, algorithm))


def evaluate(trainer, games: int, seed: int, exploitability: bool = False, tree=None,
             opponent: str = "random") -> dict:
    """One curve row of ``trainer``'s current policy (``seconds`` left for the caller)."""
    act = trainer.act_greedy if trainer.algorithm in GREEDY_ALGORITHMS else trainer.act_sampled
    returns = play_against(trainer.game_string, act, games, seed, opponent=opponent)
    est = mean_ci(returns)
    row = {"steps": trainer.steps, "mean_return": est.value, "ci95_low": est.ci95_low,
           "ci95_high": est.ci95_high, "n": est.n, "exploitability": None}
    if exploitability:
        row["exploitability"] = exact_exploitability(trainer.game, trainer.probabilities, tree)
    return row


def checkpoint_eval_opponent(path) -> str:
    """The evaluation opponent of a verified checkpoint (``random`` for one written before there was a choice)."""
    return read_verified(path, CHECKPOINT_FORMAT)[0].get("eval_opponent", "random")


def check_exploitability_game(game, max_nodes: int = 2_000_000):
    """The extracted tree of a small two-player zero-sum game, or ValueError saying why there is none."""
    from gamut.solvers.cfr.extract import check_two_player_zero_sum, estimate_num_nodes, extract_game

    check_two_player_zero_sum(game)
    if not game.get_type().provides_information_state_tensor:
        raise ValueError(f"{game} has no information-state tensor to evaluate the policy on")
    if estimate_num_nodes(game) > max_nodes:
        raise ValueError(f"{game} is too large for an exact exploitability (more than {max_nodes:,} histories)")
    return extract_game(game, max_nodes=max_nodes, report=None)


def train(trainer, steps: int, out: str | os.PathLike, *, resume: bool = False, eval_every: int | None = None,
          eval_games: int = 1000, final_games: int | None = None, exploitability: bool = False,
          checkpoint_seconds: float = 300.0, progress=None, stop_after_seconds: float | None = None,
          eval_opponent: str = "random", evaluating=None) -> dict:
    """Train ``trainer`` to ``steps`` total steps, writing into the folder ``out``; returns the summary.

    ``progress(steps_done, row, finished)`` is called after every update
    (``row``: the last curve row; ``finished``: player 0's returns of the games
    that ended in the update). ``evaluating(games, final)`` is called before
    each evaluation (``final``: the last one, on fresh games), so a progress
    display can say what it waits for. ``eval_opponent`` (``random`` or
    ``heuristic``) plays the other seats of every evaluation; a resumed run
    keeps its own. ``stop_after_seconds`` ends the run early at an update
    boundary after a checkpoint (as a kill would, but cleanly). Returns
    ``{final_mean_return, ci95_low, ci95_high, n, steps, seconds, cpu_seconds,
    wall_seconds}`` (plus ``exploitability`` when asked) from ``final_games``
    fresh games: ``seconds`` and ``cpu_seconds`` are the wall and CPU seconds of
    the training updates of the whole run (across resumes), ``wall_seconds``
    the wall time of this call, evaluations and checkpoints included.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / "checkpoint.npz"
    eval_every = eval_every or max(trainer.steps_per_update, steps // 10)
    eval_seed = int(np.random.SeedSequence([trainer.seed, 1]).generate_state(1)[0])
    tree = check_exploitability_game(trainer.game) if exploitability else None
    called = time.perf_counter()
    history, seconds, cpu_seconds = [], 0.0, 0.0
    if resume:
        saved_opponent = checkpoint_eval_opponent(checkpoint)
        if saved_opponent != eval_opponent:
            raise RLFileError(f"checkpoint {checkpoint} was evaluated against {saved_opponent}, this run against "
                              f"{eval_opponent}: one curve takes one evaluation opponent")
        header = load_checkpoint(checkpoint, trainer)
        history, seconds = header["history"], float(header["seconds"])
        # A checkpoint written before CPU time was kept: its CPU seconds are unknown, not zero.
        cpu_seconds = float(header.get("cpu_seconds", float("nan")))

    def evaluate_now(games: int, seed: int, final: bool = False) -> dict:
        if evaluating is not None:
            evaluating(games, final)
        return evaluate(trainer, games, seed, exploitability, tree, eval_opponent)

    if not history:
        history.append({**evaluate_now(eval_games, eval_seed), "seconds": 0.0, "cpu_seconds": 0.0})

    def save(weights: bool = True) -> None:
        # Weights go out only beside an evaluation of those very parameters.
        save_checkpoint(checkpoint, trainer, {"history": history, "seconds": seconds, "cpu_seconds": cpu_seconds,
                                              "eval_opponent": eval_opponent})
        _write_curve(out / "curve.csv", history)
        if not weights:
            return
        last = history[-1]
        _save_weights(out / "weights.npz", trainer, {
            "final_mean_return": last["mean_return"], "ci95_low": last["ci95_low"], "ci95_high": last["ci95_high"],
            "n": last["n"], "steps": last["steps"], "seconds": last["seconds"], "cpu_seconds": last.get("cpu_seconds"),
            "exploitability": last["exploitability"]}, history, eval_opponent)

    if not resume:
        save()
    started = time.perf_counter()
    last_save = time.perf_counter()
    next_eval = (trainer.steps // eval_every + 1) * eval_every
    while trainer.steps < steps:
        t0, c0 = time.perf_counter(), time.process_time()
        trainer.train_update()
        seconds += time.perf_counter() - t0
        cpu_seconds += time.process_time() - c0
        if trainer.steps >= next_eval or trainer.steps >= steps:
            history.append({**evaluate_now(eval_games, eval_seed), "seconds": seconds, "cpu_seconds": cpu_seconds})
            next_eval = (trainer.steps // eval_every + 1) * eval_every
            save()
            last_save = time.perf_counter()
        elif time.perf_counter() - last_save > checkpoint_seconds:
            save(weights=False)
            last_save = time.perf_counter()
        if progress is not None:
            progress(trainer.steps, history[-1], trainer.finished_returns)
        if stop_after_seconds is not None and time.perf_counter() - started > stop_after_seconds:
            save(weights=False)
            break
    final_games = final_games or eval_games
    final = evaluate_now(final_games, eval_seed ^ 0xF1A1, final=True)
    summary = {"final_mean_return": final["mean_return"], "ci95_low": final["ci95_low"],
               "ci95_high": final["ci95_high"], "n": final["n"], "steps": trainer.steps, "seconds": seconds,
               "cpu_seconds": cpu_seconds, "wall_seconds": time.perf_counter() - called}
    if exploitability:
        summary["exploitability"] = final["exploitability"]
    _save_weights(out / "weights.npz", trainer, summary, history, eval_opponent)
    return summary


def _save_weights(path: Path, trainer, evaluation: dict, history: list[dict], opponent: str) -> None:
    """The policy with its training's metadata; ``evaluation`` is the latest one (of the saved parameters)."""
    save_weights(path, trainer.weights_arrays(), {
        "algorithm": trainer.algorithm, "game": trainer.game_string,
        "input": "information_state+seat" if uses_info_state(trainer.game) else
                 ("observation+seat" if trainer.game.num_players() > 1 else "observation"),
        "policy": "greedy" if trainer.algorithm in GREEDY_ALGORITHMS else "sampled",
        "seed": trainer.seed, "config": trainer.config_dict(),
        # The share of training seats the game's hand-written heuristic played (0: self-play alone).
        "heuristic_share": _heuristic_share(trainer),
        "budget": {"steps": trainer.steps, "seconds": evaluation["seconds"],
                   "cpu_seconds": evaluation.get("cpu_seconds"), "cores": len(os.sched_getaffinity(0))},
        "evaluation": evaluation, "evaluation_opponent": opponent, "curve": history,
        **trainer.weights_metadata(),
    })


def _heuristic_share(trainer) -> float:
    """The share of seats the game's heuristic played in ``trainer``'s training (its own, or its config's)."""
    own = getattr(trainer, "heuristic_share", None)
    if own is None:
        own = getattr(getattr(trainer, "config", None), "heuristic_share", 0.0)
    return float(own)


def _write_curve(path: Path, history: list[dict]) -> None:
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=CURVE_FIELDS)
    writer.writeheader()
    for row in history:
        writer.writerow({k: ("" if row.get(k) is None else row[k]) for k in CURVE_FIELDS})
    write_atomically(path, text.getvalue().encode())
