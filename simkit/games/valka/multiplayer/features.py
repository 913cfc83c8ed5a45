"""VÁLKA multiplayer's features for `learned` policies (``simkit.core.decision``: sparse feature vectors), one
function for Bounty Hunter, Annihilation and the Duel.

``features(s, env, a, is_base, st, idx, val)`` describes action ``a`` from what the seat to move sees: its own hand
and Battle Lines (face-down cards included), every face-up card on the table, the Graveyard, the Duel market,
pile and hand sizes, Infamy and captures, the pending decision (never another seat's hand, a face-down card of
another seat, nor the order of a pile). Slots::

    0                        is_base: the base heuristic plays ``a`` here
    1 .. 43                  is_base x the action's kind (CATEGORIES): how far to trust the heuristic, kind by kind
    44 .. 44 + 43 x 13 - 1   the action's kind x the state (SCALARS, 13): which kind of action pays in which
                             situation
    NUMBERS                  the action's own numbers (a strike's chance to hit and to be hurt, its target's
                             Health left, worth and seat, a placed or discarded card's value, a Buff's value, …)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.decision import Parts
from simkit.games.valka.multiplayer import engine as E
from simkit.games.valka.multiplayer.layout import (
    A_DONE, B_ATTACK, B_BACK_DOWN, B_BACK_UP, B_CHOICE, B_DISCARD, B_EQUIP, B_EVENT, B_FLIP, B_FRONT, B_GRAVE,
    B_MARKET, B_RETURN, B_TARGET, B_TRAP, B_UNEQUIP, DECK_SIZE, DECKS, EV_CHANGELING, EV_DIVINE_AID, EV_FEAR,
    EV_FIREBLAST, EV_LIGHTNING, EV_POTION, EV_REINFORCE, EV_RETREAT, EV_THIEF, EVENT0, G_BLAST, G_CHANGE,
    G_DAMAGE, G_FEAR, BUFF0, H_BEGUN, H_NP, H_PHASE, H_PLAYS, H_TOMOVE, HC_BUFF, HC_EVENT, L_BSTR, L_CARD, L_DMG, L_FACE,
    MARKET, MAX_SEATS, MODE_BOUNTY, N_FIGHTERS, PH_DRAFT, PH_EQUIP, PH_MULL, PH_PEND, PH_PUSH, PH_SETUP, Q_CHANGE,
    Q_GUARD, Q_ROAR, Q_STORM, Q_TRAP, Q_WARP, QUEUE, R_FIREBLAST_POWER, R_MODE, R_PLAY_CAP, R_TRIGGER, S_CAPN, S_HANDN,
    S_INFAMY, ST_CHANCE, ST_RECKLESS, ST_TEAM, ST_TRUE,
)
from simkit.games.valka.multiplayer.view import (
    EVENT_VALUE, fighter_worth, leader, left_of, lightning_gain, p_hit, p_hurt,
)

ROW = 4
# what each decision's actions are, by kind (slot order of the category block); the Events in EVENT_KINDS order
# without Divine Aid (never played as an action: its windows are `aid_use` / `aid_decline`)
CATEGORIES = (
    "draft_fighter", "draft_buff", "draft_event", "mull_keep", "mull_discard", "setup_done", "setup_front",
    "setup_back", "setup_trap", "equip_done", "equip_strike", "equip_shield", "equip_health", "flip", "main_done",
    "back_up", "back_down", "trap", "return", "unequip", "fear", "potion", "retreat", "reinforce", "changeling",
    "fireblast", "lightning", "thief", "grave_robber", "true_strike", "chance_strike", "reckless_strike",
    "team_strike", "push_stop", "push_discard", "warp_draw", "warp_steal", "roar_target", "storm_target",
    "aid_decline", "aid_use", "change_give", "pend_other",
)
SCALARS = ("bias", "front", "back", "hand", "front_health", "front_strike", "score", "best_opp_score",
           "opp_front", "opponents", "pile", "plays", "turn")
NUMBERS = ("hit_chance", "hurt_chance", "target_health", "target_falls", "target_worth", "target_infamy",
           "target_leader", "target_left", "target_last_front", "own_target", "attacker_health", "attacker_worth",
           "strike_margin", "card_value", "card_is_fighter", "warband_mates", "buff_value", "to_front",
           "slot_health", "slot_damage", "neighbours", "lightning_gain", "hand_size", "guard_worth",
           "guard_falls")
N_CAT = len(CATEGORIES)
N_SCALARS = len(SCALARS)
BASE0 = 1
CAT0 = BASE0 + N_CAT
NUM0 = CAT0 + N_CAT * N_SCALARS
FEATURES = tuple(["is_base"] + [f"is_base_x_{c}" for c in CATEGORIES]
                 + [f"{c}_x_{k}" for c in CATEGORIES for k in SCALARS] + list(NUMBERS))
N_FEATURES = len(FEATURES)
MAX_NNZ = 2 + N_SCALARS + 14
(HIT_CHANCE, HURT_CHANCE, TARGET_HEALTH, TARGET_FALLS, TARGET_WORTH, TARGET_INFAMY, TARGET_LEADER, TARGET_LEFT,
 TARGET_LAST, OWN_TARGET, ATTACKER_HEALTH, ATTACKER_WORTH, STRIKE_MARGIN, CARD_VALUE, CARD_FIGHTER, MATES,
 BUFF_VALUE, TO_FRONT, SLOT_HEALTH, SLOT_DAMAGE, NEIGHBOURS, LIGHTNING_GAIN, HAND_SIZE, GUARD_WORTH,
 GUARD_FALLS) = range(NUM0, NUM0 + len(NUMBERS))
(K_DRAFT, K_MULL_KEEP, K_MULL_DISCARD, K_SETUP_DONE, K_SETUP_FRONT, K_SETUP_BACK, K_SETUP_TRAP, K_EQUIP_DONE,
 K_EQUIP, K_FLIP, K_MAIN_DONE, K_BACK_UP, K_BACK_DOWN, K_TRAP, K_RETURN, K_UNEQUIP, K_EVENT, K_STRIKE, K_PUSH_STOP,
 K_PUSH_DISCARD, K_WARP_DRAW, K_WARP_STEAL, K_ROAR, K_STORM, K_AID_DECLINE, K_AID_USE, K_CHANGE_GIVE,
 K_PEND_OTHER) = (0, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14, 15, 16, 17, 18, 19, 20, 29, 33, 34, 35, 36, 37, 38, 39, 40, 41,
                  42)
EVENT_VALUES = np.array(EVENT_VALUE, np.float64)

# the per-decision state (``state``): the SCALARS, then the leading opponent and the seat to the left, then for
# each Frontline slot (seat q, row j) the numbers many actions ask of it (``slot_number``: its Strike, Shield,
# Health left and worth), each counted when an action first asks (NaN until then)
ST_LEADER = N_SCALARS
ST_LEFT = N_SCALARS + 1
SLOT0 = N_SCALARS + 2
C_STRIKE, C_SHIELD, C_HEALTH, C_WORTH = range(4)
SLOT_W = 4
N_STATE = SLOT0 + MAX_SEATS * ROW * SLOT_W


@njit(cache=True, inline="always", _nrt=False)
def event_category(kind):
    """The category of Event ``kind`` (Divine Aid has none: it is never played as an action)."""
    return K_EVENT + (kind if kind < EV_DIVINE_AID else kind - 1)


@njit(cache=True, _nrt=False)
def category(s, env, a):
    """The kind of action ``a`` at the pending decision (an index into CATEGORIES)."""
    ph = s[H_PHASE]
    if ph == PH_DRAFT:
        c = s[MARKET + 1 + a - B_MARKET]
        return K_DRAFT + (0 if c < BUFF0 else 1 if c < EVENT0 else 2)
    if ph == PH_MULL:
        return K_MULL_KEEP if a == A_DONE else K_MULL_DISCARD
    if ph == PH_PUSH:
        return K_PUSH_STOP if a == A_DONE else K_PUSH_DISCARD
    if ph == PH_PEND:
        t = s[QUEUE]
        if t == Q_WARP:
            return K_WARP_DRAW if a == B_CHOICE + 1 else K_WARP_STEAL
        if t == Q_ROAR:
            return K_ROAR
        if t == Q_STORM:
            return K_STORM
        if t == Q_GUARD:
            return K_AID_DECLINE if a == A_DONE else K_AID_USE
        if t == Q_CHANGE and a != A_DONE:
            return K_CHANGE_GIVE
        if t == Q_TRAP and a >= B_EVENT:
            return event_category((a - B_EVENT) // 40) if a < B_GRAVE else event_category(9)
        return K_PEND_OTHER
    if a == A_DONE:
        return K_SETUP_DONE if ph == PH_SETUP else K_EQUIP_DONE if ph == PH_EQUIP else K_MAIN_DONE
    if ph == PH_SETUP:
        if a < B_BACK_UP:
            return K_SETUP_FRONT
        return K_SETUP_BACK if a < B_TRAP else K_SETUP_TRAP
    if a < B_BACK_DOWN:
        return K_BACK_UP
    if a < B_TRAP:
        return K_BACK_DOWN
    if a < B_EQUIP:
        return K_TRAP
    if a < B_FLIP:
        return K_EQUIP + ((a - B_EQUIP) // 8) // 3
    if a < B_RETURN:
        return K_FLIP
    if a < B_UNEQUIP:
        return K_RETURN
    if a < B_EVENT:
        return K_UNEQUIP
    if a < B_GRAVE:
        return event_category((a - B_EVENT) // 40)
    if a < B_ATTACK:
        return event_category(9)
    return K_STRIKE + (a - B_ATTACK) % 4


@njit(cache=True, inline="always", _nrt=False)
def _put(idx, val, m, slot, value):
    idx[m] = slot
    val[m] = value
    return m + 1


@njit(cache=True, _nrt=False)
def score(s, env, q):
    """Seat ``q``'s progress, public: Infamy over the trigger in Bounty Hunter, else its captures over 10."""
    if env[9][R_MODE] == MODE_BOUNTY:
        return s[E.sb(q) + S_INFAMY] / max(env[9][R_TRIGGER], 1)
    return s[E.sb(q) + S_CAPN] / 10.0


