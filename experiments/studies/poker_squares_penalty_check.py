"""A candidate penalty table against the shipped one, paired on held-out deals of Poker Squares.

For deals ``--first`` .. ``--first + --deals - 1`` of ``gamut squares eval
--seed SEED`` (seed 777 by default, the tuning deals; never the reported
2026): the deal's duality bound with the shipped fitted table at its
published scale (``scale_<scoring>`` of the ``poker_squares_bounds``
config) and with the candidate table (``--table``, an npz written by
``python -m gamut.solvers.poker_squares.penalty_fit``) at ``--scale``. Both
start from the same annealed arrangement and use the same inner bound
(``--inner dw``, or ``bnp`` with ``--nodes``). Prints one JSON line per deal
and a last line with both means and the paired differences (candidate minus
shipped, 95% intervals) of the bound and of the best relaxed arrangement
found. A table fitted on other deals that lowers the bound here is worth
shipping; the reported deals decide nothing.

    python -m gamut.experiments.studies.poker_squares_penalty_check --table draw.npz --scale 1.75 --deals 100
"""

from __future__ import annotations

import argparse
import json

DESCRIPTION = "A candidate Poker Squares penalty table against the shipped one, paired on held-out deals"


def add_arguments(parser) -> None:
    parser.add_argument("--scoring", default="american", choices=("american", "english"))
    parser.add_argument("--table", required=True, help="candidate table: npz with 'points' and 'values'")
    parser.add_argument("--scale", type=float, required=True, help="the candidate's penalty scale")
    parser.add_argument("--seed", type=int, default=777, help="deal seed (gamut squares eval --seed; not 2026)")
    parser.add_argument("--first", type=int, default=0, help="first deal of the sequence")
    parser.add_argument("--deals", type=int, default=100, help="deals, from --first")
    parser.add_argument("--inner", default="dw", choices=("dw", "bnp"), help="bound on each relaxed problem")
    parser.add_argument("--nodes", type=int, default=40, help="branch-and-price nodes per deal (--inner bnp)")


def load_candidate(path, scoring: str):
    """The ``values`` of a candidate table (float64 (NUM_KEYS,)), checked against the point system."""
    import numpy as np

    from gamut.solvers.poker_squares.penalty_table import _POINTS, NUM_KEYS

    with np.load(path, allow_pickle=False) as saved:
        if "points" not in saved or "values" not in saved:
            raise ValueError(f"{path}: a penalty table holds 'points' and 'values' (penalty_fit --out)")
        points, values = saved["points"], saved["values"].astype(np.float64)
    if tuple(int(p) for p in points) != _POINTS[scoring]:
        raise ValueError(f"{path} is a table of points {tuple(int(p) for p in points)}, not of {scoring}")
    if values.shape != (NUM_KEYS,) or not np.isfinite(values).all():
        raise ValueError(f"{path}: values must be {NUM_KEYS} finite numbers, got shape {values.shape}")
    return values


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
    from gamut.solvers.stats import paired_diff_ci

    if args.deals < 1 or args.first < 0 or args.nodes < 1 or args.scale < 0:
        raise ValueError("--deals and --nodes must be >= 1, --first and --scale >= 0")
    if args.seed == 2026:
        raise ValueError("--seed 2026 gives the reported deals: check a table on other deals")
    candidate = load_candidate(args.table, args.scoring)
    params = tomllib.loads((CONFIG_DIR / "poker_squares_bounds.toml").read_text())["params"]
    shipped_scale = float(params[f"scale_{args.scoring}"])
    shipped = load_penalty_values(args.scoring, "fitted")
    game = pyspiel.load_game("poker_squares", {"scoring": args.scoring})
    rows = []
    for i, deal in list(enumerate(deals(args.seed, args.first + args.deals)))[args.first:]:
        grid = anneal(deal, game.cfg, 20_000, 1, seed=i)[1]
        row = {"deal": i}
        for name, values, scale in (("shipped", shipped, shipped_scale), ("candidate", candidate, args.scale)):
            res = duality_bound(deal, game.cfg, values, scale, grid, inner=args.inner, nodes=args.nodes)
            row[name] = res["upper"]
            row[f"{name}_found"] = res["value"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    summary = {"scoring": args.scoring, "table": str(args.table), "scale": args.scale, "shipped_scale": shipped_scale,
               "seed": args.seed, "first": args.first, "deals": args.deals, "inner": args.inner}
    if args.inner == "bnp":
        summary["nodes"] = args.nodes
    summary.update(mean_intervals(rows, ("shipped", "candidate", "shipped_found", "candidate_found")))
    for key in ("", "_found"):
        diff = paired_diff_ci([r[f"candidate{key}"] for r in rows], [r[f"shipped{key}"] for r in rows])
        summary[f"candidate_minus_shipped{key}"] = [diff.value, diff.ci95_low, diff.ci95_high]
    print(json.dumps(summary), flush=True)
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    add_arguments(parser)
    run(parser.parse_args())
