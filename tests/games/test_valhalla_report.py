"""The Valhalla Solo report: files, content, and paired level differences that match the per-game rows."""

from __future__ import annotations

import math
import re
from pathlib import Path

import matplotlib.image as mpimg
import numpy as np
import polars as pl
import pytest

import simkit
from simkit.games.valhalla.solo.report import more_games_note, solo_report

SCEN = Path(__file__).resolve().parents[2] / "scenarios" / "valhalla"
POLICIES = ["builder", "random"]
KEYS = ["block", "game", "monster", "variant", "jarl", "policy"]
RATE = re.compile(r"^(\d\.\d{3}) \[(\d\.\d{3}), (\d\.\d{3})\]$")
DIFF = re.compile(r"^([+-]\d\.\d{4}) \[([+-]\d\.\d{4}), ([+-]\d\.\d{4})\]$")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("valhalla")
    scenario = tmp_path / "tiny.toml"
    scenario.write_text(
        'game = "valhalla"\nmode = "solo"\n'
        f'cards = "{(SCEN / "cards.toml").as_posix()}"\n'
        f'deck = "{(SCEN / "deck.toml").as_posix()}"\n'
        'monsters = ["troll"]\nvariants = ["base"]\nlevels = [1, 2, 3]\n'
        'jarls = ["sigurd", "egil"]\nplay = ["builder", "random"]\n'
    )
    run_dir = tmp_path / "run"
    simkit.run(scenario, games=400, seed=3, jobs=1, out=run_dir)
    files = solo_report(run_dir, tmp_path / "report")
    return run_dir, files, files[0].read_text()


def _table(text: str, heading: str) -> list[dict]:
    """The first Markdown table after ``heading``, as dicts keyed by the header."""
    table = []
    for ln in text.split(heading, 1)[1].splitlines():
        if ln.startswith("|"):
            table.append(ln)
        elif table:
            break
    head = [c.strip() for c in table[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in ln.strip("|").split("|")))) for ln in table[2:]]


def test_files_written(report):
    _, files, _ = report
    assert sorted(f.name for f in files) == ["jarls.png", "levels-all-jarls.png", "report.md", "skill-ladder.png",
                                             "win-by-level.png"]
    # the page's first plot (the index card's picture) is the all-Jarls answer's, not the one-Jarl deep run's
    text = next(f for f in files if f.name == "report.md").read_text()
    assert re.search(r"!\[[^]]*\]\(([^)]+)\)", text).group(1) == "levels-all-jarls.png"
    for f in files:
        assert f.exists() and f.stat().st_size > 0
        if f.suffix == ".png":
            img = mpimg.imread(f)
            assert img.ndim == 3 and img.shape[0] >= 200 and img.shape[1] >= 300
            assert img[..., :3].std() > 0.01  # not a blank canvas


def test_markdown_content(report):
    _, _, text = report
    assert "Stand-in card data" in text
    for s in ("troll", "sigurd", "egil", "builder", "random", "400 solo games per cell", "root seed 3",
              "`turn_cap = 400`", "(win-by-level.png)", "(jarls.png)", "## Run", "common random numbers"):
        assert s.lower() in text.lower(), s
    for section in ("### Level I → II", "### Level II → III", "### Level I → III", "## Jarls", "## How far",
                    "### Means per game", "## How games end"):
        assert section in text
    # heuristic policies first, the random baseline last
    assert text.index("### `builder`") < text.index("### `random`")
    rows = _table(text, "### `builder`")
    assert [r["monster"] for r in rows] == ["troll"] and {"I", "II", "III"} <= set(rows[0])


def test_win_rates_match_rows(report):
    run_dir, _, text = report
    df = simkit.results.load(run_dir)
    direct = {(lv, p): m for lv, p, m in
              df.group_by("level", "policy").agg(pl.col("won").cast(pl.Float64).mean()).iter_rows()}
    for p in POLICIES:
        (row,) = _table(text, f"### `{p}`")
        for lv, name in ((1, "I"), (2, "II"), (3, "III")):
            est, low, high = map(float, RATE.match(row[name]).groups())
            assert low <= est <= high
            assert est == pytest.approx(direct[(lv, p)], abs=6e-4)  # 3 decimals, ties may round down


@pytest.mark.parametrize("a,b", [(1, 2), (2, 3), (1, 3)])
def test_paired_differences_match_rows(report, a, b):
    run_dir, _, text = report
    roman = {1: "I", 2: "II", 3: "III"}
    df = simkit.results.load(run_dir)
    wa = df.filter(pl.col("level") == a).select(*KEYS, wa=pl.col("won").cast(pl.Int64))
    wb = df.filter(pl.col("level") == b).select(*KEYS, wb=pl.col("won").cast(pl.Int64))
    joined = wa.join(wb, on=KEYS)
    assert joined.height == 2 * 2 * 400  # every game paired: 2 Jarls × 2 policies × 400 games
    direct = dict(joined.group_by("policy").agg((pl.col("wa") - pl.col("wb")).mean()).iter_rows())
    rows = {r["policy"]: r for r in _table(text, f"### Level {roman[a]} → {roman[b]}")}
    assert set(rows) == set(POLICIES)
    for p in POLICIES:
        r = rows[p]
        est, low, high = map(float, DIFF.match(r[f"{roman[a]} − {roman[b]} [95%]"]).groups())
        assert est == pytest.approx(direct[p], abs=5e-5 + 1e-9)  # printed to 4 decimals; a tie is exactly 5e-5
        assert low <= est <= high
        # verdicts are Holm-corrected over every row of the three tables, and the raw p-value is kept
        ph = 0.0 if r["p (Holm)"].startswith("<") else float(r["p (Holm)"])
        expected = ("harder" if ph < 0.05 and est > 0 else "easier?!" if ph < 0.05 and est < 0
                    else "no clear difference")
        assert r["verdict"] == expected
        if r["p-value"] != "< 0.0001" and r["p (Holm)"] != "< 0.0001":
            assert float(r["p (Holm)"]) >= float(r["p-value"])
        assert r["n (games)"] == "400"  # n counts games (each played by both Jarls), not the 800 (game, Jarl) pairs
        p_value = r["p-value"]
        assert p_value == "< 0.0001" or 0.0 <= float(p_value) <= 1.0


def test_jarl_table_sorted(report):
    _, _, text = report
    rows = _table(text, "## Jarls")
    assert sorted(r["Jarl"] for r in rows) == ["egil", "sigurd"]
    pooled = [float(RATE.match(r["pooled"]).group(1)) for r in rows]
    assert pooled == sorted(pooled, reverse=True)


