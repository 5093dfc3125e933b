"""Random full hands of Palace Poker per second: Numba playouts vs the pyspiel State API.

Both sides play hands with uniformly random chance outcomes and decisions
from the same game string in this run: ours with ``gamut.envs.palace_poker.rollout``
entirely in Numba, the baseline through ``legal_actions`` /
``chance_outcomes`` / ``apply_action`` of the pyspiel State (what a generic
OpenSpiel algorithm pays). Kernels are compiled or loaded by a warm-up first;
medians of the repeats are reported.
"""

from __future__ import annotations

import statistics
import time

from gamut.experiments.validate import load_game_flag

DESCRIPTION = "Palace Poker random hands/s: Numba playouts vs the pyspiel State API (ratio)"

TARGET_RATIO = 100.0


def add_arguments(parser) -> None:
    parser.add_argument("--game", default="palace_poker(players=4)",
                        help="pyspiel game string (default: %(default)s)")
    parser.add_argument("--numba-hands", type=int, default=20000,
                        help="hands per timed Numba repeat (default: %(default)s)")
    parser.add_argument("--api-hands", type=int, default=200,
                        help="hands per timed State API repeat (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed repeats; medians are reported (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")


def run(args) -> dict:
    import numpy as np

    from gamut.benchmarks.state_api import random_games_through_state_api
    import gamut.envs  # noqa: F401  (registers the game)
    from gamut.envs.palace_poker.rollout import random_hands

    if args.numba_hands < 1 or args.api_hands < 1 or args.repeats < 1:
        raise ValueError("--numba-hands, --api-hands and --repeats must be >= 1")
    game = load_game_flag(args.game, "--game")
    if game.get_type().short_name != "palace_poker":
        raise ValueError(f"--game {args.game!r} is not a palace_poker game")
    rng = np.random.default_rng(args.seed)
    random_hands(game.cfg, 10, args.seed)  # warm-up: load or compile the kernels
    random_games_through_state_api(game, 2, rng)

    ours_seconds, api_seconds = [], []
    ours_moves = api_moves = 0
    for repeat in range(args.repeats):
        start = time.perf_counter()
        _, ours_moves = random_hands(game.cfg, args.numba_hands, args.seed + repeat)
        ours_seconds.append(time.perf_counter() - start)
        start = time.perf_counter()
        api_moves = random_games_through_state_api(game, args.api_hands, rng)
        api_seconds.append(time.perf_counter() - start)

    ours_rate = args.numba_hands / statistics.median(ours_seconds)
    api_rate = args.api_hands / statistics.median(api_seconds)
    return {
        "game": str(game),
        "numba_hands": args.numba_hands,
        "api_hands": args.api_hands,
        "repeats": args.repeats,
        "seed": args.seed,
        "numba_hands_per_s": ours_rate,
        "api_hands_per_s": api_rate,
        "ratio": ours_rate / api_rate,
        "target_ratio": TARGET_RATIO,
        "meets_target": ours_rate / api_rate >= TARGET_RATIO,
        "numba_moves_per_hand": ours_moves / args.numba_hands,
        "api_moves_per_hand": api_moves / args.api_hands,
    }
