"""``gamut poke``: Poke matches between agents, training of the CFR agents, and terminal play.

- ``gamut poke match --agents A B --rubbers N --seed S``: A's mean above-the-line
  margin per rubber against B, with a 95% CI over N pairs of rubbers (each
  pair: the same deals with the seats swapped).
- ``gamut poke train --algo {cfr+,mccfr}``: solve the small deal exactly (CFR+)
  or train the abstracted full-deal MCCFR, with checkpoint and resume.
- ``gamut poke play --opponent NAME``: play a rubber against an agent.
- ``gamut poke advise POSITION`` (or ``--deal-seed S``): the value of every
  draw option at a draw decision, to the end of the match, with 95% CIs
  (``gamut.solvers.poke.advisor``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from gamut.experiments.cli_output import (
    add_json_flag,
    add_quiet_flag,
    emit_result,
    progress_bar,
    progress_wanted,
)
from gamut.experiments.commands.action import add_action, add_command
from gamut.experiments.validate import (MAX_ITERATIONS, check_agent, check_agent_name, check_long_run, check_output,
                                        input_file, load_game_flag, measured_rate, memory_count, output_file,
                                        parse_options, real, seed, whole)

DEFAULT_GAME = "poke(mode=rubber)"
# Memory held per pair of rubbers: its seed (8 bytes) and A's two margins (16 bytes).
PAIR_BYTES = 24
# The advisor's defaults (gamut.solvers.poke.advisor), repeated here so that --help imports no solver.
ADVISOR_AGENT = "heuristic"
ADVISOR_ROLLOUTS = 2000
ADVISOR_MAX_ROLLOUTS = 10**7
# Rubber pairs per compiled call when both agents are the heuristic: calls of a
# fraction of a second keep the bar moving; the pairs are independent, so the
# margins are those of one call.
HEURISTIC_CHUNK = 2_000


def register(subparsers) -> None:
    sub = add_command(subparsers, "poke", "Poke: agent matches, CFR training, terminal play", __doc__)

    match = add_action(sub, "match", run_match, help="A's above-the-line margin against B over paired rubbers")
    match.add_argument("--agents", nargs=2, required=True, metavar=("A", "B"), help="two agent names")
    match.add_argument("--rubbers", type=memory_count(PAIR_BYTES), default=1000,
                       help="pairs of rubbers (same deals, seats swapped) (default: %(default)s)")
    match.add_argument("--seed", type=seed, default=0, help="seed of the deals (default: %(default)s)")
    match.add_argument("--game", default=DEFAULT_GAME, help="poke game string (default: %(default)s)")
    for who in ("a", "b"):
        match.add_argument(f"--{who}-option", action="append", default=[], metavar="NAME=VALUE",
                           help=f"option of agent {who.upper()} (repeatable; ints, floats or strings)")
    add_json_flag(match)
    add_quiet_flag(match)

    training = add_action(sub, "train", run_train, help="CFR+ on the small deal, or abstracted MCCFR on the full deal")
    training.add_argument("--algo", choices=("cfr+", "mccfr"), required=True)
    training.add_argument("--iterations", type=whole(1, MAX_ITERATIONS), default=None,
                          help=f"total iterations, at most {MAX_ITERATIONS:,}; a run expected to take over an hour "
                               "needs --checkpoint (default: 1000 for cfr+, 200000 for mccfr)")
    training.add_argument("--trick-value", type=real(0), default=None,
                          help="above-the-line value of a below-the-line point (default: the agents')")
    training.add_argument("--seed", type=seed, default=0, help="MCCFR seed (default: %(default)s)")
    training.add_argument("--checkpoint", type=output_file,
                          help="checkpoint file (.npz), written every --checkpoint-minutes")
    training.add_argument("--checkpoint-minutes", type=real(0, above=True), default=2.0,
                          help="(default: %(default)s)")
    training.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    training.add_argument("--out", type=output_file,
                          help="policy file (default: the agent's file under results/poke/)")
    add_json_flag(training)
    add_quiet_flag(training)

    play = add_action(sub, "play", run_play, help="play a rubber in the terminal against an agent")
    play.add_argument("--opponent", default=None, help="agent name (default: ismcts, the strongest that answers "
                      "within about a second a move; heuristic when ismcts cannot play the game)")
    play.add_argument("--game", default=DEFAULT_GAME, help="poke game string (default: %(default)s)")
    play.add_argument("--seat", type=whole(0, 1), default=0, help="your seat, 0 or 1 (default: %(default)s)")
    play.add_argument("--hint", default=None, help="agent answering 'hint' (default: cfr on the small deck, "
                      "else ismcts, which shows its search values)")
    play.add_argument("--seed", type=seed, default=0, help="seed of the deals (default: %(default)s)")

    advise = add_action(
        sub, "advise", run_advise,
        help="value of every draw option at a draw decision, to the end of the match, with 95%% CIs",
        description="Expected above-the-line points from now to the end of the match of every legal draw option "
                    "(stand, or discard and draw: a double, a redouble or the dealer's free draw), from rollouts "
                    "that meet the same hidden cards, stock order and later deals for every option.")
    advise.add_argument("position", nargs="?", type=input_file,
                        help="saved position (the toolkit's plain-text state: 'gamut-state v1 <game>' and the "
                             "action ids, as state.serialize() writes it), at a draw decision")
    advise.add_argument("--deal-seed", type=seed, default=None,
                        help="instead of a file: the first draw decision of a match whose first deal is shuffled "
                             "from this seed (the match seed of gamut.solvers.poke.match)")
    advise.add_argument("--game", default=DEFAULT_GAME,
                        help="poke game string of --deal-seed (default: %(default)s)")
    advise.add_argument("--opponent", default=ADVISOR_AGENT,
                        help="agent playing the opponent's moves (default: %(default)s, compiled and fast; others "
                             "play through pyspiel, much more slowly)")
    advise.add_argument("--policy", default=ADVISOR_AGENT,
                        help="agent playing your later moves, draws and tricks (default: %(default)s)")
    for role in ("opponent", "policy"):
        advise.add_argument(f"--{role}-option", action="append", default=[], metavar="NAME=VALUE",
                            help=f"option of the --{role} agent (repeatable; e.g. double_below=0 for heuristic)")
    advise.add_argument("--rollouts", type=whole(2, ADVISOR_MAX_ROLLOUTS), default=ADVISOR_ROLLOUTS,
                        help="rollouts, each playing every option (default: %(default)s)")
    advise.add_argument("--seed", type=seed, default=0, help="seed of the rollouts (default: %(default)s)")
    add_json_flag(advise)
    add_quiet_flag(advise)


def _poke_game(text: str):
    import gamut.envs  # noqa: F401  (registers poke)

    game = load_game_flag(text, "--game")
    if game.get_type().short_name != "poke":
        raise ValueError(f"--game must be a poke game string, got {text!r}")
    return game


def run_match(args: argparse.Namespace) -> int:
    import numpy as np

    from gamut.solvers.bots import make_bot
    from gamut.solvers.poke.heuristic import make_params
    from gamut.solvers.poke.match import compare, heuristic_margins, match_seeds, pyspiel_margins

    game = _poke_game(args.game)
    name_a, name_b = args.agents
    opts_a, opts_b = parse_options(args.a_option, "--a-option"), parse_options(args.b_option, "--b-option")
    # Check names and options before any play.
    check_agent(game, name_a, "--agents (A)", opts_a, 0)
    check_agent(game, name_b, "--agents (B)", opts_b, 1)
    seeds = match_seeds(args.seed, args.rubbers)
    start = time.perf_counter()
    with progress_bar(args, args.rubbers, "pair", f"{name_a} v {name_b}") as bar:
        if name_a == name_b == "heuristic":
            params_a, params_b = make_params(**opts_a), make_params(**opts_b)
            parts = []
            for first in range(0, args.rubbers, HEURISTIC_CHUNK):
                parts.append(heuristic_margins(game.cfg, params_a, params_b, seeds[first:first + HEURISTIC_CHUNK]))
                bar.update(len(parts[-1]))
            margins = np.concatenate(parts)
        else:
            margins = pyspiel_margins(game, lambda p, s: make_bot(game, name_a, p, s, **opts_a),
                                      lambda p, s: make_bot(game, name_b, p, s, **opts_b), seeds,
                                      progress=lambda done: bar.update(done - bar.n))
    est = compare(margins)
    emit_result({"game": str(game), "agent_a": name_a, "agent_b": name_b, "a_options": opts_a, "b_options": opts_b,
                 "mean_diff": est.value,
                 "ci95_low": est.ci95_low, "ci95_high": est.ci95_high, "n": est.n,
                 "rubbers_played": 2 * est.n, "seed": args.seed,
                 "seconds": time.perf_counter() - start}, args.json)
    return 0


def run_train(args: argparse.Namespace) -> int:
    from gamut.solvers.cfr.checkpoint import train
    from gamut.solvers.poke import policies

    if args.resume and not args.checkpoint:
        raise ValueError("--resume needs --checkpoint PATH")
    if args.resume and not Path(args.checkpoint).is_file():
        raise ValueError(f"--resume: the checkpoint {args.checkpoint!r} does not exist")
    trick_value = policies.DEFAULT_TRICK_VALUE if args.trick_value is None else args.trick_value
    if args.algo == "cfr+":
        game_string = policies.small_game_string(trick_value)
        out = args.out or policies.cfr_policy_path(trick_value)
    else:
        game_string = policies.full_deal_string(trick_value)
        out = args.out or policies.MCCFR_POLICY
    load_game_flag(game_string, "--trick-value")
    check_output(out, "--out")
    iterations = (policies.CFR_ITERATIONS if args.algo == "cfr+" else 200_000) if args.iterations is None \
        else args.iterations
    if not args.checkpoint:
        _check_duration(args.algo, game_string, trick_value, args.seed, iterations)
    if args.algo == "cfr+":
        strategy = policies.solve_small(game_string, iterations, args.checkpoint, args.resume,
                                        progress=progress_wanted(args))
    else:
        solver = policies.make_mccfr_solver(trick_value, args.seed)
        info = train(solver, iterations, args.checkpoint, args.resume,
                     every_seconds=60 * args.checkpoint_minutes, progress=progress_wanted(args))
        strategy = policies.mccfr_strategy_of(solver, {"algorithm": "es-mccfr", "abstraction": "draw_key",
                                                       "iterations": info["iterations"], "seed": args.seed,
                                                       "trick_value": trick_value})
    path = policies.save_policy(out, strategy)
    emit_result({"algo": args.algo, "game": strategy.game_string, "policy": str(path),
                 "information_sets": len(strategy.keys), **strategy.metadata}, args.json)
    return 0


def _check_duration(algo: str, game_string: str, trick_value: float, seed: int, iterations: int) -> None:
    """Refuse a run without --checkpoint expected to take over an hour, before any iteration.

    CFR+ on the small deal is timed from its estimated histories and the tabular
    solvers' benchmarked rate; MCCFR on the full deal from a quarter of a second
    of a throwaway solver.
    """
    from gamut.experiments.commands.cfr import HISTORY_UPDATES_PER_SECOND, QUICK_ITERATIONS
    from gamut.solvers.cfr.extract import estimate_num_nodes
    from gamut.solvers.poke import policies

    if iterations <= QUICK_ITERATIONS:
        return
    if algo == "cfr+":
        nodes = estimate_num_nodes(load_game_flag(game_string, "--trick-value"))
        per_second = HISTORY_UPDATES_PER_SECOND / nodes
        rate = (f"about {per_second:,.0f} iterations a second (some {nodes:,.0f} histories, updated "
                f"{HISTORY_UPDATES_PER_SECOND:,.0f} times a second as benchmarked on Leduc poker)")
    else:
        per_second = measured_rate(policies.make_mccfr_solver(trick_value, seed).run)
        rate = f"the {per_second:,.0f} iterations a second MCCFR measures on the full deal here"
    check_long_run(iterations, per_second, rate, "--iterations", "--checkpoint")


def run_play(args: argparse.Namespace) -> int:
    import gamut.experiments.poke_view  # noqa: F401  (registers the score-sheet view)
    from gamut.experiments.terminal_play import PlaySession

    game = _poke_game(args.game)
    check_agent_name(game, args.opponent, "--opponent")
    check_agent_name(game, args.hint, "--hint")
    PlaySession(game, human=args.seat, opponent=args.opponent, hint=args.hint, seed=args.seed).run()
    return 0


def _advised_position(args: argparse.Namespace):
    """The position of ``gamut poke advise``: the saved file, or the first draw decision of --deal-seed."""
    from gamut.envs.serialization import deserialize_state
    from gamut.solvers.poke.advisor import deal_position

    if (args.position is None) == (args.deal_seed is None):
        raise ValueError("give either a saved position file or --deal-seed S (not both, not neither)")
    if args.position is None:
        return deal_position(_poke_game(args.game), args.deal_seed)
    if args.game != DEFAULT_GAME:
        raise ValueError("--game applies to --deal-seed only: a saved position names its own game")
    text = Path(args.position).read_bytes()
    try:
        state = deserialize_state(text)
    except ValueError as err:
        raise ValueError(f"position file {args.position!r}: {err}") from None
    if state.get_game().get_type().short_name != "poke":
        raise ValueError(f"position file {args.position!r} holds a {state.get_game().get_type().short_name} "
                         "position; the advisor answers Poke draw decisions")
    return state


def run_advise(args: argparse.Namespace) -> int:
    import json

    from gamut.envs.poke import kernels as K
    from gamut.solvers.poke.advisor import advise, require_draw_decision

    state = _advised_position(args)
    require_draw_decision(state)
    options = {role: parse_options(getattr(args, f"{role}_option"), f"--{role}-option")
               for role in ("opponent", "policy")}
    drawer = int(state.state[K.S_DRAWER])
    check_agent(state.get_game(), args.opponent, "--opponent", options["opponent"], 1 - drawer)
    check_agent(state.get_game(), args.policy, "--policy", options["policy"], drawer)
    with progress_bar(args, args.rollouts, "rollout", "advising") as bar:
        advice = advise(state, opponent=args.opponent, policy=args.policy, rollouts=args.rollouts, seed=args.seed,
                        opponent_options=options["opponent"], policy_options=options["policy"],
                        progress=lambda done: bar.update(done - bar.n))
    print(advice.table())
    if args.json:
        print(json.dumps(advice.as_dict()))
    return 0
