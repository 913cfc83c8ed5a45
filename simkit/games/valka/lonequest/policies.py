"""Lonequest policies: the heuristics and the random baseline as functions of (state, legal actions, params).

A policy is a *kind* (``heuristic``, ``random`` or the generic ``search``) and a parameter vector (float64).
The engine asks at every decision point (``layout``: decisions and action ids) and never looks at a policy's
logic; :func:`policy` answers with one of the legal actions, reading only public state. Named policies
(``cautious``, ``aggressive``, ``greedy_trader``, ``random``, ``search``) are registered in :data:`PRESETS`, and
a scenario may define more under ``[policies.NAME]``.

Kinds: ``heuristic`` (rules of thumb steered by the parameters), ``random`` (uniformly random among the legal
actions at every decision: the baseline) and ``search`` (``simkit.core.decision.search_action``: rollouts of a
base policy from determinized copies of the state).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core import policies as _core
from simkit.core.decision import specialize_learned
from simkit.core.policies import HEURISTIC, LEARNED, LEARNED_KINDS, RANDOM, SEARCH  # noqa: F401  (shared kinds)
from simkit.core.rng import randbelow
from simkit.games.valka.lonequest import engine as E
from simkit.games.valka.lonequest import features as F
from simkit.games.valka.lonequest import layout as L

KINDS = LEARNED_KINDS

# parameter vector layout: name -> (index, default, description, low, high)
PARAMS = {
    "summon_min_stamina": (0, 5.0, "summon a 2nd Fighter (2 Stamina) when Stamina is at least this before marching",
                           2.0, 10.0),
    "team_strike": (1, 1.0, "use Team Strikes when no single Fighter can land a True Strike (1 yes, 0 no)", 0.0, 1.0),
    "reckless_below": (2, 0.35, "sacrifice a 1-Health Fighter (Reckless Strike) when its Chance Strike hits less "
                                "often than this", 0.0, 1.0),
    "rally_max_front": (3, 2.0, "Rally while fewer Fighters than this stand in the Frontline", 0.0, 4.0),
    "rally_min_stamina": (4, 4.0, "Rally only with at least this much Stamina", 1.0, 9.0),
    "retreat": (5, 1.0, "Retreat (4 Stamina) when every Fighter is at 1 Health and the fight looks lost (1 yes)",
                0.0, 1.0),
    "bribe": (6, 1.0, "Bribe (10 Krone per Marauder) instead, when possible (1 yes)", 0.0, 1.0),
    "krone_reserve": (7, 20.0, "Krone kept back when shopping", 0.0, 99.0),
    "stamina_target": (8, 5.0, "buy Stamina in Markets up to this level", 0.0, 9.0),
    "buy_potion": (9, 1.0, "buy a Healing Potion when none is in hand (1 yes)", 0.0, 1.0),
    "buy_reinforce": (10, 0.0, "buy a Reinforce Event when none is in hand (1 yes)", 0.0, 1.0),
    "recruit": (11, 1.0, "recruit (40 Krone) when the Krone reserve allows (1 yes)", 0.0, 1.0),
    "buffs_per_type": (12, 1.0, "how many Buffs of each type to own before only upgrading", 0.0, 7.0),
    "buff_priority": (13, 0.0, "which Buff type to buy first: 0 Strike, 1 Shield, 2 Health", 0.0, 2.0),
    "offering": (14, 7.0, "offering to VÁLKA on failed tests of: 1 Quests, 2 Rallies, 4 Buffs (sum)", 0.0, 7.0),
    "offering_reserve": (15, 0.0, "Krone to keep after the 20-Krone offering", 0.0, 79.0),
    "fear_min_health": (16, 3.0, "use Fear on a Marauder with at least this much Health left", 1.0, 10.0),
    "lightning_min": (17, 0.5, "use Lightning Bolt when, over its 10 equally likely rolls, it defeats on average at "
                               "least this many more Marauders than it costs you Fighters", 0.0, 3.0),
    "divine_aid": (18, 1.0, "use Divine Aid to stop a blow that would kill, and to skip harmful Quests (1 yes)",
                   0.0, 1.0),
    "route": (19, 0.0, "which uncleared Location to march to: 0 fewest cards left, 1 most, 2 random", 0.0, 2.0),
    "thief_steal": (20, 0.0, "use a Thief in Markets to steal 2 Loot cards instead of keeping it (1 yes)", 0.0, 1.0),
    "grave_robber_below": (21, 9.0, "use Grave Robber when the Warband Deck holds fewer than this (9: whenever a "
                                    "Fighter of yours lies in the Graveyard; the card has no other use)", 0.0, 10.0),
}
N_PARAMS = len(PARAMS)

PRESETS = {
    "cautious": ("heuristic", {"summon_min_stamina": 5, "rally_min_stamina": 5, "krone_reserve": 25,
                               "stamina_target": 6, "buff_priority": 1, "buffs_per_type": 2, "lightning_min": 0.7}),
    "aggressive": ("heuristic", {"summon_min_stamina": 4, "rally_max_front": 3, "rally_min_stamina": 3,
                                 "retreat": 0, "bribe": 0, "krone_reserve": 10, "stamina_target": 4,
                                 "buy_reinforce": 1, "buff_priority": 0, "reckless_below": 0.5,
                                 "fear_min_health": 2, "lightning_min": 0.3}),
    "greedy_trader": ("heuristic", {"summon_min_stamina": 6, "krone_reserve": 0, "stamina_target": 7,
                                    "buffs_per_type": 2, "buy_potion": 1, "buy_reinforce": 1, "recruit": 1,
                                    "thief_steal": 1, "buff_priority": 2}),
    "random": ("random", {}),
    # search over the best heuristic: 32 rollouts per action beat greedy_trader on common seeds (knights, 100
    # paired games: 0.86 against 0.72); 8 lose to it (0.51 against 0.71), 16 draw (0.75 against 0.71)
    "search": ("search", {"rollouts": 32, "base": "greedy_trader", "budget": "halving"}),
}

POLICY_DESCRIPTIONS = {
    "cautious": "heuristic: keeps Krone and Stamina in reserve, favours Shield Buffs, retreats or bribes when beaten",
    "aggressive": "heuristic: summons and rallies early, favours Strike Buffs, never retreats",
    "greedy_trader": "heuristic: spends its Krone in Markets (Buffs, Stamina, Events, recruits), steals with Thieves",
    "random": "baseline: uniformly random among the legal actions at every decision",
    "search": "search: rollouts of `greedy_trader` from determinized copies of the state at every decision (slow)",
    "learned": "learned: a linear scorer over the Lonequest features (features.py), trained from "
               "`greedy_trader_tuned` by expert iteration over `search` (make train); about a fifth of its speed",
}


# --- helpers ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def type_at(params, k):
    """The k-th Buff type in this policy's order of preference (``buff_priority`` first)."""
    first = int(params[13])
    if k == 0:
        return first
    m = 0
    for t in range(3):
        if t != first:
            if m == k - 1:
                return t
            m += 1
    return first


