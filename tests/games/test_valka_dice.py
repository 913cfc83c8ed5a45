"""VÁLKA Chance Strike and Test Fate: exact odds against hand counts, and Monte Carlo against exact."""

import json
from fractions import Fraction as F

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as st

from simkit.cli import cli
from simkit.core import stats
from simkit.games.valka import test_fate as tf
from simkit.games.valka.chance_strike import (
    ATTACKER_HITS, BOTH_HURT, DEFENDER_HITS, LONE_ONE_READINGS, NO_DAMAGE, ChanceStrikeRules, chance_strike,
    expected_strikes_to_defeat, outcome_distribution, resolve,
)
from simkit.games.valka.reports import chi_square_cells


# --- single rolls, by the rule text ----------------------------------------------------

@pytest.mark.parametrize("a, d, strike, shield, expected", [
    (1, 1, 9, 0, BOTH_HURT),        # "If both roll a 1, they both deal 1 damage to themselves."
    (1, 5, 20, 0, DEFENDER_HITS),   # a natural 1 fails "regardless of their equipped Buffs"
    (9, 1, 0, 20, ATTACKER_HITS),   # the defender's 1 fails to defend
    (10, 2, 0, 20, ATTACKER_HITS),  # "If either player rolls a 10, they win the combat."
    (2, 10, 20, 0, DEFENDER_HITS),
    (10, 10, 0, 0, ATTACKER_HITS),  # "If both roll a 10 … advantage goes to the attacker."
    (5, 6, 1, 0, ATTACKER_HITS),    # tie 6 = 6 goes to the attacker
    (5, 6, 0, 0, DEFENDER_HITS),    # higher total wins
])
def test_resolve_default_reading(a, d, strike, shield, expected):
    assert resolve(a, d, strike, shield, True, True) == expected


def test_options_change_single_rolls():
    assert resolve(1, 5, 3, 0, False, True) == NO_DAMAGE     # lone_one = "fails"
    assert resolve(5, 9, 0, 0, True, False) == NO_DAMAGE     # defender_deals_damage = false
    assert resolve(9, 1, 0, 0, False, False) == ATTACKER_HITS


# --- exact odds of whole cells, counted by hand over the 100 (a, d) pairs --------------

def test_strike0_shield0_by_hand():
    # both 1: 1. attacker 1 alone: 9 -> defender. defender 1 alone: 9 -> attacker.
    # attacker 10 (d = 2..10): 9 -> attacker. defender 10 (a = 2..9): 8 -> defender.
    # a, d in 2..9: 64 pairs, a >= d in 36 -> attacker, 28 -> defender.
    odds = chance_strike(0, 0)
    assert odds == {"attacker_hits": F(9 + 9 + 36, 100), "defender_hits": F(9 + 8 + 28, 100),
                    "both_hurt": F(1, 100)}


def test_strike12_shield0_by_hand():
    # the attacker wins every comparison; it loses only on its lone 1 (9) or a defender 10 with a in 2..9 (8)
    assert chance_strike(12, 0)["attacker_hits"] == F(100 - 1 - 9 - 8, 100)
    assert chance_strike(12, 0)["defender_hits"] == F(17, 100)


def test_strike0_shield12_by_hand():
    # the attacker wins only with a 10 (9, d != 1) or the defender's lone 1 (9)
    assert chance_strike(0, 12)["attacker_hits"] == F(18, 100)
    assert chance_strike(0, 12)["defender_hits"] == F(81, 100)


def test_strike3_shield5_by_hand():
    # a, d in 2..9 with a + 3 >= d + 5, i.e. a >= d + 2: for d = 2..7 there are 6,5,4,3,2,1 -> 21
    assert chance_strike(3, 5)["attacker_hits"] == F(9 + 9 + 21, 100)


def test_options_by_hand():
    fails = ChanceStrikeRules(lone_one="fails")
    # the attacker's lone 1 (9 pairs) now damages nobody
    assert chance_strike(0, 0, fails)["defender_hits"] == F(45 - 9, 100)
    block = ChanceStrikeRules(defender_deals_damage=False)
    assert chance_strike(0, 0, block)["defender_hits"] == 0
    assert chance_strike(0, 0, block)["attacker_hits"] == F(54, 100)
    # Fireblast's +3: Strike 0 + 3 against Shield 5 equals Strike 3 against Shield 5
    assert chance_strike(0 + 3, 5) == chance_strike(3, 5)


