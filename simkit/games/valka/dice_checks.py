"""Monte Carlo of VÁLKA's dice mechanics on the runner (scenario mode ``chance-strike``).

Rows (one per strike per cell, or one per cell per block when aggregated for
``--mc``):

    game          index of the strike within its block (stream (game, cell) of the block key)
    strike        attacker's total Strike (Buffs and ``bonus`` included)
    shield        defender's total Shield
    attacker_roll, defender_roll   the natural d10s (per-strike rows only)
    attacker_hits, defender_hits, both_hurt   0/1 outcomes (counts when aggregated)
    trials        strikes behind the row (aggregated rows only)
"""

from __future__ import annotations

import numpy as np

from simkit.core.simulation import Metric, Simulation
from simkit.games.valka.rules_version import RULES_VERSION
from simkit.games.valka.chance_strike import (
    ATTACKER_HITS, BOTH_HURT, DEFENDER_HITS, LONE_ONE_READINGS, ChanceStrikeRules, count_outcomes, roll_events,
)

RATES = ("attacker_hits", "defender_hits", "both_hurt")


class ChanceStrikeSim(Simulation):
    """Chance Strikes for every (Strike, Shield) pair of a grid."""

    game = "valka"
    mode = "chance-strike"
    rules_version = RULES_VERSION
    default_block_size = 50_000

    def __init__(self, strikes, shields, bonus: int = 0, rules: ChanceStrikeRules = ChanceStrikeRules(),
                 aggregate: bool = False):
        grid = [(s, h) for s in strikes for h in shields]
        self.strike_values = list(strikes)
        self.shield_values = list(shields)
        self.bonus = int(bonus)
        self.rules = rules
        self.aggregate = aggregate
        self._strikes = np.array([s + self.bonus for s, _ in grid], dtype=np.int64)
        self._shields = np.array([h for _, h in grid], dtype=np.int64)
        self._base_strikes = np.array([s for s, _ in grid], dtype=np.int64)
        by = ("strike", "shield")
        trials = "trials" if aggregate else None
        self.metrics = [Metric(r, r, "rate", by, r.replace("_", " "), trials) for r in RATES]
        if aggregate:
            self.default_block_size = 1_000_000

    @property
    def cells(self) -> int:
        return len(self._strikes)

    def _flags(self):
        return self.rules.lone_one == "loses", self.rules.defender_deals_damage

    def run_block(self, key, n):
        lone, dmg = self._flags()
        if self.aggregate:
            counts = count_outcomes(key, n, self._strikes, self._shields, lone, dmg)
            return {
                "strike": self._base_strikes.astype(np.int16), "shield": self._shields.astype(np.int16),
                "trials": np.full(self.cells, n, dtype=np.int64),
                "attacker_hits": counts[:, ATTACKER_HITS], "defender_hits": counts[:, DEFENDER_HITS],
                "both_hurt": counts[:, BOTH_HURT],
            }
        game, cell, a, d, outcome = roll_events(key, n, self._strikes, self._shields, lone, dmg)
        return {
            "game": game, "strike": self._base_strikes[cell].astype(np.int16),
            "shield": self._shields[cell].astype(np.int16), "attacker_roll": a, "defender_roll": d,
            "attacker_hits": (outcome == ATTACKER_HITS).astype(np.int8),
            "defender_hits": (outcome == DEFENDER_HITS).astype(np.int8),
            "both_hurt": (outcome == BOTH_HURT).astype(np.int8),
        }

    def describe(self):
        return {"rule_options": {"lone_one": self.rules.lone_one,
                                 "defender_deals_damage": self.rules.defender_deals_damage},
                "bonus": self.bonus, "strikes": self.strike_values, "shields": self.shield_values}


def build_chance_strike(fields) -> ChanceStrikeSim:
    """Scenario ``mode = "chance-strike"``: a ``[grid]`` of Strike/Shield values and ``[rules]`` options."""
    from simkit.core.scenario import parse_int_range
    from simkit.errors import InputError

    grid = fields.table("grid", default={})
    ranges = {}
    for name in ("strike", "shield"):
        text = grid.get(name, str, "0:12")
        try:
            ranges[name] = parse_int_range(text, name, 0, 30)
        except InputError as exc:
            raise grid.error(name, str(exc).split(": ", 1)[1]) from None
    bonus = grid.get("bonus", int, 0, min=0, max=20)
    grid.finish()
    rules = fields.table("rules", default={})
    r = ChanceStrikeRules(
        lone_one=rules.get("lone_one", str, "loses", choices=LONE_ONE_READINGS),
        defender_deals_damage=rules.get("defender_deals_damage", bool, True),
    )
    rules.finish()
    return ChanceStrikeSim(ranges["strike"], ranges["shield"], bonus, r)


class TestFateSim(Simulation):
    """Sequences of ``tests`` Tests of Fate (aggregated counts of successes), for ``--mc``."""

    __test__ = False  # not a pytest class
    game = "valka"
    mode = "test-fate"
    rules_version = RULES_VERSION
    default_block_size = 1_000_000

    def __init__(self, tests: int, offering: bool = True):
        self.tests = tests
        self.offering = offering
        self.metrics = [Metric(f"successes_{k}", f"successes_{k}", "rate", (), f"{k} successes", "trials")
                        for k in range(tests + 1)]

    def run_block(self, key, n):
        from simkit.games.valka.test_fate import count_successes

        counts = count_successes(key, n, self.tests, self.offering)
        cols = {"trials": np.array([n], dtype=np.int64)}
        for k in range(self.tests + 1):
            cols[f"successes_{k}"] = counts[k:k + 1]
        return cols

    def describe(self):
        return {"tests": self.tests, "offering": self.offering}
