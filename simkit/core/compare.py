"""``simkit compare``: two scenarios (or one with ``--set`` changes) on common random numbers.

A :class:`PairedSim` plays scenario A and scenario B on the same block key,
so game g of every cell sees the same shuffles and dice in both wherever the
two consume randomness alike. Each block yields, per metric and group, one
paired observation per game: A's total over the game's pooled cells (``ka``),
B's (``kb``), their difference (``kd``) and the number of cells (``c``), all
exact integers. The runner reduces them like any metric, so a comparison is
reproducible for any number of workers, and can stop early:

* ``precision``: as soon as every difference's 95% half-width is at most E;
* ``sprt``: Wald's sequential test of "the change moved the metric by at least
  D" against "it did not move", on the per-game differences (Gaussian,
  two-sided as two one-sided tests at α/2 each), with error rates α and β.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats as st

from simkit.core.simulation import Metric, Simulation
from simkit.core.stats import z_value
from simkit.errors import InputError

ALL = "all"


def _group_label(by: list[str]) -> pl.Expr:
    if not by:
        return pl.lit(ALL)
    return pl.concat_str([pl.lit(f"{b}=") + pl.col(b).cast(pl.String) for b in by], separator=", ")


class PairedSim(Simulation):
    """A and B played on the same random streams; rows are paired per-game observations."""

    def __init__(self, a: Simulation, b: Simulation, metric_names: list[str] | None = None):
        if (a.game, a.mode) != (b.game, b.mode):
            raise InputError(f"compare: both scenarios must be the same game and mode (got {a.game}/{a.mode} "
                             f"and {b.game}/{b.mode})")
        self.a, self.b = a, b
        self.game, self.mode, self.rules_version = a.game, a.mode, a.rules_version
        self.default_block_size = a.default_block_size
        specs = [m for m in a.metrics if m.trials is None]
        names = [m.name for m in specs]
        if metric_names:
            bad = [n for n in metric_names if n not in names]
            if bad:
                raise InputError(f"--metric: unknown metric {bad[0]!r}; allowed values: {', '.join(names)}")
            specs = [m for m in specs if m.name in metric_names]
        if not specs:
            raise InputError(f"compare: {a.game}/{a.mode} reports no per-game metrics to compare")
        # every metric by its own groups, and pooled over all cells (group "all")
        self.specs = []
        for m in specs:
            self.specs.append((m.name, m.column, m.kind, tuple(m.by)))
            if m.by:
                self.specs.append((m.name, m.column, m.kind, ()))
        self.kinds = {m.name: m.kind for m in specs}
        by = ("metric", "group")
        self.metrics = [Metric("a", "ka", "mean", by), Metric("b", "kb", "mean", by),
                        Metric("d", "kd", "mean", by), Metric("c", "c", "mean", by)]

    @property
    def cells(self) -> int:
        return self.a.cells + self.b.cells

    def run_block(self, key, n):
        fa = pl.DataFrame(self.a.run_block(key, n))
        fb = pl.DataFrame(self.b.run_block(key, n))
        parts = []
        for name, column, _, by in self.specs:
            keys = list(by) + ["game"]
            col = pl.col(column).cast(pl.Int64)
            ga = fa.group_by(keys).agg(col.sum().alias("ka"), pl.len().alias("c"))
            gb = fb.group_by(keys).agg(col.sum().alias("kb"), pl.len().alias("cb"))
            j = ga.join(gb, on=keys, how="inner")
            if j.height != ga.height or j.height != gb.height or not (j["c"] == j["cb"]).all():
                raise InputError("compare: the two scenarios do not have the same cells (warbands, policies, "
                                 "levels …); compare scenarios that differ only in card data or rule options")
            parts.append(j.select(pl.lit(name).alias("metric"), _group_label(list(by)).alias("group"),
                                  pl.col("game").cast(pl.Int32), "ka", "kb", (pl.col("kb") - pl.col("ka")).alias("kd"),
                                  pl.col("c").cast(pl.Int64)))
        frame = pl.concat(parts)
        return {c: frame[c].to_numpy() for c in frame.columns}

    def describe(self):
        return {"a": self.a.describe(), "b": self.b.describe()}


@dataclass
class Row:
    metric: str
    group: str
    n: int
    a: float
    b: float
    d: float
    d_low: float
    d_high: float
    p_value: float
    a_half: float
    b_half: float
    efficiency: float  # var(paired difference) / (var A + var B): the share of games a paired design needs

    @property
    def significant(self) -> bool:
        return self.p_value < 0.05


def _sd_from(row: dict) -> float:
    """The standard deviation of one observation, from a mean's 95% interval and n."""
    half = (row["high"] - row["low"]) / 2
    return half / z_value() * math.sqrt(row["n"]) if row["n"] > 1 and math.isfinite(half) else math.nan