@pytest.fixture(scope="module")
def level_report(tmp_path_factory, report):
    """The report with a level run: one Jarl, one policy, every level, many games."""
    main_run, _, _ = report
    tmp_path = tmp_path_factory.mktemp("valhalla-levels")
    scenario = tmp_path / "levels.toml"
    scenario.write_text(
        'game = "valhalla"\nmode = "solo"\n'
        f'cards = "{(SCEN / "cards.toml").as_posix()}"\n'
        f'deck = "{(SCEN / "deck.toml").as_posix()}"\n'
        'monsters = ["troll"]\nvariants = ["base", "plus40"]\nlevels = [1, 2, 3]\n'
        'jarls = ["sigurd"]\nplay = ["builder"]\n'
    )
    run_dir = tmp_path / "run"
    simkit.run(scenario, games=1500, seed=5, jobs=1, out=run_dir)
    files = solo_report(main_run, tmp_path / "report", levels_run=run_dir, jarls_run=main_run)
    return run_dir, files, files[0].read_text()


def test_level_section_leads_and_explains(level_report):
    _, files, text = level_report
    assert "endings-by-level.png" in {f.name for f in files}
    body = text.split("\n\n", 3)[3]  # after the title, the stand-in notice and the one-sentence lead: the details
    assert body.startswith("**The details.** **Over all 2 Jarls** under the strongest practical policy, **`builder`**, Level I − "
                           "III = **")
    assert text.index("## The levels over all Jarls") < text.index("## One Jarl in depth") < text.index(
        "## Skill ladder") < text.index("## What was simulated")
    # the page reconciles the one-Jarl deep run with the all-Jarls answer
    assert "The one-Jarl deep run below (sigurd, 1,500 games per level) measures Level I − III" in text
    assert "Levels change one thing only" in text and "cards left at the end falls from" in text


def test_level_endings_match_the_rows(level_report):
    run_dir, _, text = level_report
    df = simkit.results.load(run_dir)
    rows = _table(text, "### How games end, per level")
    assert [r["level"] for r in rows] == ["I", "II", "III"]
    for lv, r in zip((1, 2, 3), rows):
        d = df.filter(pl.col("level") == lv)
        n = d.height
        assert n == 3000 and int(r["n (games)"]) == 1500  # n counts games (each played in both deck variants)

        def share(expr):
            return d.select(expr.cast(pl.Float64).mean()).item()

        won, final, cause = pl.col("won").cast(pl.Boolean), pl.col("final_attack"), pl.col("cause")
        expect = {
            "won (attacking)": share(won & (final == 0)),
            "won by the final attack": share(won & (final == 1)),
            "lost: fourth shield": share(cause == "shields"),
            "lost: deck ran out, monster cards left": share((cause == "deck") & (final == 0)),
            "lost the final attack": share((cause == "deck") & (final == 2)),
        }
        shares = {k: float(r[k].split(" ")[0]) for k in expect}
        for k, v in expect.items():
            assert shares[k] == pytest.approx(v, abs=6e-4), (lv, k)
        assert sum(shares.values()) == pytest.approx(1.0, abs=3e-3)  # every game ends one of these ways
        assert float(r["P(win)"].split(" ")[0]) == pytest.approx(share(won), abs=6e-4)
        assert float(r["cards left (mean)"].split(" ")[0]) == pytest.approx(share(pl.col("cards_left")), abs=0.051)
    # per monster and deck: the share of games lost to the deck (ran out, or lost the final attack), with its
    # interval like every rate
    for r in _table(text, "### Per monster and deck variant\n"):
        for lv, name in ((1, "I"), (3, "III")):
            d = df.filter((pl.col("level") == lv) & (pl.col("variant") == r["variant"]))
            got = RATE.match(r[f"deck losses {name}"])
            assert got, r
            est, low, high = map(float, got.groups())
            assert est == pytest.approx(d.select((pl.col("cause") == "deck").cast(pl.Float64).mean()).item(),
                                        abs=6e-4) and low <= est <= high
    # Level III discards three times the cards of Level I after each lost battle: fewer cards are left
    left = [float(r["cards left (mean)"].split(" ")[0]) for r in rows]
    assert left[0] > left[2]


@pytest.mark.parametrize("more, note", [
    (math.inf, ""),
    (1.0, ""),
    # the 30,000-game level run's I − II: +0.0015 [-0.0001, +0.0031] -> (0.0016 / 0.0015)² ≈ 1.14 printed "1 times"
    ((0.0016 / 0.0015) ** 2, " (a somewhat larger run would resolve a difference this small)"),
    (1.49, " (a somewhat larger run would resolve a difference this small)"),
    (1.5, " (resolving a difference this small would take about twice as many games)"),
    (2.4, " (resolving a difference this small would take about twice as many games)"),
    (2.6, " (resolving a difference this small would take about 3 times as many games)"),
    (17.2, " (resolving a difference this small would take about 17 times as many games)"),
])
def test_more_games_note(more, note):
    assert more_games_note(more) == note


def _headline_numbers(text: str) -> dict:
    """The first paragraph's P(win) per level and its Level I − III, as printed."""
    head = text.split("\n\n", 3)[3].split("\n\n", 1)[0]  # the details, below the one-sentence lead (issue 39)
    rates = re.findall(r"\*\*(\d\.\d{3})\*\* \[(\d\.\d{3}), (\d\.\d{3})\] at Level (I+)", head)
    diff = re.search(r"Level I − III = \*\*([+-]\d\.\d{4}) \[([+-]\d\.\d{4}), ([+-]\d\.\d{4})\]\*\*", head)
    games = re.search(r"n = ([\d,]+) games", head)
    return {"rates": {lv: tuple(map(float, r)) for *r, lv in rates}, "diff": tuple(map(float, diff.groups())),
            "games": int(games.group(1).replace(",", "")), "text": head}


