"""``gamut cfr``: solve a two-player zero-sum game with a CFR-family algorithm.

Tabular algorithms (cfr, cfr+, dcfr, linear) extract the game into arrays once
and report the exact exploitability of the average policy; MCCFR (es-mccfr,
os-mccfr) walks states through pyspiel and reports the exact exploitability
when the game is small enough to extract (``--max-nodes``), otherwise null,
and on request (``--br-episodes``) a sampled lower bound with its 95% CI.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gamut.experiments.cli_output import (
    add_json_flag,
    add_quiet_flag,
    emit_result,
    notice,
    progress_wanted,
)
from gamut.experiments.validate import (
    LONG_RUN_SECONDS,
    MAX_ITERATIONS,
    check_long_run,
    duration,
    load_game_flag,
    measured_rate,
    output_file,
    real,
    seed,
    whole,
)

ALGORITHMS = ("cfr", "cfr+", "dcfr", "linear", "es-mccfr", "os-mccfr")
# The tabular solvers' documented speed: CFR+ updates Leduc poker's ~9,500 histories about 3,900 times a
# second on 2 cores (results/benchmarks/cfr.jsonl), some 37 million history updates a second.
HISTORY_UPDATES_PER_SECOND = 3.7e7
# Runs of at most this many iterations are not timed: they take seconds on any game the solvers can hold.
QUICK_ITERATIONS = 1000


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "cfr",
        help="solve a two-player zero-sum game with CFR, CFR+, DCFR, linear CFR or MCCFR",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("--game", required=True, help="pyspiel game string, e.g. kuhn_poker or leduc_poker()")
    parser.add_argument("--algo", choices=ALGORITHMS, default="cfr+", help="algorithm (default: %(default)s)")
    parser.add_argument("--iterations", type=whole(0, MAX_ITERATIONS), default=1000,
                        help=f"total iterations, at most {MAX_ITERATIONS:,}; a resumed run continues up to this "
                             f"count, never below the checkpoint's. A run expected to take over "
                             f"{duration(LONG_RUN_SECONDS)} (at the benchmarked speed of the tabular solvers, or "
                             f"the speed MCCFR measures on the game) needs --checkpoint (default: %(default)s)")
    parser.add_argument("--checkpoint", type=output_file,
                        help="checkpoint file (.npz), written periodically and at the end")
    parser.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    parser.add_argument("--checkpoint-every", type=whole(1), metavar="N", help="checkpoint every N iterations")
    parser.add_argument("--checkpoint-minutes", type=real(0, above=True), metavar="M",
                        help="checkpoint every M minutes")
    for flag, default, meaning in (("--alpha", 1.5, "positive-regret discount exponent"),
                                   ("--beta", 0.0, "negative-regret discount exponent"),
                                   ("--gamma", 2.0, "average-policy weight exponent")):
        parser.add_argument(flag, type=float, default=default, help=f"dcfr: {meaning} (default: %(default)s)")
    parser.add_argument("--seed", type=seed, default=0, help="MCCFR seed (default: %(default)s)")
    parser.add_argument("--exploration", type=real(0, 1, above=True), default=0.6,
                        help="os-mccfr exploration of the updating player (default: %(default)s)")
    parser.add_argument("--max-nodes", type=whole(1), default=5_000_000,
                        help="refuse to extract games with more histories (default: %(default)s)")
    parser.add_argument("--br-episodes", type=whole(0, MAX_ITERATIONS), default=0,
                        help="MCCFR on a game too large to extract: estimate a lower bound on exploitability with "
                             f"a sampled best response evaluated over this many games per seat, at most "
                             f"{MAX_ITERATIONS:,} (default: 0, off)")
    parser.add_argument("--br-iterations", type=whole(1, MAX_ITERATIONS), default=2000,
                        help=f"training traversals of that sampled best response, at most {MAX_ITERATIONS:,} "
                             "(default: %(default)s)")
    parser.add_argument("--save-policy", metavar="PATH", type=output_file,
                        help="write the average policy (.npz with metadata)")
    add_json_flag(parser)
    add_quiet_flag(parser)
    parser.set_defaults(handler=run_cfr)


def run_cfr(args: argparse.Namespace) -> int:
    if args.resume and not args.checkpoint:
        raise ValueError("--resume needs --checkpoint PATH")
    if args.resume and not Path(args.checkpoint).is_file():
        raise ValueError(f"--resume: the checkpoint {args.checkpoint!r} does not exist")
    if args.resume:
        from gamut.solvers.cfr.checkpoint import require_reachable_total

        # Before the game is extracted: --iterations is a total, never below the checkpoint's.
        require_reachable_total(args.checkpoint, args.iterations)
    if args.algo != "dcfr" and (args.alpha, args.beta, args.gamma) != (1.5, 0.0, 2.0):
        raise ValueError(f"--alpha/--beta/--gamma apply to --algo dcfr only, not {args.algo}")
    if args.br_episodes == 1:
        raise ValueError("--br-episodes must be 0 (off) or >= 2")

    import time

    import gamut.envs  # noqa: F401  (registers the toolkit's games with pyspiel)
    from gamut.solvers.cfr.best_response import exploitability, policy_value
    from gamut.solvers.cfr.checkpoint import train
    from gamut.solvers.cfr.extract import (
        check_two_player_zero_sum,
        estimate_num_nodes,
        extract_game,
    )
    from gamut.solvers.cfr.mccfr import MCCFR
    from gamut.solvers.cfr.policy_io import TabularStrategy, save_strategy
    from gamut.solvers.cfr.sampled_best_response import sampled_exploitability
    from gamut.solvers.cfr.tabular import TabularCFR

    game = load_game_flag(args.game, "--game")
    try:
        check_two_player_zero_sum(game)
    except ValueError as err:
        raise ValueError(f"--game: {err}") from None
    if not args.checkpoint and args.iterations > QUICK_ITERATIONS:
        _check_duration(game, args)
    # The size of an extraction is news on a terminal, noise in a pipe or with --quiet.
    report = (lambda text: notice(args, text)) if progress_wanted(args) else None
    result = {"game": str(game), "algorithm": args.algo}
    tree = None
    if args.algo in ("es-mccfr", "os-mccfr"):
        scheme = "external" if args.algo == "es-mccfr" else "outcome"
        solver = MCCFR(game, scheme, seed=args.seed, exploration=args.exploration)
        result["seed"] = args.seed
    else:
        start = time.perf_counter()
        tree = extract_game(game, max_nodes=args.max_nodes, report=report)
        result["extraction_seconds"] = time.perf_counter() - start
        solver = TabularCFR(tree, args.algo, alpha=args.alpha, beta=args.beta, gamma=args.gamma)
    every_seconds = None if args.checkpoint_minutes is None else 60.0 * args.checkpoint_minutes
    run = train(solver, args.iterations, checkpoint=args.checkpoint, resume=args.resume,
                every_iterations=args.checkpoint_every, every_seconds=every_seconds,
                progress=progress_wanted(args))

    if tree is None and estimate_num_nodes(game) <= args.max_nodes:
        try:
            tree = extract_game(game, max_nodes=args.max_nodes, report=report)
        except ValueError:
            tree = None  # larger than estimated: report no exact exploitability rather than fail after training
    if tree is None:
        strategy = TabularStrategy.from_table(str(game), solver.average_policy())
        result["exploitability"] = None
        result["game_value"] = None
        result["note"] = "game too large to extract for an exact best response (raise --max-nodes)"
        if args.br_episodes:
            notice(args, f"sampled best response: {args.br_iterations:,} training traversals and "
                         f"{args.br_episodes:,} games per seat...")
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


def _check_duration(game, args: argparse.Namespace) -> None:
    """Refuse a run without --checkpoint expected to take over LONG_RUN_SECONDS, before the game is extracted.

    Tabular algorithms are timed from the estimated number of histories and the
    benchmarked update rate; MCCFR, whose iterations vary with the game's
    depth, from a quarter of a second of a throwaway solver on this game.
    """
    from gamut.solvers.cfr.extract import estimate_num_nodes
    from gamut.solvers.cfr.mccfr import MCCFR

    if args.algo in ("es-mccfr", "os-mccfr"):
        scheme = "external" if args.algo == "es-mccfr" else "outcome"
        per_second = measured_rate(MCCFR(game, scheme, seed=args.seed, exploration=args.exploration).run)
        rate = f"the {per_second:,.0f} iterations a second {args.algo} measures on this game here"
    else:
        nodes = estimate_num_nodes(game)
        if nodes > args.max_nodes:
            return  # the extraction refuses it, naming --max-nodes
        per_second = HISTORY_UPDATES_PER_SECOND / nodes
        rate = (f"about {per_second:,.0f} iterations a second (some {nodes:,.0f} histories, updated "
                f"{HISTORY_UPDATES_PER_SECOND:,.0f} times a second as benchmarked on Leduc poker)")
    check_long_run(args.iterations, per_second, rate, "--iterations", "--checkpoint")
