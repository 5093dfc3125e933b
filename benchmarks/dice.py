"""Poker dice speed: exact solitaire DP per variant; random rollouts vs OpenSpiel's C++ yacht.

DP: wall time of a full solve (no cache) per variant on one core, after a
warm-up solve that compiles the kernels; median of ``--repeats``. The target
is the headline of issue 5 (standard Yahtzee <= 10 s; a plain C
implementation takes about 10 s here), so the record also carries the
expected score each solve found.

Rollouts: uniformly random two-player games of the twelve-box game played
entirely in Numba (``gamut.envs.poker_dice.kernels.random_games``) beside
OpenSpiel's C++ ``yacht`` (two players, five dice, three rolls) played entirely
in C++ by ``pyspiel.evaluate_bots`` with uniform random bots, in the same run;
median games per second of ``--repeats`` timed batches each.
"""

from __future__ import annotations

import argparse
import statistics
import time

DESCRIPTION = __doc__.split("\n\n")[0]
DP_VARIANTS = ("yacht12", "classic", "classic_banked", "yahtzee")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variants", default=",".join(DP_VARIANTS),
                        help="comma-separated variants to solve ('' for none; default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats (default: %(default)s)")
    parser.add_argument("--games", type=int, default=200_000,
                        help="Numba random games per timed batch (default: %(default)s)")
    parser.add_argument("--openspiel-games", type=int, default=4_000,
                        help="OpenSpiel yacht games per timed batch (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of both samplers (default: %(default)s)")


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(args: argparse.Namespace) -> dict:
    import numpy as np
    import pyspiel

    import gamut.envs.poker_dice.game  # noqa: F401  (registers poker_dice)
    from gamut.envs.poker_dice import kernels as K
    from gamut.envs.poker_dice.scorecard import compile_variant, make_variant
    from gamut.solvers.poker_dice.dp import solve_values

    for name, value, low in (("--repeats", args.repeats, 1), ("--games", args.games, 1),
                             ("--openspiel-games", args.openspiel_games, 1)):
        if value < low:
            raise ValueError(f"{name} must be >= {low}, got {value}")
    variants = [v for v in args.variants.split(",") if v]
    unknown = sorted(set(variants) - set(DP_VARIANTS))
    if unknown:
        raise ValueError(f"--variants: unknown {unknown}; allowed: {', '.join(DP_VARIANTS)}")

    result: dict = {"repeats": args.repeats}
    solve_values(compile_variant(make_variant("yacht12")))  # compile the DP kernels
    for name in variants:
        tables = compile_variant(make_variant(name, "free"))
        found = {}

        def solve_once():
            layout, values = solve_values(tables)
            found["score"] = float(values[layout.offsets[0] - tables.sum_lo * tables.num_aux])

        result[f"dp_seconds_{name}"] = _median_time(solve_once, args.repeats)
        result[f"expected_score_{name}"] = found["score"]

    game = pyspiel.load_game("poker_dice(variant=yacht12,players=2)")
    t = game.tables
    scores = np.zeros((args.games, 2))
    K.random_games(game.cfg, t.params, t.box_data, t.roll_data, 10, args.seed, scores)  # warm-up
    ours = _median_time(lambda: K.random_games(game.cfg, t.params, t.box_data, t.roll_data,
                                               args.games, args.seed, scores), args.repeats)
    yacht = pyspiel.load_game("yacht")
    bots = [pyspiel.make_uniform_random_bot(i, args.seed + i) for i in range(2)]

    def openspiel_batch():
        for g in range(args.openspiel_games):
            pyspiel.evaluate_bots(yacht.new_initial_state(), bots, args.seed + g)

    pyspiel.evaluate_bots(yacht.new_initial_state(), bots, args.seed)  # warm-up
    theirs = _median_time(openspiel_batch, args.repeats)
    result.update({
        "ours_games_per_s": args.games / ours,
        "openspiel_yacht_games_per_s": args.openspiel_games / theirs,
        "rollout_speedup": (args.games / ours) / (args.openspiel_games / theirs),
        "ours_games": args.games,
        "openspiel_games": args.openspiel_games,
    })
    return result
