"""Policy sensitivity: does a report's main ranking (Warbands, levels, Emblems, seats) change with the policy?

A balance conclusion ("Goblins are the weakest Warband") is a property of the game *and* the policy that played
it. :func:`sensitivity` takes each policy's estimate per group, ranks the groups under every policy, and compares
each ranking with the reference policy's: Spearman's rank correlation (none with fewer than 3 groups), and the
pairs of groups whose order flips.

A flip of pair (a, b) under policy P is *resolved* when the games show both orders: the reference separates the
pair one way and P the other. Its p-value is the intersection-union test's, the larger of the two two-sided
normal p-values of the differences (each from the groups' standard errors; groups whose games share dice are
positively correlated, so this is conservative). Groups that compete in one game (the seats of a table: one seat's
win is another's loss) are negatively correlated, so for them the difference's own p-value is given, paired game by
game (``pair_p``). Those p-values are Holm-corrected over every pair of every
policy compared (the whole table is one family): a resolved flip is one whose Holm-adjusted p is below
``ALPHA``, so the chance of calling any flip where the true orders agree is at most ``ALPHA`` (family-wise).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from scipy import stats as st

from simkit.core.stats import Estimate, holm

ALPHA = 0.05  # family-wise level of "resolved" (Holm over every pair of every policy compared)
Z95 = 1.959964


@dataclass
class Flip:
    above: str  # the group above under the reference policy
    below: str  # … and below it (the policy compared puts it above)
    p: float  # intersection-union p: both policies separate the pair, in opposite directions
    p_adj: float = 1.0  # Holm-adjusted over every pair of every policy compared
    resolved: bool = False


@dataclass
class Comparison:
    policy: str
    rho: float  # Spearman's rank correlation with the reference ranking (NaN with fewer than 3 groups)
    pairs: int
    groups: int = 0
    flips: list[Flip] = field(default_factory=list)

    @property
    def resolved(self) -> list[Flip]:
        return [f for f in self.flips if f.resolved]


def _se(e: Estimate) -> float:
    return max(e.high - e.low, 0.0) / (2 * Z95)


def difference_p(a: Estimate, b: Estimate) -> float:
    """Two-sided normal p-value that ``a`` and ``b`` are equal (standard errors from their 95% intervals)."""
    d = a.estimate - b.estimate
    se = math.hypot(_se(a), _se(b))
    if se == 0:
        return 1.0 if d == 0 else 0.0
    return math.erfc(abs(d) / se / math.sqrt(2))


def sensitivity(table: dict[str, dict[str, Estimate]], reference: str, alpha: float = ALPHA,
                pair_p=None) -> list[Comparison]:
    """``table[policy][group]``: each policy's estimate per group. One :class:`Comparison` per other policy, its
    flips Holm-corrected over every pair of every policy (family-wise ``alpha``). ``pair_p(policy, a, b)``
    (optional): the two-sided p-value that groups ``a`` and ``b`` are equal under ``policy``, for groups whose
    estimates share games (paired game by game); by default :func:`difference_p` of their intervals."""
    ref = table[reference]
    diff = pair_p or (lambda p, a, b: difference_p(table[p][a], table[p][b]))
    groups = [g for g in ref if all(g in table[p] for p in table)]
    out = []
    for p, row in table.items():
        if p == reference:
            continue
        x = [ref[g].estimate for g in groups]
        y = [row[g].estimate for g in groups]
        rho = float(st.spearmanr(x, y).statistic) if len(groups) > 2 else float("nan")
        flips = []
        for g1, g2 in itertools.combinations(groups, 2):
            d_ref = ref[g1].estimate - ref[g2].estimate
            d_p = row[g1].estimate - row[g2].estimate
            if d_ref * d_p < 0:
                hi, lo = (g1, g2) if d_ref > 0 else (g2, g1)
                flips.append(Flip(hi, lo, max(diff(reference, g1, g2), diff(p, g1, g2))))
        out.append(Comparison(p, rho, len(groups) * (len(groups) - 1) // 2, len(groups), flips))
    # the family: every pair of every policy compared (a pair that does not flip has p = 1)
    family = [f.p for c in out for f in c.flips] + [1.0] * sum(c.pairs - len(c.flips) for c in out)
    adj = iter(holm(family))
    for c in out:
        for f in c.flips:
            f.p_adj = next(adj)
            f.resolved = f.p_adj < alpha
    return out


def _rho(c: Comparison) -> str:
    if c.rho == c.rho:
        return f"{c.rho:+.3f}"
    return f"– ({c.groups} groups: a rank correlation needs 3 or more)"


def markdown(comparisons: list[Comparison], reference: str, what: str, alpha: float = ALPHA) -> str:
    """A table (one row per policy) and a sentence on the resolved flips (Holm over every pair, stated)."""
    from simkit.core.tables import render

    rows = []
    with_rho = any(c.rho == c.rho for c in comparisons)  # no rank correlation at all with fewer than 3 groups
    for c in comparisons:
        shown = ", ".join(f"{f.above} > {f.below}" + (f" (resolved, p adj. {_p(f.p_adj)})" if f.resolved else "")
                          for f in c.flips[:6])
        more = f" … and {len(c.flips) - 6} more" if len(c.flips) > 6 else ""
        rows.append({"policy": c.policy, **({f"Spearman ρ with `{reference}`": _rho(c)} if with_rho else {}),
                     "pairs flipped": f"{len(c.flips)} of {c.pairs}",
                     "resolved flips": len(c.resolved),
                     f"flipped pairs (order under `{reference}`)": (shown + more) or "none"})
    family = sum(c.pairs for c in comparisons)
    resolved = [(c.policy, f) for c in comparisons for f in c.resolved]
    n_pairs = _pairs(comparisons)
    rule = (f"Holm-corrected over {_all(family)} ({n_pairs} pair{'s' if n_pairs != 1 else ''} × "
            f"{len(comparisons)} polic{'y' if len(comparisons) == 1 else 'ies'} compared, family-wise {alpha:.3g})")
    if resolved:
        verdict = ("**The ranking depends on the policy:** " + "; ".join(
            f"under `{p}`, {f.below} beats {f.above}" for p, f in resolved[:6])
            + (f" (and {len(resolved) - 6} more)" if len(resolved) > 6 else "")
            + f": each pair separated in opposite directions by the two policies, {rule}.")
    else:
        verdict = (f"No resolved flip ({rule}): where two policies order a pair of {what} differently, the games do "
                   "not show both orders beyond their noise, so the ranking does not change with the policy at this "
                   "sample size.")
    no_rho = "" if with_rho or not comparisons else (
        f"With {comparisons[0].groups} groups there is no rank correlation (it needs 3 or more): the flipped pairs "
        "say it all.\n\n")
    return render(rows, "md") + "\n" + no_rho + verdict + "\n"


def estimates_markdown(table: dict[str, dict[str, Estimate]], reference: str, group: str, digits: int = 3,
                       counted: bool = False) -> str:
    """The estimates behind the rankings: one row per group (in the reference policy's order, best first), one
    column per policy (the reference first), each estimate with its 95% interval (and, ``counted``, its ``n``)."""
    from simkit.core.tables import render

    policies = [reference] + [p for p in table if p != reference]
    ref = table[reference]
    order = sorted(ref, key=lambda g: -ref[g].estimate) + sorted({g for p in policies for g in table[p]} - set(ref))
    f = f"{{:+.{digits}f}}"

    def cell(e: Estimate | None) -> str:
        return "–" if e is None or e.estimate != e.estimate else \
            f"{f.format(e.estimate)} [{f.format(e.low)}, {f.format(e.high)}]" + (f", n {e.n:,}" if counted else "")

    rows = [{group: g, **{(f"`{p}` (reference)" if p == reference else f"`{p}`"): cell(table[p].get(g))
                          for p in policies}} for g in order]
    return render(rows, "md")


def _all(family: int) -> str:
    return "the 1 comparison" if family == 1 else f"all {family} comparisons"


def _pairs(comparisons: list[Comparison]) -> int:
    return max((c.pairs for c in comparisons), default=0)


def _p(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.2g}"


def ranking_sentence(comparisons: list[Comparison], table: dict[str, dict[str, Estimate]], reference: str,
                     what: str, plural: str | None = None, alpha: float = ALPHA) -> str:
    """A report's answer to "does the main ranking change with the policy?": whether any flip is resolved (Holm
    over every pair, stated), and the best and worst ``what`` under the reference (with the groups its interval
    cannot tell from it, as a tie) and under every other policy whose own best (worst) that policy's intervals
    separate from the reference's (with whether that flip is resolved); a best that only the estimates tell apart
    is a tie, not a change."""
    if not comparisons:
        return f"Only one practical policy played, so the {what} ranking is not compared across policies."
    groups = [g for g in table[reference] if all(g in table[p] for p in table)]
    family = sum(c.pairs for c in comparisons)
    resolved = sum(len(c.resolved) for c in comparisons)
    flipped = {(c.policy, f.above, f.below): f for c in comparisons for f in c.flips}

    def ends(worst: bool) -> str:
        """The reference's worst (best) group, tied with those its interval cannot tell from it, and every other
        policy whose own worst (best) the data tell from the reference's (their 95% intervals apart under that
        policy); a policy whose worst is the reference's or tied with it names nothing new."""
        from simkit.core.report import extreme, names

        word = "worst" if worst else "best"
        ref_g, ref_tied = extreme({g: table[reference][g] for g in groups}, worst)
        moved = {}
        strict = True
        unresolved = 0
        for c in comparisons:
            g, tied = extreme({g: table[c.policy][g] for g in groups}, worst)
            strict = strict and g == ref_g and not tied
            if g == ref_g or ref_g in tied:
                continue
            f = flipped.get((c.policy, g, ref_g) if worst else (c.policy, ref_g, g))
            resolved_here = bool(f and f.resolved)
            unresolved += not resolved_here
            moved.setdefault(g, []).append(f"`{c.policy}`" + (" (a resolved flip)" if resolved_here else ""))
        tie = f", tied with {names(ref_tied, 3)} (intervals overlap)," if ref_tied else ""
        if not moved:
            if strict and not ref_tied:
                return f"{ref_g} is the {word} under every policy"
            return f"{ref_g} is the {word} under every policy or tied with it (intervals overlap)"
        n_moved = sum(len(ps) for ps in moved.values())
        own = "that policy's" if n_moved == 1 else "those policies'"
        # a policy's own intervals set its worst (best) apart from the reference's; a flip is resolved only when the
        # games show both orders beyond the noise (Holm): say which, so "no resolved flip" above is not contradicted
        note = "" if not unresolved else (
            " (not a resolved flip: the games do not show both orders beyond the noise)" if unresolved == n_moved
            else " (those not marked are not resolved flips: the games do not show both orders beyond the noise)")
        return (f"the {word} is {ref_g} under `{reference}`{tie} but "
                + "; ".join(f"{g} under {names(ps, len(ps))}" for g, ps in moved.items())
                + f", {'below' if worst else 'above'} {ref_g} by {own} own intervals{note}")

    n_pairs = _pairs(comparisons)
    rule = (f"Holm over {_all(family)}, {n_pairs} pair{'s' if n_pairs != 1 else ''} × {len(comparisons)} "
            f"other practical polic{'y' if len(comparisons) == 1 else 'ies'} against `{reference}`, "
            f"family-wise {alpha:.3g}")
    pairs = len({(f.above, f.below) for c in comparisons for f in c.resolved})
    if resolved:
        head = (f"**The {what} ranking changes with the policy:** {resolved} resolved flip{'s' if resolved > 1 else ''}"
                f" ({pairs} pair{'s' if pairs > 1 else ''} of {plural or what + 's'} ordered the other way by another "
                f"practical policy beyond the noise; {rule})")
    else:
        head = f"**The {what} ranking does not change with the policy beyond the noise:** no resolved flip ({rule})"
    return f"{head}; {ends(True)}, and {ends(False)}."
