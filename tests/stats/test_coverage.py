"""Coverage of every interval simkit prints, and the error rates of its tests, measured against known truths.

Exact enumeration where the sample space is small enough (Wilson, Newcombe);
otherwise Monte Carlo with a fixed seed and R repetitions, asserting the
measured rate within a stated tolerance of nominal: 3 Monte Carlo standard
errors, sqrt(q(1 − q)/R) at the nominal rate q, plus the method's own known
departure where one is stated.
"""

import math

import numpy as np
import pytest
from scipy import stats as st

from simkit.core import compare as cmp
from simkit.core import stats
from simkit.core.check import Number, Tolerance, Tolerances, judge, minimum_detectable, paired_numbers
from simkit.core.simulation import Metric, StatsAccumulator


def mc_tol(q: float, r: int) -> float:
    """Three Monte Carlo standard errors of a rate q measured from r repetitions."""
    return 3 * math.sqrt(q * (1 - q) / r)


# ---------------------------------------------------------------- Wilson (per-cell rates): exact enumeration


@pytest.mark.parametrize("n", [50, 1000])
def test_wilson_coverage_exact(n):
    ks = np.arange(n + 1)
    lo = np.array([stats.wilson(k, n).low for k in ks])
    hi = np.array([stats.wilson(k, n).high for k in ks])
    ps = np.geomspace(0.5 / n, 0.5, 40)
    cov = np.array([st.binom.pmf(ks, n, p)[(lo <= p) & (p <= hi)].sum() for p in ps])
    # Wilson is close to nominal on average and dips to ~0.91 at a few rare p (known; Brown, Cai & DasGupta 2001)
    assert 0.945 <= cov.mean() <= 0.965, cov.mean()
    assert cov.min() >= 0.90, (cov.min(), ps[cov.argmin()])
    assert cov[ps >= 5 / n].min() >= 0.93


# ---------------------------------------------------------------- Newcombe (paired rates): exact enumeration


def paired_coverage(n, p11, p10, p01):
    """Exact coverage of stats.paired_rate for p01 − p10, summing over all likely paired 2×2 tables."""
    psi = p10 + p01
    truth = p01 - p10
    q = p11 / (1 - psi)
    total = covered = 0.0
    for m in range(n + 1):
        pm = st.binom.pmf(m, n, psi)
        if pm < 1e-9:
            if m > n * psi:
                break
            continue
        sd = math.sqrt((n - m) * q * (1 - q)) + 1
        ks = np.arange(max(0, int((n - m) * q - 6 * sd)), min(n - m, int((n - m) * q + 6 * sd)) + 1)
        pk = st.binom.pmf(ks, n - m, q)
        for k01 in range(m + 1):
            w = pm * st.binom.pmf(k01, m, p01 / psi)
            if w < 1e-11:
                continue
            for k11, wk in zip(ks, pk):
                if w * wk < 1e-12:
                    continue
                _, low, high = stats.newcombe_paired(int(k11), m - k01, k01, n - m - int(k11))
                total += w * wk
                covered += w * wk * (low <= truth <= high)
    return covered / total


@pytest.mark.parametrize("expected_discordant, one_way", [(0.3, 1.0), (1, 1.0), (3, 1.0), (3, 0.75), (10, 1.0)])
def test_newcombe_paired_coverage_exact(expected_discordant, one_way):
    # the cases where the old Wald interval covered 26%, 63% and 80% (0.3, 1 and 3 expected discordant pairs)
    n = 200
    psi = expected_discordant / n
    cov = paired_coverage(n, 0.3, psi * (1 - one_way), psi * one_way)
    # Newcombe's method 10 stays within about 1 point of nominal (Newcombe 1998; Fagerland et al. 2013)
    assert cov >= 0.935, cov


# ---------------------------------------------------------------- rates pooled over cells that share games


