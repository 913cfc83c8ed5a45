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

from test_report_lead import same_tie as _same_tie  # noqa: E402  (the house check of a tie clause)

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


def test_a_field_of_opponents_gives_one_cell_per_opponent_and_seat(tmp_path):
    """``opponent = [..]``: each tested policy meets every opponent of the field in each seat (issue 25)."""
    from simkit.core import loader

    scenario = tmp_path / "field.toml"
    scenario.write_text(
        'game = "valkyrie-incident"\nmode = "blitz"\n'
        f'cards = "{CARDS.as_posix()}"\n'
        'emblems = [["raven", "iron"]]\nplay = ["focused"]\nopponent = ["balanced", "concentrated"]\n'
        'seats = ["alpha", "omega"]\n'
    )
    sim = loader.load(scenario).simulation
    assert sim.cells == 4
    cols = sim.run_block(__import__("numpy").array([1, 2], "uint64"), 3)
    pairs = set(zip(cols["alpha_policy"].tolist(), cols["omega_policy"].tolist(), cols["seat"].tolist()))
    assert pairs == {("focused", "balanced", "alpha"), ("balanced", "focused", "omega"),
                     ("focused", "concentrated", "alpha"), ("concentrated", "focused", "omega")}
    assert set(cols["policy"].tolist()) == {"focused"}


@pytest.mark.parametrize("value, message", [
    ('["balanced", "nobody"]', "field 'opponent[1]'"),
    ('["balanced", "balanced"]', "names 'balanced' twice"),
    ("[]", "non-empty list"),
])
def test_a_bad_field_of_opponents_is_one_line_naming_the_entry(tmp_path, value, message):
    from simkit.core import loader
    from simkit.errors import InputError

    scenario = tmp_path / "field.toml"
    scenario.write_text(
        'game = "valkyrie-incident"\nmode = "blitz"\n'
        f'cards = "{CARDS.as_posix()}"\n'
        f'emblems = [["raven", "iron"]]\nplay = ["focused"]\nopponent = {value}\n'
    )
    with pytest.raises(InputError) as exc:
        loader.load(scenario)
    text = str(exc.value)
    assert message in text and "\n" not in text and "field.toml" in text


def test_matrix_change_names_the_largest_cell_move_and_the_rank_correlation():
    """Hand-made matrices of three Emblems, 10 games a cell, no draws. Old: x wins 26/40 of its games, y 22,
    z 12; new: y v z goes 0.6 → 0.1 and z v y 0.4 → 1.0, so x 26, z 23, y 11. Ranks (3, 2, 1) → (3, 1, 2):
    Spearman 1 − 6 × 2 / (3 × 8) = 0.5; the largest move z (Alpha) v y, +0.6; mean move (0.5 + 0.6) / 6."""
    from simkit.games.valkyrie_incident.report import emblem_outcomes, matrix_change

    old = {("x", "y"): 5, ("y", "x"): 5, ("x", "z"): 8, ("z", "x"): 2, ("y", "z"): 6, ("z", "y"): 4}
    new = {**old, ("y", "z"): 1, ("z", "y"): 10}
    infos = []
    for name, m in (("old", old), ("new", new)):
        cells = {k: (v, 10) for k, v in m.items()}
        infos.append({"cells": cells, "outcomes": emblem_outcomes(cells, {}), "policy": name})
    assert infos[0]["outcomes"]["x"][0] == 26 and infos[1]["outcomes"]["z"][0] == 23
    c = matrix_change(*infos)
    assert c["cell"] == ("z", "y") and c["old"] == pytest.approx(0.4) and c["new"] == pytest.approx(1.0)
    assert c["move"] == pytest.approx(0.6) and c["mean_move"] == pytest.approx(1.1 / 6)
    assert c["rho"] == pytest.approx(0.5) and c["emblems"] == 3 and c["cells"] == 6


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


# --- draws are their own outcome (issue 19) ------------------------------------------------------------------------

def test_emblem_outcomes_count_draws_as_neither_seats_win():
    from simkit.games.valkyrie_incident.report import emblem_outcomes

    # raven (Alpha) v iron (Omega): 10 games, Alpha wins 6, 2 drawn, so Omega wins 2
    got = emblem_outcomes({("raven", "iron"): (6, 10)}, {("raven", "iron"): 2})
    assert got == {"raven": (6, 2, 2, 10), "iron": (2, 2, 6, 10)}


def test_pooled_emblem_win_rates_fall_short_of_two_and_a_half_by_the_draw_share():
    # the bundled design: 5 Emblems, the 20 ordered match-ups of different Emblems, n games each; every Emblem
    # sits in 8 of the 20 cells, so its pooled rates are out of 8n games and the five win rates sum to
    # 20n (1 − draw share) / 8n = 2.5 (1 − draw share), not 2.5 (the old count made draws the Omega seat's wins)
    from simkit.games.valkyrie_incident.report import emblem_outcomes

    rng = __import__("numpy").random.default_rng(7)
    names = ["a", "b", "c", "d", "e"]
    n = 40
    cells, draws = {}, {}
    for x in names:
        for y in names:
            if x != y:
                d = int(rng.integers(0, 8))
                cells[(x, y)] = (int(rng.integers(0, n - d + 1)), n)
                draws[(x, y)] = d
    got = emblem_outcomes(cells, draws)
    share = sum(draws.values()) / (20 * n)
    assert share > 0
    for w, d, lost, games in got.values():
        assert games == 8 * n and w + d + lost == games
    assert sum(w / g for w, _, _, g in got.values()) == pytest.approx(2.5 * (1 - share), abs=1e-12)
    assert sum(w / g for w, _, _, g in got.values()) < 2.5


