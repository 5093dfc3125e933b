"""``gamut bench <name>``: run one speed benchmark from ``benchmarks/``.

Each benchmark module defines ``DESCRIPTION``, ``add_arguments(parser)`` and
``run(args) -> dict``; the dict is printed (and written as one JSON line under
``results/benchmarks/<name>.jsonl``) by this command.
"""

from __future__ import annotations

import argparse
import importlib
import os
from pathlib import Path

from gamut.envs.registry import declarations
from gamut.experiments.cli_output import add_json_flag, add_quiet_flag, emit_result, notice
from gamut.experiments.validate import (
    INT64_MAX,
    MAX_ITERATIONS,
    check_output,
    load_game_flag,
    memory_count,
    output_folder,
    whole,
)

# name -> module of the benchmarks of every game; each game's own come from its declaration.
GENERIC_BENCHMARKS = {
    "cfr": "gamut.benchmarks.cfr",
    "ismcts": "gamut.benchmarks.ismcts",
    "hands": "gamut.benchmarks.hands",
    "vector": "gamut.benchmarks.vector",
    "play_agents": "gamut.benchmarks.play_agents",
    "network_agents": "gamut.benchmarks.network_agents",
}


def benchmarks() -> dict[str, str]:
    """``{name: module}`` of every benchmark: the generic ones, then each declared game's.

    A game's are those its declaration names and those each of them lists in
    its ``MORE_BENCHMARKS`` (``{name: module}``): a game's results are
    fingerprinted with its declaration's source, so a benchmark added there
    would mark them all stale, and one added beside a declared one does not.
    """
    found = dict(GENERIC_BENCHMARKS)
    for declaration in declarations().values():
        for name, module_name in declaration.benchmarks.items():
            found[name] = module_name
            found.update(getattr(importlib.import_module(module_name), "MORE_BENCHMARKS", {}))
    return found


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="speed benchmarks: ours beside the baseline, in one run",
        description=__doc__.split("\n\n")[0],
    )
    names = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    for name, module_name in benchmarks().items():
        # Benchmark modules keep heavy imports inside run(), so importing them here is cheap.
        module = importlib.import_module(module_name)
        summary = module.DESCRIPTION.strip().split("\n")[0].rstrip(".:")
        sub = names.add_parser(name, help=summary, description=module.DESCRIPTION)
        sub.set_defaults(handler=_run, benchmark_module=module_name)
        sub.add_argument(
            "--out",
            type=output_folder,
            default="results/benchmarks",
            help="folder for the JSON-lines record (default: %(default)s; '' to skip writing)",
        )
        add_json_flag(sub)
        add_quiet_flag(sub)
        module.add_arguments(sub)
        _counts_are_whole(sub)


# Integer flags of the benchmarks that may be 0: seeds, untimed warm-up, and the optional MCCFR part of cfr.
MAY_BE_ZERO = ("seed", "warmup", "mccfr_iterations")
# Timed repeats of a benchmark: its median is steady long before this many.
MAX_REPEATS = 1000


def _counts_are_whole(parser: argparse.ArgumentParser) -> None:
    """A benchmark's integer flags are sizes (>= 1), or those of MAY_BE_ZERO (>= 0).

    Hands, deals and games are held in arrays of at least a byte each, so a
    count beyond this machine's memory is refused before the benchmark starts;
    iterations and steps (timed beside a baseline's, often much slower) are at
    most MAX_ITERATIONS, repeats at most MAX_REPEATS.
    """
    for action in parser._actions:
        if action.type is not int:
            continue
        high = MAX_ITERATIONS if "iterations" in action.dest or "steps" in action.dest else \
            MAX_REPEATS if action.dest == "repeats" else INT64_MAX
        if action.dest in MAY_BE_ZERO:
            action.type = whole(0, high)
        elif any(word in action.dest for word in ("hands", "deals", "games")):
            action.type = memory_count(1)
        else:
            action.type = whole(1, high)


def _run(args: argparse.Namespace) -> int:
    from gamut.experiments.bench_record import append_record

    module = importlib.import_module(args.benchmark_module)
    if getattr(args, "game", None) is not None:
        load_game_flag(args.game, "--game")
    if args.out:
        check_output(Path(args.out) / f"{args.benchmark}.jsonl", "--out")
    notice(args, f"benchmark {args.benchmark}: timing ours beside the baseline...")
    # Other processes slow every rate down (the baseline's and ours alike, but not always equally):
    # each record says how loaded the machine was.
    load_before = os.getloadavg()[0]
    result = module.run(args)
    result = {**result, "load_average_1min_before": load_before, "load_average_1min_after": os.getloadavg()[0]}
    if args.out:
        path = append_record(args.out, args.benchmark, result)
        print(f"recorded in {path}")
    emit_result(result, args.json)
    return 0
