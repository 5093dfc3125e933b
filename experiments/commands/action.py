"""One subcommand: its parser and the function that runs it, declared together."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def add_action(actions, name: str, handler: Callable[[argparse.Namespace], int], **kwargs) -> argparse.ArgumentParser:
    """The parser of subcommand ``name`` of ``actions`` (an ``add_subparsers`` object), run by ``handler(args)``.

    ``kwargs`` go to ``add_parser`` (``help``, ``description``, ...).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="tool")
    >>> actions = parser.add_subparsers(dest="action", required=True)
    >>> hello = add_action(actions, "hello", lambda args: print("hi", args.name) or 0, help="greet")
    >>> _ = hello.add_argument("--name", default="you")
    >>> args = parser.parse_args(["hello", "--name", "Ada"])
    >>> args.handler(args)
    hi Ada
    0
    """
    parser = actions.add_parser(name, **kwargs)
    parser.set_defaults(handler=handler)
    return parser
