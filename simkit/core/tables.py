"""Rendering rows as a terminal table, Markdown, CSV or JSON.

Markdown and terminal tables come from ``tabulate``: Markdown with a real alignment row (numbers right-aligned,
text left-aligned) and escaped cells; a terminal table wraps its widest columns so that it fits the terminal.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import shutil
import sys
from collections.abc import Sequence

import tabulate as tabulate_module
from tabulate import tabulate

FORMATS = ("table", "md", "csv", "json")

# A cell is a number when it starts with one and holds no word: "0.770 [0.737, 0.801]", "27/50 ≈ 0.5400",
# "5,100", "−0.012", "12%", "< 0.0001", "6.9e-05", "0.45 [0.41, 0.48] **!**". "+2 Health", "2,000 fresh" or
# "0.993 vs 0.927" are text.
_NUMBER_START = re.compile(r"^\s*[<>≤≥\[]?\s*[-+−–]?(\d|\.\d)")
_EXPONENT = re.compile(r"(?<=\d)[eE][-+]?\d+")
_EMPTY = {"", "-", "—", "–", "n/a", "nan", "inf", "-inf", "∞", "−∞"}


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


def is_empty_cell(text: str) -> bool:
    """A cell that says "no value" ("–", "n/a", "")."""
    return text.strip().lower() in _EMPTY


def is_number_cell(text: str) -> bool:
    """A cell that shows a number (with its interval, count or flag), not a word that starts with one."""
    text = text.replace("**", "").replace("`", "")
    if not _NUMBER_START.match(text):
        return False
    return not re.search(r"[^\W\d_]", _EXPONENT.sub("", text))


def _is_zero(v) -> bool:
    if isinstance(v, bool) or v is None:
        return False
    if isinstance(v, (int, float)):
        return v == 0
    text = str(v)
    if not is_number_cell(text):
        return False
    numbers = re.findall(r"\d[\d,]*(?:\.\d+)?|\.\d+", text)
    return bool(numbers) and all(float(n.replace(",", "")) == 0 for n in numbers)


def numeric_columns(columns: Sequence[str], rows: Sequence[dict]) -> list[bool]:
    """Per column: every non-empty cell is a number (an int or float, or a string :func:`is_number_cell`)."""
    out = []
    for c in columns:
        cells = [r.get(c) for r in rows]
        seen, numeric = False, True
        for v in cells:
            if v is None:
                continue
            if isinstance(v, bool):
                numeric = False
                break
            if isinstance(v, (int, float)):
                seen = True
                continue
            text = str(v)
            if is_empty_cell(text):
                continue
            seen = True
            if not is_number_cell(text):
                numeric = False
                break
        out.append(numeric and seen)
    return out


def zero_columns(columns: Sequence[str], rows: Sequence[dict]) -> list[str]:
    """The columns that are 0 in every row (none when there are no rows)."""
    if not rows:
        return []
    return [c for c in columns if all(_is_zero(r.get(c)) for r in rows)]


def _md_escape(text: str) -> str:
    return " ".join(text.replace("\\", "\\\\").replace("|", "\\|").split()) if text else text


def terminal_width() -> int | None:
    """Columns of the terminal the tables go to: ``COLUMNS`` when set, else the width of standard output when it
    is a terminal; None (no limit) for a pipe or a file."""
    if os.environ.get("COLUMNS", "").strip().isdigit():
        return int(os.environ["COLUMNS"]) or None
    try:
        if sys.stdout.isatty():
            return shutil.get_terminal_size().columns or None
    except (AttributeError, ValueError, OSError):
        pass
    return None


def _fit(head: list[str], body: list[list[str]], width: int | None, gap: int = 2) -> list[int | None]:
    """Most characters per column so that the table fits ``width``: the widest columns are narrowed first, down
    to their longest word (of the header or a cell; a number's whole line), then to their longest word, then (when
    that is not enough) down to 8 characters; a table that cannot fit then stays as narrow as it can."""
    cols = [[h, *(b[i] for b in body)] for i, h in enumerate(head)]
    natural = [max(len(line) for c in col for line in c.splitlines() or [""]) for col in cols]
    if width is None or sum(natural) + gap * (len(natural) - 1) <= width:
        return [None] * len(natural)
    # a number's lines ("0.770", "[0.737, 0.801]") are not broken before the words of a text column are, nor is
    # a word of a header ("E[strikes]") or a cell, until the table cannot fit otherwise
    def longest(split_numbers: bool) -> list[int]:
        return [max([len(w) for w in col[0].split()]
                    + [len(w) for c in col[1:] for w in (c.split() if split_numbers or not is_number_cell(
                        " ".join(c.split())) else c.splitlines())] or [0]) for col in cols]

    limit = list(natural)
    budget = width - gap * (len(natural) - 1)
    for floor in ([max(8, w) for w in longest(False)], [max(8, w) for w in longest(True)], [8] * len(cols)):
        while sum(limit) > budget:
            can = [j for j in range(len(limit)) if limit[j] > floor[j]]
            if not can:
                break
            limit[max(can, key=lambda j: limit[j])] -= 1
    return [None if lim == nat else lim for lim, nat in zip(limit, natural)]


def render_parts(rows: Sequence[dict], keys: Sequence[str], parts: Sequence[Sequence[str]], fmt: str = "md",
                 **kw) -> str:
    """``rows`` as one table per part, each with the ``keys`` columns first, then that part's columns: a table too
    wide for a 1,400 px page split by column groups, every row kept (``kw``: :func:`render`'s options)."""
    return "\n".join(render([{c: r.get(c) for c in (*keys, *part)} for r in rows], fmt, **kw) for part in parts)


def render(rows: Sequence[dict], fmt: str = "table", columns: Sequence[str] | None = None,
           headers: dict[str, str] | None = None, width: int | None = None, drop_zero: bool | None = None) -> str:
    """Render ``rows`` (dicts) in ``fmt`` (one of :data:`FORMATS`).

    ``table`` fits ``width`` characters (default: :func:`terminal_width`). ``md`` leaves out the columns that
    are 0 in every row and says so under the table (``drop_zero``, default on for ``md``).
    """
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
    if fmt not in ("md", "table"):
        raise ValueError(f"unknown format {fmt!r}")
    note = ""
    if fmt == "md" if drop_zero is None else drop_zero:
        zeros = zero_columns(columns, rows)
        if zeros and len(zeros) < len(columns):
            columns = [c for c in columns if c not in zeros]
            # a cell written "0.000 [0.000, 0.000]" may hold 0.00002: such a column is 0 only to the digits shown
            rounded = [c for c in zeros if any(isinstance(r.get(c), str) and "." in r.get(c) for r in rows)]
            notes = [(("Left out, 0 in every row: ", [c for c in zeros if c not in rounded])),
                     ("Left out, 0 to the digits shown in every row (small, not necessarily 0): ", rounded)]
            note = "".join(f"\n*{words}" + ", ".join(_md_escape(headers.get(c, c)) for c in cs) + ".*\n"
                           for words, cs in notes if cs)
    numeric = numeric_columns(columns, rows)
    align = ["right" if n else "left" for n in numeric]
    head = [headers.get(c, c) for c in columns]
    body = [[_cell(r.get(c)) if r.get(c) is not None else "–" for c in columns] for r in rows]
    if fmt == "md":
        text = tabulate([[_md_escape(c) for c in b] for b in body], headers=[_md_escape(h) for h in head],
                        tablefmt="pipe", colalign=align or None, disable_numparse=True)
        return text + "\n" + note
    limit = terminal_width() if width is None else width
    widths = _fit(head, body, limit)
    if any(w is not None for w in widths):
        # a narrowed column breaks an estimate before its interval ("0.770" over "[0.737, 0.801]") first
        narrowed = [w is not None for w in widths]
        body = [[c.replace(" [", "\n[") if n and is_number_cell(c) else c for c, n in zip(b, narrowed)]
                for b in body]
        widths = _fit(head, body, limit)
    wrap = widths if any(w is not None for w in widths) else None
    padding = tabulate_module.MIN_PADDING
    tabulate_module.MIN_PADDING = 0  # columns as wide as their widest cell, so that the fitted widths hold
    try:
        text = tabulate(body, headers=head, tablefmt="simple", colalign=align or None, disable_numparse=True,
                        maxcolwidths=wrap, maxheadercolwidths=wrap)
    finally:
        tabulate_module.MIN_PADDING = padding
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


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


def headline_rows(summary: list[dict], metric: str) -> tuple[list[dict], str | None]:
    """The rows of one metric as a compact table: the group column ``policy`` across (or the last group column
    when there is no policy), the other group columns down, each cell the estimate; returns the rows and the
    name of the column spread across (None: the metric has no group, or one value per row)."""
    rows = [r for r in summary if r["metric"] == metric]
    keys = list(rows[0]["group"]) if rows else []
    if not keys:
        return [{"metric": metric, "estimate": f"{r['estimate']:.3f}"} for r in rows], None
    across = "policy" if "policy" in keys else keys[-1]
    down = [k for k in keys if k != across]
    table: dict[tuple, dict] = {}
    for r in rows:
        key = tuple(str(r["group"][k]) for k in down)
        row = table.setdefault(key, dict(zip(down, key)) if down else {metric: "all"})
        row[str(r["group"][across])] = f"{r['estimate']:.3f}"
    cols = list(dict.fromkeys(str(r["group"][across]) for r in rows))
    head = list(down) if down else [metric]
    return [{c: row.get(c, "") for c in [*head, *cols]} for row in table.values()], across
