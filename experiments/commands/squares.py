"""``gamut squares``: Poker Squares agents scored on seeded deals, bounds, training, play.

``gamut squares eval --agent NAME --deals N --seed S`` scores an agent on the N
deals fixed by S (the same deals for every agent); ``gamut squares bound``
bounds the clairvoyant optimum (best arrangement of the 25 known cards) on the
same deals, an upper bound on the optimal expected score, and with ``--penalty
learned`` the tighter information-relaxation bound; ``gamut squares
train`` learns the partial-line values of a point system (checkpointed,
resumable) and ``gamut squares train-crossline`` fits the cross-line
correction on top of them (``gamut.solvers.poker_squares.crossline``); ``gamut squares
endgame --position FILE`` solves a saved position with at most 8 empty cells exactly
(``gamut.solvers.poker_squares.endgame``); ``gamut squares play`` lets a person play with hints.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gamut.experiments.cli_output import (
    add_json_flag,
    add_quiet_flag,
    emit_result,
    progress_bar,
)
from gamut.experiments.commands.action import add_action, add_command
from gamut.experiments.validate import (MAX_SECONDS, MAX_STEPS, check_agent, check_agent_name, check_output, input_file,
                                        memory_count, output_file, parse_options, real, seed, whole)

# Memory held per deal by eval and bound: the deal generator's 52 random floats and their
# argsort (2 x 416 bytes), the deal (200), the final grid (200) and a few per-deal figures.
DEAL_BYTES = 1_100
# Cross-line fitting rounds: each plays --games self-play games and refits; the committed fit took 10.
MAX_ROUNDS = 10_000
# Points of a hand may be negative; this bound keeps ten lines' sums and the learned tables' keys
# far inside the kernels' int64.
MAX_POINTS = 10**9


def scoring(text: str) -> str:
    """argparse type of --scoring: a point system's name or ten whole points within +-MAX_POINTS."""
    from gamut.envs.poker_squares.game import POINT_SYSTEMS

    if text in POINT_SYSTEMS:
        return text
    parts = text.replace(";", ",").split(",")
    try:
        points = [int(x) for x in parts]
    except ValueError:
        points = []
    if len(points) != 10 or any(abs(p) > MAX_POINTS for p in points):
        raise argparse.ArgumentTypeError(
            f"expected {' or '.join(sorted(POINT_SYSTEMS))}, or ten whole points separated by commas "
            f"(high card .. royal flush), each within -{MAX_POINTS:,}..{MAX_POINTS:,}; got {text!r}")
    return text


def _add_scoring(parser) -> None:
    parser.add_argument("--scoring", type=scoring, default="american",
                        help="american, english, or ten comma-separated points high card..royal flush "
                             "(default: %(default)s)")


def _add_deals(parser) -> None:
    parser.add_argument("--deals", type=memory_count(DEAL_BYTES), default=500,
                        help="number of seeded deals (default: %(default)s)")
    parser.add_argument("--seed", type=seed, default=0, help="seed fixing the deals (default: %(default)s)")


def _add_output_flags(parser) -> None:
    add_json_flag(parser)
    add_quiet_flag(parser)


