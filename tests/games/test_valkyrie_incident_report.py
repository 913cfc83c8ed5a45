"""The Valkyrie Incident report of a run: files, the match-up matrix against the per-game rows, the per-card
table, and the scenario's cells."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

import simkit
from simkit.core.stats import wilson
from simkit.games.valkyrie_incident import engine as E
from simkit.games.valkyrie_incident.report import run_report

CARDS = Path(__file__).resolve().parents[2] / "scenarios" / "valkyrie_incident" / "cards.toml"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("incident")
    scenario = tmp / "tiny.toml"
    scenario.write_text(
        'game = "valkyrie-incident"\nmode = "standard"\n'
        f'cards = "{CARDS.as_posix()}"\n'
        'emblems = [["raven", "iron"], ["iron", "raven"], ["ember", "tide"]]\n'
        'play = ["focused", "balanced"]\nopponent = "self"\n[run]\ngames = 60\n'
    )
    run_dir = tmp / "run"
    res = simkit.run(scenario, games=60, seed=3, jobs=1, out=run_dir)
    files = run_report(run_dir, tmp / "report")
    return run_dir, files, res


def test_report_files_and_sections(report):
    run_dir, files, _ = report
    names = {p.name for p in files}
    assert {"report.md", "matchups-standard.png", "score-margin.png", "game-length.png"} <= names
    text = (files[0].parent / "report.md").read_text()
    for head in ("## Emblem match-ups", "## Alpha or Omega", "## Score margin and game length", "## Cards"):
        assert head in text
    assert "Stand-in card data" in text


def test_matrix_cells_match_the_rows(report):
    run_dir, files, res = report
    frame = res.frame.filter(pl.col("policy") == "focused")
    assert frame.height == 3 * 60
    text = (files[0].parent / "report.md").read_text()
    row = next(ln for ln in text.splitlines() if re.match(r"\|\s*raven\s*\|", ln))
    cells = [c.strip() for c in row.strip("|").split("|")]
    sub = frame.filter((pl.col("alpha_emblem") == "raven_emblem") & (pl.col("omega_emblem") == "iron_emblem"))
    e = wilson(int(sub["alpha_win"].sum()), sub.height)
    # columns: Alpha \ Omega, then the Emblems in order of first appearance: raven, iron, ember, tide
    got = re.match(r"(\d\.\d\d) \[(\d\.\d\d), (\d\.\d\d)\]", cells[2])
    assert got and float(got.group(1)) == pytest.approx(e.estimate, abs=0.006)


def test_rows_are_consistent(report):
    _, _, res = report
    f = res.frame
    assert set(f["winner"].unique()) <= {"alpha", "omega", "draw"}
    assert (f["margin"] == f["alpha_score"] - f["omega_score"]).all()
    assert ((f["won"].cast(int) == 1) == (f["winner"] == f["seat"])).all()
    # mirror matches: both seats play the policy under test
    assert (f["alpha_policy"] == f["policy"]).all() and (f["omega_policy"] == f["policy"]).all()
    assert (f["alpha_victory"] + f["omega_victory"] <= 60).all() and (f["turns"] > 0).all()


def test_opponent_and_seats_cells(tmp_path):
    from simkit.core import loader

    scenario = tmp_path / "vs.toml"
    scenario.write_text(
        'game = "valkyrie-incident"\nmode = "blitz"\n'
        f'cards = "{CARDS.as_posix()}"\n'
        'emblems = [["raven", "iron"]]\nplay = ["focused", "random"]\nopponent = "balanced"\n'
        'seats = ["alpha", "omega"]\n'
    )
    sim = loader.load(scenario).simulation
    assert sim.cells == 4
    cols = sim.run_block(__import__("numpy").array([1, 2], "uint64"), 5)
    pairs = set(zip(cols["alpha_policy"].tolist(), cols["omega_policy"].tolist(), cols["seat"].tolist()))
    assert pairs == {("focused", "balanced", "alpha"), ("balanced", "focused", "omega"),
                     ("random", "balanced", "alpha"), ("balanced", "random", "omega")}


def test_tune_and_ladder_run_on_the_heuristics(tmp_path):
    """`simkit tune` searches a heuristic's declared parameter box; `simkit ladder` ranks the policies."""
    from simkit.core.ladder import ladder
    from simkit.core.tune import tune

    scenario = tmp_path / "vs.toml"
    scenario.write_text(
        'game = "valkyrie-incident"\nmode = "blitz"\n'
        f'cards = "{CARDS.as_posix()}"\n'
        'emblems = [["raven", "iron"]]\nplay = ["focused", "random"]\nopponent = "balanced"\n'
        'seats = ["alpha", "omega"]\n[run]\nblock_size = 50\n'
    )
    r = tune(scenario, "focused", 600, seed=1, eval_games=100, jobs=1)
    assert set(r.best) == set(r.default) and len(r.best) == len(E.PARAMS) == 14 and r.games == 100
    rungs = ladder(scenario, games=60, seed=1)
    assert [x.policy for x in rungs][-1] == "random"
