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


# --- issue 38: a battle is sized before the solver starts ----------------------------------------------------------

TESTER_TEAM = "raven_hunter,frost_champion,wolf_champion,boar_champion"
TESTER_HAND = "battle_fury,second_wind,shield_wall,spear_charge,odins_wrath,norns_favour"


def test_a_huge_battle_is_refused_from_its_bound_before_the_solver_starts(monkeypatch, tmp_path):
    from simkit.games.valhalla import battle_cli
    from simkit.games.valhalla.solo import battle

    def never(*a, **k):
        raise AssertionError("the solver was started for a battle its bound refuses")

    monkeypatch.setattr(battle, "BattleSolver", never)
    out = tmp_path / "never.md"
    res = CliRunner().invoke(cli, ["odds", "valhalla-battle", "--team", TESTER_TEAM, "--hand", TESTER_HAND, "--dice",
                                   "8", "--out", str(out)])
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code == 2 and res.stdout == "", res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.output, res.stderr
    for needle in ("--team/--hand/--dice", "too large to solve exactly", "1,691,289,600 solver states",
                   f"over the limit of {battle_cli.MAX_WORK:,}", "--max-work"):
        assert needle in lines[0], (needle, lines[0])
    assert not out.exists()
    # a small battle is refused as soon as the limit is under its bound, and names the option
    res = CliRunner().invoke(cli, ["odds", "valhalla-battle", "--team", "raven_thrall", "--max-work", "1000"])
    assert res.exit_code == 2 and "--max-work" in res.stderr and res.stderr.count("\n") == 1, res.output
    assert "--max-work" in CliRunner().invoke(cli, ["odds", "valhalla-battle", "--help"]).output


@pytest.mark.parametrize("team, hand, kw", [
    (["raven_thrall"], [], {"card": 4, "glory": 17}),
    (["raven_thrall"], ["seers_silence"], {"card": 4, "glory": 17}),
    (["raven_thrall"], [], {"card": 4, "glory": 17, "monster_powers": False}),
    (["raven_thrall"], [], {"card": 4, "glory": 17, "jarl": "solveig"}),
])
def test_the_bound_is_an_upper_bound_on_the_states_solved(team, hand, kw):
    from simkit.games.valhalla.battle_cli import state_bound

    b = solver(team, hand, **kw)
    b.value(), b.value("builder")
    assert len(b._v) <= state_bound(b.s0, b.env, 1 + len(POLICIES))
    assert len(b._v) > 0 or kw.get("monster_powers", True)  # "no rerolls" leaves no decision; without it, many


def test_the_readme_battle_fits_the_default_bound():
    from simkit.games.valhalla.battle_cli import MAX_WORK, state_bound

    s, env = position(DECK, ["raven_hunter", "frost_champion"], ["battle_fury", "second_wind"], "troll", 2, glory=2,
                      jarl="solveig")
    assert state_bound(s, env, 3) <= MAX_WORK
