"""``gamut train``: train a neural agent (PPO, NFSP or DMC) on any game of the toolkit.

Writes ``checkpoint.npz``, ``weights.npz`` (load it with
``make_bot(game, ALGO, weights=PATH)``) and ``curve.csv`` into ``--out``;
``--resume`` continues a killed run from its checkpoint with nothing finished lost.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from gamut.experiments.cli_output import add_json_flag, add_quiet_flag, emit_result, notice, progress_bar
from gamut.experiments.validate import (
    MAX_STEPS,
    check_output,
    load_game_flag,
    output_folder,
    parse_options,
    real,
    seed,
    whole,
)

ALGORITHMS = ("ppo", "nfsp", "dmc")
# Games of one evaluation: a hundred times the final evaluation's default, whose CI is already tight.
MAX_GAMES = 1_000_000


def register(subparsers) -> None:
    parser = subparsers.add_parser("train", help="train a PPO, NFSP or DMC agent, with checkpoints and resume",
                                   description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True, help="game string of a game with a batched environment, e.g. 'name(param=value)'")
    parser.add_argument("--algo", required=True, choices=ALGORITHMS,
                        help="ppo (any game; shared-policy self-play in multi-player games), nfsp "
                             "(two-player zero-sum games) or dmc (Deep Monte-Carlo: a Q-network over action "
                             "features, any game)")
    add_training_arguments(parser, 1_000_000, "train/ALGO-GAME", "num_envs=256 --set hidden=256x256")
    parser.add_argument("--eval-opponent", choices=("random", "heuristic"), default="random",
                        help="who plays the other seats of every evaluation of a multi-player game: uniform "
                             "random play or the game's heuristic, where its declaration lends one "
                             "(default: %(default)s)")
    parser.add_argument("--exploitability", action="store_true",
                        help="also compute the exact exploitability at every evaluation "
                             "(small two-player zero-sum games, e.g. Poke's small exact deal)")
    parser.add_argument("--backend", choices=("local", "ray"), default=None,
                        help="where DMC's actor parts run (with --set actors=N): local worker processes or Ray "
                             "tasks; the data do not depend on it (default: one after another in this process)")
    parser.add_argument("--workers", type=whole(1, 256), default=None,
                        help="worker processes or Ray tasks at once, with --backend (default: all cores)")
    parser.add_argument("--address", default=None,
                        help="Ray cluster to join (--backend ray only; default: start a local Ray instance)")
    add_json_flag(parser)
    add_quiet_flag(parser)
    parser.set_defaults(handler=run_train)


def add_training_arguments(parser, steps: int, default_out: str, set_example: str) -> None:
    """The flags every training command takes: budget, seed, output and resume, settings, evaluations, checkpoints.

    ``steps`` is the default of ``--steps``, ``default_out`` the folder
    ``--out`` defaults to, ``set_example`` an example of ``--set`` pairs.
    """
    parser.add_argument("--steps", type=whole(1, MAX_STEPS), default=steps,
                        help=f"total decisions to train for, at most {MAX_STEPS:,}; a resumed run continues up to "
                             "this total (default: %(default)s)")
    parser.add_argument("--seed", type=seed, default=0, help="seed of weights, actions and games (default: 0)")
    parser.add_argument("--out", type=output_folder,
                        help=f"output folder (default: {default_out} in the current folder)")
    parser.add_argument("--resume", action="store_true", help="continue the run whose checkpoint is in --out")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help=f"change a hyperparameter, e.g. --set {set_example} "
                             "(repeatable; an unknown name lists the valid ones)")
    parser.add_argument("--eval-every", type=whole(1, MAX_STEPS), metavar="STEPS",
                        help="evaluate (and checkpoint) every STEPS steps (default: a tenth of --steps)")
    parser.add_argument("--eval-games", type=whole(2, MAX_GAMES), default=1000,
                        help=f"games of each periodic evaluation, at most {MAX_GAMES:,} (default: %(default)s)")
    parser.add_argument("--final-games", type=whole(2, MAX_GAMES), default=10_000,
                        help=f"games of the final evaluation, at most {MAX_GAMES:,} (default: %(default)s)")
    parser.add_argument("--checkpoint-minutes", type=real(0, above=True), default=5.0, metavar="M",
                        help="also checkpoint every M minutes of training (default: %(default)s)")


def default_out(algo: str, game_string: str) -> str:
    """``train/ppo-poker_dice_variant_yacht12_players_1`` for a game string."""
    return str(Path("train") / f"{algo}-{re.sub(r'[^A-Za-z0-9]+', '_', game_string).strip('_')}")


def training_output(args: argparse.Namespace, default: str, command: str, **extra) -> tuple[Path, Path, dict]:
    """The output folder, checkpoint path and (with ``--resume``) the checkpoint's identity of a training command.

    Checks what every training command checks before it builds anything:
    ``--resume`` needs a checkpoint whose steps do not pass ``--steps`` (a
    total), a fresh run needs an ``--out`` without one, and training needs
    JAX and optax. ``extra`` maps more identity fields to readers of the
    checkpoint path (e.g. ``eval_opponent``). ``found`` is empty for a fresh run.
    """
    from gamut.solvers.rl.checkpoint import checkpoint_identity

    out = Path(args.out or default)
    if args.out is None:
        check_output(out, "--out", folder=True)  # the default folder, checked as a given one is by its type
    checkpoint = out / "checkpoint.npz"
    found: dict = {}
    if args.resume:
        if not checkpoint.is_file():
            raise ValueError(f"--resume: there is no checkpoint {checkpoint} to resume")
        try:
            found = {**checkpoint_identity(checkpoint), **{key: read(checkpoint) for key, read in extra.items()}}
        except ValueError as err:
            raise ValueError(f"--resume: {err}") from None
        if found["steps"] > args.steps:
            raise ValueError(f"--steps {args.steps:,} is below the {found['steps']:,} steps the checkpoint "
                             f"{checkpoint} already holds; --steps is a total")
    elif checkpoint.exists():
        raise ValueError(f"--out: {out} already holds a checkpoint; pass --resume to continue it "
                         "or choose another --out")
    try:
        import jax  # noqa: F401
        import optax  # noqa: F401
    except ImportError:
        raise ValueError(f"{command} needs JAX and optax: pip install 'gamut[train]'") from None
    return out, checkpoint, found


def run_train(args: argparse.Namespace) -> int:
    import gamut.envs  # noqa: F401  (registers the toolkit's games with pyspiel)

    game = load_game_flag(args.game, "--game")
    overrides = parse_options(args.set, "--set")
    from gamut.solvers.rl.training import checkpoint_eval_opponent

    out, checkpoint, found = training_output(args, default_out(args.algo, str(game)), "gamut train",
                                             eval_opponent=checkpoint_eval_opponent)
    from gamut.solvers.rl.training import check_exploitability_game, make_trainer, train

    if args.exploitability:
        try:
            check_exploitability_game(game)
        except ValueError as err:
            raise ValueError(f"--exploitability: {err}") from None
    from gamut.solvers.rl.opponents import heuristic_games

    if args.eval_opponent == "heuristic" and game.get_type().short_name not in heuristic_games():
        raise ValueError(f"--eval-opponent heuristic: {game.get_type().short_name} has no heuristic; "
                         f"games with one: {', '.join(heuristic_games())}")
    if args.resume and found["eval_opponent"] != args.eval_opponent:
        raise ValueError(f"--eval-opponent: the checkpoint {checkpoint} was evaluated against "
                         f"{found['eval_opponent']}; one curve takes one evaluation opponent")
    try:
        trainer = make_trainer(args.algo, str(game), args.seed, overrides)
    except ValueError as err:
        raise ValueError(f"--set/--algo: {err}") from None
    runner = _actor_backend(args, trainer)
    if args.resume:
        notice(args, f"resuming {checkpoint} at {found['steps']:,} steps")

    against = ("" if game.num_players() == 1 else
               f" against {args.eval_opponent} at the other seat{'s' if game.num_players() > 2 else ''}")
    start = min(trainer.steps, args.steps)
    with progress_bar(args, total=args.steps, unit="step", desc=f"{args.algo} training", initial=start) as bar:
        def progress(done, row, finished):
            # An update plays whole batches, so the last one may end past --steps; the bar stops at its total.
            bar.set_description_str(f"{args.algo} training", refresh=False)
            bar.update(min(done, args.steps) - bar.n)
            recent = f"{sum(finished) / len(finished):.4g}" if finished and game.num_players() == 1 else "-"
            bar.set_postfix_str(f"return {recent}, eval {row['mean_return']:.4g}", refresh=False)

        def evaluating(games, final):
            what = "final evaluation" if final else "evaluating"
            bar.set_description_str(f"{args.algo} {what}: {games:,} games{against}")

        try:
            summary = train(trainer, args.steps, out, resume=args.resume, eval_every=args.eval_every,
                            eval_games=args.eval_games, final_games=args.final_games,
                            exploitability=args.exploitability, checkpoint_seconds=60.0 * args.checkpoint_minutes,
                            progress=progress, eval_opponent=args.eval_opponent, evaluating=evaluating)
        finally:
            if runner is not None:
                runner.close()
    # Training seconds count the updates only (over the whole run, resumes included); wall seconds are this
    # command's, evaluations and checkpoints included.
    timing = {"train_seconds": summary.pop("seconds"), "train_cpu_seconds": summary.pop("cpu_seconds"),
              "wall_seconds": summary.pop("wall_seconds")}
    emit_result({**summary, **timing, "weights": str(out / "weights.npz")}, args.json)
    return 0


def _actor_backend(args: argparse.Namespace, trainer):
    """The opened backend of ``--backend`` for the trainer's actor parts, or None; refuses flags without a use."""
    if args.backend is None:
        for flag, value in (("--workers", args.workers), ("--address", args.address)):
            if value is not None:
                raise ValueError(f"{flag} needs --backend local or ray (where DMC's actor parts run)")
        return None
    if not getattr(trainer.config, "actors", 0):
        raise ValueError(f"--backend: only DMC with actors (--algo dmc --set actors=N, N >= 1) plays its games in "
                         f"parts; {args.algo} here plays them in this process")
    from gamut.solvers.backends import make_backend

    runner = make_backend(args.backend, args.address, args.workers)
    runner.open()  # an unreachable Ray cluster fails here, before any training
    trainer.use_backend(runner)
    return runner
