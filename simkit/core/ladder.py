"""The skill ladder: every policy of a scenario on the same games, strongest first.

Each policy plays every cell of the scenario on the same game streams, so a
game is the unit: its value is the policy's mean over the cells. Each rung
shows the policy's mean with a 95% interval (for a share of wins over cells, the game as a cluster of cells), and its paired difference from
the strongest policy with a p-value: for one cell's 0/1 outcomes Newcombe's
interval and the exact McNemar test (honest with few discordant games), else
a t interval over games (the exact sign test when every game moved alike).
That interval and p are for the pair (the top rung against this one), not
adjusted for the top having been chosen from the same games.

The verdict "below the best" accounts for that choice. Policy i is below the
best when the games reject H_i: "μ_i ≥ μ_j for every other j" (i is a best
policy), tested by comparing i with the best of the others: T_i = max over
j ≠ i of the one-sided z of "j beats i" (from the pair's own p-value). The
rungs are tested step-down with the max statistic (Romano & Wolf 2005, the
shortcut of closed testing): the largest T against the max over every policy,
the next against the max over the rest, …, the null the normal law of the
policies' per-game values with their covariance over the paired games
(``NULL_DRAWS`` draws, fixed seed). Family-wise error ≤ 5% for any number of
truly equal policies (tested for k = 2, 3, 5, 8). With two policies it is the
pair's own exact test.
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
    p: float = 1.0  # paired test that the gap to the top rung is 0 (two-sided, this pair alone)
    p_adj: float = 1.0  # H: "this policy is a best one", adjusted for choosing the best (step-down max statistic)
    below_best: bool = False


ALPHA = 0.05  # family-wise level of "below best"
NULL_DRAWS = 10_000  # normal draws for the max statistic's null (p resolution 1 / 10,001; MC sd 0.002 at p = 0.05)
NULL_SEED = 20_261  # fixed, so a ladder prints the same verdict run after run


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


def paired_gap(x: np.ndarray, best: np.ndarray) -> tuple[float, float, float, float]:
    """``(gap, low, high, p)`` of x − best over paired games: for 0/1 values Newcombe's interval and the exact
    McNemar test; when every game moved alike the exact sign test; else a t interval and test over games."""
    d = x - best
    n = len(d)
    sd = float(d.std(ddof=1)) if n > 1 else 0.0
    gap = float(d.mean()) if n else math.nan
    if _binary(x) and _binary(best):  # one cell: 0/1 per game, so Newcombe's interval and exact McNemar
        pr = stats.paired_rate_difference(best, x)
        return gap, pr.low, pr.high, pr.p_value
    if sd == 0.0:  # every game moved alike: the exact sign test (a t interval has no width here)
        nz = int((d != 0).sum())
        return gap, gap, gap, 1.0 if nz == 0 else min(1.0, 2 * 0.5 ** nz)
    se = sd / math.sqrt(n)
    t = st.t.ppf(0.975, n - 1)
    return gap, gap - t * se, gap + t * se, float(2 * st.t.sf(abs(gap / se), n - 1))


def pair_p(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(p, gap)``, k × k: :func:`paired_gap`'s two-sided p and mean gap x_j − x_i for every pair of columns at
    once (``p[j, i]``, 1 on the diagonal)."""
    x = np.asarray(values, dtype=float)
    n, k = x.shape
    mean = x.mean(axis=0)
    gap = mean[:, None] - mean[None, :]
    p = np.ones((k, k))
    binary = np.array([_binary(x[:, i]) for i in range(k)])
    # 0/1 pairs: the exact McNemar test, two-sided binomial at 1/2 of the discordant games
    up = x.T @ (1 - x)  # up[j, i]: games j won and i lost
    disc = up + up.T
    low = np.minimum(up, up.T)
    with np.errstate(invalid="ignore", divide="ignore"):
        mcn = np.where(disc > 0, np.minimum(1.0, 2 * st.binom.cdf(low, disc, 0.5)), 1.0)
        # otherwise: the t test over games, or the exact sign test when every game moved alike
        cov = np.cov(x, rowvar=False) if n > 1 else np.zeros((k, k))
        var = np.clip(np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2 * cov, 0.0, None)
        diff = x[:, :, None] - x[:, None, :]
        sd = np.sqrt(var)
        same = np.all(diff == diff[:1], axis=0) if n else np.ones((k, k), bool)  # every game moved alike
        nz = (diff != 0).sum(axis=0)
        sign = np.where(nz == 0, 1.0, np.minimum(1.0, 2 * 0.5 ** nz))
        tstat = np.abs(gap) / (sd / math.sqrt(max(n, 1)))
        tp = 2 * st.t.sf(tstat, max(n - 1, 1))
    other = np.where(same | (sd == 0), sign, tp)
    p = np.where(binary[:, None] & binary[None, :], mcn, other)
    np.fill_diagonal(p, 1.0)
    return p, gap