@njit(cache=True, inline="always", _nrt=False)
def state(s, env, st):
    """The numbers every action of the decision shares (once per decision): the SCALARS, then the leading
    opponent and the seat to the left (``policies``' readings)."""
    p = s[H_TOMOVE]
    np_ = s[H_NP]
    fh = 0
    fs = 0
    for j in range(ROW):
        if s[E.lb(p, j) + L_CARD] >= 0:
            fh += E.health_left(s, env, p, j)
            fs += E.strike_total(s, env, p, j)
    opp = 0
    opp_front = 0
    best = 0.0
    for q in range(np_):
        if q != p and E.alive(s, q):
            opp += 1
            opp_front += E.front_count(s, q)
            best = max(best, score(s, env, q))
    st[0] = 1.0
    st[1] = E.front_count(s, p) / 4.0
    st[2] = E.back_count(s, p) / 4.0
    st[3] = s[E.sb(p) + S_HANDN] / 10.0
    st[4] = fh / 10.0
    st[5] = fs / 10.0
    st[6] = score(s, env, p)
    st[7] = best
    st[8] = opp_front / (4.0 * max(opp, 1))
    st[9] = opp / 4.0
    st[10] = s[DECKS + E.deck_of(s, env, p) * DECK_SIZE] / 40.0
    st[11] = s[H_PLAYS] / max(env[9][R_PLAY_CAP], 1)
    st[12] = s[H_BEGUN] / (20.0 * np_)
    st[ST_LEADER] = leader(s, env, p)
    st[ST_LEFT] = left_of(s, p)
    for k in range(SLOT0, N_STATE):
        st[k] = np.nan


