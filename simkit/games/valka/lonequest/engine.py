"""The Lonequest rules as numba functions over the flat state vector (see ``layout``).

Every rule function takes ``(s, data, rules, kind, params, rng, prng, script, log)``:

* ``s``      int32 state vector of one game (``layout``);
* ``data``   card arrays ``(fighters, buffs, events, quest_code, quest_off, adj, south)``;
* ``rules``  int64 rule options (``R_*`` below);
* ``kind``, ``params``  the policy (``policies``);
* ``rng``    the game's dice stream, ``prng`` the policy's own stream (uint64[4] each);
* ``script`` int32 ``[next, d10, d10, …]``: scripted d10 results used before ``rng``
  (for tests that play fixed dice; ``[1]`` means none);
* ``log``    int32 ``[count, (strike, shield, outcome) …]``: Chance Strikes recorded
  for the statistical check (``[0]`` with no room records nothing).

Rule sentences are quoted from valka.txt, "Lonequest Rules", unless marked core.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.rng import randbelow, roll, shuffle
from simkit.games.valka.chance_strike import ATTACKER_HITS, BOTH_HURT, DEFENDER_HITS, resolve
from simkit.games.valka.lonequest import layout as L
from simkit.games.valka.lonequest import policies as pol
from simkit.games.valka.quests import (
    OP_DAMAGE, OP_GAIN_BUFF, OP_IF, OP_KRONE, OP_LOSE_BUFF, OP_MARAUDER, OP_MARKET, OP_MOVE, OP_PICKPOCKET,
    OP_STAMINA, OP_TEST_FATE,
)

# --- rule options (int64 vector) ------------------------------------------------------------
(R_STRONG_ENUF, R_LONE_ONE_LOSES, R_DEFENDER_DAMAGE, R_BOONS, R_SCOPE_GAME, R_GRAVE_ANY, R_STEP_CAP,
 R_START_KRONE, R_START_STAMINA, R_QUESTS, R_RANDOM_FIGHTERS, R_FIREBLAST_OWN) = range(12)
N_RULES = 12
STRONG_SUM, STRONG_EACH, STRONG_MAX = 0, 1, 2
MAX_KRONE, MAX_STAMINA = 99, 9

# Event kinds (cards.EVENT_KINDS order)
EV_FEAR, EV_POTION, EV_RETREAT, EV_REINFORCE, EV_CHANGELING, EV_DIVINE_AID, EV_FIREBLAST, EV_LIGHTNING, \
    EV_THIEF, EV_GRAVE_ROBBER = range(10)
# Warbands with boons that change numbers (cards.WARBANDS order)
WB_BARBARIANS, WB_GOBLINS, WB_KNIGHTS = 0, 2, 3
JOKER = 8

# special combat actions, before an attack
(A_NONE, A_RALLY, A_RETREAT, A_BRIBE, A_FEAR, A_POTION, A_REINFORCE, A_CHANGELING, A_RETREAT_EVENT,
 A_FIREBLAST, A_LIGHTNING) = range(11)
N_ACTIONS = 11
# market actions
(M_STOP, M_BUY_STRIKE, M_BUY_SHIELD, M_BUY_HEALTH, M_RETREAT, M_REINFORCE, M_CHANGELING, M_POTION, M_STAMINA,
 M_RECRUIT, M_THIEF) = range(11)
N_MARKET = 11
MARKET_EVENT_PRICE = (0, 0, 0, 0, 10, 10, 12, 8)  # indexed by M_*: "Retreat / Reinforce 10 Krone, Changeling 12, Healing Potion 8"
MARKET_EVENT_KIND = (-1, -1, -1, -1, EV_RETREAT, EV_REINFORCE, EV_CHANGELING, EV_POTION)
MARKET_GOOD_BIT = (0, 0, 0, 0, 1, 2, 3, 4)  # quests.MARKET_GOODS index for M_RETREAT..M_POTION; buffs bit 0, stamina bit 5


# --- small helpers ----------------------------------------------------------------------------

@njit(cache=True)
def d10(rng, script):
    """One d10: the next scripted result if any, else a roll of the game's stream."""
    i = script[0]
    if i < script.shape[0]:
        script[0] = i + 1
        return script[i]
    return roll(rng, 10)


@njit(cache=True)
def add_krone(s, amount):
    """"You cannot have more than 99 Krone." (never below 0)"""
    s[L.KRONE] = min(MAX_KRONE, max(0, s[L.KRONE] + amount))


@njit(cache=True)
def add_stamina(s, amount):
    """"You cannot have more than 9 Stamina." (never below 0)"""
    s[L.STAMINA] = min(MAX_STAMINA, max(0, s[L.STAMINA] + amount))


@njit(cache=True)
def warband_bit(fighters, f):
    """The Warband bitmask of Fighter f; "The Jokers … count as a Fighter of any Warband" (core)."""
    w = fighters[f, L.FW]
    return 0xFF if w == JOKER else (1 << w)


@njit(cache=True)
def slot(i):
    return L.FRONT + i * L.F_SIZE


@njit(cache=True)
def boon(s, fighters, rules, warband):
    """Is the Warband Boon of ``warband`` active (2+ Frontline Fighters of it, Jokers count)? Rule option."""
    if rules[R_BOONS] == 0:
        return False
    members, real = 0, 0
    for i in range(s[L.FRONT_N]):
        w = fighters[s[slot(i)], L.FW]
        if w == warband:
            members += 1
            real += 1
        elif w == JOKER:
            members += 1
    return members >= 2 and real >= 1


@njit(cache=True)
def buff_value(s, buffs, i, t):
    card = s[slot(i) + L.F_BUFF0 + t]
    return 0 if card < 0 else buffs[card, 1]


@njit(cache=True)
def total_strike(s, data, rules, i):
    """Base Strike + Strike Buff (+1 with the Goblins' "Raging Raiders" boon)."""
    fighters, buffs = data[0], data[1]
    v = fighters[s[slot(i)], L.FS] + buff_value(s, buffs, i, 0)
    return v + 1 if boon(s, fighters, rules, WB_GOBLINS) else v


@njit(cache=True)
def total_shield(s, data, rules, i):
    """Base Shield + Shield Buff (+1 with the Knights' "Valiant Courage" boon)."""
    fighters, buffs = data[0], data[1]
    v = fighters[s[slot(i)], L.FSH] + buff_value(s, buffs, i, 1)
    return v + 1 if boon(s, fighters, rules, WB_KNIGHTS) else v


@njit(cache=True)
def health_left(s, data, i):
    fighters, buffs = data[0], data[1]
    return fighters[s[slot(i)], L.FH] + buff_value(s, buffs, i, 2) - s[slot(i) + L.F_DAMAGE]


@njit(cache=True)
def strike_damage(s, data, rules):
    """"Berserker Barrage: True Strikes and Team Strikes deal 2 Damage." (core boon, option)"""
    return 2 if boon(s, data[0], rules, WB_BARBARIANS) else 1


@njit(cache=True)
def mar_slot(j):
    return L.MAR + 2 * j


@njit(cache=True)
def event_in(s, events, kind, where):
    """The card index (22 + e) of an Event of ``kind`` in ``where`` (LOOT or HAND), or -1."""
    for e in range(events.shape[0]):
        if events[e] == kind and s[L.WHERE + L.N_BUFFS + e] == where:
            return L.N_BUFFS + e
    return -1


