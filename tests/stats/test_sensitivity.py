"""Policy sensitivity (simkit.core.sensitivity): rank correlation and flipped pairs, computed by hand."""

from __future__ import annotations

import math

from simkit.core.sensitivity import markdown, sensitivity
from simkit.core.stats import Estimate


def _e(p, half):
    return Estimate(p, p - half, p + half, 1000)


def test_reversed_ranking_flips_every_pair_and_narrow_intervals_resolve_them():
    table = {"ref": {"a": _e(0.9, 0.01), "b": _e(0.6, 0.01), "c": _e(0.3, 0.01)},
             "same": {"a": _e(0.8, 0.01), "b": _e(0.5, 0.01), "c": _e(0.2, 0.01)},
             "reversed": {"a": _e(0.2, 0.01), "b": _e(0.5, 0.01), "c": _e(0.7, 0.01)}}
    comps = {c.policy: c for c in sensitivity(table, "ref")}
    assert math.isclose(comps["same"].rho, 1.0) and comps["same"].flips == []
    assert math.isclose(comps["reversed"].rho, -1.0)
    assert sorted(comps["reversed"].flips) == [("a", "b", True), ("a", "c", True), ("b", "c", True)]
    text = markdown(list(comps.values()), "ref", "Warbands")
    assert "3 of 3" in text and "under `reversed`, b beats a" in text


def test_a_flip_inside_the_noise_is_not_resolved():
    # b − a = 0.02 under `other`, with standard errors of about 0.05 each: not separated
    table = {"ref": {"a": _e(0.70, 0.01), "b": _e(0.50, 0.01)},
             "other": {"a": _e(0.60, 0.10), "b": _e(0.62, 0.10)}}
    (c,) = sensitivity(table, "ref")
    assert c.flips == [("a", "b", False)] and c.pairs == 1
    assert "No resolved flip" in markdown([c], "ref", "Warbands")
