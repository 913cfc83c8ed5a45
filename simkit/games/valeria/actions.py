"""Action Phase: "exactly two actions, repeats allowed", then the End Phase.

* Slay a Monster: "pay its Strength and, if printed, Magic; Magic may stand in for Strength but at least one
  Strength must be paid; take its reward" (the top Monster of an area; how much Magic stands in is the choice).
* Recruit a Citizen: "cost plus 1 Gold for each copy of that Citizen already owned" (Starters are other cards);
  "it does not activate on the turn it is recruited" holds by itself: the Harvest comes before the actions.
* Gain 1 Gold / Strength / Magic.
* Build a Domain: "pay its cost; the role icons of your Citizens meet its requirement; Starters do not count"
  (the face-up top of a Domain stack; the next one is turned face up).
A stack emptied by an action takes an Exhausted card while any is left. With the Monster Event variant
(``events``) that card may be an Event, slain like a Monster (``A_SLAY_EV``); tokens raise what a Monster needs
and Gold tokens go to its slayer.
"""

from __future__ import annotations

from numba import njit

from simkit.games.valeria.cards import (
    D_BUILD, D_COST, D_REQ, K_COST, M_MAG, M_REWARD, M_STR, MAX_EFFECTS,
)
from simkit.games.valeria import events as EV
from simkit.games.valeria.cards import E_REWARD
from simkit.games.valeria.end import end_why, finish
from simkit.games.valeria.roll import role_counts, start_turn
from simkit.games.valeria.setup import gain, pay, res
from simkit.games.valeria.state import (
    A_BUILD, A_GAIN, A_RECRUIT, A_SLAY, ACTIVE, ACTS, CAPPED, DN, DOM_OWNER, DSTACK, ENDING, EXH_AREA, EXH_CIT,
    EXH_DOM, EXH_LEFT, EXH_PLACED, EXH_STACK, GOLD_, MAGIC_, MAX_DSTACK, MAX_SUB, MON_LEFT, MON_OWNER, N_AREAS,
    N_CIT, N_KINDS, N_RES, N_ROLES, NP, OWN, R_MAGIC_GOLD, R_TURN_CAP, ROUNDS, STACK, STRENGTH_, TURNS,
    A_SLAY_EV, EV_POS, MAX_EV, R_EVENTS, END_WHY, DOM_DEPTH, REST,
)


@njit(cache=True, _nrt=False)
def top_monster(s, env, a):
    """The slayable Monster of area ``a`` (-1 when the area is empty)."""
    areas = env[4]
    if s[MON_LEFT + a] == 0:
        return -1
    return areas[a, 0] + areas[a, 1] - s[MON_LEFT + a]


@njit(cache=True, _nrt=False)
def top_domain(s, d):
    if s[DN + d] == 0:
        return -1
    return s[DSTACK + DOM_DEPTH * d + s[DN + d] - 1]


@njit(cache=True, _nrt=False)
def recruit_cost(s, env, p, k):
    return env[0][k, K_COST] + s[OWN + p * N_KINDS + k]


@njit(cache=True, _nrt=False)
def can_pay_gold(s, env, p, cost):
    """Seat ``p`` can pay a Gold cost: in Gold, or (``rules.magic_gold = "augment"``) in Gold and Magic with at
    least 1 Gold."""
    gd = res(s, p, GOLD_)
    if gd >= cost:
        return True
    return env[5][R_MAGIC_GOLD] == 1 and gd >= 1 and gd + res(s, p, MAGIC_) >= cost


@njit(cache=True, _nrt=False)
def pay_gold(s, p, cost):
    """Pay a Gold cost: Gold first, Magic for the rest (only reached with ``magic_gold = "augment"``)."""
    g = min(cost, res(s, p, GOLD_))
    pay(s, p, GOLD_, g)
    if cost > g:
        pay(s, p, MAGIC_, cost - g)


@njit(cache=True, _nrt=False)
def can_build(s, env, p, dom, rc):
    """Seat ``p`` (role-icon counts ``rc``) can pay Domain ``dom`` and meets its requirement."""
    doms = env[2]
    if not can_pay_gold(s, env, p, doms[dom, D_COST]):
        return False
    for r in range(N_ROLES):
        if rc[r] < doms[dom, D_REQ + r]:
            return False
    return True


