"""VÁLKA core rules (multiplayer: Bounty Hunter, Annihilation, Duel) on the decision-point interface.

Rules: ``../shared/rules/valka.txt`` from "Before You Start" to "Glossary"; readings in ``docs/rules.md``
(VÁLKA multiplayer). State layout and action ids: :mod:`.layout`. ``env`` is
``(fwb, finf, fstr, fhp, fshd, btype, bval, ekind, value, rules, log)``: Fighter Warband, Infamy, Strike,
Health, Shield (by Fighter index), Buff type and value (by Buff index), Event kind (by Event index), a static
card value for the heuristics (by card), the rule vector (``layout.R_*``) and a Chance Strike log
(``log[0]`` records so far, then ``strike, shield, attacker roll, defender roll, outcome`` per record while
there is room; a log of size 1 records nothing).

A game: ``new_game`` (deal, roll-off, first decision), then the interface loop. Every choice a player makes is
a decision of the seat that makes it: mulligan, set-up, Buffs, plays, attacks, Events and their targets, Traps
as they spring, one-time Boons, Divine Aid out of turn, Push Your Luck, the Duel draft.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.decision import reseed, stack_empty
from simkit.core.rng import randbelow, roll, shuffle
from simkit.games.valka import boons, combat
from simkit.games.valka.chance_strike import ATTACKER_HITS, BOTH_HURT, DEFENDER_HITS
from simkit.games.valka.multiplayer.layout import (
    A_DONE, B_ATTACK, B_BACK_DOWN, B_BACK_UP, B_CHOICE, B_DISCARD, B_EQUIP, B_EVENT, B_FLIP, B_FRONT, B_GRAVE,
    B_MARKET, B_RETURN, B_TARGET, B_TRAP, B_UNEQUIP, BUFF0, DECK_SIZE, DECKS, EV_CHANGELING, EV_DIVINE_AID, EV_FEAR,
    EV_FIREBLAST, EV_GRAVE_ROBBER, EV_LIGHTNING, EV_POTION, EV_REINFORCE, EV_RETREAT, EV_THIEF, EVENT0, G_CHANGE,
    G_BLAST, G_BLAST_LAND, G_BOLT, G_DAMAGE, G_FEAR, G_FIREBLAST, G_LAND, G_LIGHTNING, G_STEAL, G_THIEF, GRAVE, H_ACTIVE, H_AT_ONCE, H_BEGUN, H_COUNT, H_DRAFTED, H_EVENTS_PLAYED, H_FALLING,
    H_FIRST, H_NP, H_OVER, H_PHASE, H_PLAYS, H_QN, H_RET, H_STALLED, H_SUB, H_TOMOVE, H_TRAPS_SPRUNG, H_TRIGGER,
    H_TURN, H_WINMASK, HC_BUFF, HC_EVENT, JOKER, L_ATK, L_BHP, L_BSHD, L_BSTR, L_CARD, L_DMG, L_FACE, MARKET,
    MARKET_SIZE, MODE_BOUNTY, MODE_DUEL, N_CARDS, N_FIGHTERS, N_HC, PH_DRAFT, PH_END, PH_EQUIP, PH_MAIN, PH_MULL,
    PH_PEND, PH_PUSH, PH_SETUP, Q_CHANGE, Q_GUARD, Q_ITEM, Q_MAX, Q_ROAR, Q_STORM, Q_TRAP, Q_WARP, QUEUE,
    R_BOON_TOGETHER, R_BOONS, R_CAPTURE_COUNT, R_CHANCE_ANY, R_DEF_DAMAGE, R_DIVINE_AID, R_DUEL_DECK,
    R_FIREBLAST_POWER, R_LIGHTNING_AID_PASSES, R_LIGHTNING_LAPS, R_LONE_ONE_LOSES, R_MODE, R_NP, R_PLAY_CAP, R_RESHUFFLE, R_THIEF_HAND,
    R_TRIGGER, R_TURN_CAP, S_BOON, S_CAP, S_CAPN, S_ELIM, S_ELIM_TURN, S_HAND, S_HANDN, S_INFAMY, S_LINE, S_OPEN,
    S_PLAYED, S_TURNS, SEAT, SEAT_SIZE, SLOT_SIZE, ST_CHANCE, ST_RECKLESS, ST_TEAM, ST_TRUE, STATE_SIZE,
    WB_BARBARIANS, WB_BROTHERHOOD, WB_GOBLINS, WB_KNIGHTS, WB_MONSTERS, WB_REPTILIOS, WB_TREE_BEASTS, WB_WIZARDS,
)

HAND_SIZE, DRAW_PER_TURN, PUSH_MAX, ROW = 10, 3, 3, 4
from simkit.games.valka.multiplayer.layout import MAX_SEATS as _SEATS_MAX  # noqa: E402 (add_attacks' scratch)
_TARGETS_MAX = 4 * _SEATS_MAX


# --- small helpers --------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def sb(p):
    return SEAT + p * SEAT_SIZE


@njit(cache=True, inline="always")
def lb(p, j):
    return SEAT + p * SEAT_SIZE + S_LINE + j * SLOT_SIZE


@njit(cache=True, _nrt=False)
def hand_code(env, c):
    if c < BUFF0:
        return c
    if c < EVENT0:
        return HC_BUFF + 3 * env[5][c - BUFF0] + env[6][c - BUFF0] - 1
    return HC_EVENT + env[7][c - EVENT0]


@njit(cache=True, _nrt=False)
def find_hc(s, env, p, h):
    """Index in seat ``p``'s hand of a card with hand code ``h`` (-1: none)."""
    b = sb(p)
    for i in range(s[b + S_HANDN]):
        if hand_code(env, s[b + S_HAND + i]) == h:
            return i
    return -1


@njit(cache=True, _nrt=False)
def hand_add(s, p, c):
    b = sb(p)
    s[b + S_HAND + s[b + S_HANDN]] = c
    s[b + S_HANDN] += 1


@njit(cache=True, _nrt=False)
def hand_take(s, p, i):
    b = sb(p)
    n = s[b + S_HANDN] - 1
    c = s[b + S_HAND + i]
    s[b + S_HAND + i] = s[b + S_HAND + n]
    s[b + S_HANDN] = n
    return c


