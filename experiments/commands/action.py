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


def add_command(subparsers, name: str, help: str, doc: str):
    """The actions (an ``add_subparsers`` object) of top-level command ``name``, described by ``doc``'s first paragraph.

    The chosen action's name lands in ``args.<name>_command``.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="tool")
    >>> commands = parser.add_subparsers(dest="command", required=True)
    >>> actions = add_command(commands, "greet", "greetings", "Say hello.")
    >>> _ = add_action(actions, "hello", lambda args: 0, help="say hello")
    >>> parser.parse_args(["greet", "hello"]).greet_command
    'hello'
    """
    parser = subparsers.add_parser(name, help=help, description=doc.split("\n\n")[0])
    return parser.add_subparsers(dest=f"{name}_command", metavar="ACTION", required=True)
