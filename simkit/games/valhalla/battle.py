"""Valhalla battle strength, shared by every mode of the family (solo and multiplayer): which Warriors and Battle
Tactics the dice activate, and their strength.

The functions read a Warband (team) pile at ``s[tn]`` (count, then card ids) and a pile of candidate strength
Tactics at ``s[cn]``, so each mode keeps its own state layout. ``colours`` is the bitmask of clan colours the Boar
Clan checks (solo: the monster card's clans, "If the color on a Monster card matches the one on a yellow Warrior
with a special power, that Warrior receives 3 additional strength points"; multiplayer: see docs/rules.md).
(The exact battle solver of the solo mode is ``solo/battle.py``; this module is the engines' battle code.)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.games.valhalla.dice import add_die, deliv_pool, pile_pool

# card table columns (``solo.layout``) and clan abilities used here
C_CLAN, C_STR, C_SPECIAL, C_ANY, C_DISTINCT, C_BLESS_CLAN, C_VALUE = 1, 2, 4, 5, 6, 8, 10
A_BOAR, A_ICE_GIANT, A_REROLL, A_PACK = 1, 2, 3, 4


@njit(cache=True, inline="always")
def warrior_strength(s, tn, cards, clan_ability, colours, i, mask):
    """Warband Warrior i's strength with its clan power: Boar Clan "+3 additional strength points" when
    ``colours`` holds its colour; "pack": +1 per other activated Warrior of its clan (``mask``: activated team
    indices)."""
    w = s[tn + 1 + i]
    v = cards[w, C_STR]
    clan = cards[w, C_CLAN]
    if cards[w, C_SPECIAL] == 1 and clan >= 0:
        ab = clan_ability[clan]
        if ab == A_BOAR:
            colour = cards[w, C_BLESS_CLAN] if cards[w, C_BLESS_CLAN] >= 0 else clan
            if colours & (1 << colour):
                v += 3
        elif ab == A_PACK:
            for j in range(s[tn]):
                if j != i and (mask >> j) & 1 and cards[s[tn + 1 + j], C_CLAN] == clan:
                    v += 1
    return v


@njit(cache=True, inline="always")
def in_set(s, tn, cn, wmask, tset, k):
    """Card ``k`` of the set being fitted (team indices first, then candidate Tactics), or -1 when not in it."""
    n = s[tn]
    if k < n:
        return s[tn + 1 + k] if (wmask >> k) & 1 else -1
    j = k - n
    return s[cn + 1 + j] if (tset >> j) & 1 else -1


@njit(cache=True, inline="always")
def fit_set(s, tn, cn, cards, need, clan_ability, wild_rule, pool, wmask, tset):
    """Fit the team Warriors in ``wmask`` and the candidate Battle Tactics in ``tset`` together; the dice left
    (packed counts) or -1. Exact whenever no Ice Giant shows ≠: (1) the Ice Giants' named symbols (they cannot
    take ⊗); (2) every other card's named symbols, a shortage made up by ⊗; (3) the Ice Giants' "any" symbols
    from the most plentiful die left — when none is left, a die of step (2) is swapped for a spare ⊗; (4) the
    other cards' "any" symbols, most plentiful die first, then ⊗. (Named symbols before "any" ones across all
    cards: an "any" slot never takes the die another card's named symbol needs.)"""
    S = need.shape[1]
    wsh = np.int64(4 * S)
    rem = pool
    n = s[tn] + s[cn]
    named_nat = np.int64(0)  # natural dice given to the named symbols of step (2): swappable for ⊗
    short = np.int64(0)
    for step in range(2):
        for k in range(n):
            c = in_set(s, tn, cn, wmask, tset, k)
            if c < 0:
                continue
            cl = cards[c, C_CLAN]
            ice = cl >= 0 and clan_ability[cl] == A_ICE_GIANT
            if ice != (step == 0):
                continue
            distinct = cards[c, C_DISTINCT] == 1
            for sym in range(S):
                kk = np.int64(need[c, sym])
                if kk == 0:
                    continue
                if distinct and kk > 1:
                    return np.int64(-1)
                sh = np.int64(4 * sym)
                have = (rem >> sh) & 15
                take = kk if kk < have else have
                rem -= take << sh
                if ice:
                    if take < kk:
                        return np.int64(-1)
                else:
                    named_nat += take << sh
                    short += kk - take
    if short > 0:
        if not wild_rule or ((rem >> wsh) & 15) < short:
            return np.int64(-1)
        rem -= short << wsh
    for step in range(2):
        for k in range(n):
            c = in_set(s, tn, cn, wmask, tset, k)
            if c < 0 or cards[c, C_ANY] == 0:
                continue
            cl = cards[c, C_CLAN]
            ice = cl >= 0 and clan_ability[cl] == A_ICE_GIANT
            if ice != (step == 0):
                continue
            distinct = cards[c, C_DISTINCT] == 1
            used = 0
            for sym in range(S):
                if need[c, sym] > 0:
                    used |= 1 << sym
            for _ in range(cards[c, C_ANY]):
                best, best_n = -1, np.int64(0)
                for sym in range(S):
                    h = (rem >> np.int64(4 * sym)) & 15
                    if h > best_n and not (distinct and (used >> sym) & 1):
                        best, best_n = sym, h
                if best >= 0:
                    rem -= np.int64(1) << np.int64(4 * best)
                    used |= 1 << best
                    continue
                if not wild_rule or ((rem >> wsh) & 15) == 0:
                    return np.int64(-1)
                if not ice:
                    rem -= np.int64(1) << wsh
                    continue
                # an Ice Giant cannot take ⊗: it takes a die a named symbol holds, which takes the ⊗ instead
                best, best_n = -1, np.int64(0)
                for sym in range(S):
                    h = (named_nat >> np.int64(4 * sym)) & 15
                    if h > best_n and not (distinct and (used >> sym) & 1):
                        best, best_n = sym, h
                if best < 0:
                    return np.int64(-1)
                named_nat -= np.int64(1) << np.int64(4 * best)
                rem -= np.int64(1) << wsh
                used |= 1 << best
    return rem