@njit(cache=True, _nrt=False)
def best_location(s, params, prng, legal, n):
    """Where to march (or start) among the Location ids in ``legal[:n]`` (route: fewest/most cards left, or
    random)."""
    if params[19] == 2.0:
        m = 0
        for k in range(n):
            if legal[k] < L.N_LOC:
                m += 1
        return legal[randbelow(prng, m)]
    best, best_n = -1, 0
    for k in range(n):
        loc = legal[k]
        if loc >= L.N_LOC:
            continue
        c = s[L.LOC_N + loc]
        if best < 0 or (c < best_n if params[19] == 0.0 else c > best_n):
            best, best_n = loc, c
    return best


@njit(cache=True, _nrt=False)
def best_destination(s, env, params, prng, base, only_cleared):
    """Retreat / Bribe destination among the Locations it may go to (as the march route)."""
    m = 0
    for t in range(L.N_LOC):
        m += E.escape_target(s, env, t, only_cleared)
    if params[19] == 2.0:
        k = randbelow(prng, m)
        for t in range(L.N_LOC):
            if E.escape_target(s, env, t, only_cleared):
                if k == 0:
                    return base + t
                k -= 1
    best, best_n = -1, 0
    for t in range(L.N_LOC):
        if E.escape_target(s, env, t, only_cleared):
            c = s[L.LOC_N + t]
            if best < 0 or (c < best_n if params[19] == 0.0 else c > best_n):
                best, best_n = t, c
    return base + best


