"""The statistical methods against published values and brute force."""

import itertools
import math

import numpy as np
import pytest

from simkit.core import stats


def test_newcombe_paired_matches_published_values():
    # Fagerland, Lydersen & Laake (2013, Stat Med 32:1810), complete response before and after consolidation
    # therapy (Cavo et al. 2012): table [[59, 6], [16, 80]], Newcombe square-and-add -0.0621 (-0.1186 to -0.0046)
    # for p1+ - p+1. Here A is the column variable (A=1: 59+16), B the row variable (B=1: 59+6).
    d, low, high = stats.newcombe_paired(n11=59, n10=16, n01=6, n00=80)
    assert d == pytest.approx(-0.0621, abs=5e-5)
    assert low == pytest.approx(-0.1186, abs=5e-5)
    assert high == pytest.approx(-0.0046, abs=5e-5)
    # Newcombe (1998, Stat Med 17:2635) Table II example (a): a=36, b=12, c=2, d=0, method 10: 0.0569 to 0.3404
    d, low, high = stats.newcombe_paired(n11=36, n10=2, n01=12, n00=0)
    assert (d, round(low, 4), round(high, 4)) == (pytest.approx(0.2), 0.0569, 0.3404)


def test_mcnemar_exact_matches_published_value():
    # Fagerland et al. (2013): the same table, McNemar exact conditional test P = 0.052
    assert stats.mcnemar_exact(16, 6) == pytest.approx(0.0525, abs=5e-4)
    assert stats.mcnemar_exact(0, 0) == 1.0
    # all 10 discordant pairs one way: 2 * 0.5^10
    assert stats.mcnemar_exact(0, 10) == pytest.approx(2 * 0.5 ** 10)


def test_signflip_test_equals_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(20):
        d = rng.integers(-3, 4, size=int(rng.integers(1, 12)))
        nz = d[d != 0]
        t = abs(d.sum())
        if nz.size == 0:
            assert stats.signflip_test(d) == 1.0
            continue
        hits = sum(abs(sum(s * abs(x) for s, x in zip(signs, nz))) >= t
                   for signs in itertools.product((-1, 1), repeat=nz.size))
        assert stats.signflip_test(d) == pytest.approx(hits / 2 ** nz.size, rel=1e-9)


def test_holm_and_bh_match_hand_computation():
    p = [0.01, 0.04, 0.03, 0.2]
    # Holm: sorted 0.01*4, 0.03*3, 0.04*2 (monotone: max(0.09, 0.08)), 0.2*1
    assert stats.holm(p) == pytest.approx([0.04, 0.09, 0.09, 0.2])
    # BH: 0.2*4/4, 0.04*4/3, 0.03*4/2 -> min(0.06, 0.0533), 0.01*4/1
    assert stats.benjamini_hochberg(p) == pytest.approx([0.04, 0.05333333, 0.05333333, 0.2])
    assert math.isnan(stats.holm([math.nan, 0.5])[0])


def test_pooled_rate_between_independent_and_fully_clustered():
    n, c = 1000, 8
    # every cell of a game agrees: 10 games won everywhere -> exactly Wilson on the 1000 games
    e = stats.pooled_rate(n, 10 * c, 10 * c * c, c)
    w = stats.wilson(10, n)
    assert (e.low, e.high) == pytest.approx((w.low, w.high))
    # independent cells: each won game has 1 of 8 cells -> about Wilson on 8000 rows, the design effect (1 here)
    # taken at its upper 90% bound from G = 80 games with events: 80 / chi2.ppf(0.1, 80) = 1.19
    e = stats.pooled_rate(n, 80, 80, c)
    w = stats.wilson(80, n * c)
    w2 = stats.wilson(80 / 1.194, n * c / 1.194)
    assert e.high == pytest.approx(w2.high, rel=0.01) and e.high > w.high
    assert e.low > 0


def test_pooled_rate_near_one_mirrors_near_zero():
    """Near 1 the rare outcome is the failure: the interval is the mirror of the one for the failures' rate.

    By hand: 1000 games of 8 cells, 3 games lose 3 of their 8 cells (9 failures, Σ(c − k)² = 27); G = 81 / 27 = 3
    games' worth of failures, so the design effect 3.0 is widened by 3 / chi2.ppf(0.1, 3) = 5.13 to 15.4, and the
    effective n 8000 / 15.4 = 520 is raised to its floor, the 1000 games (a game's cells all agree). The old bound
    took G from the 7,991 successes (G ≈ 999, factor ≈ 1.06): 2,519 effective rows, an interval half as wide."""
    n, c = 1000, 8
    k = np.full(n, c)
    k[:3] = 5
    s, ss = int(k.sum()), int((k * k).sum())
    hi, lo = stats.pooled_rate(n, s, ss, c), stats.pooled_rate(n, n * c - s, int(((c - k) ** 2).sum()), c)
    assert (hi.low, hi.high) == pytest.approx((1 - lo.high, 1 - lo.low), abs=1e-12)
    p = 9 / 8000
    var_y = (27 / 64 - n * p * p) / (n - 1)
    deff = n * c * var_y / (n * p * (1 - p)) * 3 / stats._st.chi2.ppf(0.1, 3)
    assert deff == pytest.approx(15.39, abs=0.01) and n * c / deff < n
    w = stats.wilson(p * n, n)
    assert (lo.low, lo.high) == pytest.approx((w.low, w.high), rel=1e-9)
    assert stats.effective_n(n, s, ss, c) == stats.effective_n(n, n * c - s, int(((c - k) ** 2).sum()), c) == n


def test_mde_and_games_for_mde_agree():
    n = stats.games_for_mde(0.3, 0.02, 0.001)
    assert stats.mde(0.3, n, 0.001) <= 0.02 < stats.mde(0.3, n - 5, 0.001)
