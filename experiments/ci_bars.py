"""Points with their 95% confidence intervals drawn as error bars, for the experiments' figures."""

from __future__ import annotations

import numpy as np


def ci_bars(ax, means, lows, highs, at, axis: str = "x", **style):
    """Draw ``means`` with bars from ``lows`` to ``highs`` on ``ax``, at positions ``at`` along the other axis.

    Parameters
    ----------
    ax : matplotlib Axes
    means, lows, highs : array-like or pandas Series, float, shape (n,)
        Estimates and the ends of their intervals.
    at : array-like, shape (n,)
        Where each point stands on the other axis.
    axis : {"x", "y"}
        The axis the values (and bars) run along.
    **style
        Passed to ``ax.errorbar`` (``fmt``, ``capsize``, ``label``, ...).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> bars = ci_bars(ax, [1.0, 2.0], [0.5, 1.0], [1.5, 2.5], [0, 1], fmt="o")
    >>> [round(float(x), 2) for x in bars.lines[0].get_xdata()]
    [1.0, 2.0]
    """
    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y', got {axis!r}")
    means, lows, highs = (np.asarray(v, dtype=float) for v in (means, lows, highs))
    error = [means - lows, highs - means]
    if axis == "x":
        return ax.errorbar(means, at, xerr=error, **style)
    return ax.errorbar(at, means, yerr=error, **style)
