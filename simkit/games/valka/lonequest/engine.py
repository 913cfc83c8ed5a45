"""The Lonequest rules as a decision-point state machine (``simkit.core.decision``) over the flat state
vector (see ``layout``: every slot, every decision and its action encoding).

The engine functions, with the interface's exact signatures::

    legal_actions(s, env, out) -> n      apply_action(s, rng, env, a)      is_over(s)      to_move(s)
    reward(s, env, seat)                 resample(s, rng, env, seat, srng)  policy(kind, s, env, legal, n, params, prng)

plus ``setup(s, rng, env, warband)`` (deal a new game and stop at its first decision: the start Location) and
``invariants(s, env)`` (0, or the code of the first broken invariant, ``INV_*``).

``env`` is the tuple ``(fighters, buffs, events, quest_code, quest_off, adj, south, rules, script, log)``:

* card arrays (``layout.pack_cards``) and ``rules`` the int64 rule options (``R_*`` below);
* ``script`` int32 ``[next, d10, d10, …]``: scripted d10 results used before ``rng`` (for tests that play fixed
  dice; ``[1]`` means none). Shared and mutable: only for hand-built positions, never with `search`;
* ``log``    int32 ``[count, (strike, shield, outcome) …]``: Chance Strikes recorded for the statistical check
  (``[0]`` with no room records nothing).

How the nested Order of Play becomes a state machine: each routine that can be interrupted by a decision (the
turn, a battle, a Quest's bytecode, a Market, returning the Frontline) keeps its registers in the state and is
advanced one step at a time by ``advance``, innermost active routine first; a routine that needs a decision
sets ``PHASE`` and returns, and ``apply_action`` applies the answer and calls ``advance`` again. A decision with
a single option that needs no thought (e.g. no special action possible) is not asked.

Rule sentences are quoted from valka.txt, "Lonequest Rules", unless marked core.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.decision import reseed, reshuffle_unseen
from simkit.core.rng import randbelow, roll, shuffle
from simkit.games.valka import boons, combat
from simkit.games.valka.lonequest import layout as L
from simkit.games.valka.quests import (
    OP_DAMAGE, OP_DRAW_LOOT, OP_GAIN_BUFF, OP_GAIN_EVENT, OP_IF, OP_KRONE, OP_LOSE_BUFF, OP_MARAUDER, OP_MARKET,
    OP_MOVE, OP_PICKPOCKET, OP_STAMINA, OP_TEST_FATE,
)

# --- rule options (int64 vector) ------------------------------------------------------------
(R_STRONG_ENUF, R_LONE_ONE_LOSES, R_DEFENDER_DAMAGE, R_BOONS, R_SCOPE_GAME, R_GRAVE_ANY, R_STEP_CAP,
 R_START_KRONE, R_START_STAMINA, R_QUESTS, R_RANDOM_FIGHTERS, R_FIREBLAST_OWN, R_ESCAPE_ARROW, R_SPENT_LOOT,
 R_RETREAT_EQUIPPED, R_ESCAPE_REWARD, R_MARKET_UP, R_POTION_BASE) = range(18)
N_RULES = 18
STRONG_SUM, STRONG_EACH, STRONG_MAX = 0, 1, 2
MAX_KRONE, MAX_STAMINA = 99, 9
# env tuple
E_FIGHTERS, E_BUFFS, E_EVENTS, E_CODE, E_OFF, E_ADJ, E_SOUTH, E_RULES, E_SCRIPT, E_LOG = range(10)

# Event kinds (cards.EVENT_KINDS order)
EV_FEAR, EV_POTION, EV_RETREAT, EV_REINFORCE, EV_CHANGELING, EV_DIVINE_AID, EV_FIREBLAST, EV_LIGHTNING, \
    EV_THIEF, EV_GRAVE_ROBBER = range(10)
# Warbands (cards.WARBANDS order) whose Boons mean something in the Lonequest
WB_BARBARIANS, WB_BROTHERHOOD, WB_GOBLINS, WB_KNIGHTS, WB_MONSTERS, WB_TREE_BEASTS, WB_WIZARDS = 0, 1, 2, 3, 4, 6, 7
JOKER = 8
MAGIC_STORM = 3  # "Deal 3 damage among any Frontline enemies"
WEIRD_WARP = 3  # "Draw three cards from the draw pile"

# Market Events, by MK_EVENT + k: "Retreat / Reinforce 10 Krone, Changeling 12, Healing Potion 8"
MARKET_EVENT_PRICE = (10, 10, 12, 8)
MARKET_EVENT_KIND = (EV_RETREAT, EV_REINFORCE, EV_CHANGELING, EV_POTION)
MARKET_GOOD_BIT = (1, 2, 3, 4)  # quests.MARKET_GOODS index; Buffs bit 0, Stamina bit 5

# invariant error codes
(INV_OK, INV_FIGHTERS, INV_BUFFS, INV_EVENTS, INV_ROWS, INV_HEALTH, INV_KRONE, INV_STAMINA, INV_DECKS, INV_QUESTS,
 INV_PHASE) = range(11)
INVARIANTS = ("ok", "fighters not conserved", "Buffs not conserved", "Events misplaced", "row size out of range",
              "Health out of range", "Krone out of range", "Stamina out of range", "deck or Location size out of "
              "range", "Quests not conserved", "no decision pending in a running game")


# --- small helpers ----------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def d10(rng, env):
    """One d10: the next scripted result if any, else a roll of the game's stream."""
    script = env[E_SCRIPT]
    i = script[0]
    if i < script.shape[0]:
        script[0] = i + 1
        return script[i]
    return roll(rng, 10)


@njit(cache=True, _nrt=False)
def add_krone(s, amount):
    """"You cannot have more than 99 Krone." (never below 0)"""
    s[L.KRONE] = min(MAX_KRONE, max(0, s[L.KRONE] + amount))


@njit(cache=True, _nrt=False)
def add_stamina(s, amount):
    """"You cannot have more than 9 Stamina." (never below 0)"""
    s[L.STAMINA] = min(MAX_STAMINA, max(0, s[L.STAMINA] + amount))


@njit(cache=True, _nrt=False)
def warband_bit(fighters, f):
    """The Warband bitmask of Fighter f; "The Jokers … count as a Fighter of any Warband" (core)."""
    w = fighters[f, L.FW]
    return 0xFF if w == JOKER else (1 << w)


@njit(cache=True, _nrt=False)
def slot(i):
    return L.FRONT + i * L.F_SIZE


@njit(cache=True, _nrt=False)
def mar_slot(j):
    return L.MAR + 2 * j


@njit(cache=True, _nrt=False)
def boon(s, warband):
    """Is the Warband Boon of ``warband`` active (a Deadly Dyad or a Horrible Horde; levels are only ever set under
    the rule option ``warband_boons``)?"""
    return s[L.BOON + warband] != boons.OFF


@njit(cache=True, _nrt=False)
def buff_value(s, buffs, i, t):
    card = s[slot(i) + L.F_BUFF0 + t]
    return 0 if card < 0 else buffs[card, 1]


@njit(cache=True, _nrt=False)
def total_strike(s, env, i):
    """Base Strike + Strike Buff (+1 with the Goblins' "Raging Raiders" boon)."""
    return combat.score(env[E_FIGHTERS][s[slot(i)], L.FS], buff_value(s, env[E_BUFFS], i, 0), boon(s, WB_GOBLINS))


@njit(cache=True, _nrt=False)
def total_shield(s, env, i):
    """Base Shield + Shield Buff (+1 with the Knights' "Valiant Courage" boon)."""
    return combat.score(env[E_FIGHTERS][s[slot(i)], L.FSH], buff_value(s, env[E_BUFFS], i, 1), boon(s, WB_KNIGHTS))


@njit(cache=True, _nrt=False)
def total_health(s, env, i):
    return combat.score(env[E_FIGHTERS][s[slot(i)], L.FH], buff_value(s, env[E_BUFFS], i, 2), False)


@njit(cache=True, _nrt=False)
def health_left(s, env, i):
    return combat.health_left(total_health(s, env, i), s[slot(i) + L.F_DAMAGE])


@njit(cache=True, _nrt=False)
def potion_damage(s, env, i):
    """The damage left on Frontline Fighter i after a Healing Potion ("Brings one fighter back to full HEALTH
    (ignore Buffs)"): none (default, rule potion = "full"), or, under potion = "base", back to its printed Health
    only: the Health Buff's points of damage stay (never more than it had)."""
    d = s[slot(i) + L.F_DAMAGE]
    if env[E_RULES][R_POTION_BASE] == 1:
        return min(d, buff_value(s, env[E_BUFFS], i, 2))
    return combat.potion(d)


@njit(cache=True, _nrt=False)
def is_barbarian(s, env, i):
    w = env[E_FIGHTERS][s[slot(i)], L.FW]
    return w == WB_BARBARIANS or w == JOKER


@njit(cache=True, _nrt=False)
def strike_damage(s, kind, barbarian):
    """The damage of a strike of ``kind`` (``combat``): 2 for a True Strike by a Barbarian (or Joker) Fighter, or a
    Team Strike with one in it, under the Barbarians' Berserker Barrage, as in the multiplayer reading."""
    return combat.strike_damage(kind, barbarian and boon(s, WB_BARBARIANS))


@njit(cache=True, _nrt=False)
def event_in(s, events, kind, where):
    """The card index (22 + e) of an Event of ``kind`` in ``where`` (LOOT or HAND), or -1."""
    for e in range(events.shape[0]):
        if events[e] == kind and s[L.WHERE + L.N_BUFFS + e] == where:
            return L.N_BUFFS + e
    return -1


@njit(cache=True, _nrt=False)
def has_event(s, env, kind):
    return event_in(s, env[E_EVENTS], kind, L.HAND) >= 0


@njit(cache=True, _nrt=False)
def spend_event(s, env, card):
    """"Once the effect of an Event card has resolved, these cards are discarded to the Graveyard" (Markets;
    default), or back to the Loot deck ("Buff and Event cards discarded during the game return to the Loot deck",
    rule ``spent_events = "loot"``)."""
    s[L.WHERE + card] = L.LOOT if env[E_RULES][R_SPENT_LOOT] == 1 else L.GRAVEYARD


@njit(cache=True, _nrt=False)
def mark_played(s, fighters, f):
    s[L.PLAYED + s[L.LOC]] |= warband_bit(fighters, f)


@njit(cache=True, _nrt=False)
def mark_faced(s, fighters, f):
    s[L.FACED + s[L.LOC]] |= warband_bit(fighters, f)


@njit(cache=True, _nrt=False)
def warband_mask(s, base, rules):
    """"played"/"faced" Warbands: at this Location (default) or in the whole Lonequest (option)."""
    if rules[R_SCOPE_GAME] == 0:
        return s[base + s[L.LOC]]
    m = 0
    for loc in range(L.N_LOC):
        m |= s[base + loc]
    return m


