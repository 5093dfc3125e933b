"""Random full Poke deals per second: the Numba kernels vs the pyspiel State API.

Both play the same game (default: one deal with the full deck) with uniform
random actions and exact chance. Ours is ``rollout.random_matches`` (one
compiled loop); the baseline is the ordinary Python loop over a pyspiel state
(``chance_outcomes`` / ``legal_actions`` / ``apply_action``), which is how
generic OpenSpiel code drives the game. Kernels are compiled by a warm-up run
first; each side is timed ``--repeats`` times and the medians are compared.
"""

from __future__ import annotations

from gamut.benchmarks.state_api import add_playout_arguments, playout_game, target_fields, time_against_state_api

DESCRIPTION = "random full Poke deals per second: Numba kernels vs the pyspiel State API"

TARGET_RATIO = 100.0


def add_arguments(parser) -> None:
    add_playout_arguments(parser, "poke", ("--deals", 200_000, "random deals"), ("--api-deals", 300))


def run(args) -> dict:
    import numpy as np

    import gamut.envs  # noqa: F401  (registers poke)
    from gamut.envs.poke import rollout

    game = playout_game(args, "poke", {"--deals": args.deals, "--api-deals": args.api_deals})
    out = np.empty(args.deals)
    timed = time_against_state_api(game, lambda n, seed: rollout.random_matches(game.cfg, n, seed, out[:n]),
                                   args.deals, args.api_deals, args.repeats, args.seed)
    return {
        "game": str(game),
        "deals": args.deals,
        "api_deals": args.api_deals,
        "repeats": args.repeats,
        "ours_deals_per_s": timed["ours_per_s"],
        "pyspiel_api_deals_per_s": timed["api_per_s"],
        **target_fields(timed["ratio"], TARGET_RATIO),
        "ours_actions_per_deal": timed["ours_last"] / args.deals,
        "api_actions_per_deal": timed["api_moves"] / args.api_deals,
    }
