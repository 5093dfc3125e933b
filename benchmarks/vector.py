"""Batched-environment steps per second of every game: ``make_vector`` vs pyspiel and OpenSpiel's rl_environment.

One step is one decision of one game, with the chance that follows it sampled
and the observation tensor and legal actions of the next decision written.
For each game that declares a benchmarked variant (``GAME.bench_variant``, with the
steps per second its batched environment is built to reach, ``GAME.bench_steps_per_s``):

- ours: ``make_vector(game, N, copy=False)`` on one core (``threads=None``),
  random legal actions from ``random_legal_actions``, ``--steps`` calls of
  ``N`` games per repeat (the action choice included in the time);
- ours on all cores: the same with ``threads=numba.config.NUMBA_NUM_THREADS``;
- pyspiel: a Python loop over one pyspiel State (a random legal action,
  ``apply_action``, chance sampled from ``chance_outcomes()`` with its
  probabilities, ``observation_tensor`` written at each decision, a new game
  when one ends), ``--baseline-steps`` decisions per repeat;
- rl_env: ``open_spiel.python.rl_environment.Environment`` (observation
  tensors, its own chance sampling) with random legal actions, the same
  number of decisions.

Everything is warmed up first (JIT compilation excluded); each rate is the
median of ``--repeats`` timed repeats, per wall-clock second (``*_steps_per_s``,
the figures the targets apply to) and per CPU second of this process
(``*_steps_per_cpu_s``: one core's speed even when other processes share the
machine). A game whose batched environment is not installed is reported as
missing.
"""

from __future__ import annotations

import importlib.util
import statistics
import time

DESCRIPTION = "batched environments: steps per second of make_vector vs a pyspiel State loop and rl_environment"

TARGET_RATIO_VS_RL_ENV = 100.0


def benchmarked_games() -> dict:
    """Short name -> declaration of every game that names a variant to benchmark."""
    from gamut.envs.registry import declarations

    return {name: d for name, d in declarations().items() if d.bench_variant}


def add_arguments(parser) -> None:
    games = benchmarked_games()
    parser.add_argument("--games", nargs="+", choices=sorted(games), default=list(games),
                        help="short names of the games to time (default: all)")
    parser.add_argument("--num-envs", type=int, default=1024, help="games per batch (default: %(default)s)")
    parser.add_argument("--steps", type=int, default=200,
                        help="batched calls per timed repeat (default: %(default)s)")
    parser.add_argument("--baseline-steps", type=int, default=500,
                        help="decisions per timed repeat of each baseline (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats; medians are reported "
                                                                "(default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")


def _time_ours(env, calls: int, seed: int) -> tuple[float, float]:
    """Wall and CPU seconds for ``calls`` steps of ``env`` with random legal actions."""
    import numpy as np

    from gamut.envs.vector import game_streams, random_legal_actions

    policy = game_streams(seed, env.num_envs)
    actions = np.zeros(env.num_envs, np.int64)
    step = env.reset()
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        random_legal_actions(step.legal_mask, policy, actions)
        step = env.step(actions)
    return time.perf_counter() - start, time.process_time() - cpu


def _ours_rates(game_string: str, args, threads) -> tuple[float, float]:
    """Steps per wall second and per CPU second (medians over the repeats)."""
    from gamut.envs.vector import make_vector

    env = make_vector(game_string, args.num_envs, args.seed, copy=False, threads=threads)
    _time_ours(env, 3, args.seed)  # warm-up: load or compile the kernels
    times = [_time_ours(env, args.steps, args.seed + 1 + r) for r in range(args.repeats)]
    return _rates(args.steps * args.num_envs, times)


def _rates(steps: int, times: list[tuple[float, float]]) -> tuple[float, float]:
    return steps / statistics.median(t[0] for t in times), steps / statistics.median(t[1] for t in times)


