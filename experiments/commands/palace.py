"""``gamut palace``: Palace Poker matches between agents, and terminal play.

- ``gamut palace match --agents A B [C ...] --hands N --seed S``: the agents
  fill the seats in turn (``--players``, default one seat each); each of N
  common random deals is played once per rotation of the seats; per agent the
  mean chips per hand with a 95% CI over the N deals.
- ``gamut palace play --players N``: a person plays against agents.
"""

from __future__ import annotations

import argparse
import time

from gamut.experiments.cli_output import add_json_flag, emit_result


def register(subparsers) -> None:
    parser = subparsers.add_parser("palace", help="Palace Poker: agent matches, terminal play",
                                   description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="palace_command", required=True)

    match = sub.add_parser("match", help="mean chips per hand of agents over rotated common deals")
    match.add_argument("--agents", nargs="+", required=True, metavar="AGENT",
                       help="agent names, seated in turn (e.g. ismcts heuristic)")
    match.add_argument("--players", type=int, default=None,
                       help="seats, 2..10 (default: one per agent); agents repeat to fill them")
    match.add_argument("--hands", type=int, default=200,
                       help="deals, each played once per seat rotation (default: %(default)s)")
    match.add_argument("--seed", type=int, default=0, help="seed of the deals and agents (default: %(default)s)")
    match.add_argument("--betting", choices=("limit", "no_limit"), default="limit",
                       help="betting structure (default: %(default)s)")
    match.add_argument("--option", action="append", default=[], metavar="AGENT.NAME=VALUE",
                       help="option of an agent, e.g. ismcts.iterations=500 (repeatable)")
    add_json_flag(match)
    match.set_defaults(handler=run_match)

    play = sub.add_parser("play", help="play hands in the terminal against agents")
    play.add_argument("--players", type=int, default=4, help="seats, 2..10 (default: %(default)s)")
    play.add_argument("--seat", type=int, default=0, help="your seat (default: %(default)s)")
    play.add_argument("--opponent", default="heuristic", help="agent at the other seats (default: %(default)s)")
    play.add_argument("--hint", default="heuristic", help="agent answering 'hint' (default: %(default)s)")
    play.add_argument("--betting", choices=("limit", "no_limit"), default="limit",
                      help="betting structure (default: %(default)s)")
    play.add_argument("--seed", type=int, default=0, help="seed of the deal and agents (default: %(default)s)")
    play.set_defaults(handler=run_play)


def parse_options(pairs: list[str], agents: list[str]) -> dict[str, dict]:
    """``["ismcts.iterations=500", ...]`` -> ``{"ismcts": {"iterations": 500}}`` (ints, floats or strings)."""
    options = {name: {} for name in agents}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        agent, dot, name = key.partition(".")
        if not sep or not dot or not name:
            raise ValueError(f"--option takes AGENT.NAME=VALUE, got {pair!r}")
        if agent not in options:
            raise ValueError(f"--option {pair!r} names agent {agent!r}, which is not one of --agents {agents}")
        for kind in (int, float):
            try:
                options[agent][name] = kind(text)
                break
            except ValueError:
                continue
        else:
            options[agent][name] = text
    return options


def _game(players: int, betting: str):
    import pyspiel

    import gamut.envs  # noqa: F401  (registers palace_poker)

    if not 2 <= players <= 10:
        raise ValueError(f"--players must be in 2..10, got {players}")
    return pyspiel.load_game("palace_poker", {"players": players, "betting": betting})


def run_match(args: argparse.Namespace) -> int:
    from gamut.solvers.bots import make_bot
    from gamut.solvers.palace_poker.match import lineup_for, rotated_match, summarize_samples

    if args.hands < 1:
        raise ValueError(f"--hands must be >= 1, got {args.hands}")
    agents = list(dict.fromkeys(args.agents))
    players = len(args.agents) if args.players is None else args.players
    game = _game(players, args.betting)
    lineup = lineup_for(args.agents, players)
    options = parse_options(args.option, agents)
    for name in agents:  # names and options are checked before any play
        make_bot(game, name, 0, 0, **options[name])
    start = time.perf_counter()
    samples = rotated_match(game, lineup, lambda name, seat, seed: make_bot(game, name, seat, seed, **options[name]),
                            args.seed, range(args.hands))
    result = {"game": str(game), "lineup": lineup}
    for name, est in summarize_samples(samples).items():
        result[name] = {"mean_chips": float(est.value), "ci95_low": float(est.ci95_low),
                        "ci95_high": float(est.ci95_high)}
    result.update({"n": args.hands, "hands_played": args.hands * players, "seed": args.seed,
                   "seconds": time.perf_counter() - start})
    emit_result(result, args.json)
    return 0


def run_play(args: argparse.Namespace) -> int:
    import gamut.experiments.palace_view  # noqa: F401  (registers the table view)
    from gamut.experiments.terminal_play import PlaySession

    game = _game(args.players, args.betting)
    PlaySession(game, human=args.seat, opponent=args.opponent, hint=args.hint, seed=args.seed).run()
    return 0
