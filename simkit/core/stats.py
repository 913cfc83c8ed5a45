"""Confidence intervals for simulated rates and means.

Every simulated number simkit reports goes through here, so that each comes
with its 95% interval and the number of games behind it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats as _st

CONFIDENCE = 0.95


def z_value(confidence: float = CONFIDENCE) -> float:
    """The two-sided normal quantile for ``confidence`` (1.96 for 95%)."""
    return float(_st.norm.ppf(0.5 + confidence / 2.0))


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its interval and count."""

    estimate: float
    low: float
    high: float
    n: int

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2.0


def wilson(k: int, n: int, confidence: float = CONFIDENCE) -> Estimate:
    """Wilson score interval for ``k`` successes in ``n`` trials."""
    if n <= 0:
        return Estimate(math.nan, 0.0, 1.0, 0)
    z = z_value(confidence)
    p = k / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return Estimate(p, low, high, n)


def clopper_pearson(k: int, n: int, confidence: float = CONFIDENCE) -> Estimate:
    """Exact (Clopper–Pearson) interval for ``k`` successes in ``n`` trials."""
    if n <= 0:
        return Estimate(math.nan, 0.0, 1.0, 0)
    alpha = 1.0 - confidence
    low = 0.0 if k == 0 else float(_st.beta.ppf(alpha / 2, k, n - k + 1))
    high = 1.0 if k == n else float(_st.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return Estimate(k / n, low, high, n)


def mean_interval(n: int, total: float, total_sq: float, confidence: float = CONFIDENCE) -> Estimate:
    """Normal interval for a mean from its sufficient statistics (n, sum, sum of squares)."""
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = total / n
    if n == 1:
        return Estimate(mean, -math.inf, math.inf, 1)
    var = max(0.0, (total_sq - n * mean * mean) / (n - 1))
    half = z_value(confidence) * math.sqrt(var / n)
    return Estimate(mean, mean - half, mean + half, n)


@dataclass(frozen=True)
class PairedDifference:
    """B − A from paired games (same seeds), with interval and two-sided p-value."""

    estimate: float
    low: float
    high: float
    n: int
    p_value: float


def paired_difference(n: int, sum_d: float, sum_d2: float, confidence: float = CONFIDENCE) -> PairedDifference:
    """Mean of per-game differences d = b − a, from n, Σd and Σd².

    With common random numbers the two variants' games are paired, and the
    variance of d is far below that of two independent runs when the variants
    mostly agree. The interval is the normal one for the mean of d.
    """
    if n <= 1:
        return PairedDifference(math.nan, math.nan, math.nan, n, math.nan)
    mean = sum_d / n
    var = max(0.0, (sum_d2 - n * mean * mean) / (n - 1))
    se = math.sqrt(var / n)
    half = z_value(confidence) * se
    if se == 0.0:
        p = 1.0 if mean == 0.0 else 0.0
    else:
        p = float(2 * _st.norm.sf(abs(mean) / se))
    return PairedDifference(mean, mean - half, mean + half, n, p)


def paired_rate_difference(a, b, confidence: float = CONFIDENCE) -> PairedDifference:
    """Difference of two rates from paired 0/1 outcomes ``a`` and ``b`` (arrays of equal length)."""
    import numpy as np

    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.shape != b.shape:
        raise ValueError("paired outcomes must have the same length")
    d = b - a
    return paired_difference(int(d.size), float(d.sum()), float((d * d).sum()), confidence)
