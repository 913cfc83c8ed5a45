"""The skill ladder: Holm's correction against hand-computed values, and the ladder of Draw to Ten against its
exact odds."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from simkit.cli import cli
from simkit.core.ladder import holm, ladder, rungs_from
from simkit.games.toy import engine as E


def test_holm_by_hand():
    # p = 0.01, 0.04, 0.03 (m = 3): sorted 0.01*3 = 0.03, 0.03*2 = 0.06, max(0.06, 0.04*1) = 0.06
    assert np.allclose(holm([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5]
    assert holm([0.6, 0.7]) == [1.0, 1.0]


def test_rungs_order_and_paired_gap():
    a = np.array([1, 1, 0, 1, 0, 1, 1, 1] * 50, float)
    b = a.copy()
    b[:40] = 0  # b loses 40 games a won (paired): gap exactly -(a[:40].sum())/400
    rows = rungs_from({"b": b, "a": a}, {"a": "heuristic", "b": "heuristic"})
    assert [r.policy for r in rows] == ["a", "b"]
    assert rows[1].gap == -a[:40].sum() / 400
    assert rows[1].below_best and rows[1].gap_high < 0


def test_a_rung_near_zero_stays_inside_zero_one_and_holds_its_coverage():
    """A game's share of wins over 8 cells (Warbands replaying its dice): the normal interval over games went below
    0 for a rare winner (the Lonequest report's random rung read 0.0031 [-0.0030, 0.0092]). The rung's interval is
    the clustered rate (the game a cluster of 8 rows): inside [0, 1], and it covers a known truth near 0 with
    correlated cells."""
    from simkit.core import stats
    from simkit.core.ladder import _cells, _interval

    x = np.zeros(40)
    x[3] = 1 / 8
    e = _interval(x)
    want = stats.clustered_rate(np.round(x * 8), np.full(40, 8))
    assert _cells(x) == 8 and (e.low, e.high) == (want.low, want.high) and 0.0 <= e.low < 1 / 320 < e.high <= 1.0
    rng = np.random.default_rng(21)
    for p, rho in ((0.01, 0.3), (0.1, 0.5), (0.9, 0.2)):
        hit, r = 0, 1000
        for _ in range(r):
            q = rng.beta(p * (1 - rho) / rho, (1 - p) * (1 - rho) / rho, size=40)
            x = rng.binomial(8, q) / 8
            e = _interval(x)
            assert 0.0 <= e.low <= e.high <= 1.0
            hit += e.low <= p <= e.high
        assert hit / r >= 0.925, (p, rho, hit / r)  # 0.95 less 3.5 Monte Carlo SE at r = 1000


def test_few_games_are_not_a_verdict():
    """4 paired games, the best wins all and the other none: exact McNemar p = 2 * 0.5**4 = 0.125, not significant
    (a t interval over games has no width here and would call it certain)."""
    rows = rungs_from({"a": np.ones(4), "b": np.zeros(4)}, {})
    assert rows[1].p == 0.125 and not rows[1].below_best
    assert rows[1].gap == -1.0 and rows[1].gap_low < -0.5 < rows[1].gap_high
    # 8 such games: p = 2 * 0.5**8 = 0.0078, significant
    rows = rungs_from({"a": np.ones(8), "b": np.zeros(8)}, {})
    assert abs(rows[1].p - 2 * 0.5 ** 8) < 1e-12 and rows[1].below_best
    # means (several cells per game) that all moved alike: the exact sign test
    rows = rungs_from({"a": np.full(5, 0.5), "b": np.zeros(5)}, {})
    assert rows[1].p == 2 * 0.5 ** 5


def test_toy_ladder_matches_exact_odds():
    rungs = ladder("scenarios/toy/draw.toml", games=4000, seed=5)
    by = {r.policy: r for r in rungs}
    assert rungs[0].policy in ("stop_at_8", "search")
    for name, stop_at in (("stop_at_8", 8), ("timid", 6)):
        exact = float(E.exact_win_probability(stop_at))
        assert by[name].low <= exact <= by[name].high
    assert by["timid"].below_best and by["random"].below_best
    assert not by["search"].below_best  # search over timid plays the best play


def test_ladder_cli():
    res = CliRunner().invoke(cli, ["ladder", "scenarios/toy/draw.toml", "--games", "500", "-j", "1",
                                   "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0].startswith("rank,policy,kind,won")


def test_pair_p_is_paired_gap_for_every_pair():
    """The step-down verdict scores every pair with the same test as the rung's own p (McNemar for 0/1 values, the
    sign test when every game moved alike, else t): the vectorised pair_p equals paired_gap pair by pair."""
    from simkit.core.ladder import pair_p, paired_gap

    rng = np.random.default_rng(3)
    u = rng.random((120, 1))
    cases = [(rng.random((120, 4)) < u).astype(float),  # one cell: 0/1
             rng.binomial(6, np.repeat(u, 4, axis=1)) / 6]  # shares over 6 cells
    alike = rng.binomial(6, np.repeat(u, 3, axis=1)) / 6
    alike[:, 2] = 0.5  # a constant column
    alike[:, 1] = alike[:, 2] - 0.25  # moved alike against column 2 in every game: the sign test
    cases.append(alike)
    for x in cases:
        p, gap = pair_p(x)
        for j in range(x.shape[1]):
            for i in range(x.shape[1]):
                if i != j:
                    g, _, _, q = paired_gap(x[:, j], x[:, i])
                    assert p[j, i] == pytest.approx(q, rel=1e-9) and gap[j, i] == pytest.approx(g, abs=1e-12)
    assert pair_p(cases[2])[0][1, 2] == 2 * 0.5 ** 120


def test_below_best_when_the_best_is_picked_by_hand():
    """Three policies over 10 games, a wins 9 where b and c win 1 (b and c identical): b and c are below a.
    McNemar's exact p for a against b: 8 discordant games all one way, 2 · 0.5⁸ = 0.0078; the step-down verdict
    asks more (a max over 3 policies): its p is larger than the pair's, and still below 0.05."""
    a = np.array([1, 1, 1, 1, 1, 1, 1, 1, 1, 0], float)
    b = np.array([1, 0, 0, 0, 0, 0, 0, 0, 0, 0], float)
    rows = rungs_from({"a": a, "b": b, "c": b.copy()}, {})
    by = {r.policy: r for r in rows}
    assert rows[0].policy == "a" and by["b"].p == pytest.approx(2 * 0.5 ** 8)
    assert by["b"].p < by["b"].p_adj < 0.05 and by["b"].below_best and by["c"].below_best
    assert not rows[0].below_best and rows[0].p_adj > 0.9  # nothing beats a: T_a < 0


