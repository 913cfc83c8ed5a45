"""Shared pieces of the ``simkit odds …`` commands: common options, output, Monte Carlo checks."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import click

from simkit.core.limits import MAX_GAMES, MAX_JOBS
from simkit.core.paths import OutPath, check_out_path, check_plot_path
from simkit.core.tables import FORMATS, fraction_str, render
from simkit.errors import InputError


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


# --- one battle solved exactly (`odds valhalla-battle`, `odds lonequest-battle`) ---------------------------------

MAX_FRACTION_CHARS = 40  # longer exact fractions are shown as decimals in table/Markdown


def keys(text: str) -> list[str]:
    """The comma-separated keys of an option, blanks dropped."""
    return [k.strip() for k in text.split(",") if k.strip()]


def exact_text(x: Fraction) -> str:
    """An exact value for a table: ``num/den ≈ 0.123456``, or the decimal alone when the fraction is long."""
    f = fraction_str(x)
    return f"{f} ≈ {float(x):.6f}" if len(f) <= MAX_FRACTION_CHARS else f"≈ {float(x):.10f}"


def check_file_options(**paths) -> None:
    """Each ``--option`` (keyword: the option's name with ``_`` for ``-``) given a path must be a file."""
    for name, p in paths.items():
        if p is not None and not Path(p).is_file():
            opt = "--" + name.replace("_", "-")
            raise InputError(f"{opt} {p}: " + ("is a folder, expected a .toml file" if Path(p).is_dir()
                                               else "file not found"))


def battle_mc_check(play, solver, mc: int, seed, rows: list[dict]) -> dict | None:
    """``--mc``: the optimal table checked by the engine. ``play(solver, mc, root)`` plays ``mc`` battles by the
    optimal table and returns the wins; their share with its 95% Wilson interval goes into ``rows[0]`` (the
    optimal play: ``win_mc``, ``win_low``, ``win_high``, ``mc_n``). Returns the table's cells (estimate text,
    whether the exact value is inside the interval, n), or None without ``--mc``."""
    if not mc:
        return None
    from simkit.core.seeding import normalize_seed
    from simkit.core.stats import wilson

    root = normalize_seed(seed)
    est = wilson(play(solver, mc, root), mc)
    p = rows[0]["win_p"]
    rows[0].update(win_mc=est.estimate, win_low=est.low, win_high=est.high, mc_n=mc)
    click.echo(f"Monte Carlo: {mc:,} battles played by the engine with the optimal table, seed {root}", err=True)
    return {"text": f"{est.estimate:.4f} [{est.low:.4f}, {est.high:.4f}]",
            "inside": "yes" if est.low <= p <= est.high else "NO", "n": mc}


def mc_cells(d: dict, row: dict, mc_row: dict | None) -> dict:
    """A battle table's Monte Carlo columns on ``d`` (the display of ``row``): filled on the optimal play's row,
    blank on the policies' (the check plays the optimal table only)."""
    if mc_row is not None:
        opt = row["play"] == "optimal"
        d["MC [95%]"] = mc_row["text"] if opt else ""
        d["inside"] = mc_row["inside"] if opt else ""
        d["MC n"] = mc_row["n"] if opt else ""
    return d


def first_choices(first: list[dict], shown: int, key: str, label: str, p_label: str, what: str, policy_names,
                  agree: dict, fmt: str) -> str:
    """The section of the ``shown`` likeliest first decisions (``first``: rows with ``key``, ``probability_p``,
    ``optimal``, ``optimal_win`` and each policy's choice and P(win)), the columns headed ``label`` and
    ``p_label``, the decisions called ``what`` ("rolls", "decisions"), and each policy's share of them played as
    well as optimal (``agree``)."""
    fr = []
    for r in first[:shown]:
        d = {label: r[key], p_label: f"{r['probability_p']:.4f}",
             "Optimal choice": r["optimal"], "P(win | optimal)": f"{r['optimal_win']:.4f}"}
        for n in policy_names:
            d[f"{n} choice"] = r[n]
            d[f"P(win | {n})"] = f"{r[n + '_win']:.4f}"
        fr.append(d)
    shares = "; ".join(f"{n}: {float(v):.4f}" for n, v in agree.items())
    return (("## " if fmt == "md" else "") + f"The {min(shown, len(first))} most likely first {what} (of "
            f"{len(first)}): the optimal choice and each policy's\n\n" + render(fr, fmt)
            + (f"\nShare of first {what} (by probability) on which the policy's choice, followed by optimal "
               f"play, wins as often as the optimal choice: {shares}\n" if shares else ""))


def emit_battle(fmt: str, out: Path | None, rows: list[dict], first: list[dict], first_name: str, agree: dict,
                text) -> None:
    """A solved battle's output: JSON (``plays``, ``first_name``: the first decisions, ``agreement``), CSV of the
    plays, or ``text()`` (table or Markdown)."""
    import json

    if fmt == "json":
        emit(json.dumps({"plays": rows, first_name: first,
                         "agreement": {n: fraction_str(v) for n, v in agree.items()}}, indent=2) + "\n", out)
    elif fmt == "csv":
        emit(render(rows, "csv"), out)
    else:
        emit(text(), out)
