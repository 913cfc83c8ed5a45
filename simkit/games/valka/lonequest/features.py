"""The Lonequest's features for `learned` policies (``simkit.core.decision``: sparse feature vectors).

``features(s, env, a, is_base, idx, val)`` describes action ``a`` from what the player sees: the Frontline, the
revealed Marauders, Krone, Stamina, the Buffs and Events in hand, how many cards each Location and deck has left
(never which cards, nor the order of a deck). Slots::

    0                        is_base: the base heuristic plays ``a`` here
    1 .. 49                  is_base x the action's kind (CATEGORIES): how far to trust the heuristic, kind by kind
    50 .. 50 + 49 x 10 - 1   the action's kind x the state (SCALARS, 10): which kind of action pays in which
                             situation
    NUMBERS                  the action's own numbers (NUMBERS: a strike's chance to hit, its target's Health left,
                             a Buff's value, a destination's cards left, …)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.decision import Parts
from simkit.games.valka import combat
from simkit.games.valka.lonequest import engine as E
from simkit.games.valka.lonequest import layout as L

# what each decision's actions are, by kind (slot order of the category block)
CATEGORIES = (
    "start", "summon_no", "summon_yes", "equip_done", "equip_strike", "equip_shield", "equip_health", "march",
    "march_away", "explore", "attack", "rally", "bribe", "retreat", "fear", "potion", "reinforce", "changeling",
    "retreat_event", "fireblast", "lightning", "true_strike", "team_strike", "reckless_strike", "chance_strike",
    "offer_no", "offer_yes", "divine_defend_no", "divine_defend_yes", "divine_quest_no", "divine_quest_yes",
    "thief_keep", "thief_spend", "market_stop", "buy_strike", "buy_shield", "buy_health", "trade_up",
    "buy_event", "buy_stamina", "recruit", "market_thief", "swap", "grave_keep", "grave_recover", "gain_strike",
    "gain_shield", "gain_health", "boon_target",
)
SCALARS = ("bias", "stamina", "krone", "frontline", "frontline_health", "marauders", "marauder_health",
           "warband_deck", "cleared", "cards_here")
NUMBERS = ("hit_chance", "target_health", "target_falls", "attacker_health", "target_strike", "strike_margin",
           "weakest_target", "event_target_health", "fireblast_chance", "lightning_balance", "potion_heals",
           "market_value", "equip_value", "equip_fighter_health", "destination_cards", "recovered_strength")
N_CAT = len(CATEGORIES)
N_SCALARS = len(SCALARS)
BASE0 = 1
CAT0 = BASE0 + N_CAT
NUM0 = CAT0 + N_CAT * N_SCALARS
FEATURES = tuple(["is_base"] + [f"is_base_x_{c}" for c in CATEGORIES]
                 + [f"{c}_x_{k}" for c in CATEGORIES for k in SCALARS] + list(NUMBERS))
N_FEATURES = len(FEATURES)
MAX_NNZ = 2 + N_SCALARS + 8
(HIT_CHANCE, TARGET_HEALTH, TARGET_FALLS, ATTACKER_HEALTH, TARGET_STRIKE, STRIKE_MARGIN, WEAKEST, EVENT_TARGET,
 FIREBLAST_CHANCE, LIGHTNING_BALANCE, POTION_HEALS, MARKET_VALUE, EQUIP_VALUE, EQUIP_HEALTH, DEST_CARDS,
 RECOVERED) = range(NUM0, NUM0 + len(NUMBERS))


# a Chance Strike's share of hits depends on Strike − Shield only (tests: equal to combat.hit_share on a grid):
# tables by that margin, clipped to ±MARGIN (the shares are constant beyond ±10), row 1 under lone_one = "loses"
MARGIN = 20


def _share_table(double_ones_hit: bool) -> np.ndarray:
    return np.array([[combat.hit_share(max(m, 0), max(-m, 0), lone, double_ones_hit)
                      for m in range(-MARGIN, MARGIN + 1)] for lone in (False, True)])


HIT_SHARE = _share_table(True)  # a Chance or Reckless Strike hurts the Marauder (engine.hit_probability)
FIREBLAST_SHARE = _share_table(False)  # a rolled Fireblast strikes (engine.fireblast_probability)


@njit(cache=True, _nrt=False)
def share(table, strike, shield, rules):
    """``table``'s share for ``strike`` against ``shield`` (by their margin) under the rules' lone-one reading."""
    m = min(max(strike - shield, -MARGIN), MARGIN)
    return table[1 if rules[E.R_LONE_ONE_LOSES] == 1 else 0, m + MARGIN]


@njit(cache=True, inline="always", _nrt=False)
def category(s, env, a):
    """The kind of action ``a`` at the pending decision (an index into CATEGORIES)."""
    ph = s[L.PHASE]
    if ph == L.PH_START:
        return 0
    if ph == L.PH_SUMMON:
        return 1 + min(a, 1)
    if ph == L.PH_EQUIP:
        if a == L.EQ_DONE:
            return 3
        return 4 + env[E.E_BUFFS][(a - L.EQ_BASE) % L.N_BUFFS, 0]
    if ph == L.PH_MARCH:
        return 7
    if ph == L.PH_EXPLORE:
        return 9 if a == L.EXPLORE else 8
    if ph == L.PH_SPECIAL:
        if a == L.SP_NONE:
            return 10
        if a == L.SP_RALLY:
            return 11
        if a < L.SP_RETREAT:
            return 12
        if a < L.SP_FEAR:
            return 13
        if a < L.SP_POTION:
            return 14
        if a < L.SP_REINFORCE:
            return 15
        if a == L.SP_REINFORCE:
            return 16
        if a < L.SP_RETREAT_EV:
            return 17
        if a < L.SP_FIREBLAST:
            return 18
        if a < L.SP_LIGHTNING:
            return 19
        return 20
    if ph == L.PH_STRIKE:
        if a < L.ST_TEAM:
            return 21
        if a < L.ST_RECKLESS:
            return 22
        if a < L.ST_CHANCE:
            return 23
        return 24
    if ph == L.PH_OFFER:
        return 25 + min(a, 1)
    if ph == L.PH_DIVINE_DEFEND:
        return 27 + min(a, 1)
    if ph == L.PH_DIVINE_QUEST:
        return 29 + min(a, 1)
    if ph == L.PH_THIEF:
        return 31 + min(a, 1)
    if ph == L.PH_MARKET:
        if a == L.MK_STOP:
            return 33
        if a < L.MK_TRADE:
            return 34 + env[E.E_BUFFS][a - L.MK_BUY, 0]
        if a < L.MK_EVENT:
            return 37
        if a < L.MK_STAMINA:
            return 38
        if a == L.MK_STAMINA:
            return 39
        if a == L.MK_RECRUIT:
            return 40
        if a == L.MK_THIEF:
            return 41
        return 42
    if ph == L.PH_GRAVE:
        return 43 if a == 0 else 44
    if ph == L.PH_GAIN_BUFF:
        return 45 + min(max(a, 0), 2)
    return 48


@njit(cache=True, _nrt=False)
def _put(idx, val, m, slot, value):
    idx[m] = slot
    val[m] = value
    return m + 1


N_STATE = N_SCALARS + 1  # the SCALARS, then the weakest Marauder's Health left


@njit(cache=True, inline="always", _nrt=False)
def state(s, env, st):
    """The numbers every action of the decision shares (once per decision): the SCALARS, then the Health left
    of the weakest Marauder."""
    nf, nm = s[L.FRONT_N], s[L.MAR_N]
    fh = 0
    for i in range(nf):
        fh += E.health_left(s, env, i)
    mh = 0
    weakest = 1 << 30
    for j in range(nm):
        h = E.marauder_left(s, env, j)
        mh += h
        if h < weakest:
            weakest = h
    loc = s[L.LOC]
    st[0] = 1.0
    st[1] = s[L.STAMINA] / 10.0
    st[2] = s[L.KRONE] / 50.0
    st[3] = nf / 4.0
    st[4] = fh / 10.0
    st[5] = nm / 4.0
    st[6] = mh / 10.0
    st[7] = L.deck_len(s, L.WB_HEAD) / 10.0
    st[8] = E.locations_cleared(s) / 6.0
    st[9] = (s[L.LOC_N + loc] if 0 <= loc < L.N_LOC else 0) / 5.0
    st[10] = weakest


@njit(cache=True, _nrt=False)
def block(s, env, cat, st, idx, val, m):
    """The state crossed with the action's kind ``cat`` (the same for every action of that kind here)."""
    base = CAT0 + cat * N_SCALARS
    for k in range(N_SCALARS):
        m = _put(idx, val, m, base + k, st[k])
    return m


