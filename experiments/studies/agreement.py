"""What the model-agreement studies share: their command line, an agreement share with its interval, the report file.

A model-agreement study (``poke_belief_agreement``, ``palace_model_agreement``)
has ``ismcts`` play ``--deals`` games at ``--iterations`` a decision from
``--seed`` and asks each model of the other side what it would have done;
``--weights`` names the network model and ``--out`` the JSON report, which
carries the provenance of :func:`gamut.experiments.provenance.command_record`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def agreement_parser(description: str, deals: int, weights: str, weights_help: str) -> argparse.ArgumentParser:
    """The flags every agreement study takes, with its defaults (``--iterations`` 300, ``--seed`` 7)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--deals", type=int, default=deals)
    parser.add_argument("--iterations", type=int, default=300, help="ismcts iterations a decision")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--weights", default=weights, help=f"{weights_help} (default: %(default)s)")
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write")
    return parser


def checked_args(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """Parsed flags; a usage error (exit status 2) unless ``--deals`` and ``--iterations`` are >= 1."""
    args = parser.parse_args(argv)
    if args.deals < 1 or args.iterations < 1:
        parser.error(f"--deals and --iterations must be >= 1, got {args.deals} and {args.iterations}")
    return args


def uniform_chance(state, rng) -> bool:
    """At a chance node, apply one of its outcomes drawn uniformly by ``rng`` and return True; else False.

    The outcomes of the studied games' chance nodes (the next card of a
    shuffled pile) are equally likely, so a uniform draw is the game's own.
    """
    if not state.is_chance_node():
        return False
    outcomes = state.chance_outcomes()
    state.apply_action(outcomes[rng.integers(len(outcomes))][0])
    return True


def agreement(hits: list[bool]) -> dict:
    """``{"agreement", "ci95_low", "ci95_high", "n"}``: the share of ``hits`` that are true, Wilson interval."""
    from gamut.solvers.stats import proportion_ci

    est = proportion_ci(int(sum(hits)), len(hits))
    return {"agreement": est.value, "ci95_low": est.ci95_low, "ci95_high": est.ci95_high, "n": len(hits)}


def write_report(out: Path, module: str, argv: list[str], measured: dict, shown: tuple[str, ...]) -> dict:
    """Write ``measured`` and its provenance to ``out`` as JSON, print the ``shown`` keys, return the report.

    ``module`` is the study's ``python -m`` name and ``argv`` its flags, as the report's command.
    """
    from gamut.experiments.provenance import command_record

    report = {**measured, **command_record(argv, program=f"python -m {module}")}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({key: report[key] for key in shown if key in report}))
    return report
