"""Random full Poker Squares games per second: the Numba kernels vs the pyspiel State API.

Both play the same game (default: one player, American scoring) with uniform
random placements and exact uniform deals. Ours is
``kernels.rollout_scores`` from the initial state (one compiled loop); the
baseline is the ordinary Python loop over a pyspiel state
(``chance_outcomes`` / ``legal_actions`` / ``apply_action`` / ``returns``),
which is how generic OpenSpiel code drives the game. Both are warmed up
first; each side is timed ``--repeats`` times and the medians are compared.
"""

from __future__ import annotations

import statistics
import time

from gamut.experiments.validate import load_game_flag

DESCRIPTION = "random full Poker Squares games per second: Numba kernels vs the pyspiel State API"


def add_arguments(parser) -> None:
    parser.add_argument("--game", default="poker_squares", help="poker_squares game string (default: %(default)s)")
    parser.add_argument("--games", type=int, default=200_000,
                        help="random games per repeat for the kernels (default: %(default)s)")
    parser.add_argument("--api-games", type=int, default=200,
                        help="random games per repeat through the pyspiel API (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed repeats; medians are reported (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")


def run(args) -> dict:
    import numpy as np

    from gamut.benchmarks.state_api import random_games_through_state_api
    import gamut.envs  # noqa: F401  (registers poker_squares)
    from gamut.envs.poker_squares import kernels as K

    if args.games < 1 or args.api_games < 1 or args.repeats < 1:
        raise ValueError("--games, --api-games and --repeats must be >= 1")
    game = load_game_flag(args.game, "--game")
    if game.get_type().short_name != "poker_squares":
        raise ValueError(f"--game must be a poker_squares game string such as 'poker_squares(scoring=english)', "
                         f"got {args.game!r}")
    start_state = game.new_initial_state().state
    K.rollout_scores(start_state, game.cfg, 10, args.seed)  # warm-up: load or compile the kernels
    rng = np.random.default_rng(args.seed)
    random_games_through_state_api(game, 3, rng)

    ours_seconds, api_seconds = [], []
    mean_score = 0.0
    for repeat in range(args.repeats):
        start = time.perf_counter()
        scores = K.rollout_scores(start_state, game.cfg, args.games, args.seed + repeat)
        ours_seconds.append(time.perf_counter() - start)
        mean_score = float(scores[:, 0].mean())
        start = time.perf_counter()
        random_games_through_state_api(game, args.api_games, rng)
        api_seconds.append(time.perf_counter() - start)

    ours_rate = args.games / statistics.median(ours_seconds)
    api_rate = args.api_games / statistics.median(api_seconds)
    return {
        "game": str(game),
        "games": args.games,
        "api_games": args.api_games,
        "repeats": args.repeats,
        "seed": args.seed,
        "ours_games_per_s": ours_rate,
        "api_games_per_s": api_rate,
        "ratio": ours_rate / api_rate,
        "ours_mean_score_player0_last_repeat": mean_score,
    }