def _pooled_rows(text):
    lines = text.splitlines()
    head = ["Emblem", "wins", "draws", "losses", "games", "deals"]
    i = next(k for k, ln in enumerate(lines)
             if ln.startswith("|") and [c.strip() for c in ln.strip("|").split("|")] == head)
    rows = {}
    for line in lines[i + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = [float(c.split(" ")[0]) for c in cells[1:4]] + [int(cells[4].replace(",", ""))]
    return rows


def test_report_pooled_table_counts_each_emblems_wins_draws_and_losses(report):
    _, files, res = report
    f = res.frame.filter(pl.col("policy") == "focused")
    rows = _pooled_rows((files[0].parent / "report.md").read_text())
    assert set(rows) == {"raven", "iron", "ember", "tide"}
    for short, (w, d, lost, games) in rows.items():
        e = f"{short}_emblem"
        mine = f.filter((pl.col("alpha_emblem") == e) | (pl.col("omega_emblem") == e))
        wins = mine.filter(((pl.col("alpha_emblem") == e) & (pl.col("winner") == "alpha"))
                           | ((pl.col("omega_emblem") == e) & (pl.col("winner") == "omega"))).height
        drawn = mine.filter(pl.col("winner") == "draw").height
        assert games == mine.height
        assert w == pytest.approx(wins / games, abs=5e-4) and d == pytest.approx(drawn / games, abs=5e-4)
        assert w + d + lost == pytest.approx(1.0, abs=2e-3)


def _card_frame(rows):
    """Per-game rows where card 0 (lo bit 0), card 1 (bit 1) or card 2 (bit 2) is owned by Alpha."""
    cols = {"winner": [], "alpha_cards_lo": [], "alpha_cards_hi": [], "omega_cards_lo": [], "omega_cards_hi": []}
    for card, winner, count in rows:
        for _ in range(count):
            cols["winner"].append(winner)
            cols["alpha_cards_lo"].append(1 << card)
            cols["alpha_cards_hi"].append(0)
            cols["omega_cards_lo"].append(0)
            cols["omega_cards_hi"].append(0)
    return pl.DataFrame(cols)


def test_card_flags_test_owner_against_facing_seat_with_holm():
    # card A: owner 60 wins, 40 losses (sign test p = 0.057: no flag); card B: 20 wins, 60 draws, 20 losses
    # (even: no flag, though its owner "wins" only 0.2 of its games; the old test against the overall owner rate
    # flagged it low and printed 0.8 for the seat facing it); card C: 80 wins, 20 losses (p ~ 1e-9: high)
    from simkit.games.valkyrie_incident.report import card_table

    f = _card_frame([(0, "alpha", 60), (0, "omega", 40), (1, "alpha", 20), (1, "draw", 60), (1, "omega", 20),
                     (2, "alpha", 80), (2, "omega", 20)])
    rows, summary = card_table(f, ["A", "B", "C"])
    by = {r["card"]: r for r in rows}
    assert {k: r["flag"] for k, r in by.items()} == {"A": "", "B": "", "C": "high"}
    assert by["B"]["facing it wins"].startswith("0.200 ") and by["B"]["draws"].startswith("0.600 [")
    assert by["B"]["owner wins"].startswith("0.200 ")
    assert summary["flagged"] == 1 and summary["tested"] == 3
    assert summary["owner_wins"] + summary["draws"] + summary["facing_wins"] == pytest.approx(1.0)


def test_heatmap_leaves_unplayed_match_ups_blank(report, tmp_path, monkeypatch):
    # the table prints "–" for a match-up not played (an Emblem against itself); the heat-map gets NaN there
    # (it used to get 0.5), and the plot draws no value in such a cell
    import numpy as np

    from simkit.core import plotting
    from simkit.games.valkyrie_incident import report as R

    run_dir, _, _ = report
    seen = {}
    real = R.heatmap

    def spy(path, values, *a, **k):
        seen["v"] = values
        return real(path, values, *a, **k)

    monkeypatch.setattr(R, "heatmap", spy)
    _, _, info = R.matchup_section(run_dir, tmp_path, "standard", "focused")
    mat = seen["v"]
    for i, a in enumerate(info["names"]):
        for j, o in enumerate(info["names"]):
            assert np.isnan(mat[i, j]) == ((a, o) not in info["cells"])
    figs = []
    monkeypatch.setattr(plotting, "_save", lambda fig, path: figs.append(fig) or path)
    plotting.heatmap(tmp_path / "h.png", np.array([[np.nan, 0.25], [0.75, np.nan]]), ["x", "y"], ["x", "y"],
                     title="t", xlabel="x", ylabel="y", cbar_label="c")
    ax = figs[0].axes[0]
    assert sorted(t.get_text() for t in ax.texts) == ["0.25", "0.75"]
    data = ax.images[0].get_array()
    assert np.ma.getmaskarray(data).tolist() == [[True, False], [False, True]]


def test_report_opens_with_the_answer_from_the_games_rows(report):
    # the first paragraph after the notice: P(Alpha wins) and P(draw) of the report's policy over all match-ups,
    # and the best and worst Emblem by share of games won, each matching the per-game rows
    _, files, res = report
    text = (files[0].parent / "report.md").read_text()
    paras = text.split("\n\n")
    assert paras[1].startswith("> **Stand-in card data.**") and paras[2].startswith("**In one sentence.**")
    assert paras[3].startswith("**The details.**")  # the long answer, below the one-sentence lead (issue 39)
    answer = paras[3]
    f = res.frame.filter(pl.col("policy") == "focused")
    alpha = float(f["alpha_win"].mean())
    draws = float(f["draw"].mean())
    got = re.search(r"`focused` in both seats, Alpha \(the Start Player\) wins (\d\.\d+) \[.*?\(draws (\d\.\d+) "
                    r"\[\d\.\d+, \d\.\d+\]; [\d,]+ games on [\d,]+ deals, the deal the unit\)", answer)
    assert got and float(got.group(1)) == pytest.approx(alpha, abs=5e-4)
    assert float(got.group(2)) == pytest.approx(draws, abs=5e-4)
    share = {}
    for e in ("raven", "iron", "ember", "tide"):
        k = f"{e}_emblem"
        mine = f.filter((pl.col("alpha_emblem") == k) | (pl.col("omega_emblem") == k))
        share[e] = mine.filter(((pl.col("alpha_emblem") == k) & (pl.col("winner") == "alpha"))
                               | ((pl.col("omega_emblem") == k) & (pl.col("winner") == "omega"))).height / mine.height
    got = re.search(r"best (\w+) wins (\d\.\d+) \[.*?worst (\w+) (\d\.\d+) \[", answer)
    assert got, answer
    best, v_best, worst, v_worst = got.groups()
    assert float(v_best) == pytest.approx(max(share.values()), abs=5e-4) == pytest.approx(share[best], abs=5e-4)
    assert float(v_worst) == pytest.approx(min(share.values()), abs=5e-4) == pytest.approx(share[worst], abs=5e-4)


def _deal_sums(frame: pl.DataFrame, value: pl.Expr) -> tuple:
    per = frame.group_by("block", "game").agg(y=value.cast(pl.Float64).sum(), m=pl.len()).sort("block", "game")
    return per["y"].to_numpy(), per["m"].to_numpy().astype(float)


def test_pooled_emblem_rates_and_means_take_the_deal_as_the_unit(report):
    """Every cell replays the same deals, so an Emblem's games (and the margins and lengths of all games) are
    not independent: the intervals are the clustered ones over (block, game), as the summary's own, never
    Wilson or a normal interval on the rows ("a little too narrow", the old caption said). P(draw) has its
    interval too."""
    from simkit.core.stats import clustered_mean, clustered_rate

    _, files, res = report
    text = (files[0].parent / "report.md").read_text()
    assert "too narrow" not in text
    f = res.frame.filter(pl.col("policy") == "focused")
    block = text.split("Each Emblem pooled over both seats", 1)[1]
    head = [c.strip() for c in block.split("\n| Emblem", 1)[1].split("\n", 1)[0].strip("|").split("|")]
    assert head[-2:] == ["games", "deals"]
    for e in ("raven", "ember"):
        k = f"{e}_emblem"
        a = f.filter(pl.col("alpha_emblem") == k).select("block", "game", w=pl.col("winner") == "alpha")
        o = f.filter(pl.col("omega_emblem") == k).select("block", "game", w=pl.col("winner") == "omega")
        want = clustered_rate(*_deal_sums(pl.concat([a, o]), pl.col("w")))
        row = re.search(rf"\n\| {e} +\| ([^|]+)\|", block).group(1).strip()
        assert row == f"{want.estimate:.3f} [{want.low:.3f}, {want.high:.3f}]"
        assert want.n == 60  # the deals, whatever the cells that replay them
    t = clustered_mean(*_deal_sums(f, pl.col("turns")))
    assert f"{t.estimate:.1f} [{t.low:.1f}, {t.high:.1f}]" in text.split("## Score margin", 1)[1]
    m = clustered_mean(*_deal_sums(f, pl.col("margin").abs()))
    assert f"{m.estimate:.2f} [{m.low:.2f}, {m.high:.2f}]" in text.split("## Score margin", 1)[1]
    alpha = text.split("## Alpha or Omega", 1)[1].split("##", 1)[0]
    assert re.search(r"\| 0\.\d{4} \[0\.\d{4}, 0\.\d{4}\] \| +\d+ \| +\d+ \|\n", alpha), alpha  # P(draw), games, deals


def test_alpha_or_omega_counts_games_and_deals_with_the_deal_as_the_unit(report):
    """Each cell replays the same deals: the Alpha/Omega table reports the games (rows: 3 match-ups × 60) and
    the deals (60), and its intervals are the deal-clustered ones computed from the rows (issue 19: it said 60
    games and 'the game is the unit')."""
    from simkit.core.stats import clustered_rate

    _, files, res = report
    text = (files[0].parent / "report.md").read_text()
    block = text.split("## Alpha or Omega", 1)[1].split("\n## ", 1)[0]
    assert "the deal as the unit" in block and "the game is the unit" not in block
    head = [c.strip() for c in block.split("\n| ruleset", 1)[1].split("\n", 1)[0].strip("|").split("|")]
    row = next(ln for ln in block.splitlines() if "focused v focused" in ln)
    got = dict(zip(["ruleset"] + head[1:], (c.strip() for c in row.strip("|").split("|"))))
    assert got["games"] == "180" and got["deals"] == "60"
    f = res.frame.filter(pl.col("policy") == "focused")
    a = clustered_rate(*_deal_sums(f, pl.col("alpha_win")))
    d = clustered_rate(*_deal_sums(f, pl.col("draw")))
    assert got["P(Alpha wins)"] == f"{a.estimate:.3f} [{a.low:.3f}, {a.high:.3f}]"
    assert got["P(draw)"] == f"{d.estimate:.4f} [{d.low:.4f}, {d.high:.4f}]"
    assert "180 games on 60 deals, the deal the unit" in text.split("\n\n")[3]  # the details, below the lead


def test_card_table_takes_the_deal_as_the_unit():
    """15 deals, each replayed in 20 cells with the same outcome: the owner of card A wins 10 deals and loses 5.
    Counted as 300 independent games (200 wins v 100 losses) the sign test flags it (p ~ 1e-8); with the deal as
    the unit it is 10 v 5 (exact sign-flip p = 0.30): no flag, and the intervals are as wide as 15 deals allow.
    Card B, won in 14 of 15 deals, stays flagged. Draws have an interval too."""
    from simkit.games.valkyrie_incident.report import card_table

    cols = {k: [] for k in ("block", "game", "winner", "alpha_cards_lo", "alpha_cards_hi", "omega_cards_lo",
                            "omega_cards_hi")}
    deals = [(0, "alpha")] * 10 + [(0, "omega")] * 5 + [(1, "alpha")] * 14 + [(1, "omega")] + [(1, "draw")]
    for g, (card, winner) in enumerate(deals):
        for _cell in range(20):
            for k, v in (("block", 0), ("game", g), ("winner", winner), ("alpha_cards_lo", 1 << card),
                         ("alpha_cards_hi", 0), ("omega_cards_lo", 0), ("omega_cards_hi", 0)):
                cols[k].append(v)
    rows, summary = card_table(pl.DataFrame(cols), ["A", "B"])
    by = {r["card"]: r for r in rows}
    assert by["A"]["flag"] == "" and by["B"]["flag"] == "high"
    assert by["A"]["owned in (games)"] == 300 and by["A"]["deals"] == 15 and summary["deals"] == 31
    lo, hi = (float(x) for x in re.match(r"0\.667 \[(\d\.\d+), (\d\.\d+)\]", by["A"]["owner wins"]).groups())
    w15 = wilson(10, 15)
    assert lo == pytest.approx(w15.low, abs=0.02) and hi == pytest.approx(w15.high, abs=0.02)  # 15 deals, not 300
    assert re.match(r"0\.062 \[0\.\d{3}, 0\.\d{3}\]", by["B"]["draws"])
    assert by["A"]["p (Holm)"] != "–" and float(by["A"]["p (Holm)"]) > 0.05


def test_strength_tie_is_said_and_how_it_was_broken():
    """Two heuristics whose per-deal shares against the field differ by noise only are called a tie, with the
    paired gap and the rule that picked the one that plays the tables; a clear best is named alone."""
    import numpy as np

    from simkit.games.valkyrie_incident.report import strength_text

    rng = np.random.default_rng(1)
    base = rng.random(200)
    noise = rng.normal(0, 0.05, (2, 200))  # the two differ game by game by noise alone (equal means)
    noise -= noise.mean(axis=1, keepdims=True)
    tie = [{"policy": "balanced", "per_game": base + noise[0] + 0.002}, {"policy": "focused_tuned",
                                                                         "per_game": base + noise[1]},
           {"policy": "focused", "per_game": base - 0.2}]
    text = strength_text("blitz", tie)
    assert "**a tie.** `balanced` and `focused_tuned` are not told apart" in text
    assert "The report plays the higher estimate, `balanced`" in text and "`focused`," not in text
    clear = strength_text("standard", [{"policy": "focused_tuned", "per_game": base + 0.1},
                                       {"policy": "balanced", "per_game": base}])
    assert clear.startswith("Standard: `focused_tuned` wins more against the field than every other policy")


def test_a_tie_says_how_the_two_fare_head_to_head():
    """A tie at the top of the field ranking adds the two head to head (each against the other one alone, on the
    same deals): the shares, the paired gap, and whether its interval leaves 0; a head-to-head that tells them
    apart breaks the tie (the stronger plays the tables), else the higher estimate against the field does."""
    from simkit.core.stats import Estimate, PairedDifference
    from simkit.games.valkyrie_incident.report import head_to_head_text, head_to_head_winner, strength_text

    h = {"top": "learned", "other": "focused_tuned", "games": 200,
         "share": {"learned": Estimate(0.533, 0.527, 0.538, 200), "focused_tuned": Estimate(0.495, 0.490, 0.500, 200)},
         "gap": PairedDifference(0.0376, 0.0324, 0.0428, 200, 1e-9)}
    said = head_to_head_text(h)
    assert said == (" Head to head (each against `focused_tuned` alone, both seats, all 20 match-ups, 200 fresh deals, "
                    "paired): `learned` wins 0.533 [0.527, 0.538] of its games and `focused_tuned` against itself "
                    "0.495 [0.490, 0.500], +0.0376 [+0.0324, +0.0428] (told apart).")
    import numpy as np

    across = {**h, "gap": PairedDifference(0.004, -0.002, 0.010, 200, 0.2)}
    assert head_to_head_text(across).endswith("+0.0040 [-0.0020, +0.0100] (not told apart).")
    family = {**h, "confidence": 0.975}
    assert head_to_head_text(family).endswith(
        "(told apart; a 97.5% interval, the head-to-heads of both rulesets one family).")
    rng = np.random.default_rng(1)
    base = rng.random(200)
    noise = rng.normal(0, 0.05, (2, 200))  # the two differ game by game by noise alone (equal means)
    noise -= noise.mean(axis=1, keepdims=True)
    tie = [{"policy": "learned", "per_game": base + noise[0] + 0.002},
           {"policy": "focused_tuned", "per_game": base + noise[1]}]
    told = strength_text("standard", tie, h2h=h)
    assert said in told and "So the report plays `learned`, the stronger head to head;" in told
    assert "higher estimate" not in told
    lost = {**h, "gap": PairedDifference(-0.0185, -0.0245, -0.0125, 200, 1e-9)}
    assert "So the report plays `focused_tuned`, the stronger head to head;" in strength_text("standard", tie,
                                                                                             h2h=lost)
    level = strength_text("standard", tie, h2h=across)
    assert "The report plays the higher estimate, `learned`" in level and level.endswith(head_to_head_text(across))
    assert "Head to head" not in strength_text("standard", tie)
    assert [head_to_head_winner(x) for x in (h, lost, across, None)] == ["learned", "focused_tuned", None, None]


def test_head_to_head_pairs_the_two_on_the_same_deals_against_the_other():
    """``head_to_head``: each policy's share of wins against the other alone is what ``field_games`` gives it with
    that one policy as the field, deal by deal, and the gap is the mean of the per-deal differences (paired)."""
    import scipy.stats as st

    from simkit.games.valkyrie_incident import field as F

    scen = F.scenario_path("standard")
    h = F.head_to_head(scen, "balanced", "focused", 4, seed=5, confidence=0.975)
    alone = {p: F.field_games(scen, {p: F.policy_values(scen, p)}, 4, 5, field=("focused",))[p]
             for p in ("balanced", "focused")}
    assert h["games"] == 4 and h["confidence"] == 0.975
    for p in alone:
        assert h["share"][p].estimate == pytest.approx(float(alone[p].mean()))
    d = alone["balanced"] - alone["focused"]
    assert h["gap"].estimate == pytest.approx(float(d.mean()))
    # the interval is at the asked level (97.5%: the two rulesets' tie-breaks one family, Bonferroni)
    half = st.norm.isf(0.0125) * d.std(ddof=1) / 2
    assert (h["gap"].high - h["gap"].low) / 2 == pytest.approx(half)


def test_strength_verdicts_are_one_family_over_both_rulesets():
    """The two rulesets' field verdicts together hold family-wise 5% (Bonferroni: 2.5% in each), so a gap with
    p = 0.035 is 'below best' when one ruleset is read alone and a tie when both are (issue 19)."""
    import numpy as np
    import scipy.stats as st

    from simkit.games.valkyrie_incident.report import strength_text, strength_verdict

    n, sigma = 200, 0.05
    rng = np.random.default_rng(3)
    base = rng.random(n)
    d = rng.normal(0, 1, n)
    d = (d - d.mean()) / d.std(ddof=1) * sigma  # mean 0, sd exactly sigma
    gap = st.t.isf(0.035 / 2, n - 1) * sigma / np.sqrt(n)  # the paired t test's two-sided p is 0.035
    ranked = [{"policy": "focused_tuned", "per_game": base + 0.1},
              {"policy": "balanced", "per_game": base + 0.1 - gap + d}]
    alone, both = strength_verdict(ranked, rulesets=1), strength_verdict(ranked, rulesets=2)
    assert alone[1].p_adj == pytest.approx(0.035, abs=1e-9) and both[1].p_adj == alone[1].p_adj
    assert alone[1].below_best and not both[1].below_best
    assert "family-wise 5%)" in strength_text("blitz", ranked, rulesets=1)
    text = strength_text("blitz", ranked)
    assert "**a tie.**" in text and "family-wise 5% over both rulesets: 2.5% in each" in text


def test_ladder_is_a_round_robin_with_the_tuned_presets():
    """ladder.toml: every policy meets every other one (never itself: a mirror is 1/2 by construction), in both
    seats and every listed match-up; its tuned presets are standard.toml's (issue 25)."""
    from simkit.core import loader
    from simkit.core.scenario import read_toml

    scen = CARDS.parent
    sim = loader.load(scen / "ladder.toml").simulation
    lad, _ = read_toml(scen / "ladder.toml")
    std, _ = read_toml(scen / "standard.toml")
    play = lad["play"]
    assert {"balanced_tuned", "focused_tuned"} <= set(play)
    for name in ("balanced_tuned", "focused_tuned"):
        assert lad["policies"][name] == std["policies"][name]
    cells = sim._cells
    for name in play:
        mine = [c for c in cells if c[2] == name]
        assert len(mine) == (len(play) - 1) * 2 * len(lad["emblems"])
        opponents = {c[4][1] if c[3] == "alpha" else c[4][0] for c in mine}
        assert opponents == set(play) - {name}
        assert {c[3] for c in mine} == {"alpha", "omega"}


# --- does the Emblem ranking depend on the policy? (issue 18) -------------------------------------------------------

def _est(p, half, n=1000):
    from simkit.core.stats import Estimate

    return Estimate(p, p - half, p + half, n)


def _ranking_tables():
    """Standard: `ref` ranks a > b > c > d > e, 0.10 apart, intervals ± 0.01; `swapped` puts b (0.62) above a
    (0.53), both separated by about 6 standard errors of the difference (resolved); `noisy` puts e 0.01 above d
    with intervals ± 0.10 (inside the noise: not resolved). Blitz: `ref` and `other` agree on the order."""
    ref = {"a": _est(0.70, 0.01), "b": _est(0.60, 0.01), "c": _est(0.50, 0.01), "d": _est(0.40, 0.01),
           "e": _est(0.30, 0.01)}
    swapped = {**ref, "a": _est(0.53, 0.01), "b": _est(0.62, 0.01)}
    noisy = {**ref, "d": _est(0.35, 0.10), "e": _est(0.36, 0.10)}
    blitz = {"ref": ref, "other": {k: _est(v.estimate - 0.05, 0.01) for k, v in ref.items()}}
    return {"standard": {"ref": ref, "swapped": swapped, "noisy": noisy}, "blitz": blitz}


def test_emblem_ranking_section_resolves_a_clear_flip_and_not_one_inside_the_noise():
    from simkit.games.valkyrie_incident.report import sensitivity_part

    text, said = sensitivity_part(_ranking_tables(), {"standard": "ref", "blitz": "ref"})
    assert text.startswith("## Does the Emblem ranking depend on the policy?\n\n")
    std, blitz = text.split("### Standard\n", 1)[1].split("### Blitz\n", 1)
    # the shares table: the reference first, marked, every value with its interval
    head = next(ln for ln in std.splitlines() if ln.startswith("| Emblem"))
    assert [c.strip() for c in head.strip("|").split("|")] == ["Emblem", "`ref` (strongest)", "`swapped`", "`noisy`"]
    assert re.search(r"\| b +\| +0\.600 \[0\.590, 0\.610\] \| +0\.620 \[0\.610, 0\.630\] \|", std)
    rows = {ln.split("|")[1].strip(): ln for ln in std.splitlines() if ln.startswith("| swapped") or
            ln.startswith("| noisy")}
    assert "1 of 10" in rows["swapped"] and "a > b (resolved, p adj." in rows["swapped"]
    assert "1 of 10" in rows["noisy"] and "d > e" in rows["noisy"] and "resolved" not in rows["noisy"]
    assert "under `swapped`, b beats a" in std and "under `noisy`" not in std
    assert "Holm-corrected over all 20 comparisons (10 pairs × 2 policies compared, family-wise 0.025)" in std
    assert "No resolved flip" in blitz and "0 of 10" in blitz
    assert "family-wise 5%: Holm at 2.5% within each ruleset" in text
    # the answer's sentences: one per ruleset, the verdict, and the best and worst Emblem under each policy
    assert said.startswith("Does the Emblem ranking change with the policy (")
    assert "family-wise 5% over both rulesets, 2.5% in each)?" in said
    s_std, s_blitz = said.split(" Standard: ", 1)[1].split(" Blitz: ", 1)
    assert s_std.startswith("**The Emblem ranking changes with the policy:** 1 resolved flip (1 pair of Emblems")
    assert "the best is a under `ref` but b under `swapped` (a resolved flip)" in s_std
    # a flip inside the noise (d 0.35 and e 0.36, ± 0.10 under `noisy`): e stays the worst, tied under `noisy`
    assert "e is the worst under every policy or tied with it (intervals overlap), and" in s_std
    assert "d under `noisy`" not in s_std
    assert s_blitz.startswith("**The Emblem ranking does not change with the policy beyond the noise:** no "
                              "resolved flip (Holm over all 10 comparisons")


def test_emblem_flips_of_both_rulesets_are_one_family():
    """A flip whose Holm-adjusted p is 0.04 (3 Emblems: 3 pairs, one flip, so 3 × its p) is resolved when one
    ruleset is compared (family-wise 5%) and not when both are (2.5% in each: Bonferroni over the rulesets)."""
    import scipy.stats as st

    from simkit.core.sensitivity import Z95
    from simkit.games.valkyrie_incident.report import sensitivity_part

    p = 0.04 / 3
    half = 0.02
    d = st.norm.isf(p / 2) * (half / Z95) * 2 ** 0.5  # the difference whose two-sided p is p
    ref = {"x": _est(0.8, half), "y": _est(0.5, half), "z": _est(0.2, half)}  # x above y by 21 standard errors
    other = {**ref, "x": _est(0.5, half), "y": _est(0.5 + d, half)}
    table = {"ref": ref, "other": other}
    calm = {"ref": ref, "again": dict(ref)}
    alone, said_alone = sensitivity_part({"standard": table}, {"standard": "ref"})
    both, said_both = sensitivity_part({"standard": table, "blitz": calm}, {"standard": "ref", "blitz": "ref"})
    assert "x > y (resolved, p adj. 0.04)" in alone and "family-wise 0.05)" in alone
    assert "Standard: **The Emblem ranking changes with the policy:**" in said_alone
    assert "; family-wise 5%)?" in said_alone
    assert "x > y (resolved" not in both and "x > y" in both and "family-wise 0.025)" in both
    assert "Standard: **The Emblem ranking does not change with the policy beyond the noise:**" in said_both


def test_emblem_ranking_section_numbers_are_the_games_rows_and_the_pages_shares(report):
    """On the small run (`focused` and `balanced`, 4 Emblems, 60 deals): each policy's column is each Emblem's
    share of games won counted from the rows (both seats, a draw no win), the `focused` column is the pooled
    table the page prints, Spearman's ρ is the one of the counted shares, and the sentence's best and worst
    under `focused` are the answer's."""
    import scipy.stats as st

    from simkit.games.valkyrie_incident.report import policy_table, sensitivity_part

    run_dir, files, res = report
    page = (files[0].parent / "report.md").read_text()
    table = policy_table(run_dir)
    assert list(table) == ["focused", "balanced"]
    text, said = sensitivity_part({"standard": table}, {"standard": "focused"})
    body = text.split("### Standard\n", 1)[1]
    head = next(ln for ln in body.splitlines() if ln.startswith("| Emblem"))
    cols = [c.strip() for c in head.strip("|").split("|")]
    assert cols == ["Emblem", "`focused` (strongest)", "`balanced`"]
    share = {}
    for pol in ("focused", "balanced"):
        f = res.frame.filter(pl.col("policy") == pol)
        for e in ("raven", "iron", "ember", "tide"):
            k = f"{e}_emblem"
            mine = f.filter((pl.col("alpha_emblem") == k) | (pl.col("omega_emblem") == k))
            won = mine.filter(((pl.col("alpha_emblem") == k) & (pl.col("winner") == "alpha"))
                              | ((pl.col("omega_emblem") == k) & (pl.col("winner") == "omega"))).height
            share[(pol, e)] = won / mine.height
    pooled = page.split("Each Emblem pooled over both seats", 1)[1]
    for e in ("raven", "iron", "ember", "tide"):
        row = next(ln for ln in body.splitlines() if re.match(rf"\|\s*{e}\s*\|", ln))
        cells = dict(zip(cols, (c.strip() for c in row.strip("|").split("|"))))
        for pol, col in (("focused", cols[1]), ("balanced", cols[2])):
            assert float(cells[col].split(" ")[0]) == pytest.approx(share[(pol, e)], abs=5e-4)
            assert table[pol][e].n == 60
        page_wins = re.search(rf"\n\| {e} +\| ([^|]+)\|", pooled).group(1).strip()
        assert cells[cols[1]] == page_wins
    names = ("raven", "iron", "ember", "tide")
    rho = st.spearmanr([share[("focused", e)] for e in names], [share[("balanced", e)] for e in names]).statistic
    line = next(ln for ln in body.splitlines() if ln.startswith("| balanced"))
    if f"{rho:+.3f}" in ("+0.000", "-0.000"):  # a column of zeros is left out of the table, and named under it
        assert "*Left out, 0 to the digits shown in every row (small, not necessarily 0): Spearman ρ with " \
               "`focused`" in body
    else:
        assert f"{rho:+.3f}" in line
    best = max(names, key=lambda e: share[("focused", e)])
    worst = min(names, key=lambda e: share[("focused", e)])
    answer = page.split("\n\n")[3]  # the details, below the one-sentence lead (issue 39)
    assert re.search(rf"best {best} wins .*worst {worst} ", answer)
    assert (f"{best} is the best under every policy" in said) or (f"the best is {best} under `focused`" in said)
    assert (f"{worst} is the worst under every policy" in said) or (f"the worst is {worst} under `focused`" in said)


def _md_table(block: str, first: str) -> tuple[list[str], dict[str, dict[str, str]]]:
    lines = block.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith(f"| {first}"))
    head = [c.strip() for c in lines[i].strip("|").split("|")]
    rows = {}
    for ln in lines[i + 2:]:
        if not ln.startswith("|"):
            break
        cells = [c.strip() for c in ln.strip("|").split("|")]
        rows[cells[0]] = dict(zip(head, cells))
    return head, rows