def rows_from(accumulator) -> list[Row]:
    """Paired comparison rows from the runner's accumulated statistics."""
    by_key: dict[tuple, dict] = {}
    for (name, key), (n, s, ss, _) in accumulator.totals.items():
        by_key.setdefault(key, {})[name] = (n, s, ss)
    out = []
    z = z_value()
    for (metric, group), t in by_key.items():
        n = t["a"][0]
        c = t["c"][1] / n  # cells per game (constant within a group)
        mean = {k: t[k][1] / n / c for k in ("a", "b", "d")}
        var = {}
        for k in ("a", "b", "d"):
            _, s1, s2 = t[k]
            var[k] = max(0.0, (s2 - s1 * s1 / n) / (n - 1)) / (c * c) if n > 1 else math.nan
        se = math.sqrt(var["d"] / n) if n > 1 else math.nan
        half = z * se
        if se > 0:
            p = float(2 * st.norm.sf(abs(mean["d"]) / se))
        else:
            p = 1.0 if mean["d"] == 0 else 0.0
        unpaired = var["a"] + var["b"]
        out.append(Row(metric, group, n, mean["a"], mean["b"], mean["d"], mean["d"] - half, mean["d"] + half, p,
                       z * math.sqrt(var["a"] / n) if n > 1 else math.nan,
                       z * math.sqrt(var["b"] / n) if n > 1 else math.nan,
                       var["d"] / unpaired if unpaired > 0 else math.nan))
    out.sort(key=lambda r: (r.metric, r.group != ALL, r.group))
    return out


def precision_rule(e: float):
    """Stop when every difference's 95% half-width is at most ``e``."""
    def stop(acc):
        return all((r.d_high - r.d_low) / 2 <= e for r in rows_from(acc))
    return stop


@dataclass
class SPRT:
    """Wald's sequential test on the pooled per-game difference of one metric.

    H0: the change does not move the metric (δ = 0); H1: it moves it by D or
    more in either direction (|δ| = D). Two one-sided SPRTs at α/2 each; the
    run stops when one of them accepts H1, or both accept H0.
    """

    metric: str
    delta: float
    alpha: float = 0.05
    beta: float = 0.1
    decision: str = "undecided"
    llr_up: float = 0.0
    llr_down: float = 0.0

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / (self.alpha / 2))

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha / 2))

    def __call__(self, acc) -> bool:
        row = next((r for r in rows_from(acc) if r.metric == self.metric and r.group == ALL), None)
        if row is None or row.n < 2 or not math.isfinite(row.d_high):
            return False
        sd = (row.d_high - row.d) / z_value() * math.sqrt(row.n)
        if sd == 0:
            self.decision = "no change" if row.d == 0 else "changed"
            return True
        k = row.n / (sd * sd)
        self.llr_up = k * (self.delta * row.d - self.delta ** 2 / 2)
        self.llr_down = k * (-self.delta * row.d - self.delta ** 2 / 2)
        if self.llr_up >= self.upper or self.llr_down >= self.upper:
            self.decision = f"moved by at least {self.delta:g}"
            return True
        if self.llr_up <= self.lower and self.llr_down <= self.lower:
            self.decision = f"did not move by {self.delta:g}"
            return True
        return False


def table_rows(rows: list[Row]) -> list[dict]:
    """Rows for display: A and B with intervals, the paired difference, p-value, verdict and efficiency."""
    out = []
    for r in rows:
        out.append({
            "metric": r.metric, "group": r.group,
            "A [95%]": f"{r.a:.4f} ± {r.a_half:.4f}", "B [95%]": f"{r.b:.4f} ± {r.b_half:.4f}",
            "B − A [95%]": f"{r.d:+.4f} [{r.d_low:+.4f}, {r.d_high:+.4f}]",
            "p": f"{r.p_value:.3g}", "significant": "yes" if r.significant else "no",
            "paired needs": "–" if not math.isfinite(r.efficiency) else f"{r.efficiency:.0%} of the games",
            "n": r.n,
        })
    return out


def summary_sentence(rows: list[Row]) -> str:
    sig = [r for r in rows if r.significant]
    if not sig:
        return (f"No significant change: none of the {len(rows)} paired differences is significant at the 5% level "
                "(each interval contains 0).")
    names = ", ".join(f"{r.metric} ({r.group}) {r.d:+.4f}" for r in sig[:8])
    more = f" and {len(sig) - 8} more" if len(sig) > 8 else ""
    bonf = sum(r.p_value < 0.05 / len(rows) for r in rows)
    return (f"Significant change in {len(sig)} of {len(rows)} numbers at the 5% level: {names}{more}. "
            f"{bonf} remain significant after a Bonferroni correction for {len(rows)} comparisons.")


def efficiency_note(rows: list[Row]) -> str:
    eff = [r.efficiency for r in rows if math.isfinite(r.efficiency)]
    if not eff:
        return ""
    med = float(np.median(eff))
    return (f"Common random numbers: the paired design needs about {med:.0%} of the games two independent runs "
            f"would need for the same precision (median over the numbers above; var(B − A) / (var A + var B)).")
