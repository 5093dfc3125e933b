"""How CLI subcommands print a computed result, and their progress on the terminal.

A subcommand that computes figures prints readable lines; with ``--json`` it
then prints the same result as one JSON object on the last line of output, so
scripts can read ``stdout.splitlines()[-1]``.

Progress goes to stderr and never into the result: a command that can run
longer than a few seconds shows a tqdm bar (count, rate, ETA) fed by its own
loop, when stderr is a terminal, unless ``--quiet`` is given or ``--json``
output is piped. Chunking a loop for the bar or leaving the bar out gives the
same numbers.

A first run compiles the Numba kernels (tens of seconds) and later runs load
them from Numba's on-disk cache. :func:`announce_compiling` says so in one line
the moment a compilation starts: it listens to Numba's ``numba:compile`` event,
which Numba triggers only when it compiles a function, never when it loads one
from the cache, so the notice appears on a first run and not after. The entry
point starts listening once the arguments are parsed, before the command
imports its modules.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Add the ``--json`` flag shared by every figure-computing subcommand."""
    parser.add_argument(
        "--json",
        action="store_true",
        help="after the readable output, print the result as one JSON object on the last line",
    )


def add_quiet_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--quiet``: no progress bar or notice on stderr."""
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar or notices on stderr (they are off anyway when --json output is piped)")


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


def progress_wanted(args: argparse.Namespace) -> bool:
    """Whether to show progress: stderr is a terminal, no ``--quiet`` (``--no-progress``), no ``--json`` into a pipe."""
    if getattr(args, "quiet", False) or getattr(args, "no_progress", False) or not sys.stderr.isatty():
        return False
    return not (getattr(args, "json", False) and not sys.stdout.isatty())


def progress_bar(args: argparse.Namespace, total: int | None, unit: str, desc: str, initial: int = 0):
    """A tqdm bar on stderr (count, rate, ETA), disabled when :func:`progress_wanted` says no.

    Use it as a context manager and call ``update(n)`` from the command's loop.
    """
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit=unit, desc=desc, file=sys.stderr,
                disable=not progress_wanted(args), dynamic_ncols=True)


def notice(args: argparse.Namespace, text: str) -> None:
    """One line on stderr when progress is wanted (for steps that have no loop to count)."""
    if progress_wanted(args):
        from tqdm import tqdm

        tqdm.write(text, file=sys.stderr)


_compile_listener = None


def announce_compiling(args: argparse.Namespace, write=None) -> None:
    """Say ``compiling kernels (first run only)...`` once, when Numba starts compiling.

    ``write`` (default: a line on stderr, kept clear of any progress bar) is
    called at most once per process; nothing is said when progress is not
    wanted. Calling this again replaces the earlier listener.
    """
    global _compile_listener
    from numba.core import event

    if _compile_listener is not None:
        event.unregister("numba:compile", _compile_listener)
        _compile_listener = None
    if write is None:
        if not progress_wanted(args):
            return
        from tqdm import tqdm

        def write(text):
            tqdm.write(text, file=sys.stderr)

    class _OnFirstCompile(event.Listener):
        said = False

        def on_start(self, ev):
            if not self.said:
                self.said = True
                write("compiling kernels (first run only)...")

        def on_end(self, ev):
            pass

    _compile_listener = _OnFirstCompile()
    event.register("numba:compile", _compile_listener)
