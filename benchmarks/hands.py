"""Hand evaluation speed: our batch kernels beside treys and phevaluator, one core, one run.

Random 5-card and 7-card hands are dealt before any timing (the same hands for
every evaluator; the baselines, which evaluate one hand per Python call, get
the first ``--baseline-hands`` of them). Each evaluator is warmed up first
(Numba compilation excluded), then timed ``--repeats`` times; the figure is
hands per second at the median time. Our kernels are single-threaded; Numba's
thread count is set to 1 as well so nothing else runs in parallel.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

DESCRIPTION = "random 5- and 7-card hands/s: envs.hands batch kernels vs treys and phevaluator (one core)"

_QUICK = {"hands": 1_000_000, "baseline_hands": 20_000, "repeats": 3}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=10_000_000, help="hands per size for our kernels (default: %(default)s)")
    parser.add_argument(
        "--baseline-hands", type=int, default=200_000, help="hands per size for each baseline (default: %(default)s)"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats; the median is reported (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random deals (default: %(default)s)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"a few-second run: {_QUICK['hands']:,} hands, {_QUICK['baseline_hands']:,} baseline hands, "
        f"{_QUICK['repeats']} repeats",
    )


def random_hands(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """``n`` uniformly random hands of ``k`` distinct cards: uint8 array (n, k).

    Rows are drawn with replacement and redrawn until their cards are distinct,
    which is uniform over ordered hands of distinct cards.
    """
    hands = rng.integers(0, 52, size=(n, k), dtype=np.uint8)
    while True:
        ordered = np.sort(hands, axis=1)
        repeated = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
        if repeated.size == 0:
            return hands
        hands[repeated] = rng.integers(0, 52, size=(repeated.size, k), dtype=np.uint8)


def _median_rate(fn, n: int, repeats: int) -> float:
    fn()  # warm-up: compilation, caches
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return n / float(np.median(times))


def _check(args: argparse.Namespace) -> None:
    for name in ("hands", "baseline_hands", "repeats"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be a positive integer, got {getattr(args, name)}")


def run(args: argparse.Namespace) -> dict:
    import numba
    from phevaluator.evaluator import evaluate_5cards, evaluate_7cards
    from treys import Card, Evaluator

    from gamut.envs import hands

    if args.quick:
        for name, value in _QUICK.items():
            setattr(args, name, value)
    _check(args)
    numba.set_num_threads(1)
    rng = np.random.default_rng(args.seed)
    n, nb = args.hands, min(args.baseline_hands, args.hands)
    deals = {5: random_hands(rng, n, 5), 7: random_hands(rng, n, 7)}

    treys_ids = [Card.new(r + s) for r in "23456789TJQKA" for s in "cdhs"]
    treys_evaluator = Evaluator()
    phevaluate = {5: evaluate_5cards, 7: evaluate_7cards}
    result: dict = {
        "hands": n,
        "baseline_hands": nb,
        "repeats": args.repeats,
        "seed": args.seed,
        "numba_threads": numba.get_num_threads(),
    }
    ours_fn = {5: hands.strengths5, 7: hands.strengths7}
    for k in (5, 7):
        cards = deals[k]
        result[f"ours_{k}card_per_s"] = _median_rate(lambda: ours_fn[k](cards, check=False), n, args.repeats)
        result[f"ours_{k}card_checked_per_s"] = _median_rate(lambda: ours_fn[k](cards), n, args.repeats)
        result[f"ours_{k}card_generic_per_s"] = _median_rate(lambda: hands.best_strengths(cards, check=False), n, args.repeats)

        sample = cards[:nb].tolist()
        as_treys = [[treys_ids[c] for c in row] for row in sample]
        evaluate = treys_evaluator.evaluate
        result[f"treys_{k}card_per_s"] = _median_rate(
            lambda: [evaluate(row[:2], row[2:]) for row in as_treys], nb, args.repeats
        )
        ph = phevaluate[k]
        result[f"phevaluator_{k}card_per_s"] = _median_rate(lambda: [ph(*row) for row in sample], nb, args.repeats)

    for k in (5, 7):
        for baseline in ("treys", "phevaluator"):
            result[f"ours_vs_{baseline}_{k}card"] = result[f"ours_{k}card_per_s"] / result[f"{baseline}_{k}card_per_s"]
    return result
