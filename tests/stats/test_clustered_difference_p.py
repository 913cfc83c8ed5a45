"""``stats.clustered_difference_p`` (the Valeria value table's test): a hand-computed case, its agreement with
``clustered_difference``'s interval, and its size at a known null (ownership independent of winning, one winner a
game, so a game's rows are negatively correlated)."""

import math

import numpy as np
import pytest
from scipy import stats as st

from simkit.core import stats


def mc_tol(q: float, r: int) -> float:
    """Three Monte Carlo standard errors of a rate q measured from r repetitions."""
    return 3 * math.sqrt(q * (1 - q) / r)


def test_by_hand():
    # three games: (1 of 2 first-kind won, 0 of 1 other), (1 of 1, 0 of 2), (0 of 1, 1 of 2)
    y1, m1, y0, m0 = [1, 1, 0], [2, 1, 1], [0, 0, 1], [1, 2, 2]
    p1, p0 = 2 / 4, 1 / 5
    u = np.array([(1 - p1 * 2) / 4 - (0 - p0 * 1) / 5, (1 - p1 * 1) / 4 - (0 - p0 * 2) / 5,
                  (0 - p1 * 1) / 4 - (1 - p0 * 2) / 5])
    se = math.sqrt(3 / 2 * (u * u).sum())
    want = 2 * st.t.sf(abs(p1 - p0) / se, 2)
    assert stats.clustered_difference_p(y1, m1, y0, m0) == pytest.approx(want)
    # no rows of a kind, or one cluster: no test
    assert stats.clustered_difference_p([1, 0], [1, 1], [0, 0], [0, 0]) == 1.0
    assert stats.clustered_difference_p([1], [1], [0], [1]) == 1.0
    with pytest.raises(ValueError):
        stats.clustered_difference_p([1], [1, 2], [0], [1])


def test_agrees_with_the_interval():
    """p < 0.05 exactly when the (unclipped) 95% interval of clustered_difference leaves out 0."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = 40
        m1 = rng.integers(0, 4, size=n)
        m0 = 4 - m1
        y1 = rng.binomial(m1, 0.3)
        y0 = rng.binomial(m0, 0.2)
        e = stats.clustered_difference(y1, m1, y0, m0)
        p = stats.clustered_difference_p(y1, m1, y0, m0)
        if -1.0 < e.low and e.high < 1.0 and abs(p - 0.05) > 1e-9:
            assert (p < 0.05) == (e.low > 0 or e.high < 0)


@pytest.mark.parametrize("share", [0.15, 0.5])
def test_size_at_a_known_null(share):
    """Four seats, one sole winner a game chosen at random, each seat owning the card with chance ``share``
    independently of the winner: the true difference is 0, and the test rejects at 5% about 5% of the time."""
    rng = np.random.default_rng(22)
    r, n, seats = 2000, 300, 4
    rejected = 0
    for _ in range(r):
        has = rng.random((n, seats)) < share
        win = np.zeros((n, seats))
        win[np.arange(n), rng.integers(0, seats, size=n)] = 1
        m1 = has.sum(axis=1)
        p = stats.clustered_difference_p((win * has).sum(axis=1), m1, (win * ~has).sum(axis=1), seats - m1)
        rejected += p < 0.05
    assert abs(rejected / r - 0.05) <= mc_tol(0.05, r), rejected / r