def below_best_p(values: np.ndarray, draws: int = NULL_DRAWS, seed: int = NULL_SEED) -> np.ndarray:
    """Adjusted p-values of H_i "policy i is a best one" (μ_i ≥ μ_j for every j), columns of ``values`` the
    policies' per-game values (rows the paired games).

    z[j, i] is the one-sided normal score of "j beats i" from the pair's own two-sided p (:func:`paired_gap`),
    T_i = max_j z[j, i]: i against the best of the others. Step-down max statistic (Romano & Wolf 2005): in
    decreasing order of T, p_(r) = max(p_(r−1), P(max over the not yet rejected i of max_j Z[j, i] ≥ T_(r))),
    Z the standardised paired differences of a normal vector with the per-game covariance of the policies (a
    pair whose difference never varies gets an independent N(0, 1)). Under H_i the centred statistic is at least
    the observed one, so the family-wise error is at most the level. Two policies: the pair's exact p."""
    x = np.asarray(values, dtype=float)
    n, k = x.shape
    if k < 2:
        return np.ones(k)
    if k == 2:  # one comparison: its exact two-sided p for the lower policy, nothing for the higher
        gap, _, _, p = paired_gap(x[:, 1], x[:, 0])
        out = np.ones(2)
        if gap:
            out[0 if gap > 0 else 1] = p
        return out
    p, gap = pair_p(x)
    z = np.where(p < 1, st.norm.isf(p / 2), 0.0) * np.sign(gap)  # z[j, i]: one-sided score of "j beats i"
    np.fill_diagonal(z, -np.inf)
    t_obs = z.max(axis=0)  # T_i: the best of the others against i
    cov = np.cov(x, rowvar=False) if n > 1 else np.zeros((k, k))
    var = np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2 * cov  # var of x_j − x_i (per game)
    flat = var <= 1e-12 * max(1.0, float(np.abs(cov).max()))
    np.fill_diagonal(flat, False)
    lam, vec = np.linalg.eigh(cov)
    root = vec * np.sqrt(np.clip(lam, 0.0, None))
    inv_sd = 1.0 / np.sqrt(np.where(flat | np.eye(k, dtype=bool), 1.0, np.clip(var, 1e-300, None)))
    np.fill_diagonal(inv_sd, 0.0)
    rng = np.random.default_rng(seed)
    order = np.argsort(-t_obs, kind="stable")
    exceed = np.zeros(k)
    eye = np.eye(k, dtype=bool)
    for start in range(0, draws, 5000):
        m = min(5000, draws - start)
        zs = rng.standard_normal((m, k)) @ root.T  # (m, k): the policies' centred means, up to 1/√n
        dz = (zs[:, :, None] - zs[:, None, :]) * inv_sd  # dz[:, j, i]: j − i, standardised
        if flat.any():  # a pair that never varies: an independent N(0, 1), antisymmetric (ind[j, i] = −ind[i, j])
            ind = np.triu(rng.standard_normal((m, k, k)), 1)
            dz = np.where(flat, ind - np.transpose(ind, (0, 2, 1)), dz)
        dz[:, eye] = -np.inf
        col = dz.max(axis=1)  # (m, k): max_j Z[j, i]
        # the max over the policies not yet rejected, in the step-down order: a running max from the end
        tail = np.maximum.accumulate(col[:, order[::-1]], axis=1)[:, ::-1]
        exceed += (tail >= t_obs[order]).sum(axis=0)
    p_step = np.maximum.accumulate((exceed + 1) / (draws + 1))
    out = np.ones(k)
    out[order] = p_step
    return np.minimum(out, 1.0)


