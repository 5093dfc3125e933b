"""How CLI subcommands print a computed result.

A subcommand that computes figures prints readable lines; with ``--json`` it
then prints the same result as one JSON object on the last line of output, so
scripts can read ``stdout.splitlines()[-1]``.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Add the ``--json`` flag shared by every figure-computing subcommand."""
    parser.add_argument(
        "--json",
        action="store_true",
        help="after the readable output, print the result as one JSON object on the last line",
    )


def _jsonable(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):
        return value.item()
    return value


def emit_result(result: Mapping, as_json: bool) -> None:
    """Print ``result`` as ``key: value`` lines, then as JSON when ``as_json`` is set."""
    width = max((len(str(k)) for k in result), default=0)
    for key, value in result.items():
        shown = f"{value:,.6g}" if isinstance(value, float) else value
        print(f"{str(key).ljust(width)}  {shown}")
    if as_json:
        print(json.dumps({k: _jsonable(v) for k, v in result.items()}, default=_jsonable))