def clustered(rng, n, c, p, rho, size):
    """Per-game counts over c cells: each game draws its own rate u ~ Beta with mean p, intra-game corr. rho."""
    if rho == 0:
        return rng.binomial(c, p, size=(size, n))
    a = p * (1 - rho) / rho
    b = (1 - p) * (1 - rho) / rho
    return rng.binomial(c, rng.beta(a, b, size=(size, n)))


@pytest.mark.parametrize("p, rho", [(0.001, 0.3), (0.01, 0.0), (0.05, 0.5), (0.3, 0.2), (0.5, 0.9),
                                    (0.99, 0.3), (0.99, 0.6), (0.997, 0.3), (0.997, 0.6), (0.999, 0.3), (0.999, 0.6)])
def test_pooled_rate_coverage(p, rho):
    """Wilson on the effective number of games (summary.json pooled rows, the reports' pooled rows, compare's A/B).

    Near 1 the rare outcome is the failure: the design effect's bound counted the successes (thousands of them,
    so no widening) and covered 0.931 / 0.918 at p = 0.997 and 0.887 / 0.851 at p = 0.999 (rho 0.3 / 0.6); bound
    by the rarer outcome it covers 0.97–0.99 there, with no slack."""
    rng = np.random.default_rng(11)
    r, n, c = 2000, 1000, 8
    k = clustered(rng, n, c, p, rho, r)
    s, ss = k.sum(axis=1), (k * k).sum(axis=1)
    hit = 0
    for i in range(r):
        e = stats.pooled_rate(n, int(s[i]), int(ss[i]), c)
        assert 0.0 <= e.low <= e.high <= 1.0
        hit += e.low <= p <= e.high
    # at p = 0.001 with 8 correlated cells only ~8 games have an event: allow Wilson's known rare-p dip (none near 1)
    slack = 0.02 if p * n < 10 else 0.0
    assert hit / r >= 0.95 - mc_tol(0.95, r) - slack, hit / r


@pytest.mark.parametrize("p, rho, one_winner", [(0.3, 0.3, False), (0.5, 0.9, False), (0.01, 0.3, False),
                                                 (0.98, 0.3, False), (0.1, 0.0, False), (0.1, 0.0, True)])
def test_clustered_rate_coverage(p, rho, one_winner):
    """The multiplayer seat table: seat rows of one policy in one game (1 to 7 of them, over the cells that replay
    the game) are one cluster. With positively correlated rows (a game's deal favours the policy in every cell,
    intra-cluster correlation rho) Wilson on the rows under-covers; the clustered interval holds, also near 0 and 1
    and when at most one of a game's rows wins (negative correlation)."""
    rng = np.random.default_rng(12)
    r, n = 2000, 500
    m = rng.integers(1, 8, size=(r, n))
    if one_winner:
        y = (rng.random((r, n)) < m * p).astype(int)  # one table: at most one of its m seats wins, each with p
    elif rho == 0:
        y = rng.binomial(m, p)
    else:
        y = rng.binomial(m, rng.beta(p * (1 - rho) / rho, (1 - p) * (1 - rho) / rho, size=(r, n)))
    hit = naive = 0
    for i in range(r):
        e = stats.clustered_rate(y[i], m[i])
        assert 0.0 <= e.low <= e.estimate <= e.high <= 1.0 and e.n == n
        hit += e.low <= p <= e.high
        w = stats.wilson(int(y[i].sum()), int(m[i].sum()))
        naive += w.low <= p <= w.high
    assert hit / r >= 0.95 - mc_tol(0.95, r), hit / r  # 0.935 at r = 2000
    if rho >= 0.3:  # design effect 1 + (E[m²]/E[m] − 1)·rho ≈ 2.7 or more: the row-level Wilson misses often
        assert naive / r < 0.85, naive / r


