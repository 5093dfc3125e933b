"""Expert iteration for Poke's ``nn_ismcts``: record the search's root values, then fit the network to them.

    python -m gamut.experiments.studies.poke_expert_iteration data \\
        --weights results/nn_ismcts/networks/dmc_poke_deal_tv34.npz --deals 1200 --iterations 300 \\
        --seed 1 --workers 2 --out runs/exit_poke/data
    python -m gamut.experiments.studies.poke_expert_iteration fit \\
        --weights results/nn_ismcts/networks/dmc_poke_deal_tv34.npz --data runs/exit_poke/data \\
        --epochs 20 --out results/nn_ismcts/networks/exit_poke_deal_tv34.npz

``data`` plays ``--deals`` one-deal games of ``--game`` with ``ismcts`` in
both seats (``--iterations`` a decision) and records, at every decision with
a choice, the mean return the search found for each candidate
(``gamut.solvers.poke.expert_iteration``). Deals are written in chunks of
``--chunk`` to ``<out>/chunk_<first>.npz`` as each finishes: an interrupted
run resumes with the same command and replays no finished chunk, and
``<out>/settings.json`` refuses a resume with other settings. Every deal is
seeded by ``(seed, deal index)``, so the chunks do not depend on
``--workers``.

``fit`` fits the network's Q-head to the recorded values (visit-weighted
squared error, Adam), holding out the last ``--held-out`` share of the deals
to choose the epoch, and writes a weights file for ``nn_ismcts`` (option
``weights=PATH``) with its curve in the header and in ``<out>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np

GAME = "poke(mode=deal,trick_value=34.0)"
FIELDS = ("x", "rows", "feats", "target", "visits", "deals")


def _chunk(args: tuple) -> tuple[int, str]:
    """Play one chunk and write it atomically; returns its first deal and file name."""
    from gamut.solvers.blas_threads import one_blas_thread
    from gamut.solvers.poke.expert_iteration import search_targets

    game, weights, first, count, iterations, seed, out = args
    one_blas_thread()
    data = search_targets(game, weights, first, count, iterations, seed)
    path = Path(out) / f"chunk_{first:07d}.npz"
    part = path.with_suffix(".part.npz")
    np.savez(part, **data.arrays())
    part.replace(path)
    return first, path.name


def collect(args) -> None:
    """``data``: play the missing chunks (in worker processes with ``--workers`` > 1)."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    settings = {"game": args.game, "weights": str(args.weights), "iterations": args.iterations, "seed": args.seed,
                "chunk": args.chunk}
    recorded = out / "settings.json"
    if recorded.is_file():
        before = json.loads(recorded.read_text())
        if before != settings:
            raise SystemExit(f"error: {out} holds data of other settings ({before}); use another --out")
    else:
        recorded.write_text(json.dumps(settings, indent=1) + "\n")
    firsts = range(0, args.deals, args.chunk)
    todo = [f for f in firsts if not (out / f"chunk_{f:07d}.npz").is_file()]
    jobs = [(args.game, str(args.weights), f, min(args.chunk, args.deals - f), args.iterations, args.seed, str(out))
            for f in todo]
    print(f"{len(firsts) - len(todo)} of {len(firsts)} chunks already written; playing {len(jobs)}", flush=True)
    start = time.time()
    if args.workers > 1:
        from gamut.solvers.backends import die_with_parent

        # A killed run leaves no worker playing on.
        with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn"), initializer=die_with_parent,
                                 initargs=(os.getpid(),)) as pool:
            for done, (first, name) in enumerate(pool.map(_chunk, jobs), 1):
                print(f"[{done}/{len(jobs)}] {name} ({time.time() - start:.0f} s)", flush=True)
    else:
        for done, job in enumerate(jobs, 1):
            print(f"[{done}/{len(jobs)}] {_chunk(job)[1]} ({time.time() - start:.0f} s)", flush=True)