@njit(cache=True)
def spend_event(s, card):
    """"Once the effect of an Event card has resolved, these cards are discarded" — back to the Loot deck."""
    s[L.WHERE + card] = L.LOOT


@njit(cache=True)
def mark_played(s, fighters, rules, f):
    s[L.PLAYED + s[L.LOC]] |= warband_bit(fighters, f)


@njit(cache=True)
def mark_faced(s, fighters, f):
    s[L.FACED + s[L.LOC]] |= warband_bit(fighters, f)


@njit(cache=True)
def warband_mask(s, base, rules):
    """"played"/"faced" Warbands: at this Location (default) or in the whole Lonequest (option)."""
    if rules[R_SCOPE_GAME] == 0:
        return s[base + s[L.LOC]]
    m = 0
    for loc in range(L.N_LOC):
        m |= s[base + loc]
    return m


# --- Frontline --------------------------------------------------------------------------------

@njit(cache=True)
def front_add(s, data, rules, f):
    """Place Fighter f at the right end of the Frontline ("to the right of your first")."""
    i = s[L.FRONT_N]
    b = slot(i)
    s[b] = f
    s[b + L.F_DAMAGE] = 0
    s[b + 2] = -1
    s[b + 3] = -1
    s[b + 4] = -1
    s[L.FRONT_N] = i + 1
    mark_played(s, data[0], rules, f)


TO_GRAVEYARD, TO_WARBAND_KEEP, TO_WARBAND_LOOT = 0, 1, 2


@njit(cache=True)
def front_remove(s, i, to):
    """Take Frontline Fighter i out. Killed: "sent to the Graveyard. Any Buffs they are equipped with are
    returned to the Loot Deck"; otherwise to the bottom of the Warband Deck, Buffs to hand (or Loot)."""
    b = slot(i)
    f = s[b]
    for t in range(3):
        card = s[b + L.F_BUFF0 + t]
        if card >= 0:
            s[L.WHERE + card] = L.HAND if to == TO_WARBAND_KEEP else L.LOOT
    if to == TO_GRAVEYARD:
        s[L.GRAVE + f] = 1
    else:
        L.deck_push_bottom(s, L.WB_HEAD, f)
    n = s[L.FRONT_N]
    for k in range(i, n - 1):
        for c in range(L.F_SIZE):
            s[slot(k) + c] = s[slot(k + 1) + c]
    s[L.FRONT_N] = n - 1


@njit(cache=True)
def damage_fighter(s, data, i, amount):
    """Deal damage to Frontline Fighter i; returns True if it was slain."""
    s[slot(i) + L.F_DAMAGE] += amount
    if health_left(s, data, i) <= 0:
        front_remove(s, i, TO_GRAVEYARD)
        return True
    return False


@njit(cache=True)
def draw_fighter(s, data, rules):
    """"Reveal the top Fighter from your Warband Deck." False when there is none."""
    if s[L.FRONT_N] >= L.MAX_FRONT:
        return False
    f = L.deck_pop_top(s, L.WB_HEAD)
    if f < 0:
        return False
    front_add(s, data, rules, f)
    return True


@njit(cache=True)
def equip(s, data, kind, params, prng):
    """"You may apply Buffs to raise their stats" — at most one Buff of each type per Fighter (core)."""
    buffs = data[1]
    order = np.empty(3, np.int64)
    pol.buff_type_order(kind, params, prng, order)
    for i in range(s[L.FRONT_N]):
        for k in range(3):
            t = order[k]
            if s[slot(i) + L.F_BUFF0 + t] >= 0:
                continue
            best, best_v = -1, 0
            for c in range(buffs.shape[0]):
                if s[L.WHERE + c] == L.HAND and buffs[c, 0] == t and buffs[c, 1] > best_v:
                    best, best_v = c, buffs[c, 1]
            if best >= 0 and pol.want_equip(kind, prng):
                s[slot(i) + L.F_BUFF0 + t] = best
                s[L.WHERE + best] = L.EQUIPPED


@njit(cache=True)
def return_frontline(s, data, kind, params, rng, prng, script):
    """"Before moving to a new map location and revealing a new Fighter from your deck … Test Fate against any
    equipped Buff card: EVEN … Return the Buff card to your hand. ODD … returned to its Loot deck", and "put the
    fighters you used at the bottom of your Warband deck"."""
    buffs = data[1]
    for i in range(s[L.FRONT_N]):
        for t in range(3):
            card = s[slot(i) + L.F_BUFF0 + t]
            if card >= 0:
                keep = player_test_fate(s, kind, params, rng, prng, script, 2, buffs[card, 1] >= 2)
                s[L.WHERE + card] = L.HAND if keep else L.LOOT
                s[slot(i) + L.F_BUFF0 + t] = -1
    while s[L.FRONT_N] > 0:
        front_remove(s, 0, TO_WARBAND_KEEP)


@njit(cache=True)
def new_fighter_or_defeat(s, data, rules, kind, params, prng):
    """"If all face up Warband Fighters are defeated in Battle, draw and reveal a new fighter from your Warband
    deck and equip them if able. … If you have no Warband Fighters to draw …, you have failed"."""
    if draw_fighter(s, data, rules):
        equip(s, data, kind, params, prng)
        return True
    s[L.DONE] = 1
    s[L.CAUSE] = L.CAUSE_NO_FIGHTERS
    return False


# --- Test Fate ------------------------------------------------------------------------------------

@njit(cache=True)
def player_test_fate(s, kind, params, rng, prng, script, context, harmful):
    """Test Fate: "An EVEN outcome … The beneficial outcome resolves." With the once-per-Lonequest offering
    ("spend 20 Krone … that failed test of fate instead goes in your favor") if the policy makes it."""
    s[L.TESTS] += 1
    ok = d10(rng, script) % 2 == 0
    if not ok and s[L.OFFERING_USED] == 0 and s[L.KRONE] >= 20 \
            and pol.use_offering(kind, params, prng, s, context, harmful):
        s[L.KRONE] -= 20
        s[L.OFFERING_USED] = 1
        ok = True
    if ok:
        s[L.TESTS_WON] += 1
    return ok


# --- Marauders ------------------------------------------------------------------------------------

@njit(cache=True)
def add_marauder(s, data, f):
    if s[L.MAR_N] >= L.MAX_MAR:
        L.deck_push_bottom(s, L.FD_HEAD, f)
        return
    j = s[L.MAR_N]
    s[mar_slot(j)] = f
    s[mar_slot(j) + 1] = 0
    s[L.MAR_N] = j + 1
    mark_faced(s, data[0], f)


@njit(cache=True)
def remove_marauder(s, j, to_graveyard):
    f = s[mar_slot(j)]
    if to_graveyard:
        s[L.GRAVE + f] = 2
    else:
        L.deck_push_bottom(s, L.FD_HEAD, f)
    n = s[L.MAR_N]
    for k in range(j, n - 1):
        s[mar_slot(k)] = s[mar_slot(k + 1)]
        s[mar_slot(k) + 1] = s[mar_slot(k + 1) + 1]
    s[L.MAR_N] = n - 1


@njit(cache=True)
def damage_marauder(s, data, j, amount):
    """Returns True if Marauder j was defeated (it goes to the Graveyard; counted for the Reward)."""
    fighters = data[0]
    s[mar_slot(j) + 1] += amount
    if s[mar_slot(j) + 1] >= fighters[s[mar_slot(j)], L.FH]:
        remove_marauder(s, j, True)
        s[L.DEFEATED] += 1
        return True
    return False


