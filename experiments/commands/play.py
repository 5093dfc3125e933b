"""``gamut play GAME``: a person plays any game in the terminal against the toolkit's agents."""

from __future__ import annotations

import argparse


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play a game in the terminal against an agent, with hints",
        description=(
            "Play GAME (a pyspiel game string, e.g. 'poker_squares(scoring=english)') in the terminal. "
            "Commands at the prompt: a number or action name (each game also takes friendlier forms, "
            "listed by help), hint, undo (poker dice, Poker Squares), board, actions, help, quit (or Ctrl-D)."
        ),
    )
    parser.add_argument("game", help="game string, e.g. kuhn_poker or 'poke(mode=rubber)'")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default: %(default)s)")
    parser.add_argument("--opponent", default=None, help="agent at the other seats (default: the game's best that plays the variant)")
    parser.add_argument("--hint", default=None, help="agent that answers 'hint' (default: the game's best)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents (default: %(default)s)")
    parser.set_defaults(handler=_play)


def _play(args: argparse.Namespace) -> int:
    from gamut.experiments.config import game_string
    from gamut.experiments.terminal_play import PlaySession

    import pyspiel

    session = PlaySession(
        pyspiel.load_game(game_string(args.game)), human=args.seat, opponent=args.opponent,
        hint=args.hint, seed=args.seed,
    )
    session.run()
    return 0
