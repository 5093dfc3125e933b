"""CFR+ iterations per second: our Numba kernels vs OpenSpiel's C++ ``CFRPlusSolver``.

Both solve the same game for the same number of iterations in this run and
both exploitabilities are reported (they agree to rounding: 2.57e-4 on
leduc_poker after 1,000 iterations). Our rate excludes the one-off tree extraction, which
is reported separately; kernels are compiled/loaded by a warm-up run first.
It also times our external-sampling MCCFR (through the pyspiel API) against
OpenSpiel's Python ``ExternalSamplingSolver`` on the same game string
(``--mccfr-iterations``, 0 to skip).
"""

from __future__ import annotations

import statistics
import time

DESCRIPTION = "CFR+ on leduc_poker: our kernels vs OpenSpiel's C++ CFRPlusSolver (iterations/s, exploitability)"

TARGET_RATIO = 5.0


def add_arguments(parser) -> None:
    parser.add_argument("--game", default="leduc_poker", help="pyspiel game string (default: %(default)s)")
    parser.add_argument("--iterations", type=int, default=1000,
                        help="CFR+ iterations per repeat (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed repeats; medians are reported (default: %(default)s)")
    parser.add_argument("--mccfr-iterations", type=int, default=300,
                        help="also time external-sampling MCCFR for this many iterations (default: %(default)s; 0: off)")


def run(args) -> dict:
    import pyspiel

    from gamut.benchmarks.state_api import target_fields
    from gamut.solvers.cfr.best_response import exploitability
    from gamut.solvers.cfr.extract import extract_game, load_game_string
    from gamut.solvers.cfr.tabular import TabularCFR

    if args.iterations < 1 or args.repeats < 1 or args.mccfr_iterations < 0:
        raise ValueError("--iterations and --repeats must be >= 1 and --mccfr-iterations >= 0")
    game = load_game_string(args.game)

    start = time.perf_counter()
    tree = extract_game(game, report=None)
    extraction_seconds = time.perf_counter() - start
    TabularCFR(tree, "cfr+").run(2)  # warm-up: load or compile the kernels

    ours_seconds, theirs_seconds = [], []
    ours_exploitability = theirs_exploitability = None
    for _ in range(args.repeats):
        solver = TabularCFR(tree, "cfr+")
        start = time.perf_counter()
        solver.run(args.iterations)
        ours_seconds.append(time.perf_counter() - start)
        ours_exploitability = exploitability(tree, solver.average_policy())

        baseline = pyspiel.CFRPlusSolver(game)
        start = time.perf_counter()
        for _ in range(args.iterations):
            baseline.evaluate_and_update_policy()
        theirs_seconds.append(time.perf_counter() - start)
        theirs_exploitability = pyspiel.exploitability(game, baseline.average_policy())

    ours_rate = args.iterations / statistics.median(ours_seconds)
    theirs_rate = args.iterations / statistics.median(theirs_seconds)
    result = {
        "game": str(game),
        "iterations": args.iterations,
        "repeats": args.repeats,
        "ours_iterations_per_s": ours_rate,
        "openspiel_cpp_iterations_per_s": theirs_rate,
        **target_fields(ours_rate / theirs_rate, TARGET_RATIO),
        "ours_exploitability": ours_exploitability,
        "openspiel_cpp_exploitability": theirs_exploitability,
        "extraction_seconds": extraction_seconds,
        "num_nodes": tree.num_nodes,
        "num_infosets": tree.num_infosets,
    }
    if args.mccfr_iterations:
        result.update(_mccfr_rates(game, args.mccfr_iterations, args.repeats))
    return result


def _mccfr_rates(game, iterations: int, repeats: int) -> dict:
    from open_spiel.python.algorithms.external_sampling_mccfr import ExternalSamplingSolver

    from gamut.solvers.cfr.mccfr import MCCFR

    ours, theirs = [], []
    for repeat in range(repeats):
        solver = MCCFR(game, "external", seed=repeat)
        start = time.perf_counter()
        solver.run(iterations)
        ours.append(time.perf_counter() - start)
        baseline = ExternalSamplingSolver(game)
        start = time.perf_counter()
        for _ in range(iterations):
            baseline.iteration()
        theirs.append(time.perf_counter() - start)
    ours_rate = iterations / statistics.median(ours)
    theirs_rate = iterations / statistics.median(theirs)
    return {
        "mccfr_iterations": iterations,
        "ours_es_mccfr_iterations_per_s": ours_rate,
        "openspiel_python_es_mccfr_iterations_per_s": theirs_rate,
        "es_mccfr_ratio": ours_rate / theirs_rate,
    }