def test_headline_answers_over_all_jarls_from_the_rows(report):
    """The first paragraph answers "how hard are the levels?" over every Jarl of the run (the strongest
    heuristic, `builder`), and its numbers are the games' own: P(win) per level the share of won rows, Level
    I − III the mean paired difference, n the number of games (400, each played by both Jarls)."""
    run_dir, _, text = report
    df = simkit.results.load(run_dir).filter(pl.col("policy") == "builder")
    h = _headline_numbers(text)
    assert h["text"].startswith("**The details.** **Over all 2 Jarls** under the strongest practical policy, **`builder`**")
    assert set(h["rates"]) == {"I", "II", "III"} and h["games"] == 400
    for lv, name in ((1, "I"), (2, "II"), (3, "III")):
        est, low, high = h["rates"][name]
        direct = df.filter(pl.col("level") == lv)["won"].cast(pl.Float64).mean()
        assert est == pytest.approx(direct, abs=5e-4 + 1e-9) and low <= est <= high
    wa = df.filter(pl.col("level") == 1).select(*KEYS, wa=pl.col("won").cast(pl.Int64))
    wb = df.filter(pl.col("level") == 3).select(*KEYS, wb=pl.col("won").cast(pl.Int64))
    j = wa.join(wb, on=KEYS)
    per = j.group_by("block", "game").agg((pl.col("wa") - pl.col("wb")).cast(pl.Float64).mean().alias("d"))
    d = per["d"].to_numpy()
    assert len(d) == 400
    est, low, high = h["diff"]
    assert est == pytest.approx(d.mean(), abs=5e-5 + 1e-9)
    half = 1.959964 * d.std(ddof=1) / math.sqrt(len(d))  # the normal interval over games, the game the unit
    assert (low, high) == pytest.approx((d.mean() - half, d.mean() + half), abs=5e-5 + 1e-9)
    # per Jarl: the section's table, each Jarl's I − III on the same 400 games
    rows = {r["Jarl"]: r for r in _table(text, "### Per Jarl (every set)")}
    assert set(rows) == {"sigurd", "egil"}
    for jl, r in rows.items():
        dj = j.filter(pl.col("jarl") == jl).select((pl.col("wa") - pl.col("wb")).cast(pl.Float64).mean()).item()
        assert float(DIFF.match(r["I − III [95%]"]).group(1)) == pytest.approx(dj, abs=5e-5 + 1e-9)
        assert r["n (games)"] == "400"


def test_one_n_per_number(report):
    """Every table of the main run gives n as games (400 here), never the rows behind a pooled rate (800 rows
    per policy and level, 9,600 over the run): the same rate cannot appear with two n."""
    _, _, text = report
    ns = set()
    for block in text.split("\n\n"):
        lines = [ln for ln in block.splitlines() if ln.startswith("|")]
        if len(lines) < 3:
            continue
        head = [c.strip() for c in lines[0].strip("|").split("|")]
        for col in ("n", "n (games)", "games", "rows", "paired games"):
            if col in head:
                i = head.index(col)
                ns |= {ln.strip("|").split("|")[i].strip() for ln in lines[2:]}
    ns.discard("—")
    assert ns == {"400"}, ns


def test_jarls_that_play_alike_are_listed_once(tmp_path):
    """hodr and esbjorn play every game identically with the stand-in deck: one row "hodr ≡ esbjorn" (or the
    other way round), not two rows with the same numbers."""
    scenario = tmp_path / "twins.toml"
    scenario.write_text(
        'game = "valhalla"\nmode = "solo"\n'
        f'cards = "{(SCEN / "cards.toml").as_posix()}"\n'
        f'deck = "{(SCEN / "deck.toml").as_posix()}"\n'
        'monsters = ["troll"]\nvariants = ["base"]\nlevels = [1]\n'
        'jarls = ["sigurd", "hodr", "esbjorn"]\nplay = ["builder"]\n'
    )
    simkit.run(scenario, games=60, seed=3, jobs=1, out=tmp_path / "run")
    text = solo_report(tmp_path / "run", tmp_path / "report")[0].read_text()
    names = [r["Jarl"] for r in _table(text, "## Jarls")]
    assert len(names) == 2 and "sigurd" in names, names
    assert any(n in ("hodr ≡ esbjorn", "esbjorn ≡ hodr") for n in names), names


def test_all_jarls_levels_list_alike_jarls_once_and_lead_with_the_drop(tmp_path):
    """The all-Jarls level section lists Jarls that play every game alike once ("hodr ≡ esbjorn"), in its per-Jarl
    table and in the headline's range; the headline gives Level I − III before the per-level rates (the answer
    first, so an index card cut short still shows it)."""
    scenario = tmp_path / "twins.toml"
    scenario.write_text(
        'game = "valhalla"\nmode = "solo"\n'
        f'cards = "{(SCEN / "cards.toml").as_posix()}"\n'
        f'deck = "{(SCEN / "deck.toml").as_posix()}"\n'
        'monsters = ["troll"]\nvariants = ["base"]\nlevels = [1, 3]\n'
        'jarls = ["sigurd", "hodr", "esbjorn"]\nplay = ["builder"]\n'
    )
    simkit.run(scenario, games=60, seed=3, jobs=1, out=tmp_path / "run")
    text = solo_report(tmp_path / "run", tmp_path / "report")[0].read_text()
    names = [r["Jarl"] for r in _table(text, "### Per Jarl (every set)")]
    assert sorted(names) == ["hodr ≡ esbjorn", "sigurd"], names
    head = _headline_numbers(text)["text"]
    assert head.index("Level I − III = **") < head.index("at Level I")
    assert "(hodr)" not in head and "(esbjorn)" not in head
    # the two rows' I − III intervals from the table: overlapping, each end names the other as a tie (issue 39)
    rows = {r["Jarl"]: r["I − III [95%]"] for r in _table(text, "### Per Jarl (every set)")}
    (a_lo, a_hi), (b_lo, b_hi) = (map(float, re.search(r"\[([-+\d.]+), ([-+\d.]+)\]", rows[j]).groups())
                                  for j in ("hodr ≡ esbjorn", "sigurd"))
    if a_lo <= b_hi and b_lo <= a_hi:
        assert "(hodr ≡ esbjorn, tied with sigurd (intervals overlap))" in head, head
        assert "(sigurd, tied with hodr ≡ esbjorn (intervals overlap))" in head, head
    else:
        assert "(hodr ≡ esbjorn)" in head and "(sigurd)" in head, head


def test_search_ladder_introduction_claims_only_what_the_verdict_supports(report, tmp_path):
    """A search ladder whose top two policies are not told apart (issue 19): the introduction names both as the
    best, not the top rung alone, and puts the clearly weaker policy below them; a clear winner is named alone."""
    from simkit.core.ladder import rungs_from
    from simkit.games.valhalla.solo.report import search_verdict

    rng = np.random.default_rng(5)
    n = 30
    tied = rungs_from({"search": (rng.random(n) < 0.95).astype(float),
                       "builder_tuned": (rng.random(n) < 0.9).astype(float),
                       "random": np.zeros(n)}, {"search": "search"})
    assert [r.policy for r in tied][:2] == ["search", "builder_tuned"] and not tied[1].below_best
    run_dir, _, _ = report
    text = solo_report(run_dir, tmp_path / "r", search_ladder={"rungs": tied, "games": n, "cells": 1,
                                                                "seed": 1, "where": "one cell"})[0].read_text()
    intro = text.split("### With `search` (a smaller sample)", 1)[1].split("Every policy played", 1)[0]
    assert "Strongest here" not in intro
    assert "**`search`, `builder_tuned`**, not told apart" in intro and "below them: `random`" in intro
    clear = rungs_from({"search": np.ones(200), "random": np.zeros(200)}, {})
    assert search_verdict(clear).startswith("Strongest here: **`search`**, every other policy below it")