def register(subparsers) -> None:
    actions = add_command(subparsers, "squares", "Poker Squares: agents, bounds, training, play", __doc__)

    ev = add_action(actions, "eval", run_eval, help="mean score of an agent on seeded deals, with a 95%% CI")
    ev.add_argument("--agent", required=True,
                    help="agent name (random, greedy, learned, crossline, expectimax, expectimax_deep, "
                         "expectimax_cross, mc, mc_learned, mc_cross, net, net_search)")
    _add_deals(ev)
    _add_scoring(ev)
    ev.add_argument("--seconds-per-game", type=real(0, MAX_SECONDS, above=True),
                    help=f"time budget per game, at most {MAX_SECONDS:g} (an hour), for agents that take one "
                         "(expectimax, expectimax_deep, expectimax_cross, mc, mc_learned, mc_cross, net_search)")
    ev.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="agent option, repeatable (e.g. --option policy=learned)")
    ev.add_argument("--agent-seed", type=seed, default=1, help="seed of the agent's own randomness")
    ev.add_argument("--save-scores", metavar="FILE", type=output_file,
                    help="write the per-deal scores (JSON, with agent, seed, scoring) for a later --paired-with")
    ev.add_argument("--paired-with", metavar="FILE", type=input_file,
                    help="a --save-scores file of another agent on the same deals: also report the paired "
                         "difference (this agent minus that one) with its 95%% CI")
    _add_output_flags(ev)

    bound = add_action(actions, "bound", run_bound,
                       help="clairvoyant optimum on seeded deals (upper bound), with a 95%% CI")
    _add_deals(bound)
    _add_scoring(bound)
    bound.add_argument("--time-limit", type=real(0, MAX_SECONDS, above=True), default=20.0,
                       help=f"core ILP seconds per deal, at most {MAX_SECONDS:g}, before settling for a bound with "
                            "a gap (default: %(default)s)")
    bound.add_argument("--penalty", choices=("none", "learned", "fitted"), default="none",
                       help="also compute the information-relaxation (duality) bound with a penalty built from "
                            "the learned values (learned) or from them fitted to minimise the bound on tuning "
                            "deals (fitted, the one poker_squares_bounds publishes); american or "
                            "english only (default: %(default)s)")
    bound.add_argument("--scale", type=real(0),
                       help="penalty scale (default: the one tuned on separate deals: for learned "
                            "gamut.solvers.poker_squares.duality.TUNED_SCALE, for fitted the scale_<scoring> of "
                            "experiments/configs/poker_squares_bounds.toml)")
    bound.add_argument("--inner", choices=("dw", "lp", "bnp"), default="dw",
                       help="bound on each deal's relaxed problem: Dantzig-Wolfe (dw, each side's partition "
                            "integral; tighter, about 1-3 s a deal), the set-partitioning LP alone (lp), or "
                            "branch and price (bnp, --nodes nodes of Dantzig-Wolfe bounds; tightest, about 5-40 s "
                            "a deal) (default: %(default)s)")
    bound.add_argument("--nodes", type=whole(1, 100_000), default=40,
                       help="branch-and-price nodes per deal, with --inner bnp (default: %(default)s)")
    bound.add_argument("--by-line", action="store_true",
                       help="penalty form: every open line fully (default: weighted by the chance a random "
                            "empty cell lies in it)")
    _add_output_flags(bound)

    train = add_action(actions, "train", run_train, help="learn the partial-line values of a point system (resumable)")
    _add_scoring(train)
    train.add_argument("--games", type=whole(1, MAX_STEPS), default=4_000_000,
                       help=f"self-play games in all, a multiple of 100000, at most {MAX_STEPS:,} "
                            "(default: %(default)s)")
    train.add_argument("--seed", type=seed, default=0, help="training seed (default: %(default)s)")
    train.add_argument("--eps-start", type=real(0, 1), default=0.5, help="initial exploration rate, 0..1")
    train.add_argument("--eps-end", type=real(0, 1), default=0.0, help="final exploration rate, 0..1")
    train.add_argument("--out", type=output_file,
                       help="table file (default: results/poker_squares/values_<scoring>.npz)")
    _add_output_flags(train)

    cross = add_action(actions, "train-crossline", run_train_crossline,
                       help="fit the cross-line correction of the learned values (resumable)")
    _add_scoring(cross)
    cross.add_argument("--rounds", type=whole(1, MAX_ROUNDS), default=10,
                       help=f"fitting rounds, at most {MAX_ROUNDS:,} (default: %(default)s)")
    # A round keeps one score (8 bytes) per game.
    cross.add_argument("--games", type=memory_count(8), default=200_000,
                       help="self-play games per round (default: %(default)s)")
    cross.add_argument("--seed", type=seed, default=0, help="fitting seed (default: %(default)s)")
    cross.add_argument("--ridge", type=real(0, above=True), default=100.0,
                       help="ridge penalty of the fit, > 0 (default: %(default)s)")
    cross.add_argument("--table", type=input_file,
                       help="learned table (default: results/poker_squares/values_<scoring>.npz)")
    cross.add_argument("--out", type=output_file,
                       help="weights file (default: results/poker_squares/crossline_<scoring>.npz)")
    _add_output_flags(cross)

    net = add_action(actions, "train-net", run_train_net,
                     help="train the afterstate value network by batched self-play, TD(lambda) and replay "
                          "(resumable; needs the train extra: JAX, optax)")
    _add_scoring(net)
    net.add_argument("--positions", type=whole(1, MAX_STEPS), required=True,
                     help=f"training positions (afterstates, 24 per game) to reach, in whole chunks, at most "
                          f"{MAX_STEPS:,}")
    net.add_argument("--out", type=output_file, required=True, help="checkpoint file, written after every chunk")
    net.add_argument("--seed", type=seed, default=0, help="training seed (default: %(default)s)")
    net.add_argument("--resume", action="store_true",
                     help="continue the run of --out (same settings; --positions may be raised)")
    net.add_argument("--workers", type=whole(1, 256), default=1,
                     help="parts each chunk's games are split into, played in parallel on the backend; the games "
                          "do not depend on it (default: %(default)s)")
    net.add_argument("--backend", choices=("local", "ray"), default="local",
                     help="where the parts run: local processes (default) or Ray tasks")
    net.add_argument("--address", default=None,
                     help="Ray cluster to join (ray backend only; default: start a local Ray instance)")
    net.add_argument("--games-per-chunk", type=whole(1, 1_000_000), default=2048,
                     help="self-play games per chunk (default: %(default)s)")
    net.add_argument("--updates", type=whole(0, 1_000_000), default=384,
                     help="Adam steps per chunk (default: %(default)s)")
    net.add_argument("--batch", type=whole(1, 1_000_000), default=256, help="minibatch size (default: %(default)s)")
    net.add_argument("--buffer", type=memory_count(29), default=400_000,
                     help="replay buffer, in positions (default: %(default)s)")
    net.add_argument("--lam", type=real(0, 1), default=0.7, help="TD(lambda) lambda, 0..1 (default: %(default)s)")
    net.add_argument("--epsilon", type=real(0, 1), default=0.05,
                     help="probability of a random empty cell in self-play, 0..1 (default: %(default)s)")
    net.add_argument("--learning-rate", type=real(0, 1, above=True), default=1e-3,
                     help="Adam step size (default: %(default)s)")
    net.add_argument("--teacher-chunks", type=whole(0, 1_000_000), default=0,
                     help="first chunks played by the crossline agent, their final scores as targets (needs its "
                          "committed table and correction) (default: %(default)s)")
    net.add_argument("--base", choices=("none", "crossline"), default="none",
                     help="train the network as a residual over this value: crossline (the committed table and "
                          "correction; play starts as the crossline agent's) or none (default: %(default)s)")
    net.add_argument("--bootstrap", choices=("drawn", "expected"), default="drawn",
                     help="what each TD(lambda) target bootstraps from at the next move: the best afterstate value "
                          "for the card drawn (drawn), or its mean over every unseen card, the two-ply search's "
                          "expectation (expected: a search-labelled target; self-play values some 40x as many afterstates) "
                          "(default: %(default)s)")
    net.add_argument("--export", type=output_file,
                     help="also write the weight file the net agents read (e.g. results/poker_squares/"
                          "net_american.npz)")
    _add_output_flags(net)

    end = add_action(actions, "endgame", run_endgame,
                     help="exact optimal expected score of a saved position with 1..8 empty cells (and of each cell "
                          "for the next card)")
    end.add_argument("--position", required=True, type=input_file,
                     help="text file: five rows of five cards ('..' for an empty cell, e.g. 'Ac Kc .. 5d 9h'), then "
                          "optionally a line 'next: CARD', the card to place; every other card may come next")
    _add_scoring(end)
    _add_output_flags(end)

    play = add_action(actions, "play", run_play, help="play Poker Squares in the terminal with hints")
    _add_scoring(play)
    play.add_argument("--seed", type=seed, default=0, help="deal seed (default: %(default)s)")
    play.add_argument("--hint", default=None,
                      help="agent giving hints (default: expectimax_cross, with the estimated final score of "
                      "each cell it weighed; expectimax or greedy when its tables are missing)")


