"""The ``gamut`` command-line entry point.

``gamut --help`` lists the subcommands; each has its own ``--help``. Bad input
(an unknown flag, a malformed game string, an illegal option value, an output
path that cannot be written) prints a message naming the flag and what is
allowed and exits with status 2 before any work, writing nothing; the checks
are shared by every subcommand (``gamut.experiments.validate``).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import sys
from importlib.metadata import version

from gamut.experiments.cli_output import announce_compiling
from gamut.experiments.commands import command_modules
from gamut.experiments.validate import harden_numbers
from gamut.solvers.atomic_file import FileWriteError


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="gamut",
        description=(
            "Game AI toolkit for Poke, poker dice, Palace Poker and Poker Squares: "
            "play, solve, benchmark and reproduce every experiment."
        ),
    )
    parser.add_argument("--version", action="version", version=f"gamut {version('gamut')}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in command_modules():
        importlib.import_module(module_name).register(subparsers)
    harden_numbers(parser)
    return parser


@functools.cache
def _parser() -> argparse.ArgumentParser:
    # Parsing does not change a parser, so one serves every call of main in a process.
    return build_parser()


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the process exit status (also for ``--help``, ``--version`` and usage errors)."""
    parser = _parser()
    try:
        args, unknown = parser.parse_known_args(argv)
        # Report an unknown flag before a missing subcommand: it is the likelier mistake.
        if unknown:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        if args.command is None:
            parser.error("a COMMAND is required; see 'gamut --help' for the list")
        # The words of this command, for result files that record how they were made.
        args.argv = list(sys.argv[1:] if argv is None else argv)
    except SystemExit as done:
        return 0 if done.code is None else done.code if isinstance(done.code, int) else 2
    # Listening from here on also catches kernels compiled while the handler imports its modules.
    announce_compiling(args)
    try:
        status = args.handler(args)
    except ValueError as err:
        # Library code raises ValueError for bad user input; show it without a traceback.
        print(f"gamut {args.command}: error: {err}", file=sys.stderr)
        return 2
    except FileWriteError as err:
        # A full disk or a folder gone read-only mid-run: the previous file is intact and no temporary is left.
        print(f"gamut {args.command}: error: {err}", file=sys.stderr)
        return 2
    except MemoryError:
        # The sizes are checked against this machine's memory up front; this catches what they cannot foresee.
        print(f"gamut {args.command}: error: out of memory: ask for fewer deals, games or iterations",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"gamut {args.command}: interrupted", file=sys.stderr)
        return 130
    return 0 if status is None else int(status)


if __name__ == "__main__":
    sys.exit(main())
