"""CPU seconds of branch and price on Poker Squares relaxed problems: primal against dual simplex side LPs.

Branch and price (``partition_bnp.bnp_bound``) spends most of its time
pricing: each column-generation step finds the best row partition and the
best column partition of the 25 positions, each guided by a side LP
(``partition_dw.SideLP``) whose objective alone changes from step to step.
Ours resumes those LPs with the primal simplex (the last basis stays primal
feasible); the baseline is HiGHS's default, the dual simplex. Both solve the
same relaxed problems (those of ``gamut run poker_squares_upper_bound``:
score minus the fitted penalty, from an annealed arrangement) on the deals of
``gamut squares eval --seed SEED``, taking turns on which goes first. Numba
compiles before the clock starts. Reported: each side's median CPU seconds a
deal, the median of the per-deal ratios (dual over primal) and the ratio of
the totals, and each side's mean bound with the deals where the two differ.
Both bounds are valid; they differ where the node limit stops a search that
has not proved its problem, because the side LPs are degenerate (many dual
optima), so the two methods can price, and then branch, differently.
"""

from __future__ import annotations

import time

DESCRIPTION = "branch and price on Poker Squares relaxed problems: primal against dual simplex side LPs (CPU s)"


def add_arguments(parser) -> None:
    parser.add_argument("--scoring", default="american", choices=("american", "english"),
                        help="point system (default: %(default)s)")
    parser.add_argument("--deals", type=int, default=6, help="deals, from the first (default: %(default)s)")
    parser.add_argument("--nodes", type=int, default=120, help="branch-and-price nodes a deal (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=777,
                        help="deal seed, as gamut squares eval --seed (default: %(default)s, the tuning deals)")


def run(args) -> dict:
    import numpy as np
    import pyspiel

    import gamut.envs  # noqa: F401  (registers poker_squares)
    from gamut.envs.poker_squares import kernels as K
    from gamut.experiments.experiment import load_experiment
    from gamut.solvers.poker_squares.bounds import anneal
    from gamut.solvers.poker_squares.duality import penalized_weights, positions_grid, relaxed_start
    from gamut.solvers.poker_squares.evaluation import deals
    from gamut.solvers.poker_squares.partition import SETS
    from gamut.solvers.poker_squares.partition_bnp import bnp_bound
    from gamut.solvers.poker_squares.partition_dw import SideLP
    from gamut.solvers.poker_squares.penalty_table import load_penalty_values

    # The scale the bounds experiment tuned, read through its checked config.
    scale = float(load_experiment("poker_squares_bounds", "full").config.params[f"scale_{args.scoring}"])
    game = pyspiel.load_game("poker_squares", {"scoring": args.scoring})
    values = load_penalty_values(args.scoring, "fitted")
    problems = []
    for i, deal in enumerate(deals(args.seed, args.deals)):
        weights = penalized_weights(deal, game.cfg, values, scale)
        grid = anneal(deal, game.cfg, 20_000, 1, seed=i)[1]
        problems.append((weights, relaxed_start(weights, game.cfg, positions_grid(deal, grid))))

    def solve(simplex: str, weights, start, nodes: int) -> tuple[float, float]:
        sides = (SideLP(SETS, K.NUM_CELLS, simplex), SideLP(SETS, K.NUM_CELLS, simplex))
        started = time.process_time()
        upper = bnp_bound(weights, start, max_nodes=nodes, sides=sides)["upper"]
        return time.process_time() - started, upper

    for simplex in ("dual", "primal"):
        solve(simplex, *problems[0], 1)  # compiles the Numba kernels and loads HiGHS, untimed
    seconds = {"dual": [], "primal": []}
    uppers = {"dual": [], "primal": []}
    for i, problem in enumerate(problems):
        for simplex in (("dual", "primal") if i % 2 == 0 else ("primal", "dual")):
            spent, upper = solve(simplex, *problem, args.nodes)
            seconds[simplex].append(spent)
            uppers[simplex].append(upper)
    dual, primal = np.array(seconds["dual"]), np.array(seconds["primal"])
    return {
        "scoring": args.scoring,
        "deals": args.deals,
        "nodes": args.nodes,
        "seed": args.seed,
        "penalty_scale": scale,
        "ours_primal_median_cpu_s_a_deal": float(np.median(primal)),
        "baseline_dual_median_cpu_s_a_deal": float(np.median(dual)),
        "median_ratio_dual_over_primal": float(np.median(dual / primal)),
        "total_ratio_dual_over_primal": float(dual.sum() / primal.sum()),
        "mean_upper_primal": float(np.mean(uppers["primal"])),
        "mean_upper_dual": float(np.mean(uppers["dual"])),
        "deals_with_different_bounds": int(np.sum(~np.isclose(uppers["dual"], uppers["primal"], rtol=0,
                                                               atol=1e-6))),
    }