@pytest.fixture(scope="module")
def quick_page(tmp_path_factory):
    """The quick bundled page (100 games a cell) and its output folder."""
    from simkit.games.valkyrie_incident.report import bundled_report

    out = tmp_path_factory.mktemp("incident-quick") / "out"
    bundled_report(out, quick=True, jobs=1)
    return out, (out / "valkyrie-incident" / "report.md").read_text()


def test_bundled_page_answers_whether_the_emblem_ranking_depends_on_the_policy(quick_page):
    """The quick bundled page (100 games a cell): its first paragraph says for both rulesets whether the Emblem
    ranking changes with the policy; the section's shares are the run's own rows, every policy of its `play` list,
    and the strongest's column is the pooled table the page prints; the ρ of the untuned preset is the matrix
    change's."""
    from simkit.core import results
    from simkit.core.scenario import read_toml

    out, page = quick_page
    answer = page.split("\n\n")[3]  # the details, below the one-sentence lead (issue 39)
    assert answer.startswith("**The details.**")
    assert "Does the Emblem ranking change with the policy (" in answer
    assert re.search(r" Standard: \*\*The Emblem ranking (changes|does not change) with the policy", answer)
    assert re.search(r" Blitz: \*\*The Emblem ranking (changes|does not change) with the policy", answer)
    sec = page.split("## Does the Emblem ranking depend on the policy?\n", 1)[1].split("\n## ", 1)[0]
    assert page.index("### Blitz match-ups near 0 or 1") < page.index("## Does the Emblem ranking depend")
    match = page.split("## Emblem match-ups\n", 1)[1].split("### Blitz match-ups near 0 or 1", 1)[0]
    for label in ("standard", "blitz"):
        part = sec.split(f"### {label.capitalize()}\n", 1)[1].split("\n### ", 1)[0]
        head, rows = _md_table(part, "Emblem")
        ref = head[1].split("`")[1]
        assert head[1] == f"`{ref}` (strongest)"
        assert f"`{ref}` in both seats" in answer and f"`{ref}`" in page.split("## What was simulated", 1)[1][:2000]
        play, _ = read_toml(Path(simkit.__file__).parents[1] / "scenarios" / "valkyrie_incident" / f"{label}.toml")
        assert sorted(h.strip("`") for h in [ref] + head[2:]) == sorted(play["play"])
        # the shares from the run's rows: each Emblem's wins over its games, both seats, a draw no win
        f = results.scan(out / "valkyrie-incident" / "run" / label).collect()
        for col in head[1:]:
            pol = col.split("`")[1]
            g = f.filter(pl.col("policy") == pol)
            for e, row in rows.items():
                k = f"{e}_emblem"
                mine = g.filter((pl.col("alpha_emblem") == k) | (pl.col("omega_emblem") == k))
                won = mine.filter(((pl.col("alpha_emblem") == k) & (pl.col("winner") == "alpha"))
                                  | ((pl.col("omega_emblem") == k) & (pl.col("winner") == "omega"))).height
                assert float(row[col].split(" ")[0]) == pytest.approx(won / mine.height, abs=5.01e-4)  # .3f
        # the strongest's column is the pooled table of the ruleset's match-ups on the same page
        pooled = match.split(f"### {label.capitalize()}\n", 1)[1].split("Each Emblem pooled over both seats", 1)[1]
        _, prows = _md_table(pooled, "Emblem")
        assert {e: r[head[1]] for e, r in rows.items()} == {e: r["wins"] for e, r in prows.items()}
        # the untuned preset's ρ is the one the matrix-change sentence gives (to 2 digits)
        change = re.search(rf"{label.capitalize()}: against the matrix of `(\w+)`.*?shares of games won is "
                           r"([+-]\d\.\d\d)\.", match, re.S)
        if change:
            _, srows = _md_table(part, "policy")
            rho = next(v for k, v in srows[change.group(1)].items() if k.startswith("Spearman"))
            assert f"{float(rho):+.2f}" == change.group(2)


