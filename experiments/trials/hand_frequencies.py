"""Hand-category frequencies of random deals against the exact combinatorial counts.

A check of the whole chain a Monte Carlo figure of the toolkit rests on:
seeded dealing, the batch hand evaluator (five cards, and the best five of
seven), the runner and the confidence intervals. Each category's observed
frequency carries a 95% Wilson interval; about 95% of the intervals should
contain the exact probability, and a z-score far from 0 would expose a bias.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gamut.experiments.store import table_summary
from gamut.solvers.stats import proportion_ci

NAME = "hand_frequencies"
VERSION = 1
PARAMS = {"hands_per_trial": int, "hand_sizes": list}
CHUNK = 100_000

# Exact counts by category (high card .. royal flush).
EXACT_COUNTS = {
    # All C(52, 5) = 2,598,960 five-card hands.
    5: (1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 36, 4),
    # Best five of all C(52, 7) = 133,784,560 seven-card hands.
    7: (23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644, 3_473_184, 224_848, 37_260, 4_324),
}


def validate(params: dict) -> None:
    bad = [size for size in params["hand_sizes"] if size not in EXACT_COUNTS]
    if bad:
        raise ValueError(f"field 'hand_sizes': {bad[0]!r} is not one of {sorted(EXACT_COUNTS)}")
    if params["hands_per_trial"] < 1:
        raise ValueError("field 'hands_per_trial' must be >= 1")


def trial_specs(params: dict) -> list[dict]:
    """``trials`` independent deal batches for each hand size."""
    sizes = params["hand_sizes"]
    return [
        {"trial": i * len(sizes) + j, "stream": i * len(sizes) + j, "hand_size": size, "batch": i}
        for i in range(params["trials"]) for j, size in enumerate(sizes)
    ]


def deal_hands(rng: np.random.Generator, count: int, size: int) -> np.ndarray:
    """``count`` uniformly random hands of ``size`` distinct cards: uint8 array (count, size)."""
    return np.argpartition(rng.random((count, 52)), size, axis=1)[:, :size].astype(np.uint8)


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    from gamut.envs import hands

    rng = np.random.default_rng(seed)
    evaluate = hands.strengths5 if spec["hand_size"] == 5 else hands.strengths7
    counts = np.zeros(hands.NUM_CATEGORIES, dtype=np.int64)
    remaining = params["hands_per_trial"]
    while remaining:
        count = min(CHUNK, remaining)
        strengths = evaluate(deal_hands(rng, count, spec["hand_size"]), check=False)
        counts += np.bincount(hands.categories(strengths), minlength=hands.NUM_CATEGORIES)
        remaining -= count
    return [
        {"category": hands.CATEGORY_NAMES[c], "category_index": c, "count": int(counts[c]),
         "hands": params["hands_per_trial"]}
        for c in range(hands.NUM_CATEGORIES)
    ]


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    import matplotlib.pyplot as plt

    rows = []
    for (size, index, category), group in table.groupby(["hand_size", "category_index", "category"]):
        total, hits = int(group["hands"].sum()), int(group["count"].sum())
        exact = EXACT_COUNTS[size][index] / sum(EXACT_COUNTS[size])
        est = proportion_ci(hits, total)
        z = (hits / total - exact) / np.sqrt(exact * (1 - exact) / total)
        rows.append({
            "hand_size": int(size), "category": category, "exact_probability": exact,
            "observed": est.value, "ci95_low": est.ci95_low, "ci95_high": est.ci95_high,
            "n": total, "z": float(z), "covered": bool(est.ci95_low <= exact <= est.ci95_high),
        })
    summary = pd.DataFrame(rows)
    writer.table("category_frequencies", summary)

    sizes = sorted(summary["hand_size"].unique())
    fig, axes = plt.subplots(1, len(sizes), figsize=(6 * len(sizes), 4.2), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        part = summary[summary["hand_size"] == size]
        x = np.arange(len(part))
        ax.bar(x, part["exact_probability"], color="#cccccc", label="exact")
        err = np.vstack([part["observed"] - part["ci95_low"], part["ci95_high"] - part["observed"]])
        ax.errorbar(x, part["observed"], yerr=err, fmt="o", ms=3, color="C3", label="observed, 95% CI")
        ax.set_yscale("log")
        ax.set_xticks(x, part["category"], rotation=45, ha="right")
        ax.set(title=f"{size}-card hands (n = {int(part['n'].iloc[0]):,} hands)", ylabel="probability")
        ax.legend()
    fig.tight_layout()
    writer.figure("category_frequencies", fig)

    covered = int(summary["covered"].sum())
    shown = summary[["hand_size", "category", "exact_probability", "observed", "ci95_low", "ci95_high", "n", "z"]]
    return table_summary(f"{covered} of {len(summary)} Wilson 95% intervals contain the exact probability "
                         f"(largest |z| = {summary['z'].abs().max():.2f}).",
                         shown, "category_frequencies", "category frequencies", float_format="{:.6g}")