def _game(scoring: str, variant: str = "standard"):
    import pyspiel

    import gamut.envs  # noqa: F401  (registers poker_squares)

    return pyspiel.load_game("poker_squares", {"scoring": scoring, "variant": variant})


def run_eval(args) -> int:
    import numpy as np

    from gamut.solvers.bots import bot_specs
    from gamut.solvers.poker_squares.evaluation import deals, evaluate
    from gamut.solvers.stats import mean_ci, paired_diff_ci

    game = _game(args.scoring)
    options = parse_options(args.option, "--option")
    if args.seconds_per_game is not None:
        spec = bot_specs(game).get(args.agent)
        if spec is None or "seconds_per_game" not in spec.options:
            raise ValueError(f"agent {args.agent!r} takes no time budget; --seconds-per-game applies to: "
                             + ", ".join(n for n, s in bot_specs(game).items() if "seconds_per_game" in s.options))
        options["seconds_per_game"] = float(args.seconds_per_game)
    other = _read_scores(args.paired_with, args) if args.paired_with else None
    bot = check_agent(game, args.agent, "--agent", options, seed=args.agent_seed)
    the_deals = deals(args.seed, args.deals)
    # One deal per call of the same bot: the games are played in the same order as in one call.
    parts = []
    with progress_bar(args, args.deals, "deal", f"{args.agent}") as bar:
        for i in range(args.deals):
            parts.append(evaluate(game, bot, the_deals[i:i + 1]))
            bar.update(1)
    result = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
    est = mean_ci(result["scores"])
    out = {"agent": args.agent, "scoring": args.scoring, "seed": args.seed, "mean": est.value,
           "ci95_low": est.ci95_low, "ci95_high": est.ci95_high, "n": int(est.n),
           "sd": float(np.std(result["scores"], ddof=1)) if args.deals > 1 else 0.0,
           "seconds_per_game": float(result["seconds"].mean())}
    if other is not None:
        diff = paired_diff_ci(result["scores"], other["scores"])
        out.update({"paired_with": other["agent"], "paired_diff": diff.value, "paired_ci95_low": diff.ci95_low,
                    "paired_ci95_high": diff.ci95_high})
    if args.save_scores:
        from gamut.experiments.provenance import command_record
        from gamut.solvers.atomic_file import write_atomically

        # The agent's seed and the provenance make the file a result of its own, reproducible by its command.
        write_atomically(args.save_scores, (json.dumps({
            "agent": args.agent, "options": options, "scoring": args.scoring, "seed": args.seed,
            "agent_seed": args.agent_seed, "deals": args.deals, "scores": [int(s) for s in result["scores"]],
            "mean": out["mean"], "ci95_low": out["ci95_low"], "ci95_high": out["ci95_high"],
            "provenance": command_record(args.argv)}) + "\n").encode())
    emit_result(out, args.json)
    return 0