def test_the_headline_names_the_emblems_the_data_cannot_tell_from_the_best_or_the_worst():
    """Hand-made shares on 1,000 games each: ember 0.583 and tide 0.574 overlap (Wilson half-widths ~0.031), so the
    headline names tide beside ember as best; iron 0.400 is far below both and alone as the worst; raven 0.500
    overlaps neither end."""
    from simkit.games.valkyrie_incident.report import _alongside, best_worst, level_with

    info = {"outcomes": {"ember_emblem": (583, 0, 417, 1000), "tide_emblem": (574, 0, 426, 1000),
                         "raven_emblem": (500, 0, 500, 1000), "iron_emblem": (400, 0, 600, 1000)}}
    (b, _), (w, _) = best_worst(info)
    assert (b, w) == ("ember", "iron")
    near_best, near_worst = level_with(info)
    assert [e for e, _ in near_best] == ["tide"] and near_worst == []
    tide = wilson(574, 1000)
    assert tide.high >= wilson(583, 1000).low and wilson(500, 1000).high < wilson(583, 1000).low
    assert _alongside(near_best) == f" (intervals overlapping it: tide 0.574 [{tide.low:.3f}, {tide.high:.3f}])"
    assert _alongside(near_worst) == ""
    # all four level: each end names the other three, nearest first
    flat = {"outcomes": {f"{e}_emblem": (500 + i, 0, 500 - i, 1000) for i, e in enumerate(["a", "b", "c", "d"])}}
    near_best, near_worst = level_with(flat)
    assert [e for e, _ in near_best] == ["c", "b", "a"] and [e for e, _ in near_worst] == ["b", "c", "d"]


