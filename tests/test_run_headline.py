"""`simkit run` on a table prints the headline metric as one compact table (issue 39): its cells are the run's
own estimates, it fits 100 columns, and `--all` (or another format) prints every number."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from simkit.cli import cli

ROOT = Path(__file__).resolve().parents[1]
CS = str(ROOT / "scenarios" / "valka" / "chance_strike.toml")
DRAW = str(ROOT / "scenarios" / "toy" / "draw.toml")


def _run(tmp_path, *args):
    res = CliRunner().invoke(cli, ["run", *args, "--jobs", "1", "--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    return res, summary


def test_the_compact_table_is_the_runs_own_headline(tmp_path):
    res, summary = _run(tmp_path, CS, "--games", "2000", "--seed", "7")
    lines = res.stdout.splitlines()
    assert all(len(ln) <= 100 for ln in lines), max(lines, key=len)
    head = lines[0].split()
    assert head[0] == "strike" and head[1:] == [str(s) for s in range(13)]
    rows = [ln.split() for ln in lines[2:15]]
    assert [r[0] for r in rows] == [str(s) for s in range(13)]
    est = {(str(r["group"]["strike"]), str(r["group"]["shield"])): r["estimate"] for r in summary
           if r["metric"] == "attacker_hits"}
    for r in rows:
        for shield, cell in enumerate(r[1:]):
            assert cell == f"{est[(r[0], str(shield))]:.3f}"
    caption = " ".join(lines[15:])
    assert caption.startswith("attacker hits: strike down, shield across;")
    widest = max(r["high"] - r["low"] for r in summary if r["metric"] == "attacker_hits")
    assert f"95% intervals ≤ {widest:.3f} wide" in caption and "2,000 games per cell" in caption
    assert len(lines) <= 17
    assert "338 more numbers" in res.stderr and "--all" in res.stderr


def test_all_and_other_formats_print_every_number(tmp_path):
    res, summary = _run(tmp_path, DRAW, "--games", "200", "--seed", "1", "--all")
    n = len(summary)
    assert res.stdout.splitlines()[0].split()[:3] == ["metric", "group", "estimate"]
    assert len(res.stdout.splitlines()) == n + 2 and "more numbers" not in res.stderr
    res = CliRunner().invoke(cli, ["run", DRAW, "--games", "200", "--seed", "1", "--jobs", "1", "--format", "csv",
                                   "--out", str(tmp_path / "csv")])
    assert res.exit_code == 0 and len(res.stdout.strip().splitlines()) == n + 1