def test_the_search_ladder_says_what_vsearch_is_when_it_plays(report, tmp_path):
    """Issue 41: the bundled search ladder plays the value-guided `vsearch` beside `search` in its cell; the
    introduction says what it is (rollouts, depth, value file) only when the ladder has it."""
    from simkit.core.ladder import rungs_from

    n = 30
    rungs = rungs_from({"vsearch": np.ones(n), "search": np.ones(n), "random": np.zeros(n)},
                       {"search": "search", "vsearch": "search"})
    run_dir, _, _ = report
    said = "4 rollouts per action of `builder_tuned`, each cut after 8 decisions and scored by the learned value"
    text = solo_report(run_dir, tmp_path / "v", search_ladder={"rungs": rungs, "games": n, "cells": 1, "seed": 1,
                                                               "where": "one cell", "vsearch": said})[0].read_text()
    intro = text.split("### With `search` (a smaller sample)", 1)[1].split("Every policy played", 1)[0]
    assert f"`vsearch` is the value-guided search ({said}; docs/strategy.md)" in intro
    assert "| vsearch " in text.split("### With `search` (a smaller sample)", 1)[1]
    from simkit.core.report import search_words

    table = {"kind": "search", "rollouts": 4, "base": "builder_tuned", "budget": "halving", "depth": 8,
             "value": "/anywhere/solo.value.npz"}
    assert search_words(table, "this cell's positions") == said + " of this cell's positions (`solo.value.npz`)"
    assert search_words({**table, "value": ""}) == "4 rollouts per action of `builder_tuned`, halving"
    plain = solo_report(run_dir, tmp_path / "p", search_ladder={"rungs": rungs, "games": n, "cells": 1, "seed": 1,
                                                                "where": "one cell"})[0].read_text()
    assert "value-guided" not in plain.split("### With `search` (a smaller sample)", 1)[1].split("Every policy", 1)[0]
    assert "learned_search" not in plain.split("### With `search` (a smaller sample)", 1)[1].split("Every policy", 1)[0]


def test_the_search_ladder_says_what_learned_search_is_when_it_plays(report, tmp_path):
    """Issue 41: the bundled search ladder plays `learned_search` (the learned policy searching a battle's rolls)
    beside `search`; the introduction says what it is, in the words of its table, only when the ladder has it."""
    from simkit.core.ladder import rungs_from
    from simkit.core.report import search_words

    table = {"kind": "search", "rollouts": 16, "base": "learned", "budget": "halving",
             "decisions": ["roll_stop", "free_reroll"]}
    said = search_words(table)
    assert said == "16 rollouts per action of `learned` at its `roll_stop`, `free_reroll` decisions only, halving"
    n = 30
    rungs = rungs_from({"learned_search": np.ones(n), "search": np.ones(n), "random": np.zeros(n)},
                       {"search": "search", "learned_search": "search"})
    run_dir, _, _ = report
    text = solo_report(run_dir, tmp_path / "l", search_ladder={"rungs": rungs, "games": n, "cells": 1, "seed": 1,
                                                               "where": "one cell", "learned_search": said})[0]
    section = text.read_text().split("### With `search` (a smaller sample)", 1)[1]
    intro = section.split("Every policy played", 1)[0]
    assert f"`learned_search` is the learned policy searching a battle's rolls ({said}; over all the cells" in intro
    assert "| learned_search " in section


# ---------------------------------------------------------------- does the ranking depend on the policy?

RANKED_POLICIES = ["builder", "aggressive"]  # the practical ones (declared strongest first); `random` is left out
RANKED_CELL = re.compile(r"^(\d\.\d{3}) \[(\d\.\d{3}), (\d\.\d{3})\] \((\d+)\)$")


@pytest.fixture(scope="module")
def ranked(tmp_path_factory):
    """Two heuristics, two monsters, two levels and four Jarls (hodr and esbjorn play alike): both rankings exist."""
    tmp_path = tmp_path_factory.mktemp("valhalla-ranked")
    scenario = tmp_path / "ranked.toml"
    scenario.write_text(
        'game = "valhalla"\nmode = "solo"\n'
        f'cards = "{(SCEN / "cards.toml").as_posix()}"\n'
        f'deck = "{(SCEN / "deck.toml").as_posix()}"\n'
        'monsters = ["troll", "dragon"]\nvariants = ["base"]\nlevels = [1, 3]\n'
        'jarls = ["sigurd", "agnar", "hodr", "esbjorn"]\nplay = ["builder", "aggressive", "random"]\n'
    )
    run_dir = tmp_path / "run"
    simkit.run(scenario, games=40, seed=3, jobs=1, out=run_dir)
    return run_dir, solo_report(run_dir, tmp_path / "report")[0].read_text()


def _section(text: str, heading: str) -> str:
    return text.split("## Does the ranking depend on the policy?", 1)[1].split("\n## ", 1)[0].split(heading, 1)[1]


def _ranking(text: str, heading: str) -> dict[str, dict]:
    return {r[next(iter(r))]: r for r in _table(_section(text, heading), "\n\n")}


