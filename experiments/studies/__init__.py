"""Resumable studies of particular games that run outside the experiment runner (their own command lines)."""


def mean_intervals(rows: list[dict], keys) -> dict:
    """``{key: [mean, ci95_low, ci95_high]}`` of each of ``keys`` over ``rows`` (a study's per-deal records).

    Example: ``mean_intervals([{"a": 1.0}, {"a": 3.0}], ["a"])`` gives ``{"a": [2.0, -10.7..., 14.7...]}``.
    """
    from gamut.solvers.stats import mean_ci

    out = {}
    for key in keys:
        est = mean_ci([r[key] for r in rows])
        out[key] = [est.value, est.ci95_low, est.ci95_high]
    return out