def test_markdown_names_the_policies_not_told_apart_from_the_best_and_gives_the_spread_its_interval():
    """A ladder's sentence must not crown a best that its own table does not separate: the policies that are not
    'below best' are named beside it, and the spread to the weakest is the paired gap with its interval."""
    from simkit.core.ladder import Rung, markdown

    rungs = [Rung("search", "search", 1.0, 0.886, 1.0, 30),
             Rung("tuned", "heuristic", 0.9, 0.744, 0.965, 30, -0.1, -0.256, 0.031, 0.2, 0.51, False),
             Rung("random", "random", 0.0, 0.0, 0.114, 30, -1.0, -1.0, -0.84, 0.0, 0.0, True)]
    text = markdown(rungs, games=30)
    assert "The strongest" not in text  # a tie at the top crowns nobody (issue 19)
    assert "No single strongest policy: **search** and **tuned** are not told apart at the top (none is 'below " \
           "best'; the highest estimate is **search**'s, win rate 1.000, 95% interval [0.886, 1.000])" in text
    assert "to the highest is 1.000 [0.840, 1.000] (paired)" in text
    rungs[1].below_best = True
    text = markdown(rungs, games=30)
    assert "not told apart" not in text and "The strongest is **search** (win rate 1.000" in text
    assert "to the strongest is 1.000 [0.840, 1.000] (paired)" in text


def test_games_for_a_stated_half_width_by_hand():
    """At a rate of 0.5 Wilson's half-width is z / (2·sqrt(n + z²)) (its widest), so ±0.1 needs
    (1.95996 / 0.2)² − 1.95996² = 96.04 − 3.84 = 92.19, i.e. 93 games; checked against :func:`stats.wilson`, and
    no rate is wider at that n."""
    from simkit.core import stats

    assert stats.games_for_half_width(0.1) == 93
    for h in (0.17, 0.1, 0.055, 0.02):
        n = stats.games_for_half_width(h)
        assert stats.wilson(n / 2, n).half_width <= h < stats.wilson((n - 1) / 2, n - 1).half_width
        assert all(stats.wilson(k, n).half_width <= h + 1e-12 for k in range(n + 1))
    with pytest.raises(ValueError):
        stats.games_for_half_width(0.5)


def test_a_ladder_played_to_a_precision_stops_at_the_first_block_that_reaches_it():
    """Blocks of 50 games of Draw to Ten until every rung is within ±0.07: the answer is the fixed ladder of the
    games it played (the same games, bit for bit), every rung is within ±0.07, and one block fewer was not; the
    cap stops it otherwise, and the page's sentence says which."""
    from simkit.core.ladder import precision_note, widest

    kw = dict(seed=11, block_size=50, policies=["stop_at_8", "timid", "random"])
    got = ladder("scenarios/toy/draw.toml", games=1000, precision=0.07, **kw)
    n = got[0].games
    assert 50 < n < 1000 and n % 50 == 0
    assert got == ladder("scenarios/toy/draw.toml", games=n, **kw)
    assert widest(got) <= 0.07 < widest(ladder("scenarios/toy/draw.toml", games=n - 50, **kw))
    assert f"which took {n:,} games" in precision_note(0.07, got, 1000, 50)
    capped = ladder("scenarios/toy/draw.toml", games=100, precision=0.01, **kw)
    assert capped[0].games == 100 and widest(capped) > 0.01
    assert "the cap came first" in precision_note(0.01, capped, 100, 50)
