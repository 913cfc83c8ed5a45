"""Strikes, Buffs, damage and the Events' dice: the VÁLKA core rules ("On Your Turn" → Attack, Events, Tracking
Damage) that the multiplayer engine and the Lonequest both apply, in one place.

The functions work on plain numbers, so each engine keeps its own state layout (as ``boons`` does for the Warband
Boons and ``chance_strike`` for the Chance Strike): an engine looks up a Fighter's printed scores, Buffs, damage and
Boons in its state and asks this module what the rules make of them: the total scores, which strikes are allowed,
who joins a Team Strike, how much damage a strike deals, when a Fighter is defeated, what a Fireblast does with its
dice, what a Potion or a Changeling leaves of the damage. Where the rule is read, it is quoted.
"""

from __future__ import annotations

from numba import njit

from simkit.games.valka.chance_strike import ATTACKER_HITS, BOTH_HURT, DEFENDER_HITS, resolve

# strike kinds ("Then declare if you are performing a True Strike, Team Strike, Reckless Strike or a Chance Strike")
TRUE, CHANCE, RECKLESS, TEAM = range(4)
STRIKE_NAMES = ("true", "chance", "reckless", "team")

BERSERKER_DAMAGE = 2   # "Berserker Barrage: True Strikes and Team Strikes deal 2 Damage."
FIREBLAST_BONUS = 3    # Fireblast: "make a Chance Strike or True Strike against them with +3"
FIREBLAST_DAMAGE = 2   # "If you strike the enemy, deal 2 damage to it
FIREBLAST_SPLASH = 1   #  and 1 damage to any other Frontline enemies on either side of it."
# what a Fireblast does: strikes (2 + 1 either side), only the target's own 1 damage (double 1s), nothing
FB_MISS, FB_STRIKES, FB_SELF_HURT = range(3)


@njit(cache=True, _nrt=False)
def score(printed, buff, boon_bonus):
    """A Fighter's total Strike, Shield or Health: the printed score, plus the value of the equipped Buff of that type
    (``0`` for none: "up to 3 Buffs per Fighter, one of each type"), plus 1 when a Boon adds to it (Goblins'
    "ALL of your Frontline Fighters have a +1 to Strike", Knights' "… +1 to Shield")."""
    return printed + buff + (1 if boon_bonus else 0)


@njit(cache=True, _nrt=False)
def health_left(health, damage):
    """Total Health less the damage tokens on the Fighter."""
    return health - damage


@njit(cache=True, _nrt=False)
def is_defeated(health, damage):
    """"When a Fighter with 1 Health is dealt damage, it is moved to the Graveyard (or Claimed)": a Fighter whose
    damage has reached its total Health is defeated (also when a Health Buff leaves it: "Health Buffs remain on
    Fighters until they're defeated")."""
    return damage >= health


@njit(cache=True, _nrt=False)
def may_strike(kind, strike, shield, health_left_, team_total, chance_only, chance_any):
    """Whether a Fighter with total Strike ``strike`` may make strike ``kind`` on a target with total Shield
    ``shield``.

    * True: "If the Strike score of your Fighter exceeds the target's Shield score".
    * Chance: "If you can't land a True, Team or Reckless Strike, take a Chance Strike" (``chance_any``: the rule
      option that allows it always).
    * Reckless: "If a Fighter has only 1 Health, you may sacrifice it".
    * Team: "combine the Strike scores of one or more of your Fighters and overpower a strong foe": the declaring
      Fighter cannot land a True Strike alone (``strike`` is 0 for a Team without a declaring Fighter, as in the
      Lonequest) and ``team_total``, the Strike of all who may join, exceeds the Shield.

    ``chance_only``: the target's Tree Beasts' Nature's Wrath, "Your Frontline Fighters can only be targeted by
    Chance Strikes"."""
    if kind == TRUE:
        return not chance_only and strike > shield
    if kind == CHANCE:
        return chance_only or chance_any or strike <= shield
    if kind == RECKLESS:
        return not chance_only and health_left_ == 1
    return not chance_only and strike <= shield and team_total > shield


@njit(cache=True, _nrt=False)
def team_lane(packed, k, strike):
    """Put the Strike of the ``k``-th Fighter who may join a Team Strike into ``packed`` (8 bits each, at most 8
    Fighters: the other Frontline Fighters and, with the Reptilios' Horde Strike, the face-up Backline), so that
    the engines need no scratch array."""
    return packed | (min(max(strike, 0), 255) << (8 * k))


