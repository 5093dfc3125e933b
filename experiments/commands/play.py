"""``gamut play GAME``: a person plays any game in the terminal against the toolkit's agents."""

from __future__ import annotations

import argparse

from gamut.experiments.validate import check_agent, check_agent_name, check_seat, parse_options, seed, whole


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
    parser.add_argument("--opponent-option", action="append", default=[], metavar="NAME=VALUE", help=(
        "option of the --opponent agent, repeatable; e.g. --opponent ppo --opponent-option "
        "weights=runs/mine/weights.npz seats a network that gamut train wrote"))
    parser.add_argument("--hint-option", action="append", default=[], metavar="NAME=VALUE", help=(
        "option of the --hint agent, repeatable (e.g. --hint ismcts --hint-option iterations=2000)"))
    parser.add_argument("--seed", type=seed, default=0,
                        help="seed of the deal and the agents (default: %(default)s)")
    parser.set_defaults(handler=_play)


def _play(args: argparse.Namespace) -> int:
    import gamut.envs  # noqa: F401  (registers the toolkit's games)
    from gamut.experiments.terminal_play import PlaySession
    from gamut.experiments.validate import load_game_flag

    game = load_game_flag(args.game, "GAME")
    if game.num_players() == 1 and (args.opponent is not None or args.opponent_option):
        flag = "--opponent" if args.opponent is not None else "--opponent-option"
        raise ValueError(f"{flag}: {game} is a one-player game; there is no seat for an opponent")
    check_seat(game, args.seat)
    options = {}
    for role in ("opponent", "hint"):
        name, flag = getattr(args, role), f"--{role}"
        options[role] = parse_options(getattr(args, f"{role}_option"), f"{flag}-option")
        if options[role] and name is None:
            # The default agent is chosen by the variant; options must name the agent they are for.
            raise ValueError(f"{flag}-option needs {flag} NAME: options belong to the agent they are given for")
        if options[role]:
            # Built once now, so a missing or foreign weights file is refused before the first move.
            player = args.seat if role == "hint" else (args.seat + 1) % game.num_players()
            check_agent(game, name, flag, options[role], player=player, seed=args.seed)
        else:
            check_agent_name(game, name, flag)
    session = PlaySession(game, human=args.seat, opponent=args.opponent, hint=args.hint, seed=args.seed,
                          opponent_options=options["opponent"], hint_options=options["hint"])
    session.run()
    return 0