@njit(cache=True, _nrt=False)
def slot_number(s, env, st, q, j, what):
    """Slot (``q``, ``j``)'s Strike, Shield, Health left or worth (``what``: C_*) at this decision: the engine's
    numbers, a Frontline slot's (j < ROW) kept in ``st`` once counted (once per decision, on first use)."""
    k = SLOT0 + (q * ROW + j) * SLOT_W + what
    if j < ROW and st[k] == st[k]:
        return st[k]
    if what == C_STRIKE:
        x = float(E.strike_total(s, env, q, j))
    elif what == C_SHIELD:
        x = float(E.shield_total(s, env, q, j))
    elif what == C_HEALTH:
        x = float(E.health_left(s, env, q, j))
    else:
        x = fighter_worth(s, env, q, j)
    if j < ROW:
        st[k] = x
    return x


@njit(cache=True, _nrt=False)
def hand_value(env, h):
    """The static value of a card by hand code (the heuristics' ``card_values``): a Fighter's own, a Buff 1.5 x its
    value, an Event by kind."""
    if h < HC_BUFF:
        return env[8][h]
    if h < HC_EVENT:
        return 1.5 * ((h - HC_BUFF) % 3 + 1)
    return EVENT_VALUES[h - HC_EVENT]


@njit(cache=True, _nrt=False)
def mates(s, env, p, f):
    """Frontline Fighters of seat ``p`` of Fighter ``f``'s Warband (Jokers count with any: the Boons)."""
    w = env[0][f]
    n = 0
    for j in range(ROW):
        c = s[E.lb(p, j) + L_CARD]
        if c >= 0:
            x = env[0][c]
            if x == w or x == 8 or w == 8:
                n += 1
    return n


