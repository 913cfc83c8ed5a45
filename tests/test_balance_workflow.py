"""The balance workflow: --set overrides, compare on common random numbers, sweep, and the check gate."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from simkit.cli import cli
from simkit.core import compare as cmp
from simkit.core import loader
from simkit.core.overrides import parse_set
from simkit.core.runner import run_simulation
from simkit.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
LQ = ROOT / "scenarios" / "valka" / "lonequest.toml"


def small_lonequest(tmp_path, cards=None):
    """Two Warbands × one policy, 200-game blocks, on the bundled cards (or a copy)."""
    cards = cards or ROOT / "scenarios" / "valka" / "cards.toml"
    p = tmp_path / "lq.toml"
    p.write_text(f'game = "valka"\nmode = "lonequest"\ncards = "{cards}"\nwarbands = ["goblins", "knights"]\n'
                 'play = ["cautious"]\n[run]\ngames = 1000\nblock_size = 200\n')
    return p


# --- --set -------------------------------------------------------------------------------------------

def test_set_reaches_scenario_and_card_values():
    sc = loader.load(LQ, ["fighters.old_gob.health=4", "rules.strong_enuf=each", "setup.krone=30"])
    sim = sc.simulation
    assert next(f for f in sim.cards.fighters if f.key == "old_gob").health == 4
    assert sim.rule_options["strong_enuf"] == "each" and sim.rule_options["krone"] == 30
    assert sc.overrides == ["fighters.old_gob.health=4", "rules.strong_enuf=each", "setup.krone=30"]
    assert sc.sha256 != loader.load(LQ).sha256
    assert loader.load(LQ).simulation.cards.fighters[10].health == 3  # the file itself is untouched


@pytest.mark.parametrize("text, needles", [
    ("fighters.old_gob.helth=4", ["fighters.old_gob.helth", "did you mean 'fighters.old_gob.health'"]),
    ("fighter.old_gob.health=4", ["'fighter'", "did you mean 'fighters'"]),
    ("fighters.old_gobb.health=4", ["fighters.old_gobb", "'fighters.old_gob'"]),
    ("fighters.old_gob.health", ["path=value"]),
])
def test_a_wrong_path_names_the_nearest_valid_ones(text, needles):
    with pytest.raises(InputError) as err:
        loader.load(LQ, [text])
    for n in needles:
        assert n in str(err.value), (n, str(err.value))


def test_set_values_are_still_validated():
    with pytest.raises(InputError, match="fighters.old_gob.health' must be at least 1"):
        loader.load(LQ, ["fighters.old_gob.health=0"])
    assert parse_set("a.b=[1, 2]").value == [1, 2] and parse_set("a=word").value == "word"


# --- compare -------------------------------------------------------------------------------------------

def _paired(tmp_path, sets, games=1000, **kw):
    a = loader.load(small_lonequest(tmp_path)).simulation
    b = loader.load(small_lonequest(tmp_path), sets).simulation
    sim = cmp.PairedSim(a, b, ["win_rate"])
    res = run_simulation(sim, games, seed=9, jobs=1, block_size=200, **kw)
    return {(r.metric, r.group): r for r in cmp.rows_from(res.accumulator)}, res


def test_compare_no_change_is_exactly_zero(tmp_path):
    rows, _ = _paired(tmp_path, ["rules.step_cap=4999"])
    for r in rows.values():
        # no game changed: the estimate is exactly 0 and p is 1; the score interval for the true difference
        # keeps a small width (no discordant game in n does not prove a zero difference)
        assert r.d == 0 and r.p_value == 1.0 and not r.significant
        assert r.d_low < 0 < r.d_high and r.d_high - r.d_low < 0.01


def test_compare_pairs_games_and_matches_two_separate_runs(tmp_path):
    rows, _ = _paired(tmp_path, ["fighters.old_gob.health=1"])
    a = run_simulation(loader.load(small_lonequest(tmp_path)).simulation, 1000, seed=9, jobs=1, block_size=200)
    b = run_simulation(loader.load(small_lonequest(tmp_path), ["fighters.old_gob.health=1"]).simulation, 1000,
                       seed=9, jobs=1, block_size=200)
    est = {(r["metric"], tuple(r["group"].values())): r["estimate"] for r in a.summary}
    est_b = {(r["metric"], tuple(r["group"].values())): r["estimate"] for r in b.summary}
    g = rows[("win_rate", "warband=goblins, policy=cautious")]
    assert g.a == pytest.approx(est[("win_rate", ("goblins", "cautious"))])
    assert g.b == pytest.approx(est_b[("win_rate", ("goblins", "cautious"))])
    # a weaker Old Gob costs the Goblins games: significant, and the paired interval is narrower than unpaired
    assert g.d < 0 and g.d_high < 0 and g.significant
    assert g.efficiency < 1
    assert ("win_rate", "all") in rows


def test_compare_precision_stops_early_and_deterministically(tmp_path):
    r1, res1 = _paired(tmp_path, ["fighters.old_gob.health=1"], games=20_000, stop_when=cmp.precision_rule(0.03),
                       max_games=20_000, min_games=400)
    r2, res2 = _paired(tmp_path, ["fighters.old_gob.health=1"], games=20_000, stop_when=cmp.precision_rule(0.03),
                       max_games=20_000, min_games=400)
    assert res1.games == res2.games < 20_000
    assert all((r.d_high - r.d_low) / 2 <= 0.03 for r in r1.values())


def test_sprt_decides_both_ways(tmp_path):
    test = cmp.SPRT("win_rate", delta=0.02)
    _, res = _paired(tmp_path, ["fighters.old_gob.health=1"], games=50_000, stop_when=test, max_games=50_000,
                     min_games=400)
    assert test.decision.startswith("moved") and res.games < 50_000
    same = cmp.SPRT("win_rate", delta=0.02)
    _, res = _paired(tmp_path, ["rules.step_cap=4999"], games=50_000, stop_when=same, max_games=50_000,
                     min_games=400)
    # no game changed: the variance floor still lets it decide, after enough games for the bounds
    assert same.decision.startswith("did not move") and res.games == 400


def test_compare_command(tmp_path):
    p = small_lonequest(tmp_path)
    res = CliRunner().invoke(cli, ["compare", str(p), "--set", "fighters.old_gob.health=1", "--metric", "win_rate",
                                   "--games", "600", "--seed", "2", "--jobs", "1", "-q", "--out", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    assert "Significant change" in res.stdout and "paired design needs" in res.stdout
    data = json.loads((tmp_path / "c" / "compare.json").read_text())
    assert data["set"] == ["fighters.old_gob.health=1"] and data["games"] == 600
    bad = CliRunner().invoke(cli, ["compare", str(p), "--set", "play=[\"random\"]", "--games", "200", "-q"])
    assert bad.exit_code == 2 and "same cells" in bad.stderr


# --- sweep ---------------------------------------------------------------------------------------------

def test_sweep_writes_table_and_plot(tmp_path):
    p = small_lonequest(tmp_path)
    res = CliRunner().invoke(cli, ["sweep", str(p), "--set", "fighters.old_gob.health=1:3", "--metric", "win_rate",
                                   "--where", "warband=goblins", "--games", "400", "--seed", "5", "--jobs", "1",
                                   "-q", "--out", str(tmp_path / "sw"), "--format", "csv"])
    assert res.exit_code == 0, res.output
    import csv

    rows = list(csv.DictReader((tmp_path / "sw" / "sweep.csv").open()))
    assert [r["fighters.old_gob.health"] for r in rows] == ["1", "2", "3"]
    assert all(r["group"] == "warband=goblins, policy=cautious" for r in rows)
    est = [float(r["estimate"]) for r in rows]
    assert est[0] < est[2]  # a tougher Old Gob wins the Goblins more games
    import matplotlib.image as mpimg

    assert mpimg.imread(tmp_path / "sw" / "sweep.png").shape[0] > 200
    bad = CliRunner().invoke(cli, ["sweep", str(p), "--set", "fighters.old_gob.health=5:1"])
    assert bad.exit_code == 2 and "--set" in bad.stderr


# --- check ---------------------------------------------------------------------------------------------

def _baseline(tmp_path, cards):
    p = small_lonequest(tmp_path, cards)
    base = tmp_path / "baseline"
    res = CliRunner().invoke(cli, ["baseline", "small", str(p), "--games", "600", "--seed", "4", "--jobs", "1",
                                   "--baselines", str(base)])
    assert res.exit_code == 0, res.output
    return base


def test_check_passes_unchanged_and_with_other_jobs(tmp_path):
    cards = tmp_path / "cards.toml"
    shutil.copy(ROOT / "scenarios" / "valka" / "cards.toml", cards)
    base = _baseline(tmp_path, cards)
    for jobs in ("1", "2"):
        res = CliRunner().invoke(cli, ["check", "--baselines", str(base), "--jobs", jobs])
        assert res.exit_code == 0, res.output
        assert "check passed" in res.stderr


def test_check_fails_when_a_card_stat_changes(tmp_path):
    cards = tmp_path / "cards.toml"
    shutil.copy(ROOT / "scenarios" / "valka" / "cards.toml", cards)
    base = _baseline(tmp_path, cards)
    # every Goblin becomes much weaker (Strike 0): the Goblins' win rate collapses
    import re

    text = cards.read_text()
    text = re.sub(r'(warband = "goblins",\s+infamy = \d+, )strike = \d+', r"\1strike = 0", text)
    cards.write_text(text)
    res = CliRunner().invoke(cli, ["check", "--baselines", str(base), "--jobs", "1"])
    assert res.exit_code == 1, res.output
    assert "FAIL" in res.stdout and "goblins" in res.stdout and "check FAILED" in res.stderr
    upd = CliRunner().invoke(cli, ["check", "--baselines", str(base), "--jobs", "1", "--update"])
    assert upd.exit_code == 0
    assert CliRunner().invoke(cli, ["check", "--baselines", str(base), "--jobs", "1"]).exit_code == 0


def test_check_verdict_needs_significance_and_tolerance():
    from simkit.core.check import Number, Tolerance, Tolerances, judge

    def num(diff, p):
        return Number("m", "all", "rate", 10000, 0.5, 0.5 + diff, diff, diff - 0.01, diff + 0.01, p)

    tol = Tolerances(Tolerance(0.02))
    assert judge([num(0.015, 1e-9)], 0.01, tol)[0].status == "ok"      # significant but within tolerance
    assert judge([num(0.10, 1e-9)], 0.01, tol)[0].status == "FAIL"
    assert judge([num(0.10, 0.02)], 0.01, tol)[0].status == "ok"       # large but not significant
    # Holm over 3 numbers: 0.004 * 3 > 0.01
    three = judge([num(0.10, 0.004), num(0.0, 0.5), num(0.0, 0.6)], 0.01, tol)
    assert three[0].p_holm == pytest.approx(0.012) and three[0].status == "ok"
    # a relative tolerance is a share of the metric's scale (its mean old value over the groups)
    rel = Tolerances(Tolerance(0.02), Tolerance(0.05, True))
    means = [Number("turns", f"g{i}", "mean", 100, v, v, 0.0, 0.0, 0.0, 1.0) for i, v in enumerate((10.0, 30.0))]
    assert [x.tolerance for x in judge(means, 0.01, rel)] == [pytest.approx(1.0), pytest.approx(1.0)]


# --- every registered simulator ----------------------------------------------------------------------------

def _modes():
    from simkit.core import registry

    return [(g.name, m.name, m.default_scenario) for g, m in registry.all_modes() if m.default_scenario]


@pytest.mark.parametrize("game, mode, scenario", _modes())
def test_compare_and_check_work_on_every_registered_mode(tmp_path, game, mode, scenario):
    """A change that does nothing compares as exactly zero, and a baseline re-checks as passed, for every mode."""
    path = ROOT / "scenarios" / scenario
    a = loader.load(path).simulation
    b = loader.load(path, ['description="a no-op change"']).simulation
    res = run_simulation(cmp.PairedSim(a, b), 20, seed=3, jobs=1, block_size=20)
    rows = cmp.rows_from(res.accumulator, cmp.PairedSim(a, b).kinds)
    assert rows and all(r.d == 0 and not r.significant for r in rows)
    sw = CliRunner().invoke(cli, ["sweep", str(path), "--set", "description=one,two", "--games", "20", "--seed", "1",
                                  "--jobs", "1", "-q", "--out", str(tmp_path / "sweep")])
    assert sw.exit_code == 0, sw.output
    from simkit.core import check as ck

    f = tmp_path / "base" / f"{mode}.json"
    ck.record(f, str(path), [], 5, 20, 10, 0.01, 0.8, 0.35, ck.Tolerances(), ROOT, jobs=1)
    for jobs in (1, 2):
        numbers = ck.run_check(ck.load_baseline(f), ROOT, jobs=jobs)
        assert numbers and all(x.status == "ok" and x.diff == 0 and x.p_value == 1.0 for x in numbers)


def test_sweep_two_axes_and_several_metrics(tmp_path):
    p = small_lonequest(tmp_path)
    res = CliRunner().invoke(cli, ["sweep", str(p), "--set", "fighters.old_gob.health=2,4", "--set",
                                   "setup.krone=0:20:20", "--metric", "win_rate", "--metric", "turns", "--where",
                                   "warband=goblins", "--games", "200", "--seed", "5", "--jobs", "1", "-q",
                                   "--out", str(tmp_path / "sw2"), "--format", "csv"])
    assert res.exit_code == 0, res.output
    import csv

    rows = list(csv.DictReader((tmp_path / "sw2" / "sweep.csv").open()))
    assert len(rows) == 2 * 2 * 2  # 2 x 2 points, 2 metrics, one group
    assert {r["metric"] for r in rows} == {"win_rate", "turns"}
    assert (tmp_path / "sw2" / "sweep-win_rate.png").exists() and (tmp_path / "sw2" / "sweep-turns.png").exists()


def test_check_all_prints_old_new_difference_and_verdict(tmp_path):
    cards = tmp_path / "cards.toml"
    shutil.copy(ROOT / "scenarios" / "valka" / "cards.toml", cards)
    base = _baseline(tmp_path, cards)
    res = CliRunner().invoke(cli, ["check", "--baselines", str(base), "--jobs", "1", "--all", "--format", "csv"])
    assert res.exit_code == 0
    header = res.stdout.splitlines()[0].split(",")
    assert {"old", "new", "new − old [95%]", "p", "p (Holm)", "tolerance", "verdict"} <= set(header)


def test_sprt_on_the_real_engine_keeps_beta(tmp_path):
    """The issue's case through the real engine: Chance Strike 5 vs 5, B with Fireblast-like bonus 1 (true change
    +0.07 in P(attacker hits)), delta 0.07, 10-game blocks. The old test said "no change" in 29% of seeds (zero
    discordant games in the first blocks); now "moved" in at least 1 − beta − MC tolerance of them, and the
    confidence sequence at the stop covers the truth."""
    from fractions import Fraction

    from simkit.games.valka.chance_strike import chance_strike

    p = tmp_path / "cs55.toml"
    p.write_text('game = "valka"\nmode = "chance-strike"\n[grid]\nstrike = "5"\nshield = "5"\n')
    truth = float(Fraction(chance_strike(6, 5)["attacker_hits"]) - Fraction(chance_strike(5, 5)["attacker_hits"]))
    assert abs(truth - 0.07) < 0.005
    r, moved, covered = 60, 0, 0
    for seed in range(r):
        test = cmp.SPRT("attacker_hits", delta=0.07)
        sim = cmp.PairedSim(loader.load(p).simulation, loader.load(p, ["grid.bonus=1"]).simulation, ["attacker_hits"])
        run_simulation(sim, 20_000, seed=seed, jobs=1, block_size=10, stop_when=test, max_games=20_000, min_games=20)
        moved += test.decision.startswith("moved")
        _, lo, hi = test.interval()
        covered += lo <= truth <= hi
    assert moved / r >= 0.9 - 3 * (0.9 * 0.1 / r) ** 0.5, moved / r
    assert covered / r >= 0.95 - 3 * (0.95 * 0.05 / r) ** 0.5, covered / r