def test_clustered_rate_is_pooled_rate_for_equal_clusters():
    rng = np.random.default_rng(13)
    for p in (0.003, 0.2, 0.45, 0.8, 0.997):  # above 1/2 too: both bound the design effect by the rarer outcome
        y = clustered(rng, 400, 6, p, 0.4, 1)[0]
        a = stats.clustered_rate(y, np.full(400, 6))
        b = stats.pooled_rate(400, int(y.sum()), int((y * y).sum()), 6)
        assert (a.estimate, a.low, a.high, a.n) == pytest.approx((b.estimate, b.low, b.high, b.n), rel=1e-12)
    # by hand: 3 games of 2 rows, one success in each (one winner a table): p = 1/2, no spread between games,
    # so the 6 rows count in full; 3 games of 1, 2 and 3 rows, all won or all lost: Kish's 36 / 14 clusters
    e = stats.clustered_rate([1, 1, 1], [2, 2, 2])
    assert (e.estimate, e.low, e.high, e.n) == (0.5, stats.wilson(3, 6).low, stats.wilson(3, 6).high, 3)
    e = stats.clustered_rate([0, 2, 3], [1, 2, 3])
    w = stats.wilson(5 / 6 * 36 / 14, 36 / 14)
    assert (e.estimate, e.low, e.high, e.n) == pytest.approx((5 / 6, w.low, w.high, 3))


def _one_winner_truth(seats, share, w1, w0):
    """Exact p1 − p0 when each game has Binomial(seats, share) seats of the first kind and one winner, a seat of
    the first kind winning with weight w1 against w0 (the ratio estimands Σy/Σm of the two kinds)."""
    from scipy.stats import binom

    num1 = den1 = num0 = den0 = 0.0
    for k in range(seats + 1):
        pk = binom.pmf(k, seats, share)
        tot = k * w1 + (seats - k) * w0
        num1 += pk * k * w1 / tot
        den1 += pk * k
        num0 += pk * (seats - k) * w0 / tot
        den0 += pk * (seats - k)
    return num1 / den1 - num0 / den0


@pytest.mark.parametrize("case", ["one_winner", "shared_deal"])
def test_clustered_difference_coverage(case):
    """The multiplayer card and Warband tables: the win rate of seats that played a card against seats that did
    not, the game as the unit. One winner a table (negative correlation between a game's seats) and a deal
    that favours every seat of a game in every cell (positive correlation): the interval holds at its known
    truth; the row-level normal interval misses when the rows share the deal."""
    rng = np.random.default_rng(14)
    r, n = 2000, 400
    hit = naive = 0
    if case == "one_winner":
        seats, share, w1, w0 = 4, 0.4, 1.6, 1.0
        truth = _one_winner_truth(seats, share, w1, w0)
    else:
        truth = 0.5 + 0.5 * 0.3 - 0.3  # y1 ~ Bin(m1, (1 + q) / 2), y0 ~ Bin(m0, q), E[q] = 0.3
    for _ in range(r):
        if case == "one_winner":
            m1 = rng.binomial(seats, share, size=n)
            m0 = seats - m1
            p_first = m1 * w1 / (m1 * w1 + m0 * w0)
            first = rng.random(n) < p_first
            y1, y0 = first.astype(int), (~first).astype(int)
        else:
            m1, m0 = rng.integers(0, 7, size=n), rng.integers(0, 7, size=n)
            q = rng.beta(0.3 * 1.0, 0.7 * 1.0, size=n)  # intra-cluster correlation 0.5
            y1, y0 = rng.binomial(m1, (1 + q) / 2), rng.binomial(m0, q)
        e = stats.clustered_difference(y1, m1, y0, m0)
        hit += e.low <= truth <= e.high
        p1, p0 = y1.sum() / m1.sum(), y0.sum() / m0.sum()
        se = np.sqrt(p1 * (1 - p1) / m1.sum() + p0 * (1 - p0) / m0.sum())
        naive += abs(p1 - p0 - truth) <= 1.96 * se
    assert hit / r >= 0.95 - mc_tol(0.95, r), hit / r
    if case == "shared_deal":  # (the deal lifts both kinds, which partly cancels in the difference)
        assert naive / r < 0.93, naive / r