@njit(cache=True, _nrt=False)
def seat_numbers(s, p, q, st, idx, val, m):
    """Whether the target seat ``q`` is ``p``'s own, the leading opponent, the seat to the left, or down to one
    Frontline Fighter."""
    if q == p:
        return _put(idx, val, m, OWN_TARGET, 1.0)
    if q == int(st[ST_LEADER]):
        m = _put(idx, val, m, TARGET_LEADER, 1.0)
    if q == int(st[ST_LEFT]):
        m = _put(idx, val, m, TARGET_LEFT, 1.0)
    if E.front_count(s, q) == 1:
        m = _put(idx, val, m, TARGET_LAST, 1.0)
    return m


@njit(cache=True, inline="always", _nrt=False)
def target_numbers(s, env, p, q, j, st, idx, val, m):
    """The numbers of a target at seat ``q`` slot ``j``: its seat's (``seat_numbers``) and, for a Fighter ``p``
    can see, its Health left, worth and Infamy (Bounty Hunter)."""
    m = seat_numbers(s, p, q, st, idx, val, m)
    b = E.lb(q, j)
    c = s[b + L_CARD]
    if c < 0 or c >= N_FIGHTERS or (q != p and s[b + L_FACE] == 0):
        return m
    m = _put(idx, val, m, TARGET_HEALTH, slot_number(s, env, st, q, j, C_HEALTH) / 5.0)
    m = _put(idx, val, m, TARGET_WORTH, slot_number(s, env, st, q, j, C_WORTH) / 10.0)
    if env[9][R_MODE] == MODE_BOUNTY:
        m = _put(idx, val, m, TARGET_INFAMY, env[1][c] / 3.0)
    return m


