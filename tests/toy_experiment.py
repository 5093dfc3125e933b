"""A small experiment used by the runner tests (means of seeded normal samples)."""

import time
from pathlib import Path

import numpy as np
import pandas as pd

from gamut.solvers.stats import mean_ci

NAME = "toy_sums"
VERSION = 1
PARAMS = {"samples": int, "sleep": float, "log": str, "label": str}
SUMMARY_PARAMS = ("label",)  # read by summarize only: changing it re-summarises on --resume


def run_trial(params, spec, seed):
    if params["log"]:
        # Each start is logged so the tests can tell whether a trial ran twice.
        with Path(params["log"]).open("a") as handle:
            handle.write(f"{spec['trial']}\n")
    x = np.random.default_rng(seed).normal(size=params["samples"])
    time.sleep(params["sleep"])
    return [{"mean": float(x.mean()), "max": float(x.max())}]


def summarize(table, params, writer):
    estimate = mean_ci(table["mean"])
    writer.table("summary", pd.DataFrame([estimate.as_dict()]))
    return f"{params['label']}Mean of trial means: {estimate}."
