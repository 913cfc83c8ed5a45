"""The VÁLKA combat rules shared by the multiplayer engine and the Lonequest (``simkit.games.valka.combat``):
hand-computed cases for each rule, the exact Fireblast odds counted by hand, and both engines on hand-built
positions."""

import inspect

import numpy as np
import pytest

from simkit.games.valka import combat as C
from simkit.games.valka.chance_strike import ATTACKER_HITS, BOTH_HURT, DEFENDER_HITS, NO_DAMAGE
from simkit.games.valka.lonequest import engine as LE
from simkit.games.valka.multiplayer import engine as ME
from simkit.games.valka.multiplayer import layout as ML


def test_total_scores_add_the_buff_and_a_boons_plus_one():
    assert C.score(3, 2, False) == 5
    assert C.score(3, 0, True) == 4   # Goblins' Raging Raiders / Knights' Valiant Courage: +1
    assert C.score(3, 2, True) == 6


def test_the_old_gob_is_slain_by_the_fifth_damage():
    # "a Base Health of 3 ... +2 Buff to Health ... combined Health score of 5 ... The fifth time The Old Gob
    # would be dealt Damage The Old Gob has been slain"
    health = C.score(3, 2, False)
    assert [C.is_defeated(health, d) for d in range(1, 6)] == [False, False, False, False, True]
    assert C.health_left(health, 4) == 1


@pytest.mark.parametrize("kind, strike, shield, left, team, only, anyc, allowed", [
    (C.TRUE, 4, 3, 2, -1, False, False, True),      # Strike exceeds Shield
    (C.TRUE, 3, 3, 2, -1, False, False, False),     # equal does not exceed
    (C.TRUE, 9, 3, 2, -1, True, False, False),      # Nature's Wrath: only Chance Strikes
    (C.CHANCE, 3, 3, 2, -1, False, False, True),    # "If you can't land a True ... take a Chance Strike"
    (C.CHANCE, 4, 3, 2, -1, False, False, False),
    (C.CHANCE, 4, 3, 2, -1, False, True, True),     # rule option chance_strike = "any"
    (C.CHANCE, 9, 3, 2, -1, True, False, True),
    (C.RECKLESS, 0, 9, 1, -1, False, False, True),  # "If a Fighter has only 1 Health"
    (C.RECKLESS, 0, 9, 2, -1, False, False, False),
    (C.RECKLESS, 0, 9, 1, -1, True, False, False),
    (C.TEAM, 2, 4, 2, 5, False, False, True),       # together they overpower the foe
    (C.TEAM, 2, 4, 2, 4, False, False, False),
    (C.TEAM, 5, 4, 2, 9, False, False, False),      # it could land a True Strike alone
    (C.TEAM, 0, 4, 2, 5, True, False, False),
])
def test_which_strikes_are_allowed(kind, strike, shield, left, team, only, anyc, allowed):
    assert C.may_strike(kind, strike, shield, left, team, only, anyc) == allowed


def lanes(*strikes):
    p = 0
    for k, v in enumerate(strikes):
        p = C.team_lane(p, k, v)
    return p


def test_team_pick_takes_the_fewest_then_the_weakest():
    # lead 2 against Shield 4: one more Fighter of Strike 3 is enough (2 + 3 = 5 > 4); 2 + 2 = 4 is not
    assert C.team_pick(2, lanes(1, 3, 2), 3, 4, 1) == 0b010
    # no declaring Fighter, two or more (the Lonequest): {5, 1} = 6, {5, 2} = 7, {2, 2} = 4 > 3 is the weakest
    assert C.team_pick(0, lanes(5, 1, 2, 2), 4, 3, 2) == 0b1100
    # fewest first: the 5 alone beats Shield 3 when one is enough
    assert C.team_pick(0, lanes(1, 5, 2), 3, 3, 1) == 0b010
    assert C.team_pick(1, lanes(1, 1), 2, 9, 1) == 0  # nobody can


def test_berserker_barrage_doubles_true_and_team_strikes_only():
    assert [C.strike_damage(k, True) for k in (C.TRUE, C.CHANCE, C.RECKLESS, C.TEAM)] == [2, 1, 1, 2]
    assert [C.strike_damage(k, False) for k in (C.TRUE, C.CHANCE, C.RECKLESS, C.TEAM)] == [1, 1, 1, 1]


def test_chance_outcomes_hurt_the_right_fighters():
    assert [C.defender_hurt(o) for o in (NO_DAMAGE, ATTACKER_HITS, DEFENDER_HITS, BOTH_HURT)] == [
        False, True, False, True]
    assert [C.attacker_hurt(o) for o in (NO_DAMAGE, ATTACKER_HITS, DEFENDER_HITS, BOTH_HURT)] == [
        False, False, True, True]


def test_fireblast_odds_counted_by_hand():
    # +3 against Shield 3 is no True Strike: both roll. Over the 100 pairs, with a lone 1 losing:
    # double 1s 1 pair (the target hurts itself); the attacker's lone 1: 9 misses; the defender's lone 1: 9
    # strikes; attacker 10 vs 2..10: 9 strikes; defender 10 vs 2..9: 8 misses; 2..9 each: 36 with a >= d strike,
    # 28 miss. Strikes 54, self-hurt 1, misses 45.
    assert C.fireblast_is_true(C.FIREBLAST_BONUS, 2, False) and not C.fireblast_is_true(C.FIREBLAST_BONUS, 3, False)
    assert not C.fireblast_is_true(9, 2, True)  # Nature's Wrath
    counts = [0, 0, 0]
    for a in range(1, 11):
        for d in range(1, 11):
            counts[C.fireblast(C.chance(a, d, 3, 3, True, True))] += 1
    assert counts[C.FB_STRIKES] == 54 and counts[C.FB_SELF_HURT] == 1 and counts[C.FB_MISS] == 45
    # the same count as a share: a Fireblast strikes in 54 of the rolls, a Chance Strike hurts the target in 55
    assert C.hit_share(3, 3, True, False) == 0.54 and C.hit_share(3, 3, True, True) == 0.55


def test_potion_and_changeling_clear_damage_and_lightning_deals_its_roll():
    assert C.potion(3) == 0 and C.swapped(2) == 0
    assert C.lightning_damage(7) == 7


def test_strike_kind_ids_agree_with_the_multiplayer_actions():
    assert (ML.ST_TRUE, ML.ST_CHANCE, ML.ST_RECKLESS, ML.ST_TEAM) == (C.TRUE, C.CHANCE, C.RECKLESS, C.TEAM)
    assert ML.STRIKE_NAMES == C.STRIKE_NAMES


@pytest.mark.parametrize("engine", [LE, ME], ids=["lonequest", "multiplayer"])
def test_both_engines_take_the_combat_rules_from_one_module(engine):
    src = inspect.getsource(engine)
    for fn in ("combat.score(", "combat.is_defeated(", "combat.may_strike(", "combat.team_pick(",
               "combat.strike_damage(", "combat.chance(", "combat.fireblast(", "combat.potion(", "combat.swapped("):
        assert fn in src, fn
    assert "resolve(" not in src  # the Chance Strike only through combat
    assert "def team_pick" not in src and "def may_strike" not in src