@njit(cache=True)
def marauder_left(s, data, j):
    return data[0][s[mar_slot(j)], L.FH] - s[mar_slot(j) + 1]


@njit(cache=True)
def all_marauders_away(s):
    """"Send all face up Marauders to the bottom of the Fighter Deck" (Retreat, Bribe)."""
    while s[L.MAR_N] > 0:
        remove_marauder(s, 0, False)


# --- Attack ---------------------------------------------------------------------------------------

STRIKE_TRUE, STRIKE_TEAM, STRIKE_RECKLESS, STRIKE_CHANCE = 0, 1, 2, 3


@njit(cache=True)
def chance_strike(s, data, rules, rng, script, log, i, j):
    """Core Chance Strike of Frontline Fighter i against Marauder j (both roll a d10)."""
    fighters = data[0]
    strike = total_strike(s, data, rules, i)
    shield = fighters[s[mar_slot(j)], L.FSH]
    a = d10(rng, script)
    d = d10(rng, script)
    out = resolve(a, d, strike, shield, rules[R_LONE_ONE_LOSES] == 1, rules[R_DEFENDER_DAMAGE] == 1)
    s[L.CHANCE_STRIKES] += 1
    k = log[0]
    if 1 + 3 * (k + 1) <= log.shape[0]:
        log[1 + 3 * k] = strike
        log[2 + 3 * k] = shield
        log[3 + 3 * k] = out
        log[0] = k + 1
    # the Marauder first, then the Fighter (indices stay valid: they live in different arrays)
    if out == ATTACKER_HITS or out == BOTH_HURT:
        damage_marauder(s, data, j, 1)
    if out == DEFENDER_HITS or out == BOTH_HURT:
        damage_fighter(s, data, i, 1)


@njit(cache=True)
def hit_probability(strike, shield, rules):
    """P(a Chance Strike damages the Marauder), counted over the 100 rolls (for the Reckless decision)."""
    n = 0
    for a in range(1, 11):
        for d in range(1, 11):
            o = resolve(a, d, strike, shield, rules[R_LONE_ONE_LOSES] == 1, rules[R_DEFENDER_DAMAGE] == 1)
            if o == ATTACKER_HITS or o == BOTH_HURT:
                n += 1
    return n / 100.0


@njit(cache=True)
def attack(s, data, rules, kind, params, rng, prng, script, log):
    """"Attack! … your revealed Warband fighters deal damage to revealed Marauders … with True, Chance, Reckless
    and Team Strikes (if you control 2 or more Fighters)." Each Fighter attacks once."""
    fighters = data[0]
    used = np.zeros(L.N_FIGHTERS, np.bool_)
    team_allowed = s[L.FRONT_N] >= 2
    while s[L.MAR_N] > 0 and s[L.DONE] == 0:
        n = s[L.FRONT_N]
        avail = 0
        for i in range(n):
            if not used[s[slot(i)]]:
                avail += 1
        if avail == 0:
            return
        if kind == pol.RANDOM:
            # a random available Fighter, a random target, a random legal strike
            k = randbelow(prng, avail)
            i = -1
            for x in range(n):
                if not used[s[slot(x)]]:
                    if k == 0:
                        i = x
                        break
                    k -= 1
            j = randbelow(prng, s[L.MAR_N])
            shield = fighters[s[mar_slot(j)], L.FSH]
            strike = total_strike(s, data, rules, i)
            team_sum = 0
            for x in range(n):
                if not used[s[slot(x)]]:
                    team_sum += total_strike(s, data, rules, x)
            legal = np.zeros(4, np.int64)
            legal[STRIKE_TRUE] = strike > shield
            legal[STRIKE_TEAM] = team_allowed and avail >= 2 and team_sum > shield
            legal[STRIKE_RECKLESS] = health_left(s, data, i) == 1
            legal[STRIKE_CHANCE] = strike <= shield
            how = pol.pick_uniform(prng, legal)
        else:
            # the weakest Marauder first; the cheapest True Strike, else a Team Strike, else Reckless or Chance
            j, best = 0, 1 << 30
            for x in range(s[L.MAR_N]):
                v = marauder_left(s, data, x) * 100 + fighters[s[mar_slot(x)], L.FSH]
                if v < best:
                    j, best = x, v
            shield = fighters[s[mar_slot(j)], L.FSH]
            i, cheapest = -1, 1 << 30
            for x in range(n):
                if not used[s[slot(x)]]:
                    st = total_strike(s, data, rules, x)
                    if st > shield and st < cheapest:
                        i, cheapest = x, st
            team_sum = 0
            for x in range(n):
                if not used[s[slot(x)]]:
                    team_sum += total_strike(s, data, rules, x)
            if i >= 0:
                how = STRIKE_TRUE
            elif params[1] > 0 and team_allowed and avail >= 2 and team_sum > shield:
                how = STRIKE_TEAM
            else:
                i, strongest = -1, -1
                for x in range(n):
                    if not used[s[slot(x)]]:
                        st = total_strike(s, data, rules, x)
                        if st > strongest:
                            i, strongest = x, st
                if health_left(s, data, i) == 1 and hit_probability(strongest, shield, rules) < params[2]:
                    how = STRIKE_RECKLESS
                else:
                    how = STRIKE_CHANCE
        if how == STRIKE_TRUE:
            # "If the Strike score of your Fighter exceeds the target's Shield score the … enemy takes 1 damage."
            used[s[slot(i)]] = True
            damage_marauder(s, data, j, strike_damage(s, data, rules))
        elif how == STRIKE_TEAM:
            # "combine the Strike scores of one or more of your Fighters" — the strongest until they exceed
            total = 0
            while total <= shield:
                x_best, v_best = -1, -1
                for x in range(n):
                    if not used[s[slot(x)]]:
                        v = total_strike(s, data, rules, x)
                        if v > v_best:
                            x_best, v_best = x, v
                used[s[slot(x_best)]] = True
                total += v_best
            damage_marauder(s, data, j, strike_damage(s, data, rules))
        elif how == STRIKE_RECKLESS:
            # "If a Fighter has only 1 Health, you may sacrifice it to deal 1 damage to any target."
            used[s[slot(i)]] = True
            damage_marauder(s, data, j, 1)
            front_remove(s, i, TO_GRAVEYARD)
        else:
            used[s[slot(i)]] = True
            chance_strike(s, data, rules, rng, script, log, i, j)


# --- Defend ---------------------------------------------------------------------------------------

@njit(cache=True)
def defend(s, data, rules, kind, params, rng, prng, script):
    """"Strong Enuf - If the Marauder(s) strike score(s) exceeds the combined Shield Score of your Frontline
    Fighters, your left most Frontline Fighter will take one damage." Otherwise "Not Enuf": "they Test Fate
    and try to call for Reinforcements. EVEN outcome - Draw and reveal a card from the Fighter deck.\""""
    fighters = data[0]
    shield = 0
    for i in range(s[L.FRONT_N]):
        shield += total_shield(s, data, rules, i)
    hits = 0
    if rules[R_STRONG_ENUF] == STRONG_EACH:
        for j in range(s[L.MAR_N]):
            if fighters[s[mar_slot(j)], L.FS] > shield:
                hits += 1
    else:
        m = 0
        for j in range(s[L.MAR_N]):
            v = fighters[s[mar_slot(j)], L.FS]
            m = m + v if rules[R_STRONG_ENUF] == STRONG_SUM else max(m, v)
        hits = 1 if m > shield else 0
    if hits > 0:
        da = event_in(s, data[2], EV_DIVINE_AID, L.HAND)
        # "DIVINE AID can be used to prevent a single attack"
        if da >= 0 and s[L.FRONT_N] > 0 and pol.coin(kind, prng, params[18] > 0 and health_left(s, data, 0) <= hits):
            spend_event(s, da)
            return
        for _ in range(hits):
            if s[L.FRONT_N] == 0:
                break
            damage_fighter(s, data, 0, 1)
    else:
        if d10(rng, script) % 2 == 0:
            f = L.deck_pop_top(s, L.FD_HEAD)
            if f >= 0:
                add_marauder(s, data, f)