def test_clustered_mean_coverage():
    """Game length pooled over cells that replay the same deals: the game as the unit."""
    rng = np.random.default_rng(15)
    r, n, mu = 2000, 300, 20.0
    hit = naive = 0
    for _ in range(r):
        m = rng.integers(1, 8, size=n)
        game = mu + 5.0 * rng.standard_normal(n)
        rows = np.repeat(game, m) + rng.standard_normal(int(m.sum()))
        t = np.add.reduceat(rows, np.concatenate([[0], np.cumsum(m)[:-1]]))
        e = stats.clustered_mean(t, m)
        assert e.n == n
        hit += e.low <= mu <= e.high
        w = stats.mean_interval(len(rows), float(rows.sum()), float((rows * rows).sum()))
        naive += w.low <= mu <= w.high
    assert hit / r >= 0.95 - mc_tol(0.95, r), hit / r
    assert naive / r < 0.85, naive / r


def test_clustered_difference_and_mean_by_hand():
    # two games: game A 1 of 2 first-kind seats won, 0 of 1 other; game B 0 of 1 first-kind, 1 of 2 others
    e = stats.clustered_difference([1, 0], [2, 1], [0, 1], [1, 2])
    assert e.estimate == pytest.approx(1 / 3 - 1 / 3) and e.n == 2
    # d_A = (1 − 2/3)/3 − (0 − 1/3)/3 = 2/9, d_B = (0 − 1/3)/3 − (1 − 2/3)/3 = −2/9; se = sqrt(2 · 8/81)
    half = stats._st.t.ppf(0.975, 1) * np.sqrt(2 * 8 / 81)
    assert (e.low, e.high) == pytest.approx((max(-1.0, -half), min(1.0, half)))
    e = stats.clustered_mean([10.0, 40.0], [1, 2])  # mean 50 / 3; r = 10 − 50/3, 40 − 100/3
    r = np.array([10 - 50 / 3, 40 - 100 / 3])
    half = stats._st.t.ppf(0.975, 1) * np.sqrt(2 * (r * r).sum()) / 3
    assert (e.estimate, e.low, e.high, e.n) == pytest.approx((50 / 3, 50 / 3 - half, 50 / 3 + half, 2))


def test_rare_rate_interval_beats_wald_exact():
    """The issue's case: n = 1000, p = 0.001 — the normal (Wald) interval covered 63% with negative lower bounds.

    Exact enumeration. Wilson at n·p ≈ 1 sits in its known dip (about 0.92; Brown, Cai & DasGupta 2001), far
    above Wald, and never prints a bound outside [0, 1].
    """
    n, p = 1000, 0.001
    ks = np.arange(60)
    w = st.binom.pmf(ks, n, p)
    wil = [stats.pooled_rate(n, int(k), int(k), 1) for k in ks]
    cov_wilson = sum(wk for wk, e in zip(w, wil) if e.low <= p <= e.high)
    wald = [(k / n - 1.96 * math.sqrt(k / n * (1 - k / n) / n), k / n + 1.96 * math.sqrt(k / n * (1 - k / n) / n))
            for k in ks]
    cov_wald = sum(wk for wk, (lo, hi) in zip(w, wald) if lo <= p <= hi)
    assert cov_wald < 0.70 and cov_wilson >= 0.91, (cov_wald, cov_wilson)
    assert all(0.0 <= e.low <= e.high <= 1.0 for e in wil)


# ---------------------------------------------------------------- compare rows (paired, pooled, from the accumulator)


def _acc_from(ka, kb, kab, c, metric="m", group="all"):
    """A StatsAccumulator holding per-game paired sums as PairedSim would produce them."""
    acc = StatsAccumulator([])
    key = (metric, group)
    kd = kb - ka
    for name, v in (("a", ka), ("b", kb), ("d", kd), ("c", np.full(ka.size, c)), ("ab", kab),
                    ("nz", (kd != 0).astype(np.int64))):
        acc.totals[(name, key)] = [int(v.size), int(v.sum()), int((v * v).sum()), 1]
    return acc


@pytest.mark.parametrize("c, rho, psi, delta", [(1, 0.0, 0.01, 0.005), (1, 0.0, 0.2, 0.05), (8, 0.3, 0.05, 0.01),
                                                (8, 0.0, 0.004, 0.002)])