def test_policy_rankings_are_the_games_own_and_the_pages_own(ranked):
    """The section ranks the (monster / deck, level) cells and the Jarls (Level I) under each practical policy: each
    P(win) is the share of won rows (the Jarls, or the sets, pooled; n = games), each rank the place of that share
    among the policy's groups, and the reference's numbers are the page's own (difficulty tables, Jarls table)."""
    from fractions import Fraction

    run_dir, text = ranked
    assert text.index("## Skill ladder") < text.index("## Does the ranking depend on the policy?") < text.index(
        "## What was simulated")
    df = simkit.results.load(run_dir)
    roman = {1: "I", 3: "III"}
    cell = {(f"{m} / {v} at Level {roman[lv]}", p): Fraction(int(k), int(n)) for m, v, lv, p, k, n in
            df.group_by("monster", "variant", "level", "policy").agg(
                pl.col("won").cast(pl.Int64).sum(), pl.len()).iter_rows()}
    lv1 = df.filter(pl.col("level") == 1)
    jarl = {(j, p): Fraction(int(k), int(n)) for j, p, k, n in lv1.group_by("jarl", "policy").agg(
        pl.col("won").cast(pl.Int64).sum(), pl.len()).iter_rows()}
    # hodr and esbjorn play every game alike under both heuristics: one row (as in the Jarls table)
    assert all(jarl[("hodr", p)] == jarl[("esbjorn", p)] for p in RANKED_POLICIES)
    jarl.update({("hodr ≡ esbjorn", p): jarl[("hodr", p)] for p in RANKED_POLICIES})
    for heading, truth, groups in (
            ("### The difficulty curve", cell, {"troll / base at Level I", "troll / base at Level III",
                                                "dragon / base at Level I", "dragon / base at Level III"}),
            ("### The Jarls (Level I", jarl, {"sigurd", "agnar", "hodr ≡ esbjorn"})):
        rows = _ranking(text, heading)
        assert set(rows) == groups
        assert list(next(iter(rows.values())))[1:] == [*RANKED_POLICIES, "n (games)"]  # no `random` column
        for p in RANKED_POLICIES:
            for g, r in rows.items():
                est, low, high, rank = RANKED_CELL.match(r[p]).groups()
                assert float(est) == pytest.approx(float(truth[(g, p)]), abs=5e-4 + 1e-9)
                assert float(low) <= float(est) <= float(high)
                assert int(rank) == 1 + sum(truth[(o, p)] > truth[(g, p)] for o in groups)
                assert r["n (games)"] == "40"
        # the reference's order is the table's
        ranks = [int(RANKED_CELL.match(r["builder"]).group(4)) for r in rows.values()]
        assert ranks == sorted(ranks)
    # the reference's numbers are the page's elsewhere: the difficulty table of `builder` and the Jarls table
    diff = {r["monster"]: r for r in _table(text, "### `builder` (heuristic)")}
    for g, r in _ranking(text, "### The difficulty curve").items():
        m, lv = g.split(" / ")[0], g.rsplit(" ", 1)[1]
        assert r["builder"].rsplit(" (", 1)[0] == diff[m][lv]
    jt = {r["Jarl"]: r["pooled"] for r in _table(text, "## Jarls (level I")}
    assert {g: r["builder"].rsplit(" (", 1)[0] for g, r in _ranking(text, "### The Jarls (Level I").items()} == jt


def _named(head: str, what: str, word: str) -> dict[str, str]:
    """``{policy: group}`` the headline's ranking sentence names as the worst / best (``word``)."""
    s = head.split(f"**The {what} ranking ", 1)[1].split("**The ", 1)[0]
    every = re.search(rf"([^;,]+?) is the {word} under every policy", s)
    if every:
        g = every.group(1).strip().removeprefix("and ")
        return {p: g for p in RANKED_POLICIES}
    m = re.search(rf"the {word} is (.+?) under `builder`(?:, tied with [^()]+ \(intervals overlap\),)? but (.+?), "
                  rf"(?:below|above) [^,]+ by (?:that policy's|those policies') own intervals", s)
    out = {p: m.group(1) for p in RANKED_POLICIES}  # a policy not named: the reference's, or tied with it
    for part in m.group(2).split("; "):
        g, ps = part.split(" under ", 1)
        out.update({p: g for p in re.findall(r"`(\w+)`", ps)})
    return out


def test_headline_says_whether_the_rankings_change_with_the_policy(ranked):
    """The first paragraph answers "does the ranking change with the policy?" for both rankings, with the section's
    resolved flips (Holm within a ranking at 2.5%, Bonferroni over the two: family-wise 5%), and names the worst and
    best cell and Jarl under each policy from the games' own rows."""
    from fractions import Fraction

    from simkit.core.stats import wilson

    run_dir, text = ranked
    head = text.split("\n\n")[3]  # the details, below the one-sentence lead (issue 39)
    assert "Ranked under every practical policy on the main run (40 games per cell): " in head
    df = simkit.results.load(run_dir)
    roman = {1: "I", 3: "III"}
    kn = {(f"{m} / {v} at Level {roman[lv]}", p): (int(k), int(n)) for m, v, lv, p, k, n in
          df.group_by("monster", "variant", "level", "policy").agg(
              pl.col("won").cast(pl.Int64).sum(), pl.len()).iter_rows()}
    kn |= {(j if j not in ("hodr", "esbjorn") else "hodr ≡ esbjorn", p): (int(k), int(n))
           for j, p, k, n in df.filter(pl.col("level") == 1).group_by("jarl", "policy").agg(
               pl.col("won").cast(pl.Int64).sum(), pl.len()).iter_rows()}
    counts = kn
    cell = {g: Fraction(*kn[g]) for g in kn if " at Level " in g[0]}
    jarl = {g: Fraction(*kn[g]) for g in kn if " at Level " not in g[0]}
    section = text.split("## Does the ranking depend on the policy?", 1)[1].split("\n## ", 1)[0]
    assert "**Holm-corrected over every pair of every policy compared** within a ranking" in section
    assert "is below 0.025 (5% split over the 2 rankings, Bonferroni)" in section
    for what, truth, heading, family in (
            ("(monster / deck, level)", cell, "### The difficulty curve", "6 comparisons, 6 pairs"),
            ("Jarl", jarl, "### The Jarls (Level I", "3 comparisons, 3 pairs")):
        part = _section(text, heading)
        resolved = len(re.findall(r"\(resolved, p adj\.", part))
        if resolved:
            assert f"**The {what} ranking changes with the policy:** {resolved} resolved flip" in head
        else:
            assert f"**The {what} ranking does not change with the policy beyond the noise:** no resolved flip" in head
            assert "No resolved flip" in part
        assert f"(Holm over all {family} × 1 other practical policy against `builder`, family-wise 0.025)" in head
        groups = {g for g, _ in truth}
        for word, pick in (("worst", min), ("best", max)):
            named = _named(head, what, word)
            for p in RANKED_POLICIES:
                # the group named under p is p's worst (best) by its rate, or its 95% interval overlaps that one's
                extreme = pick(groups, key=lambda g, p=p: truth[(g, p)])
                a, b = wilson(*counts[(named[p], p)]), wilson(*counts[(extreme, p)])
                assert named[p] == extreme or (a.low <= b.high and b.low <= a.high), (what, word, p, named)