def _read_scores(path: str, args) -> dict:
    """A --save-scores file, checked to hold the same deals (seed, count) and scoring as this run."""
    try:
        saved = json.loads(Path(path).read_text())
        fields = (saved["agent"], saved["scoring"], int(saved["seed"]), int(saved["deals"]), saved["scores"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ValueError(f"--paired-with {path}: not a --save-scores file ({err})") from None
    if fields[1:4] != (args.scoring, args.seed, args.deals) or len(fields[4]) != args.deals:
        raise ValueError(f"--paired-with {path}: its deals are scoring={fields[1]} seed={fields[2]} "
                         f"deals={fields[3]}; this run has scoring={args.scoring} seed={args.seed} "
                         f"deals={args.deals} (a paired difference needs the same deals)")
    return saved


def _tuned_scale(args) -> float:
    """The penalty scale tuned on separate deals for ``--penalty`` and ``--scoring`` (``--by-line`` for learned)."""
    if args.penalty == "learned":
        from gamut.solvers.poker_squares.duality import TUNED_SCALE

        return TUNED_SCALE[(args.scoring, not args.by_line)]
    import tomllib

    from gamut.experiments.config import CONFIG_DIR

    # One truth: the scale the published bounds use, chosen there by the tuning table.
    params = tomllib.loads((CONFIG_DIR / "poker_squares_bounds.toml").read_text())["params"]
    return float(params[f"scale_{args.scoring}"])


def run_bound(args) -> int:
    from gamut.solvers.poker_squares.bounds import clairvoyant_bounds
    from gamut.solvers.poker_squares.evaluation import deals
    from gamut.solvers.stats import mean_ci

    game = _game(args.scoring)
    if args.penalty == "none" and (args.scale is not None or args.by_line):
        raise ValueError("--scale and --by-line apply only with --penalty learned or fitted")
    if args.inner != "bnp" and args.nodes != 40:
        raise ValueError("--nodes applies only with --inner bnp")
    if args.penalty == "fitted" and args.by_line:
        raise ValueError("--by-line: the fitted tables were fitted for the by-cell penalty form; use --penalty learned")
    if args.penalty != "none":
        from gamut.solvers.poker_squares.penalty_table import load_penalty_values

        values = load_penalty_values(args.scoring, args.penalty)  # checked before the long clairvoyant part
    the_deals = deals(args.seed, args.deals)
    with progress_bar(args, args.deals, "deal", "clairvoyant bound") as bar:
        res = clairvoyant_bounds(the_deals, game.cfg, time_limit=args.time_limit,
                                 progress=lambda done: bar.update(done - bar.n))
    upper, best = mean_ci(res["upper"]), mean_ci(res["best"])
    out = {"scoring": args.scoring, "seed": args.seed, "mean": upper.value, "ci95_low": upper.ci95_low,
           "ci95_high": upper.ci95_high, "n": int(upper.n), "proven_optimal": int(res["proven"].sum()),
           "arrangement_mean": best.value, "arrangement_ci95_low": best.ci95_low,
           "arrangement_ci95_high": best.ci95_high, "mean_gap": float((res["upper"] - res["best"]).mean()),
           "core_mean": float(res["core_upper"].mean()), "partition_mean": float(res["partition_upper"].mean())}
    if args.penalty != "none":
        import numpy as np

        from gamut.solvers.poker_squares.duality import duality_bounds

        scale = _tuned_scale(args) if args.scale is None else args.scale
        # Deals are bounded independently, so one call per deal gives the arrays of one call for all.
        parts = []
        with progress_bar(args, args.deals, "deal", "duality bound") as bar:
            for i in range(args.deals):
                parts.append(duality_bounds(the_deals[i:i + 1], game.cfg, values, scale, res["grids"][i:i + 1],
                                            by_cell=not args.by_line, inner=args.inner, nodes=args.nodes))
                bar.update(1)
        dual = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
        est = mean_ci(dual["upper"])
        inner = mean_ci(dual["value"])
        out.update({"duality_mean": est.value, "duality_ci95_low": est.ci95_low,
                    "duality_ci95_high": est.ci95_high, "duality_relaxed_found_mean": inner.value,
                    "duality_relaxed_found_ci95_low": inner.ci95_low,
                    "duality_relaxed_found_ci95_high": inner.ci95_high, "duality_penalty": args.penalty,
                    "duality_scale": scale, "duality_form": "by_line" if args.by_line else "by_cell",
                    "duality_inner": args.inner, **({"duality_nodes": args.nodes} if args.inner == "bnp" else {})})
    emit_result(out, args.json)
    return 0


def _chunk_progress(args, bar, line: str):
    """A training callback ``(done, total, mean, seconds)``: the bar on a terminal, else the old log line.

    Without a terminal (a log file), the per-chunk line is printed as before unless ``--json`` or
    ``--quiet`` is given.
    """
    log = bar.disable and not args.json and not args.quiet

    def progress(done, total, mean, seconds):
        if log:
            print(line.format(done=done, total=total, mean=mean, seconds=seconds), flush=True)
        else:
            bar.set_postfix_str(f"mean {mean:.2f}", refresh=False)
            bar.update(done - bar.n)

    return progress


def _run_fit(args, default_out, total: int, unit: str, label: str, line: str, fit) -> int:
    """Check ``--out`` (or ``default_out``), run ``fit(progress)`` under a progress bar, print its summary.

    ``line`` is the per-chunk log line of ``_chunk_progress``.
    """
    check_output(args.out or default_out, "--out")
    with progress_bar(args, total, unit, label) as bar:
        summary = fit(_chunk_progress(args, bar, line))
    emit_result(summary, args.json)
    return 0


def run_train(args) -> int:
    from gamut.envs.poker_squares.game import parse_points
    from gamut.solvers.poker_squares.training import table_path, train

    points = parse_points(args.scoring)
    return _run_fit(args, table_path(points), args.games, "game", "self-play",
                    "{done:>10,} / {total:,} games   mean of the last chunk {mean:7.2f}   {seconds:7.0f} s",
                    lambda progress: train(points, args.games, seed=args.seed, eps_start=args.eps_start,
                                           eps_end=args.eps_end, path=args.out, progress=progress))


def run_train_crossline(args) -> int:
    from gamut.envs.poker_squares.game import parse_points
    from gamut.solvers.poker_squares.crossline import fit_rounds, weights_path

    points = parse_points(args.scoring)
    return _run_fit(args, weights_path(points), args.rounds, "round", "cross-line fit",
                    "round {done} / {total}   mean of its games {mean:7.2f}   {seconds:7.0f} s",
                    lambda progress: fit_rounds(points, args.rounds, args.games, seed=args.seed, ridge=args.ridge,
                                                path=args.out, table=args.table, progress=progress))


def run_train_net(args) -> int:
    import importlib.util
    import shlex

    missing = [name for name in ("jax", "optax") if importlib.util.find_spec(name) is None]
    if missing:
        raise ValueError(f"train-net needs {' and '.join(missing)} (the train extra): pip install -e '.[train]'")
    from gamut.solvers.poker_squares.net_train import POSITIONS_PER_GAME, export, train_net

    settings = {"games_per_chunk": args.games_per_chunk, "updates": args.updates, "batch": args.batch,
                "buffer": args.buffer, "lam": args.lam, "epsilon": args.epsilon,
                "learning_rate": args.learning_rate, "teacher_chunks": args.teacher_chunks, "base": args.base,
                "bootstrap": args.bootstrap}
    per_chunk = args.games_per_chunk * POSITIONS_PER_GAME
    total = -(-args.positions // per_chunk) * per_chunk
    command = "gamut " + shlex.join(args.argv)  # the command's own words, also when called as main([...])
    with progress_bar(args, total, "position", "self-play + TD(lambda)") as bar:
        summary = train_net(args.scoring, args.positions, Path(args.out), seed=args.seed, resume=args.resume,
                            workers=args.workers, backend=args.backend, address=args.address,
                            command=command, progress=_chunk_progress(
                                args, bar, "{done:>12,} / {total:,} positions   mean of the chunk's games "
                                           "{mean:7.2f}   {seconds:7.0f} s"), **settings)
    if args.export:
        summary["export"] = export(Path(args.out), Path(args.export), command)["sha256"]
    emit_result(summary, args.json)
    return 0


def run_endgame(args) -> int:
    import time

    import numpy as np

    from gamut.envs.cards import NUM_CARDS, card_str
    from gamut.envs.poker_squares import kernels as K
    from gamut.solvers.poker_squares.endgame import endgame_move_values, endgame_value, parse_position

    game = _game(args.scoring)
    try:
        grid, card = parse_position(Path(args.position).read_text())
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise ValueError(f"--position {args.position}: {err}") from None
    seen = set(grid[grid >= 0].tolist()) | ({card} if card is not None else set())
    unseen = np.array([c for c in range(NUM_CARDS) if c not in seen], dtype=np.int64)
    started = time.perf_counter()
    out = {"scoring": args.scoring, "empty_cells": int((grid < 0).sum())}
    try:
        if card is None:
            out["value"] = endgame_value(grid, unseen, game.cfg)
        else:
            cells, values = endgame_move_values(grid, card, unseen, game.cfg)
            best = int(np.argmax(values))
            out.update({"next": card_str(card), "value": float(values[best]),
                        "best_cell": f"row {cells[best] // K.GRID_SIZE} column {cells[best] % K.GRID_SIZE}"})
            out.update({f"cell r{c // K.GRID_SIZE}c{c % K.GRID_SIZE}": float(v) for c, v in zip(cells, values)})
    except ValueError as err:
        raise ValueError(f"--position {args.position}: {err}") from None
    out["seconds"] = time.perf_counter() - started
    emit_result(out, args.json)
    return 0


def run_play(args) -> int:
    import gamut.experiments.squares_view  # noqa: F401  (registers the grid view)
    from gamut.experiments.terminal_play import PlaySession

    game = _game(args.scoring)
    check_agent_name(game, args.hint, "--hint")
    PlaySession(game, human=0, hint=args.hint, seed=args.seed).run()
    return 0
