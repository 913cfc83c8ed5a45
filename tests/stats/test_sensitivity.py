"""Policy sensitivity (simkit.core.sensitivity): rank correlation and flipped pairs, computed by hand; resolved
flips Holm-corrected, with the family-wise rate measured at a known truth of no flips."""

from __future__ import annotations

import math

import numpy as np

from simkit.core.sensitivity import ALPHA, markdown, sensitivity
from simkit.core.stats import Estimate, wilson


def _e(p, half):
    return Estimate(p, p - half, p + half, 1000)


def test_reversed_ranking_flips_every_pair_and_narrow_intervals_resolve_them():
    table = {"ref": {"a": _e(0.9, 0.01), "b": _e(0.6, 0.01), "c": _e(0.3, 0.01)},
             "same": {"a": _e(0.8, 0.01), "b": _e(0.5, 0.01), "c": _e(0.2, 0.01)},
             "reversed": {"a": _e(0.2, 0.01), "b": _e(0.5, 0.01), "c": _e(0.7, 0.01)}}
    comps = {c.policy: c for c in sensitivity(table, "ref")}
    assert math.isclose(comps["same"].rho, 1.0) and comps["same"].flips == []
    assert math.isclose(comps["reversed"].rho, -1.0)
    assert sorted((f.above, f.below, f.resolved) for f in comps["reversed"].flips) == [
        ("a", "b", True), ("a", "c", True), ("b", "c", True)]
    text = markdown(list(comps.values()), "ref", "Warbands")
    assert "3 of 3" in text and "under `reversed`, b beats a" in text
    assert "Holm-corrected over all 6 comparisons (3 pairs × 2 policies compared, family-wise 0.05)" in text


def test_a_flip_inside_the_noise_is_not_resolved():
    # b − a = 0.02 under `other`, with standard errors of about 0.05 each: not separated
    table = {"ref": {"a": _e(0.70, 0.01), "b": _e(0.50, 0.01)},
             "other": {"a": _e(0.60, 0.10), "b": _e(0.62, 0.10)}}
    (c,) = sensitivity(table, "ref")
    assert [(f.above, f.below, f.resolved) for f in c.flips] == [("a", "b", False)] and c.pairs == 1
    assert "No resolved flip" in markdown([c], "ref", "Warbands")


def test_the_flip_p_is_the_larger_of_the_two_policies_p_and_holm_adjusts_it():
    # one flip: the reference separates a > b by 0.02 with se 0.01·√2 (z = 1.414, p = 0.157); `other` reverses it
    # by 0.2 (z ≈ 14): the intersection-union p is the reference's, adjusted by Holm over the family of 3 pairs
    table = {"ref": {"a": _e(0.52, 0.0196), "b": _e(0.50, 0.0196), "c": _e(0.1, 0.0196)},
             "other": {"a": _e(0.30, 0.0196), "b": _e(0.50, 0.0196), "c": _e(0.1, 0.0196)}}
    (c,) = sensitivity(table, "ref")
    (f,) = c.flips
    se = 0.0196 / 1.959964 * math.sqrt(2)
    want = math.erfc(0.02 / se / math.sqrt(2))
    assert math.isclose(f.p, want, rel_tol=1e-9) and math.isclose(f.p_adj, min(1.0, 3 * want), rel_tol=1e-9)
    assert not f.resolved


def test_two_groups_have_no_rank_correlation_and_say_why():
    # the Duel's two seats: Spearman's ρ of two values is undefined; the page says so once instead of "+nan"
    table = {"ref": {"first": _e(0.6, 0.01), "second": _e(0.4, 0.01)},
             "other": {"first": _e(0.55, 0.01), "second": _e(0.45, 0.01)}}
    comps = sensitivity(table, "ref")
    text = markdown(comps, "ref", "seats")
    # a column that would say "none" in every row is left out, with one sentence why (the designer review)
    assert "nan" not in text and "Spearman" not in text.split("\n\n")[0]
    assert "With 2 groups there is no rank correlation (it needs 3 or more)" in text


def _resolved_any(rng, ref_p, other_p, policies, n):
    def row(ps):
        return {f"g{i}": wilson(int(rng.binomial(n, p)), n) for i, p in enumerate(ps)}

    table = {"ref": row(ref_p), **{f"p{k}": row(other_p) for k in range(policies)}}
    return any(c.resolved for c in sensitivity(table, "ref"))


def test_family_wise_rate_at_a_known_truth_of_no_flips():
    """8 groups, 3 other policies, n = 2,000 games per cell, 500 repetitions. The truth has no flip: the reference
    separates every pair (rates 0.30 … 0.65) and the other policies rate every group 0.50 (the hardest null: each
    flipped pair needs only the other policy's noise). The old rule (1.96 standard errors per pair, 84 pairs) calls
    a flip in nearly every repetition; with Holm over the pairs, at most 5% (Monte Carlo tolerance 2 sd)."""
    rng = np.random.default_rng(19)
    reps = 500
    ref_p = [0.30 + 0.05 * i for i in range(8)]
    hits = sum(_resolved_any(rng, ref_p, [0.5] * 8, 3, 2000) for _ in range(reps))
    assert hits / reps <= ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / reps), hits
    # every group equal under every policy, too
    hits = sum(_resolved_any(rng, [0.5] * 8, [0.5] * 8, 3, 2000) for _ in range(reps))
    assert hits / reps <= ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / reps), hits