# --- Special Combat Actions and Events ----------------------------------------------------------

@njit(cache=True)
def successors(s, data, only_cleared):
    """Locations "you can travel to from your current location" along the arrows."""
    adj = data[5]
    mask = np.zeros(L.N_LOC, np.int64)
    loc = s[L.LOC]
    for t in range(L.N_LOC):
        if adj[loc, t] and (not only_cleared or s[L.LOC_N + t] == 0):
            mask[t] = 1
    return mask


@njit(cache=True)
def move_to(s, data, dest):
    """Go to ``dest``; the Fighters who come along now fight for you there ("played")."""
    if dest >= 0 and dest != s[L.LOC]:
        s[L.PREV_LOC] = s[L.LOC]
        s[L.LOC] = dest
        s[L.VISITED + dest] = 1
        for i in range(s[L.FRONT_N]):
            s[L.PLAYED + dest] |= warband_bit(data[0], s[slot(i)])


@njit(cache=True)
def special_legal(s, data, mask):
    events = data[2]
    loc = s[L.LOC]
    adj = data[5]
    has_succ, has_cleared_succ = False, False
    for t in range(L.N_LOC):
        if adj[loc, t]:
            has_succ = True
            if s[L.LOC_N + t] == 0:
                has_cleared_succ = True
    damaged = False
    for i in range(s[L.FRONT_N]):
        if s[slot(i) + L.F_DAMAGE] > 0:
            damaged = True
    wb = L.deck_len(s, L.WB_HEAD) > 0
    room = s[L.FRONT_N] < L.MAX_FRONT
    mask[:] = 0
    mask[A_NONE] = 1
    mask[A_RALLY] = s[L.STAMINA] >= 1 and wb and room
    mask[A_RETREAT] = s[L.STAMINA] >= 4 and has_succ
    mask[A_BRIBE] = s[L.KRONE] >= 10 * s[L.MAR_N] and has_cleared_succ
    mask[A_FEAR] = event_in(s, events, EV_FEAR, L.HAND) >= 0
    mask[A_POTION] = event_in(s, events, EV_POTION, L.HAND) >= 0 and damaged
    mask[A_REINFORCE] = event_in(s, events, EV_REINFORCE, L.HAND) >= 0 and wb and room
    mask[A_CHANGELING] = event_in(s, events, EV_CHANGELING, L.HAND) >= 0 and wb and s[L.FRONT_N] > 0
    mask[A_RETREAT_EVENT] = event_in(s, events, EV_RETREAT, L.HAND) >= 0 and s[L.FRONT_N] > 0
    mask[A_FIREBLAST] = event_in(s, events, EV_FIREBLAST, L.HAND) >= 0 and s[L.FRONT_N] > 0
    mask[A_LIGHTNING] = event_in(s, events, EV_LIGHTNING, L.HAND) >= 0


@njit(cache=True)
def heuristic_special(s, data, rules, params, mask):
    """The heuristic's choice among the legal special actions (see policies.PARAMS)."""
    fighters = data[0]
    n, m = s[L.FRONT_N], s[L.MAR_N]
    if mask[A_POTION]:
        for i in range(n):
            if s[slot(i) + L.F_DAMAGE] > 0 and health_left(s, data, i) == 1:
                return A_POTION
    if mask[A_LIGHTNING] and m >= params[17]:
        return A_LIGHTNING
    if mask[A_FIREBLAST]:
        for j in range(m):
            sh = fighters[s[mar_slot(j)], L.FSH]
            can = False
            for i in range(n):
                if total_strike(s, data, rules, i) > sh:
                    can = True
            if not can:
                return A_FIREBLAST
    if mask[A_FEAR]:
        for j in range(m):
            if marauder_left(s, data, j) >= params[16]:
                return A_FEAR
    if mask[A_REINFORCE] and n < m + 1:
        return A_REINFORCE
    if mask[A_RALLY] and n < params[3] and s[L.STAMINA] >= params[4]:
        return A_RALLY
    # beaten: every Fighter at 1 Health and the Marauders have more Health left than we have Fighters
    beaten = n > 0
    for i in range(n):
        if health_left(s, data, i) > 1:
            beaten = False
    left = 0
    for j in range(m):
        left += marauder_left(s, data, j)
    if beaten and left > n and L.deck_len(s, L.WB_HEAD) <= 1:
        if mask[A_BRIBE] and params[6] > 0:
            return A_BRIBE
        if mask[A_RETREAT] and params[5] > 0 and s[L.STAMINA] >= 6:
            return A_RETREAT
    return A_NONE


@njit(cache=True)
def pick_fighter(s, data, kind, prng, want_damaged):
    """Which Frontline Fighter an Event targets: the most damaged (heuristic) or a random one."""
    n = s[L.FRONT_N]
    if kind == pol.RANDOM:
        return randbelow(prng, n)
    best, best_v = 0, -1 << 30
    for i in range(n):
        v = s[slot(i) + L.F_DAMAGE] if want_damaged else -health_left(s, data, i)
        if v > best_v:
            best, best_v = i, v
    return best


@njit(cache=True)
def pick_marauder(s, data, kind, prng, strongest):
    m = s[L.MAR_N]
    if kind == pol.RANDOM:
        return randbelow(prng, m)
    fighters = data[0]
    best, best_v = 0, -1 << 30
    for j in range(m):
        f = s[mar_slot(j)]
        v = marauder_left(s, data, j) * 10 + fighters[f, L.FS] if strongest else fighters[f, L.FSH]
        if v > best_v:
            best, best_v = j, v
    return best