def rungs_from(means: dict[str, np.ndarray], kinds: dict[str, str], alpha: float = ALPHA) -> list[Rung]:
    """The ladder from per-game values of each policy (equal length, game by game)."""
    rows = []
    for name, x in means.items():
        e = _interval(x)
        rows.append(Rung(name, kinds.get(name, ""), float(x.mean()), e.low, e.high, len(x)))
    rows.sort(key=lambda r: -r.value)
    best = means[rows[0].policy]
    for r in rows[1:]:
        r.gap, r.gap_low, r.gap_high, r.p = paired_gap(means[r.policy], best)
    if len(rows) > 1:
        adj = below_best_p(np.column_stack([means[r.policy] for r in rows]))
        for r, a in zip(rows, adj):
            r.p_adj = float(a)
            r.below_best = bool(a < alpha and r.gap < 0)
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
           progress: bool = False, precision: float | None = None) -> list[Rung]:
    """Play ``policies`` (default: the scenario's ``play`` list) on the same games; strongest first.

    ``block_size`` (default: the simulation's) spreads a slow ladder (one with `search`) over ``jobs``;
    ``progress`` shows a bar of the games played (on stderr)."""
    return described_ladder(scenario, policies, games=games, seed=seed, metric=metric, jobs=jobs,
                            overrides=overrides, block_size=block_size, progress=progress, precision=precision)[0]


def described_ladder(scenario: str | Path, policies: list[str] | None = None, *, games: int = 2000, seed: int = 1,
                     metric: str = "won", jobs: int = 1, overrides=(),
                     block_size: int | None = None, progress: bool = False,
                     precision: float | None = None) -> tuple[list[Rung], dict]:
    """:func:`ladder`, and what each policy plays: the simulation's ``describe()["policies"]`` (its settings,
    defaults included), for a report to say what `search` was.

    With ``precision``, ``games`` is a cap: blocks are played in order until every rung's 95% interval is
    within ±``precision`` (then no further block counts; the same games whatever ``jobs``). The rule looks at
    the intervals' widths only, never at the estimates or their order, so the intervals keep their coverage
    (fixed-width sequential intervals, Chow & Robbins 1965); the sample is the precision's, not a round
    number's, and an expensive ladder whose rates are far from 0.5 stops early."""
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
        stop = None if precision is None else \
            (lambda m: max(_interval(x).half_width for x in m.values()) <= precision)
        means = per_game_means(sim, seed, (0,), games, metric, jobs,
                               **({} if bar is None else {"progress": bar.update}),
                               **({} if stop is None else {"stop": stop}))
        if bar is not None:
            bar.refresh()  # the last block's count, however soon it came
    finally:
        if bar is not None:
            bar.close()
    return rungs_from(means, kinds), described


VERDICT_NOTE = ("Gaps are paired game by game (the interval and p of each pair alone); 'below best' and its "
                "p (adj.) allow for the best having been picked from the same games: each policy against the best "
                "of the others, step-down max statistic, family-wise 5%.")


def _p_adj(p: float) -> str:
    """No null draw reached the statistic: the true p is below about 3 / NULL_DRAWS (95%), shown as < 0.001."""
    return "< 0.001" if p <= 1.5 / (NULL_DRAWS + 1) else f"{p:.2g}"


