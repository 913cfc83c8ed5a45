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

from simkit.core import stats
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
        # a row is a cell's game: paired on the groups of every metric, whichever are compared (a metric of the
        # game, such as rounds, is grouped without the seat, but its rows are still one per seat)
        self.pair_keys = ["game"] + list(dict.fromkeys(k for m in specs for k in m.by))
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
                        Metric("d", "kd", "mean", by), Metric("c", "c", "mean", by),
                        Metric("ab", "kab", "mean", by), Metric("nz", "knz", "mean", by)]

    @property
    def cells(self) -> int:
        return self.a.cells + self.b.cells

    def run_block(self, key, n):
        return self.pair(pl.DataFrame(self.a.run_block(key, n)), pl.DataFrame(self.b.run_block(key, n)))

    def pair(self, fa: pl.DataFrame, fb: pl.DataFrame) -> dict:
        """The paired per-game observations of one block played by A (``fa``) and by B (``fb``)."""
        if fa.height != fb.height:
            raise InputError("compare: the two scenarios do not have the same cells (warbands, policies, "
                             "levels …); compare scenarios that differ only in card data or rule options")
        # pair every row of A with the row of B for the same cell and game
        cell_keys = self.pair_keys
        cols = list(dict.fromkeys(c for _, c, _, _ in self.specs))
        j = fa.select(*cell_keys, *cols).join(fb.select(*cell_keys, *[pl.col(c).alias(c + "__b") for c in cols]),
                                              on=cell_keys, how="inner")
        if j.height != fa.height:
            raise InputError("compare: the two scenarios do not have the same cells (warbands, policies, "
                             "levels …); compare scenarios that differ only in card data or rule options")
        parts = []
        for name, column, _, by in self.specs:
            keys = list(by) + ["game"]
            x, y = pl.col(column).cast(pl.Int64), pl.col(column + "__b").cast(pl.Int64)
            g = j.group_by(keys).agg(x.sum().alias("ka"), y.sum().alias("kb"), pl.len().alias("c"),
                                     (x * y).sum().alias("kab"))
            parts.append(g.select(pl.lit(name).alias("metric"), _group_label(list(by)).alias("group"),
                                  pl.col("game").cast(pl.Int32), "ka", "kb", (pl.col("kb") - pl.col("ka")).alias("kd"),
                                  pl.col("c").cast(pl.Int64), pl.col("kab").cast(pl.Int64),
                                  (pl.col("kb") != pl.col("ka")).cast(pl.Int64).alias("knz")))
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
    kind: str = "mean"
    cells: int = 1
    p_holm: float = math.nan
    a_low: float = math.nan
    a_high: float = math.nan
    b_low: float = math.nan
    b_high: float = math.nan
    var_d: float = math.nan  # variance of one game's paired difference (its mean over the group's cells)
    discordant: int = 0  # games whose value changed

    @property
    def significant(self) -> bool:
        """Significant at 5% after Holm's correction over all the comparison's numbers."""
        p = self.p_holm if self.p_holm == self.p_holm else self.p_value
        return p < 0.05


def _sd_from(row: dict) -> float:
    """The standard deviation of one observation, from a mean's 95% interval and n."""
    half = (row["high"] - row["low"]) / 2
    return half / z_value() * math.sqrt(row["n"]) if row["n"] > 1 and math.isfinite(half) else math.nan