@njit(cache=True)
def special_actions(s, data, rules, kind, params, rng, prng, script, log):
    """"Special Combat Actions … you may use during a battle before your next attack." Returns True when the
    Warband escaped (Retreat or Bribe)."""
    events = data[2]
    mask = np.zeros(N_ACTIONS, np.int64)
    for _ in range(8):
        if s[L.MAR_N] == 0 or s[L.DONE]:
            return False
        special_legal(s, data, mask)
        pref = A_NONE if kind == pol.RANDOM else heuristic_special(s, data, rules, params, mask)
        a = pol.choose_action(kind, prng, mask, pref)
        if a == A_NONE:
            return False
        if a == A_RALLY:
            # "Rally! - Spend 1 Stamina to call for help! Test Fate: EVEN … a Warband Fighter … joins your Frontline."
            add_stamina(s, -1)
            if player_test_fate(s, kind, params, rng, prng, script, 1, True):
                draw_fighter(s, data, rules)
        elif a == A_RETREAT:
            # "Retreat! - Pay 4 Stamina. Send all face up Marauders to the bottom of the Fighter Deck, send all your
            # equipment to the Loot pile then move to a location you can travel to from your current location."
            add_stamina(s, -4)
            all_marauders_away(s)
            for i in range(s[L.FRONT_N]):
                for t in range(3):
                    card = s[slot(i) + L.F_BUFF0 + t]
                    if card >= 0:
                        s[L.WHERE + card] = L.LOOT
                        s[slot(i) + L.F_BUFF0 + t] = -1
            move_to(s, data, pol.choose_location(kind, params, prng, s, successors(s, data, False)))
            return True
        elif a == A_BRIBE:
            # "Bribe - Pay 10 Krone for each revealed Marauder … escape to a location you've cleared before"
            add_krone(s, -10 * s[L.MAR_N])
            all_marauders_away(s)
            move_to(s, data, pol.choose_location(kind, params, prng, s, successors(s, data, True)))
            return True
        elif a == A_FEAR:
            # "The FEAR spell will send one Marauder back to the bottom of the Fighter deck (no rewards)"
            spend_event(s, event_in(s, events, EV_FEAR, L.HAND))
            remove_marauder(s, pick_marauder(s, data, kind, prng, True), False)
        elif a == A_POTION:
            # "Healing Potion: Brings one fighter back to full HEALTH"
            spend_event(s, event_in(s, events, EV_POTION, L.HAND))
            s[slot(pick_fighter(s, data, kind, prng, True)) + L.F_DAMAGE] = 0
        elif a == A_REINFORCE:
            # "Draw a new Fighter from your Warband deck and put into your Frontline"
            spend_event(s, event_in(s, events, EV_REINFORCE, L.HAND))
            draw_fighter(s, data, rules)
        elif a == A_CHANGELING:
            # "Swap a current fighting card with the next one face down in your Warband deck, leaving Buffs in place."
            spend_event(s, event_in(s, events, EV_CHANGELING, L.HAND))
            i = pick_fighter(s, data, kind, prng, True)
            new = L.deck_pop_top(s, L.WB_HEAD)
            L.deck_push_top(s, L.WB_HEAD, s[slot(i)])
            s[slot(i)] = new
            s[slot(i) + L.F_DAMAGE] = 0
            mark_played(s, data[0], rules, new)
        elif a == A_RETREAT_EVENT:
            # "During a battle you may move a Fighter in battle to the bottom of your Warband deck"
            spend_event(s, event_in(s, events, EV_RETREAT, L.HAND))
            front_remove(s, pick_fighter(s, data, kind, prng, False), TO_WARBAND_KEEP)
        elif a == A_FIREBLAST:
            # core: "make a Chance Strike or True Strike against them with +3. If you strike the enemy, deal 2 damage
            # to it and 1 damage to any other Frontline enemies on either side of it."
            spend_event(s, event_in(s, events, EV_FIREBLAST, L.HAND))
            j = pick_marauder(s, data, kind, prng, False)
            strike = 3
            if rules[R_FIREBLAST_OWN] == 1:
                best = 0
                for i in range(s[L.FRONT_N]):
                    best = max(best, total_strike(s, data, rules, i))
                strike += best
            shield = data[0][s[mar_slot(j)], L.FSH]
            hit = strike > shield
            if not hit:
                o = resolve(d10(rng, script), d10(rng, script), strike, shield, rules[R_LONE_ONE_LOSES] == 1, False)
                hit = o == ATTACKER_HITS or o == BOTH_HURT
            if hit:
                right = j + 1 < s[L.MAR_N]
                if right:
                    damage_marauder(s, data, j + 1, 1)
                if j > 0 and damage_marauder(s, data, j - 1, 1):
                    j -= 1  # the left neighbour fell: the target moved one place left
                damage_marauder(s, data, j, 2)
        elif a == A_LIGHTNING:
            # core: "roll a die. … deal 1 damage to X enemies … Should the order arrive at your Frontline, you must
            # assign damage to your own Frontline." — Marauders first, then your own Fighters, in turn.
            spend_event(s, event_in(s, events, EV_LIGHTNING, L.HAND))
            x = d10(rng, script)
            while x > 0 and (s[L.MAR_N] > 0 or s[L.FRONT_N] > 0):
                j = 0
                while j < s[L.MAR_N] and x > 0:
                    if not damage_marauder(s, data, j, 1):
                        j += 1
                    x -= 1
                i = 0
                while i < s[L.FRONT_N] and x > 0:
                    if not damage_fighter(s, data, i, 1):
                        i += 1
                    x -= 1
    return False


# --- Battle -----------------------------------------------------------------------------------------

@njit(cache=True)
def battle(s, data, rules, kind, params, rng, prng, script, log):
    """"Once you reveal a Marauder on a Map Location, your Warband is engaged in battle!" Attack first with
    Stamina >= 3, else Defend; Fight On until the Marauders are gone, you escape, or you are defeated; then
    "gain 10 Krone and 1 Stamina for each defeated Marauder"."""
    s[L.BATTLES] += 1
    before = s[L.DEFEATED]
    attacking = s[L.STAMINA] >= 3
    while s[L.MAR_N] > 0:
        s[L.STEPS] += 1
        if s[L.STEPS] >= rules[R_STEP_CAP]:
            s[L.DONE] = 1
            s[L.CAUSE] = L.CAUSE_CAP
            return
        if s[L.FRONT_N] == 0 and not new_fighter_or_defeat(s, data, rules, kind, params, prng):
            return
        if attacking:
            if special_actions(s, data, rules, kind, params, rng, prng, script, log):
                break
            if s[L.MAR_N] == 0:
                break
            if s[L.FRONT_N] == 0 and not new_fighter_or_defeat(s, data, rules, kind, params, prng):
                return
            attack(s, data, rules, kind, params, rng, prng, script, log)
        else:
            defend(s, data, rules, kind, params, rng, prng, script)
        attacking = not attacking
    won = s[L.DEFEATED] - before
    add_krone(s, 10 * won)
    add_stamina(s, won)


# --- Markets ----------------------------------------------------------------------------------------

@njit(cache=True)
def count_buffs(s, buffs, t):
    n = 0
    for c in range(buffs.shape[0]):
        if buffs[c, 0] == t and s[L.WHERE + c] != L.LOOT:
            n += 1
    return n


@njit(cache=True)
def buff_deal(s, buffs, t, budget, buy_new):
    """The best Buff of type t to buy (buy_new) or to trade the lowest held-in-hand one up to, within budget.
    Returns (card, trade_in card or -1, cost) or card -1."""
    trade, trade_v = -1, 99
    if not buy_new:
        for c in range(buffs.shape[0]):
            if buffs[c, 0] == t and s[L.WHERE + c] == L.HAND and buffs[c, 1] < trade_v:
                trade, trade_v = c, buffs[c, 1]
        if trade < 0:
            return -1, -1, 0
    base = 0 if trade < 0 else trade_v
    best, best_v = -1, base
    for c in range(buffs.shape[0]):
        v = buffs[c, 1]
        if buffs[c, 0] == t and s[L.WHERE + c] == L.LOOT and v > best_v and 5 * (v - base) <= budget:
            best, best_v = c, v
    return best, trade, 5 * (best_v - base)