def test_compare_paired_interval_coverage(c, rho, psi, delta):
    """compare's B − A interval: Newcombe (c = 1) and Newcombe on effective counts (pooled over c cells)."""
    rng = np.random.default_rng(21)
    r, n = 600, 1000
    p_a = 0.3
    hit = 0
    for _ in range(r):
        # per game: a shared game effect on A's outcomes; B flips a share psi of the cells, (psi+delta)/2 upward
        u = rng.beta(p_a * (1 - rho) / rho, (1 - p_a) * (1 - rho) / rho, size=(n, 1)) if rho else np.full((n, 1), p_a)
        a = (rng.random((n, c)) < u).astype(np.int64)
        flip = rng.random((n, c)) < psi
        up = rng.random((n, c)) < 0.5 + delta / (2 * psi)
        # a flip turns a 0 into 1 when "up", a 1 into 0 otherwise (only where possible)
        b = np.where(flip & up & (a == 0), 1, np.where(flip & ~up & (a == 1), 0, a))
        truth = p_a * 0 + (((1 - p_a) * psi * (0.5 + delta / (2 * psi))) - p_a * psi * (0.5 - delta / (2 * psi)))
        acc = _acc_from(a.sum(1), b.sum(1), (a * b).sum(1), c)
        (row,) = cmp.rows_from(acc, {"m": "rate"})
        hit += row.d_low <= truth <= row.d_high
    assert hit / r >= 0.95 - mc_tol(0.95, r) - 0.01, hit / r


# ---------------------------------------------------------------- the check gate: false alarms and power


class FakeSim:
    """What paired_numbers needs of a Simulation: its metrics."""

    def __init__(self, metrics):
        self.metrics = metrics


def _gate_run(rng, n, cells, p, shift_cell, delta, redeal, alpha):
    """One synthetic baseline + check: c cells × n games; cell ``shift_cell`` moves by ``delta``."""
    c = len(cells)
    a = (rng.random((n, c)) < p).astype(np.int64)
    b = a.copy()
    # a change re-deals a share `redeal` of the games: those are played again independently
    redo = rng.random((n, c)) < redeal
    p_new = np.full(c, p)
    if shift_cell is not None:
        p_new[shift_cell] += delta / redeal  # so that the re-dealt share moves the rate by delta
    fresh = (rng.random((n, c)) < p_new).astype(np.int64)
    b[redo] = fresh[redo]
    old = {"cell": np.tile(np.arange(c), n), "game": np.repeat(np.arange(n), c), "won": a.ravel()}
    new = {"cell": old["cell"], "game": old["game"], "won": b.ravel()}
    sim = FakeSim([Metric("win_rate", "won", "rate", ("cell",))])
    numbers = paired_numbers(sim, [{"cell": i} for i in range(c)], old, new, np.array([n * c]))
    return judge(numbers, alpha, Tolerances(Tolerance(1e-9)))


def test_check_false_alarm_rate_on_a_real_null():
    """A change that re-deals games without moving any rate (like reversing the Quest order): FWER ≤ alpha."""
    rng = np.random.default_rng(31)
    r, alpha = 250, 0.1
    alarms = sum(any(x.status == "FAIL" for x in _gate_run(rng, 300, range(10), 0.4, None, 0.0, 0.5, alpha))
                 for _ in range(r))
    assert alarms / r <= alpha + mc_tol(alpha, r), alarms / r


def test_check_detects_a_move_of_the_mde():
    """A move equal to the printed MDE (at its redeal assumption) is flagged with at least the stated power."""
    rng = np.random.default_rng(41)
    r, n, alpha, power, redeal, p = 150, 2000, 0.01, 0.8, 0.35, 0.4
    cells = range(6)
    # the MDE as `simkit baseline` prints it, from the old outcomes' per-game sd
    x = Number("win_rate", "cell=0", "rate", n, p, p, 0, 0, 0, 1.0, sd=math.sqrt(p * (1 - p)))
    mde = minimum_detectable(x, len(cells), alpha, power, redeal)
    hits = sum(_gate_run(rng, n, cells, p, 0, mde, redeal, alpha)[0].status == "FAIL" for _ in range(r))
    assert hits / r >= power - mc_tol(power, r) - 0.03, (hits / r, mde)


