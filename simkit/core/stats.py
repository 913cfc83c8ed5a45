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


def wilson(k: float, n: float, confidence: float = CONFIDENCE) -> Estimate:
    """Wilson score interval for ``k`` successes in ``n`` trials.

    ``k`` and ``n`` may be fractional: effective counts of clustered data
    (see :func:`pooled_rate`); the returned ``n`` is then rounded down.
    """
    if n <= 0:
        return Estimate(math.nan, 0.0, 1.0, 0)
    z = z_value(confidence)
    p = k / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return Estimate(p, low, high, int(n))


def clopper_pearson(k: int, n: int, confidence: float = CONFIDENCE) -> Estimate:
    """Exact (Clopper–Pearson) interval for ``k`` successes in ``n`` trials."""
    if n <= 0:
        return Estimate(math.nan, 0.0, 1.0, 0)
    alpha = 1.0 - confidence
    low = 0.0 if k == 0 else float(_st.beta.ppf(alpha / 2, k, n - k + 1))
    high = 1.0 if k == n else float(_st.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return Estimate(k / n, low, high, n)


def bounded_mean(values, confidence: float = CONFIDENCE) -> Estimate:
    """The mean of independent values in [0, 1] (probabilities, such as a solved battle's P(win) or the P(win)
    a policy loses in it) with a Clopper–Pearson interval on their sum as if it were a count of successes.

    A value in [0, 1] varies at most as much as a 0/1 value of the same mean (Bernoulli is the extreme case),
    so the interval holds its level however skewed the values are; a normal interval does not at small n
    (30 battles, most losing nothing: coverage 0.86 measured). Coverage tested in tests/stats/test_coverage.py."""
    x = [float(v) for v in values]
    n = len(x)
    if n == 0:
        return Estimate(math.nan, 0.0, 1.0, 0)
    if min(x) < 0.0 or max(x) > 1.0:
        raise ValueError("bounded_mean: every value must lie in [0, 1]")
    k = math.fsum(x)
    alpha = 1.0 - confidence
    low = 0.0 if k <= 0.0 else float(_st.beta.ppf(alpha / 2, k, n - k + 1))
    high = 1.0 if k >= n else float(_st.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return Estimate(k / n, low, high, n)


def overlapping(pick, estimates: dict) -> list:
    """The other keys of ``estimates`` (key -> :class:`Estimate`) whose interval overlaps that of ``pick``, nearest
    estimate first: the ones the data cannot tell from the one a headline names as best or worst."""
    me = estimates[pick]
    near = [k for k, e in estimates.items() if k != pick and e.low <= me.high and e.high >= me.low]
    return sorted(near, key=lambda k: abs(estimates[k].estimate - me.estimate))


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
    mostly agree. The interval is the normal one for the mean of d: right
    for means over many games; for 0/1 outcomes use :func:`paired_rate`
    (Newcombe's score interval and the exact McNemar test), since with few
    discordant pairs this one covers far less than 95%.
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
    """Difference of two rates from paired 0/1 outcomes ``a`` and ``b`` (arrays of equal length).

    Newcombe's hybrid score interval (method 10) and the exact McNemar test.
    """
    import numpy as np

    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.shape != b.shape:
        raise ValueError("paired outcomes must have the same length")
    n11 = int(((a == 1) & (b == 1)).sum())
    n10 = int(((a == 1) & (b == 0)).sum())
    n01 = int(((a == 0) & (b == 1)).sum())
    return paired_rate(n11, n10, n01, a.size - n11 - n10 - n01, confidence=confidence)


# ---------------------------------------------------------------- rates pooled over cells that share games


def pooled_rate(n: int, s: float, ss: float, c: int, confidence: float = CONFIDENCE) -> Estimate:
    """A rate pooled over ``c`` cells that replay the same ``n`` games: Wilson on the effective n.

    ``s`` and ``ss`` are the sum and sum of squares over games of each game's
    count of successes across its ``c`` cells (0..c). The design effect is
    the variance of the per-game mean over its binomial value; the interval
    is Wilson's for ``p`` on ``n·c / deff`` trials, the effective number of
    independent rows (see :func:`effective_n`), kept between ``n`` (the ``c``
    cells of a game always agree) and ``n·c`` (they are independent). With no events, or no
    variance, the conservative ``n`` games are used. ``n`` of the result is
    the number of games.
    """
    if n <= 0 or c <= 0:
        return Estimate(math.nan, 0.0, 1.0, 0)
    p = s / (n * c)
    n_eff = effective_n(n, s, ss, c)
    e = wilson(p * n_eff, n_eff, confidence)
    low = 0.0 if s == 0 else e.low
    high = 1.0 if s == n * c else e.high
    return Estimate(p, low, high, n)


def effective_n(n: int, s: float, ss: float, c: int) -> float:
    """Effective number of independent rows behind a rate pooled over ``c`` cells of ``n`` games.

    ``n·c`` over the design effect, the design effect taken at its upper 90%
    confidence bound: with few events it cannot be estimated (one event says
    nothing about how events cluster), so it is scaled by G / χ²₀.₁(G), where
    G = s² / ss is the effective number of games with events of the rarer
    outcome (successes for p ≤ 1/2, failures above, as in
    :func:`clustered_rate`: near 1 the few failures are what clusters). With
    many events the factor is close to 1.
    """
    if c <= 1 or n < 2:
        return float(n * max(c, 1))
    p = s / (n * c)
    var_y = max(0.0, (ss / (c * c) - n * p * p) / (n - 1))  # variance of a game's mean over its cells
    if var_y <= 0 or p <= 0 or p >= 1:
        return float(n)
    deff = n * c * var_y / (n * p * (1 - p))
    if p > 0.5:  # the rarer outcome says how the rows cluster: a game's failures c − k, Σ(c − k)² = n·c² − 2c·s + ss
        s, ss = n * c - s, n * c * c - 2 * c * s + ss
    g = s * s / ss if ss > 0 else 1.0
    deff *= g / float(_st.chi2.ppf(0.1, g))
    return float(min(n * c, max(n, n * c / deff)))


def clustered_rate(y, m, confidence: float = CONFIDENCE) -> Estimate:
    """A rate over rows that come in clusters of any size, the cluster (the game) as the unit.

    ``y[g]`` successes in ``m[g]`` rows of cluster ``g`` (say the seat rows of
    one policy in one game, over every cell that replays that game). The
    estimate is the ratio Σy / Σm; its design effect is the cluster-robust
    (linearised) variance of the ratio, n/(n−1)·Σ(y − p·m)² / (Σm)², over
    the binomial p(1 − p)/Σm, taken at its upper 90% bound as in
    :func:`effective_n`; the interval is Wilson's on Σm / deff rows, kept
    between Kish's effective number of clusters (Σm)² / Σm² (every cluster
    all successes or none) and Σm (independent rows), so it stays inside
    [0, 1] and holds near 0 and 1. With no successes (or no failures) the clusters' floor is used. With equal
    ``m`` and some spread between clusters it is :func:`pooled_rate` (which takes the games when no cluster departs
    from p).
    ``n`` of the result is the number of clusters (those with ``m`` > 0).
    """
    import numpy as np

    y = np.asarray(y, dtype=float)
    m = np.asarray(m, dtype=float)
    if y.shape != m.shape:
        raise ValueError("y and m must have the same length")
    keep = m > 0
    y, m = y[keep], m[keep]
    n, rows, s = int(y.size), float(m.sum()), float(y.sum())
    if n == 0:
        return Estimate(math.nan, 0.0, 1.0, 0)
    p = s / rows
    floor = rows * rows / float((m * m).sum())  # Kish: the effective number of clusters
    n_eff = floor
    if n >= 2 and 0 < p < 1:
        r = y - p * m
        var = n / (n - 1) * float((r * r).sum()) / (rows * rows)
        n_eff = rows  # no spread between clusters (each has the same share): the limit of a tiny variance
        if var > 0:
            deff = var * rows / (p * (1 - p))
            f = y if p <= 0.5 else m - y  # the rarer outcome says how the rows cluster
            ss = float((f * f).sum())
            g = float(f.sum()) ** 2 / ss if ss > 0 else 1.0
            deff *= g / float(_st.chi2.ppf(0.1, g))
            n_eff = min(rows, max(floor, rows / deff))
    e = wilson(p * n_eff, n_eff, confidence)
    low = 0.0 if s == 0 else e.low
    high = 1.0 if s == rows else e.high
    return Estimate(p, low, high, n)


# ---------------------------------------------------------------- paired rates


def clustered_mean(t, m, confidence: float = CONFIDENCE) -> Estimate:
    """A mean over rows that come in clusters of any size, the cluster (the game) as the unit.

    ``t[g]`` the sum of the values of the ``m[g]`` rows of cluster ``g`` (say a game's length in every cell that
    replays its deal). The estimate is the ratio Σt / Σm; its variance the cluster-robust (linearised) one,
    n/(n−1)·Σ(t − mean·m)² / (Σm)², and the interval Student's t with n − 1 degrees of freedom. ``n`` of the
    result is the number of clusters (those with ``m`` > 0)."""
    import numpy as np

    t = np.asarray(t, dtype=float)
    m = np.asarray(m, dtype=float)
    if t.shape != m.shape:
        raise ValueError("t and m must have the same length")
    keep = m > 0
    t, m = t[keep], m[keep]
    n, rows = int(t.size), float(m.sum())
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = float(t.sum()) / rows
    if n == 1:
        return Estimate(mean, -math.inf, math.inf, 1)
    r = t - mean * m
    half = float(_st.t.ppf(0.5 + confidence / 2.0, n - 1)) * math.sqrt(n / (n - 1) * float((r * r).sum())) / rows
    return Estimate(mean, mean - half, mean + half, n)


def clustered_difference(y1, m1, y0, m0, confidence: float = CONFIDENCE) -> Estimate:
    """The difference p1 − p0 of two rates over rows that come in clusters, the cluster (the game) as the unit.

    Cluster ``g`` has ``y1[g]`` successes in ``m1[g]`` rows of the first kind (say the seats of a game that played
    a card) and ``y0[g]`` in ``m0[g]`` of the second (the seats that did not); either may be 0. p = Σy / Σm for
    each kind; the variance is the cluster-robust (linearised) one of the difference of the two ratios,
    n/(n−1)·Σd², d = (y1 − p1·m1)/Σm1 − (y0 − p0·m0)/Σm0, which counts the correlation of a game's rows within
    and between the kinds (one seat's win is the others' loss); the interval is Student's t with n − 1 degrees of
    freedom. ``n`` of the result is the number of clusters with a row of the first kind."""
    import numpy as np

    y1, m1, y0, m0 = (np.asarray(a, dtype=float) for a in (y1, m1, y0, m0))
    if not (y1.shape == m1.shape == y0.shape == m0.shape):
        raise ValueError("y1, m1, y0 and m0 must have the same length")
    keep = (m1 + m0) > 0
    y1, m1, y0, m0 = y1[keep], m1[keep], y0[keep], m0[keep]
    n, r1, r0 = int(y1.size), float(m1.sum()), float(m0.sum())
    n1 = int((m1 > 0).sum())
    if r1 == 0 or r0 == 0:
        return Estimate(math.nan, math.nan, math.nan, n1)
    p1, p0 = float(y1.sum()) / r1, float(y0.sum()) / r0
    d = p1 - p0
    if n < 2:
        return Estimate(d, -1.0, 1.0, n1)
    u = (y1 - p1 * m1) / r1 - (y0 - p0 * m0) / r0
    half = float(_st.t.ppf(0.5 + confidence / 2.0, n - 1)) * math.sqrt(n / (n - 1) * float((u * u).sum()))
    return Estimate(d, max(-1.0, d - half), min(1.0, d + half), n1)


def clustered_difference_p(y1, m1, y0, m0) -> float:
    """Two-sided p-value of "p1 = p0" for :func:`clustered_difference`'s data: its statistic, the difference over
    the square root of the cluster-robust (linearised) variance, against Student's t with n − 1 degrees of freedom
    (n the clusters with a row of either kind). 1 with fewer than 2 clusters or a kind with no rows."""
    import numpy as np

    y1, m1, y0, m0 = (np.asarray(a, dtype=float) for a in (y1, m1, y0, m0))
    if not (y1.shape == m1.shape == y0.shape == m0.shape):
        raise ValueError("y1, m1, y0 and m0 must have the same length")
    keep = (m1 + m0) > 0
    y1, m1, y0, m0 = y1[keep], m1[keep], y0[keep], m0[keep]
    n, r1, r0 = int(y1.size), float(m1.sum()), float(m0.sum())
    if n < 2 or r1 == 0 or r0 == 0:
        return 1.0
    p1, p0 = float(y1.sum()) / r1, float(y0.sum()) / r0
    u = (y1 - p1 * m1) / r1 - (y0 - p0 * m0) / r0
    se = math.sqrt(n / (n - 1) * float((u * u).sum()))
    if se == 0.0:
        return 1.0 if p1 == p0 else 0.0
    return float(2 * _st.t.sf(abs(p1 - p0) / se, n - 1))


def newcombe_paired(n11: float, n10: float, n01: float, n00: float,
                    confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Newcombe's hybrid score interval (1998, method 10) for p_B − p_A from a paired 2×2 table.

    ``n10`` counts pairs with A = 1 and B = 0 (A won, B lost), ``n01`` A = 0
    and B = 1. Returns (estimate, low, high). Counts may be fractional
    (effective counts of clustered data).
    """
    n = n11 + n10 + n01 + n00
    if n <= 0:
        return math.nan, -1.0, 1.0
    pa, pb = (n11 + n10) / n, (n11 + n01) / n
    la, ua = _wilson_bounds(n11 + n10, n, confidence)
    lb, ub = _wilson_bounds(n11 + n01, n, confidence)
    prod = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    phi = 0.0
    if prod > 0:
        a = n11 * n00 - n10 * n01
        if a > n / 2:
            phi = (a - n / 2) / math.sqrt(prod)
        elif a < 0:
            phi = a / math.sqrt(prod)
    d = pb - pa
    low = d - math.sqrt(max(0.0, (pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa) + (ua - pa) ** 2))
    high = d + math.sqrt(max(0.0, (ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la) + (pa - la) ** 2))
    return d, max(-1.0, low), min(1.0, high)


def _wilson_bounds(k: float, n: float, confidence: float) -> tuple[float, float]:
    e = wilson(k, n, confidence)
    return e.low, e.high


def mcnemar_exact(n10: int, n01: int) -> float:
    """Exact (conditional) McNemar test: two-sided binomial test of the discordant pairs at 1/2."""
    m = int(n10) + int(n01)
    if m == 0:
        return 1.0
    return float(_st.binomtest(int(n01), m, 0.5).pvalue)


def paired_rate(n11: float, n10: float, n01: float, n00: float, deff: float = 1.0,
                confidence: float = CONFIDENCE) -> PairedDifference:
    """p_B − p_A of paired 0/1 outcomes: Newcombe's interval and the exact McNemar test.

    ``deff`` ≥ 1 is the design effect when the pairs are rows of games that
    share several cells: the interval uses the counts divided by it (the
    effective number of independent pairs), and the test the rounded
    effective discordant counts.
    """
    n = n11 + n10 + n01 + n00
    deff = max(1.0, deff) if math.isfinite(deff) else 1.0
    d, low, high = newcombe_paired(n11 / deff, n10 / deff, n01 / deff, n00 / deff, confidence)
    if deff == 1.0:
        p = mcnemar_exact(int(round(n10)), int(round(n01)))
    else:
        p = mcnemar_exact(int(math.floor(n10 / deff + 0.5)), int(math.floor(n01 / deff + 0.5)))
    return PairedDifference(d, low, high, int(round(n)), p)


def signflip_test(d) -> float:
    """Exact two-sided sign-flip (randomisation) test of paired integer differences ``d``.

    Under "no change" (old and new exchangeable within each pair) every
    nonzero difference is equally likely positive or negative; the p-value is
    P(|Σ ±|d_i|| ≥ |Σ d_i|) over those 2^k sign patterns, computed exactly by
    convolving one binomial per distinct |d|. For 0/1 outcomes this is the
    exact McNemar test. Falls back to the normal approximation
    Σd / sqrt(Σd²) (valid for a zero mean difference, and accurate for the
    randomisation distribution of so many terms) when more than 400
    differences are nonzero or the exact distribution would need more than
    10^6 support points. The convolution
    is done by FFT: p-values below ~1e-12 are rounding noise (reported as such
    small numbers, never as large ones).
    """
    import numpy as np

    d = np.asarray(d, dtype=np.int64)
    d = d[d != 0]
    if d.size == 0:
        return 1.0
    t = int(d.sum())
    mags, counts = np.unique(np.abs(d), return_counts=True)
    total = int((mags * counts).sum())
    if mags.size == 1:
        # Σ = m·(2·Bin(k, 1/2) − k): the exact McNemar / sign test
        return mcnemar_exact(int((d < 0).sum()), int((d > 0).sum()))
    if d.size > 400 or 2 * total + 1 > 1_000_000:
        return float(2 * _st.norm.sf(abs(t) / math.sqrt(float((d.astype(np.float64) ** 2).sum()))))
    from scipy.signal import fftconvolve

    # distribution of S = Σ ±|d| on the grid -total..total: one binomial per distinct magnitude
    dist = np.ones(1)
    for m, k in zip(mags.tolist(), counts.tolist()):
        kernel = np.zeros(2 * m * k + 1)
        kernel[::2 * m] = _st.binom.pmf(np.arange(k + 1), k, 0.5)  # j positives contribute m·(2j − k)
        dist = fftconvolve(dist, kernel) if dist.size > 1 else kernel
        dist = np.clip(dist, 0.0, None)
    grid = np.arange(-total, total + 1)
    p = float(dist[np.abs(grid) >= abs(t)].sum())
    return min(1.0, p)


# ---------------------------------------------------------------- many numbers at once


def holm(pvalues) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error rate); NaN stays NaN."""
    idx = [i for i, p in enumerate(pvalues) if p == p]
    m = len(idx)
    out = [math.nan] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda i: pvalues[i])):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def benjamini_hochberg(pvalues) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (false discovery rate); NaN stays NaN."""
    idx = [i for i, p in enumerate(pvalues) if p == p]
    m = len(idx)
    out = [math.nan] * len(pvalues)
    running = 1.0
    order = sorted(idx, key=lambda i: pvalues[i])
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        running = min(running, m * pvalues[i] / (rank + 1))
        out[i] = min(1.0, running)
    return out


# ---------------------------------------------------------------- sequential: a confidence sequence


def confidence_sequence(n: int, mean: float, var: float, alpha: float = 1 - CONFIDENCE,
                        n_opt: float | None = None) -> tuple[float, float]:
    """Asymptotic (1 − alpha) confidence sequence for a mean after ``n`` observations.

    Robbins' normal mixture on the standardised sum, with the variance
    plugged in (Waudby-Smith et al. 2021, "Time-uniform central limit
    theory"): with probability at least 1 − alpha (asymptotically) the
    interval covers the mean at *every* n simultaneously, so it stays valid
    however the run was stopped. ``n_opt`` is the number of observations at
    which it is tightest (mixture width ρ² chosen for it).
    """
    if n < 1 or not math.isfinite(var):
        return -math.inf, math.inf
    sd = math.sqrt(max(var, 0.0))
    n_opt = max(1.0, float(n_opt or n))
    la = math.log(1 / alpha)
    rho2 = (2 * la + math.log(2 * la + 1)) / n_opt
    bound = math.sqrt(2 * (n * rho2 + 1) / rho2 * math.log(math.sqrt(n * rho2 + 1) / alpha))
    half = sd * bound / n
    return mean - half, mean + half


# ---------------------------------------------------------------- power: the minimum detectable effect


def mde(sd_diff: float, n: float, alpha: float, power: float = 0.8) -> float:
    """Smallest true paired difference a two-sided level-``alpha`` test detects with probability ``power``.

    ``sd_diff`` is the standard deviation of one paired difference, ``n`` the
    number of pairs (normal approximation).
    """
    if n <= 0:
        return math.inf
    return (z_value(1 - alpha) + float(_st.norm.ppf(power))) * sd_diff / math.sqrt(n)


def games_for_mde(sd_diff: float, target: float, alpha: float, power: float = 0.8) -> int:
    """Pairs needed so that :func:`mde` is at most ``target``."""
    if target <= 0:
        return 0
    k = (z_value(1 - alpha) + float(_st.norm.ppf(power))) * sd_diff / target
    return int(math.ceil(k * k))


# ---------------------------------------------------------------- precision: the games a stated interval needs


def games_for_half_width(half_width: float, confidence: float = CONFIDENCE) -> int:
    """The fewest games whose Wilson interval (:func:`wilson`) is no wider than ±``half_width`` at any rate.

    The widest interval is at a rate of 0.5, where Wilson's half-width is z / (2·sqrt(n + z²)); so n is the
    first integer at or above (z / 2h)² − z². A table that states "±h" then keeps that promise whatever its
    rates turn out to be."""
    if not 0.0 < half_width < 0.5:
        raise ValueError(f"half_width must be in (0, 0.5), got {half_width}")
    z = z_value(confidence)
    return max(1, int(math.ceil((z / (2.0 * half_width)) ** 2 - z * z - 1e-9)))
