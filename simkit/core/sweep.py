"""``simkit sweep``: run a scenario over a grid of ``--set`` values on common random numbers."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.core.overrides import Override, parse_set, parse_value
from simkit.errors import InputError


MAX_POINTS = 200  # values per axis: every point is a whole run


@dataclass
class Axis:
    path: tuple[str, ...]
    values: list
    text: str

    @property
    def name(self) -> str:
        return ".".join(self.path)


def parse_axis_or_fixed(text: str) -> Axis | Override:
    """``path=a:b`` (integers a..b), ``path=a:b:step`` or ``path=v1,v2,…`` is an axis; anything else is fixed."""
    ov = parse_set(text)
    raw = text.split("=", 1)[1].strip()
    if ":" in raw and not raw.startswith(("[", '"')):
        parts = raw.split(":")
        try:
            nums = [parse_value(p) for p in parts]
            if len(parts) not in (2, 3) or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                    for x in nums):
                raise ValueError
        except ValueError:
            raise InputError(f"--set {text!r}: a range is start:stop or start:stop:step with numbers") from None
        start, stop = nums[0], nums[1]
        step = nums[2] if len(parts) == 3 else 1
        if not all(np.isfinite(x) for x in nums):
            raise InputError(f"--set {text!r}: a range needs finite numbers")
        if step <= 0 or stop < start:
            raise InputError(f"--set {text!r}: the range must go up (start <= stop, step > 0)")
        if (stop - start) / step + 1 > MAX_POINTS:
            raise InputError(f"--set {text!r}: at most {MAX_POINTS} values per axis "
                             f"(got {int((stop - start) / step) + 1:,})")
        values = list(np.arange(start, stop + step / 2, step))
        values = [int(v) if all(isinstance(x, int) for x in nums) else float(round(v, 10)) for v in values]
        return Axis(ov.path, values, text)
    if "," in raw and not raw.startswith(("[", '"')):
        values = [parse_value(v.strip()) for v in raw.split(",")]
        if len(values) > MAX_POINTS:
            raise InputError(f"--set {text!r}: at most {MAX_POINTS} values per axis (got {len(values):,})")
        if len(set(map(repr, values))) < len(values):
            raise InputError(f"--set {text!r}: a value appears twice on the axis")
        return Axis(ov.path, values, text)
    return ov


def grid(axes: list[Axis]) -> list[tuple]:
    return list(itertools.product(*(a.values for a in axes)))


def point_overrides(axes: list[Axis], point: tuple) -> list[Override]:
    return [Override(a.path, v, f"{a.name}={v}") for a, v in zip(axes, point)]


def sweep_plot(path: Path, axes: list[Axis], rows: list[dict], metric: str, groups: list[str]) -> Path:
    """A line with its interval band per group (one axis), or a heat-map (two axes, first group)."""
    from simkit.core import plotting

    if len(axes) == 1:
        try:
            x, labels = np.array(axes[0].values, dtype=float), None
        except (TypeError, ValueError):  # words, not numbers: categories in their order
            x, labels = np.arange(len(axes[0].values), dtype=float), axes[0].values
        series, bands = {}, {}
        for g in groups:
            sel = [next(r for r in rows if r["group"] == g and r[axes[0].name] == v) for v in axes[0].values]
            series[g] = np.array([r["estimate"] for r in sel])
            bands[g] = (np.array([r["low"] for r in sel]), np.array([r["high"] for r in sel]))
        return plotting.lines(path, x, series, bands=bands, title=f"{metric} against {axes[0].name} (95% bands)",
                              xlabel=axes[0].name, ylabel=metric, xticklabels=labels)
    g = groups[0]
    a0, a1 = axes
    vals = np.array([[next(r["estimate"] for r in rows if r["group"] == g and r[a0.name] == v0 and r[a1.name] == v1)
                      for v0 in a0.values] for v1 in a1.values])
    return plotting.heatmap(path, vals, a0.values, a1.values, title=f"{metric} ({g})", xlabel=a0.name,
                            ylabel=a1.name, cbar_label=metric, fmt="{:.3f}")


def run_points(scenario, axes: list[Axis], fixed: list[Override], *, games: int | None = None, seed=None,
               jobs: int | None = 0, metrics: list[str] | None = None, filters: list[tuple[str, str]] = (),
               progress: bool = False) -> tuple[list[dict], list[str]]:
    """Play ``scenario`` at every point of the grid of ``axes`` (with the ``fixed`` changes) on the same root
    seed; return ``(rows, metrics)``: one row per point, metric and group (``KEY=VALUE`` ``filters`` keep only
    matching groups) with the estimate, its 95% interval and n."""
    from simkit.core import loader

    rows, chosen = [], list(metrics or [])
    for point in grid(axes):
        sc = loader.load(scenario, list(fixed) + point_overrides(axes, point))
        from simkit.core.runner import run_simulation  # after the scenario checked out: a bad one fails fast
        sim = sc.simulation
        names = [m.name for m in sim.metrics]
        chosen = list(metrics or []) or names[:1]
        for m in chosen:
            if m not in names:
                raise InputError(f"--metric: unknown metric {m!r}; allowed values: {', '.join(names)}")
        res = run_simulation(sim, games or sc.run.games or 10_000, seed=seed, jobs=jobs,
                             block_size=sc.run.block_size, progress=progress)
        for r in res.summary:
            if r["metric"] not in chosen:
                continue
            if any(str(r["group"].get(k)) != v for k, v in filters):
                continue
            row = {a.name: v for a, v in zip(axes, point)}
            row.update(metric=r["metric"], group=", ".join(f"{k}={v}" for k, v in r["group"].items()) or "all",
                       estimate=r["estimate"], low=r["low"], high=r["high"], n=r["n"])
            rows.append(row)
    return rows, chosen