@njit(cache=True)
def market(s, data, rules, kind, params, rng, prng, sells, recruit):
    """Markets: "Buff cards … at a cost of 5 Krone per point", trades ("a +1 Shield Buff and 5 Krone can be traded
    for a +2"), Events at their prices, Stamina at 10 Krone, "Recruit … 40 Krone … on top of your Warband Deck",
    and the Thief's "steal two random cards from the Loot deck into your hand"."""
    buffs, events = data[1], data[2]
    mask = np.zeros(N_MARKET, np.int64)
    for _ in range(24):
        krone = s[L.KRONE]
        reserve = 0 if kind == pol.RANDOM else int(params[7])
        mask[:] = 0
        mask[M_STOP] = 1
        if sells & 1:
            for t in range(3):
                card, _, _ = buff_deal(s, buffs, t, krone, True)
                card2, _, _ = buff_deal(s, buffs, t, krone, False)
                mask[M_BUY_STRIKE + t] = card >= 0 or card2 >= 0
        for m in range(M_RETREAT, M_POTION + 1):
            if sells & (1 << MARKET_GOOD_BIT[m]):
                mask[m] = krone >= MARKET_EVENT_PRICE[m] and event_in(s, events, MARKET_EVENT_KIND[m], L.LOOT) >= 0
        mask[M_STAMINA] = (sells & 32) != 0 and krone >= 10 and s[L.STAMINA] < MAX_STAMINA
        mask[M_RECRUIT] = recruit != 0 and krone >= 40 and L.deck_len(s, L.FD_HEAD) > 0
        loot_cards = 0
        for c in range(L.N_BUFFS + L.N_EVENTS):
            if s[L.WHERE + c] == L.LOOT:
                loot_cards += 1
        mask[M_THIEF] = event_in(s, events, EV_THIEF, L.HAND) >= 0 and loot_cards > 1
        pref = M_STOP
        if kind != pol.RANDOM:
            spare = krone - reserve
            order = np.empty(3, np.int64)
            pol.buff_type_order(kind, params, prng, order)
            if mask[M_STAMINA] and s[L.STAMINA] < params[8] and krone >= 10 + reserve // 2:
                pref = M_STAMINA
            elif mask[M_RECRUIT] and params[11] > 0 and spare >= 40:
                pref = M_RECRUIT
            else:
                for k in range(3):
                    t = order[k]
                    if mask[M_BUY_STRIKE + t] and pref == M_STOP:
                        new = count_buffs(s, buffs, t) < params[12]
                        card, _, cost = buff_deal(s, buffs, t, spare, new)
                        if card >= 0 and cost > 0:
                            pref = M_BUY_STRIKE + t
                if pref == M_STOP:
                    if mask[M_POTION] and params[9] > 0 and spare >= 8 and event_in(s, events, EV_POTION, L.HAND) < 0:
                        pref = M_POTION
                    elif mask[M_REINFORCE] and params[10] > 0 and spare >= 10 \
                            and event_in(s, events, EV_REINFORCE, L.HAND) < 0:
                        pref = M_REINFORCE
                    elif mask[M_THIEF] and params[20] > 0:
                        pref = M_THIEF
        a = pol.choose_action(kind, prng, mask, pref)
        if a == M_STOP or a < 0:
            return
        if a <= M_BUY_HEALTH:
            t = a - M_BUY_STRIKE
            budget = krone if kind == pol.RANDOM else krone - reserve
            new = kind == pol.RANDOM or count_buffs(s, buffs, t) < params[12]
            card, trade, cost = buff_deal(s, buffs, t, budget, new)
            if card < 0:
                card, trade, cost = buff_deal(s, buffs, t, krone, not new)
            if card < 0:
                return
            if trade >= 0:
                s[L.WHERE + trade] = L.LOOT
            s[L.WHERE + card] = L.HAND
            add_krone(s, -cost)
        elif a <= M_POTION:
            card = event_in(s, events, MARKET_EVENT_KIND[a], L.LOOT)
            s[L.WHERE + card] = L.HAND
            add_krone(s, -MARKET_EVENT_PRICE[a])
        elif a == M_STAMINA:
            add_krone(s, -10)
            add_stamina(s, 1)
        elif a == M_RECRUIT:
            # "draw a random fighter from the Fighter deck. Place the new fighter face down on top of your Warband Deck"
            add_krone(s, -40)
            k = randbelow(rng, L.deck_len(s, L.FD_HEAD))
            head = L.FD_HEAD
            pos = L.FD + (s[head] + k) % L.DECK
            top = L.FD + s[head]
            s[pos], s[top] = s[top], s[pos]
            L.deck_push_top(s, L.WB_HEAD, L.deck_pop_top(s, L.FD_HEAD))
        elif a == M_THIEF:
            thief = event_in(s, events, EV_THIEF, L.HAND)
            s[L.WHERE + thief] = -1  # in play while it steals: it cannot steal itself
            for _ in range(2):
                n = 0
                for c in range(L.N_BUFFS + L.N_EVENTS):
                    if s[L.WHERE + c] == L.LOOT:
                        n += 1
                k = randbelow(rng, n)
                for c in range(L.N_BUFFS + L.N_EVENTS):
                    if s[L.WHERE + c] == L.LOOT:
                        if k == 0:
                            s[L.WHERE + c] = L.HAND
                            break
                        k -= 1
            spend_event(s, thief)


# --- Quests -----------------------------------------------------------------------------------------

@njit(cache=True)
def block_harmful(code, a, b):
    """Does the bytecode in [a, b) (nested blocks included) contain an effect that hurts the player?"""
    pc = a
    while pc < b:
        op = code[pc]
        if op == OP_KRONE or op == OP_STAMINA:
            if code[pc + 1] < 0:
                return True
            pc += 2
        elif op == OP_TEST_FATE:
            pc += 3  # blocks follow inline
        elif op == OP_IF:
            pc += 5
        elif op == OP_MARKET or op == OP_GAIN_BUFF or op == OP_MOVE:
            if op == OP_MOVE:
                return True
            pc += 3
        elif op == OP_LOSE_BUFF or op == OP_DAMAGE or op == OP_PICKPOCKET:
            return True
        elif op == OP_MARAUDER:
            return True
        else:
            pc += 1
    return False


@njit(cache=True)
def gain_buff(s, data, kind, params, prng, t, value):
    """"gain_buff": take a Buff of that type and value from the Loot deck ("If you have all of one type of Buff …
    you cannot collect more": then there is none left to take)."""
    buffs = data[1]
    order = np.empty(3, np.int64)
    pol.buff_type_order(kind, params, prng, order)
    for k in range(3):
        tt = order[k] if t == 3 else t
        for c in range(buffs.shape[0]):
            if buffs[c, 0] == tt and buffs[c, 1] == value and s[L.WHERE + c] == L.LOOT:
                s[L.WHERE + c] = L.HAND
                return
        if t != 3:
            return


@njit(cache=True)
def lose_buff(s, data, t):
    """"lose_buff": return the lowest such Buff to the Loot deck, from hand first, else from a Fighter."""
    buffs = data[1]
    best, best_v = -1, 99
    for c in range(buffs.shape[0]):
        if (t == 3 or buffs[c, 0] == t) and s[L.WHERE + c] == L.HAND and buffs[c, 1] < best_v:
            best, best_v = c, buffs[c, 1]
    if best >= 0:
        s[L.WHERE + best] = L.LOOT
        return
    for i in range(s[L.FRONT_N]):
        for tt in range(3):
            card = s[slot(i) + L.F_BUFF0 + tt]
            if card >= 0 and (t == 3 or tt == t) and buffs[card, 1] < best_v:
                best, best_v = slot(i) + L.F_BUFF0 + tt, buffs[card, 1]
    if best >= 0:
        s[L.WHERE + s[best]] = L.LOOT
        s[best] = -1


