"""Confidence intervals for every Monte Carlo figure of the toolkit.

Every estimate is an :class:`Estimate`: the point value, a 95% (by default)
confidence interval and the sample size it rests on, so no figure travels
without them.

- :func:`mean_ci`: mean with a Student-t interval (for means of i.i.d. samples).
- :func:`paired_diff_ci`: mean difference of two agents scored on the same
  deals (common random numbers), which removes the deal-to-deal variance.
- :func:`bootstrap_ci`: percentile bootstrap for statistics without a
  normal approximation (medians, quantiles, ratios).
- :func:`proportion_ci`: Wilson interval for a frequency.
- :func:`combine_moments`: merge (n, mean, M2) summaries of separate batches,
  so trials can return sums instead of every sample.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats as _scipy_stats


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its confidence interval and sample size.

    Attributes
    ----------
    value : float
        The estimate (a mean, a difference, a frequency, ...).
    ci95_low, ci95_high : float
        Bounds of the confidence interval (95% unless ``confidence`` says otherwise).
    n : int
        Number of samples (pairs, for a paired comparison).
    confidence : float
        Coverage of the interval.
    """

    value: float
    ci95_low: float
    ci95_high: float
    n: int
    confidence: float = 0.95

    @property
    def half_width(self) -> float:
        return (self.ci95_high - self.ci95_low) / 2

    def as_dict(self, prefix: str = "") -> dict:
        """Flat dict for tables, e.g. ``{"mean": ..., "ci95_low": ..., "n": ...}``."""
        return {f"{prefix}{key}": val for key, val in asdict(self).items()}

    def __str__(self) -> str:
        pct = round(100 * self.confidence)
        return f"{self.value:.4g} ({pct}% CI {self.ci95_low:.4g} .. {self.ci95_high:.4g}, n={self.n:,})"


def _as_samples(samples) -> np.ndarray:
    arr = np.asarray(samples, dtype=np.float64).ravel()
    if arr.size == 0:
        raise ValueError("no samples: an estimate needs at least one")
    if not np.all(np.isfinite(arr)):
        raise ValueError("samples contain NaN or infinite values")
    return arr


def _t_interval(mean: float, sd: float, n: int, confidence: float) -> Estimate:
    if n < 2:
        return Estimate(mean, -np.inf, np.inf, n, confidence)
    half = _scipy_stats.t.ppf(0.5 + confidence / 2, df=n - 1) * sd / np.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n, confidence)


def mean_ci(samples, confidence: float = 0.95) -> Estimate:
    """Sample mean with a Student-t confidence interval.

    Parameters
    ----------
    samples : array_like, shape (n,)
        i.i.d. observations (e.g. one score per deal).
    confidence : float
        Coverage of the interval, in (0, 1).

    Examples
    --------
    >>> str(mean_ci([1.0, 2.0, 3.0, 4.0]))
    '2.5 (95% CI 0.4457 .. 4.554, n=4)'
    """
    arr = _as_samples(samples)
    sd = float(arr.std(ddof=1)) if arr.size > 1 else 0.0
    return _t_interval(float(arr.mean()), sd, arr.size, confidence)


def paired_diff_ci(a, b, confidence: float = 0.95) -> Estimate:
    """Mean of ``a - b`` over paired samples (same deals for both agents), with a t interval.

    ``a`` and ``b`` must have the same length: element ``i`` of each comes from the
    same random numbers.
    """
    arr_a, arr_b = _as_samples(a), _as_samples(b)
    if arr_a.shape != arr_b.shape:
        raise ValueError(f"paired samples differ in length: {arr_a.size} vs {arr_b.size}")
    return mean_ci(arr_a - arr_b, confidence)


def bootstrap_ci(
    samples,
    statistic: Callable[[np.ndarray], float] = np.median,
    rng: np.random.Generator | int = 0,
    resamples: int = 10_000,
    confidence: float = 0.95,
) -> Estimate:
    """Percentile-bootstrap interval for any statistic of one sample (``scipy.stats.bootstrap``).

    ``statistic`` maps an array of shape (n,) to a float; it is applied to
    ``resamples`` resamples drawn with ``rng`` (a Generator or a seed), so the
    same seed gives the same interval. A statistic that takes ``axis=``, as the
    numpy reductions do, is evaluated on all resamples at once.
    """
    arr = _as_samples(samples)
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise ValueError(f"resamples must be a whole number >= 1, got {resamples!r}")
    result = _scipy_stats.bootstrap(
        (arr,), statistic, n_resamples=int(resamples), confidence_level=confidence, method="percentile",
        vectorized=_takes_axis(statistic), random_state=np.random.default_rng(rng),
    )
    low, high = result.confidence_interval
    return Estimate(float(statistic(arr)), float(low), float(high), arr.size, confidence)


def _takes_axis(statistic: Callable) -> bool:
    try:
        return "axis" in inspect.signature(statistic).parameters
    except (TypeError, ValueError):  # numpy ufunc-like callables without a signature
        return False


def proportion_ci(successes: int, n: int, confidence: float = 0.95) -> Estimate:
    """Wilson score interval for a frequency ``successes / n`` (``scipy.stats.binomtest``)."""
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n and n > 0, got successes={successes}, n={n}")
    interval = _scipy_stats.binomtest(int(successes), int(n)).proportion_ci(confidence, method="wilson")
    return Estimate(successes / n, float(interval.low), float(interval.high), n, confidence)


def combine_moments(counts, means, m2s) -> tuple[int, float, float]:
    """Merge per-batch ``(n, mean, M2)`` summaries into one (Chan et al.'s pairwise update).

    ``M2`` is the sum of squared deviations from the batch mean, so the merged
    sample variance is ``M2 / (n - 1)``. Returns ``(n, mean, M2)``.
    """
    n_total, mean_total, m2_total = 0, 0.0, 0.0
    for n, mean, m2 in zip(counts, means, m2s, strict=True):
        if n == 0:
            continue
        delta = mean - mean_total
        merged = n_total + n
        mean_total += delta * n / merged
        m2_total += m2 + delta * delta * n_total * n / merged
        n_total = merged
    return n_total, mean_total, m2_total


def moments_ci(n: int, mean: float, m2: float, confidence: float = 0.95) -> Estimate:
    """t interval from an ``(n, mean, M2)`` summary such as :func:`combine_moments` returns."""
    if n <= 0:
        raise ValueError("no samples: an estimate needs at least one")
    sd = float(np.sqrt(m2 / (n - 1))) if n > 1 else 0.0
    return _t_interval(float(mean), sd, int(n), confidence)