def test_distribution_sums_to_one_everywhere():
    for s in range(0, 13, 3):
        for h in range(0, 13, 4):
            for rules in (ChanceStrikeRules(), ChanceStrikeRules("fails", False)):
                assert sum(outcome_distribution(s, h, rules).values()) == 1


def test_expected_strikes_to_defeat():
    # the defender takes damage with 54/100 + 1/100 per strike; 3 Health: 3 / (55/100)
    assert expected_strikes_to_defeat(3, 0, 0) == F(300, 55)


# --- Monte Carlo against exact ----------------------------------------------------------

def _wilson999(k_over_n, n):
    k = round(k_over_n * n)
    return stats.wilson(k, n, confidence=0.999)


def test_mc_million_agrees_with_exact():
    """--mc 1000000: exact values inside 99.9% intervals for sampled cells; chi-square over all cells."""
    res = CliRunner().invoke(cli, ["odds", "chance-strike", "--strike", "0:12", "--shield", "0:12",
                                   "--mc", "1000000", "--seed", "20261129", "--jobs", "2", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert len(rows) == 169 and all(r["mc_n"] == 1_000_000 for r in rows)
    rng = np.random.default_rng(0)
    for r in rng.choice(rows, 20, replace=False):
        for k in ("attacker_hits", "defender_hits", "both_hurt"):
            e = _wilson999(r[f"{k}_mc"], r["mc_n"])
            assert e.low <= float(F(r[k])) <= e.high, (r["strike"], r["shield"], k)
    obs = []
    exact = []
    for r in rows:
        counts = [round(r[f"{k}_mc"] * r["mc_n"]) for k in ("attacker_hits", "defender_hits", "both_hurt")]
        obs.append([r["mc_n"] - sum(counts)] + counts)
        exact.append([1 - r["attacker_hits_p"] - r["defender_hits_p"] - r["both_hurt_p"],
                      r["attacker_hits_p"], r["defender_hits_p"], r["both_hurt_p"]])
    stat, dof, p = chi_square_cells(np.array(obs), np.clip(np.array(exact), 0, 1))
    assert p > 0.001, (stat, dof)


def test_chi_square_detects_a_wrong_rule():
    """The check can fail: simulated 'fails' outcomes against 'loses' exact odds are rejected."""
    from simkit.core.runner import run_simulation
    from simkit.games.valka.dice_checks import ChanceStrikeSim

    sim = ChanceStrikeSim([0, 4], [0, 4], 0, ChanceStrikeRules("fails"), aggregate=True)
    res = run_simulation(sim, 200_000, seed=1, jobs=1)
    by = {(r["metric"], tuple(r["group"].values())): r for r in res.summary}
    obs, exact = [], []
    for s in (0, 4):
        for h in (0, 4):
            c = [round(by[(k, (s, h))]["estimate"] * 200_000) for k in ("attacker_hits", "defender_hits", "both_hurt")]
            obs.append([200_000 - sum(c)] + c)
            d = outcome_distribution(s, h, ChanceStrikeRules("loses"))
            exact.append([float(d[i]) for i in range(4)])
    assert chi_square_cells(np.array(obs), np.array(exact))[2] < 1e-6


def test_simulated_run_matches_exact_per_strike_rows(tmp_path, chance_strike_scenario):
    import simkit

    res = simkit.run(chance_strike_scenario, games=20_000, seed=3, jobs=1, out=tmp_path / "r")
    f = res.frame
    # the per-strike rows reproduce the rule: recompute every outcome from the stored dice
    sample = f.head(5000)
    for row in sample.iter_rows(named=True):
        code = resolve(row["attacker_roll"], row["defender_roll"], row["strike"], row["shield"], True, True)
        assert (code == ATTACKER_HITS) == bool(row["attacker_hits"])
        assert (code == DEFENDER_HITS) == bool(row["defender_hits"])
    # the seeding contract: strike i of cell c in block b rolls on stream (i, c) of SeedSequence(seed, (b,))
    from simkit.core.rng import roll, seed_stream
    from simkit.core.seeding import block_key

    cells = [(s, h) for s in range(13) for h in range(13)]
    state = np.empty(4, np.uint64)
    for row in f.filter(f["game"] < 3).iter_rows(named=True):
        seed_stream(state, block_key(3, row["block"]), row["game"], cells.index((row["strike"], row["shield"])))
        assert (roll(state, 10), roll(state, 10)) == (row["attacker_roll"], row["defender_roll"])


# --- Test Fate ----------------------------------------------------------------------------

def test_test_fate_by_hand():
    assert tf.p_success() == F(5, 10)         # 2, 4, 6, 8, 10 of 10 faces
    assert tf.p_success(offering=True) == 1   # the offering turns the failure
    assert tf.buff_survival(3) == F(1, 8)
    # survives 3 with the offering: no failure (1/8) or exactly one failure turned (3/8)
    assert tf.buff_survival(3, offering=True) == F(4, 8)
    assert tf.rally() == F(1, 2) and tf.rally_stamina_per_fighter() == 2
    s = tf.successes(3)
    assert [s[k] for k in range(4)] == [F(1, 8), F(3, 8), F(3, 8), F(1, 8)]
    so = tf.successes(3, offering=True)
    # 0 successes becomes 1, 1 -> 2, 2 -> 3, 3 stays: P(3) = 3/8 + 1/8
    assert [so[k] for k in range(4)] == [0, F(1, 8), F(3, 8), F(4, 8)]
    assert tf.reinforcements(2)[1] == F(1, 2)


def test_test_fate_mc_matches_exact():
    from simkit.core.seeding import block_key

    counts = tf.count_successes(block_key(11, 0), 400_000, 6, True)
    exact = tf.successes(6, offering=True)
    p = np.array([float(exact[k]) for k in range(7)])
    assert counts[0] == 0  # with the offering at least one test succeeds
    keep = p > 0
    assert st.chisquare(counts[keep], p[keep] * counts.sum()).pvalue > 0.001


def test_test_fate_command_json_and_mc():
    res = CliRunner().invoke(cli, ["odds", "test-fate", "--tests", "4", "--mc", "100000", "--seed", "2",
                                   "--jobs", "1", "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    succ = data["Successes in 4 Tests of Fate"]
    assert succ[4]["with_offering"] == "5/16"  # 1/16 (no failure) + 4/16 (one failure turned)
    for r in succ[1:]:
        assert r["with_offering_low"] - 1e-9 <= r["with_offering_p"] <= r["with_offering_high"] + 0.01


# --- rule variants (icepool): another die, another good-fortune rule ------------------------------------------

def test_chance_strike_on_a_d12_by_hand():
    # Strike 3 against Shield 5, both on a d12 (12 wins, 1 fails): attacker hits when the defender rolls a lone 1
    # (11), the attacker a 12 with no defender 1 (11), or a, d in 2..11 with a >= d + 2 (8+7+...+1 = 36): 58/144
    d = chance_strike(3, 5, ChanceStrikeRules(), sides=12)
    assert d["attacker_hits"] == F(58, 144) and d["both_hurt"] == F(1, 144)
    # the d10 default is the rulebook's table
    assert chance_strike(3, 5)["attacker_hits"] == F(39, 100)


def test_chance_strike_variant_die_matches_a_direct_count():
    # every margin and reading, on a d6 and a d20: the remapped kernel against a count written out here
    for sides in (6, 20):
        for lone in LONE_ONE_READINGS:
            for dd in (True, False):
                for strike, shield in ((0, 0), (4, 1), (1, 9), (30, 0), (0, 30)):
                    counts = [0] * 4
                    for a in range(1, sides + 1):
                        for b in range(1, sides + 1):
                            if a == 1 and b == 1:
                                o = 3
                            elif a == 1:
                                o = 2 if lone == "loses" else 0
                            elif b == 1 or a == sides:
                                o = 1
                            elif b == sides:
                                o = 2
                            else:
                                o = 1 if a + strike >= b + shield else 2
                            if o == 2 and not dd:
                                o = 0
                            counts[o] += 1
                    got = outcome_distribution(strike, shield, ChanceStrikeRules(lone, dd), sides)
                    assert [got[k] for k in range(4)] == [F(c, sides * sides) for c in counts]


def test_test_fate_variants():
    # d12, good fortune on 9+: 4 faces of 12
    assert tf.p_success(sides=12, good="9+") == F(1, 3)
    assert tf.buff_survival(2, sides=12, good="9+") == F(1, 9)
    assert tf.buff_survival(2, True, sides=12, good="9+") == F(1, 9) + 2 * F(1, 3) * F(2, 3)
    # even on a d7: 2, 4, 6
    assert tf.successes(1, sides=7) == {0: F(4, 7), 1: F(3, 7)}
    res = CliRunner().invoke(cli, ["odds", "test-fate", "--die", "12", "--good-fortune", "9+", "--format", "json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["Single tests"][0]["probability"] == "1/3"
    for args in (["--good-fortune", "13+", "--die", "12"], ["--good-fortune", "odd"], ["--die", "12", "--mc", "10"]):
        res = CliRunner().invoke(cli, ["odds", "test-fate", *args])
        assert res.exit_code == 2 and res.output.count("\n") == 1, res.output


def test_chance_strike_command_die_option():
    res = CliRunner().invoke(cli, ["odds", "chance-strike", "--strike", "3", "--shield", "5", "--die", "12",
                                   "--format", "json"])
    assert res.exit_code == 0 and json.loads(res.stdout)[0]["attacker_hits"] == "29/72"
    res = CliRunner().invoke(cli, ["odds", "chance-strike", "--die", "12", "--mc", "10"])
    assert res.exit_code == 2 and "--mc" in res.output and res.output.count("\n") == 1


def test_odds_pages_open_with_the_answer():
    """The Chance Strike and Test Fate pages (and their index cards) open with the answer in numbers: between
    equals the attacker hits 27/50 (a 10 wins, ties go to the attacker, a natural 1 fails: counted over the 100
    rolls as 54), the defender 9/20, both 1/100; over Strike 0–1 × Shield 0–1 P(attacker hits) runs from 23/50
    (Strike 0, Shield 1) to 61/100 (Strike 1, Shield 0). One Test Fate is 1/2; a Buff survives six Locations'
    tests 1/64 without the offering and 7/64 with it (fail at most once: 1/64 + 6/64)."""
    from simkit.games.valka.reports import chance_strike_markdown, test_fate_markdown

    text, _ = chance_strike_markdown([0, 1], [0, 1], 2000, 1, 1, "cs.png")
    answer, details = text.split("\n\n")[1:3]
    assert answer == ("**In one sentence.** Between equals (Strike = Shield) the attacker hits 27/50 ≈ 0.540 of "
                      "Chance Strikes and the defender 9/20 ≈ 0.450; over the table, P(attacker hits) runs from "
                      "23/50 ≈ 0.460 (Strike 0 against Shield 1) to 61/100 ≈ 0.610 (Strike 1 against Shield 0).")
    assert details.startswith("**The details.** Between equals both are hurt 1/100 ≈ 0.010")
    # over Strike 0–9 × Shield 0–9 the floor 9/50 is reached at every cell with Shield 8 or more above Strike and
    # nowhere else (the review found the page naming only Strike 0 against Shield 8)
    text, _ = chance_strike_markdown(list(range(10)), list(range(10)), 2000, 1, 1, "cs.png")
    assert "P(attacker hits) runs from 9/50 ≈ 0.180 (Shield 8 or more above Strike)" in text.split("\n\n")[1]
    text, _ = test_fate_markdown(6, 8, 4, 2000, 1, 1, "tf.png")
    answer = text.split("\n\n")[1]
    assert answer == ("**In one sentence.** One Test Fate succeeds 1/2 ≈ 0.500; a Buff survives the Test Fates of 6 "
                      "Locations 1/64 ≈ 0.016 without the 20-Krone offering and 7/64 ≈ 0.109 with it (exact).")
