"""Random full hands of Palace Poker per second: Numba playouts vs the pyspiel State API.

Both sides play hands with uniformly random chance outcomes and decisions
from the same game string in this run: ours with ``gamut.envs.palace_poker.rollout``
entirely in Numba, the baseline through ``legal_actions`` /
``chance_outcomes`` / ``apply_action`` of the pyspiel State (what a generic
OpenSpiel algorithm pays). Kernels are compiled or loaded by a warm-up first;
medians of the repeats are reported.
"""

from __future__ import annotations

from gamut.benchmarks.state_api import add_playout_arguments, playout_game, target_fields, time_against_state_api

DESCRIPTION = "Palace Poker random hands/s: Numba playouts vs the pyspiel State API (ratio)"

TARGET_RATIO = 100.0


def add_arguments(parser) -> None:
    add_playout_arguments(parser, "palace_poker(players=4)", ("--numba-hands", 20000, "random hands"),
                          ("--api-hands", 200))


def run(args) -> dict:
    import gamut.envs  # noqa: F401  (registers the game)
    from gamut.envs.palace_poker.rollout import random_hands

    game = playout_game(args, "palace_poker", {"--numba-hands": args.numba_hands, "--api-hands": args.api_hands})
    timed = time_against_state_api(game, lambda n, seed: random_hands(game.cfg, n, seed)[1], args.numba_hands,
                                   args.api_hands, args.repeats, args.seed)
    return {
        "game": str(game),
        "numba_hands": args.numba_hands,
        "api_hands": args.api_hands,
        "repeats": args.repeats,
        "seed": args.seed,
        "numba_hands_per_s": timed["ours_per_s"],
        "api_hands_per_s": timed["api_per_s"],
        **target_fields(timed["ratio"], TARGET_RATIO),
        "numba_moves_per_hand": timed["ours_last"] / args.numba_hands,
        "api_moves_per_hand": timed["api_moves"] / args.api_hands,
    }