def test_check_unchanged_is_exact():
    rng = np.random.default_rng(1)
    nums = _gate_run(rng, 300, range(4), 0.3, None, 0.0, 0.0001, 0.01)
    nums = _gate_run(rng, 300, range(4), 0.3, None, 0.0, 1e-12, 0.01)
    assert all(x.diff == 0 and x.p_value == 1.0 and x.status == "ok" for x in nums)


# ---------------------------------------------------------------- the SPRT: error rates and the interval at the stop


def _sprt_run(rng, delta_true, delta, psi, c=1, block=10, cap=20_000, alpha=0.05, beta=0.1):
    """One sequential run on paired 0/1 outcomes; returns (decision, games, stopped test)."""
    test = cmp.SPRT("m", delta, alpha, beta)
    tot = {k: [0, 0, 0] for k in ("a", "b", "d", "c", "ab", "nz")}
    acc = StatsAccumulator([])
    games = 0
    up_share = 0.5 + delta_true / (2 * psi)
    while games < cap:
        a = (rng.random((block, c)) < 0.5).astype(np.int64)
        flip = rng.random((block, c)) < psi
        up = rng.random((block, c)) < up_share
        # a flip sets B to 1 with probability up_share, to 0 otherwise: E[B − A] = psi·(up_share − 1/2)
        b = np.where(flip, np.where(up, 1, 0), a)
        ka, kb = a.sum(1), b.sum(1)
        vals = {"a": ka, "b": kb, "d": kb - ka, "c": np.full(block, c), "ab": (a * b).sum(1),
                "nz": (kb != ka).astype(np.int64)}
        for k, v in vals.items():
            t = tot[k]
            t[0] += v.size
            t[1] += int(v.sum())
            t[2] += int((v * v).sum())
            acc.totals[(k, ("m", "all"))] = [t[0], t[1], t[2], 1]
        games += block
        if games >= 2 * block and test(acc):
            break
    return test, games


# truth of the construction: E[b − a] = psi·(up_share − 1/2) = delta_true / 2 per cell
@pytest.mark.parametrize("true_change", ["h1", "h0"])
def test_sprt_error_rates_and_confidence_sequence(true_change):
    """The issue's case: a change of +0.07 with few discordant games per 10-game block. β ≤ 0.1, α ≤ 0.05."""
    rng = np.random.default_rng(51 if true_change == "h1" else 52)
    r, delta, alpha, beta = 200, 0.07, 0.05, 0.1
    psi = 0.14
    d_true = 2 * delta if true_change == "h1" else 0.0  # E[b − a] = d_true / 2
    wrong = covered = 0
    for _ in range(r):
        test, _ = _sprt_run(rng, d_true, delta, psi, alpha=alpha, beta=beta)
        truth = d_true / 2
        if true_change == "h1":
            wrong += not test.decision.startswith("moved")
        else:
            wrong += test.decision.startswith("moved")
        est, lo, hi = test.interval()
        covered += lo <= truth <= hi
    rate = beta if true_change == "h1" else alpha
    assert wrong / r <= rate + mc_tol(rate, r), wrong / r
    assert covered / r >= 0.95 - mc_tol(0.95, r), covered / r


# ---------------------------------------------------------------- means