@njit(cache=True)
def forced_move(s, data, rng, to, cost):
    """Quest moves: "If you are forced to move back to a previously cleared section, this will not cost you
    stamina unless otherwise indicated on the Quest card"; "back" is the previous Location, "start" a southern
    one, "random" one along the arrows. "If you are forced to move back a section and you are at the start of the
    game, ignore any stamina costs. Traveling back into the starting Location is always free." """
    dest = -1
    if to == 0:
        dest = s[L.PREV_LOC]
    elif to == 1:
        south = data[6]
        n = 0
        for loc in range(L.N_LOC):
            n += south[loc]
        k = randbelow(rng, n)
        for loc in range(L.N_LOC):
            if south[loc]:
                if k == 0:
                    dest = loc
                    break
                k -= 1
    else:
        mask = successors(s, data, False)
        n = 0
        for loc in range(L.N_LOC):
            n += mask[loc]
        if n > 0:
            k = randbelow(rng, n)
            for loc in range(L.N_LOC):
                if mask[loc]:
                    if k == 0:
                        dest = loc
                        break
                    k -= 1
    if dest >= 0 and dest != s[L.LOC] and dest != s[L.START]:
        add_stamina(s, -min(cost, s[L.STAMINA]))
    move_to(s, data, dest)


@njit(cache=True)
def quest(s, data, rules, kind, params, rng, prng, script, log, q):
    """Endure a Quest: run its bytecode (layout in ``quests``). "DIVINE AID can be used to … Ignore one Quest card.\""""
    code, off, events = data[3], data[4], data[2]
    start, end = off[q], off[q + 1]
    da = event_in(s, events, EV_DIVINE_AID, L.HAND)
    if da >= 0 and pol.coin(kind, prng, params[18] > 0 and block_harmful(code, start, end)):
        spend_event(s, da)
        return
    stack_end = np.zeros(8, np.int64)
    stack_cont = np.zeros(8, np.int64)
    sp = 0
    pc = start
    while s[L.DONE] == 0:
        if sp > 0 and pc == stack_end[sp - 1]:
            pc = stack_cont[sp - 1]
            sp -= 1
            continue
        if pc >= end:
            break
        op = code[pc]
        if op == OP_KRONE:
            add_krone(s, code[pc + 1])
            pc += 2
        elif op == OP_STAMINA:
            add_stamina(s, code[pc + 1])
            pc += 2
        elif op == OP_TEST_FATE:
            n_even, n_odd = code[pc + 1], code[pc + 2]
            even, odd = pc + 3, pc + 3 + n_even
            after = odd + n_odd
            if player_test_fate(s, kind, params, rng, prng, script, 0, block_harmful(code, odd, after)):
                stack_end[sp] = odd
                stack_cont[sp] = after
                sp += 1
                pc = even
            else:
                pc = odd
        elif op == OP_IF:
            who, wb, n_then, n_else = code[pc + 1], code[pc + 2], code[pc + 3], code[pc + 4]
            then, other = pc + 5, pc + 5 + n_then
            after = other + n_else
            mask = warband_mask(s, L.PLAYED if who == 0 else L.FACED, rules)
            if mask & (1 << wb):
                stack_end[sp] = other
                stack_cont[sp] = after
                sp += 1
                pc = then
            else:
                pc = other
        elif op == OP_MARKET:
            market(s, data, rules, kind, params, rng, prng, code[pc + 1], code[pc + 2])
            pc += 3
        elif op == OP_GAIN_BUFF:
            gain_buff(s, data, kind, params, prng, code[pc + 1], code[pc + 2])
            pc += 3
        elif op == OP_LOSE_BUFF:
            lose_buff(s, data, code[pc + 1])
            pc += 2
        elif op == OP_DAMAGE:
            # "damage": to the left-most Frontline Fighter
            for _ in range(code[pc + 1]):
                if s[L.FRONT_N] == 0:
                    break
                damage_fighter(s, data, 0, 1)
            if s[L.FRONT_N] == 0:
                new_fighter_or_defeat(s, data, rules, kind, params, prng)
            pc += 2
        elif op == OP_MARAUDER:
            f = L.deck_pop_top(s, L.FD_HEAD)
            here = s[L.LOC]
            if f >= 0:
                add_marauder(s, data, f)
                battle(s, data, rules, kind, params, rng, prng, script, log)
            if s[L.LOC] != here:
                return  # escaped by Retreat or Bribe: the rest of the Quest stays behind
            pc += 1
        elif op == OP_MOVE:
            forced_move(s, data, rng, code[pc + 1], code[pc + 2])
            pc += 3
        elif op == OP_PICKPOCKET:
            # "The THIEF card is used to protect you against pickpockets"
            thief = event_in(s, events, EV_THIEF, L.HAND)
            if thief >= 0 and pol.coin(kind, prng, True):
                spend_event(s, thief)
            else:
                add_krone(s, -code[pc + 1])
                s[L.PICKPOCKETED] += 1
            pc += 2
        else:
            pc += 1


# --- Locations ----------------------------------------------------------------------------------------

@njit(cache=True)
def clear_location(s, data, rules, kind, params, rng, prng, script):
    """"After emptying a Location of all Marauders and Quests, you receive 10 Krone and 3 Stamina." Then "Test
    Fate against any equipped Buff card: EVEN … Return the Buff card to your hand. ODD … returned to its Loot
    deck", and "put the fighters you used at the bottom of your Warband deck"."""
    add_krone(s, 10)
    add_stamina(s, 3)
    s[L.CLEARED + s[L.LOC]] = 1
    return_frontline(s, data, kind, params, rng, prng, script)


@njit(cache=True)
def march_targets(s, data, mask):
    """Uncleared Locations you can march to: along an arrow from here, from any cleared Location ("You can
    return to any cleared Location, for free") or from the start ("Traveling back into the starting Location is
    always free"), and the start itself. Costs 2 Stamina, or nothing into the start Location."""
    adj = data[5]
    mask[:] = 0
    start = s[L.START]
    for t in range(L.N_LOC):
        if s[L.LOC_N + t] == 0 or t == s[L.LOC]:
            continue
        if adj[s[L.LOC], t] or t == start or (start >= 0 and adj[start, t]):
            mask[t] = 1
            continue
        for c in range(L.N_LOC):
            if s[L.LOC_N + c] == 0 and adj[c, t]:
                mask[t] = 1
                break


@njit(cache=True)
def march_cost(s, dest):
    return 0 if dest == s[L.START] else 2


@njit(cache=True)
def grave_robber(s, data, rules, kind, params, prng):
    """"The GRAVE ROBBER can be used outside of combat to recover a defeated fighter in the Graveyard pile. They
    will be placed at the bottom of your Warband deck." (your own Fighters; rule option: any)."""
    events, fighters = data[2], data[0]
    card = event_in(s, events, EV_GRAVE_ROBBER, L.HAND)
    if card < 0:
        return
    best, best_v = -1, -1
    for f in range(L.N_FIGHTERS):
        g = s[L.GRAVE + f]
        if g == 1 or (g == 2 and rules[R_GRAVE_ANY] == 1):
            v = fighters[f, L.FS] + fighters[f, L.FSH] + fighters[f, L.FH]
            if v > best_v:
                best, best_v = f, v
    if best < 0:
        return
    if pol.coin(kind, prng, L.deck_len(s, L.WB_HEAD) < params[21]):
        spend_event(s, card)
        s[L.GRAVE + best] = 0
        L.deck_push_bottom(s, L.WB_HEAD, best)


