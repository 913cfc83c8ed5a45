"""Policies for VÁLKA multiplayer: the random legal baseline and one heuristic steered by parameters.

The heuristic reads only what the seat to move can see: its own hand, every face-up card (Frontlines, face-up
Backline Fighters and their Buffs, the Graveyard, capture piles), pile sizes and the public counters. It never
reads another player's hand or a face-down card. It picks its action directly (no list of legal actions needed,
which keeps the heuristic-only kernel fast); every pick is one of ``legal_actions`` (tested).

Parameters (``PARAMS``: index, default, description, low, high) choose what to hold back (Buffs, Fighters in the
Backline), when to push luck, which strike, whom to target (a Fighter it can defeat, the leader, the player to
the left), when to play Events and set Traps, and when to answer with Divine Aid.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.decision import specialize_learned, stack_empty
from simkit.core.policies import LEARNED, RANDOM
from simkit.core.rng import randbelow
from simkit.games.valka.multiplayer import engine as E
from simkit.games.valka.multiplayer import features as F
from simkit.games.valka.multiplayer.layout import (
    A_DONE, B_ATTACK, B_BACK_DOWN, B_BACK_UP, B_CHOICE, B_DISCARD, B_EQUIP, B_EVENT, B_FLIP, B_FRONT, B_GRAVE,
    B_MARKET, B_TARGET, B_TRAP, BUFF0, EV_CHANGELING, EV_DIVINE_AID, EV_FEAR, EV_FIREBLAST, EV_GRAVE_ROBBER,
    EV_LIGHTNING, EV_POTION, EV_REINFORCE, EV_RETREAT, EV_THIEF, EVENT0, G_BLAST, G_BLAST_LAND, G_BOLT, G_CHANGE, G_DAMAGE,
    G_FEAR, G_FIREBLAST,
    G_LAND, G_LIGHTNING, GRAVE, H_COUNT, H_NP, H_PHASE, H_PLAYS, H_TOMOVE, HC_BUFF, HC_EVENT, L_ATK, L_BSTR, L_CARD, L_DMG,
    L_FACE, MARKET, MARKET_SIZE, MODE_BOUNTY, N_FIGHTERS, N_HC, PH_DRAFT, PH_EQUIP, PH_MAIN, PH_MULL, PH_PEND,
    PH_PUSH, PH_SETUP, Q_CHANGE, Q_GUARD, Q_ROAR, Q_STORM, Q_TRAP, Q_WARP, QUEUE, R_CHANCE_ANY, R_MODE, R_PLAY_CAP, R_RESHUFFLE,
    R_THIEF_HAND,
    S_HAND, S_HANDN, S_INFAMY, ST_CHANCE, ST_RECKLESS, ST_TEAM, ST_TRUE, DECKS, DECK_SIZE,
)
from simkit.games.valka.multiplayer.view import (  # noqa: F401  (the heuristic's helpers, shared with features)
    EVENT_VALUE, fighter_worth, leader, left_of, lightning_gain, p_hit, p_hurt,
)

ROW = 4
PARAMS = {
    "front_size": (0, 3.0, "Fighters set in the Frontline at set-up", 1.0, 4.0),
    "back_size": (1, 4.0, "Fighters kept in the Backline (the rest are held in hand)", 0.0, 4.0),
    "buff_hold": (2, 1.0, "Buffs held back in hand (all are equipped when the Frontline is down to one)", 0.0, 6.0),
    "push_below": (3, 2.5, "Push Your Luck: discard cards (up to 3) valued below this", 0.0, 8.0),
    "w_weak": (4, 1.5, "target weight: a Fighter this strike defeats", 0.0, 4.0),
    "w_leader": (5, 0.5, "target weight: the leading player (Infamy, else Frontline size)", 0.0, 4.0),
    "w_left": (6, 0.0, "target weight: the player to the left (next clockwise)", 0.0, 4.0),
    "reckless": (7, 1.0, "value of a Reckless Strike against keeping a 1-Health Fighter (0: never)", 0.0, 3.0),
    "team": (8, 1.0, "make Team Strikes when no True Strike is possible (0: never)", 0.0, 1.0),
    "event_min": (9, 1.0, "play an Event when its estimated gain is at least this", 0.0, 5.0),
    "traps": (10, 1.0, "Events to keep set as Backline Traps (set when the Frontline is down to one)", 0.0, 3.0),
    "divine_aid": (11, 1.0, "Divine Aid: 0 against any harm, 1 only to save a Fighter or its Buffs, 2 never", 0.0, 2.0),
    "mull_fighters": (12, 3.0, "mulligan weak non-Fighters when the hand has fewer Fighters than this", 0.0, 7.0),
    "strong_first": (13, 1.0, "set the strongest Fighters first (1) or the weakest (0)", 0.0, 1.0),
}
P_FRONT, P_BACK, P_BUFF_HOLD, P_PUSH, P_WEAK, P_LEADER, P_LEFT, P_RECKLESS, P_TEAM, P_EVENT_MIN, P_TRAPS, P_DA, \
    P_MULL, P_STRONG = range(14)
N_PARAMS = len(PARAMS)

PRESETS = {
    "balanced": ("heuristic", {}),
    "aggressive": ("heuristic", {"front_size": 4.0, "buff_hold": 0.0, "w_weak": 2.5,
                                 "w_leader": 0.0, "reckless": 2.0, "traps": 0.0, "event_min": 0.5}),
    "cautious": ("heuristic", {"front_size": 2.0, "buff_hold": 3.0, "push_below": 1.5,
                               "w_weak": 1.0, "w_leader": 0.0, "w_left": 1.5, "reckless": 0.0, "traps": 2.0,
                               "event_min": 2.0, "divine_aid": 0.0, "strong_first": 0.0}),
    "bully": ("heuristic", {"w_weak": 1.0, "w_leader": 2.5, "event_min": 1.0}),
    "random": ("random", {}),
}
POLICY_DESCRIPTIONS = {
    "balanced": "heuristic: 3 Fighters up front, a full Backline, holds a Buff, targets Fighters it can defeat",
    "aggressive": "heuristic: 4 Fighters up front, equips everything, Reckless Strikes, no Traps",
    "cautious": "heuristic: 2 Fighters up front and weakest first, holds Buffs, sets Traps, Divine Aid freely",
    "bully": "heuristic: targets the leader",
    "random": "baseline: a legal action at random",
}


def card_values(arrays) -> np.ndarray:
    """A static value per card for the heuristics (and the Duel draft), then the Chance Strike tables: P(the
    attacker hits) and P(the attacker is hurt) by Strike minus Shield (-15..15), appended."""
    v = np.zeros(86 + 62, np.float64)
    for f in range(N_FIGHTERS):
        v[f] = arrays["fighter_strike"][f] + arrays["fighter_shield"][f] + 1.5 * arrays["fighter_health"][f] \
            + 0.5 * arrays["fighter_infamy"][f]
    for b in range(22):
        v[BUFF0 + b] = 1.5 * arrays["buff_value"][b]
    for e in range(22):
        v[EVENT0 + e] = EVENT_VALUE[arrays["event_kind"][e]]
    return v


def chance_tables(values: np.ndarray, rules) -> None:
    from simkit.games.valka.chance_strike import ChanceStrikeRules, chance_strike

    for k, diff in enumerate(range(-15, 16)):
        strike, shield = max(diff, 0), max(-diff, 0)
        d = chance_strike(strike, shield, rules)
        values[86 + k] = float(d["attacker_hits"] + d["both_hurt"])
        values[86 + 31 + k] = float(d["defender_hits"] + d["both_hurt"])


@njit(cache=True, _nrt=False)
def target_bonus(s, env, params, me, q, lead, left):
    b = 0.0
    if q == lead:
        b += params[P_LEADER]
    if q == left:
        b += params[P_LEFT]
    return b


@njit(cache=True, _nrt=False)
def best_attack(s, env, params, p):
    """The best strike now (action id, or -1 when none): each target's numbers are computed once."""
    np_ = s[H_NP]
    lead = leader(s, env, p)
    left = left_of(s, p)
    bounty = env[9][R_MODE] == MODE_BOUNTY
    chance_any = env[9][R_CHANCE_ANY] == 1
    use_team = params[P_TEAM] >= 0.5
    use_reckless = params[P_RECKLESS] > 0.0
    # targets: seat * 4 + slot -> shield, Health left, value of defeating it, seat bonus, Chance Strikes only
    tsh = stack_empty(20, np.int64)
    thl = stack_empty(20, np.int64)
    tkill = stack_empty(20, np.float64)
    tb = stack_empty(20, np.float64)
    tonly = stack_empty(20, np.int64)  # 0/1
    tid = stack_empty(20, np.int64)
    nt = 0
    for q in range(np_):
        if q == p or not E.alive(s, q):
            continue
        bonus = target_bonus(s, env, params, p, q, lead, left)
        only_chance = E.chance_only(s, env, q)
        for j in range(ROW):
            c = s[E.lb(q, j) + L_CARD]
            if c < 0:
                continue
            tid[nt] = q * 4 + j
            tsh[nt] = E.shield_total(s, env, q, j)
            thl[nt] = E.health_left(s, env, q, j)
            tkill[nt] = params[P_WEAK] + (0.3 * env[1][c] if bounty else 0.0) + 0.1 * fighter_worth(s, env, q, j)
            tb[nt] = bonus
            tonly[nt] = only_chance
            nt += 1
    best, best_a = -1e9, -1
    for i in range(ROW):
        if not E.can_attack(s, p, i):
            continue
        st = E.strike_total(s, env, p, i)
        my_left = E.health_left(s, env, p, i)
        barb = E.barbarian(s, env, p, i)
        team = E.team_total(s, env, p, i) if use_team else -1
        hurt_w = 1.0 + (1.0 if my_left <= 1 else 0.0)
        for k in range(nt):
            sh = tsh[k]
            hl = thl[k]
            base = ((i * 5 + tid[k] // 4) * 4 + tid[k] % 4) * 4
            kill1 = tkill[k] if hl <= 1 else 0.0
            if not tonly[k] and st > sh:
                v = 1.5 + (tkill[k] if (2 if barb else 1) >= hl else 0.0) + tb[k]
                if v > best:
                    best, best_a = v, B_ATTACK + base + ST_TRUE
            if tonly[k] or st <= sh or chance_any:
                v = p_hit(env, st, sh) * (1.0 + kill1) - p_hurt(env, st, sh) * hurt_w + tb[k]
                if v > best:
                    best, best_a = v, B_ATTACK + base + ST_CHANCE
            if tonly[k]:
                continue
            # a Reckless Strike where a True Strike lands does the same damage and loses the Fighter: only in
            # Bounty Hunter is that worth it (the sacrifice goes to the Graveyard, not to an opponent's captures)
            if use_reckless and my_left == 1 and (bounty or st <= sh):
                v = 1.5 + kill1 + params[P_RECKLESS] - 1.5 + tb[k]
                if v > best:
                    best, best_a = v, B_ATTACK + base + ST_RECKLESS
            if st <= sh and team > sh:
                v = 0.9 + kill1 + tb[k]
                if v > best:
                    best, best_a = v, B_ATTACK + base + ST_TEAM
    return best_a


@njit(cache=True, _nrt=False)
def event_choice(s, env, params, p, kind):
    """The best use of Event ``kind`` now: (estimated gain, action or -1)."""
    best, best_a = -1e9, -1
    np_ = s[H_NP]
    lead = leader(s, env, p)
    left = left_of(s, p)
    if kind == EV_GRAVE_ROBBER:
        fighters_in_hand = 0
        b = E.sb(p)
        for i in range(s[b + S_HANDN]):
            if s[b + S_HAND + i] < N_FIGHTERS:
                fighters_in_hand += 1
        for i in range(s[GRAVE]):
            c = s[GRAVE + 1 + i]
            if c < N_FIGHTERS:
                v = env[8][c] / (4.0 if fighters_in_hand < 2 else 8.0)
                if v > best:
                    best, best_a = v, B_GRAVE + c
        return best, best_a
    j_lo, j_hi = 0, ROW
    if kind == EV_REINFORCE or (kind == EV_THIEF and env[9][R_THIEF_HAND] == 0):
        j_lo, j_hi = ROW, 2 * ROW
    elif kind == EV_LIGHTNING or kind == EV_THIEF:
        j_hi = 1
    own_only = kind == EV_RETREAT or kind == EV_REINFORCE
    for q in range(np_):
        if own_only and q != p:
            continue
        if (kind == EV_FEAR or kind == EV_FIREBLAST or kind == EV_LIGHTNING or kind == EV_THIEF) and q == p:
            continue
        for j in range(j_lo, j_hi):
            if not E.event_target_ok(s, env, p, kind, q, j):
                continue
            v = -100.0  # a legal target, however poor (a Trap must resolve)
            if kind == EV_FEAR:
                v = 0.5 + 0.3 * (fighter_worth(s, env, q, j) - env[8][s[E.lb(q, j) + L_CARD]])
                if E.front_count(s, q) == 1:
                    v += 0.5 if E.back_count(s, q) > 0 else 4.0
                v += target_bonus(s, env, params, p, q, lead, left)
            elif kind == EV_POTION:
                v = s[E.lb(q, j) + L_DMG] * (1.0 if q == p else -1.0)
            elif kind == EV_RETREAT:
                b = E.lb(p, j)
                if s[b + L_ATK] == 1 and s[b + L_DMG] > 0 and E.health_left(s, env, p, j) == 1 and \
                        E.first_empty(s, p, 1) >= 0 and E.front_count(s, p) > 1:
                    v = 0.5 + 0.1 * fighter_worth(s, env, p, j)
            elif kind == EV_REINFORCE:
                b = E.lb(p, j)
                v = 0.5 + 0.3 * (E.strike_total(s, env, p, j) - 2) + (0.5 if s[b + L_FACE] == 1 else 0.0)
            elif kind == EV_CHANGELING:
                if q != p:
                    # our weakest hand Fighter for their best Frontline Fighter
                    bp = E.sb(p)
                    weakest = 1e9
                    for i in range(s[bp + S_HANDN]):
                        c = s[bp + S_HAND + i]
                        if c < N_FIGHTERS and env[8][c] < weakest:
                            weakest = env[8][c]
                    v = (env[8][s[E.lb(q, j) + L_CARD]] - weakest) / 3.0 + 0.3 * s[E.lb(q, j) + L_DMG]
            elif kind == EV_FIREBLAST:
                sh = E.shield_total(s, env, q, j)
                ph = 1.0 if (3 > sh and not E.chance_only(s, env, q)) else p_hit(env, 3, sh)
                n_adj = 0
                if j > 0 and s[E.lb(q, j - 1) + L_CARD] >= 0:
                    n_adj += 1
                if j < ROW - 1 and s[E.lb(q, j + 1) + L_CARD] >= 0:
                    n_adj += 1
                kill = params[P_WEAK] if E.health_left(s, env, q, j) <= 2 else 0.0
                v = ph * (2.0 + n_adj + kill) / 1.5 + target_bonus(s, env, params, p, q, lead, left)
            elif kind == EV_LIGHTNING:
                v = lightning_gain(s, p, q) + target_bonus(s, env, params, p, q, lead, left)
            elif kind == EV_THIEF:
                if env[9][R_THIEF_HAND] == 1:
                    v = 0.4 * min(2, s[E.sb(q) + S_HANDN])
                else:
                    k = E.best_buff_slot(s, env, q, j)
                    v = env[6][s[E.lb(q, j) + k] - BUFF0]
            if v > best:
                best = v
                best_a = B_EVENT + kind * 40 + q * 8 + j
    return best, best_a


@njit(cache=True, _nrt=False)
def count_back(s, p, fighters, traps):
    n = 0
    for j in range(ROW, 2 * ROW):
        c = s[E.lb(p, j) + L_CARD]
        if c < 0:
            continue
        if fighters and c < N_FIGHTERS:
            n += 1
        if traps and c >= EVENT0:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def pick_fighter(s, env, p, strongest):
    """The strongest (or weakest) Fighter in hand, or -1."""
    b = E.sb(p)
    best_v, best = (-1e9 if strongest else 1e9), -1
    for i in range(s[b + S_HANDN]):
        c = s[b + S_HAND + i]
        if c < N_FIGHTERS:
            v = env[8][c]
            if (strongest and v > best_v) or (not strongest and v < best_v):
                best_v, best = v, c
    return best


@njit(cache=True, _nrt=False)
def trap_event(s, env, p):
    """A held Event worth setting as a Trap (Lightning, Fireblast, Fear), as an event kind, or -1. Not a Lightning
    Bolt at a table of two: a sprung Trap must resolve, and there the bolt comes round to your own fresh Frontline."""
    for e in (EV_LIGHTNING, EV_FIREBLAST, EV_FEAR):
        if e == EV_LIGHTNING and s[H_NP] < 3:
            continue
        if E.holds(s, env, p, HC_EVENT + e):
            return e
    return -1


@njit(cache=True, _nrt=False)
def cards_to_push(s, env, p):
    """How many cards Push Your Luck may usefully discard: no more than can be drawn back (the draw pile, and
    the Graveyard when it is reshuffled), and none from a Duel's personal pile that is never refilled: every
    card in it comes to its owner anyway, so a push only throws a card away."""
    if env[9][R_RESHUFFLE] == 1:
        return s[DECKS + E.deck_of(s, env, p) * DECK_SIZE] + s[GRAVE]
    if E.deck_of(s, env, p) != 0:
        return 0
    return s[DECKS]


@njit(cache=True, _nrt=False)
def best_equip(s, env, p, lo, need_face_up_only):
    """Equip the best held Buff onto the best face-up Fighter in slots lo..7 that lacks its type: action or -1."""
    best_v, best_a = -1e9, -1
    for k in range(8, -1, -1):
        if not E.holds(s, env, p, HC_BUFF + k):
            continue
        t = k // 3
        for j in range(lo, 8):
            b = E.lb(p, j)
            c = s[b + L_CARD]
            if 0 <= c < N_FIGHTERS and s[b + L_FACE] == 1 and s[b + L_BSTR + t] < 0:
                v = (k % 3 + 1) * 10.0 + env[8][c]
                if v > best_v:
                    best_v, best_a = v, B_EQUIP + k * 8 + j
    return best_a


@njit(cache=True, _nrt=False)
def count_buffs(s, p):
    b = E.sb(p)
    n = 0
    for i in range(s[b + S_HANDN]):
        c = s[b + S_HAND + i]
        if BUFF0 <= c < EVENT0:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def lowest_card(s, env, p, below, fighters_too):
    """The hand code of the lowest-valued card below ``below`` (never Divine Aid), or -1."""
    b = E.sb(p)
    best_v, best = below, -1
    for i in range(s[b + S_HANDN]):
        c = s[b + S_HAND + i]
        if c >= EVENT0 and env[7][c - EVENT0] == EV_DIVINE_AID:
            continue
        if c < N_FIGHTERS and not fighters_too:
            continue
        v = env[8][c] if c >= N_FIGHTERS else env[8][c] / 3.0
        if v < best_v:
            best_v, best = v, E.hand_code(env, c)
    return best


@njit(cache=True, _nrt=False)
def heuristic(s, env, params, prng):
    ph = s[H_PHASE]
    p = s[H_TOMOVE]
    b = E.sb(p)
    if ph == PH_DRAFT:
        fighters = 0
        d = DECKS + (1 + p) * DECK_SIZE
        for i in range(s[d]):
            if s[d + 1 + i] < N_FIGHTERS:
                fighters += 1
        best_v, best = -1e9, -1
        for i in range(MARKET_SIZE):
            c = s[MARKET + 1 + i]
            if c < 0:
                continue
            v = env[8][c] / 3.0 if c < N_FIGHTERS else env[8][c]
            if c < N_FIGHTERS and fighters < 9:
                v += 3.0
            if v > best_v:
                best_v, best = v, i
        return B_MARKET + best
    if ph == PH_MULL:
        fighters = 0
        for i in range(s[b + S_HANDN]):
            if s[b + S_HAND + i] < N_FIGHTERS:
                fighters += 1
        if fighters < params[P_MULL] and s[H_COUNT] < 2 * (params[P_MULL] - fighters):
            h = lowest_card(s, env, p, 3.0, False)
            if h >= 0:
                return B_DISCARD + h
        return A_DONE
    if ph == PH_SETUP:
        strong = params[P_STRONG] >= 0.5
        f = pick_fighter(s, env, p, strong)
        if f >= 0 and (E.front_count(s, p) < params[P_FRONT] or E.front_count(s, p) == 0) and E.front_count(s, p) < ROW:
            return B_FRONT + f
        bc = E.back_count(s, p)
        if f >= 0 and count_back(s, p, True, False) < params[P_BACK] and bc < ROW:
            return B_BACK_DOWN + f
        return A_DONE
    if ph == PH_EQUIP:
        if count_buffs(s, p) > params[P_BUFF_HOLD]:
            a = best_equip(s, env, p, 0, True)
            if a >= 0:
                return a
        return A_DONE
    if ph == PH_PUSH:
        # discard only what can be drawn back (with the draw pile empty, Push Your Luck only throws cards away)
        if s[H_COUNT] < 3 and s[H_COUNT] < cards_to_push(s, env, p):
            h = lowest_card(s, env, p, params[P_PUSH], True)
            if h >= 0:
                return B_DISCARD + h
        return A_DONE
    if ph == PH_PEND:
        return pending_choice(s, env, params, p)
    # main phase
    if s[H_PLAYS] < env[9][R_PLAY_CAP]:
        # Events
        best, best_a = -1e9, -1
        held = 0
        bh = E.sb(p)
        for i in range(s[bh + S_HANDN]):
            c = s[bh + S_HAND + i]
            if c >= EVENT0:
                held |= 1 << env[7][c - EVENT0]
        for e in range(10):
            if e == EV_DIVINE_AID or (held >> e) & 1 == 0:
                continue
            g, a = event_choice(s, env, params, p, e)
            if a >= 0 and g > best:
                best, best_a = g, a
        if best_a >= 0 and best >= params[P_EVENT_MIN]:
            return best_a
        bc = E.back_count(s, p)
        nb = count_buffs(s, p)
        low_front = E.front_count(s, p) <= 1
        equip_now = nb > params[P_BUFF_HOLD] or (low_front and nb > 0)
        # Backline Fighters
        if bc < ROW and count_back(s, p, True, False) < params[P_BACK]:
            f = pick_fighter(s, env, p, params[P_STRONG] >= 0.5)
            if f >= 0:
                return (B_BACK_UP if equip_now else B_BACK_DOWN) + f
        if equip_now:
            a = best_equip(s, env, p, ROW, True)
            if a >= 0:
                return a
            for j in range(ROW, 2 * ROW):
                bj = E.lb(p, j)
                if 0 <= s[bj + L_CARD] < N_FIGHTERS and s[bj + L_FACE] == 0:
                    return B_FLIP + j - ROW
        # a Trap only when the Backline is about to move up (it then springs within the round); earlier, the Event
        # is worth more in hand, where it can be played at the best moment
        if bc < ROW and count_back(s, p, False, True) < params[P_TRAPS] and E.front_count(s, p) <= 1:
            e = trap_event(s, env, p)
            if e >= 0:
                return B_TRAP + e
    a = best_attack(s, env, params, p)
    if a >= 0:
        return a
    return A_DONE


@njit(cache=True, _nrt=False)
def pending_choice(s, env, params, p):
    t = s[QUEUE]
    if t == Q_TRAP:
        _, a = event_choice(s, env, params, p, s[QUEUE + 2])
        return a if a >= 0 else A_DONE
    if t == Q_WARP:
        best, who = 3, -1
        for q in range(s[H_NP]):
            if q != p and E.alive(s, q) and s[E.sb(q) + S_HANDN] > best:
                best, who = s[E.sb(q) + S_HANDN], q
        return B_CHOICE + 1 if who < 0 else B_CHOICE + 2 + who
    if t == Q_ROAR or t == Q_STORM:
        best_v, best_a = -1e9, A_DONE
        for q in range(s[H_NP]):
            if q == p or not E.alive(s, q):
                continue
            for j in range(ROW):
                if s[E.lb(q, j) + L_CARD] < 0:
                    continue
                if t == Q_ROAR:
                    v = fighter_worth(s, env, q, j)
                else:
                    v = 10.0 - E.health_left(s, env, q, j) + 0.1 * fighter_worth(s, env, q, j)
                if v > best_v:
                    best_v, best_a = v, B_TARGET + q * 4 + j
        return best_a
    if t == Q_GUARD:
        mode = params[P_DA]
        if mode >= 1.5:
            return A_DONE
        kind = s[QUEUE + 2]
        x1, x2 = s[QUEUE + 3], s[QUEUE + 4]
        if kind == G_FIREBLAST or kind == G_LIGHTNING:
            return A_DONE  # wait: a later window (the blast landed, the bolt arrived) shows what is at stake
        if mode < 0.5:
            return B_CHOICE
        if kind == G_DAMAGE:
            return B_CHOICE if x2 >= E.health_left(s, env, p, x1) else A_DONE
        if kind == G_FEAR or kind == G_CHANGE:
            return B_CHOICE if fighter_worth(s, env, p, x1) >= 8.0 else A_DONE
        if kind == G_BLAST:
            if E.health_left(s, env, p, x1) <= 2:
                return B_CHOICE
            for j in (x1 - 1, x1 + 1):
                if 0 <= j < ROW and s[E.lb(p, j) + L_CARD] >= 0 and E.health_left(s, env, p, j) <= 1:
                    return B_CHOICE
            return A_DONE
        if kind == G_BOLT:
            left = x1
            for j in range(ROW):
                if left > 0 and s[E.lb(p, j) + L_CARD] >= 0:
                    if E.health_left(s, env, p, j) <= 1:
                        return B_CHOICE
                    left -= 1
            return A_DONE
        if kind == G_LAND:
            q = x2 // 8
            j = x2 % 8
            return B_CHOICE if E.health_left(s, env, q, j) <= 1 else A_DONE
        if kind == G_BLAST_LAND:
            q = x1 // 8
            j = x1 % 8
            return B_CHOICE if E.health_left(s, env, q, j) <= 2 else A_DONE
        return A_DONE
    if t == Q_CHANGE:
        f = pick_fighter(s, env, p, False)
        return B_DISCARD + f if f >= 0 else A_DONE
    return A_DONE


@njit(cache=True, _nrt=False)
def base_heuristic(s, env, legal, n, params, prng):
    """``heuristic`` with the decision interface's arguments: the base of a `learned` policy's ``is_base``."""
    return heuristic(s, env, params, prng)


# the `learned` policy (simkit.core.decision): a scorer over ``features.features``, with ``heuristic`` (steered by
# the base heuristic's parameters, the front of the policy's vector) as the base of its ``is_base`` feature
LEARNED_FNS = specialize_learned(F.features, base_heuristic, N_PARAMS, F.N_FEATURES, F.MAX_NNZ, __name__, F.state,
                                 F.N_STATE)
learned_action = LEARNED_FNS.learned_action


@njit(cache=True, _nrt=False)
def policy(kind, s, env, legal, n, params, prng):
    """``random``: a legal action at random; ``heuristic``: the rules of thumb above, steered by ``params``;
    ``learned``: a scorer over ``features``, with ``heuristic`` as its base."""
    if kind == RANDOM:
        return legal[randbelow(prng, n)]
    if kind == LEARNED:
        return learned_action(s, env, legal, n, params, prng)
    return heuristic(s, env, params, prng)