@pytest.mark.parametrize("c", [1, 8])
def test_mean_interval_coverage(c):
    """Means (turns, battles …): the normal interval over games, each game's mean over its c cells one observation."""
    rng = np.random.default_rng(61)
    r, n, truth = 2000, 300, 4.0
    hit = 0
    for _ in range(r):
        game = rng.geometric(1 / truth, size=(n, 1))  # a skewed integer count, shared in part by a game's cells
        x = np.where(rng.random((n, c)) < 0.5, game, rng.geometric(1 / truth, size=(n, c)))
        k = x.sum(axis=1)
        e = stats.mean_interval(n, k.sum() / c, (k * k).sum() / (c * c))
        hit += e.low <= truth <= e.high
    # skewed data at n = 300: the normal interval runs about half a point under nominal
    assert hit / r >= 0.95 - mc_tol(0.95, r) - 0.01, hit / r


# ---------------------------------------------------------------- the skill ladder: "below best" when the best is picked


def _ladder_games(rng, n, k, cells, lift=None, p=0.45, rho=0.3):
    """Per-game values of k policies on the same n games (common random numbers): a game draws its rate
    u ~ Beta (mean p, intra-game correlation rho), policy i wins each of its ``cells`` cells with u + lift[i]."""
    u = rng.beta(p * (1 - rho) / rho, (1 - p) * (1 - rho) / rho, size=(n, 1))
    q = np.repeat(u, k, axis=1)
    if lift is not None:
        q = np.clip(q + np.asarray(lift), 0.0, 1.0)
    return rng.binomial(cells, q) / cells


def _holm_against_the_top(vals):
    """The old verdict: each policy against the top rung as if the top were fixed, Holm over the rungs."""
    from simkit.core import ladder

    order = np.argsort(-vals.mean(axis=0), kind="stable")
    ps = [ladder.paired_gap(vals[:, i], vals[:, order[0]])[3] for i in order[1:]]
    return any(a < 0.05 for a in ladder.holm(ps))


@pytest.mark.parametrize("k, cells, tied", [(2, 1, 2), (3, 8, 3), (5, 1, 5), (8, 1, 8), (8, 8, 8), (5, 1, 2)])
def test_ladder_below_best_family_wise_rate(k, cells, tied):
    """k truly equal policies (``tied`` = k; the last case: 2 tied best, 3 truly worse by 0.1): the share of
    ladders that call a truly best policy "below best" is at most 5% + 3 Monte Carlo SE (0.0707 at R = 1000).
    The old verdict (the top rung taken as fixed, Holm over the rest) measured 0.104 / 0.108 at k = 8 with the
    same construction (0.066 / 0.086 at k = 5): it fails this bound at k = 8; the step-down max statistic
    measured 0.03–0.06."""
    from simkit.core import ladder

    rng = np.random.default_rng(70 + 10 * k + cells + tied)
    r, n = 1000, 300
    lift = np.where(np.arange(k) < tied, 0.0, -0.1)
    false = old = 0
    for _ in range(r):
        v = _ladder_games(rng, n, k, cells, lift)
        rows = ladder.rungs_from({str(i): v[:, i] for i in range(k)}, {})
        false += any(row.below_best for row in rows if int(row.policy) < tied)
        if k == 8 and cells == 1:
            old += _holm_against_the_top(v)
    assert false / r <= 0.05 + mc_tol(0.05, r), false / r
    if k == 8 and cells == 1:  # the same games under the old verdict: the test can fail
        assert old / r > 0.05 + mc_tol(0.05, r), old / r


def test_ladder_below_best_keeps_power_and_gap_intervals():
    """A real gap is still found: one policy better by 0.2 (one cell, k = 5) or by 0.08 (8 cells, k = 8), 300
    games: every other policy is called "below best" in ≥ 90% of ladders (measured 0.99 and 1.0). The paired gap
    interval of each rung covers its true gap to that best policy (95% − 3 MC SE)."""
    from scipy import integrate

    from simkit.core import ladder

    rng = np.random.default_rng(81)
    a, b = 0.45 * 0.7 / 0.3, 0.55 * 0.7 / 0.3
    for k, cells, lift, r in ((5, 1, 0.2, 200), (8, 8, 0.08, 200)):
        # true gap: E[min(u + lift, 1)] − E[u] = lift − E[(u + lift − 1)⁺], u ~ Beta(a, b)
        over = integrate.quad(lambda u: (u + lift - 1) * st.beta.pdf(u, a, b), 1 - lift, 1)[0]
        truth = -(lift - over)
        flagged = covered = rungs = 0
        for _ in range(r):
            v = _ladder_games(rng, 300, k, cells, np.where(np.arange(k) == 0, lift, 0.0))
            rows = ladder.rungs_from({str(i): v[:, i] for i in range(k)}, {})
            assert rows[0].policy == "0"
            flagged += all(row.below_best for row in rows[1:])
            covered += sum(row.gap_low <= truth <= row.gap_high for row in rows[1:])
            rungs += k - 1
        assert flagged / r >= 0.9, (k, flagged / r)
        assert covered / rungs >= 0.95 - mc_tol(0.95, r), (k, covered / rungs)