def load_data(folder: Path):
    """Every chunk of ``folder`` in deal order, as one ``SearchTargets``."""
    from gamut.solvers.poke.expert_iteration import SearchTargets

    paths = sorted(folder.glob("chunk_*.npz"))
    paths = [p for p in paths if not p.name.endswith(".part.npz")]
    if not paths:
        raise SystemExit(f"error: no chunk_*.npz in {folder}; run the data command first")
    parts = []
    for path in paths:
        with np.load(path, allow_pickle=False) as z:
            parts.append(SearchTargets(*(z[name] for name in FIELDS)))
    return SearchTargets.concatenate(parts)


def fit(args) -> None:
    """``fit``: fit the network to the data, keep the best held-out epoch, write the weights and the curve."""
    from gamut.solvers.poke.expert_iteration import fit_to_targets, save_fitted
    from gamut.solvers.rl.checkpoint import load_weights

    data = load_data(Path(args.data))
    settings = json.loads((Path(args.data) / "settings.json").read_text())
    deals = np.unique(data.deals)
    kept = int(round(len(deals) * (1 - args.held_out)))  # deals trained on; the rest are held out
    cut = deals[kept] if kept < len(deals) else deals.max() + 1
    train, held_out = data.where(data.deals < cut), data.where(data.deals >= cut)
    params, _ = load_weights(args.weights, algorithm="dmc")
    start = time.process_time()
    fitted, curve = fit_to_targets(params, train, held_out, args.epochs, args.learning_rate, args.batch_size,
                                   args.seed)
    record = {"data": settings, "decisions": int(len(data.x)), "pairs": int(len(data.target)),
              "train_deals": int(np.sum(deals < cut)), "held_out_deals": int(np.sum(deals >= cut)),
              "epochs": args.epochs, "learning_rate": args.learning_rate, "batch_size": args.batch_size,
              "seed": args.seed, "fit_cpu_seconds": time.process_time() - start, "curve": curve}
    save_fitted(args.out, str(args.weights), fitted, record)
    Path(args.out).with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    for row in curve:
        held = "none" if row["held_out_loss"] is None else f"{row['held_out_loss']:.5f}"
        print(f"epoch {row['epoch']:3d}  train {row['train_loss']:.5f}  held-out {held}")
    print(f"wrote {args.out}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gamut.experiments.studies.poke_expert_iteration",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    data = sub.add_parser("data", help="play deals with ismcts and record its root values")
    data.add_argument("--game", default=GAME, help="one-deal Poke game (default: %(default)s)")
    data.add_argument("--weights", type=Path, required=True, help="the dmc network the targets are written for")
    data.add_argument("--deals", type=int, required=True, help="deals to play, in all")
    data.add_argument("--iterations", type=int, default=300, help="ISMCTS iterations a decision (default: 300)")
    data.add_argument("--seed", type=int, default=1)
    data.add_argument("--chunk", type=int, default=20, help="deals a file (default: 20)")
    data.add_argument("--workers", type=int, default=1, help="worker processes (default: 1)")
    data.add_argument("--out", type=Path, required=True, help="folder of the chunks")
    fitp = sub.add_parser("fit", help="fit the network to the recorded values")
    fitp.add_argument("--weights", type=Path, required=True, help="the dmc network to start from")
    fitp.add_argument("--data", type=Path, required=True, help="folder written by the data command")
    fitp.add_argument("--epochs", type=int, default=20)
    fitp.add_argument("--learning-rate", type=float, default=3e-5)
    fitp.add_argument("--batch-size", type=int, default=512)
    fitp.add_argument("--held-out", type=float, default=0.1, help="share of the deals held out (default: 0.1)")
    fitp.add_argument("--seed", type=int, default=0)
    fitp.add_argument("--out", type=Path, required=True, help="weights file to write (.npz)")
    args = parser.parse_args(argv)
    for name in ("deals", "iterations", "chunk", "workers", "epochs", "batch_size"):
        if name in args and getattr(args, name) < (0 if name == "epochs" else 1):
            parser.error(f"--{name.replace('_', '-')} must be >= {0 if name == 'epochs' else 1}, "
                         f"got {getattr(args, name)}")
    if "held_out" in args and not 0 <= args.held_out < 1:
        parser.error(f"--held-out must lie in [0, 1), got {args.held_out}")
    (collect if args.command == "data" else fit)(args)


if __name__ == "__main__":
    main(sys.argv[1:])