@njit(cache=True, _nrt=False)
def block(s, env, cat, st, idx, val, m):
    """The state crossed with the action's kind ``cat`` (the same for every action of that kind here)."""
    base = CAT0 + cat * N_SCALARS
    for k in range(N_SCALARS):
        m = _put(idx, val, m, base + k, st[k])
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
def numbers(s, env, a, cat, st, idx, val, m):
    """The action's own numbers (NUMBERS), after ``m`` features written."""
    p = s[H_TOMOVE]
    ph = s[H_PHASE]
    if ph == PH_DRAFT:
        c = s[MARKET + 1 + a - B_MARKET]
        return _put(idx, val, m, CARD_VALUE, env[8][c] / 10.0)
    if ph == PH_PEND:
        return pending_numbers(s, env, p, a, st, idx, val, m)
    if a == A_DONE:
        return m
    if a < B_FRONT:  # a discard (mulligan, Push Your Luck)
        h = a - B_DISCARD
        m = _put(idx, val, m, CARD_VALUE, hand_value(env, h) / 10.0)
        if h < HC_BUFF:
            m = _put(idx, val, m, CARD_FIGHTER, 1.0)
        return m
    if a < B_TRAP:  # a Fighter placed: Frontline at set-up, Backline face up or down
        f = (a - B_FRONT) % N_FIGHTERS
        m = _put(idx, val, m, CARD_VALUE, env[8][f] / 10.0)
        m = _put(idx, val, m, MATES, mates(s, env, p, f) / 3.0)
        if a < B_BACK_UP:
            m = _put(idx, val, m, TO_FRONT, 1.0)
        return m
    if a < B_EQUIP:
        return _put(idx, val, m, CARD_VALUE, EVENT_VALUES[a - B_TRAP] / 10.0)
    if a < B_FLIP:
        k, j = (a - B_EQUIP) // 8, (a - B_EQUIP) % 8
        m = _put(idx, val, m, BUFF_VALUE, (k % 3 + 1) / 3.0)
        m = _put(idx, val, m, TARGET_WORTH, fighter_worth(s, env, p, j) / 10.0)
        m = _put(idx, val, m, SLOT_HEALTH, E.health_left(s, env, p, j) / 5.0)
        if j < ROW:
            m = _put(idx, val, m, TO_FRONT, 1.0)
        return m
    if a < B_EVENT:  # flip, return or unequip a Backline card
        j = ROW + ((a - B_FLIP) if a < B_RETURN else (a - B_RETURN) if a < B_UNEQUIP else (a - B_UNEQUIP) // 3)
        c = s[E.lb(p, j) + L_CARD]
        if 0 <= c < N_FIGHTERS:
            m = _put(idx, val, m, TARGET_WORTH, fighter_worth(s, env, p, j) / 10.0)
        elif c >= EVENT0:
            m = _put(idx, val, m, CARD_VALUE, EVENT_VALUES[env[7][c - EVENT0]] / 10.0)
        if a >= B_UNEQUIP:
            m = _put(idx, val, m, BUFF_VALUE, E.buff_value(env, s[E.lb(p, j) + L_BSTR + (a - B_UNEQUIP) % 3]) / 3.0)
        return m
    if a < B_ATTACK:
        return event_numbers(s, env, p, a, st, idx, val, m)
    return strike_numbers(s, env, p, a, st, idx, val, m)


@njit(cache=True, inline="always", _nrt=False)
def strike_numbers(s, env, p, a, st, idx, val, m):
    """A strike's numbers: its chance to hit (1 for a True, Team or Reckless Strike) and, for a Chance Strike, to be
    hurt; whether a hit defeats the target (a Barbarian's True Strike deals 2); the target's numbers; the
    attacker's Health left, worth and Strike over the target's Shield."""
    off = a - B_ATTACK
    t = off % 4
    j = (off // 4) % 4
    q = (off // 16) % 5
    i = off // 80
    strike = int(slot_number(s, env, st, p, i, C_STRIKE))
    sh = int(slot_number(s, env, st, q, j, C_SHIELD))
    hl = int(slot_number(s, env, st, q, j, C_HEALTH))
    if t == ST_CHANCE:
        m = _put(idx, val, m, HIT_CHANCE, p_hit(env, strike, sh))
        m = _put(idx, val, m, HURT_CHANCE, p_hurt(env, strike, sh))
    else:
        m = _put(idx, val, m, HIT_CHANCE, 1.0)
    dmg = 2 if (t == ST_TRUE and E.barbarian(s, env, p, i)) else 1
    if dmg >= hl:
        m = _put(idx, val, m, TARGET_FALLS, 1.0)
    m = target_numbers(s, env, p, q, j, st, idx, val, m)
    m = _put(idx, val, m, ATTACKER_HEALTH, slot_number(s, env, st, p, i, C_HEALTH) / 5.0)
    m = _put(idx, val, m, ATTACKER_WORTH, slot_number(s, env, st, p, i, C_WORTH) / 10.0)
    m = _put(idx, val, m, STRIKE_MARGIN, (strike - sh) / 5.0)
    return m


@njit(cache=True, inline="always", _nrt=False)
def event_numbers(s, env, p, a, st, idx, val, m):
    """An Event's numbers: the target's (a Fighter it can see), a Fireblast's chance to strike true and its
    neighbours, a Lightning Bolt's balance of Fighters hit, a Potion's damage healed, a Thief's hand to take, a
    Grave Robber's Fighter."""
    if a >= B_GRAVE:
        f = a - B_GRAVE
        m = _put(idx, val, m, CARD_VALUE, env[8][f] / 10.0)
        return _put(idx, val, m, MATES, mates(s, env, p, f) / 3.0)
    off = a - B_EVENT
    kind, q, j = off // 40, (off % 40) // 8, off % 8
    if kind == EV_LIGHTNING:
        m = _put(idx, val, m, LIGHTNING_GAIN, lightning_gain(s, p, q))
        return seat_numbers(s, p, q, st, idx, val, m)
    if kind == EV_THIEF and j < ROW:  # rule thief = "hand": two cards from the seat's hand
        m = _put(idx, val, m, HAND_SIZE, s[E.sb(q) + S_HANDN] / 5.0)
        return seat_numbers(s, p, q, st, idx, val, m)
    m = target_numbers(s, env, p, q, j, st, idx, val, m)
    b = E.lb(q, j)
    if kind == EV_THIEF:  # the best Buff of a face-up Backline Fighter
        m = _put(idx, val, m, BUFF_VALUE, E.buff_value(env, s[b + E.best_buff_slot(s, env, q, j)]) / 3.0)
    elif kind == EV_POTION:
        m = _put(idx, val, m, SLOT_DAMAGE, s[b + L_DMG] / 5.0)
    elif kind == EV_FIREBLAST:
        power = env[9][R_FIREBLAST_POWER]
        sh = E.shield_total(s, env, q, j)
        m = _put(idx, val, m, HIT_CHANCE, 1.0 if (power > sh and not E.chance_only(s, env, q))
                 else p_hit(env, power, sh))
        n_adj = 0
        if j > 0 and s[E.lb(q, j - 1) + L_CARD] >= 0:
            n_adj += 1
        if j < ROW - 1 and s[E.lb(q, j + 1) + L_CARD] >= 0:
            n_adj += 1
        m = _put(idx, val, m, NEIGHBOURS, n_adj / 2.0)
    elif kind == EV_RETREAT or kind == EV_CHANGELING or kind == EV_FEAR:
        m = _put(idx, val, m, SLOT_DAMAGE, s[b + L_DMG] / 5.0)
    elif kind == EV_REINFORCE:
        m = _put(idx, val, m, SLOT_HEALTH, E.health_left(s, env, p, j) / 5.0)
    return m


@njit(cache=True, _nrt=False)
def pending_numbers(s, env, p, a, st, idx, val, m):
    """A pending decision's numbers: a sprung Trap's target (as an Event's), Weird Warp's hand to steal from,
    Monstrous Roar's and Magic Storm's target, what a Divine Aid window puts at stake (the own Fighter's worth,
    whether the harm would defeat it), the Fighter a Changeling gives."""
    t = s[QUEUE]
    if t == Q_TRAP:
        if a == A_DONE:
            return m
        return event_numbers(s, env, p, a, st, idx, val, m)
    if t == Q_WARP:
        if a >= B_CHOICE + 2:
            m = _put(idx, val, m, HAND_SIZE, s[E.sb(a - B_CHOICE - 2) + S_HANDN] / 5.0)
        return m
    if t == Q_ROAR or t == Q_STORM:
        if a >= B_TARGET:
            q, j = (a - B_TARGET) // 4, (a - B_TARGET) % 4
            m = target_numbers(s, env, p, q, j, st, idx, val, m)
        return m
    if t == Q_GUARD:
        if a != B_CHOICE:
            return m
        kind, x1, x2 = s[QUEUE + 2], s[QUEUE + 3], s[QUEUE + 4]
        if (kind == G_DAMAGE or kind == G_FEAR or kind == G_CHANGE or kind == G_BLAST) and \
                0 <= x1 < 2 * ROW and s[E.lb(p, x1) + L_CARD] >= 0:
            m = _put(idx, val, m, GUARD_WORTH, fighter_worth(s, env, p, x1) / 10.0)
            hl = E.health_left(s, env, p, x1)
            if (kind == G_DAMAGE and x2 >= hl) or (kind == G_BLAST and hl <= 2) or kind == G_FEAR or \
                    kind == G_CHANGE:
                m = _put(idx, val, m, GUARD_FALLS, 1.0)
        return m
    if t == Q_CHANGE and a != A_DONE:
        f = a - B_DISCARD
        m = _put(idx, val, m, CARD_VALUE, env[8][f] / 10.0)
    return m


# the features split for scoring (``simkit.core.decision.Parts``; ``specialize_learned`` finds them on ``features``)
features.learned_parts = Parts(category, block, numbers, N_CAT)