@njit(cache=True, _nrt=False)
def pick_marauder(s, env, strongest):
    fighters = env[E.E_FIGHTERS]
    best, best_v = 0, -1 << 30
    for j in range(s[L.MAR_N]):
        f = s[E.mar_slot(j)]
        v = E.marauder_left(s, env, j) * 10 + fighters[f, L.FS] if strongest else fighters[f, L.FSH]
        if v > best_v:
            best, best_v = j, v
    return best


@njit(cache=True, _nrt=False)
def lightning_gain(s, env):
    """Lightning Bolt's expected Marauders defeated minus own Fighters lost, over its roll X = 1..10, in the
    engine's order: pass p deals 1 damage to each Marauder still standing (Health left >= p), then to each of your
    Fighters still standing, until X is dealt; a card with p Health left falls in pass p."""
    nm, nf = s[L.MAR_N], s[L.FRONT_N]
    total = 0
    for x0 in range(1, 11):
        x, p, km, kf = x0, 1, 0, 0
        while x > 0:
            hit = False
            for j in range(nm):
                h = E.marauder_left(s, env, j)
                if x > 0 and h >= p:
                    hit = True
                    x -= 1
                    if h == p:
                        km += 1
            for i in range(nf):
                h = E.health_left(s, env, i)
                if x > 0 and h >= p:
                    hit = True
                    x -= 1
                    if h == p:
                        kf += 1
            if not hit:
                break
            p += 1
        total += km - kf
    return total / 10.0


# --- the heuristics, decision by decision --------------------------------------------------------------

@njit(cache=True, _nrt=False)
def heuristic_special(s, env, params, prng):
    """The heuristic's special combat action (see PARAMS); the legality checks mirror ``engine.special_list``."""
    n, m = s[L.FRONT_N], s[L.MAR_N]
    ev = E.hand_events(s, env)
    wb = L.deck_len(s, L.WB_HEAD) > 0
    room = n < L.MAX_FRONT
    if ev & (1 << E.EV_POTION):
        # when a Fighter is down to 1 Health: the Fighter the Potion heals most (rule potion)
        low, best, best_v = False, -1, 0
        for i in range(n):
            healed = s[E.slot(i) + L.F_DAMAGE] - E.potion_damage(s, env, i)
            if healed > 0 and E.health_left(s, env, i) == 1:
                low = True
            if healed > best_v:
                best, best_v = i, healed
        if low:
            return L.SP_POTION + best
    if ev & (1 << E.EV_LIGHTNING) and m > 0 and lightning_gain(s, env) >= params[17]:
        return L.SP_LIGHTNING
    if ev & (1 << E.EV_FIREBLAST) and n > 0:
        # on a Marauder no Fighter can True Strike: the one the Fireblast (its Strike as the engine computes it,
        # rule fireblast) most likely hits, the highest Shield among equals
        fs = E.fireblast_strike(s, env)
        best, best_p, best_sh = -1, 0.0, -1
        for j in range(m):
            sh = E.marauder_shield(s, env, j)
            can = False
            for i in range(n):
                if E.total_strike(s, env, i) > sh:
                    can = True
            if not can:
                p = E.fireblast_probability(fs, sh, env[E.E_RULES])
                if p > best_p or (p == best_p and p > 0 and sh > best_sh):
                    best, best_p, best_sh = j, p, sh
        if best >= 0:
            return L.SP_FIREBLAST + best
    if ev & (1 << E.EV_FEAR):
        for j in range(m):
            if E.marauder_left(s, env, j) >= params[16]:
                return L.SP_FEAR + pick_marauder(s, env, True)
    if ev & (1 << E.EV_REINFORCE) and wb and room and n < m + 1:
        return L.SP_REINFORCE
    if s[L.STAMINA] >= 1 and wb and room and n < params[3] and s[L.STAMINA] >= params[4]:
        return L.SP_RALLY
    # beaten: every Fighter at 1 Health and the Marauders have more Health left than we have Fighters
    beaten = n > 0
    for i in range(n):
        if E.health_left(s, env, i) > 1:
            beaten = False
    left = 0
    for j in range(m):
        left += E.marauder_left(s, env, j)
    if beaten and left > n and L.deck_len(s, L.WB_HEAD) <= 1:
        if ev & (1 << E.EV_FEAR):  # send the strongest away rather than lose the Frontline
            return L.SP_FEAR + pick_marauder(s, env, True)
        has_succ, has_cleared = E.successor_flags(s, env)
        if has_cleared and s[L.KRONE] >= 10 * m and params[6] > 0:
            return best_destination(s, env, params, prng, L.SP_BRIBE, True)
        if has_succ and params[5] > 0 and s[L.STAMINA] >= 6:
            return best_destination(s, env, params, prng, L.SP_RETREAT, False)
    return L.SP_NONE


