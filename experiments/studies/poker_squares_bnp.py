"""How much branch and price lowers the Dantzig-Wolfe bound of Poker Squares relaxed problems, deal by deal.

For each of the first ``--deals`` deals of ``gamut squares eval --seed SEED``:
the relaxed problem of the duality bound (score minus the penalty of
``--penalty`` at ``--scale``, as ``gamut run poker_squares_bounds`` builds
it), an annealed arrangement to start from, then ``partition_bnp.bnp_bound``
with ``--nodes`` nodes. Prints one JSON line per deal (the best relaxed
arrangement found, the root's Dantzig-Wolfe bound, the branch-and-price
bound, nodes, CPU seconds) and a last line with the means and their 95%
intervals. Use tuning deals (seed 777, the default), not the reported ones,
to decide whether the method is worth a full run.

    python -m gamut.experiments.studies.poker_squares_bnp --scoring american --deals 4 --nodes 40
"""

from __future__ import annotations

import argparse
import json
import time

DESCRIPTION = "Branch and price against the Dantzig-Wolfe bound on Poker Squares relaxed problems"


def add_arguments(parser) -> None:
    parser.add_argument("--scoring", default="american", choices=("american", "english"))
    parser.add_argument("--seed", type=int, default=777, help="deal seed (gamut squares eval --seed)")
    parser.add_argument("--deals", type=int, default=4, help="deals, from the first")
    parser.add_argument("--nodes", type=int, default=40, help="nodes per deal, >= 1 (1: the Dantzig-Wolfe bound)")
    parser.add_argument("--penalty", default="fitted", choices=("learned", "fitted"), help="penalty table")
    parser.add_argument("--scale", type=float, default=None,
                        help="penalty scale (default: scale_<scoring> of the poker_squares_bounds config)")


def run(args) -> list[dict]:
    import tomllib

    import pyspiel

    import gamut.envs  # noqa: F401
    from gamut.experiments.config import CONFIG_DIR
    from gamut.solvers.poker_squares.bounds import anneal
    from gamut.solvers.poker_squares.duality import duality_bound
    from gamut.solvers.poker_squares.evaluation import deals
    from gamut.solvers.poker_squares.penalty_table import load_penalty_values
    from gamut.experiments.studies import mean_intervals

    if args.deals < 1 or args.nodes < 1:
        raise ValueError("--deals and --nodes must be >= 1")
    scale = args.scale
    if scale is None:
        params = tomllib.loads((CONFIG_DIR / "poker_squares_bounds.toml").read_text())["params"]
        scale = float(params[f"scale_{args.scoring}"])
    game = pyspiel.load_game("poker_squares", {"scoring": args.scoring})
    values = load_penalty_values(args.scoring, args.penalty)
    rows = []
    for i, deal in enumerate(deals(args.seed, args.deals)):
        started = time.process_time()
        grid = anneal(deal, game.cfg, 20_000, 1, seed=i)[1]
        res = duality_bound(deal, game.cfg, values, scale, grid, inner="bnp", nodes=args.nodes)
        rows.append({"deal": i, "found": res["value"], "dw_root": res["dw_upper"], "bnp": res["upper"],
                     "nodes": res["nodes"], "proved": res["proved"], "cpu_seconds": time.process_time() - started})
        print(json.dumps(rows[-1]), flush=True)
    summary = {"scoring": args.scoring, "seed": args.seed, "deals": args.deals, "nodes": args.nodes,
               "penalty": args.penalty, "scale": scale}
    summary.update(mean_intervals(rows, ("found", "dw_root", "bnp")))
    summary.update(mean_intervals([{"root_minus_bnp": r["dw_root"] - r["bnp"]} for r in rows], ("root_minus_bnp",)))
    print(json.dumps(summary), flush=True)
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    add_arguments(parser)
    run(parser.parse_args())
