"""``simkit odds dice EXPR``: the exact distribution of a dice expression, computed by icepool."""

from __future__ import annotations

import json
from pathlib import Path

import click

from simkit.core.paths import OutPath, check_out_path, check_plot_path
from simkit.core.tables import FORMATS, render

# the defaults of simkit.core.dice (a test checks), here so that --help does not import icepool
MAX_WORK, MAX_OUTCOMES = 10_000_000, 20_000


def dice_report(expr: str, max_work: int | None = None, max_outcomes: int | None = None):
    """(distribution rows, summary row) of ``expr``; an InputError names EXPR when it cannot be read, or when its
    size, estimated before anything is computed, is over ``max_work`` steps or ``max_outcomes`` outcomes."""
    from simkit.core.dice import MAX_OUTCOMES, MAX_WORK, parse, summary, table_rows
    from simkit.core.tables import fraction_str

    die = parse(expr, max_work=MAX_WORK if max_work is None else max_work,
                max_outcomes=MAX_OUTCOMES if max_outcomes is None else max_outcomes)
    rows = table_rows(die)
    s = summary(die)
    head = {"expression": expr, "mean": fraction_str(s["mean"]), "mean_p": float(s["mean"]), "sd": s["sd"]}
    head.update({f"p{q}": v for q, v in s["quantiles"].items()})
    return rows, head


def _display(rows):
    return [{"outcome": r["outcome"], "P(X = x)": f"{r['probability']} ≈ {r['probability_p']:.4f}",
             "P(X >= x)": f"{r['at_least']} ≈ {r['at_least_p']:.4f}",
             "P(X <= x)": f"{r['at_most']} ≈ {r['at_most_p']:.4f}"} for r in rows]


def dice_text(rows, head, fmt: str) -> str:
    qs = ", ".join(f"{k[1:]}%: {v}" for k, v in head.items() if k.startswith("p") and k[1:].isdigit())
    mean = head["mean"] if len(head["mean"]) <= 40 else "(see --format json)"
    lines = [f"Expression: {head['expression']}", f"Mean: {mean} ≈ {head['mean_p']:.4f}, "
             f"standard deviation {head['sd']:.4f}", f"Quantiles (smallest x with P(X <= x) >= q): {qs}"]
    if fmt == "md":
        lines = [f"- {line}" for line in lines]
    return "\n".join(lines) + "\n\n" + render(_display(rows), fmt)


def dice_plot(path: Path, rows, expr: str) -> Path:
    from simkit.core.plotting import bars

    return bars(path, [r["outcome"] for r in rows], [r["probability_p"] for r in rows],
                title=f"P(X = x) for {expr}", ylabel="probability", xlabel="outcome x")


@click.command("dice")
@click.argument("expr")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format: aligned table, Markdown, CSV or JSON.")
@click.option("--out", "out", type=OutPath(dir_okay=False, path_type=Path), default=None,
              callback=lambda ctx, param, v: check_out_path(v, "--out"),
              help="Write the output to this file instead of the terminal.")
@click.option("--plot", "plot", type=OutPath(dir_okay=False, path_type=Path), default=None,
              callback=lambda ctx, param, v: check_plot_path(v, "--plot"),
              help="Also write a bar chart of P(X = x) to this path (.png, .svg or .pdf).")
@click.option("--max-work", type=click.IntRange(1, None), default=MAX_WORK, show_default=True,
              help="Refuse an expression whose computation is estimated (before it starts) at more steps than this "
                   "(about 0.2 microseconds each: the default is about 2 s).")
@click.option("--max-outcomes", type=click.IntRange(1, None), default=MAX_OUTCOMES, show_default=True,
              help="Refuse an expression any part of which may have more outcomes than this (estimated before it "
                   "starts).")
def dice_cmd(expr, fmt, out, plot, max_work, max_outcomes):
    """Exact odds of a dice expression (icepool), e.g. '2d6 >= 8', '4d6kh3', 'd10+3 vs d10+5'.

    NdX dice (d% = d100); numbers; + - *; ( ); keep highest / lowest k of a pool (4d6kh3, 2d20kl1); rN rerolls,
    once, each die showing N or less (2d6r1); ! explodes a die (d6!: a 6 rolls again and adds, up to 3 times);
    comparisons >= <= == != > < give 1 (true) or 0; A vs B gives 1 when A is higher, 0 on a tie, -1 when B is.
    Prints P(X = x), P(X >= x), P(X <= x) for every outcome, the exact mean and the quantiles. The size of the
    computation is estimated first, from the expression: one over --max-work or --max-outcomes is refused at once
    (as are parentheses and minus signs nested more than 40 deep).
    """
    from simkit.core.oddscli import emit

    rows, head = dice_report(expr, max_work, max_outcomes)
    if plot:
        dice_plot(plot, rows, expr)
    if fmt == "json":
        emit(json.dumps({**head, "distribution": rows}, indent=2) + "\n", out)
    elif fmt == "csv":
        emit(render(rows, "csv"), out)
    else:
        emit(dice_text(rows, head, fmt), out)
