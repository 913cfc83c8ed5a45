"""The policies' battle play against the exact optimum: the summary every game's battle yardstick reports."""

from __future__ import annotations

from simkit.core.stats import bounded_mean, wilson


def summary(rows: list[dict], policies: list[str]) -> dict[str, dict]:
    """Per policy, over the solved battles ``rows`` (each with ``optimal``, ``<policy>`` and ``<policy> lost``,
    probabilities in [0, 1], and ``<policy> agrees`` where the battle had a first decision): the mean P(win)
    optimal and under the policy and the loss per battle, each with its 95% interval over the n battles
    (:func:`simkit.core.stats.bounded_mean`, Clopper–Pearson on the sum: a normal interval does not hold its level
    on a few dozen battles most of which lose nothing), and the share of first decisions on which its choice is
    optimal (Wilson 95%, n = battles with a first decision)."""
    out = {}
    for p in policies:
        firsts = [r[f"{p} agrees"] for r in rows if f"{p} agrees" in r]
        out[p] = {"optimal": bounded_mean([r["optimal"] for r in rows]),
                  "policy": bounded_mean([r[p] for r in rows]),
                  "lost": bounded_mean([r[f"{p} lost"] for r in rows]),
                  "agree": wilson(sum(firsts), len(firsts)), "decisions": len(firsts)}
    return out
