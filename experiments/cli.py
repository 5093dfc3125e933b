"""The ``gamut`` command-line entry point.

``gamut --help`` lists the subcommands; each has its own ``--help``. Bad input
(an unknown flag, a malformed game string, an illegal option value, an output
path that cannot be written) prints a message naming the flag and what is
allowed and exits with status 2 before any work, writing nothing; the checks
are shared by every subcommand (``gamut.experiments.validate``). A flag that
takes one value may be given once: a second ``--agents`` is refused rather
than silently replacing the first (:class:`GamutParser`).
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
from gamut.solvers.atomic_file import NO_SPACE, FileWriteError


# Actions meant to be given again: each occurrence adds to the value rather than replacing it.
REPEATABLE = (argparse._AppendAction, argparse._AppendConstAction, argparse._CountAction, argparse._ExtendAction)


class GamutParser(argparse.ArgumentParser):
    """An ArgumentParser that refuses a single-valued flag given twice.

    Plain argparse keeps the last of ``--agents a b --agents c d``, so a
    mistyped command line runs with half of what was asked. Flags whose action
    appends or counts (``--set``, ``--option``) stay repeatable. Subparsers are
    of the same class, so every subcommand gets the check.
    """

    def _parse_known_args(self, arg_strings, namespace, *args, **kwargs):
        # The flags given in this parse; a subcommand's parser keeps its own set.
        self._given = set()
        return super()._parse_known_args(arg_strings, namespace, *args, **kwargs)

    def _get_values(self, action, arg_strings):
        # argparse calls this once for every occurrence of a flag on the command line (never for defaults).
        if action.option_strings and not isinstance(action, REPEATABLE):
            if action in self._given:
                self.error(f"argument {'/'.join(action.option_strings)}: given more than once; "
                           "it takes a single value, so give it once")
            self._given.add(action)
        return super()._get_values(action, arg_strings)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every subcommand registered."""
    parser = GamutParser(
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
    except OSError as err:
        # A full disk under a writer of another library (pandas, matplotlib) is one line too; other errors are bugs.
        if err.errno not in NO_SPACE:
            raise
        where = f" writing {err.filename}" if err.filename else ""
        print(f"gamut {args.command}: error: no space left on the device{where}: free some space and run again",
              file=sys.stderr)
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