# --- Frontline --------------------------------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def front_add(s, env, f):
    """Place Fighter f at the right end of the Frontline ("to the right of your first")."""
    i = s[L.FRONT_N]
    b = slot(i)
    s[b] = f
    s[b + L.F_DAMAGE] = 0
    s[b + 2] = -1
    s[b + 3] = -1
    s[b + 4] = -1
    s[b + L.F_USED] = 0
    s[L.FRONT_N] = i + 1
    mark_played(s, env[E_FIGHTERS], f)
    boons_enter(s, env, i)


TO_GRAVEYARD, TO_WARBAND_KEEP, TO_WARBAND_LOOT = 0, 1, 2


# --- Warband Boons (shared transitions: ``simkit.games.valka.boons``) -------------------------------

@njit(cache=True, _nrt=False)
def warband_count(s, env, w, new_i):
    """Frontline Fighters counting for Warband ``w`` (Jokers join a Warband with a real Fighter) and how many of
    them just entered (Frontline slot ``new_i``; -1: none), packed ``count * 16 + new`` (``boons.members``)."""
    fighters = env[E_FIGHTERS]
    packed = 0
    for i in range(s[L.FRONT_N]):
        packed = boons.tally(w, fighters[s[slot(i)], L.FW], packed, 1 if i == new_i else 0)
    return boons.members(packed)


@njit(cache=True, _nrt=False)
def fire_one_time(s, w):
    """The "!" Boons "happen as soon as they enter the Frontline then end": queued, resolved by ``advance``."""
    if w == WB_BROTHERHOOD:
        s[L.BN_WARP] += 1
    elif w == WB_MONSTERS:
        s[L.BN_ROAR] += 1
    elif w == WB_WIZARDS:
        s[L.BN_STORM] += MAGIC_STORM