def table_rows(rungs: list[Rung], metric: str = "won") -> list[dict]:
    out = []
    for i, r in enumerate(rungs):
        out.append({
            "rank": i + 1, "policy": r.policy, "kind": r.kind,
            metric: f"{r.value:.4f}", "95% interval": f"[{r.low:.4f}, {r.high:.4f}]", "n": r.games,
            "vs best (paired)": "—" if i == 0 else f"{r.gap:+.4f} [{r.gap_low:+.4f}, {r.gap_high:+.4f}]",
            "p (adj.)": "—" if i == 0 else _p_adj(r.p_adj),
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


def _names(policies: list[str]) -> str:
    """``**a**``, ``**a** and **b**``, ``**a**, **b** and **c**``."""
    bold = [f"**{p}**" for p in policies]
    return bold[0] if len(bold) == 1 else ", ".join(bold[:-1]) + " and " + bold[-1]


def games_for_precision(precision: float, block: int = 1) -> int:
    """The fewest games (in whole blocks of ``block``) after which every rung's 95% interval is within
    ±``precision`` whatever the rates: the rate 0.5, the widest (:func:`stats.games_for_half_width`). A game
    is the unit, however many cells it is played in (the cells of a game share its streams)."""
    need = stats.games_for_half_width(precision)
    return block * math.ceil(need / max(1, block))


def widest(rungs: list[Rung]) -> float:
    """The largest half-width of the rungs' 95% intervals."""
    return max((r.high - r.low) / 2.0 for r in rungs)


def precision_note(precision: float, rungs: list[Rung], cap: int | None = None, block: int | None = None,
                   unit: str = "games") -> str:
    """The sentence a ladder sized by its precision says of its sample: played until every rung is within
    ±``precision`` (``cap``, ``block``: :func:`described_ladder`), or, without ``cap``, a fixed sample from
    :func:`games_for_precision`."""
    n = rungs[0].games
    if cap is None:
        return (f"The sample is set by the precision this table states: {n:,} {unit}, the fewest that keep every "
                f"rung's 95% interval within ±{precision:g} whatever its rate (the widest interval is at a rate "
                "of 0.5).")
    text = (f"The sample is set by the precision this table states: {unit} were played in blocks of {block:,} "
            f"until every rung's 95% interval was within ±{precision:g} (a rule on the intervals' widths, never "
            "on the estimates or their order), ")
    if n < cap or widest(rungs) <= precision:
        return text + f"which took {n:,} {unit}."
    return text + f"up to {cap:,} {unit}; the cap came first (the widest rung is ±{widest(rungs):.3f})."


def markdown(rungs: list[Rung], *, games: int, cells: int = 1, metric: str = "won", label: str = "win rate",
             precision: float | None = None, cap: int | None = None, block: int | None = None) -> str:
    """The ladder as a report section: a sentence on the spread, then the table; with ``precision`` (and
    ``cap``, ``block`` of a ladder played to it), the sentence on how the sample was sized
    (:func:`precision_note`)."""
    best, worst = rungs[0], rungs[-1]
    tied = [r.policy for r in rungs[1:] if not r.below_best]
    text = (f"Every policy played the same {games:,} games"
            + (f" in each of {cells} cells" if cells > 1 else "")
            + (f". The strongest is **{best.policy}** ({label} {best.value:.3f}, 95% interval "
               f"[{best.low:.3f}, {best.high:.3f}])" if not tied else
               # a tie at the top is no ranking: name every policy not 'below best', the highest estimate first
               f". No single strongest policy: {_names([best.policy, *tied])} are not told apart at the top "
               f"(none is 'below best'; the highest estimate is **{best.policy}**'s, {label} {best.value:.3f}, "
               f"95% interval [{best.low:.3f}, {best.high:.3f}])")
            + f"; the spread from the random baseline or weakest policy (**{worst.policy}**, {worst.value:.3f}) to "
            f"the {'strongest' if not tied else 'highest'} is {-worst.gap:.3f} [{-worst.gap_high:.3f}, "
            f"{-worst.gap_low:.3f}] (paired): how much skill matters here. {VERDICT_NOTE}"
            + (f" {precision_note(precision, rungs, cap, block)}" if precision else "") + "\n\n")
    from simkit.core.tables import render

    return text + render(table_rows(rungs, metric), "md")
