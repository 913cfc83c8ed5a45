"""`simkit compare RUN_A RUN_B`: two finished runs compared game by game without re-simulating, with the same
numbers as playing the comparison; its plot and HTML page; the Python API (compare, sweep, ladder, the interval
helpers, summary_frame with the group as columns, run's jobs default)."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import polars as pl
from click.testing import CliRunner

import simkit
from simkit.cli import cli

ROOT = Path(__file__).resolve().parents[1]
CS = str(ROOT / "scenarios/valka/chance_strike.toml")
GRID = ["--set", 'grid.strike="2:3"', "--set", 'grid.shield="3"']
CHANGE = ["--set", "grid.bonus=3"]  # Fireblast's +3 Strike: attacker hits change
SIZE = ["--games", "3000", "--seed", "11", "--block-size", "1000", "--jobs", "1"]


def invoke(args, cwd: Path):
    import os

    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, args, catch_exceptions=False)
    finally:
        os.chdir(old)


def test_two_finished_runs_compare_as_the_played_comparison(tmp_path):
    for name, change in (("ra", []), ("rb", CHANGE)):
        res = invoke(["run", CS, *GRID, *change, *SIZE, "--out", name, "--quiet"], tmp_path)
        assert res.exit_code == 0, res.output
    # A = the scenario with the grid, B = the same with bonus 3: the two runs above, played again as a comparison
    text = Path(CS).read_text(encoding="utf-8").replace('strike = "0:12"', 'strike = "2:3"').replace(
        'shield = "0:12"', 'shield = "3"')
    assert 'bonus = 0' in text
    (tmp_path / "a.toml").write_text(text, encoding="utf-8")
    (tmp_path / "b.toml").write_text(text.replace("bonus = 0", "bonus = 3"), encoding="utf-8")
    played = invoke(["compare", "a.toml", "b.toml", *SIZE, "--format", "json"], tmp_path)
    assert played.exit_code == 0, played.output
    runs = invoke(["compare", "ra", "rb", "--format", "json", "--out", "cmp"], tmp_path)
    assert runs.exit_code == 0, runs.output
    got, want = json.loads(runs.stdout), json.loads(played.stdout)
    assert got == want and len(got) == 3 * 3  # three metrics, each for two cells and pooled
    assert all(r["significant"] == "yes" for r in got if r["metric"] == "attacker_hits")  # the change shows
    for f in ("compare.md", "compare.html", "compare.png", "compare.json"):
        assert (tmp_path / "cmp" / f).is_file(), f
    page = (tmp_path / "cmp/compare.html").read_text(encoding="utf-8")
    assert 'src="data:image/png;base64,' in page and "nothing was re-simulated" in page
    assert "Two finished runs, paired game by game on their 3 common blocks" in page
    # the API gives the same rows
    rows = simkit.compare(tmp_path / "ra", tmp_path / "rb")
    assert [f"{r.d:+.4f}" for r in rows] == [r["B − A [95%]"].split()[0] for r in got]
    # runs on other seeds are not paired: one line, exit 2
    res = invoke(["run", CS, *GRID, "--games", "3000", "--seed", "12", "--block-size", "1000", "--jobs", "1",
                  "--out", "rc", "--quiet"], tmp_path)
    assert res.exit_code == 0
    bad = invoke(["compare", "ra", "rc"], tmp_path)
    assert bad.exit_code == 2 and len(bad.stderr.strip().splitlines()) == 1 and "root seed" in bad.stderr
    bad = invoke(["compare", "ra", "rb", "--games", "10"], tmp_path)
    assert bad.exit_code == 2 and "--games" in bad.stderr


def test_python_api_exposes_compare_sweep_ladder_and_the_intervals():
    for name in ("compare", "sweep", "ladder", "run", "wilson", "pooled_rate", "clustered_rate", "paired_rate",
                 "holm", "benjamini_hochberg"):
        obj = getattr(simkit, name)
        assert callable(obj) and (obj.__doc__ or "").strip(), name
    assert simkit.wilson(0, 10).low == 0.0 and abs(simkit.wilson(5, 10).estimate - 0.5) < 1e-12
    # simkit.run uses the CLI's jobs default (0: every core)
    run_default = inspect.signature(simkit.run).parameters["jobs"].default
    cli_default = next(p for p in cli.commands["run"].params if p.name == "jobs").default
    assert run_default == cli_default == 0


def test_summary_frame_has_one_column_per_group_key():
    res = simkit.run(CS, games=500, seed=3, jobs=1, overrides=['grid.strike="1:2"', 'grid.shield="4"'])
    frame = res.summary_frame()
    assert {"metric", "strike", "shield", "estimate", "low", "high", "n"} <= set(frame.columns)
    assert "group" not in frame.columns
    row = frame.filter((pl.col("metric") == "attacker_hits") & (pl.col("strike") == 2) & (pl.col("shield") == 4))
    assert row.height == 1 and row["n"][0] == 500
    want = next(r for r in res.summary if r["metric"] == "attacker_hits" and r["group"] == {"strike": 2, "shield": 4})
    assert row["estimate"][0] == want["estimate"]


def test_sweep_api_matches_the_runs_it_plays():
    rows = simkit.sweep(CS, {"grid.bonus": [0, 3]}, overrides=['grid.strike="1"', 'grid.shield="4"'], games=400,
                        seed=2, jobs=1, metrics=["attacker_hits"], where={"strike": 1})
    assert [r["grid.bonus"] for r in rows] == [0, 3] and all(r["n"] == 400 for r in rows)
    assert rows[1]["estimate"] > rows[0]["estimate"]  # +3 Strike hits more often


def test_one_metric_of_the_game_compares_in_a_game_with_a_row_per_seat():
    """``--metric rounds`` alone in Valeria (four rows a game, one per seat; ``rounds`` is grouped without the
    seat): every row is paired with its own seat's, so each game's A and B sums are 4 × its rounds (it failed
    with "do not have the same cells" when the rows were paired on the compared metric's groups only)."""
    from simkit.core import loader
    from simkit.core.compare import PairedSim

    scen = ROOT / "scenarios/valeria"
    a = loader.load(scen / "standard.toml", overrides=['play=["economy"]']).simulation
    b = loader.load(scen / "monster_events.toml", overrides=['play=["economy"]']).simulation
    paired = PairedSim(a, b, ["rounds"])
    key, n = (5, 0), 4
    out = pl.DataFrame(paired.run_block(key, n))
    fa, fb = pl.DataFrame(a.run_block(key, n)), pl.DataFrame(b.run_block(key, n))
    pooled = out.filter(pl.col("metric") == "rounds", pl.col("group") == "all").sort("game")
    per_game = lambda f: f.group_by("game").agg(pl.col("rounds").sum()).sort("game")["rounds"].to_list()
    assert pooled.height == n and pooled["c"].to_list() == [4] * n
    assert pooled["ka"].to_list() == per_game(fa) and pooled["kb"].to_list() == per_game(fb)