@njit(cache=True, _nrt=False)
def mark_played(s, p, c):
    s[sb(p) + S_PLAYED + c // 32] |= np.int32(1 << (c % 32)) if c % 32 < 31 else np.int32(-2147483648)


@njit(cache=True, _nrt=False)
def grave_add(s, c):
    n = s[GRAVE]
    s[GRAVE + 1 + n] = c
    s[GRAVE] = n + 1


@njit(cache=True, _nrt=False)
def deck_of(s, env, p):
    if env[9][R_MODE] == MODE_DUEL and env[9][R_DUEL_DECK] == 1:
        return 1 + p
    return 0


@njit(cache=True, _nrt=False)
def draw(s, rng, env, p, k):
    d = DECKS + deck_of(s, env, p) * DECK_SIZE
    for _ in range(k):
        n = s[d]
        if n == 0:
            g = s[GRAVE]
            if env[9][R_RESHUFFLE] == 0 or g == 0:
                return
            for i in range(g):
                s[d + 1 + i] = s[GRAVE + 1 + i]
            s[GRAVE] = 0
            shuffle(rng, s[d + 1:d + 1 + g], g)
            s[d] = g
            n = g
        hand_add(s, p, s[d + n])
        s[d] = n - 1


@njit(cache=True, _nrt=False)
def deck_bottom(s, env, p, c):
    d = DECKS + deck_of(s, env, p) * DECK_SIZE
    n = s[d]
    for i in range(n, 0, -1):
        s[d + 1 + i] = s[d + i]
    s[d + 1] = c
    s[d] = n + 1


@njit(cache=True, _nrt=False)
def clear_slot(s, p, j):
    b = lb(p, j)
    s[b + L_CARD] = -1
    s[b + L_FACE] = 0
    s[b + L_DMG] = 0
    s[b + L_BSTR] = -1
    s[b + L_BSHD] = -1
    s[b + L_BHP] = -1
    s[b + L_ATK] = 0


@njit(cache=True, _nrt=False)
def copy_slot(s, p, src, dst):
    a = lb(p, src)
    b = lb(p, dst)
    for k in range(SLOT_SIZE):
        s[b + k] = s[a + k]
    clear_slot(s, p, src)


@njit(cache=True, _nrt=False)
def alive(s, p):
    return s[sb(p) + S_ELIM] == 0


@njit(cache=True, _nrt=False)
def is_fighter_slot(s, p, j):
    c = s[lb(p, j) + L_CARD]
    return 0 <= c < N_FIGHTERS


@njit(cache=True, _nrt=False)
def front_count(s, p):
    n = 0
    for j in range(ROW):
        if s[lb(p, j) + L_CARD] >= 0:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def back_count(s, p):
    n = 0
    for j in range(ROW, 2 * ROW):
        if s[lb(p, j) + L_CARD] >= 0:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def first_empty(s, p, row):
    for j in range(row * ROW, row * ROW + ROW):
        if s[lb(p, j) + L_CARD] < 0:
            return j
    return -1


@njit(cache=True, _nrt=False)
def holds(s, env, p, h):
    return find_hc(s, env, p, h) >= 0


@njit(cache=True, _nrt=False)
def holds_divine_aid(s, env, p):
    return env[9][R_DIVINE_AID] == 1 and find_hc(s, env, p, HC_EVENT + EV_DIVINE_AID) >= 0


# --- Warband Boons --------------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def boon(s, env, p, w):
    return env[9][R_BOONS] == 1 and s[sb(p) + S_BOON + w] > 0


@njit(cache=True, _nrt=False)
def warband_count(s, env, p, w, newmask):
    """Frontline Fighters of Warband ``w`` with the Jokers (``boons.members``) and how many of them are in the
    slots of ``newmask`` (just entered): ``count * 16 + new``."""
    packed = 0
    for j in range(ROW):
        c = s[lb(p, j) + L_CARD]
        if c >= 0:
            packed = boons.tally(w, env[0][c], packed, (newmask >> j) & 1)
    return boons.members(packed)


@njit(cache=True, _nrt=False)
def update_boons(s, env, p):
    """"Persisting Warband Boons become inactive when your Frontline is reduced to 2 or fewer Fighters from the
    same Warband" (a Horde); a Deadly Dyad ends when fewer than 2 remain (``boons.after_loss``)."""
    b = sb(p) + S_BOON
    for w in range(8):
        if s[b + w] != 0:
            s[b + w] = boons.after_loss(s[b + w], warband_count(s, env, p, w, 0) // 16)


@njit(cache=True, _nrt=False)
def fire_one_time(s, env, p, w):
    """Weird Warp, Monstrous Roar, Magic Storm: a decision of their owner, queued."""
    if env[9][R_BOONS] != 1:
        return
    if w == WB_BROTHERHOOD:
        q_push(s, Q_WARP, p, 0, 0, 0, 0, 0, False)
    elif w == WB_MONSTERS:
        q_push(s, Q_ROAR, p, 0, 0, 0, 0, 0, False)
    elif w == WB_WIZARDS:
        q_push(s, Q_STORM, p, 3, 0, 0, 0, 0, False)


@njit(cache=True, _nrt=False)
def enter_boons(s, env, p, newmask):
    """Fighters in ``newmask`` just entered the Frontline (``boons.after_entry``; rule ``boon_entry``)."""
    if env[9][R_BOONS] != 1:
        return
    need = 2 if env[9][R_BOON_TOGETHER] == 1 else 1
    b = sb(p) + S_BOON
    for w in range(8):
        x = warband_count(s, env, p, w, newmask)
        r = boons.after_entry(s[b + w], x // 16, x % 16, need)
        s[b + w] = r // 2
        if r % 2 == 1:
            fire_one_time(s, env, p, w)


@njit(cache=True, _nrt=False)
def start_turn_boons(s, env, p):
    """The start of ``p``'s turn (``boons.at_turn_start``): Hordes (again), Dyads end."""
    if env[9][R_BOONS] != 1:
        return
    b = sb(p) + S_BOON
    for w in range(8):
        r = boons.at_turn_start(s[b + w], warband_count(s, env, p, w, 0) // 16)
        s[b + w] = r // 2
        if r % 2 == 1:
            fire_one_time(s, env, p, w)


# --- scores ---------------------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def buff_value(env, c):
    return env[6][c - BUFF0] if c >= 0 else 0


@njit(cache=True, _nrt=False)
def strike_total(s, env, p, j):
    b = lb(p, j)
    return combat.score(env[2][s[b + L_CARD]], buff_value(env, s[b + L_BSTR]), j < ROW and boon(s, env, p, WB_GOBLINS))


@njit(cache=True, _nrt=False)
def shield_total(s, env, p, j):
    b = lb(p, j)
    return combat.score(env[4][s[b + L_CARD]], buff_value(env, s[b + L_BSHD]), j < ROW and boon(s, env, p, WB_KNIGHTS))


@njit(cache=True, _nrt=False)
def health_total(s, env, p, j):
    b = lb(p, j)
    return combat.score(env[3][s[b + L_CARD]], buff_value(env, s[b + L_BHP]), False)


@njit(cache=True, _nrt=False)
def health_left(s, env, p, j):
    return combat.health_left(health_total(s, env, p, j), s[lb(p, j) + L_DMG])


@njit(cache=True, _nrt=False)
def barbarian(s, env, p, j):
    w = env[0][s[lb(p, j) + L_CARD]]
    return boon(s, env, p, WB_BARBARIANS) and (w == WB_BARBARIANS or w == JOKER)


@njit(cache=True, _nrt=False)
def chance_only(s, env, q):
    """Tree Beasts, Nature's Wrath: "Your Frontline Fighters can only be targeted by Chance Strikes"."""
    return boon(s, env, q, WB_TREE_BEASTS)


@njit(cache=True, _nrt=False)
def chance_log(env, strike, shield, a, d, o):
    log = env[10]
    k = log[0]
    if 1 + 5 * (k + 1) <= log.shape[0]:
        r = 1 + 5 * k
        log[r] = strike
        log[r + 1] = shield
        log[r + 2] = a
        log[r + 3] = d
        log[r + 4] = o
        log[0] = k + 1


# --- the queue of pending decisions -------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def q_push(s, t, seat, x0, x1, x2, x3, x4, front):
    """Queue a pending decision of ``seat``: at the back (Traps, Boons: in the order they arise) or at the front
    (a Divine Aid window, which must be answered before anything else happens)."""
    n = s[H_QN]
    if n >= Q_MAX:
        return
    if front:
        for i in range(n * Q_ITEM - 1, -1, -1):
            s[QUEUE + Q_ITEM + i] = s[QUEUE + i]
        k = QUEUE
    else:
        k = QUEUE + n * Q_ITEM
    s[k] = t
    s[k + 1] = seat
    s[k + 2] = x0
    s[k + 3] = x1
    s[k + 4] = x2
    s[k + 5] = x3
    s[k + 6] = x4
    s[H_QN] = n + 1


@njit(cache=True, _nrt=False)
def q_pop(s):
    n = s[H_QN]
    for i in range((n - 1) * Q_ITEM):
        s[QUEUE + i] = s[QUEUE + Q_ITEM + i]
    for i in range((n - 1) * Q_ITEM, n * Q_ITEM):
        s[QUEUE + i] = 0
    s[H_QN] = n - 1


# --- defeat, moving up, elimination, the end -------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def score_of(s, env, p):
    return s[sb(p) + S_CAPN] if env[9][R_CAPTURE_COUNT] == 1 else s[sb(p) + S_INFAMY]


@njit(cache=True, _nrt=False)
def defeat(s, env, p, j, killer):
    """"When a Fighter is reduced to 0 Health, that Fighter, and any Buffs equipped to it are moved to the
    Graveyard" — in Bounty Hunter "the player who defeated the Fighter claims it to their capture pile"."""
    b = lb(p, j)
    c = s[b + L_CARD]
    for k in range(L_BSTR, L_BHP + 1):
        if s[b + k] >= 0:
            grave_add(s, s[b + k])
    if killer >= 0 and killer != p and env[9][R_MODE] == MODE_BOUNTY:
        kb = sb(killer)
        s[kb + S_CAP + s[kb + S_CAPN]] = c
        s[kb + S_CAPN] += 1
        s[kb + S_INFAMY] += env[1][c]
        if s[H_TRIGGER] < 0 and score_of(s, env, killer) >= env[9][R_TRIGGER]:
            s[H_TRIGGER] = killer
    else:
        grave_add(s, c)
    clear_slot(s, p, j)
    if j < ROW:
        update_boons(s, env, p)


@njit(cache=True)
def hit(s, env, p, j, dmg, killer):
    """Deal ``dmg`` damage to the Fighter in slot ``j`` of seat ``p``; at its total Health it is defeated, and an
    empty Frontline is refilled from the Backline at once."""
    b = lb(p, j)
    if s[b + L_CARD] < 0 or s[H_OVER] == 1:
        return
    s[b + L_DMG] += dmg
    if combat.is_defeated(health_total(s, env, p, j), s[b + L_DMG]):
        defeat(s, env, p, j, killer)
        check_line(s, env, p)


@njit(cache=True)
def check_line(s, env, p):
    """"If there are no Frontline Fighters, your Backline immediately moves up and becomes your Frontline";
    "If you have no Frontline or Backline you've lost VÁLKA and are eliminated"."""
    if not alive(s, p) or s[H_OVER] == 1:
        return
    if front_count(s, p) > 0:
        return
    if back_count(s, p) == 0:
        eliminate(s, env, p)
        return
    newmask = 0
    for j in range(ROW):
        src = ROW + j
        c = s[lb(p, src) + L_CARD]
        if c < 0:
            continue
        if c >= EVENT0:  # a Trap: flipped face up and resolved (queued: "immediately resolve (in any order)")
            grave_add(s, c)
            clear_slot(s, p, src)
            q_push(s, Q_TRAP, p, env[7][c - EVENT0], c, 0, 0, 0, False)
            s[H_TRAPS_SPRUNG] += 1
            continue
        copy_slot(s, p, src, j)
        b = lb(p, j)
        s[b + L_FACE] = 1
        s[b + L_DMG] = 0
        newmask |= 1 << j
    if newmask == 0:
        # only Traps moved up: they "immediately resolve" (queued, decisions of this player), then, with no
        # Frontline or Backline left, it is eliminated (``settle``, once the queue is empty)
        s[H_FALLING] |= 1 << p
        return
    enter_boons(s, env, p, newmask)


@njit(cache=True, _nrt=False)
def alive_count(s):
    """Players still in, not counting those whose last cards (Traps) are resolving."""
    n = 0
    for p in range(s[H_NP]):
        if alive(s, p) and (s[H_FALLING] >> p) & 1 == 0:
            n += 1
    return n


@njit(cache=True)
def eliminate(s, env, p):
    retire(s, env, p)
    if alive_count(s) <= 1 and s[H_AT_ONCE] == 0:
        finish(s, env)


@njit(cache=True, _nrt=False)
def retire(s, env, p):
    """"If you have no Frontline or Backline you've lost VÁLKA and are eliminated from the game.\""""
    b = sb(p)
    s[H_FALLING] &= ~(1 << p)
    s[b + S_ELIM] = 1
    s[b + S_ELIM_TURN] = s[H_BEGUN]  # the turn it fell in (1, 2, ...), 0 at the set-up reveal
    for i in range(s[b + S_HANDN]):
        grave_add(s, s[b + S_HAND + i])
        s[b + S_HAND + i] = 0
    s[b + S_HANDN] = 0
    for j in range(2 * ROW):  # nothing is left in its lines, but be safe
        if s[lb(p, j) + L_CARD] >= 0:
            defeat(s, env, p, j, -1)
    for w in range(8):
        s[b + S_BOON + w] = 0


@njit(cache=True)
def matching_captures(s, env, p):
    """Tie-break 1: "The player who claimed more Fighters of a matching Warband" (Jokers match any)."""
    b = sb(p)
    counts = np.zeros(9, np.int64)
    for i in range(s[b + S_CAPN]):
        counts[env[0][s[b + S_CAP + i]]] += 1
    best = 0
    for w in range(8):
        if counts[w] > best:
            best = counts[w]
    return best + counts[JOKER]


@njit(cache=True, _nrt=False)
def captured_strike(s, env, p):
    b = sb(p)
    t = 0
    for i in range(s[b + S_CAPN]):
        t += env[2][s[b + S_CAP + i]]
    return t


@njit(cache=True)
def finish(s, env):
    """The end: Annihilation and Duel, the last player standing; Bounty Hunter, the highest Infamy (or most
    captures), then the printed tie-breakers; a tie after them all is shared ("If there is still a tie, wow")."""
    if s[H_OVER] == 1:
        return
    s[H_OVER] = 1
    for p in range(s[H_NP]):  # players whose Traps were still resolving are out as well
        if (s[H_FALLING] >> p) & 1 and alive(s, p):
            retire(s, env, p)
    s[H_FALLING] = 0
    s[H_PHASE] = PH_END
    s[H_QN] = 0
    np_ = s[H_NP]
    mask = 0
    if env[9][R_MODE] != MODE_BOUNTY:
        for p in range(np_):
            if alive(s, p):
                mask |= 1 << p
        if mask == 0:  # everyone fell on the same turn: they share it ("The last player standing is the winner";
            # a player out at the set-up reveal, stamped 0, fell before the first turn and shares nothing)
            for p in range(np_):
                if s[sb(p) + S_ELIM_TURN] == s[H_BEGUN]:
                    mask |= 1 << p
    else:
        best = np.full(3, -1, np.int64)
        for p in range(np_):
            key0 = score_of(s, env, p)
            key1 = matching_captures(s, env, p)
            key2 = captured_strike(s, env, p)
            better = key0 > best[0] or (key0 == best[0] and (key1 > best[1] or (key1 == best[1] and key2 > best[2])))
            if better:
                best[0] = key0
                best[1] = key1
                best[2] = key2
                mask = 1 << p
            elif key0 == best[0] and key1 == best[1] and key2 == best[2]:
                mask |= 1 << p
    s[H_WINMASK] = mask


@njit(cache=True, _nrt=False)
def stall(s):
    s[H_OVER] = 1
    s[H_STALLED] = 1
    s[H_PHASE] = PH_END
    s[H_QN] = 0
    s[H_WINMASK] = 0


# --- turns ----------------------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def start_turn(s, rng, env, p):
    """"Draw 3 Cards - Begin each turn (including your first turn) by drawing 3 new cards"; Horde Boons first."""
    s[H_ACTIVE] = p
    s[H_PHASE] = PH_MAIN
    s[H_PLAYS] = 0
    s[H_COUNT] = 0
    for j in range(2 * ROW):
        s[lb(p, j) + L_ATK] = 0
    s[sb(p) + S_TURNS] += 1
    s[H_BEGUN] += 1
    start_turn_boons(s, env, p)
    draw(s, rng, env, p, DRAW_PER_TURN)


@njit(cache=True)
def end_turn(s, rng, env):
    """Clockwise to the next player still in; in Bounty Hunter, "When the player who triggered endgame would
    start their next turn, the game is over"; a game reaching the turn cap is stalled."""
    s[H_TURN] += 1
    if s[H_TURN] >= env[9][R_TURN_CAP]:
        stall(s)
        return
    q = s[H_ACTIVE]
    np_ = s[H_NP]
    for _ in range(np_):
        q = (q + 1) % np_
        if q == s[H_TRIGGER]:
            finish(s, env)
            return
        if alive(s, q):
            start_turn(s, rng, env, q)
            return
    finish(s, env)


@njit(cache=True)
def roll_off(rng, np_):
    """"Each player rolls a D10 and the player with the highest outcome is the first player ... In the case of
    ties, roll again" (only the tied players)."""
    cand = np.ones(np_, np.int64)
    while True:
        best = 0
        rolls = np.zeros(np_, np.int64)
        for p in range(np_):
            if cand[p]:
                rolls[p] = roll(rng, 10)
                if rolls[p] > best:
                    best = rolls[p]
        n = 0
        first = 0
        for p in range(np_):
            if cand[p] and rolls[p] == best:
                n += 1
                first = p
            else:
                cand[p] = 0
        if n == 1:
            return first


@njit(cache=True)
def new_game(s, rng, env):
    """Shuffle the VÁLKA deck, roll off for the first player; a Duel starts its draft, the other modes deal 10
    to each player (in seat order) and start the mulligans."""
    rules = env[9]
    s[:] = 0
    np_ = rules[R_NP]
    s[H_NP] = np_
    s[H_TRIGGER] = -1
    for p in range(np_):
        for j in range(2 * ROW):
            clear_slot(s, p, j)
    for c in range(N_CARDS):
        s[DECKS + 1 + c] = c
    shuffle(rng, s[DECKS + 1:DECKS + 1 + N_CARDS], N_CARDS)
    s[DECKS] = N_CARDS
    first = roll_off(rng, np_)
    s[H_FIRST] = first
    s[H_ACTIVE] = first
    if rules[R_MODE] == MODE_DUEL:
        for i in range(MARKET_SIZE):
            n = s[DECKS]
            s[MARKET + 1 + i] = s[DECKS + n]
            s[DECKS] = n - 1
        s[MARKET] = MARKET_SIZE
        s[H_PHASE] = PH_DRAFT
        s[H_SUB] = first
        s[H_TOMOVE] = first
        return
    for _ in range(HAND_SIZE):
        for p in range(np_):
            draw(s, rng, env, p, 1)
    s[H_PHASE] = PH_MULL
    s[H_SUB] = first
    s[H_TOMOVE] = first


@njit(cache=True, _nrt=False)
def record_opening(s, p):
    b = sb(p)
    for i in range(s[b + S_HANDN]):
        c = s[b + S_HAND + i]
        s[b + S_OPEN + c // 32] |= np.int32(1 << (c % 32)) if c % 32 < 31 else np.int32(-2147483648)


@njit(cache=True, _nrt=False)
def next_sub(s):
    """The next seat of a set-up round (clockwise from the first player); -1 when the round is complete."""
    q = (s[H_SUB] + 1) % s[H_NP]
    return -1 if q == s[H_FIRST] else q


@njit(cache=True)
def reveal(s, env):
    """"all players simultaneously reveal every card in their Frontline": Frontline Fighters face up (Boons of
    the Fighters that entered), an empty Frontline is refilled from the Backline."""
    np_ = s[H_NP]
    for k in range(np_):
        p = (s[H_FIRST] + k) % np_
        mask = 0
        for j in range(ROW):
            b = lb(p, j)
            if s[b + L_CARD] >= 0:
                s[b + L_FACE] = 1
                mask |= 1 << j
        if mask:
            enter_boons(s, env, p, mask)
    for k in range(np_):
        p = (s[H_FIRST] + k) % np_
        check_line(s, env, p)


# --- Events and other effects -------------------------------------------------------------------------------------

@njit(cache=True)
def to_hand_with_buffs(s, env, p, j, owner, buffs_to_grave):
    """The Fighter in slot ``j`` of ``p`` to ``owner``'s hand; its Buffs to the Graveyard or (returning from the
    Backline) to the hand as well."""
    b = lb(p, j)
    for k in range(L_BSTR, L_BHP + 1):
        if s[b + k] >= 0:
            if buffs_to_grave:
                grave_add(s, s[b + k])
            else:
                hand_add(s, owner, s[b + k])
    hand_add(s, owner, s[b + L_CARD])
    clear_slot(s, p, j)
    if j < ROW:
        update_boons(s, env, p)
        check_line(s, env, p)


@njit(cache=True)
def do_fear(s, env, q, j, card):
    """Fear / Monstrous Roar: "All Buffs equipped to that Fighter go to the Graveyard, then send that Fighter to
    its owner's hand"."""
    if s[lb(q, j) + L_CARD] != card or not alive(s, q):
        return
    to_hand_with_buffs(s, env, q, j, q, True)


@njit(cache=True)
def do_retreat(s, env, p, j):
    """"Move one of your Frontline Fighters and all Buffs equipped to it to your Backline. If your Backline is
    full return them all to your hand." (Backline Fighters always have full Health.)"""
    dst = first_empty(s, p, 1)
    if dst < 0:
        to_hand_with_buffs(s, env, p, j, p, False)
        return
    copy_slot(s, p, j, dst)
    s[lb(p, dst) + L_DMG] = 0
    s[lb(p, dst) + L_FACE] = 1
    update_boons(s, env, p)
    check_line(s, env, p)


@njit(cache=True, _nrt=False)
def do_reinforce(s, env, p, j):
    """"Move one of your Backline Fighters and all Buffs equipped to it to your Frontline.\""""
    dst = first_empty(s, p, 0)
    if dst < 0:
        return
    copy_slot(s, p, j, dst)
    s[lb(p, dst) + L_FACE] = 1
    enter_boons(s, env, p, 1 << dst)


@njit(cache=True, _nrt=False)
def do_change(s, env, p, q, j, card, f):
    """Changeling: "Swap a Fighter in your hand with a Fighter in yours or an opponent's Frontline. Buff cards do
    not move ... Any swapped Fighter loses all damage.\""""
    b = lb(q, j)
    i = find_hc(s, env, p, f)
    if s[b + L_CARD] != card or i < 0 or not alive(s, q):
        return
    hand_take(s, p, i)
    s[b + L_CARD] = f
    s[b + L_DMG] = combat.swapped(s[b + L_DMG])
    hand_add(s, p, card)
    mark_played(s, p, f)
    update_boons(s, env, q)
    enter_boons(s, env, q, 1 << j)
    if combat.is_defeated(health_total(s, env, q, j), s[b + L_DMG]):  # cannot happen (damage is cleared)
        defeat(s, env, q, j, -1)


@njit(cache=True, _nrt=False)
def do_steal(s, rng, env, p, q, k):
    """Take ``k`` cards at random from ``q``'s hand into ``p``'s."""
    for _ in range(k):
        n = s[sb(q) + S_HANDN]
        if n == 0:
            return
        hand_add(s, p, hand_take(s, q, randbelow(rng, n)))


@njit(cache=True, _nrt=False)
def best_buff_slot(s, env, q, j):
    """The Buff of highest value on slot ``j`` (the one Thief takes), as a line offset, or -1."""
    b = lb(q, j)
    best, at = 0, -1
    for k in range(L_BSTR, L_BHP + 1):
        c = s[b + k]
        if c >= 0 and env[6][c - BUFF0] > best:
            best, at = env[6][c - BUFF0], k
    return at


@njit(cache=True, _nrt=False)
def do_thief(s, rng, env, p, q, j, card):
    """Thief (multiplayer effect not printed): rule ``thief`` "backline_buff" (default) takes the best Buff from
    an opponent's face-up Backline Fighter into your hand; "hand" takes 2 random cards from their hand."""
    if env[9][R_THIEF_HAND] == 1:
        do_steal(s, rng, env, p, q, 2)
        return
    b = lb(q, j)
    if s[b + L_CARD] != card:
        return
    k = best_buff_slot(s, env, q, j)
    if k >= 0:
        hand_add(s, p, s[b + k])
        s[b + k] = -1


@njit(cache=True)
def damage(s, env, actor, q, j, dmg, killer):
    """Damage from ``actor``'s strike or Event to ``q``'s Fighter, giving ``q`` a Divine Aid window if it holds
    one: "ignore all effects targeting you, your Fighters ..." and "negate the damage"."""
    card = s[lb(q, j) + L_CARD]
    if card < 0:
        return
    if q != actor and holds_divine_aid(s, env, q):
        q_push(s, Q_GUARD, q, G_DAMAGE, j, dmg, killer, card, True)
        return
    hit(s, env, q, j, dmg, killer)


@njit(cache=True)
def do_fireblast(s, rng, env, p, q, j, card):
    """"Declare any Frontline Fighter and make a Chance Strike or True Strike against them with +3. If you strike
    the enemy, deal 2 damage to it and 1 damage to any other Frontline enemies on either side of it.\"" A failed
    roll may be landed with the caster's Divine Aid ("In the case of a failed ... Event roll outcome, reveal Divine
    Aid to ... resolve that Event")."""
    if s[lb(q, j) + L_CARD] != card or not alive(s, q):
        return
    power = env[9][R_FIREBLAST_POWER]
    shield = shield_total(s, env, q, j)
    if combat.fireblast_is_true(power, shield, chance_only(s, env, q)):
        fireblast_lands(s, env, p, q, j, card)
        return
    a = roll(rng, 10)
    d = roll(rng, 10)
    o = combat.chance(a, d, power, shield, env[9][R_LONE_ONE_LOSES] == 1, env[9][R_DEF_DAMAGE] == 1)
    chance_log(env, power, shield, a, d, o)
    fb = combat.fireblast(o)
    if fb == combat.FB_STRIKES:
        fireblast_lands(s, env, p, q, j, card)
    elif holds_divine_aid(s, env, p):
        q_push(s, Q_GUARD, p, G_BLAST_LAND, q * 8 + j, fb, 0, card, True)
    elif fb == combat.FB_SELF_HURT:
        hit(s, env, q, j, 1, -1)


@njit(cache=True)
def fireblast_lands(s, env, p, q, j, card):
    """A Fireblast that struck: the target's player may still answer with Divine Aid ("negate the damage",
    "ignore all effects targeting you, your Fighters, Frontlines"), which ignores all of its damage."""
    if s[lb(q, j) + L_CARD] != card or not alive(s, q):
        return
    if q != p and holds_divine_aid(s, env, q):
        q_push(s, Q_GUARD, q, G_BLAST, j, 0, p, card, True)
        return
    fireblast_damage(s, env, p, q, j)


@njit(cache=True)
def fireblast_damage(s, env, p, q, j):
    """2 damage to the target and 1 to the occupied Frontline slots beside it."""
    left = s[lb(q, j - 1) + L_CARD] if j > 0 else -1
    right = s[lb(q, j + 1) + L_CARD] if j < ROW - 1 else -1
    hit(s, env, q, j, combat.FIREBLAST_DAMAGE, p)
    if left >= 0 and s[lb(q, j - 1) + L_CARD] == left:
        hit(s, env, q, j - 1, combat.FIREBLAST_SPLASH, p)
    if right >= 0 and s[lb(q, j + 1) + L_CARD] == right:
        hit(s, env, q, j + 1, combat.FIREBLAST_SPLASH, p)


@njit(cache=True)
def do_lightning(s, rng, env, p, q):
    """"Choose an opponent's Frontline then roll a die. Starting with the chosen Frontline, deal 1 damage to X
    enemies ... continue dealing damage to Fighters in the Frontline of the player to your target's left ...
    Should the order arrive at your Frontline, you must assign damage to your own Frontline. All Fighters
    defeated this way go to the Graveyard." Rule ``lightning_laps``: keep going round (default) or stop after one
    lap. The player to the left is the next clockwise."""
    bolt(s, env, p, q, combat.lightning_damage(roll(rng, 10)), 0, 0, 0)


@njit(cache=True)
def bolt(s, env, p, r, x, visited, idle_lap, mode):
    """The bolt from Frontline ``r`` on with ``x`` damage left. At each opponent's Frontline it reaches, a player
    holding Divine Aid may reveal it ("ignore all effects targeting you, your Fighters, Frontlines"): ``mode`` 0
    asks (a ``G_BOLT`` window, the bolt waits), 1 deals (the window was declined), 2 protects that Frontline: the
    damage assigned to it is spent there (rule ``lightning_aid`` "absorbs", default) or passes on ("passes")."""
    np_ = s[H_NP]
    cards = np.empty(ROW, np.int64)
    while x > 0 and s[H_OVER] == 0:
        if alive(s, r):
            dealt = 0
            if mode == 0 and r != p and front_count(s, r) > 0 and holds_divine_aid(s, env, r):
                q_push(s, Q_GUARD, r, G_BOLT, x, visited, p, idle_lap, True)
                return
            if mode == 2:
                if env[9][R_LIGHTNING_AID_PASSES] == 0:
                    dealt = min(x, front_count(s, r))
                    x -= dealt
            else:
                for j in range(ROW):
                    cards[j] = s[lb(r, j) + L_CARD]
                for j in range(ROW):
                    if x == 0 or s[H_OVER] == 1:
                        break
                    if cards[j] >= 0 and s[lb(r, j) + L_CARD] == cards[j]:
                        hit(s, env, r, j, 1, -1)
                        x -= 1
                        dealt += 1
            idle_lap = 0 if dealt > 0 else idle_lap + 1
        else:
            idle_lap += 1
        mode = 0
        visited += 1
        if idle_lap >= np_:
            break
        if env[9][R_LIGHTNING_LAPS] == 0 and visited >= np_:
            break
        r = (r + 1) % np_


@njit(cache=True, inline="always", _nrt=False)
def event_target_ok(s, env, p, kind, q, j):
    """Whether Event ``kind`` played by ``p`` may target seat ``q`` slot ``j`` (0..7) now."""
    if q >= s[H_NP] or not alive(s, q):
        return False
    b = lb(q, j)
    c = s[b + L_CARD]
    if kind == EV_FEAR:
        return q != p and j < ROW and c >= 0
    if kind == EV_POTION:
        return j < ROW and c >= 0 and s[b + L_DMG] > 0
    if kind == EV_RETREAT:
        return q == p and j < ROW and c >= 0
    if kind == EV_REINFORCE:
        return q == p and j >= ROW and 0 <= c < N_FIGHTERS and front_count(s, p) < ROW
    if kind == EV_CHANGELING:
        if j >= ROW or c < 0:
            return False
        bp = sb(p)
        for i in range(s[bp + S_HANDN]):
            if s[bp + S_HAND + i] < N_FIGHTERS:
                return True
        return False
    if kind == EV_FIREBLAST:
        return q != p and j < ROW and c >= 0
    if kind == EV_LIGHTNING:
        return q != p and j == 0
    if kind == EV_THIEF:
        if q == p:
            return False
        if env[9][R_THIEF_HAND] == 1:
            return j == 0 and s[sb(q) + S_HANDN] > 0
        return j >= ROW and 0 <= c < N_FIGHTERS and s[b + L_FACE] == 1 and best_buff_slot(s, env, q, j) >= 0
    return False


@njit(cache=True)
def resolve_event(s, rng, env, p, kind, q, j):
    """An Event of ``p`` resolves against seat ``q`` slot ``j``; targeted opponents may answer with Divine Aid."""
    b = lb(q, j)
    card = s[b + L_CARD]
    guard = q != p and holds_divine_aid(s, env, q)
    if kind == EV_FEAR:
        if guard:
            q_push(s, Q_GUARD, q, G_FEAR, j, 0, p, card, True)
        else:
            do_fear(s, env, q, j, card)
    elif kind == EV_POTION:
        s[b + L_DMG] = combat.potion(s[b + L_DMG])
    elif kind == EV_RETREAT:
        do_retreat(s, env, p, j)
    elif kind == EV_REINFORCE:
        do_reinforce(s, env, p, j)
    elif kind == EV_CHANGELING:
        q_push(s, Q_CHANGE, p, q, j, card, 0, 0, True)
    elif kind == EV_FIREBLAST:
        if guard:
            q_push(s, Q_GUARD, q, G_FIREBLAST, j, 0, p, card, True)
        else:
            do_fireblast(s, rng, env, p, q, j, card)
    elif kind == EV_LIGHTNING:
        # the chosen player may answer with Divine Aid: the bolt is ignored (the spill-over never happens)
        if guard:
            q_push(s, Q_GUARD, q, G_LIGHTNING, 0, 0, p, 0, True)
        else:
            do_lightning(s, rng, env, p, q)
    elif kind == EV_THIEF:
        if guard:
            q_push(s, Q_GUARD, q, G_THIEF, j, 0, p, card, True)
        else:
            do_thief(s, rng, env, p, q, j, card)


# --- attacks ------------------------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def can_attack(s, p, i):
    b = lb(p, i)
    return s[b + L_CARD] >= 0 and s[b + L_ATK] == 0


@njit(cache=True, _nrt=False)
def team_pool(s, env, p, lead, out):
    """Fighters that may join ``lead``'s Team Strike: unused Frontline Fighters and, with the Reptilios' Horde
    Strike, unused face-up Backline Fighters. Returns how many (slots in ``out``)."""
    n = 0
    for j in range(ROW):
        if j != lead and can_attack(s, p, j):
            out[n] = j
            n += 1
    if boon(s, env, p, WB_REPTILIOS):
        for j in range(ROW, 2 * ROW):
            b = lb(p, j)
            c = s[b + L_CARD]
            if 0 <= c < N_FIGHTERS and s[b + L_FACE] == 1 and s[b + L_ATK] == 0:
                out[n] = j
                n += 1
    return n


@njit(cache=True, inline="always", _nrt=False)
def team_total(s, env, p, lead):
    """The Strike of ``lead`` plus every Fighter that may join its Team Strike (``lead``'s alone if none may)."""
    tot = strike_total(s, env, p, lead)
    n = 0
    for j in range(ROW):
        if j != lead and can_attack(s, p, j):
            tot += strike_total(s, env, p, j)
            n += 1
    if boon(s, env, p, WB_REPTILIOS):
        for j in range(ROW, 2 * ROW):
            b = lb(p, j)
            c = s[b + L_CARD]
            if 0 <= c < N_FIGHTERS and s[b + L_FACE] == 1 and s[b + L_ATK] == 0:
                tot += strike_total(s, env, p, j)
                n += 1
    return tot if n > 0 else -1


@njit(cache=True, _nrt=False)
def attack_ok(s, env, p, i, q, j, t):
    """Whether Fighter ``i`` of ``p`` may make strike ``t`` on ``q``'s Frontline slot ``j``."""
    if q == p or q >= s[H_NP] or not alive(s, q) or not can_attack(s, p, i) or i >= ROW:
        return False
    if s[lb(q, j) + L_CARD] < 0:
        return False
    only_chance = chance_only(s, env, q)
    st = strike_total(s, env, p, i)
    sh = shield_total(s, env, q, j)
    left = health_left(s, env, p, i) if t == ST_RECKLESS else 0
    team = team_total(s, env, p, i) if t == ST_TEAM and not only_chance and st <= sh else -1
    return combat.may_strike(t, st, sh, left, team, only_chance, env[9][R_CHANCE_ANY] == 1)


@njit(cache=True, _nrt=False)
def team_members(s, env, p, i, sh, pool, n):
    """Who joins ``i``'s Team Strike on Shield ``sh``: a bit mask over ``pool`` (``combat.team_pick``)."""
    packed = 0
    for k in range(n):
        packed = combat.team_lane(packed, k, strike_total(s, env, p, pool[k]))
    return combat.team_pick(strike_total(s, env, p, i), packed, n, sh, 1)


@njit(cache=True)
def apply_chance(s, env, p, i, q, j, o):
    """A Chance Strike's outcome. Double 1s: "they both deal 1 damage to themselves" at once, so two players
    put out by it are out together (the game's end waits for both)."""
    if o == DEFENDER_HITS:
        hit(s, env, p, i, 1, q)
    elif o == ATTACKER_HITS:
        damage(s, env, p, q, j, 1, p)
    elif o == BOTH_HURT:
        s[H_AT_ONCE] = 1
        hit(s, env, p, i, 1, -1)
        damage(s, env, p, q, j, 1, -1)
        s[H_AT_ONCE] = 0
        if alive_count(s) <= 1:
            finish(s, env)


@njit(cache=True)
def attack(s, rng, env, p, i, q, j, t):
    """"Each Frontline Fighter must attack once per round": True, Team, Reckless and Chance Strikes."""
    b = lb(p, i)
    s[b + L_ATK] = 1
    card = s[lb(q, j) + L_CARD]
    if t == ST_TRUE:
        damage(s, env, p, q, j, combat.strike_damage(combat.TRUE, barbarian(s, env, p, i)), p)
    elif t == ST_RECKLESS:
        # "If a Fighter has only 1 Health, you may sacrifice it to deal 1 damage to any target."
        damage(s, env, p, q, j, 1, p)
        if s[b + L_CARD] >= 0:
            defeat(s, env, p, i, -1)
            check_line(s, env, p)
    elif t == ST_TEAM:
        pool = np.empty(8, np.int64)
        n = team_pool(s, env, p, i, pool)
        sh = shield_total(s, env, q, j)
        m = team_members(s, env, p, i, sh, pool, n)
        berserker = barbarian(s, env, p, i)
        for k in range(n):
            if (m >> k) & 1:
                s[lb(p, pool[k]) + L_ATK] = 1
                berserker = berserker or (pool[k] < ROW and barbarian(s, env, p, pool[k]))
        damage(s, env, p, q, j, combat.strike_damage(combat.TEAM, berserker), p)
    else:
        st = strike_total(s, env, p, i)
        sh = shield_total(s, env, q, j)
        a = roll(rng, 10)
        d = roll(rng, 10)
        o = combat.chance(a, d, st, sh, env[9][R_LONE_ONE_LOSES] == 1, env[9][R_DEF_DAMAGE] == 1)
        chance_log(env, st, sh, a, d, o)
        if o != ATTACKER_HITS and holds_divine_aid(s, env, p):
            # "In the case of a failed ... Chance Strike ... reveal Divine Aid to ... land that Chance Strike"
            q_push(s, Q_GUARD, p, G_LAND, i, q * 8 + j, o, card, True)
            return
        apply_chance(s, env, p, i, q, j, o)
    _ = card


@njit(cache=True)
def resolve_guard(s, rng, env, use):
    """Answer the Divine Aid window at the head of the queue (``use``: reveal Divine Aid) and pop it."""
    k = QUEUE
    g = s[k + 1]
    kind = s[k + 2]
    x1, x2, x3, x4 = s[k + 3], s[k + 4], s[k + 5], s[k + 6]
    q_pop(s)
    if use:
        i = find_hc(s, env, g, HC_EVENT + EV_DIVINE_AID)
        if i < 0:
            use = False
        else:
            c = hand_take(s, g, i)
            grave_add(s, c)
            mark_played(s, g, c)
            s[H_EVENTS_PLAYED] += 1
    if kind == G_DAMAGE:
        if not use and s[lb(g, x1) + L_CARD] == x4:
            hit(s, env, g, x1, x2, x3)
    elif kind == G_FEAR:
        if not use:
            do_fear(s, env, g, x1, x4)
    elif kind == G_CHANGE:
        if not use:
            do_change(s, env, x3, g, x1, x4, x2)
    elif kind == G_THIEF:
        if not use:
            do_thief(s, rng, env, x3, g, x1, x4)
    elif kind == G_FIREBLAST:
        if not use:
            do_fireblast(s, rng, env, x3, g, x1, x4)
    elif kind == G_STEAL:
        if not use:
            do_steal(s, rng, env, x3, g, x2)
    elif kind == G_LIGHTNING:
        if not use:
            do_lightning(s, rng, env, x3, g)
    elif kind == G_BLAST:
        if not use and s[lb(g, x1) + L_CARD] == x4 and alive(s, g):
            fireblast_damage(s, env, x3, g, x1)
    elif kind == G_BLAST_LAND:
        q = x1 // 8
        j = x1 % 8
        if s[lb(q, j) + L_CARD] != x4 or not alive(s, q):
            return
        if use:
            fireblast_lands(s, env, g, q, j, x4)
        elif x2 == combat.FB_SELF_HURT:
            hit(s, env, q, j, 1, -1)
    elif kind == G_BOLT:
        bolt(s, env, x3, g, x1, x2, x4, 2 if use else 1)
    elif kind == G_LAND:
        q = x2 // 8
        j = x2 % 8
        if s[lb(q, j) + L_CARD] != x4:
            return
        apply_chance(s, env, g, x1, q, j, ATTACKER_HITS if use else x3)


# --- the decision-point interface -------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def hand_presence(s, env, p, pres):
    for h in range(N_HC):
        pres[h] = 0
    b = sb(p)
    for i in range(s[b + S_HANDN]):
        pres[hand_code(env, s[b + S_HAND + i])] = 1


@njit(cache=True, _nrt=False)
def must_attack(s, env, p):
    """Some Frontline Fighter of ``p`` has not attacked yet and an opponent has a Frontline to strike."""
    has = False
    for i in range(ROW):
        if can_attack(s, p, i):
            has = True
            break
    if not has:
        return False
    for q in range(s[H_NP]):
        if q != p and alive(s, q) and front_count(s, q) > 0:
            return True
    return False


@njit(cache=True, _nrt=False)
def grave_index(s, c):
    for i in range(s[GRAVE]):
        if s[GRAVE + 1 + i] == c:
            return i
    return -1


@njit(cache=True, _nrt=False)
def grave_take(s, i):
    n = s[GRAVE] - 1
    c = s[GRAVE + 1 + i]
    s[GRAVE + 1 + i] = s[GRAVE + 1 + n]
    s[GRAVE + 1 + n] = 0
    s[GRAVE] = n
    return c


@njit(cache=True, inline="always", _nrt=False)
def add_event_targets(s, env, p, kind, out, n):
    if kind == EV_GRAVE_ROBBER:
        for i in range(s[GRAVE]):
            c = s[GRAVE + 1 + i]
            if c < N_FIGHTERS:
                out[n] = B_GRAVE + c
                n += 1
        return n
    if kind == EV_DIVINE_AID or (kind == EV_CHANGELING and not has_fighter_in_hand(s, p)):
        return n
    # only the slots ``event_target_ok`` can accept (the same targets in the same order, fewer calls)
    j_lo, j_hi = 0, ROW
    if kind == EV_REINFORCE or (kind == EV_THIEF and env[9][R_THIEF_HAND] == 0):
        j_lo, j_hi = ROW, 2 * ROW
    elif kind == EV_LIGHTNING or kind == EV_THIEF:
        j_hi = 1
    own = kind == EV_RETREAT or kind == EV_REINFORCE
    other = kind == EV_FEAR or kind == EV_FIREBLAST or kind == EV_LIGHTNING or kind == EV_THIEF
    for q in range(s[H_NP]):
        if not alive(s, q) or (own and q != p) or (other and q == p):
            continue
        for j in range(j_lo, j_hi):
            if event_target_ok(s, env, p, kind, q, j):
                out[n] = B_EVENT + kind * 40 + q * 8 + j
                n += 1
    return n


@njit(cache=True, _nrt=False)
def add_enemy_front(s, p, out, n):
    for q in range(s[H_NP]):
        if q != p and alive(s, q):
            for j in range(ROW):
                if s[lb(q, j) + L_CARD] >= 0:
                    out[n] = B_TARGET + q * 4 + j
                    n += 1
    return n


@njit(cache=True, _nrt=False)
def has_fighter_in_hand(s, p):
    b = sb(p)
    for i in range(s[b + S_HANDN]):
        if s[b + S_HAND + i] < N_FIGHTERS:
            return True
    return False


@njit(cache=True, _nrt=False)
def legal_actions(s, env, out):
    if s[H_OVER] == 1:
        return 0
    ph = s[H_PHASE]
    p = s[H_TOMOVE]
    n = 0
    pres = stack_empty(N_HC, np.int64)  # filled by hand_presence before each use; no allocation per decision
    if ph == PH_DRAFT:
        for i in range(MARKET_SIZE):
            if s[MARKET + 1 + i] >= 0:
                out[n] = B_MARKET + i
                n += 1
        return n
    if ph == PH_PEND:
        t = s[QUEUE]
        if t == Q_TRAP:
            n = add_event_targets(s, env, p, s[QUEUE + 2], out, 0)
        elif t == Q_WARP:
            out[0] = B_CHOICE + 1
            n = 1
            for q in range(s[H_NP]):
                if q != p and alive(s, q) and s[sb(q) + S_HANDN] > 0:
                    out[n] = B_CHOICE + 2 + q
                    n += 1
        elif t == Q_ROAR or t == Q_STORM:
            n = add_enemy_front(s, p, out, 0)
        elif t == Q_GUARD:
            out[0] = A_DONE
            out[1] = B_CHOICE
            n = 2
        elif t == Q_CHANGE:
            hand_presence(s, env, p, pres)
            for f in range(N_FIGHTERS):
                if pres[f]:
                    out[n] = B_DISCARD + f
                    n += 1
        if n == 0:
            out[0] = A_DONE
            n = 1
        return n
    out[0] = A_DONE
    n = 1
    hand_presence(s, env, p, pres)
    if ph == PH_MULL:
        for h in range(N_HC):
            if pres[h]:
                out[n] = B_DISCARD + h
                n += 1
        return n
    if ph == PH_PUSH:
        if s[H_COUNT] < PUSH_MAX:
            for h in range(N_HC):
                if pres[h]:
                    out[n] = B_DISCARD + h
                    n += 1
        return n
    if ph == PH_SETUP:
        fc = front_count(s, p)
        if fc == 0 and has_fighter_in_hand(s, p):
            n = 0  # "a player sets at least one Fighter in the Frontline if able" (reading)
        bc = back_count(s, p)
        for f in range(N_FIGHTERS):
            if pres[f]:
                if fc < ROW:
                    out[n] = B_FRONT + f
                    n += 1
                if bc < ROW:
                    out[n] = B_BACK_DOWN + f
                    n += 1
        if bc < ROW:
            for e in range(10):
                if pres[HC_EVENT + e] and e != EV_DIVINE_AID:
                    out[n] = B_TRAP + e
                    n += 1
        return n
    if ph == PH_EQUIP:
        n = add_equips(s, env, p, pres, 0, out, n)
        for j in range(ROW, 2 * ROW):
            b = lb(p, j)
            if 0 <= s[b + L_CARD] < N_FIGHTERS and s[b + L_FACE] == 0:
                out[n] = B_FLIP + j - ROW
                n += 1
        return n
    # main phase
    if must_attack(s, env, p):
        n = 0
    if s[H_PLAYS] < env[9][R_PLAY_CAP]:
        bc = back_count(s, p)
        if bc < ROW:
            for f in range(N_FIGHTERS):
                if pres[f]:
                    out[n] = B_BACK_UP + f
                    out[n + 1] = B_BACK_DOWN + f
                    n += 2
            for e in range(10):
                if pres[HC_EVENT + e] and e != EV_DIVINE_AID:
                    out[n] = B_TRAP + e
                    n += 1
        n = add_equips(s, env, p, pres, ROW, out, n)
        for j in range(ROW, 2 * ROW):
            b = lb(p, j)
            c = s[b + L_CARD]
            if 0 <= c < N_FIGHTERS and s[b + L_FACE] == 0:
                out[n] = B_FLIP + j - ROW
                n += 1
        for j in range(ROW, 2 * ROW):
            if s[lb(p, j) + L_CARD] >= 0:
                out[n] = B_RETURN + j - ROW
                n += 1
        for j in range(ROW, 2 * ROW):
            b = lb(p, j)
            for t in range(3):
                if s[b + L_BSTR + t] >= 0:
                    out[n] = B_UNEQUIP + (j - ROW) * 3 + t
                    n += 1
        for e in range(10):
            if pres[HC_EVENT + e] and e != EV_DIVINE_AID:
                n = add_event_targets(s, env, p, e, out, n)
    n = add_attacks(s, env, p, out, n)
    return n


@njit(cache=True, inline="always", _nrt=False)
def add_attacks(s, env, p, out, n):
    """Every legal strike of ``p`` (the order: attacker, target seat, target slot, strike type)."""
    chance_any = env[9][R_CHANCE_ANY] == 1
    # every target's Shield once (not once per attacker), and which seats may only be Chance-Struck
    np_ = s[H_NP]
    # scratch on the stack (int64: stack_empty takes no bool arrays): listing the actions allocates nothing
    there = stack_empty(_TARGETS_MAX, np.int64)
    tsh = stack_empty(_TARGETS_MAX, np.int64)
    only = stack_empty(_SEATS_MAX, np.int64)
    for q in range(np_):
        only[q] = 0
        for j in range(ROW):
            there[q * 4 + j] = 0
            tsh[q * 4 + j] = 0
        if q == p or not alive(s, q):
            continue
        only[q] = chance_only(s, env, q)
        for j in range(ROW):
            if s[lb(q, j) + L_CARD] >= 0:
                there[q * 4 + j] = True
                tsh[q * 4 + j] = shield_total(s, env, q, j)
    for i in range(ROW):
        if not can_attack(s, p, i):
            continue
        st = strike_total(s, env, p, i)
        reckless = health_left(s, env, p, i) == 1
        team = team_total(s, env, p, i)
        for q in range(np_):
            only_chance = only[q]
            for j in range(ROW):
                if not there[q * 4 + j]:
                    continue
                sh = tsh[q * 4 + j]
                base = B_ATTACK + ((i * 5 + q) * 4 + j) * 4
                if not only_chance and st > sh:
                    out[n] = base + ST_TRUE
                    n += 1
                if only_chance or st <= sh or chance_any:
                    out[n] = base + ST_CHANCE
                    n += 1
                if not only_chance and reckless:
                    out[n] = base + ST_RECKLESS
                    n += 1
                if not only_chance and st <= sh and team > sh:
                    out[n] = base + ST_TEAM
                    n += 1
    return n


@njit(cache=True, _nrt=False)
def add_equips(s, env, p, pres, lo, out, n):
    """Equip a held Buff kind to a face-up Fighter in slots ``lo``..7 that has no Buff of that type."""
    for k in range(9):
        if not pres[HC_BUFF + k]:
            continue
        t = k // 3
        for j in range(lo, 2 * ROW):
            b = lb(p, j)
            c = s[b + L_CARD]
            if 0 <= c < N_FIGHTERS and s[b + L_FACE] == 1 and s[b + L_BSTR + t] < 0:
                out[n] = B_EQUIP + k * 8 + j
                n += 1
    return n


@njit(cache=True, _nrt=False)
def place(s, env, p, h, j, face):
    i = find_hc(s, env, p, h)
    c = hand_take(s, p, i)
    b = lb(p, j)
    s[b + L_CARD] = c
    s[b + L_FACE] = face
    s[b + L_DMG] = 0
    s[b + L_ATK] = 0
    mark_played(s, p, c)


@njit(cache=True, _nrt=False)
def equip(s, env, p, a):
    k = (a - B_EQUIP) // 8
    j = (a - B_EQUIP) % 8
    i = find_hc(s, env, p, HC_BUFF + k)
    c = hand_take(s, p, i)
    s[lb(p, j) + L_BSTR + k // 3] = c
    mark_played(s, p, c)


@njit(cache=True, _nrt=False)
def begin_play(s, rng, env):
    p = s[H_FIRST]
    for _ in range(s[H_NP]):
        if alive(s, p):
            start_turn(s, rng, env, p)
            return
        p = (p + 1) % s[H_NP]


@njit(cache=True, _nrt=False)
def end_draft(s, rng, env):
    for p in range(2):
        d = DECKS + (1 + p) * DECK_SIZE
        shuffle(rng, s[d + 1:d + 1 + s[d]], s[d])
    for p in range(2):
        draw(s, rng, env, p, HAND_SIZE)
    s[H_PHASE] = PH_MULL
    s[H_SUB] = s[H_FIRST]
    s[H_COUNT] = 0


@njit(cache=True, _nrt=False)
def has_event_target(s, env, p, kind):
    if kind == EV_GRAVE_ROBBER:
        for i in range(s[GRAVE]):
            if s[GRAVE + 1 + i] < N_FIGHTERS:
                return True
        return False
    if kind == EV_DIVINE_AID:
        return False
    for q in range(s[H_NP]):
        for j in range(8):
            if event_target_ok(s, env, p, kind, q, j):
                return True
    return False


@njit(cache=True, _nrt=False)
def pend_trivial(s, env):
    """The head of the queue offers no real choice (it is popped without a decision)."""
    t = s[QUEUE]
    p = s[QUEUE + 1]
    if t == Q_GUARD:
        return not holds_divine_aid(s, env, p)
    if t == Q_TRAP:
        return not has_event_target(s, env, p, s[QUEUE + 2])
    if t == Q_ROAR or t == Q_STORM:
        for q in range(s[H_NP]):
            if q != p and alive(s, q) and front_count(s, q) > 0:
                return False
        return True
    if t == Q_CHANGE:
        return not has_fighter_in_hand(s, p)
    return False


@njit(cache=True)
def settle(s, rng, env):
    """Run forced steps until the next decision: pending decisions first, then the phase's owner."""
    while True:
        if s[H_OVER] == 1:
            return
        if s[H_QN] > 0:
            g = s[QUEUE + 1]
            if not alive(s, g) or pend_trivial(s, env):
                if s[QUEUE] == Q_GUARD:
                    resolve_guard(s, rng, env, False)
                else:
                    q_pop(s)
                continue
            if s[H_PHASE] != PH_PEND:
                s[H_RET] = s[H_PHASE]
                s[H_PHASE] = PH_PEND
            s[H_TOMOVE] = g
            return
        if s[H_FALLING] != 0:  # their Traps have resolved: out now
            for p in range(s[H_NP]):
                if (s[H_FALLING] >> p) & 1:
                    s[H_FALLING] &= ~(1 << p)
                    if alive(s, p):
                        check_line(s, env, p)
                        if alive(s, p) and front_count(s, p) == 0:
                            eliminate(s, env, p)
            continue
        if s[H_PHASE] == PH_PEND:
            s[H_PHASE] = s[H_RET]
        ph = s[H_PHASE]
        if ph == PH_MAIN or ph == PH_PUSH:
            if not alive(s, s[H_ACTIVE]):
                end_turn(s, rng, env)
                continue
            s[H_TOMOVE] = s[H_ACTIVE]
            return
        if ph == PH_EQUIP and not alive(s, s[H_SUB]):
            nxt = next_sub(s)
            if nxt < 0:
                begin_play(s, rng, env)
            else:
                s[H_SUB] = nxt
            continue
        s[H_TOMOVE] = s[H_SUB]
        return


@njit(cache=True)
def apply_action(s, rng, env, a):
    ph = s[H_PHASE]
    p = s[H_TOMOVE]
    if ph == PH_DRAFT:
        i = a - B_MARKET
        c = s[MARKET + 1 + i]
        s[MARKET + 1 + i] = -1
        d = DECKS + (1 + p) * DECK_SIZE
        s[d + 1 + s[d]] = c
        s[d] += 1
        s[H_COUNT] += 1
        s[H_DRAFTED] += 1
        if s[H_COUNT] == 3:  # "selects 3 cards from the Market then replaces those cards"
            for k in range(MARKET_SIZE):
                if s[MARKET + 1 + k] < 0 and s[DECKS] > 0:
                    s[MARKET + 1 + k] = s[DECKS + s[DECKS]]
                    s[DECKS] -= 1
            s[H_COUNT] = 0
            if s[DECKS + DECK_SIZE] >= 18 and s[DECKS + 2 * DECK_SIZE] >= 18:
                end_draft(s, rng, env)
            else:
                s[H_SUB] = 1 - p
    elif ph == PH_MULL:
        if a == A_DONE:
            draw(s, rng, env, p, HAND_SIZE - s[sb(p) + S_HANDN])
            record_opening(s, p)
            s[H_COUNT] = 0
            nxt = next_sub(s)
            if nxt < 0:
                s[H_PHASE] = PH_SETUP
                s[H_SUB] = s[H_FIRST]
            else:
                s[H_SUB] = nxt
        else:
            c = hand_take(s, p, find_hc(s, env, p, a - B_DISCARD))
            deck_bottom(s, env, p, c)
            s[H_COUNT] += 1
    elif ph == PH_SETUP:
        if a == A_DONE:
            nxt = next_sub(s)
            if nxt < 0:
                s[H_PHASE] = PH_EQUIP
                s[H_SUB] = s[H_FIRST]
                reveal(s, env)
            else:
                s[H_SUB] = nxt
        elif a < B_BACK_UP:
            place(s, env, p, a - B_FRONT, first_empty(s, p, 0), 0)
        elif a < B_TRAP:
            place(s, env, p, a - B_BACK_DOWN, first_empty(s, p, 1), 0)
        else:
            place(s, env, p, HC_EVENT + a - B_TRAP, first_empty(s, p, 1), 0)
    elif ph == PH_EQUIP:
        if a == A_DONE:
            nxt = next_sub(s)
            if nxt < 0:
                begin_play(s, rng, env)
            else:
                s[H_SUB] = nxt
        elif a < B_FLIP:
            equip(s, env, p, a)
        else:
            s[lb(p, ROW + a - B_FLIP) + L_FACE] = 1
    elif ph == PH_MAIN:
        main_action(s, rng, env, p, a)
    elif ph == PH_PUSH:
        if a == A_DONE:
            draw(s, rng, env, p, s[H_COUNT])
            s[H_COUNT] = 0
            end_turn(s, rng, env)
        else:
            grave_add(s, hand_take(s, p, find_hc(s, env, p, a - B_DISCARD)))
            s[H_COUNT] += 1
    elif ph == PH_PEND:
        pend_action(s, rng, env, p, a)
    settle(s, rng, env)


@njit(cache=True, _nrt=False)
def play_event_card(s, env, p, kind):
    c = hand_take(s, p, find_hc(s, env, p, HC_EVENT + kind))
    grave_add(s, c)
    mark_played(s, p, c)
    s[H_EVENTS_PLAYED] += 1


@njit(cache=True, _nrt=False)
def grave_robber(s, p, f):
    """Grave Robber (multiplayer effect not printed): take a Fighter from the Graveyard into your hand."""
    i = grave_index(s, f)
    if i >= 0:
        hand_add(s, p, grave_take(s, i))


@njit(cache=True)
def main_action(s, rng, env, p, a):
    if a == A_DONE:
        s[H_PHASE] = PH_PUSH
        s[H_COUNT] = 0
        return
    if a >= B_ATTACK and a < B_CHOICE:
        x = a - B_ATTACK
        t = x % 4
        x //= 4
        j = x % 4
        x //= 4
        attack(s, rng, env, p, x // 5, x % 5, j, t)
        return
    s[H_PLAYS] += 1
    if a < B_BACK_DOWN:
        place(s, env, p, a - B_BACK_UP, first_empty(s, p, 1), 1)
    elif a < B_TRAP:
        place(s, env, p, a - B_BACK_DOWN, first_empty(s, p, 1), 0)
    elif a < B_EQUIP:
        place(s, env, p, HC_EVENT + a - B_TRAP, first_empty(s, p, 1), 0)
    elif a < B_FLIP:
        equip(s, env, p, a)
    elif a < B_RETURN:
        s[lb(p, ROW + a - B_FLIP) + L_FACE] = 1
    elif a < B_UNEQUIP:
        to_hand_with_buffs(s, env, p, ROW + a - B_RETURN, p, False)
    elif a < B_EVENT:
        x = a - B_UNEQUIP
        b = lb(p, ROW + x // 3) + L_BSTR + x % 3
        hand_add(s, p, s[b])
        s[b] = -1
    elif a < B_GRAVE:
        x = a - B_EVENT
        kind = x // 40
        play_event_card(s, env, p, kind)
        resolve_event(s, rng, env, p, kind, (x % 40) // 8, x % 8)
    else:
        play_event_card(s, env, p, EV_GRAVE_ROBBER)
        grave_robber(s, p, a - B_GRAVE)


@njit(cache=True)
def pend_action(s, rng, env, p, a):
    t = s[QUEUE]
    x0, x1, x2 = s[QUEUE + 2], s[QUEUE + 3], s[QUEUE + 4]
    if t == Q_GUARD:
        resolve_guard(s, rng, env, a == B_CHOICE)
        return
    q_pop(s)
    if a == A_DONE:
        return
    if t == Q_TRAP:
        if a >= B_GRAVE:
            grave_robber(s, p, a - B_GRAVE)
        else:
            x = a - B_EVENT
            resolve_event(s, rng, env, p, x // 40, (x % 40) // 8, x % 8)
    elif t == Q_WARP:
        # Weird Warp: "Draw three cards from the draw pile or steal three cards from any opponent's hands at random"
        if a == B_CHOICE + 1:
            draw(s, rng, env, p, 3)
        else:
            q = a - B_CHOICE - 2
            if holds_divine_aid(s, env, q):
                q_push(s, Q_GUARD, q, G_STEAL, 0, 3, p, 0, True)
            else:
                do_steal(s, rng, env, p, q, 3)
    elif t == Q_ROAR:
        q = (a - B_TARGET) // 4
        j = (a - B_TARGET) % 4
        card = s[lb(q, j) + L_CARD]
        if holds_divine_aid(s, env, q):
            q_push(s, Q_GUARD, q, G_FEAR, j, 0, p, card, True)
        else:
            do_fear(s, env, q, j, card)
    elif t == Q_STORM:
        # Magic Storm: "Deal 3 damage among any Frontline enemies", one point at a time
        if x0 > 1:
            q_push(s, Q_STORM, p, x0 - 1, 0, 0, 0, 0, True)
        q = (a - B_TARGET) // 4
        j = (a - B_TARGET) % 4
        damage(s, env, p, q, j, 1, p)
    elif t == Q_CHANGE:
        q, j, card = x0, x1, x2
        if q != p and holds_divine_aid(s, env, q):
            q_push(s, Q_GUARD, q, G_CHANGE, j, a - B_DISCARD, p, card, True)
        else:
            do_change(s, env, p, q, j, card, a - B_DISCARD)


@njit(cache=True)
def start(s, rng, env):
    """A new game advanced to its first decision."""
    new_game(s, rng, env)
    settle(s, rng, env)


@njit(cache=True, _nrt=False)
def is_over(s):
    return s[H_OVER] == 1


@njit(cache=True, _nrt=False)
def to_move(s):
    return s[H_TOMOVE]


@njit(cache=True, _nrt=False)
def reward(s, env, seat):
    m = s[H_WINMASK]
    if (m >> seat) & 1 == 0:
        return 0.0
    k = 0
    for p in range(s[H_NP]):
        k += (m >> p) & 1
    return 1.0 / k


@njit(cache=True)
def _shuffle_pool(pool, n, srng):
    pool[:n] = np.sort(pool[:n])
    for i in range(n - 1, 0, -1):
        j = randbelow(srng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t


@njit(cache=True)
def redistribute(s, env, others, deck_id, srng):
    """Deal the cards hidden from the resampling seat afresh: the draw pile ``deck_id``, the hands of the seats in
    the bit mask ``others`` and their face-down Battle Line cards (a face-down Frontline card during set-up is a
    Fighter, a face-down Backline card a Fighter or an Event), keeping every pile's size."""
    pool = np.empty(N_CARDS, np.int64)
    n = 0
    d = DECKS + deck_id * DECK_SIZE
    for i in range(s[d]):
        pool[n] = s[d + 1 + i]
        n += 1
    np_ = s[H_NP]
    for p in range(np_):
        if (others >> p) & 1 == 0:
            continue
        b = sb(p)
        for i in range(s[b + S_HANDN]):
            pool[n] = s[b + S_HAND + i]
            n += 1
        for j in range(2 * ROW):
            lbj = lb(p, j)
            if s[lbj + L_CARD] >= 0 and s[lbj + L_FACE] == 0:
                pool[n] = s[lbj + L_CARD]
                n += 1
    _shuffle_pool(pool, n, srng)
    used = np.zeros(n, np.bool_)
    for klass in range(2):  # Frontline (Fighters) first, then Backline (Fighters or Events)
        for p in range(np_):
            if (others >> p) & 1 == 0:
                continue
            for j in range(klass * ROW, klass * ROW + ROW):
                lbj = lb(p, j)
                if s[lbj + L_CARD] >= 0 and s[lbj + L_FACE] == 0:
                    for k in range(n):
                        c = pool[k]
                        if not used[k] and (c < N_FIGHTERS if klass == 0 else (c < BUFF0 or c >= EVENT0)):
                            used[k] = True
                            s[lbj + L_CARD] = c
                            break
    k = 0
    for p in range(np_):
        if (others >> p) & 1 == 0:
            continue
        b = sb(p)
        for i in range(s[b + S_HANDN]):
            while used[k]:
                k += 1
            s[b + S_HAND + i] = pool[k]
            used[k] = True
    for i in range(s[d]):
        while used[k]:
            k += 1
        s[d + 1 + i] = pool[k]
        used[k] = True


@njit(cache=True)
def resample(s, rng, env, seat, srng):
    """Determinization for ``seat``: the draw pile order, the other players' hands and their face-down cards are
    dealt afresh from what ``seat`` cannot see (canonically); its own hand and every face-up card stay. In a Duel
    the draft was public: each player's personal pile keeps its cards (its order is reshuffled), and the
    opponent's hand and face-down cards are redealt from the opponent's own pile."""
    np_ = s[H_NP]
    if env[9][R_MODE] == MODE_DUEL:
        d = DECKS + 1
        n = s[DECKS]
        s[d:d + n] = np.sort(s[d:d + n])
        _shuffle_pool(s[d:d + n], n, srng)
        if s[H_PHASE] != PH_DRAFT:
            own = DECKS + (1 + seat) * DECK_SIZE
            _shuffle_pool(s[own + 1:own + 1 + s[own]], s[own], srng)
            o = 1 - seat
            redistribute(s, env, 1 << o, 1 + o, srng)
    else:
        others = 0
        for p in range(np_):
            if p != seat:
                others |= 1 << p
        redistribute(s, env, others, 0, srng)
    reseed(rng, srng)


@njit(cache=True)
def invariants(s, env):
    """0 when every rule invariant holds, else a code: 1 a card missing or twice (all 86 accounted for), 2 a row
    over its limit or a non-Fighter (or a face-down card after set-up) in a Frontline, 3 a Buff misplaced (wrong
    type, on a face-down Fighter or on an Event), 4 Health (damage at or above total Health, or on a Backline
    Fighter), 5 Infamy not the sum of the captures, 6 an eliminated player still holding cards."""
    seen = np.zeros(N_CARDS, np.int64)
    for dk in range(3):
        d = DECKS + dk * DECK_SIZE
        for i in range(s[d]):
            seen[s[d + 1 + i]] += 1
    for i in range(s[GRAVE]):
        seen[s[GRAVE + 1 + i]] += 1
    for i in range(MARKET_SIZE):
        c = s[MARKET + 1 + i]
        if i < s[MARKET] and c >= 0:
            seen[c] += 1
    setup = s[H_PHASE] == PH_SETUP or (s[H_PHASE] == PH_PEND and s[H_RET] == PH_SETUP)
    for p in range(s[H_NP]):
        b = sb(p)
        for i in range(s[b + S_HANDN]):
            seen[s[b + S_HAND + i]] += 1
        inf = 0
        for i in range(s[b + S_CAPN]):
            c = s[b + S_CAP + i]
            seen[c] += 1
            inf += env[1][c]
            if c >= N_FIGHTERS:
                return 5
        if env[9][R_MODE] == MODE_BOUNTY and inf != s[b + S_INFAMY]:
            return 5
        if s[b + S_ELIM] == 1 and s[b + S_HANDN] > 0:
            return 6
        for j in range(2 * ROW):
            l = lb(p, j)
            c = s[l + L_CARD]
            if c < 0:
                for t in range(3):
                    if s[l + L_BSTR + t] >= 0:
                        return 3
                continue
            if s[b + S_ELIM] == 1:
                return 6
            seen[c] += 1
            if c >= BUFF0 and c < EVENT0:
                return 2
            if j < ROW and (c >= N_FIGHTERS or (s[l + L_FACE] == 0 and not setup)):
                return 2
            for t in range(3):
                bc = s[l + L_BSTR + t]
                if bc >= 0:
                    seen[bc] += 1
                    if bc < BUFF0 or bc >= EVENT0 or env[5][bc - BUFF0] != t or c >= N_FIGHTERS or s[l + L_FACE] == 0:
                        return 3
            if c < N_FIGHTERS:
                dmg = s[l + L_DMG]
                if dmg < 0 or dmg >= health_total(s, env, p, j) or (j >= ROW and dmg != 0):
                    return 4
    for c in range(N_CARDS):
        if seen[c] != 1:
            return 1
    return 0
