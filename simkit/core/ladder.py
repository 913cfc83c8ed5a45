"""The skill ladder: every policy of a scenario on the same games, strongest first.

Each policy plays every cell of the scenario on the same game streams, so a
game is the unit: its value is the policy's mean over the cells. Each rung
shows the policy's mean with a 95% interval (for a share of wins over cells, the game as a cluster of cells), and its paired difference from
the strongest policy with a p-value: for one cell's 0/1 outcomes Newcombe's
interval and the exact McNemar test (honest with few discordant games), else
a t interval over games (the exact sign test when every game moved alike);
the verdict "below the best" is Holm-corrected over the rungs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats as st

from simkit.core import stats


@dataclass
class Rung:
    policy: str
    kind: str
    value: float
    low: float
    high: float
    games: int
    gap: float = 0.0  # value − best value (paired)
    gap_low: float = 0.0
    gap_high: float = 0.0
    p: float = 1.0  # paired test that the gap is 0 (two-sided)
    p_holm: float = 1.0
    below_best: bool = False


def _binary(x: np.ndarray) -> bool:
    return set(np.unique(x)).issubset({0.0, 1.0})


def _cells(x: np.ndarray, most: int = 256) -> int:
    """The fewest cells ``c`` whose mean the per-game values could be (every ``x * c`` a whole number), or 0."""
    for c in range(1, most + 1):
        if np.all(np.abs(x * c - np.round(x * c)) < 1e-9):
            return c
    return 0


def _interval(x: np.ndarray) -> stats.Estimate:
    """A rung's 95% interval. 0/1 per game: Wilson. A game's share of wins over ``c`` cells (values k/c): the
    game is a cluster of ``c`` rows, :func:`stats.clustered_rate` (inside [0, 1], holds near 0 and 1; with a
    coarser ``c`` than the true one, wider, never narrower). Otherwise a normal interval for the mean."""
    if _binary(x):
        return stats.wilson(int(x.sum()), len(x))
    if len(x) and x.min() >= 0.0 and x.max() <= 1.0:
        c = _cells(x)
        if c:
            return stats.clustered_rate(np.round(x * c), np.full(len(x), c))
    return stats.mean_interval(len(x), float(x.sum()), float((x * x).sum()))


def holm(p: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error rate)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def rungs_from(means: dict[str, np.ndarray], kinds: dict[str, str]) -> list[Rung]:
    """The ladder from per-game values of each policy (equal length, game by game)."""
    rows = []
    for name, x in means.items():
        e = _interval(x)
        rows.append(Rung(name, kinds.get(name, ""), float(x.mean()), e.low, e.high, len(x)))
    rows.sort(key=lambda r: -r.value)
    best = means[rows[0].policy]
    for r in rows[1:]:
        x = means[r.policy]
        d = x - best
        n = len(d)
        sd = float(d.std(ddof=1)) if n > 1 else 0.0
        r.gap = float(d.mean())
        if _binary(x) and _binary(best):  # one cell: 0/1 per game, so Newcombe's interval and exact McNemar
            pr = stats.paired_rate_difference(best, x)
            r.gap_low, r.gap_high, r.p = pr.low, pr.high, pr.p_value
        elif sd == 0.0:  # every game moved alike: the exact sign test (a t interval has no width here)
            nz = int((d != 0).sum())
            r.gap_low = r.gap_high = r.gap
            r.p = 1.0 if nz == 0 else min(1.0, 2 * 0.5 ** nz)
        else:
            se = sd / math.sqrt(n)
            t = st.t.ppf(0.975, n - 1)
            r.gap_low, r.gap_high = r.gap - t * se, r.gap + t * se
            r.p = float(2 * st.t.sf(abs(r.gap / se), n - 1))
    adj = holm([r.p for r in rows[1:]]) if len(rows) > 1 else []
    for r, a in zip(rows[1:], adj):
        r.p_holm = a
        r.below_best = a < 0.05 and r.gap < 0
    return rows


def rungs_from_rows(frame, kinds: dict[str, str], metric: str = "won") -> list[Rung]:
    """The ladder from a run's per-game rows (a polars frame with ``policy``, ``block``, ``game`` and ``metric``):
    each game's value for a policy is its mean over that policy's cells, which replay the game's streams."""
    import polars as pl

    per = frame.group_by("policy", "block", "game").agg(pl.col(metric).cast(pl.Float64).mean().alias("v"))
    per = per.collect() if hasattr(per, "collect") else per
    means = {}
    for name in sorted(set(per["policy"].to_list())):
        means[name] = per.filter(pl.col("policy") == name).sort("block", "game")["v"].to_numpy()
    sizes = {len(v) for v in means.values()}
    if len(sizes) > 1:
        raise ValueError(f"policies played different games ({sorted(sizes)}): not a ladder")
    return rungs_from(means, kinds)


