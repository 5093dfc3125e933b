"""CPU seconds of the exact Poker Squares endgame solver per position, by number of empty cells.

Positions come from games of ``expectimax_cross`` (exact two-ply search,
deterministic) on the deals of ``gamut squares eval --seed SEED``, stopped
when ``k`` cells are empty and the next card is dealt; each position is
solved for every cell of that card (``endgame.state_move_values``, the work
of the ``endgame`` option at one move). The solver is compiled first; the
CPU time of the process (``time.process_time``) is taken, so other work on a
shared machine slows the figures less than wall time would. Prints one JSON
line per ``k``: median, mean and max seconds over the positions.

    python -m gamut.experiments.studies.poker_squares_endgame_speed --empties 4,5,6 --positions 20
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

DESCRIPTION = "CPU seconds of the exact Poker Squares endgame solver per position, by empty cells"


def add_arguments(parser) -> None:
    parser.add_argument("--empties", default="4,5,6", help="numbers of empty cells, comma-separated, 1..8")
    parser.add_argument("--positions", type=int, default=20, help="positions per number of empty cells")
    parser.add_argument("--scoring", default="american", help="american or english")
    parser.add_argument("--seed", type=int, default=2026, help="deal seed (gamut squares eval --seed)")


def run(args) -> list[dict]:
    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.envs.poker_squares import kernels as K
    from gamut.solvers.bots import make_bot
    from gamut.solvers.poker_squares.endgame import MAX_EMPTY, endgame_move_values, state_move_values
    from gamut.solvers.poker_squares.evaluation import deals

    empties = [int(x) for x in str(args.empties).split(",")]
    if any(not 1 <= k <= MAX_EMPTY for k in empties) or args.positions < 1:
        raise ValueError(f"--empties takes numbers 1..{MAX_EMPTY} and --positions >= 1")
    game = pyspiel.load_game("poker_squares", {"scoring": args.scoring})
    bot = make_bot(game, "expectimax_cross", player=0, seed=1)
    warm = np.arange(K.NUM_CELLS, dtype=np.int64)
    warm[[0, 6, 12]] = -1
    endgame_move_values(warm, 50, np.arange(K.NUM_CELLS, 50), game.cfg)
    out = []
    for k in empties:
        seconds = []
        for deal in deals(args.seed, args.positions):
            state = game.new_initial_state()
            nxt = 0
            while True:
                if state.is_chance_node():
                    state.apply_action(int(deal[nxt]))
                    nxt += 1
                elif K.NUM_CELLS - state.state[K.S_NUM_PLACED] == k:
                    break
                else:
                    state.apply_action(bot.step(state))
            started = time.process_time()
            state_move_values(state.state, 0, game.cfg)
            seconds.append(time.process_time() - started)
        out.append({"scoring": args.scoring, "empties": k, "positions": args.positions, "seed": args.seed,
                    "median_cpu_s": float(np.median(seconds)), "mean_cpu_s": float(np.mean(seconds)),
                    "max_cpu_s": float(np.max(seconds))})
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    add_arguments(parser)
    for row in run(parser.parse_args()):
        print(json.dumps(row), flush=True)
