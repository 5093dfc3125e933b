"""Seconds per move of ``gamut play``'s default opponents, beside the agents they replaced.

``gamut play`` seats the strongest agent that answers within about a second a
move. This times each game's default (the first agent of its view's list that
plays the game) on decisions drawn from random play, and beside it the agent
that was the default before (the baseline: ``heuristic`` in Poke and Palace
Poker, ``expectimax`` in Poker Squares; poker dice's ``optimal`` stayed). The
agent is built once and warmed up on the first position (compilation, tables),
then every position is timed once per repeat; medians, 90th percentiles and
maxima over positions are reported, each from the median repeat.
"""

from __future__ import annotations

import statistics
import time

DESCRIPTION = "Seconds per move of gamut play's default opponents (median, p90, max) beside the former defaults"


def timed_games() -> dict[str, str]:
    """Game string -> the former default (the baseline), from every game's declaration (``GAME.play_baselines``).

    The default itself comes from the game's terminal view.
    """
    from gamut.envs.registry import declarations

    return {game: baseline for d in declarations().values() for game, baseline in d.play_baselines.items()}



def add_arguments(parser) -> None:
    parser.add_argument("--positions", type=int, default=30,
                        help="decisions timed per game (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed passes over the positions (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the positions and agents (default: %(default)s)")


def _times(game, name: str, positions, repeats: int, seed: int) -> dict:
    """Per-position seconds of ``name``'s ``step``, from the median repeat (by total time)."""
    import numpy as np

    from gamut.solvers.bots import make_bot

    bots = {}

    def step(state):
        player = state.current_player()
        if player not in bots:
            bots[player] = make_bot(game, name, player=player, seed=seed + player)
        bots[player].restart_at(state)
        start = time.perf_counter()
        bots[player].step(state)
        return time.perf_counter() - start

    step(positions[0].clone())  # warm-up: kernels, learned tables, solved value tables
    passes = [[step(state.clone()) for state in positions] for _ in range(repeats)]
    times = sorted(passes, key=sum)[len(passes) // 2]
    return {"median_s": statistics.median(times), "p90_s": float(np.percentile(times, 90)), "max_s": max(times)}


def run(args) -> dict:
    import pyspiel

    import gamut.envs  # noqa: F401  (registers the toolkit's games)
    from gamut.benchmarks.ismcts import decision_positions
    from gamut.experiments.terminal_play import make_preferred_bot, view_for

    if args.positions < 1 or args.repeats < 1:
        raise ValueError("--positions and --repeats must be >= 1")
    rows = {}
    for game_string, baseline in timed_games().items():
        game = pyspiel.load_game(game_string)
        default = make_preferred_bot(game, view_for(game).opponent, 0, args.seed)[0]
        positions = decision_positions(game, args.positions, args.seed)
        row = {"default": default, "baseline": baseline,
               "default_seconds": _times(game, default, positions, args.repeats, args.seed)}
        if baseline != default:
            row["baseline_seconds"] = _times(game, baseline, positions, args.repeats, args.seed)
        rows[game_string] = row
    return {"positions": args.positions, "repeats": args.repeats, "seed": args.seed, "games": rows}