@njit(cache=True, inline="always", _nrt=False)
def numbers(s, env, a, cat, st, idx, val, m):
    """The action's own numbers (NUMBERS), after ``m`` features written."""
    ph = s[L.PHASE]
    if ph == L.PH_STRIKE:
        return strike_numbers(s, env, a, int(st[N_SCALARS]), idx, val, m)
    if ph == L.PH_SPECIAL:
        return special_numbers(s, env, a, idx, val, m)
    buffs = env[E.E_BUFFS]
    if ph == L.PH_MARKET:
        if L.MK_BUY <= a < L.MK_EVENT:
            m = _put(idx, val, m, MARKET_VALUE, buffs[(a - L.MK_BUY) % L.N_BUFFS, 1] / 5.0)
        elif a >= L.MK_SWAP:
            m = _put(idx, val, m, MARKET_VALUE, buffs[(a - L.MK_SWAP) // 3, 1] / 5.0)
    elif ph == L.PH_EQUIP and a != L.EQ_DONE:
        i, c = (a - L.EQ_BASE) // L.N_BUFFS, (a - L.EQ_BASE) % L.N_BUFFS
        m = _put(idx, val, m, EQUIP_VALUE, buffs[c, 1] / 5.0)
        m = _put(idx, val, m, EQUIP_HEALTH, E.health_left(s, env, i) / 5.0)
    elif (ph == L.PH_MARCH or ph == L.PH_START or ph == L.PH_EXPLORE) and 0 <= a < L.N_LOC:
        m = _put(idx, val, m, DEST_CARDS, s[L.LOC_N + a] / 5.0)
    elif ph == L.PH_GRAVE and a > 0:
        fighters = env[E.E_FIGHTERS]
        f = a - 1
        m = _put(idx, val, m, RECOVERED, (fighters[f, L.FS] + fighters[f, L.FSH] + fighters[f, L.FH]) / 10.0)
    elif ph == L.PH_BOON:
        m = _put(idx, val, m, EVENT_TARGET, E.marauder_left(s, env, a) / 5.0)
    return m


@njit(cache=True, _nrt=False)
def features(s, env, a, is_base, st, idx, val):
    """The non-zero features of action ``a`` (see the module docstring) from the decision's ``state``: is_base,
    then ``block``, then ``numbers``; returns how many."""
    m = 0
    cat = category(s, env, a)
    if is_base:
        m = _put(idx, val, m, 0, 1.0)
        m = _put(idx, val, m, BASE0 + cat, 1.0)
    m = block(s, env, cat, st, idx, val, m)
    return numbers(s, env, a, cat, st, idx, val, m)


@njit(cache=True, inline="always", _nrt=False)
def strike_numbers(s, env, a, weakest, idx, val, m):
    """A strike's numbers: its chance to hit, the target's Health left, Strike and whether it falls to a hit, the
    attacker's Health left and margin, whether the target is the weakest Marauder."""
    rules = env[E.E_RULES]
    if a < L.ST_TEAM or a >= L.ST_RECKLESS:
        off = a - (L.ST_TRUE if a < L.ST_TEAM else L.ST_RECKLESS if a < L.ST_CHANCE else L.ST_CHANCE)
        i, j = off // L.MAX_MAR, off % L.MAX_MAR
    else:
        i, j = -1, a - L.ST_TEAM
    sh = E.marauder_shield(s, env, j)
    left = E.marauder_left(s, env, j)
    p = 1.0
    if i >= 0:
        strike = E.total_strike(s, env, i)
        if a >= L.ST_TEAM:
            p = share(HIT_SHARE, strike, sh, rules)
        m = _put(idx, val, m, ATTACKER_HEALTH, E.health_left(s, env, i) / 5.0)
        m = _put(idx, val, m, STRIKE_MARGIN, (strike - sh) / 5.0)
    m = _put(idx, val, m, HIT_CHANCE, p)
    m = _put(idx, val, m, TARGET_HEALTH, left / 5.0)
    if left <= 1:
        m = _put(idx, val, m, TARGET_FALLS, 1.0)
    m = _put(idx, val, m, TARGET_STRIKE, env[E.E_FIGHTERS][s[E.mar_slot(j)], L.FS] / 5.0)
    if left == weakest:
        m = _put(idx, val, m, WEAKEST, 1.0)
    return m


@njit(cache=True, inline="always", _nrt=False)
def special_numbers(s, env, a, idx, val, m):
    """A special action's numbers: its target's Health left, a Fireblast's chance, a Lightning Bolt's balance of
    1-Health cards, what a Potion heals, a Bribe's or Retreat's destination."""
    rules = env[E.E_RULES]
    if L.SP_FEAR <= a < L.SP_POTION:
        m = _put(idx, val, m, EVENT_TARGET, E.marauder_left(s, env, a - L.SP_FEAR) / 5.0)
    elif L.SP_FIREBLAST <= a < L.SP_LIGHTNING:
        j = a - L.SP_FIREBLAST
        m = _put(idx, val, m, EVENT_TARGET, E.marauder_left(s, env, j) / 5.0)
        fs, sh = E.fireblast_strike(s, env), E.marauder_shield(s, env, j)
        m = _put(idx, val, m, FIREBLAST_CHANCE, 1.0 if combat.fireblast_is_true(fs, sh, False) else
                 share(FIREBLAST_SHARE, fs, sh, rules))
    elif a == L.SP_LIGHTNING:
        ones = 0
        for j in range(s[L.MAR_N]):
            ones += E.marauder_left(s, env, j) == 1
        for i in range(s[L.FRONT_N]):
            ones -= E.health_left(s, env, i) == 1
        m = _put(idx, val, m, LIGHTNING_BALANCE, ones / 4.0)
    elif L.SP_POTION <= a < L.SP_REINFORCE:
        i = a - L.SP_POTION
        m = _put(idx, val, m, POTION_HEALS, (s[E.slot(i) + L.F_DAMAGE] - E.potion_damage(s, env, i)) / 5.0)
    elif L.SP_BRIBE <= a < L.SP_FEAR:
        t = (a - L.SP_BRIBE) % L.N_LOC
        m = _put(idx, val, m, DEST_CARDS, s[L.LOC_N + t] / 5.0)
    return m


# the features split for scoring (``simkit.core.decision.Parts``; ``specialize_learned`` finds them on ``features``)
features.learned_parts = Parts(category, block, numbers, N_CAT)