@njit(cache=True, _nrt=False)
def team_pick(lead, packed, n, shield, need):
    """Who joins a Team Strike: a bit mask over the ``n`` Fighters whose Strikes are in ``packed`` (``team_lane``).
    The smallest set of at least ``need`` of them whose Strikes with the declaring Fighter's (``lead``; 0 for
    none) exceed ``shield``; among sets of that size the smallest total, so that the strongest Fighters are left
    to strike on their own ("All Fighters used in a Team Strike cannot strike again until the next round"). 0 if
    no set does."""
    best_mask, best_cnt, best_sum = 0, 99, 1 << 30
    for m in range(1, 1 << n):
        tot = lead
        cnt = 0
        for k in range(n):
            if (m >> k) & 1:
                tot += (packed >> (8 * k)) & 255
                cnt += 1
        if cnt >= need and tot > shield and (cnt < best_cnt or (cnt == best_cnt and tot < best_sum)):
            best_mask, best_cnt, best_sum = m, cnt, tot
    return best_mask


@njit(cache=True, _nrt=False)
def strike_damage(kind, berserker):
    """"Strikes deal 1 damage unless otherwise noted"; ``berserker``: a Barbarian (or Joker) with the Barbarians'
    Boon is in the strike, and "Berserker Barrage: True Strikes and Team Strikes deal 2 Damage"."""
    if berserker and (kind == TRUE or kind == TEAM):
        return BERSERKER_DAMAGE
    return 1


@njit(cache=True, _nrt=False)
def chance(a, d, strike, shield, lone_one_loses, defender_deals_damage):
    """The outcome code of a Chance Strike with natural rolls ``a`` (attacker) and ``d`` (defender): see
    ``chance_strike.resolve``."""
    return resolve(a, d, strike, shield, lone_one_loses, defender_deals_damage)


@njit(cache=True, _nrt=False)
def defender_hurt(outcome):
    """The defending Fighter takes 1 damage: the strike won, or double 1s ("they both deal 1 damage to
    themselves")."""
    return outcome == ATTACKER_HITS or outcome == BOTH_HURT


@njit(cache=True, _nrt=False)
def attacker_hurt(outcome):
    """The striking Fighter takes 1 damage: the defender won and deals damage back, or double 1s."""
    return outcome == DEFENDER_HITS or outcome == BOTH_HURT


@njit(cache=True, _nrt=False)
def hit_share(strike, shield, lone_one_loses, double_ones_hit):
    """The share of the 100 rolls of a Chance Strike of ``strike`` against ``shield`` in which the target is hurt:
    the strike wins, or (``double_ones_hit``) double 1s, where the target deals itself 1 damage. A Fireblast
    strikes only when it wins (``fireblast``)."""
    n = 0
    for a in range(1, 11):
        for d in range(1, 11):
            o = resolve(a, d, strike, shield, lone_one_loses, False)
            if o == ATTACKER_HITS or (double_ones_hit and o == BOTH_HURT):
                n += 1
    return n / 100.0


@njit(cache=True, _nrt=False)
def fireblast_is_true(power, shield, chance_only):
    """Fireblast: "make a Chance Strike or True Strike against them with +3": a True Strike when the Event's Strike
    ``power`` exceeds the target's Shield (never against Nature's Wrath), otherwise the d10s are rolled."""
    return not chance_only and power > shield


@njit(cache=True, _nrt=False)
def fireblast(outcome):
    """What a rolled Fireblast does with the Chance Strike's ``outcome``: ``FB_STRIKES`` when it wins ("If you
    strike the enemy, deal 2 damage to it and 1 damage to any other Frontline enemies on either side of it");
    ``FB_SELF_HURT`` on double 1s (the target deals itself 1 damage: "If both roll a 1, they both deal 1 damage to
    themselves"; the Event has no Fighter to hurt); ``FB_MISS`` otherwise (a Fireblast has no Fighter for the
    defender to hit back)."""
    if outcome == ATTACKER_HITS:
        return FB_STRIKES
    if outcome == BOTH_HURT:
        return FB_SELF_HURT
    return FB_MISS


@njit(cache=True, _nrt=False)
def potion(damage):
    """Potion: "Remove all damage tokens on a Fighter." The damage left on it."""
    return 0


@njit(cache=True, _nrt=False)
def swapped(damage):
    """Changeling: "Any swapped Fighter loses all damage." The damage left on it."""
    return 0


@njit(cache=True, _nrt=False)
def lightning_damage(roll):
    """Lightning Bolt: "roll a die … deal 1 damage to X enemies where X is the outcome of your roll"."""
    return roll