@njit(cache=True, _nrt=False)
def boons_enter(s, env, i):
    """Frontline Fighter i just entered: "As soon as you have 2 or more Fighters from the same Warband in your
    Frontline, their Warband Boon activates!" (Lonequest Fighters enter one at a time: a newcomer that makes 2+
    activates the Boon, ``boons.after_entry`` with need 1). Only the newcomer's Warband can change (every
    Warband for a Joker)."""
    if env[E_RULES][R_BOONS] == 0 or s[L.FRONT_N] < 2:
        return
    own = env[E_FIGHTERS][s[slot(i)], L.FW]
    for w in range(L.N_WARBANDS):
        if own != JOKER and w != own:
            continue
        x = warband_count(s, env, w, i)
        r = boons.after_entry(s[L.BOON + w], x // 16, x % 16, 1)
        s[L.BOON + w] = r // 2
        if r % 2 == 1:
            s[L.BOON_FRESH] |= 1 << w
            fire_one_time(s, w)


@njit(cache=True, _nrt=False)
def boons_loss(s, env):
    """A Fighter left the Frontline: "Persisting Warband Boons become inactive when your Frontline is reduced to 2
    or fewer" (a Horde), a Dyad below 2 (``boons.after_loss``)."""
    for w in range(L.N_WARBANDS):
        if s[L.BOON + w] != boons.OFF:
            s[L.BOON + w] = boons.after_loss(s[L.BOON + w], warband_count(s, env, w, -1) // 16)


@njit(cache=True, _nrt=False)
def boons_turn_start(s, env):
    """The start of your turn, which in a Lonequest battle is each Attack ("The Marauders' turn is over" ends a
    Defend): a Horde's one-time Boon "activate[s] again at the start of each of their player's turns"; a Dyad
    "persist[s] until the start of your next turn" — one that activated outside an Attack lasts through the next
    Attack (``BOON_FRESH``). A Warband whose Boon is off stays off (3+ in the Frontline made it a Horde when the
    third entered)."""
    if env[E_RULES][R_BOONS] == 0:
        return
    for w in range(L.N_WARBANDS):
        level = s[L.BOON + w]
        if level == boons.OFF:
            continue
        r = boons.at_turn_start(level, warband_count(s, env, w, -1) // 16)
        lvl = r // 2
        if level == boons.DYAD and lvl == boons.OFF and s[L.BOON_FRESH] & (1 << w):
            lvl = boons.DYAD
        s[L.BOON + w] = lvl
        if r % 2 == 1:
            fire_one_time(s, w)


@njit(cache=True, _nrt=False)
def loot_cards(s):
    n = 0
    for c in range(L.N_BUFFS + L.N_EVENTS):
        if s[L.WHERE + c] == L.LOOT:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def draw_loot(s, rng, n):
    """Draw n random cards (Buffs or Events) from the Loot deck into your hand (fewer if it runs out)."""
    for _ in range(n):
        left = loot_cards(s)
        if left == 0:
            return
        k = randbelow(rng, left)
        for c in range(L.N_BUFFS + L.N_EVENTS):
            if s[L.WHERE + c] == L.LOOT:
                if k == 0:
                    s[L.WHERE + c] = L.HAND
                    break
                k -= 1


@njit(cache=True, _nrt=False)
def boon_pending(s, rng, env):
    """Resolve the queued one-time Boons by their Lonequest meanings: Weird Warp draws three cards from the Loot
    deck (the Lonequest's draw pile); Monstrous Roar sends a revealed Marauder to the bottom of the Fighter deck
    (as Fear: not defeated, no reward); Magic Storm deals its 3 damage one point at a time among the revealed
    Marauders. With no Marauder revealed a Roar or a Storm hits no one. The target is the player's choice
    (``PH_BOON``) when there are two or more. True if something was pending."""
    if s[L.BN_WARP] > 0:
        s[L.BN_WARP] -= 1
        draw_loot(s, rng, WEIRD_WARP)
        return True
    if s[L.BN_ROAR] > 0 or s[L.BN_STORM] > 0:
        if s[L.MAR_N] == 0:
            s[L.BN_ROAR] = 0
            s[L.BN_STORM] = 0
        elif s[L.MAR_N] == 1:
            boon_hit(s, env, 0)
        else:
            s[L.PHASE] = L.PH_BOON
        return True
    return False


@njit(cache=True, inline="always", _nrt=False)
def front_remove(s, env, i, to):
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
    boons_loss(s, env)


@njit(cache=True, _nrt=False)
def death_check(s, env, i):
    """The one death check every Health change goes through: "When a Fighter is reduced to 0 Health, that
    Fighter, and any Buffs equipped to it are moved to the Graveyard" (Buffs: back to the Loot deck). True if
    Frontline Fighter i died."""
    if combat.is_defeated(total_health(s, env, i), s[slot(i) + L.F_DAMAGE]):
        front_remove(s, env, i, TO_GRAVEYARD)
        return True
    return False


@njit(cache=True, _nrt=False)
def damage_fighter(s, env, i, amount):
    """Deal damage to Frontline Fighter i; returns True if it was slain."""
    s[slot(i) + L.F_DAMAGE] += amount
    return death_check(s, env, i)


@njit(cache=True, _nrt=False)
def unequip(s, env, i, t, where):
    """Take the Buff of type t off Frontline Fighter i (to ``where``); a Health Buff's loss goes through the
    death check. True if the Fighter died."""
    card = s[slot(i) + L.F_BUFF0 + t]
    if card < 0:
        return False
    s[L.WHERE + card] = where
    s[slot(i) + L.F_BUFF0 + t] = -1
    if t == 2:
        return death_check(s, env, i)
    return False


@njit(cache=True, _nrt=False)
def draw_fighter(s, env):
    """"Reveal the top Fighter from your Warband Deck." False when there is none."""
    if s[L.FRONT_N] >= L.MAX_FRONT:
        return False
    f = L.deck_pop_top(s, L.WB_HEAD)
    if f < 0:
        return False
    front_add(s, env, f)
    return True


@njit(cache=True, _nrt=False)
def new_fighter_or_defeat(s, env):
    """"If all face up Warband Fighters are defeated in Battle, draw and reveal a new fighter from your Warband
    deck and equip them if able. … If you have no Warband Fighters to draw …, you have failed"."""
    if draw_fighter(s, env):
        s[L.EQ_PENDING] = 1
        return True
    s[L.DONE] = 1
    s[L.CAUSE] = L.CAUSE_NO_FIGHTERS
    return False


# --- Test Fate ------------------------------------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def test_fate(s, rng, env, ctx, harmful):
    """Test Fate: "An EVEN outcome … The beneficial outcome resolves." 1 won, 0 lost; -1 lost for now: the
    once-per-Lonequest offering ("spend 20 Krone … that failed test of fate instead goes in your favor") is
    possible and PH_OFFER is pending (the result lands in TF_RESULT)."""
    s[L.TESTS] += 1
    if d10(rng, env) % 2 == 0:
        s[L.TESTS_WON] += 1
        return 1
    if s[L.OFFERING_USED] == 0 and s[L.KRONE] >= 20:
        s[L.TF_CTX] = ctx
        s[L.TF_HARMFUL] = 1 if harmful else 0
        s[L.PHASE] = L.PH_OFFER
        return -1
    return 0


# --- Marauders ------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def add_marauder(s, env, f):
    if s[L.MAR_N] >= L.MAX_MAR:
        L.deck_push_bottom(s, L.FD_HEAD, f)
        return
    j = s[L.MAR_N]
    s[mar_slot(j)] = f
    s[mar_slot(j) + 1] = 0
    s[L.MAR_N] = j + 1
    mark_faced(s, env[E_FIGHTERS], f)


@njit(cache=True, inline="always", _nrt=False)
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


@njit(cache=True, _nrt=False)
def damage_marauder(s, env, j, amount):
    """Returns True if Marauder j was defeated (it goes to the Graveyard; counted for the Reward)."""
    s[mar_slot(j) + 1] += amount
    if combat.is_defeated(env[E_FIGHTERS][s[mar_slot(j)], L.FH], s[mar_slot(j) + 1]):
        remove_marauder(s, j, True)
        s[L.DEFEATED] += 1
        return True
    return False


@njit(cache=True, _nrt=False)
def boon_hit(s, env, j):
    """Marauder j is the target of the pending Monstrous Roar (first) or of one Magic Storm point."""
    if s[L.BN_ROAR] > 0:
        s[L.BN_ROAR] -= 1
        remove_marauder(s, j, False)
    else:
        s[L.BN_STORM] -= 1
        damage_marauder(s, env, j, 1)


@njit(cache=True, _nrt=False)
def marauder_left(s, env, j):
    return env[E_FIGHTERS][s[mar_slot(j)], L.FH] - s[mar_slot(j) + 1]


@njit(cache=True, _nrt=False)
def marauder_shield(s, env, j):
    return env[E_FIGHTERS][s[mar_slot(j)], L.FSH]


@njit(cache=True, _nrt=False)
def all_marauders_away(s):
    """"Send all face up Marauders to the bottom of the Fighter Deck" (Retreat, Bribe)."""
    while s[L.MAR_N] > 0:
        remove_marauder(s, 0, False)


@njit(cache=True, inline="always", _nrt=False)
def chance_strike(s, rng, env, i, j):
    """Core Chance Strike of Frontline Fighter i against Marauder j (both roll a d10)."""
    rules, log = env[E_RULES], env[E_LOG]
    strike = total_strike(s, env, i)
    shield = marauder_shield(s, env, j)
    a = d10(rng, env)
    d = d10(rng, env)
    out = combat.chance(a, d, strike, shield, rules[R_LONE_ONE_LOSES] == 1, rules[R_DEFENDER_DAMAGE] == 1)
    s[L.CHANCE_STRIKES] += 1
    k = log[0]
    if 1 + 3 * (k + 1) <= log.shape[0]:
        log[1 + 3 * k] = strike
        log[2 + 3 * k] = shield
        log[3 + 3 * k] = out
        log[0] = k + 1
    # the Marauder first, then the Fighter (indices stay valid: they live in different arrays)
    if combat.defender_hurt(out):
        damage_marauder(s, env, j, 1)
    if combat.attacker_hurt(out):
        damage_fighter(s, env, i, 1)


@njit(cache=True, _nrt=False)
def fireblast_strike(s, env):
    """Fireblast's Strike ("make a Chance Strike or True Strike against them with +3"): 3 (default, rule fireblast
    = "plus_3", as the multiplayer engine), or your strongest Frontline Fighter's total Strike + 3
    ("fighter_plus_3")."""
    strike = combat.FIREBLAST_BONUS
    if env[E_RULES][R_FIREBLAST_OWN] == 1:
        best = 0
        for i in range(s[L.FRONT_N]):
            best = max(best, total_strike(s, env, i))
        strike += best
    return strike


@njit(cache=True, _nrt=False)
def fireblast_probability(strike, shield, rules):
    """P(a Fireblast of this Strike hits a Marauder with this Shield): 1 as a True Strike, else counted over the
    100 rolls of its Chance Strike (``combat.fireblast``: only an attacker's hit strikes)."""
    if combat.fireblast_is_true(strike, shield, False):
        return 1.0
    return combat.hit_share(strike, shield, rules[R_LONE_ONE_LOSES] == 1, False)


@njit(cache=True, _nrt=False)
def hit_probability(strike, shield, rules):
    """P(a Chance Strike damages the Marauder), counted over the 100 rolls (for the Reckless decision)."""
    return combat.hit_share(strike, shield, rules[R_LONE_ONE_LOSES] == 1, True)


# --- moving -----------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def move_to(s, env, dest):
    """Go to ``dest``; the Fighters who come along now fight for you there ("played")."""
    if dest >= 0 and dest != s[L.LOC]:
        s[L.PREV_LOC] = s[L.LOC]
        s[L.LOC] = dest
        s[L.VISITED + dest] = 1
        for i in range(s[L.FRONT_N]):
            s[L.PLAYED + dest] |= warband_bit(env[E_FIGHTERS], s[slot(i)])


@njit(cache=True, _nrt=False)
def is_successor(s, env, t, only_cleared):
    """Can you "travel to" t "from your current location" along an arrow (a cleared one: ``only_cleared``)?"""
    loc = s[L.LOC]
    return loc >= 0 and env[E_ADJ][loc, t] != 0 and (not only_cleared or s[L.LOC_N + t] == 0)


@njit(cache=True, inline="always", _nrt=False)
def escape_target(s, env, t, bribe):
    """Where an escape may go. Retreat: "move to a location you can travel to from your current location"; Bribe:
    "escape to a location you've cleared before and can travel to from your current location". You can travel
    (default, as marching) along an arrow from here, to any cleared Location ("You can return to any cleared
    Location, for free") and to the start ("Traveling back into the starting Location is always free"); rule
    ``escape = "arrow"``: along an arrow from here only."""
    loc = s[L.LOC]
    if loc < 0 or t == loc:
        return False
    cleared = s[L.LOC_N + t] == 0
    if bribe and not cleared:
        return False
    if env[E_ADJ][loc, t] != 0:
        return True
    if env[E_RULES][R_ESCAPE_ARROW] == 1:
        return False
    return cleared or t == s[L.START]


@njit(cache=True, inline="always", _nrt=False)
def march_target(s, env, t):
    """Can you march to uncleared Location t: along an arrow from here, from any cleared Location ("You can
    return to any cleared Location, for free") or from the start ("Traveling back into the starting Location is
    always free"), or to the start itself? Costs 2 Stamina, or nothing into the start Location."""
    adj = env[E_ADJ]
    if s[L.LOC_N + t] == 0 or t == s[L.LOC]:
        return False
    start = s[L.START]
    if (s[L.LOC] >= 0 and adj[s[L.LOC], t]) or t == start or (start >= 0 and adj[start, t]):
        return True
    for c in range(L.N_LOC):
        if s[L.LOC_N + c] == 0 and adj[c, t]:
            return True
    return False


@njit(cache=True, _nrt=False)
def march_cost(s, dest):
    return 0 if dest == s[L.START] else 2


@njit(cache=True, _nrt=False)
def can_march(s, env, t):
    return march_target(s, env, t) and s[L.STAMINA] >= march_cost(s, t)


@njit(cache=True, _nrt=False)
def march(s, env, dest):
    add_stamina(s, -march_cost(s, dest))
    s[L.MARCHES] += 1
    move_to(s, env, dest)


@njit(cache=True, _nrt=False)
def forced_move(s, rng, env, to, cost):
    """Quest moves: "If you are forced to move back to a previously cleared section, this will not cost you
    stamina unless otherwise indicated on the Quest card"; "back" is the previous Location, "start" a southern
    one, "random" one along the arrows. "If you are forced to move back a section and you are at the start of the
    game, ignore any stamina costs. Traveling back into the starting Location is always free." """
    dest = -1
    south = env[E_SOUTH]
    if to == 0:
        dest = s[L.PREV_LOC]
    elif to == 1:
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
        n = 0
        for loc in range(L.N_LOC):
            n += is_successor(s, env, loc, False)
        if n > 0:
            k = randbelow(rng, n)
            for loc in range(L.N_LOC):
                if is_successor(s, env, loc, False):
                    if k == 0:
                        dest = loc
                        break
                    k -= 1
    if dest >= 0 and dest != s[L.LOC] and dest != s[L.START]:
        add_stamina(s, -min(cost, s[L.STAMINA]))
    move_to(s, env, dest)


# --- Quest helpers ----------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
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
        elif op == OP_MARKET or op == OP_GAIN_BUFF:
            pc += 3
        elif op == OP_MOVE or op == OP_LOSE_BUFF or op == OP_DAMAGE or op == OP_PICKPOCKET or op == OP_MARAUDER:
            return True
        else:
            pc += 1
    return False


@njit(cache=True, _nrt=False)
def loot_buff(s, buffs, t, value):
    """The lowest-numbered Buff of type t and this value in the Loot deck, or -1."""
    for c in range(buffs.shape[0]):
        if buffs[c, 0] == t and buffs[c, 1] == value and s[L.WHERE + c] == L.LOOT:
            return c
    return -1


@njit(cache=True, _nrt=False)
def lose_buff(s, env, t):
    """"lose_buff": return the lowest such Buff to the Loot deck, from hand first, else from a Fighter."""
    buffs = env[E_BUFFS]
    best, best_v = -1, 99
    for c in range(buffs.shape[0]):
        if (t == 3 or buffs[c, 0] == t) and s[L.WHERE + c] == L.HAND and buffs[c, 1] < best_v:
            best, best_v = c, buffs[c, 1]
    if best >= 0:
        s[L.WHERE + best] = L.LOOT
        return
    bi, bt = -1, -1
    for i in range(s[L.FRONT_N]):
        for tt in range(3):
            card = s[slot(i) + L.F_BUFF0 + tt]
            if card >= 0 and (t == 3 or tt == t) and buffs[card, 1] < best_v:
                bi, bt, best_v = i, tt, buffs[card, 1]
    if bi >= 0:
        unequip(s, env, bi, bt, L.LOOT)  # a Health Buff's loss goes through the death check


# --- the routines ------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def start_battle(s):
    """"Once you reveal a Marauder on a Map Location, your Warband is engaged in battle!" Attack first with
    Stamina >= 3, else Defend."""
    s[L.B_ACTIVE] = 1
    s[L.BATTLES] += 1
    s[L.B_BEFORE] = s[L.DEFEATED]
    s[L.B_ATTACKING] = 1 if s[L.STAMINA] >= 3 else 0
    s[L.B_STAGE] = L.B_ROUND


@njit(cache=True, _nrt=False)
def end_battle(s):
    """"gain 10 Krone and 1 Stamina for each defeated Marauder"."""
    won = s[L.DEFEATED] - s[L.B_BEFORE]
    add_krone(s, 10 * won)
    add_stamina(s, won)
    s[L.B_ACTIVE] = 0
    s[L.BOON_FRESH] = 0


@njit(cache=True, _nrt=False)
def next_round(s):
    """"Fight On": Attack and Defend take turns (a Boon that activated during an Attack is no longer fresh)."""
    if s[L.B_ATTACKING]:
        s[L.BOON_FRESH] = 0
    s[L.B_ATTACKING] = 1 - s[L.B_ATTACKING]
    s[L.B_STAGE] = L.B_ROUND


@njit(cache=True, _nrt=False)
def hand_events(s, env):
    """Bitmask of the Event kinds in hand."""
    events = env[E_EVENTS]
    m = 0
    for e in range(events.shape[0]):
        if s[L.WHERE + L.N_BUFFS + e] == L.HAND:
            m |= 1 << events[e]
    return m


@njit(cache=True, _nrt=False)
def successor_flags(s, env):
    """(any Location a Retreat may go to, any a Bribe may go to)."""
    has_succ, has_cleared = False, False
    for t in range(L.N_LOC):
        if escape_target(s, env, t, False):
            has_succ = True
            if s[L.LOC_N + t] == 0:
                has_cleared = True
    return has_succ, has_cleared


@njit(cache=True, inline="always", _nrt=False)
def special_any(s, env):
    """Is any Special Combat Action or Event possible now (besides attacking)?"""
    n = s[L.FRONT_N]
    wb = L.deck_len(s, L.WB_HEAD) > 0
    room = n < L.MAX_FRONT
    if s[L.STAMINA] >= 1 and wb and room:
        return True
    ev = hand_events(s, env)
    if ev & ((1 << EV_FEAR) | (1 << EV_LIGHTNING)):
        return True
    if n > 0 and ev & ((1 << EV_RETREAT) | (1 << EV_FIREBLAST)):
        return True
    if wb and ((room and ev & (1 << EV_REINFORCE)) or (n > 0 and ev & (1 << EV_CHANGELING))):
        return True
    if ev & (1 << EV_POTION):
        for i in range(n):
            if potion_damage(s, env, i) < s[slot(i) + L.F_DAMAGE]:
                return True
    if s[L.STAMINA] >= 4 or s[L.KRONE] >= 10 * s[L.MAR_N]:
        has_succ, has_cleared = successor_flags(s, env)
        if (s[L.STAMINA] >= 4 and has_succ) or (s[L.KRONE] >= 10 * s[L.MAR_N] and has_cleared):
            return True
    return False


@njit(cache=True, _nrt=False)
def take_blows(s, env, hits):
    """"your left most Frontline Fighter will take one damage" (per blow)."""
    for _ in range(hits):
        if s[L.FRONT_N] == 0:
            break
        damage_fighter(s, env, 0, 1)


@njit(cache=True, inline="always", _nrt=False)
def battle_step(s, rng, env):
    """One step of a battle: "Fight On" until the Marauders are gone, you escape, or you are defeated."""
    st = s[L.B_STAGE]
    rules = env[E_RULES]
    if st == L.B_ROUND:
        if s[L.MAR_N] == 0:
            end_battle(s)
            return
        s[L.STEPS] += 1
        if s[L.STEPS] >= rules[R_STEP_CAP]:
            s[L.DONE] = 1
            s[L.CAUSE] = L.CAUSE_CAP
            return
        s[L.B_STAGE] = L.B_ROUND2
        if s[L.FRONT_N] == 0:
            new_fighter_or_defeat(s, env)
    elif st == L.B_ROUND2:
        if s[L.B_ATTACKING]:
            s[L.B_NSPEC] = 0
            s[L.B_STAGE] = L.B_SPECIAL
            boons_turn_start(s, env)
        else:
            s[L.B_STAGE] = L.B_DEFEND
    elif st == L.B_SPECIAL:
        # "Special Combat Actions … you may use during a battle before your next attack" (at most 8 a round)
        if s[L.MAR_N] == 0 or s[L.B_NSPEC] >= 8 or not special_any(s, env):
            s[L.B_STAGE] = L.B_PRE_ATTACK
        else:
            s[L.PHASE] = L.PH_SPECIAL
    elif st == L.B_RALLY_WAIT:
        if s[L.TF_RESULT]:
            draw_fighter(s, env)
        s[L.B_STAGE] = L.B_SPECIAL
    elif st == L.B_PRE_ATTACK:
        if s[L.MAR_N] == 0:
            end_battle(s)
            return
        if s[L.FRONT_N] == 0 and not new_fighter_or_defeat(s, env):
            return
        for i in range(s[L.FRONT_N]):
            s[slot(i) + L.F_USED] = 0
        s[L.B_TEAM] = 1 if s[L.FRONT_N] >= 2 else 0
        s[L.B_STAGE] = L.B_STRIKE
    elif st == L.B_STRIKE:
        # "Attack! … with True, Chance, Reckless and Team Strikes (if you control 2 or more Fighters)." Each
        # Fighter attacks once.
        avail = 0
        for i in range(s[L.FRONT_N]):
            if s[slot(i) + L.F_USED] == 0:
                avail += 1
        if s[L.MAR_N] == 0 or avail == 0:
            next_round(s)
        else:
            s[L.PHASE] = L.PH_STRIKE
    elif st == L.B_DEFEND:
        defend(s, rng, env)


@njit(cache=True, _nrt=False)
def wrath_lands(rng, env, strike, shield):
    """Tree Beasts' Nature's Wrath: "Your Frontline Fighters can only be targeted by Chance Strikes, even if an
    enemy Fighter has a higher Strike Score": a Strong Enuf blow (Strike exceeding Shield, a True Strike in all but
    name) must land as a Chance Strike of the same Strike against the same Shield. The Marauders' blow deals no
    damage back when it fails."""
    o = combat.chance(d10(rng, env), d10(rng, env), strike, shield, env[E_RULES][R_LONE_ONE_LOSES] == 1, False)
    return combat.defender_hurt(o)


@njit(cache=True, inline="always", _nrt=False)
def defend(s, rng, env):
    """"Strong Enuf - If the Marauder(s) strike score(s) exceeds the combined Shield Score of your Frontline
    Fighters, your left most Frontline Fighter will take one damage." Otherwise "Not Enuf": "they Test Fate
    and try to call for Reinforcements. EVEN outcome - Draw and reveal a card from the Fighter deck.\""""
    fighters, rules = env[E_FIGHTERS], env[E_RULES]
    shield = 0
    for i in range(s[L.FRONT_N]):
        shield += total_shield(s, env, i)
    hits = 0
    strong = False  # Strong Enuf, even when Nature's Wrath stops the blow: then "The Marauders' turn is over" too
    wrath = boon(s, WB_TREE_BEASTS)
    if rules[R_STRONG_ENUF] == STRONG_EACH:
        for j in range(s[L.MAR_N]):
            v = fighters[s[mar_slot(j)], L.FS]
            if v > shield:
                strong = True
                if not wrath or wrath_lands(rng, env, v, shield):
                    hits += 1
    else:
        m = 0
        for j in range(s[L.MAR_N]):
            v = fighters[s[mar_slot(j)], L.FS]
            m = m + v if rules[R_STRONG_ENUF] == STRONG_SUM else max(m, v)
        strong = m > shield
        hits = 1 if strong and (not wrath or wrath_lands(rng, env, m, shield)) else 0
    if hits > 0:
        # "DIVINE AID can be used to prevent a single attack"
        if s[L.FRONT_N] > 0 and has_event(s, env, EV_DIVINE_AID):
            s[L.B_HITS] = hits
            s[L.PHASE] = L.PH_DIVINE_DEFEND
            return
        take_blows(s, env, hits)
    elif not strong and d10(rng, env) % 2 == 0:
        f = L.deck_pop_top(s, L.FD_HEAD)
        if f >= 0:
            add_marauder(s, env, f)
    next_round(s)


@njit(cache=True, _nrt=False)
def start_quest(s, env, q):
    """Endure a Quest: run its bytecode (layout in ``quests``). "DIVINE AID can be used to … Ignore one Quest
    card." """
    off = env[E_OFF]
    s[L.QSEEN + q] = 1
    s[L.Q_ACTIVE] = q
    s[L.Q_PC] = off[q]
    s[L.Q_END] = off[q + 1]
    s[L.Q_SP] = 0
    s[L.Q_WAIT] = L.W_NONE
    if has_event(s, env, EV_DIVINE_AID):
        s[L.PHASE] = L.PH_DIVINE_QUEST


@njit(cache=True, _nrt=False)
def end_quest(s):
    s[L.Q_ACTIVE] = -1
    s[L.Q_WAIT] = L.W_NONE


@njit(cache=True, _nrt=False)
def gain_buff_types(s, env, value):
    """Bitmask of the Buff types of which a card of ``value`` is left in the Loot deck."""
    m = 0
    for t in range(3):
        if loot_buff(s, env[E_BUFFS], t, value) >= 0:
            m |= 1 << t
    return m


@njit(cache=True, _nrt=False)
def quest_front_lost(s, env):
    """A Quest killed your last Frontline Fighter: first the Grave Robber ("can be used outside of combat"), if it
    can recover anyone, then a new Fighter or the end."""
    if grave_any(s, env):
        s[L.Q_WAIT] = L.W_GRAVE
        s[L.PHASE] = L.PH_GRAVE
    else:
        new_fighter_or_defeat(s, env)


@njit(cache=True, _nrt=False)
def quest_step(s, rng, env):
    """Run the active Quest's bytecode until it ends or waits (for a decision, a battle, a Market, an Equip)."""
    code, rules, buffs = env[E_CODE], env[E_RULES], env[E_BUFFS]
    w = s[L.Q_WAIT]
    pc, sp = s[L.Q_PC], s[L.Q_SP]
    s[L.Q_WAIT] = L.W_NONE
    if w == L.W_BATTLE:
        if s[L.LOC] != s[L.Q_HERE]:
            end_quest(s)  # escaped by Retreat or Bribe: the rest of the Quest stays behind
            return
    elif w == L.W_GRAVE:
        # the Grave Robber was offered: now the new Fighter, or the end ("If you have no Warband Fighters …")
        if s[L.FRONT_N] == 0:
            new_fighter_or_defeat(s, env)
        return
    elif w == L.W_TF:
        if s[L.TF_RESULT]:
            s[L.Q_STACK + 2 * sp] = s[L.Q_TF_ODD]
            s[L.Q_STACK + 2 * sp + 1] = s[L.Q_TF_AFTER]
            sp += 1
            pc = s[L.Q_TF_EVEN]
        else:
            pc = s[L.Q_TF_ODD]
    end = s[L.Q_END]
    while s[L.DONE] == 0:
        if sp > 0 and pc == s[L.Q_STACK + 2 * (sp - 1)]:
            pc = s[L.Q_STACK + 2 * (sp - 1) + 1]
            sp -= 1
            continue
        if pc >= end:
            end_quest(s)
            return
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
            r = test_fate(s, rng, env, 0, block_harmful(code, odd, after))
            if r < 0:
                s[L.Q_TF_EVEN], s[L.Q_TF_ODD], s[L.Q_TF_AFTER] = even, odd, after
                s[L.Q_WAIT] = L.W_TF
                break
            if r == 1:
                s[L.Q_STACK + 2 * sp] = odd
                s[L.Q_STACK + 2 * sp + 1] = after
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
                s[L.Q_STACK + 2 * sp] = other
                s[L.Q_STACK + 2 * sp + 1] = after
                sp += 1
                pc = then
            else:
                pc = other
        elif op == OP_MARKET:
            s[L.MK_ACTIVE] = 1
            s[L.MK_SELLS] = code[pc + 1]
            s[L.MK_RECRUITS] = code[pc + 2]
            s[L.MK_COUNT] = 0
            pc += 3
            break
        elif op == OP_GAIN_BUFF:
            # "gain_buff": take a Buff of that type and value from the Loot deck ("If you have all of one type of
            # Buff … you cannot collect more": then there is none left to take); "any": the player picks the type
            t, value = code[pc + 1], code[pc + 2]
            pc += 3
            if t == 3:
                m = gain_buff_types(s, env, value)
                if m == 1 or m == 2 or m == 4:
                    t = 0 if m == 1 else (1 if m == 2 else 2)
                elif m != 0:
                    s[L.Q_ARG] = value
                    s[L.PHASE] = L.PH_GAIN_BUFF
                    break
            if t < 3:
                c = loot_buff(s, buffs, t, value)
                if c >= 0:
                    s[L.WHERE + c] = L.HAND
        elif op == OP_LOSE_BUFF:
            lose_buff(s, env, code[pc + 1])
            pc += 2
            if s[L.FRONT_N] == 0:
                quest_front_lost(s, env)
                break
        elif op == OP_DAMAGE:
            # "damage": to the left-most Frontline Fighter
            take_blows(s, env, code[pc + 1])
            pc += 2
            if s[L.FRONT_N] == 0:
                quest_front_lost(s, env)
                break
        elif op == OP_MARAUDER:
            f = L.deck_pop_top(s, L.FD_HEAD)
            pc += 1
            if f >= 0:
                add_marauder(s, env, f)
                start_battle(s)
                s[L.Q_HERE] = s[L.LOC]
                s[L.Q_WAIT] = L.W_BATTLE
                break
        elif op == OP_MOVE:
            forced_move(s, rng, env, code[pc + 1], code[pc + 2])
            pc += 3
        elif op == OP_DRAW_LOOT:
            # "draw_loot": random cards of the Loot deck into your hand
            draw_loot(s, rng, code[pc + 1])
            pc += 2
        elif op == OP_GAIN_EVENT:
            # "gain_event": an Event of that kind from the Loot deck, if one is left
            c = event_in(s, env[E_EVENTS], code[pc + 1], L.LOOT)
            if c >= 0:
                s[L.WHERE + c] = L.HAND
            pc += 2
        elif op == OP_PICKPOCKET:
            # "The THIEF card is used to protect you against pickpockets"
            pc += 2
            if has_event(s, env, EV_THIEF):
                s[L.Q_ARG] = code[pc - 1]
                s[L.PHASE] = L.PH_THIEF
                break
            add_krone(s, -code[pc - 1])
            s[L.PICKPOCKETED] += 1
        else:
            pc += 1
    s[L.Q_PC], s[L.Q_SP] = pc, sp


@njit(cache=True, _nrt=False)
def market_step(s, rng, env):
    """Markets: one purchase (or trade) a decision, until the player stops (at most 24)."""
    if s[L.MK_COUNT] >= 24 or market_count(s, env) <= 1:
        s[L.MK_ACTIVE] = 0
        return
    s[L.MK_COUNT] += 1
    s[L.PHASE] = L.PH_MARKET


@njit(cache=True, _nrt=False)
def start_return(s):
    """Begin returning the Frontline. The Fighters leave the battle: their damage is gone (as when they come
    back from the Warband Deck), so losing a Health Buff to Test Fate on the way cannot leave one at 0 Health."""
    for i in range(s[L.FRONT_N]):
        s[slot(i) + L.F_DAMAGE] = 0
    s[L.RF_ACTIVE] = 1
    s[L.RF_POS] = 0
    s[L.RF_WAIT] = 0


@njit(cache=True, _nrt=False)
def return_step(s, rng, env):
    """"Before moving to a new map location and revealing a new Fighter from your deck … Test Fate against any
    equipped Buff card: EVEN … Return the Buff card to your hand. ODD … returned to its Loot deck", and "put the
    fighters you used at the bottom of your Warband deck"."""
    buffs = env[E_BUFFS]
    if s[L.RF_WAIT]:
        s[L.RF_WAIT] = 0
        p = s[L.RF_POS]
        b = slot(p // 3) + L.F_BUFF0 + p % 3
        s[L.WHERE + s[b]] = L.HAND if s[L.TF_RESULT] else L.LOOT
        s[b] = -1
        s[L.RF_POS] = p + 1
    while s[L.RF_POS] < 3 * s[L.FRONT_N]:
        p = s[L.RF_POS]
        b = slot(p // 3) + L.F_BUFF0 + p % 3
        card = s[b]
        if card >= 0:
            r = test_fate(s, rng, env, 2, buffs[card, 1] >= 2)
            if r < 0:
                s[L.RF_WAIT] = 1
                return
            s[L.WHERE + card] = L.HAND if r == 1 else L.LOOT
            s[b] = -1
        s[L.RF_POS] = p + 1
    while s[L.FRONT_N] > 0:
        front_remove(s, env, 0, TO_WARBAND_KEEP)
    s[L.RF_ACTIVE] = 0


@njit(cache=True, _nrt=False)
def grave_any(s, env):
    """Can the Grave Robber recover anyone? ("a defeated fighter in the Graveyard pile": your own; option: any)"""
    if not has_event(s, env, EV_GRAVE_ROBBER):
        return False
    any_ = env[E_RULES][R_GRAVE_ANY] == 1
    for f in range(L.N_FIGHTERS):
        g = s[L.GRAVE + f]
        if g == 1 or (g == 2 and any_):
            return True
    return False


@njit(cache=True, _nrt=False)
def turn_step(s, rng, env):
    """The Order of Play, one stage at a time (``T_STAGE``)."""
    st = s[L.T_STAGE]
    if st == L.T_BEGIN:
        s[L.TURNS] += 1
        s[L.STEPS] += 1
        if s[L.STEPS] >= env[E_RULES][R_STEP_CAP]:
            s[L.CAUSE] = L.CAUSE_CAP
            s[L.DONE] = 1
            return
        left = 0
        for loc in range(L.N_LOC):
            left += s[L.LOC_N + loc]
        if left == 0:
            s[L.DONE] = 1  # "You have won Lonequest if you've cleared the entire map!"
            return
        if s[L.LOC_N + s[L.LOC]] == 0:
            # a cleared Location: Fighters back to the Warband Deck, Grave Robber, prepare, then March
            s[L.T_STAGE] = L.T_GRAVE
            if s[L.FRONT_N] > 0:
                start_return(s)
        elif s[L.FRONT_N] == 0:
            # between a Location's cards with no Frontline: the Grave Robber ("can be used outside of combat"), then
            # prepare
            s[L.T_STAGE] = L.T_PREP_EXPLORE
            if grave_any(s, env):
                s[L.PHASE] = L.PH_GRAVE
        else:
            s[L.T_STAGE] = L.T_EXPLORE
    elif st == L.T_GRAVE:
        s[L.T_STAGE] = L.T_PREP_MARCH
        if grave_any(s, env):
            s[L.PHASE] = L.PH_GRAVE
    elif st == L.T_PREP_MARCH or st == L.T_PREP_EXPLORE:
        # "Prepare! - Turn over a random fighter from your Warband", "Equip?"
        s[L.T_STAGE] = L.T_SUMMON_MARCH if st == L.T_PREP_MARCH else L.T_SUMMON_EXPLORE
        new_fighter_or_defeat(s, env)
    elif st == L.T_SUMMON_MARCH or st == L.T_SUMMON_EXPLORE:
        # "Summon? - Spend Stamina to summon an additional Warband fighter" (2 Stamina, a 2nd Fighter)
        s[L.T_STAGE] = L.T_MARCH if st == L.T_SUMMON_MARCH else L.T_EXPLORE
        if s[L.STAMINA] >= 2 and L.deck_len(s, L.WB_HEAD) > 0 and s[L.FRONT_N] < L.MAX_FRONT:
            s[L.PHASE] = L.PH_SUMMON
    elif st == L.T_MARCH:
        # "If you cannot leave the Map Location you are in because you do not have enough stamina you failed"
        reachable, n, only = False, 0, -1
        for t in range(L.N_LOC):
            if march_target(s, env, t):
                reachable = True
                if s[L.STAMINA] >= march_cost(s, t):
                    n += 1
                    only = t
        if n == 0:
            s[L.CAUSE] = L.CAUSE_NO_STAMINA if reachable else L.CAUSE_STRANDED
            s[L.DONE] = 1
        elif n == 1:
            march(s, env, only)
            s[L.T_STAGE] = L.T_BEGIN
        else:
            s[L.PHASE] = L.PH_MARCH
    elif st == L.T_EXPLORE:
        # "Explore! - Reveal the Top card of the Map Location you're visiting."
        loc = s[L.LOC]
        s[L.T_LOC] = loc
        top = L.LOC_CARDS + L.LOC_SIZE * loc + s[L.LOC_N + loc] - 1
        card = s[top]
        s[L.LOC_N + loc] -= 1
        s[L.T_STAGE] = L.T_AFTER_CARD
        s[L.T_ESCAPED] = 0
        if card >= 0:
            add_marauder(s, env, card)
            start_battle(s)
        else:
            start_quest(s, env, -card - 1)
    elif st == L.T_AFTER_CARD:
        loc = s[L.T_LOC]
        s[L.T_STAGE] = L.T_BEGIN
        if s[L.LOC_N + loc] == 0:
            # "After emptying a Location of all Marauders and Quests, you receive 10 Krone and 3 Stamina." Emptied by
            # an escape from its last card: paid too (default), or not (rule escape_reward = false: you did not
            # "endure or fight your way through all the cards"); it counts as cleared either way
            if s[L.T_ESCAPED] == 0 or env[E_RULES][R_ESCAPE_REWARD] == 1:
                add_krone(s, 10)
                add_stamina(s, 3)
            s[L.CLEARED + loc] = 1
            if s[L.LOC] == loc and s[L.FRONT_N] > 0:
                start_return(s)  # (emptied by the card that moved you away: the reward is still yours)
        elif s[L.LOC] == loc:
            # "If more cards remain in the location you're in EXPLORE or MARCH"
            for t in range(L.N_LOC):
                if can_march(s, env, t):
                    s[L.PHASE] = L.PH_EXPLORE
                    break


@njit(cache=True, inline="always", _nrt=False)
def equip_any(s, env):
    """"You may apply Buffs to raise their stats" — at most one Buff of each type per Fighter (core)."""
    buffs = env[E_BUFFS]
    types = 0
    for c in range(buffs.shape[0]):
        if s[L.WHERE + c] == L.HAND:
            types |= 1 << buffs[c, 0]
    if types == 0:
        return False
    for i in range(s[L.FRONT_N]):
        for t in range(3):
            if types & (1 << t) and s[slot(i) + L.F_BUFF0 + t] < 0:
                return True
    return False


@njit(cache=True, _nrt=False)
def advance(s, rng, env):
    """Resolve forced steps and chance, innermost active routine first, until a decision or the end."""
    while s[L.DONE] == 0 and s[L.PHASE] == L.PH_NONE:
        if (s[L.BN_WARP] > 0 or s[L.BN_ROAR] > 0 or s[L.BN_STORM] > 0) and boon_pending(s, rng, env):
            pass
        elif s[L.EQ_PENDING]:
            s[L.EQ_PENDING] = 0
            if equip_any(s, env):
                s[L.PHASE] = L.PH_EQUIP
        elif s[L.RF_ACTIVE]:
            return_step(s, rng, env)
        elif s[L.MK_ACTIVE]:
            market_step(s, rng, env)
        elif s[L.B_ACTIVE]:
            battle_step(s, rng, env)
        elif s[L.Q_ACTIVE] >= 0:
            quest_step(s, rng, env)
        else:
            turn_step(s, rng, env)
    if s[L.DONE]:
        s[L.PHASE] = L.PH_NONE


# --- Markets -----------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def lowest_in_hand(s, buffs, t):
    """The lowest-valued Buff of type t in hand (lowest-numbered among equals), or -1."""
    best, best_v = -1, 99
    for c in range(buffs.shape[0]):
        if buffs[c, 0] == t and s[L.WHERE + c] == L.HAND and buffs[c, 1] < best_v:
            best, best_v = c, buffs[c, 1]
    return best


@njit(cache=True, _nrt=False)
def hand_buff(s, buffs, t, v):
    """The lowest-numbered Buff of type t and value v in hand, or -1."""
    for c in range(buffs.shape[0]):
        if buffs[c, 0] == t and buffs[c, 1] == v and s[L.WHERE + c] == L.HAND:
            return c
    return -1


@njit(cache=True, _nrt=False)
def hand_buff_keys(s, buffs):
    """The Buffs in hand as a bit set over (type, value): bit ``8 * type + value`` (``hand_buff`` >= 0 for
    every bit set), so that the Market lists its trades and swaps in one pass over the cards."""
    keys = 0
    for c in range(buffs.shape[0]):
        if s[L.WHERE + c] == L.HAND:
            keys |= 1 << (buffs[c, 0] * 8 + buffs[c, 1])
    return keys


@njit(cache=True, _nrt=False)
def lowest_value(keys, t):
    """The lowest value of a Buff of type ``t`` in ``hand_buff_keys``' set (``lowest_in_hand``'s value), or -1."""
    for v in range(8):
        if (keys >> (t * 8 + v)) & 1:
            return v
    return -1


@njit(cache=True, _nrt=False)
def market_list(s, env, out, write):
    """The Market's legal actions (into ``out`` when ``write``); returns their number. Markets: "Buff cards …
    at a cost of 5 Krone per point", trades ("a +1 Shield Buff and 5 Krone can be traded for a +2"), Events at
    their prices, Stamina at 10 Krone, "Recruit … 40 Krone", the Thief's "steal two random cards" (up to two:
    one when the Loot deck holds one), and, unless rule market_trade = "up", "Buff cards can be traded at the same
    cost": a Buff in hand for a Loot Buff of another type and the same value (MK_SWAP + 3 * c + t)."""
    buffs, events = env[E_BUFFS], env[E_EVENTS]
    sells, krone = s[L.MK_SELLS], s[L.KRONE]
    n = 0
    if write:
        out[n] = L.MK_STOP
    n += 1
    keys = hand_buff_keys(s, buffs) if sells & 1 else 0  # read only where Buffs are sold
    if sells & 1:
        seen = 0
        for c in range(buffs.shape[0]):  # one card per (type, value): the lowest-numbered
            key = 1 << (buffs[c, 0] * 8 + buffs[c, 1])
            if s[L.WHERE + c] == L.LOOT and not seen & key:
                seen |= key
                if 5 * buffs[c, 1] <= krone:
                    if write:
                        out[n] = L.MK_BUY + c
                    n += 1
        seen = 0
        for c in range(buffs.shape[0]):
            key = 1 << (buffs[c, 0] * 8 + buffs[c, 1])
            if s[L.WHERE + c] == L.LOOT and not seen & key:
                seen |= key
                tv = lowest_value(keys, buffs[c, 0])  # lowest_in_hand's value
                if tv >= 0 and buffs[c, 1] > tv and 5 * (buffs[c, 1] - tv) <= krone:
                    if write:
                        out[n] = L.MK_TRADE + c
                    n += 1
    for k in range(4):
        if sells & (1 << MARKET_GOOD_BIT[k]) and krone >= MARKET_EVENT_PRICE[k] \
                and event_in(s, events, MARKET_EVENT_KIND[k], L.LOOT) >= 0:
            if write:
                out[n] = L.MK_EVENT + k
            n += 1
    if (sells & 32) != 0 and krone >= 10 and s[L.STAMINA] < MAX_STAMINA:
        if write:
            out[n] = L.MK_STAMINA
        n += 1
    if s[L.MK_RECRUITS] != 0 and krone >= 40 and L.deck_len(s, L.FD_HEAD) > 0:
        if write:
            out[n] = L.MK_RECRUIT
        n += 1
    if has_event(s, env, EV_THIEF) and loot_cards(s) > 0:
        if write:
            out[n] = L.MK_THIEF
        n += 1
    if sells & 1 and env[E_RULES][R_MARKET_UP] == 0:
        seen = 0
        for c in range(buffs.shape[0]):
            key = 1 << (buffs[c, 0] * 8 + buffs[c, 1])
            if s[L.WHERE + c] == L.LOOT and not seen & key:
                seen |= key
                for t in range(3):
                    if t != buffs[c, 0] and (keys >> (t * 8 + buffs[c, 1])) & 1:  # hand_buff(s, buffs, t, v) >= 0
                        if write:
                            out[n] = L.MK_SWAP + 3 * c + t
                        n += 1
    return n


@njit(cache=True, _nrt=False)
def market_count(s, env):
    return market_list(s, env, s, False)  # (out unused)


@njit(cache=True, _nrt=False)
def apply_market(s, rng, env, a):
    buffs, events = env[E_BUFFS], env[E_EVENTS]
    if a == L.MK_STOP:
        s[L.MK_ACTIVE] = 0
    elif a < L.MK_TRADE:
        c = a - L.MK_BUY
        s[L.WHERE + c] = L.HAND
        add_krone(s, -5 * buffs[c, 1])
    elif a < L.MK_EVENT:
        c = a - L.MK_TRADE
        tr = lowest_in_hand(s, buffs, buffs[c, 0])
        s[L.WHERE + tr] = L.LOOT
        s[L.WHERE + c] = L.HAND
        add_krone(s, -5 * (buffs[c, 1] - buffs[tr, 1]))
    elif a < L.MK_STAMINA:
        k = a - L.MK_EVENT
        s[L.WHERE + event_in(s, events, MARKET_EVENT_KIND[k], L.LOOT)] = L.HAND
        add_krone(s, -MARKET_EVENT_PRICE[k])
    elif a == L.MK_STAMINA:
        add_krone(s, -10)
        add_stamina(s, 1)
    elif a == L.MK_RECRUIT:
        # "draw a random fighter from the Fighter deck. Place the new fighter face down on top of your Warband Deck"
        add_krone(s, -40)
        k = randbelow(rng, L.deck_len(s, L.FD_HEAD))
        pos = L.FD + (s[L.FD_HEAD] + k) % L.DECK
        top = L.FD + s[L.FD_HEAD]
        s[pos], s[top] = s[top], s[pos]
        L.deck_push_top(s, L.WB_HEAD, L.deck_pop_top(s, L.FD_HEAD))
    elif a == L.MK_THIEF:
        thief = event_in(s, events, EV_THIEF, L.HAND)
        s[L.WHERE + thief] = -1  # in play while it steals: it cannot steal itself
        for _ in range(min(2, loot_cards(s))):  # "steal two random cards": the one there is, if only one
            k = randbelow(rng, loot_cards(s))
            for c in range(L.N_BUFFS + L.N_EVENTS):
                if s[L.WHERE + c] == L.LOOT:
                    if k == 0:
                        s[L.WHERE + c] = L.HAND
                        break
                    k -= 1
        spend_event(s, env, thief)
    else:
        # "Buff cards can be traded at the same cost at Markets": Buff c for one of type t and the same value
        c, t = (a - L.MK_SWAP) // 3, (a - L.MK_SWAP) % 3
        s[L.WHERE + hand_buff(s, buffs, t, buffs[c, 1])] = L.LOOT
        s[L.WHERE + c] = L.HAND


# --- Special Combat Actions and Events ----------------------------------------------------------

@njit(cache=True, _nrt=False)
def special_list(s, env, out):
    """The legal special actions (``layout.SP_*``) in id order."""
    nf, nm = s[L.FRONT_N], s[L.MAR_N]
    wb = L.deck_len(s, L.WB_HEAD) > 0
    room = nf < L.MAX_FRONT
    ev = hand_events(s, env)
    n = 0
    out[n] = L.SP_NONE
    n += 1
    if s[L.STAMINA] >= 1 and wb and room:
        out[n] = L.SP_RALLY
        n += 1
    if s[L.KRONE] >= 10 * nm:
        for t in range(L.N_LOC):
            if escape_target(s, env, t, True):
                out[n] = L.SP_BRIBE + t
                n += 1
    if s[L.STAMINA] >= 4:
        for t in range(L.N_LOC):
            if escape_target(s, env, t, False):
                out[n] = L.SP_RETREAT + t
                n += 1
    if ev & (1 << EV_FEAR):
        for j in range(nm):
            out[n] = L.SP_FEAR + j
            n += 1
    if ev & (1 << EV_POTION):
        for i in range(nf):
            if potion_damage(s, env, i) < s[slot(i) + L.F_DAMAGE]:
                out[n] = L.SP_POTION + i
                n += 1
    if ev & (1 << EV_REINFORCE) and wb and room:
        out[n] = L.SP_REINFORCE
        n += 1
    if ev & (1 << EV_CHANGELING) and wb:
        for i in range(nf):
            out[n] = L.SP_CHANGELING + i
            n += 1
    if ev & (1 << EV_RETREAT):
        for i in range(nf):
            out[n] = L.SP_RETREAT_EV + i
            n += 1
    if ev & (1 << EV_FIREBLAST) and nf > 0:
        for j in range(nm):
            out[n] = L.SP_FIREBLAST + j
            n += 1
    if ev & (1 << EV_LIGHTNING):
        out[n] = L.SP_LIGHTNING
        n += 1
    return n


@njit(cache=True, _nrt=False)
def apply_special(s, rng, env, a):
    """One Special Combat Action ("… you may use during a battle before your next attack")."""
    events, rules = env[E_EVENTS], env[E_RULES]
    if a == L.SP_NONE:
        s[L.B_STAGE] = L.B_PRE_ATTACK
        return
    s[L.B_NSPEC] += 1
    if a == L.SP_RALLY:
        # "Rally! - Spend 1 Stamina to call for help! Test Fate: EVEN … a Warband Fighter … joins your Frontline."
        add_stamina(s, -1)
        r = test_fate(s, rng, env, 1, True)
        if r == 1:
            draw_fighter(s, env)
        elif r < 0:
            s[L.B_STAGE] = L.B_RALLY_WAIT
    elif a < L.SP_RETREAT:
        # "Bribe - Pay 10 Krone for each revealed Marauder … escape to a location you've cleared before"
        add_krone(s, -10 * s[L.MAR_N])
        all_marauders_away(s)
        move_to(s, env, a - L.SP_BRIBE)
        end_battle(s)
        s[L.T_ESCAPED] = 1
    elif a < L.SP_FEAR:
        # "Retreat! - Pay 4 Stamina. Send all face up Marauders to the bottom of the Fighter Deck, send all your
        # equipment to the Loot pile then move to a location you can travel to from your current location."
        # "all your equipment": every Buff you hold (default; the starting Buffs in hand are "your starting
        # equipment"), or only the equipped ones (rule retreat_equipment = "equipped")
        add_stamina(s, -4)
        all_marauders_away(s)
        for i in range(s[L.FRONT_N] - 1, -1, -1):  # a Fighter kept alive by its Health Buff dies without it
            for t in range(3):
                if unequip(s, env, i, t, L.LOOT):
                    break
        if rules[R_RETREAT_EQUIPPED] == 0:
            for c in range(L.N_BUFFS):
                if s[L.WHERE + c] == L.HAND:
                    s[L.WHERE + c] = L.LOOT
        move_to(s, env, a - L.SP_RETREAT)
        end_battle(s)
        s[L.T_ESCAPED] = 1
    elif a < L.SP_POTION:
        # "The FEAR spell will send one Marauder back to the bottom of the Fighter deck (no rewards)"
        spend_event(s, env, event_in(s, events, EV_FEAR, L.HAND))
        remove_marauder(s, a - L.SP_FEAR, False)
    elif a < L.SP_REINFORCE:
        # "Healing Potion: Brings one fighter back to full HEALTH (ignore Buffs)" (rule potion)
        spend_event(s, env, event_in(s, events, EV_POTION, L.HAND))
        i = a - L.SP_POTION
        s[slot(i) + L.F_DAMAGE] = potion_damage(s, env, i)
    elif a == L.SP_REINFORCE:
        # "Draw a new Fighter from your Warband deck and put into your Frontline"
        spend_event(s, env, event_in(s, events, EV_REINFORCE, L.HAND))
        draw_fighter(s, env)
    elif a < L.SP_RETREAT_EV:
        # "Swap a current fighting card with the next one face down in your Warband deck, leaving Buffs in place."
        spend_event(s, env, event_in(s, events, EV_CHANGELING, L.HAND))
        i = a - L.SP_CHANGELING
        new = L.deck_pop_top(s, L.WB_HEAD)
        L.deck_push_top(s, L.WB_HEAD, s[slot(i)])
        s[slot(i)] = new
        s[slot(i) + L.F_DAMAGE] = combat.swapped(s[slot(i) + L.F_DAMAGE])
        mark_played(s, env[E_FIGHTERS], new)
        boons_loss(s, env)  # the one swapped out left, the new one entered
        boons_enter(s, env, i)
        death_check(s, env, i)
    elif a < L.SP_FIREBLAST:
        # "During a battle you may move a Fighter in battle to the bottom of your Warband deck"
        spend_event(s, env, event_in(s, events, EV_RETREAT, L.HAND))
        front_remove(s, env, a - L.SP_RETREAT_EV, TO_WARBAND_KEEP)
    elif a < L.SP_LIGHTNING:
        # core: "make a Chance Strike or True Strike against them with +3. If you strike the enemy, deal 2 damage
        # to it and 1 damage to any other Frontline enemies on either side of it."
        spend_event(s, env, event_in(s, events, EV_FIREBLAST, L.HAND))
        j = a - L.SP_FIREBLAST
        strike = fireblast_strike(s, env)
        shield = marauder_shield(s, env, j)
        fb = combat.FB_STRIKES
        if not combat.fireblast_is_true(strike, shield, False):
            fb = combat.fireblast(combat.chance(d10(rng, env), d10(rng, env), strike, shield,
                                                rules[R_LONE_ONE_LOSES] == 1, False))
        if fb == combat.FB_STRIKES:
            if j + 1 < s[L.MAR_N]:
                damage_marauder(s, env, j + 1, combat.FIREBLAST_SPLASH)
            if j > 0 and damage_marauder(s, env, j - 1, combat.FIREBLAST_SPLASH):
                j -= 1  # the left neighbour fell: the target moved one place left
            damage_marauder(s, env, j, combat.FIREBLAST_DAMAGE)
        elif fb == combat.FB_SELF_HURT:
            damage_marauder(s, env, j, 1)
    else:
        # core: "roll a die. … deal 1 damage to X enemies … Should the order arrive at your Frontline, you must
        # assign damage to your own Frontline." — Marauders first, then your own Fighters, in turn.
        spend_event(s, env, event_in(s, events, EV_LIGHTNING, L.HAND))
        x = combat.lightning_damage(d10(rng, env))
        while x > 0 and (s[L.MAR_N] > 0 or s[L.FRONT_N] > 0):
            j = 0
            while j < s[L.MAR_N] and x > 0:
                if not damage_marauder(s, env, j, 1):
                    j += 1
                x -= 1
            i = 0
            while i < s[L.FRONT_N] and x > 0:
                if not damage_fighter(s, env, i, 1):
                    i += 1
                x -= 1


# --- Attack ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def team_sum(s, env):
    """The combined Strike of the Fighters who have not attacked yet, and their number."""
    total, avail = 0, 0
    for x in range(s[L.FRONT_N]):
        if s[slot(x) + L.F_USED] == 0:
            total += total_strike(s, env, x)
            avail += 1
    return total, avail


@njit(cache=True, _nrt=False)
def strike_list(s, env, out):
    """The legal strikes (``layout.ST_*``) in id order."""
    nf, nm = s[L.FRONT_N], s[L.MAR_N]
    n = 0
    for i in range(nf):
        if s[slot(i) + L.F_USED] == 0:
            st = total_strike(s, env, i)
            for j in range(nm):
                if combat.may_strike(combat.TRUE, st, marauder_shield(s, env, j), 0, 0, False, False):
                    out[n] = L.ST_TRUE + i * L.MAX_MAR + j
                    n += 1
    if s[L.B_TEAM]:
        total, avail = team_sum(s, env)
        if avail >= 2:
            for j in range(nm):
                if combat.may_strike(combat.TEAM, 0, marauder_shield(s, env, j), 0, total, False, False):
                    out[n] = L.ST_TEAM + j
                    n += 1
    for i in range(nf):
        if s[slot(i) + L.F_USED] == 0 and combat.may_strike(combat.RECKLESS, 0, 0, health_left(s, env, i), 0, False,
                                                             False):
            for j in range(nm):
                out[n] = L.ST_RECKLESS + i * L.MAX_MAR + j
                n += 1
    for i in range(nf):
        if s[slot(i) + L.F_USED] == 0:
            st = total_strike(s, env, i)
            for j in range(nm):
                if combat.may_strike(combat.CHANCE, st, marauder_shield(s, env, j), 0, 0, False, False):
                    out[n] = L.ST_CHANCE + i * L.MAX_MAR + j
                    n += 1
    return n


@njit(cache=True, inline="always", _nrt=False)
def apply_strike(s, rng, env, a):
    if a < L.ST_TEAM:
        # "If the Strike score of your Fighter exceeds the target's Shield score the … enemy takes 1 damage."
        i, j = divmod(a - L.ST_TRUE, L.MAX_MAR)
        s[slot(i) + L.F_USED] = 1
        damage_marauder(s, env, j, strike_damage(s, combat.TRUE, is_barbarian(s, env, i)))
    elif a < L.ST_RECKLESS:
        # "combine the Strike scores of one or more of your Fighters": two or more of those who have not attacked,
        # the fewest that exceed the Shield (``combat.team_pick``)
        j = a - L.ST_TEAM
        packed, n = 0, 0
        for x in range(s[L.FRONT_N]):
            if s[slot(x) + L.F_USED] == 0:
                packed = combat.team_lane(packed, n, total_strike(s, env, x))
                n += 1
        m = combat.team_pick(0, packed, n, marauder_shield(s, env, j), 2)
        barbarian = False
        k = 0
        for x in range(s[L.FRONT_N]):
            if s[slot(x) + L.F_USED] == 0:
                if (m >> k) & 1:
                    s[slot(x) + L.F_USED] = 1
                    barbarian = barbarian or is_barbarian(s, env, x)
                k += 1
        damage_marauder(s, env, j, strike_damage(s, combat.TEAM, barbarian))
    elif a < L.ST_CHANCE:
        # "If a Fighter has only 1 Health, you may sacrifice it to deal 1 damage to any target."
        i, j = divmod(a - L.ST_RECKLESS, L.MAX_MAR)
        s[slot(i) + L.F_USED] = 1
        damage_marauder(s, env, j, 1)
        front_remove(s, env, i, TO_GRAVEYARD)
    else:
        i, j = divmod(a - L.ST_CHANCE, L.MAX_MAR)
        s[slot(i) + L.F_USED] = 1
        chance_strike(s, rng, env, i, j)


# --- the interface --------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def equip_list(s, env, out):
    buffs = env[E_BUFFS]
    n = 0
    out[n] = L.EQ_DONE
    n += 1
    for i in range(s[L.FRONT_N]):
        seen = 0
        for c in range(buffs.shape[0]):
            t = buffs[c, 0]
            key = 1 << (t * 8 + buffs[c, 1])
            if s[L.WHERE + c] == L.HAND and s[slot(i) + L.F_BUFF0 + t] < 0 and not seen & key:
                seen |= key
                out[n] = L.EQ_BASE + i * L.N_BUFFS + c
                n += 1
    return n


@njit(cache=True, _nrt=False)
def legal_actions(s, env, out):
    """The legal actions of the pending decision in ``out[:n]`` (ids: ``layout``); 0 when the game is over."""
    ph = s[L.PHASE]
    if s[L.DONE] or ph == L.PH_NONE:
        return 0
    n = 0
    if ph == L.PH_STRIKE:
        return strike_list(s, env, out)
    if ph == L.PH_SPECIAL:
        return special_list(s, env, out)
    if ph == L.PH_EQUIP:
        return equip_list(s, env, out)
    if ph == L.PH_MARKET:
        return market_list(s, env, out, True)
    if ph == L.PH_START:
        south = env[E_SOUTH]
        for t in range(L.N_LOC):
            if south[t]:
                out[n] = t
                n += 1
        return n
    if ph == L.PH_MARCH or ph == L.PH_EXPLORE:
        for t in range(L.N_LOC):
            if can_march(s, env, t):
                out[n] = t
                n += 1
        if ph == L.PH_EXPLORE:
            out[n] = L.EXPLORE
            n += 1
        return n
    if ph == L.PH_GRAVE:
        out[n] = 0
        n += 1
        any_ = env[E_RULES][R_GRAVE_ANY] == 1
        for f in range(L.N_FIGHTERS):
            g = s[L.GRAVE + f]
            if g == 1 or (g == 2 and any_):
                out[n] = 1 + f
                n += 1
        return n
    if ph == L.PH_GAIN_BUFF:
        m = gain_buff_types(s, env, s[L.Q_ARG])
        for t in range(3):
            if m & (1 << t):
                out[n] = t
                n += 1
        return n
    if ph == L.PH_BOON:
        for j in range(s[L.MAR_N]):
            out[n] = j
            n += 1
        return n
    # yes/no decisions: summon, offering, Divine Aid, Thief
    out[0] = 0
    out[1] = 1
    return 2


@njit(cache=True, inline="always", _nrt=False)
def apply_choice(s, rng, env, a):
    """Apply action ``a`` to the pending decision and stop there (``apply_action`` then plays on)."""
    ph = s[L.PHASE]
    s[L.PHASE] = L.PH_NONE
    if ph == L.PH_STRIKE:
        apply_strike(s, rng, env, a)
    elif ph == L.PH_SPECIAL:
        apply_special(s, rng, env, a)
    elif ph == L.PH_EQUIP:
        if a != L.EQ_DONE:
            i, c = divmod(a - L.EQ_BASE, L.N_BUFFS)
            s[slot(i) + L.F_BUFF0 + env[E_BUFFS][c, 0]] = c
            s[L.WHERE + c] = L.EQUIPPED
            if equip_any(s, env):
                s[L.PHASE] = L.PH_EQUIP
    elif ph == L.PH_START:
        # "Begin to explore the map, starting in either of the southern most Map Locations"
        move_to(s, env, a)
        s[L.PREV_LOC] = -1
        s[L.START] = a
        s[L.T_STAGE] = L.T_BEGIN
    elif ph == L.PH_SUMMON:
        if a == 1:
            add_stamina(s, -2)
            draw_fighter(s, env)
            s[L.EQ_PENDING] = 1
    elif ph == L.PH_MARCH:
        march(s, env, a)
        s[L.T_STAGE] = L.T_BEGIN
    elif ph == L.PH_EXPLORE:
        if a != L.EXPLORE:
            march(s, env, a)
    elif ph == L.PH_OFFER:
        if a == 1:
            s[L.KRONE] -= 20
            s[L.OFFERING_USED] = 1
            s[L.TESTS_WON] += 1
        s[L.TF_RESULT] = a
    elif ph == L.PH_DIVINE_DEFEND:
        # "DIVINE AID can be used to prevent a single attack": one blow (under strong_enuf = "each" the other
        # Marauders' blows still land)
        if a == 1:
            spend_event(s, env, event_in(s, env[E_EVENTS], EV_DIVINE_AID, L.HAND))
            take_blows(s, env, s[L.B_HITS] - 1)
        else:
            take_blows(s, env, s[L.B_HITS])
        next_round(s)
    elif ph == L.PH_DIVINE_QUEST:
        if a == 1:
            spend_event(s, env, event_in(s, env[E_EVENTS], EV_DIVINE_AID, L.HAND))
            end_quest(s)
    elif ph == L.PH_THIEF:
        if a == 1:
            spend_event(s, env, event_in(s, env[E_EVENTS], EV_THIEF, L.HAND))
        else:
            add_krone(s, -s[L.Q_ARG])
            s[L.PICKPOCKETED] += 1
    elif ph == L.PH_MARKET:
        apply_market(s, rng, env, a)
    elif ph == L.PH_GRAVE:
        # "The GRAVE ROBBER can be used outside of combat to recover a defeated fighter in the Graveyard pile.
        # They will be placed at the bottom of your Warband deck."
        if a > 0:
            spend_event(s, env, event_in(s, env[E_EVENTS], EV_GRAVE_ROBBER, L.HAND))
            s[L.GRAVE + a - 1] = 0
            L.deck_push_bottom(s, L.WB_HEAD, a - 1)
    elif ph == L.PH_GAIN_BUFF:
        s[L.WHERE + loot_buff(s, env[E_BUFFS], a, s[L.Q_ARG])] = L.HAND
    elif ph == L.PH_BOON:
        boon_hit(s, env, a)


@njit(cache=True, _nrt=False)
def apply_action(s, rng, env, a):
    """Apply action ``a`` to the pending decision, then play on to the next decision or the end."""
    apply_choice(s, rng, env, a)
    advance(s, rng, env)


@njit(cache=True, _nrt=False)
def is_over(s):
    return s[L.DONE] != 0


@njit(cache=True, _nrt=False)
def to_move(s):
    return 0


@njit(cache=True, _nrt=False)
def locations_cleared(s):
    n = 0
    for loc in range(L.N_LOC):
        n += s[L.CLEARED + loc]
    return n


@njit(cache=True, _nrt=False)
def is_won(s):
    """Rule: "You have won Lonequest if you've cleared the entire map!" """
    return s[L.DONE] != 0 and locations_cleared(s) == L.N_LOC and s[L.CAUSE] == L.CAUSE_NONE


@njit(cache=True, _nrt=False)
def reward(s, env, seat):
    return 1.0 if is_won(s) else 0.0


# --- set-up ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def clear_machine(s):
    s[L.PHASE] = L.PH_NONE
    s[L.T_STAGE] = L.T_BEGIN
    s[L.B_ACTIVE] = 0
    s[L.Q_ACTIVE] = -1
    s[L.MK_ACTIVE] = 0
    s[L.RF_ACTIVE] = 0
    s[L.EQ_PENDING] = 0


@njit(cache=True, _nrt=False)
def blank(s, rules):
    """An empty position: no cards anywhere, the rule's starting Krone and Stamina, no Location yet."""
    s[:] = 0
    s[L.KRONE] = rules[R_START_KRONE]
    s[L.STAMINA] = rules[R_START_STAMINA]
    s[L.LOC] = -1
    s[L.PREV_LOC] = -1
    s[L.START] = -1
    clear_machine(s)


@njit(cache=True)
def setup(s, rng, env, warband):
    """"Setting Up": 18 of the 36 Quests; the Warband's 5 Fighters shuffled as the Warband Deck; 12 random
    Fighters from the rest; Quests and Fighters shuffled together and dealt 5 to each Location; the rest of the
    Fighters as the Fighter deck; +1 Health, +1 Strike, +1 Shield as starting equipment; 12 Krone, 3 Stamina.
    Stops at the first decision: the start Location."""
    fighters, buffs, off, rules = env[E_FIGHTERS], env[E_BUFFS], env[E_OFF], env[E_RULES]
    blank(s, rules)
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
        c = loot_buff(s, buffs, t, 1)
        if c >= 0:
            s[L.WHERE + c] = L.HAND
    s[L.PHASE] = L.PH_START


# --- determinization ------------------------------------------------------------------------------

@njit(cache=True)
def resample(s, rng, env, seat, srng):
    """Rewrite everything face down from ``srng``: the order of the Warband Deck (its cards are known), and
    which unseen cards lie where among the Fighter deck and the Locations' face-down cards (the unseen Fighters
    and the unseen Quests, dealt or not; how many of a Location's cards are Fighters is known from the Fighter
    deck's size); then reseed the chance stream ``rng``. Canonical: sorted before shuffling. A simplification:
    what a player could remember of an order (Fighters put back at the bottom of a deck, the Changeling's swap)
    is resampled too."""
    n_quests = env[E_OFF].shape[0] - 1
    # the Warband Deck
    L.deck_linearize(s, L.WB_HEAD)
    reshuffle_unseen(s, L.WB, s[L.WB_N], srng)
    # unseen Fighters: the Fighter deck and the Locations' Fighters; unseen Quests: never revealed
    pool_f = np.empty(L.N_FIGHTERS, np.int32)
    nf = 0
    for i in range(s[L.FD_N]):
        pool_f[nf] = L.deck_peek(s, L.FD_HEAD, i)
        nf += 1
    slots_n = 0
    loc_f = 0
    for loc in range(L.N_LOC):
        for i in range(s[L.LOC_N + loc]):
            c = s[L.LOC_CARDS + L.LOC_SIZE * loc + i]
            slots_n += 1
            if c >= 0:
                pool_f[nf] = c
                nf += 1
                loc_f += 1
    pool_q = np.empty(max(n_quests, 1), np.int32)
    nq = 0
    for q in range(n_quests):
        if s[L.QSEEN + q] == 0:
            pool_q[nq] = q
            nq += 1
    np_f = np.sort(pool_f[:nf])
    np_q = np.sort(pool_q[:nq])
    shuffle(srng, np_f, nf)
    shuffle(srng, np_q, nq)
    deal = np.empty(slots_n, np.int32)
    for k in range(loc_f):
        deal[k] = np_f[k]
    for k in range(slots_n - loc_f):
        deal[loc_f + k] = -(np_q[k] + 1)
    shuffle(srng, deal, slots_n)
    k = 0
    for loc in range(L.N_LOC):
        for i in range(s[L.LOC_N + loc]):
            s[L.LOC_CARDS + L.LOC_SIZE * loc + i] = deal[k]
            k += 1
    n_fd = s[L.FD_N]
    s[L.FD_HEAD] = 0
    for i in range(n_fd):
        s[L.FD + i] = np_f[loc_f + i]
    reseed(rng, srng)


# --- invariants -----------------------------------------------------------------------------------

@njit(cache=True)
def invariants(s, env):
    """0 when every rule invariant holds, else the first broken one's code (``INV_*``)."""
    fighters, buffs = env[E_FIGHTERS], env[E_BUFFS]
    if not (0 <= s[L.FRONT_N] <= L.MAX_FRONT and 0 <= s[L.MAR_N] <= L.MAX_MAR):
        return INV_ROWS
    if not (0 <= s[L.WB_N] <= L.DECK and 0 <= s[L.FD_N] <= L.DECK):
        return INV_DECKS
    for loc in range(L.N_LOC):
        if not 0 <= s[L.LOC_N + loc] <= L.LOC_SIZE:
            return INV_DECKS
    count = np.zeros(L.N_FIGHTERS, np.int64)
    qcount = np.zeros(L.MAX_QUESTS, np.int64)
    for i in range(s[L.WB_N]):
        count[L.deck_peek(s, L.WB_HEAD, i)] += 1
    for i in range(s[L.FD_N]):
        count[L.deck_peek(s, L.FD_HEAD, i)] += 1
    for loc in range(L.N_LOC):
        for i in range(s[L.LOC_N + loc]):
            c = s[L.LOC_CARDS + L.LOC_SIZE * loc + i]
            if c >= 0:
                count[c] += 1
            else:
                qcount[-c - 1] += 1
    for i in range(s[L.FRONT_N]):
        count[s[slot(i)]] += 1
    for j in range(s[L.MAR_N]):
        count[s[mar_slot(j)]] += 1
    for f in range(L.N_FIGHTERS):
        if s[L.GRAVE + f] != 0:
            count[f] += 1
    for f in range(fighters.shape[0]):
        if count[f] != 1:
            return INV_FIGHTERS
    for q in range(L.MAX_QUESTS):
        if qcount[q] > 1 or (qcount[q] == 1 and s[L.QSEEN + q] != 0):
            return INV_QUESTS
    on = np.zeros(L.N_BUFFS, np.int64)
    for i in range(s[L.FRONT_N]):
        for t in range(3):
            c = s[slot(i) + L.F_BUFF0 + t]
            if c >= 0:
                if c >= L.N_BUFFS or buffs[c, 0] != t:
                    return INV_BUFFS
                on[c] += 1
    for c in range(buffs.shape[0]):
        w = s[L.WHERE + c]
        if w == L.EQUIPPED:
            if on[c] != 1:
                return INV_BUFFS
        elif on[c] != 0 or not (w == L.LOOT or w == L.HAND):
            return INV_BUFFS
    for e in range(L.N_EVENTS):
        w = s[L.WHERE + L.N_BUFFS + e]
        if not (w == L.LOOT or w == L.HAND or w == L.GRAVEYARD or w == -1):
            return INV_EVENTS
    for i in range(s[L.FRONT_N]):
        if s[slot(i) + L.F_DAMAGE] < 0 or health_left(s, env, i) <= 0:
            return INV_HEALTH
    for j in range(s[L.MAR_N]):
        if s[mar_slot(j) + 1] < 0 or marauder_left(s, env, j) <= 0:
            return INV_HEALTH
    if not 0 <= s[L.KRONE] <= MAX_KRONE:
        return INV_KRONE
    if not 0 <= s[L.STAMINA] <= MAX_STAMINA:
        return INV_STAMINA
    if s[L.DONE] == 0 and s[L.PHASE] == L.PH_NONE:
        return INV_PHASE
    return INV_OK


def __getattr__(name):
    """``engine.policy``: the heuristic and random policies live in ``policies`` (they read the helpers above)."""
    if name == "policy":
        from simkit.games.valka.lonequest.policies import policy

        return policy
    raise AttributeError(name)
