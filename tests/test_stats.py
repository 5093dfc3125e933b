"""Confidence intervals: known values, coverage, and merging of batch summaries."""

import numpy as np
import pytest

from gamut.solvers import stats


def test_mean_ci_matches_the_textbook_t_interval():
    est = stats.mean_ci([1.0, 2.0, 3.0, 4.0])
    # t(0.975, 3) = 3.182446, sd = 1.290994, sqrt(4) = 2
    assert est.value == 2.5 and est.n == 4
    assert est.ci95_high - 2.5 == pytest.approx(3.182446 * 1.290994 / 2, rel=1e-6)


def test_mean_ci_covers_the_true_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(5)
    samples = rng.exponential(size=(4000, 40))
    covered = sum(stats.mean_ci(row).ci95_low <= 1.0 <= stats.mean_ci(row).ci95_high for row in samples)
    assert 0.92 < covered / 4000 < 0.96


def test_paired_difference_uses_common_random_numbers():
    rng = np.random.default_rng(1)
    deal_luck = rng.normal(0, 10, size=500)
    a = deal_luck + 1.0 + rng.normal(0, 0.1, 500)
    b = deal_luck
    paired = stats.paired_diff_ci(a, b)
    assert paired.ci95_low > 0.9 and paired.ci95_high < 1.1
    with pytest.raises(ValueError, match="differ in length"):
        stats.paired_diff_ci(a, b[:-1])


def test_bootstrap_median_interval_contains_the_sample_median_and_is_seeded():
    x = np.random.default_rng(2).lognormal(size=301)
    one = stats.bootstrap_ci(x, np.median, rng=7, resamples=2000)
    two = stats.bootstrap_ci(x, np.median, rng=7, resamples=2000)
    assert one == two
    assert one.ci95_low <= np.median(x) <= one.ci95_high


def test_wilson_interval_known_value_and_bad_input():
    est = stats.proportion_ci(20, 100)
    assert est.value == 0.2
    assert est.ci95_low == pytest.approx(0.13333, abs=1e-4)
    assert est.ci95_high == pytest.approx(0.28883, abs=1e-4)
    with pytest.raises(ValueError):
        stats.proportion_ci(5, 3)


def test_combined_batch_moments_equal_the_moments_of_all_samples():
    rng = np.random.default_rng(3)
    batches = [rng.normal(size=n) for n in (1, 7, 100, 33)]
    n, mean, m2 = stats.combine_moments(
        [b.size for b in batches], [b.mean() for b in batches], [((b - b.mean()) ** 2).sum() for b in batches]
    )
    everything = np.concatenate(batches)
    assert n == everything.size
    assert mean == pytest.approx(everything.mean(), rel=1e-12)
    assert m2 / (n - 1) == pytest.approx(everything.var(ddof=1), rel=1e-12)
    merged, direct = stats.moments_ci(n, mean, m2), stats.mean_ci(everything)
    assert merged.ci95_low == pytest.approx(direct.ci95_low, rel=1e-9)
    assert merged.ci95_high == pytest.approx(direct.ci95_high, rel=1e-9)


def test_empty_and_non_finite_samples_are_rejected():
    with pytest.raises(ValueError, match="no samples"):
        stats.mean_ci([])
    with pytest.raises(ValueError, match="NaN"):
        stats.mean_ci([1.0, np.nan])


def _wilson_reference(successes, n, confidence=0.95):
    from scipy.stats import norm

    z = norm.ppf(0.5 + confidence / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@pytest.mark.parametrize("successes, n", [(0, 1), (1, 1), (0, 50), (50, 50), (7, 13), (20, 100), (123, 100_000)])
def test_wilson_interval_equals_the_textbook_formula(successes, n):
    est = stats.proportion_ci(successes, n)
    low, high = _wilson_reference(successes, n)
    assert est.ci95_low == pytest.approx(low, abs=1e-12)
    assert est.ci95_high == pytest.approx(high, abs=1e-12)


def test_bootstrap_agrees_with_a_plain_percentile_bootstrap():
    x = np.random.default_rng(4).gamma(2.0, size=400)
    gen = np.random.default_rng(11)
    plain = np.quantile([np.mean(x[gen.integers(0, x.size, x.size)]) for _ in range(20_000)], [0.025, 0.975])
    for statistic in (np.mean, lambda sample: float(np.mean(sample))):  # vectorized and one resample at a time
        est = stats.bootstrap_ci(x, statistic, rng=3, resamples=20_000)
        # Two independent 20,000-resample estimates of the same quantiles agree to well within 2% of the width.
        width = plain[1] - plain[0]
        assert abs(est.ci95_low - plain[0]) < 0.02 * width and abs(est.ci95_high - plain[1]) < 0.02 * width
    with pytest.raises(ValueError, match="resamples"):
        stats.bootstrap_ci(x, np.mean, resamples=0)