def test_blitz_evidence_is_the_card_data_and_the_runs_rows(quick_page):
    """The Blitz section's table and lines, recomputed apart: each Clan's Blitz deck (its Valkyrie and Cogdrive
    cards) and the cards meeting its Emblem's Morale requirement from the card file, P(3 of 5 meet) by counting
    hands (math.comb), the wins columns the pooled tables' wins, and per policy the Blitz cells at <= 0.02 or
    >= 0.98 from the run's rows."""
    from math import comb

    from simkit.core import results
    from simkit.games.valkyrie_incident.cards import load_cards

    out, page = quick_page
    sec = page.split("### Blitz match-ups near 0 or 1", 1)[1].split("\n## ", 1)[0]
    _, rows = _md_table(sec, "Emblem")
    cards = load_cards(CARDS)
    assert len(rows) == len(cards.emblems)
    for e in cards.emblems:
        row = rows[e.key.replace("_emblem", "")]
        deck = [k for k in cards.cards if k.clan == e.clan and k.type in (0, 2)]
        typ, inc, min_str, own = e.morale
        meet = sum(1 for k in deck if (typ < 0 or k.type == typ) and (inc < 0 or k.incident == inc)
                   and k.strength >= min_str and (not own or k.clan == e.clan))
        hand = min(5, len(deck))
        p = sum(comb(meet, j) * comb(len(deck) - meet, hand - j) for j in range(3, hand + 1)) / comb(len(deck), hand)
        assert int(row["Blitz deck"]) == len(deck) and int(row["deck Strength"]) == sum(k.strength for k in deck)
        assert int(row["Emblem bonus"]) == e.bonus
        assert row["Morale cards (of the deck)"] == f"{meet} ({e.morale_text})"
        assert float(row["P(Morale Check, 5 cards)"]) == pytest.approx(p, abs=5e-4)
    match = page.split("## Emblem match-ups\n", 1)[1].split("### Blitz match-ups near 0 or 1", 1)[0]
    for label, col in (("blitz", "Blitz wins"), ("standard", "standard wins")):
        pooled = match.split(f"### {label.capitalize()}\n", 1)[1].split("Each Emblem pooled over both seats", 1)[1]
        _, prows = _md_table(pooled, "Emblem")
        assert {e: r[col] for e, r in rows.items()} == {e: r["wins"] for e, r in prows.items()}
    # the Policy line: each policy's lopsided cells, from the Blitz run's rows
    f = results.scan(out / "valkyrie-incident" / "run" / "blitz").group_by("policy", "alpha_emblem", "omega_emblem") \
        .agg(r=pl.col("alpha_win").cast(pl.Float64).mean()).collect()
    for pol in f["policy"].unique().to_list():
        cells = f.filter(pl.col("policy") == pol)["r"].to_list()
        k = sum(1 for v in cells if v <= 0.02 or v >= 0.98)
        assert f"`{pol}` {k} of {len(cells)}" in sec
    # alike decks: "a beats b from either seat" only when a wins as Alpha and b loses as Alpha, both beyond 0.5
    # (the review found "split by seat" said of raven 0.902 as Alpha and tide 0.191 as Alpha: an Emblem split)
    iv = r"([\d.]+) \[([\d.]+), ([\d.]+)\]"
    pairs = re.findall(rf"(?:(\w+) beats \w+ from either seat \(|(Alpha|Omega) wins from either side \()?(\w+) as Alpha "
                       rf"v \w+ wins {iv}, \w+ as Alpha v \w+ {iv}(?:; | \()Alpha's edge over the two orders ([+-][\d.]+)",
                       sec)
    assert pairs, sec  # the bundled stand-in data has alike decks (raven and tide)
    for win, seat, first, *nums, edge in pairs:
        a, a_lo, a_hi, o, o_lo, o_hi = (float(x) for x in nums)
        assert float(edge) == pytest.approx((a + o) / 2 - 0.5, abs=1.5e-3)
        if win:
            assert (a_lo > 0.5 and o_hi < 0.5) if first == win else (a_hi < 0.5 and o_lo > 0.5)
        elif seat:
            assert (a_lo > 0.5 and o_lo > 0.5) if seat == "Alpha" else (a_hi < 0.5 and o_hi < 0.5)
        else:  # neither claim: an interval reaches 0.5, or both point the same way without separating
            assert not (a_lo > 0.5 and o_hi < 0.5 or a_hi < 0.5 and o_lo > 0.5)
    assert "split by seat" not in sec


