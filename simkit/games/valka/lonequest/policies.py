"""Lonequest policies: every choice the player makes, as numba decision functions.

A policy is a *kind* (an integer: which decision logic) and a parameter
vector (float64). The engine calls the ``choose_*`` / ``want_*`` functions
below at each decision point with the legal options; it never looks at a
policy's logic. Named policies (``cautious``, ``aggressive``,
``greedy_trader``, ``random``) are parameter sets registered in
:data:`PRESETS`, and a scenario may define more under ``[policies.NAME]``. A
new decision logic is a new kind here, not a change to the engine.

Kinds: ``heuristic`` (rules of thumb steered by the parameters) and
``random`` (uniformly random among the legal options at every decision: the
baseline).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core import policies as _core
from simkit.core.policies import HEURISTIC, KINDS, RANDOM, coin  # noqa: F401  (shared kinds)
from simkit.core.rng import pick_uniform, randbelow  # noqa: F401  (pick_uniform: used by the engine too)
from simkit.games.valka.lonequest import layout as L


# parameter vector layout: name -> (index, default, description)
PARAMS = {
    "summon_min_stamina": (0, 5.0, "summon a 2nd Fighter (2 Stamina) when Stamina is at least this before marching"),
    "team_strike": (1, 1.0, "use Team Strikes when no single Fighter can land a True Strike (1 yes, 0 no)"),
    "reckless_below": (2, 0.35, "sacrifice a 1-Health Fighter (Reckless Strike) when its Chance Strike hits less often than this"),
    "rally_max_front": (3, 2.0, "Rally while fewer Fighters than this stand in the Frontline"),
    "rally_min_stamina": (4, 4.0, "Rally only with at least this much Stamina"),
    "retreat": (5, 1.0, "Retreat (4 Stamina) when every Fighter is at 1 Health and the fight looks lost (1 yes)"),
    "bribe": (6, 1.0, "Bribe (10 Krone per Marauder) instead, when possible (1 yes)"),
    "krone_reserve": (7, 20.0, "Krone kept back when shopping"),
    "stamina_target": (8, 5.0, "buy Stamina in Markets up to this level"),
    "buy_potion": (9, 1.0, "buy a Healing Potion when none is in hand (1 yes)"),
    "buy_reinforce": (10, 0.0, "buy a Reinforce Event when none is in hand (1 yes)"),
    "recruit": (11, 1.0, "recruit (40 Krone) when the Krone reserve allows (1 yes)"),
    "buffs_per_type": (12, 1.0, "how many Buffs of each type to own before only upgrading"),
    "buff_priority": (13, 0.0, "which Buff type to buy first: 0 Strike, 1 Shield, 2 Health"),
    "offering": (14, 7.0, "offering to VÁLKA on failed tests of: 1 Quests, 2 Rallies, 4 Buffs (sum)"),
    "offering_reserve": (15, 0.0, "Krone to keep after the 20-Krone offering"),
    "fear_min_health": (16, 3.0, "use Fear on a Marauder with at least this much Health left"),
    "lightning_min": (17, 3.0, "use Lightning Bolt against at least this many Marauders"),
    "divine_aid": (18, 1.0, "use Divine Aid to stop a blow that would kill, and to skip harmful Quests (1 yes)"),
    "route": (19, 0.0, "which uncleared Location to march to: 0 fewest cards left, 1 most, 2 random"),
    "thief_steal": (20, 0.0, "use a Thief in Markets to steal 2 Loot cards instead of keeping it (1 yes)"),
    "grave_robber_below": (21, 3.0, "use Grave Robber when the Warband Deck holds fewer than this"),
}
N_PARAMS = len(PARAMS)

PRESETS = {
    "cautious": ("heuristic", {"summon_min_stamina": 5, "rally_min_stamina": 5, "krone_reserve": 25,
                               "stamina_target": 6, "buff_priority": 1, "buffs_per_type": 2, "lightning_min": 3}),
    "aggressive": ("heuristic", {"summon_min_stamina": 4, "rally_max_front": 3, "rally_min_stamina": 3,
                                 "retreat": 0, "bribe": 0, "krone_reserve": 10, "stamina_target": 4,
                                 "buy_reinforce": 1, "buff_priority": 0, "reckless_below": 0.5,
                                 "fear_min_health": 2, "lightning_min": 2}),
    "greedy_trader": ("heuristic", {"summon_min_stamina": 6, "krone_reserve": 0, "stamina_target": 7,
                                    "buffs_per_type": 2, "buy_potion": 1, "buy_reinforce": 1, "recruit": 1,
                                    "thief_steal": 1, "buff_priority": 2}),
    "random": ("random", {}),
}

POLICY_DESCRIPTIONS = {
    "cautious": "heuristic: keeps Krone and Stamina in reserve, favours Shield Buffs, retreats or bribes when beaten",
    "aggressive": "heuristic: summons and rallies early, favours Strike Buffs, never retreats",
    "greedy_trader": "heuristic: spends every Krone in Markets (Buffs, Stamina, Events, recruits), steals with Thieves",
    "random": "baseline: uniformly random among the legal options at every decision",
}


# --- decision functions ----------------------------------------------------------------
# Each takes (kind, params, prng) first; prng is the policy's own random stream.

@njit(cache=True)
def choose_location(kind, params, prng, s, mask):
    """Where to march (or start): an index with mask != 0."""
    if kind == RANDOM or params[19] == 2.0:
        return pick_uniform(prng, mask)
    best = -1
    best_n = 0
    for loc in range(mask.shape[0]):
        if mask[loc]:
            n = s[L.LOC_N + loc]
            better = best < 0 or (n < best_n if params[19] == 0.0 else n > best_n)
            if better:
                best, best_n = loc, n
    return best


@njit(cache=True)
def want_summon(kind, params, prng, s):
    if kind == RANDOM:
        return randbelow(prng, 2) == 1
    return s[L.STAMINA] >= params[0]


@njit(cache=True)
def want_equip(kind, prng):
    """Equip a Buff from hand now (heuristic: always; random: a coin flip per Buff)."""
    if kind == RANDOM:
        return randbelow(prng, 2) == 1
    return True


@njit(cache=True)
def buff_type_order(kind, params, prng, order):
    """Fill ``order`` (3) with the Buff types in the order this policy wants them."""
    if kind == RANDOM:
        order[0], order[1], order[2] = 0, 1, 2
        for i in range(2, 0, -1):
            j = randbelow(prng, i + 1)
            order[i], order[j] = order[j], order[i]
        return
    first = int(params[13])
    order[0] = first
    k = 1
    for t in range(3):
        if t != first:
            order[k] = t
            k += 1


@njit(cache=True)
def use_offering(kind, params, prng, s, context, harmful):
    """Spend the once-per-Lonequest offering (20 Krone) to turn this failed Test Fate?

    ``context``: 0 a Quest, 1 a Rally, 2 a Buff's Test Fate. ``harmful``: whether
    the odd outcome hurts (for Quests) or the Buff is worth keeping (value >= 2).
    """
    if kind == RANDOM:
        return randbelow(prng, 2) == 1
    if not harmful:
        return False
    bit = 1 << context
    if (int(params[14]) & bit) == 0:
        return False
    return s[L.KRONE] >= 20 + params[15]


@njit(cache=True)
def choose_action(kind, prng, mask, preferred):
    """Random: uniformly among the legal actions; heuristic: its ``preferred`` choice."""
    if kind == RANDOM:
        return pick_uniform(prng, mask)
    return preferred


def param_vector(overrides: dict | None = None) -> np.ndarray:
    """This game's parameter vector: the defaults of ``PARAMS`` with ``overrides``."""
    return _core.param_vector(PARAMS, overrides)