def rows_from(accumulator, kinds: dict[str, str] | None = None) -> list[Row]:
    """Paired comparison rows from the runner's accumulated statistics.

    Rates of one cell: Newcombe's hybrid score interval (method 10) for the
    paired difference and the exact McNemar test; rates pooled over cells
    that share games: the same on the effective counts (divided by the
    design effect of the game), with the sign-flip z-test Σd/√Σd² over
    games; means: the normal interval of the mean per-game difference and
    the same z-test. A and B: Wilson intervals (on the effective number of
    games when pooled) for rates, normal ones for means. ``p_holm``: Holm's
    adjustment over all rows. ``kinds`` maps metric names to "rate"/"mean"
    (default: the metric is a rate when its A and B values lie in [0, 1]).
    """
    by_key: dict[tuple, dict] = {}
    for (name, key), (n, s, ss, _) in accumulator.totals.items():
        by_key.setdefault(key, {})[name] = (n, s, ss)
    out = []
    z = z_value()
    for (metric, group), t in by_key.items():
        n = t["a"][0]
        c = max(1, round(t["c"][1] / n))  # cells per game (constant within a group)
        rows = n * c
        mean = {k: t[k][1] / rows for k in ("a", "b", "d")}
        var = {}
        for k in ("a", "b", "d"):
            _, s1, s2 = t[k]
            var[k] = max(0.0, (s2 - s1 * s1 / n) / (n - 1)) / (c * c) if n > 1 else math.nan
        kind = (kinds or {}).get(metric) or ("rate" if "ab" in t and all(0 <= t[k][1] <= rows for k in ("a", "b"))
                                             and t["a"][2] <= c * t["a"][1] else "mean")
        sd_, sdd = t["d"][1], t["d"][2]
        # the sign-flip z-test: valid for a zero mean difference whatever the correlation of A and B
        p = 1.0 if sd_ == 0 else float(2 * st.norm.sf(abs(sd_) / math.sqrt(sdd))) if sdd > 0 else 0.0
        if kind == "rate" and "ab" in t:
            n11 = float(t["ab"][1])
            n10, n01 = t["a"][1] - n11, t["b"][1] - n11
            n00 = rows - n11 - n10 - n01
            if min(n10, n01, n00) < 0:  # not 0/1 outcomes after all (a guess without ``kinds``): a mean
                kind = "mean"
        if kind == "rate" and "ab" in t:
            deff = 1.0
            if c > 1 and n > 1:
                v_iid = ((n10 + n01) / rows - mean["d"] ** 2) / rows
                deff = min(float(c), var["d"] / n / v_iid) if v_iid > 0 else float(c)
            pr = stats.paired_rate(n11, n10, n01, n00, deff)
            low, high = pr.low, pr.high
            if c == 1:
                p = pr.p_value  # exact McNemar
            ea = stats.pooled_rate(n, t["a"][1], t["a"][2], c)
            eb = stats.pooled_rate(n, t["b"][1], t["b"][2], c)
        else:
            se = math.sqrt(var["d"] / n) if n > 1 else math.nan
            low, high = mean["d"] - z * se, mean["d"] + z * se
            ha = z * math.sqrt(var["a"] / n) if n > 1 else math.nan
            hb = z * math.sqrt(var["b"] / n) if n > 1 else math.nan
            ea = stats.Estimate(mean["a"], mean["a"] - ha, mean["a"] + ha, n)
            eb = stats.Estimate(mean["b"], mean["b"] - hb, mean["b"] + hb, n)
        unpaired = var["a"] + var["b"]
        out.append(Row(metric, group, n, mean["a"], mean["b"], mean["d"], low, high, p,
                       (ea.high - ea.low) / 2, (eb.high - eb.low) / 2,
                       var["d"] / unpaired if unpaired > 0 else math.nan, kind, c, math.nan,
                       ea.low, ea.high, eb.low, eb.high, var["d"],
                       int(t["nz"][1]) if "nz" in t else 0))
    for r, ph in zip(out, stats.holm([r.p_value for r in out])):
        r.p_holm = ph
    out.sort(key=lambda r: (r.metric, r.group != ALL, r.group))
    return out


def precision_rule(e: float, kinds: dict[str, str] | None = None):
    """Stop when every difference's 95% half-width is at most ``e``."""
    def stop(acc):
        return all((r.d_high - r.d_low) / 2 <= e for r in rows_from(acc, kinds))
    return stop


