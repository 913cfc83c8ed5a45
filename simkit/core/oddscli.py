"""Shared pieces of the ``simkit odds …`` commands: common options, output, Monte Carlo checks."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import click

from simkit.core.limits import MAX_GAMES, MAX_JOBS
from simkit.core.paths import OutPath, check_out_path, check_plot_path
from simkit.core.tables import FORMATS, fraction_str


def odds_options(f):
    """``--format``, ``--out``, ``--mc``, ``--seed``, ``--jobs``, ``--plot`` for an odds command."""
    opts = [
        click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
                     help="Output format: aligned table, Markdown, CSV or JSON."),
        click.option("--out", "out", type=OutPath(dir_okay=False, path_type=Path), default=None,
                     callback=lambda ctx, param, v: check_out_path(v, "--out"),
                     help="Write the output to this file instead of the terminal."),
        click.option("--mc", "mc", type=click.IntRange(min=0, max=MAX_GAMES), default=0, show_default=True,
                     help="Also simulate N trials per cell on the parallel runner and show the "
                          "estimate with its 95% interval beside each exact value."),
        click.option("--seed", type=click.IntRange(min=0), default=None,
                     help="Root seed of the --mc simulation (drawn and printed when absent)."),
        click.option("--jobs", "-j", type=click.IntRange(min=0, max=MAX_JOBS), default=0, show_default=True,
                     help="Workers for --mc (0 = all cores); results do not depend on it."),
        click.option("--plot", "plot", type=OutPath(dir_okay=False, path_type=Path), default=None,
                     callback=lambda ctx, param, v: check_plot_path(v, "--plot"),
                     help="Also write a plot to this path (.png, .svg or .pdf)."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def emit(text: str, out: Path | None) -> None:
    """Print ``text`` or write it to ``out``."""
    if out is None:
        click.echo(text, nl=not text.endswith("\n"))
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
        click.echo(f"wrote {out}", err=True)


def monte_carlo(sim, trials: int, seed, jobs: int) -> dict:
    """Run ``sim`` (aggregated rows) for ``trials`` per cell; {(metric, group values): summary row}."""
    from simkit.core.runner import run_simulation
    from simkit.core.seeding import normalize_seed

    root = normalize_seed(seed)
    res = run_simulation(sim, trials, seed=root, jobs=jobs or None, progress=sys.stderr.isatty())
    click.echo(f"Monte Carlo: {trials:,} trials per cell, seed {root}", err=True)
    return {(r["metric"], tuple(r["group"].values())): r for r in res.summary}, root


def frac_cols(row: dict, name: str, value: Fraction | None) -> None:
    """Add ``name`` (``"num/den"``) and ``name_p`` (float) to ``row``."""
    row[name] = None if value is None else fraction_str(value)
    row[f"{name}_p"] = None if value is None else float(value)


def mc_cols(row: dict, name: str, est: dict | None) -> None:
    """Add the Monte Carlo estimate of ``name`` with its 95% interval and count."""
    if est is None:
        return
    row[f"{name}_mc"] = est["estimate"]
    row[f"{name}_low"] = est["low"]
    row[f"{name}_high"] = est["high"]
    row["mc_n"] = est["n"]


def display_rows(rows):
    """Rows for table/Markdown output: ``x`` with ``x_p`` becomes ``"num/den ≈ 0.1234"``, and a Monte Carlo
    estimate ``x_mc`` with ``x_low``/``x_high`` becomes one ``x MC [95%]`` column; headings in words (``_`` as a
    space)."""
    out = []
    for r in rows:
        d = {}
        for k, v in r.items():
            if k.endswith(("_p", "_low", "_high")) or k == "mc_n":
                continue
            if k.endswith("_mc"):
                base = k[:-3]
                d[f"{base.replace('_', ' ')} MC [95%]"] = f"{v:.4f} [{r[base + '_low']:.4f}, {r[base + '_high']:.4f}]"
            elif f"{k}_p" in r and isinstance(v, str):
                d[k.replace("_", " ")] = f"{v} ≈ {r[k + '_p']:.4f}"
            else:
                d[k.replace("_", " ")] = v  # a heading in words: "without offering", not "without_offering"
        if "mc_n" in r:
            d["MC n"] = r["mc_n"]  # every simulated rate with its number of trials
        out.append(d)
    return out