def ladder(scenario: str | Path, policies: list[str] | None = None, *, games: int = 2000, seed: int = 1,
           metric: str = "won", jobs: int = 1, overrides=(), block_size: int | None = None,
           progress: bool = False) -> list[Rung]:
    """Play ``policies`` (default: the scenario's ``play`` list) on the same games; strongest first.

    ``block_size`` (default: the simulation's) spreads a slow ladder (one with `search`) over ``jobs``;
    ``progress`` shows a bar of the games played (on stderr)."""
    return described_ladder(scenario, policies, games=games, seed=seed, metric=metric, jobs=jobs,
                            overrides=overrides, block_size=block_size, progress=progress)[0]


def described_ladder(scenario: str | Path, policies: list[str] | None = None, *, games: int = 2000, seed: int = 1,
                     metric: str = "won", jobs: int = 1, overrides=(),
                     block_size: int | None = None, progress: bool = False) -> tuple[list[Rung], dict]:
    """:func:`ladder`, and what each policy plays: the simulation's ``describe()["policies"]`` (its settings,
    defaults included), for a report to say what `search` was."""
    from simkit.core.overrides import Override, apply_overrides, parse_set
    from simkit.core.scenario import read_toml
    from simkit.core.tune import _build_play, per_game_means

    scenario = Path(scenario)
    data, _ = read_toml(scenario)
    data, _ = apply_overrides(scenario, data, [o if isinstance(o, Override) else parse_set(o) for o in overrides])
    sim = _build_play(scenario, data, policies)
    if block_size:
        sim.default_block_size = int(block_size)
    described = sim.describe().get("policies", {})
    kinds = {k: v.get("kind", "") for k, v in described.items()}
    bar = None
    if progress:
        from tqdm import tqdm

        # a ladder of one block is one step: then the bar says what is being played while it runs
        bar = tqdm(total=games, desc=f"ladder: {len(described)} policies × {sim.cells // max(len(described), 1)} "
                   "cells", unit="game", smoothing=0, leave=False, dynamic_ncols=True)
        bar.refresh()
    try:
        # (``progress`` only with a bar: the call stays what it was without one)
        means = per_game_means(sim, seed, (0,), games, metric, jobs,
                               **({} if bar is None else {"progress": bar.update}))
        if bar is not None:
            bar.refresh()  # the last block's count, however soon it came
    finally:
        if bar is not None:
            bar.close()
    return rungs_from(means, kinds), described


def table_rows(rungs: list[Rung], metric: str = "won") -> list[dict]:
    out = []
    for i, r in enumerate(rungs):
        out.append({
            "rank": i + 1, "policy": r.policy, "kind": r.kind,
            metric: f"{r.value:.4f}", "95% interval": f"[{r.low:.4f}, {r.high:.4f}]", "n": r.games,
            "vs best (paired)": "—" if i == 0 else f"{r.gap:+.4f} [{r.gap_low:+.4f}, {r.gap_high:+.4f}]",
            "p (Holm)": "—" if i == 0 else f"{r.p_holm:.2g}",
            "below best": "—" if i == 0 else ("yes" if r.below_best else "no"),
        })
    return out


def plot(path: Path, rungs: list[Rung], *, title: str = "Skill ladder", label: str = "win rate") -> Path:
    """Horizontal bars, strongest on top, with 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simkit.core.plotting import _save

    fig, ax = plt.subplots(figsize=(7, max(2.4, 0.9 + 0.45 * len(rungs))), dpi=110)
    names = [r.policy for r in rungs][::-1]
    vals = np.array([r.value for r in rungs][::-1])
    err = np.array([[r.value - r.low for r in rungs][::-1], [r.high - r.value for r in rungs][::-1]])
    colours = ["#4c72b0" if r.kind != "search" else "#dd8452" for r in rungs][::-1]
    ax.barh(range(len(rungs)), vals, xerr=err, color=colours, capsize=3)
    ax.set_yticks(range(len(rungs)), names)
    ax.set_xlabel(f"{label} (95% interval)")
    ax.set_ylabel("policy")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return _save(fig, Path(path))


def markdown(rungs: list[Rung], *, games: int, cells: int = 1, metric: str = "won", label: str = "win rate") -> str:
    """The ladder as a report section: a sentence on the spread, then the table."""
    best, worst = rungs[0], rungs[-1]
    text = (f"Every policy played the same {games:,} games"
            + (f" in each of {cells} cells" if cells > 1 else "")
            + f". The strongest is **{best.policy}** ({label} {best.value:.3f}, 95% interval "
            f"[{best.low:.3f}, {best.high:.3f}]); the spread from the random baseline or weakest policy "
            f"(**{worst.policy}**, {worst.value:.3f}) to the strongest is {best.value - worst.value:.3f}: how much "
            "skill matters here. Gaps are paired game by game; 'below best' is Holm-corrected.\n\n")
    from simkit.core.tables import render

    return text + render(table_rows(rungs, metric), "md")