# ---------------------------------------------------------------- bounded_mean (the battle yardstick): Monte Carlo


def _zero_inflated(rng, shape, zeros, a, b):
    """Values in [0, 1]: 0 with probability ``zeros``, else Beta(a, b) (battles most of which lose nothing)."""
    return np.where(rng.random(shape) < zeros, 0.0, rng.beta(a, b, shape))


@pytest.mark.parametrize("n", [10, 30, 100])
@pytest.mark.parametrize("case", [(0.0, 0.05, 0.05), (0.5, 1, 4), (0.7, 0.5, 3), (0.85, 0.3, 1), (0.95, 0.5, 3),
                                  "bernoulli 0.01", "bernoulli 0.03", "bernoulli 0.1", "bernoulli 0.3"])
def test_bounded_mean_coverage(n, case):
    """stats.bounded_mean covers the mean of [0, 1] values at least at the nominal rate, at n = 10, 30 and 100,
    for zero-inflated skewed values (where the normal interval covers 0.56-0.90 at n = 30: asserted below for
    the yardstick's shape) and at the Bernoulli corners near 0."""
    rng = np.random.default_rng(2031 + n)
    reps = 4000
    if isinstance(case, str):
        p = float(case.split()[1])
        x, truth = (rng.random((reps, n)) < p).astype(float), p
    else:
        zeros, a, b = case
        x, truth = _zero_inflated(rng, (reps, n), zeros, a, b), (1 - zeros) * a / (a + b)
    cover = 0
    for row in x:
        e = stats.bounded_mean(row)
        cover += e.low <= truth <= e.high
    rate = cover / reps
    assert rate >= 0.95 - mc_tol(0.95, reps), (n, case, rate)


def test_bounded_mean_by_hand_and_beats_the_normal_interval():
    """By hand: values summing to 3 of 10 give the Clopper-Pearson interval of 3 successes in 10; 0s give
    [0, 0.3085] (1 - 0.025^(1/10)); and on the yardstick's shape (30 battles, 70% losing nothing) the normal
    interval misses its level where bounded_mean holds it."""
    e = stats.bounded_mean([0.5] * 6 + [0.0] * 4)
    cp = stats.clopper_pearson(3, 10)
    assert (e.estimate, e.n) == (0.3, 10) and e.low == pytest.approx(cp.low) and e.high == pytest.approx(cp.high)
    z = stats.bounded_mean([0.0] * 10)
    assert z.low == 0.0 and z.high == pytest.approx(1 - 0.025 ** (1 / 10))
    with pytest.raises(ValueError):
        stats.bounded_mean([0.2, 1.5])
    rng = np.random.default_rng(7)
    reps, n = 4000, 30
    x, truth = _zero_inflated(rng, (reps, n), 0.7, 0.5, 3), 0.3 * 0.5 / 3.5
    half = 1.959964 * x.std(axis=1, ddof=1) / math.sqrt(n)
    normal = float(((x.mean(axis=1) - half <= truth) & (truth <= x.mean(axis=1) + half)).mean())
    ours = float(np.mean([stats.bounded_mean(r).low <= truth <= stats.bounded_mean(r).high for r in x]))
    assert normal < 0.90 and ours >= 0.95 - mc_tol(0.95, reps), (normal, ours)
