"""Rendering rows as a terminal table, Markdown, CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence

FORMATS = ("table", "md", "csv", "json")


def fraction_str(x) -> str:
    """An exact fraction as ``num/den`` (``num`` alone when the denominator is 1)."""
    from fractions import Fraction

    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _cell(v) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        return f"{v:.4f}"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def render(rows: Sequence[dict], fmt: str = "table", columns: Sequence[str] | None = None,
           headers: dict[str, str] | None = None) -> str:
    """Render ``rows`` (dicts) in ``fmt`` (one of :data:`FORMATS`)."""
    columns = list(columns or (rows[0].keys() if rows else []))
    headers = headers or {}
    if fmt == "json":
        return json.dumps([{c: r.get(c) for c in columns} for r in rows], indent=2) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow([r.get(c) for c in columns])
        return buf.getvalue()
    head = [headers.get(c, c) for c in columns]
    body = [[_cell(r.get(c)) for c in columns] for r in rows]
    if fmt == "md":
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in columns) + "|"]
        lines += ["| " + " | ".join(b) + " |" for b in body]
        return "\n".join(lines) + "\n"
    if fmt == "table":
        widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]
        numeric = [all(_looks_numeric(b[i]) for b in body) and body for i in range(len(columns))]

        def fmt_row(cells):
            return "  ".join(c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric)).rstrip()

        out = [fmt_row(head), "  ".join("─" * w for w in widths)]
        out += [fmt_row(b) for b in body]
        return "\n".join(out) + "\n"
    raise ValueError(f"unknown format {fmt!r}")


def _looks_numeric(s: str) -> bool:
    s = s.replace("/", "").replace(".", "").replace("-", "").replace("–", "").replace("%", "")
    return s.isdigit() or s == ""


def summary_rows(summary: list[dict]) -> list[dict]:
    """Summary rows flattened for display: metric, group, estimate, 95% interval, n."""
    out = []
    for r in summary:
        out.append({
            "metric": r["metric"],
            "group": ", ".join(f"{k}={v}" for k, v in r["group"].items()) or "all",
            "estimate": r["estimate"],
            "95% interval": f"[{r['low']:.4f}, {r['high']:.4f}]",
            "n": r["n"],
        })
    return out