@njit(cache=True, _nrt=False)
def action_legal(s, env, out):
    """The active player's legal actions: every payable slay (each Magic-for-Strength split), recruit, build, and
    the three gains."""
    mons = env[1]
    p = s[ACTIVE]
    n = 0
    st, mg, gd = res(s, p, STRENGTH_), res(s, p, MAGIC_), res(s, p, GOLD_)
    for a in range(N_AREAS):
        m = top_monster(s, env, a)
        if m < 0:
            continue
        need_s, need_m = EV.area_need(s, env, m, 1), EV.area_need(s, env, m, 2)
        for x in range(need_s):  # Magic standing in: at most need_s - 1 (at least one Strength)
            if x >= MAX_SUB:
                break
            if st >= need_s - x and mg >= need_m + x:
                out[n] = A_SLAY + a * MAX_SUB + x
                n += 1
    for k in range(N_CIT):
        if s[STACK + k] > 0 and can_pay_gold(s, env, p, recruit_cost(s, env, p, k)):
            out[n] = A_RECRUIT + k
            n += 1
    for r in range(N_RES):
        out[n] = A_GAIN + r
        n += 1
    rc = role_counts(s, env[0], p)
    for d in range(MAX_DSTACK):
        dom = top_domain(s, d)
        if dom >= 0 and can_build(s, env, p, dom, rc):
            out[n] = A_BUILD + d
            n += 1
    if env[5][R_EVENTS]:
        for e in range(MAX_EV):  # Events face up in the Center stacks: slayable Monsters
            if s[EV_POS + e] < 0:
                continue
            need_s, need_m = EV.event_need(s, env, e, 1), EV.event_need(s, env, e, 2)
            for x in range(min(need_s, MAX_SUB)):
                if st >= need_s - x and mg >= need_m + x:
                    out[n] = A_SLAY_EV + e * MAX_SUB + x
                    n += 1
    return n


@njit(cache=True, _nrt=False)
def _exhaust(s, env, slot):
    if env[5][R_EVENTS]:
        EV.reveal(s, slot)
        return
    if s[EXH_LEFT] > 0:
        s[EXH_LEFT] -= 1
        s[EXH_PLACED] += 1
        s[EXH_STACK + slot] = 1


@njit(cache=True, _nrt=False)
def apply_action_phase(s, rng, env, a):
    """Take one action; after the second, the End Phase and the next player's Roll Phase."""
    mons, doms = env[1], env[2]
    p = s[ACTIVE]
    if a >= A_SLAY_EV:
        e, x = (a - A_SLAY_EV) // MAX_SUB, (a - A_SLAY_EV) % MAX_SUB
        ev = env[7]
        pay(s, p, STRENGTH_, EV.event_need(s, env, e, 1) - x)
        pay(s, p, MAGIC_, EV.event_need(s, env, e, 2) + x)
        for j in range(MAX_EFFECTS):
            if ev[e, E_REWARD + 2 * j + 1] > 0:
                gain(s, p, ev[e, E_REWARD + 2 * j], ev[e, E_REWARD + 2 * j + 1], False)
        EV.take_event(s, e, p)
    elif a < A_RECRUIT:
        area, x = (a - A_SLAY) // MAX_SUB, (a - A_SLAY) % MAX_SUB
        m = top_monster(s, env, area)
        pay(s, p, STRENGTH_, EV.area_need(s, env, m, 1) - x)
        pay(s, p, MAGIC_, EV.area_need(s, env, m, 2) + x)
        for j in range(MAX_EFFECTS):
            if mons[m, M_REWARD + 2 * j + 1] > 0:
                gain(s, p, mons[m, M_REWARD + 2 * j], mons[m, M_REWARD + 2 * j + 1], False)
        if env[5][R_EVENTS]:
            EV.clear_monster(s, m, p)
        s[MON_OWNER + m] = p
        s[MON_LEFT + area] -= 1
        if s[MON_LEFT + area] == 0:
            _exhaust(s, env, EXH_AREA + area)
    elif a < A_GAIN:
        k = a - A_RECRUIT
        pay_gold(s, p, recruit_cost(s, env, p, k))
        s[OWN + p * N_KINDS + k] += 1
        s[STACK + k] -= 1
        if s[STACK + k] == 0:
            _exhaust(s, env, EXH_CIT + k)
    elif a < A_BUILD:
        gain(s, p, a - A_GAIN, 1, False)
    else:
        d = a - A_BUILD
        dom = top_domain(s, d)
        pay_gold(s, p, doms[dom, D_COST])
        for r in range(N_RES):
            if doms[dom, D_BUILD + r] > 0:
                gain(s, p, r, doms[dom, D_BUILD + r], False)
        s[DOM_OWNER + dom] = p
        s[DN + d] -= 1
        if s[DN + d] == 0:
            _exhaust(s, env, EXH_DOM + d)
    s[ACTS] -= 1
    if s[ACTS] > 0:
        return
    end_turn(s, rng, env)


@njit(cache=True, _nrt=False)
def end_turn(s, rng, env):
    """End Phase: check the end conditions; the round is finished so that everyone has had equal turns (the game
    ends when play comes back to seat 0); ``rules.turn_cap`` rounds end a game as capped (a simulator guard). The
    5-player variant: "Each time the dice pass left to the next Active Player, the Rest Token passes to the
    left"."""
    if not s[ENDING]:
        why = end_why(s, env)
        if why:
            s[ENDING] = 1
            s[END_WHY] = why
    s[TURNS] += 1
    nxt = (s[ACTIVE] + 1) % s[NP]
    if nxt == 0:
        s[ROUNDS] += 1
        if s[ENDING] or s[ROUNDS] >= env[5][R_TURN_CAP]:
            if not s[ENDING]:
                s[CAPPED] = 1
            finish(s, env)
            return
    s[ACTIVE] = nxt
    if s[REST] >= 0:
        s[REST] = (s[REST] + 1) % s[NP]
    start_turn(s, rng, env)
