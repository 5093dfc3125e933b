"""Seconds per move of the network agents with NumPy's default BLAS threads beside one thread.

Every shipped weights file (``results/rl/manifest.json``: algorithm and game)
is played by its agent on decisions drawn from random play, once with BLAS
at the machine's core count (NumPy's default, the baseline) and once with
one thread (what ``gamut.solvers.blas_threads.one_blas_thread`` sets when a
network agent is made), in the same run, alternating by repeat. Both wall and
CPU seconds per move are reported: on a busy machine OpenBLAS's idle threads
spin and wait on one another, which costs CPU as well as time.
"""

from __future__ import annotations

import os
import statistics
import time

DESCRIPTION = "Seconds per move of the network agents with default BLAS threads beside one thread"


def add_arguments(parser) -> None:
    parser.add_argument("--positions", type=int, default=40, help="decisions timed per agent (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed passes per thread count (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the positions and agents (default: %(default)s)")


def _pass_seconds(bots, positions) -> tuple[float, float]:
    """Median wall and CPU seconds per move of one pass over ``positions``."""
    walls, cpus = [], []
    for state in positions:
        bot = bots[state.current_player()]
        wall, cpu = time.perf_counter(), time.process_time()
        bot.step(state)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def run(args) -> dict:
    import pyspiel
    from threadpoolctl import threadpool_limits

    import gamut.envs  # noqa: F401  (registers the toolkit's games)
    from gamut.benchmarks.ismcts import decision_positions
    from gamut.solvers.bots import make_bot
    from gamut.solvers.rl.shipped import shipped_weights

    if args.positions < 1 or args.repeats < 1:
        raise ValueError("--positions and --repeats must be >= 1")
    cores = os.cpu_count() or 1
    rows = {}
    for algorithm, games in sorted(shipped_weights().items()):
        for game_string in sorted(games):
            game = pyspiel.load_game(game_string)
            bots = {p: make_bot(game, algorithm, player=p, seed=args.seed + p) for p in range(game.num_players())}
            positions = decision_positions(game, args.positions, args.seed)
            _pass_seconds(bots, positions[:1])  # warm-up
            timed = {"default": [], "one": []}
            for _ in range(args.repeats):
                for label, limit in (("default", cores), ("one", 1)):
                    with threadpool_limits(limits=limit, user_api="blas"):
                        timed[label].append(_pass_seconds(bots, positions))
            row = {}
            for label, passes in timed.items():
                row[f"{label}_wall_s"] = statistics.median(w for w, _ in passes)
                row[f"{label}_cpu_s"] = statistics.median(c for _, c in passes)
            row["wall_ratio"] = row["default_wall_s"] / max(row["one_wall_s"], 1e-12)
            row["cpu_ratio"] = row["default_cpu_s"] / max(row["one_cpu_s"], 1e-12)
            rows[f"{algorithm} {game}"] = row
    return {"cores": cores, "positions": args.positions, "repeats": args.repeats, "seed": args.seed,
            "agents": rows,
            "median_wall_ratio": statistics.median(r["wall_ratio"] for r in rows.values()),
            "median_cpu_ratio": statistics.median(r["cpu_ratio"] for r in rows.values())}
