"""The Valhalla multiplayer report: hand-built rows with numbers computable by hand, and a small bundled run whose
headline is recomputed from the games' own rows."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

from simkit.core import results
from simkit.games.valhalla.multi import report as R

RATE = r"(\d\.\d{3}) \[(\d\.\d{3}), (\d\.\d{3})\]"


def _rows(wins, glory, taken, jarl, players=2, cause="deck"):
    """Rows of the engine's layout (six seat columns, -1 where no seat) from per-game lists."""
    out = []
    for g, (w, gl, tk, jl) in enumerate(zip(wins, glory, taken, jarl)):
        r = {"block": 0, "game": g, "players": players, "variant": "valkyries", "policy": "builder",
             "cause": cause, "turns": 10 + g, "shared": int(sum(w) > 1)}
        for k in range(6):
            r[f"win_{k}"] = w[k] if k < players else -1
            r[f"glory_{k}"] = gl[k] if k < players else -1
            r[f"taken_{k}"] = tk[k] if k < players else -1
            r[f"jarl_{k}"] = jl[k] if k < players else -1
        out.append(r)
    return pl.DataFrame(out)


def test_win_shares_by_hand():
    # game 0: seat 1 wins; game 1: a shared win (1/2 each); game 2: seat 1 wins; game 3: seat 2 wins
    df = _rows([(1, 0), (1, 1), (1, 0), (0, 1)], [(9, 3)] * 4, [(0, 0)] * 4, [(0, 1)] * 4)
    seats = R.seat_rows(df)
    per_game = seats.group_by("game").agg(pl.col("share").sum())["share"].to_list()
    assert per_game == [1.0, 1.0, 1.0, 1.0]  # a game's shares add up to exactly 1
    table = {r["seat"]: r for r in R.seat_table(seats)}
    assert table[1]["e"].estimate == pytest.approx(2.5 / 4)
    assert table[2]["e"].estimate == pytest.approx(1.5 / 4)
    assert table[1]["fair"] == 0.5 and table[1]["deals"] == 4
    assert table[1]["e"].low < 2.5 / 4 < table[1]["e"].high


def test_margin_and_glory_sources_by_hand():
    df = _rows([(1, 0), (1, 1)], [(12, 5), (7, 7)], [(2, 1), (0, 0)], [(3, 0), (3, 0)], cause="shields")
    g = R.game_measures(df).with_columns(glory_jarl=R.jarl_glory(df, {3: 2}))
    assert g["margin"].to_list() == [7.0, 0.0]
    assert g["glory"].to_list() == [8.5, 7.0]
    assert g["glory_shields"].to_list() == [3.0, 0.0]  # 2 Glory a shield taken, per seat
    assert g["glory_jarl"].to_list() == [1.0, 1.0]  # Jarl 3 starts with 2 Glory; one seat of two holds it
    assert g["end_shields"].to_list() == [1, 1]


def test_a_fair_seat_is_not_flagged_and_a_favoured_one_is():
    rng = np.random.default_rng(5)
    n = 3000
    fair = [(1, 0) if x else (0, 1) for x in rng.random(n) < 0.5]
    biased = [(1, 0) if x else (0, 1) for x in rng.random(n) < 0.6]
    z = [(0, 0)] * n
    t_fair = R.seat_table(R.seat_rows(_rows(fair, z, z, z)))
    t_bias = R.seat_table(R.seat_rows(_rows(biased, z, z, z)))
    assert all(r["verdict"] == "not told apart" for r in t_fair)
    assert [r["verdict"] for r in t_bias] == ["favoured", "disfavoured"]


def test_jarl_edges_by_hand():
    # two seats at 2 players: Jarl 0 wins 3 of 4, Jarl 1 wins 1 of 4
    df = _rows([(1, 0), (1, 0), (1, 0), (0, 1)], [(1, 1)] * 4, [(0, 0)] * 4, [(0, 1)] * 4)
    rows = {r["jarl"]: r for r in R.jarl_table(R.seat_rows(df), ["A", "B"])}
    assert rows["A"]["edge"].estimate == pytest.approx(0.25)
    assert rows["B"]["edge"].estimate == pytest.approx(-0.25)
    assert rows["A"]["share"].estimate == pytest.approx(0.75)


