"""The exact Valhalla Solo battle solver: hand-computed battles, and the engine played by the solver's optimal table
and by a heuristic against the solver's exact values."""

import json
from fractions import Fraction as F

import pytest
from click.testing import CliRunner

from simkit.cli import cli
from simkit.core.stats import wilson
from simkit.errors import InputError
from simkit.games.valhalla.deck import load_deck
from simkit.games.valhalla.solo import policies as pol
from simkit.games.valhalla.solo.battle import BattleSolver, TooLarge, play, position

DECK = load_deck()
POLICIES = {n: (pol.SEARCH_KINDS[pol.PRESETS[n][0]], pol.param_vector(pol.PRESETS[n][1])) for n in ("builder",)}
# the bundled die: axe, sword, hammer, spear, bow, wild; a Warrior needing one axe takes an axe or the ⊗: 2 faces
MISS = F(4, 6)


def solver(team, hand=(), card=1, **kw):
    s, env = position(DECK, team, hand, "troll", card, **kw)
    return BattleSolver(s, env, POLICIES)


def test_one_axe_warrior_with_basic_rerolls_by_hand():
    # Troll card 4 is strength 18 with "no rerolls"; Glory 17 + the Raven Thrall's 1 (needs an axe) = 18.
    # Powers off: each basic reroll discards a die and rerolls the rest, 6 + 5 + 4 + 3 + 2 + 1 = 21 dice in all
    b = solver(["raven_thrall"], card=4, glory=17, monster_powers=False)
    assert b.value() == 1 - MISS**21
    # "no rerolls" on: one roll of 6 dice
    b = solver(["raven_thrall"], card=4, glory=17)
    assert b.value() == 1 - MISS**6 == F(665, 729)
    # a Jarl's free reroll (Solveig, 1) with basic rerolls barred: the 6 dice, then all 6 again
    b = solver(["raven_thrall"], card=4, glory=17, jarl="solveig")
    assert b.value() == 1 - MISS**12
    # one Glory short: no roll wins
    assert solver(["raven_thrall"], card=4, glory=16).value() == 0


def test_silence_is_chosen_when_it_lifts_the_no_reroll_power():
    b = solver(["raven_thrall"], ["seers_silence"], card=4, glory=17)
    assert b.silence_choice() is True
    assert b.value() == 1 - MISS**21
    assert b.start(None, silence=False) == 1 - MISS**6


def test_optimum_bounds_the_policies_and_the_budget_refuses():
    b = solver(["raven_hunter", "frost_champion"], ["battle_fury", "second_wind"], card=2, glory=2, jarl="solveig")
    opt, builder = b.value(), b.value("builder")
    assert 0 < builder <= opt < 1
    s, env = position(DECK, ["raven_hunter", "frost_champion"], ["second_wind"], "troll", 2, jarl="solveig")
    with pytest.raises(TooLarge):
        BattleSolver(s, env, max_states=50).value()


@pytest.mark.parametrize("team, hand, kw", [
    # Weapon Delivery, a strength Tactic, Hödr's extra die, an Ice Giant (rime giant: extra die, ≠ dice)
    (["rime_giant", "raven_hunter"], ["weapon_delivery_axe", "shield_wall"], {"jarl": "hodr"}),
    # a defence (one more than the monster's strength) with a "smaller team" Tactic
    (["boar_rider", "boar_champion"], ["ambush"], {"attacking": False}),
])
def test_engine_played_by_the_optimal_table_and_by_builder_matches_the_exact_values(team, hand, kw):
    b = solver(team, hand, **kw)
    n = 6000
    for who in (None, "builder"):
        p = float(b.value(who))
        est = wilson(play(b, n, 11, who), n)
        # 4.5 standard errors: a false alarm about once in 150,000 runs
        assert abs(est.estimate - p) <= 4.5 * (p * (1 - p) / n) ** 0.5 + 1e-9, (who, est, p)


def test_bad_positions_are_input_errors():
    for team, hand, option in ((["nope"], [], "--team"), (["battle_fury"], [], "--team"),
                               (["raven_thrall"], ["raven_scout"], "--hand"),
                               (["raven_thrall"] * 5, [], "--team")):
        with pytest.raises(InputError, match=option):
            position(DECK, team, hand, "troll")
    with pytest.raises(InputError, match="--card"):
        position(DECK, ["raven_thrall"], [], "troll", 9)


def test_valhalla_battle_command_refuses_a_battle_too_large(monkeypatch, tmp_path):
    from simkit.games.valhalla.solo import battle

    monkeypatch.setattr(battle, "MAX_STATES", 50)
    res = CliRunner().invoke(cli, ["odds", "valhalla-battle", "--team", "raven_hunter,frost_champion", "--hand",
                                   "second_wind", "--jarl", "solveig", "--out", str(tmp_path / "never.md")])
    assert res.exit_code == 2 and "too large" in res.output and res.output.count("\n") == 1, res.output
    assert not (tmp_path / "never.md").exists()  # nothing half-written


def test_valhalla_battle_command():
    res = CliRunner().invoke(cli, ["odds", "valhalla-battle", "--team", "raven_thrall", "--card", "4", "--glory",
                                   "17", "--format", "json", "--mc", "2000", "--seed", "3"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    opt = data["plays"][0]
    assert opt["play"] == "optimal" and opt["win"] == "665/729"
    assert opt["win_low"] <= 665 / 729 <= opt["win_high"] and opt["mc_n"] == 2000
    assert data["first_rolls"][0]["optimal"] in ("stop", "(no choice)")
    res = CliRunner().invoke(cli, ["odds", "valhalla-battle", "--team", "nope"])
    assert res.exit_code == 2 and "--team" in res.output and res.output.count("\n") == 1
    res = CliRunner().invoke(cli, ["odds", "valhalla-battle", "--team", "raven_thrall", "--policies", "search"])
    assert res.exit_code == 2 and "--policies" in res.output