def test_only_one_practical_policy_is_said_and_no_section(report):
    _, _, text = report
    assert "Only one practical policy played, so the (monster / deck, level) and Jarl ranking is not compared" in \
        text.split("\n\n")[3]
    assert "## Does the ranking depend on the policy?" not in text


def _e(p: float, half: float):
    from simkit.core.stats import Estimate

    return Estimate(p, p - half, p + half, 1000)


def test_flips_are_judged_at_five_percent_over_every_ranking_shown():
    """One flip whose p is 0.04 (the reference separates the pair far beyond the noise, the other policy at z =
    2.054): resolved when it is the section's only ranking (family of 1 at 5%), not when a second ranking shares
    the 5% (Bonferroni: 2.5% each); and the ranking table puts each policy's ranks beside its numbers."""
    from scipy.stats import norm

    from simkit.games.valhalla.solo.report import policy_sensitivity, ranking_rows

    se = 0.01 / math.sqrt(2)  # each group's standard error: the difference's is 0.01
    d = norm.isf(0.02) * 0.01  # two-sided p = 0.04
    half = 1.959964 * se
    flip = {"ref": {"a": _e(0.9, half), "b": _e(0.5, half)}, "other": {"a": _e(0.5, half), "b": _e(0.5 + d, half)}}
    games = {"a": 1000, "b": 1000}
    one = {"heading": "Flip", "intro": "x", "label": "Jarl", "what": "Jarl", "plural": "Jarls", "table": flip,
           "games": games}
    head, section = policy_sensitivity([one], "ref")
    assert head.startswith("**The Jarl ranking changes with the policy:** 1 resolved flip")
    assert "under `other`, b beats a" in section and "is below 0.05, so" in section
    same = {"ref": {"x": _e(0.8, half), "y": _e(0.2, half)}, "other": {"x": _e(0.7, half), "y": _e(0.3, half)}}
    two = {**one, "heading": "Same", "what": "cell", "plural": "cells", "table": same, "games": {"x": 9, "y": 9}}
    head, section = policy_sensitivity([one, two], "ref")
    assert head.startswith("**The Jarl ranking does not change with the policy beyond the noise:** no resolved flip")
    assert "family-wise 0.025" in head and "is below 0.025 (5% split over the 2 rankings, Bonferroni)" in section
    assert "**The cell ranking does not change" in head
    # a ranking of one group, or of one policy, is left out
    assert policy_sensitivity([{**one, "table": {"ref": {"a": _e(0.5, half)}, "other": {"a": _e(0.4, half)}}}],
                              "ref") == ("", "")
    rows = ranking_rows({"ref": {"a": _e(0.5, 0.1), "b": _e(0.7, 0.1), "c": _e(0.5, 0.1)},
                         "other": {"a": _e(0.9, 0.05), "b": _e(0.1, 0.05), "c": _e(0.3, 0.05)}}, "ref", "Jarl",
                        {"a": 5, "b": 6, "c": 7})
    assert [(r["Jarl"], r["ref"][-3:], r["other"][-3:], r["n (games)"]) for r in rows] == [
        ("b", "(1)", "(3)", 6), ("a", "(2)", "(1)", 5), ("c", "(2)", "(2)", 7)]


def test_a_pooled_rate_at_zero_or_one_counts_games_not_rows():
    """Two Jarls' rows per game, every game won: the interval is Wilson's on the 40 games (lower bound
    0.912), not on the 80 rows (0.954): rows of one game are not independent evidence. A spread-out share
    keeps its cluster-robust width but never claims more than the games' worth either."""
    from simkit.core.stats import wilson
    from simkit.games.valhalla.solo.report import _clustered, _rate

    games = pl.DataFrame({"block": [0] * 80, "game": [g for g in range(40) for _ in range(2)],
                          "won": [True] * 80}).lazy()
    cell = _clustered(games, [], {"won": pl.col("won")})[()]
    assert cell["pooled"] and cell["n"] == 80 and cell["games"] == 40
    e = _rate(cell, "won")
    assert (e.low, e.high) == pytest.approx((wilson(40, 40).low, 1.0))
    assert e.low < wilson(80, 80).low - 0.03
    # each game one win and one loss: no spread between games, rows as good as independent (deff 1)
    half = pl.DataFrame({"block": [0] * 80, "game": [g for g in range(40) for _ in range(2)],
                         "won": [True, False] * 40}).lazy()
    e = _rate(_clustered(half, [], {"won": pl.col("won")})[()], "won")
    assert e.estimate == 0.5 and (e.low, e.high) == pytest.approx((wilson(40, 80).low, wilson(40, 80).high))
    # games all won or all lost: the design effect is capped at the games' own count
    split = pl.DataFrame({"block": [0] * 80, "game": [g for g in range(40) for _ in range(2)],
                          "won": [g < 20 for g in range(40) for _ in range(2)]}).lazy()
    e = _rate(_clustered(split, [], {"won": pl.col("won")})[()], "won")
    assert e.low >= wilson(20, 40).low - 1e-9


def test_the_headline_names_the_sets_level_with_the_hardest_and_the_least_bitten():
    """Hand-made Level I − III drops: dragon +0.060 [+0.050, +0.070] alone at the top; serpent / plus40 +0.002
    [-0.006, +0.010] least, with troll / base +0.008 [+0.000, +0.016] overlapping it and named beside it; hydra
    +0.030 [+0.022, +0.038] overlaps neither end."""
    from simkit.core.stats import Estimate, overlapping
    from simkit.games.valhalla.solo.report import _sets_alongside

    d = {("dragon", "base"): Estimate(0.060, 0.050, 0.070, 2500), ("serpent", "plus40"): Estimate(0.002, -0.006, 0.010, 2500),
         ("troll", "base"): Estimate(0.008, 0.000, 0.016, 2500), ("hydra", "base"): Estimate(0.030, 0.022, 0.038, 2500)}
    assert overlapping(("dragon", "base"), d) == []
    assert overlapping(("serpent", "plus40"), d) == [("troll", "base")]
    assert _sets_alongside(("dragon", "base"), d) == ""
    assert _sets_alongside(("serpent", "plus40"), d) == "; intervals overlapping it: troll / base +0.0080 [+0.0000, +0.0160]"


# --- issue 39: the page opens with one plain sentence -----------------------------------------------------------

