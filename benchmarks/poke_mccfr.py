"""External-sampling MCCFR iterations per second on a Poke deal: our kernel walker vs OpenSpiel's Python solver.

Both run external sampling on the same game string without abstraction (the
information-state string is the key): ours is ``gamut.solvers.cfr.mccfr.MCCFR``
over ``gamut.solvers.poke.walker.PokeWalker`` (kernel arrays instead of pyspiel
states; it reproduces MCCFR through the pyspiel API exactly), the baseline
``open_spiel.python.algorithms.external_sampling_mccfr.ExternalSamplingSolver``
through the pyspiel API. Ours is timed twice: with the game's string keys
(tables interchangeable with MCCFR through pyspiel) and with compact keys
(``information_key``: the same information sets, cheaper to build). All warm up first (kernels compiled or loaded, table
entries created); each repeat then times ``--iterations`` more iterations of
each, interleaved; medians are reported. For reference it also times our MCCFR
through the pyspiel API (``PyspielWalker``), which isolates the walker's gain.
"""

from __future__ import annotations

import statistics
import time

from gamut.experiments.validate import load_game_flag

DESCRIPTION = "ES-MCCFR on a Poke deal: our kernel walker vs OpenSpiel's Python ExternalSamplingSolver (iterations/s)"

DEFAULT_GAME = "poke(hand_size=2,num_ranks=3,num_suits=2,trick_value=34.0)"


def add_arguments(parser) -> None:
    parser.add_argument("--game", default=DEFAULT_GAME, help="poke deal game string (default: %(default)s)")
    parser.add_argument("--iterations", type=int, default=200,
                        help="iterations per timed repeat (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats (default: %(default)s)")
    parser.add_argument("--warmup", type=int, default=50, help="untimed iterations first (default: %(default)s)")


def _rate(run, iterations: int) -> float:
    start = time.perf_counter()
    run(iterations)
    return iterations / (time.perf_counter() - start)


def run(args) -> dict:
    from open_spiel.python.algorithms.external_sampling_mccfr import ExternalSamplingSolver

    import gamut.envs  # noqa: F401  (registers poke)
    from gamut.solvers.cfr.mccfr import MCCFR
    from gamut.solvers.poke.walker import PokeWalker

    if args.iterations < 1 or args.repeats < 1 or args.warmup < 0:
        raise ValueError("--iterations and --repeats must be >= 1 and --warmup >= 0")
    game = load_game_flag(args.game, "--game")
    ours = MCCFR(PokeWalker(game), seed=0)
    compact = MCCFR(PokeWalker(game, keys="compact"), seed=0)
    api = MCCFR(game, seed=0)
    theirs = ExternalSamplingSolver(game)

    def run_theirs(n):
        for _ in range(n):
            theirs.iteration()

    solvers = {"ours_kernel_walker": ours.run, "ours_kernel_walker_compact_keys": compact.run,
               "ours_pyspiel_walker": api.run, "openspiel_python": run_theirs}
    for step in solvers.values():
        step(args.warmup)
    rates = {name: [] for name in solvers}
    for _ in range(args.repeats):
        for name, step in solvers.items():
            rates[name].append(_rate(step, args.iterations))
    medians = {name: statistics.median(values) for name, values in rates.items()}
    return {
        "game": str(game),
        "iterations": args.iterations,
        "repeats": args.repeats,
        "ours_iterations_per_s": medians["ours_kernel_walker"],
        "ours_compact_keys_iterations_per_s": medians["ours_kernel_walker_compact_keys"],
        "ours_pyspiel_walker_iterations_per_s": medians["ours_pyspiel_walker"],
        "openspiel_python_iterations_per_s": medians["openspiel_python"],
        "ratio_vs_openspiel": medians["ours_kernel_walker"] / medians["openspiel_python"],
        "ratio_vs_pyspiel_walker": medians["ours_kernel_walker"] / medians["ours_pyspiel_walker"],
        "ratio_compact_keys_vs_openspiel": medians["ours_kernel_walker_compact_keys"] / medians["openspiel_python"],
    }
