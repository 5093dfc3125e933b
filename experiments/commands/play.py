"""``gamut play GAME``: a person plays any game in the terminal against the toolkit's agents."""

from __future__ import annotations

import argparse

from gamut.experiments.validate import check_agent_name, check_seat, seed, whole


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play a game in the terminal against an agent, with hints",
        description=(
            "Play GAME (a pyspiel game string) in the terminal. "
            "Commands at the prompt: a number (the OpenSpiel action id, as listed) or an action name (each game "
            "also takes friendlier forms, listed by help), hint, undo (where no other seat hides cards), board, "
            "actions, help, quit (or Ctrl-D). At a terminal, Up recalls earlier lines and Tab completes."
        ),
    )
    parser.add_argument("game", help="game string: any game of the toolkit or of OpenSpiel, e.g. kuhn_poker")
    parser.add_argument("--seat", type=whole(0, 1_000), default=0, help="your seat (default: %(default)s)")
    parser.add_argument("--opponent", default=None, help=(
        "agent at the other seats (default: the first of the game's view that plays the variant, listed "
        "best first: the strongest that answers within about a second a move, as `gamut bench play_agents` "
        "measures on 2 cores; the next one down when a variant or a missing table rules it out; random in "
        "games without a view)"))
    parser.add_argument("--hint", default=None, help=(
        "agent that answers 'hint' (default: the first hint agent of the game's view that plays the variant; "
        "the README lists them per game)"))
    parser.add_argument("--seed", type=seed, default=0,
                        help="seed of the deal and the agents (default: %(default)s)")
    parser.set_defaults(handler=_play)


def _play(args: argparse.Namespace) -> int:
    import gamut.envs  # noqa: F401  (registers the toolkit's games)
    from gamut.experiments.terminal_play import PlaySession
    from gamut.experiments.validate import load_game_flag

    game = load_game_flag(args.game, "GAME")
    if args.opponent is not None and game.num_players() == 1:
        raise ValueError(f"--opponent: {game} is a one-player game; there is no seat for an opponent")
    check_seat(game, args.seat)
    check_agent_name(game, args.opponent, "--opponent")
    check_agent_name(game, args.hint, "--hint")
    session = PlaySession(game, human=args.seat, opponent=args.opponent, hint=args.hint, seed=args.seed)
    session.run()
    return 0
