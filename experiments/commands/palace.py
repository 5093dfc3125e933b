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

from gamut.experiments.cli_output import (
    add_json_flag,
    add_quiet_flag,
    emit_result,
    progress_bar,
)
from gamut.experiments.commands.action import add_action, add_command
from gamut.experiments.validate import check_agent, check_agent_name, check_seat, memory_count, parse_value, seed, whole

MAX_PLAYERS = 10


def register(subparsers) -> None:
    sub = add_command(subparsers, "palace", "Palace Poker: agent matches, terminal play", __doc__)

    match = add_action(sub, "match", run_match, help="mean chips per hand of agents over rotated common deals")
    match.add_argument("--agents", nargs="+", required=True, metavar="AGENT",
                       help="agent names, seated in turn (e.g. ismcts heuristic)")
    match.add_argument("--players", type=whole(2, MAX_PLAYERS), default=None,
                       help="seats, 2..10 (default: one per agent); agents repeat to fill them")
    # Each agent keeps one sample (8 bytes) per deal; ten agents at most.
    match.add_argument("--hands", type=memory_count(8 * MAX_PLAYERS), default=200,
                       help="deals, each played once per seat rotation (default: %(default)s)")
    match.add_argument("--seed", type=seed, default=0, help="seed of the deals and agents (default: %(default)s)")
    match.add_argument("--betting", choices=("limit", "no_limit"), default="limit",
                       help="betting structure (default: %(default)s)")
    match.add_argument("--option", action="append", default=[], metavar="AGENT.NAME=VALUE",
                       help="option of an agent, e.g. ismcts.iterations=500 (repeatable)")
    add_json_flag(match)
    add_quiet_flag(match)

    play = add_action(sub, "play", run_play, help="play hands in the terminal against agents")
    play.add_argument("--players", type=whole(2, MAX_PLAYERS), default=4, help="seats, 2..10 (default: %(default)s)")
    play.add_argument("--seat", type=whole(0, MAX_PLAYERS - 1), default=0, help="your seat (default: %(default)s)")
    play.add_argument("--opponent", default=None, help="agent at the other seats (default: the strongest that "
                      "answers within about a second a move: nn_ismcts with 4 players, where its networks ship, "
                      "else ismcts)")
    play.add_argument("--hint", default=None, help="agent answering 'hint' (default: ismcts, which shows its "
                      "search values)")
    play.add_argument("--betting", choices=("limit", "no_limit"), default="limit",
                      help="betting structure (default: %(default)s)")
    play.add_argument("--seed", type=seed, default=0, help="seed of the deal and agents (default: %(default)s)")


def parse_options(pairs: list[str], agents: list[str]) -> dict[str, dict]:
    """``["ismcts.iterations=500", ...]`` -> ``{"ismcts": {"iterations": 500}}``.

    Values are true/false, whole numbers, finite numbers or text (``gamut.experiments.validate.parse_value``).
    """
    options = {name: {} for name in agents}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        agent, dot, name = key.partition(".")
        if not sep or not dot or not name:
            raise ValueError(f"--option takes AGENT.NAME=VALUE, got {pair!r}")
        if agent not in options:
            raise ValueError(f"--option {pair!r} names agent {agent!r}, which is not one of --agents {agents}")
        options[agent][name] = parse_value(text, "--option", pair)
    return options


def _game(players: int, betting: str):
    import pyspiel

    import gamut.envs  # noqa: F401  (registers palace_poker)

    if not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"--players must be in 2..{MAX_PLAYERS}, got {players}")
    return pyspiel.load_game("palace_poker", {"players": players, "betting": betting})


def run_match(args: argparse.Namespace) -> int:
    from gamut.solvers.bots import make_bot
    from gamut.solvers.palace_poker.match import lineup_for, rotated_match, summarize_samples

    agents = list(dict.fromkeys(args.agents))
    players = len(args.agents) if args.players is None else args.players
    game = _game(players, args.betting)
    lineup = lineup_for(args.agents, players)
    options = parse_options(args.option, agents)
    for name in agents:  # names and options are checked before any play
        check_agent(game, name, "--agents", options[name])
    start = time.perf_counter()
    with progress_bar(args, args.hands, "deal", " v ".join(agents)) as bar:
        samples = rotated_match(game, lineup,
                                lambda name, seat, seed: make_bot(game, name, seat, seed, **options[name]),
                                args.seed, range(args.hands), progress=lambda done: bar.update(done - bar.n))
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
    check_seat(game, args.seat)
    check_agent_name(game, args.opponent, "--opponent")
    check_agent_name(game, args.hint, "--hint")
    PlaySession(game, human=args.seat, opponent=args.opponent, hint=args.hint, seed=args.seed).run()
    return 0
