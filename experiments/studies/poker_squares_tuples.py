"""The n-tuple residual of Poker Squares: train it, and play ``mc_cross``'s search on it over the bound deals.

``train`` learns the residual (``gamut.solvers.poker_squares.tuples``) by
TD(0) over a schedule of step sizes, resumable chunk by chunk; ``play`` plays
the search of ``mc_cross`` (the ``keep`` cells two-ply ranks highest, each
tried by ``simulations`` rollouts of ``depth`` greedy placements on the same
sampled card orders, the grid valued at the cut, the last ``endgame`` cells
played exactly) with the residual in the ranking, the rollouts and the cut,
or without it (``--tuples none``: the corrected value alone); ``--search
two_ply`` plays two-ply expectimax on the value instead, ``greedy`` the cell
of highest value. Deal ``d`` is deal ``d`` of ``gamut squares eval --seed
SEED`` and its rollouts are seeded ``agent_seed + d``, so a run may be split
over processes (``--workers``) or interrupted and resumed (``--out`` is a
JSON-lines file, one deal a line) without changing a score. ``summary``
writes, one JSON line per ``--pair``, a run's mean and, paired deal by deal,
its difference from its reference (a ``--save-scores`` file of ``gamut
squares eval`` or another run's lines), with 95% intervals and the
provenance.

    python -m gamut.experiments.studies.poker_squares_tuples train --scoring american
    python -m gamut.experiments.studies.poker_squares_tuples play --scoring american --deals 1000 \\
        --workers 2 --out results/poker_squares_tuples/mc_tuples_american.jsonl
    python -m gamut.experiments.studies.poker_squares_tuples summary --out results/poker_squares_tuples/summary.jsonl \\
        --pair results/poker_squares_tuples/mc_tuples_american.jsonl \\
               results/poker_squares/mc_cross_343_rollouts_american.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

STUDY = "python -m gamut.experiments.studies.poker_squares_tuples"
DEFAULT_SCHEDULE = "0.01:1300000,0.002:500000"


def _points(scoring: str):
    from gamut.solvers.poker_squares.training import NAMED_SYSTEMS

    if scoring not in NAMED_SYSTEMS:
        raise ValueError(f"--scoring must be one of {sorted(NAMED_SYSTEMS)}, got {scoring!r}")
    return NAMED_SYSTEMS[scoring]


def train(args) -> dict:
    from gamut.solvers.poker_squares import tuples as T

    def progress(done, total, mean, seconds):
        print(f"{done:,} of {total:,} games, last chunk's mean {mean:.3f}, {seconds:.0f} s", file=sys.stderr,
              flush=True)

    return T.train(_points(args.scoring), T.parse_schedule(args.schedule), args.seed, args.out, progress=progress)


_SEARCH: dict = {}  # what _play_deal reads, set once per process by _load_search


def _load_search(scoring: str, tuples_file: str, opts: dict) -> None:
    """Read the learned table, the correction and the residual (``none``: zeros) of ``scoring`` for _play_deal."""
    from gamut.envs.poker_squares import kernels as K
    from gamut.solvers.poker_squares import tuples as T
    from gamut.solvers.poker_squares.crossline import load_weights
    from gamut.solvers.poker_squares.training import load_values

    points = _points(scoring)
    _SEARCH.update(cfg=K.make_config(1, False, False, points), values=load_values(points),
                   weights=load_weights(points), opts=opts,
                   tuples=T.NO_TUPLES if tuples_file == "none" else T.load_tuples(points, tuples_file or None))


def _start_worker(parent: int, scoring: str, tuples_file: str, opts: dict) -> None:
    """Pool initializer: end with the run (a killed run leaves no worker playing on), then load the search."""
    from gamut.solvers.backends import die_with_parent

    die_with_parent(parent)
    _load_search(scoring, tuples_file, opts)


def _play_deal(job) -> dict:
    """Play deal ``d`` (its 25 cards) with the search; return its line of the run."""
    from gamut.envs.hands import HAND_TABLE
    from gamut.envs.rng import rng_state
    from gamut.envs.poker_squares import kernels as K
    from gamut.solvers.poker_squares import tuples as T
    from gamut.solvers.poker_squares.grid_bots import move_without_search

    d, cards = job
    cfg, values, weights, tuples, opts = (_SEARCH[k] for k in ("cfg", "values", "weights", "tuples", "opts"))
    started = time.process_time()
    rng = rng_state(opts["agent_seed"] + d)
    state = np.empty(K.STATE_SIZE, np.int64)
    idx = np.empty(T.MAX_ACTIVE, np.int64)
    K.init_state(state)
    for card in cards:
        K.deal_card(state, int(card))
        move, cands = move_without_search(state, 0, cfg, opts["endgame"])
        if move is None and opts["search"] == "greedy":
            move = T.best_placement(state, int(card), cfg, HAND_TABLE, values, weights, tuples, idx, idx)[1]
        elif move is None and opts["search"] == "two_ply":
            ranked = np.empty(len(cands))
            T.two_ply_values(state, cands, cfg, HAND_TABLE, values, weights, tuples, ranked)
            move = int(cands[int(np.argmax(ranked))])
        elif move is None:
            if 0 < opts["keep"] < len(cands):
                ranked = np.empty(len(cands))
                T.two_ply_values(state, cands, cfg, HAND_TABLE, values, weights, tuples, ranked)
                cands = cands[np.sort(np.argsort(-ranked, kind="stable")[:opts["keep"]])]
            sums = np.zeros(len(cands))
            T.rollout_sums(state, cands, opts["simulations"], rng, opts["depth"], cfg, HAND_TABLE, values, weights,
                           tuples, sums)
            move = int(cands[int(np.argmax(sums))])
        K.place_card(state, 0, move)
    return {"deal": d, "score": int(K.grid_score(state, 0, cfg, HAND_TABLE)),
            "cpu_seconds": time.process_time() - started}


def _done_deals(out: Path) -> set[int]:
    """Deals already in ``out``; a clear error on a line that is not a deal's record (a partial last line is
    dropped, it is the deal an interruption cut off)."""
    if not out.exists():
        return set()
    lines = out.read_text().splitlines()
    done = set()
    for number, line in enumerate(lines, 1):
        try:
            done.add(int(json.loads(line)["deal"]))
        except (ValueError, KeyError, TypeError):
            if number == len(lines):
                out.write_text("".join(f"{kept}\n" for kept in lines[:-1]))
                break
            raise ValueError(f"{out} line {number} is not a deal's record: {line[:80]!r}") from None
    return done


def play(args) -> dict:
    from gamut.experiments.provenance import command_record
    from gamut.solvers.poker_squares import tuples as T
    from gamut.solvers.poker_squares.evaluation import deals
    from gamut.solvers.poker_squares.training import file_sha256

    if args.deals < 1 or args.simulations < 1 or args.keep < 0 or args.depth < 0 or not 0 <= args.endgame <= 6 \
            or args.workers < 1:
        raise ValueError("play needs --deals, --simulations and --workers >= 1, --keep and --depth >= 0 and "
                         "--endgame in 0..6")
    points = _points(args.scoring)
    opts = {"search": args.search, "simulations": args.simulations, "keep": args.keep, "depth": args.depth,
            "endgame": args.endgame, "agent_seed": args.agent_seed}
    out = Path(args.out)
    meta_path = out.with_suffix(".meta.json")
    # The residual is recorded by its bytes' digest: a path differs between checkouts, the file must not.
    tuples_file = T.tuples_path(points) if not args.tuples else None if args.tuples == "none" else Path(args.tuples)
    meta = {"scoring": args.scoring, "tuples": args.tuples or "committed",
            "tuples_sha256": file_sha256(tuples_file) if tuples_file and tuples_file.exists() else None,
            "seed": args.seed, **opts}
    if meta_path.exists():
        recorded = json.loads(meta_path.read_text())
        if {k: recorded.get(k) for k in meta} != meta:
            raise ValueError(f"{out} was played with other settings ({meta_path}); remove both files or pass the "
                             "same settings to resume")
    _load_search(args.scoring, args.tuples, opts)  # before any file is touched: a missing or stale file stops here
    out.parent.mkdir(parents=True, exist_ok=True)
    done = _done_deals(out)
    the_deals = deals(args.seed, args.deals)
    jobs = [(d, the_deals[d]) for d in range(args.deals) if d not in done]
    meta_path.write_text(json.dumps({**meta, "provenance": command_record(args.argv, program=STUDY)}, indent=1) + "\n")
    with out.open("a") as handle:
        if args.workers == 1:
            results = map(_play_deal, jobs)
            pool = None
        else:
            from multiprocessing import get_context

            pool = get_context("spawn").Pool(args.workers, _start_worker, (os.getpid(), args.scoring, args.tuples,
                                                                            opts))
            results = pool.imap_unordered(_play_deal, jobs)
        try:
            for count, row in enumerate(results, 1):
                handle.write(json.dumps(row) + "\n")
                handle.flush()
                print(f"{len(done) + count} of {args.deals} deals", file=sys.stderr, flush=True)
        finally:
            if pool is not None:
                pool.terminate()
    return {"out": str(out), "deals": args.deals}


def _scores(path: str) -> dict[int, float]:
    """Deal -> score of a run's lines, of a ``gamut squares eval --save-scores`` file, or of one budget of the
    lower-bound experiment's trials (``results/poker_squares_lower_bound/trials.csv:american:30``: the file,
    the scoring and the budget in CPU seconds a game)."""
    if ".csv:" in path:
        import pandas as pd

        file, scoring, seconds = path.rsplit(":", 2)
        trials = pd.read_csv(file)
        try:
            chosen = trials[(trials["scoring"] == scoring) & (trials["seconds"] == float(seconds))]
        except (KeyError, ValueError):
            raise ValueError(f"{path}: a trials reference is FILE.csv:SCORING:SECONDS of a table with scoring, "
                             "seconds, deal and score columns") from None
        if chosen.empty:
            raise ValueError(f"{file} holds no {scoring} trials at {seconds} s a game: it has "
                             f"{sorted(set(zip(trials['scoring'], trials['seconds'])))}")
        return dict(zip(chosen["deal"].astype(int), chosen["score"].astype(float)))
    text = Path(path).read_text()
    if path.endswith(".jsonl"):
        return {int(row["deal"]): float(row["score"]) for row in map(json.loads, text.splitlines())}
    return {d: float(s) for d, s in enumerate(json.loads(text)["scores"])}


def summary(args) -> dict:
    from gamut.experiments.provenance import command_record
    from gamut.solvers.stats import mean_ci, paired_diff_ci

    rows = []
    for run, reference_file in args.pair:
        scores, reference = _scores(run), _scores(reference_file)
        meta_path = Path(run).with_suffix(".meta.json")
        common = sorted(set(scores) & set(reference))
        est = mean_ci([scores[d] for d in sorted(scores)])
        ref = mean_ci([reference[d] for d in common])
        diff = paired_diff_ci([scores[d] for d in common], [reference[d] for d in common])
        rows.append({"run": run, "settings": json.loads(meta_path.read_text()) if meta_path.exists() else None,
                     "n": est.n, "mean": est.value, "ci95": [est.ci95_low, est.ci95_high],
                     "reference": reference_file, "reference_mean": ref.value,
                     "reference_ci95": [ref.ci95_low, ref.ci95_high], "paired_n": diff.n,
                     "minus_reference": diff.value, "minus_reference_ci95": [diff.ci95_low, diff.ci95_high]})
    provenance = command_record(args.argv, program=STUDY)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("".join(json.dumps({**row, "provenance": provenance}) + "\n" for row in rows))
    return {"out": args.out, "pairs": rows}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("train", help="learn the residual by TD(0), resumable")
    p.add_argument("--scoring", default="american")
    p.add_argument("--schedule", default=DEFAULT_SCHEDULE, help="ALPHA:GAMES stages (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="the file (default: results/poker_squares/tuples_<scoring>.npz)")
    p = sub.add_parser("play", help="play mc_cross's search with the residual on the bound deals, resumable")
    p.add_argument("--scoring", default="american")
    p.add_argument("--tuples", default="", help="the residual's file, or none (default: the committed one)")
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--seed", type=int, default=2026, help="deal seed (gamut squares eval --seed)")
    p.add_argument("--agent-seed", type=int, default=20261206, help="deal d's rollouts are seeded this + d")
    p.add_argument("--search", choices=("mc", "two_ply", "greedy"), default="mc",
                   help="mc_cross's Monte Carlo (default), two-ply expectimax or greedy, on the value")
    p.add_argument("--simulations", type=int, default=343, help="rollouts per cell and move")
    p.add_argument("--keep", type=int, default=6)
    p.add_argument("--depth", type=int, default=3)
    p.add_argument("--endgame", type=int, default=5)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", required=True, help="JSON-lines file of the deals' scores")
    p = sub.add_parser("summary", help="means and paired differences from a reference, with 95% intervals")
    p.add_argument("--pair", nargs=2, action="append", required=True, metavar=("RUN", "REFERENCE"),
                   help="a play run's lines and the per-deal scores (.jsonl, .json of gamut squares eval "
                        "--save-scores, or TRIALS.csv:SCORING:SECONDS of the lower-bound experiment) it is "
                        "paired with; repeatable")
    p.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    args.argv = argv
    try:
        result = {"train": train, "play": play, "summary": summary}[args.command](args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result if args.command != "train" else {k: v for k, v in result.items() if k != "chunk_means"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
