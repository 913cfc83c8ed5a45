"""Interval formulas checked against values computed by hand."""

import math

import numpy as np
import pytest

from simkit.core import stats


def test_wilson_matches_hand_computation():
    # k=5, n=10, z=1.959964: centre = (0.5 + z²/20)/(1 + z²/10) = 0.5;
    # half = z*sqrt(0.025 + z²/400)/(1 + z²/10) = 0.2634
    e = stats.wilson(5, 10)
    assert e.estimate == 0.5
    assert e.low == pytest.approx(0.2366, abs=1e-4)
    assert e.high == pytest.approx(0.7634, abs=1e-4)
    assert e.n == 10


def test_wilson_zero_successes_has_positive_upper_bound():
    e = stats.wilson(0, 100)
    assert e.low == 0.0
    # z²/(n+z²) = 3.8415/103.8415
    assert e.high == pytest.approx(3.8415 / 103.8415, rel=1e-3)


def test_clopper_pearson_zero_successes():
    # upper bound solves (1-p)^10 = 0.025
    e = stats.clopper_pearson(0, 10)
    assert e.high == pytest.approx(1 - 0.025 ** (1 / 10), rel=1e-9)
    assert e.low == 0.0


def test_mean_interval_from_sufficient_statistics():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    e = stats.mean_interval(4, x.sum(), (x * x).sum())
    sd = math.sqrt(((x - 2.5) ** 2).sum() / 3)
    assert e.estimate == 2.5
    assert e.high - e.estimate == pytest.approx(1.959964 * sd / 2, rel=1e-5)


def test_paired_rate_difference_uses_pairing():
    a = np.array([0, 1, 1, 0, 1, 0, 1, 1] * 50)
    b = a.copy()
    b[:40] = 1  # the change turns 40 games' results (of which 20 were losses) into wins
    d = stats.paired_rate_difference(a, b)
    assert d.estimate == pytest.approx((b.sum() - a.sum()) / a.size)
    assert d.low < d.estimate < d.high
    assert d.p_value < 0.01
    same = stats.paired_rate_difference(a, a)
    assert same.estimate == 0 and same.p_value == 1.0


def test_overlapping_names_the_estimates_whose_intervals_meet_the_picks_nearest_first():
    from simkit.core.stats import Estimate, overlapping

    e = {"a": Estimate(0.50, 0.45, 0.55, 100), "b": Estimate(0.58, 0.54, 0.62, 100),
         "c": Estimate(0.47, 0.40, 0.54, 100), "d": Estimate(0.70, 0.66, 0.74, 100),
         "touch": Estimate(0.60, 0.55, 0.65, 100)}
    # c (0.03 from a), b (0.08) and touch (0.10, meeting a's end at 0.55) overlap a, nearest first; d does not
    assert overlapping("a", e) == ["c", "b", "touch"]
    assert overlapping("d", e) == []
