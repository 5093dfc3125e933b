"""What a time budget per game buys the Monte Carlo Poker Squares agents, in rollouts per cell and move.

A ``seconds_per_game`` budget makes a game depend on the speed of the machine
and on the other work it runs, so experiments that must reproduce give the
agent a rollout count instead (its ``simulations`` option, with
``seconds_per_game`` = 0). This study finds the count that costs a given CPU
time per game on an idle core: it plays the agent with ``simulations`` = a
few counts on the deals of ``gamut squares eval --seed SEED``, takes the CPU
seconds of the process per game (``time.process_time``), the least of
``repeats`` passes over the deals (other work on a shared core only ever adds
time, so the least pass is the nearest to an idle core), fits
``cpu = fixed + per_rollout * simulations`` by least squares and solves it
for each budget T. The kernels are compiled before anything is timed.

Prints one JSON line per budget: T, the equivalent ``simulations``, the fit
and the measured points.

    python -m gamut.experiments.studies.poker_squares_mc_budget --seconds 0.25,1,5,10,30 --deals 10
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

DESCRIPTION = "Rollouts per cell and move that cost a time budget per game of a Monte Carlo Poker Squares agent"


def add_arguments(parser) -> None:
    parser.add_argument("--seconds", default="0.25", help="CPU seconds per game to translate, comma-separated, > 0")
    parser.add_argument("--simulations", default="16,64,256", help="rollout counts to time, comma-separated, >= 1")
    parser.add_argument("--deals", type=int, default=10, help="deals per pass")
    parser.add_argument("--repeats", type=int, default=3, help="passes over the deals per count (the least counts)")
    parser.add_argument("--agent", default="mc_cross", help="a Monte Carlo agent (mc, mc_learned, mc_cross)")
    parser.add_argument("--scoring", default="american", help="american or english")
    parser.add_argument("--seed", type=int, default=2026, help="deal seed (gamut squares eval --seed)")
    parser.add_argument("--endgame", type=int, default=0, help="the agent's endgame option")


def _cpu_per_game(game, make, the_deals) -> float:
    """CPU seconds per game of a fresh bot from ``make()`` over ``the_deals``."""
    from gamut.solvers.poker_squares.evaluation import play_deal

    bot = make()
    started = time.process_time()
    for deal in the_deals:
        play_deal(game, bot, deal)
    return (time.process_time() - started) / len(the_deals)


def run(args) -> list[dict]:
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.solvers.bots import make_bot
    from gamut.solvers.poker_squares.evaluation import deals

    budgets = [float(x) for x in str(args.seconds).split(",")]
    counts = [int(x) for x in str(args.simulations).split(",")]
    if any(b <= 0 for b in budgets) or any(c < 1 for c in counts) or len(set(counts)) < 2:
        raise ValueError("--seconds takes budgets > 0 and --simulations at least two distinct counts >= 1")
    if args.deals < 1 or args.repeats < 1:
        raise ValueError("--deals and --repeats must be >= 1")
    game = pyspiel.load_game("poker_squares", {"scoring": args.scoring})
    the_deals = deals(args.seed, args.deals)

    def maker(simulations):
        return lambda: make_bot(game, args.agent, player=0, seed=1, seconds_per_game=0, simulations=simulations,
                                endgame=args.endgame)

    _cpu_per_game(game, maker(counts[0]), the_deals[:1])  # compile
    cpu = [min(_cpu_per_game(game, maker(c), the_deals) for _ in range(args.repeats)) for c in counts]
    per_rollout, fixed = np.polyfit(counts, cpu, 1)
    return [{"agent": args.agent, "scoring": args.scoring, "endgame": args.endgame, "cpu_seconds_per_game": t,
             "simulations": max(1, round((t - fixed) / per_rollout)), "fixed_cpu_s": float(fixed),
             "cpu_s_per_simulation": float(per_rollout), "deals": args.deals, "repeats": args.repeats,
             "seed": args.seed, "measured": {str(c): s for c, s in zip(counts, cpu)}} for t in budgets]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    add_arguments(parser)
    for row in run(parser.parse_args()):
        print(json.dumps(row), flush=True)