@dataclass
class SPRT:
    """Wald's sequential test on the pooled per-game difference of one metric.

    H0: the change does not move the metric (δ = 0); H1: it moves it by D or
    more in either direction (|δ| = D). Two one-sided Gaussian SPRTs at α/2
    each on the per-game differences; the run stops when one of them accepts
    H1, or both accept H0.

    The variance is estimated as games come in, and never below a floor: for
    a rate, a change of D flips at least a share D of the paired outcomes,
    so one cell's difference has variance at least D(1 − D) under H1, and the
    mean over ``c`` cells at least D(1 − D)/c (cells not negatively
    correlated). A mean is never decided before ``min_discordant`` games
    changed. At the stop, :meth:`interval` is a confidence sequence: valid
    whenever the run stopped.
    """

    metric: str
    delta: float
    alpha: float = 0.05
    beta: float = 0.1
    kind: str = "rate"
    min_discordant: int = 20
    decision: str = "undecided"
    llr_up: float = 0.0
    llr_down: float = 0.0
    row: Row | None = None
    sd: float = math.nan

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / (self.alpha / 2))

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha / 2))

    def variance(self, row: Row) -> float:
        v = row.var_d if row.var_d == row.var_d else 0.0
        if self.kind == "rate":
            v = max(v, self.delta * (1 - self.delta) / max(1, row.cells))
        return v

    def __call__(self, acc) -> bool:
        row = next((r for r in rows_from(acc, {self.metric: self.kind}) if r.metric == self.metric and r.group == ALL),
                   None)
        if row is None or row.n < 2:
            return False
        self.row = row
        var = self.variance(row)
        if var <= 0 or (self.kind != "rate" and row.discordant < self.min_discordant):
            return False
        self.sd = math.sqrt(var)
        k = row.n / var
        self.llr_up = k * (self.delta * row.d - self.delta ** 2 / 2)
        self.llr_down = k * (-self.delta * row.d - self.delta ** 2 / 2)
        if self.llr_up >= self.upper or self.llr_down >= self.upper:
            self.decision = f"moved by at least {self.delta:g}"
            return True
        if self.llr_up <= self.lower and self.llr_down <= self.lower:
            self.decision = f"did not move by {self.delta:g}"
            return True
        return False

    def interval(self, confidence: float = 0.95) -> tuple[float, float, float]:
        """(estimate, low, high) at the stop: a confidence sequence, valid under optional stopping.

        Tuned to be tightest at the games Wald's test needs on average under H1.
        """
        if self.row is None:
            return math.nan, -math.inf, math.inf
        var = self.variance(self.row)
        n_opt = max(1.0, var * 2 * self.upper / self.delta ** 2)
        lo, hi = stats.confidence_sequence(self.row.n, self.row.d, var, 1 - confidence, n_opt)
        return self.row.d, lo, hi


def _ab(est: float, low: float, high: float) -> str:
    if not (low == low and high == high):
        return f"{est:.4f}"
    return f"{est:.4f} [{low:.4f}, {high:.4f}]"


def table_rows(rows: list[Row]) -> list[dict]:
    """Rows for display: A and B with intervals, the paired difference, raw and Holm p-values, verdict, efficiency."""
    out = []
    for r in rows:
        out.append({
            "metric": r.metric, "group": r.group,
            "A [95%]": _ab(r.a, r.a_low, r.a_high), "B [95%]": _ab(r.b, r.b_low, r.b_high),
            "B − A [95%]": f"{r.d:+.4f} [{r.d_low:+.4f}, {r.d_high:+.4f}]",
            "p": f"{r.p_value:.3g}", "p (Holm)": f"{r.p_holm:.3g}", "significant": "yes" if r.significant else "no",
            "paired needs": "–" if not math.isfinite(r.efficiency) else f"{r.efficiency:.0%} of the games",
            "n": r.n,
        })
    return out


def summary_sentence(rows: list[Row]) -> str:
    sig = [r for r in rows if r.significant]
    raw = sum(r.p_value < 0.05 for r in rows)
    if not sig:
        return (f"No significant change: none of the {len(rows)} paired differences is significant at the 5% level "
                f"after Holm's correction for {len(rows)} comparisons ({raw} with a raw p below 0.05).")
    names = ", ".join(f"{r.metric} ({r.group}) {r.d:+.4f}" for r in sig[:8])
    more = f" and {len(sig) - 8} more" if len(sig) > 8 else ""
    return (f"Significant change in {len(sig)} of {len(rows)} numbers at the 5% level after Holm's correction "
            f"(family-wise; column 'p (Holm)'; {raw} with a raw p below 0.05): {names}{more}.")