@njit(cache=True, _nrt=False)
def heuristic_strike(s, env, params):
    """The weakest Marauder first; the cheapest True Strike, else a Team Strike, else Reckless or Chance."""
    rules = env[E.E_RULES]
    n = s[L.FRONT_N]
    j, best = 0, 1 << 30
    for x in range(s[L.MAR_N]):
        v = E.marauder_left(s, env, x) * 100 + E.marauder_shield(s, env, x)
        if v < best:
            j, best = x, v
    shield = E.marauder_shield(s, env, j)
    i, cheapest = -1, 1 << 30
    for x in range(n):
        if s[E.slot(x) + L.F_USED] == 0:
            st = E.total_strike(s, env, x)
            if shield < st < cheapest:
                i, cheapest = x, st
    if i >= 0:
        return L.ST_TRUE + i * L.MAX_MAR + j
    total, avail = E.team_sum(s, env)
    if params[1] > 0 and s[L.B_TEAM] and avail >= 2 and total > shield:
        return L.ST_TEAM + j
    i, strongest = -1, -1
    for x in range(n):
        if s[E.slot(x) + L.F_USED] == 0:
            st = E.total_strike(s, env, x)
            if st > strongest:
                i, strongest = x, st
    if E.health_left(s, env, i) == 1 and E.hit_probability(strongest, shield, rules) < params[2]:
        return L.ST_RECKLESS + i * L.MAX_MAR + j
    return L.ST_CHANCE + i * L.MAX_MAR + j


@njit(cache=True, _nrt=False)
def count_buffs(s, buffs, t):
    n = 0
    for c in range(buffs.shape[0]):
        if buffs[c, 0] == t and s[L.WHERE + c] != L.LOOT:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def buff_deal(s, buffs, t, budget, buy_new):
    """The best Buff of type t to buy (buy_new) or to trade the lowest held-in-hand one up to, within budget.
    Returns (card, trade_in card or -1, cost) or card -1."""
    trade, trade_v = -1, 99
    if not buy_new:
        trade = E.lowest_in_hand(s, buffs, t)
        if trade < 0:
            return -1, -1, 0
        trade_v = buffs[trade, 1]
    base = 0 if trade < 0 else trade_v
    best, best_v = -1, base
    for c in range(buffs.shape[0]):
        v = buffs[c, 1]
        if buffs[c, 0] == t and s[L.WHERE + c] == L.LOOT and v > best_v and 5 * (v - base) <= budget:
            best, best_v = c, v
    return best, trade, 5 * (best_v - base)


