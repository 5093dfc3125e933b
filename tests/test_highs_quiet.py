"""HiGHS solves write nothing to the console: no banner, no log, to break into a run's progress bars."""

from __future__ import annotations

import numpy as np

import gamut.envs  # noqa: F401
from gamut.solvers.poker_squares import partition as P
from gamut.solvers.poker_squares.bounds import core_upper_bound

# Two royal flushes (hearts and spades) among 25 cards: the only scoring hands of ROYAL_ONLY.
DEAL = np.array([4 * r + s for s in (2, 3) for r in range(8, 13)]
                + [0, 1, 2, 3, 4, 5, 6, 9, 12, 13, 14, 16, 17, 21, 22])
ROYAL_ONLY = (0, 0, 0, 0, 0, 0, 0, 0, 0, 1)


def test_a_new_solver_prints_no_banner(capfd):
    P.quiet_highs()
    assert capfd.readouterr() == ("", "")


def test_core_bound_and_partition_bound_solve_silently(capfd):
    capfd.readouterr()
    ub, proved = core_upper_bound(DEAL, ROYAL_ONLY, time_limit=10.0)
    # The integer program of partition_bound runs too: integral values, reduced-cost fixing keeps few sets.
    weights = np.random.default_rng(0).integers(0, 5, (2, P.NUM_SETS)).astype(np.float64)
    res = P.partition_bound(weights, np.arange(25), time_limit=5.0, integral=True)
    assert proved and ub == 2 and res["upper"] >= res["value"]
    assert capfd.readouterr() == ("", "")