# --- issue 39: the page opens with one plain sentence -----------------------------------------------------------



def _check_lead(page: str, label: str, policy: str) -> str:
    """The lead is the first paragraph after the notice, one sentence of at most 45 words, and names the strongest
    and the weakest Emblem of the page's first pooled Emblem table (``label``'s games) with that table's own cells,
    each with every Emblem whose interval overlaps its own as a tie."""
    from simkit.core.report import LEAD_MARKER, LEAD_WORDS, lead_of, lead_problems, lead_words
    from simkit.core.stats import Estimate, overlapping

    paras = page.split("\n\n")
    assert paras[1].startswith("> **Stand-in card data.**") and paras[2].startswith(LEAD_MARKER)
    lead = lead_of(page)
    assert lead.endswith(".") and lead_words(lead) <= LEAD_WORDS and not re.search(r"[.!?] [A-Z]", lead[:-1]), lead
    assert not lead_problems(lead), (lead_problems(lead), lead)  # and no statistics word: those come below
    _, rows = _md_table(page.split("Each Emblem pooled over both seats", 1)[1], "Emblem")
    cells = {e: r["wins"] for e, r in rows.items()}
    est = {e: Estimate(*map(float, re.match(r"(\S+) \[(\S+), (\S+)\]", c).groups()), 1) for e, c in cells.items()}
    best = max(est, key=lambda e: est[e].estimate)
    worst = min(est, key=lambda e: est[e].estimate)
    near_b, near_w = overlapping(best, est), overlapping(worst, est)
    if best in near_w:
        assert lead.startswith(f"No Emblem stands out in {label} games: shares of games won run from "
                               f"{cells[worst]} ({worst}) to {cells[best]} ({best})"), lead
    else:
        got = re.match(rf"Strongest Emblem in {label} games: {best}(, tied with (.*?) \(intervals overlap\))?, winning "
                       rf"{re.escape(cells[best])} of its games; weakest: {worst}(, tied with (.*?) \(intervals "
                       rf"overlap\))?, {re.escape(cells[worst])} \(`{policy}` in both seats, ", lead)
        assert got, lead
        _same_tie(got.group(2), near_b)
        _same_tie(got.group(4), near_w)
    return lead


