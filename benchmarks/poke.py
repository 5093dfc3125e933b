"""Random full Poke deals per second: the Numba kernels vs the pyspiel State API.

Both play the same game (default: one deal with the full deck) with uniform
random actions and exact chance. Ours is ``rollout.random_matches`` (one
compiled loop); the baseline is the ordinary Python loop over a pyspiel state
(``chance_outcomes`` / ``legal_actions`` / ``apply_action``), which is how
generic OpenSpiel code drives the game. Kernels are compiled by a warm-up run
first; each side is timed ``--repeats`` times and the medians are compared.
"""

from __future__ import annotations

import statistics
import time

from gamut.experiments.validate import load_game_flag

DESCRIPTION = "random full Poke deals per second: Numba kernels vs the pyspiel State API"

TARGET_RATIO = 100.0


def add_arguments(parser) -> None:
    parser.add_argument("--game", default="poke", help="poke game string (default: %(default)s)")
    parser.add_argument("--deals", type=int, default=200_000,
                        help="random deals per repeat for the kernels (default: %(default)s)")
    parser.add_argument("--api-deals", type=int, default=300,
                        help="random deals per repeat through the pyspiel API (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed repeats; medians are reported (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")


def run(args) -> dict:
    import numpy as np

    from gamut.benchmarks.state_api import random_games_through_state_api
    import gamut.envs  # noqa: F401  (registers poke)
    from gamut.envs.poke import rollout

    if args.deals < 1 or args.api_deals < 1 or args.repeats < 1:
        raise ValueError("--deals, --api-deals and --repeats must be >= 1")
    game = load_game_flag(args.game, "--game")
    if game.get_type().short_name != "poke":
        raise ValueError(f"--game must be a poke game string such as 'poke(hand_size=3)', got {args.game!r}")
    out = np.empty(args.deals)
    rollout.random_matches(game.cfg, 10, args.seed, out)  # warm-up: load or compile the kernels
    rng = np.random.default_rng(args.seed)
    random_games_through_state_api(game, 5, rng)

    ours_seconds, api_seconds = [], []
    ours_actions = api_actions = 0
    for repeat in range(args.repeats):
        start = time.perf_counter()
        ours_actions = rollout.random_matches(game.cfg, args.deals, args.seed + repeat, out)
        ours_seconds.append(time.perf_counter() - start)
        start = time.perf_counter()
        api_actions = random_games_through_state_api(game, args.api_deals, rng)
        api_seconds.append(time.perf_counter() - start)

    ours_rate = args.deals / statistics.median(ours_seconds)
    api_rate = args.api_deals / statistics.median(api_seconds)
    return {
        "game": str(game),
        "deals": args.deals,
        "api_deals": args.api_deals,
        "repeats": args.repeats,
        "ours_deals_per_s": ours_rate,
        "pyspiel_api_deals_per_s": api_rate,
        "ratio": ours_rate / api_rate,
        "target_ratio": TARGET_RATIO,
        "meets_target": ours_rate / api_rate >= TARGET_RATIO,
        "ours_actions_per_deal": ours_actions / args.deals,
        "api_actions_per_deal": api_actions / args.api_deals,
    }