def test_a_real_flip_is_still_found():
    # the reference separates the top two groups by 0.08 (n = 2,000: z ≈ 5.4), the other policy reverses them by
    # 0.12: the flip is found in almost every run, after Holm over the 28 pairs
    rng = np.random.default_rng(7)
    ref_p = [0.10 + 0.08 * i for i in range(8)]
    other = ref_p[:6] + [ref_p[7] + 0.03, ref_p[6] - 0.03]
    found = sum(_resolved_any(rng, ref_p, other, 1, 2000) for _ in range(100))
    assert found >= 95


def test_ranking_sentence_names_the_best_under_each_policy_and_the_resolved_flip():
    from simkit.core.sensitivity import ranking_sentence

    table = {"ref": {"a": _e(0.9, 0.01), "b": _e(0.6, 0.01), "c": _e(0.3, 0.01)},
             "x": {"a": _e(0.5, 0.01), "b": _e(0.8, 0.01), "c": _e(0.2, 0.01)},
             "y": {"a": _e(0.9, 0.01), "b": _e(0.6, 0.01), "c": _e(0.3, 0.01)}}
    text = ranking_sentence(sensitivity(table, "ref"), table, "ref", "Warband")
    assert text.startswith("**The Warband ranking changes with the policy:** 1 resolved flip (1 pair of Warbands "
                           "ordered the other way by another practical policy beyond the noise; Holm over all 6 "
                           "comparisons, 3 pairs × 2 other practical policies against `ref`, family-wise 0.05)")
    assert "c is the worst under every policy" in text
    assert "the best is a under `ref` but b under `x` (a resolved flip)" in text
    assert "changes" not in ranking_sentence(sensitivity(table | {"x": table["y"]}, "ref"), table | {"x": table["y"]},
                                             "ref", "Warband")
    assert "b under `x` (a resolved flip), above a by that policy's own intervals." in text
    one = {k: table[k] for k in ("ref", "x")}  # one other policy: the rule says 'policy', not 'policies'
    assert "3 pairs × 1 other practical policy against `ref`, family-wise" in ranking_sentence(sensitivity(one, "ref"), one, "ref",
                                                                                  "Warband")


def test_ranking_sentence_names_a_best_or_worst_its_interval_cannot_separate_as_a_tie():
    """Issue 39: a policy whose best is another group only by its estimate (intervals overlap the reference's best
    under that policy) moves nothing; the reference's own ties are named; a policy whose best is apart is named."""
    from simkit.core.sensitivity import ranking_sentence

    table = {"ref": {"a": _e(0.90, 0.01), "b": _e(0.89, 0.01), "c": _e(0.30, 0.01)},
             "x": {"a": _e(0.80, 0.05), "b": _e(0.82, 0.05), "c": _e(0.35, 0.05)}}
    text = ranking_sentence(sensitivity(table, "ref"), table, "ref", "Warband")
    assert "c is the worst under every policy, and" in text  # c worst everywhere, apart from the rest
    assert text.endswith("a is the best under every policy or tied with it (intervals overlap).")
    table["x"]["b"] = _e(0.95, 0.01)  # now b is apart from a under x (not resolved: ref cannot tell a from b)
    text = ranking_sentence(sensitivity(table, "ref"), table, "ref", "Warband")
    assert text.endswith("the best is a under `ref`, tied with b (intervals overlap), but b under `x`, above a by "
                         "that policy's own intervals (not a resolved flip: the games do not show both orders beyond "
                         "the noise).")
    assert text.startswith("**The Warband ranking does not change with the policy beyond the noise:**")


def test_a_paired_p_replaces_the_intervals_for_groups_that_share_games():
    # the seats of one table: the intervals alone separate both pairs, but the pair's own paired p-value (given by
    # pair_p, as for seats whose wins are one another's losses) decides; the default keeps the intervals' p
    table = {"ref": {"a": _e(0.55, 0.01), "b": _e(0.45, 0.01)},
             "other": {"a": _e(0.45, 0.01), "b": _e(0.55, 0.01)}}
    (plain,) = sensitivity(table, "ref")
    assert [(f.above, f.below, f.resolved) for f in plain.flips] == [("a", "b", True)]
    seen = []

    def pair_p(policy, a, b):
        seen.append((policy, a, b))
        return {"ref": 0.001, "other": 0.2}[policy]

    (paired,) = sensitivity(table, "ref", pair_p=pair_p)
    assert sorted(seen) == [("other", "a", "b"), ("ref", "a", "b")]
    (f,) = paired.flips
    assert math.isclose(f.p, 0.2) and not f.resolved  # the larger of the two policies' p-values