@njit(cache=True, _nrt=False)
def best_joint(s, tn, cn, cards, need, clan_ability, wild, colours, pool, tset):
    """The best activation of the team together with the candidate Tactics ``tset`` (all of which must be
    activated): (Warrior bitmask, their strength); mask -1 when ``tset`` cannot be activated. Most strength
    (strength only grows with the set, so the sets are tried largest first and only a stronger one is fitted)."""
    n = s[tn]
    best_m, best_st = -1, -1
    for m in range((1 << n) - 1, -1, -1):
        st = 0
        for i in range(n):
            if (m >> i) & 1:
                st += warrior_strength(s, tn, cards, clan_ability, colours, i, m)
        if st <= best_st:
            continue
        if fit_set(s, tn, cn, cards, need, clan_ability, wild, pool, m, tset) < 0:
            continue
        best_m, best_st = m, st
    return best_m, best_st


@njit(cache=True, inline="always")
def tset_value(s, cn, cards, tset):
    """The strength of the candidate Tactics in ``tset``."""
    v = 0
    for j in range(s[cn]):
        if (tset >> j) & 1:
            v += cards[s[cn + 1 + j], C_VALUE]
    return v


@njit(cache=True, _nrt=False)
def tset_feasible(s, tn, cn, cards, need, clan_ability, wild, pool, tset):
    """Can the Tactics in ``tset`` be activated together (with no Warrior)?"""
    if tset == 0:
        return True
    return fit_set(s, tn, cn, cards, need, clan_ability, wild, pool, 0, tset) >= 0


@njit(cache=True, _nrt=False)
def wants_post_roll(s, tn, ice_i, cards, clan_ability):
    """Does the team have a power ``post_roll`` may give: a clan "reroll" power, or an Ice Giant power while
    ``s[ice_i]`` (its extra die already given) is 0? Only then does a roll need the team's activation."""
    for i in range(s[tn]):
        w = s[tn + 1 + i]
        cl = cards[w, C_CLAN]
        if cards[w, C_SPECIAL] == 1 and cl >= 0 and (clan_ability[cl] == A_REROLL or (
                clan_ability[cl] == A_ICE_GIANT and s[ice_i] == 0)):
            return True
    return False


@njit(cache=True, _nrt=False)
def ice_giant_activated(s, tn, ice_i, cards, clan_ability, m):
    """"The first Ice Giant that the player activates gives them one additional die": True when the activation
    ``m`` holds an Ice Giant with its power and the extra die is not yet given (``s[ice_i]`` 0)."""
    if s[ice_i] != 0 or m <= 0:
        return False
    for i in range(s[tn]):
        w = s[tn + 1 + i]
        cl = cards[w, C_CLAN]
        if (m >> i) & 1 and cl >= 0 and clan_ability[cl] == A_ICE_GIANT and cards[w, C_SPECIAL] == 1:
            return True
    return False


@njit(cache=True, _nrt=False)
def give_clan_rerolls(s, tn, free_i, given_i, cards, clan_ability, m):
    """A clan "reroll" power gives a free reroll (``s[free_i]``) per Warrior of the activation ``m`` that has it,
    once each (``s[given_i]``: how many already given)."""
    cr = 0
    for i in range(s[tn]):
        w = s[tn + 1 + i]
        if (m >> i) & 1 and cards[w, C_SPECIAL] == 1 and cards[w, C_CLAN] >= 0 \
                and clan_ability[cards[w, C_CLAN]] == A_REROLL:
            cr += 1
    if cr > s[given_i]:
        s[free_i] += cr - s[given_i]
        s[given_i] = cr


@njit(cache=True, _nrt=False)
def post_roll(s, tn, cn, nd, dv, ice_i, free_i, given_i, rng, cards, need, clan_ability, wild, colours, faces,
              max_dice):
    """Powers of activated Warriors after a roll (activated: in the best activation of the team by the dice so far
    and the Weapon Delivery cards at ``dv``): an activated Ice Giant's extra die (``ice_giant_activated``), then,
    with the team activated again, the clan rerolls (``give_clan_rerolls``)."""
    if not wants_post_roll(s, tn, ice_i, cards, clan_ability):
        return
    S = need.shape[1]
    for _ in range(2):
        m, st = best_joint(s, tn, cn, cards, need, clan_ability, wild, colours,
                           pile_pool(s, nd) + deliv_pool(s, dv, S), 0)
        if ice_giant_activated(s, tn, ice_i, cards, clan_ability, m):
            s[ice_i] = 1
            add_die(s, nd, rng, faces, max_dice)
            continue
        give_clan_rerolls(s, tn, free_i, given_i, cards, clan_ability, m)
        break