def test_the_page_opens_with_one_sentence_from_its_pooled_level_tables(report):
    """The lead is the first paragraph after the notice, one sentence of at most 45 words, with the numbers of
    the page's pooled tables: P(win) at Level I and III and the I − III drop with its verdict, the policy and n."""
    from simkit.core.report import LEAD_MARKER, LEAD_WORDS, lead_of, lead_problems, lead_words

    _, _, text = report
    paras = text.split("\n\n")
    assert paras[1].startswith("> **Stand-in card data.**") and paras[2].startswith(LEAD_MARKER)
    lead = lead_of(text)
    assert lead.endswith(".") and lead_words(lead) <= LEAD_WORDS and not re.search(r"[.!?] [A-Z]", lead[:-1]), lead
    assert not lead_problems(lead), (lead_problems(lead), lead)  # and no statistics word: those come below
    pooled = text.split("### Pooled over Jarls and sets", 1)[1]
    rates = {r["level"]: r for r in _table(pooled, "\n")}
    diffs = {r["levels"]: r for r in _table("\n" + pooled.split("\n\n", 2)[2], "\n")}
    d = diffs["I − III"]
    says = {"harder": "Level III is harder than Level I", "no clear difference": "Levels I and III are not told apart"}
    e, lo, hi = map(float, re.match(r"([-+\d.]+) \[([-+\d.]+), ([-+\d.]+)\]", d["P(win) difference [95%]"]).groups())
    change = (f"a drop of {e:.3f} [{lo:.3f}, {hi:.3f}]" if lo > 0 else f"a rise of {-e:.3f} [{-hi:.3f}, {-lo:.3f}]"
              if hi < 0 else f"a difference of {e:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    assert lead == (f"{says.get(d['verdict'], 'Level III is easier than Level I')}: over all 2 Jarls P(win) goes from "
                    f"{rates['I']['P(win) [95%]']} at Level I to {rates['III']['P(win) [95%]']} at Level III, {change} "
                    f"(`builder` policy, {int(d['n (games)']):,} games, each played by every Jarl).")


def test_the_lead_says_levels_it_cannot_tell_apart():
    from simkit.core.stats import Estimate
    from simkit.games.valhalla.solo.report import lead_sentence

    one, three = Estimate(0.858, 0.854, 0.861, 1), Estimate(0.838, 0.834, 0.841, 1)
    drop = Estimate(0.0200, 0.0171, 0.0230, 1)
    assert lead_sentence(one, three, drop, "harder", ("I", "III"), 17, "builder_tuned", 2500) == (
        "Level III is harder than Level I: over all 17 Jarls P(win) goes from 0.858 [0.854, 0.861] at Level I to "
        "0.838 [0.834, 0.841] at Level III, a drop of 0.020 [0.017, 0.023] (`builder_tuned` policy, 2,500 "
        "games, each played by every Jarl).")
    near = Estimate(0.0010, -0.0020, 0.0040, 1)
    said = lead_sentence(one, one, near, "no clear difference", ("I", "III"), 17, "builder", 2500)
    assert said.startswith("Levels I and III are not told apart: ") and "a difference of +0.001 [-0.002, +0.004]" in said
    rise = Estimate(-0.0200, -0.0230, -0.0171, 1)
    assert "a rise of 0.020 [0.017, 0.023]" in lead_sentence(three, one, rise, "easier", ("I", "III"), 17, "b", 1)


def test_the_search_ladder_says_how_its_sample_was_sized(ranked, tmp_path):
    """The bundled search ladder is played in blocks until every rung is within ±SEARCH_PRECISION (at most
    SEARCH_CAP games): the page says the rule and the games it took, from the ladder's own rungs; the sensitivity
    section says `search` plays one cell (too few cells for a ranking), not too few games."""
    from simkit.core.ladder import games_for_precision, rungs_from
    from simkit.games.valhalla.solo.report import SEARCH_BLOCK, SEARCH_CAP, SEARCH_PRECISION

    # the cap never cuts the rule short: at any rate the intervals are within the precision by then
    assert SEARCH_PRECISION <= 0.05 and games_for_precision(SEARCH_PRECISION, SEARCH_BLOCK) <= SEARCH_CAP
    rng = np.random.default_rng(9)
    n = 6 * SEARCH_BLOCK
    rungs = rungs_from({"search": (rng.random(n) < 0.98).astype(float),
                        "builder_tuned": (rng.random(n) < 0.9).astype(float),
                        "aggressive": (rng.random(n) < 0.25).astype(float)}, {"search": "search"})
    run_dir, _ = ranked
    text = solo_report(run_dir, tmp_path / "s", search_ladder={
        "rungs": rungs, "games": n, "cells": 1, "seed": 1, "where": "one cell",
        "precision": SEARCH_PRECISION, "cap": SEARCH_CAP, "block": SEARCH_BLOCK})[0].read_text()
    section = text.split("### With `search` (a smaller sample)", 1)[1]
    rule = (f"games were played in blocks of {SEARCH_BLOCK} until every rung's 95% interval was within "
            f"±{SEARCH_PRECISION:g}")
    assert rule in section
    assert n < SEARCH_CAP and f"which took {n:,} games." in section  # (a ladder stopped by its rule, below the cap)
    assert f"`search` plays {n:,} games in only 1 cell, too few cells for a ranking of its own" in text
    assert "plays too few games" not in text


def test_the_search_ladder_says_what_builder_exact_is_when_it_plays(report, tmp_path):
    """The bundled search ladder plays `builder_exact` (`builder_tuned` with `exact_rolls`); the introduction says
    what it is only when the ladder has it, and the scenario's table is `builder_tuned`'s but for its rolls."""
    from simkit.core.ladder import rungs_from
    from simkit.core.registry import scenarios_dir
    from simkit.core.scenario import read_toml
    from simkit.games.valhalla.solo.report import EXACT

    n = 30
    rungs = rungs_from({EXACT: np.ones(n), "search": np.ones(n), "random": np.zeros(n)},
                       {"search": "search", EXACT: "heuristic"})
    run_dir, _, _ = report
    section = solo_report(run_dir, tmp_path / "x", search_ladder={"rungs": rungs, "games": n, "cells": 1, "seed": 1,
                                                                  "where": "one cell", "exact": EXACT})[0]
    section = section.read_text().split("### With `search` (a smaller sample)", 1)[1]
    assert f"`{EXACT}` is `builder_tuned` playing every roll exactly (`exact_rolls`" in section.split("Every policy", 1)[0]
    assert f"| {EXACT} " in section
    policies = read_toml(scenarios_dir() / "valhalla" / "solo.toml")[0]["policies"]
    assert policies[EXACT] == {**policies["builder_tuned"], "exact_rolls": 1}
    # and the report's lead, `builder_stand`, is `builder_tuned` making its last stands exactly
    assert policies["builder_stand"] == {**policies["builder_tuned"], "exact_last_stand": 1}
    # `builder_reroll` and `learned_reroll`: `builder_tuned` and `learned` rerolling their last stands
    assert policies["builder_reroll"] == {**policies["builder_tuned"], "last_stand_reroll": 1}
    assert policies["learned_reroll"] == {**policies["learned"], "last_stand_reroll": 1}


