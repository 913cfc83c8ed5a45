"""What the runner runs: a :class:`Simulation` and the :class:`Metric` s it reports.

A simulation plays one block of games: ``run_block(key, n)`` gets the block's
64-bit key words (from ``SeedSequence(root, spawn_key=(block,))``) and the
number of games ``n`` per cell, and returns columns (numpy arrays of equal
length) with one row per game per cell. Each cell (a warband × policy, a
strike × shield pair, …) replays the same ``n`` game streams: common random
numbers across cells.

Metrics are reduced from sufficient statistics (count, sum, sum of squares)
per group, per block, and merged in block order: integer sums are exact, so
the summary is the same whatever the number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import polars as pl

from simkit.core import stats


@dataclass(frozen=True)
class Metric:
    """A reported number: a rate (0/1 column) or a mean, grouped by some columns.

    With ``trials`` set, rows are pre-aggregated: the rate is
    ``sum(column) / sum(trials)`` (used by dice checks that count events in
    bulk instead of writing a row per roll).

    With ``unit="game"`` the metric pools several cells that replay the same
    game streams (common random numbers), so their rows are not independent:
    the game is the unit. Each game contributes the mean over its pooled cells,
    and the interval is the normal one over games.
    """

    name: str
    column: str
    kind: Literal["rate", "mean"] = "rate"
    by: tuple[str, ...] = ()
    label: str = ""
    trials: str | None = None
    unit: Literal["row", "game"] = "row"


class Simulation:
    """Base class for a game mode's simulator (see module docstring)."""

    game: str = ""
    mode: str = ""
    rules_version: str = ""
    metrics: list[Metric] = []
    default_block_size: int = 10_000

    def run_block(self, key: np.ndarray, n: int) -> dict[str, np.ndarray]:  # pragma: no cover - interface
        raise NotImplementedError

    @property
    def cells(self) -> int:
        """How many cells each game is played in (rows per game index)."""
        return 1

    @property
    def games_per_index(self) -> int:
        """Games played per game index: ``cells`` unless a game writes several rows (one per seat, say)."""
        return self.cells

    def describe(self) -> dict[str, Any]:
        """What the manifest records about the scenario: options, policies, parameters."""
        return {}

    def declared_columns(self) -> dict[str, str] | None:
        """The columns ``run_block`` returns, name -> ``"number"`` or ``"text"``, known without playing a game (so
        ``simkit balance`` checks a ``--target`` before any kernel compiles); None: not declared, the first block
        of games tells. A test keeps every declaration equal to what ``run_block`` returns."""
        return None

    def column_values(self) -> dict[str, list[str]]:
        """The values (as text) a grouping column can take, for the columns the scenario alone fixes (the
        Warbands, the policies, the table sizes); a column not named here is not checked before playing."""
        return {}


def distinct(values) -> list[str]:
    """The distinct values of ``values`` as text, in first-seen order (for :meth:`Simulation.column_values`)."""
    return list(dict.fromkeys(str(v) for v in np.asarray(values).tolist()))


def _is_integer(dtype) -> bool:
    return dtype.is_integer() or dtype == pl.Boolean


def block_stats(frame: pl.DataFrame, metrics: list[Metric]) -> list[tuple[str, tuple, int, Any, Any, int]]:
    """Sufficient statistics of one block: ``(metric, group values, n, sum, sum_sq, cells)`` per group.

    Sums of integer columns are Python ints (exact); float sums are floats.
    For ``unit="game"`` metrics, n counts games, the sums are over each game's
    total across its ``cells`` pooled cells (exact integers for 0/1 outcomes).
    """
    out = []
    for m in metrics:
        by = list(m.by)
        col = pl.col(m.column)
        if _is_integer(frame.schema[m.column]):
            col = col.cast(pl.Int64)
        if m.unit == "game":
            per_game = frame.group_by(by + ["game"]).agg(col.sum().alias("__k"), pl.len().alias("__c"))
            k = pl.col("__k")
            aggs = [pl.len().alias("__n"), k.sum().alias("__s"), (k * k).sum().alias("__ss"),
                    pl.col("__c").max().alias("__c")]
            g = per_game.group_by(by).agg(aggs) if by else per_game.select(aggs)
        else:
            n_expr = pl.col(m.trials).cast(pl.Int64).sum() if m.trials else pl.len()
            aggs = [n_expr.alias("__n"), col.sum().alias("__s"), (col * col).sum().alias("__ss"),
                    pl.lit(1).alias("__c")]
            g = frame.group_by(by, maintain_order=True).agg(aggs) if by else frame.select(aggs)
        for row in g.sort(by).iter_rows(named=True) if by else g.iter_rows(named=True):
            key = tuple(row[b] for b in by)
            out.append((m.name, key, int(row["__n"]), row["__s"], row["__ss"], int(row["__c"])))
    return out


@dataclass
class StatsAccumulator:
    """Merges block statistics in block order into summary rows."""

    metrics: list[Metric]
    totals: dict = field(default_factory=dict)

    def add(self, rows) -> None:
        for name, key, n, s, ss, c in rows:
            acc = self.totals.setdefault((name, key), [0, 0, 0, 1])
            acc[0] += n
            acc[1] += s
            acc[2] += ss
            acc[3] = max(acc[3], c)

    def summary(self) -> list[dict]:
        """Rows ``{metric, group, estimate, low, high, n}`` with 95% intervals."""
        by_name = {m.name: m for m in self.metrics}
        rows = []
        for (name, key), (n, s, ss, c) in self.totals.items():
            m = by_name[name]
            if m.unit == "game" and c > 1:
                if m.kind == "rate":
                    # Wilson on the effective number of games (rows over the design effect)
                    e = stats.pooled_rate(int(n), s, ss, int(c))
                else:
                    # each game's mean over its c pooled cells is one observation
                    e = stats.mean_interval(int(n), s / c, ss / (c * c))
            elif m.kind == "rate":
                e = stats.wilson(int(s), int(n))
            else:
                e = stats.mean_interval(int(n), float(s), float(ss))
            rows.append({
                "metric": name,
                "group": {b: _plain(v) for b, v in zip(m.by, key)},
                "estimate": e.estimate,
                "low": e.low,
                "high": e.high,
                "n": e.n,
            })
        order = {m.name: i for i, m in enumerate(self.metrics)}
        rows.sort(key=lambda r: (order[r["metric"]], tuple(_sort_key(v) for v in r["group"].values())))
        return rows

    def max_rate_half_width(self) -> float:
        widths = [(r["high"] - r["low"]) / 2 for r in self.summary()
                  if next(m for m in self.metrics if m.name == r["metric"]).kind == "rate"]
        return max(widths) if widths else 0.0


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    return v


def _sort_key(v):
    """Numbers before text, numbers by value (so 2 sorts before 10)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (0, v, "")
    return (1, 0, str(v))
