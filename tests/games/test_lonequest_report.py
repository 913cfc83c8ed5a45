"""The Lonequest report: files, content, and win odds that match the per-game rows."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib.image as mpimg
import polars as pl
import pytest

import simkit
from simkit.games.valka.lonequest.report import lonequest_report

CARDS = Path(__file__).resolve().parents[2] / "scenarios" / "valka" / "cards.toml"
WARBANDS = ["knights", "goblins"]
POLICIES = ["cautious", "random"]
CELL = re.compile(r"^(\d\.\d{3}) \[(\d\.\d{3}), (\d\.\d{3})\]$")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("lonequest")
    scenario = tmp_path / "tiny.toml"
    scenario.write_text(
        'game = "valka"\nmode = "lonequest"\n'
        f'cards = "{CARDS.as_posix()}"\n'
        f"warbands = {WARBANDS!r}\nplay = {POLICIES!r}\n".replace("'", '"')
        + "[run]\ngames = 300\n"
    )
    run_dir = tmp_path / "run"
    simkit.run(scenario, games=300, seed=3, jobs=1, out=run_dir)
    files = lonequest_report(run_dir, tmp_path / "report")
    return run_dir, files


def _win_table(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """The first Markdown table after '## Win odds': header and rows keyed by Warband."""
    table = []
    for ln in text.split("## Win odds", 1)[1].splitlines():
        if ln.startswith("|"):
            table.append(ln)
        elif table:
            break
    header = [c.strip() for c in table[0].strip("|").split("|")]
    rows = {}
    for ln in table[2:]:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return header, rows


def test_files_written(report):
    _, files = report
    names = sorted(f.name for f in files)
    assert names == ["locations-cleared.png", "report.md", "skill-ladder.png", "win-odds.png"]
    for f in files:
        assert f.exists() and f.stat().st_size > 0
    for f in files:
        if f.suffix == ".png":
            img = mpimg.imread(f)
            assert img.ndim == 3 and img.shape[0] >= 200 and img.shape[1] >= 300
            assert img[..., :3].std() > 0.01  # not a blank canvas


def test_markdown_content(report):
    run_dir, files = report
    text = next(f for f in files if f.name == "report.md").read_text()
    assert "Stand-in card data" in text
    for name in WARBANDS + POLICIES:
        assert name in text
    for section in ("## Win odds", "## How games end", "## Locations cleared", "## Means per game", "## Run"):
        assert section in text
    assert "(win-odds.png)" in text and "(locations-cleared.png)" in text
    assert "n = 300 games per cell" in text
    for cause in ("no_fighters", "no_stamina", "cap"):
        assert cause in text


def test_win_odds_match_rows(report):
    run_dir, files = report
    text = next(f for f in files if f.name == "report.md").read_text()
    header, rows = _win_table(text)
    assert header[1:] == POLICIES
    df = simkit.results.load(run_dir)
    direct = {(w, p): m for w, p, m in
              df.group_by("warband", "policy").agg(pl.col("won").cast(pl.Float64).mean()).iter_rows()}
    assert len(direct) == len(WARBANDS) * len(POLICIES)
    for w in WARBANDS:
        assert w in rows
        for p, cell in zip(POLICIES, rows[w]):
            m = CELL.match(cell)
            assert m, cell
            est, low, high = map(float, m.groups())
            assert low <= est <= high
            assert est == pytest.approx(direct[(w, p)], abs=5e-4)
    pooled = dict(df.group_by("policy").agg(pl.col("won").cast(pl.Float64).mean()).iter_rows())
    for p, cell in zip(POLICIES, rows["**all Warbands**"]):
        est, low, high = map(float, CELL.match(cell).groups())
        assert low <= est <= high
        assert est == pytest.approx(pooled[p], abs=5e-4)


def test_pooled_rows_use_the_game_as_the_unit(report):
    """The "all Warbands" row: the Warbands of one game share its dice, so its interval is Wilson on the effective
    number of games — at least as wide as Wilson on the rows counted as independent, at most as wide as Wilson on
    the games alone."""
    from simkit.core.stats import wilson

    run_dir, files = report
    text = next(f for f in files if f.name == "report.md").read_text()
    _, rows = _win_table(text)
    df = simkit.results.load(run_dir)
    counts = dict(df.group_by("policy").agg(pl.col("won").cast(pl.Int64).sum()).iter_rows())
    games = df.select("block", "game").unique().height
    for p, cell in zip(POLICIES, rows["**all Warbands**"]):
        est, low, high = map(float, CELL.match(cell).groups())
        rows_iid = wilson(counts[p], games * len(WARBANDS))
        games_only = wilson(counts[p] / len(WARBANDS), games)
        assert high - low >= rows_iid.high - rows_iid.low - 2e-3
        assert high - low <= games_only.high - games_only.low + 2e-3


def test_headline_leads_with_the_strongest_policy(report):
    """The index card shows a report's first paragraph: here the key numbers, not the run's description."""
    from simkit.core.html import markdown_to_html, page_headline

    _, files = report
    head, thumb, notice = page_headline(markdown_to_html(next(f for f in files if f.name == "report.md")))
    assert head.startswith("Played by the strongest practical policy, cautious (heuristic), a Warband conquers")
    assert re.search(r"in \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\] of games", head)
    assert "Random legal play wins" in head and "cells" not in head
    assert thumb and notice


def test_skill_ladder_matches_the_rows(report):
    run_dir, files = report
    text = next(f for f in files if f.name == "report.md").read_text()
    df = simkit.results.load(run_dir)
    for p in POLICIES:
        # a game's value is its mean over the Warbands; the ladder's rate is the mean over games
        want = (df.filter(pl.col("policy") == p).group_by("block", "game")
                .agg(pl.col("won").cast(pl.Float64).mean())["won"].mean())
        row = next(ln for ln in text.split("## Skill ladder", 1)[1].splitlines() if ln.startswith(f"| ") and
                   re.search(rf"\|\s*{p}\s*\|", ln))
        assert float(row.split("|")[4]) == pytest.approx(want, abs=6e-5)


def test_headline_gives_random_play_and_the_skill_gap_with_intervals(report):
    """Every rate of the answer carries its interval: random play's share of wins and the skill gap (the ladder's
    paired gap of random to the top rung, sign flipped)."""
    _, files = report
    text = next(f for f in files if f.name == "report.md").read_text()
    head = text.split("\n\n")[2]
    got = re.search(r"Random legal play wins (\d\.\d{3}) \[(\d\.\d{3}), (\d\.\d{3})\], so skill is worth "
                    r"([+-]\d\.\d{3}) \[([+-]\d\.\d{3}), ([+-]\d\.\d{3})\] \(paired", head)
    assert got, head
    ladder = text.split("## Skill ladder", 1)[1]
    row = next(ln for ln in ladder.splitlines() if ln.startswith("|") and "| random " in ln)
    gap = re.search(r"([+-]\d\.\d{4}) \[([+-]\d\.\d{4}), ([+-]\d\.\d{4})\]", row).groups()
    assert float(got.group(4)) == pytest.approx(-float(gap[0]), abs=6e-4)
    assert float(got.group(5)) == pytest.approx(-float(gap[2]), abs=6e-4)
    assert float(got.group(6)) == pytest.approx(-float(gap[1]), abs=6e-4)