@pytest.fixture(scope="module")
def bundled(tmp_path_factory):
    out = tmp_path_factory.mktemp("vm")
    files = R.bundled_multi(out, quick=True, jobs=1)
    return out / "valhalla-multi", files


def test_bundled_quick_report_headline_matches_rows(bundled):
    base, files = bundled
    text = (base / "report.md").read_text()
    assert {p.name for p in files} >= {"report.md", "seat-advantage.png", "jarls.png", "skill-ladder.png"}
    head = text.split("\n\n")[2]
    assert head.startswith("**The answer.**")
    frame = results.scan(base / "run").collect()
    m = re.search(r"strongest practical policy, `(\w+)`", head)
    best = m.group(1)
    assert best in ("builder", "raider")
    for n in (2, 3, 4, 5, 6):
        m = re.search(rf"{n} players {RATE} \(fair {1 / n:.3f}\)", head)
        assert m, n
        sub = frame.filter((pl.col("policy") == best) & (pl.col("players") == n))
        wins = np.stack([sub[f"win_{k}"].to_numpy() for k in range(n)], axis=1)
        assert (wins.sum(axis=1) >= 1).all()  # every game has a winner
        share = (wins[:, 0] / wins.sum(axis=1)).mean()
        assert float(m.group(1)) == pytest.approx(share, abs=5.01e-4)  # printed to 3 decimals
        assert float(m.group(2)) <= float(m.group(1)) <= float(m.group(3))
    # the base / Valkyries turns in the headline, from the rows
    m = re.search(r"(\d+\.\d) against (\d+\.\d) turns", head)
    prac = frame.filter(pl.col("policy") == best)
    for g, v in zip(m.groups(), ("valkyries", "base")):
        assert float(g) == pytest.approx(prac.filter(pl.col("variant") == v)["turns"].mean(), abs=0.051)
    # the ladder: every hero played the same games in every seat, and a table of equals sits near 1
    assert "## Skill ladder" in text and "below best" in text


def test_bundled_quick_lineups_rotate_the_hero(tmp_path):
    from simkit.core import loader
    from simkit.core.registry import scenarios_dir
    from simkit.games.valhalla.multi.lineups import play_heroes

    sim = loader.load(scenarios_dir() / "valhalla" / "multi.toml").simulation
    rows = play_heroes(sim, ["builder", "random"], "builder", [3], "valkyries", 120, 9, block_size=60)
    assert rows.height == 240
    seats = rows.filter(pl.col("hero") == "random")["hero_seat"].to_list()
    assert seats == [g % 3 for g in range(60)] * 2
    # the same deals for every hero: a hero of the field's own policy is the field, so its rows equal a table
    # of equals; shares of a game are within [0, 1] and a sole winner's share is 1
    assert ((rows["hero_share"] >= 0) & (rows["hero_share"] <= 1)).all()
    assert (rows.filter(pl.col("shared") == 0)["hero_share"] == rows.filter(pl.col("shared") == 0)["hero_win"]).all()
    # the random hero is far weaker than a builder among builders
    mean = rows.group_by("hero").agg(pl.col("hero_share").mean()).sort("hero")["hero_share"].to_list()
    assert mean[1] < mean[0]


def test_a_jarl_seen_in_few_deals_gets_no_verdict():
    # Jarl 1 sits in two games and loses both: every deal alike, nothing to test against; its interval is Wilson's
    df = _rows([(1, 0), (1, 0)], [(1, 1)] * 2, [(0, 0)] * 2, [(0, 1)] * 2)
    rows = {r["jarl"]: r for r in R.jarl_table(R.seat_rows(df), ["A", "B"])}
    b = rows["B"]
    assert b["edge"].estimate == pytest.approx(-0.5) and b["verdict"] == "not told apart"
    assert -0.5 <= b["edge"].low <= b["edge"].estimate < b["edge"].high <= 0.5
