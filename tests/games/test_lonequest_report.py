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
    """The index card shows a report's first paragraph: the lead sentence (issue 39), then the details paragraph
    with the key numbers, not the run's description."""
    from simkit.core.html import markdown_to_html, page_headline
    from simkit.core.report import lead_of

    _, files = report
    page = next(f for f in files if f.name == "report.md")
    head, thumb, notice = page_headline(markdown_to_html(page))
    assert head == lead_of(page.read_text()).replace("`", "") and "In one sentence" not in head
    details = page.read_text().split("\n\n")[3]
    assert details.startswith("**The details.** Played by the strongest practical policy, **`cautious`** "
                              "(heuristic), a Warband conquers")
    assert re.search(r"in \*\*\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]\*\* of games", details)
    assert "Random legal play wins" in details and "cells" not in details
    assert thumb and notice


def _one_sentence(lead: str) -> None:
    from simkit.core.report import LEAD_WORDS, lead_problems, lead_words

    assert lead and lead.endswith(".") and lead_words(lead) <= LEAD_WORDS, lead
    assert not re.search(r"[.!?] [A-Z]", lead[:-1]), lead  # one sentence
    assert not lead_problems(lead), (lead_problems(lead), lead)  # and no statistics word: those come below


def test_the_page_opens_with_one_sentence_from_the_win_odds_table(report):
    """Issue 39: the first paragraph after the notice is the lead, one sentence of at most 45 words; it names the
    Warband farthest from the pooled P(win) of the strongest policy (a tie where intervals overlap), with the
    win-odds table's own cells, the policy and n; the per-Warband table is the first section."""
    from simkit.core.report import LEAD_MARKER, lead_of
    from simkit.core.stats import Estimate, overlapping

    _, files = report
    text = next(f for f in files if f.name == "report.md").read_text()
    paras = text.split("\n\n")
    assert paras[1].startswith("> **Stand-in card data.**") and paras[2].startswith(LEAD_MARKER)
    lead = lead_of(text)
    _one_sentence(lead)
    header, rows = _win_table(text)
    col = header.index("cautious")  # the strongest practical policy (the ladder's top heuristic)
    cells = {w: rows[w][col - 1] for w in WARBANDS}
    est = {w: Estimate(*map(float, CELL.match(c).groups()), 300) for w, c in cells.items()}
    pooled = rows["**all Warbands**"][col - 1]
    mean = float(CELL.match(pooled).group(1))
    worst, best = min(est, key=lambda w: est[w].estimate), max(est, key=lambda w: est[w].estimate)
    lower, upper = mean - est[worst].estimate, est[best].estimate - mean
    picks = [worst] * (lower >= upper - 1e-3) + [best] * (upper >= lower - 1e-3)  # the cells are rounded
    pick = worst if lead.startswith("Weakest") else best
    assert pick in picks, lead
    word = "Weakest" if pick == worst else "Strongest"
    tied = overlapping(pick, est)
    assert lead.startswith(f"{word} Warband: {pick}" + (f", tied with {tied[0]} (intervals overlap)" if tied else ","))
    assert f"winning {cells[pick]} of Lonequests against {pooled} for all 2 Warbands pooled" in lead
    assert "(`cautious` policy, 300 games per Warband)." in lead
    sections = re.findall(r"^## (.+)$", text, re.M)
    assert sections[0] == "Win odds", sections


def test_the_lead_names_a_tie_when_intervals_overlap_and_one_warband_when_they_do_not():
    from simkit.core.stats import Estimate
    from simkit.games.valka.lonequest.report import lead_sentence

    pooled = Estimate(0.80, 0.79, 0.81, 1000)
    close = {"goblins": Estimate(0.60, 0.57, 0.63, 500), "wizards": Estimate(0.62, 0.59, 0.65, 500),
             "knights": Estimate(0.95, 0.93, 0.97, 500)}
    lead = lead_sentence(close, pooled, "learned", 500)
    assert lead.startswith("Weakest Warband: goblins, tied with wizards (intervals overlap), winning "
                           "0.600 [0.570, 0.630] of Lonequests against 0.800 [0.790, 0.810]"), lead
    apart = {**close, "wizards": Estimate(0.70, 0.67, 0.73, 500)}
    lead = lead_sentence(apart, pooled, "learned", 500)
    assert lead.startswith("Weakest Warband: goblins, winning 0.600 [0.570, 0.630] of Lonequests"), lead
    assert lead.endswith("for all 3 Warbands pooled (`learned` policy, 500 games per Warband).")
    _one_sentence(lead)


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
    head = text.split("\n\n")[3]  # the details, below the one-sentence lead
    got = re.search(r"Random legal play wins (\d\.\d{3}) \[(\d\.\d{3}), (\d\.\d{3})\], so skill is worth "
                    r"([+-]\d\.\d{3}) \[([+-]\d\.\d{3}), ([+-]\d\.\d{3})\] \(paired", head)
    assert got, head
    ladder = text.split("## Skill ladder", 1)[1]
    row = next(ln for ln in ladder.splitlines() if ln.startswith("|") and "| random " in ln)
    gap = re.search(r"([+-]\d\.\d{4}) \[([+-]\d\.\d{4}), ([+-]\d\.\d{4})\]", row).groups()
    assert float(got.group(4)) == pytest.approx(-float(gap[0]), abs=6e-4)
    assert float(got.group(5)) == pytest.approx(-float(gap[2]), abs=6e-4)
    assert float(got.group(6)) == pytest.approx(-float(gap[1]), abs=6e-4)


# --- issue 19: the headline says whether the ranking changes with the policy; intervals and n everywhere ---------

RANKED = ["knights", "goblins", "tree_beasts"]
PRACTICAL = ["cautious", "aggressive", "greedy_trader"]