@njit(cache=True, _nrt=False)
def market_swap(s, env, params):
    """A free same-value trade ("Buff cards can be traded at the same cost"): a spare Buff (of a type it owns more
    than ``buffs_per_type`` of, and at least two: never its last of a type) for one of a type it owns fewer of, in
    its type order, the highest value first. Returns the MK_SWAP action or -1."""
    buffs = env[E.E_BUFFS]
    if env[E.E_RULES][E.R_MARKET_UP] == 1:
        return -1
    spare = max(params[12], 1.0)
    for k in range(3):
        u = type_at(params, k)
        if count_buffs(s, buffs, u) >= params[12]:
            continue
        for v in range(9, 0, -1):
            c = E.loot_buff(s, buffs, u, v)
            if c < 0:
                continue
            for t in range(3):
                if t != u and count_buffs(s, buffs, t) > spare and E.hand_buff(s, buffs, t, v) >= 0:
                    return L.MK_SWAP + 3 * c + t
    return -1


@njit(cache=True, _nrt=False)
def heuristic_market(s, env, params):
    buffs, events = env[E.E_BUFFS], env[E.E_EVENTS]
    sells = s[L.MK_SELLS]
    krone = s[L.KRONE]
    if sells & 1:
        a = market_swap(s, env, params)
        if a >= 0:
            return a
    reserve = int(params[7])
    spare = krone - reserve
    if (sells & 32) != 0 and krone >= 10 and s[L.STAMINA] < E.MAX_STAMINA and s[L.STAMINA] < params[8] \
            and krone >= 10 + reserve // 2:
        return L.MK_STAMINA
    if s[L.MK_RECRUITS] != 0 and krone >= 40 and L.deck_len(s, L.FD_HEAD) > 0 and params[11] > 0 and spare >= 40:
        return L.MK_RECRUIT
    if sells & 1:
        for k in range(3):
            t = type_at(params, k)
            new = count_buffs(s, buffs, t) < params[12]
            card, trade, cost = buff_deal(s, buffs, t, spare, new)
            if card >= 0 and cost > 0:
                return (L.MK_BUY if trade < 0 else L.MK_TRADE) + card
    if sells & (1 << 4) and krone >= 8 and params[9] > 0 and spare >= 8 \
            and E.event_in(s, events, E.EV_POTION, L.LOOT) >= 0 and E.event_in(s, events, E.EV_POTION, L.HAND) < 0:
        return L.MK_EVENT + 3
    if sells & (1 << 2) and krone >= 10 and params[10] > 0 and spare >= 10 \
            and E.event_in(s, events, E.EV_REINFORCE, L.LOOT) >= 0 \
            and E.event_in(s, events, E.EV_REINFORCE, L.HAND) < 0:
        return L.MK_EVENT + 1
    if params[20] > 0 and E.has_event(s, env, E.EV_THIEF) and E.loot_cards(s) > 0:
        return L.MK_THIEF
    return L.MK_STOP


@njit(cache=True, _nrt=False)
def heuristic_equip(s, env, params):
    """Every Fighter, left to right, gets the best Buff in hand of each type, in the policy's type order."""
    buffs = env[E.E_BUFFS]
    for i in range(s[L.FRONT_N]):
        for k in range(3):
            t = type_at(params, k)
            if s[E.slot(i) + L.F_BUFF0 + t] >= 0:
                continue
            best, best_v = -1, 0
            for c in range(buffs.shape[0]):
                if s[L.WHERE + c] == L.HAND and buffs[c, 0] == t and buffs[c, 1] > best_v:
                    best, best_v = c, buffs[c, 1]
            if best >= 0:
                return L.EQ_BASE + i * L.N_BUFFS + best
    return L.EQ_DONE


