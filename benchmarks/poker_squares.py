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

from gamut.benchmarks.state_api import add_playout_arguments, playout_game, time_against_state_api

DESCRIPTION = "random full Poker Squares games per second: Numba kernels vs the pyspiel State API"
# The game's other benchmarks (gamut bench NAME).
MORE_BENCHMARKS = {"poker_squares_bnp": "gamut.benchmarks.poker_squares_bnp"}


def add_arguments(parser) -> None:
    add_playout_arguments(parser, "poker_squares", ("--games", 200_000, "random games"), ("--api-games", 200))


def run(args) -> dict:
    import gamut.envs  # noqa: F401  (registers poker_squares)
    from gamut.envs.poker_squares import kernels as K

    game = playout_game(args, "poker_squares", {"--games": args.games, "--api-games": args.api_games})
    start_state = game.new_initial_state().state

    def mean_score(n: int, seed: int) -> float:
        return float(K.rollout_scores(start_state, game.cfg, n, seed)[:, 0].mean())

    timed = time_against_state_api(game, mean_score, args.games, args.api_games, args.repeats, args.seed)
    return {
        "game": str(game),
        "games": args.games,
        "api_games": args.api_games,
        "repeats": args.repeats,
        "seed": args.seed,
        "ours_games_per_s": timed["ours_per_s"],
        "api_games_per_s": timed["api_per_s"],
        "ratio": timed["ratio"],
        "ours_mean_score_player0_last_repeat": timed["ours_last"],
    }