@pytest.fixture(scope="module")
def ranked(tmp_path_factory):
    """3 Warbands × 3 heuristics and random, 300 games per cell: a ranking to compare across policies."""
    tmp_path = tmp_path_factory.mktemp("ranked")
    scenario = tmp_path / "ranked.toml"
    scenario.write_text(
        'game = "valka"\nmode = "lonequest"\n'
        f'cards = "{CARDS.as_posix()}"\n'
        f"warbands = {RANKED!r}\nplay = {PRACTICAL + ['random']!r}\n".replace("'", '"')
        + "[run]\ngames = 300\n")
    run_dir = tmp_path / "run"
    simkit.run(scenario, games=300, seed=4, jobs=1, out=run_dir)
    files = lonequest_report(run_dir, tmp_path / "report")
    return run_dir, next(f for f in files if f.name == "report.md").read_text()


def test_policy_kind_is_not_repeated_when_it_is_the_name():
    from simkit.games.valka.lonequest.report import named

    assert named("learned", "learned") == "**`learned`**"  # the old headline said "**`learned`** (learned)"
    assert named("cautious", "heuristic") == "**`cautious`** (heuristic)"


def test_headline_says_whether_the_ranking_changes_with_the_policy(ranked):
    """The headline answers "does the Warband ranking change with the policy?" as the sensitivity section does
    (the same Holm-corrected resolved flips), and names the worst and best Warband under every policy from the
    games' own rows."""
    from simkit.core.sensitivity import sensitivity
    from simkit.core.stats import wilson

    run_dir, text = ranked
    head = text.split("\n\n")[3]  # the details, below the one-sentence lead
    df = simkit.results.load(run_dir)
    counts = {(w, p): (k, n) for w, p, k, n in df.group_by("warband", "policy").agg(
        pl.col("won").cast(pl.Int64).sum(), pl.len()).iter_rows()}
    rate = {wp: k / n for wp, (k, n) in counts.items()}
    best = re.search(r"strongest practical policy, \*\*`(\w+)`\*\*", head).group(1)
    table = {p: {w: wilson(*counts[(w, p)]) for w in RANKED} for p in PRACTICAL}
    comps = sensitivity(table, best)
    resolved = sum(len(c.resolved) for c in comps)
    if resolved:
        assert f"**The Warband ranking changes with the policy:** {resolved} resolved flip" in head
    else:
        assert "**The Warband ranking does not change with the policy beyond the noise:**" in head
    assert f"Holm over all 6 comparisons, 3 pairs × 2 other practical policies against `{best}`" in head
    for word, pick in (("worst", min), ("best", max)):
        # each policy's worst (best) Warband by its rate, and those whose 95% intervals overlap it (a tie)
        under = {p: pick(RANKED, key=lambda w, p=p: rate[(w, p)]) for p in PRACTICAL}
        ref = under[best]
        apart = {p: under[p] for p in PRACTICAL if under[p] != ref
                 and (table[p][ref].low > table[p][under[p]].high or table[p][ref].high < table[p][under[p]].low)}
        if not apart:
            assert f"{ref} is the {word} under every policy" in head
        else:
            assert f"the {word} is {ref} under `{best}`" in head
            for p, w in apart.items():
                assert re.search(rf"{w} under [^;.]*`{p}`", head), (p, head)
    section = text.split("## Does the Warband ranking depend on the policy?", 1)[1].split("\n## ", 1)[0]
    assert "Holm-corrected over every pair of every policy compared" in section and "1.96" not in section


def test_locations_cleared_shares_carry_intervals_and_n(ranked):
    run_dir, text = ranked
    section = text.split("## Locations cleared", 1)[1].split("## Means per game", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header == ["Locations cleared", *PRACTICAL, "random"]
    rows = {c[0]: c[1:] for c in ([x.strip() for x in ln.strip("|").split("|")] for ln in lines[2:])}
    df = simkit.results.load(run_dir)
    for k in range(7):
        for p, cell in zip(header[1:], rows[str(k)]):
            est, low, high = map(float, CELL.match(cell).groups())
            sub = df.filter(pl.col("policy") == p)
            assert est == pytest.approx((sub["locations_cleared"] == k).mean(), abs=5e-4)
            assert low <= est <= high
    games = df.select("block", "game").unique().height
    assert rows["n: games (Warband games)"][0] == f"{games:,} ({games * len(RANKED):,})"


def test_test_fates_won_over_made_carries_its_interval_and_n(ranked):
    run_dir, text = ranked
    section = text.split("## Means per game", 1)[1].split("## Run", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    df = simkit.results.load(run_dir)
    for ln in lines[2:]:
        cells = dict(zip(header, (c.strip() for c in ln.strip("|").split("|"))))
        sub = df.filter(pl.col("policy") == cells["policy"])
        made, won = int(sub["test_fates"].sum()), int(sub["test_fates_won"].sum())
        est, low, high = map(float, CELL.match(cells["won / made"]).groups())
        assert est == pytest.approx(won / made, abs=5e-4) and low < est < high
        assert cells["Test Fates (all)"] == f"{made:,}"


def test_search_ladder_says_what_its_verdict_supports():
    from simkit.core.ladder import Rung
    from simkit.games.valka.lonequest.report import supported

    top = Rung("search", "search", 0.95, 0.9, 0.98, 40)
    tied = Rung("learned", "learned", 0.93, 0.88, 0.96, 40, below_best=False)
    below = Rung("random", "random", 0.0, 0.0, 0.05, 40, below_best=True)
    text = supported([top, tied, below])
    assert "does not tell it apart from `learned`" in text and "Strongest" not in text
    assert "every other policy is below it" in supported([top, below])
