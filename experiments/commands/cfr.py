"""``gamut cfr``: solve a two-player zero-sum game with a CFR-family algorithm.

Tabular algorithms (cfr, cfr+, dcfr, linear) extract the game into arrays once
and report the exact exploitability of the average policy; MCCFR (es-mccfr,
os-mccfr) walks states through pyspiel and reports the exact exploitability
when the game is small enough to extract (``--max-nodes``), otherwise null,
and on request (``--br-episodes``) a sampled lower bound with its 95% CI.
"""

from __future__ import annotations

import argparse
import sys

from gamut.experiments.cli_output import add_json_flag, emit_result

ALGORITHMS = ("cfr", "cfr+", "dcfr", "linear", "es-mccfr", "os-mccfr")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "cfr",
        help="solve a two-player zero-sum game with CFR, CFR+, DCFR, linear CFR or MCCFR",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("--game", required=True, help="pyspiel game string, e.g. kuhn_poker or leduc_poker()")
    parser.add_argument("--algo", choices=ALGORITHMS, default="cfr+", help="algorithm (default: %(default)s)")
    parser.add_argument("--iterations", type=int, default=1000,
                        help="total iterations; a resumed run continues up to this count (default: %(default)s)")
    parser.add_argument("--checkpoint", help="checkpoint file (.npz), written periodically and at the end")
    parser.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    parser.add_argument("--checkpoint-every", type=int, metavar="N", help="checkpoint every N iterations")
    parser.add_argument("--checkpoint-minutes", type=float, metavar="M", help="checkpoint every M minutes")
    for flag, default, meaning in (("--alpha", 1.5, "positive-regret discount exponent"),
                                   ("--beta", 0.0, "negative-regret discount exponent"),
                                   ("--gamma", 2.0, "average-policy weight exponent")):
        parser.add_argument(flag, type=float, default=default, help=f"dcfr: {meaning} (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="MCCFR seed (default: %(default)s)")
    parser.add_argument("--exploration", type=float, default=0.6,
                        help="os-mccfr exploration of the updating player (default: %(default)s)")
    parser.add_argument("--max-nodes", type=int, default=5_000_000,
                        help="refuse to extract games with more histories (default: %(default)s)")
    parser.add_argument("--br-episodes", type=int, default=0,
                        help="MCCFR on a game too large to extract: estimate a lower bound on exploitability with "
                             "a sampled best response evaluated over this many games per seat (default: 0, off)")
    parser.add_argument("--br-iterations", type=int, default=2000,
                        help="training traversals of that sampled best response (default: %(default)s)")
    parser.add_argument("--save-policy", metavar="PATH", help="write the average policy (.npz with metadata)")
    add_json_flag(parser)
    parser.set_defaults(handler=run_cfr)


def run_cfr(args: argparse.Namespace) -> int:
    if args.iterations < 0:
        raise ValueError(f"--iterations must be >= 0, got {args.iterations}")
    if args.resume and not args.checkpoint:
        raise ValueError("--resume needs --checkpoint PATH")
    if args.checkpoint_minutes is not None and args.checkpoint_minutes <= 0:
        raise ValueError(f"--checkpoint-minutes must be positive, got {args.checkpoint_minutes}")
    if args.checkpoint_every is not None and args.checkpoint_every <= 0:
        raise ValueError(f"--checkpoint-every must be positive, got {args.checkpoint_every}")
    if args.algo != "dcfr" and (args.alpha, args.beta, args.gamma) != (1.5, 0.0, 2.0):
        raise ValueError(f"--alpha/--beta/--gamma apply to --algo dcfr only, not {args.algo}")
    if args.br_episodes < 0 or args.br_episodes == 1 or args.br_iterations < 1:
        raise ValueError("--br-episodes must be 0 (off) or >= 2, and --br-iterations >= 1")

    import time

    from gamut.solvers.cfr.best_response import exploitability, policy_value
    from gamut.solvers.cfr.checkpoint import train
    from gamut.solvers.cfr.extract import (
        check_two_player_zero_sum,
        estimate_num_nodes,
        extract_game,
        load_game_string,
    )
    from gamut.solvers.cfr.mccfr import MCCFR
    from gamut.solvers.cfr.policy_io import TabularStrategy, save_strategy
    from gamut.solvers.cfr.sampled_best_response import sampled_exploitability
    from gamut.solvers.cfr.tabular import TabularCFR

    game = load_game_string(args.game)
    check_two_player_zero_sum(game)
    result = {"game": str(game), "algorithm": args.algo}
    tree = None
    if args.algo in ("es-mccfr", "os-mccfr"):
        scheme = "external" if args.algo == "es-mccfr" else "outcome"
        solver = MCCFR(game, scheme, seed=args.seed, exploration=args.exploration)
        result["seed"] = args.seed
    else:
        start = time.perf_counter()
        tree = extract_game(game, max_nodes=args.max_nodes)
        result["extraction_seconds"] = time.perf_counter() - start
        solver = TabularCFR(tree, args.algo, alpha=args.alpha, beta=args.beta, gamma=args.gamma)
    every_seconds = None if args.checkpoint_minutes is None else 60.0 * args.checkpoint_minutes
    run = train(solver, args.iterations, checkpoint=args.checkpoint, resume=args.resume,
                every_iterations=args.checkpoint_every, every_seconds=every_seconds,
                progress=sys.stderr.isatty())

    if tree is None and estimate_num_nodes(game) <= args.max_nodes:
        try:
            tree = extract_game(game, max_nodes=args.max_nodes)
        except ValueError:
            tree = None  # larger than estimated: report no exact exploitability rather than fail after training
    if tree is None:
        strategy = TabularStrategy.from_table(str(game), solver.average_policy())
        result["exploitability"] = None
        result["game_value"] = None
        result["note"] = "game too large to extract for an exact best response (raise --max-nodes)"
        if args.br_episodes:
            bound = sampled_exploitability(game, strategy, args.br_iterations, args.br_episodes, args.seed)
            result["exploitability_lower_bound"] = bound.mean
            result["exploitability_lower_bound_ci95"] = bound.ci95
            result["exploitability_lower_bound_games"] = bound.samples
    else:
        if isinstance(solver, TabularCFR):
            strategy = TabularStrategy.from_tree(tree, solver.average_policy())
        else:
            strategy = TabularStrategy.from_table(str(game), solver.average_policy())
        average = strategy.on_tree(tree)
        result["exploitability"] = exploitability(tree, average)
        result["game_value"] = policy_value(tree, average)
    result.update({
        "iterations": run["iterations"],
        "iterations_run": run["iterations_run"],
        "resumed_from": run["resumed_from"],
        "seconds": run["seconds"],
        "iterations_per_s": run["iterations_run"] / run["seconds"] if run["seconds"] > 0 else None,
    })
    if args.checkpoint:
        result["checkpoint"] = args.checkpoint
    if args.save_policy:
        strategy.metadata.update({k: result[k] for k in ("algorithm", "iterations", "exploitability")})
        result["policy_file"] = str(save_strategy(args.save_policy, strategy))
    emit_result(result, args.json)
    return 0