@njit(cache=True, _nrt=False)
def heuristic_grave(s, env, params):
    """The Grave Robber recovers the strongest Fighter (Strike + Shield + Health) when the deck runs low."""
    if L.deck_len(s, L.WB_HEAD) >= params[21]:
        return 0
    fighters = env[E.E_FIGHTERS]
    any_ = env[E.E_RULES][E.R_GRAVE_ANY] == 1
    best, best_v = -1, -1
    for f in range(L.N_FIGHTERS):
        g = s[L.GRAVE + f]
        if g == 1 or (g == 2 and any_):
            v = fighters[f, L.FS] + fighters[f, L.FSH] + fighters[f, L.FH]
            if v > best_v:
                best, best_v = f, v
    return 1 + best


@njit(cache=True, _nrt=False)
def needs_legal(s):
    """Does the heuristic read the legal list at this decision? (Else a kernel may skip building it.)"""
    ph = s[L.PHASE]
    return ph == L.PH_START or ph == L.PH_MARCH or ph == L.PH_GAIN_BUFF


@njit(cache=True, _nrt=False)
def heuristic(s, env, legal, n, params, prng):
    ph = s[L.PHASE]
    if ph == L.PH_STRIKE:
        return heuristic_strike(s, env, params)
    if ph == L.PH_SPECIAL:
        return heuristic_special(s, env, params, prng)
    if ph == L.PH_EQUIP:
        return heuristic_equip(s, env, params)
    if ph == L.PH_EXPLORE:
        return L.EXPLORE
    if ph == L.PH_START or ph == L.PH_MARCH:
        return best_location(s, params, prng, legal, n)
    if ph == L.PH_SUMMON:
        return 1 if s[L.STAMINA] >= params[0] else 0
    if ph == L.PH_OFFER:
        # on a harmful failure of a kind the policy names, keeping the reserve
        if s[L.TF_HARMFUL] == 0 or (int(params[14]) & (1 << s[L.TF_CTX])) == 0:
            return 0
        return 1 if s[L.KRONE] >= 20 + params[15] else 0
    if ph == L.PH_DIVINE_DEFEND:
        return 1 if params[18] > 0 and E.health_left(s, env, 0) <= s[L.B_HITS] else 0
    if ph == L.PH_DIVINE_QUEST:
        q = s[L.Q_ACTIVE]
        off = env[E.E_OFF]
        return 1 if params[18] > 0 and E.block_harmful(env[E.E_CODE], off[q], off[q + 1]) else 0
    if ph == L.PH_THIEF:
        return 1
    if ph == L.PH_MARKET:
        return heuristic_market(s, env, params)
    if ph == L.PH_GRAVE:
        return heuristic_grave(s, env, params)
    if ph == L.PH_BOON:
        # Monstrous Roar sends the strongest Marauder away; a Magic Storm point goes where it defeats soonest
        if s[L.BN_ROAR] > 0:
            return pick_marauder(s, env, True)
        best, best_v = 0, 1 << 30
        for j in range(s[L.MAR_N]):
            v = E.marauder_left(s, env, j)
            if v < best_v:
                best, best_v = j, v
        return best
    if ph == L.PH_GAIN_BUFF:
        for k in range(3):
            t = type_at(params, k)
            for x in range(n):
                if legal[x] == t:
                    return t
    return legal[0]


LEARNED_FNS = specialize_learned(F.features, heuristic, N_PARAMS, F.N_FEATURES, F.MAX_NNZ, __name__, F.state,
                                 F.N_STATE)
learned_action = LEARNED_FNS.learned_action


@njit(cache=True, _nrt=False)
def policy(kind, s, env, legal, n, params, prng):
    """The decision interface's policy: ``heuristic`` (steered by ``params``), ``random`` (uniform) or
    ``learned`` (a scorer over ``features``, with ``heuristic`` as its base)."""
    if kind == RANDOM:
        return legal[randbelow(prng, n)]
    if kind == LEARNED:
        return learned_action(s, env, legal, n, params, prng)
    return heuristic(s, env, legal, n, params, prng)


def param_vector(overrides: dict | None = None) -> np.ndarray:
    """This game's parameter vector: the defaults of ``PARAMS`` with ``overrides``."""
    return _core.param_vector(PARAMS, overrides)