def test_a_page_whose_strongest_heuristic_solves_battles_answers_under_the_fast_one_and_names_it(tmp_path):
    """When the skill ladder's top heuristic makes its last stands exactly (`exact_last_stand`, too slow for the
    level runs), the answer is the level run's policy, called the strongest at heuristic speed; the headline names
    the stronger one with its paired gap (the ladder's own row, the mean of the per-game differences), and the
    stronger one is the reference of "Does the ranking depend on the policy?"."""
    from simkit.core.scenario import read_toml

    tuned = read_toml(SCEN / "solo.toml")[0]["policies"]["builder_tuned"]
    spec = "".join(f"{k} = {v}\n" for k, v in tuned.items() if k != "kind")
    scenario = tmp_path / "stand.toml"
    scenario.write_text(
        'game = "valhalla"\nmode = "solo"\n'
        f'cards = "{(SCEN / "cards.toml").as_posix()}"\n'
        f'deck = "{(SCEN / "deck.toml").as_posix()}"\n'
        'monsters = ["dragon"]\nvariants = ["base"]\nlevels = [1, 3]\n'
        'jarls = ["sigurd", "egil"]\nplay = ["stand", "fast", "random"]\n'
        f'[policies.fast]\nkind = "heuristic"\n{spec}last_stand_reroll = 1\n'
        f'[policies.stand]\nkind = "heuristic"\n{spec}exact_last_stand = 1\n'
    )
    run_dir, jarls_dir = tmp_path / "run", tmp_path / "jarls"
    simkit.run(scenario, games=300, seed=5, jobs=1, out=run_dir)
    simkit.run(scenario, games=300, seed=6, jobs=1, out=jarls_dir, overrides=['play=["fast"]'])
    text = solo_report(run_dir, tmp_path / "report", jarls_run=jarls_dir)[0].read_text()
    head = text.split("**The details.** ", 1)[1].split("\n", 1)[0]
    assert head.startswith("**Over all 2 Jarls** under the strongest policy at heuristic speed, **`fast`**")
    # what the answer's policy does beyond its tuned rules, said right after the first sentence
    assert "). That policy, `fast`, rerolls its last stands: in a defence, where its rules would stop while the " \
           "dice lose and some roll could still win, it rerolls every die (no battle solved). The stronger `stand`" \
           in head
    df = simkit.results.load(run_dir)
    won = {p: df.filter(pl.col("policy") == p).sort(KEYS[:-1]).group_by(["block", "game"], maintain_order=True)
           .agg(pl.col("won").cast(pl.Float64).mean())["won"].to_numpy() for p in ("stand", "fast")}
    d = won["stand"] - won["fast"]
    ladder = {r["policy"]: r for r in _table(text, "## Skill ladder")}
    assert ladder["stand"]["rank"] == "1"  # the exact last stands win more here (+0.03 on these games)
    said = re.search(r"\. The stronger `stand` \(it makes its last stands exactly[^)]*\) "
                     r"(beats|ranks above \(not told apart from\)) "
                     r"`fast` over the main run's cells by ([+-]\d\.\d{4}) \[([+-]\d\.\d{4}), ([+-]\d\.\d{4})\]", head)
    assert said, head
    assert float(said.group(2)) == pytest.approx(d.mean(), abs=5e-5 + 1e-9)
    assert float(said.group(2)) == -float(DIFF.match(ladder["fast"]["vs best (paired)"]).group(1))
    assert (said.group(1) == "beats") == (float(said.group(3)) > 0)
    # the Level I − III drop under each on the main run, and their paired difference: each game's mean over its
    # cells of won(I) − won(III), one policy's minus the other's
    keys = ["block", "game", "monster", "variant", "jarl"]
    drop = {}
    for p in ("stand", "fast"):
        f = df.filter(pl.col("policy") == p)
        j = f.filter(pl.col("level") == 1).select(*keys, wa=pl.col("won").cast(pl.Float64)).join(
            f.filter(pl.col("level") == 3).select(*keys, wb=pl.col("won").cast(pl.Float64)), on=keys)
        drop[p] = j.group_by("block", "game").agg((pl.col("wa") - pl.col("wb")).mean().alias("d")).sort(
            "block", "game")["d"].to_numpy()
    dd = drop["stand"] - drop["fast"]
    words = re.search(r"where its Level I − III drop, ([+-]\d\.\d{4}) \[[^]]*\], is `fast`'s ([+-]\d\.\d{4}) "
                      r"\[[^]]*\] (within|beyond) the noise \(paired difference ([+-]\d\.\d{4}) \[([+-]\d\.\d{4}), "
                      r"([+-]\d\.\d{4})\], n = 300 games\)", head)
    assert words, head
    assert float(words.group(1)) == pytest.approx(drop["stand"].mean(), abs=5e-5 + 1e-9)
    assert float(words.group(2)) == pytest.approx(drop["fast"].mean(), abs=5e-5 + 1e-9)
    assert float(words.group(4)) == pytest.approx(dd.mean(), abs=5e-5 + 1e-9)
    half = 1.959964 * dd.std(ddof=1) / math.sqrt(len(dd))
    assert (float(words.group(5)), float(words.group(6))) == pytest.approx((dd.mean() - half, dd.mean() + half),
                                                                          abs=5e-5 + 1e-9)
    assert (words.group(3) == "within") == (float(words.group(5)) <= 0 <= float(words.group(6)))
    sens = text.split("## Does the ranking depend on the policy?", 1)[1].split("\n## ", 1)[0]
    assert "against the ranking under the strongest practical policy, `stand`" in sens
    assert "Policy `fast` (the strongest policy at heuristic speed: the top heuristic of the skill ladder among " \
           "those that never solve a battle exactly)" in text
    # the answer's own run is on the page, in its section: what was played (the --set) and from which seed
    run = text.split("### The all-Jarls run", 1)[1].split("\n## ", 1)[0]
    assert "--set 'play=[\"fast\"]'" in run and re.search(r"\| root_seed\s+\| 6\s+\|", run)
    assert text.index("## The levels over all Jarls") < text.index("### The all-Jarls run") < text.index("## Skill")
