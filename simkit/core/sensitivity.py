"""Policy sensitivity: does a report's main ranking (Warbands, levels, Emblems, seats) change with the policy?

A balance conclusion ("Goblins are the weakest Warband") is a property of the game *and* the policy that played
it. :func:`sensitivity` takes each policy's estimate per group, ranks the groups under every policy, and compares
each ranking with the reference policy's: Spearman's rank correlation, and the pairs of groups whose order flips,
each marked *resolved* when both policies separate the pair by more than 1.96 standard errors of the difference
(groups whose games share dice are positively correlated, so this is conservative).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from scipy import stats as st

from simkit.core.stats import Estimate


@dataclass
class Comparison:
    policy: str
    rho: float  # Spearman's rank correlation with the reference ranking
    pairs: int
    flips: list[tuple[str, str, bool]] = field(default_factory=list)  # (group above under reference, below, resolved)


def _se(e: Estimate) -> float:
    return max(e.high - e.low, 0.0) / (2 * 1.959964)


def _separated(a: Estimate, b: Estimate) -> bool:
    return abs(a.estimate - b.estimate) > 1.959964 * math.hypot(_se(a), _se(b))


def sensitivity(table: dict[str, dict[str, Estimate]], reference: str) -> list[Comparison]:
    """``table[policy][group]``: each policy's estimate per group. One :class:`Comparison` per other policy."""
    ref = table[reference]
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
                flips.append((hi, lo, _separated(ref[g1], ref[g2]) and _separated(row[g1], row[g2])))
        out.append(Comparison(p, rho, len(groups) * (len(groups) - 1) // 2, flips))
    return out


def markdown(comparisons: list[Comparison], reference: str, what: str) -> str:
    """A table (one row per policy) and a sentence on the resolved flips."""
    from simkit.core.tables import render

    rows = []
    for c in comparisons:
        shown = ", ".join(f"{a} > {b}" + (" (resolved)" if r else "") for a, b, r in c.flips[:6])
        more = f" … and {len(c.flips) - 6} more" if len(c.flips) > 6 else ""
        rows.append({"policy": c.policy, f"Spearman ρ with `{reference}`": f"{c.rho:+.3f}",
                     "pairs flipped": f"{len(c.flips)} of {c.pairs}",
                     "resolved flips": sum(r for _, _, r in c.flips),
                     f"flipped pairs (order under `{reference}`)": (shown + more) or "none"})
    resolved = [(c.policy, a, b) for c in comparisons for a, b, r in c.flips if r]
    if resolved:
        verdict = ("**The ranking depends on the policy:** " + "; ".join(
            f"under `{p}`, {b} beats {a}" for p, a, b in resolved[:6])
            + (f" (and {len(resolved) - 6} more)" if len(resolved) > 6 else "")
            + ", each separated beyond 1.96 standard errors under both policies.")
    else:
        verdict = (f"No resolved flip: where two policies order a pair of {what} differently, at least one of them "
                   "does not separate the pair beyond its noise, so the ranking does not change with the policy "
                   "at this sample size.")
    return render(rows, "md") + "\n" + verdict + "\n"