def test_the_page_opens_with_one_sentence_from_its_pooled_emblem_table(report):
    _, files, res = report
    lead = _check_lead((files[0].parent / "report.md").read_text(), "standard", "focused")
    assert lead.endswith(f"(`focused` in both seats, {res.frame.filter(pl.col('policy') == 'focused').height:,} games).")


def test_the_bundled_page_opens_with_one_sentence_on_standard_games(quick_page):
    _, page = quick_page
    policy = re.search(r"the strongest, \*\*`(\w+)`\*\* \(standard[;)]", page).group(1)  # "What was simulated"
    lead = _check_lead(page, "standard", policy)
    games = re.search(rf"\| standard +\| {policy} v {policy} +\| [^|]+\| [^|]+\| +([\d,]+) \|", page)  # Alpha or Omega
    assert lead.endswith(f"in both seats, {int(games.group(1).replace(',', '')):,} games)."), lead


def test_the_lead_names_emblems_it_cannot_tell_apart_as_a_tie():
    from simkit.games.valkyrie_incident.report import lead_sentence

    info = {"outcomes": {"ember_emblem": (583, 0, 417, 1000), "tide_emblem": (574, 0, 426, 1000),
                         "raven_emblem": (500, 0, 500, 1000), "iron_emblem": (400, 0, 600, 1000)}}
    e, t, i = wilson(583, 1000), wilson(574, 1000), wilson(400, 1000)
    iv = lambda x: f"{x.estimate:.3f} [{x.low:.3f}, {x.high:.3f}]"  # noqa: E731
    assert lead_sentence("standard", info, "focused", {"games": 2000}) == (
        f"Strongest Emblem in standard games: ember, tied with tide (intervals overlap), winning {iv(e)} of its "
        f"games; weakest: iron, {iv(i)} (`focused` in both seats, 2,000 games).")
    apart = {"outcomes": {**info["outcomes"], "tide_emblem": (480, 0, 520, 1000)}}
    assert lead_sentence("standard", apart, "focused").startswith(
        f"Strongest Emblem in standard games: ember, winning {iv(e)} of its games; weakest: iron, ")
    flat = {"outcomes": {f"{k}_emblem": (500 + j, 0, 500 - j, 1000) for j, k in enumerate("abcd")}}
    assert lead_sentence("blitz", flat, "focused").startswith("No Emblem stands out in blitz games:")