@njit(cache=True)
def prepare(s, data, rules, kind, params, rng, prng):
    """Order of Play 1–3: "Prepare! - Turn over a random fighter from your Warband", "Equip?", "Summon? - Spend
    Stamina to summon an additional Warband fighter" (2 Stamina, a 2nd Fighter)."""
    if not new_fighter_or_defeat(s, data, rules, kind, params, prng):
        return False
    if s[L.STAMINA] >= 2 and L.deck_len(s, L.WB_HEAD) > 0 and pol.want_summon(kind, params, prng, s):
        add_stamina(s, -2)
        draw_fighter(s, data, rules)
        equip(s, data, kind, params, prng)
    return True


# --- Set-up and the whole Lonequest ---------------------------------------------------------------

@njit(cache=True)
def setup(s, data, rules, rng, warband):
    """"Setting Up": 18 of the 36 Quests; the Warband's 5 Fighters shuffled as the Warband Deck; 12 random
    Fighters from the rest; Quests and Fighters shuffled together and dealt 5 to each Location; the rest of the
    Fighters as the Fighter deck; +1 Health, +1 Strike, +1 Shield as starting equipment; 12 Krone, 3 Stamina."""
    fighters, buffs, off = data[0], data[1], data[4]
    s[:] = 0
    s[L.KRONE] = rules[R_START_KRONE]
    s[L.STAMINA] = rules[R_START_STAMINA]
    s[L.LOC] = -1
    s[L.PREV_LOC] = -1
    s[L.WARBAND] = warband
    n_quests = off.shape[0] - 1
    quests = np.arange(n_quests)
    shuffle(rng, quests, n_quests)
    own = np.empty(L.N_FIGHTERS, np.int64)
    rest = np.empty(L.N_FIGHTERS, np.int64)
    n_own, n_rest = 0, 0
    for f in range(fighters.shape[0]):
        if fighters[f, L.FW] == warband:
            own[n_own] = f
            n_own += 1
        else:
            rest[n_rest] = f
            n_rest += 1
    shuffle(rng, own, n_own)
    for k in range(n_own):
        L.deck_push_bottom(s, L.WB_HEAD, own[k])
    shuffle(rng, rest, n_rest)
    nq, nf = rules[R_QUESTS], rules[R_RANDOM_FIGHTERS]
    mapped = np.empty(nq + nf, np.int64)
    for k in range(nq):
        mapped[k] = -(quests[k] + 1)
    for k in range(nf):
        mapped[nq + k] = rest[k]
    shuffle(rng, mapped, nq + nf)
    for k in range(nf, n_rest):
        L.deck_push_bottom(s, L.FD_HEAD, rest[k])
    for loc in range(L.N_LOC):
        for i in range(L.LOC_SIZE):
            s[L.LOC_CARDS + L.LOC_SIZE * loc + i] = mapped[L.LOC_SIZE * loc + i]
        s[L.LOC_N + loc] = L.LOC_SIZE
    for t in range(3):  # "Search the Loot deck for a +1 Health, +1 Strike and +1 Shield Buff"
        for c in range(buffs.shape[0]):
            if buffs[c, 0] == t and buffs[c, 1] == 1 and s[L.WHERE + c] == L.LOOT:
                s[L.WHERE + c] = L.HAND
                break


@njit(cache=True)
def play(s, data, rules, kind, params, rng, prng, script, log, warband):
    """Play one Lonequest from set-up to victory or failure."""
    setup(s, data, rules, rng, warband)
    south = data[6]
    mask = np.zeros(L.N_LOC, np.int64)
    for loc in range(L.N_LOC):
        mask[loc] = south[loc]
    # "Begin to explore the map, starting in either of the southern most Map Locations"
    move_to(s, data, pol.choose_location(kind, params, prng, s, mask))
    s[L.PREV_LOC] = -1
    s[L.START] = s[L.LOC]
    run(s, data, rules, kind, params, rng, prng, script, log)


@njit(cache=True)
def run(s, data, rules, kind, params, rng, prng, script, log):
    """The Order of Play, from any position until victory or failure (``s[DONE]`` = 1 at the end)."""
    mask = np.zeros(L.N_LOC, np.int64)
    while s[L.DONE] == 0:
        s[L.TURNS] += 1
        s[L.STEPS] += 1
        if s[L.STEPS] >= rules[R_STEP_CAP]:
            s[L.CAUSE] = L.CAUSE_CAP
            break
        left = 0
        for loc in range(L.N_LOC):
            left += s[L.LOC_N + loc]
        if left == 0:
            break  # "You have won Lonequest if you've cleared the entire map!"
        loc = s[L.LOC]
        if s[L.LOC_N + loc] == 0:
            # a cleared Location: Fighters back to the Warband Deck, prepare, then March
            return_frontline(s, data, kind, params, rng, prng, script)
            grave_robber(s, data, rules, kind, params, prng)
            if not prepare(s, data, rules, kind, params, rng, prng):
                break
            march_targets(s, data, mask)
            reachable = False
            for t in range(L.N_LOC):
                if mask[t]:
                    reachable = True
                    if s[L.STAMINA] < march_cost(s, t):
                        mask[t] = 0
            # "If you cannot leave the Map Location you are in because you do not have enough stamina you failed"
            dest = pol.choose_location(kind, params, prng, s, mask)
            if dest < 0:
                s[L.CAUSE] = L.CAUSE_NO_STAMINA if reachable else L.CAUSE_STRANDED
                break
            add_stamina(s, -march_cost(s, dest))
            s[L.MARCHES] += 1
            move_to(s, data, dest)
            continue
        if s[L.FRONT_N] == 0 and not prepare(s, data, rules, kind, params, rng, prng):
            break
        # "Explore! - Reveal the Top card of the Map Location you're visiting."
        top = L.LOC_CARDS + L.LOC_SIZE * loc + s[L.LOC_N + loc] - 1
        card = s[top]
        s[L.LOC_N + loc] -= 1
        if card >= 0:
            add_marauder(s, data, card)
            battle(s, data, rules, kind, params, rng, prng, script, log)
        else:
            quest(s, data, rules, kind, params, rng, prng, script, log, -card - 1)
        if s[L.DONE]:
            break
        if s[L.LOC_N + loc] == 0:
            if s[L.LOC] == loc:
                clear_location(s, data, rules, kind, params, rng, prng, script)
            else:  # emptied by the card that moved you away: the reward is still yours
                add_krone(s, 10)
                add_stamina(s, 3)
                s[L.CLEARED + loc] = 1
        elif kind == pol.RANDOM and s[L.LOC] == loc and s[L.STAMINA] >= 2:
            # "If more cards remain in the location you're in EXPLORE or MARCH": the random policy may leave
            march_targets(s, data, mask)
            for t in range(L.N_LOC):
                if mask[t] and s[L.STAMINA] < march_cost(s, t):
                    mask[t] = 0
            mask_all = np.zeros(L.N_LOC + 1, np.int64)
            mask_all[:L.N_LOC] = mask
            mask_all[L.N_LOC] = 1
            dest = pol.pick_uniform(prng, mask_all)
            if dest < L.N_LOC:
                add_stamina(s, -march_cost(s, dest))
                s[L.MARCHES] += 1
                move_to(s, data, dest)
    s[L.DONE] = 1
