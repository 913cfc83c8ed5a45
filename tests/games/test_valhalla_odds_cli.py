"""``simkit odds valhalla-monster``: JSON against the exact chain and a hand count, errors, Monte Carlo."""

import json
import math
import re
from fractions import Fraction as F

from click.testing import CliRunner

from simkit.cli import cli
from simkit.core.report import STAND_IN_NOTICE
from simkit.games.valhalla.cards import load_cards
from simkit.games.valhalla.monster_dice import attack_by_turn


def _run(*args):
    return CliRunner().invoke(cli, ["odds", "valhalla-monster", *args])


def test_json_first_turn_matches_chain_and_hand_count():
    res = _run("--monster", "troll", "--card", "1", "--format", "json", "--turns", "3")
    assert res.exit_code == 0, res.stderr
    rows = json.loads(res.stdout)
    assert len(rows) == 1
    row = rows[0]
    assert (row["monster"], row["side"], row["card"], row["weapons"]) == ("troll", "base", 1, ["hammer", "hammer"])
    assert len(row["attack_by_turn"]) == len(row["attack_by_turn_p"]) == 3
    die, monsters = load_cards()
    first = F(row["attack_by_turn"][0])
    assert first == attack_by_turn(monsters["troll"].cards_base[0].weapons, die, 3)[0]
    # Troll card 1 needs hammer, hammer; the die has one hammer face of six. Turn 1 rolls all 6 dice:
    # 6^6 = 46656 equally likely rolls; no hammer: 5^6 = 15625; exactly one hammer: 6 positions * 5^5 = 18750;
    # the attack needs 2+ hammers: 46656 - 15625 - 18750 = 12281 rolls.
    assert first == F(46656 - 15625 - 18750, 46656) == F(12281, 46656)
    assert math.isclose(row["attack_by_turn_p"][0], 12281 / 46656)
    assert F(row["expected_turns"]) > 1 and "attack_by_turn_mc" not in row


def test_unknown_monster_is_one_line_exit_2():
    res = _run("--monster", "kraken")
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "--monster" in lines[0] and "troll" in lines[0] and "kraken" in lines[0]
    assert res.stdout == ""


def test_unknown_card_index_is_one_line_exit_2():
    res = _run("--monster", "dragon", "--card", "9")
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "--card" in lines[0] and "1..5" in lines[0]


def test_single_card_table_has_per_turn_rows():
    res = _run("--monster", "serpent", "--card", "2", "--turns", "4", "--format", "md")
    assert res.exit_code == 0, res.stderr
    cell = lambda v: re.search(rf"\|\s*{v}\s*\|", res.stdout)  # noqa: E731 (tabulate pads the cells)
    assert cell("Turn") and cell(4) and not cell(5)


def test_monte_carlo_agrees_with_exact_turn_one():
    n = 20_000
    res = _run("--monster", "troll", "--card", "1", "--mc", str(n), "--seed", "1", "--jobs", "1",
               "--format", "json", "--turns", "3")
    assert res.exit_code == 0, res.stderr
    row = json.loads(res.stdout)[0]
    assert row["mc_n"] == n
    assert len(row["attack_by_turn_mc"]) == len(row["attack_by_turn_low"]) == len(row["attack_by_turn_high"]) == 3
    exact = float(F(row["attack_by_turn"][0]))
    est, low, high = row["attack_by_turn_mc"][0], row["attack_by_turn_low"][0], row["attack_by_turn_high"][0]
    assert low <= est <= high
    se = math.sqrt(exact * (1 - exact) / n)
    assert abs(est - exact) <= 4 * se


def test_bundled_report(tmp_path):
    from simkit.games.valhalla.reports import bundled_reports

    files = bundled_reports(tmp_path, quick=True, jobs=1)
    assert [f.name for f in files] == ["valhalla-monster.md", "valhalla-monster.png"]
    text = files[0].read_text()
    assert text.split("\n\n")[1] == STAND_IN_NOTICE
    assert "If all of the weapons on the card are filled, the monster attacks" in text
    assert "exact values lie inside their 95% interval" in text
    assert files[1].stat().st_size > 1000
    # the answer first (the index card shows it): the expected monster phases to an attack, fastest and slowest;
    # the dragon's first card needs one sword of 6 dice, rolled until it shows: 1 / (1 − (5/6)^6) ≈ 1.504
    answer = text.split("\n\n")[2]
    assert answer.startswith("**In one sentence.** From an empty card the monster attacks after 1.50 monster phases")
    assert "(dragon base card 1, sword)" in answer and "first cards: troll 2.51, dragon 1.50, serpent 2.51" in answer


