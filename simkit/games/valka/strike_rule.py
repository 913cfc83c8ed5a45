"""VÁLKA Chance Strike: the rule as plain Python and its exact odds (icepool), with no numba, so that
``simkit odds chance-strike`` starts fast. The rule text and its readings: ``chance_strike`` (which compiles
:func:`resolve` for the simulators).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import icepool

from simkit.core.dice import probabilities

NO_DAMAGE, ATTACKER_HITS, DEFENDER_HITS, BOTH_HURT = 0, 1, 2, 3
OUTCOME_NAMES = ("no_damage", "attacker_hits", "defender_hits", "both_hurt")
LONE_ONE_READINGS = ("loses", "fails")
D10 = 10


@dataclass(frozen=True)
class ChanceStrikeRules:
    """The rule options of a Chance Strike (defaults: the plain reading)."""

    lone_one: str = "loses"
    defender_deals_damage: bool = True

    def __post_init__(self):
        if self.lone_one not in LONE_ONE_READINGS:
            raise ValueError(f"lone_one must be one of {LONE_ONE_READINGS}")


def resolve(attacker_roll, defender_roll, strike, shield, lone_one_loses, defender_deals_damage):
    """The outcome code of one Chance Strike with the given natural rolls and totals' bonuses (plain Python: the
    exact odds call it as it is, ``chance_strike.resolve`` is its numba kernel)."""
    if attacker_roll == 1 and defender_roll == 1:
        return BOTH_HURT
    if attacker_roll == 1:
        attacker_wins = False
        if not lone_one_loses:
            return NO_DAMAGE
    elif defender_roll == 1:
        attacker_wins = True
    elif attacker_roll == D10:
        attacker_wins = True  # a 10 wins; both 10: advantage to the attacker
    elif defender_roll == D10:
        attacker_wins = False
    else:
        attacker_wins = attacker_roll + strike >= defender_roll + shield  # ties go to the attacker
    if attacker_wins:
        return ATTACKER_HITS
    return DEFENDER_HITS if defender_deals_damage else NO_DAMAGE


def _as_d10(face: int, bonus: int, sides: int) -> tuple[int, int]:
    """A face of a ``sides``-sided die as the (d10 roll, bonus) :func:`resolve` reads: the natural 1 stays 1, the
    top face wins as the d10's 10 does, any other face v is a plain 2 with v - 2 added to the bonus."""
    if face == 1:
        return 1, bonus
    if face == sides:
        return D10, bonus
    return 2, bonus + face - 2


@lru_cache(maxsize=None)
def _outcome_die(margin: int, lone: bool, defender_deals_damage: bool, sides: int) -> icepool.Die:
    """The outcome code of a Chance Strike whose Strike exceeds the Shield by ``margin`` (only the difference
    counts: a roll plus Strike against a roll plus Shield), both fighters rolling a d``sides``."""
    def outcome(a, d):
        (ra, sa), (rd, sd) = _as_d10(a, margin, sides), _as_d10(d, 0, sides)
        return int(resolve(ra, rd, sa, sd, lone, defender_deals_damage))

    return icepool.map(outcome, icepool.d(sides), icepool.d(sides))


def outcome_distribution(strike: int, shield: int, rules: ChanceStrikeRules = ChanceStrikeRules(),
                         sides: int = D10) -> dict[int, Fraction]:
    """Exact P(outcome) for an attacker with total Strike ``strike`` against total Shield ``shield`` (icepool; the
    rule is the engine's :func:`resolve`). ``sides``: a die variant (the rulebook's d10 by default; "rolls a 10"
    reads as the top face)."""
    margin = max(-sides, min(sides, strike - shield))  # beyond ±sides every roll compares the same way
    dist = probabilities(_outcome_die(margin, rules.lone_one == "loses", rules.defender_deals_damage, sides))
    return {code: dist.get(code, Fraction(0)) for code in range(4)}


def chance_strike(strike: int, shield: int, rules: ChanceStrikeRules = ChanceStrikeRules(),
                  sides: int = D10) -> dict[str, Fraction]:
    """P(attacker deals 1 damage), P(defender deals 1 damage), P(both hurt) as Fractions."""
    d = outcome_distribution(strike, shield, rules, sides)
    return {
        "attacker_hits": d[ATTACKER_HITS],
        "defender_hits": d[DEFENDER_HITS],
        "both_hurt": d[BOTH_HURT],
    }


def expected_strikes_to_defeat(health: int, strike: int, shield: int,
                               rules: ChanceStrikeRules = ChanceStrikeRules(), sides: int = D10) -> Fraction | None:
    """Expected Chance Strikes until a defender with ``health`` Health has taken that much damage.

    The defender takes 1 damage when the attacker hits or on double 1s
    ("they both deal 1 damage to themselves"), independently per strike, so the
    count is negative binomial with mean health / q. None when q = 0.
    """
    d = chance_strike(strike, shield, rules, sides)
    q = d["attacker_hits"] + d["both_hurt"]
    return None if q == 0 else Fraction(health) / q