def efficiency_note(rows: list[Row]) -> str:
    eff = [r.efficiency for r in rows if math.isfinite(r.efficiency)]
    if not eff:
        return ""
    med = float(np.median(eff))
    return (f"Common random numbers: the paired design needs about {med:.0%} of the games two independent runs "
            f"would need for the same precision (median over the numbers above; var(B − A) / (var A + var B)).")


@dataclass
class RunComparison:
    """Two finished runs compared game by game (see :func:`compare_runs`)."""

    rows: list[Row]
    blocks: int  # blocks compared (those both runs finished)
    games: int  # games per cell compared
    seed: str
    a: dict  # the manifests
    b: dict


def compare_runs(run_a, run_b, metrics: list[str] | None = None) -> RunComparison:
    """Compare two finished runs of the same game and mode played on the same seeds, without re-simulating.

    Both runs must have the same root seed and block size (``simkit run ... --seed S`` for each), so block k of
    A and block k of B replay the same games: each game of A is paired with the same game of B, exactly as
    ``simkit compare`` pairs them while it plays. The blocks both runs finished are compared. The metrics are
    those of A's scenario (its file is read again, not played).
    """
    from pathlib import Path

    from simkit.core import loader, results
    from simkit.core.simulation import StatsAccumulator, block_stats

    run_a, run_b = Path(run_a), Path(run_b)
    ma, mb = results.manifest(run_a), results.manifest(run_b)
    for field_name, what in (("game", "game"), ("mode", "mode"), ("root_seed", "root seed (--seed)"),
                             ("block_size", "block size (--block-size)")):
        if str(ma.get(field_name)) != str(mb.get(field_name)):
            raise InputError(f"compare: {run_a} and {run_b} must share the {what} to be paired game by game "
                             f"(got {ma.get(field_name)} and {mb.get(field_name)}); run both with the same "
                             "--seed and --block-size")
    sims = []
    for run, man in ((run_a, ma), (run_b, mb)):
        path = man.get("scenario_path") or man.get("scenario")
        if not path or not Path(path).is_file():
            raise InputError(f"{run}/manifest.json: the run's scenario file {path!r} is not there to read its "
                             "metrics from")
        sims.append(loader.load(path, list(man.get("overrides") or [])).simulation)
    paired = PairedSim(sims[0], sims[1], metrics)
    blocks_a = {results.block_index(f): f for f in results.block_files(run_a)}
    blocks_b = {results.block_index(f): f for f in results.block_files(run_b)}
    common = sorted(set(blocks_a) & set(blocks_b) - {None})
    if not common:
        raise InputError(f"compare: {run_a} and {run_b} have no finished block in common")
    acc = StatsAccumulator(paired.metrics)
    games = 0
    for k in common:
        fa, fb = pl.read_parquet(blocks_a[k]), pl.read_parquet(blocks_b[k])
        acc.add(block_stats(pl.DataFrame(paired.pair(fa, fb)), paired.metrics))
        games += fa["game"].n_unique()
    return RunComparison(rows_from(acc, paired.kinds), len(common), games, str(ma.get("root_seed")), ma, mb)


def plot(path, rows: list[Row], title: str = "B − A, 95% intervals (paired game by game)"):
    """A forest plot of every paired difference B − A with its 95% interval (Holm-significant ones marked)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simkit.core import plotting

    shown = rows[:40]
    labels = [f"{r.metric} ({r.group})" for r in shown][::-1]
    d = [r.d for r in shown][::-1]
    lo = [r.d_low for r in shown][::-1]
    hi = [r.d_high for r in shown][::-1]
    sig = [r.significant for r in shown][::-1]
    fig, ax = plt.subplots(figsize=(8, max(2.5, 0.32 * len(shown) + 1.2)))
    y = np.arange(len(shown))
    colours = ["#cf222e" if s else "#0969da" for s in sig]
    ax.hlines(y, lo, hi, colors=colours, lw=2)
    ax.scatter(d, y, c=colours, zorder=3, s=18)
    ax.axvline(0, color="#59636e", lw=1, ls="--")
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel("B − A (red: significant after Holm's correction)")
    ax.set_title(title + (f" (first {len(shown)} of {len(rows)})" if len(rows) > len(shown) else ""), fontsize=10)
    return plotting._save(fig, path)