def _time_pyspiel_loop(game, decisions: int, rng) -> tuple[float, float]:
    """Wall and CPU seconds for ``decisions`` random decisions through a pyspiel State, observation written at each."""
    start, cpu = time.perf_counter(), time.process_time()
    state = game.new_initial_state()
    done = 0
    while done < decisions:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            outcomes = state.chance_outcomes()
            pick, total = rng.random(), 0.0
            for action, probability in outcomes:
                total += probability
                if pick < total:
                    break
            state.apply_action(action)
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            done += 1
            if not state.is_terminal() and not state.is_chance_node():
                state.observation_tensor(state.current_player())
    return time.perf_counter() - start, time.process_time() - cpu


def _time_rl_env(env, decisions: int, rng) -> tuple[float, float]:
    """Wall and CPU seconds for ``decisions`` random decisions through rl_environment."""
    start, cpu = time.perf_counter(), time.process_time()
    time_step = env.reset()
    for _ in range(decisions):
        if time_step.last():
            time_step = env.reset()
        player = time_step.observations["current_player"]
        legal = time_step.observations["legal_actions"][player]
        time_step = env.step([legal[int(rng.integers(len(legal)))]])
    return time.perf_counter() - start, time.process_time() - cpu


def _baseline_rates(game_string: str, args) -> tuple[tuple[float, float], tuple[float, float]]:
    """(wall, CPU) steps per second of the pyspiel loop and of rl_environment."""
    import numpy as np
    from open_spiel.python import rl_environment

    from gamut.envs.loading import load_game

    game = load_game(game_string)
    rng = np.random.default_rng(args.seed)
    env = rl_environment.Environment(game, observation_type=rl_environment.ObservationType.OBSERVATION)
    env.seed(args.seed)
    _time_pyspiel_loop(game, 50, rng)
    _time_rl_env(env, 50, rng)
    loop = [_time_pyspiel_loop(game, args.baseline_steps, rng) for _ in range(args.repeats)]
    rl = [_time_rl_env(env, args.baseline_steps, rng) for _ in range(args.repeats)]
    return _rates(args.baseline_steps, loop), _rates(args.baseline_steps, rl)


def run(args) -> dict:
    import numba

    import gamut.envs  # noqa: F401  (registers the toolkit's games)
    from gamut.envs.loading import load_game

    for name in ("num_envs", "steps", "baseline_steps", "repeats"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    all_cores = numba.config.NUMBA_NUM_THREADS
    games, missing = {}, []
    declared = benchmarked_games()
    for short in args.games:
        game_string, target = declared[short].bench_variant, declared[short].bench_steps_per_s
        entry = {"game": str(load_game(game_string))}
        vector_module = (declared[short].vector or "").partition(":")[0]
        if not vector_module or importlib.util.find_spec(vector_module) is None:
            missing.append(short)
            games[short] = {**entry, "missing": f"no batched environment (the declaration names "
                                                f"{declared[short].vector!r})"}
            continue
        ours, ours_cpu = _ours_rates(game_string, args, None)
        ours_all, _ = _ours_rates(game_string, args, all_cores)
        (pyspiel_rate, pyspiel_cpu), (rl_env_rate, rl_env_cpu) = _baseline_rates(game_string, args)
        games[short] = {
            **entry,
            "ours_steps_per_s": ours,
            "pyspiel_steps_per_s": pyspiel_rate,
            "rl_env_steps_per_s": rl_env_rate,
            "ratio_vs_pyspiel": ours / pyspiel_rate,
            "ratio_vs_rl_env": ours / rl_env_rate,
            "ours_steps_per_s_all_cores": ours_all,
            # Per second of this process's CPU time: what one core gives when others share the machine.
            "ours_steps_per_cpu_s": ours_cpu,
            "pyspiel_steps_per_cpu_s": pyspiel_cpu,
            "rl_env_steps_per_cpu_s": rl_env_cpu,
            "target_steps_per_s": target,
            "meets_target": ours >= target,
            "meets_ratio_target": ours / rl_env_rate >= TARGET_RATIO_VS_RL_ENV,
        }
    return {
        "num_envs": args.num_envs,
        "steps_per_repeat": args.steps,
        "baseline_steps_per_repeat": args.baseline_steps,
        "repeats": args.repeats,
        "seed": args.seed,
        "all_cores_threads": all_cores,
        "target_ratio_vs_rl_env": TARGET_RATIO_VS_RL_ENV,
        "games": games,
        "missing": missing,
    }
