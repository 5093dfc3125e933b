"""``gamut dice``: poker-dice scorecard games solved exactly, and the optimal advisor.

``gamut dice solve --variant V`` computes (or loads from the cache) the optimal
expected score of a whole solitaire game; ``gamut dice advise`` gives the
expected value of every choice in one situation, best first; ``gamut dice
ranking --players N`` solves the ranking game and gives each seat's win share;
``gamut dice play --variant V`` lets a person play a scorecard game in the
terminal with the optimal advisor as ``hint``: the same session as ``gamut play
'poker_dice(variant=V,players=1)'`` (score sheet, help, hint, undo, Ctrl-D);
``gamut dice regret --variant V --agent A`` plays solitaire games with an agent
and splits its gap to the optimum by kind of decision
(:mod:`gamut.solvers.poker_dice.regret`); ``gamut dice imitate --variant V``
trains the ``imitation`` agent, a policy network taught by the exact solution's
option values (:mod:`gamut.solvers.poker_dice.imitation`).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from gamut.experiments.cli_output import (
    add_json_flag,
    add_quiet_flag,
    emit_result,
    notice,
    progress_bar,
)
from gamut.experiments.commands.action import add_action, add_command
from gamut.experiments.commands.train import add_training_arguments, training_output
from gamut.experiments.validate import (
    check_agent,
    check_agent_name,
    check_seat,
    memory_count,
    output_file,
    output_problem,
    parse_options,
    seed,
    whole,
)

VARIANTS = ("classic", "classic_banked", "yacht12", "yahtzee")
JOKERS = ("free", "forced", "none")
MAX_PLAYERS = 8


def register(subparsers) -> None:
    actions = add_command(subparsers, "dice", "poker dice: exact optimal solitaire play and advice", __doc__)

    solve = add_action(actions, "solve", run_solve, help="optimal expected score of a scorecard variant")
    _add_variant_arguments(solve)
    solve.add_argument("--no-cache", action="store_true",
                       help="solve afresh and do not read or write the table cache")
    add_json_flag(solve)
    add_quiet_flag(solve)

    advise = add_action(actions, "advise", run_advise, help="expected value of every choice in one situation")
    _add_variant_arguments(advise)
    advise.add_argument("--dice", required=True, help="the five dice showing, e.g. 1,1,3,4,5")
    advise.add_argument("--rolls-left", type=whole(0, 2), default=2,
                        help="rolls of this turn not yet used, 0..2 (default: %(default)s)")
    advise.add_argument("--open", help="comma-separated open boxes, e.g. 'sixes,full_house' "
                                       "(default: every box)")
    advise.add_argument("--stage-sum", type=whole(-(2**31), 2**31), default=0,
                        help="running total of the bonus group (upper boxes / stage 1): what its filled boxes "
                             "can add up to (default: %(default)s)")
    advise.add_argument("--bank", type=whole(0), default=0,
                        help="classic_banked: rolls banked at the start of this turn "
                             "(default: %(default)s)")
    advise.add_argument("--bank-left", type=whole(0),
                        help="classic_banked: banked rolls still unspent now (default: --bank)")
    advise.add_argument("--yahtzee-bonus", action="store_true",
                        help="yahtzee: the Yahtzee box holds 50, so another Yahtzee earns +100")
    add_json_flag(advise)
    add_quiet_flag(advise)

    play = add_action(
        actions, "play", run_play, help="play a scorecard game in the terminal with the optimal advisor as 'hint'",
        description="Play a scorecard game in the terminal (the session of 'gamut play poker_dice(...)'). "
                    "At the prompt: a number or move from the list, 'keep 3 3 5', 'box full house', "
                    "hint, undo, board, actions, help, quit (or Ctrl-D).")
    _add_variant_arguments(play)
    play.add_argument("--players", type=whole(1, MAX_PLAYERS), default=1,
                      help="players, 1..8; the other seats are agents (default: %(default)s)")
    play.add_argument("--seat", type=whole(0, MAX_PLAYERS - 1), default=0, help="your seat (default: %(default)s)")
    play.add_argument("--opponent", default="optimal", help="agent at the other seats (default: %(default)s)")
    play.add_argument("--hint", default="optimal", help="agent answering 'hint' (default: %(default)s)")
    play.add_argument("--seed", type=seed, default=0, help="seed of the dice and agents (default: %(default)s)")

    regret = add_action(
        actions, "regret", run_regret,
        help="where an agent loses points against the optimum: the regret of its every decision",
        description="Play solitaire games with an agent; at every decision compare its choice with the best "
                    "by the exact values. The summed regrets estimate optimum - E[score], split by decision "
                    "(after the first, second and third roll of a turn), with less noise than the scores "
                    "when the agent is near the optimum.")
    _add_variant_arguments(regret)
    regret.add_argument("--agent", default="ppo", help="agent to measure (default: %(default)s)")
    regret.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="agent option, repeatable (e.g. --option weights=runs/yacht12/weights.npz)")
    # Each game keeps its score and three regret sums: 32 bytes.
    regret.add_argument("--games", type=memory_count(32), default=2000, help="games to play (default: %(default)s)")
    regret.add_argument("--seed", type=seed, default=0, help="seed of the dice (default: %(default)s)")
    regret.add_argument("--agent-seed", type=seed, default=0, help="seed of the agent (default: %(default)s)")
    regret.add_argument("--out", type=output_file, default=None,
                        help="also write the report as JSON to this file, with its provenance (toolkit and "
                             "game versions, git commit, machine, command, seconds)")
    add_json_flag(regret)
    add_quiet_flag(regret)

    imitate = add_action(
        actions, "imitate", run_imitate,
        help="train the imitation agent: a policy network taught by the exact solution (not RL)",
        description="Train a policy network (the imitation agent) on the exact option values of the solved "
                    "variant, at the states its own play reaches (DAgger): checkpoints, resume, weights.npz "
                    "and curve.csv in --out, as gamut train writes them.")
    _add_variant_arguments(imitate)
    add_training_arguments(imitate, 5_000_000, "train/imitation-VARIANT", "hidden=512x512")
    add_json_flag(imitate)
    add_quiet_flag(imitate)

    ranking = add_action(actions, "ranking", run_ranking, help="ranking game solved: win share of every seat")
    ranking.add_argument("--players", type=whole(2, MAX_PLAYERS), required=True, help="number of seats, 2..8")
    add_json_flag(ranking)
    add_quiet_flag(ranking)


def _add_variant_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", required=True, choices=VARIANTS, help="scorecard variant")
    parser.add_argument("--joker", choices=JOKERS, default="free",
                        help="yahtzee joker rule (default: %(default)s)")


def _check_joker(args: argparse.Namespace) -> None:
    if args.joker != "free" and args.variant != "yahtzee":
        raise ValueError(f"--joker applies to --variant yahtzee only, not {args.variant}")


def _solve(args: argparse.Namespace, use_cache: bool = True):
    """The solution of ``--variant``/``--joker``, with a notice when it is computed rather than read.

    The solve is one compiled pass without intermediate steps to count, so a
    line (not a bar) says it is running. A cache folder that cannot be written
    is read if it holds the table and otherwise left alone (the solve still runs).
    """
    from gamut.envs.poker_dice.scorecard import compile_variant, make_variant
    from gamut.solvers.poker_dice import solution

    cache = solution.default_cache_dir() if use_cache else None
    variant = make_variant(args.variant, args.joker)
    cached = cache is not None and solution._cache_path(cache, variant, compile_variant(variant)).exists()
    if cache is not None and not cached and output_problem(cache, folder=True) is not None:
        notice(args, f"the table cache {cache} cannot be written: solving without it")
        cache = None
    if not cached:
        notice(args, f"solving {args.variant} exactly (one compiled pass of seconds to a minute; "
                     + ("the table is cached for next time)..." if cache is not None else "not cached)..."))
    return solution.solve(args.variant, args.joker, cache_dir=cache)


def run_solve(args: argparse.Namespace) -> int:
    _check_joker(args)
    solution = _solve(args, use_cache=not args.no_cache)
    result = {"variant": args.variant, "expected_score": solution.expected_score,
              "seconds": solution.seconds, "compile_seconds": solution.compile_seconds,
              "from_cache": solution.from_cache}
    if args.variant == "yahtzee":
        result["joker"] = args.joker
    emit_result(result, args.json)
    return 0


def _box_index(names: list[str], text: str) -> int:
    wanted = text.strip().lower().replace("_", " ").replace("-", " ")
    if wanted not in names:
        raise ValueError(f"--open: unknown box {text!r}; boxes are: {', '.join(names)}")
    return names.index(wanted)


def _faces(text: str) -> list[int]:
    try:
        faces = [int(x) for x in text.replace(" ", "").split(",")]
    except ValueError:
        faces = []
    if len(faces) != 5 or not all(1 <= f <= 6 for f in faces):
        raise ValueError(f"--dice {text!r}: expected five faces 1..6 such as 1,1,3,4,5")
    return faces


def run_advise(args: argparse.Namespace) -> int:
    from gamut.envs import dice
    from gamut.envs.poker_dice.scorecard import AUX_BANK, AUX_REPEAT_FLAG, box_names, compile_variant, make_variant
    from gamut.solvers.poker_dice.dp import state_layout

    _check_joker(args)
    roll = dice.roll_id(_faces(args.dice))
    # Every check reads the compiled variant, which takes milliseconds; the solve comes after them.
    variant = make_variant(args.variant, args.joker)
    tables = compile_variant(variant)
    names = box_names(variant)
    if args.open:
        open_boxes = {_box_index(names, name) for name in args.open.split(",")}
    else:
        open_boxes = set(range(len(names)))
    mask = sum(1 << b for b in range(len(names)) if b not in open_boxes)
    if mask == (1 << len(names)) - 1:
        raise ValueError("--open names no box: at least one box must be open")
    if state_layout(tables).offsets[mask] < 0:
        raise ValueError(f"--open: open boxes {sorted(names[b] for b in open_boxes)} are impossible: "
                         "a later stage has filled boxes while an earlier one has open boxes")
    filled_group = [b for b in range(len(names)) if tables.in_group[b] and (mask >> b) & 1]
    low = int(sum(tables.min_score[b] for b in filled_group))
    high = int(sum(tables.max_score[b] for b in filled_group))
    if not low <= args.stage_sum <= high:
        filled = ", ".join(names[b] for b in filled_group) or "none"
        raise ValueError(f"--stage-sum {args.stage_sum} cannot be reached: the filled boxes of the bonus group "
                         f"({filled}) add up to {low}..{high}")
    aux = 0
    if args.yahtzee_bonus:
        if tables.aux_kind != AUX_REPEAT_FLAG or (mask >> tables.repeat_box) & 1 == 0:
            raise ValueError("--yahtzee-bonus needs --variant yahtzee with the yahtzee box filled")
        aux = 1
    if args.bank or args.bank_left is not None:
        if tables.aux_kind != AUX_BANK:
            raise ValueError("--bank and --bank-left apply to --variant classic_banked only")
        if not 0 <= args.bank < tables.num_aux - 2:
            raise ValueError(f"--bank {args.bank} is not in 0..{tables.num_aux - 3}")
        if args.bank_left is not None and args.bank_left > args.bank:
            raise ValueError(f"--bank-left {args.bank_left} is more than --bank {args.bank}")
        aux = args.bank
    solution = _solve(args)
    options = solution.options(mask, args.stage_sum, aux, roll, args.rolls_left, args.bank_left)
    best = options[0]
    describe = (lambda o: f"box {o['box']}" if o["action"] == "box"
                else "keep " + (",".join(map(str, o["keep"])) or "nothing"))
    result = {
        "variant": args.variant, "dice": list(dice.roll_faces(roll)), "rolls_left": args.rolls_left,
        "best": describe(best), "best_value": best["value"],
        "options": [{"choice": describe(o), "value": o["value"]} for o in options],
    }
    emit_result(result, args.json)
    return 0


def run_regret(args: argparse.Namespace) -> int:
    import pyspiel

    import gamut.envs  # noqa: F401  (registers the games)
    from gamut.experiments.provenance import command_record
    from gamut.experiments.store import write_json
    from gamut.solvers.poker_dice.regret import policy_regret

    _check_joker(args)
    joker = f",joker={args.joker}" if args.variant == "yahtzee" else ""
    game = pyspiel.load_game(f"poker_dice(variant={args.variant},players=1{joker})")
    bot = check_agent(game, args.agent, "--agent", parse_options(args.option, "--option"), seed=args.agent_seed)
    solution = _solve(args)
    started = time.perf_counter()
    with progress_bar(args, args.games, "game", f"{args.agent} regret") as bar:
        report = policy_regret(solution, game, bot, args.games, seed=args.seed,
                               progress=lambda done: bar.update(done - bar.n))
    seconds = time.perf_counter() - started
    summary = report.as_dict()
    result = {"variant": args.variant, "joker": args.joker, "game": str(game), "agent": args.agent,
              "options": parse_options(args.option, "--option"), "seed": args.seed, "agent_seed": args.agent_seed,
              **summary}
    r, v, sc = summary["regret_ci95"], summary["value_ci95"], summary["score_ci95"]
    share = summary["share_ci95"]
    readable = {"variant": args.variant, "agent": args.agent, "games": report.games, "seed": args.seed,
                "optimum": f"{report.optimum:.2f}",
                "regret per game": f"{summary['regret_per_game']:.2f} (95% CI {r[0]:.2f} .. {r[1]:.2f})",
                "value (optimum - regret)": f"{summary['value_from_regret']:.2f} ({v[0]:.2f} .. {v[1]:.2f}) = "
                                            f"{summary['share_of_optimum']:.2%} of the optimum "
                                            f"({share[0]:.2%} .. {share[1]:.2%})",
                "mean score": f"{summary['mean_score']:.2f} ({sc[0]:.2f} .. {sc[1]:.2f})",
                "optimal choices": f"{summary['optimal_share_of_decisions']:.1%} of decisions"}
    for g in summary["groups"]:
        readable[g["name"]] = (f"regret {g['regret_per_game']:.2f} ({g['ci95_low']:.2f} .. {g['ci95_high']:.2f}) "
                               f"a game; {g['decisions_per_game']:.2f} decisions a game, "
                               f"{g['optimal_share']:.1%} optimal")
    emit_result(readable, False)
    if args.json:
        print(json.dumps(result))
    if args.out is not None:
        write_json(Path(args.out), {**result, "seconds": round(seconds, 3), "provenance": command_record(args.argv)})
        notice(args, f"wrote {args.out}")
    return 0


def run_imitate(args: argparse.Namespace) -> int:
    import gamut.envs  # noqa: F401  (registers the games)
    from gamut.envs.loading import load_game

    _check_joker(args)
    joker = f",joker={args.joker}" if args.variant == "yahtzee" else ""
    game = load_game(f"poker_dice(variant={args.variant},players=1{joker})")
    name = f"imitation-{args.variant}" + (f"-{args.joker}" if joker else "")
    out, checkpoint, found = training_output(args, str(Path("train") / name), "gamut dice imitate")
    from gamut.solvers.poker_dice.imitation import ImitationTrainer, make_config
    from gamut.solvers.rl.training import train

    try:
        config = make_config(parse_options(args.set, "--set"))
    except ValueError as err:
        raise ValueError(f"--set: {err}") from None
    trainer = ImitationTrainer(str(game), args.seed, config, solution=_solve(args))
    if args.resume:
        notice(args, f"resuming {checkpoint} at {found['steps']:,} steps")
    with progress_bar(args, total=args.steps, unit="step", desc="imitation training",
                      initial=min(trainer.steps, args.steps)) as bar:
        def progress(done, row, finished):
            bar.set_description_str("imitation training", refresh=False)
            bar.update(min(done, args.steps) - bar.n)
            recent = f"{sum(finished) / len(finished):.4g}" if finished else "-"
            bar.set_postfix_str(f"loss {trainer.last_loss:.4g}, score {recent}, eval {row['mean_return']:.4g}",
                                refresh=False)

        def evaluating(games, final):
            bar.set_description_str(f"imitation {'final evaluation' if final else 'evaluating'}: {games:,} games")

        summary = train(trainer, args.steps, out, resume=args.resume, eval_every=args.eval_every,
                        eval_games=args.eval_games, final_games=args.final_games,
                        checkpoint_seconds=60.0 * args.checkpoint_minutes, progress=progress,
                        evaluating=evaluating)
    timing = {"train_seconds": summary.pop("seconds"), "train_cpu_seconds": summary.pop("cpu_seconds"),
              "wall_seconds": summary.pop("wall_seconds")}
    emit_result({**summary, **timing, "optimum": trainer.solution.expected_score,
                 "weights": str(out / "weights.npz")}, args.json)
    return 0


def _advance(bar, done: int, total: int) -> None:
    bar.total = total
    bar.update(done - bar.n)


def run_ranking(args: argparse.Namespace) -> int:
    from gamut.solvers.poker_dice.ranking import solve_ranking

    with progress_bar(args, None, "situation", f"{args.players}-seat ranking") as bar:
        solved = solve_ranking(args.players, progress=lambda done, total: _advance(bar, done, total))
    emit_result({"players": args.players, "win_share": solved["win_share"],
                 "seconds": solved["seconds"]}, args.json)
    return 0


def run_play(args: argparse.Namespace, read=input, write=print) -> int:
    import gamut.envs.poker_dice.game  # noqa: F401  (registers poker_dice)
    from gamut.experiments.terminal_play import PlaySession
    from gamut.experiments.validate import load_game_flag

    _check_joker(args)
    game = load_game_flag(f"poker_dice(variant={args.variant},players={args.players},joker={args.joker})",
                          "--variant/--players/--joker")
    check_seat(game, args.seat)
    check_agent_name(game, args.opponent, "--opponent")
    check_agent_name(game, args.hint, "--hint")
    PlaySession(game, human=args.seat, opponent=args.opponent, hint=args.hint, seed=args.seed,
                read=read, write=write).run()
    return 0