def test_bundled_page_calls_the_per_turn_odds_a_renewal_rate(tmp_path):
    """P(attack on turn t) counts every attack, not the first (the card fills again after one): a card's turns add
    up to more than 1 (the dragon's one-sword card attacks on 2/3 of its turns), and the page must say so."""
    from simkit.games.valhalla.reports import bundled_reports

    text = bundled_reports(tmp_path, quick=True, jobs=1)[0].read_text()
    sword = [float(p) for p in re.findall(r"\| dragon +\| base +\|      1 \|.*?\|.*?\|.*?\|(.*)\|$", text, re.M)[0]
             .split("|")]
    assert sum(sword) > 1  # five turns of one card: no distribution of a first attack
    caption = text.split("![P(attack on turn t)]", 1)[0].rsplit("\n\n", 2)[-2]
    assert "**renewal rate**" in caption and "add up to its expected number of attacks in 20 turns, not to 1" \
        in caption


def test_monster_monte_carlo_intervals_hold_their_coverage():
    """The coverage question behind the page's count of misses: over 20 seeds the exact per-turn values lie
    outside their Wilson 95% intervals at the nominal 5% (the seed as the unit of the interval on that rate),
    and each seed's count of misses is a recount of its own intervals."""
    from simkit.games.valhalla import cards as cards_mod
    from simkit.games.valhalla.odds_cli import SIDES, mc_cells, monster_rows, run_mc, select_cards
    from simkit.games.valhalla.reports import coverage_check, coverage_note, misses

    die, monsters = cards_mod.load_cards(cards_mod.default_cards_path())
    firsts = {s: [c for c in select_cards(monsters, None, s, None) if c[2] == 1] for s in SIDES}
    cells = [c for s in SIDES for c in mc_cells(firsts[s], s)]
    cov = coverage_check(cells, firsts, die, 20, False, 20_000, 500, 1, 20)
    assert cov["intervals"] == [120] * 20
    e = cov["rate"]
    assert e.low <= 0.05 <= e.high and 0.02 < e.estimate < 0.08
    est, _ = run_mc(cells, die, 20, False, 20_000, 503, 1)
    detail = [r for s in SIDES for r in monster_rows(firsts[s], die, s, 20, False, est)]
    assert cov["misses"][2] == misses(detail)
    most = max(cov["misses"])
    note = coverage_note(cov, 120 - most, 120)  # a page whose seed missed as often as the worst replicate
    as_many = sum(1 for m in cov["misses"] if m >= most)
    assert f"in {sum(cov['misses']):,} of 2,400 intervals" in note
    assert f"{as_many} of the 20 seeds missed {most} or more" in note
    assert "neither the Monte Carlo n nor the Wilson interval is wrong" in note


def test_monster_plot_legend_clears_the_x_axis_label(tmp_path, monkeypatch):
    """The legend under the plot never covers the x-axis label (issue 19: it did with all 24 cards' curves)."""
    import simkit.core.plotting as plotting
    from simkit.games.valhalla import cards as cards_mod
    from simkit.games.valhalla.odds_cli import SIDES, monster_plot, monster_rows, select_cards

    seen = {}
    real = plotting._save

    def keep(fig, path):
        fig.canvas.draw()
        ax = fig.axes[0]
        seen["label"] = ax.xaxis.label.get_window_extent()
        seen["ticks"] = ax.xaxis.get_tightbbox()
        seen["legend"] = ax.get_legend().get_window_extent()
        return real(fig, path)

    monkeypatch.setattr(plotting, "_save", keep)
    die, monsters = cards_mod.load_cards(cards_mod.default_cards_path())
    rows = [r for s in SIDES for r in monster_rows(select_cards(monsters, None, s, None), die, s, 20)]
    monster_plot(tmp_path / "m.png", rows)
    assert seen["legend"].y1 < seen["label"].y0 and seen["legend"].y1 < seen["ticks"].y0
